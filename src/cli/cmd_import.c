/* stridemap import: a MuJoCo model file (MJCF or URDF) as the bodies and sites
 * of a body-walker model file (docs/body-walkers.md, stridemap/import.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "stridemap/import.h"

static const char help[] =
    "usage: stridemap import FILE.xml [-o MODEL.yaml]\n"
    "\n"
    "Reads an MJCF or URDF file with MuJoCo and writes the bodies, sites, gravity\n"
    "and joint springs of a body-walker model file (docs/body-walkers.md) on\n"
    "stdout, or into MODEL.yaml with -o (written whole or not at all); complete\n"
    "it with contacts, phases, section and guess.  The masses and inertias are\n"
    "the ones MuJoCo compiled; where its compiler changed the file's own values\n"
    "(balanceinertia, boundmass, boundinertia, inertiafromgeom) or fused a body\n"
    "away (fusestatic), a warning names the body and both values.  What the\n"
    "format cannot hold (joint limits, armature, actuators, geom contacts, ...)\n"
    "is a warning too.  Warnings go to stderr, one line each, and into the\n"
    "file as comments.\n"
    "\n"
    "  -o, --out FILE   write FILE instead of stdout\n"
    "\n"
    "exit status: 0 written, 64 bad usage, 65 MuJoCo refuses the file (its message\n"
    "on one line) or it cannot be converted, 66 FILE cannot be read, 69 built\n"
    "without MuJoCo or MuJoCo cannot be loaded (libmujoco.so.2.2.2, or the file\n"
    "STRIDEMAP_MUJOCO_LIB names), 73 the output cannot be created, 74 a write\n"
    "error.\n"
    "\n"
    "example:\n"
    "  stridemap import walker.xml -o walker.yaml\n";

/* The output goes to a temporary file beside path, renamed over path once
 * whole, so that a reader never sees half a model; it is created before any
 * work, so that an output that cannot be created costs nothing. */
typedef struct {
    char *tmp;
    FILE *f;
} out_file;

static int open_out(const cli_run *run, const char *path, out_file *o)
{
    if (asprintf(&o->tmp, "%s.tmpXXXXXX", path) < 0) return cli_fail(run, EX_OSERR, "out of memory");
    const int fd = mkstemp(o->tmp);
    /* mkstemp's 0600 would outlive the rename: the mode an ordinary new file gets */
    const mode_t mask = umask(0);
    umask(mask);
    if (fd >= 0) fchmod(fd, 0666 & ~mask);
    o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (o->f) return 0;
    const int e = errno;
    if (fd >= 0) {
        close(fd);
        unlink(o->tmp);
    }
    free(o->tmp);
    o->tmp = NULL;
    return cli_fail(run, EX_CANTCREAT, "cannot create %s: %s (choose another -o)", path, strerror(e));
}

/* Closes o and, if keep, renames it over path; otherwise, or when that
 * fails, removes it.  Returns 0 or an exit code, said. */
static int close_out(const cli_run *run, out_file *o, const char *path, bool keep)
{
    if (!o->f) return 0;
    int rc = 0;
    if (fclose(o->f) != 0 && keep) {
        rc = cli_fail(run, EX_IOERR, "could not write %s: %s", path, strerror(errno));
        keep = false;
    }
    if (keep && rename(o->tmp, path) != 0) {
        /* written whole, but it cannot take path's place (a directory there) */
        rc = cli_fail(run, EX_CANTCREAT, "cannot create %s: %s (choose another -o)", path, strerror(errno));
        keep = false;
    }
    if (!keep) unlink(o->tmp);
    free(o->tmp);
    o->f = NULL;
    o->tmp = NULL;
    return rc;
}

int cmd_import(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "import");
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return 0;
        }
        if (c == 'o') {
            out = optarg;
            continue;
        }
        if (optopt)
            return cli_fail(&run, EX_USAGE, "option '%s' needs a value (see 'stridemap import --help')",
                            argv[optind - 1]);
        return cli_fail(&run, EX_USAGE, "unknown option '%s' (see 'stridemap import --help')", argv[optind - 1]);
    }
    if (optind >= argc) return cli_fail(&run, EX_USAGE, "which file? (see 'stridemap import --help')");
    if (optind + 1 < argc)
        return cli_fail(&run, EX_USAGE, "takes one file; unexpected '%s'", argv[optind + 1]);
    const char *path = argv[optind];
    if (!sm_import_available()) {
        fputs("stridemap import needs MuJoCo: install libmujoco-dev and rebuild\n", stderr);
        return EX_UNAVAILABLE;
    }

    out_file o = {0};
    const bool to_file = out && strcmp(out, "-") != 0;
    if (to_file) {
        const int rc = open_out(&run, out, &o);
        if (rc) return rc;
    }
    sm_import *imp = NULL;
    char why[1200];
    sm_status st = sm_import_mjcf(path, &imp, why, sizeof why);
    if (st != SM_OK) {
        close_out(&run, &o, out, false);
        const int code = st == SM_UNAVAILABLE ? EX_UNAVAILABLE : cli_exit_code(st, EX_NOINPUT);
        return cli_fail(&run, code, "%s", why);
    }
    for (size_t i = 0; i < imp->nwarn; i++) fprintf(stderr, "stridemap import: warning: %s\n", imp->warnings[i]);
    st = sm_import_write_yaml(imp, path, to_file ? o.f : stdout, why, sizeof why);
    /* a model file that did not reach the disk whole is a write error */
    if (to_file && st == SM_OK && (fflush(o.f) != 0 || fsync(fileno(o.f)) != 0)) {
        st = SM_IO_ERROR;
        snprintf(why, sizeof why, "could not write %s: %s", out, strerror(errno));
    }
    int rc = st != SM_OK ? cli_fail(&run, cli_exit_code(st, EX_IOERR), "%s", why) : 0;
    if (to_file) {
        const int crc = close_out(&run, &o, out, st == SM_OK);
        if (!rc) rc = crc;
    }
    sm_import_free(imp);
    return rc;
}
