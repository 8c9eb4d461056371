# SPDX-License-Identifier: MIT
"""cffi build script of arbor's extension module, ``arbor._arbor_cffi`` (API mode). It sits
beside the package, not in it, so that the installed package (and help(arbor)) does not carry it.

This file is the one place where the package names arbor's C functions: the C shims below call
them, and the cdef is read off the shims' one-line prototypes (every line that starts with
``AP``), so a rename of the C API is a change to this file only. The shims take node handles as
plain ``uint64_t`` ids (an ``arbor_node`` is a struct of one), so Python passes integers and
numpy ``uint64`` arrays without building structs, and the loops over many nodes run in C.

Environment (set by setup.py): ARBOR_INCLUDE_DIRS (os.pathsep-separated), ARBOR_LIBRARIES
(static archives to link, in link order), ARBOR_LINK_ARGS (more linker arguments).
"""
import os
import re

from cffi import FFI

SHIMS = r"""
#include <stdlib.h>
#include <string.h>
#include <arbor/arbor.h>
#include <arbor/gltf.h>
#include <arbor/urdf.h>

#define AP static
#define H(id) ((arbor_node){ (id) })
#define HS(p) ((const arbor_node *)(const void *)(p))
_Static_assert(sizeof(arbor_node) == sizeof(uint64_t), "arbor_node is one uint64_t");

/* ---- base ---- */
AP const char *ap_last_error(void) { return arbor_last_error(); }
/* The last failure's file and JSON pointer ("" for none); returns its code. */
AP int ap_last_error_place(const char **file, const char **pointer) {
    arbor_error_info e = arbor_last_error_info();
    *file = e.file;
    *pointer = e.pointer;
    return e.code;
}
AP const char *ap_result_string(int r) { return arbor_result_string((arbor_result)r); }
AP const char *ap_version(void) { return arbor_version(); }
AP size_t ap_real_size(void) { return arbor_real_size(); }


/* ---- scenes ---- */
AP int ap_scene_create(uint32_t capacity, uint32_t max_depth, arbor_scene **out) {
    return arbor_scene_create(&(arbor_scene_desc){ .initial_capacity = capacity, .max_depth = max_depth }, out);
}
AP void ap_scene_destroy(arbor_scene *s) { arbor_scene_destroy(s); }
AP void ap_scene_update(arbor_scene *s) { arbor_scene_update(s); }
AP uint32_t ap_scene_node_count(const arbor_scene *s) { return arbor_scene_node_count(s); }
AP uint64_t ap_scene_find(const arbor_scene *s, const char *path) { return arbor_scene_find(s, path).id; }
/* Every node parents first (depth-first pre-order), at most cap written; returns the count. */
AP uint32_t ap_scene_nodes(const arbor_scene *s, uint64_t *out, uint32_t cap) {
    uint32_t n = 0, limit = arbor_scene_node_count(s);
    for (arbor_node v = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(v) && n < limit;
         v = arbor_scene_next_node(s, v), n++)
        if (n < cap) out[n] = v.id;
    return n;
}
AP uint32_t ap_scene_roots(const arbor_scene *s, uint64_t *out, uint32_t cap) {
    uint32_t n = 0, limit = arbor_scene_node_count(s);
    for (arbor_node v = arbor_scene_first_root(s); !arbor_node_is_none(v) && n < limit; v = arbor_node_next_sibling(s, v), n++)
        if (n < cap) out[n] = v.id;
    return n;
}

/* ---- time (arbor/time.h) ---- */
/* trs: translation, rotation, scale (10 values). */
AP int ap_node_record_trs(arbor_scene *s, uint64_t n, double time, const arbor_real *trs) {
    arbor_trs t;
    memcpy(t.translation, trs, sizeof t.translation);
    memcpy(t.rotation, trs + 3, sizeof t.rotation);
    memcpy(t.scale, trs + 7, sizeof t.scale);
    return arbor_node_record_trs(s, H(n), time, &t);
}
AP int ap_pose_record(arbor_pose *p, double time) { return arbor_pose_record(p, time); }
AP int ap_scene_lookup_many(arbor_scene *s, uint64_t target, uint64_t source, const double *times, uint32_t count, arbor_real *out) {
    return arbor_scene_lookup_many(s, H(target), H(source), times, count, out);
}
AP int ap_scene_lookup_between(arbor_scene *s, uint64_t target, double target_time, uint64_t source, double source_time, uint64_t fixed, arbor_real *out) {
    return arbor_scene_lookup_between(s, H(target), target_time, H(source), source_time, H(fixed), out);
}
AP int ap_node_history_range(const arbor_scene *s, uint64_t n, double *first, double *last) { return arbor_node_history_range(s, H(n), first, last); }
AP bool ap_last_extrapolation(uint64_t *node, double *time, double *first, double *last) {
    arbor_node n;
    bool r = arbor_time_last_extrapolation(&n, time, first, last);
    *node = r ? n.id : 0;
    return r;
}
AP double ap_time_latest(void) { return ARBOR_TIME_LATEST; }
AP int ap_scene_set_time_hold(arbor_scene *s, double tolerance) { return arbor_scene_set_time_hold(s, tolerance); }
AP double ap_scene_time_hold(const arbor_scene *s) { return arbor_scene_time_hold(s); }

/* ---- nodes ---- */
/* trs: translation, rotation, scale (10 values). A scale with a zero in it is written after the
   create (the desc reads zeros as "default"), and the node is destroyed again if it is refused. */
AP int ap_node_create(arbor_scene *s, const char *name, uint64_t parent, const arbor_real *trs, uint64_t *out) {
    bool zero = trs[7] == 0 || trs[8] == 0 || trs[9] == 0;
    arbor_node_desc d = { .name = name, .parent = H(parent), .scale = { 1, 1, 1 } };
    memcpy(d.translation, trs, sizeof d.translation);
    memcpy(d.rotation, trs + 3, sizeof d.rotation);
    if (!zero) memcpy(d.scale, trs + 7, sizeof d.scale);
    arbor_node n;
    arbor_result r = arbor_node_create(s, &d, &n);
    if (r == ARBOR_OK && zero && (r = arbor_node_set_scale(s, n, trs[7], trs[8], trs[9])) != ARBOR_OK) arbor_node_destroy(s, n);
    if (r == ARBOR_OK) *out = n.id;
    return r;
}
/* count nodes in one arbor_scene_create_nodes: node i under node parents[i] of this batch (an
   index below i), or under `under` (0: a root) where parents[i] < 0; trs rows of 10 values as
   ap_node_create's. *bad gets the index of a refused scale (the batch is destroyed again, newest
   first), or count when the batch was refused as a whole (the error names descs[i]). */
AP int ap_add_many(arbor_scene *s, uint64_t under, const int64_t *parents, const arbor_real *trs, uint32_t count, uint64_t *out, uint32_t *bad) {
    arbor_node_desc *d = calloc(count ? count : 1, sizeof *d);
    int32_t *p = malloc((count ? count : 1) * sizeof *p);
    arbor_result r = d && p ? ARBOR_OK : ARBOR_ERR_OUT_OF_MEMORY;
    *bad = count;
    for (uint32_t i = 0; i < count && !r; i++) {
        const arbor_real *v = trs + 10 * (size_t)i;
        p[i] = parents[i] < 0 ? -1 : (int32_t)parents[i];
        d[i].parent = H(parents[i] < 0 ? under : 0);
        memcpy(d[i].translation, v, sizeof d[i].translation);
        memcpy(d[i].rotation, v + 3, sizeof d[i].rotation);
        if (v[7] != 0 && v[8] != 0 && v[9] != 0) memcpy(d[i].scale, v + 7, sizeof d[i].scale);
    }
    if (!r) r = arbor_scene_create_nodes(s, d, p, count, (arbor_node *)(void *)out);
    for (uint32_t i = 0; i < count && !r; i++) {
        const arbor_real *v = trs + 10 * (size_t)i;
        if ((v[7] == 0 || v[8] == 0 || v[9] == 0) && (r = arbor_node_set_scale(s, H(out[i]), v[7], v[8], v[9])) != ARBOR_OK) {
            *bad = i;
            for (uint32_t k = count; k-- > 0;) arbor_node_destroy(s, H(out[k]));
        }
    }
    free(d);
    free(p);
    return r;
}
AP int ap_node_destroy(arbor_scene *s, uint64_t n) { return arbor_node_destroy(s, H(n)); }
AP bool ap_node_alive(const arbor_scene *s, uint64_t n) { return arbor_node_alive(s, H(n)); }
AP int ap_node_set_translation(arbor_scene *s, uint64_t n, arbor_real x, arbor_real y, arbor_real z) { return arbor_node_set_translation(s, H(n), x, y, z); }
AP int ap_node_set_rotation(arbor_scene *s, uint64_t n, arbor_real x, arbor_real y, arbor_real z, arbor_real w) { return arbor_node_set_rotation(s, H(n), x, y, z, w); }
AP int ap_node_set_scale(arbor_scene *s, uint64_t n, arbor_real x, arbor_real y, arbor_real z) { return arbor_node_set_scale(s, H(n), x, y, z); }
AP int ap_node_get_trs(const arbor_scene *s, uint64_t n, arbor_real *out) {
    arbor_trs t;
    arbor_result r = arbor_node_trs(s, H(n), &t);
    if (r == ARBOR_OK) { memcpy(out, t.translation, 3 * sizeof *out); memcpy(out + 3, t.rotation, 4 * sizeof *out); memcpy(out + 7, t.scale, 3 * sizeof *out); }
    return r;
}
AP int ap_node_set_local_matrix(arbor_scene *s, uint64_t n, const arbor_real *m, bool lock) { return arbor_node_set_local_matrix(s, H(n), m, lock); }
AP int ap_node_local_matrix(arbor_scene *s, uint64_t n, arbor_real *out) { return arbor_node_local_matrix(s, H(n), out); }
AP bool ap_node_is_matrix_backed(const arbor_scene *s, uint64_t n) { return arbor_node_is_matrix_backed(s, H(n)); }
AP bool ap_node_is_locked(const arbor_scene *s, uint64_t n) { return arbor_node_is_locked(s, H(n)); }
AP int ap_node_set_name(arbor_scene *s, uint64_t n, const char *name) { return arbor_node_set_name(s, H(n), name); }
AP const char *ap_node_name(const arbor_scene *s, uint64_t n) { return arbor_node_name(s, H(n)); }
AP int ap_node_world_matrix(arbor_scene *s, uint64_t n, arbor_real *out) { return arbor_node_world_matrix(s, H(n), out); }
AP uint64_t ap_node_world_version(arbor_scene *s, uint64_t n) { return arbor_node_world_version(s, H(n)); }
AP int ap_node_set_parent(arbor_scene *s, uint64_t child, uint64_t parent, uint64_t before, bool keep_world) { return arbor_node_set_parent(s, H(child), H(parent), H(before), keep_world ? ARBOR_KEEP_WORLD : ARBOR_KEEP_LOCAL); }
AP uint64_t ap_node_parent(const arbor_scene *s, uint64_t n) { return arbor_node_parent(s, H(n)).id; }
AP uint32_t ap_node_depth(const arbor_scene *s, uint64_t n) { return arbor_node_depth(s, H(n)); }
/* The children in sibling order, at most cap written; returns the count. */
AP uint32_t ap_node_children(const arbor_scene *s, uint64_t n, uint64_t *out, uint32_t cap) {
    uint32_t k = 0, limit = arbor_scene_node_count(s);
    for (arbor_node c = arbor_node_first_child(s, H(n)); !arbor_node_is_none(c) && k < limit; c = arbor_node_next_sibling(s, c), k++)
        if (k < cap) out[k] = c.id;
    return k;
}

/* ---- many nodes ---- */
/* World matrices of nodes[0..count) into out (16 each, column-major); a refusal writes none. */
AP int ap_world_matrices(arbor_scene *s, const uint64_t *nodes, uint32_t count, arbor_real *out) { return arbor_scene_world_matrices(s, HS(nodes), count, out); }
AP int ap_set_translations(arbor_scene *s, const uint64_t *nodes, const arbor_real *v, uint32_t count) { return arbor_scene_set_translations(s, HS(nodes), v, count); }
AP int ap_set_rotations(arbor_scene *s, const uint64_t *nodes, const arbor_real *v, uint32_t count) { return arbor_scene_set_rotations(s, HS(nodes), v, count); }
AP int ap_set_scales(arbor_scene *s, const uint64_t *nodes, const arbor_real *v, uint32_t count) { return arbor_scene_set_scales(s, HS(nodes), v, count); }

/* ---- the pose path ---- */
_Static_assert(sizeof(arbor_trs) == 10 * sizeof(arbor_real), "arbor_trs is 10 packed arbor_reals");
/* all: every live node (nodes and count ignored), as arbor_pose_create's NULL. */
AP int ap_pose_create(arbor_scene *s, const uint64_t *nodes, uint32_t count, bool all, arbor_pose **out) { return arbor_pose_create(s, all ? NULL : HS(nodes), count, out); }
AP void ap_pose_free(arbor_pose *p) { arbor_pose_destroy(p); }
AP uint32_t ap_pose_count(const arbor_pose *p) { return arbor_pose_count(p); }
AP const uint64_t *ap_pose_nodes(const arbor_pose *p) { return (const uint64_t *)(const void *)arbor_pose_nodes(p); }
/* The pose's TRS as count rows of 10 arbor_reals (translation, rotation, scale). */
AP arbor_real *ap_pose_trs(arbor_pose *p) { return (arbor_real *)(void *)arbor_pose_trs(p); }
AP int ap_pose_read(arbor_pose *p) { return arbor_pose_read(p); }
/* pool NULL: this thread. */
AP int ap_pose_apply(arbor_pose *p, arbor_pool *pool) {
    if (!pool) return arbor_pose_apply(p, NULL);
    arbor_executor e = arbor_pool_executor(pool);
    return arbor_pose_apply(p, &e);
}
AP int ap_pool_create(uint32_t threads, arbor_pool **out) { return arbor_pool_create(threads, out); }
AP void ap_pool_free(arbor_pool *pool) { arbor_pool_destroy(pool); }

/* ---- meshes, bounds, cameras, culling ---- */
AP int ap_node_set_mesh(arbor_scene *s, uint64_t n, int32_t mesh) { return arbor_node_set_mesh(s, H(n), mesh); }
AP int32_t ap_node_mesh(const arbor_scene *s, uint64_t n) { return arbor_node_mesh(s, H(n)); }
AP int ap_node_set_bounds(arbor_scene *s, uint64_t n, const arbor_real *min, const arbor_real *max) { return arbor_node_set_bounds(s, H(n), min, max); }
AP bool ap_node_local_bounds(const arbor_scene *s, uint64_t n, arbor_real *min, arbor_real *max) {
    return arbor_node_bounds(s, H(n), min, max) == ARBOR_OK && min[0] <= max[0]; /* none: an empty box */
}
AP int ap_node_set_camera(arbor_scene *s, uint64_t n, const arbor_camera *camera) { return arbor_node_set_camera(s, H(n), camera); }
AP int ap_node_camera(const arbor_scene *s, uint64_t n, arbor_camera *out) { return arbor_node_camera(s, H(n), out); }
AP int ap_camera_view_matrix(arbor_scene *s, uint64_t n, arbor_real *out) { return arbor_camera_view_matrix(s, H(n), out); }
AP int ap_camera_projection_matrix(const arbor_scene *s, uint64_t n, arbor_real aspect, arbor_real *out) { return arbor_camera_projection_matrix(s, H(n), aspect, out); }
AP int ap_camera_look_at(arbor_scene *s, uint64_t n, const arbor_real *eye, const arbor_real *target, const arbor_real *up) { return arbor_camera_look_at(s, H(n), eye, target, up); }
/* The nodes with bounds the camera node sees (at most cap written; *count gets how many). */
AP int ap_cull(arbor_scene *s, uint64_t camera, arbor_real aspect, uint64_t *out, uint32_t cap, uint32_t *count, uint32_t *box_tests) {
    arbor_real vp[16], planes[24];
    arbor_result r = arbor_camera_view_projection(s, H(camera), aspect, vp);
    if (r != ARBOR_OK) return r;
    arbor_frustum_planes(vp, planes);
    arbor_cull_stats stats = { 0 };
    r = arbor_scene_cull(s, planes, 6, (arbor_node *)(void *)out, cap, count, &stats);
    *box_tests = stats.box_tests;
    return r;
}

/* ---- glTF ---- */
AP int ap_gltf_load(arbor_scene *s, const char *path, bool lenient, arbor_gltf **out) {
    arbor_gltf_options options = ARBOR_GLTF_OPTIONS_DEFAULT;
    options.lenient = lenient;
    return arbor_gltf_load(s, path, &options, out);
}
AP int ap_gltf_save(arbor_scene *s, const arbor_gltf *doc, const char *path) { return arbor_gltf_save(s, doc, path, NULL); }
AP void ap_gltf_free(arbor_gltf *doc) { arbor_gltf_destroy(doc); }
/* The file's nodes in index order (0 for destroyed ones), at most cap written; returns the count. */
AP uint32_t ap_gltf_nodes(const arbor_gltf *doc, uint64_t *out, uint32_t cap) {
    uint32_t n = arbor_gltf_node_count(doc);
    for (uint32_t i = 0; i < n && i < cap; i++) out[i] = arbor_gltf_node(doc, i).id;
    return n;
}
AP uint32_t ap_gltf_animation_count(const arbor_gltf *doc) { arbor_gltf_counts c; arbor_gltf_counts_get(doc, &c); return c.animations; }
AP const char *ap_gltf_animation_name(const arbor_gltf *doc, uint32_t i) { return arbor_gltf_animation_name(doc, i); }
AP int ap_gltf_clip(const arbor_gltf *doc, uint32_t i, bool pointer, arbor_clip **out) { return arbor_gltf_clip(doc, i, &(arbor_gltf_clip_options){ .pointer = pointer }, out); }
/* A set of the file's skins for scene s; nothing made on failure. */
AP int ap_gltf_skins(const arbor_gltf *doc, arbor_scene *s, arbor_skins **out) {
    arbor_result r = arbor_skins_create(s, out);
    if (r == ARBOR_OK && (r = arbor_gltf_add_skins(doc, *out, NULL)) != ARBOR_OK) { arbor_skins_destroy(*out); *out = NULL; }
    return r;
}

/* ---- animation ---- */
AP void ap_clip_free(arbor_clip *c) { arbor_clip_destroy(c); }
AP const char *ap_clip_name(const arbor_clip *c) { return arbor_clip_name(c); }
AP double ap_clip_duration(const arbor_clip *c) { return arbor_clip_duration(c); }
AP uint32_t ap_clip_rig_size(const arbor_clip *c) { return arbor_clip_rig_size(c); }
AP uint32_t ap_clip_channel_count(const arbor_clip *c) { return arbor_clip_channel_count(c); }
AP int ap_player_create(const arbor_clip *c, arbor_scene *s, const uint64_t *rig, uint32_t count, arbor_player **out) { return arbor_player_create(c, s, HS(rig), count, out); }
AP void ap_player_free(arbor_player *p) { arbor_player_destroy(p); }
AP int ap_player_apply(arbor_player *p, double t, bool loop) { return arbor_player_apply(p, t, loop ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP); }
AP int ap_players_apply(arbor_player *const *ps, const double *times, uint32_t count, bool loop) { return arbor_players_apply(ps, times, count, loop ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP, NULL); }
AP int ap_player_blend(arbor_player *a, double ta, arbor_player *b, double tb, arbor_real w, bool loop) { return arbor_player_blend(a, ta, b, tb, w, loop ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP); }
AP int ap_player_add(arbor_player *p, double t, arbor_real w, bool loop) { return arbor_player_add(p, t, w, loop ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP); }
AP const arbor_real *ap_player_weights(const arbor_player *p, uint32_t target, uint32_t *count) { return arbor_player_weights(p, target, count); }
AP void ap_skins_free(arbor_skins *k) { arbor_skins_destroy(k); }
AP uint32_t ap_skins_count(const arbor_skins *k) { return arbor_skins_count(k); }
AP uint32_t ap_skins_joint_total(const arbor_skins *k) { return arbor_skins_joint_total(k); }
AP uint32_t ap_skins_first_joint(const arbor_skins *k, uint32_t skin) { return arbor_skins_first_joint(k, skin); }
AP int ap_skins_skin(const arbor_skins *k, uint32_t skin, uint64_t *mesh, uint64_t *joints, float *ibm, uint32_t cap, uint32_t *count) {
    arbor_node m;
    arbor_result r = arbor_skins_skin(k, skin, &m, (arbor_node *)(void *)joints, ibm, cap, count);
    *mesh = m.id;
    return r;
}
AP int ap_skins_compute(arbor_skins *k, bool mat3x4, float *out, uint32_t cap) { return arbor_skins_compute(k, mat3x4 ? ARBOR_LAYOUT_MAT3X4 : ARBOR_LAYOUT_MAT4, out, cap, NULL); }

/* ---- robots (libarbor-urdf) ---- */
AP int ap_urdf_load(arbor_scene *s, const char *path, bool clamp, arbor_urdf **out) { return arbor_urdf_load(s, path, &(arbor_urdf_options){ .clamp = clamp }, out); }
AP void ap_urdf_free(arbor_urdf *r) { arbor_urdf_destroy(r); }
AP const char *ap_urdf_name(const arbor_urdf *r) { return arbor_urdf_name(r); }
AP uint32_t ap_urdf_link_count(const arbor_urdf *r) { return arbor_urdf_link_count(r); }
AP uint64_t ap_urdf_link_node(const arbor_urdf *r, uint32_t i) { return arbor_urdf_link_node(r, i).id; }
AP const char *ap_urdf_link_name(const arbor_urdf *r, uint32_t i) { return arbor_urdf_link_name(r, i); }
AP int32_t ap_urdf_link_parent(const arbor_urdf *r, uint32_t i) { return arbor_urdf_link_parent(r, i); }
AP uint32_t ap_urdf_joint_count(const arbor_urdf *r) { return arbor_urdf_joint_count(r); }
AP int32_t ap_urdf_find_joint(const arbor_urdf *r, const char *name) { return arbor_urdf_find_joint(r, name); }
AP uint32_t ap_urdf_dof(const arbor_urdf *r) { return arbor_urdf_dof(r); }
/* Joint i: its name and type into *name and *type; nums: axis (3), lower, upper, multiplier,
   offset, has_limits (0 or 1); ints: mimic, position_index, position_count, parent link, child link. */
AP int ap_urdf_joint(const arbor_urdf *r, uint32_t i, const char **name, int *type, double *nums, int32_t *ints) {
    arbor_urdf_joint j;
    arbor_result res = arbor_urdf_joint_info(r, i, &j);
    if (res) return res;
    *name = j.name;
    *type = (int)j.type;
    double v[8] = { j.axis[0], j.axis[1], j.axis[2], j.lower, j.upper, j.multiplier, j.offset, j.has_limits };
    memcpy(nums, v, sizeof v);
    int32_t w[5] = { j.mimic, j.position_index, (int32_t)j.position_count, (int32_t)j.parent_link, (int32_t)j.child_link };
    memcpy(ints, w, sizeof w);
    return ARBOR_OK;
}
AP int ap_urdf_positions(const arbor_urdf *r, double *out, uint32_t cap) { return arbor_urdf_positions(r, out, cap); }
AP int ap_urdf_set_positions(arbor_urdf *r, const double *q, uint32_t count) { return arbor_urdf_set_positions(r, q, count); }
AP int ap_urdf_record_positions(arbor_urdf *r, double time, const double *q, uint32_t count) { return arbor_urdf_record_positions(r, time, q, count); }
/* pool NULL: this thread. */
AP int ap_urdf_forward_kinematics(const arbor_urdf *r, const double *q, uint32_t configs, arbor_real *out, arbor_pool *pool) {
    if (!pool) return arbor_urdf_forward_kinematics(r, q, configs, out);
    arbor_executor e = arbor_pool_executor(pool);
    return arbor_urdf_forward_kinematics_parallel(r, q, configs, out, &e);
}
"""

TYPES = """
typedef float... arbor_real;
typedef struct arbor_scene arbor_scene;
typedef struct arbor_gltf arbor_gltf;
typedef struct arbor_clip arbor_clip;
typedef struct arbor_player arbor_player;
typedef struct arbor_skins arbor_skins;
typedef struct arbor_pose arbor_pose;
typedef struct arbor_pool arbor_pool;
typedef struct arbor_urdf arbor_urdf;
typedef enum { ARBOR_CAMERA_PERSPECTIVE, ARBOR_CAMERA_ORTHOGRAPHIC } arbor_camera_type;
typedef struct { arbor_camera_type type; arbor_real yfov, aspect, xmag, ymag, znear, zfar; } arbor_camera;
typedef enum {
    ARBOR_OK, ARBOR_ERR_INVALID_ARGUMENT, ARBOR_ERR_DEAD_NODE, ARBOR_ERR_CYCLE, ARBOR_ERR_NOT_A_CHILD,
    ARBOR_ERR_LOCKED, ARBOR_ERR_SINGULAR, ARBOR_ERR_NONFINITE, ARBOR_ERR_DEPTH_LIMIT,
    ARBOR_ERR_OUT_OF_MEMORY, ARBOR_ERR_IO, ARBOR_ERR_PARSE, ARBOR_ERR_UNSUPPORTED, ARBOR_ERR_NOT_CONNECTED,
    ARBOR_ERR_EXTRAPOLATION, ...
} arbor_result;
"""


def cdef_source():
    """The cdef: the types above and the prototype of every shim (its line up to the '{')."""
    prototypes = [m.group(1).strip() + ";" for m in re.finditer(r"^AP ([^{]+)\{", SHIMS, re.M)]
    return TYPES + "\n".join(prototypes) + "\n"


ffibuilder = FFI()
ffibuilder.cdef(cdef_source())


def _split(name):
    value = os.environ.get(name, "")
    return [v for v in value.split(os.pathsep) if v]


ffibuilder.set_source(
    "arbor._arbor_cffi",
    SHIMS,
    include_dirs=_split("ARBOR_INCLUDE_DIRS"),
    extra_objects=_split("ARBOR_LIBRARIES"),
    extra_link_args=os.environ.get("ARBOR_LINK_ARGS", "").split(),
    extra_compile_args=["-std=c11", "-Wall", "-Wno-unused-function"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
