/* SPDX-License-Identifier: MIT */
/* What the files of src/view/ share. */
#ifndef ARBOR_VIEW_INTERNAL_H
#define ARBOR_VIEW_INTERNAL_H

#include "scene/scene_internal.h"

/* The world matrix of a live node given as an argument (4x4); ARBOR_NONE is the world (the
   identity) when none_is_world, else refused as arbor__require refuses it. */
arbor_result arbor__world_of(arbor_scene *s, arbor_node n, bool none_is_world, arbor_real out[16], const char *fn);

/* The record of a live node that carries `part` (ARBOR__HAS_CAMERA or ARBOR__HAS_LIGHT) and
   its slot; NULL after recording why in *r: the handle (arbor__require), or
   ARBOR_ERR_INVALID_ARGUMENT when the node carries no such part (view/attach.c). */
const arbor__attachment *arbor__carrying(const arbor_scene *s, arbor_node n, uint32_t part, uint32_t *slot,
                                         arbor_result *r, const char *fn);

#endif
