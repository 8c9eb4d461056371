/* SPDX-License-Identifier: MIT */
/* What ties the file's objects together: the hierarchy (one parent at most, no rings, depth
   within the scene's limit, and the creation order), scenes' roots, skins (joints with a common
   root, the skeleton above them, inverse bind matrices), what nodes ask of their mesh, and
   animations (samplers, channels, their accessors, KHR_animation_pointer targets on a node's TRS),
   recorded for the document. Every walk is iterative and O(nodes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf/load_internal.h"


/* ---- hierarchy ------------------------------------------------------------------------------- */

/* Drops child from its parent's children (lenient repairs). */
static void drop_link(ld *L, uint32_t child) {
    ld_node *P = &L->nodes[L->nodes[child].parent];
    for (uint32_t k = 0; k < P->nkids; k++)
        if (L->kids[P->kid0 + k] == child) L->kids[P->kid0 + k] = LD_NONE;
    L->nodes[child].parent = LD_NONE;
}

static bool parents(ld *L) {
    for (uint32_t i = 0; i < L->n_nodes; i++) {
        const ld_node *N = &L->nodes[i];
        for (uint32_t k = 0; k < N->nkids; k++) {
            uint32_t c = L->kids[N->kid0 + k];
            if (c == LD_NONE) continue;
            if (c == i || L->nodes[c].parent != LD_NONE) {
                bool go_on = c == i ? BAD(NODE_LOOP, AT("/nodes/%u", i), "node %u is its own child (children/%u)", i, k)
                                    : BAD(NODE_PARENT_OVERRIDE, AT("/nodes/%u/children/%u", i, k), "node %u already has parent %u", c,
                                          L->nodes[c].parent);
                if (!go_on) return false;
                L->kids[N->kid0 + k] = LD_NONE; /* lenient: the first parent stays */
                continue;
            }
            L->nodes[c].parent = i;
        }
    }
    return true;
}

/* Depth first from root, children in the order of their arrays: the creation order, so that
   each subtree is one run of creations (the storage order the scene's parallel update cuts into
   ranges), each node's tree and depth. stack holds n. */
static bool spread(ld *L, uint32_t *depth, uint32_t *stack, uint32_t root, uint32_t *tail) {
    uint32_t max = arbor_scene_max_depth(L->s), top = 0;
    stack[top++] = root;
    while (top) {
        uint32_t x = stack[--top];
        L->order[(*tail)++] = x;
        const ld_node *N = &L->nodes[x];
        for (uint32_t k = N->nkids; k-- > 0;) { /* the first child on top */
            uint32_t c = L->kids[N->kid0 + k];
            if (c == LD_NONE) continue;
            depth[c] = depth[x] + 1;
            if (depth[c] > max)
                return arbor__ld_stop(L, ARBOR_ERR_DEPTH_LIMIT, LDI_ARBOR_LIMIT, AT("/nodes/%u", c),
                                      "node %u is at depth %u, beyond the scene's max_depth %u", c, depth[c], max);
            L->tree[c] = L->tree[x];
            stack[top++] = c;
        }
    }
    return true;
}

/* Parents, rings, creation order (the roots: the chosen scene's in its order, the others in
   file order; each followed by its subtree, depth first, so siblings keep the order of children
   arrays), trees and depths. */
static bool hierarchy(ld *L) {
    uint32_t n = L->n_nodes, tail = 0, roots = 0;
    if (!parents(L)) return false;
    uint32_t *depth = arbor__ld_calloc(L, n, sizeof *depth), *mark = arbor__ld_calloc(L, n, sizeof *mark);
    uint32_t *stack = arbor__ld_calloc(L, n, sizeof *stack);
    L->order = arbor__ld_calloc(L, n, sizeof *L->order);
    L->tree = arbor__ld_calloc(L, n, sizeof *L->tree);
    bool ok = depth && mark && stack && L->order && L->tree;
    for (uint32_t i = 0; ok && i < n; i++) L->tree[i] = LD_NONE;
    int32_t chosen = arbor__ld_chosen_scene(L);
    const ld_scene *S = chosen >= 0 ? &L->scenes[chosen] : NULL;
    /* the roots, listed in mark for now */
    for (uint32_t k = 0; ok && S && k < S->nroots; k++) {
        uint32_t r = L->roots[S->root0 + k];
        if (r != LD_NONE && L->nodes[r].parent == LD_NONE && L->tree[r] == LD_NONE) {
            L->tree[r] = r;
            mark[roots++] = r;
        }
    }
    for (uint32_t i = 0; ok && i < n; i++)
        if (L->nodes[i].parent == LD_NONE && L->tree[i] == LD_NONE) {
            L->tree[i] = i;
            mark[roots++] = i;
        }
    for (uint32_t k = 0; ok && k < roots; k++) ok = spread(L, depth, stack, mark[k], &tail);
    if (ok) memset(mark, 0, (size_t)n * sizeof *mark);
    /* Nodes not reached hang from a ring. Climbing from one reaches its ring; each climb ends in
       nodes the repair then reaches, so all climbs together stay O(n). */
    for (uint32_t u = 0, stamp = 1; ok && tail < n; u++) {
        if (L->tree[u] != LD_NONE) continue;
        uint32_t x = u;
        while (mark[x] != stamp) {
            mark[x] = stamp;
            x = L->nodes[x].parent;
        }
        stamp++;
        uint32_t low = x, steps = 0;
        for (uint32_t y = L->nodes[x].parent; y != x && steps < n; y = L->nodes[y].parent, steps++)
            if (y < low) low = y;
        if (!BAD(NODE_LOOP, AT("/nodes/%u", low), "node %u is part of a ring (it is its own ancestor through node %u)", low,
                 L->nodes[low].parent)) {
            ok = false;
            break;
        }
        steps = 0; /* lenient: every other node of the ring, as the validator names them */
        for (uint32_t y = L->nodes[low].parent; ok && y != low && steps < n; y = L->nodes[y].parent, steps++)
            ok = BAD(NODE_LOOP, AT("/nodes/%u", y), "node %u is part of the ring of node %u", y, low);
        drop_link(L, low); /* lenient: the ring opens above its lowest index, which becomes a root */
        L->tree[low] = low;
        depth[low] = 0;
        ok = spread(L, depth, stack, low, &tail);
    }
    arbor__ld_free(L, depth, n, sizeof *depth);
    arbor__ld_free(L, mark, n, sizeof *mark);
    arbor__ld_free(L, stack, n, sizeof *stack);
    return ok;
}

/* ---- scenes ---------------------------------------------------------------------------------- */

static bool scenes(ld *L, uint32_t *stamp) {
    for (uint32_t i = 0; i < L->n_scenes; i++) {
        const ld_scene *S = &L->scenes[i];
        for (uint32_t k = 0; k < S->nroots; k++) {
            uint32_t r = L->roots[S->root0 + k];
            if (r == LD_NONE) continue;
            if (stamp[r] == i && !BAD(DUPLICATE_ELEMENTS, AT("/scenes/%u/nodes/%u", i, k), "node %u is listed twice", r)) return false;
            stamp[r] = i;
            if (L->nodes[r].parent != LD_NONE &&
                !BAD(SCENE_NON_ROOT_NODE, AT("/scenes/%u/nodes/%u", i, k), "node %u is not a root: its parent is %u", r, L->nodes[r].parent))
                return false;
        }
    }
    return true;
}

/* ---- skins ----------------------------------------------------------------------------------- */

/* Pre-order numbers and subtree sizes: a is at or above b when pre[a] <= pre[b] < pre[a] + size[a]. */
static bool intervals(ld *L, uint32_t *pre, uint32_t *size) {
    uint32_t n = L->n_nodes, top = 0, next = 0;
    uint32_t *stack = arbor__ld_calloc(L, n, sizeof *stack), *by_pre = arbor__ld_calloc(L, n, sizeof *by_pre);
    bool ok = stack && by_pre;
    for (uint32_t i = n; ok && i-- > 0;)
        if (L->nodes[i].parent == LD_NONE) stack[top++] = i;
    while (ok && top) {
        uint32_t x = stack[--top];
        by_pre[next] = x;
        pre[x] = next++;
        size[x] = 1;
        const ld_node *N = &L->nodes[x];
        for (uint32_t k = N->nkids; k-- > 0;)
            if (L->kids[N->kid0 + k] != LD_NONE) stack[top++] = L->kids[N->kid0 + k];
    }
    for (uint32_t i = next; ok && i-- > 0;) {
        uint32_t x = by_pre[i];
        if (L->nodes[x].parent != LD_NONE) size[L->nodes[x].parent] += size[x];
    }
    arbor__ld_free(L, stack, n, sizeof *stack);
    arbor__ld_free(L, by_pre, n, sizeof *by_pre);
    return ok;
}

static bool ibm_accessor(ld *L, uint32_t i, ld_skin *K) {
    if (K->ibm == LD_NONE) return true;
    const ld_accessor *A = &L->acc[K->ibm];
    ld_issue issue = LDI_SKIN_IBM_INVALID_FORMAT;
    const char *why = NULL;
    if (!A->ok || A->rows != 4 || A->cols != 4 || A->ctype != 5126)
        why = "must be MAT4 of floats";
    else if (A->count < K->njoints)
        issue = LDI_INVALID_IBM_ACCESSOR_COUNT, why = "has fewer matrices than joints";
    else if (A->view != LD_NONE && L->views[A->view].stride)
        issue = LDI_SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE, why = "must not use a byteStride";
    if (!why) return true;
    if (!arbor__ld_bad(L, issue, AT("/skins/%u/inverseBindMatrices", i), "accessor %u %s", K->ibm, why)) return false;
    K->ibm = LD_NONE; /* lenient: identity */
    return true;
}

/* A node with a skinned mesh, in a scene, needs its joints in that scene too: a node's scenes are
   those listing its tree's root, so each (skinned tree, joints' tree) pair is checked per scene. */
typedef struct skin_pair {
    uint32_t skinned, joints, node;
} skin_pair;

static int pair_order(const void *a, const void *b) {
    const skin_pair *p = a, *q = b;
    return p->skinned != q->skinned ? (p->skinned < q->skinned ? -1 : 1)
                                    : (p->joints > q->joints) - (p->joints < q->joints);
}

static bool skinned_in_scenes(ld *L, uint32_t *stamp) {
    uint32_t count = 0;
    for (uint32_t i = 0; i < L->n_nodes; i++) {
        const ld_node *N = &L->nodes[i];
        if (N->mesh >= 0 && N->skin >= 0 && L->skins[N->skin].njoints &&
            L->joints[L->skins[N->skin].joint0] != LD_NONE &&
            L->tree[i] != L->tree[L->joints[L->skins[N->skin].joint0]])
            count++;
    }
    if (!count || !L->n_scenes) return true;
    skin_pair *pairs = arbor__ld_calloc(L, count, sizeof *pairs);
    if (!pairs) return false;
    count = 0;
    for (uint32_t i = 0; i < L->n_nodes; i++) {
        const ld_node *N = &L->nodes[i];
        if (N->mesh < 0 || N->skin < 0 || !L->skins[N->skin].njoints) continue;
        uint32_t j = L->joints[L->skins[N->skin].joint0];
        if (j != LD_NONE && L->tree[i] != L->tree[j]) pairs[count++] = (skin_pair){L->tree[i], L->tree[j], i};
    }
    qsort(pairs, count, sizeof *pairs, pair_order);
    for (uint32_t i = 0; i < L->n_nodes; i++) stamp[i] = LD_NONE;
    bool ok = true;
    for (uint32_t s = 0; ok && s < L->n_scenes; s++) {
        const ld_scene *S = &L->scenes[s];
        for (uint32_t k = 0; k < S->nroots; k++)
            if (L->roots[S->root0 + k] != LD_NONE) stamp[L->roots[S->root0 + k]] = s;
        for (uint32_t k = 0; ok && k < S->nroots; k++) {
            uint32_t r = L->roots[S->root0 + k], lo = 0, hi = count;
            while (lo < hi) { /* the first pair of tree r */
                uint32_t mid = lo + (hi - lo) / 2;
                if (pairs[mid].skinned < r)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; ok && lo < count && pairs[lo].skinned == r; lo++)
                if (stamp[pairs[lo].joints] != s)
                    ok =
                        BAD(NODE_SKIN_NO_SCENE, AT("/nodes/%u", pairs[lo].node),
                            "node %u's skinned mesh is in scene %u, which does not hold its joints", pairs[lo].node, s);
        }
    }
    arbor__ld_free(L, pairs, count, sizeof *pairs);
    return ok;
}

static bool skins(ld *L, uint32_t *stamp) {
    uint32_t *pre = NULL, *size = NULL, n = L->n_nodes;
    bool ok = true, need = false;
    for (uint32_t i = 0; i < L->n_skins; i++) need |= L->skins[i].skeleton != LD_NONE;
    if (need) {
        pre = arbor__ld_calloc(L, n, sizeof *pre);
        size = arbor__ld_calloc(L, n, sizeof *size);
        ok = pre && size && intervals(L, pre, size);
    }
    for (uint32_t i = 0; ok && i < L->n_skins; i++) {
        ld_skin *K = &L->skins[i];
        uint32_t tree = LD_NONE;
        for (uint32_t k = 0; ok && k < K->njoints; k++) {
            uint32_t j = L->joints[K->joint0 + k];
            if (j == LD_NONE) continue;
            if (stamp[j] == LD_NONE - 1 - i) {
                ok = BAD(DUPLICATE_ELEMENTS, AT("/skins/%u/joints/%u", i, k), "node %u is listed twice", j);
                continue;
            }
            stamp[j] = LD_NONE - 1 - i;
            if (tree == LD_NONE) tree = L->tree[j];
            if (L->tree[j] != tree)
                ok = BAD(SKIN_NO_COMMON_ROOT, AT("/skins/%u/joints", i), "the joints have no common root (nodes %u and %u)",
                         L->joints[K->joint0], j);
            if (K->skeleton != LD_NONE &&
                !(pre[K->skeleton] <= pre[j] && pre[j] < pre[K->skeleton] + size[K->skeleton])) {
                ok = BAD(SKIN_SKELETON_INVALID, AT("/skins/%u/skeleton", i), "node %u is not at or above joint %u", K->skeleton, j);
                K->skeleton = LD_NONE; /* lenient: none */
            }
        }
        ok = ok && ibm_accessor(L, i, K);
    }
    arbor__ld_free(L, pre, n, sizeof *pre);
    arbor__ld_free(L, size, n, sizeof *size);
    return ok && skinned_in_scenes(L, stamp);
}

/* ---- what nodes ask of their mesh ------------------------------------------------------------ */

static bool node_links(ld *L) {
    for (uint32_t i = 0; i < L->n_nodes; i++) {
        ld_node *N = &L->nodes[i];
        if (N->mesh < 0) continue;
        const ld_mesh *M = &L->meshes[N->mesh];
        if (N->skin >= 0 && !M->joints) {
            if (!BAD(NODE_SKIN_WITH_NON_SKINNED_MESH, AT("/nodes/%u", i), "node %u has a skin but mesh %d has no JOINTS attribute", i, N->mesh))
                return false;
            N->skin = -1;
        }
        if (N->weights != LD_NONE && N->weights != M->targets &&
            !BAD(NODE_WEIGHTS_INVALID, AT("/nodes/%u/weights", i), "%u weights for the %u morph targets of mesh %d", N->weights, M->targets,
                 N->mesh))
            return false;
    }
    return true;
}

/* ---- animations ------------------------------------------------------------------------------ */

/* Paths beyond arbor_anim_path's. */
enum { PATH_POINTER = ARBOR_ANIM_WEIGHTS + 1, PATH_UNKNOWN };

static bool is_float_or_normalized(const ld_accessor *A) {
    return A->ctype == 5126 || (A->normalized && A->csize <= 2);
}

static bool sampler(ld *L, json_t *o, const char *base, uint32_t a, uint32_t s, ld_sampler *S) {
    const char *interp = "LINEAR";
    ld_got gi = arbor__ld_index(L, o, base, "input", L->n_accessors, "accessor", &S->input);
    ld_got go = arbor__ld_index(L, o, base, "output", L->n_accessors, "accessor", &S->output);
    ld_got gp = arbor__ld_string(L, o, base, "interpolation", &interp);
    if (!arbor__ld_required(L, gi, base, "input") || !arbor__ld_required(L, go, base, "output") || gp == LD_STOP)
        return false;
    S->interpolation = !strcmp(interp, "LINEAR")        ? ARBOR_INTERPOLATION_LINEAR
                       : !strcmp(interp, "STEP")        ? ARBOR_INTERPOLATION_STEP
                       : !strcmp(interp, "CUBICSPLINE") ? ARBOR_INTERPOLATION_CUBICSPLINE
                                                        : -1;
    if (S->interpolation < 0) arbor__ld_note(L, AT("%s/interpolation", base), "unknown interpolation %s", interp);
    if (gi != LD_GOT || go != LD_GOT) return true;
    const ld_accessor *in = &L->acc[S->input], *out = &L->acc[S->output];
    ld_issue issue = LDI_ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT;
    const char *why = NULL;
    if (!in->ok || in->ncomp != 1 || in->ctype != 5126)
        why = "must be SCALAR of floats";
    else if (!in->has_min || !in->has_max)
        issue = LDI_ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS, why = "needs min and max";
    else if (in->view != LD_NONE && L->views[in->view].stride)
        issue = LDI_ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE, why = "must not use a byteStride";
    else if (S->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE && in->count < 2)
        issue = LDI_ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS, why = "needs 2 keyframes or more for CUBICSPLINE";
    bool strided_out = out->ok && out->view != LD_NONE && L->views[out->view].stride;
    if (why && !arbor__ld_bad(L, issue, AT("%s/input", base), "accessor %u %s", S->input, why)) return false;
    if (strided_out && !BAD(ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE, AT("%s/output", base),
                            "accessor %u must not use a byteStride", S->output))
        return false;
    if (why || strided_out) return true;
    S->ok = out->ok;
    if (in->max[0] > L->animations[a].duration) L->animations[a].duration = in->max[0];
    L->anim_checks[L->n_anim_checks++] = (ld_anim_check){
        .accessor = S->input, .anim = a, .index = s, .sampler = (uint32_t)(S - L->samplers), .kind = LD_TIMES};
    return true;
}

/* A KHR_animation_pointer target: *node and *path set when it points at a node's translation,
   rotation or scale ("/nodes/3/rotation"); other pointers are left alone. */
static bool pointer_target(ld *L, json_t *target, const char *tb, uint32_t *node, int *path) {
    json_t *khr = json_object_get(json_object_get(target, "extensions"), "KHR_animation_pointer");
    const char *p = json_string_value(json_object_get(khr, "pointer"));
    if (!p) return BAD(UNDEFINED_PROPERTY, AT("%s/extensions", tb), "a pointer channel needs KHR_animation_pointer's pointer");
    if (strncmp(p, "/nodes/", 7) || p[7] < '0' || p[7] > '9') return true;
    char *end;
    unsigned long long i = strtoull(p + 7, &end, 10);
    static const char *const paths[] = {"/translation", "/rotation", "/scale"};
    int k = 0;
    while (k < 3 && strcmp(end, paths[k])) k++;
    if (k == 3) return true;
    if (i >= L->n_nodes)
        return BAD(KHR_ANIMATION_POINTER_ANIMATION_CHANNEL_TARGET_NODE, AT("%s/extensions/KHR_animation_pointer/pointer", tb), "node %llu does not exist (the file has %u)", i,
                   L->n_nodes);
    *node = (uint32_t)i;
    *path = k;
    return true;
}

static bool channel(ld *L, json_t *o, const char *base, uint32_t a, uint32_t c, uint32_t nsamplers, uint32_t *stamp,
                    uint32_t *firsts) {
    ld_channel *C = &L->channels[L->animations[a].channel0 + c];
    json_t *target = NULL;
    uint32_t s = LD_NONE, node = LD_NONE;
    const char *path = NULL;
    char tb[96];
    snprintf(tb, sizeof tb, "%s/target", base);
    ld_got gs = arbor__ld_index(L, o, base, "sampler", nsamplers, "sampler", &s);
    ld_got gt = arbor__ld_object(L, o, base, "target", &target);
    if (!arbor__ld_required(L, gs, base, "sampler") || !arbor__ld_required(L, gt, base, "target")) return false;
    if (gt != LD_GOT) return true;
    ld_got gn = arbor__ld_index(L, target, tb, "node", L->n_nodes, "node", &node);
    ld_got gp = arbor__ld_string(L, target, tb, "path", &path);
    if (gn == LD_STOP || !arbor__ld_required(L, gp, tb, "path")) return false;
    if (gp != LD_GOT || gn == LD_BAD) return true;
    static const char *const names[] = {"translation", "rotation", "scale", "weights", "pointer"};
    int p = 0;
    while (p < PATH_UNKNOWN && strcmp(path, names[p])) p++;
    if (p == PATH_UNKNOWN) arbor__ld_note(L, AT("%s/path", tb), "unknown path %s", path);
    if (p == PATH_POINTER) {
        node = LD_NONE;
        if (!pointer_target(L, target, tb, &node, &p)) return false;
        C->pointer = true;
    }
    if (p >= PATH_POINTER) return true; /* other pointers and unknown paths: passed through */
    bool ok = node != LD_NONE; /* glTF: a channel without a node is ignored */
    uint32_t targets = 1;
    if (node != LD_NONE) {
        const ld_node *N = &L->nodes[node];
        uint32_t *first = firsts + (size_t)node * 4; /* per path, the first channel on this node */
        if (stamp[node] != a) first[0] = first[1] = first[2] = first[3] = LD_NONE;
        stamp[node] = a;
        if (!C->pointer && first[p] != LD_NONE) {
            if (!BAD(ANIMATION_DUPLICATE_TARGETS, AT("/animations/%u/channels/%u/target", a, first[p]),
                     "channel %u of animation %u targets node %u's %s too", c, a, node, path))
                return false;
            ok = false;
        }
        if (!C->pointer && first[p] == LD_NONE) first[p] = c;
        if (p != ARBOR_ANIM_WEIGHTS && N->matrix != LD_NONE) {
            if (!BAD(ANIMATION_CHANNEL_TARGET_NODE_MATRIX, tb, "node %u has a matrix: its %s cannot be animated", node, names[p])) return false;
            ok = false;
        }
        if (p == ARBOR_ANIM_WEIGHTS) {
            targets = N->mesh >= 0 ? L->meshes[N->mesh].targets : 0;
            if (targets == 0) {
                if (!BAD(ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS, tb, "node %u has no mesh with morph targets", node)) return false;
                ok = false;
            }
        }
    }
    if (gs != LD_GOT) return true;
    const ld_sampler *S = &L->samplers[L->animations[a].sampler0 + s];
    if (!S->ok) return true;
    const ld_accessor *in = &L->acc[S->input], *out = &L->acc[S->output];
    bool format = p == ARBOR_ANIM_WEIGHTS ? out->ncomp == 1 && out->cols == 1 && is_float_or_normalized(out)
                  : p == ARBOR_ANIM_ROTATION ? out->rows == 4 && out->cols == 1 && is_float_or_normalized(out)
                                             : out->rows == 3 && out->cols == 1 && out->ctype == 5126;
    if (!format) return BAD(ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT, AT("%s/sampler", base), "output accessor %u has the wrong format for %s", S->output, names[p]);
    if (S->interpolation < 0 || (p == ARBOR_ANIM_WEIGHTS && node == LD_NONE)) return true;
    uint64_t per = (uint64_t)targets * (S->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE ? 3u : 1u);
    bool overflow = per && in->count > UINT64_MAX / per;
    if (overflow || in->count * per != out->count) {
        if (!BAD(ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT, AT("%s/sampler", base), "output accessor %u has %llu elements, %llu keyframes need %llu", S->output,
                 (unsigned long long)out->count, (unsigned long long)in->count,
                 overflow ? 0ull : (unsigned long long)(in->count * per)))
            return false;
        ok = false;
    }
    if (p == ARBOR_ANIM_ROTATION)
        L->anim_checks[L->n_anim_checks++] =
            (ld_anim_check){.accessor = S->output,
                            .anim = a,
                            .index = c,
                            .kind = S->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE ? LD_CUBIC_ROTATIONS : LD_ROTATIONS};
    *C = (ld_channel){.node = node, .sampler = L->animations[a].sampler0 + s, .path = p, .pointer = C->pointer, .ok = ok};
    return true;
}

static bool animation(ld *L, uint32_t a, uint32_t *stamp, uint32_t *firsts) {
    json_t *o = json_array_get(L->j_animations, a), *channels = NULL, *samplers = NULL;
    if (!json_is_object(o)) return true;
    char base[48];
    snprintf(base, sizeof base, "/animations/%u", a);
    ld_got gc = arbor__ld_array(L, o, base, "channels", true, &channels);
    ld_got gs = arbor__ld_array(L, o, base, "samplers", true, &samplers);
    if (!arbor__ld_required(L, gc, base, "channels") || !arbor__ld_required(L, gs, base, "samplers")) return false;
    uint32_t ns = (uint32_t)json_array_size(samplers);
    bool ok = true;
    for (uint32_t s = 0; ok && s < ns; s++) {
        char sb[80];
        snprintf(sb, sizeof sb, "%s/samplers/%u", base, s);
        json_t *so = json_array_get(samplers, s);
        ld_sampler *S = &L->samplers[L->animations[a].sampler0 + s];
        ok = json_is_object(so) ? sampler(L, so, sb, a, s, S) : BAD(TYPE_MISMATCH, sb, "a sampler must be an object");
    }
    for (uint32_t c = 0; ok && c < json_array_size(channels); c++) {
        char cb[80];
        snprintf(cb, sizeof cb, "%s/channels/%u", base, c);
        json_t *co = json_array_get(channels, c);
        ok = json_is_object(co) ? channel(L, co, cb, a, c, ns, stamp, firsts) : BAD(TYPE_MISMATCH, cb, "a channel must be an object");
    }
    return ok;
}

static bool animations(ld *L, uint32_t *stamp) {
    size_t samplers = 0, channels = 0;
    if (!(L->animations = arbor__ld_calloc(L, L->n_animations, sizeof *L->animations))) return false;
    for (uint32_t a = 0; a < L->n_animations; a++) {
        json_t *o = json_array_get(L->j_animations, a);
        L->animations[a].sampler0 = (uint32_t)samplers;
        L->animations[a].channel0 = (uint32_t)channels;
        samplers += json_array_size(json_object_get(o, "samplers"));
        channels += json_array_size(json_object_get(o, "channels"));
        L->animations[a].nchannels = (uint32_t)(channels - L->animations[a].channel0);
        if (samplers + channels >= LD_NONE)
            return arbor__ld_stop(L, ARBOR_ERR_PARSE, LDI_ARBOR_LIMIT, "/animations", "too many samplers and channels");
    }
    size_t nf = L->n_animations ? (size_t)L->n_nodes * 4 : 0;
    uint32_t *firsts = arbor__ld_calloc(L, nf, sizeof *firsts);
    L->n_samplers = (uint32_t)samplers;
    L->n_channels = (uint32_t)channels;
    L->cap_anim_checks = samplers + channels;
    L->anim_checks = arbor__ld_calloc(L, L->cap_anim_checks, sizeof *L->anim_checks);
    L->samplers = arbor__ld_calloc(L, samplers, sizeof *L->samplers);
    L->channels = arbor__ld_calloc(L, channels, sizeof *L->channels);
    bool ok = firsts && L->anim_checks && L->samplers && L->channels;
    for (uint32_t i = 0; ok && i < samplers; i++) L->samplers[i] = (ld_sampler){.input = LD_NONE, .output = LD_NONE};
    for (uint32_t i = 0; ok && i < channels; i++) L->channels[i] = (ld_channel){.node = LD_NONE, .sampler = LD_NONE};
    for (uint32_t i = 0; ok && i < L->n_nodes; i++) stamp[i] = LD_NONE;
    for (uint32_t a = 0; ok && a < L->n_animations; a++) ok = animation(L, a, stamp, firsts);
    arbor__ld_free(L, firsts, nf, sizeof *firsts);
    return ok;
}

/* ---- the pass -------------------------------------------------------------------------------- */

bool arbor__ld_links(ld *L) {
    if (!hierarchy(L)) return false;
    uint32_t *stamp = arbor__ld_calloc(L, L->n_nodes, sizeof *stamp);
    bool ok = stamp != NULL;
    for (uint32_t i = 0; ok && i < L->n_nodes; i++) stamp[i] = LD_NONE;
    ok = ok && scenes(L, stamp);
    for (uint32_t i = 0; ok && i < L->n_nodes; i++) stamp[i] = LD_NONE;
    ok = ok && skins(L, stamp) && node_links(L) && animations(L, stamp);
    arbor__ld_free(L, stamp, L->n_nodes, sizeof *stamp);
    return ok;
}
