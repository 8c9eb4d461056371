/* SPDX-License-Identifier: MIT */
/* tests/support/model.h: the reference model, the operations and the checks. */
#include "support/model.h"
#include "../../bench/splitmix64.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/ref.h"

#define EPS (sizeof(arbor_real) == sizeof(float) ? (double)FLT_EPSILON : DBL_EPSILON)
#define TOL 64.0                 /* rounding bound factor, see model.h */
#define BIT(code) (1u << (code))
#define DEFAULT_NODES 256u
#define GROW_NODES 9000u
#define VERSIONS_KEPT 64u        /* versions remembered per node ("never had before") */

/* ---- the model ------------------------------------------------------------------------------- */

typedef struct kids {
    int32_t *at;
    uint32_t n, cap;
} kids;

typedef struct mnode {
    arbor_node h;
    bool alive, matrix, locked, has_bounds;
    bool hidden;  /* its own visibility is off (instances.h) */
    bool inside;  /* workspace of outside() */
    bool relaxed; /* an undo, redo or abort may have recomputed it or not: its next version may be
                     new or the same (never an older one) */
    int32_t parent; /* -1: a root */
    kids children;
    arbor_real trs[10]; /* translation, rotation (not zero; not normalised), scale */
    arbor_real m[16];   /* the local, when matrix */
    char *name;
    void *user;
    int32_t mesh;
    arbor_real bounds[6];
    /* versions: the last one read, with its world; whether the world may have changed since */
    uint64_t version;
    bool moved;
    arbor_real world[16];
    uint64_t seen[VERSIONS_KEPT];
    uint32_t nseen;
    /* the model's world and its rounding scale, from model_worlds() */
    double w[16], wabs[16];
    uint32_t depth;
} mnode;

typedef struct model {
    arbor_scene *s;
    model_config cfg;
    model_stats *stats;
    const uint8_t *in;
    size_t size, at;
    mnode *n;        /* every node created, in creation order */
    uint32_t count, live;
    kids roots;
    int32_t *order;  /* live nodes in pre-order (model_worlds) */
    uint32_t norder;
    int32_t *stack;  /* workspace of walks and breadth-first queues (one at a time) */
    uint32_t max_depth;
    bool check_all, large, grown;
    char failure[900];
    arbor_executor serial;
    /* the journal (journal sequences): every edit goes through it, and the model keeps the
       state before each step it can undo (oldest first) and the states redo goes back to */
    arbor_journal *j;
    uint32_t max_steps;
    struct snapshot **undo, **redo, *before; /* before: the state before the running edit */
    uint32_t nundo, nredo, capundo, capredo;
    bool group_open;
    uint32_t group_edits;
    struct snapshot *group_start;
} model;

static bool failed(const model *m) { return m->failure[0] != '\0'; }

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail(model *m, const char *fmt, ...) {
    if (failed(m)) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->failure, sizeof m->failure, fmt, ap);
    va_end(ap);
}

/* In functions that return nothing: record the failure and return. */
#define FAIL(...)                 \
    do {                          \
        fail(m, __VA_ARGS__);     \
        return;                   \
    } while (0)

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return p;
    uint32_t cap2 = *cap ? *cap : 8;
    while (cap2 < need) cap2 *= 2;
    p = realloc(p, (size_t)cap2 * elem);
    if (!p) abort();
    *cap = cap2;
    return p;
}

/* A malloc'd copy of text, or NULL for NULL. */
static char *copy_text(const char *text) {
    if (!text) return NULL;
    char *p = malloc(strlen(text) + 1);
    if (!p) abort();
    return strcpy(p, text);
}

static kids *kids_of(model *m, int32_t parent) { return parent < 0 ? &m->roots : &m->n[parent].children; }

static uint32_t position(const kids *k, int32_t x) {
    for (uint32_t i = 0; i < k->n; i++)
        if (k->at[i] == x) return i;
    abort(); /* the model's own links are broken */
}

/* x into k before `before` (-1: at the end). */
static void insert(kids *k, int32_t x, int32_t before) {
    k->at = grow(k->at, &k->cap, k->n + 1, sizeof *k->at);
    uint32_t at = before < 0 ? k->n : position(k, before);
    memmove(k->at + at + 1, k->at + at, (k->n - at) * sizeof *k->at);
    k->at[at] = x;
    k->n++;
}

static void take_out(kids *k, int32_t x) {
    uint32_t at = position(k, x);
    memmove(k->at + at, k->at + at + 1, (k->n - at - 1) * sizeof *k->at);
    k->n--;
}

/* The live node with handle h, or -1. */
static int32_t lookup(const model *m, arbor_node h) {
    for (uint32_t i = 0; i < m->count; i++)
        if (m->n[i].alive && m->n[i].h.id == h.id) return (int32_t)i;
    return -1;
}

static uint32_t depth_of(const model *m, int32_t x) {
    uint32_t d = 0;
    while (m->n[x].parent >= 0) x = m->n[x].parent, d++;
    return d;
}

static bool is_ancestor(const model *m, int32_t a, int32_t x) {
    while (m->n[x].parent >= 0)
        if ((x = m->n[x].parent) == a) return true;
    return false;
}

/* Visits the subtree of top (top first, pre-order) with fn (may be NULL); returns its height
   below top. */
static uint32_t walk(model *m, int32_t top, void (*fn)(model *, int32_t)) {
    uint32_t sp = 0, height = 0, base = depth_of(m, top);
    m->stack[sp++] = top;
    while (sp) {
        int32_t x = m->stack[--sp];
        uint32_t d = depth_of(m, x) - base;
        if (d > height) height = d;
        if (fn) fn(m, x);
        const kids *k = &m->n[x].children;
        for (uint32_t i = k->n; i-- > 0;) m->stack[sp++] = k->at[i];
    }
    return height;
}

static void mark_moved(model *m, int32_t x) { m->n[x].moved = true; }

static void mark_dead(model *m, int32_t x) {
    mnode *n = &m->n[x];
    n->alive = false;
    m->live--;
    free(n->name);
    n->name = NULL;
}

/* The local in double, and its rounding scale: each column's length in every row of the
   rotation part (a rotation's elements carry errors relative to 1, not to themselves). */
static void local_of(const mnode *n, double l[16], double labs[16]) {
    if (n->matrix) {
        for (int i = 0; i < 16; i++) l[i] = (double)n->m[i];
    } else {
        double t[3], q[4], s[3];
        for (int i = 0; i < 3; i++) t[i] = n->trs[i], s[i] = n->trs[7 + i];
        for (int i = 0; i < 4; i++) q[i] = n->trs[3 + i];
        test_ref_compose(l, t, q, s);
    }
    for (int c = 0; c < 3; c++) {
        double len = sqrt(l[4 * c] * l[4 * c] + l[4 * c + 1] * l[4 * c + 1] + l[4 * c + 2] * l[4 * c + 2]);
        for (int r = 0; r < 3; r++) labs[4 * c + r] = len;
        labs[4 * c + 3] = 0;
    }
    for (int r = 0; r < 3; r++) labs[12 + r] = fabs(l[12 + r]);
    labs[15] = 1;
}

/* Every live node's world, rounding scale and depth, and the pre-order of the live nodes. */
static void model_worlds(model *m) {
    uint32_t sp = 0;
    m->norder = 0;
    for (uint32_t i = m->roots.n; i-- > 0;) m->stack[sp++] = m->roots.at[i];
    while (sp) {
        int32_t x = m->stack[--sp];
        mnode *n = &m->n[x];
        m->order[m->norder++] = x;
        double l[16], labs[16];
        local_of(n, l, labs);
        if (n->parent < 0) {
            memcpy(n->w, l, sizeof l);
            memcpy(n->wabs, labs, sizeof labs);
            n->depth = 0;
        } else {
            const mnode *p = &m->n[n->parent];
            test_ref_mul(n->w, p->w, l);
            test_ref_mul(n->wabs, p->wabs, labs);
            n->depth = p->depth + 1;
        }
        for (uint32_t i = n->children.n; i-- > 0;) m->stack[sp++] = n->children.at[i];
    }
}

/* ---- snapshots, for the journal ------------------------------------------------------------- */

/* What the nodes were (not what was read of them: versions and worlds stay the scene's). */
typedef struct snapshot {
    mnode *n;
    uint32_t count;
    kids roots;
} snapshot;

static kids copy_kids(const kids *k) {
    kids c = {malloc(((size_t)k->n + 1) * sizeof *c.at), k->n, k->n + 1};
    if (!c.at) abort();
    if (k->n) memcpy(c.at, k->at, (size_t)k->n * sizeof *c.at);
    return c;
}

static snapshot *snapshot_take(const model *m) {
    snapshot *sn = malloc(sizeof *sn);
    if (!sn || !(sn->n = malloc(((size_t)m->count + 1) * sizeof *sn->n))) abort();
    sn->count = m->count;
    sn->roots = copy_kids(&m->roots);
    for (uint32_t i = 0; i < m->count; i++) {
        sn->n[i] = m->n[i];
        sn->n[i].children = copy_kids(&m->n[i].children);
        sn->n[i].name = copy_text(m->n[i].name);
    }
    return sn;
}

static void snapshot_free(snapshot *sn) {
    if (!sn) return;
    for (uint32_t i = 0; i < sn->count; i++) {
        free(sn->n[i].children.at);
        free(sn->n[i].name);
    }
    free(sn->roots.at);
    free(sn->n);
    free(sn);
}

/* The nodes as sn has them (nodes made since are dead: held for redo); what was read of them is
   kept, and their next version may be the same or new. */
static void snapshot_restore(model *m, const snapshot *sn) {
    free(m->roots.at);
    m->roots = copy_kids(&sn->roots);
    m->live = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        mnode *n = &m->n[i], keep = *n;
        free(n->children.at);
        free(n->name);
        if (i < sn->count) {
            *n = sn->n[i];
            n->children = copy_kids(&sn->n[i].children);
            n->name = copy_text(sn->n[i].name);
        } else {
            *n = (mnode){.h = keep.h, .parent = -1, .mesh = -1};
        }
        n->version = keep.version;
        n->moved = keep.moved;
        memcpy(n->world, keep.world, sizeof n->world);
        memcpy(n->seen, keep.seen, sizeof n->seen);
        n->nseen = keep.nseen;
        n->relaxed = true;
        m->live += n->alive;
    }
}

static void push(snapshot ***list, uint32_t *count, uint32_t *cap, snapshot *sn) {
    *list = grow(*list, cap, *count + 1, sizeof **list);
    (*list)[(*count)++] = sn;
}

/* A new step, which undo takes back to `before`: the redo history goes, and the oldest steps
   beyond the limit. */
static void add_step(model *m, snapshot *before) {
    while (m->nredo) snapshot_free(m->redo[--m->nredo]);
    push(&m->undo, &m->nundo, &m->capundo, before);
    if (m->nundo > m->max_steps) {
        snapshot_free(m->undo[0]);
        memmove(m->undo, m->undo + 1, --m->nundo * sizeof *m->undo);
    }
}

/* The edit that just succeeded was recorded: as a step of its own, or in the open group. */
static void recorded(model *m) {
    if (!m->j) return;
    if (m->group_open) {
        m->group_edits++;
        return;
    }
    add_step(m, m->before);
    m->before = NULL;
}

/* ---- reading the bytes ----------------------------------------------------------------------- */

static unsigned byte(model *m) { return m->at < m->size ? m->in[m->at++] : 0; }

static unsigned below(model *m, unsigned n) {
    unsigned lo = byte(m), hi = byte(m);
    return n ? (lo | hi << 8) % n : 0;
}

/* A coordinate: mostly small exact values, now and then not a number. */
static arbor_real coordinate(model *m) {
    static const arbor_real nice[] = {0, 1, -1, 0.5f, -0.5f, 2, -2, 0.25f, 3, -3, 10, -10, 0.125f, 1.5f, -0.75f, 4};
    unsigned b = byte(m);
    if (b == 0) return (arbor_real)NAN;
    if (b < 3) return (arbor_real)(b == 1 ? INFINITY : -INFINITY);
    if (b < 128) return nice[b % 16];
    return (arbor_real)((int)((b - 128) << 8 | byte(m)) - 16384) / 2048; /* [-8, 8), exact */
}

/* A scale: near 1 (deep products stay well conditioned), sometimes a mirror, sometimes zero. */
static void scale3(model *m, arbor_real s[3]) {
    static const arbor_real nice[] = {1, 1.25f, 0.8f, 1, 1.5f, 0.75f, 1, -1, -1.25f, 1.125f};
    unsigned b = byte(m);
    for (int i = 0; i < 3; i++) {
        unsigned c = i == 0 || b >= 160 ? byte(m) : (unsigned)-1; /* b >= 160: a value per axis */
        s[i] = c == (unsigned)-1 ? s[0] : c == 0 ? (arbor_real)NAN : c < 6 ? 0 : nice[c % 10];
    }
}

/* A quaternion: multiples of 1/64 (never tiny), sometimes zero or not a number. */
static void rotation(model *m, arbor_real q[4]) {
    unsigned b = byte(m);
    for (int i = 0; i < 4; i++) q[i] = b < 6 ? 0 : (arbor_real)((int)byte(m) - 128) / 64;
    if (b < 2) q[b] = (arbor_real)NAN;
    if (b >= 6 && q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) q[3] = 1;
}

/* A local matrix: a TRS, maybe sheared, maybe singular (a zero column); now and then one with a
   bad last row or a NaN. */
static void matrix(model *m, arbor_real out[16]) {
    unsigned b = byte(m);
    double t[3], q[4], s[3], l[16];
    arbor_real rq[4], rs[3];
    rotation(m, rq);
    scale3(m, rs);
    for (int i = 0; i < 3; i++) t[i] = coordinate(m), s[i] = isfinite(rs[i]) ? rs[i] : 1;
    for (int i = 0; i < 4; i++) q[i] = isfinite(rq[i]) ? rq[i] : 0;
    if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) q[3] = 1;
    for (int i = 0; i < 3; i++) t[i] = isfinite(t[i]) ? t[i] : 0;
    test_ref_compose(l, t, q, s);
    if (b & 1) /* a shear: column 1 += column 0 / 2 */
        for (int r = 0; r < 3; r++) l[4 + r] += l[r] / 2;
    for (int i = 0; i < 16; i++) out[i] = (arbor_real)l[i];
    if (b < 8) out[4 * (b % 3) + (b % 3)] = (arbor_real)NAN;
    else if (b < 16) out[3] = 0.25f;
    else if (b < 40) out[4 * (b % 3)] = out[4 * (b % 3) + 1] = out[4 * (b % 3) + 2] = 0;
}

/* A live node, or -1 when there is none. */
static int32_t pick_live(model *m) {
    if (m->live == 0) return -1;
    uint32_t k = below(m, m->live);
    for (uint32_t i = 0; i < m->count; i++)
        if (m->n[i].alive && k-- == 0) return (int32_t)i;
    return -1;
}

/* A node handle: mostly a live node's, sometimes any the model made (maybe dead), ARBOR_NONE,
   or one no call ever returned. */
static arbor_node pick(model *m) {
    unsigned b = byte(m);
    if (b < 8 || m->count == 0) return ARBOR_NONE;
    if (b < 12) return (arbor_node){(uint64_t)(byte(m) + 1) << 32 | (below(m, m->count + 4) + 1)};
    if (b < 40 || m->live == 0) return m->n[below(m, m->count)].h;
    return m->n[pick_live(m)].h;
}

static const char *const names[] = {"a", "b", "c", "arm", "leg"};

/* A name: none, one of a few (so that paths and finds meet), or one of hundreds of bytes. */
static const char *name_arg(model *m, char buf[400]) {
    unsigned b = byte(m);
    if (b < 64) return NULL;
    if (b < 200) return names[b % 5];
    if (b < 250) {
        snprintf(buf, 400, "n%u", byte(m));
    } else {
        memset(buf, 'x', 399);
        buf[byte(m) + 100] = '\0';
    }
    return buf;
}

/* ---- checks ---------------------------------------------------------------------------------- */

static const char *codes_in(uint32_t refusals) {
    static char text[256];
    text[0] = '\0';
    if (!refusals) return "ARBOR_OK";
    for (int c = 1; c < ARBOR_RESULT_COUNT_; c++)
        if (refusals & BIT(c))
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s\"%s\"", text[0] ? " or " : "",
                     arbor_result_string((arbor_result)c));
    return text;
}

/* got against the refusals that apply (bits of arbor_result): ARBOR_OK when none does, else one
   of them, with a message naming fn. True when the call succeeded. */
static bool expect(model *m, const char *fn, arbor_result got, uint32_t refusals) {
    bool right = refusals ? got > 0 && got < 32 && (refusals & BIT(got)) : got == ARBOR_OK;
    if (!right) {
        fail(m, "%s returned \"%s\" (%s), expected %s", fn, arbor_result_string(got), got ? arbor_last_error() : "",
             codes_in(refusals));
        return false;
    }
    if (got == ARBOR_OK) return true;
    m->stats->refusals++;
    if (!strstr(arbor_last_error(), fn) && !(m->j && strstr(arbor_last_error(), "arbor_journal_")))
        fail(m, "%s refused, but the message is \"%s\"", fn, arbor_last_error());
    return false;
}

/* The refusals of a node argument: none when it names a live node (then *index is that node). */
static uint32_t node_arg(const model *m, arbor_node h, int32_t *index) {
    *index = lookup(m, h);
    return *index >= 0 ? 0 : h.id == 0 ? BIT(ARBOR_ERR_INVALID_ARGUMENT) : BIT(ARBOR_ERR_DEAD_NODE);
}

/* The edits, through the journal in journal sequences (then recorded() after each success). */
static arbor_result create_node(model *m, const arbor_node_desc *d, arbor_node *out) {
    return m->j ? arbor_journal_create_node(m->j, d, out) : arbor_node_create(m->s, d, out);
}
static arbor_result destroy_node(model *m, arbor_node n) {
    return m->j ? arbor_journal_destroy_node(m->j, n) : arbor_node_destroy(m->s, n);
}
static arbor_result set_parent(model *m, arbor_node c, arbor_node p, arbor_node b, arbor_reparent mode) {
    return m->j ? arbor_journal_set_parent(m->j, c, p, b, mode) : arbor_node_set_parent(m->s, c, p, b, mode);
}
static arbor_result set_trs_part(model *m, arbor_node n, int part, const arbor_real v[10]) {
    const arbor_trs trs = {{v[0], v[1], v[2]}, {v[3], v[4], v[5], v[6]}, {v[7], v[8], v[9]}};
    if (m->j)
        return part == 0   ? arbor_journal_set_translation(m->j, n, v[0], v[1], v[2])
               : part == 1 ? arbor_journal_set_rotation(m->j, n, v[3], v[4], v[5], v[6])
               : part == 2 ? arbor_journal_set_scale(m->j, n, v[7], v[8], v[9])
                           : arbor_journal_set_trs(m->j, n, &trs);
    return part == 0   ? arbor_node_set_translation(m->s, n, v[0], v[1], v[2])
           : part == 1 ? arbor_node_set_rotation(m->s, n, v[3], v[4], v[5], v[6])
           : part == 2 ? arbor_node_set_scale(m->s, n, v[7], v[8], v[9])
                       : arbor_node_set_trs(m->s, n, &trs);
}
static arbor_result set_local_matrix(model *m, arbor_node n, const arbor_real mat[16], bool lock) {
    return m->j ? arbor_journal_set_local_matrix(m->j, n, mat, lock) : arbor_node_set_local_matrix(m->s, n, mat, lock);
}
static arbor_result set_name(model *m, arbor_node n, const char *name) {
    return m->j ? arbor_journal_set_name(m->j, n, name) : arbor_node_set_name(m->s, n, name);
}
static arbor_result set_user(model *m, arbor_node n, void *user) {
    return m->j ? arbor_journal_set_user(m->j, n, user) : arbor_node_set_user(m->s, n, user);
}
static arbor_result set_mesh(model *m, arbor_node n, int32_t mesh) {
    return m->j ? arbor_journal_set_mesh(m->j, n, mesh) : arbor_node_set_mesh(m->s, n, mesh);
}
static arbor_result set_visible(model *m, arbor_node n, bool visible) {
    return m->j ? arbor_journal_set_visible(m->j, n, visible) : arbor_node_set_visible(m->s, n, visible);
}
static arbor_result set_bounds(model *m, arbor_node n, const arbor_real *lo, const arbor_real *hi) {
    return m->j ? arbor_journal_set_bounds(m->j, n, lo, hi) : arbor_node_set_bounds(m->s, n, lo, hi);
}
static arbor_result clone(model *m, arbor_node root, arbor_node parent, arbor_node *out) {
    return m->j ? arbor_journal_clone(m->j, m->s, root, parent, out) : arbor_node_clone(m->s, root, parent, out);
}

static bool finite(const arbor_real *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

static bool all_zero(const arbor_real *v, int n) {
    for (int i = 0; i < n; i++)
        if (v[i] != 0) return false;
    return true;
}

/* w (a world matrix read from the scene) against the model's, within the rounding bound times
   factor. */
static bool world_near(model *m, int32_t x, const arbor_real w[16], double factor, const char *what) {
    const mnode *n = &m->n[x];
    for (int e = 0; e < 16; e++) {
        double tol = e % 4 == 3 ? 0 : TOL * EPS * (n->depth + 2) * n->wabs[e] * factor;
        if (!(fabs((double)w[e] - n->w[e]) <= tol)) {
            fail(m, "%s of node %d (depth %u): element %d is %.9g, the model's %.9g (bound %.3g)", what, x, n->depth, e,
                 (double)w[e], n->w[e], tol);
            return false;
        }
    }
    return true;
}

/* Reads node x's world matrix and version and checks them (model_worlds() is current). */
static void check_world(model *m, int32_t x) {
    mnode *n = &m->n[x];
    arbor_real w[16];
    if (!expect(m, "arbor_node_world_matrix", arbor_node_world_matrix(m->s, n->h, w), 0)) return;
    uint64_t v = arbor_node_world_version(m->s, n->h);
    m->stats->worlds_checked++;
    if (!world_near(m, x, w, 1, "the world matrix")) return;
    if (v == 0) FAIL("node %d is live but its version is 0", x);
    if (n->relaxed && v == n->version && memcmp(w, n->world, sizeof w))
        FAIL("node %d: same version after an undo, but the world matrix is not the same bit for bit", x);
    if (n->version && !n->moved && !n->relaxed) {
        if (v != n->version) FAIL("node %d: nothing above it changed, its version went from %llu to %llu", x,
                                         (unsigned long long)n->version, (unsigned long long)v);
        if (memcmp(w, n->world, sizeof w))
            FAIL("node %d: same version, but the world matrix is not the same bit for bit", x);
    }
    for (uint32_t i = 0; i < n->nseen && v != n->version; i++)
        if (n->seen[i] == v)
            FAIL("node %d: its world may have changed, but version %llu came back", x, (unsigned long long)v);
    if (v != n->version) n->seen[n->nseen++ % VERSIONS_KEPT] = v;
    n->version = v;
    n->moved = n->relaxed = false;
    memcpy(n->world, w, sizeof w);
}

static arbor_node handle_of(const model *m, int32_t x) { return x < 0 ? ARBOR_NONE : m->n[x].h; }

/* Everything the scene shows, against the model. */
static void check_scene(model *m, bool all_worlds) {
    arbor_scene *s = m->s;
    model_worlds(m);
    if (arbor_scene_node_count(s) != m->live)
        FAIL("%u nodes, the model has %u", arbor_scene_node_count(s), m->live);
    if (arbor_scene_first_root(s).id != handle_of(m, m->roots.n ? m->roots.at[0] : -1).id ||
        arbor_scene_last_root(s).id != handle_of(m, m->roots.n ? m->roots.at[m->roots.n - 1] : -1).id)
        FAIL("the first or last root differs");
    arbor_node it = arbor_scene_next_node(s, ARBOR_NONE);
    for (uint32_t k = 0; k < m->norder; k++, it = arbor_scene_next_node(s, it))
        if (it.id != m->n[m->order[k]].h.id) FAIL("arbor_scene_next_node: visit %u is not node %d", k, m->order[k]);
    if (it.id) FAIL("arbor_scene_next_node visits more nodes than live");
    /* Sibling links, list by list: the roots, then every live node's children. */
    for (uint32_t i = 0; i <= m->count && !failed(m); i++) {
        if (i < m->count && !m->n[i].alive) continue;
        const kids *k = i < m->count ? &m->n[i].children : &m->roots;
        for (uint32_t j = 0; j < k->n; j++) {
            arbor_node h = m->n[k->at[j]].h;
            if (arbor_node_prev_sibling(s, h).id != handle_of(m, j ? k->at[j - 1] : -1).id ||
                arbor_node_next_sibling(s, h).id != handle_of(m, j + 1 < k->n ? k->at[j + 1] : -1).id)
                FAIL("node %d: a sibling link differs", k->at[j]);
        }
    }
    for (uint32_t i = 0; i < m->count && !failed(m); i++) {
        mnode *n = &m->n[i];
        arbor_node h = n->h;
        if (arbor_node_alive(s, h) != n->alive) FAIL("node %u: alive is %d, the model's %d", i, !n->alive, n->alive);
        if (!n->alive) continue;
        const kids *k = &n->children;
        if (arbor_node_parent(s, h).id != handle_of(m, n->parent).id ||
            arbor_node_first_child(s, h).id != handle_of(m, k->n ? k->at[0] : -1).id ||
            arbor_node_last_child(s, h).id != handle_of(m, k->n ? k->at[k->n - 1] : -1).id)
            FAIL("node %u: the parent, first or last child differs", i);
        if (arbor_node_depth(s, h) != n->depth || arbor_node_child_count(s, h) != k->n)
            FAIL("node %u: depth %u and %u children, the model's %u and %u", i, arbor_node_depth(s, h),
                 arbor_node_child_count(s, h), n->depth, k->n);
        const char *name = arbor_node_name(s, h);
        if (!name != !n->name || (name && strcmp(name, n->name)))
            FAIL("node %u is named \"%.40s\", the model's \"%.40s\"", i, name ? name : "(none)", n->name ? n->name : "(none)");
        if (arbor_node_user(s, h) != n->user || arbor_node_mesh(s, h) != n->mesh)
            FAIL("node %u: user pointer or mesh differs", i);
        bool effective = true;
        for (int32_t a = (int32_t)i; a >= 0; a = m->n[a].parent) effective = effective && !m->n[a].hidden;
        if (arbor_node_visible(s, h) == n->hidden || arbor_node_effectively_visible(s, h) != effective)
            FAIL("node %u: visible %d, effectively %d, the model's %d and %d", i, arbor_node_visible(s, h),
                 arbor_node_effectively_visible(s, h), !n->hidden, effective);
        arbor_real lo[3], hi[3];
        bool has_bounds = arbor_node_bounds(s, h, lo, hi) == ARBOR_OK && lo[0] <= hi[0]; /* none: an empty box */
        if (has_bounds != n->has_bounds ||
            (n->has_bounds && (memcmp(lo, n->bounds, sizeof lo) || memcmp(hi, n->bounds + 3, sizeof hi))))
            FAIL("node %u: bounds differ", i);
        if (arbor_node_is_matrix_backed(s, h) != n->matrix || arbor_node_is_locked(s, h) != n->locked)
            FAIL("node %u: matrix-backed %d locked %d, the model's %d %d", i, arbor_node_is_matrix_backed(s, h),
                 arbor_node_is_locked(s, h), n->matrix, n->locked);
        arbor_trs trs;
        if (!expect(m, "arbor_node_trs", arbor_node_trs(s, h, &trs), 0)) return;
        if (n->matrix) continue; /* the decomposition of the matrix */
        double len = 0;
        for (int c = 3; c < 7; c++) len += (double)n->trs[c] * n->trs[c];
        if (memcmp(trs.translation, n->trs, sizeof trs.translation) || memcmp(trs.scale, n->trs + 7, sizeof trs.scale))
            FAIL("node %u: translation or scale is not what was written", i);
        for (int c = 0; c < 4; c++)
            if (!(fabs(trs.rotation[c] - n->trs[3 + c] / sqrt(len)) <= 8 * EPS))
                FAIL("node %u: rotation[%d] is %.9g, not the one written normalised (%.9g)", i, c,
                     (double)trs.rotation[c], n->trs[3 + c] / sqrt(len));
    }
    if (m->j) {
        arbor_journal_stats st;
        arbor_journal_stats_get(m->j, &st);
        if (st.undo_steps != m->nundo || st.redo_steps != m->nredo)
            FAIL("the journal can undo %u and redo %u steps, the model %u and %u", st.undo_steps, st.redo_steps, m->nundo,
                 m->nredo);
    }
    if (failed(m) || m->norder == 0) return;
    if (all_worlds) {
        for (uint32_t k = 0; k < m->norder && !failed(m); k++) check_world(m, m->order[k]);
    } else { /* two nodes, read lazily: the rest stays as it is for what comes next */
        check_world(m, m->order[(m->at * 7919u) % m->norder]);
        check_world(m, m->order[m->norder - 1]);
    }
}

/* ---- operations ------------------------------------------------------------------------------ */

static void op_create(model *m) {
    static const char *const fn = "arbor_node_create";
    char buf[400];
    arbor_real mat[16];
    arbor_node_desc d = {0};
    d.parent = byte(m) < 48 ? ARBOR_NONE : pick(m);
    d.name = name_arg(m, buf);
    unsigned kind = byte(m);
    if (kind < 48) {
        matrix(m, mat);
        d.matrix = mat;
        d.lock_matrix = kind & 1;
    } else {
        for (int i = 0; i < 3; i++) d.translation[i] = coordinate(m);
        if (kind & 1) rotation(m, d.rotation); /* else zero: identity */
        if (kind & 2) scale3(m, d.scale);      /* else zero: (1, 1, 1) */
    }
    if (byte(m) < 32) d.user = (void *)(uintptr_t)(16 * (m->count + 1));
    if (m->count == m->cfg.max_nodes) return;
    int32_t p = -1;
    uint32_t refusals = d.parent.id ? node_arg(m, d.parent, &p) : 0;
    if (!refusals && p >= 0 && depth_of(m, p) + 1 > m->max_depth) refusals = BIT(ARBOR_ERR_DEPTH_LIMIT);
    if (!refusals && d.matrix)
        refusals = !finite(mat, 16) ? BIT(ARBOR_ERR_NONFINITE)
                   : mat[3] != 0 || mat[7] != 0 || mat[11] != 0 || mat[15] != 1 ? BIT(ARBOR_ERR_INVALID_ARGUMENT) : 0;
    if (!refusals && !d.matrix && (!finite(d.translation, 3) || !finite(d.rotation, 4) || !finite(d.scale, 3)))
        refusals = BIT(ARBOR_ERR_NONFINITE);
    if (!refusals && !d.matrix && !all_zero(d.scale, 3) && (d.scale[0] == 0 || d.scale[1] == 0 || d.scale[2] == 0))
        refusals = BIT(ARBOR_ERR_INVALID_ARGUMENT); /* a scale partly given */
    arbor_node h = ARBOR_NONE;
    if (!expect(m, fn, create_node(m, &d, &h), refusals)) return;
    recorded(m);
    for (uint32_t i = 0; i < m->count; i++)
        if (m->n[i].h.id == h.id) FAIL("%s returned node %u's handle again", fn, i);
    if (!h.id) FAIL("%s returned ARBOR_NONE", fn);
    mnode *n = &m->n[m->count];
    *n = (mnode){.h = h, .alive = true, .parent = p, .mesh = -1, .user = d.user, .moved = true};
    n->name = copy_text(d.name);
    if (d.matrix) {
        memcpy(n->m, mat, sizeof mat);
        n->matrix = true;
        n->locked = d.lock_matrix;
    }
    static const arbor_real identity[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    memcpy(n->trs, identity, sizeof identity);
    if (!d.matrix) {
        memcpy(n->trs, d.translation, sizeof d.translation);
        if (!all_zero(d.rotation, 4)) memcpy(n->trs + 3, d.rotation, sizeof d.rotation);
        if (!all_zero(d.scale, 3)) memcpy(n->trs + 7, d.scale, sizeof d.scale);
    }
    insert(kids_of(m, p), (int32_t)m->count, -1);
    m->count++;
    m->live++;
}

static void op_destroy(model *m) {
    int32_t x;
    arbor_node h = pick(m);
    if (!expect(m, "arbor_node_destroy", destroy_node(m, h), node_arg(m, h, &x))) return;
    recorded(m);
    take_out(kids_of(m, m->n[x].parent), x);
    walk(m, x, mark_dead);
}

static void op_clear(model *m) {
    if (byte(m) >= 64 || m->j) return; /* rarely: it ends what a sequence built (and it bypasses the journal) */
    arbor_scene_clear(m->s);
    while (m->roots.n) {
        int32_t x = m->roots.at[0];
        take_out(&m->roots, x);
        walk(m, x, mark_dead);
    }
}

/* How far a world is from singular: its 3x3 condition number (Frobenius norms), infinite when
   its determinant is small against its column lengths (below 1e-3: as good as singular in
   float); *zero_column when a column is exactly zero (arbor must refuse to invert it). */
static double condition(const double w[16], bool *zero_column) {
    const double *a = w, *b = w + 4, *c = w + 8;
    double cof[9] = {b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0],
                     c[1] * a[2] - c[2] * a[1], c[2] * a[0] - c[0] * a[2], c[0] * a[1] - c[1] * a[0],
                     a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    double det = a[0] * cof[0] + a[1] * cof[1] + a[2] * cof[2], na = 0, ni = 0, lengths = 1;
    *zero_column = false;
    for (int k = 0; k < 3; k++) {
        double len = w[4 * k] * w[4 * k] + w[4 * k + 1] * w[4 * k + 1] + w[4 * k + 2] * w[4 * k + 2];
        *zero_column |= len == 0;
        na += len;
        lengths *= sqrt(len);
    }
    for (int k = 0; k < 9; k++) ni += cof[k] * cof[k];
    return !(fabs(det) >= 1e-3 * lengths) ? INFINITY : sqrt(na) * sqrt(ni) / fabs(det);
}

static void mark_inside(model *m, int32_t x) { m->n[x].inside = true; }

/* A live node outside x's subtree (a parent that makes no ring), or -1 when there is none. */
static int32_t outside(model *m, int32_t x) {
    walk(m, x, mark_inside);
    uint32_t candidates = 0;
    for (uint32_t i = 0; i < m->count; i++) candidates += m->n[i].alive && !m->n[i].inside;
    uint32_t k = below(m, candidates ? candidates : 1);
    int32_t found = -1;
    for (uint32_t i = 0; i < m->count; i++) {
        if (m->n[i].alive && !m->n[i].inside && k-- == 0) found = (int32_t)i;
        m->n[i].inside = false;
    }
    return found;
}

static void op_set_parent(model *m) {
    static const char *const fn = "arbor_node_set_parent";
    arbor_node ch = pick(m), ph = ARBOR_NONE, bh = ARBOR_NONE;
    unsigned pb = byte(m);
    if (pb >= 100 && lookup(m, ch) >= 0) ph = handle_of(m, outside(m, lookup(m, ch)));
    else if (pb >= 40) ph = pick(m);
    unsigned mb = byte(m), bb = byte(m);
    arbor_reparent mode = mb < 6 ? (arbor_reparent)7 : mb & 1 ? ARBOR_KEEP_WORLD : ARBOR_KEEP_LOCAL;
    int32_t c, p = -1, b = -1;
    if (bb >= 192) {
        bh = pick(m);
    } else if (bb < 128 && (!ph.id || lookup(m, ph) >= 0)) { /* a child of the new parent, or the end */
        const kids *k = kids_of(m, ph.id ? lookup(m, ph) : -1);
        uint32_t i = below(m, k->n + 1);
        bh = i < k->n ? m->n[k->at[i]].h : ARBOR_NONE;
    }
    uint32_t refusals = node_arg(m, ch, &c);
    if (ph.id && (p = lookup(m, ph)) < 0) refusals |= BIT(ARBOR_ERR_DEAD_NODE);
    if (!ph.id) p = -1;
    if (bh.id && (b = lookup(m, bh)) < 0) refusals |= BIT(ARBOR_ERR_DEAD_NODE);
    if (mode != ARBOR_KEEP_LOCAL && mode != ARBOR_KEEP_WORLD) refusals |= BIT(ARBOR_ERR_INVALID_ARGUMENT);
    if (!refusals && (p == c || (p >= 0 && is_ancestor(m, c, p)))) refusals = BIT(ARBOR_ERR_CYCLE);
    bool same = false, noop = false, unsure = false;
    double cond = 1, old[16];
    uint32_t old_depth = 0;
    if (!refusals) {
        same = m->n[c].parent == p;
        if (b == c) noop = same, b = same ? b : -1;
        if (!noop && b >= 0 && m->n[b].parent != p) refusals = BIT(ARBOR_ERR_NOT_A_CHILD);
    }
    if (!refusals && !noop && !same) {
        uint32_t depth = p >= 0 ? depth_of(m, p) + 1 : 0;
        if (depth > depth_of(m, c) && depth + walk(m, c, NULL) > m->max_depth) refusals = BIT(ARBOR_ERR_DEPTH_LIMIT);
    }
    if (!refusals && !noop && !same && mode == ARBOR_KEEP_WORLD) {
        model_worlds(m);
        memcpy(old, m->n[c].w, sizeof old);
        old_depth = m->n[c].depth;
        if (p >= 0) {
            bool zero_column;
            cond = condition(m->n[p].w, &zero_column);
            if (zero_column) refusals = BIT(ARBOR_ERR_SINGULAR);
            else unsure = !(cond < 1e3); /* near singular: arbor may refuse or not */
        }
    }
    arbor_result got = set_parent(m, ch, ph, bh, mode);
    if (unsure && got == ARBOR_ERR_SINGULAR) refusals = BIT(ARBOR_ERR_SINGULAR);
    if (!expect(m, fn, got, refusals)) return;
    recorded(m);
    if (noop) return;
    take_out(kids_of(m, m->n[c].parent), c);
    insert(kids_of(m, p), c, b);
    if (same) return; /* a reorder changes no transform */
    m->n[c].parent = p;
    walk(m, c, mark_moved);
    if (mode != ARBOR_KEEP_WORLD) return;
    /* The local arbor chose (TRS, or a matrix for a shear) becomes the model's; the world it
       gives must be the one the node had. */
    mnode *n = &m->n[c];
    arbor_trs trs;
    if (arbor_node_is_locked(m->s, n->h)) FAIL("%s kept the world but left the node locked", fn);
    n->matrix = arbor_node_is_matrix_backed(m->s, n->h);
    n->locked = false;
    if (n->matrix) {
        arbor_node_local_matrix(m->s, n->h, n->m);
    } else {
        arbor_node_trs(m->s, n->h, &trs);
        memcpy(n->trs, trs.translation, sizeof trs.translation);
        memcpy(n->trs + 3, trs.rotation, sizeof trs.rotation);
        memcpy(n->trs + 7, trs.scale, sizeof trs.scale);
    }
    if (unsure) return;
    model_worlds(m);
    double scale = 0;
    for (int e = 0; e < 16; e++) scale = fmax(scale, n->wabs[e]);
    for (int e = 0; e < 16; e++)
        if (!(fabs(n->w[e] - old[e]) <= TOL * EPS * (old_depth + n->depth + 4) * cond * scale))
            FAIL("%s (keep world) moved node %d: element %d was %.9g, is %.9g (condition %.3g)", fn, c, e,
                        old[e], n->w[e], cond);
}

/* TRS writes: part 0 translation, 1 rotation, 2 scale, 3 all. */
static void trs_write(model *m, int part) {
    static const char *const fns[] = {"arbor_node_set_translation", "arbor_node_set_rotation", "arbor_node_set_scale",
                                      "arbor_node_set_trs"};
    static const int at[] = {0, 3, 7, 0}, len[] = {3, 4, 3, 10};
    arbor_node h = pick(m);
    arbor_real v[10];
    for (int i = 0; i < 3; i++) v[i] = coordinate(m);
    rotation(m, v + 3);
    scale3(m, v + 7);
    int32_t x;
    uint32_t refusals = node_arg(m, h, &x);
    if (!refusals && m->n[x].locked) refusals = BIT(ARBOR_ERR_LOCKED);
    const arbor_real *w = v + at[part];
    if (!refusals && !finite(w, len[part])) refusals = BIT(ARBOR_ERR_NONFINITE);
    if (!refusals && (part == 1 || part == 3) && all_zero(v + 3, 4)) refusals = BIT(ARBOR_ERR_INVALID_ARGUMENT);
    arbor_trs before;
    if (!refusals && m->n[x].matrix) arbor_node_trs(m->s, h, &before); /* the matrix's decomposition */
    if (!expect(m, fns[part], set_trs_part(m, h, part, v), refusals)) return;
    recorded(m);
    mnode *n = &m->n[x];
    if (n->matrix) {
        memcpy(n->trs, before.translation, sizeof before.translation);
        memcpy(n->trs + 3, before.rotation, sizeof before.rotation);
        memcpy(n->trs + 7, before.scale, sizeof before.scale);
        n->matrix = false;
    }
    memcpy(n->trs + at[part], w, (size_t)len[part] * sizeof *w);
    walk(m, x, mark_moved);
}

static void op_set_translation(model *m) { trs_write(m, 0); }
static void op_set_rotation(model *m) { trs_write(m, 1); }
static void op_set_scale(model *m) { trs_write(m, 2); }
static void op_set_trs(model *m) { trs_write(m, 3); }

static void op_set_local_matrix(model *m) {
    arbor_node h = pick(m);
    arbor_real mat[16];
    matrix(m, mat);
    bool lock = byte(m) & 1;
    int32_t x;
    uint32_t refusals = node_arg(m, h, &x);
    if (!refusals)
        refusals = !finite(mat, 16) ? BIT(ARBOR_ERR_NONFINITE)
                   : mat[3] != 0 || mat[7] != 0 || mat[11] != 0 || mat[15] != 1 ? BIT(ARBOR_ERR_INVALID_ARGUMENT) : 0;
    if (!expect(m, "arbor_node_set_local_matrix", set_local_matrix(m, h, mat, lock), refusals)) return;
    recorded(m);
    mnode *n = &m->n[x];
    memcpy(n->m, mat, sizeof mat);
    n->matrix = true;
    n->locked = lock;
    walk(m, x, mark_moved);
}

/* Bulk writes of up to four nodes (one part of each: translation, rotation or scale). */
static void op_bulk(model *m) {
    static const char *const fns[] = {"arbor_scene_set_translations", "arbor_scene_set_rotations", "arbor_scene_set_scales"};
    int part = (int)(byte(m) % 3), k = part == 1 ? 4 : 3;
    uint32_t count = byte(m) % 5, refusals = 0;
    arbor_node h[4];
    arbor_real v[16], t[3];
    arbor_trs before[4];
    int32_t x[4];
    for (uint32_t i = 0; i < count; i++) {
        h[i] = pick(m);
        if (part == 0) for (int c = 0; c < 3; c++) t[c] = coordinate(m);
        if (part == 1) rotation(m, v + 4 * i);
        if (part == 2) scale3(m, t);
        if (part != 1) memcpy(v + 3 * i, t, sizeof t);
    }
    if (m->j) return; /* bulk writes bypass the journal */
    for (uint32_t i = 0; i < count && !refusals; i++) { /* the first bad entry is the refusal */
        refusals = node_arg(m, h[i], &x[i]);
        if (!refusals && m->n[x[i]].locked) refusals = BIT(ARBOR_ERR_LOCKED);
        if (!refusals && !finite(v + k * i, k)) refusals = BIT(ARBOR_ERR_NONFINITE);
        if (!refusals && part == 1 && all_zero(v + k * i, 4)) refusals = BIT(ARBOR_ERR_INVALID_ARGUMENT);
        if (!refusals && m->n[x[i]].matrix) arbor_node_trs(m->s, h[i], &before[i]);
    }
    arbor_result got = part == 0   ? arbor_scene_set_translations(m->s, h, v, count)
                       : part == 1 ? arbor_scene_set_rotations(m->s, h, v, count)
                                   : arbor_scene_set_scales(m->s, h, v, count);
    if (!expect(m, fns[part], got, refusals)) return;
    for (uint32_t i = 0; i < count; i++) {
        mnode *n = &m->n[x[i]];
        if (n->matrix) {
            memcpy(n->trs, before[i].translation, sizeof before[i].translation);
            memcpy(n->trs + 3, before[i].rotation, sizeof before[i].rotation);
            memcpy(n->trs + 7, before[i].scale, sizeof before[i].scale);
            n->matrix = false;
        }
        memcpy(n->trs + (part == 0 ? 0 : part == 1 ? 3 : 7), v + k * i, (size_t)k * sizeof *v);
        walk(m, x[i], mark_moved);
    }
}

static void op_set_name(model *m) {
    char buf[400];
    arbor_node h = pick(m);
    const char *name = name_arg(m, buf);
    int32_t x;
    if (!expect(m, "arbor_node_set_name", set_name(m, h, name), node_arg(m, h, &x))) return;
    recorded(m);
    free(m->n[x].name);
    m->n[x].name = copy_text(name);
}

static void op_set_user(model *m) {
    arbor_node h = pick(m);
    void *user = (void *)(uintptr_t)(byte(m) * 16);
    int32_t x;
    if (!expect(m, "arbor_node_set_user", set_user(m, h, user), node_arg(m, h, &x))) return;
    recorded(m);
    m->n[x].user = user;
}

static void op_set_mesh(model *m) {
    arbor_node h = pick(m);
    int32_t mesh = (int32_t)(byte(m) % 8) - 2, x;
    uint32_t refusals = node_arg(m, h, &x);
    if (!refusals && mesh < -1) refusals = BIT(ARBOR_ERR_INVALID_ARGUMENT);
    if (!expect(m, "arbor_node_set_mesh", set_mesh(m, h, mesh), refusals)) return;
    recorded(m);
    m->n[x].mesh = mesh;
}

static void op_set_visible(model *m) {
    arbor_node h = pick(m);
    bool visible = byte(m) % 3 != 0;
    int32_t x;
    uint32_t refusals = node_arg(m, h, &x);
    if (!expect(m, "arbor_node_set_visible", set_visible(m, h, visible), refusals)) return;
    recorded(m);
    m->n[x].hidden = !visible;
}

/* True when node x or an ancestor is hidden. */
static bool model_hidden(const model *m, int32_t x) {
    for (; x >= 0; x = m->n[x].parent)
        if (m->n[x].hidden) return true;
    return false;
}

static void op_set_bounds(model *m) {
    arbor_node h = pick(m);
    unsigned kind = byte(m);
    arbor_real b[6];
    for (int i = 0; i < 6; i++) b[i] = coordinate(m);
    const arbor_real *lo = kind < 16 ? NULL : b, *hi = kind < 8 || (kind >= 16 && kind < 20) ? NULL : b + 3;
    int32_t x;
    uint32_t refusals = node_arg(m, h, &x);
    if (!refusals && !lo != !hi) refusals = BIT(ARBOR_ERR_INVALID_ARGUMENT);
    if (!refusals && lo && !finite(b, 6)) refusals = BIT(ARBOR_ERR_NONFINITE);
    if (!refusals && lo && (b[0] > b[3] || b[1] > b[4] || b[2] > b[5])) refusals = BIT(ARBOR_ERR_INVALID_ARGUMENT);
    if (!expect(m, "arbor_node_set_bounds", set_bounds(m, h, lo, hi), refusals)) return;
    recorded(m);
    m->n[x].has_bounds = lo != NULL;
    if (lo) memcpy(m->n[x].bounds, b, sizeof b);
}

static void op_read_world(model *m) {
    arbor_node h = pick(m);
    int32_t x;
    uint32_t refusals = node_arg(m, h, &x);
    if (!refusals) {
        model_worlds(m);
        check_world(m, x);
        return;
    }
    arbor_real w[16];
    expect(m, "arbor_node_world_matrix", arbor_node_world_matrix(m->s, h, w), refusals);
    if (arbor_node_world_version(m->s, h) != 0) fail(m, "a dead node has a version");
}

static void op_read_local(model *m) {
    arbor_node h = pick(m);
    int32_t x;
    arbor_real l[16];
    if (!expect(m, "arbor_node_local_matrix", arbor_node_local_matrix(m->s, h, l), node_arg(m, h, &x))) return;
    double want[16], labs[16];
    local_of(&m->n[x], want, labs);
    for (int e = 0; e < 16; e++)
        if (!(fabs((double)l[e] - want[e]) <= TOL * EPS * labs[e]))
            FAIL("the local matrix of node %d: element %d is %.9g, the model's %.9g", x, e, (double)l[e], want[e]);
}

/* After an update every world is current: reading them all composes nothing. */
static void check_updated(model *m, const char *fn) {
    arbor_scene_stats st;
    arbor_scene_stats_reset(m->s);
    check_scene(m, true);
    arbor_scene_stats_get(m->s, &st);
    if (st.world_composed || st.local_composed)
        FAIL("after %s, reading every world composed %llu world and %llu local matrices", fn,
             (unsigned long long)st.world_composed, (unsigned long long)st.local_composed);
}

static void op_update(model *m) {
    arbor_scene_update(m->s);
    check_updated(m, "arbor_scene_update");
}

static void backwards(void *user, uint32_t count, arbor_task_fn fn, void *task_user) {
    (void)user;
    for (uint32_t i = count; i-- > 0;) fn(task_user, i);
}

static void op_update_parallel(model *m) {
    arbor_scene_update_parallel(m->s, m->cfg.executor ? m->cfg.executor : &m->serial);
    check_updated(m, "arbor_scene_update_parallel");
}

/* Finds: a path of names from a root down, the nearest named node below and above. */
static bool has_name(void *user, const arbor_scene *s, arbor_node n) {
    const char *name = arbor_node_name(s, n);
    return name && !strcmp(name, (const char *)user);
}

static void op_find(model *m) {
    int32_t x = pick_live(m);
    const char *target = names[byte(m) % 5];
    bool slash = byte(m) & 1;
    if (x < 0) return;
    /* the path of x's names; the model resolves it as arbor must: first sibling by that name */
    char path[4096] = "";
    int32_t chain[64];
    uint32_t depth = 0;
    for (int32_t y = x; y >= 0 && depth < 64; y = m->n[y].parent) chain[depth++] = y;
    if (depth == 64) return;
    for (uint32_t i = depth; i-- > 0;) {
        const char *name = m->n[chain[i]].name ? m->n[chain[i]].name : "?";
        snprintf(path + strlen(path), sizeof path - strlen(path), "%s%s", i + 1 < depth || slash ? "/" : "", name);
    }
    int32_t at = -1;
    for (uint32_t i = depth; i-- > 0;) {
        const kids *k = kids_of(m, at);
        const char *want = m->n[chain[i]].name ? m->n[chain[i]].name : "?";
        at = -1;
        for (uint32_t j = 0; j < k->n && at < 0; j++)
            if (m->n[k->at[j]].name && !strcmp(m->n[k->at[j]].name, want)) at = k->at[j];
        if (at < 0) break;
    }
    if (arbor_scene_find(m->s, path).id != handle_of(m, at).id) FAIL("arbor_scene_find(\"%s\") differs", path);
    /* below: breadth first, the first match; above: the nearest */
    int32_t *queue = m->stack, want = -1;
    uint32_t head = 0, tail = 0;
    queue[tail++] = x;
    while (head < tail && want < 0) {
        int32_t y = queue[head++];
        if (m->n[y].name && !strcmp(m->n[y].name, target)) want = y;
        for (uint32_t j = 0; j < m->n[y].children.n; j++) queue[tail++] = m->n[y].children.at[j];
    }
    if (arbor_node_find_descendant(m->s, m->n[x].h, has_name, (void *)target).id != handle_of(m, want).id)
        FAIL("arbor_node_find_descendant(node %d, \"%s\") differs", x, target);
    for (want = x; want >= 0 && !(m->n[want].name && !strcmp(m->n[want].name, target)); want = m->n[want].parent) {}
    if (arbor_node_find_ancestor(m->s, m->n[x].h, has_name, (void *)target).id != handle_of(m, want).id)
        FAIL("arbor_node_find_ancestor(node %d, \"%s\") differs", x, target);
}

/* The subtree breadth first, and ancestry. */
static void op_collect(model *m) {
    arbor_node h = pick(m), a = pick(m);
    uint32_t cap = byte(m) % 12;
    int32_t x = lookup(m, h), y = lookup(m, a);
    if (arbor_node_is_ancestor_of(m->s, a, h) != (x >= 0 && y >= 0 && is_ancestor(m, y, x)))
        FAIL("arbor_node_is_ancestor_of differs");
    arbor_node out[12];
    uint32_t got = arbor_node_collect_subtree(m->s, h, out, cap);
    if (x < 0) {
        if (got) fail(m, "arbor_node_collect_subtree of a dead node gave %u", got);
        return;
    }
    int32_t *queue = m->stack;
    uint32_t head = 0, tail = 0;
    queue[tail++] = x;
    while (head < tail) {
        int32_t z = queue[head++];
        for (uint32_t j = 0; j < m->n[z].children.n; j++) queue[tail++] = m->n[z].children.at[j];
    }
    if (got != tail) fail(m, "arbor_node_collect_subtree: %u nodes, the model's %u", got, tail);
    for (uint32_t i = 0; i < cap && i < tail && !failed(m); i++)
        if (out[i].id != m->n[queue[i]].h.id) fail(m, "arbor_node_collect_subtree: node %u of the order differs", i);
}

/* A subtree copied, under a node or as a root: the model copies it as it was, breadth first,
   and takes the copies' handles from the scene's copy in the same order. */
static void op_clone(model *m) {
    arbor_node rh = pick(m), ph = byte(m) < 64 ? ARBOR_NONE : pick(m), out = ARBOR_NONE;
    int32_t r, p = -1;
    uint32_t refusals = node_arg(m, rh, &r);
    if (ph.id && (p = lookup(m, ph)) < 0) refusals |= BIT(ARBOR_ERR_DEAD_NODE);
    if (!refusals && (p >= 0 ? depth_of(m, p) + 1 : 0) + walk(m, r, NULL) > m->max_depth)
        refusals = BIT(ARBOR_ERR_DEPTH_LIMIT);
    uint32_t size = 0;
    if (r >= 0) { /* the source breadth first, in m->stack */
        m->stack[size++] = r;
        for (uint32_t head = 0; head < size; head++)
            for (uint32_t i = 0; i < m->n[m->stack[head]].children.n; i++) m->stack[size++] = m->n[m->stack[head]].children.at[i];
    }
    if (m->count + size > m->cfg.max_nodes) return;
    if (!expect(m, "arbor_node_clone", clone(m, rh, ph, &out), refusals)) return;
    recorded(m);
    arbor_node *copies = malloc(size * sizeof *copies);
    int32_t *copy_of = malloc((size_t)m->count * sizeof *copy_of);
    if (!copies || !copy_of) abort();
    uint32_t got = arbor_node_collect_subtree(m->s, out, copies, size);
    for (uint32_t k = 0; k < size && got == size; k++) {
        int32_t from = m->stack[k], to = (int32_t)m->count;
        for (uint32_t i = 0; i < m->count; i++)
            if (m->n[i].h.id == copies[k].id) got = 0; /* a handle made before */
        mnode *n = &m->n[to], *src = &m->n[from];
        *n = *src;
        n->h = copies[k];
        n->parent = k == 0 ? p : copy_of[src->parent];
        n->children = (kids){0};
        n->name = copy_text(src->name);
        n->version = n->nseen = 0;
        n->moved = true;
        n->relaxed = false;
        copy_of[from] = to;
        insert(kids_of(m, n->parent), to, -1);
        m->count++;
        m->live++;
    }
    free(copies);
    free(copy_of);
    if (got != size) FAIL("arbor_node_clone: the copy is not a fresh copy of %u nodes", size);
}

/* Undo (back to the state before the newest step) or redo (to the state the last undo left). */
static void travel(model *m, bool undo) {
    uint32_t *count = undo ? &m->nundo : &m->nredo;
    snapshot *to = *count ? (undo ? m->undo : m->redo)[*count - 1] : NULL;
    uint32_t refusals = m->group_open || !to ? BIT(ARBOR_ERR_INVALID_ARGUMENT) : 0;
    arbor_result got = undo ? arbor_journal_undo(m->j) : arbor_journal_redo(m->j);
    if (!expect(m, undo ? "arbor_journal_undo" : "arbor_journal_redo", got, refusals)) return;
    --*count;
    if (undo) push(&m->redo, &m->nredo, &m->capredo, snapshot_take(m));
    else push(&m->undo, &m->nundo, &m->capundo, snapshot_take(m));
    snapshot_restore(m, to);
    snapshot_free(to);
}

static void op_undo(model *m) {
    if (m->j) travel(m, true);
}

static void op_redo(model *m) {
    if (m->j) travel(m, false);
}

static void op_begin(model *m) {
    if (!m->j) return;
    if (!expect(m, "arbor_journal_begin", arbor_journal_begin(m->j), m->group_open ? BIT(ARBOR_ERR_INVALID_ARGUMENT) : 0))
        return;
    m->group_open = true;
    m->group_edits = 0;
    m->group_start = snapshot_take(m);
}

/* Commit (a step when the group holds edits) or abort (back to where the group began). */
static void op_end_group(model *m) {
    bool commit = byte(m) < 192;
    if (!m->j) return;
    uint32_t refusals = m->group_open ? 0 : BIT(ARBOR_ERR_INVALID_ARGUMENT);
    if (!expect(m, commit ? "arbor_journal_commit" : "arbor_journal_abort",
                commit ? arbor_journal_commit(m->j) : arbor_journal_abort(m->j), refusals))
        return;
    m->group_open = false;
    if (!commit) snapshot_restore(m, m->group_start);
    if (commit && m->group_edits) add_step(m, m->group_start);
    else snapshot_free(m->group_start);
    m->group_start = NULL;
}

/* ---- boxes, culling, instancing ---- */

/* Node x's world box in the model (model_worlds() current): its local box's corners through its
   world, and per axis how far rounding may move it. False when it has no box. */
static bool model_box(const model *m, int32_t x, double lo[3], double hi[3], double tol[3]) {
    const mnode *n = &m->n[x];
    if (!n->has_bounds) return false;
    for (int r = 0; r < 3; r++) {
        lo[r] = INFINITY, hi[r] = -INFINITY;
        tol[r] = n->wabs[12 + r];
        for (int c = 0; c < 3; c++) tol[r] += n->wabs[4 * c + r] * fmax(fabs(n->bounds[c]), fabs(n->bounds[3 + c]));
        tol[r] *= TOL * EPS * (n->depth + 3);
    }
    for (int k = 0; k < 8; k++) {
        double p[3] = {n->bounds[(k & 1) ? 3 : 0], n->bounds[(k & 2) ? 4 : 1], n->bounds[(k & 4) ? 5 : 2]};
        for (int r = 0; r < 3; r++) {
            double v = n->w[12 + r] + n->w[r] * p[0] + n->w[4 + r] * p[1] + n->w[8 + r] * p[2];
            lo[r] = fmin(lo[r], v), hi[r] = fmax(hi[r], v);
        }
    }
    return true;
}

/* A node's world box and its subtree's box against the model's. */
static void op_boxes(model *m) {
    arbor_node h = pick(m);
    bool subtree = byte(m) & 1;
    int32_t x;
    uint32_t refusals = node_arg(m, h, &x);
    arbor_real lo[3], hi[3];
    arbor_result got = subtree ? arbor_node_subtree_bounds(m->s, h, lo, hi) : arbor_node_world_bounds(m->s, h, lo, hi);
    if (!expect(m, subtree ? "arbor_node_subtree_bounds" : "arbor_node_world_bounds", got, refusals)) return;
    model_worlds(m);
    double want_lo[3] = {INFINITY, INFINITY, INFINITY}, want_hi[3] = {-INFINITY, -INFINITY, -INFINITY}, tol[3] = {0, 0, 0};
    uint32_t count = 0;
    m->stack[count++] = x;
    for (uint32_t head = 0; head < count; head++) {
        int32_t y = m->stack[head];
        double l[3], u[3], t[3];
        if (model_box(m, y, l, u, t))
            for (int r = 0; r < 3; r++) want_lo[r] = fmin(want_lo[r], l[r]), want_hi[r] = fmax(want_hi[r], u[r]), tol[r] = fmax(tol[r], t[r]);
        for (uint32_t i = 0; subtree && i < m->n[y].children.n; i++) m->stack[count++] = m->n[y].children.at[i];
    }
    for (int r = 0; r < 3; r++)
        if (!(want_lo[r] == lo[r] || fabs(lo[r] - want_lo[r]) <= tol[r]) || !(want_hi[r] == hi[r] || fabs(hi[r] - want_hi[r]) <= tol[r]))
            FAIL("the %s box of node %d: axis %d is [%.9g, %.9g], the model's [%.9g, %.9g]", subtree ? "subtree" : "world", x, r,
                 (double)lo[r], (double)hi[r], want_lo[r], want_hi[r]);
}

/* Culling against one to six planes: the visible set is every node whose own box is not outside,
   in pre-order; a box within rounding of a plane may go either way. */
static void op_cull(model *m) {
    uint32_t count = 1 + byte(m) % 6;
    arbor_real planes[24];
    for (uint32_t p = 0; p < count; p++) {
        double nx = (int)byte(m) - 128, ny = (int)byte(m) - 128, nz = (int)byte(m) - 128, len = sqrt(nx * nx + ny * ny + nz * nz);
        if (len == 0) nx = len = 1;
        planes[4 * p] = (arbor_real)(nx / len), planes[4 * p + 1] = (arbor_real)(ny / len), planes[4 * p + 2] = (arbor_real)(nz / len);
        planes[4 * p + 3] = coordinate(m);
    }
    arbor_node *out = malloc(((size_t)m->live + 1) * sizeof *out);
    if (!out) abort();
    uint32_t refusals = finite(planes, 4 * (int)count) ? 0 : BIT(ARBOR_ERR_NONFINITE);
    arbor_cull_stats stats;
    uint32_t got = UINT32_MAX;
    arbor_result r = arbor_scene_cull(m->s, planes, count, out, m->live + 1, &got, &stats);
    model_worlds(m);
    if (refusals) {
        if (r != ARBOR_ERR_NONFINITE || got)
            fail(m, "arbor_scene_cull with a NaN plane returned %d and %u nodes", (int)r, got);
        free(out);
        return;
    }
    if (r != ARBOR_OK) fail(m, "arbor_scene_cull refused: %s", arbor_last_error());
    /* walk the model's pre-order beside the scene's list */
    uint32_t at = 0;
    for (uint32_t k = 0; k < m->norder && !failed(m); k++) {
        int32_t x = m->order[k];
        double lo[3], hi[3], tol[3];
        if (!model_box(m, x, lo, hi, tol)) continue;
        bool sure_in = true, sure_out = false; /* beyond rounding: visible, outside a plane */
        for (uint32_t p = 0; p < count; p++) {
            const arbor_real *q = planes + 4 * p;
            double far = q[3], slack = 1e-6 * fabs(q[3]);
            for (int r = 0; r < 3; r++) far += q[r] * (q[r] >= 0 ? hi[r] : lo[r]), slack += fabs(q[r]) * tol[r];
            sure_in = sure_in && far > slack;
            sure_out = sure_out || far < -slack;
        }
        bool listed = at < got && out[at].id == m->n[x].h.id;
        if (listed) at++;
        if (model_hidden(m, x)) { /* hidden subtrees are left out */
            if (listed) fail(m, "arbor_scene_cull listed node %d, which is hidden", x);
            continue;
        }
        if (listed && sure_out) fail(m, "arbor_scene_cull listed node %d, which is outside a plane", x);
        if (!listed && sure_in) fail(m, "arbor_scene_cull left out node %d, which no plane has outside", x);
    }
    if (!failed(m) && (at != got || stats.visible != got))
        fail(m, "arbor_scene_cull returned %u nodes (stats %u), %u of them in the model's order", got, stats.visible, at);
    free(out);
}

/* Instance buffers of up to six nodes (a node twice, nodes without a mesh among them), into
   arrays that may be too small: only what fits is written, the counts are whole. */
static void op_instances(model *m) {
    uint32_t count = byte(m) % 7, cap = byte(m) % 6, matrix_cap = byte(m) % 7;
    arbor_matrix_layout layout = byte(m) & 1 ? ARBOR_LAYOUT_MAT3X4 : ARBOR_LAYOUT_MAT4;
    arbor_node nodes[6] = {{0}};
    int32_t x[6] = {0};
    uint32_t refusals = 0;
    for (uint32_t i = 0; i < count; i++) {
        nodes[i] = pick(m);
        uint32_t r = node_arg(m, nodes[i], &x[i]);
        refusals = refusals ? refusals : r;
    }
    float matrices[6 * 16];
    arbor_instance_batch batches[6];
    uint32_t batch_count = 999, matrix_count = 999;
    arbor_result got = arbor_scene_instance_batches(m->s, nodes, count, layout, matrices, matrix_cap, &matrix_count, batches,
                                                    cap, &batch_count);
    /* the model's batches: (mesh, mirrored) in order of first appearance */
    model_worlds(m);
    int32_t mesh[6];
    bool mirrored[6], unsure = false;
    uint32_t groups = 0, of[6], instances = 0;
    for (uint32_t i = 0; i < count && !refusals; i++) {
        const mnode *n = &m->n[x[i]];
        of[i] = UINT32_MAX;
        if (n->mesh < 0 || model_hidden(m, x[i])) continue; /* hidden: drawn as nothing */
        bool zero;
        double det = n->w[0] * (n->w[5] * n->w[10] - n->w[6] * n->w[9]) - n->w[4] * (n->w[1] * n->w[10] - n->w[2] * n->w[9]) +
                     n->w[8] * (n->w[1] * n->w[6] - n->w[2] * n->w[5]);
        unsure |= !(condition(n->w, &zero) < 1e3);
        for (of[i] = 0; of[i] < groups && !(mesh[of[i]] == n->mesh && mirrored[of[i]] == (det < 0)); of[i]++) {}
        if (of[i] == groups) mesh[groups] = n->mesh, mirrored[groups++] = det < 0;
        instances++;
    }
    if (unsure) return; /* a world near singular: its mirror flag may go either way */
    if (!expect(m, "arbor_scene_instance_batches", got, refusals)) return;
    if (batch_count != groups) FAIL("arbor_scene_instance_batches: %u batches, the model's %u", batch_count, groups);
    if (matrix_count != instances) FAIL("arbor_scene_instance_batches: %u matrices, the model's %u", matrix_count, instances);
    uint32_t first = 0;
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < count; i++) n += of[i] == g;
        if (g < cap && (batches[g].mesh != mesh[g] || batches[g].mirrored != mirrored[g] || batches[g].first != first ||
                        batches[g].count != n))
            FAIL("arbor_scene_instance_batches: batch %u differs from the model's", g);
        /* the instances of the batch: the world matrices of its nodes, in input order */
        uint32_t slot = first;
        for (uint32_t i = 0; i < count; i++) {
            if (of[i] != g) continue;
            if (slot >= matrix_cap) break; /* past the cap: not written */
            const mnode *w = &m->n[x[i]];
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++) {
                    float v = layout == ARBOR_LAYOUT_MAT4 ? matrices[16 * slot + 4 * c + r] : matrices[12 * slot + 4 * r + c];
                    double want = w->w[4 * c + r], tol = TOL * EPS * (w->depth + 2) * w->wabs[4 * c + r] + 1e-6 * fabs(want);
                    if (!(fabs(v - want) <= tol)) FAIL("instance %u of batch %u: row %d, column %d is %.9g, the model's %.9g", slot, g, r, c, (double)v, want);
                }
            slot++;
        }
        first += n;
    }
}

/* 9,000 nodes at once, as chains and fans under a live node: enough for a parallel update. */
static void op_grow(model *m) {
    uint64_t state = byte(m) | byte(m) << 8;
    int32_t base = pick_live(m);
    if (!m->large || m->grown || m->count + GROW_NODES > m->cfg.max_nodes) return;
    m->grown = true;
    int32_t last = base, first = (int32_t)m->count;
    for (uint32_t i = 0; i < GROW_NODES && !failed(m); i++) {
        uint8_t r[16];
        model_random_bytes(state + i, r, sizeof r);
        int32_t p = i % 40 == 0 ? base : r[0] < 200 ? last : first + (int32_t)((r[1] | r[2] << 8) % i);
        if (p >= 0 && depth_of(m, p) + 1 > m->max_depth) p = -1;
        arbor_node_desc d = {.parent = handle_of(m, p)};
        for (int c = 0; c < 3; c++) d.translation[c] = (arbor_real)((int)r[3 + c] - 128) / 128;
        for (int c = 0; c < 4; c++) d.rotation[c] = (arbor_real)((int)r[5 + c] - 128) / 64;
        if (all_zero(d.rotation, 4)) d.rotation[3] = 1;
        d.scale[0] = d.scale[1] = d.scale[2] = (arbor_real)(0.875 + r[9] / 1024.0);
        arbor_node h;
        if (!expect(m, "arbor_node_create", arbor_node_create(m->s, &d, &h), 0)) return;
        mnode *n = &m->n[m->count];
        *n = (mnode){.h = h, .alive = true, .parent = p, .mesh = -1, .moved = true};
        memcpy(n->trs, d.translation, sizeof d.translation);
        memcpy(n->trs + 3, d.rotation, sizeof d.rotation);
        memcpy(n->trs + 7, d.scale, sizeof d.scale);
        insert(kids_of(m, p), (int32_t)m->count, -1);
        last = (int32_t)m->count++;
        m->live++;
    }
}

typedef struct model_op {
    const char *name;
    unsigned weight;
    void (*run)(model *m);
} model_op;

/* The operations, with how often each is drawn (the weights add up to 256 at most, and grow
   stays last: model_sequence starts a large sequence with byte 255). A new operation: a
   function above (draw its arguments with byte(), pick() and the like, predict the refusals,
   check the call with expect(), then update the model) and a line here. */
static const model_op ops[] = {
    {"create", 36, op_create},
    {"destroy", 4, op_destroy},
    {"set_parent", 24, op_set_parent},
    {"set_translation", 8, op_set_translation},
    {"set_rotation", 8, op_set_rotation},
    {"set_scale", 6, op_set_scale},
    {"set_trs", 5, op_set_trs},
    {"set_local_matrix", 8, op_set_local_matrix},
    {"bulk writes", 5, op_bulk},
    {"set_name", 4, op_set_name},
    {"set_user", 2, op_set_user},
    {"set_mesh", 2, op_set_mesh},
    {"set_bounds", 3, op_set_bounds},
    {"set_visible", 3, op_set_visible},
    {"read world", 12, op_read_world},
    {"read local", 4, op_read_local},
    {"update", 7, op_update},
    {"update_parallel", 6, op_update_parallel},
    {"clear", 1, op_clear},
    {"finds", 3, op_find},
    {"collect, ancestry", 3, op_collect},
    {"clone", 4, op_clone},
    {"boxes", 4, op_boxes},
    {"cull", 3, op_cull},
    {"instances", 3, op_instances},
    {"undo", 5, op_undo},
    {"redo", 3, op_redo},
    {"begin", 2, op_begin},
    {"commit or abort", 3, op_end_group},
    {"grow", 1, op_grow},
};
#define OP_COUNT (sizeof ops / sizeof *ops)
_Static_assert(OP_COUNT <= MODEL_MAX_KINDS, "model_stats.kinds has room for every operation");

const char *model_op_name(unsigned k) { return k < OP_COUNT ? ops[k].name : NULL; }

void model_random_bytes(uint64_t seed, uint8_t *out, size_t size) {
    uint64_t state = seed;
    for (size_t i = 0; i < size; i += 8) {
        uint64_t z = splitmix64_next(&state);
        for (size_t k = 0; k < 8 && i + k < size; k++) out[i + k] = (uint8_t)(z >> (8 * k));
    }
}

size_t model_sequence(uint64_t seed, uint8_t *out, size_t cap, bool large) {
    model_random_bytes(seed, out, cap);
    size_t size = cap / 4 + out[1] % (cap - cap / 4); /* lengths vary */
    out[0] = large ? out[0] | 32 : out[0] & ~32u;  /* the setup byte (model_run) */
    if (large) out[1] = 255;                       /* the last operation of the table: grow */
    return size;
}

static void quiet(void *user, arbor_log_level level, const char *message) {
    (void)user;
    (void)level;
    (void)message;
}

const char *model_run(const uint8_t *data, size_t size, const model_config *config, model_stats *stats) {
    static char message[1200];
    model_stats local = {0};
    model m = {.in = data, .size = size, .stats = stats ? stats : &local, .serial = {backwards, NULL}};
    m.cfg = config ? *config : (model_config){0};
    /* The first byte: how deep the scene may be, whether every world is read after every step
       (else two, read lazily, and all after updates), whether the scene may grow large, whether
       every edit goes through a journal (and its step limit). */
    unsigned setup = byte(&m);
    m.max_depth = setup & 1 ? 3 + (setup >> 1) % 6 : ARBOR_DEFAULT_MAX_DEPTH;
    m.check_all = setup & 16;
    m.large = m.cfg.allow_large && (setup & 32);
    if (!m.cfg.max_nodes) m.cfg.max_nodes = DEFAULT_NODES + (m.large ? GROW_NODES : 0);
    m.n = calloc(m.cfg.max_nodes, sizeof *m.n);
    m.order = malloc(((size_t)m.cfg.max_nodes + 1) * sizeof *m.order);
    m.stack = malloc(((size_t)m.cfg.max_nodes + 1) * sizeof *m.stack);
    if (arbor_scene_create(&(arbor_scene_desc){.max_depth = m.max_depth, .log = quiet}, &m.s) != ARBOR_OK) abort();
    if (!m.n || !m.order || !m.stack) abort();
    if ((setup & 64) && !m.large) { /* every edit through a journal, of 4 steps or the default */
        m.max_steps = setup & 128 ? 4 : ARBOR_JOURNAL_DEFAULT_STEPS;
        if (arbor_journal_create(m.s, &(arbor_journal_desc){.max_steps = m.max_steps}, &m.j)) abort();
    }
    unsigned total = 0;
    for (unsigned k = 0; k < OP_COUNT; k++) total += ops[k].weight;
    m.stats->sequences++;
    uint64_t step = 0;
    const char *op = "";
    while (m.at < m.size && !failed(&m)) {
        unsigned pick_op = byte(&m) * total / 256, k = 0;
        while (pick_op >= ops[k].weight) pick_op -= ops[k++].weight;
        op = ops[k].name;
        if (m.j) m.before = snapshot_take(&m);
        ops[k].run(&m);
        snapshot_free(m.before);
        m.before = NULL;
        m.stats->steps++;
        m.stats->kinds[k]++;
        step++;
        if (!failed(&m)) check_scene(&m, m.check_all);
    }
    const char *result = NULL;
    if (failed(&m)) {
        snprintf(message, sizeof message, "step %llu (%s): %s", (unsigned long long)step, op, m.failure);
        result = message;
    }
    arbor_journal_destroy(m.j); /* NULL without one */
    arbor_scene_destroy(m.s);
    for (uint32_t i = 0; i < m.count; i++) {
        free(m.n[i].name);
        free(m.n[i].children.at);
    }
    while (m.nundo) snapshot_free(m.undo[--m.nundo]);
    while (m.nredo) snapshot_free(m.redo[--m.nredo]);
    free(m.undo);
    free(m.redo);
    snapshot_free(m.group_start);
    free(m.n);
    free(m.roots.at);
    free(m.order);
    free(m.stack);
    return result;
}
