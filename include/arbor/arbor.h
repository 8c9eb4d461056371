/* SPDX-License-Identifier: MIT */
/*
 * arbor: scene graphs in C11. The umbrella header: include this one.
 *
 * - base.h   arbor_real, result codes, handles, allocator and log hooks, version
 * - math.h   matrices and quaternions on plain arrays (column-major, glTF conventions)
 * - scene.h  scenes, nodes, the hierarchy, world matrices, batch update, stats
 * - view.h   cameras and lights on nodes
 * - bounds.h meshes and local bounds on nodes
 * - parallel.h bulk writes, the parallel update, executors and a small thread pool
 * - edit.h   the journal (undo, redo, groups), clones, foreign parents, change lists
 * - anim.h   keyframe clips playing on nodes, blends, joint matrices of skins
 */
#ifndef ARBOR_ARBOR_H
#define ARBOR_ARBOR_H
#include "arbor/base.h"
#include "arbor/math.h"
#include "arbor/scene.h"
#include "arbor/view.h"
#include "arbor/bounds.h"
#include "arbor/parallel.h"
#include "arbor/edit.h"
#include "arbor/anim.h"
#endif
