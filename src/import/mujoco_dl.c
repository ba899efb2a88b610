/* MuJoCo by dlopen (mujoco_dl.h). */
#include "mujoco_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HINT "install the Debian package libmujoco2.2.2 (libmujoco-dev brings it)"

static const struct {
    const char *name;
    size_t at;
} symbols[] = {
#define SYM(field, name) {#name, offsetof(mujoco_dl, field)}
    SYM(version, mj_version),         SYM(loadXML, mj_loadXML),       SYM(deleteModel, mj_deleteModel),
    SYM(id2name, mj_id2name),         SYM(name2id, mj_name2id),       SYM(zero3, mju_zero3),
    SYM(copy3, mju_copy3),            SYM(copy4, mju_copy4),          SYM(sub3, mju_sub3),
    SYM(addTo3, mju_addTo3),          SYM(addToScl3, mju_addToScl3),  SYM(normalize4, mju_normalize4),
    SYM(quat2Mat, mju_quat2Mat),      SYM(rotVecMat, mju_rotVecMat),  SYM(mulQuat, mju_mulQuat),
    SYM(axisAngle2Quat, mju_axisAngle2Quat),
    SYM(user_error, mju_user_error),  SYM(user_warning, mju_user_warning),
#undef SYM
};

bool mujoco_dl_open(mujoco_dl *mj, char *why, size_t why_len)
{
    memset(mj, 0, sizeof *mj);
    const char *env = getenv(MUJOCO_DL_ENV);
    const bool chosen = env && *env;
    const char *file = chosen ? env : MUJOCO_DL_SONAME,
               *hint = chosen ? "set " MUJOCO_DL_ENV " to the path of " MUJOCO_DL_SONAME ", or unset it" : HINT;
    mj->handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!mj->handle) {
        const char *e = dlerror();
        char said[512];
        snprintf(said, sizeof said, "%s", e ? e : file);
        /* the name libmujoco-dev links to, should the soname be another */
        if (!chosen && (mj->handle = dlopen("libmujoco.so", RTLD_NOW | RTLD_LOCAL))) file = "libmujoco.so";
        if (!mj->handle) {
            if (why && why_len)
                snprintf(why, why_len, "cannot load MuJoCo: %s; %s", said, hint);
            return false;
        }
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        dlerror();
        void *p = dlsym(mj->handle, symbols[i].name);
        if (!p) {
            const char *e = dlerror();
            if (why && why_len)
                snprintf(why, why_len, "cannot load MuJoCo from %s: %s; %s", file, e ? e : symbols[i].name, hint);
            mujoco_dl_close(mj);
            return false;
        }
        /* POSIX: a function's address from dlsym fits a void * */
        memcpy((char *)mj + symbols[i].at, &p, sizeof p);
    }
    /* mjModel's layout is the header's: another version's would be misread */
    const int v = mj->version();
    if (v != mjVERSION_HEADER) {
        if (why && why_len)
            snprintf(why, why_len, "cannot use MuJoCo from %s: it is version %d.%d.%d, this build reads %d.%d.%d's "
                                   "models; %s",
                     file, v / 100, v / 10 % 10, v % 10, mjVERSION_HEADER / 100, mjVERSION_HEADER / 10 % 10,
                     mjVERSION_HEADER % 10, hint);
        mujoco_dl_close(mj);
        return false;
    }
    return true;
}

void mujoco_dl_close(mujoco_dl *mj)
{
    if (mj->handle) dlclose(mj->handle);
    memset(mj, 0, sizeof *mj);
}
