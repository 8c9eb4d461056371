/* SPDX-License-Identifier: MIT */
/*
 * What src/anim offers the glTF loader (src/gltf), beside its public API: the one header of
 * anim that gltf includes. anim knows nothing of glTF.
 */
#ifndef ARBOR_ANIM_GLTF_H
#define ARBOR_ANIM_GLTF_H

#include "arbor/anim.h"
#include "base/base_internal.h"

/* clip.c: everything arbor_clip_create refuses in channel i of a clip (rig_size 0: any target),
   said through arbor__fail as arbor_clip_create says it. */
ARBOR__FOR_GLTF arbor_result arbor__clip_check_channel(const arbor_channel_desc *c, uint32_t i, uint32_t rig_size);
/* skin.c: drops the skins numbered from count on (an add of many that failed half way). */
ARBOR__FOR_GLTF void arbor__skins_truncate(arbor_skins *skins, uint32_t count);

#endif
