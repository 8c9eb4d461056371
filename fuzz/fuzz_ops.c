/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: bytes as a sequence of operations on one scene (tests/support/model.h:
 * create, destroy, reparent, writes, reads, updates, ...), applied to the scene and to the
 * reference model and compared after every step. A disagreement, a crash, a sanitizer report
 * or a leak is a bug. The seeds are sequences of tests/test_model.c (ARBOR_FUZZ_SEEDS=DIR
 * writes them); a failure of test_model writes its sequence where this target replays it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "support/model.h"

#define SEED_SEQUENCES 64
#define SEED_BYTES 2048

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ARBOR_FUZZ_SEEDS=DIR: writes the seed corpus into DIR and exits. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *dir = getenv("ARBOR_FUZZ_SEEDS");
    if (!dir) return 0;
    for (unsigned i = 0; i < SEED_SEQUENCES; i++) {
        uint8_t data[SEED_BYTES];
        size_t size = model_sequence(0xA5B0D1E5ull + i, data, sizeof data, false);
        char path[4096];
        snprintf(path, sizeof path, "%s/sequence-%02u", dir, i);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
            perror(path);
            exit(1);
        }
    }
    exit(0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *failure = model_run(data, size, NULL, NULL);
    if (failure) {
        fprintf(stderr, "the scene and the model disagree: %s\n", failure);
        abort();
    }
    return 0;
}
