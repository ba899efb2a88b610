/* Pieces of the importer shared by its files: a small XML reader (xml.c),
 * enough to find the <compiler> settings and the <inertial> values a file
 * states, so that the masses and inertias MuJoCo compiled can be checked
 * against them; and the bookkeeping of an sm_import (import.c). */
#ifndef STRIDEMAP_IMPORT_INTERNAL_H
#define STRIDEMAP_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/import.h"

typedef struct {
    char *name;
    int parent; /* element index, -1 for the root */
    size_t nattr;
    char **key, **val;
} xml_elem;

typedef struct {
    xml_elem *e; /* in document order */
    size_t n;
} xml_doc;

/* Reads the elements and attributes of an XML file (comments, declarations
 * and text skipped, entities left as written).  false if the file cannot be
 * read or is not well-formed enough to follow (doc is then empty). */
bool xml_read(const char *path, xml_doc *doc);
void xml_free(xml_doc *doc);
/* The value of an attribute, or NULL. */
const char *xml_attr(const xml_elem *e, const char *key);
/* The first child of element i named name, or -1. */
int xml_child(const xml_doc *doc, int i, const char *name);

/* Appends a formatted warning line to imp; false when out of memory. */
bool import_warn(sm_import *imp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* v in the shortest form that reads back to it exactly (30, 0.47, 1e-09); returns buf. */
const char *import_num(double v, char buf[static 32]);

/* The eigenvalues of the symmetric 3x3 I (row-major), ascending (cyclic Jacobi). */
void import_eig3(const double I[9], double ev[3]);

#endif
