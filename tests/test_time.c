/* SPDX-License-Identifier: MIT */
/*
 * arbor/time.h: stamped samples and lookups at any time. Expected values are products in
 * double computed here (tests/support/ref.h) from the samples given, interpolated with the
 * rules of the header (lerp, slerp of a rotation about one axis = the angle interpolated); the
 * comparison with tf2 itself is tests/tf2 (test_time_tf2).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "test_util.h"

#if ARBOR_REAL_IS_DOUBLE
#define TOL 1e-9
#else
#define TOL 2e-6
#endif

static arbor_trs trs_z(double x, double y, double z, double angle, double scale) {
    arbor_trs t = { { (arbor_real)x, (arbor_real)y, (arbor_real)z },
                    { 0, 0, (arbor_real)sin(angle / 2), (arbor_real)cos(angle / 2) },
                    { (arbor_real)scale, (arbor_real)scale, (arbor_real)scale } };
    return t;
}
/* The local of a trs in double, as given (its reals widened). */
static void ref_local(double out[16], const arbor_trs *t) {
    double tr[3], q[4], s[3];
    for (int i = 0; i < 3; i++) tr[i] = t->translation[i], s[i] = t->scale[i];
    for (int i = 0; i < 4; i++) q[i] = t->rotation[i];
    test_ref_compose(out, tr, q, s);
}
static void expect_matrix(const arbor_real got[16], const double want[16], double tol) {
    for (int i = 0; i < 16; i++) {
        double scale = fabs(want[i]) > 1 ? fabs(want[i]) : 1;
        if (!(fabs(got[i] - want[i]) <= tol * scale)) {
            print_error("element %d: %.12g, expected %.12g\n", i, (double)got[i], want[i]);
            fail();
        }
    }
}
/* Inverse of a rigid-with-uniform-scale matrix (column-major) in double. */
static void ref_inverse(double out[16], const double m[16]) {
    double s2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) out[c * 4 + r] = m[r * 4 + c] / s2;
    for (int r = 0; r < 3; r++) out[12 + r] = -(out[r] * m[12] + out[4 + r] * m[13] + out[8 + r] * m[14]);
    out[3] = out[7] = out[11] = 0;
    out[15] = 1;
}

static arbor_scene *make(double duration, uint32_t capacity) {
    arbor_scene *s;
    ASSERT_OK(arbor_scene_create(&(arbor_scene_desc){ .history_duration = duration, .history_capacity = capacity }, &s));
    return s;
}

/* map -> odom -> base -> arm; odom and arm recorded, base static. */
static void test_interpolation_and_products(void **state) {
    (void)state;
    arbor_scene *s = make(0, 0);
    arbor_node map, odom, base, arm;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "map" }, &map));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "odom", .parent = map }, &odom));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "base", .parent = odom, .translation = { 0, 0, 0.5f } }, &base));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "arm", .parent = base }, &arm));
    arbor_trs o1 = trs_z(1, 2, 0, 0.2, 1), o2 = trs_z(3, -2, 0, 1.0, 1);
    arbor_trs a1 = trs_z(0, 1, 0, -0.5, 2), a2 = trs_z(0, 3, 1, 0.7, 4);
    ASSERT_OK(arbor_node_record_trs(s, odom, 1.0, &o1));
    ASSERT_OK(arbor_node_record_trs(s, odom, 2.0, &o2));
    ASSERT_OK(arbor_node_record_trs(s, arm, 1.0, &a1));
    ASSERT_OK(arbor_node_record_trs(s, arm, 2.0, &a2));
    /* The latest sample is the present. */
    arbor_trs now;
    ASSERT_OK(arbor_node_trs(s, arm, &now));
    assert_memory_equal(now.translation, a2.translation, sizeof now.translation);
    double bl[16];
    arbor_trs bt;
    ASSERT_OK(arbor_node_trs(s, base, &bt));
    ref_local(bl, &bt);
    const double times[3] = { 1.0, 1.25, 2.0 };
    for (int k = 0; k < 3; k++) {
        double u = times[k] - 1.0;
        /* odom and arm interpolated: translation and scale linearly, the angle about z linearly */
        arbor_trs o = trs_z(1 + 2 * u, 2 - 4 * u, 0, 0.2 + 0.8 * u, 1), a = trs_z(0, 1 + 2 * u, u, -0.5 + 1.2 * u, 2 + 2 * u);
        if (k != 1) o = k ? o2 : o1, a = k ? a2 : a1; /* a sample's time: the sample */
        double ol[16], al[16], w[16], inv[16], want[16];
        ref_local(ol, &o);
        ref_local(al, &a);
        test_ref_mul(w, ol, bl);
        test_ref_mul(w, w, al); /* arm in map (map is identity) */
        arbor_real out[16];
        ASSERT_OK(arbor_scene_lookup(s, map, arm, times[k], out));
        expect_matrix(out, w, TOL);
        ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, arm, times[k], out));
        expect_matrix(out, w, TOL);
        /* the other way: map in arm's frame */
        ref_inverse(inv, w);
        ASSERT_OK(arbor_scene_lookup(s, arm, map, times[k], out));
        expect_matrix(out, inv, TOL);
        /* below the common ancestor only: arm in odom = base * arm */
        test_ref_mul(want, bl, al);
        ASSERT_OK(arbor_scene_lookup(s, odom, arm, times[k], out));
        expect_matrix(out, want, TOL);
        /* many at once, and world matrices at a time */
        arbor_real many[32];
        double two[2] = { times[k], times[k] };
        ASSERT_OK(arbor_scene_lookup_many(s, map, arm, two, 2, many));
        expect_matrix(many + 16, w, TOL);
        arbor_node nodes[2] = { map, arm };
        ASSERT_OK(arbor_scene_world_matrices_at(s, nodes, 2, times[k], many));
        expect_matrix(many + 16, w, TOL);
    }
    /* The exact-sample rule bit for bit: odom at its own sample's time is the sample's local. */
    arbor_real out[16], m[16];
    ASSERT_OK(arbor_scene_lookup(s, map, odom, 1.0, out));
    arbor_scene *t = make(0, 0);
    arbor_node single;
    ASSERT_OK(arbor_node_create(t, &(arbor_node_desc){ .translation = { o1.translation[0], o1.translation[1], o1.translation[2] },
                                                       .rotation = { o1.rotation[0], o1.rotation[1], o1.rotation[2], o1.rotation[3] } }, &single));
    ASSERT_OK(arbor_node_local_matrix(t, single, m));
    for (int i = 12; i < 15; i++) assert_true(out[i] == m[i]);
    arbor_scene_destroy(t);
    /* LATEST: odom's last is 2; give arm a later one, still 2 (the earliest of the lasts). */
    ASSERT_OK(arbor_node_record_trs(s, arm, 3.0, &a2));
    arbor_real latest[16], at2[16];
    ASSERT_OK(arbor_scene_lookup(s, map, arm, ARBOR_TIME_LATEST, latest));
    ASSERT_OK(arbor_scene_lookup(s, map, arm, 2.0, at2));
    assert_memory_equal(latest, at2, sizeof latest);
    arbor_scene_destroy(s);
}

/* Slerp takes the shorter arc: from 170 degrees to -170 degrees through 180. */
static void test_shorter_arc(void **state) {
    (void)state;
    arbor_scene *s = make(0, 0);
    arbor_node a;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "a" }, &a));
    const double d = 3.14159265358979323846 / 180;
    arbor_trs t0 = trs_z(0, 0, 0, 170 * d, 1), t1 = trs_z(0, 0, 0, -170 * d, 1);
    ASSERT_OK(arbor_node_record_trs(s, a, 0, &t0));
    ASSERT_OK(arbor_node_record_trs(s, a, 1, &t1));
    for (double u = 0.25; u < 1; u += 0.25) {
        arbor_trs want = trs_z(0, 0, 0, (170 + 20 * u) * d, 1);
        double w[16];
        ref_local(w, &want);
        arbor_real out[16];
        ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, a, u, out));
        expect_matrix(out, w, TOL * 10);
    }
    arbor_scene_destroy(s);
}

/* Slerp over arcs from a hair to a half turn (the quaternions' dot from 1 down to 0, where the
   arc is worked out without libm): a rotation about one axis interpolates its angle. */
static void test_wide_arcs(void **state) {
    (void)state;
    arbor_scene *s = make(0, 0);
    const double turns[] = { 1e-7, 1e-3, 0.1, 1.0, 2.0, 2.5, 3.0, 3.14159 };
    for (size_t k = 0; k < sizeof turns / sizeof turns[0]; k++) {
        arbor_node a;
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ 0 }, &a));
        arbor_trs t0 = trs_z(0, 0, 0, 0.3, 1), t1 = trs_z(0, 0, 0, 0.3 + turns[k], 1);
        ASSERT_OK(arbor_node_record_trs(s, a, 0, &t0));
        ASSERT_OK(arbor_node_record_trs(s, a, 1, &t1));
        const double us[] = { 0.1, 0.37, 0.5, 0.81, 0.999 };
        for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
            arbor_trs want = trs_z(0, 0, 0, 0.3 + turns[k] * us[i], 1);
            double w[16];
            ref_local(w, &want);
            arbor_real out[16];
            ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, a, us[i], out));
            expect_matrix(out, w, TOL);
        }
    }
    arbor_scene_destroy(s);
}

static void test_refusals(void **state) {
    (void)state;
    arbor_scene *s = make(0, 0);
    arbor_node base, arm, other;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "base" }, &base));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "arm", .parent = base }, &arm));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "other" }, &other));
    for (int i = 0; i <= 100; i++) {
        arbor_trs t = trs_z(i, 0, 0, 0, 1);
        ASSERT_OK(arbor_node_record_trs(s, arm, 3.1 + i * 0.1, &t));
    }
    arbor_real out[16] = { 0 }, before[16];
    memcpy(before, out, sizeof out);
    assert_int_equal(arbor_scene_lookup(s, base, arm, 13.12, out), ARBOR_ERR_EXTRAPOLATION);
    assert_string_equal(arbor_last_error(),
                        "arbor_scene_lookup: 'base/arm' has samples from 3.10 s to 13.10 s; 13.12 s is 0.02 s after the last");
    assert_memory_equal(out, before, sizeof out);
    arbor_node which;
    double t, first, last;
    assert_true(arbor_time_last_extrapolation(&which, &t, &first, &last));
    assert_true(arbor_node_equal(which, arm));
    assert_true(t == 13.12 && first == 3.1 && fabs(last - 13.1) < 1e-12);
    assert_int_equal(arbor_scene_lookup(s, base, arm, 3.0, out), ARBOR_ERR_EXTRAPOLATION);
    assert_string_equal(arbor_last_error(),
                        "arbor_scene_lookup: 'base/arm' has samples from 3.10 s to 13.10 s; 3.00 s is 0.10 s before the first");
    assert_int_equal(arbor_scene_lookup(s, other, arm, 5.0, out), ARBOR_ERR_NOT_CONNECTED);
    assert_string_equal(arbor_last_error(), "arbor_scene_lookup: 'other' and 'base/arm' are in different trees");
    /* Between the two: base static, arm's samples, at every time within the range. */
    ASSERT_OK(arbor_scene_lookup(s, base, arm, 5.0, out));
    test_near_(out[12], 19, 1e-4, "x at 5 s", __FILE__, __LINE__);
    /* A many-times call refused as a whole, naming the index. */
    double times[3] = { 4, 5, 20 };
    arbor_real many[48] = { 0 };
    assert_int_equal(arbor_scene_lookup_many(s, base, arm, times, 3, many), ARBOR_ERR_EXTRAPOLATION);
    assert_non_null(strstr(arbor_last_error(), "times[2]: 'base/arm' has samples"));
    for (int i = 0; i < 48; i++) assert_true(many[i] == 0);
    /* A time that is not finite, a dead node. */
    arbor_trs id = trs_z(0, 0, 0, 0, 1);
    assert_int_equal(arbor_node_record_trs(s, arm, NAN, &id), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_scene_lookup(s, base, arm, NAN, out), ARBOR_ERR_INVALID_ARGUMENT);
    ASSERT_OK(arbor_node_destroy(s, other));
    assert_int_equal(arbor_scene_lookup(s, base, other, 5.0, out), ARBOR_ERR_DEAD_NODE);
    assert_int_equal(arbor_node_record_trs(s, other, 5.0, &id), ARBOR_ERR_DEAD_NODE);
    /* A refused sample changes nothing. */
    arbor_trs bad = id;
    bad.rotation[3] = 0;
    assert_int_equal(arbor_node_record_trs(s, arm, 20.0, &bad), ARBOR_ERR_INVALID_ARGUMENT);
    ASSERT_OK(arbor_node_history_range(s, arm, &first, &last));
    assert_true(fabs(last - 13.1) < 1e-12);
    arbor_scene_destroy(s);
}

/* Holding the nearest sample within a tolerance: hand-worked values (a rotation about z and a
   translation), refused beyond it and by default. */
static void expect_z(const arbor_real got[16], double x, double y, double angle) {
    double c = cos(angle), s = sin(angle);
    const double want[16] = { c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, x, y, 0, 1 };
    expect_matrix(got, want, TOL);
}
static void test_hold(void **state) {
    (void)state;
    arbor_scene *s = make(0, 0);
    arbor_node map, base;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "map" }, &map));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "base", .parent = map }, &base));
    arbor_trs b1 = trs_z(1, 2, 0, 0.2, 1), b2 = trs_z(3, -2, 0, 1.0, 1);
    ASSERT_OK(arbor_node_record_trs(s, base, 1.0, &b1));
    ASSERT_OK(arbor_node_record_trs(s, base, 2.0, &b2));
    arbor_real out[16];
    assert_true(arbor_scene_time_hold(s) == 0);
    assert_int_equal(arbor_scene_lookup(s, map, base, 2.05, out), ARBOR_ERR_EXTRAPOLATION); /* the default */
    /* Refused tolerances change nothing. */
    assert_int_equal(arbor_scene_set_time_hold(s, -0.1), ARBOR_ERR_INVALID_ARGUMENT);
    assert_string_equal(arbor_last_error(), "arbor_scene_set_time_hold: tolerance -0.1 is not a finite number of seconds >= 0");
    assert_int_equal(arbor_scene_set_time_hold(s, NAN), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_scene_set_time_hold(s, INFINITY), ARBOR_ERR_INVALID_ARGUMENT);
    assert_true(arbor_scene_time_hold(s) == 0);
    ASSERT_OK(arbor_scene_set_time_hold(s, 0.1));
    assert_true(arbor_scene_time_hold(s) == 0.1);
    /* Within 0.1 s after the last: the last sample; before the first: the first. */
    ASSERT_OK(arbor_scene_lookup(s, map, base, 2.05, out));
    expect_z(out, 3, -2, 1.0);
    ASSERT_OK(arbor_scene_lookup(s, map, base, 2.0999, out));
    expect_z(out, 3, -2, 1.0);
    ASSERT_OK(arbor_scene_lookup(s, base, map, 0.95, out)); /* the inverse of the first */
    expect_z(out, -(cos(0.2) * 1 + sin(0.2) * 2), -(-sin(0.2) * 1 + cos(0.2) * 2), -0.2);
    /* Between the samples as before: at 1.5, halfway. */
    ASSERT_OK(arbor_scene_lookup(s, map, base, 1.5, out));
    expect_z(out, 2, 0, 0.6);
    double times[3] = { 0.95, 1.5, 2.05 };
    arbor_real many[48];
    ASSERT_OK(arbor_scene_lookup_many(s, map, base, times, 3, many));
    expect_z(many, 1, 2, 0.2);
    expect_z(many + 16, 2, 0, 0.6);
    expect_z(many + 32, 3, -2, 1.0);
    ASSERT_OK(arbor_scene_world_matrices_at(s, &base, 1, 2.05, out));
    expect_z(out, 3, -2, 1.0);
    /* Beyond the tolerance: refused, with the message of no hold. */
    assert_int_equal(arbor_scene_lookup(s, map, base, 2.2, out), ARBOR_ERR_EXTRAPOLATION);
    assert_string_equal(arbor_last_error(),
                        "arbor_scene_lookup: 'map/base' has samples from 1.00 s to 2.00 s; 2.20 s is 0.20 s after the last");
    assert_int_equal(arbor_scene_lookup(s, map, base, 0.85, out), ARBOR_ERR_EXTRAPOLATION);
    /* Back to 0: never. */
    ASSERT_OK(arbor_scene_set_time_hold(s, 0));
    assert_int_equal(arbor_scene_lookup(s, map, base, 2.05, out), ARBOR_ERR_EXTRAPOLATION);
    arbor_scene_destroy(s);
    /* A scene that never recorded: the setter makes its table. */
    s = make(0, 0);
    ASSERT_OK(arbor_scene_set_time_hold(s, 0.5));
    assert_true(arbor_scene_time_hold(s) == 0.5);
    arbor_scene_destroy(s);
}

/* arbor_scene_world_matrices_at shares the chain between nodes: every node's world against a
   product in double computed here, and bit for bit what arbor_scene_lookup gives it, in any
   order of the nodes (repeated, children before parents), and past the depth it keeps. */
static void test_world_matrices_shared(void **state) {
    (void)state;
    enum { DEEP = 40 };
    arbor_scene *s = make(0, 0);
    arbor_node r, a, b, c, chain[DEEP];
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "r" }, &r));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "a", .parent = r, .translation = { 0, 0, 2 } }, &a)); /* static */
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "b", .parent = r }, &b));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "c", .parent = a }, &c));
    for (int i = 0; i < DEEP; i++)
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = i ? chain[i - 1] : c, .translation = { 0.5f, 0, 0 } }, &chain[i]));
    arbor_trs r1 = trs_z(1, 0, 0, 0.4, 1), r2 = trs_z(2, 2, 0, 1.2, 2), b1 = trs_z(0, 1, 0, -0.3, 1), b2 = trs_z(0, 3, 0, 0.5, 1);
    arbor_trs c1 = trs_z(1, 1, 1, 0, 1), c2 = trs_z(-1, 1, 3, 2.0, 0.5);
    ASSERT_OK(arbor_node_record_trs(s, r, 0, &r1));
    ASSERT_OK(arbor_node_record_trs(s, r, 1, &r2));
    ASSERT_OK(arbor_node_record_trs(s, b, 0, &b1));
    ASSERT_OK(arbor_node_record_trs(s, b, 1, &b2));
    ASSERT_OK(arbor_node_record_trs(s, c, 0, &c1));
    ASSERT_OK(arbor_node_record_trs(s, c, 1, &c2));
    const double u = 0.25;
    arbor_trs ri = trs_z(1 + u, 2 * u, 0, 0.4 + 0.8 * u, 1 + u), bi = trs_z(0, 1 + 2 * u, 0, -0.3 + 0.8 * u, 1);
    arbor_trs ci = trs_z(1 - 2 * u, 1, 1 + 2 * u, 2.0 * u, 1 - 0.5 * u), ai, step;
    ASSERT_OK(arbor_node_trs(s, a, &ai));
    ASSERT_OK(arbor_node_trs(s, chain[0], &step));
    double lr[16], la[16], lb[16], lc[16], ls[16], wr[16], wa[16], wb[16], wc[16], wd[16];
    ref_local(lr, &ri), ref_local(la, &ai), ref_local(lb, &bi), ref_local(lc, &ci), ref_local(ls, &step);
    memcpy(wr, lr, sizeof wr);
    test_ref_mul(wa, wr, la);
    test_ref_mul(wb, wr, lb);
    test_ref_mul(wc, wa, lc);
    memcpy(wd, wc, sizeof wd);
    for (int i = 0; i < DEEP; i++) test_ref_mul(wd, wd, ls);
    const arbor_node nodes[] = { c, r, b, a, c, chain[DEEP - 1], chain[3], b };
    const double *want[] = { wc, wr, wb, wa, wc, wd, NULL, wb };
    enum { N = sizeof nodes / sizeof *nodes };
    arbor_real out[N * 16], one[16];
    ASSERT_OK(arbor_scene_world_matrices_at(s, nodes, N, u, out));
    for (int i = 0; i < N; i++) {
        if (want[i]) expect_matrix(out + i * 16, want[i], i == 5 ? 10 * TOL : TOL);
        ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, nodes[i], u, one));
        assert_memory_equal(out + i * 16, one, sizeof one);
    }
    /* A refusal writes nothing and names the node. */
    arbor_real before[N * 16];
    memcpy(before, out, sizeof out);
    assert_int_equal(arbor_scene_world_matrices_at(s, nodes, N, 1.5, out), ARBOR_ERR_EXTRAPOLATION);
    assert_string_equal(arbor_last_error(), "arbor_scene_world_matrices_at: nodes[0]: 'r' has samples from 0.00 s to 1.00 s; 1.50 s is 0.50 s after the last");
    assert_memory_equal(out, before, sizeof out);
    arbor_scene_destroy(s);
}

/* Memory given back at the next first sample: the rings grown out of, a destroyed node's, one
   four times larger than its samples need; a node the journal holds keeps its samples. */
static void test_reclaim(void **state) {
    (void)state;
    const size_t sample_bytes = ARBOR_REAL_IS_DOUBLE ? 88 : 48;
    arbor_scene *s = make(1.0, 0);
    arbor_node a, b, c, d, f, g;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "a" }, &a));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "b" }, &b));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "d" }, &d));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "f" }, &f));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "c" }, &c)); /* before a's id is free */
    for (int i = 0; i <= 300; i++) { /* 100 Hz for 3 s: 101 samples held (2.00 .. 3.00 s) */
        arbor_trs t = trs_z(i, 0, 0, 0, 1);
        ASSERT_OK(arbor_node_record_trs(s, a, i / 100.0, &t));
        ASSERT_OK(arbor_node_record_trs(s, f, i / 100.0, &t));
    }
    arbor_scene_stats st;
    arbor_scene_stats_get(s, &st);
    uint64_t grown = st.history_bytes;
    arbor_trs one = trs_z(7, 0, 0, 0, 1);
    ASSERT_OK(arbor_node_record_trs(s, b, 0, &one)); /* a first sample: the 16-sample rings a and f grew out of go */
    arbor_scene_stats_get(s, &st);
    assert_true(st.history_bytes + (2 * 16 - 16) * sample_bytes <= grown); /* b's ring of 16 came */
    ASSERT_OK(arbor_node_record_trs(s, d, 0, &one));
    for (int i = 4; i <= 6; i++) { /* f now at 1 Hz: 2 samples held (5 and 6 s) in a ring made for 101 */
        arbor_trs t = trs_z(10 * i, 0, 0, 0, 1);
        ASSERT_OK(arbor_node_record_trs(s, f, i, &t));
    }
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.history_samples, 101 + 1 + 1 + 2);
    uint64_t before = st.history_bytes;
    assert_true(before >= (101 + 101 + 2) * sample_bytes);
    ASSERT_OK(arbor_node_destroy(s, a));
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    ASSERT_OK(arbor_journal_destroy_node(j, d));
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.history_samples, 105); /* nothing freed by the destroys themselves */
    ASSERT_OK(arbor_node_record_trs(s, c, 0, &one));
    ASSERT_OK(arbor_scene_set_time_hold(s, 0)); /* a sweep: a's ring goes, f's shrinks to 16 */
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.history_samples, 1 + 1 + 2 + 1); /* b, d (held), f, c */
    assert_true(st.history_bytes + (101 + 101 - 16 - 16) * sample_bytes <= before); /* c's ring of 16 came */
    /* What is left answers as before: f between its samples, d after the undo. */
    arbor_real out[16];
    ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, f, 5.5, out));
    assert_true(fabs(out[12] - 55) < 1e-4);
    ASSERT_OK(arbor_journal_undo(j));
    ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, d, 0, out));
    assert_true(out[12] == 7);
    arbor_journal_destroy(j);
    /* a's id again: its new node is static until recorded, then holds only its own samples. */
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "g" }, &g));
    double first, last;
    ASSERT_OK(arbor_node_history_range(s, g, &first, &last));
    assert_true(first == -INFINITY && last == INFINITY);
    ASSERT_OK(arbor_node_record_trs(s, g, 9, &one));
    ASSERT_OK(arbor_node_history_range(s, g, &first, &last));
    assert_true(first == 9 && last == 9);
    arbor_scene_destroy(s);
}

/* Pruning by duration and count; stats; a late sample fills the history only. */
static void test_pruning_and_late_samples(void **state) {
    (void)state;
    arbor_scene *s = make(1.0, 0);
    arbor_node a;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "a" }, &a));
    double first, last;
    ASSERT_OK(arbor_node_history_range(s, a, &first, &last));
    assert_true(first == -INFINITY && last == INFINITY); /* static */
    for (int i = 0; i <= 10; i++) {
        arbor_trs t = trs_z(i, 0, 0, 0, 1);
        ASSERT_OK(arbor_node_record_trs(s, a, i * 0.5, &t));
    }
    ASSERT_OK(arbor_node_history_range(s, a, &first, &last));
    assert_true(first == 4.0 && last == 5.0); /* no older than 1 s before the latest */
    arbor_scene_stats st;
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.history_samples, 3);
    /* late: 4.25 goes between, the present stays the latest sample (x = 10) */
    arbor_trs late = trs_z(100, 0, 0, 0, 1);
    ASSERT_OK(arbor_node_record_trs(s, a, 4.25, &late));
    arbor_trs now;
    ASSERT_OK(arbor_node_trs(s, a, &now));
    assert_true(now.translation[0] == 10);
    arbor_real out[16];
    ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, a, 4.25, out));
    assert_true(out[12] == 100);
    ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, a, 4.125, out)); /* halfway between 8 (at 4.0) and 100 */
    test_near_(out[12], 54, 1e-4, "x at 4.125 s", __FILE__, __LINE__);
    /* too old for the window: dropped as pruning would drop it */
    ASSERT_OK(arbor_node_record_trs(s, a, 1.0, &late));
    ASSERT_OK(arbor_node_history_range(s, a, &first, &last));
    assert_true(first == 4.0);
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.history_samples, 4);
    arbor_scene_stats_reset(s);
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.history_samples, 4); /* a level: reset keeps it */
    arbor_scene_destroy(s);

    /* by count: 200 nodes of at most 50 samples, 100 samples each */
    s = make(1000, 50);
    arbor_node n[200];
    for (int i = 0; i < 200; i++) ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ 0 }, &n[i]));
    for (int k = 0; k < 100; k++)
        for (int i = 0; i < 200; i++) {
            arbor_trs t = trs_z(k, i, 0, 0, 1);
            ASSERT_OK(arbor_node_record_trs(s, n[i], k, &t));
        }
    ASSERT_OK(arbor_node_history_range(s, n[7], &first, &last));
    assert_true(first == 50 && last == 99);
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.history_samples, 200 * 50);
    /* 48 bytes a sample in the float build (88 in double), plus per node a ring header and its
       one spare sample, and the table of 24 + 8 bytes an id */
    size_t sample_bytes = ARBOR_REAL_IS_DOUBLE ? 88 : 48;
    assert_true(st.history_bytes <= 200 * (51 * sample_bytes + 16) + 256 * 32 + 64);
    arbor_scene_destroy(s);
}

/* The tree changing: a reparented node's samples are refused until it comes back or is
   recorded again; a destroyed node is dead; an undone destroy keeps its samples. */
static void test_tree_changes(void **state) {
    (void)state;
    arbor_scene *s = make(0, 0);
    arbor_node a, b, x;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "a", .translation = { 1, 0, 0 } }, &a));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "b", .translation = { 0, 5, 0 } }, &b));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "x", .parent = a }, &x));
    arbor_trs t0 = trs_z(0, 0, 0, 0, 1), t1 = trs_z(2, 0, 0, 0, 1);
    ASSERT_OK(arbor_node_record_trs(s, x, 0, &t0));
    ASSERT_OK(arbor_node_record_trs(s, x, 1, &t1));
    arbor_real out[16];
    ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, x, 0.5, out));
    assert_true(out[12] == 2);
    ASSERT_OK(arbor_node_set_parent(s, x, b, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_int_equal(arbor_scene_lookup(s, ARBOR_NONE, x, 0.5, out), ARBOR_ERR_EXTRAPOLATION);
    assert_string_equal(arbor_last_error(), "arbor_scene_lookup: 'b/x' was recorded under 'a', its parent is now 'b': record it again");
    ASSERT_OK(arbor_node_set_parent(s, x, a, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, x, 0.5, out));
    assert_true(out[12] == 2);
    /* recorded under b: the samples of a go */
    ASSERT_OK(arbor_node_set_parent(s, x, b, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_node_record_trs(s, x, 2, &t0));
    double first, last;
    ASSERT_OK(arbor_node_history_range(s, x, &first, &last));
    assert_true(first == 2 && last == 2);
    assert_int_equal(arbor_scene_lookup(s, ARBOR_NONE, x, 0.5, out), ARBOR_ERR_EXTRAPOLATION);
    ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, x, 2, out));
    assert_true(out[13] == 5);
    /* destroy under a journal, undo: the samples come back with the node */
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    ASSERT_OK(arbor_journal_destroy_node(j, x));
    assert_int_equal(arbor_scene_lookup(s, ARBOR_NONE, x, 2, out), ARBOR_ERR_DEAD_NODE);
    ASSERT_OK(arbor_journal_undo(j));
    ASSERT_OK(arbor_scene_lookup(s, ARBOR_NONE, x, 2, out));
    assert_true(out[13] == 5);
    arbor_journal_destroy(j);
    ASSERT_OK(arbor_node_destroy(s, x));
    assert_int_equal(arbor_scene_lookup(s, ARBOR_NONE, x, 2, out), ARBOR_ERR_DEAD_NODE);
    arbor_scene_destroy(s);
}

/* A pose records all its nodes at one stamp; lookup_between goes through a fixed frame. */
static void test_pose_and_between(void **state) {
    (void)state;
    arbor_scene *s = make(0, 0);
    arbor_node world, body[3];
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "world" }, &world));
    for (int i = 0; i < 3; i++)
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = i ? body[i - 1] : world }, &body[i]));
    arbor_pose *p;
    ASSERT_OK(arbor_pose_create(s, body, 3, &p));
    for (int step = 0; step < 2; step++) {
        for (uint32_t i = 0; i < 3; i++) arbor_pose_trs(p)[i] = trs_z(step + 1.0, i, 0, 0.1 * step, 1);
        ASSERT_OK(arbor_pose_record(p, step / 60.0));
    }
    double want[16], l[16];
    for (int k = 0; k < 16; k++) want[k] = k % 5 == 0;
    for (uint32_t i = 0; i < 3; i++) {
        arbor_trs t = trs_z(1.5, i, 0, 0.05, 1);
        ref_local(l, &t);
        test_ref_mul(want, want, l);
    }
    arbor_real out[16];
    ASSERT_OK(arbor_scene_lookup(s, world, body[2], 0.5 / 60, out));
    expect_matrix(out, want, TOL);
    /* from body[2] at 1/60 s, through world, into body[0] at 0 s */
    double b2[16], b0[16], inv[16], w2[16];
    for (int k = 0; k < 16; k++) b2[k] = k % 5 == 0;
    for (uint32_t i = 0; i < 3; i++) {
        arbor_trs t = trs_z(2, i, 0, 0.1, 1);
        ref_local(l, &t);
        test_ref_mul(b2, b2, l);
    }
    arbor_trs t0 = trs_z(1, 0, 0, 0, 1);
    ref_local(b0, &t0);
    ref_inverse(inv, b0);
    test_ref_mul(w2, inv, b2);
    ASSERT_OK(arbor_scene_lookup_between(s, body[0], 0, body[2], 1 / 60.0, world, out));
    expect_matrix(out, w2, TOL);
    arbor_pose_destroy(p);
    arbor_scene_destroy(s);
}

/* arbor_pose_record's present, against the same writes made by arbor_node_set_trs in a twin
   scene: every node's TRS, world matrix (bit for bit, and against a product in double computed
   here) and world version alike, after a first record, a steady one, one with a late entry
   (its present left as it was) and a refused one (nothing changed, versions included). */
enum { TWIN_NODES = 6 };
typedef struct twin {
    arbor_scene *s;
    arbor_node n[TWIN_NODES]; /* r, a (r), b (a), c (b), d (a, never recorded), e (r) */
} twin;
static const int twin_parent[TWIN_NODES] = { -1, 0, 1, 2, 1, 0 };
static const int twin_posed[4] = { 1, 2, 3, 5 }; /* a, b, c, e: r above the pose, d beside it */

static void twin_make(twin *t) {
    t->s = make(0, 0);
    for (int i = 0; i < TWIN_NODES; i++)
        ASSERT_OK(arbor_node_create(t->s, &(arbor_node_desc){ .parent = twin_parent[i] >= 0 ? t->n[twin_parent[i]] : ARBOR_NONE },
                                    &t->n[i]));
}
/* A rotation not of unit length (both paths normalise it), a scale that is not 1. */
static arbor_trs twin_trs(int step, int i) {
    arbor_trs t = trs_z(0.1 * i + step, 0.2 * i, -0.05 * step, 0.3 * i - 0.2 * step, 1 + 0.1 * i);
    for (int k = 0; k < 4; k++) t.rotation[k] *= (arbor_real)(1.5 + 0.25 * i);
    t.rotation[0] = (arbor_real)(0.1 * step);
    return t;
}
/* Every node of a and b alike; each world also within TOL of the product in double of the
   locals of its TRS. */
static void twin_expect_same(twin *a, twin *b) {
    double world[TWIN_NODES][16];
    for (int i = 0; i < TWIN_NODES; i++) {
        arbor_trs ta, tb;
        ASSERT_OK(arbor_node_trs(a->s, a->n[i], &ta));
        ASSERT_OK(arbor_node_trs(b->s, b->n[i], &tb));
        assert_memory_equal(&ta, &tb, sizeof ta);
        arbor_real wa[16], wb[16];
        ASSERT_OK(arbor_node_world_matrix(a->s, a->n[i], wa));
        ASSERT_OK(arbor_node_world_matrix(b->s, b->n[i], wb));
        assert_memory_equal(wa, wb, sizeof wa);
        assert_true(arbor_node_world_version(a->s, a->n[i]) == arbor_node_world_version(b->s, b->n[i]));
        double l[16];
        ref_local(l, &ta);
        if (twin_parent[i] >= 0) test_ref_mul(world[i], world[twin_parent[i]], l);
        else memcpy(world[i], l, sizeof l);
        expect_matrix(wa, world[i], TOL);
    }
}

static void test_pose_record_present(void **state) {
    (void)state;
    twin a, b;
    twin_make(&a);
    twin_make(&b);
    arbor_node posed[4];
    for (int k = 0; k < 4; k++) posed[k] = a.n[twin_posed[k]];
    arbor_pose *p;
    ASSERT_OK(arbor_pose_create(a.s, posed, 4, &p));
    /* Steps 0 (first samples), 1 (a steady step: after every sample), 2 (c holds a later
       sample: late, its present stays) */
    for (int step = 0; step < 3; step++) {
        if (step == 2) {
            arbor_trs later = twin_trs(9, 3);
            ASSERT_OK(arbor_node_record_trs(a.s, a.n[3], 10, &later));
            ASSERT_OK(arbor_node_set_trs(b.s, b.n[3], &later));
            twin_expect_same(&a, &b); /* read: the worlds current before the record */
        }
        for (int k = 0; k < 4; k++) {
            int i = twin_posed[k];
            arbor_pose_trs(p)[k] = twin_trs(step, i);
            if (!(step == 2 && i == 3)) ASSERT_OK(arbor_node_set_trs(b.s, b.n[i], &arbor_pose_trs(p)[k]));
        }
        ASSERT_OK(arbor_pose_record(p, step));
        twin_expect_same(&a, &b);
    }
    arbor_trs c;
    ASSERT_OK(arbor_node_trs(a.s, a.n[3], &c));
    assert_true(c.translation[0] == twin_trs(9, 3).translation[0]);
    /* Refused (a NaN in the last entry): TRS, worlds, versions and samples as they were. */
    for (int k = 0; k < 4; k++) arbor_pose_trs(p)[k] = twin_trs(3, twin_posed[k]);
    arbor_pose_trs(p)[3].translation[1] = NAN;
    assert_int_equal(arbor_pose_record(p, 3), ARBOR_ERR_NONFINITE);
    twin_expect_same(&a, &b);
    for (int k = 0; k < 4; k++) {
        double first, last;
        ASSERT_OK(arbor_node_history_range(a.s, posed[k], &first, &last));
        assert_true(first == 0 && last == (k == 2 ? 10 : 2));
    }
    arbor_pose_destroy(p);
    arbor_scene_destroy(a.s);
    arbor_scene_destroy(b.s);
}

/* Out of memory at each allocation a record makes (the table, a ring, a grown ring, in a record
   and in a pose record): refused, and the node's samples and present as before; every block back
   at the end. */
static void test_out_of_memory(void **state) {
    (void)state;
    test_counting_allocator c = { 0 };
    arbor_scene *s;
    ASSERT_OK(arbor_scene_create(&(arbor_scene_desc){ .allocator = test_counting_allocator_hooks(&c, true), .history_duration = 1000 }, &s));
    arbor_node a;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "a" }, &a));
    arbor_pose *p;
    ASSERT_OK(arbor_pose_create(s, &a, 1, &p));
    int refused = 0;
    for (int k = 0; k < 40; k++) {
        arbor_trs t = trs_z(k, 0, 0, 0, 1);
        double first0, last0, first, last;
        arbor_trs before, after;
        ASSERT_OK(arbor_node_history_range(s, a, &first0, &last0));
        ASSERT_OK(arbor_node_trs(s, a, &before));
        c.fail_all = true;
        arbor_result r = k % 2 ? arbor_node_record_trs(s, a, k, &t) : (arbor_pose_trs(p)[0] = t, arbor_pose_record(p, k));
        c.fail_all = false;
        if (r == ARBOR_OK) continue;
        refused++;
        assert_int_equal(r, ARBOR_ERR_OUT_OF_MEMORY);
        ASSERT_OK(arbor_node_history_range(s, a, &first, &last));
        assert_true(first == first0 && last == last0);
        ASSERT_OK(arbor_node_trs(s, a, &after));
        assert_memory_equal(&before, &after, sizeof before);
        ASSERT_OK(k % 2 ? arbor_node_record_trs(s, a, k, &t) : arbor_pose_record(p, k)); /* with memory */
    }
    assert_true(refused >= 2); /* the table and ring, and a growth at 16 samples */
    double first, last;
    ASSERT_OK(arbor_node_history_range(s, a, &first, &last));
    assert_true(first == 0 && last == 39);
    arbor_pose_destroy(p);
    arbor_scene_destroy(s);
    assert_int_equal(c.live_blocks, 0);
    assert_int_equal(c.size_mismatches, 0);
}

/* A pose record refused for memory at its second entry's first ring: the first entry's node
   stays static (no empty ring left that would refuse every lookup through it), then with memory
   both are recorded. */
static void test_pose_record_out_of_memory(void **state) {
    (void)state;
    test_counting_allocator c = { 0 };
    arbor_scene *s;
    ASSERT_OK(arbor_scene_create(&(arbor_scene_desc){ .allocator = test_counting_allocator_hooks(&c, true) }, &s));
    arbor_node n[3];
    for (int i = 0; i < 3; i++) ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = i ? n[0] : ARBOR_NONE }, &n[i]));
    arbor_trs t = trs_z(1, 2, 3, 0.5, 1);
    ASSERT_OK(arbor_node_record_trs(s, n[0], 0, &t)); /* the table made */
    arbor_pose *p;
    ASSERT_OK(arbor_pose_create(s, n + 1, 2, &p));
    arbor_pose_trs(p)[0] = arbor_pose_trs(p)[1] = t;
    c.limited = true;
    c.allow = 1; /* the first entry's ring, not the second's */
    assert_int_equal(arbor_pose_record(p, 0), ARBOR_ERR_OUT_OF_MEMORY);
    c.limited = false;
    double first, last;
    ASSERT_OK(arbor_node_history_range(s, n[1], &first, &last));
    assert_true(first == -INFINITY && last == INFINITY);
    arbor_real out[16];
    ASSERT_OK(arbor_scene_lookup(s, n[0], n[1], 0, out));
    ASSERT_OK(arbor_pose_record(p, 0));
    for (int i = 1; i < 3; i++) {
        ASSERT_OK(arbor_node_history_range(s, n[i], &first, &last));
        assert_true(first == 0 && last == 0);
    }
    arbor_pose_destroy(p);
    arbor_scene_destroy(s);
    assert_int_equal(c.live_blocks, 0);
    assert_int_equal(c.size_mismatches, 0);
}

/* A steady pose record (every entry after its node's latest) of more entries than the record
   keeps from its check (64: the rest are checked again when written), pruned by the count limit
   in one scene and by the window in the other: each node's range, the samples held and a lookup
   between its last two samples against the lerp computed here; then a refusal at entry 80 (past
   the kept ones) changes nothing, and a rotation too small for the fast normalisation (the
   checked path) is stored as a unit one, and a translation whose sum overflows is recorded. */
enum { STEADY_NODES = 100 };
/* Every node holds its samples at 5, 6 and 7 s, and nothing else is held. */
static void steady_expect_held(arbor_scene *s, const arbor_node *n) {
    arbor_scene_stats st;
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.history_samples, 3 * STEADY_NODES);
    for (int i = 0; i < STEADY_NODES; i++) {
        double first, last;
        ASSERT_OK(arbor_node_history_range(s, n[i], &first, &last));
        assert_true(first == 5 && last == 7);
    }
}
static void test_pose_record_steady_many(void **state) {
    (void)state;
    for (int by_count = 0; by_count < 2; by_count++) {
        /* keep 3 samples: by count (duration 1000 s), or by the window (2.5 s before the latest) */
        arbor_scene *s = by_count ? make(1000, 3) : make(2.5, 0);
        arbor_node root, n[STEADY_NODES];
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "root" }, &root));
        for (int i = 0; i < STEADY_NODES; i++)
            ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = i % 2 && i > 1 ? n[i - 1] : root }, &n[i]));
        arbor_pose *p;
        ASSERT_OK(arbor_pose_create(s, n, STEADY_NODES, &p));
        for (int step = 0; step < 8; step++) {
            for (int i = 0; i < STEADY_NODES; i++) arbor_pose_trs(p)[i] = trs_z(i + step, -i, 2 * step, 0.01 * i * step, 1);
            ASSERT_OK(arbor_pose_record(p, step));
        }
        steady_expect_held(s, n);
        for (int i = 0; i < STEADY_NODES; i++) {
            /* n[i] in its parent's frame at 6.25 s: a quarter of the way from 6 to 7 */
            arbor_real out[16];
            arbor_node parent = i % 2 && i > 1 ? n[i - 1] : root;
            ASSERT_OK(arbor_scene_lookup(s, parent, n[i], 6.25, out));
            arbor_trs want_trs = trs_z(i + 6.25, -i, 12.5, 0.01 * i * 6.25, 1);
            double want[16];
            ref_local(want, &want_trs);
            expect_matrix(out, want, TOL);
        }
        /* Refused at entry 80: every node's samples and present as they were. */
        for (int i = 0; i < STEADY_NODES; i++) arbor_pose_trs(p)[i] = trs_z(i + 8, -i, 16, 0.08 * i, 1);
        arbor_pose_trs(p)[80].scale[2] = INFINITY;
        assert_int_equal(arbor_pose_record(p, 8), ARBOR_ERR_NONFINITE);
        assert_non_null(strstr(arbor_last_error(), "pose entry 80"));
        steady_expect_held(s, n);
        for (int i = 0; i < STEADY_NODES; i++) {
            arbor_trs now, want = trs_z(i + 7, -i, 14, 0.07 * i, 1);
            ASSERT_OK(arbor_node_trs(s, n[i], &now));
            for (int k = 0; k < 3; k++) assert_true(fabs(now.translation[k] - want.translation[k]) <= TOL * (1 + fabs(want.translation[k])));
        }
        /* A rotation of length 1e-20 (its squares below float's range): unit once recorded. */
        arbor_pose_trs(p)[80].scale[2] = 1;
        for (int k = 0; k < 4; k++) arbor_pose_trs(p)[70].rotation[k] = (arbor_real)(k == 3 ? 1e-20 : 0);
        ASSERT_OK(arbor_pose_record(p, 8));
        arbor_trs now;
        ASSERT_OK(arbor_node_trs(s, n[70], &now));
        assert_true(now.rotation[0] == 0 && now.rotation[1] == 0 && now.rotation[2] == 0 && fabs(now.rotation[3] - 1) <= TOL);
        /* Finite values whose sum overflows (the steady check's sum of them does): recorded. */
#if ARBOR_REAL_IS_DOUBLE
        const arbor_real big = 1e308;
#else
        const arbor_real big = 3e38f;
#endif
        arbor_pose_trs(p)[60].translation[0] = arbor_pose_trs(p)[60].translation[1] = big;
        ASSERT_OK(arbor_pose_record(p, 9));
        ASSERT_OK(arbor_node_trs(s, n[60], &now));
        assert_true(now.translation[0] == big && now.translation[1] == big);
        arbor_pose_destroy(p);
        arbor_scene_destroy(s);
    }
}

/* Threads: one writer records at 1 kHz, two readers look up meanwhile. Every sample of node k
   at time t is translation (t, k, 0): linear in t, so any interpolation gives exactly
   (time, k, 0) and a torn sample would show. The writer reuses the slots of pruned samples and
   moves the latest for late ones while the readers read there, every other step through a pose
   record: under ThreadSanitizer (the tsan stage) a plain read of a sample is reported (checked
   by planting one), and so is a plain write of one in the pose record's steady path (planted
   too). */
#define THREAD_NODES 4
typedef struct shared {
    arbor_scene *s;
    arbor_node n[THREAD_NODES];
    _Atomic int done;
    _Atomic double latest;
    _Atomic int bad;
    _Atomic long lookups;
} shared;

static void *reader(void *arg) {
    shared *sh = arg;
    uint64_t rng = 7;
    long lookups = 0;
    while (!atomic_load(&sh->done)) {
        double latest = atomic_load(&sh->latest);
        /* anywhere in the 0.2 s window: its oldest samples' slots are the ones the writer reuses,
           its newest ones those a late sample moves */
        double t = latest - 0.2 * (double)(splitmix64_next(&rng) % 1000) / 1000.0;
        /* by turns: one lookup, eight sorted times (spans kept from one to the next while the
           writer moves them), the world matrices of the whole chain (its walk shared) */
        enum { MANY = 8 };
        arbor_real out[MANY * 16];
        double times[MANY];
        int mode = (int)(lookups % 3), n = mode == 1 ? MANY : mode == 2 ? THREAD_NODES : 1;
        for (int i = 0; i < MANY; i++) times[i] = t + 0.0003 * i;
        arbor_result r = mode == 0   ? arbor_scene_lookup(sh->s, ARBOR_NONE, sh->n[THREAD_NODES - 1], t, out)
                         : mode == 1 ? arbor_scene_lookup_many(sh->s, ARBOR_NONE, sh->n[THREAD_NODES - 1], times, MANY, out)
                                     : arbor_scene_world_matrices_at(sh->s, sh->n, THREAD_NODES, t, out);
        for (int i = 0; r == ARBOR_OK && i < n; i++) {
            /* each node of the chain adds (time, k): node `last`'s world at time tt */
            int last = mode == 2 ? i : THREAD_NODES - 1;
            double tt = mode == 1 ? times[i] : t, x = 0, y = 0;
            for (int k = 0; k <= last; k++) x += tt, y += k;
            if (fabs(out[i * 16 + 12] - x) > 1e-3 * (1 + x) || fabs(out[i * 16 + 13] - y) > 1e-4) sh->bad++;
        }
        if (r != ARBOR_OK && r != ARBOR_ERR_EXTRAPOLATION) sh->bad++;
        lookups++;
    }
    sh->lookups += lookups;
    return NULL;
}

static void test_threads(void **state) {
    (void)state;
    static shared sh;
    sh.s = make(0.2, 0);
    for (int k = 0; k < THREAD_NODES; k++)
        ASSERT_OK(arbor_node_create(sh.s, &(arbor_node_desc){ .parent = k ? sh.n[k - 1] : ARBOR_NONE }, &sh.n[k]));
    double t = 0;
    for (; t < 0.3; t += 0.001) /* the first samples with the scene to itself */
        for (int k = 0; k < THREAD_NODES; k++) {
            arbor_trs x = trs_z(t, k, 0, 0, 1);
            ASSERT_OK(arbor_node_record_trs(sh.s, sh.n[k], t, &x));
        }
    atomic_store(&sh.latest, t - 0.001);
    arbor_pose *pose; /* every other step through a pose record (its steady path), made before the readers start */
    ASSERT_OK(arbor_pose_create(sh.s, sh.n, THREAD_NODES, &pose));
    pthread_t th[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, reader, &sh), 0);
    for (int step = 0; step < 300; step++, t += 0.001) { /* 0.3 s at 1 kHz */
        for (int k = 0; k < THREAD_NODES; k++) arbor_pose_trs(pose)[k] = trs_z(t, k, 0, 0, 1);
        if (step % 2) ASSERT_OK(arbor_pose_record(pose, t));
        for (int k = 0; k < THREAD_NODES && step % 2 == 0; k++) {
            arbor_trs x = trs_z(t, k, 0, 0, 1);
            ASSERT_OK(arbor_node_record_trs(sh.s, sh.n[k], t, &x));
            if (step % 4 == 0) { /* a late sample between the last two: the latest moves up a slot */
                arbor_trs y = trs_z(t - 0.0005, k, 0, 0, 1);
                ASSERT_OK(arbor_node_record_trs(sh.s, sh.n[k], t - 0.0005, &y));
            }
        }
        atomic_store(&sh.latest, t);
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    }
    atomic_store(&sh.done, 1);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    arbor_pose_destroy(pose);
    assert_int_equal(sh.bad, 0);
    assert_true(sh.lookups > 0);
    arbor_scene_destroy(sh.s);
}

/* The 1.0 symbols read and write only the 1.0 structs: what follows them is not touched. (Past
   this point the file calls the 1.0 symbols: the tests of the rest of the API are above.) */
#undef arbor_scene_create
#undef arbor_scene_stats_get
ARBOR_API arbor_result arbor_scene_create(const arbor_scene_desc *desc, arbor_scene **out);
ARBOR_API void arbor_scene_stats_get(const arbor_scene *scene, arbor_scene_stats *out);
static void test_abi(void **state) {
    (void)state;
    arbor_scene_desc d;
    memset(&d, 0xff, sizeof d); /* history_duration a NaN: the 1.1 entry refuses it */
    memset(&d, 0, offsetof(arbor_scene_desc, history_duration));
    arbor_scene *s;
    ASSERT_OK(arbor_scene_create(&d, &s));
    assert_int_equal(arbor_scene_create_1_1(&d, &s), ARBOR_ERR_INVALID_ARGUMENT);
    arbor_scene_stats st;
    memset(&st, 0xab, sizeof st);
    arbor_scene_stats_get(s, &st);
    assert_true(st.history_samples == 0xabababababababab && st.history_bytes == 0xabababababababab);
    arbor_scene_stats_get_1_1(s, &st);
    assert_true(st.history_samples == 0);
    arbor_scene_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interpolation_and_products),
        cmocka_unit_test(test_shorter_arc),
        cmocka_unit_test(test_wide_arcs),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_hold),
        cmocka_unit_test(test_world_matrices_shared),
        cmocka_unit_test(test_reclaim),
        cmocka_unit_test(test_pruning_and_late_samples),
        cmocka_unit_test(test_tree_changes),
        cmocka_unit_test(test_pose_and_between),
        cmocka_unit_test(test_pose_record_present),
        cmocka_unit_test(test_pose_record_steady_many),
        cmocka_unit_test(test_abi),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_pose_record_out_of_memory),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
