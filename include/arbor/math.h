/* SPDX-License-Identifier: MIT */
/*
 * arbor/math.h: pure functions on arrays of arbor_real.
 *
 * Conventions (glTF, OpenGL, cglm):
 * - a matrix is 16 values, column-major: element [c * 4 + r] is row r of column c, so the
 *   translation is in elements 12, 13, 14;
 * - a quaternion is (x, y, z, w); a local transform is L = T * R * S;
 * - an output argument may be the same array as an input unless said otherwise.
 *
 * The functions are deterministic: the same inputs give the same bits on every path of the
 * library (the library is built with floating-point contraction off).
 */
#ifndef ARBOR_MATH_H
#define ARBOR_MATH_H

#include "arbor/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tolerance of arbor_mat4_decompose's shear and last-row tests, relative to the column
   lengths: 1e-4 in float builds, 1e-9 in double builds. */
#if ARBOR_REAL_IS_DOUBLE
#define ARBOR_DECOMPOSE_TOLERANCE 1e-9
#else
#define ARBOR_DECOMPOSE_TOLERANCE 1e-4f
#endif

/* The SIMD path of the update's kernels in this process: "AVX2" or "SSE2" (x86-64, AVX2 chosen
   when the library is loaded on a CPU that has it), "NEON", or "scalar" (a build with
   ARBOR_SCALAR_KERNELS, or a compiler without vector extensions). Every path gives the same
   bits. */
ARBOR_API const char *arbor_simd_path(void);

/* out = identity. */
ARBOR_API void arbor_mat4_identity(arbor_real out[16]);

/* out = a * b (apply b first). out may be a, b, or both. */
ARBOR_API void arbor_mat4_mul(arbor_real out[16], const arbor_real a[16], const arbor_real b[16]);

/* out = T(t) * R(r) * S(s). r need not be unit: it is used as given (normalise it first for a
   pure rotation). Any of t, r, s may be NULL for "none" (zero, identity, one). */
ARBOR_API void arbor_mat4_compose(arbor_real out[16], const arbor_real t[3], const arbor_real r[4],
                                  const arbor_real s[3]);

/* Splits m into translation t, unit rotation r and scale s, the best TRS for m: s holds the
   lengths of the first three columns, r comes from those columns orthonormalised by
   Gram-Schmidt starting at column 0. A reflection (negative determinant) is kept as a negative
   scale on Y. Returns false when m is not affine (last row not (0, 0, 0, 1)) or has a shear
   (columns not orthogonal), judged relative to the column lengths with
   ARBOR_DECOMPOSE_TOLERANCE; the parts are filled all the same. A zero column gives scale 0
   on that axis and the rotation comes from the remaining columns; true is returned when no
   shear can be seen. Any of t, r, s may be NULL. */
ARBOR_API bool arbor_mat4_decompose(const arbor_real m[16], arbor_real t[3], arbor_real r[4],
                                    arbor_real s[3]);

/* out = inverse of the affine matrix m (its last row is taken as (0, 0, 0, 1)). Returns false,
   with out untouched, when the 3x3 part is singular (|det| below a tolerance relative to the
   column lengths, or not finite). out may be m. */
ARBOR_API bool arbor_mat4_invert_affine(arbor_real out[16], const arbor_real m[16]);

/* out3 = m * (p3, 1), the w row ignored. out3 may be p3. */
ARBOR_API void arbor_mat4_transform_point(arbor_real out3[3], const arbor_real m[16], const arbor_real p3[3]);

/* out3 = m * (d3, 0): the direction turned and scaled, not translated. out3 may be d3. */
ARBOR_API void arbor_mat4_transform_dir(arbor_real out3[3], const arbor_real m[16], const arbor_real d3[3]);

/* Determinant of the upper-left 3x3; negative for a mirror. */
ARBOR_API arbor_real arbor_mat4_determinant3(const arbor_real m[16]);

/* out = rotation of `radians` about `axis` (normalised here; a zero axis gives identity). */
ARBOR_API void arbor_quat_from_axis_angle(arbor_real out[4], const arbor_real axis[3], arbor_real radians);

/* out = q / |q|; returns false (out = identity) when q is zero or holds a NaN or an infinity.
   Any other q normalises, even when its length overflows or underflows arbor_real (it is
   divided by its largest component first). out may be q. */
ARBOR_API bool arbor_quat_normalize(arbor_real out[4], const arbor_real q[4]);

/* Spherical interpolation from a (t = 0) to b (t = 1) along the shorter arc; out is unit. Exact
   down to nearly parallel inputs (no linear fallback; the weights come from a power series, not
   from acos and sin). out may be a or b. */
ARBOR_API void arbor_quat_slerp(arbor_real out[4], const arbor_real a[4], const arbor_real b[4], arbor_real t);

/* out = q1 * q2 (apply q2 first). out may be q1 or q2. */
ARBOR_API void arbor_quat_mul(arbor_real out[4], const arbor_real q1[4], const arbor_real q2[4]);

/* out = the rotation matrix of the unit quaternion q (translation zero). */
ARBOR_API void arbor_quat_to_mat4(arbor_real out[16], const arbor_real q[4]);

/* out = the unit quaternion (w >= 0) of the rotation part of m, whose first three columns must
   be orthonormal (a pure rotation). */
ARBOR_API void arbor_quat_from_mat4(arbor_real out[4], const arbor_real m[16]);

#ifdef __cplusplus
}
#endif
#endif
