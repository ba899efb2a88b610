/* libFuzzer target for the model-file loader (src/linkage/load.c): any
 * bytes as a model file must load or be refused with a one-line message,
 * and a model that loads must evaluate its equations of motion, impacts
 * and energies without crashing.
 *
 * Build and run (Debian: clang, libclang-rt-dev), from the top of the tree:
 *   clang -g -O1 -std=c17 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -Iinclude -Isrc/linkage tests/fuzz/fuzz_linkage.c src/linkage/load.c \
 *     src/linkage/dynamics.c src/linkage/model.c -lcyaml -lyaml -lm -o /tmp/fuzz_linkage
 *   /tmp/fuzz_linkage -max_total_time=300 /tmp/corpus tests/data/linkage_corpus
 * Inputs worth keeping go into tests/data/linkage_corpus/, which
 * tests/test_linkage_load.c loads on every test run. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stridemap/linkage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_linkage_%d.yaml", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    sm_linkage *lk = NULL;
    char why[1024];
    const sm_status st = sm_linkage_load(path, &lk, why, sizeof why);
    if (st != SM_OK) {
        if (lk || !memchr(why, '\0', sizeof why) || strchr(why, '\n')) __builtin_trap();
        return 0;
    }
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xd[SM_MAX_STATE], y[SM_MAX_STATE];
    for (size_t i = 0; i < m->n_params; i++) p[i] = m->params[i].value;
    m->guess(x, p, m->data);
    for (size_t k = 0; k < m->n_phases; k++) m->phases[k].rhs(0.0, x, xd, p, m->data);
    m->phases[m->n_phases - 1].events[0].reset(x, y, p, m->data);
    (void)m->kinetic_energy(x, p, m->data);
    (void)m->potential_energy(x, p, m->data);
    sm_linkage_free(lk);
    return 0;
}
