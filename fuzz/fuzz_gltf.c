/*
 * libFuzzer target: bytes as a .gltf or .glb, loaded strictly and leniently, updated, saved as
 * .glb and loaded back. A crash, a sanitizer report, a leak or a refused save of a scene that
 * loaded is a bug. External URIs are refused (no base folder), so inputs touch no other file.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <arbor/arbor.h>
#include <arbor/gltf.h>

static void quiet(void *user, arbor_log_level level, const char *message) {
    (void)user;
    (void)level;
    (void)message;
}

static const char *out_path(void) {
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/arbor-fuzz-%ld.glb", (long)getpid());
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (int lenient = 0; lenient < 2; lenient++) {
        arbor_scene *s = arbor_scene_create(&(arbor_scene_desc){ .log = quiet });
        if (!s) abort();
        arbor_gltf *doc = NULL;
        arbor_gltf_options options = { .lenient = lenient != 0 };
        arbor_error error;
        if (arbor_gltf_load_memory(s, data, size, NULL, &options, &doc, &error) == ARBOR_OK) {
            arbor_scene_update(s);
            for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); n.id; n = arbor_scene_next_node(s, n)) {
                arbor_real w[16];
                if (arbor_node_world_matrix(s, n, w) != ARBOR_OK) abort();
            }
            arbor_result saved = arbor_gltf_save(s, doc, out_path(), &error);
            if (saved != ARBOR_OK && saved != ARBOR_ERR_IO) {
                fprintf(stderr, "a loaded scene was not saved: %s\n", error.message);
                abort();
            }
            if (saved == ARBOR_OK && !lenient) {
                /* what arbor writes, arbor reads back with as many nodes */
                arbor_scene *again = arbor_scene_create(&(arbor_scene_desc){ .log = quiet });
                arbor_gltf *doc2 = NULL;
                if (arbor_gltf_load(again, out_path(), NULL, &doc2, &error) != ARBOR_OK ||
                    arbor_scene_node_count(again) != arbor_scene_node_count(s)) {
                    fprintf(stderr, "what arbor wrote does not load back: %s\n", error.message);
                    abort();
                }
                arbor_gltf_free(doc2);
                arbor_scene_destroy(again);
            }
            arbor_gltf_free(doc);
        } else if (arbor_scene_node_count(s) != 0) {
            abort(); /* a refused load changed the scene */
        }
        arbor_scene_destroy(s);
    }
    return 0;
}
