/* SPDX-License-Identifier: MIT */
/*
 * The crowd benchmark (issue 6): many copies of one animated, skinned character, each playing
 * the same clip at its own time. A frame samples every clip, updates the scene and writes every
 * joint matrix; the figure is nanoseconds per joint per frame. bench/crowd/three.mjs runs the
 * same crowd in three.js (AnimationMixer, updateMatrixWorld, Skeleton.update).
 *
 *   crowd fox FILE [--instances N] [--threads T] [--frames F] [--path pose|players]
 *       copies of the glTF character in FILE (Fox.glb), playing its first animation
 *   crowd skeleton [--instances N] [--threads T] [--frames F]
 *       copies of the 59-bone skeleton of WORKLOADS.md (its TRS drawn as `skeletons 1`), playing a
 *       clip drawn from the same stream right after: per bone, in bone order, 30 rotations, at
 *       times k / 29 s (k = 0..29); one skin over the 59 bones whose inverse bind matrices are the
 *       inverses of the drawn pose, under a mesh node of its own (a root)
 *
 * The clips' samples go through an arbor_pose of every node of the scene (arbor_players_apply_pose:
 * no call per joint), or with --path players through arbor_players_apply (the bulk writes).
 * Instance i starts at (i * 0.618034) mod duration and moves 1/30 s per frame (looping). With
 * --threads T > 1 the sampling, the update (arbor_scene_update_parallel) and the joint matrices
 * run on an arbor_pool of T threads. One JSON line: {"peer":"arbor 0.1.0 float t1",
 * "workload":"fox","path":"pose","instances":1000,"joints":24000,"metric":"crowd","value":...,
 * "unit":"ns/joint","min":...,"frames":...,"checksum":...}.
 */
#define _POSIX_C_SOURCE 200809L
#include <arbor/arbor.h>
#include <arbor/gltf.h>

#define WL_REAL arbor_real
#include "../workloads.h"

#define KEYS 30u

typedef struct crowd {
    arbor_scene *s;
    arbor_clip *clip;
    uint32_t instances, per;          /* nodes per instance (the rig) */
    arbor_node *nodes;                /* instances * per */
    arbor_player **players;
    arbor_skins *skins;
    double *times, *start;
} crowd;

static void die(const char *what) {
    fprintf(stderr, "crowd: %s: %s\n", what, arbor_last_error());
    exit(1);
}

/* The Fox: the template loaded once, its nodes copied per instance in file order (parents
   first, through the scene's own walk). */
static void build_fox(crowd *c, const char *path) {
    arbor_scene *template = NULL;
    if (arbor_scene_create(NULL, &template)) die("scene");
    arbor_gltf *doc;
    if (arbor_gltf_load(template, path, NULL, &doc)) {
        fprintf(stderr, "crowd: %s\n", arbor_last_error());
        exit(1);
    }
    if (arbor_gltf_clip(doc, 0, NULL, &c->clip)) die("clip");
    uint32_t n = arbor_gltf_node_count(doc);
    c->per = n;
    c->nodes = malloc((size_t)c->instances * n * sizeof *c->nodes);
    for (uint32_t k = 0; k < c->instances; k++) {
        arbor_node *copy = c->nodes + (size_t)k * n;
        for (arbor_node t = arbor_scene_next_node(template, ARBOR_NONE); !arbor_node_is_none(t);
             t = arbor_scene_next_node(template, t)) {
            int64_t i = arbor_gltf_index(doc, t), p = arbor_gltf_index(doc, arbor_node_parent(template, t));
            arbor_trs trs;
            arbor_node_trs(template, t, &trs);
            arbor_node_desc d = { .name = arbor_node_name(template, t), .parent = p >= 0 ? copy[p] : ARBOR_NONE };
            memcpy(d.translation, trs.translation, sizeof d.translation);
            memcpy(d.rotation, trs.rotation, sizeof d.rotation);
            memcpy(d.scale, trs.scale, sizeof d.scale);
            if (arbor_node_create(c->s, &d, &copy[i])) die("node");
        }
    }
    /* the skin of each copy: the template's, on the copy's nodes */
    int32_t mesh = -1;
    for (uint32_t i = 0; i < n && mesh < 0; i++)
        if (arbor_gltf_node_skin(doc, arbor_gltf_node(doc, i)) >= 0) mesh = (int32_t)i;
    uint32_t joints = 0;
    if (arbor_gltf_skin(doc, 0, NULL, NULL, 0, NULL, &joints)) die("skin");
    arbor_node *joint = malloc(joints * sizeof *joint), *copy_joint = malloc(joints * sizeof *copy_joint);
    float *ibm = malloc((size_t)joints * 16 * sizeof *ibm);
    arbor_gltf_skin(doc, 0, joint, ibm, joints, NULL, &joints);
    for (uint32_t k = 0; k < c->instances; k++) {
        arbor_node *copy = c->nodes + (size_t)k * n;
        for (uint32_t j = 0; j < joints; j++) copy_joint[j] = copy[arbor_gltf_index(doc, joint[j])];
        if (arbor_skins_add(c->skins, &(arbor_skin_desc){ copy[mesh], copy_joint, joints, ibm }, NULL)) die("skin");
    }
    free(joint);
    free(copy_joint);
    free(ibm);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(template);
}

/* The skeleton of WORKLOADS.md with a drawn clip (see the top of this file). */
static void build_skeleton(crowd *c) {
    wl_shape shape;
    wl_shape_make("skeletons", 1, 0, &shape);
    uint32_t bones = WL_SKELETON_BONES;
    wl_rng g = wl_rng_make();
    int32_t parent[WL_SKELETON_BONES];
    arbor_real t[WL_SKELETON_BONES][3], r[WL_SKELETON_BONES][4], s[WL_SKELETON_BONES];
    for (uint32_t i = 0; i < bones; i++) parent[i] = wl_draw_node(&g, &shape, i, t[i], r[i], &s[i]);
    static float times[KEYS], values[WL_SKELETON_BONES][KEYS][4];
    for (uint32_t k = 0; k < KEYS; k++) times[k] = (float)((double)k / (KEYS - 1));
    arbor_channel_desc channels[WL_SKELETON_BONES];
    for (uint32_t b = 0; b < bones; b++) {
        for (uint32_t k = 0; k < KEYS; k++) {
            arbor_real q[4];
            wl_quat(&g, q);
            for (int e = 0; e < 4; e++) values[b][k][e] = (float)q[e];
        }
        channels[b] = (arbor_channel_desc){ .target = b, .path = ARBOR_ANIM_ROTATION, .key_count = KEYS,
                                            .times = times, .values = &values[b][0][0] };
    }
    arbor_clip_desc desc = { .name = "skeleton", .channels = channels, .channel_count = bones, .rig_size = bones + 1 };
    if (arbor_clip_create(&desc, &c->clip)) die("clip");
    c->per = bones + 1; /* the bones, then the mesh node */
    c->nodes = malloc((size_t)c->instances * c->per * sizeof *c->nodes);
    float ibm[WL_SKELETON_BONES][16];
    for (uint32_t k = 0; k < c->instances; k++) {
        arbor_node *copy = c->nodes + (size_t)k * c->per;
        for (uint32_t i = 0; i < bones; i++) {
            arbor_node_desc d = { .parent = parent[i] >= 0 ? copy[parent[i]] : ARBOR_NONE };
            memcpy(d.translation, t[i], sizeof d.translation);
            memcpy(d.rotation, r[i], sizeof d.rotation);
            d.scale[0] = d.scale[1] = d.scale[2] = s[i];
            if (arbor_node_create(c->s, &d, &copy[i])) die("node");
        }
        if (arbor_node_create(c->s, &(arbor_node_desc){ .name = "mesh" }, &copy[bones])) die("node");
        if (k == 0)
            for (uint32_t i = 0; i < bones; i++) {
                arbor_real w[16];
                arbor_node_world_matrix(c->s, copy[i], w);
                arbor_mat4_invert_affine(w, w);
                for (int e = 0; e < 16; e++) ibm[i][e] = (float)w[e];
            }
        if (arbor_skins_add(c->skins, &(arbor_skin_desc){ copy[bones], copy, bones, &ibm[0][0] }, NULL)) die("skin");
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "fox") && strcmp(argv[1], "skeleton")) || (!strcmp(argv[1], "fox") && argc < 3)) {
        fputs("usage: crowd fox FILE | skeleton [--instances N] [--threads T] [--frames F] [--path pose|players]\n", stderr);
        return 2;
    }
    bool fox = !strcmp(argv[1], "fox");
    uint32_t instances = 1000, threads = 1, frames = 101;
    bool posed = true;
    for (int i = fox ? 3 : 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--path")) {
            if (strcmp(argv[i + 1], "pose") && strcmp(argv[i + 1], "players")) return 2;
            posed = !strcmp(argv[i + 1], "pose");
            continue;
        }
        uint32_t v = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        if (!strcmp(argv[i], "--instances")) instances = v;
        else if (!strcmp(argv[i], "--threads")) threads = v;
        else if (!strcmp(argv[i], "--frames")) frames = v;
    }
    if (!instances || !threads || !frames) return 2;
    crowd c = { .instances = instances };
    if (arbor_scene_create(NULL, &c.s)) die("scene");
    if (arbor_skins_create(c.s, &c.skins)) die("skins");
    if (fox)
        build_fox(&c, argv[2]);
    else
        build_skeleton(&c);
    c.players = malloc(instances * sizeof *c.players);
    c.times = malloc(instances * sizeof *c.times);
    c.start = malloc(instances * sizeof *c.start);
    double duration = arbor_clip_duration(c.clip);
    for (uint32_t k = 0; k < instances; k++) {
        if (arbor_player_create(c.clip, c.s, c.nodes + (size_t)k * c.per, c.per, &c.players[k])) die("player");
        c.start[k] = fmod(k * 0.618034, duration);
    }
    uint32_t joints = arbor_skins_joint_total(c.skins);
    float *matrices = malloc((size_t)joints * 16 * sizeof *matrices);
    arbor_pool *pool = NULL;
    if (threads > 1 && arbor_pool_create(threads, &pool)) die("pool");
    arbor_executor executor = pool ? arbor_pool_executor(pool) : (arbor_executor){ 0 };
    const arbor_executor *ex = pool ? &executor : NULL;
    arbor_scene_update(c.s);
    arbor_pose *pose = NULL;
    if (posed && arbor_pose_create(c.s, NULL, 0, &pose)) die("pose");

    double *elapsed = malloc((WL_WARMUP + frames) * sizeof *elapsed);
    for (uint32_t f = 0; f < WL_WARMUP + frames; f++) {
        for (uint32_t k = 0; k < instances; k++) c.times[k] = c.start[k] + f / 30.0;
        double t0 = wl_now();
        if (pose ? arbor_players_apply_pose(c.players, c.times, instances, ARBOR_WRAP_LOOP, pose, ex)
                 : arbor_players_apply(c.players, c.times, instances, ARBOR_WRAP_LOOP, ex))
            die("apply");
        arbor_scene_update_parallel(c.s, ex);
        if (arbor_skins_compute(c.skins, ARBOR_LAYOUT_MAT4, matrices, joints, ex)) die("skins");
        elapsed[f] = wl_now() - t0;
    }
    double checksum = 0;
    for (uint32_t j = 0; j < joints; j++) checksum += matrices[(size_t)j * 16 + 12];
    double scale = 1e9 / joints;
    double median = wl_median(elapsed + WL_WARMUP, frames) * scale, fastest = elapsed[WL_WARMUP] * scale;
    printf("{\"peer\":\"arbor %s %s t%u\",\"workload\":\"%s\",\"path\":\"%s\",\"instances\":%u,\"joints\":%u,\"metric\":\"crowd\","
           "\"value\":%.4g,\"unit\":\"ns/joint\",\"min\":%.4g,\"frames\":%u,\"checksum\":%.6g}\n",
           arbor_version(), arbor_real_size() == 8 ? "double" : "float", threads, argv[1], pose ? "pose" : "players", instances,
           joints, median,
           fastest, frames, checksum);
    arbor_pose_destroy(pose);
    for (uint32_t k = 0; k < instances; k++) arbor_player_destroy(c.players[k]);
    arbor_skins_destroy(c.skins);
    arbor_clip_destroy(c.clip);
    arbor_pool_destroy(pool);
    arbor_scene_destroy(c.s);
    free(c.nodes);
    free(c.players);
    free(c.times);
    free(c.start);
    free(matrices);
    free(elapsed);
    return 0;
}
