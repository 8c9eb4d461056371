/* SPDX-License-Identifier: MIT */
/*
 * arbor/anim.h: keyframe clips driving nodes, and joint matrices for skinned meshes.
 *
 * Three objects:
 * - arbor_clip: keyframes (glTF's animation: channels of translation, rotation, scale or morph
 *   weights, each with STEP, LINEAR or CUBICSPLINE interpolation). Read-only once made, shared
 *   freely: one clip can drive many characters in many scenes, on many threads at once.
 *   Made from arrays (arbor_clip_create) or from a loaded glTF file (arbor_gltf_clip in gltf.h).
 * - arbor_player: one clip playing on one character: the nodes it drives and its keyframe
 *   cursors. A crowd of 1,000 characters sharing one clip is 1,000 players. A player is used by
 *   one thread at a time; its scene's rules apply to the writes (one thread per scene).
 * - arbor_skins: every skinned mesh of a scene; after an update, one call writes all their
 *   joint matrices J = W_mesh^-1 * W_joint * IBM (glTF) for the GPU.
 *
 * Targets and rigs. A clip's channels target indices into a node list, the "rig": for a glTF
 * clip the target is the file's node index, so the rig of a loaded file is its nodes in file
 * order (arbor_gltf_node(doc, i)), and the rig of a copy of that character is the copy's nodes
 * in the same order. arbor_clip_rig_by_names builds a rig by node names instead. A player copies
 * its rig; an ARBOR_NONE entry leaves its target's channels out.
 *
 * Sampling (glTF 2.0, section 3.11):
 * - A time before a channel's first keyframe gives its first value, after its last keyframe its
 *   last value. ARBOR_WRAP_CLAMP holds the clip's ends; ARBOR_WRAP_LOOP wraps the time into
 *   [0, duration) first (duration: the clip's last keyframe time, or what the file's animation
 *   lasts), so the time `duration` plays as 0.
 * - LINEAR: translation, scale and weights are (1 - u) a + u b; rotations are spherical
 *   (slerp) along the shorter arc. STEP holds a keyframe until the next. CUBICSPLINE is the
 *   cubic Hermite spline with glTF's in- and out-tangents scaled by the keyframe interval.
 * - Rotations are unit: keyframe values are normalised when the clip is made, every sampled
 *   rotation is normalised again. Keyframes are kept as floats, as glTF stores them, in double
 *   builds too (the sampling itself runs in arbor_real).
 * - Keyframe search: each player keeps a cursor per keyframe timeline (channels with the same
 *   times share one), so time moving forward costs O(1) amortised; a jump is a binary search.
 *
 * Writes take the path of the bulk setters of parallel.h, so invalidation and world versions
 * follow as for any write; only the components a clip animates are written.
 *
 * Typical use (a glTF character):
 *     arbor_clip *clip;
 *     arbor_gltf_clip(doc, 0, NULL, &clip);
 *     uint32_t n = arbor_gltf_node_count(doc);
 *     arbor_node *rig = malloc(n * sizeof *rig);
 *     for (uint32_t i = 0; i < n; i++) rig[i] = arbor_gltf_node(doc, i);
 *     arbor_player *player;
 *     arbor_player_create(clip, scene, rig, n, &player);
 *     arbor_skins *skins;
 *     arbor_skins_create(scene, &skins);
 *     arbor_gltf_add_skins(doc, skins, NULL);
 *     float *joints = malloc(arbor_skins_joint_total(skins) * 16 * sizeof *joints);
 *     for (double t = 0;; t += 1.0 / 60) {              // every frame
 *         arbor_player_apply(player, t, ARBOR_WRAP_LOOP);
 *         arbor_scene_update(scene);
 *         arbor_skins_compute(skins, ARBOR_LAYOUT_MAT4, joints, arbor_skins_joint_total(skins), NULL);
 *     }
 */
#ifndef ARBOR_ANIM_H
#define ARBOR_ANIM_H

#include "arbor/bounds.h"
#include "arbor/parallel.h"
#include "arbor/pose.h"
#include "arbor/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Clips ----------------------------------------------------------------------------------- */

typedef enum arbor_anim_path {
    ARBOR_ANIM_TRANSLATION, /* 3 values per keyframe */
    ARBOR_ANIM_ROTATION,    /* 4: a quaternion (x, y, z, w) */
    ARBOR_ANIM_SCALE,       /* 3 */
    ARBOR_ANIM_WEIGHTS      /* one per morph target (the channel's width) */
} arbor_anim_path;

typedef enum arbor_interpolation {
    ARBOR_INTERPOLATION_LINEAR,
    ARBOR_INTERPOLATION_STEP,
    ARBOR_INTERPOLATION_CUBICSPLINE /* per keyframe: in-tangent, value, out-tangent */
} arbor_interpolation;

/* One animated property of one target. */
typedef struct arbor_channel_desc {
    uint32_t target;                   /* rig index */
    arbor_anim_path path;
    arbor_interpolation interpolation;
    uint32_t key_count;                /* at least 1 (2 for CUBICSPLINE) */
    const float *times;                /* key_count seconds, >= 0, strictly increasing; channels
                                          passing the same pointer share one timeline */
    const float *values;               /* key_count * width values (three times that for
                                          CUBICSPLINE: in-tangent, value, out-tangent per key) */
    uint32_t width;                    /* weights: the morph target count; 0 otherwise (3, 4, 3) */
} arbor_channel_desc;

typedef struct arbor_clip_desc {       /* all zero: an empty clip */
    const char *name;                  /* copied; NULL: no name */
    const arbor_channel_desc *channels;
    uint32_t channel_count;
    uint32_t rig_size;                 /* 0: one more than the largest target */
    const char *const *target_names;   /* NULL, or rig_size names (NULL entries allowed), copied:
                                          for arbor_clip_rig_by_names */
    double duration;                   /* 0: the last keyframe time of all channels */
    arbor_allocator allocator;         /* all zero: malloc, realloc, free */
} arbor_clip_desc;

typedef struct arbor_clip arbor_clip;

/* Makes a clip (a copy of desc's data). Refused, with nothing made: an unknown path or
   interpolation, a target at or beyond rig_size, a wrong width, too few keyframes, times not
   strictly increasing or negative, two channels on the same target and path, a zero-length
   quaternion, a negative duration, a value (or a CUBICSPLINE tangent times its keyframe
   interval) of magnitude 1e37 or more, so that no sample can overflow
   (ARBOR_ERR_INVALID_ARGUMENT); a NaN or infinity (ARBOR_ERR_NONFINITE); no memory
   (ARBOR_ERR_OUT_OF_MEMORY).
   arbor_last_error() says which channel and keyframe. desc and out must not be NULL. */
ARBOR_API arbor_result arbor_clip_create(const arbor_clip_desc *desc, arbor_clip **out);

/* Frees the clip. NULL is allowed. Every player of the clip must be freed first. */
ARBOR_API void arbor_clip_destroy(arbor_clip *clip);

/* The clip's name (NULL when it has none), duration in seconds, rig size, channel count. */
ARBOR_API const char *arbor_clip_name(const arbor_clip *clip);
ARBOR_API double arbor_clip_duration(const arbor_clip *clip);
ARBOR_API uint32_t arbor_clip_rig_size(const arbor_clip *clip);
ARBOR_API uint32_t arbor_clip_channel_count(const arbor_clip *clip);

/* Channel i as made (its times and values are the clip's, normalised rotations included, valid
   while the clip lives); ARBOR_ERR_INVALID_ARGUMENT for i out of range. */
ARBOR_API arbor_result arbor_clip_channel(const arbor_clip *clip, uint32_t i, arbor_channel_desc *out);

/* The name of rig entry `target` (a glTF clip: the node's name), NULL when it has none. */
ARBOR_API const char *arbor_clip_target_name(const arbor_clip *clip, uint32_t target);

/* A rig by names: rig[i] = the first node named like target i (breadth first, in the subtree of
   root; ARBOR_NONE: every root's subtree), for every target a channel animates; ARBOR_NONE
   elsewhere. rig holds cap entries, and the first cap of the rig are written (rig may be NULL
   when cap is 0); *count gets the rig's size (arbor_clip_rig_size) even when cap is smaller,
   *found (may be NULL) how many animated targets found their node, in the whole rig. Refused
   (ARBOR_ERR_INVALID_ARGUMENT, nothing written): a NULL clip, scene or count, NULL rig with
   cap > 0. */
ARBOR_API arbor_result arbor_clip_rig_by_names(const arbor_clip *clip, const arbor_scene *s, arbor_node root,
                                               arbor_node *rig, uint32_t cap, uint32_t *count, uint32_t *found);

/* ---- Players --------------------------------------------------------------------------------- */

typedef enum arbor_wrap { ARBOR_WRAP_CLAMP, ARBOR_WRAP_LOOP } arbor_wrap;

typedef struct arbor_player arbor_player;

/* A player of clip on rig (rig_count >= arbor_clip_rig_size(clip) handles of nodes of s, copied;
   ARBOR_NONE entries are left out). Each node's TRS at this moment is remembered as its rest
   pose (what a blend uses where a clip does not animate). Refused: a dead rig node
   (ARBOR_ERR_DEAD_NODE), a rig shorter than the clip's, NULL arguments
   (ARBOR_ERR_INVALID_ARGUMENT), no memory. Allocates through the scene's allocator.
   Destroying it and its scene in either order is safe: the scene's destroy leaves it inert
   (every call of it that returns an arbor_result is refused with ARBOR_ERR_INVALID_ARGUMENT, "its
   scene was destroyed"; the others answer from what it holds) and its own destroy frees it.
   The clip must outlive the player (a clip is not a scene's: it may serve players of many). */
ARBOR_API arbor_result arbor_player_create(const arbor_clip *clip, arbor_scene *s, const arbor_node *rig,
                                           uint32_t rig_count, arbor_player **out);
ARBOR_API void arbor_player_destroy(arbor_player *player);
ARBOR_API const arbor_clip *arbor_player_clip(const arbor_player *player);

/* Poses the nodes as the clip at `time` (seconds): the animated components of each driven node
   are written, morph weights go to the player's arrays (arbor_player_weights). Refused, with
   nothing written: a driven node destroyed (ARBOR_ERR_DEAD_NODE) or locked
   (ARBOR_ERR_LOCKED) since, a time that is not finite (ARBOR_ERR_NONFINITE), an unknown wrap
   (ARBOR_ERR_INVALID_ARGUMENT). Allocates nothing. */
ARBOR_API arbor_result arbor_player_apply(arbor_player *player, double time, arbor_wrap wrap);

/* The same for many players (of one scene or several; each player at most once), their
   sampling spread over the executor (NULL: serial), the writes made on the calling thread in
   the players' order. times[i] is players[i]'s. Refused as a whole, nothing written, when any
   player would be. */
ARBOR_API arbor_result arbor_players_apply(arbor_player *const *players, const double *times, uint32_t count,
                                           arbor_wrap wrap, const arbor_executor *executor);

/* arbor_players_apply through a pose (pose.h): every player sampled (on the executor), the
   animated components of each driven node written into its entry of `pose` (a pose of the
   players' scene holding every node they drive; other entries and components stay as they
   are), then arbor_pose_apply(pose, executor): the driven nodes' world matrices are current
   after the call, and what the scene shows is what arbor_node_set_trs of those entries would
   have given (rotations normalised once more, as set_trs does). Refused as arbor_players_apply
   is, with ARBOR_ERR_INVALID_ARGUMENT for a driven node that is not in the pose, or as
   arbor_pose_apply is (a dead or locked node, a bad value in any entry): nothing changed, the
   scene, the pose's entries and the players' weights as they were. The first
   call of a player with a pose allocates its map to the pose's entries (ARBOR_ERR_OUT_OF_MEMORY). */
ARBOR_API arbor_result arbor_players_apply_pose(arbor_player *const *players, const double *times, uint32_t count,
                                                arbor_wrap wrap, arbor_pose *pose, const arbor_executor *executor);

/* Samples without writing: for every rig entry the clip animates, the animated components of
   pose[rig index] are overwritten (others left as they were); weights as in apply. pose holds
   pose_count >= the rig size entries. Touches no scene: safe on any thread for its player. */
ARBOR_API arbor_result arbor_player_sample(arbor_player *player, double time, arbor_wrap wrap, arbor_trs *pose,
                                           uint32_t pose_count);

/* Cross-fade: the nodes driven by a or b get (1 - weight) * a's pose at time_a + weight * b's at
   time_b (translation and scale linear, rotation slerp along the shorter arc, weights linear);
   where one clip does not animate a component, its side of the blend is the rest pose. a and b
   must be of the same scene with rigs that agree where either drives a node. weight in [0, 1];
   otherwise refused as apply is, and ARBOR_ERR_INVALID_ARGUMENT for rigs that disagree or a
   weight outside [0, 1]. Morph weights: a's arrays get the blend. */
ARBOR_API arbor_result arbor_player_blend(arbor_player *a, double time_a, arbor_player *b, double time_b,
                                          arbor_real weight, arbor_wrap wrap);

/* Additive layer: on each driven node's current pose, the clip's change at `time` from its
   reference (each channel's first keyframe value), scaled by weight: translation and scale
   t + weight * (clip - reference); rotation r * slerp(identity, reference^-1 * clip, weight);
   weights likewise, into the player's arrays. weight finite; a result that is not finite is
   ARBOR_ERR_NONFINITE, nothing written. */
ARBOR_API arbor_result arbor_player_add(arbor_player *player, double time, arbor_real weight, arbor_wrap wrap);

/* The morph weights last sampled for rig entry `target`: *count values (NULL and 0 when the clip
   has no weights channel for it). Before any sampling they are the first keyframe's. */
ARBOR_API const arbor_real *arbor_player_weights(const arbor_player *player, uint32_t target, uint32_t *count);

/* ---- Skins ----------------------------------------------------------------------------------- */

typedef struct arbor_skin_desc {
    arbor_node mesh;                   /* the skinned mesh's node */
    const arbor_node *joints;          /* joint_count nodes of the same scene */
    uint32_t joint_count;              /* at least 1 */
    const float *inverse_bind;         /* 16 floats per joint, column-major; NULL: identities */
} arbor_skin_desc;

typedef struct arbor_skins arbor_skins;

/* An empty set of skins for scene s, through its allocator.
   Destroying it and its scene in either order is safe: the scene's destroy leaves it inert
   (every call of it that returns an arbor_result is refused with ARBOR_ERR_INVALID_ARGUMENT, "its
   scene was destroyed"; the others answer from what it holds) and its own destroy frees it. */
ARBOR_API arbor_result arbor_skins_create(arbor_scene *s, arbor_skins **out);
ARBOR_API void arbor_skins_destroy(arbor_skins *skins);

/* Adds a skin (copied); *index (may be NULL) gets its number: skins are numbered in the order
   they are added. Refused: a dead or NONE mesh or joint (ARBOR_ERR_DEAD_NODE /
   ARBOR_ERR_INVALID_ARGUMENT), no joints, an inverse bind matrix whose last row is not
   (0, 0, 0, 1) (ARBOR_ERR_INVALID_ARGUMENT), a NaN or infinity in one (ARBOR_ERR_NONFINITE). */
ARBOR_API arbor_result arbor_skins_add(arbor_skins *skins, const arbor_skin_desc *desc, uint32_t *index);

/* How many skins, how many joint matrices they make together, and where skin i's first one is
   in the output of arbor_skins_compute (its joints follow in order). */
ARBOR_API uint32_t arbor_skins_count(const arbor_skins *skins);
ARBOR_API uint32_t arbor_skins_joint_total(const arbor_skins *skins);
ARBOR_API uint32_t arbor_skins_first_joint(const arbor_skins *skins, uint32_t skin);

/* Skin `skin` of the set, as it was added: its mesh node into *mesh (may be NULL), its joints
   into joints (at most cap; NULL to skip) and their inverse bind matrices (16 floats per joint,
   column-major; identities where none were given) into ibm (NULL to skip; room for cap
   matrices); *count gets the joint count, even when cap is smaller. Joint j's matrix is number
   arbor_skins_first_joint(skins, skin) + j of arbor_skins_compute. A skin index out of range is
   ARBOR_ERR_INVALID_ARGUMENT (*count 0). */
ARBOR_API arbor_result arbor_skins_skin(const arbor_skins *skins, uint32_t skin, arbor_node *mesh, arbor_node *joints,
                                        float *ibm, uint32_t cap, uint32_t *count);

/* Writes every joint matrix of every skin, skin after skin: J = W_mesh^-1 * W_joint * IBM, as
   16 floats (ARBOR_LAYOUT_MAT4, column-major) or 12 (ARBOR_LAYOUT_MAT3X4: three rows of four,
   row-major) per joint, into out, which holds matrix_cap matrices. World matrices are read as
   they stand (out-of-date ones are computed first, so it is cheapest right after an update);
   the products run on the executor (NULL: the calling thread). Refused, out untouched: a
   destroyed node (ARBOR_ERR_DEAD_NODE), a mesh node whose world matrix cannot be inverted
   (ARBOR_ERR_SINGULAR), matrix_cap below arbor_skins_joint_total or an unknown layout
   (ARBOR_ERR_INVALID_ARGUMENT). Allocates nothing. */
ARBOR_API arbor_result arbor_skins_compute(arbor_skins *skins, arbor_matrix_layout layout, float *out,
                                           uint32_t matrix_cap, const arbor_executor *executor);

/* ---- 1.0 names (docs/MIGRATING.md) ------------------------------------------------------------ */

/* arbor_clip_rig_by_names without a capacity: rig must hold arbor_clip_rig_size(clip) entries
   (a smaller array is overrun). Returns how many animated targets found their node (0 for NULL
   arguments). */
ARBOR_API uint32_t arbor_clip_bind_names(const arbor_clip *clip, const arbor_scene *s, arbor_node root,
                                         arbor_node *rig) ARBOR_DEPRECATED("arbor_clip_rig_by_names");

#ifdef __cplusplus
}
#endif
#endif
