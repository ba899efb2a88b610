/* MuJoCo reached at run time (dlopen), not linked: only `stridemap import`
 * needs it, and linking it made every start of the program pay for mapping
 * and relocating libmujoco and the libraries under it (bench/README.md).
 * The header is still MuJoCo 2.2.2's, for mjModel's layout, so the library
 * opened must be that version: mujoco_dl_open checks mj_version(). */
#ifndef STRIDEMAP_MUJOCO_DL_H
#define STRIDEMAP_MUJOCO_DL_H

#include <stdbool.h>
#include <stddef.h>

#include <mujoco/mujoco.h>

/* The functions the importer calls, typed by the header's own declarations. */
typedef struct {
    void *handle;
    __typeof__(&mj_version) version;
    __typeof__(&mj_loadXML) loadXML;
    __typeof__(&mj_deleteModel) deleteModel;
    __typeof__(&mj_id2name) id2name;
    __typeof__(&mj_name2id) name2id;
    __typeof__(&mju_zero3) zero3;
    __typeof__(&mju_copy3) copy3;
    __typeof__(&mju_copy4) copy4;
    __typeof__(&mju_sub3) sub3;
    __typeof__(&mju_addTo3) addTo3;
    __typeof__(&mju_addToScl3) addToScl3;
    __typeof__(&mju_normalize4) normalize4;
    __typeof__(&mju_quat2Mat) quat2Mat;
    __typeof__(&mju_rotVecMat) rotVecMat;
    __typeof__(&mju_mulQuat) mulQuat;
    __typeof__(&mju_axisAngle2Quat) axisAngle2Quat;
    /* MuJoCo's handlers are variables: these are their addresses */
    __typeof__(&mju_user_error) user_error;
    __typeof__(&mju_user_warning) user_warning;
} mujoco_dl;

/* The file opened: $STRIDEMAP_MUJOCO_LIB if set (nothing else is tried
 * then), else the soname of Debian's libmujoco2.2.2, else libmujoco.so. */
#define MUJOCO_DL_ENV "STRIDEMAP_MUJOCO_LIB"
#define MUJOCO_DL_SONAME "libmujoco.so.2.2.2"

/* Opens MuJoCo and finds every function; false (nothing left open) with why
 * on one line: the loader's message and what to install. */
bool mujoco_dl_open(mujoco_dl *mj, char *why, size_t why_len);
void mujoco_dl_close(mujoco_dl *mj);

#endif
