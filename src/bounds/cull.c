/* SPDX-License-Identifier: MIT */
/*
 * Hierarchical culling (seed 002 section 11): the scene graph's own tree as the bounding-volume
 * hierarchy. A subtree box outside a plane rejects the subtree with one test, one inside every
 * plane accepts it with one test; a straddling one is opened. The counting rules are those of
 * bounds.h; they make the visible set exactly that of a per-node test of the same boxes (a
 * node's box lies in its ancestors' subtree boxes, and the tests are monotone in the box even
 * after rounding).
 */
#include <math.h>

#include "bounds_internal.h"

typedef enum side { OUTSIDE, STRADDLES, INSIDE } side;

/* Where box lies against planes that keep a x + b y + c z + d >= 0: each plane is met at the
   box's corner farthest along its normal (outside when even that is behind) and at the
   nearest (inside that plane when even that is in front). */
static side classify(const arbor_real box[6], const arbor_real *planes, uint32_t count) {
    side result = INSIDE;
    for (uint32_t i = 0; i < count; i++) {
        const arbor_real *p = planes + 4 * (size_t)i;
        arbor_real far = p[3], near = p[3];
        for (int k = 0; k < 3; k++) {
            arbor_real lo = p[k] * box[k], hi = p[k] * box[3 + k];
            far = far + (lo > hi ? lo : hi);
            near = near + (lo < hi ? lo : hi);
        }
        if (far < 0) return OUTSIDE;
        if (near < 0) result = STRADDLES;
    }
    return result;
}

typedef struct cull_out {
    arbor_node *nodes;
    uint32_t cap;
    arbor_cull_stats stats;
} cull_out;

static inline void emit(const arbor_scene *s, cull_out *o, uint32_t slot) {
    if (o->stats.visible < o->cap) o->nodes[o->stats.visible] = arbor__handle(s, slot);
    o->stats.visible++;
}

/* Every node with bounds in top's subtree (accepted whole), in pre-order; subtrees without
   bounds, and hidden ones (instances.h), are skipped. */
static void emit_subtree(const arbor_scene *s, uint32_t top, cull_out *o) {
    const arbor__subtree_box *entry = s->boxes.entry;
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    for (uint32_t n = top; n;) {
        bool open = !arbor__box_empty(entry[n].box) && !(s->hidden && arbor__own_hidden(s, n));
        if (open && arbor__has_bounds(s, n)) emit(s, o, n);
        n = arbor__next_in_subtree(s, top, n, open);
        if (++steps > limit) {
            arbor__walk_bound(s, "arbor_scene_cull", limit);
            break;
        }
    }
}

/* True when a child of slot has bounds somewhere in its subtree. */
static bool bounded_below(const arbor_scene *s, uint32_t slot) {
    for (uint32_t c = s->n.first_child[slot]; c; c = s->n.next_sibling[c])
        if (!arbor__box_empty(s->boxes.entry[c].box)) return true;
    return false;
}

/* The box of instance i of slot's set. */
static void instance_box(arbor_scene *s, uint32_t slot, const arbor_real *worlds, uint32_t i, arbor_real box[6]) {
    arbor__box_through(worlds + (size_t)i * 12, arbor__attachment_of(s, slot)->bounds, box);
}

/* True when one of slot's instances is not outside, testing them in order up to it. */
static bool instances_seen(arbor_scene *s, uint32_t slot, arbor__instance_set *set, const arbor_real *planes,
                           uint32_t plane_count, arbor_cull_stats *stats) {
    const arbor_real *worlds = arbor__instance_worlds(s, slot, set);
    for (uint32_t i = 0; i < set->count; i++) {
        arbor_real box[6];
        instance_box(s, slot, worlds, i, box);
        stats->box_tests++;
        if (classify(box, planes, plane_count) != OUTSIDE) return true;
    }
    return false;
}

/* ARBOR_OK when the planes are usable: no NULL where some are needed, all finite. */
static arbor_result planes_ok(const arbor_real *planes, uint32_t plane_count, const char *fn) {
    if (plane_count && !planes) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "planes is NULL with plane_count > 0");
    if (!arbor__all_finite(planes, 4 * (size_t)plane_count))
        return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the planes hold a NaN or infinity");
    return ARBOR_OK;
}

arbor_result arbor_node_cull_instances(arbor_scene *s, arbor_node n, const arbor_real *planes, uint32_t plane_count,
                                       uint32_t *out, uint32_t cap, uint32_t *count, arbor_cull_stats *stats) {
    static const char *const fn = "arbor_node_cull_instances";
    arbor_cull_stats st = {0};
    if (stats) *stats = st;
    if (count) *count = 0;
    arbor_result r = ARBOR_OK;
    if (!s || (cap && !out) || !count)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "scene, count and out (when cap > 0) are required");
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    if ((r = planes_ok(planes, plane_count, fn))) return r;
    arbor__instance_set *set = arbor__instances_of(s, slot);
    if (!set || !arbor__has_bounds(s, slot) || arbor__hidden(s, slot)) return ARBOR_OK;
    arbor_real group[6];
    arbor__resolve(s, slot);
    arbor__own_world_box(s, slot, group);
    st.box_tests++;
    side where = classify(group, planes, plane_count);
    const arbor_real *worlds = where == STRADDLES ? arbor__instance_worlds(s, slot, set) : NULL;
    for (uint32_t i = 0; i < set->count && where != OUTSIDE; i++) {
        if (worlds) {
            arbor_real box[6];
            instance_box(s, slot, worlds, i, box);
            st.box_tests++;
            if (classify(box, planes, plane_count) == OUTSIDE) continue;
        }
        if (st.visible < cap) out[st.visible] = i;
        st.visible++;
    }
    if (stats) *stats = st;
    *count = st.visible;
    return ARBOR_OK;
}

arbor_result arbor_scene_cull(arbor_scene *s, const arbor_real *planes, uint32_t plane_count, arbor_node *out,
                              uint32_t cap, uint32_t *count, arbor_cull_stats *stats) {
    static const char *const fn = "arbor_scene_cull";
    cull_out o = { .nodes = out, .cap = cap };
    if (count) *count = 0;
    if (stats) *stats = o.stats;
    if (!s || (plane_count && !planes) || (cap && !out) || !count)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn,
                           "scene, count, planes (when plane_count > 0) and out (when cap > 0) are required");
    if (!arbor__all_finite(planes, 4 * (size_t)plane_count))
        return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the planes hold a NaN or infinity");
    if (!s->bounded && !s->boxes.entry) return ARBOR_OK;
    if (!arbor__boxes_ready(s, fn)) return ARBOR_ERR_OUT_OF_MEMORY;
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    for (uint32_t root = s->first_root; root && steps <= limit; root = s->n.next_sibling[root], steps++)
        arbor__subtree_refresh(s, root);

    const arbor__subtree_box *entry = s->boxes.entry;
    steps = 0;
    for (uint32_t n = s->first_root; n;) {
        bool open = false;
        if (!arbor__box_empty(entry[n].box) && !(s->hidden && arbor__own_hidden(s, n))) {
            o.stats.box_tests++;
            side where = classify(entry[n].box, planes, plane_count);
            if (where == INSIDE) {
                emit_subtree(s, n, &o);
            } else if (where == STRADDLES) {
                open = true;
                if (arbor__has_bounds(s, n)) {
                    /* Its own box decides it, unless the subtree test already did (no bounds below). */
                    side own_side = STRADDLES;
                    if (bounded_below(s, n)) {
                        arbor_real own[6];
                        arbor__resolve(s, n); /* current already: a flag check */
                        arbor__own_world_box(s, n, own);
                        o.stats.box_tests++;
                        own_side = classify(own, planes, plane_count);
                    }
                    /* A straddling group of instances is seen when one of them is. */
                    arbor__instance_set *set = own_side == STRADDLES ? arbor__instances_of(s, n) : NULL;
                    if (set) own_side = instances_seen(s, n, set, planes, plane_count, &o.stats) ? STRADDLES : OUTSIDE;
                    if (own_side != OUTSIDE) emit(s, &o, n);
                }
            }
        }
        n = arbor__next_in_subtree(s, 0, n, open); /* top 0: the whole forest */
        if (++steps > limit) {
            arbor__walk_bound(s, fn, limit);
            break;
        }
    }
    if (stats) *stats = o.stats;
    *count = o.stats.visible;
    return ARBOR_OK;
}

void arbor_frustum_planes(const arbor_real m[16], arbor_real planes[24]) {
    if (!m || !planes) return;
    /* Gribb and Hartmann: with clip = M p, the planes are row 3 +- rows 0, 1, 2 (OpenGL's
       -w <= x, y, z <= w). Rows read in double, then normalised. */
    static const int row[6] = { 0, 0, 1, 1, 2, 2 };
    static const double sign[6] = { 1, -1, 1, -1, 1, -1 };
    for (int i = 0; i < 6; i++) {
        double p[4];
        for (int c = 0; c < 4; c++) p[c] = (double)m[c * 4 + 3] + sign[i] * (double)m[c * 4 + row[i]];
        double length = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        if (!(length > 0)) { /* no plane (an infinite far plane): keeps everything */
            p[0] = p[1] = p[2] = 0;
            p[3] = 1;
            length = 1;
        }
        for (int c = 0; c < 4; c++) planes[i * 4 + c] = (arbor_real)(p[c] / length);
    }
}
