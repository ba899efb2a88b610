#include "stridemap/status.h"

static const char *const names[] = {
#define SM_STATUS_NAME(code, name, kind, msg) name,
    SM_STATUS_LIST(SM_STATUS_NAME)
#undef SM_STATUS_NAME
};

static const char *const messages[] = {
#define SM_STATUS_MSG(code, name, kind, msg) msg,
    SM_STATUS_LIST(SM_STATUS_MSG)
#undef SM_STATUS_MSG
};

static const sm_kind kinds[] = {
#define SM_STATUS_KIND(code, name, kind, msg) kind,
    SM_STATUS_LIST(SM_STATUS_KIND)
#undef SM_STATUS_KIND
};

const char *sm_status_name(sm_status s)
{
    return (s >= 0 && s < SM_STATUS_COUNT) ? names[s] : "unknown_status";
}

const char *sm_strerror(sm_status s)
{
    return (s >= 0 && s < SM_STATUS_COUNT) ? messages[s] : "unknown status";
}

sm_kind sm_status_kind(sm_status s)
{
    return (s >= 0 && s < SM_STATUS_COUNT) ? kinds[s] : SM_KIND_INPUT;
}
