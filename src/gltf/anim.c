/* SPDX-License-Identifier: MIT */
/* What a loaded document gives anim.h: clips of its animations (from the data the load decoded)
   and its skins. */
#include <string.h>

#include "anim/anim_gltf.h"
#include "gltf/gltf_internal.h"

static json_t *animation_json(const arbor_gltf *doc, uint32_t animation) {
    return doc && animation < doc->animation_count ? json_array_get(json_object_get(doc->root, "animations"), animation)
                                                   : NULL;
}

const char *arbor_gltf_animation_name(const arbor_gltf *doc, uint32_t animation) {
    return json_string_value(json_object_get(animation_json(doc, animation), "name"));
}

int32_t arbor_gltf_animation_find(const arbor_gltf *doc, const char *name) {
    for (uint32_t i = 0; doc && name && i < doc->animation_count && i < INT32_MAX; i++) {
        const char *n = arbor_gltf_animation_name(doc, i);
        if (n && !strcmp(n, name)) return (int32_t)i;
    }
    return -1;
}

arbor_result arbor_gltf_clip(const arbor_gltf *doc, uint32_t animation, const arbor_gltf_clip_options *options,
                             arbor_clip **out) {
    static const char *const fn = "arbor_gltf_clip";
    if (!doc || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "doc and out are required");
    *out = NULL;
    if (!doc->scene) return arbor__inert(fn);
    if (animation >= doc->animation_count)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "animation %u does not exist (the file has %u)", animation,
                           doc->animation_count);
    bool pointer = options && options->pointer;
    const arbor__gltf_animation *A = &doc->animations[animation];
    size_t channel_bytes = (size_t)A->channel_count * sizeof(arbor_channel_desc);
    size_t name_bytes = (size_t)doc->node_count * sizeof(const char *);
    arbor_channel_desc *channels = arbor__alloc_with(&doc->allocator, channel_bytes);
    const char **names = arbor__alloc_with(&doc->allocator, name_bytes);
    if (!channels || !names) {
        arbor__free_with(&doc->allocator, channels, channel_bytes);
        arbor__free_with(&doc->allocator, names, name_bytes);
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the channels of animation %u", animation);
    }
    json_t *nodes = json_object_get(doc->root, "nodes");
    for (uint32_t i = 0; i < doc->node_count; i++)
        names[i] = json_string_value(json_object_get(json_array_get(nodes, i), "name"));
    uint32_t count = 0;
    for (uint32_t c = 0; c < A->channel_count; c++) {
        const arbor__gltf_channel *C = &doc->anim_channels[A->channel0 + c];
        if (C->pointer && !pointer) continue;
        bool taken = false; /* a pointer channel gives way to a regular one on the same node and path */
        for (uint32_t d = 0; C->pointer && d < A->channel_count && !taken; d++) {
            const arbor__gltf_channel *D = &doc->anim_channels[A->channel0 + d];
            taken = d != c && D->node == C->node && D->path == C->path && (!D->pointer || d < c);
        }
        if (taken) continue;
        const arbor__gltf_sampler *S = &doc->anim_samplers[C->sampler];
        channels[count++] = (arbor_channel_desc){ .target = C->node,
                                                  .path = (arbor_anim_path)C->path,
                                                  .interpolation = (arbor_interpolation)S->interpolation,
                                                  .key_count = S->keys,
                                                  .times = doc->anim_data + S->times,
                                                  .values = doc->anim_data + S->values,
                                                  .width = C->path == ARBOR_ANIM_WEIGHTS ? S->width : 0 };
    }
    arbor_clip_desc desc = { .name = arbor_gltf_animation_name(doc, animation),
                             .channels = channels,
                             .channel_count = count,
                             .rig_size = doc->node_count,
                             .target_names = names,
                             .duration = A->duration,
                             .allocator = doc->allocator };
    arbor_result r = arbor_clip_create(&desc, out);
    arbor__free_with(&doc->allocator, channels, channel_bytes);
    arbor__free_with(&doc->allocator, names, name_bytes);
    return r;
}

arbor_result arbor_gltf_add_skins(const arbor_gltf *doc, arbor_skins *skins, uint32_t *added) {
    static const char *const fn = "arbor_gltf_add_skins";
    if (added) *added = 0;
    if (!doc || !skins) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "doc and skins are required");
    if (!doc->scene) return arbor__inert(fn);
    uint32_t most = 0, first = arbor_skins_count(skins), count = 0;
    for (uint32_t k = 0; k < doc->skin_count; k++)
        if (doc->skins[k].joint_count > most) most = doc->skins[k].joint_count;
    size_t joint_bytes = (size_t)most * sizeof(arbor_node), ibm_bytes = (size_t)most * 16 * sizeof(float);
    arbor_node *joints = arbor__alloc_with(&doc->allocator, joint_bytes);
    float *ibm = arbor__alloc_with(&doc->allocator, ibm_bytes);
    arbor_result r = joints && ibm ? ARBOR_OK : arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the joints");
    for (uint32_t i = 0; !r && i < doc->node_count; i++) {
        int32_t k = doc->node_skin[i];
        arbor_node mesh = arbor_gltf_node(doc, i);
        if (k < 0 || arbor_node_is_none(mesh)) continue;
        uint32_t n = 0;
        arbor_gltf_skin(doc, (uint32_t)k, joints, ibm, most, NULL, &n); /* k is in range */
        bool whole = n > 0;
        for (uint32_t j = 0; j < n; j++) whole = whole && !arbor_node_is_none(joints[j]);
        if (!whole) continue;
        r = arbor_skins_add(skins, &(arbor_skin_desc){ mesh, joints, n, ibm }, NULL);
        count += !r;
        if (r != ARBOR_ERR_OUT_OF_MEMORY) r = ARBOR_OK; /* matrices a lenient load let through: left out */
    }
    arbor__free_with(&doc->allocator, joints, joint_bytes);
    arbor__free_with(&doc->allocator, ibm, ibm_bytes);
    if (r) {
        arbor__skins_truncate(skins, first); /* nothing added after all */
        return r;
    }
    if (added) *added = count;
    return ARBOR_OK;
}
