/* Pieces shared by the sweep's source files (not installed). */
#ifndef STRIDEMAP_SWEEP_INTERNAL_H
#define STRIDEMAP_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/sweep.h"

/* Text appended to buf[pos..len); ok turns false once it no longer fits. */
typedef struct {
    char *buf;
    size_t len, pos;
    bool ok;
} sweep_out;

/* printf into o (sweep_csv.c); does nothing once o is full. */
void sweep_put(sweep_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses the finite number s[0..len) (sweep_grid.c); false for anything
 * else, an overflow or a number that is not whole text. */
bool sweep_parse_number(const char *s, size_t len, double *out);

/* Column positions of a sweep CSV for a model and grid. */
typedef struct {
    size_t n_cols;
    size_t col_converged;
    size_t col_x;  /* first of n_state state columns */
} sweep_layout;

void sweep_csv_layout(const sm_model *m, const sm_sweep_grid *g, sweep_layout *lay);

/* Parses one complete row (without its '\n'): its index, converged flag and
 * state x[n_state].  False if the row is malformed. */
bool sweep_csv_parse_row(const sweep_layout *lay, size_t n_state, const char *line, size_t len,
                         long *index, bool *converged, double *x);

/* The length of a CSV header line with its '\n' (names may be quoted and
 * hold line breaks), or 0 if buf[len] holds no whole line. */
size_t sweep_csv_header_len(const char *buf, size_t len);

/* The number of fields of one line (without its '\n'), quotes respected. */
size_t sweep_csv_fields(const char *line, size_t len);

/* Reads a whole file into a NUL-terminated buffer (free it); NULL on error. */
char *sweep_read_file(const char *path, size_t *len);

/* The sweep's signature (sweep_sig.c) in buf: its length, 0 if it does not fit. */
/* Room for any signature: SM_MAX_PARAMS named values, SM_MAX_STATE guesses,
 * the settings and a task's own lines. */
#define SWEEP_SIG_MAX (1u << 18)
size_t sweep_signature(const sm_sweep_config *c, char *buf, size_t len);

/* SM_BAD_OPTION, naming the first field that differs, if a DIR/part-*.sig
 * holds another signature than sig. */
sm_status sweep_signature_check(const char *dir, const char *sig, char *why, size_t why_len);

/* Writes sig to path whole (a temporary file renamed). */
sm_status sweep_signature_write(const char *path, const char *sig, size_t len, char *why, size_t why_len);


#endif
