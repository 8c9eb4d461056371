/* SPDX-License-Identifier: MIT */
/* The robot: its model (parse.c), its links' nodes in a scene, and the joint positions written
   through a pose of every link but the root (pose.h: one pass, world matrices included), where
   only the moving links' entries are rewritten (pose_step; a fixed link's entry keeps what load
   wrote, and the pose applies it every time). Forward kinematics of batches works on the model
   alone, in arbor_real (eight float configurations a register, or four double), and never
   touches the scene. */
#define _POSIX_C_SOURCE 200809L /* open, fstat, read */
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbor/bounds.h"
#include "arbor/pose.h"
#include "arbor/time.h"
#include "math/affine.h"
#include "urdf/urdf_internal.h"

struct arbor_urdf {
    arbor__dependent dep;   /* of its scene (first: the detach finds the robot) */
    arbor_scene *s;         /* NULL once the scene is destroyed */
    arbor__urdf_model m;
    bool clamp;
    arbor_node *link_node;  /* link_count */
    uint32_t *pose_link;    /* the link of each pose entry */
    struct pose_step *steps; /* the scene path's program (make_steps): the moving links' entries;
                               fixed links' keep the TRS written at load (the pose never changes them) */
    uint32_t turns, slides, step_count; /* steps: turns (to a multiple of four), then slides, then the others */
    double *q, *work;       /* the positions (dof), and the checked values of a call */
    arbor_pose *pose;       /* every link but the root; NULL for a robot of one link */
    struct fk_link *fk;     /* link_count: the batch's program (fk_compile) */
    double *lo, *hi;        /* each position's accepted values: its limits, or +-DBL_MAX without them or
                               when the robot clamps (one compare tests finite and within) */
    bool floating;          /* a floating joint: rows checked by check() for zero quaternions */
    bool recorded;          /* arbor_urdf_record_positions was called: q is the latest sample's */
    double latest;          /* the latest time recorded */
    size_t bytes;           /* of this block (the struct and its arrays) */
};

static void detach(arbor__dependent *d) { ((arbor_urdf *)d)->s = NULL; }

/* The steps of sincos_of and sincos4, for a double or four: n, the nearest multiple of pi/2
   (1.5 * 2^52 added and taken away rounds to an integer); r, x - n pi/2; the polynomials. */
#define NEAREST_QUADRANT(x) (((x) * 0.63661977236758134308 + 6755399441055744.0) - 6755399441055744.0)
#define REDUCED(x, n) ((((x) - (n) * 1.57079632673412561417e+00) - (n) * 6.07710050630396597660e-11) - (n) * 2.02226624871116645580e-21)
#define SIN_POLY(r, r2) ((r) + (r) * (r2) * (-1.0 / 6 + (r2) * (1.0 / 120 + (r2) * (-1.0 / 5040 + (r2) * (1.0 / 362880 + \
                        (r2) * (-1.0 / 39916800 + (r2) * (1.0 / 6227020800 + (r2) * (-1.0 / 1307674368000 + (r2) * (1.0 / 355687428096000)))))))))
#define COS_POLY(r2) (1 + (r2) * (-0.5 + (r2) * (1.0 / 24 + (r2) * (-1.0 / 720 + (r2) * (1.0 / 40320 + (r2) * (-1.0 / 3628800 + \
                     (r2) * (1.0 / 479001600 + (r2) * (-1.0 / 87178291200 + (r2) * (1.0 / 20922789888000)))))))))

/* sin and cos of x from sin r and cos r, x = r + n pi/2 (libm's beyond |x| = 1e5). */
static inline void quadrant(double x, double n, double sr, double cr, double *s, double *c) {
    if (!(fabs(x) <= 1e5)) {
        *s = sin(x), *c = cos(x);
        return;
    }
    switch ((int64_t)n & 3) {
    case 0: *s = sr, *c = cr; break;
    case 1: *s = cr, *c = -sr; break;
    case 2: *s = -sr, *c = -cr; break;
    default: *s = -cr, *c = sr; break;
    }
}

/* sin and cos of x at once, within a few units in the last place: x reduced by the nearest
   multiple n of pi/2 (pi/2 in three parts of 33 bits, so n times each is exact for |n| < 2^20),
   then Taylor polynomials on [-pi/4, pi/4] (terms to x^17 and x^16: the next are below 1e-19).
   Beyond |x| = 1e5, libm's. A revolute joint's motion costs one of these, not two libm calls. */
static inline void sincos_of(double x, double *s, double *c) {
    double n = fabs(x) <= 1e5 ? NEAREST_QUADRANT(x) : 0, r = REDUCED(x, n), r2 = r * r;
    quadrant(x, n, SIN_POLY(r, r2), COS_POLY(r2), s, c);
}

/* Four configurations at once, lane by lane (GCC vector types: AVX2 or SSE2 by the CPU,
   through math/affine.h's clones): every operation is the one a lane alone would do, FMA off,
   so each configuration's bits are the same whatever its neighbours (a batch of one runs its
   configuration in every lane). */
enum { LANES = 4 };
typedef double v4 __attribute__((vector_size(LANES * sizeof(double))));

typedef arbor_real vr __attribute__((vector_size(LANES * sizeof(arbor_real))));

/* sincos_of, lane by lane: its polynomials on the four at once, the quadrant's swap and signs
   by masks (the low bits of x 2/pi + 1.5 * 2^52 are n's: n & 3 as in quadrant()), a lane
   beyond 1e5 by libm. */
typedef uint64_t v4u __attribute__((vector_size(LANES * sizeof(uint64_t))));
typedef int64_t v4i __attribute__((vector_size(LANES * sizeof(int64_t))));
ARBOR__HOT void sincos4(const v4 *xp, v4 *s, v4 *c) { /* by pointer: a v4 argument would change the ABI */
    const v4 x = *xp, t = x * 0.63661977236758134308 + 6755399441055744.0;
    v4 n = t - 6755399441055744.0, r = REDUCED(x, n), r2 = r * r, sr = SIN_POLY(r, r2), cr = COS_POLY(r2);
    const v4u k = (v4u)t & 3, odd = -(k & 1), si = (v4u)sr, ci = (v4u)cr, sign = (v4u){ 0, 0, 0, 0 } + (UINT64_C(1) << 63);
    *s = (v4)(((si & ~odd) | (ci & odd)) ^ ((k & 2) << 62));
    *c = (v4)(((ci & ~odd) | (si & odd)) ^ (((k + 1) & 2) << 62));
    const v4i near = (v4)((v4u)x & ~sign) <= (v4){ 1e5, 1e5, 1e5, 1e5 };
    if (!(near[0] & near[1] & near[2] & near[3]))
        for (int l = 0; l < LANES; l++)
            if (!near[l]) (*s)[l] = sin(x[l]), (*c)[l] = cos(x[l]);
}

/* The batch's lanes, in arbor_real: eight floats a 256-bit register in the float build (each
   instruction does twice the configurations four doubles would), four doubles in the double
   build. A joint's values stay in double (vq) until reduced: a float of 1000 rad is off by
   3e-5 rad, its reduction by pi/2 to [-pi/4, pi/4] in double is not. */
#if ARBOR_REAL_IS_DOUBLE
typedef double fk_real;
enum { FK_LANES = 4 };
#else
typedef float fk_real;
enum { FK_LANES = 8 };
#endif
typedef fk_real vk __attribute__((vector_size(FK_LANES * sizeof(fk_real))));
typedef double vq __attribute__((vector_size(FK_LANES * sizeof(double))));

#if ARBOR_REAL_IS_DOUBLE
ARBOR__HOT void sincos_lanes(const vq *x, vk *s, vk *c) { sincos4(x, s, c); }
#else
/* sincos4 for eight floats: n and r = x - n pi/2 in double (REDUCED), r rounded to float, then
   Taylor polynomials in float on [-pi/4, pi/4] to r^9 and r^10 (the next terms below 2e-9,
   under a tenth of a float's ulp there); the quadrant's swap and signs by masks from n & 3;
   a lane beyond 1e5 by libm, rounded. */
typedef uint32_t v8u __attribute__((vector_size(FK_LANES * sizeof(uint32_t))));
typedef int32_t v8i __attribute__((vector_size(FK_LANES * sizeof(int32_t))));
#if defined(__clang__)
#define SHUFFLE8(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define SHUFFLE8(a, b, ...) __builtin_shuffle(a, b, (v8i){ __VA_ARGS__ })
#endif
#define NEAR_QUADRANTS 63661.0f /* the multiples of pi/2 within 1e5 */
ARBOR__HOT void sincos_lanes(const vq *xp, vk *s, vk *c) {
    const vq x = *xp, n = NEAREST_QUADRANT(x);
    const vk r = __builtin_convertvector(REDUCED(x, n), vk), r2 = r * r;
    const vk sr = r + r * r2 * (-1.0f / 6 + r2 * (1.0f / 120 + r2 * (-1.0f / 5040 + r2 * (1.0f / 362880))));
    const vk cr = 1 + r2 * (-0.5f + r2 * (1.0f / 24 + r2 * (-1.0f / 720 + r2 * (1.0f / 40320 + r2 * (-1.0f / 3628800)))));
    const vk nf = __builtin_convertvector(n, vk); /* exact within 2^24; a float, not an int: defined for any n */
    const v8u k = (v8u)(nf + 12582912.0f) & 3, odd = -(k & 1), si = (v8u)sr, ci = (v8u)cr; /* 1.5 * 2^23: n's low bits */
    *s = (vk)(((si & ~odd) | (ci & odd)) ^ ((k & 2) << 30));
    *c = (vk)(((ci & ~odd) | (si & odd)) ^ (((k + 1) & 2) << 30));
    const v8i far = ~((vk)((v8u)nf & ~(UINT32_C(1) << 31)) <= NEAR_QUADRANTS); /* |x| beyond about 1e5 */
    v8i any = far | SHUFFLE8(far, far, 4, 5, 6, 7, 0, 1, 2, 3);
    any |= SHUFFLE8(any, any, 2, 3, 0, 1, 6, 7, 4, 5);
    if (any[0] | any[1])
        for (int l = 0; l < FK_LANES; l++)
            if (far[l]) (*s)[l] = (float)sin(x[l]), (*c)[l] = (float)cos(x[l]);
}
#endif

/* The batch's program: one step a link, in link order, everything a joint needs at hand. A
   link's world rows are its parent's times its origin's (pre-composed in the step as a 3x4),
   then the motion as a structured product: about a coordinate axis a rotation of two columns,
   along one a multiple of a column added to the translation; other axes through Rodrigues'
   matrix; floating and planar joints through joint_local. */
enum { FK_ROOT, FK_FIXED, FK_TURN, FK_SLIDE, FK_OTHER };
typedef struct fk_consts {
    fk_real origin[12], axis[3];
} fk_consts;
typedef struct fk_link {
#if ARBOR_REAL_IS_DOUBLE
    union {
        fk_consts lane; /* the batch's constants: these very fields */
        struct {
#endif
    double origin[12];       /* rows of the joint's origin */
    double axis[3];
#if ARBOR_REAL_IS_DOUBLE
        };
    };
#else
    fk_consts lane;          /* the batch's constants: the two above rounded to float (fk_compile) */
#endif
    double multiplier, offset; /* value = multiplier * clamp(q[index]) + offset (1, 0 unless a mimic) */
    double lo, hi;           /* the clamp: the master's limits, or -inf, inf */
    int32_t parent, index;   /* parent link; the position the value comes from (-1: none) */
    uint32_t joint;
    uint8_t kind, along;     /* along: the coordinate axis 0, 1, 2 the joint's is, or 3 */
    bool negative;           /* the axis is minus that coordinate axis */
    bool shift;              /* the origin does not turn (rpy 0): A = P translated */
    bool leaf;               /* no child link: its rows are not kept */
    double turned[4];        /* the scene's path: a revolute joint's rot (axis, 0), a prismatic one's
                                axis turned by rot (0 for a fixed one) */
} fk_link;

/* ---- a joint's motion ------------------------------------------------------------------------ */

static void quat_mul(double out[4], const double a[4], const double b[4]) {
    double r[4] = { a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2] };
    memcpy(out, r, sizeof r);
}

static void quat_rotate(double out[3], const double q[4], const double v[3]) {
    /* v + 2 w (u x v) + 2 u x (u x v), u = q's vector part */
    double t[3] = { 2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]), 2 * (q[0] * v[1] - q[1] * v[0]) };
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

/* The local transform of joint j at values v (its positions; a mimic's one value). */
static void joint_local(const arbor__urdf_joint *j, const double *v, double t[3], double r[4]) {
    double d[3] = { 0, 0, 0 };
    memcpy(r, j->rot, sizeof j->rot);
    double m[4] = { 0, 0, 0, 1 };
    switch (j->type) {
    case ARBOR_URDF_FIXED: break;
    case ARBOR_URDF_REVOLUTE:
    case ARBOR_URDF_CONTINUOUS:
    case ARBOR_URDF_PLANAR: {
        double s, c;
        sincos_of((j->type == ARBOR_URDF_PLANAR ? v[2] : v[0]) / 2, &s, &c);
        m[0] = j->axis[0] * s, m[1] = j->axis[1] * s, m[2] = j->axis[2] * s, m[3] = c;
        if (j->type == ARBOR_URDF_PLANAR)
            for (int k = 0; k < 3; k++) d[k] = v[0] * j->plane[0][k] + v[1] * j->plane[1][k];
        break;
    }
    case ARBOR_URDF_PRISMATIC:
        for (int k = 0; k < 3; k++) d[k] = j->axis[k] * v[0];
        break;
    case ARBOR_URDF_FLOATING: {
        double len = sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
        for (int k = 0; k < 4; k++) m[k] = v[3 + k] / len;
        memcpy(d, v, sizeof d);
        break;
    }
    }
    quat_rotate(t, j->rot, d);
    for (int k = 0; k < 3; k++) t[k] += j->xyz[k];
    quat_mul(r, j->rot, m);
}

/* q (dof values) checked into out: finite, within limits (or clamped), floating quaternions
   not zero. row >= 0 names a row of a batch. */
static arbor_result check(const arbor_urdf *R, const char *func, int64_t row, const double *q, double *out) {
    char where[40] = ""; /* written when a refusal needs it */
#define WHERE (row >= 0 ? (snprintf(where, sizeof where, "row %lld: ", (long long)row), where) : where)
    for (uint32_t k = 0; k < R->m.joint_count; k++) {
        const arbor__urdf_joint *j = &R->m.joints[k];
        if (j->position_index < 0) continue;
        const double *v = q + j->position_index;
        double *o = out + j->position_index;
        for (uint32_t i = 0; i < j->position_count; i++) {
            if (!isfinite(v[i]))
                return arbor__fail(ARBOR_ERR_NONFINITE, func, "%sjoint '%s' (position %d): %g is not a finite value", WHERE,
                                   j->name, j->position_index + (int)i, v[i]);
            o[i] = v[i];
        }
        if (j->has_limits && !(v[0] >= j->lower && v[0] <= j->upper)) {
            if (!R->clamp)
                return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%sjoint '%s' (position %d): %.9g is outside its limits [%.9g, %.9g]",
                                   WHERE, j->name, j->position_index, v[0], j->lower, j->upper);
            o[0] = v[0] < j->lower ? j->lower : j->upper;
        }
        if (j->type == ARBOR_URDF_FLOATING && !(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6] > 0))
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%sjoint '%s' (positions %d to %d): the quaternion is zero", WHERE,
                               j->name, j->position_index + 3, j->position_index + 6);
    }
    return ARBOR_OK;
#undef WHERE
}

/* A batch's row q is good as it is: finite, within limits unless clamping, no floating joint
   (else check() decides and says why). lo <= q <= hi four positions at a time (a NaN fails
   both), the last four read again for a dof not a multiple of four; no copy. */
ARBOR__DISPATCH static bool row_ok(const arbor_urdf *R, const double *q) {
    const uint32_t n = R->m.dof;
    if (R->floating) return false;
    if (n < LANES) {
        bool ok = true;
        for (uint32_t p = 0; p < n; p++) ok &= q[p] >= R->lo[p] && q[p] <= R->hi[p];
        return ok;
    }
    v4i good = { -1, -1, -1, -1 };
    for (uint32_t p = 0; p < n; p += LANES) {
        const uint32_t at = p + LANES <= n ? p : n - LANES; /* the last four again */
        v4 x, lo, hi;
        memcpy(&x, q + at, sizeof x), memcpy(&lo, R->lo + at, sizeof lo), memcpy(&hi, R->hi + at, sizeof hi);
        good &= (x >= lo) & (x <= hi);
    }
    return (good[0] & good[1] & good[2] & good[3]) != 0;
}

/* ---- load ------------------------------------------------------------------------------------- */

/* The trs of link i at checked positions q. */
static arbor_trs link_trs(const arbor_urdf *R, uint32_t i, const double *q) {
    arbor_trs trs = { .rotation = { 0, 0, 0, 1 }, .scale = { 1, 1, 1 } };
    const fk_link *f = &R->fk[i];
    if (f->kind == FK_ROOT) return trs;
    const arbor__urdf_joint *j = &R->m.joints[f->joint];
    double t[3], r[4], x = f->kind == FK_TURN || f->kind == FK_SLIDE ? f->multiplier * q[f->index] + f->offset : 0;
    if (f->kind == FK_TURN) { /* the origin's xyz; its rotation times (axis sin, cos), bilinear: rot cos + rot (axis, 0) sin */
        double sh, ch;
        sincos_of(x / 2, &sh, &ch);
        for (int c = 0; c < 4; c++) r[c] = j->rot[c] * ch + f->turned[c] * sh;
        memcpy(t, j->xyz, sizeof t);
    } else if (f->kind == FK_SLIDE || f->kind == FK_FIXED) { /* the origin's rotation; its xyz plus the turned axis x */
        memcpy(r, j->rot, sizeof r);
        for (int c = 0; c < 3; c++) t[c] = j->xyz[c] + f->turned[c] * x;
    } else {
        joint_local(j, q + j->position_index, t, r);
    }
    for (int c = 0; c < 3; c++) trs.translation[c] = (arbor_real)t[c];
    for (int c = 0; c < 4; c++) trs.rotation[c] = (arbor_real)r[c];
    return trs;
}

/* The box in its link's frame of geometry g (a box, cylinder or sphere; false for a mesh): its
   centre +- the half extents of the shape turned by its origin's rotation R. */
static bool shape_box(const arbor__urdf_geometry *g, double lo[3], double hi[3]) {
    if (g->shape == ARBOR_URDF_MESH) return false;
    const double *o = g->origin, *z = g->size;
    for (int i = 0; i < 3; i++) {
        const double *R = o + 4 * i;
        double h = g->shape == ARBOR_URDF_SPHERE ? z[0]
                   : g->shape == ARBOR_URDF_BOX  ? (fabs(R[0]) * z[0] + fabs(R[1]) * z[1] + fabs(R[2]) * z[2]) / 2
                                                 : z[0] * sqrt(fmax(0, 1 - R[2] * R[2])) + z[1] / 2 * fabs(R[2]);
        lo[i] = R[3] - h, hi[i] = R[3] + h;
    }
    return true;
}

/* Each link's bounds: the union of its shapes' boxes (geometry is in link order). */
static arbor_result set_bounds(arbor_scene *s, const arbor__urdf_model *m, const arbor_node *nodes) {
    for (uint32_t g = 0; g < m->geometry_count;) {
        uint32_t link = m->geometry[g].link;
        double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY }, a[3], b[3];
        for (; g < m->geometry_count && m->geometry[g].link == link; g++)
            if (shape_box(&m->geometry[g], a, b))
                for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], a[k]), hi[k] = fmax(hi[k], b[k]);
        if (!(lo[0] <= hi[0])) continue;
        arbor_real min[3] = { (arbor_real)lo[0], (arbor_real)lo[1], (arbor_real)lo[2] };
        arbor_real max[3] = { (arbor_real)hi[0], (arbor_real)hi[1], (arbor_real)hi[2] };
        arbor_result r = arbor_node_set_bounds(s, nodes[link], min, max);
        if (r) return r;
    }
    return ARBOR_OK;
}

/* The batch's program of R's model, and each position's limits. */
static void fk_compile(arbor_urdf *R) {
    for (uint32_t p = 0; p < R->m.dof; p++) R->lo[p] = -DBL_MAX, R->hi[p] = DBL_MAX;
    for (uint32_t i = 0; i < R->m.link_count; i++) {
        fk_link *f = &R->fk[i];
        int32_t k = R->m.link_joint[i];
        *f = (fk_link){ .parent = R->m.link_parent[i], .index = -1, .kind = FK_ROOT, .multiplier = 1, .lo = -INFINITY, .hi = INFINITY };
        if (k < 0) continue;
        const arbor__urdf_joint *j = &R->m.joints[k], *master = j->mimic >= 0 ? &R->m.joints[j->mimic] : j;
        memcpy(f->origin, j->origin, sizeof f->origin);
        memcpy(f->axis, j->axis, sizeof f->axis);
        f->joint = (uint32_t)k;
        f->index = master->position_index;
        f->multiplier = j->multiplier, f->offset = j->offset;
        if (master->has_limits) f->lo = master->lower, f->hi = master->upper;
        if (j->has_limits && j->position_index >= 0 && !R->clamp) R->lo[j->position_index] = j->lower, R->hi[j->position_index] = j->upper;
        R->floating |= j->type == ARBOR_URDF_FLOATING;
        f->kind = j->type == ARBOR_URDF_FIXED ? FK_FIXED
                  : j->type == ARBOR_URDF_PRISMATIC ? FK_SLIDE
                  : j->type == ARBOR_URDF_REVOLUTE || j->type == ARBOR_URDF_CONTINUOUS ? FK_TURN
                                                                                        : FK_OTHER;
        f->shift = j->rot[0] == 0 && j->rot[1] == 0 && j->rot[2] == 0;
        if (f->kind == FK_TURN) quat_mul(f->turned, j->rot, (const double[4]){ j->axis[0], j->axis[1], j->axis[2], 0 });
        if (f->kind == FK_SLIDE) quat_rotate(f->turned, j->rot, j->axis);
        f->along = 3;
        for (uint8_t a = 0; a < 3; a++)
            if (fabs(j->axis[a]) == 1 && j->axis[(a + 1) % 3] == 0 && j->axis[(a + 2) % 3] == 0)
                f->along = a, f->negative = j->axis[a] < 0;
    }
    for (uint32_t i = 0; i < R->m.link_count; i++) {
        fk_link *f = &R->fk[i];
        f->leaf = true;
#if !ARBOR_REAL_IS_DOUBLE
        for (int e = 0; e < 12; e++) f->lane.origin[e] = (float)f->origin[e];
        for (int e = 0; e < 3; e++) f->lane.axis[e] = (float)f->axis[e];
#endif
    }
    for (uint32_t i = 0; i < R->m.link_count; i++)
        if (R->fk[i].parent >= 0) R->fk[R->fk[i].parent].leaf = false;
}

/* The scene path's program: a step a pose entry that moves, in entry order within each kind.
   A turn writes only its entry's rotation, a slide only its translation (the rest stays as
   written at load); floating and planar joints go through link_trs. */
typedef struct pose_step {
    double rot[4], turned[4]; /* turn: rotation rot cos(x/2) + turned sin(x/2); slide: translation
                                 rot[0..2] (the origin's xyz) + turned[0..2] x (link_trs's terms) */
    double multiplier, offset; /* x = multiplier * q[index] + offset */
    int32_t index;
    uint32_t entry, link;
    uint8_t along;            /* a turn about +-coordinate axis `along` (exactly) from an origin that
                                 does not turn: its rotation's components there and w, the others
                                 zero; else 3 */
} pose_step;

static void make_steps(arbor_urdf *R) {
    static const uint8_t kinds[3] = { FK_TURN, FK_SLIDE, FK_OTHER };
    uint32_t n = 0, *ends[3] = { &R->turns, &R->slides, &R->step_count };
    for (int k = 0; k < 3; k++) {
        for (uint32_t e = 0; e + 1 < R->m.link_count; e++) {
            const fk_link *f = &R->fk[R->pose_link[e]];
            if (f->kind != kinds[k]) continue;
            const arbor__urdf_joint *j = &R->m.joints[f->joint];
            pose_step *p = &R->steps[n++];
            *p = (pose_step){ .multiplier = f->multiplier, .offset = f->offset, .index = f->index, .entry = e,
                              .link = R->pose_link[e], .along = 3 };
            memcpy(p->turned, f->turned, sizeof p->turned);
            if (f->kind == FK_TURN) memcpy(p->rot, j->rot, sizeof p->rot);
            else memcpy(p->rot, j->xyz, sizeof j->xyz);
            if (f->kind == FK_TURN && f->along < 3 && j->rot[0] == 0 && j->rot[1] == 0 && j->rot[2] == 0 && j->rot[3] == 1)
                p->along = f->along; /* turned is then (+-1 there, 0 elsewhere): the same values */
        }
        if (k == 0) /* the turns in whole groups of four: the last repeated (its entry written twice, the same) */
            for (; n % LANES; n++) R->steps[n] = R->steps[n - 1];
        *ends[k] = n;
    }
}

/* The rotations of the turns st[0..n) (n a multiple of four) at values v into their entries,
   four sines and cosines at a time (sincos4: the same bits as sincos_of). */
ARBOR__DISPATCH static void pose_turns(const pose_step *st, uint32_t n, const double *v, arbor_trs *trs) {
    for (uint32_t t = 0; t < n; t += LANES) {
        v4 h, sh, ch;
        ARBOR__UNROLL for (int l = 0; l < LANES; l++) {
            const pose_step *p = st + t + l;
            h[l] = (p->multiplier * v[p->index] + p->offset) / 2;
        }
        sincos4(&h, &sh, &ch);
        ARBOR__UNROLL for (int l = 0; l < LANES; l++) {
            const pose_step *p = st + t + l;
            arbor_real *r = trs[p->entry].rotation;
            if (p->along < 3) {
                r[p->along] = (arbor_real)(p->turned[p->along] * sh[l]);
                r[3] = (arbor_real)ch[l];
            } else {
                v4 rot, turned;
                memcpy(&rot, p->rot, sizeof rot);
                memcpy(&turned, p->turned, sizeof turned);
                const vr q = __builtin_convertvector(rot * ch[l] + turned * sh[l], vr);
                memcpy(r, &q, sizeof q);
            }
        }
    }
}

static bool node_less(const void *ctx, uint32_t a, uint32_t b) {
    const arbor_node *n = ctx;
    return n[a].id < n[b].id;
}

/* The robot of model m in s: nodes, pose, ring. Frees m when it fails. */
static arbor_result make(arbor_scene *s, const char *func, arbor__urdf_model *m, const arbor_urdf_options *options,
                         arbor_urdf **out) {
    const arbor_allocator *a = &s->allocator;
    uint32_t L = m->link_count;
    size_t bytes = sizeof(arbor_urdf) + sizeof(arbor_node) * L + sizeof(uint32_t) * L + sizeof(double) * 4 * m->dof +
                   (sizeof(fk_link) + sizeof(pose_step)) * L + sizeof(pose_step) * (LANES - 1);
    size_t scratch_bytes = (sizeof(arbor_node_desc) + sizeof(arbor_trs) + sizeof(int32_t) + 2 * sizeof(uint32_t)) * L;
    char *block = arbor__alloc_with(a, bytes), *scratch = arbor__alloc_with(a, scratch_bytes);
    if (!block || !scratch) {
        arbor__free_with(a, block, bytes);
        arbor__free_with(a, scratch, scratch_bytes);
        arbor__free_with(a, m->block, m->bytes);
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, func, "no memory for a robot of %u links", L);
    }
    memset(block, 0, bytes);
    arbor_urdf *R = (arbor_urdf *)block;
    R->m = *m;
    R->bytes = bytes;
    R->clamp = options && options->clamp;
    R->link_node = (arbor_node *)(block + sizeof *R); /* 8-byte members first, then the 4-byte ones */
    R->q = (double *)(R->link_node + L);
    R->work = R->q + m->dof;
    R->lo = R->work + m->dof;
    R->hi = R->lo + m->dof;
    R->fk = (fk_link *)(R->hi + m->dof);
    R->steps = (pose_step *)(R->fk + L);
    R->pose_link = (uint32_t *)(R->steps + L + LANES - 1);
    fk_compile(R);
    memcpy(R->q, m->start, sizeof(double) * m->dof);
    arbor_node_desc *desc = (arbor_node_desc *)scratch;
    arbor_trs *trs = (arbor_trs *)(desc + L);
    int32_t *parents = (int32_t *)(trs + L);
    uint32_t *by_node = (uint32_t *)(parents + L), *by_entry = by_node + L;
    for (uint32_t i = 0; i < L; i++) {
        trs[i] = link_trs(R, i, R->q);
        desc[i] = (arbor_node_desc){ .name = m->link_name[i] };
        memcpy(desc[i].translation, trs[i].translation, sizeof trs[i].translation);
        memcpy(desc[i].rotation, trs[i].rotation, sizeof trs[i].rotation);
        parents[i] = m->link_parent[i];
    }
    arbor_result r = arbor_scene_create_nodes(s, desc, parents, L, R->link_node);
    if (!r) {
        if (L > 1) r = arbor_pose_create(s, R->link_node + 1, L - 1, &R->pose);
        if (!r && (r = set_bounds(s, m, R->link_node))) arbor_pose_destroy(R->pose);
        if (r) arbor_node_destroy(s, R->link_node[0]);
    }
    if (r) {
        char why[512]; /* before the model's block, which holds the name, is freed */
        snprintf(why, sizeof why, "robot '%s': %s", m->name, arbor_last_error());
        arbor__free_with(a, scratch, scratch_bytes);
        arbor__free_with(a, m->block, m->bytes);
        arbor__free_with(a, block, bytes);
        return arbor__fail(r, func, "%s", why);
    }
    if (R->pose) { /* each entry's link: the entries and the links sorted by handle, side by side */
        const arbor_node *entry = arbor_pose_nodes(R->pose);
        arbor__urdf_sort(by_node, L - 1, node_less, R->link_node + 1);
        arbor__urdf_sort(by_entry, L - 1, node_less, entry);
        for (uint32_t e = 0; e < L - 1; e++) R->pose_link[by_entry[e]] = by_node[e] + 1;
        /* every entry once, as set_positions writes it (the nodes' stored TRS are normalised, these
           not); from now on only what moves */
        arbor_trs *entries = arbor_pose_trs(R->pose);
        for (uint32_t e = 0; e < L - 1; e++) entries[e] = link_trs(R, R->pose_link[e], R->q);
        make_steps(R);
    }
    arbor__free_with(a, scratch, scratch_bytes);
    R->s = s;
    arbor__dependent_join(s, &R->dep, detach);
    *out = R;
    return ARBOR_OK;
}

static arbor_result load(arbor_scene *s, const char *func, const char *file, const void *data, size_t size,
                         const arbor_urdf_options *options, arbor_urdf **out) {
    arbor__urdf_model m;
    arbor_result r = arbor__urdf_parse(&s->allocator, func, file, data, size, &m);
    return r ? r : make(s, func, &m, options, out);
}

/* Only a regular file is opened, without blocking (a FIFO put there is refused, not waited on). */
arbor_result arbor_urdf_load(arbor_scene *s, const char *path, const arbor_urdf_options *options, arbor_urdf **out) {
    static const char func[] = "arbor_urdf_load";
    if (!s || !path || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%s is NULL", !s ? "s" : !path ? "path" : "out");
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    arbor__place at = { .file = path };
    if (fd < 0) return arbor__fail_at(ARBOR_ERR_IO, func, &at, "cannot open: %s", strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return arbor__fail_at(ARBOR_ERR_IO, func, &at, "not a regular file");
    }
    size_t size = (size_t)st.st_size;
    char *data = arbor__alloc_with(&s->allocator, size);
    if (!data) {
        close(fd);
        return arbor__fail_at(ARBOR_ERR_OUT_OF_MEMORY, func, &at, "no memory for its %zu bytes", size);
    }
    size_t got = 0;
    for (ssize_t n = 1; got < size && n > 0; got += n > 0 ? (size_t)n : 0) n = read(fd, data + got, size - got);
    close(fd);
    arbor_result r = got == size ? load(s, func, path, data, size, options, out)
                                 : arbor__fail_at(ARBOR_ERR_IO, func, &at, "read %zu of its %zu bytes", got, size);
    arbor__free_with(&s->allocator, data, size);
    return r;
}

arbor_result arbor_urdf_load_memory(arbor_scene *s, const void *data, size_t size, const char *base_dir,
                                    const arbor_urdf_options *options, arbor_urdf **out) {
    (void)base_dir; /* mesh files are not read yet */
    if (!s || !data || !out)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_urdf_load_memory", "%s is NULL", !s ? "s" : !data ? "data" : "out");
    return load(s, "arbor_urdf_load_memory", NULL, data, size, options, out);
}

void arbor_urdf_destroy(arbor_urdf *R) {
    if (!R) return;
    arbor__dependent_leave(&R->dep);
    arbor_pose_destroy(R->pose);
    const arbor_allocator a = R->dep.allocator;
    arbor__free_with(&a, R->m.block, R->m.bytes);
    arbor__free_with(&a, R, R->bytes);
}

/* ---- links and joints ------------------------------------------------------------------------- */

const char *arbor_urdf_name(const arbor_urdf *R) { return R ? R->m.name : ""; }
uint32_t arbor_urdf_link_count(const arbor_urdf *R) { return R ? R->m.link_count : 0; }
arbor_node arbor_urdf_link_node(const arbor_urdf *R, uint32_t i) {
    return R && i < R->m.link_count ? R->link_node[i] : ARBOR_NONE;
}
const char *arbor_urdf_link_name(const arbor_urdf *R, uint32_t i) {
    return R && i < R->m.link_count ? R->m.link_name[i] : NULL;
}
int32_t arbor_urdf_link_parent(const arbor_urdf *R, uint32_t i) {
    return R && i < R->m.link_count ? R->m.link_parent[i] : -1;
}
arbor_node arbor_urdf_find_link(const arbor_urdf *R, const char *name) {
    int32_t i = R && name ? arbor__urdf_find(R->m.link_name, sizeof *R->m.link_name, R->m.by_name, R->m.link_count, name) : -1;
    return i >= 0 ? R->link_node[i] : ARBOR_NONE;
}
uint32_t arbor_urdf_joint_count(const arbor_urdf *R) { return R ? R->m.joint_count : 0; }
int32_t arbor_urdf_find_joint(const arbor_urdf *R, const char *name) {
    return R && name ? arbor__urdf_find(R->m.joints, sizeof *R->m.joints, R->m.joint_by_name, R->m.joint_count, name) : -1;
}
uint32_t arbor_urdf_dof(const arbor_urdf *R) { return R ? R->m.dof : 0; }
uint32_t arbor_urdf_geometry_count(const arbor_urdf *R) { return R ? R->m.geometry_count : 0; }

/* The checks of a call that reads item i of R's `count` (joints, geometry) into out. */
static arbor_result item_checks(const arbor_urdf *R, const void *out, const char *func, uint32_t i, uint32_t count,
                                const char *what, const char *many) {
    if (!R || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%s is NULL", !R ? "robot" : "out");
    if (!R->s) return arbor__inert(func);
    if (i >= count) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%s %u: robot '%s' has %u %s", what, i, R->m.name, count, many);
    return ARBOR_OK;
}

arbor_result arbor_urdf_geometry_info(const arbor_urdf *R, uint32_t i, arbor_urdf_geometry *out) {
    arbor_result r = item_checks(R, out, "arbor_urdf_geometry_info", i, R ? R->m.geometry_count : 0, "geometry",
                                 "visual and collision elements");
    if (r) return r;
    const arbor__urdf_geometry *g = &R->m.geometry[i];
    *out = (arbor_urdf_geometry){ .link = g->link, .collision = g->collision, .shape = g->shape, .mesh = g->mesh };
    memcpy(out->origin_xyz, g->xyz, sizeof g->xyz);
    memcpy(out->origin_rpy, g->rpy, sizeof g->rpy);
    memcpy(out->size, g->size, sizeof g->size);
    return ARBOR_OK;
}

arbor_result arbor_urdf_joint_info(const arbor_urdf *R, uint32_t i, arbor_urdf_joint *out) {
    arbor_result r = item_checks(R, out, "arbor_urdf_joint_info", i, R ? R->m.joint_count : 0, "joint", "joints");
    if (r) return r;
    const arbor__urdf_joint *j = &R->m.joints[i];
    *out = (arbor_urdf_joint){ .name = j->name, .type = j->type, .has_limits = j->has_limits, .lower = j->lower,
                               .upper = j->upper, .parent_link = j->parent, .child_link = j->child,
                               .parent = R->link_node[j->parent], .child = R->link_node[j->child], .mimic = j->mimic,
                               .multiplier = j->multiplier, .offset = j->offset, .position_count = j->position_count,
                               .position_index = j->position_index };
    memcpy(out->axis, j->axis, sizeof j->axis);
    memcpy(out->origin_xyz, j->xyz, sizeof j->xyz);
    memcpy(out->origin_rpy, j->rpy, sizeof j->rpy);
    return ARBOR_OK;
}

/* ---- positions -------------------------------------------------------------------------------- */

arbor_result arbor_urdf_positions(const arbor_urdf *R, double *out, uint32_t cap) {
    static const char func[] = "arbor_urdf_positions";
    if (!R || (!out && R->m.dof)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%s is NULL", !R ? "robot" : "out");
    if (!R->s) return arbor__inert(func);
    if (cap < R->m.dof)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "cap %u: robot '%s' has %u positions", cap, R->m.name, R->m.dof);
    if (R->m.dof) memcpy(out, R->q, sizeof(double) * R->m.dof);
    return ARBOR_OK;
}

/* Checks q, then writes it through the pose: applied now (time NULL), or recorded at *time
   (time.h), where q becomes the current positions only when no later time was recorded. */
static arbor_result set_positions(arbor_urdf *R, const char *func, const double *q, const double *time) {
    arbor_result r = ARBOR_OK;
    const double *v = q; /* the values used: q as given, or checked (clamped) into work */
    if (!(R->m.dof && !R->clamp && row_ok(R, q))) {
        if ((r = check(R, func, -1, q, R->work))) return r;
        v = R->work;
    }
    if (R->pose) {
        arbor_trs *trs = arbor_pose_trs(R->pose);
        pose_turns(R->steps, R->turns, v, trs);
        for (uint32_t k = R->turns; k < R->slides; k++) {
            const pose_step *p = &R->steps[k];
            double x = p->multiplier * v[p->index] + p->offset;
            for (int c = 0; c < 3; c++) trs[p->entry].translation[c] = (arbor_real)(p->rot[c] + p->turned[c] * x);
        }
        for (uint32_t k = R->slides; k < R->step_count; k++) trs[R->steps[k].entry] = link_trs(R, R->steps[k].link, v);
        if ((r = time ? arbor_pose_record(R->pose, *time) : arbor_pose_apply(R->pose, NULL))) return r;
    }
    if (time && R->recorded && *time < R->latest) return ARBOR_OK; /* a late sample: history only */
    if (time) {
        R->recorded = true;
        R->latest = *time;
    }
    if (R->m.dof) memcpy(R->q, v, sizeof(double) * R->m.dof);
    return ARBOR_OK;
}

/* The checks of a call that takes all dof values, then set_positions. */
static arbor_result all_positions(arbor_urdf *R, const char *func, const double *q, uint32_t count, const double *time) {
    if (!R || (!q && count)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%s is NULL", !R ? "robot" : "q");
    if (!R->s) return arbor__inert(func);
    if (count != R->m.dof)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%u values: robot '%s' takes %u", count, R->m.name, R->m.dof);
    return set_positions(R, func, q, time);
}

arbor_result arbor_urdf_set_positions(arbor_urdf *R, const double *q, uint32_t count) {
    return all_positions(R, "arbor_urdf_set_positions", q, count, NULL);
}

arbor_result arbor_urdf_record_positions(arbor_urdf *R, double time, const double *q, uint32_t count) {
    return all_positions(R, "arbor_urdf_record_positions", q, count, &time);
}

arbor_result arbor_urdf_set_position(arbor_urdf *R, const char *joint, double value) {
    static const char func[] = "arbor_urdf_set_position";
    if (!R || !joint) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%s is NULL", !R ? "robot" : "joint");
    if (!R->s) return arbor__inert(func);
    int32_t k = arbor_urdf_find_joint(R, joint);
    if (k < 0) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "robot '%s' has no joint '%s'", R->m.name, joint);
    const arbor__urdf_joint *j = &R->m.joints[k];
    if (j->position_count != 1)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "joint '%s' %s", joint,
                           j->mimic >= 0 ? "is a mimic joint: set its master" : j->position_count ? "takes more than one value" : "is fixed");
    /* the current positions with the one value changed */
    double *q = arbor__alloc_with(&R->dep.allocator, sizeof(double) * R->m.dof);
    if (!q) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, func, "no memory");
    memcpy(q, R->q, sizeof(double) * R->m.dof);
    q[j->position_index] = value;
    arbor_result r = set_positions(R, func, q, NULL);
    arbor__free_with(&R->dep.allocator, q, sizeof(double) * R->m.dof);
    return r;
}

/* ---- forward kinematics ---------------------------------------------------------------------- */

/* The rows of a rotation about coordinate axis k (columns i, j = k+1, k+2 turn: (A R)_i =
   c A_i + s A_j), and of a slide along column k, on A's registers (constant columns). */
#define TURN_COLUMNS(i, j)                                                                                              \
    ARBOR__UNROLL for (int r = 0; r < 3; r++) {                                                                        \
        const vk ai = A[4 * r + (i)], aj = A[4 * r + (j)];                                                            \
        A[4 * r + (i)] = c * ai + sn * aj;                                                                             \
        A[4 * r + (j)] = c * aj - sn * ai;                                                                             \
    }
#define SLIDE_COLUMN(k) ARBOR__UNROLL for (int r = 0; r < 3; r++) A[4 * r + 3] += d * (f->negative ? -A[4 * r + (k)] : A[4 * r + (k)]);

/* Floating and planar joints: A (w's rows) times the motion's rows, lane by lane. */
static void other_lanes(const arbor_urdf *R, const fk_link *f, const double *const q[FK_LANES], vk *A) {
    arbor__urdf_joint motion = R->m.joints[f->joint]; /* without its origin, already in A */
    memset(motion.xyz, 0, sizeof motion.xyz);
    memcpy(motion.rot, (const double[4]){ 0, 0, 0, 1 }, sizeof motion.rot);
    for (int l = 0; l < FK_LANES; l++) {
        double t[3], rq[4], m[12], B[12];
        joint_local(&motion, q[l] + motion.position_index, t, rq); /* a floating joint's quaternion normalised there */
        arbor__urdf_rows(m, rq, t);
        for (int e = 0; e < 12; e++) B[e] = A[e][l];
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 4; col++)
                A[4 * r + col][l] = (fk_real)(B[4 * r] * m[col] + B[4 * r + 1] * m[4 + col] + B[4 * r + 2] * m[8 + col] +
                                              (col == 3 ? B[4 * r + 3] : 0));
    }
}

/* Link rows A (12 rows of FK_LANES lanes) to each used lane's column-major out matrix at
   o[l] + at. */
#if ARBOR_REAL_IS_DOUBLE
/* Four rows of lanes to four lanes of rows (the out matrices' columns), by shuffles. */
typedef int64_t vmask __attribute__((vector_size(LANES * sizeof(int64_t))));
#if defined(__clang__)
#define SHUFFLE(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define SHUFFLE(a, b, i, j, k, l) __builtin_shuffle(a, b, (vmask){ i, j, k, l })
#endif
ARBOR__HOT void transpose(const vr *ap, const vr *bp, const vr *cp, const vr *dp, vr out[LANES]) {
    const vr a = *ap, b = *bp, c = *cp, d = *dp; /* by pointer, as sincos4 */
    vr ab0 = SHUFFLE(a, b, 0, 4, 1, 5), ab1 = SHUFFLE(a, b, 2, 6, 3, 7);
    vr cd0 = SHUFFLE(c, d, 0, 4, 1, 5), cd1 = SHUFFLE(c, d, 2, 6, 3, 7);
    out[0] = SHUFFLE(ab0, cd0, 0, 1, 4, 5), out[1] = SHUFFLE(ab0, cd0, 2, 3, 6, 7);
    out[2] = SHUFFLE(ab1, cd1, 0, 1, 4, 5), out[3] = SHUFFLE(ab1, cd1, 2, 3, 6, 7);
}

ARBOR__HOT void store_lanes(const v4 *A, arbor_real *const o[LANES], size_t at, int used) {
    ARBOR__UNROLL for (int col = 0; col < 4; col++) {
        const vr r3 = (vr){ 0, 0, 0, 0 } + (col == 3 ? 1.0 : 0.0); /* row 3 of every lane */
        vr lane[LANES];
        transpose(&A[col], &A[4 + col], &A[8 + col], &r3, lane);
        for (int l = 0; l < used; l++) memcpy(o[l] + at + 4 * col, &lane[l], sizeof lane[l]);
    }
}
#else
/* Eight rows of lanes to eight lanes of rows, by shuffles (sincos_lanes' SHUFFLE8): pairs
   within 128-bit halves, then quads, then halves across (the SSE2 variant's halves are
   registers of their own). */
ARBOR__HOT void transpose8(const vk row[FK_LANES], vk out[FK_LANES]) {
    vk t[FK_LANES], u[FK_LANES];
    ARBOR__UNROLL for (int p = 0; p < 8; p += 2) {
        t[p] = SHUFFLE8(row[p], row[p + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[p + 1] = SHUFFLE8(row[p], row[p + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    ARBOR__UNROLL for (int h = 0; h < 8; h += 4) { /* u[h + l]: lanes l and l + 4 of rows h .. h + 3 */
        u[h] = SHUFFLE8(t[h], t[h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        u[h + 1] = SHUFFLE8(t[h], t[h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        u[h + 2] = SHUFFLE8(t[h + 1], t[h + 3], 0, 1, 8, 9, 4, 5, 12, 13);
        u[h + 3] = SHUFFLE8(t[h + 1], t[h + 3], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    ARBOR__UNROLL for (int l = 0; l < 4; l++) {
        out[l] = SHUFFLE8(u[l], u[4 + l], 0, 1, 2, 3, 8, 9, 10, 11);
        out[l + 4] = SHUFFLE8(u[l], u[4 + l], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

/* Two columns of a lane's matrix are eight floats: the rows of columns 2h and 2h + 1 (row 3
   the constant 0 0 0 1) transposed give each lane's two columns, one store. */
ARBOR__HOT void store_lanes(const vk *A, arbor_real *const o[FK_LANES], size_t at, int used) {
    ARBOR__UNROLL for (int h = 0; h < 2; h++) {
        const vk zero = { 0 }, last = zero + (h ? 1.0f : 0.0f);
        const vk row[FK_LANES] = { A[2 * h], A[4 + 2 * h], A[8 + 2 * h], zero, A[2 * h + 1], A[5 + 2 * h], A[9 + 2 * h], last };
        vk lane[FK_LANES];
        transpose8(row, lane);
        if (used == FK_LANES) { /* the common case, unrolled */
            ARBOR__UNROLL for (int l = 0; l < FK_LANES; l++) memcpy(o[l] + at + 8 * h, &lane[l], sizeof lane[l]);
        } else {
            for (int l = 0; l < used; l++) memcpy(o[l] + at + 8 * h, &lane[l], sizeof lane[l]);
        }
    }
}
#endif

/* q[l]: configuration l's positions (checked; clamped here when the robot clamps, a no-op for
   rows within limits, so skipped otherwise); w: the links' world rows, link_count x 12 lanes;
   o[l]: its out matrices, for the first `used` lanes. A link's rows stay in registers from
   its parent's product to its out matrices; they go to w only for its children. */
ARBOR__DISPATCH static void fk_lanes(const arbor_urdf *R, const double *const q[FK_LANES], vk *w, arbor_real *const o[FK_LANES],
                                     int used) {
    const fk_link *f = R->fk;
    const bool clamp = R->clamp;
    for (uint32_t i = 0, L = R->m.link_count; i < L; i++, f++, w += 12) {
        vk A[12]; /* the parent's rows times the origin's, then the motion */
        if (f->kind == FK_ROOT) {
            ARBOR__UNROLL for (int e = 0; e < 12; e++) A[e] = (vk){ 0 } + (fk_real)(e % 5 == 0);
        } else {
            const vk *P = w - 12 * (ptrdiff_t)(i - (uint32_t)f->parent); /* parents come first */
            const fk_real *O = f->lane.origin;
            if (f->shift) {
                ARBOR__UNROLL for (int r = 0; r < 3; r++) {
                    const vk p0 = P[4 * r], p1 = P[4 * r + 1], p2 = P[4 * r + 2];
                    A[4 * r] = p0, A[4 * r + 1] = p1, A[4 * r + 2] = p2;
                    A[4 * r + 3] = p0 * O[3] + p1 * O[7] + p2 * O[11] + P[4 * r + 3];
                }
            } else {
                ARBOR__UNROLL for (int r = 0; r < 3; r++) {
                    const vk p0 = P[4 * r], p1 = P[4 * r + 1], p2 = P[4 * r + 2];
                    A[4 * r] = p0 * O[0] + p1 * O[4] + p2 * O[8];
                    A[4 * r + 1] = p0 * O[1] + p1 * O[5] + p2 * O[9];
                    A[4 * r + 2] = p0 * O[2] + p1 * O[6] + p2 * O[10];
                    A[4 * r + 3] = p0 * O[3] + p1 * O[7] + p2 * O[11] + P[4 * r + 3];
                }
            }
        }
        if (f->kind == FK_TURN || f->kind == FK_SLIDE) {
            vq x;
            ARBOR__UNROLL for (int l = 0; l < FK_LANES; l++) x[l] = q[l][f->index];
            if (clamp)
                for (int l = 0; l < FK_LANES; l++) x[l] = x[l] < f->lo ? f->lo : x[l] > f->hi ? f->hi : x[l];
            x = f->multiplier * x + f->offset;
            const fk_real *a = f->lane.axis;
            if (f->kind == FK_SLIDE) {
                const vk d = __builtin_convertvector(x, vk);
                switch (f->along) {
                case 0: SLIDE_COLUMN(0); break;
                case 1: SLIDE_COLUMN(1); break;
                case 2: SLIDE_COLUMN(2); break;
                default:
                    ARBOR__UNROLL for (int r = 0; r < 3; r++)
                        A[4 * r + 3] += d * (A[4 * r] * a[0] + A[4 * r + 1] * a[1] + A[4 * r + 2] * a[2]);
                }
            } else if (f->along < 3) {
                vk sn, c;
                const vq turn = f->negative ? -x : x;
                sincos_lanes(&turn, &sn, &c);
                switch (f->along) {
                case 0: TURN_COLUMNS(1, 2); break;
                case 1: TURN_COLUMNS(2, 0); break;
                default: TURN_COLUMNS(0, 1); break;
                }
            } else { /* Rodrigues' matrix about the unit axis, then A's rotation times it */
                vk sn, c;
                sincos_lanes(&x, &sn, &c);
                vk u = 1 - c;
                vk m[9] = { c + u * a[0] * a[0], u * a[0] * a[1] - sn * a[2], u * a[0] * a[2] + sn * a[1],
                            u * a[1] * a[0] + sn * a[2], c + u * a[1] * a[1], u * a[1] * a[2] - sn * a[0],
                            u * a[2] * a[0] - sn * a[1], u * a[2] * a[1] + sn * a[0], c + u * a[2] * a[2] };
                ARBOR__UNROLL for (int r = 0; r < 3; r++) {
                    vk a0 = A[4 * r], a1 = A[4 * r + 1], a2 = A[4 * r + 2];
                    ARBOR__UNROLL for (int col = 0; col < 3; col++) A[4 * r + col] = a0 * m[col] + a1 * m[3 + col] + a2 * m[6 + col];
                }
            }
        }
        if (f->kind == FK_OTHER || !f->leaf) ARBOR__UNROLL for (int e = 0; e < 12; e++) w[e] = A[e];
        if (f->kind == FK_OTHER) {
            other_lanes(R, f, q, w);
            ARBOR__UNROLL for (int e = 0; e < 12; e++) A[e] = w[e];
        }
        store_lanes(A, o, 16 * (size_t)i, used);
    }
}

typedef struct fk_job {
    const arbor_urdf *R;
    const double *q;
    uint32_t configs, per_task;
    arbor_real *out;
    vk *scratch; /* per task: link_count * 12 world rows of FK_LANES lanes */
} fk_job;

static void fk_task(void *user, uint32_t task) {
    const fk_job *J = user;
    const arbor_urdf *R = J->R;
    uint32_t L = R->m.link_count, dof = R->m.dof;
    vk *w = J->scratch + (size_t)task * L * 12;
    uint32_t end = (task + 1) * J->per_task < J->configs ? (task + 1) * J->per_task : J->configs;
    for (uint32_t c = task * J->per_task; c < end; c += FK_LANES) {
        const double *q[FK_LANES];
        arbor_real *o[FK_LANES];
        int used = end - c < FK_LANES ? (int)(end - c) : FK_LANES;
        for (int l = 0; l < FK_LANES; l++) { /* lanes past the end repeat the last configuration, unwritten */
            uint32_t k = c + (uint32_t)(l < used ? l : used - 1);
            q[l] = J->q + (size_t)k * dof, o[l] = J->out + (size_t)k * L * 16;
        }
        fk_lanes(R, q, w, o, used);
    }
}

arbor_result arbor_urdf_forward_kinematics_parallel(const arbor_urdf *R, const double *q, uint32_t configs,
                                                    arbor_real *out, const arbor_executor *executor) {
    static const char func[] = "arbor_urdf_forward_kinematics";
    if (!R || ((!q || !out) && configs))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "%s is NULL", !R ? "robot" : !q ? "q" : "out");
    if (!R->s) return arbor__inert(func);
    if (configs == 0) return ARBOR_OK;
    uint32_t L = R->m.link_count, dof = R->m.dof;
    uint32_t groups = (configs + FK_LANES - 1) / FK_LANES; /* tasks take whole groups of FK_LANES */
    uint32_t tasks = executor && executor->parallel_for ? (groups < 64 ? groups : 64) : 1;
    size_t bytes = sizeof(vk) * ((size_t)L * 12 * tasks + 1) + sizeof(double) * dof; /* + 1: room to align */
    char *block = arbor__alloc_with(&R->dep.allocator, bytes);
    if (!block) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, func, "no memory for %zu bytes of work", bytes);
    vk *scratch = (vk *)(block + (-(uintptr_t)block & (sizeof(vk) - 1)));
    double *checked = (double *)(scratch + (size_t)L * 12 * tasks);
    arbor_result r = ARBOR_OK;
    for (uint32_t c = 0; !r && c < configs; c++)
        if (!row_ok(R, q + (size_t)c * dof)) r = check(R, func, c, q + (size_t)c * dof, checked);
    if (!r) {
        fk_job J = { R, q, configs, (groups + tasks - 1) / tasks * FK_LANES, out, scratch };
        tasks = (configs + J.per_task - 1) / J.per_task;
        if (tasks > 1)
            executor->parallel_for(executor->user, tasks, fk_task, &J);
        else
            fk_task(&J, 0);
    }
    arbor__free_with(&R->dep.allocator, block, bytes);
    return r;
}

arbor_result arbor_urdf_forward_kinematics(const arbor_urdf *R, const double *q, uint32_t configs, arbor_real *out) {
    return arbor_urdf_forward_kinematics_parallel(R, q, configs, out, NULL);
}
