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
   bounds are skipped. */
static void emit_subtree(const arbor_scene *s, uint32_t top, cull_out *o) {
    const arbor__subtree_box *entry = s->boxes.entry;
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    for (uint32_t n = top; n;) {
        bool open = !arbor__box_empty(entry[n].box);
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
        if (!arbor__box_empty(entry[n].box)) {
            o.stats.box_tests++;
            side where = classify(entry[n].box, planes, plane_count);
            if (where == INSIDE) {
                emit_subtree(s, n, &o);
            } else if (where == STRADDLES) {
                open = true;
                if (arbor__has_bounds(s, n)) {
                    /* Its own box decides it, unless the subtree test already did (no bounds below). */
                    bool seen = true;
                    if (bounded_below(s, n)) {
                        arbor_real own[6];
                        arbor__resolve(s, n); /* current already: a flag check */
                        arbor__own_world_box(s, n, own);
                        o.stats.box_tests++;
                        seen = classify(own, planes, plane_count) != OUTSIDE;
                    }
                    if (seen) emit(s, &o, n);
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
