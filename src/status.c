#include "stridemap/status.h"

static const char *const names[] = {
#define SM_STATUS_NAME(code, name, msg) name,
    SM_STATUS_LIST(SM_STATUS_NAME)
#undef SM_STATUS_NAME
};

static const char *const messages[] = {
#define SM_STATUS_MSG(code, name, msg) msg,
    SM_STATUS_LIST(SM_STATUS_MSG)
#undef SM_STATUS_MSG
};

const char *sm_status_name(sm_status s)
{
    return (s >= 0 && s < SM_STATUS_COUNT) ? names[s] : "unknown_status";
}

const char *sm_strerror(sm_status s)
{
    return (s >= 0 && s < SM_STATUS_COUNT) ? messages[s] : "unknown status";
}
