/* MuJoCo by dlopen (mujoco_dl.h). */
#include "mujoco_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dl_library.h"

#define HINT "install the Debian package libmujoco2.2.2 (libmujoco-dev brings it)"

static const sm_dl_symbol symbols[] = {
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

static const sm_dl_library library = {
    "MuJoCo", MUJOCO_DL_ENV, MUJOCO_DL_SONAME,
    "libmujoco.so", /* the name libmujoco-dev links to, should the soname be another */
    HINT, "set " MUJOCO_DL_ENV " to the path of " MUJOCO_DL_SONAME ", or unset it", RTLD_NOW | RTLD_LOCAL};

bool mujoco_dl_open(mujoco_dl *mj, char *why, size_t why_len)
{
    memset(mj, 0, sizeof *mj);
    const char *file, *hint;
    if (!(mj->handle = sm_dl_open(&library, &file, &hint, why, why_len))) return false;
    if (!sm_dl_resolve(mj->handle, symbols, sizeof symbols / sizeof symbols[0], mj, library.what, file, hint, why,
                       why_len)) {
        mujoco_dl_close(mj);
        return false;
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
