/* SPDX-License-Identifier: MIT */
/* Clones: a subtree copied node by node in one pre-order walk, the copy built in lockstep (its
   parent is found by climbing the copy as the walk climbs the source), so no map is needed. */
#include <string.h>

#include "edit/edit_internal.h"

/* Copies source node `from` of src as the last child of `parent` in dst (0: a root); 0 when out
   of memory for its name or instances (nothing made). */
static uint32_t copy_node(arbor_scene *dst, const arbor_scene *src, uint32_t from, uint32_t parent) {
    arbor_node made;
    arbor_node_desc desc = { .name = src->n.name[from], .parent = arbor__handle(dst, parent) };
    if (arbor_node_create(dst, &desc, &made) != ARBOR_OK) return 0; /* storage was reserved: the name */
    uint32_t to = arbor__slot(dst, made);
    const uint8_t local = ARBOR__MATRIX | ARBOR__LOCKED;
    uint8_t flags = src->n.flags[from];
    memcpy(dst->n.trs + (size_t)to * ARBOR__TRS, src->n.trs + (size_t)from * ARBOR__TRS, ARBOR__TRS * sizeof(arbor_real));
    dst->n.flags[to] = (uint8_t)((dst->n.flags[to] & ~local) | (flags & local));
    const arbor__attachment *a = arbor__attachment_of(src, from); /* with the kept matrix */
    if (a) {
        arbor__attachment copy = *a;
        copy.foreign = copy.next_free = 0;
        if (copy.instances && !(copy.instances = arbor__instances_copy(dst, src, a->instances))) {
            arbor_node_destroy(dst, made);
            return 0;
        }
        arbor__attachment *b = arbor__attachment_writable(dst, to); /* reserved: cannot fail */
        *b = copy;
        if (copy.has & ARBOR__HAS_BOUNDS) dst->bounded++;
        if (copy.has & ARBOR__HAS_HIDDEN) dst->hidden++;
    }
    return to;
}

/* The next child or sibling of the walk, where the copy's own top (under a parent inside the
   copied subtree, in the same scene) does not count. */
static uint32_t source_link(uint32_t link, uint32_t copy_top) { return link == copy_top ? 0 : link; }

arbor_result arbor_node_clone_from(arbor_scene *dst, const arbor_scene *src, arbor_node root, arbor_node parent,
                                   arbor_node *out) {
    static const char *const fn = "arbor_node_clone";
    if (!dst || !src || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "scenes and out are required");
    arbor_result r = ARBOR_OK;
    uint32_t top = arbor__require(src, root, fn, &r), p = 0;
    if (!top) return r;
    if (parent.id && !(p = arbor__live_slot(dst, parent)))
        return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "the parent is not a live node of the destination scene");
    /* Size, height and attachments of what is copied. */
    uint32_t count = 0, height = 0, attached = 0;
    uint64_t limit = arbor__walk_limit(src);
    for (uint32_t n = top; n && count < limit; n = arbor__next_in_subtree(src, top, n, true), count++) {
        if (src->n.depth[n] - src->n.depth[top] > height) height = src->n.depth[n] - src->n.depth[top];
        attached += src->n.attachment[n] != 0;
    }
    uint64_t depth = p ? (uint64_t)dst->n.depth[p] + 1 : 0;
    if (depth + height > dst->max_depth)
        return arbor__fail(ARBOR_ERR_DEPTH_LIMIT, fn, "the copy would reach depth %llu, beyond max_depth %u",
                           (unsigned long long)(depth + height), dst->max_depth);
    if (!arbor__reserve(dst, count) || !arbor__attachment_reserve(dst, attached))
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for %u nodes", count);

    uint32_t copy_top = copy_node(dst, src, top, p), from = top, to = copy_top, made = 1;
    if (!copy_top) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for a name or instances");
    uint32_t mine = dst == src ? copy_top : 0;
    while (made < count) {
        uint32_t child = source_link(src->n.first_child[from], mine);
        if (child) {
            from = child;
            to = copy_node(dst, src, from, to);
        } else {
            while (from != top && !source_link(src->n.next_sibling[from], mine)) {
                from = src->n.parent[from];
                to = dst->n.parent[to];
            }
            if (from == top) break;
            from = src->n.next_sibling[from];
            to = copy_node(dst, src, from, dst->n.parent[to]);
        }
        if (!to) {
            arbor_node_destroy(dst, arbor__handle(dst, copy_top));
            return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for a name or instances");
        }
        made++;
    }
    *out = arbor__handle(dst, copy_top);
    return ARBOR_OK;
}

arbor_result arbor_node_clone(arbor_scene *s, arbor_node root, arbor_node parent, arbor_node *out) {
    return arbor_node_clone_from(s, s, root, parent, out);
}
