/* Numeric fields of body-walker files: a number, a parameter, or an
 * expression of parameters, compiled once by recursive descent into a
 * stack program so that evaluating it (every right-hand side, every event)
 * is a short loop without parsing or allocation.
 *
 *   expr  := term (('+' | '-') term)*
 *   term  := unary (('*' | '/') unary)*
 *   unary := ('-' | '+') unary | power
 *   power := primary ('^' unary)?          right-associative; -a^2 = -(a^2)
 *   primary := number | pi | NAME | FUNC '(' expr [',' expr] ')' | '(' expr ')'
 *
 * Names may hold dots (bodies.leg_a.mass is a parameter's name). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

enum { OP_CONST, OP_PARAM, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_NEG, OP_SQRT, OP_SIN, OP_COS, OP_TAN,
       OP_ATAN2 };

typedef struct {
    int code, idx;
    double c;
} op;

/* Bounds that keep a hostile file from exhausting the C stack or the
 * evaluation stack (the fuzzer's nested parentheses). */
#define MAX_OPS 256
#define MAX_DEPTH 32
#define MAX_STACK 64

struct body_expr {
    body_expr *next;
    size_t n;
    op ops[];
};

typedef struct {
    const char *s, *p;
    const char *const *names;
    size_t n_names;
    op ops[MAX_OPS];
    size_t n;
    int depth, stack, max_stack;
    char *err;
    size_t err_len, err_off;
    bool failed;
} parser;

static bool fail(parser *ps, const char *at, const char *fmt, const char *arg)
{
    if (!ps->failed) {
        snprintf(ps->err, ps->err_len, fmt, arg);
        ps->err_off = (size_t)(at - ps->s);
        ps->failed = true;
    }
    return false;
}

static bool emit(parser *ps, int code, int idx, double c)
{
    if (ps->n >= MAX_OPS) return fail(ps, ps->p, "%sthe expression is too long; split it with a parameter", "");
    ps->ops[ps->n++] = (op){code, idx, c};
    if (code == OP_CONST || code == OP_PARAM) ps->stack++;
    else if (code != OP_NEG && code != OP_SQRT && code != OP_SIN && code != OP_COS && code != OP_TAN) ps->stack--;
    if (ps->stack > ps->max_stack) ps->max_stack = ps->stack;
    if (ps->max_stack > MAX_STACK) return fail(ps, ps->p, "%sthe expression is nested too deeply", "");
    return true;
}

static void skip(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t') ps->p++;
}

static bool expr(parser *ps);
static bool unary(parser *ps);

static bool is_name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.'; }

static bool primary(parser *ps)
{
    skip(ps);
    const char *at = ps->p;
    if (*ps->p == '(') {
        ps->p++;
        if (!expr(ps)) return false;
        skip(ps);
        if (*ps->p != ')') return fail(ps, ps->p, "%sa ')' is missing", "");
        ps->p++;
        return true;
    }
    if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
        char *end;
        const double v = strtod(ps->p, &end);
        if (end == ps->p || !isfinite(v)) return fail(ps, at, "%snot a number", "");
        ps->p = end;
        return emit(ps, OP_CONST, 0, v);
    }
    if (!is_name_start(*ps->p)) {
        if (*ps->p == '\0') return fail(ps, at, "%sthe expression ends where a value is expected", "");
        return fail(ps, at, "%sa number, a parameter's name or '(' is expected here", "");
    }
    char name[128];
    size_t k = 0;
    while (is_name_char(*ps->p)) {
        if (k + 1 < sizeof name) name[k++] = *ps->p;
        ps->p++;
    }
    name[k] = '\0';
    /* a parameter's name wins over a function's (a parameter may be called pi) */
    for (size_t i = 0; i < ps->n_names; i++)
        if (ps->names[i] && strcmp(ps->names[i], name) == 0) return emit(ps, OP_PARAM, (int)i, 0);
    static const struct {
        const char *name;
        int code, args;
    } fn[] = {{"sqrt", OP_SQRT, 1}, {"sin", OP_SIN, 1}, {"cos", OP_COS, 1}, {"tan", OP_TAN, 1}, {"atan2", OP_ATAN2, 2}};
    if (strcmp(name, "pi") == 0) return emit(ps, OP_CONST, 0, M_PI);
    for (size_t f = 0; f < sizeof fn / sizeof *fn; f++) {
        if (strcmp(name, fn[f].name) != 0) continue;
        skip(ps);
        if (*ps->p != '(') return fail(ps, ps->p, "'%s' needs its argument in parentheses", fn[f].name);
        ps->p++;
        if (!expr(ps)) return false;
        if (fn[f].args == 2) {
            skip(ps);
            if (*ps->p != ',') return fail(ps, ps->p, "'%s' takes two arguments, (y, x)", fn[f].name);
            ps->p++;
            if (!expr(ps)) return false;
        }
        skip(ps);
        if (*ps->p != ')') return fail(ps, ps->p, "a ')' is missing after the argument of '%s'", fn[f].name);
        ps->p++;
        return emit(ps, fn[f].code, 0, 0);
    }
    ps->p = at;
    return fail(ps, at, "unknown name '%s'", name);
}

static bool power(parser *ps)
{
    if (!primary(ps)) return false;
    skip(ps);
    if (*ps->p != '^') return true;
    ps->p++;
    if (!unary(ps)) return false;
    return emit(ps, OP_POW, 0, 0);
}

static bool unary(parser *ps)
{
    skip(ps);
    if (++ps->depth > MAX_DEPTH) return fail(ps, ps->p, "%sthe expression is nested too deeply", "");
    bool ok;
    if (*ps->p == '-' || *ps->p == '+') {
        const bool neg = *ps->p == '-';
        ps->p++;
        ok = unary(ps) && (!neg || emit(ps, OP_NEG, 0, 0));
    } else {
        ok = power(ps);
    }
    ps->depth--;
    return ok;
}

static bool term(parser *ps)
{
    if (!unary(ps)) return false;
    for (;;) {
        skip(ps);
        const char c = *ps->p;
        if (c != '*' && c != '/') return true;
        ps->p++;
        if (!unary(ps) || !emit(ps, c == '*' ? OP_MUL : OP_DIV, 0, 0)) return false;
    }
}

static bool expr(parser *ps)
{
    if (++ps->depth > MAX_DEPTH) return fail(ps, ps->p, "%sthe expression is nested too deeply", "");
    if (!term(ps)) return false;
    for (;;) {
        skip(ps);
        const char c = *ps->p;
        if (c != '+' && c != '-') break;
        ps->p++;
        if (!term(ps) || !emit(ps, c == '+' ? OP_ADD : OP_SUB, 0, 0)) return false;
    }
    ps->depth--;
    return true;
}

int body_num_compile(const char *text, const char *const *names, size_t n_names, body_num *out,
                     body_expr **list, char *err, size_t err_len, size_t *err_off)
{
    parser *ps = calloc(1, sizeof *ps);
    if (!ps) return -2;
    ps->s = ps->p = text;
    ps->names = names;
    ps->n_names = n_names;
    ps->err = err;
    ps->err_len = err_len;
    bool ok = expr(ps);
    if (ok) {
        skip(ps);
        if (*ps->p != '\0') ok = fail(ps, ps->p, "%sunexpected text; an operator (+ - * / ^) or the end is expected", "");
    }
    if (!ok) {
        *err_off = ps->err_off;
        free(ps);
        return -1;
    }
    if (ps->n == 1 && ps->ops[0].code == OP_PARAM) {
        *out = (body_num){ps->ops[0].idx, NULL};
        free(ps);
        return 0;
    }
    body_expr *e = malloc(sizeof *e + ps->n * sizeof(op));
    if (!e) {
        free(ps);
        return -2;
    }
    e->n = ps->n;
    memcpy(e->ops, ps->ops, ps->n * sizeof(op));
    e->next = *list;
    *list = e;
    *out = (body_num){-1, e};
    free(ps);
    return 0;
}

void body_expr_free_list(body_expr *list)
{
    while (list) {
        body_expr *next = list->next;
        free(list);
        list = next;
    }
}

/* An absent optional field (param -1, no expression) is zero. */
double body_num_eval(const body_num *n, const double *p)
{
    if (n->param >= 0) return p[n->param];
    const body_expr *e = n->expr;
    if (!e) return 0.0;
    double st[MAX_STACK + 1];
    size_t sp = 0;
    for (size_t i = 0; i < e->n; i++) {
        const op *o = &e->ops[i];
        switch (o->code) {
        case OP_CONST: st[sp++] = o->c; break;
        case OP_PARAM: st[sp++] = p[o->idx]; break;
        case OP_ADD: sp--; st[sp - 1] += st[sp]; break;
        case OP_SUB: sp--; st[sp - 1] -= st[sp]; break;
        case OP_MUL: sp--; st[sp - 1] *= st[sp]; break;
        case OP_DIV: sp--; st[sp - 1] /= st[sp]; break;
        case OP_POW: sp--; st[sp - 1] = pow(st[sp - 1], st[sp]); break;
        case OP_ATAN2: sp--; st[sp - 1] = atan2(st[sp - 1], st[sp]); break;
        case OP_NEG: st[sp - 1] = -st[sp - 1]; break;
        case OP_SQRT: st[sp - 1] = sqrt(st[sp - 1]); break;
        case OP_SIN: st[sp - 1] = sin(st[sp - 1]); break;
        case OP_COS: st[sp - 1] = cos(st[sp - 1]); break;
        case OP_TAN: st[sp - 1] = tan(st[sp - 1]); break;
        }
    }
    return sp == 1 ? st[0] : NAN;
}
