/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: bytes as a .gltf or .glb, loaded strictly and leniently, updated, its
 * animations played and its skins computed, its instances, visibility and levels of detail read,
 * culled, gathered and edited, saved as .glb and loaded back. A crash, a sanitizer
 * report, a leak, a refused save of a scene that loaded, or a clip of a loaded file that cannot
 * be made or played is a bug. External URIs are refused (no base folder), so inputs touch no other file.
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

/* Saves go to out.glb in a folder of this process's own, made by mkdtemp under $TMPDIR (or
   /tmp) on first use and removed at exit: no fixed name another process could share or plant. */
static char out_dir[4096], out_file[4096 + 16];

static void remove_out(void) {
    remove(out_file);
    rmdir(out_dir);
}

static const char *out_path(void) {
    if (!out_file[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(out_dir, sizeof out_dir, "%s/arbor-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        if (!mkdtemp(out_dir)) {
            perror("fuzz_gltf: mkdtemp");
            abort();
        }
        snprintf(out_file, sizeof out_file, "%s/out.glb", out_dir);
        atexit(remove_out);
    }
    return out_file;
}

/* Every animation (the first 8) played at a few times, pointer channels included, and every
   skin's joint matrices. */
static void play(arbor_scene *s, const arbor_gltf *doc) {
    arbor_gltf_counts counts;
    arbor_gltf_counts_get(doc, &counts);
    uint32_t n = arbor_gltf_node_count(doc);
    arbor_node *rig = malloc(((size_t)n + 1) * sizeof *rig);
    if (!rig) abort();
    for (uint32_t i = 0; i < n; i++) rig[i] = arbor_gltf_node(doc, i);
    for (uint32_t a = 0; a < counts.animations && a < 8; a++) {
        arbor_clip *clip;
        arbor_player *player;
        if (arbor_gltf_clip(doc, a, &(arbor_gltf_clip_options){ .pointer = true }, &clip) != ARBOR_OK ||
            arbor_player_create(clip, s, rig, n, &player) != ARBOR_OK)
            abort();
        double d = arbor_clip_duration(clip);
        const double times[] = { -1, 0, 0.37 * d, d, d + 1 };
        for (int t = 0; t < 5; t++)
            if (arbor_player_apply(player, times[t], t % 2 ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP) != ARBOR_OK) abort();
        arbor_player_destroy(player);
        arbor_clip_destroy(clip);
    }
    free(rig);
    arbor_skins *skins;
    if (arbor_skins_create(s, &skins) != ARBOR_OK || arbor_gltf_add_skins(doc, skins, NULL) != ARBOR_OK) abort();
    uint32_t joints = arbor_skins_joint_total(skins);
    float *out = malloc(((size_t)joints + 1) * 12 * sizeof *out);
    arbor_scene_update(s);
    arbor_result r = arbor_skins_compute(skins, ARBOR_LAYOUT_MAT3X4, out, joints, NULL);
    if (r != ARBOR_OK && r != ARBOR_ERR_SINGULAR) abort();
    free(out);
    arbor_skins_destroy(skins);
}

/* Instances, visibility and levels of detail: read, culled, gathered, animated, and edited (an
   instance moved, a node hidden) so that the save writes them anew. */
static void node_extensions(arbor_scene *s, const arbor_gltf *doc) {
    const arbor_real plane[4] = { 1, 0, 0, 0 }, vp[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -1, 0, 0, -5, 0 };
    uint32_t seen[8], found;
    arbor_node visible[8];
    float matrices[64 * 12];
    arbor_instance_batch batches[8];
    uint32_t batch_count;
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); n.id; n = arbor_scene_next_node(s, n)) {
        uint32_t count = arbor_node_instance_count(s, n);
        arbor_real w[16];
        for (uint32_t i = 0; i < count && i < 64; i++)
            if (arbor_node_instance_world_matrix(s, n, i, w) != ARBOR_OK) abort();
        if (arbor_node_cull_instances(s, n, plane, 1, seen, 8, &found, NULL) != ARBOR_OK) abort();
        uint32_t matrix_count;
        arbor_scene_instance_batches(s, &n, 1, ARBOR_LAYOUT_MAT3X4, matrices, 64, &matrix_count, batches, 8, &batch_count);
        (void)arbor_node_effectively_visible(s, n);
        if (count && arbor_node_set_instance(s, n, 0, &(arbor_trs){ { 1, 2, 3 }, { 0, 0, 0, 1 }, { 1, 1, 1 } }) != ARBOR_OK)
            abort();
    }
    if (arbor_scene_cull(s, plane, 1, visible, 8, &found, NULL) != ARBOR_OK) abort();
    arbor_gltf_counts counts;
    arbor_gltf_counts_get(doc, &counts);
    for (uint32_t a = 0; a < counts.animations && a < 8; a++) arbor_gltf_apply_visibility(doc, a, 0.5, true);
    for (uint32_t g = 0; g < arbor_gltf_lod_count(doc) && g < 8; g++) {
        arbor_node levels[8];
        arbor_real coverage[8];
        bool has;
        uint32_t n = arbor_gltf_lod_group(doc, g, levels, coverage, 8, &has);
        arbor_lod_pick(s, levels, has ? coverage : NULL, n < 8 ? n : 8, vp);
    }
    arbor_node first = arbor_scene_first_root(s);
    if (first.id) arbor_node_set_visible(s, first, false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (int lenient = 0; lenient < 2; lenient++) {
        arbor_scene *s = NULL;
        if (arbor_scene_create(&(arbor_scene_desc){ .log = quiet }, &s) != ARBOR_OK) abort();
        arbor_gltf *doc = NULL;
        arbor_gltf_options options = ARBOR_GLTF_OPTIONS_DEFAULT;
        options.lenient = lenient != 0;
        if (arbor_gltf_load_memory(s, data, size, NULL, &options, &doc) == ARBOR_OK) {
            arbor_scene_update(s);
            for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); n.id; n = arbor_scene_next_node(s, n)) {
                arbor_real w[16];
                if (arbor_node_world_matrix(s, n, w) != ARBOR_OK) abort();
            }
            play(s, doc);
            node_extensions(s, doc);
            arbor_result saved = arbor_gltf_save(s, doc, out_path(), NULL);
            if (saved != ARBOR_OK && saved != ARBOR_ERR_IO) {
                fprintf(stderr, "a loaded scene was not saved: %s\n", arbor_last_error());
                abort();
            }
            if (saved == ARBOR_OK && !lenient) {
                /* what arbor writes, arbor reads back with as many nodes */
                arbor_scene *again = NULL;
                if (arbor_scene_create(&(arbor_scene_desc){ .log = quiet }, &again) != ARBOR_OK) abort();
                arbor_gltf *doc2 = NULL;
                if (arbor_gltf_load(again, out_path(), NULL, &doc2) != ARBOR_OK ||
                    arbor_scene_node_count(again) != arbor_scene_node_count(s)) {
                    fprintf(stderr, "what arbor wrote does not load back: %s\n", arbor_last_error());
                    abort();
                }
                /* with as many hidden and instanced nodes */
                if (arbor_scene_hidden_count(again) != arbor_scene_hidden_count(s) ||
                    arbor_scene_instanced_count(again, NULL) != arbor_scene_instanced_count(s, NULL)) {
                    fprintf(stderr, "what arbor wrote lost visibility or instances\n");
                    abort();
                }
                arbor_gltf_destroy(doc2);
                arbor_scene_destroy(again);
            }
            arbor_gltf_destroy(doc);
        } else if (arbor_scene_node_count(s) != 0) {
            abort(); /* a refused load changed the scene */
        }
        arbor_scene_destroy(s);
    }
    return 0;
}
