/* libFuzzer target for the body-walker loader (src/body/load.c): any bytes
 * as a model file must load or be refused with a one-line message, and a
 * file that loads must hold indices inside its tables and numbers that
 * evaluate (tests/body_check.h).
 *
 * Build and run (Debian: clang, libclang-rt-dev), from the top of the tree:
 *   clang -g -O1 -std=c17 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -Iinclude -Isrc/body -Itests tests/fuzz/fuzz_body.c src/body/expr.c src/body/load.c \
 *     src/body/load_phase.c src/body/load_check.c src/status.c -lyaml -lm -o /tmp/fuzz_body
 *   /tmp/fuzz_body -max_total_time=300 -dict=tests/fuzz/body.dict /tmp/corpus tests/data/body_corpus
 * Inputs worth keeping go into tests/data/body_corpus/, which
 * tests/test_body_load.c loads on every test run. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "body_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_body_%d.yaml", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    body_file *bf = NULL;
    char why[1024];
    const sm_status st = body_file_load(path, &bf, why, sizeof why);
    if (st != SM_OK) {
        if (bf || !memchr(why, '\0', sizeof why) || strchr(why, '\n') || why[0] == '\0') __builtin_trap();
        return 0;
    }
    if (!body_file_consistent(bf)) __builtin_trap();
    body_file_free(bf);
    return 0;
}
