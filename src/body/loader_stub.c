/* Stand-ins for the loader's body_num_eval and body_file_free (branch
 * i11-load: src/body/expr.c and src/body/load.c) until it is merged, so
 * that the model assembly builds and is tested on files made in C.
 * Deleted by the merge of the loader. */
#include <stdlib.h>

#include "body_def.h"

double body_num_eval(const body_num *n, const double *p) { return n->param >= 0 ? p[n->param] : 0.0; }

void body_file_free(body_file *f)
{
    if (!f) return;
    free(f->name);
    free(f->title);
    free(f->reference);
    free(f->path);
    for (size_t i = 0; i < f->n_params; i++) free((char *)f->params[i].name);
    for (size_t i = 0; i < f->n_bodies; i++) free(f->bodies[i].name);
    for (size_t i = 0; i < f->n_sites; i++) free(f->sites[i].name);
    for (size_t i = 0; i < f->n_contacts; i++) free(f->contacts[i].name);
    for (size_t i = 0; i < f->n_forces; i++) free(f->forces[i].name);
    for (size_t i = 0; i < f->n_phases; i++) {
        free(f->phases[i].name);
        for (size_t k = 0; k < f->phases[i].n_events; k++) free(f->phases[i].events[k].name);
    }
    for (size_t i = 0; i < f->nq; i++) free(f->q_names[i]);
    for (size_t i = 0; i < f->nv; i++) free(f->v_names[i]);
    free(f);
}
