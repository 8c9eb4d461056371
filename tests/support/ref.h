/* SPDX-License-Identifier: MIT */
/*
 * tests/support/ref.h: a TRS composer, a matrix and a quaternion product in double, independent of the
 * library, for the tests and for the model of tests/support/model.c (which the fuzz targets
 * link too: no cmocka here). Column-major 4x4 matrices, as arbor's.
 */
#ifndef ARBOR_TEST_REF_H
#define ARBOR_TEST_REF_H

#include <math.h>

/* out (column-major) = T(t) R(q / |q|) S(s) */
static inline void test_ref_compose(double out[16], const double t[3], const double q_in[4], const double s[3])
{
    double n = sqrt(q_in[0] * q_in[0] + q_in[1] * q_in[1] + q_in[2] * q_in[2] + q_in[3] * q_in[3]);
    double x = q_in[0] / n, y = q_in[1] / n, z = q_in[2] / n, w = q_in[3] / n;
    double r[3][3] = {
        { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w) },
        { 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w) },
        { 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y) },
    };
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) out[c * 4 + row] = r[row][c] * s[c];
        out[c * 4 + 3] = 0;
    }
    out[12] = t[0];
    out[13] = t[1];
    out[14] = t[2];
    out[15] = 1;
}

/* out = a * b (out may be a or b) */
static inline void test_ref_mul(double out[16], const double a[16], const double b[16])
{
    double m[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double v = 0;
            for (int k = 0; k < 4; k++) v += a[k * 4 + r] * b[c * 4 + k];
            m[c * 4 + r] = v;
        }
    for (int i = 0; i < 16; i++) out[i] = m[i];
}

/* out = a b (Hamilton product, x y z w: b's rotation first); out may not be a or b */
static inline void test_ref_quat_mul(double out[4], const double a[4], const double b[4])
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

#endif
