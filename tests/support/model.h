/* SPDX-License-Identifier: MIT */
/*
 * tests/support/model.h: model-based testing of the scene API (docs/RELIABILITY.md).
 *
 * A reference model that is obviously right (arrays of nodes, each with its parent and its
 * ordered list of children, its local transform as given, worlds recomputed from scratch in
 * double as W = W_parent * L), and a driver that decodes bytes into calls on one scene and on
 * the model, and compares them after every step: the result code of every call (a call is
 * refused exactly when one of the model's refusals applies, and then changes nothing), node
 * count, the order of arbor_scene_next_node, every link, depth, name, user pointer, mesh,
 * bounds, matrix-backed and locked flags, TRS, and world matrices with their versions.
 *
 * World matrices agree within a bound that follows rounding: an element may differ from the
 * model's by at most 64 * eps * (depth + 2) times the same element of |W| built from the
 * absolute values of the locals, with the rotation part of each local counted at its column's
 * length (eps: of arbor_real). Keep-world reparenting keeps the world within that bound times
 * the condition number of the new parent's world; then the model takes the local the library
 * chose (TRS or a sheared matrix), whose world it checks from there on. Versions: a node whose
 * world may have changed since its version was last read (its local, an ancestor's, a reparent
 * above it) gets a version it never had before; any other keeps its version and its world
 * matrix bit for bit.
 *
 * A quarter of the sequences make every edit through a journal (edit.h; a step limit of 4 in
 * half of them): the model keeps the state before each step and compares undo, redo, commit
 * and abort against it (handles of destroyed nodes alive again, places, locals, names,
 * attachments), and the journal's step counts against its own; a node's version after an
 * undo may be the same or new, never an older one. Clones are copied in the model breadth
 * first and compared like any node. Boxes (a node's world box, a subtree's), culling (every
 * node tested on its own; a box within rounding of a plane may go either way) and instance
 * buffers (batches by mesh and mirror, matrices) are computed in the model from its worlds.
 *
 * The same bytes always make the same calls: tests/test_model.c feeds it random bytes from
 * fixed seeds, fuzz/fuzz_ops.c feeds it libFuzzer's. The operations live in a table in
 * model.c (name, weight, function drawing its arguments from the bytes and checking the call);
 * a new operation is one function and one line of that table.
 */
#ifndef ARBOR_TEST_MODEL_H
#define ARBOR_TEST_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "arbor/arbor.h"

#define MODEL_MAX_KINDS 40 /* room for the operations of the table */

typedef struct model_config {
    uint32_t max_nodes;             /* nodes one sequence may create (live and dead); 0: 64 */
    bool allow_large;               /* a sequence may grow its scene by 9,000 nodes at once, enough
                                       for arbor_scene_update_parallel to share the work out */
    const arbor_executor *executor; /* for parallel updates; NULL: arbor's own, tasks run backwards
                                       on the calling thread */
} model_config;

typedef struct model_stats {
    uint64_t sequences, steps, refusals, worlds_checked;
    uint64_t kinds[MODEL_MAX_KINDS]; /* steps of each operation, in model_op_name order */
} model_stats;

/* Applies the operations data encodes to a new scene and to the model, comparing them after
   every step. NULL when they agreed throughout; else a message naming the step, the operation
   and what differed (valid until the next call). stats (may be NULL) is added to. */
const char *model_run(const uint8_t *data, size_t size, const model_config *config, model_stats *stats);

/* The name of operation kind k, NULL past the last. */
const char *model_op_name(unsigned k);

/* size bytes of splitmix64 from seed. */
void model_random_bytes(uint64_t seed, uint8_t *out, size_t size);

/* The random sequence of seed: between cap / 4 and cap bytes into out, returning how many. A
   large one (when the config allows it) starts by growing its scene. tests/test_model.c runs
   these, and fuzz/fuzz_ops starts from some of them. */
size_t model_sequence(uint64_t seed, uint8_t *out, size_t cap, bool large);

#endif
