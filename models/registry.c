/* The registry: the built-in walkers (listed in models.def) and model files
 * found by name.  Adding a walker: its file in models/, its line in
 * models.def, its source in models/meson.build. */
#include "stridemap/registry.h"

#include "../src/body/open.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models.h"

static const sm_model *const builtin[] = {
#define SM_MODEL(name) &sm_model_##name,
#include "models.def"
#undef SM_MODEL
};

size_t sm_registry_count(void) { return sizeof builtin / sizeof builtin[0]; }

const sm_model *sm_registry_at(size_t i) { return i < sm_registry_count() ? builtin[i] : NULL; }

const sm_model *sm_registry_find(const char *name)
{
    for (size_t i = 0; i < sm_registry_count(); i++)
        if (strcmp(builtin[i]->name, name) == 0) return builtin[i];
    return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A model file: a path ending in .yaml, or models/NAME.yaml: a walker as a
 * tree of rigid bodies (docs/body-walkers.md). */
static sm_status open_file(const char *path, const sm_model **out, char *why, size_t why_len)
{
    return body_open(path, out, why, why_len);
}

/* The installed model directory found from where this code was loaded:
 * the program in bindir, or libstridemap.so in libdir, of a tree installed
 * with DESTDIR or moved since (meson.build's SM_MODELDIR_FROM_*).  NULL
 * where there is none, or it is STRIDEMAP_MODELDIR itself. */
static const char *relocated_dir(char *buf, size_t len)
{
    static const char anchor = 0;
    Dl_info info;
    struct link_map *lm = NULL;
    char obj[PATH_MAX], here[PATH_MAX], installed[PATH_MAX];
    if (!dladdr1(&anchor, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return NULL;
    const bool program = lm->l_name[0] == '\0'; /* the main program has no name of its own */
    if (program) {
        const ssize_t n = readlink("/proc/self/exe", obj, sizeof obj - 1);
        if (n <= 0) return NULL;
        obj[n] = '\0';
    } else {
        snprintf(obj, sizeof obj, "%s", lm->l_name);
    }
    const char *rel = program ? SM_MODELDIR_FROM_BINDIR : SM_MODELDIR_FROM_LIBDIR;
    char *slash = strrchr(obj, '/');
    if (!slash || !rel[0]) return NULL;
    *slash = '\0';
    snprintf(buf, len, "%s/%s", obj, rel);
    if (!realpath(buf, here)) return NULL;
    if (realpath(STRIDEMAP_MODELDIR, installed) && strcmp(here, installed) == 0) return NULL;
    return buf;
}

const char *sm_registry_model_dir(size_t i, char *buf, size_t len)
{
    const char *env = getenv("STRIDEMAP_MODEL_PATH");
    for (const char *d = env && *env ? env : NULL; d; d = strchr(d, ':') ? strchr(d, ':') + 1 : NULL) {
        const size_t n = strcspn(d, ":");
        if (n == 0) continue; /* an empty entry, as in "a::b" */
        if (i-- == 0) {
            snprintf(buf, len, "%.*s", (int)n, d);
            return buf;
        }
    }
    const char *fixed[] = {"models", STRIDEMAP_MODELDIR};
    if (i < sizeof fixed / sizeof *fixed) {
        snprintf(buf, len, "%s", fixed[i]);
        return buf;
    }
    return i == sizeof fixed / sizeof *fixed ? relocated_dir(buf, len) : NULL;
}

sm_status sm_registry_open(const char *name, const sm_model **out, char *why, size_t why_len)
{
    *out = sm_registry_find(name);
    if (*out) return SM_OK;
    if (ends_with(name, ".yaml") || ends_with(name, ".yml")) return open_file(name, out, why, why_len);
    char dir[1024], path[2048];
    if (!strchr(name, '/') && strlen(name) < 900) {
        for (size_t i = 0; sm_registry_model_dir(i, dir, sizeof dir); i++) {
            snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
            FILE *f = fopen(path, "rb");
            if (f) {
                fclose(f);
                return open_file(path, out, why, why_len);
            }
        }
    }
    snprintf(why, why_len,
             "unknown model '%s': not a built-in walker, and no %s.yaml in STRIDEMAP_MODEL_PATH, ./models or %s "
             "(see sm_registry_count and sm_registry_at)",
             name, name, STRIDEMAP_MODELDIR);
    return SM_UNKNOWN_MODEL;
}

void sm_registry_close(const sm_model *m)
{
    if (m && m->release) m->release(m);
}
