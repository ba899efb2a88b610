/* A CSV reader of the tests' own (header-only, static functions), to read
 * the sweep's files as any RFC 4180 reader would. */
#ifndef STRIDEMAP_TEST_CSV_READ_H
#define STRIDEMAP_TEST_CSV_READ_H

#include <string.h>

/* The fields of one CSV record by RFC 4180 (a reader of the test's own):
 * quoted fields may hold commas, line breaks and doubled quotes.  Returns
 * the number of fields; *end gets the byte after the record's '\n'. */
static inline size_t rfc4180_record(const char *s, char fields[][64], size_t max, const char **end)
{
    size_t n = 0;
    for (;;) {
        char f[64];
        size_t k = 0;
        if (*s == '"') {
            for (s++; *s && !(s[0] == '"' && s[1] != '"'); s++) {
                if (s[0] == '"') s++; /* "" is one quote */
                if (k < sizeof f - 1) f[k++] = *s;
            }
            s++;
        } else {
            for (; *s && *s != ',' && *s != '\n'; s++)
                if (k < sizeof f - 1) f[k++] = *s;
        }
        f[k] = '\0';
        if (n < max) strcpy(fields[n], f);
        n++;
        if (*s != ',') break;
        s++;
    }
    *end = *s == '\n' ? s + 1 : s;
    return n;
}

/* The column of a header named name, or -1. */
static inline int column(char fields[][64], size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(fields[i], name) == 0) return (int)i;
    return -1;
}

#endif
