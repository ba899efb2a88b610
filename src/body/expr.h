/* Expressions of the parameters in body-walker files (expr.c). */
#ifndef STRIDEMAP_BODY_EXPR_H
#define STRIDEMAP_BODY_EXPR_H

#include <stddef.h>

#include "body_def.h"

/* Compiles text (+ - * / ^, parentheses, unary minus, sqrt sin cos tan
 * atan2(y, x), pi, numbers, the parameter names) into *out: a lone
 * parameter becomes out->param, anything else a program linked into *list
 * (freed by body_expr_free_list).  Returns 0, or -1 with a message in err
 * and the offending character's offset in text in *err_off; -2 when out of
 * memory. */
int body_num_compile(const char *text, const char *const *names, size_t n_names, body_num *out,
                     body_expr **list, char *err, size_t err_len, size_t *err_off);

void body_expr_free_list(body_expr *list);

#endif
