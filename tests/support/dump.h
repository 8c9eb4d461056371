/* SPDX-License-Identifier: MIT */
/*
 * tests/support/dump.h: everything a scene shows through the public API, as text, to check that
 * a call that failed changed nothing ("the scene exactly as before") and that a call that
 * succeeded under injected faults did what it does without them.
 *
 * One line per live node in arbor_scene_next_node order (so structure and sibling order are in
 * the order of the lines): its handle (test_node_key), depth, parent and sibling links, child count, name, user
 * pointer, matrix-backed, locked and foreign-parent flags, TRS, local and world matrices bit for
 * bit (%a), world version, mesh, bounds, camera and light. Header lines hold the node count and
 * the roots, and the journal's counts when the scene has one.
 *
 * Taking a dump reads world matrices and versions (which may compute them): take the dumps you
 * compare at the same points of two runs. It calls getters that fail on nodes without a camera
 * or light, so arbor_last_error() is overwritten: read it before. No cmocka here: the fuzz
 * targets link this file too.
 */
#ifndef ARBOR_TEST_DUMP_H
#define ARBOR_TEST_DUMP_H

#include <stddef.h>

#include "arbor/arbor.h"

typedef struct scene_dump {
    char *text; /* NUL-terminated; malloc'd */
    size_t len, cap;
} scene_dump;

/* A handle without its scene's tag (the bits of its generation word above ARBOR__GEN_BITS,
   scene/scene_internal.h): its id and generation, which twin scenes built alike give their
   nodes alike. Dumps name nodes so, and tests compare twins' handles so. */
uint64_t test_node_key(arbor_node n);
/* Each of nodes[0 .. count) replaced by its key (a list to compare with a twin's). */
void test_node_keys(arbor_node *nodes, size_t count);

/* Replaces d's text with the dump of s. */
void scene_dump_take(arbor_scene *s, scene_dump *d);
void scene_dump_free(scene_dump *d);

/* NULL when a and b are the same; else a message quoting the first line that differs on each
   side (valid until the next call). */
const char *scene_dump_diff(const scene_dump *a, const scene_dump *b);

#endif
