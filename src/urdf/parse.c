/* SPDX-License-Identifier: MIT */
/* arbor__urdf_parse: URDF bytes to the model of urdf_internal.h, with every check done before
   the robot touches a scene. libxml2 reads the XML without network, without DTDs and without
   expanding entities (a DOCTYPE is refused outright: URDF has none, and it is where entity bombs
   and external entities live). Then the elements: <robot name>, its <link name> and <joint name
   type> children (anything else is skipped), each joint's <origin>, <axis>, <limit>, <mimic>,
   <parent link>, <child link>; then the tree: one parent a link, one root, no cycle. Loops are
   bounded by the counts of elements; the link lookups go through a sorted index. */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urdf/urdf_internal.h"

typedef struct ps {
    const char *func, *file;
    const char *data;
    size_t size;
} ps;

static arbor_result fail(const ps *P, arbor_result code, long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static arbor_result fail(const ps *P, arbor_result code, long line, const char *fmt, ...) {
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    arbor__place at = { .file = P->file, .line = line > 0 ? (uint32_t)line : 0 };
    return line > 0 ? arbor__fail_at(code, P->func, &at, "line %ld: %s", line, reason)
                    : arbor__fail_at(code, P->func, &at, "%s", reason);
}

static bool is(const xmlNode *n, const char *name) {
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static const char *attr(const xmlNode *n, const char *name) {
    for (const xmlAttr *a = n->properties; a; a = a->next)
        if (strcmp((const char *)a->name, name) == 0 && a->children && a->children->type == XML_TEXT_NODE)
            return (const char *)a->children->content;
    return NULL;
}

static const xmlNode *child(const xmlNode *n, const char *name) {
    for (const xmlNode *c = n->children; c; c = c->next)
        if (is(c, name)) return c;
    return NULL;
}

/* count numbers separated by white space from the attribute `name` of n (absent: keeps out). */
static arbor_result reals(const ps *P, const xmlNode *n, const char *what, const char *name, int count, double *out) {
    const char *s = attr(n, name);
    if (!s) return ARBOR_OK;
    double v[7];
    int k = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
        if (!*s) break;
        char *end;
        double x = strtod(s, &end);
        if (end == s || k == count || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r'))
            return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(n), "%s: <%s %s=\"%s\">: not %d number%s", what,
                        (const char *)n->name, name, attr(n, name), count, count > 1 ? "s" : "");
        if (!isfinite(x))
            return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(n), "%s: <%s %s=\"%s\">: a NaN or infinity", what,
                        (const char *)n->name, name, attr(n, name));
        v[k++] = x;
        s = end;
    }
    if (k != count)
        return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(n), "%s: <%s %s=\"%s\">: not %d number%s", what,
                    (const char *)n->name, name, attr(n, name), count, count > 1 ? "s" : "");
    memcpy(out, v, sizeof(double) * (size_t)count);
    return ARBOR_OK;
}

/* Heapsort of order[0..n) = 0..n-1 by less (iterative, in place). */
static void sift(uint32_t *order, uint32_t root, uint32_t n, bool (*less)(const void *, uint32_t, uint32_t), const void *ctx) {
    for (uint32_t c; (c = 2 * root + 1) < n; root = c) {
        if (c + 1 < n && less(ctx, order[c], order[c + 1])) c++;
        if (!less(ctx, order[root], order[c])) return;
        uint32_t t = order[root];
        order[root] = order[c];
        order[c] = t;
    }
}
void arbor__urdf_sort(uint32_t *order, uint32_t n, bool (*less)(const void *ctx, uint32_t a, uint32_t b), const void *ctx) {
    for (uint32_t i = 0; i < n; i++) order[i] = i;
    for (uint32_t i = n / 2; i-- > 0;) sift(order, i, n, less, ctx);
    for (uint32_t end = n; end > 1; end--) {
        uint32_t t = order[0];
        order[0] = order[end - 1];
        order[end - 1] = t;
        sift(order, 0, end - 1, less, ctx);
    }
}

/* Names at base + i * stride. */
typedef struct names { const void *base; size_t stride; } names;
static const char *name_at(const void *base, size_t stride, uint32_t i) {
    return *(const char *const *)((const char *)base + (size_t)i * stride);
}
static bool name_less(const void *ctx, uint32_t a, uint32_t b) {
    const names *N = ctx;
    return strcmp(name_at(N->base, N->stride, a), name_at(N->base, N->stride, b)) < 0;
}
static void sort_names(const void *base, size_t stride, uint32_t *order, uint32_t n) {
    names N = { base, stride };
    arbor__urdf_sort(order, n, name_less, &N);
}

int32_t arbor__urdf_find(const void *names, size_t stride, const uint32_t *order, uint32_t n, const char *name) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name_at(names, stride, order[mid]), name);
        if (c == 0) return (int32_t)order[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

static long doctype_line(const ps *P) {
    long line = 1;
    for (size_t i = 0; i + 9 <= P->size && memcmp(P->data + i, "<!DOCTYPE", 9) != 0; i++) line += P->data[i] == '\n';
    return line;
}

static const struct {
    const char *name;
    arbor_urdf_joint_type type;
    uint32_t values;
} joint_types[] = {
    { "fixed", ARBOR_URDF_FIXED, 0 },         { "revolute", ARBOR_URDF_REVOLUTE, 1 },
    { "continuous", ARBOR_URDF_CONTINUOUS, 1 }, { "prismatic", ARBOR_URDF_PRISMATIC, 1 },
    { "floating", ARBOR_URDF_FLOATING, 7 },   { "planar", ARBOR_URDF_PLANAR, 3 },
};

/* An origin's rotation (x y z w) and rows: urdfdom's setFromRPY, R = Rz(yaw) Ry(pitch) Rx(roll). */
static void origin_rows(const double xyz[3], const double rpy[3], double rot[4], double rows[12]) {
    double cr = cos(rpy[0] / 2), sr = sin(rpy[0] / 2), cp = cos(rpy[1] / 2), sp = sin(rpy[1] / 2);
    double cy = cos(rpy[2] / 2), sy = sin(rpy[2] / 2);
    rot[0] = sr * cp * cy - cr * sp * sy;
    rot[1] = cr * sp * cy + sr * cp * sy;
    rot[2] = cr * cp * sy - sr * sp * cy;
    rot[3] = cr * cp * cy + sr * sp * sy;
    arbor__urdf_rows(rows, rot, xyz);
}

/* The shape element of a <visual> or <collision>: its <geometry>'s first element (urdfdom's). */
static const xmlNode *shape_of(const xmlNode *e) {
    const xmlNode *g = child(e, "geometry");
    for (const xmlNode *c = g ? g->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return c;
    return NULL;
}

static bool is_geometry(const xmlNode *n) { return is(n, "visual") || is(n, "collision"); }

/* The mesh filename of a <visual> or <collision>, or NULL. */
static const char *mesh_of(const xmlNode *e) {
    const xmlNode *shape = shape_of(e);
    return shape && is(shape, "mesh") ? attr(shape, "filename") : NULL;
}

/* One <visual> or <collision> e of link `link` into g (its mesh's name copied to *text). */
static arbor_result read_geometry(const ps *P, const xmlNode *e, const char *link, arbor__urdf_geometry *g, char **text) {
    char what[300];
    snprintf(what, sizeof what, "link '%s': <%s>", link, (const char *)e->name);
    g->collision = is(e, "collision");
    arbor_result r;
    const xmlNode *o = child(e, "origin"), *shape = shape_of(e);
    if (o && ((r = reals(P, o, what, "xyz", 3, g->xyz)) || (r = reals(P, o, what, "rpy", 3, g->rpy)))) return r;
    double rot[4];
    origin_rows(g->xyz, g->rpy, rot, g->origin);
    if (!shape) return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(e), "%s: no <geometry> with a shape in it", what);
    static const struct { const char *name, *attrs[2]; int counts[2]; } shapes[] = {
        { "box", { "size", NULL }, { 3, 0 } },
        { "cylinder", { "radius", "length" }, { 1, 1 } },
        { "sphere", { "radius", NULL }, { 1, 0 } },
        { "mesh", { "scale", NULL }, { 3, 0 } },
    };
    uint32_t k = 0;
    while (k < 4 && !is(shape, shapes[k].name)) k++;
    long line = xmlGetLineNo(shape);
    if (k == 4) return fail(P, ARBOR_ERR_PARSE, line, "%s: unknown shape <%s>", what, (const char *)shape->name);
    g->shape = (arbor_urdf_shape)k;
    if (g->shape == ARBOR_URDF_MESH) {
        const char *file = attr(shape, "filename");
        if (!file) return fail(P, ARBOR_ERR_PARSE, line, "%s: <mesh> without a filename", what);
        g->mesh = strcpy(*text, file);
        *text += strlen(file) + 1;
        g->size[0] = g->size[1] = g->size[2] = 1;
    }
    for (int a = 0, at = 0; a < 2 && shapes[k].attrs[a]; at += shapes[k].counts[a], a++) {
        const char *name = shapes[k].attrs[a];
        if (g->shape != ARBOR_URDF_MESH && !attr(shape, name))
            return fail(P, ARBOR_ERR_PARSE, line, "%s: <%s> without its %s", what, shapes[k].name, name);
        if ((r = reals(P, shape, what, name, shapes[k].counts[a], g->size + at))) return r;
    }
    for (int c = 0; c < 3; c++)
        if (g->shape != ARBOR_URDF_MESH && g->size[c] < 0)
            return fail(P, ARBOR_ERR_PARSE, line, "%s: <%s>: a negative size, %.17g", what, shapes[k].name, g->size[c]);
    return ARBOR_OK;
}

/* One joint's own content (not its links, not its mimic master). */
static arbor_result read_joint(const ps *P, const xmlNode *x, arbor__urdf_joint *j) {
    char what[300];
    snprintf(what, sizeof what, "joint '%s'", j->name);
    long line = xmlGetLineNo(x);
    const char *type = attr(x, "type");
    uint32_t t = 0;
    while (t < sizeof joint_types / sizeof joint_types[0] && (!type || strcmp(type, joint_types[t].name) != 0)) t++;
    if (t == sizeof joint_types / sizeof joint_types[0])
        return fail(P, ARBOR_ERR_PARSE, line, "%s: %s%s%s", what, type ? "unknown type '" : "no type",
                    type ? type : "", type ? "'" : "");
    j->type = joint_types[t].type;
    j->position_count = joint_types[t].values;
    j->axis[0] = 1;
    j->multiplier = 1;
    j->mimic = -1;
    j->position_index = -1;
    arbor_result r;
    const xmlNode *o = child(x, "origin");
    if (o && ((r = reals(P, o, what, "xyz", 3, j->xyz)) || (r = reals(P, o, what, "rpy", 3, j->rpy)))) return r;
    const xmlNode *ax = child(x, "axis");
    if (ax && j->type != ARBOR_URDF_FIXED && j->type != ARBOR_URDF_FLOATING) {
        if ((r = reals(P, ax, what, "xyz", 3, j->axis))) return r;
        double len = sqrt(j->axis[0] * j->axis[0] + j->axis[1] * j->axis[1] + j->axis[2] * j->axis[2]);
        if (!(len > 0)) return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(ax), "%s: the axis is zero", what);
        for (int k = 0; k < 3; k++) j->axis[k] /= len;
    }
    if (j->type == ARBOR_URDF_REVOLUTE || j->type == ARBOR_URDF_PRISMATIC) {
        const xmlNode *lim = child(x, "limit");
        if (!lim) return fail(P, ARBOR_ERR_PARSE, line, "%s: a %s joint needs <limit>", what, type);
        if ((r = reals(P, lim, what, "lower", 1, &j->lower)) || (r = reals(P, lim, what, "upper", 1, &j->upper)))
            return r;
        if (j->lower > j->upper)
            return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(lim), "%s: lower limit %.17g is above upper limit %.17g",
                        what, j->lower, j->upper);
        j->has_limits = true;
    }
    origin_rows(j->xyz, j->rpy, j->rot, j->origin);
    if (j->type == ARBOR_URDF_PLANAR) { /* u = y x n (n = z: x), else n x x; v = n x u */
        const double *n = j->axis;
        double u[3] = { n[2], 0, -n[0] };
        if (fabs(n[1]) >= 0.9) u[0] = 0, u[1] = n[2], u[2] = -n[1];
        double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int k = 0; k < 3; k++) j->plane[0][k] = u[k] / len;
        u[0] = j->plane[0][0], u[1] = j->plane[0][1], u[2] = j->plane[0][2];
        j->plane[1][0] = n[1] * u[2] - n[2] * u[1];
        j->plane[1][1] = n[2] * u[0] - n[0] * u[2];
        j->plane[1][2] = n[0] * u[1] - n[1] * u[0];
    }
    return ARBOR_OK;
}

/* The link attribute of joint x's <parent> or <child>, as a link index (by file order). */
static arbor_result joint_link(const ps *P, const xmlNode *x, const char *jname, const char *which,
                               const char *const *names, const uint32_t *order, uint32_t n, uint32_t *out) {
    const xmlNode *e = child(x, which);
    const char *name = e ? attr(e, "link") : NULL;
    if (!name)
        return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(e ? e : x), "joint '%s': no <%s link=\"...\">", jname, which);
    int32_t k = arbor__urdf_find(names, sizeof *names, order, n, name);
    if (k < 0)
        return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(e), "joint '%s': its %s link '%s' is not a link of the robot",
                    jname, which, name);
    *out = (uint32_t)k;
    return ARBOR_OK;
}

/* Everything after the XML parse: the doc's robot into m. */
static arbor_result read_robot(const ps *P, const arbor_allocator *a, const xmlNode *robot, arbor__urdf_model *m) {
    const char *rname = attr(robot, "name");
    if (!rname) return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(robot), "<robot> has no name");
    uint32_t L = 0, J = 0, G = 0;
    size_t chars = strlen(rname) + 1;
    for (const xmlNode *c = robot->children; c; c = c->next) {
        bool link = is(c, "link"), joint = !link && is(c, "joint");
        if (!link && !joint) continue;
        const char *name = attr(c, "name");
        if (!name) return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(c), "a <%s> without a name", link ? "link" : "joint");
        if ((link ? L : J) == UINT32_MAX / 64) return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(c), "too many elements");
        link ? L++ : J++;
        chars += strlen(name) + 1;
        for (const xmlNode *e = link ? c->children : NULL; e; e = e->next) {
            if (!is_geometry(e)) continue;
            if (G == UINT32_MAX / 64) return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(e), "too many elements");
            G++;
            const char *file = mesh_of(e);
            chars += file ? strlen(file) + 1 : 0;
        }
    }
    if (L == 0) return fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(robot), "robot '%s' has no link", rname);

    /* The model's block: joints, geometry, start, names, indices, then the strings. */
    size_t at_joints = 0, at_geometry = at_joints + sizeof(arbor__urdf_joint) * J;
    size_t at_start = at_geometry + sizeof(arbor__urdf_geometry) * G;
    size_t at_names = at_start + sizeof(double) * 7 * J, at_parent = at_names + sizeof(char *) * L;
    size_t at_ljoint = at_parent + sizeof(int32_t) * L, at_by = at_ljoint + sizeof(int32_t) * L;
    size_t at_jby = at_by + sizeof(uint32_t) * L, at_chars = at_jby + sizeof(uint32_t) * J;
    size_t bytes = at_chars + chars;
    /* Scratch: the links in file order (xml node, name), their parent joint, the tree walk. */
    size_t s_xml = 0, s_name = s_xml + sizeof(xmlNode *) * (L + J), s_order = s_name + sizeof(char *) * L;
    size_t s_parent = s_order + sizeof(uint32_t) * L, s_first = s_parent + sizeof(int32_t) * L;
    size_t s_next = s_first + sizeof(int32_t) * L, s_tree = s_next + sizeof(int32_t) * J;
    size_t s_stack = s_tree + sizeof(uint32_t) * L, s_jorder = s_stack + sizeof(uint32_t) * L;
    size_t s_bytes = s_jorder + sizeof(uint32_t) * J;
    char *block = arbor__alloc_with(a, bytes), *scratch = arbor__alloc_with(a, s_bytes);
    if (!block || !scratch) {
        arbor__free_with(a, block, bytes);
        arbor__free_with(a, scratch, s_bytes);
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, P->func, "no memory for %u links and %u joints", L, J);
    }
    memset(block, 0, bytes);
    arbor__urdf_joint *joints = (arbor__urdf_joint *)(block + at_joints);
    arbor__urdf_geometry *geometry = (arbor__urdf_geometry *)(block + at_geometry);
    double *start = (double *)(block + at_start);
    const char **link_name = (const char **)(block + at_names);
    int32_t *link_parent = (int32_t *)(block + at_parent), *link_joint = (int32_t *)(block + at_ljoint);
    uint32_t *by_name = (uint32_t *)(block + at_by), *joint_by_name = (uint32_t *)(block + at_jby);
    char *text = block + at_chars;
    const xmlNode **xml = (const xmlNode **)(scratch + s_xml); /* links 0..L, then joints */
    const char **fname = (const char **)(scratch + s_name);
    uint32_t *forder = (uint32_t *)(scratch + s_order), *tree = (uint32_t *)(scratch + s_tree);
    uint32_t *stack = (uint32_t *)(scratch + s_stack), *jorder = (uint32_t *)(scratch + s_jorder);
    int32_t *fparent = (int32_t *)(scratch + s_parent), *first = (int32_t *)(scratch + s_first);
    int32_t *next = (int32_t *)(scratch + s_next);

    m->name = strcpy(text, rname);
    text += strlen(rname) + 1;
    uint32_t l = 0, jn = 0;
    for (const xmlNode *c = robot->children; c; c = c->next) {
        bool link = is(c, "link");
        if (!link && !is(c, "joint")) continue;
        const char *name = strcpy(text, attr(c, "name"));
        text += strlen(name) + 1;
        if (link) xml[l] = c, fname[l++] = name;
        else xml[L + jn] = c, joints[jn++].name = name;
    }
    arbor_result r = ARBOR_OK;
    sort_names(fname, sizeof *fname, forder, L);
    sort_names(joints, sizeof *joints, jorder, J);
    for (uint32_t i = 1; !r && i < L; i++)
        if (strcmp(fname[forder[i - 1]], fname[forder[i]]) == 0) {
            uint32_t x = forder[i - 1] > forder[i] ? forder[i - 1] : forder[i];
            r = fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(xml[x]), "a second link named '%s'", fname[x]);
        }
    for (uint32_t i = 1; !r && i < J; i++)
        if (strcmp(joints[jorder[i - 1]].name, joints[jorder[i]].name) == 0) {
            uint32_t x = jorder[i - 1] > jorder[i] ? jorder[i - 1] : jorder[i];
            r = fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(xml[L + x]), "a second joint named '%s'", joints[x].name);
        }
    for (uint32_t i = 0; i < L; i++) fparent[i] = first[i] = -1;
    for (uint32_t k = 0; !r && k < J; k++) { /* links by file index for now */
        arbor__urdf_joint *j = &joints[k];
        const xmlNode *x = xml[L + k];
        if ((r = read_joint(P, x, j)) || (r = joint_link(P, x, j->name, "parent", fname, forder, L, &j->parent)) ||
            (r = joint_link(P, x, j->name, "child", fname, forder, L, &j->child)))
            break;
        if (j->parent == j->child)
            r = fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(x), "joint '%s': link '%s' is its own parent: a cycle", j->name,
                     fname[j->child]);
        else if (fparent[j->child] >= 0)
            r = fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(x), "link '%s' has two parents: joint '%s' (line %ld) and joint '%s'",
                     fname[j->child], joints[fparent[j->child]].name, xmlGetLineNo(xml[L + (uint32_t)fparent[j->child]]),
                     j->name);
        else
            fparent[j->child] = (int32_t)k;
    }
    /* Children lists (in joint order: built backwards), the root, the walk. */
    int32_t root = -1;
    for (uint32_t k = J; !r && k-- > 0;) {
        next[k] = first[joints[k].parent];
        first[joints[k].parent] = (int32_t)k;
    }
    for (uint32_t i = 0; !r && i < L; i++) {
        if (fparent[i] >= 0) continue;
        if (root >= 0)
            r = fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(xml[i]), "two root links (links without a parent joint): '%s' (line %ld) and '%s'",
                     fname[root], xmlGetLineNo(xml[root]), fname[i]);
        root = (int32_t)i;
    }
    if (!r && root < 0)
        r = fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(robot), "no root link: every link has a parent joint, the joints make a cycle");
    uint32_t reached = 0;
    if (!r) { /* depth first, children in joint order: pushed in reverse */
        uint32_t top = 0;
        stack[top++] = (uint32_t)root;
        while (top) {
            uint32_t f = stack[--top];
            tree[f] = reached++;
            uint32_t pushed = top;
            for (int32_t k = first[f]; k >= 0; k = next[k]) stack[top++] = joints[k].child;
            for (uint32_t a1 = pushed, b1 = top; a1 + 1 < b1; a1++, b1--) {
                uint32_t t = stack[a1];
                stack[a1] = stack[b1 - 1];
                stack[b1 - 1] = t;
            }
        }
    }
    if (!r && reached < L) { /* the links the walk did not reach hang on a cycle: name one */
        for (uint32_t i = 0; i < L; i++) tree[i] = UINT32_MAX;
        uint32_t top = 0;
        stack[top++] = (uint32_t)root;
        while (top) {
            uint32_t f = stack[--top];
            tree[f] = 0;
            for (int32_t k = first[f]; k >= 0; k = next[k]) stack[top++] = joints[k].child;
        }
        uint32_t i = 0;
        while (tree[i] != UINT32_MAX) i++;
        r = fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(xml[L + (uint32_t)fparent[i]]),
                 "joint '%s': a cycle of joints through link '%s' (not reached from the root link '%s')",
                 joints[fparent[i]].name, fname[i], fname[root]);
    }
    /* Mimic joints: the master resolved to a joint that takes positions. */
    for (uint32_t k = 0; !r && k < J; k++) {
        arbor__urdf_joint *j = &joints[k];
        const xmlNode *mx = child(xml[L + k], "mimic");
        if (!mx || j->type == ARBOR_URDF_FIXED) continue;
        const char *master = attr(mx, "joint");
        long line = xmlGetLineNo(mx);
        char what[300];
        snprintf(what, sizeof what, "joint '%s'", j->name);
        int32_t mk = master ? arbor__urdf_find(joints, sizeof *joints, jorder, J, master) : -1;
        if ((r = reals(P, mx, what, "multiplier", 1, &j->multiplier)) || (r = reals(P, mx, what, "offset", 1, &j->offset)))
            break;
        if (mk < 0)
            r = fail(P, ARBOR_ERR_PARSE, line, "%s: <mimic> names %s%s%s", what, master ? "no joint of the robot, '" : "no joint",
                     master ? master : "", master ? "'" : "");
        else if (j->position_count != 1 || joints[mk].position_count != 1)
            r = fail(P, ARBOR_ERR_PARSE, line, "%s: <mimic> of '%s': only revolute, continuous and prismatic joints mimic and are mimicked",
                     what, master);
        else
            j->mimic = mk;
    }
    for (uint32_t k = 0; !r && k < J; k++) { /* chains folded into one master; a ring refused */
        arbor__urdf_joint *j = &joints[k];
        for (uint32_t steps = 0; !r && j->mimic >= 0 && joints[j->mimic].mimic >= 0; steps++) {
            const arbor__urdf_joint *m2 = &joints[j->mimic];
            if (steps == J || m2->mimic == (int32_t)k)
                r = fail(P, ARBOR_ERR_PARSE, xmlGetLineNo(child(xml[L + k], "mimic")), "joint '%s': its <mimic> joints make a ring",
                         j->name);
            else
                j->offset += j->multiplier * m2->offset, j->multiplier *= m2->multiplier, j->mimic = m2->mimic;
        }
    }
    /* Geometry in link order: the links walked in tree order (stack: tree index to file index). */
    for (uint32_t i = 0; !r && i < L; i++) stack[tree[i]] = i;
    for (uint32_t t = 0, g = 0; !r && t < L; t++)
        for (const xmlNode *e = xml[stack[t]]->children; !r && e; e = e->next)
            if (is_geometry(e)) {
                geometry[g].link = t;
                r = read_geometry(P, e, fname[stack[t]], &geometry[g++], &text);
            }
    if (!r) {
        uint32_t dof = 0;
        for (uint32_t k = 0; k < J; k++) {
            arbor__urdf_joint *j = &joints[k];
            j->parent = tree[j->parent];
            j->child = tree[j->child];
            if (j->mimic >= 0 || j->position_count == 0) {
                j->position_count = 0;
                continue;
            }
            j->position_index = (int32_t)dof;
            for (uint32_t v = 0; v < j->position_count; v++) start[dof + v] = 0;
            if (j->type == ARBOR_URDF_FLOATING) start[dof + 6] = 1;
            if (j->has_limits) start[dof] = j->lower > 0 ? j->lower : j->upper < 0 ? j->upper : 0;
            dof += j->position_count;
        }
        for (uint32_t i = 0; i < L; i++) {
            link_name[tree[i]] = fname[i];
            link_joint[tree[i]] = fparent[i];
        }
        for (uint32_t i = 0; i < L; i++)
            link_parent[i] = link_joint[i] >= 0 ? (int32_t)joints[link_joint[i]].parent : -1;
        sort_names(link_name, sizeof *link_name, by_name, L);
        memcpy(joint_by_name, jorder, sizeof(uint32_t) * J);
        *m = (arbor__urdf_model){ .block = block, .bytes = bytes, .name = m->name, .link_count = L, .joint_count = J,
                                  .dof = dof, .link_name = link_name, .link_parent = link_parent, .link_joint = link_joint,
                                  .by_name = by_name, .joint_by_name = joint_by_name, .joints = joints, .geometry_count = G,
                                  .geometry = geometry, .start = start };
    } else {
        arbor__free_with(a, block, bytes);
    }
    arbor__free_with(a, scratch, s_bytes);
    return r;
}

arbor_result arbor__urdf_parse(const arbor_allocator *a, const char *func, const char *file, const void *data,
                               size_t size, arbor__urdf_model *m) {
    ps P = { .func = func, .file = file, .data = data, .size = size };
    if (size > INT32_MAX) return fail(&P, ARBOR_ERR_PARSE, 0, "%zu bytes: larger than a URDF file can be here (2 GB)", size);
    xmlInitParser();
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, func, "no memory for the XML parser");
    /* No XML_PARSE_NOENT, DTDLOAD, DTDATTR, HUGE: entities are never substituted or fetched,
       the depth stays within libxml2's bound. */
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, data, (int)size, file ? file : "memory", NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
    arbor_result r = ARBOR_OK;
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        char msg[300];
        snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "not XML");
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
        r = fail(&P, ARBOR_ERR_PARSE, e && e->line > 0 ? e->line : 1, "not well-formed XML: %s", msg);
    } else if (doc->intSubset || doc->extSubset) {
        r = fail(&P, ARBOR_ERR_PARSE, doctype_line(&P),
                 "a DOCTYPE: URDF has none, and arbor neither loads nor expands entities");
    } else {
        const xmlNode *root = xmlDocGetRootElement(doc);
        if (!root || !is(root, "robot"))
            r = fail(&P, ARBOR_ERR_PARSE, root ? xmlGetLineNo(root) : 1, "the root element is <%s>, not <robot>",
                     root ? (const char *)root->name : "");
        else
            r = read_robot(&P, a, root, m);
    }
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    return r;
}
