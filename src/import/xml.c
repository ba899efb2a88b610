/* The XML that MJCF and URDF files are: elements with attributes.  Only the
 * structure is kept; text, comments, processing instructions, DOCTYPE and
 * CDATA are skipped. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n + 1 < cap) break;
        char *b = realloc(buf, cap *= 2);
        if (!b) free(buf);
        buf = b;
    }
    if (buf) buf[n] = '\0';
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static char *dup_range(const char *a, const char *b)
{
    char *s = malloc((size_t)(b - a) + 1);
    if (s) {
        memcpy(s, a, (size_t)(b - a));
        s[b - a] = '\0';
    }
    return s;
}

static bool name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == ':'; }

static bool push_attr(xml_elem *e, char *k, char *v)
{
    char **nk = realloc(e->key, (e->nattr + 1) * sizeof *nk);
    if (nk) e->key = nk;
    char **nv = realloc(e->val, (e->nattr + 1) * sizeof *nv);
    if (nv) e->val = nv;
    if (!nk || !nv || !k || !v) {
        free(k);
        free(v);
        return false;
    }
    e->key[e->nattr] = k;
    e->val[e->nattr++] = v;
    return true;
}

/* Skips past the text `end`; NULL if it never comes. */
static const char *skip_to(const char *p, const char *end)
{
    const char *q = strstr(p, end);
    return q ? q + strlen(end) : NULL;
}

static bool parse(const char *p, xml_doc *doc)
{
    size_t cap = 0;
    int open = -1; /* the innermost open element */
    while ((p = strchr(p, '<'))) {
        if (strncmp(p, "<!--", 4) == 0) p = skip_to(p + 4, "-->");
        else if (strncmp(p, "<?", 2) == 0) p = skip_to(p + 2, "?>");
        else if (strncmp(p, "<![CDATA[", 9) == 0) p = skip_to(p + 9, "]]>");
        else if (strncmp(p, "<!", 2) == 0) p = skip_to(p + 2, ">");
        else if (p[1] == '/') {
            if (open < 0) return false;
            const char *a = p + 2, *b = a;
            while (name_char(*b)) b++;
            if ((size_t)(b - a) != strlen(doc->e[open].name) || strncmp(a, doc->e[open].name, (size_t)(b - a)) != 0)
                return false;
            open = doc->e[open].parent;
            p = skip_to(b, ">");
        } else {
            const char *a = p + 1, *b = a;
            while (name_char(*b)) b++;
            if (b == a) return false;
            if (doc->n == cap) {
                xml_elem *ne = realloc(doc->e, (cap = cap ? 2 * cap : 64) * sizeof *ne);
                if (!ne) return false;
                doc->e = ne;
            }
            xml_elem *e = &doc->e[doc->n];
            memset(e, 0, sizeof *e);
            e->parent = open;
            if (!(e->name = dup_range(a, b))) return false;
            const int self = (int)doc->n++;
            p = b;
            for (;;) {
                while (isspace((unsigned char)*p)) p++;
                if (*p == '/' && p[1] == '>') {
                    p += 2;
                    break;
                }
                if (*p == '>') {
                    p++;
                    open = self;
                    break;
                }
                const char *ka = p;
                while (name_char(*p)) p++;
                const char *kb = p;
                while (isspace((unsigned char)*p)) p++;
                if (kb == ka || *p != '=') return false;
                p++;
                while (isspace((unsigned char)*p)) p++;
                const char quote = *p;
                if (quote != '"' && quote != '\'') return false;
                const char *va = ++p, *vb = strchr(va, quote);
                if (!vb) return false;
                if (!push_attr(&doc->e[self], dup_range(ka, kb), dup_range(va, vb))) return false;
                p = vb + 1;
            }
        }
        if (!p) return false;
    }
    return open < 0 && doc->n > 0;
}

bool xml_read(const char *path, xml_doc *doc)
{
    doc->e = NULL;
    doc->n = 0;
    char *text = slurp(path);
    bool ok = text && parse(text, doc);
    free(text);
    if (!ok) xml_free(doc);
    return ok;
}

void xml_free(xml_doc *doc)
{
    for (size_t i = 0; i < doc->n; i++) {
        for (size_t k = 0; k < doc->e[i].nattr; k++) {
            free(doc->e[i].key[k]);
            free(doc->e[i].val[k]);
        }
        free(doc->e[i].key);
        free(doc->e[i].val);
        free(doc->e[i].name);
    }
    free(doc->e);
    doc->e = NULL;
    doc->n = 0;
}

const char *xml_attr(const xml_elem *e, const char *key)
{
    for (size_t k = 0; k < e->nattr; k++)
        if (strcmp(e->key[k], key) == 0) return e->val[k];
    return NULL;
}

int xml_child(const xml_doc *doc, int i, const char *name)
{
    for (size_t k = (size_t)i + 1; k < doc->n; k++)
        if (doc->e[k].parent == i && strcmp(doc->e[k].name, name) == 0) return (int)k;
    return -1;
}
