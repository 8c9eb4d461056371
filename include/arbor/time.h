/* SPDX-License-Identifier: MIT */
/*
 * arbor/time.h: transforms at any moment. Nodes keep stamped samples of their local TRS, and
 * lookups answer where one node was in another's frame at a time, interpolating every node on
 * the path between its samples (tf2's buffer, without ROS).
 *
 * Recording: arbor_node_record_trs stores a sample of a node's local TRS at a time (seconds,
 * any clock the caller keeps). A sample later than every earlier one of the node also becomes
 * its current TRS (what every "now" read sees, as arbor_node_set_trs); an older one (a late
 * message) only fills the history, in time order; one at the time of a sample it holds
 * replaces it. A node never recorded is static: its current local, under its current parent,
 * at every time. A recorded node answers from its samples only: arbor_node_set_trs and the other
 * writes change its present, not its past.
 * How much is kept, per node: samples no older than history_duration (arbor_scene_desc; zero:
 * 10 s) before its latest, and at most history_capacity of them (zero: no count limit), pruned
 * as samples arrive; a sample that would be pruned at once is dropped (ARBOR_OK). A sample
 * takes 48 bytes in the float build (88 in the double one); arbor_scene_stats reports the
 * samples and bytes held. A node's samples fill a ring that grows when full; memory comes back
 * where no reader can be in a ring: at the next first sample of any node (recorded with the
 * scene to itself, below) the rings grown out of are freed, and now and then (at
 * arbor_scene_set_time_hold, always) the rings of nodes whose ids were freed (destroyed; a node
 * the journal holds keeps its samples) and those four times larger than their samples need
 * (halved); everything at the scene's destroy.
 *
 * Lookups: arbor_scene_lookup(s, target, source, time, out) gives the matrix that maps points
 * written in source's frame at `time` into target's frame at `time`, the direction of
 * arbor_node_relative_matrix (tf2's lookupTransform(target, source, time)): the product of
 * the locals from source up to the nearest common ancestor, and back down to target, inverted;
 * nothing above that ancestor is read. Each recorded node on that path is interpolated at time
 * between the samples around it: translation and scale linearly, rotation by slerp on the
 * shorter arc; at the time of a sample, that sample exactly. Products are computed in double,
 * from the top of the path down (below 32 nodes a side; a longer chain from its bottom up).
 * ARBOR_TIME_LATEST asks for the latest time at which every node on the path has samples (the
 * earliest of their last samples; tf2's Time(0)).
 *
 * Refusals (the message is built only then; out untouched): a dead or NONE node
 * (ARBOR_ERR_DEAD_NODE / ARBOR_ERR_INVALID_ARGUMENT), two nodes in different trees
 * (ARBOR_ERR_NOT_CONNECTED), a time outside the samples of a recorded node on the path
 * (ARBOR_ERR_EXTRAPOLATION: "'base/arm' has samples from 3.10 s to 13.10 s; 13.12 s is 0.02 s
 * after the last"; arbor_time_last_extrapolation gives the parts). Never extrapolated; a scene
 * may hold a node's first or last sample a little outside them (arbor_scene_set_time_hold).
 *
 * The tree changing: a node keeps the parent its samples were recorded under. Moved to
 * another parent (arbor_node_set_parent, an undo), its samples stand for a frame it is no longer
 * in, so a lookup through it is refused (ARBOR_ERR_EXTRAPOLATION, "'x' was recorded under 'a',
 * its parent is now 'b'") until it is recorded again, which drops the samples of the old parent;
 * moved back, they answer again. A destroyed node's samples die with its handle (a dead handle is
 * refused); a node the journal brings back (undo of a destroy) keeps its samples and parent.
 * A static node's past is its present: moving it moves it at every time.
 *
 * Threads: one thread may record (arbor_node_record_trs, arbor_pose_record) while any number of
 * other threads call the lookups (arbor_scene_lookup, _between, _many, arbor_node_history_range,
 * arbor_scene_world_matrices_at). Readers never block the writer and never see a torn sample:
 * each node's samples are guarded by a sequence counter (a reader that overlapped a write of that
 * node reads it again). Conditions: while readers run, the writer calls nothing else on the
 * scene; every node it records already holds a sample (a node's first sample may grow the
 * scene's tables: record it with the scene to itself, as any other write); and no static node on
 * a looked-up path lies below a node it records (recording writes the present of the nodes below,
 * which a static node is read from). Everything else follows scene.h's rule.
 *
 * Example: a camera on a moving robot, where was it when the image was taken:
 *     arbor_node_record_trs(s, base, stamp, &base_trs);   // as odometry arrives
 *     arbor_real m[16];
 *     if (arbor_scene_lookup(s, map, camera, image_stamp, m) == ARBOR_OK) ...  // camera -> map
 */
#ifndef ARBOR_TIME_H
#define ARBOR_TIME_H

#include <math.h>

#include "arbor/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The latest time every node on a lookup's path has samples for (tf2's Time(0)). */
#define ARBOR_TIME_LATEST (-INFINITY)

/* Stores a sample of n's local TRS at time (see above). The rotation is normalised. Refused,
   nothing changed: a dead or NONE node, a NULL trs, a time that is not finite
   (ARBOR_ERR_INVALID_ARGUMENT), a NaN or infinity (ARBOR_ERR_NONFINITE), a zero rotation
   (ARBOR_ERR_INVALID_ARGUMENT), a locked matrix-backed node (ARBOR_ERR_LOCKED), no memory. May
   allocate (the node's buffer grows geometrically until pruning keeps it steady). */
ARBOR_API arbor_result arbor_node_record_trs(arbor_scene *s, arbor_node n, double time, const arbor_trs *trs);

/* Records every entry of the pose (arbor_pose_trs) as a sample of its node at time. An entry
   whose sample is its node's latest also sets the node's current TRS, as arbor_node_set_trs sets
   it (versions, flags and change lists alike; no world matrix is computed here: reads compute
   what they need); an entry whose node holds a later sample (a late one) leaves its current TRS
   as it is. Refused, nothing changed: what arbor_node_record_trs refuses, said with the index
   of the first entry refused ("pose entry 3: ..."), a pose whose scene was destroyed. */
ARBOR_API arbor_result arbor_pose_record(arbor_pose *pose, double time);

/* out (16, column-major) = the matrix from source's frame at time to target's frame at time
   (see above). ARBOR_NONE as target stands for the world: out is then source's world matrix at
   time. */
ARBOR_API arbor_result arbor_scene_lookup(arbor_scene *s, arbor_node target, arbor_node source, double time,
                                          arbor_real out[16]);

/* Time travel (tf2's advanced lookupTransform): from source at source_time into the frame of
   `fixed`, assumed not to move, and from there to target at target_time:
   out = lookup(target, fixed, target_time) * lookup(fixed, source, source_time). */
ARBOR_API arbor_result arbor_scene_lookup_between(arbor_scene *s, arbor_node target, double target_time, arbor_node source,
                                                  double source_time, arbor_node fixed, arbor_real out[16]);

/* count lookups of one pair at times[0 .. count) (sorted or not) into out (16 each), each as
   arbor_scene_lookup gives it: the path is found once, and each node's two samples around a time
   are read once for every time between them (sorted times read each pair once). Refused as a whole (out untouched) when any time is: the message names the
   first such index. */
ARBOR_API arbor_result arbor_scene_lookup_many(arbor_scene *s, arbor_node target, arbor_node source, const double *times,
                                               uint32_t count, arbor_real *out);

/* The world matrices of nodes[0 .. count) at time into out (16 each), bit for bit as
   arbor_scene_lookup(s, ARBOR_NONE, nodes[i], time) gives them: the renderer of a fixed-step
   simulation, drawing between two recorded steps. One walk: a node shares the chain above it with
   the node before it, so nodes given depth first (each parent before its subtree, as a scene's
   walk lists them) have each local interpolated and composed once. Refused as a whole (out
   untouched) when one node is: the message names the first such index and the topmost node
   refused on its path. */
ARBOR_API arbor_result arbor_scene_world_matrices_at(arbor_scene *s, const arbor_node *nodes, uint32_t count, double time,
                                                     arbor_real *out);

/* Lets lookups hold a recorded node's first sample for a time at most `tolerance` seconds before
   it, and its last for one at most that after it, where they refuse otherwise: a camera frame
   stamped a little past the last odometry message answers with that message's pose. Zero, the
   default, never extrapolates (tf2's rule). For every lookup of the scene, from then on; a write:
   call it with the scene to itself. Refused, nothing changed: a NULL scene, a tolerance negative
   or not finite (ARBOR_ERR_INVALID_ARGUMENT), no memory (the scene's table of samples is made
   here when it has none). */
ARBOR_API arbor_result arbor_scene_set_time_hold(arbor_scene *s, double tolerance);

/* The tolerance arbor_scene_set_time_hold set (0: never, the default, and for a NULL scene). */
ARBOR_API double arbor_scene_time_hold(const arbor_scene *s);

/* The times of n's first and last samples; -inf and +inf for a static node (valid at every
   time). Refused: a dead or NONE node, a NULL first or last. */
ARBOR_API arbor_result arbor_node_history_range(const arbor_scene *s, arbor_node n, double *first, double *last);

/* The parts of this thread's last ARBOR_ERR_EXTRAPOLATION: the node, the time asked and the
   node's first and last samples (a node recorded under another parent: its range, which it
   holds but cannot use). False, nothing written, when no lookup on this thread was refused so. */
ARBOR_API bool arbor_time_last_extrapolation(arbor_node *node, double *time, double *first, double *last);

#ifdef __cplusplus
}
#endif
#endif
