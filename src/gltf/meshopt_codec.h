/* SPDX-License-Identifier: MIT */
/* The parts of the meshopt codec that arbor decodes itself (meshopt_codec.c): attribute streams
   of version 1 (and 0), and the COLOR filter. Libmeshoptimizer decodes the rest. */
#ifndef ARBOR_GLTF_MESHOPT_CODEC_H
#define ARBOR_GLTF_MESHOPT_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    ARBOR_MESHOPT_BAD_LAYOUT = -1, /* stride not a multiple of 4 from 4 to 256 */
    ARBOR_MESHOPT_BAD_HEADER = -2, /* the first byte is not 0xa0 or 0xa1 */
    ARBOR_MESHOPT_TRUNCATED = -3,  /* the stream ends before its elements do */
    ARBOR_MESHOPT_LEFT_OVER = -4,  /* bytes left between the last block and the tail */
    ARBOR_MESHOPT_BAD_MODE = -5,   /* a channel mode the specification does not have */
};

/* count elements of stride bytes from the attribute stream src (size bytes: its byteLength)
   into dst (count * stride bytes). 0, or one of the codes above. */
int arbor__meshopt_decode_attributes(uint8_t *dst, size_t count, size_t stride, const uint8_t *src, size_t size);

/* The COLOR filter in place: YCoCg with alpha to RGBA, 8-bit (stride 4) or 16-bit (stride 8)
   normalized components. */
void arbor__meshopt_color_filter(uint8_t *data, size_t count, size_t stride);

#endif
