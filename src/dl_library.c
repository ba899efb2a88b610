/* Shared libraries by dlopen (dl_library.h). */
#include "dl_library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *sm_dl_open(const sm_dl_library *lib, const char **file, const char **hint, char *why, size_t why_len)
{
    const char *env = getenv(lib->env);
    const bool chosen = env && *env;
    *file = chosen ? env : lib->soname;
    *hint = chosen ? lib->hint_chosen : lib->hint;
    void *handle = dlopen(*file, lib->flags);
    if (handle) return handle;
    const char *e = dlerror();
    char said[512];
    snprintf(said, sizeof said, "%s", e ? e : *file);
    if (!chosen && lib->fallback && (handle = dlopen(lib->fallback, lib->flags))) {
        *file = lib->fallback;
        return handle;
    }
    if (why && why_len) snprintf(why, why_len, "cannot load %s: %s; %s", lib->what, said, *hint);
    return NULL;
}

bool sm_dl_resolve(void *handle, const sm_dl_symbol *symbols, size_t n, void *out, const char *what,
                   const char *file, const char *hint, char *why, size_t why_len)
{
    for (size_t i = 0; i < n; i++) {
        dlerror();
        void *p = dlsym(handle, symbols[i].name);
        if (!p) {
            const char *e = dlerror();
            if (why && why_len)
                snprintf(why, why_len, "cannot load %s from %s: %s; %s", what, file, e ? e : symbols[i].name, hint);
            return false;
        }
        memcpy((char *)out + symbols[i].at, &p, sizeof p);
    }
    return true;
}
