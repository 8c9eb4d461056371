/* SPDX-License-Identifier: MIT */
/*
 * Internal affine kernels shared by the scene and the public math functions.
 *
 * An affine matrix here is 12 arbor_real: the first three rows of a 4x4, stored row by row
 * (element [r * 4 + c] is row r of column c; translation in 3, 7, 11). The last row is
 * implicitly (0, 0, 0, 1). Row by row, each row is one SIMD register of four lanes: the
 * product below needs no shuffling of data in or out, and a child loads its parent's rows
 * exactly as they were stored (loads that straddle stores would stall).
 *
 * Every world matrix of a scene is made by arbor__affine_mul and every local matrix by
 * arbor__affine_compose, on every path (lazy read, batch update), so results agree bit for bit.
 * The library is built with -ffp-contract=off so the compiler cannot fuse differently per path.
 */
#ifndef ARBOR_MATH_AFFINE_H
#define ARBOR_MATH_AFFINE_H

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "arbor/math.h"

/* The kernels of the hot loops are inline so the update and the setters compile them in place;
   being the same expressions in every translation unit, they give the same bits everywhere. */
#if defined(__GNUC__)
#define ARBOR__HOT static inline __attribute__((always_inline))
#else
#define ARBOR__HOT static inline
#endif

/* The update's loops are built twice on x86-64 Linux, for AVX2 and for the SSE2 baseline, and
   the loader picks one by the CPU (an ifunc). FMA stays off in both (-ffp-contract=off, and
   no fused builtins): the clones give the same bits, and the same as the lazy reads, which
   run the baseline. GCC only: clang 14 exports the resolvers of static functions. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8 && defined(__x86_64__) && defined(__linux__) && \
    !defined(ARBOR_SCALAR_KERNELS)
#define ARBOR__DISPATCH __attribute__((target_clones("avx2", "default")))
#define ARBOR__CLONES 1
#else
#define ARBOR__DISPATCH
#define ARBOR__CLONES 0
#endif

#define ARBOR__AT(r, c) ((r) * 4 + (c)) /* index of row r, column c */

/* Unrolls the loop that follows (short loops of a fixed count, whose counter then becomes
   constants: fewer instructions, the same operations). */
#if defined(__clang__)
#define ARBOR__UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && __GNUC__ >= 8
#define ARBOR__UNROLL _Pragma("GCC unroll 16")
#else
#define ARBOR__UNROLL
#endif

/* out = T(t) * R(q) * S(s); q is used as given (unit for a rotation). Each element of the
   rotation part is (1 - 2 (p + m)) on the diagonal, 2 (p + m) or 2 (p - m) off it, with p and
   m products of two components, times the scale of its column. The scalar form is the
   reference; the SIMD form below gives the same bits lane by lane (tests/test_math.c). */
ARBOR__HOT void arbor__affine_compose_scalar(arbor_real out[12], const arbor_real t[3], const arbor_real q[4],
                                             const arbor_real s[3]) {
    const arbor_real x = q[0], y = q[1], z = q[2], w = q[3];
    const arbor_real xx = x * x, yy = y * y, zz = z * z;
    const arbor_real xy = x * y, xz = x * z, yz = y * z;
    const arbor_real wx = w * x, wy = w * y, wz = w * z;
    const arbor_real one = 1, two = 2, sx = s[0], sy = s[1], sz = s[2];
    out[0] = (one - two * (yy + zz)) * sx;
    out[1] = (two * (xy - wz)) * sy;
    out[2] = (two * (xz + wy)) * sz;
    out[3] = t[0];
    out[4] = (two * (xy + wz)) * sx;
    out[5] = (one - two * (xx + zz)) * sy;
    out[6] = (two * (yz - wx)) * sz;
    out[7] = t[1];
    out[8] = (two * (xz - wy)) * sx;
    out[9] = (two * (yz + wx)) * sy;
    out[10] = (one - two * (xx + yy)) * sz;
    out[11] = t[2];
}

/* out = a * b, as the 4x4 product with the implied last rows: each element is
   a_r0 b_0c + a_r1 b_1c + a_r2 b_2c + a_r3 e_c, in that order, where e = (0, 0, 0, 1) is b's
   last row. out may alias a or b. Scalar reference of the SIMD form, as above. */
ARBOR__HOT void arbor__affine_mul_scalar(arbor_real out[12], const arbor_real a[12], const arbor_real b[12]) {
    arbor_real r[12];
    for (int row = 0; row < 3; ++row) {
        const arbor_real a0 = a[row * 4], a1 = a[row * 4 + 1], a2 = a[row * 4 + 2], a3 = a[row * 4 + 3];
        for (int c = 0; c < 4; ++c) r[row * 4 + c] = a0 * b[c] + a1 * b[4 + c] + a2 * b[8 + c] + a3 * (arbor_real)(c == 3);
    }
    memcpy(out, r, sizeof r);
}

#if defined(__GNUC__) && !defined(ARBOR_SCALAR_KERNELS)
#define ARBOR__SIMD 1
/* Four reals in one SIMD register (SSE2 for float; two registers, or one with AVX, for
   double); an affine matrix is three of them, its rows. */
typedef arbor_real arbor__v4 __attribute__((vector_size(4 * sizeof(arbor_real))));
typedef struct arbor__rows { arbor__v4 r[3]; } arbor__rows;
#define ARBOR__SHUF(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)

ARBOR__HOT arbor__v4 arbor__v4_load(const arbor_real *p) {
    arbor__v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Two groups of four lanes in one register of eight (AVX's two halves; two registers on
   SSE2, four for double): lanes 4 h .. 4 h + 3 hold group h. ARBOR__SHUF2 shuffles each half
   as ARBOR__SHUF shuffles four lanes, so the four-lane macros below serve both. */
typedef arbor_real arbor__v4x2 __attribute__((vector_size(8 * sizeof(arbor_real))));
#define ARBOR__HALF_(x, h) ((x) < 4 ? (x) + 4 * (h) : (x) + 4 + 4 * (h))
/* Half h (0 or 1) of v, four lanes. */
#define ARBOR__HALF(v, h) ((h) ? __builtin_shufflevector(v, v, 4, 5, 6, 7) : __builtin_shufflevector(v, v, 0, 1, 2, 3))
#define ARBOR__SHUF2(a, b, i, j, k, l)                                                                          \
    __builtin_shufflevector(a, b, ARBOR__HALF_(i, 0), ARBOR__HALF_(j, 0), ARBOR__HALF_(k, 0), ARBOR__HALF_(l, 0), \
                            ARBOR__HALF_(i, 1), ARBOR__HALF_(j, 1), ARBOR__HALF_(k, 1), ARBOR__HALF_(l, 1))
/* A register a row (a copy of the whole struct may go through the stack). */
ARBOR__HOT arbor__rows arbor__rows_load(const arbor_real a[12]) {
    return (arbor__rows){{arbor__v4_load(a), arbor__v4_load(a + 4), arbor__v4_load(a + 8)}};
}
ARBOR__HOT void arbor__rows_store(arbor_real out[12], arbor__rows m) { memcpy(out, &m, sizeof m); }

/* One row of the product (rows written out: a loop over them is not always unrolled, and its
   rows then go through the stack). */
ARBOR__HOT arbor__v4 arbor__row_mul(arbor__v4 ai, arbor__rows b) {
    const arbor__v4 e = {0, 0, 0, 1};
    return ARBOR__SHUF(ai, ai, 0, 0, 0, 0) * b.r[0] + ARBOR__SHUF(ai, ai, 1, 1, 1, 1) * b.r[1] +
           ARBOR__SHUF(ai, ai, 2, 2, 2, 2) * b.r[2] + ARBOR__SHUF(ai, ai, 3, 3, 3, 3) * e;
}
ARBOR__HOT arbor__rows arbor__rows_mul(arbor__rows a, arbor__rows b) {
    arbor__rows out = {{arbor__row_mul(a.r[0], b), arbor__row_mul(a.r[1], b), arbor__row_mul(a.r[2], b)}};
    return out;
}

#if !ARBOR_REAL_IS_DOUBLE
/* Rows 0 and 1 of a * b with a in memory, side by side in one register of eight (one AVX
   operation where the CPU has it, two otherwise), from b's rows each given twice over
   ([row | row]): each half broadcasts its own row's elements, arbor__row_mul's operations lane
   by lane (the same bits). */
ARBOR__HOT void arbor__rows01_mul_twice(arbor__v4x2 *out, const float a[12], const arbor__v4x2 b[3]) {
    arbor__v4x2 a01;
    memcpy(&a01, a, sizeof a01);
    const arbor__v4x2 e = {0, 0, 0, 1, 0, 0, 0, 1};
    *out = __builtin_shufflevector(a01, a01, 0, 0, 0, 0, 4, 4, 4, 4) * b[0] +
           __builtin_shufflevector(a01, a01, 1, 1, 1, 1, 5, 5, 5, 5) * b[1] +
           __builtin_shufflevector(a01, a01, 2, 2, 2, 2, 6, 6, 6, 6) * b[2] +
           __builtin_shufflevector(a01, a01, 3, 3, 3, 3, 7, 7, 7, 7) * e;
}
#define ARBOR__TWICE_(v, h) __builtin_shufflevector(v, v, 4 * (h), 4 * (h) + 1, 4 * (h) + 2, 4 * (h) + 3, \
                                                    4 * (h), 4 * (h) + 1, 4 * (h) + 2, 4 * (h) + 3)
#endif

/* a * b with a in memory: arbor__rows_mul's operations, lane by lane (the same bits); for
   float, rows 0 and 1 in one register of eight (arbor__rows01_mul_twice). */
ARBOR__HOT arbor__rows arbor__rows_mul_mem(const arbor_real a[12], arbor__rows B) {
#if ARBOR_REAL_IS_DOUBLE
    return arbor__rows_mul(arbor__rows_load(a), B);
#else
    const arbor__v4x2 twice[3] = {__builtin_shufflevector(B.r[0], B.r[0], 0, 1, 2, 3, 0, 1, 2, 3),
                                  __builtin_shufflevector(B.r[1], B.r[1], 0, 1, 2, 3, 0, 1, 2, 3),
                                  __builtin_shufflevector(B.r[2], B.r[2], 0, 1, 2, 3, 0, 1, 2, 3)};
    arbor__v4x2 r01;
    arbor__rows01_mul_twice(&r01, a, twice);
    const arbor__rows out = {{__builtin_shufflevector(r01, r01, 0, 1, 2, 3), __builtin_shufflevector(r01, r01, 4, 5, 6, 7),
                              arbor__row_mul(arbor__v4_load(a + 8), B)}};
    return out;
#endif
}
/* arbor__rows_mul_mem(a, B) stored at out (the same bits): for float, rows 0 and 1 go out from
   the register of eight that computed them (no moves, no trip through the stack). */
ARBOR__HOT void arbor__rows_mul_store(arbor_real out[12], const arbor_real a[12], arbor__rows B) {
#if ARBOR_REAL_IS_DOUBLE
    arbor__rows_store(out, arbor__rows_mul(arbor__rows_load(a), B));
#else
    const arbor__v4x2 twice[3] = {__builtin_shufflevector(B.r[0], B.r[0], 0, 1, 2, 3, 0, 1, 2, 3),
                                  __builtin_shufflevector(B.r[1], B.r[1], 0, 1, 2, 3, 0, 1, 2, 3),
                                  __builtin_shufflevector(B.r[2], B.r[2], 0, 1, 2, 3, 0, 1, 2, 3)};
    arbor__v4x2 r01;
    arbor__rows01_mul_twice(&r01, a, twice);
    const arbor__v4 r2 = arbor__row_mul(arbor__v4_load(a + 8), B);
    memcpy(out, &r01, sizeof r01);
    memcpy(out + 8, &r2, sizeof r2);
#endif
}
/* arbor__rows_mul_store with B's rows in half h of b0, b1, b2 (four-lane rows of two nodes,
   as ARBOR__COMPOSE_LANES4X2 leaves them). */
ARBOR__HOT void arbor__rows_mul_store_half(arbor_real out[12], const arbor_real a[12], const arbor__v4x2 b[3], int h) {
    const arbor__v4x2 b0 = b[0], b1 = b[1], b2 = b[2];
#if ARBOR_REAL_IS_DOUBLE
    const arbor__rows B = {{ARBOR__HALF(b0, h), ARBOR__HALF(b1, h), ARBOR__HALF(b2, h)}};
    arbor__rows_store(out, arbor__rows_mul(arbor__rows_load(a), B));
#else
    const arbor__v4x2 d[3] = {h ? ARBOR__TWICE_(b0, 1) : ARBOR__TWICE_(b0, 0), h ? ARBOR__TWICE_(b1, 1) : ARBOR__TWICE_(b1, 0),
                              h ? ARBOR__TWICE_(b2, 1) : ARBOR__TWICE_(b2, 0)};
    arbor__v4x2 r01;
    arbor__rows01_mul_twice(&r01, a, d);
    const arbor__rows B = {{ARBOR__HALF(d[0], 0), ARBOR__HALF(d[1], 0), ARBOR__HALF(d[2], 0)}};
    const arbor__v4 r2 = arbor__row_mul(arbor__v4_load(a + 8), B);
    memcpy(out, &r01, sizeof r01);
    memcpy(out + 8, &r2, sizeof r2);
#endif
}
/* a * b, both in memory. */
ARBOR__HOT arbor__rows arbor__rows_mul_at(const arbor_real a[12], const arbor_real b[12]) {
    return arbor__rows_mul_mem(a, arbor__rows_load(b));
}

/* T(t) R(q) S(s): the scalar reference's expressions, packed into rows (shuffling the
   quaternion's products into place lane by lane measured slower: SSE2 spends more moving
   data between lanes than computing). The quaternion as four values: a caller holding it in
   a register (scene/pose.c) passes its lanes, not memory. */
ARBOR__HOT arbor__rows arbor__rows_compose_q(const arbor_real t[3], arbor_real x, arbor_real y, arbor_real z, arbor_real w,
                                           const arbor_real s[3]) {
    const arbor_real xx = x * x, yy = y * y, zz = z * z;
    const arbor_real xy = x * y, xz = x * z, yz = y * z;
    const arbor_real wx = w * x, wy = w * y, wz = w * z;
    const arbor_real one = 1, two = 2, sx = s[0], sy = s[1], sz = s[2];
    arbor__rows out;
    out.r[0] = (arbor__v4){(one - two * (yy + zz)) * sx, (two * (xy - wz)) * sy, (two * (xz + wy)) * sz, t[0]};
    out.r[1] = (arbor__v4){(two * (xy + wz)) * sx, (one - two * (xx + zz)) * sy, (two * (yz - wx)) * sz, t[1]};
    out.r[2] = (arbor__v4){(two * (xz - wy)) * sx, (two * (yz + wx)) * sy, (one - two * (xx + yy)) * sz, t[2]};
    return out;
}
ARBOR__HOT arbor__rows arbor__rows_compose(const arbor_real t[3], const arbor_real q[4], const arbor_real s[3]) {
    return arbor__rows_compose_q(t, q[0], q[1], q[2], q[3], s);
}

/* The local of a TRS stored as in a scene (translation 3, rotation 4, scale 3). */
ARBOR__HOT arbor__rows arbor__rows_compose_trs(const arbor_real trs[10]) {
    return arbor__rows_compose(trs, trs + 3, trs + 7);
}

/* The locals of four TRS stored one after another as in a scene (10 reals each) into four
   affine forms one after another: the same expressions, one node per lane. Named registers,
   not arrays: arrays of vectors go through the stack. */
#define ARBOR__TRANSPOSE4_WITH(S, V, m0, m1, m2, m3)                                                    \
    do {                                                                                                 \
        const V t0_ = S(m0, m1, 0, 4, 1, 5), t1_ = S(m0, m1, 2, 6, 3, 7);                                \
        const V t2_ = S(m2, m3, 0, 4, 1, 5), t3_ = S(m2, m3, 2, 6, 3, 7);                                \
        m0 = S(t0_, t2_, 0, 1, 4, 5);                                                                    \
        m1 = S(t0_, t2_, 2, 3, 6, 7);                                                                    \
        m2 = S(t1_, t3_, 0, 1, 4, 5);                                                                    \
        m3 = S(t1_, t3_, 2, 3, 6, 7);                                                                    \
    } while (0)
#define ARBOR__TRANSPOSE4(m0, m1, m2, m3) ARBOR__TRANSPOSE4_WITH(ARBOR__SHUF, arbor__v4, m0, m1, m2, m3)
/* Each half of four registers of arbor__v4x2 transposed. */
#define ARBOR__TRANSPOSE4X2(m0, m1, m2, m3) ARBOR__TRANSPOSE4_WITH(ARBOR__SHUF2, arbor__v4x2, m0, m1, m2, m3)

/* The locals of four nodes, one a lane (tx: the four translations' x, and so on), on lanes of
   type V with the transpose T: m[3 k + r] is row r of node k (of nodes k and k + 4 for
   arbor__v4x2, one a half). */
#define ARBOR__COMPOSE_LANES_WITH(V, T, m, tx, ty, tz, x, y, z, w, sx, sy, sz)                                             \
    do {                                                                                                                 \
        const V xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;                                  \
        const V wx = w * x, wy = w * y, wz = w * z;                                                                      \
        const V one = (V){0} + 1, two = (V){0} + 2;                                                                      \
        V r00 = (one - two * (yy + zz)) * sx, r01 = (two * (xy - wz)) * sy, r02 = (two * (xz + wy)) * sz, r03 = tx;      \
        V r10 = (two * (xy + wz)) * sx, r11 = (one - two * (xx + zz)) * sy, r12 = (two * (yz - wx)) * sz, r13 = ty;      \
        V r20 = (two * (xz - wy)) * sx, r21 = (two * (yz + wx)) * sy, r22 = (one - two * (xx + yy)) * sz, r23 = tz;      \
        T(r00, r01, r02, r03); /* r0k: row 0 of node k */                                                                \
        T(r10, r11, r12, r13);                                                                                           \
        T(r20, r21, r22, r23);                                                                                           \
        m[0] = r00, m[1] = r10, m[2] = r20, m[3] = r01, m[4] = r11, m[5] = r21;                                          \
        m[6] = r02, m[7] = r12, m[8] = r22, m[9] = r03, m[10] = r13, m[11] = r23;                                        \
    } while (0)
typedef struct arbor__rows4 { arbor__v4 m[12]; } arbor__rows4;
ARBOR__HOT arbor__rows4 arbor__compose_lanes(arbor__v4 tx, arbor__v4 ty, arbor__v4 tz, arbor__v4 x, arbor__v4 y, arbor__v4 z,
                                             arbor__v4 w, arbor__v4 sx, arbor__v4 sy, arbor__v4 sz) {
    arbor__rows4 out;
    ARBOR__COMPOSE_LANES_WITH(arbor__v4, ARBOR__TRANSPOSE4, out.m, tx, ty, tz, x, y, z, w, sx, sy, sz);
    return out;
}
typedef struct arbor__rows4x2 { arbor__v4x2 m[12]; } arbor__rows4x2;
/* The same on arbor__v4x2 (a macro: registers of eight are not passed as arguments, whose ABI
   differs without AVX), into out.m. */
#define ARBOR__COMPOSE_LANES4X2(out, ...) ARBOR__COMPOSE_LANES_WITH(arbor__v4x2, ARBOR__TRANSPOSE4X2, (out).m, __VA_ARGS__)

/* Four TRS as a scene stores them, 10 reals each, transposed: a node a lane; L(p) loads lanes
   of type V from p (arbor__v4x2: the second half from 40 reals on, the next four TRS). */
#define ARBOR__TRS_LANES_WITH(V, L, S, T, trs, tx, ty, tz, x, y, z, w, sx, sy, sz)                                     \
    V tx = L(trs), ty = L((trs) + 10), tz = L((trs) + 20), x = L((trs) + 30);                                          \
    V y = L((trs) + 4), z = L((trs) + 14), w = L((trs) + 24), sx = L((trs) + 34);                                      \
    T(tx, ty, tz, x); /* per node (tx ty tz qx): now a component a register */                                       \
    T(y, z, w, sx);   /* per node (qy qz qw sx) */                                                                   \
    V sy, sz;                                                                                                          \
    do {                                                                                                               \
        const V d0_ = L((trs) + 6), d1_ = L((trs) + 16), d2_ = L((trs) + 26), d3_ = L((trs) + 36);                     \
        const V u_ = S(d0_, d1_, 2, 6, 3, 7), v_ = S(d2_, d3_, 2, 6, 3, 7);                                            \
        sy = S(u_, v_, 0, 1, 4, 5);                                                                                    \
        sz = S(u_, v_, 2, 3, 6, 7);                                                                                    \
    } while (0)
#define ARBOR__TRS_LANES(trs, ...) ARBOR__TRS_LANES_WITH(arbor__v4, arbor__v4_load, ARBOR__SHUF, ARBOR__TRANSPOSE4, trs, __VA_ARGS__)
#define ARBOR__V4X2_LOAD(p) __builtin_shufflevector(arbor__v4_load(p), arbor__v4_load((p) + 40), 0, 1, 2, 3, 4, 5, 6, 7)
/* Eight TRS, 10 reals each: nodes k and k + 4 in lane k of each half. */
#define ARBOR__TRS_LANES4X2(trs, ...) \
    ARBOR__TRS_LANES_WITH(arbor__v4x2, ARBOR__V4X2_LOAD, ARBOR__SHUF2, ARBOR__TRANSPOSE4X2, trs, __VA_ARGS__)

ARBOR__HOT void arbor__compose4(arbor_real out[48], const arbor_real trs[40]) {
    ARBOR__TRS_LANES(trs, tx, ty, tz, x, y, z, w, sx, sy, sz);
    const arbor__rows4 rows = arbor__compose_lanes(tx, ty, tz, x, y, z, w, sx, sy, sz);
    memcpy(out, rows.m, sizeof rows.m);
}

ARBOR__HOT void arbor__affine_mul(arbor_real out[12], const arbor_real a[12], const arbor_real b[12]) {
    arbor__rows_store(out, arbor__rows_mul(arbor__rows_load(a), arbor__rows_load(b)));
}
ARBOR__HOT void arbor__affine_compose(arbor_real out[12], const arbor_real t[3], const arbor_real q[4],
                                      const arbor_real s[3]) {
    arbor__rows_store(out, arbor__rows_compose(t, q, s));
}
#else
/* The same interface on the scalar reference kernels. */
typedef struct arbor__rows { arbor_real m[12]; } arbor__rows;
ARBOR__HOT arbor__rows arbor__rows_load(const arbor_real a[12]) {
    arbor__rows m;
    memcpy(m.m, a, sizeof m.m);
    return m;
}
ARBOR__HOT void arbor__rows_store(arbor_real out[12], arbor__rows m) { memcpy(out, m.m, sizeof m.m); }
ARBOR__HOT arbor__rows arbor__rows_mul(arbor__rows a, arbor__rows b) {
    arbor__rows out;
    arbor__affine_mul_scalar(out.m, a.m, b.m);
    return out;
}
ARBOR__HOT arbor__rows arbor__rows_mul_mem(const arbor_real a[12], arbor__rows b) { return arbor__rows_mul(arbor__rows_load(a), b); }
ARBOR__HOT void arbor__rows_mul_store(arbor_real out[12], const arbor_real a[12], arbor__rows b) {
    arbor__rows_store(out, arbor__rows_mul_mem(a, b));
}
ARBOR__HOT arbor__rows arbor__rows_mul_at(const arbor_real a[12], const arbor_real b[12]) {
    return arbor__rows_mul(arbor__rows_load(a), arbor__rows_load(b));
}
ARBOR__HOT arbor__rows arbor__rows_compose_trs(const arbor_real trs[10]) {
    arbor__rows out;
    arbor__affine_compose_scalar(out.m, trs, trs + 3, trs + 7);
    return out;
}
ARBOR__HOT void arbor__compose4(arbor_real out[48], const arbor_real trs[40]) {
    for (int k = 0; k < 4; ++k) arbor__affine_compose_scalar(out + 12 * k, trs + 10 * k, trs + 10 * k + 3, trs + 10 * k + 7);
}
#define arbor__affine_mul arbor__affine_mul_scalar
#define arbor__affine_compose arbor__affine_compose_scalar
#endif

/* |q| when the sum of squares is inside the range where it needs no scaling (the first path of
   arbor_quat_normalize). False (*length untouched) otherwise. */
ARBOR__HOT bool arbor__quat_length_fast(const arbor_real q[4], arbor_real *length) {
#if ARBOR_REAL_IS_DOUBLE
    const arbor_real lo = 1e-300, hi = 1e300;
#else
    const arbor_real lo = 1e-36f, hi = 1e36f;
#endif
    arbor_real sum = 0;
    sum = sum + q[0] * q[0];
    sum = sum + q[1] * q[1];
    sum = sum + q[2] * q[2];
    sum = sum + q[3] * q[3];
    if (!(sum > lo && sum < hi)) return false;
#if ARBOR_REAL_IS_DOUBLE
    *length = sqrt(sum);
#else
    *length = sqrtf(sum);
#endif
    return true;
}

/* q / |q| through arbor__quat_length_fast, inline for the setters. False (out untouched)
   otherwise. */
ARBOR__HOT bool arbor__quat_normalize_fast(arbor_real out[4], const arbor_real q[4]) {
    arbor_real l;
    if (!arbor__quat_length_fast(q, &l)) return false;
    out[0] = q[0] / l;
    out[1] = q[1] / l;
    out[2] = q[2] / l;
    out[3] = q[3] / l;
    return true;
}

/* The weights of spherical interpolation from a to b at u: wa = sin((1 - u) theta) / sin theta
   and wb = sin(u theta) / sin theta, where d = cos theta = dot(a, b) is in [0, 1] (the shorter
   arc). Summed from their power series in (d - 1) (D. Eberly, "A fast and accurate algorithm for
   computing SLERP"): no trigonometry, and exact as theta goes to 0, where it becomes the linear
   blend. Each term is at most (1 - d) / 2 times the one before, so wide arcs (d < 0.9) are first
   halved, at most twice: the point halfway, (a + b) / |a + b|, is the slerp at u = 1/2, and u
   falls in one half or the other. Then d >= 0.9 and a fixed number of terms reaches the
   precision of arbor_real (0.05^6 below float's epsilon, 0.05^13 below double's): no branch
   on the data, which costs more than the terms it would save. */
#if ARBOR_REAL_IS_DOUBLE
#define ARBOR__SLERP_TERMS 13
#else
#define ARBOR__SLERP_TERMS 6
#endif
/* The series' coefficients 1 / (i (2 i + 1)). */
ARBOR__HOT arbor_real arbor__slerp_coefficient(int i) {
    static const arbor_real c[14] = { 0, (arbor_real)(1.0 / 3), (arbor_real)(1.0 / 10), (arbor_real)(1.0 / 21),
                                      (arbor_real)(1.0 / 36), (arbor_real)(1.0 / 55), (arbor_real)(1.0 / 78),
                                      (arbor_real)(1.0 / 105), (arbor_real)(1.0 / 136), (arbor_real)(1.0 / 171),
                                      (arbor_real)(1.0 / 210), (arbor_real)(1.0 / 253), (arbor_real)(1.0 / 300),
                                      (arbor_real)(1.0 / 351) };
    return c[i];
}

ARBOR__HOT void arbor__slerp_weights(arbor_real u, arbor_real d, arbor_real *wa, arbor_real *wb) {
    /* the arc's ends as combinations of a and b: from = fa a + fb b, to = ta a + tb b */
    arbor_real fa = 1, fb = 0, ta = 0, tb = 1;
    for (int halvings = 0; halvings < 2 && d < (arbor_real)0.9; ++halvings) {
#if ARBOR_REAL_IS_DOUBLE
        const arbor_real inverse = 1 / sqrt(2 + 2 * d);
#else
        const arbor_real inverse = 1 / sqrtf(2 + 2 * d);
#endif
        const arbor_real ma = (fa + ta) * inverse, mb = (fb + tb) * inverse;
        const bool low = u < (arbor_real)0.5;
        ta = low ? ma : ta;
        tb = low ? mb : tb;
        fa = low ? fa : ma;
        fb = low ? fb : mb;
        u = low ? 2 * u : 2 * u - 1;
        d = (1 + d) * inverse; /* cos(theta / 2) */
    }
    const arbor_real x = d - 1, s = 1 - u, ss = s * s, uu = u * u;
    arbor_real term_from = s, term_to = u, w_from = s, w_to = u;
    ARBOR__UNROLL
    for (int i = 1; i <= ARBOR__SLERP_TERMS; ++i) {
        const arbor_real ii = (arbor_real)(i * i), k = x * arbor__slerp_coefficient(i);
        term_from = term_from * ((ss - ii) * k);
        term_to = term_to * ((uu - ii) * k);
        w_from = w_from + term_from;
        w_to = w_to + term_to;
    }
    *wa = w_from * fa + w_to * ta;
    *wb = w_from * fb + w_to * tb;
}

#if ARBOR__SIMD
/* arbor__slerp_weights on four lanes at once (four rotation channels): the same operations in
   the same order lane by lane, so the same bits (tests/test_anim.c checks). A lane that does
   not halve keeps its values through the selects. */
#if ARBOR_REAL_IS_DOUBLE
typedef int64_t arbor__mask4 __attribute__((vector_size(4 * sizeof(int64_t))));
#else
typedef int32_t arbor__mask4 __attribute__((vector_size(4 * sizeof(int32_t))));
#endif
ARBOR__HOT arbor__v4 arbor__select4(arbor__mask4 m, arbor__v4 yes, arbor__v4 no) {
    return (arbor__v4)(((arbor__mask4)yes & m) | ((arbor__mask4)no & ~m));
}
/* The square roots of four sums (each correctly rounded, as sqrt and sqrtf are). */
ARBOR__HOT arbor__v4 arbor__sqrt4(arbor__v4 v) {
#if defined(__SSE2__) && !ARBOR_REAL_IS_DOUBLE
    return (arbor__v4)_mm_sqrt_ps((__m128)v);
#elif defined(__SSE2__)
    const __m128d lo = _mm_sqrt_pd(_mm_set_pd(v[1], v[0])), hi = _mm_sqrt_pd(_mm_set_pd(v[3], v[2]));
    return (arbor__v4){lo[0], lo[1], hi[0], hi[1]};
#else
    for (int i = 0; i < 4; i++) v[i] = ARBOR_REAL_IS_DOUBLE ? sqrt(v[i]) : sqrtf((float)v[i]);
    return v;
#endif
}
#if ARBOR_REAL_IS_DOUBLE
typedef int64_t arbor__mask4x2 __attribute__((vector_size(8 * sizeof(int64_t))));
#else
typedef int32_t arbor__mask4x2 __attribute__((vector_size(8 * sizeof(int32_t))));
#endif
/* arbor__sqrt4 on each half (the same correctly rounded roots). */
ARBOR__HOT void arbor__sqrt4x2(arbor__v4x2 *v) {
    const arbor__v4 lo = arbor__sqrt4(ARBOR__HALF(*v, 0)), hi = arbor__sqrt4(ARBOR__HALF(*v, 1));
    *v = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
}
/* The body of arbor__slerp_weights on lanes of vector type V (comparisons give M; select(m,
   yes, no) and sqrt_lanes act lane by lane), one copy for four lanes and for eight. */
#define ARBOR__SLERP_WEIGHTS_LANES(V, M, select, sqrt_lanes, u_in, d_in, wa_out, wb_out)                 \
    do {                                                                                               \
        V u_ = (u_in), d_ = (d_in);                                                                      \
        const V zero = {0}, one = zero + 1, wide = zero + (arbor_real)0.9, half = zero + (arbor_real)0.5; \
        V fa = one, fb = zero, ta = zero, tb = one;                                                    \
        for (int halvings = 0; halvings < 2; ++halvings) {                                             \
            const M halve = d_ < wide;                                                                  \
            int any = 0;                                                                               \
            for (size_t i = 0; i < sizeof(V) / sizeof(arbor_real); ++i) any |= halve[i] != 0;          \
            if (!any) break;                                                                           \
            const V inverse = one / sqrt_lanes(2 + 2 * d_);                                             \
            const V ma = (fa + ta) * inverse, mb = (fb + tb) * inverse;                                \
            const M low = u_ < half, lower = halve & low, upper = halve & ~low;                         \
            ta = select(lower, ma, ta);                                                                \
            tb = select(lower, mb, tb);                                                                \
            fa = select(upper, ma, fa);                                                                \
            fb = select(upper, mb, fb);                                                                \
            u_ = select(halve, select(low, 2 * u_, 2 * u_ - 1), u_);                                       \
            d_ = select(halve, (1 + d_) * inverse, d_);                                                   \
        }                                                                                              \
        const V x = d_ - 1, s = 1 - u_, ss = s * s, uu = u_ * u_;                                          \
        V term_from = s, term_to = u_, w_from = s, w_to = u_;                                            \
        ARBOR__UNROLL                                                                                  \
        for (int i = 1; i <= ARBOR__SLERP_TERMS; ++i) {                                                \
            const arbor_real ii = (arbor_real)(i * i);                                                 \
            const V k = x * arbor__slerp_coefficient(i);                                               \
            term_from = term_from * ((ss - ii) * k);                                                   \
            term_to = term_to * ((uu - ii) * k);                                                       \
            w_from = w_from + term_from;                                                               \
            w_to = w_to + term_to;                                                                     \
        }                                                                                              \
        *(wa_out) = w_from * fa + w_to * ta;                                                           \
        *(wb_out) = w_from * fb + w_to * tb;                                                           \
    } while (0)

ARBOR__HOT void arbor__slerp_weights4(arbor__v4 u, arbor__v4 d, arbor__v4 *wa, arbor__v4 *wb) {
    ARBOR__SLERP_WEIGHTS_LANES(arbor__v4, arbor__mask4, arbor__select4, arbor__sqrt4, u, d, wa, wb);
}
#endif

/* Conversions to and from the public 4x4 form (column-major; from_mat4 drops the last row):
   transposes. out may be the same array as the input. */
#if ARBOR__SIMD
/* The rows of m, in registers, as the public 4x4 at out: the single-node reads' one store. */
ARBOR__HOT void arbor__rows_to_mat4(arbor_real out[16], arbor__rows m) {
    arbor__v4 c0 = m.r[0], c1 = m.r[1], c2 = m.r[2], c3 = {0, 0, 0, 1};
    ARBOR__TRANSPOSE4(c0, c1, c2, c3);
    const arbor__v4 cols[4] = {c0, c1, c2, c3};
    memcpy(out, cols, sizeof cols);
}
ARBOR__HOT void arbor__affine_to_mat4(arbor_real out[16], const arbor_real a[12]) {
    arbor__rows_to_mat4(out, arbor__rows_load(a));
}
ARBOR__HOT void arbor__affine_from_mat4(arbor_real out[12], const arbor_real m[16]) {
    arbor__v4 r0 = arbor__v4_load(m), r1 = arbor__v4_load(m + 4), r2 = arbor__v4_load(m + 8), r3 = arbor__v4_load(m + 12);
    ARBOR__TRANSPOSE4(r0, r1, r2, r3);
    const arbor__v4 rows[3] = {r0, r1, r2};
    memcpy(out, rows, sizeof rows);
}
#else
static inline void arbor__affine_to_mat4(arbor_real out[16], const arbor_real a[12]) {
    arbor_real m[16];
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 3; ++r) m[c * 4 + r] = a[ARBOR__AT(r, c)];
        m[c * 4 + 3] = c == 3 ? 1 : 0;
    }
    memcpy(out, m, sizeof m);
}
static inline void arbor__rows_to_mat4(arbor_real out[16], arbor__rows m) { arbor__affine_to_mat4(out, m.m); }
static inline void arbor__affine_from_mat4(arbor_real out[12], const arbor_real m[16]) {
    arbor_real a[12];
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r) a[ARBOR__AT(r, c)] = m[c * 4 + r];
    memcpy(out, a, sizeof a);
}
#endif

/* Inverse of an affine matrix; false (out untouched) when singular. out may alias a. */
bool arbor__affine_invert(arbor_real out[12], const arbor_real a[12]);

/* Determinant of the 3x3 part (as arbor_mat4_determinant3): negative for a mirror. */
arbor_real arbor__affine_det3(const arbor_real a[12]);

/* arbor_mat4_decompose on the affine form: false when there is a shear. */
bool arbor__affine_decompose(const arbor_real a[12], arbor_real t[3], arbor_real q[4], arbor_real s[3]);

/* True when all n values are finite: v - v is 0 for a finite value and NaN for an infinity or
   a NaN (no branch per value; the tests are independent, so the compiler runs them side by
   side where a sum of them would be one chain of additions). */
ARBOR__HOT bool arbor__all_finite(const arbor_real *v, size_t n) {
    bool finite = true;
    for (size_t i = 0; i < n; ++i) finite &= v[i] - v[i] == 0;
    return finite;
}

#endif
