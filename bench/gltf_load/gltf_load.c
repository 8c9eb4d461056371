/* SPDX-License-Identifier: MIT */
/*
 * glTF loading speed (issue 3): generates the `random` shape of WORKLOADS.md as a glTF file
 * through arbor, and times arbor_gltf_load on any file, with the share of jansson's parse.
 *
 *   gltf_load gen OUT.gltf [N]     the random shape of N nodes (default 1,000,000), saved by arbor
 *   gltf_load load FILE [RUNS]     median of RUNS loads (default 5) into a fresh scene each;
 *                                  one JSON line: {"peer":"arbor ...","file":...,"nodes":...,
 *                                  "load_ms":...,"parse_ms":...,"runs":...}
 *
 * parse_ms is jansson's json_loadb of the same bytes (for a .glb, of its JSON chunk), timed
 * alone: what the load cannot go below while it parses with jansson.
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>

#include <arbor/arbor.h>
#include <arbor/gltf.h>

#define WL_REAL arbor_real
#include "../workloads.h"

static int generate(const char *path, uint32_t n) {
    wl_shape shape;
    wl_workload w;
    if (!wl_shape_make("random", n, 0, &shape) || !wl_generate(&shape, false, &w)) return 1;
    arbor_scene *s = NULL;
    arbor_scene_create(&(arbor_scene_desc){ .initial_capacity = n }, &s);
    arbor_node *h = malloc((size_t)n * sizeof *h);
    if (!s || !h) return 1;
    for (uint32_t i = 0; i < n; i++) {
        arbor_node_desc d = { .parent = w.parent[i] >= 0 ? h[w.parent[i]] : ARBOR_NONE };
        memcpy(d.translation, w.t + 3 * (size_t)i, sizeof d.translation);
        memcpy(d.rotation, w.r + 4 * (size_t)i, sizeof d.rotation);
        d.scale[0] = d.scale[1] = d.scale[2] = w.s[i];
        if (arbor_node_create(s, &d, &h[i]) != ARBOR_OK) return 1;
    }
    if (arbor_gltf_save(s, NULL, path, NULL) != ARBOR_OK) {
        fprintf(stderr, "gltf_load: %s\n", arbor_last_error());
        return 1;
    }
    arbor_scene_destroy(s);
    free(h);
    wl_free(&w);
    return 0;
}

/* The JSON text of a .gltf, or of a .glb's first chunk. */
static bool json_text(const char *path, char **data, size_t *size, size_t *offset) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc((size_t)length + 1);
    bool ok = *data && fread(*data, 1, (size_t)length, f) == (size_t)length;
    fclose(f);
    *size = (size_t)length;
    *offset = 0;
    if (ok && length >= 20 && !memcmp(*data, "glTF", 4)) {
        uint32_t chunk;
        memcpy(&chunk, *data + 12, 4);
        *offset = 20;
        *size = chunk;
    }
    return ok;
}

static int load(const char *path, int runs) {
    double *load_ms = calloc((size_t)runs, sizeof *load_ms), *parse_ms = calloc((size_t)runs, sizeof *parse_ms);
    uint32_t nodes = 0;
    char *data;
    size_t size, offset;
    if (!load_ms || !parse_ms || !json_text(path, &data, &size, &offset)) return 1;
    for (int r = 0; r < runs; r++) {
        double t0 = wl_now();
        json_t *root = json_loadb(data + offset, size, 0, NULL);
        parse_ms[r] = (wl_now() - t0) * 1e3;
        json_decref(root);

        arbor_scene *s = NULL;
        if (arbor_scene_create(NULL, &s)) return 1;
        arbor_gltf *doc = NULL;
        t0 = wl_now();
        if (arbor_gltf_load(s, path, NULL, &doc) != ARBOR_OK) {
            fprintf(stderr, "gltf_load: %s\n", arbor_last_error());
            return 1;
        }
        load_ms[r] = (wl_now() - t0) * 1e3;
        nodes = arbor_scene_node_count(s);
        arbor_gltf_destroy(doc);
        arbor_scene_destroy(s);
    }
    printf("{\"peer\":\"arbor %s %s\",\"file\":\"%s\",\"nodes\":%u,\"load_ms\":%.3f,\"parse_ms\":%.3f,\"runs\":%d}\n",
           arbor_version(), arbor_real_size() == 8 ? "double" : "float", path, nodes, wl_median(load_ms, (uint32_t)runs),
           wl_median(parse_ms, (uint32_t)runs), runs);
    free(data);
    free(load_ms);
    free(parse_ms);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "gen")) return generate(argv[2], argc > 3 ? (uint32_t)atol(argv[3]) : 1000000);
    if (argc >= 3 && !strcmp(argv[1], "load")) return load(argv[2], argc > 3 ? atoi(argv[3]) : 5);
    fprintf(stderr, "usage: gltf_load gen OUT.gltf [N] | gltf_load load FILE [RUNS]\n");
    return 2;
}
