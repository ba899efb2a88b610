/* stridemap merge: join the part files of a sweep. */
#include <signal.h>

#include "sweep_cli.h"

static const char help[] =
    "usage: stridemap merge DIR\n"
    "\n"
    "Joins the parts of a sweep in DIR (DIR/part-*.csv from shards, MPI ranks or\n"
    "interrupted runs) into DIR/sweep.csv: one header, every point's row once,\n"
    "sorted by index; and their sidecars into DIR/sweep.json.  Torn last lines\n"
    "are left out.  Exit status 1 (with sweep.csv written) when points are still\n"
    "missing.\n"
    "\n"
    "example:\n"
    "  stridemap merge compass-map\n";

int cmd_merge(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "merge");
    static const struct option opts[] = {{"help", no_argument, 0, OPT_HELP}, {0, 0, 0, 0}};
    /* A file-size limit or quota: a message and exit 74, not a silent kill. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc == 2 && argv[1][0] != '-') return cli_merge_dir(&run, argv[1], false);
    int rc = cli_parse(&run, argc, argv, opts, help, NULL, NULL, true);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    return cli_fail(&run, EX_USAGE, "which directory? (see 'stridemap merge --help')");
}
