/*
 * Internal affine kernels shared by the scene and the public math functions.
 *
 * An affine matrix here is 12 arbor_real: the first three rows of a column-major 4x4, stored
 * column by column (element [c * 3 + r] is row r of column c; translation in 9, 10, 11). The
 * last row is implicitly (0, 0, 0, 1).
 *
 * Every world matrix of a scene is made by arbor__affine_mul and every local matrix by
 * arbor__affine_compose, on every path (lazy read, batch update), so results agree bit for bit.
 * The library is built with -ffp-contract=off so the compiler cannot fuse differently per path.
 */
#ifndef ARBOR_MATH_AFFINE_H
#define ARBOR_MATH_AFFINE_H

#include "arbor/math.h"

/* out = T(t) * R(q) * S(s); q is used as given (unit for a rotation). */
void arbor__affine_compose(arbor_real out[12], const arbor_real t[3], const arbor_real q[4], const arbor_real s[3]);

/* out = a * b. out may alias a or b. */
void arbor__affine_mul(arbor_real out[12], const arbor_real a[12], const arbor_real b[12]);

/* Conversions to and from the public 4x4 form (from_mat4 drops the last row). */
void arbor__affine_to_mat4(arbor_real out[16], const arbor_real a[12]);
void arbor__affine_from_mat4(arbor_real out[12], const arbor_real m[16]);

/* Inverse of an affine matrix; false (out untouched) when singular. out may alias a. */
bool arbor__affine_invert(arbor_real out[12], const arbor_real a[12]);

/* arbor_mat4_decompose on the affine form: false when there is a shear. */
bool arbor__affine_decompose(const arbor_real a[12], arbor_real t[3], arbor_real q[4], arbor_real s[3]);

/* True when all n values are finite. */
bool arbor__all_finite(const arbor_real *v, size_t n);

#endif
