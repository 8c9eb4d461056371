/* SPDX-License-Identifier: MIT */
/*
 * tests/test_model.c: model-based random testing (docs/RELIABILITY.md, "Model").
 *
 * Thousands of random operation sequences (tests/support/model.h: create, destroy, reparent
 * in both modes with sibling positions, TRS and matrix writes, bulk writes, names, user
 * pointers, meshes, bounds, lazy reads, serial and parallel updates, clears, finds, clones,
 * world and subtree boxes, culling, instance buffers, and in a quarter of them the journal:
 * every edit recorded, undo, redo, groups) are applied
 * to a scene and to a reference model, which are compared after every step. Each sequence is
 * the splitmix64 bytes of its seed; the seeds are fixed (SEED + i), and a failure prints its
 * seed and writes the sequence's bytes where fuzz/fuzz_ops can replay them.
 *
 * - small scenes: up to 64 nodes, some with a max_depth of 3 to 8, half of them read whole
 *   after every step, half read lazily (two nodes a step, all after an update);
 * - large scenes: a few sequences grow by 9,000 nodes, so that arbor_scene_update_parallel
 *   shares its work out over a pool of four threads.
 *
 * ARBOR_RELIABILITY_SCALE=N runs N times as many sequences; ARBOR_MODEL_SEED=S runs only the
 * sequence of seed S (small, then large).
 */
#include "test_util.h"

#include "support/model.h"

#define SEED 0xA5B0D1E5ull
#define SEQUENCES 3000u   /* small scenes */
#define SEQUENCE_BYTES 2500u
#define LARGE_SEQUENCES 4u
#define LARGE_BYTES 400u

static model_stats g_stats;

static unsigned reliability_scale(void) {
    const char *e = getenv("ARBOR_RELIABILITY_SCALE");
    int v = e ? atoi(e) : 1;
    return v > 0 ? (unsigned)v : 1;
}

/* Runs the sequences of seeds seed, seed + 1, ... (model_sequence). */
static void run_sequences(uint64_t seed, unsigned count, size_t bytes, bool large, const model_config *config) {
    uint8_t *data = malloc(bytes);
    assert_non_null(data);
    for (unsigned i = 0; i < count; i++, seed++) {
        size_t size = model_sequence(seed, data, bytes, large);
        const char *failure = model_run(data, size, config, &g_stats);
        if (failure) {
            char path[512];
            snprintf(path, sizeof path, "%s/model-failure-%llx.bin", ARBOR_TEST_OUTPUT_DIR, (unsigned long long)seed);
            FILE *f = fopen(path, "wb");
            if (f) {
                fwrite(data, 1, size, f);
                fclose(f);
            }
            fail_msg("sequence of seed %#llx (%zu bytes, %s; rerun with ARBOR_MODEL_SEED=%#llx, bytes in %s): %s",
                     (unsigned long long)seed, size, large ? "large" : "small", (unsigned long long)seed, path, failure);
        }
    }
    free(data);
}

/* ARBOR_MODEL_SEED: that seed only. */
static bool one_seed(uint64_t *seed) {
    const char *e = getenv("ARBOR_MODEL_SEED");
    if (!e) return false;
    *seed = strtoull(e, NULL, 0);
    return true;
}

static void test_small_scenes(void **state) {
    (void)state;
    uint64_t seed = SEED;
    unsigned count = SEQUENCES * reliability_scale();
    if (one_seed(&seed)) count = 1;
    model_config config = {0};
    run_sequences(seed, count, SEQUENCE_BYTES, false, &config);
}

static void test_large_scenes_parallel(void **state) {
    (void)state;
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(4, &pool), ARBOR_OK);
    assert_non_null(pool);
    arbor_executor ex = arbor_pool_executor(pool);
    model_config config = {.allow_large = true, .executor = &ex};
    uint64_t seed = SEED ^ 0x1A26Eull;
    unsigned count = LARGE_SEQUENCES * reliability_scale();
    if (one_seed(&seed)) count = 1;
    run_sequences(seed, count, LARGE_BYTES, true, &config);
    arbor_pool_destroy(pool);
}

int main(void) {
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_scenes),
        cmocka_unit_test(test_large_scenes_parallel),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    printf("model: %llu sequences, %llu operations (%llu refused as the model predicted), %llu world matrices and "
           "versions checked\n",
           (unsigned long long)g_stats.sequences, (unsigned long long)g_stats.steps, (unsigned long long)g_stats.refusals,
           (unsigned long long)g_stats.worlds_checked);
    for (unsigned k = 0; model_op_name(k); k++)
        printf("  %-18s %8llu\n", model_op_name(k), (unsigned long long)g_stats.kinds[k]);
    return failed;
}
