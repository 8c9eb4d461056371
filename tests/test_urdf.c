/* SPDX-License-Identifier: MIT */
/*
 * tests/test_urdf.c: libarbor-urdf against independent readings of the same files.
 *
 * - Every robot of ../shared/urdf loads, and its links, their parents, its joints (type, axis,
 *   limits, mimic) equal urdfdom's reading, printed by tests/urdf_kdl/oracle.cpp (urdfdom and
 *   KDL, run as a program of its own).
 * - At 20 random configurations within limits (continuous joints in [-pi, pi]) every link's
 *   world matrix, after arbor_urdf_set_positions (the scene's nodes) and from
 *   arbor_urdf_forward_kinematics (a batch of the 20), equals KDL's TreeFkSolverPos_recursive
 *   within 1e-5 (float) or 1e-10 (double); mimic joints follow their masters in both (the oracle
 *   computes them from urdfdom's model). A batch's rows equal batches of one, bit for bit.
 * - Hostile files, each refused with the file, the line and the reason, the scene unchanged.
 * - Joint positions: limits refused with the joint's name and limits (or clamped), NaN refused,
 *   a refused call changes nothing; set_position; the nearest limit at load.
 * - Lifetimes: the scene destroyed first leaves the robot inert; every block comes back.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <dirent.h>
#include <jansson.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_util.h"
#include "arbor/bounds.h"
#include "arbor/gltf.h"
#include "arbor/time.h"
#include "arbor/urdf.h"

#define URDF_DIR ARBOR_SHARED_DIR "/urdf"
#define OUT_DIR ARBOR_TEST_OUTPUT_DIR

#if ARBOR_REAL_IS_DOUBLE
#define FK_TOL 1e-10
#else
#define FK_TOL 1e-5
#endif

/* ---- the shared robots ------------------------------------------------------------------------ */

typedef struct files { char path[64][512]; int count; } files;

/* ../shared/urdf/<robot>/<name>.urdf, sorted */
static int cmp_path(const void *a, const void *b) { return strcmp(a, b); }
static void list_files(files *F)
{
    F->count = 0;
    DIR *top = opendir(URDF_DIR);
    if (!top) return;
    for (struct dirent *d; (d = readdir(top));) {
        if (d->d_name[0] == '.') continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s/%s", URDF_DIR, d->d_name);
        DIR *in = opendir(sub);
        if (!in) continue;
        for (struct dirent *e; (e = readdir(in));) {
            size_t n = strlen(e->d_name);
            if (n > 5 && strcmp(e->d_name + n - 5, ".urdf") == 0 && F->count < 64)
                snprintf(F->path[F->count++], sizeof F->path[0], "%.200s/%.200s", sub, e->d_name);
        }
        closedir(in);
    }
    closedir(top);
    qsort(F->path, (size_t)F->count, sizeof F->path[0], cmp_path);
}

static void need_files(files *F, const char *func)
{
    list_files(F);
    if (F->count == 0) {
        test_shared_absent_(func, URDF_DIR, __FILE__, __LINE__);
        skip();
    }
}

#ifdef ARBOR_URDF_KDL
static bool have_oracle(void) { return true; }
#else
#define ARBOR_URDF_KDL ""
static bool have_oracle(void) { return false; }
#endif

/* The oracle is needed: skipped without it, failed under CI=true. */
#define NEED_ORACLE()                                                                              \
    do {                                                                                           \
        if (!have_oracle()) {                                                                      \
            const char *ci_ = getenv("CI");                                                        \
            if (ci_ && strcmp(ci_, "true") == 0) fail_msg("CI=true needs the urdfdom/KDL oracle"); \
            TEST_SKIP("no urdfdom/KDL oracle (liburdfdom-dev, libkdl-parser-dev)");                \
        }                                                                                          \
    } while (0)

static void run_oracle(const char *args)
{
    char cmd[2048];
    int n = snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", ARBOR_URDF_KDL, args);
    if (n < 0 || (size_t)n >= sizeof cmd) fail_msg("the oracle's command is too long: %s", args);
    int rc = system(cmd);
    if (rc != 0) fail_msg("the oracle failed (%d): %s", rc, cmd);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

static uint32_t link_index(const arbor_urdf *r, const char *name)
{
    for (uint32_t i = 0; i < arbor_urdf_link_count(r); i++)
        if (strcmp(arbor_urdf_link_name(r, i), name) == 0) return i;
    fail_msg("link '%s' of the oracle is not a link of arbor's robot", name);
    return 0;
}

static const char *type_word(arbor_urdf_joint_type t)
{
    static const char *w[] = { "fixed", "revolute", "continuous", "prismatic", "floating", "planar" };
    return w[t];
}

/* The kth visual (or collision) of link `link`. */
static void find_geometry(const arbor_urdf *r, uint32_t link, bool collision, uint32_t kth, arbor_urdf_geometry *out)
{
    for (uint32_t i = 0, seen = 0; i < arbor_urdf_geometry_count(r); i++) {
        assert_int_equal(arbor_urdf_geometry_info(r, i, out), ARBOR_OK);
        if (out->link == link && out->collision == collision && seen++ == kth) return;
    }
    fail_msg("link '%s': no %s %u", arbor_urdf_link_name(r, link), collision ? "collision" : "visual", kth);
}

/* The quaternion (x y z w) of Rz(yaw) Ry(pitch) Rx(roll), as a product of the three. */
static void rpy_quaternion(const double rpy[3], double q[4])
{
    double x[4] = { sin(rpy[0] / 2), 0, 0, cos(rpy[0] / 2) }, y[4] = { 0, sin(rpy[1] / 2), 0, cos(rpy[1] / 2) };
    double z[4] = { 0, 0, sin(rpy[2] / 2), cos(rpy[2] / 2) }, zy[4];
    /* a b: w = aw bw - av.bv, v = aw bv + bw av + av x bv */
    const double *a = z, *b = y;
    for (int pass = 0; pass < 2; pass++) {
        double *o = pass ? q : zy;
        o[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
        o[0] = a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1];
        o[1] = a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2];
        o[2] = a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0];
        a = zy, b = x;
    }
}

static void test_shared_robots_read_as_urdfdom(void **state)
{
    (void)state;
    files F;
    need_files(&F, __func__);
    NEED_ORACLE();
    for (int f = 0; f < F.count; f++) {
        arbor_scene *s;
        assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
        arbor_urdf *r = NULL;
        arbor_result res = arbor_urdf_load(s, F.path[f], NULL, &r);
        if (res) fail_msg("%s: %s", F.path[f], arbor_last_error());
        char args[1200], out[600];
        snprintf(out, sizeof out, "%s/urdf_model_%d.txt", OUT_DIR, f);
        snprintf(args, sizeof args, "model '%s' '%s'", F.path[f], out);
        run_oracle(args);
        char *text = slurp(out);
        uint32_t links = 0, joints = 0, geometries = 0, kth;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            char name[256], parent[256], type[32], child[256], mimic[256];
            double ax[3], lower, upper, mult, off, xyz[3], quat[4], size[3];
            if (sscanf(line, "link %255s %255s", name, parent) == 2) {
                links++;
                uint32_t i = link_index(r, name);
                int32_t p = arbor_urdf_link_parent(r, i);
                if (strcmp(parent, "-") == 0) assert_int_equal(p, -1);
                else if (p < 0 || strcmp(arbor_urdf_link_name(r, (uint32_t)p), parent) != 0)
                    fail_msg("%s: link %s: parent %s, urdfdom %s", F.path[f], name, p < 0 ? "none" : arbor_urdf_link_name(r, (uint32_t)p), parent);
                assert_string_equal(arbor_node_name(s, arbor_urdf_link_node(r, i)), name);
            } else if (sscanf(line, "joint %255s %31s %255s %255s %lf %lf %lf %lf %lf %255s %lf %lf", name, type, parent, child,
                              &ax[0], &ax[1], &ax[2], &lower, &upper, mimic, &mult, &off) == 12) {
                joints++;
                int32_t k = arbor_urdf_find_joint(r, name);
                assert_true(k >= 0);
                arbor_urdf_joint j;
                assert_int_equal(arbor_urdf_joint_info(r, (uint32_t)k, &j), ARBOR_OK);
                assert_string_equal(type_word(j.type), type);
                assert_string_equal(arbor_urdf_link_name(r, j.parent_link), parent);
                assert_string_equal(arbor_urdf_link_name(r, j.child_link), child);
                if (j.type != ARBOR_URDF_FIXED && j.type != ARBOR_URDF_FLOATING) {
                    double len = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
                    for (int c = 0; c < 3; c++) ASSERT_NEAR(j.axis[c], ax[c] / len, 1e-15);
                }
                if (j.type == ARBOR_URDF_REVOLUTE || j.type == ARBOR_URDF_PRISMATIC) {
                    assert_true(j.has_limits);
                    assert_true(j.lower == lower && j.upper == upper);
                }
                if (strcmp(mimic, "-") == 0 || j.type == ARBOR_URDF_FIXED) {
                    assert_int_equal(j.mimic, -1);
                } else {
                    arbor_urdf_joint m;
                    assert_int_equal(arbor_urdf_joint_info(r, (uint32_t)j.mimic, &m), ARBOR_OK);
                    assert_string_equal(m.name, mimic);
                    assert_true(j.multiplier == mult && j.offset == off);
                    assert_int_equal(j.position_count, 0);
                }
            } else if (sscanf(line, "geometry %255s %31s %u %31s %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %255s", name, type, &kth,
                              child, &xyz[0], &xyz[1], &xyz[2], &quat[0], &quat[1], &quat[2], &quat[3], &size[0], &size[1],
                              &size[2], mimic) == 15) {
                geometries++;
                arbor_urdf_geometry g;
                find_geometry(r, link_index(r, name), strcmp(type, "collision") == 0, kth, &g);
                static const char *shapes[] = { "box", "cylinder", "sphere", "mesh" };
                assert_string_equal(shapes[g.shape], child);
                double q[4];
                rpy_quaternion(g.origin_rpy, q);
                double dot = q[0] * quat[0] + q[1] * quat[1] + q[2] * quat[2] + q[3] * quat[3];
                for (int c = 0; c < 3; c++) assert_true(g.origin_xyz[c] == xyz[c] && g.size[c] == size[c]);
                for (int c = 0; c < 4; c++) ASSERT_NEAR(q[c] * (dot < 0 ? -1 : 1), quat[c], 1e-15);
                if (g.shape == ARBOR_URDF_MESH) assert_string_equal(g.mesh, mimic);
                else assert_null(g.mesh);
            } else {
                fail_msg("%s: an oracle line arbor cannot read: %s", F.path[f], line);
            }
        }
        assert_int_equal(links, arbor_urdf_link_count(r));
        assert_int_equal(joints, arbor_urdf_joint_count(r));
        assert_int_equal(geometries, arbor_urdf_geometry_count(r));
        free(text);
        arbor_urdf_destroy(r);
        arbor_scene_destroy(s);
    }
}

/* ---- forward kinematics against KDL ---------------------------------------------------------- */

#define CONFIGS 20

/* CONFIGS random rows within limits (continuous in [-pi, pi]) into q, and as "name=value" lines
   into the file at path. */
static void random_configs(const arbor_urdf *r, test_rng *rng, double *q, const char *path)
{
    uint32_t dof = arbor_urdf_dof(r);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int c = 0; c < CONFIGS; c++) {
        for (uint32_t k = 0; k < arbor_urdf_joint_count(r); k++) {
            arbor_urdf_joint j;
            assert_int_equal(arbor_urdf_joint_info(r, k, &j), ARBOR_OK);
            if (j.position_index < 0) continue;
            assert_int_equal(j.position_count, 1); /* the shared robots have no floating or planar joint */
            double pi = 3.14159265358979323846, lo = j.has_limits ? j.lower : -pi, hi = j.has_limits ? j.upper : pi;
            double v = lo + (hi - lo) * test_rng_uniform(rng);
            q[(size_t)c * dof + (uint32_t)j.position_index] = v;
            fprintf(f, "%s=%.17g ", j.name, v);
        }
        fprintf(f, "\n");
    }
    fclose(f);
}

static void test_shared_robots_fk_equal_kdl(void **state)
{
    (void)state;
    files F;
    need_files(&F, __func__);
    NEED_ORACLE();
    test_rng rng = test_rng_make(27);
    for (int f = 0; f < F.count; f++) {
        arbor_scene *s;
        assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
        arbor_urdf *r = NULL;
        if (arbor_urdf_load(s, F.path[f], NULL, &r)) fail_msg("%s: %s", F.path[f], arbor_last_error());
        uint32_t dof = arbor_urdf_dof(r), L = arbor_urdf_link_count(r);
        double *q = calloc((size_t)CONFIGS * dof + 1, sizeof *q);
        arbor_real *batch = malloc(sizeof(arbor_real) * 16 * L * CONFIGS), *one = malloc(sizeof(arbor_real) * 16 * L);
        assert_true(q && batch && one);
        char configs[600], out[600], args[2000];
        snprintf(configs, sizeof configs, "%s/urdf_configs_%d.txt", OUT_DIR, f);
        snprintf(out, sizeof out, "%s/urdf_fk_%d.txt", OUT_DIR, f);
        random_configs(r, &rng, q, configs);
        snprintf(args, sizeof args, "fk '%s' '%s' '%s'", F.path[f], configs, out);
        run_oracle(args);
        assert_int_equal(arbor_urdf_forward_kinematics(r, q, CONFIGS, batch), ARBOR_OK);
        char *text = slurp(out);
        int c = -1;
        uint32_t seen = 0;
        double worst_scene = 0, worst_batch = 0; /* printed: the precision's margin under FK_TOL */
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            int k;
            if (sscanf(line, "config %d", &k) == 1) {
                if (c >= 0) assert_int_equal(seen, L);
                c = k, seen = 0;
                assert_int_equal(arbor_urdf_set_positions(r, q + (size_t)c * dof, dof), ARBOR_OK);
                assert_int_equal(arbor_urdf_forward_kinematics(r, q + (size_t)c * dof, 1, one), ARBOR_OK);
                assert_memory_equal(one, batch + (size_t)c * L * 16, sizeof(arbor_real) * 16 * L);
                continue;
            }
            char name[256];
            int used = 0;
            assert_int_equal(sscanf(line, "%255s%n", name, &used), 1);
            double kdl[16];
            char *p = line + used;
            for (int e = 0; e < 16; e++) kdl[e] = strtod(p, &p);
            uint32_t i = link_index(r, name);
            arbor_real world[16];
            assert_int_equal(arbor_node_world_matrix(s, arbor_urdf_link_node(r, i), world), ARBOR_OK);
            for (int e = 0; e < 16; e++) {
                double b = batch[((size_t)c * L + i) * 16 + (size_t)e];
                worst_scene = fmax(worst_scene, fabs(world[e] - kdl[e])), worst_batch = fmax(worst_batch, fabs(b - kdl[e]));
                if (!(fabs(world[e] - kdl[e]) <= FK_TOL) || !(fabs(b - kdl[e]) <= FK_TOL))
                    fail_msg("%s: config %d, link %s, element %d: scene %.12g, batch %.12g, KDL %.12g", F.path[f], c, name, e,
                             (double)world[e], b, kdl[e]);
            }
            seen++;
        }
        assert_int_equal(c, CONFIGS - 1);
        assert_int_equal(seen, L);
        print_message("%s: max |scene - KDL| %.3g, max |batch - KDL| %.3g\n", F.path[f], worst_scene, worst_batch);
        free(text);
        free(q);
        free(batch);
        free(one);
        arbor_urdf_destroy(r);
        arbor_scene_destroy(s);
    }
}

/* ---- hostile files ---------------------------------------------------------------------------- */

static const char secret_marker[] = "SECRET-7f3a9c-not-for-messages";

typedef struct hostile {
    const char *name, *text;
    uint32_t line;
    const char *reason;
} hostile;

#define LINK(n) "<link name=\"" n "\"/>\n"
/* The start of joint 'j' of type from link base to link a, after those links: lines 1 to 4. */
#define JOINT_J(type) "<robot name=\"r\">\n" LINK("base") LINK("a") "<joint name=\"j\" type=\"" type "\"><parent link=\"base\"/><child link=\"a\"/>\n"
#define JOINT(n, type, p, c, extra) \
    "<joint name=\"" n "\" type=\"" type "\"><parent link=\"" p "\"/><child link=\"" c "\"/>" extra "</joint>\n"

static const hostile hostiles[] = {
    { "billion_laughs",
      "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n <!ENTITY a \"aaaaaaaaaa\">\n <!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n"
      " <!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n <!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">\n"
      " <!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">\n <!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">\n"
      " <!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\">\n <!ENTITY h \"&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;\">\n"
      " <!ENTITY i \"&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;\">\n]>\n<robot name=\"&i;\">" LINK("base") "</robot>\n",
      13, "entity" }, /* libxml2 stops the expansion where it is asked for */
    { "external_entity",
      "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [ <!ENTITY x SYSTEM \"file://" OUT_DIR "/urdf_secret.txt\"> ]>\n"
      "<robot name=\"r\"><link name=\"a\">&x;</link></robot>\n",
      2, "DOCTYPE" },
    { "external_entity_attribute",
      "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [ <!ENTITY x SYSTEM \"file://" OUT_DIR "/urdf_secret.txt\"> ]>\n"
      "<robot name=\"r\"><link name=\"&x;\"/></robot>\n",
      3, "external entity" },
    { "million_links",
      "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n <!ENTITY l \"<link name='x'/>\">\n <!ENTITY m \"&l;&l;&l;&l;&l;&l;&l;&l;&l;&l;\">\n"
      " <!ENTITY n \"&m;&m;&m;&m;&m;&m;&m;&m;&m;&m;\">\n <!ENTITY o \"&n;&n;&n;&n;&n;&n;&n;&n;&n;&n;\">\n"
      " <!ENTITY p \"&o;&o;&o;&o;&o;&o;&o;&o;&o;&o;\">\n <!ENTITY q \"&p;&p;&p;&p;&p;&p;&p;&p;&p;&p;\">\n"
      " <!ENTITY r \"&q;&q;&q;&q;&q;&q;&q;&q;&q;&q;\">\n]>\n<robot name=\"r\">&r;</robot>\n",
      11, "entity" },
    { "deep_nesting", NULL, 1, "not well-formed XML" }, /* written by the test: 10,000 nested elements */
    { "joint_cycle",
      "<robot name=\"r\">\n" LINK("base") LINK("a") LINK("b") JOINT("j0", "fixed", "base", "c", "") LINK("c")
      JOINT("ja", "fixed", "a", "b", "") JOINT("jb", "fixed", "b", "a", "") "</robot>\n",
      8, "cycle" },
    { "two_parents",
      "<robot name=\"r\">\n" LINK("base") LINK("a") JOINT("j1", "fixed", "base", "a", "") JOINT("j2", "fixed", "base", "a", "")
      "</robot>\n",
      5, "two parents" },
    { "missing_link",
      "<robot name=\"r\">\n" LINK("base") JOINT("j1", "fixed", "base", "ghost", "") "</robot>\n", 3,
      "child link 'ghost' is not a link" },
    { "two_roots", "<robot name=\"r\">\n" LINK("base") LINK("other") "</robot>\n", 3, "two root links" },
    { "nan_origin",
      JOINT_J("fixed")
      "<origin xyz=\"0 nan 0\"/></joint>\n</robot>\n",
      5, "NaN or infinity" },
    { "inf_axis",
      JOINT_J("continuous")
      "\n<axis xyz=\"0 0 inf\"/></joint>\n</robot>\n",
      6, "NaN or infinity" },
    { "zero_axis",
      JOINT_J("continuous")
      "<axis xyz=\"0 0 0\"/></joint>\n</robot>\n",
      5, "axis is zero" },
    { "lower_above_upper",
      JOINT_J("revolute")
      "\n<limit lower=\"2\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n</robot>\n",
      6, "lower limit 2 is above upper limit 1" },
    { "visual_without_geometry", "<robot name=\"r\">\n<link name=\"a\">\n<visual><origin xyz=\"0 0 1\"/></visual></link>\n</robot>\n",
      3, "link 'a': <visual>: no <geometry>" },
    { "unknown_shape", "<robot name=\"r\">\n<link name=\"a\"><collision>\n<geometry>\n<cone radius=\"1\"/></geometry></collision></link></robot>\n",
      4, "unknown shape <cone>" },
    { "negative_radius", "<robot name=\"r\">\n<link name=\"a\"><visual><geometry>\n\n<sphere radius=\"-0.5\"/></geometry></visual></link></robot>\n",
      4, "a negative size" },
    { "cylinder_without_length", "<robot name=\"r\">\n<link name=\"a\"><visual><geometry>\n<cylinder radius=\"1\"/></geometry></visual></link></robot>\n",
      3, "<cylinder> without its length" },
    { "mesh_without_filename", "<robot name=\"r\">\n<link name=\"a\"><visual><geometry><mesh scale=\"1 1 1\"/></geometry></visual></link></robot>\n",
      2, "<mesh> without a filename" },
    { "box_of_two_sides", "<robot name=\"r\">\n<link name=\"a\"><visual><geometry><box size=\"1 2\"/></geometry></visual></link></robot>\n",
      2, "not 3 numbers" },
    { "nan_box", "<robot name=\"r\">\n<link name=\"a\"><visual><geometry><box size=\"1 nan 2\"/></geometry></visual></link></robot>\n",
      2, "NaN or infinity" },
};

static const char *hostile_text(const char *name)
{
    for (size_t h = 0; h < sizeof hostiles / sizeof hostiles[0]; h++)
        if (!strcmp(hostiles[h].name, name)) return hostiles[h].text;
    fail_msg("no hostile file '%s'", name);
    return NULL;
}

static void write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
}

static void test_hostile_files_refused_with_file_line_reason(void **state)
{
    (void)state;
    char secret[600];
    snprintf(secret, sizeof secret, "%s/urdf_secret.txt", OUT_DIR);
    write_file(secret, secret_marker, strlen(secret_marker));
    arbor_scene *s;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    for (size_t h = 0; h < sizeof hostiles / sizeof hostiles[0]; h++) {
        char path[600];
        snprintf(path, sizeof path, "%s/urdf_hostile_%s.urdf", OUT_DIR, hostiles[h].name);
        if (hostiles[h].text) {
            write_file(path, hostiles[h].text, strlen(hostiles[h].text));
            if (strcmp(hostiles[h].name, "million_links") == 0) assert_true(strlen(hostiles[h].text) <= 1024);
        } else {
            size_t depth = 10000, n = depth * 7 + 32;
            char *deep = malloc(n), *p = deep;
            assert_non_null(deep);
            p += sprintf(p, "<robot name=\"r\">");
            for (size_t d = 0; d < depth; d++) p += sprintf(p, "<a>");
            write_file(path, deep, (size_t)(p - deep));
            free(deep);
        }
        arbor_urdf *r = (arbor_urdf *)&h; /* untouched when refused */
        arbor_result res = arbor_urdf_load(s, path, NULL, &r);
        arbor_error_info info = arbor_last_error_info();
        print_message("%s: %s\n", hostiles[h].name, arbor_last_error());
        assert_int_equal(res, ARBOR_ERR_PARSE);
        assert_ptr_equal(r, (arbor_urdf *)&h);
        assert_string_equal(info.file, path);
        if (strcmp(hostiles[h].name, "deep_nesting") != 0) assert_int_equal(info.line, hostiles[h].line);
        else assert_true(info.line >= 1);
        if (!strstr(info.message, hostiles[h].reason)) fail_msg("%s: '%s' lacks '%s'", hostiles[h].name, info.message, hostiles[h].reason);
        assert_null(strstr(info.message, secret_marker));
        assert_int_equal(arbor_scene_node_count(s), 0);
    }
    arbor_scene_destroy(s);
}

/* ---- geometry ------------------------------------------------------------------------------- */

/* base: a box turned a quarter about z, and a mesh; arm (on a revolute joint about x, origin
   0 0 1): a cylinder lying along y (rolled a quarter), a sphere in its collision, a cylinder
   tilted 45 degrees about y; meshes: a mesh only, so no bounds. */
static const char shapes_urdf[] =
    "<robot name=\"shapes\">\n"
    "<link name=\"base\"><visual><origin xyz=\"1 2 3\" rpy=\"0 0 1.5707963267948966\"/><geometry><box size=\"0.2 0.4 0.6\"/></geometry></visual>\n"
    "<collision><geometry><mesh filename=\"package://shapes/base.stl\" scale=\"2 2 2\"/></geometry></collision></link>\n"
    "<link name=\"arm\"><visual><origin xyz=\"0 0 0.5\" rpy=\"1.5707963267948966 0 0\"/><geometry><cylinder radius=\"0.1\" length=\"1\"/></geometry></visual>\n"
    "<collision><origin xyz=\"0 0 2\"/><geometry><sphere radius=\"0.05\"/></geometry></collision></link>\n"
    "<link name=\"tilted\"><visual><origin rpy=\"0 0.78539816339744828 0\"/><geometry><cylinder radius=\"0.1\" length=\"1\"/></geometry></visual></link>\n"
    "<link name=\"meshes\"><visual><geometry><mesh filename=\"meshes/hand.dae\"/></geometry></visual></link>\n"
    JOINT("shoulder", "revolute", "base", "arm", "<origin xyz=\"0 0 1\"/><axis xyz=\"1 0 0\"/><limit lower=\"-2\" upper=\"2\" effort=\"1\" velocity=\"1\"/>")
    JOINT("fix", "fixed", "arm", "tilted", "") JOINT("fix2", "fixed", "arm", "meshes", "")
    "</robot>\n";

static void assert_box(arbor_scene *s, arbor_node n, bool world, const double lo[3], const double hi[3])
{
    arbor_real a[3], b[3];
    assert_int_equal(world ? arbor_node_world_bounds(s, n, a, b) : arbor_node_bounds(s, n, a, b), ARBOR_OK);
    for (int k = 0; k < 3; k++) {
        ASSERT_NEAR(a[k], lo[k], FK_TOL);
        ASSERT_NEAR(b[k], hi[k], FK_TOL);
    }
}

static void test_geometry_bounds_links(void **state)
{
    (void)state;
    arbor_scene *s;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_urdf *r = NULL;
    assert_int_equal(arbor_urdf_load_memory(s, shapes_urdf, sizeof shapes_urdf - 1, NULL, NULL, &r), ARBOR_OK);
    assert_int_equal(arbor_urdf_geometry_count(r), 6);
    arbor_urdf_geometry g;
    assert_int_equal(arbor_urdf_geometry_info(r, 1, &g), ARBOR_OK); /* base's collision, in file order */
    assert_true(g.collision && g.shape == ARBOR_URDF_MESH && g.link == 0);
    assert_string_equal(g.mesh, "package://shapes/base.stl");
    assert_true(g.size[0] == 2 && g.size[1] == 2 && g.size[2] == 2);
    assert_int_equal(arbor_urdf_geometry_info(r, 2, &g), ARBOR_OK);
    assert_true(!g.collision && g.shape == ARBOR_URDF_CYLINDER && g.size[0] == 0.1 && g.size[1] == 1 && !g.mesh);
    assert_string_equal(arbor_urdf_link_name(r, g.link), "arm");
    assert_true(g.origin_rpy[0] == 1.5707963267948966 && g.origin_xyz[2] == 0.5);
    assert_int_equal(arbor_urdf_geometry_info(r, 5, &g), ARBOR_OK);
    assert_true(g.shape == ARBOR_URDF_MESH && g.size[0] == 1 && g.size[2] == 1); /* scale: 1 when not given */
    assert_string_equal(g.mesh, "meshes/hand.dae");
    assert_int_equal(arbor_urdf_geometry_info(r, 6, &g), ARBOR_ERR_INVALID_ARGUMENT);

    /* base: the box turned a quarter: x and y sides swap; the mesh adds nothing */
    assert_box(s, arbor_urdf_find_link(r, "base"), false, (double[]){ 0.8, 1.9, 2.7 }, (double[]){ 1.2, 2.1, 3.3 });
    /* arm: the cylinder along y, radius 0.1 about its axis; the sphere up to z = 2.05 */
    assert_box(s, arbor_urdf_find_link(r, "arm"), false, (double[]){ -0.1, -0.5, 0.4 }, (double[]){ 0.1, 0.5, 2.05 });
    /* tilted: its ends' rims reach l/2 sin 45 + r cos 45 in x and z, r in y */
    double e = (0.5 + 0.1) * sqrt(0.5);
    assert_box(s, arbor_urdf_find_link(r, "tilted"), false, (double[]){ -e, -0.1, -e }, (double[]){ e, 0.1, e });
    arbor_real lo[3], hi[3];
    assert_int_equal(arbor_node_bounds(s, arbor_urdf_find_link(r, "meshes"), lo, hi), ARBOR_OK);
    assert_true(lo[0] > hi[0]); /* a mesh only: no bounds */

    /* the shoulder turned a quarter about x: the arm's box in the world, y -> z, z -> -y, 1 up */
    assert_int_equal(arbor_urdf_set_position(r, "shoulder", 1.5707963267948966), ARBOR_OK);
    assert_box(s, arbor_urdf_find_link(r, "arm"), true, (double[]){ -0.1, -2.05, 0.5 }, (double[]){ 0.1, -0.4, 1.5 });
    assert_int_equal(arbor_node_subtree_bounds(s, arbor_urdf_link_node(r, 0), lo, hi), ARBOR_OK);
    ASSERT_NEAR(lo[1], -2.05, FK_TOL);
    ASSERT_NEAR(hi[2], 3.3, FK_TOL);
    arbor_urdf_destroy(r);
    arbor_scene_destroy(s);
}

/* ---- joints the shared robots lack ----------------------------------------------------------- */

/* base -(floating)- body -(planar about z)- plate -(continuous about -y)- wheel -(revolute about
   (1 1 0))- arm -(prismatic along -x)- tip; arm -(revolute about z, mimic of tilt x -2 + 0.1)- twin */
static const char joints_urdf[] =
    "<robot name=\"joints\">\n" LINK("base") LINK("body") LINK("plate") LINK("wheel") LINK("arm") LINK("tip") LINK("twin")
    JOINT("float", "floating", "base", "body", "<origin xyz=\"0.1 0.2 0.3\" rpy=\"0.1 0.2 0.3\"/>")
    JOINT("slide2d", "planar", "body", "plate", "<origin xyz=\"1 0 0\"/><axis xyz=\"0 0 1\"/>")
    JOINT("spin", "continuous", "plate", "wheel", "<origin rpy=\"0.3 -0.2 0.1\"/><axis xyz=\"0 -1 0\"/>")
    JOINT("tilt", "revolute", "wheel", "arm", "<axis xyz=\"1 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>")
    JOINT("reach", "prismatic", "arm", "tip", "<origin xyz=\"0 0 1\"/><axis xyz=\"-1 0 0\"/><limit lower=\"0\" upper=\"0.5\" effort=\"1\" velocity=\"1\"/>")
    JOINT("follow", "revolute", "arm", "twin", "<axis xyz=\"0 0 1\"/><limit lower=\"-9\" upper=\"9\" effort=\"1\" velocity=\"1\"/><mimic joint=\"tilt\" multiplier=\"-2\" offset=\"0.1\"/>")
    "</robot>\n";

static void world_of(arbor_scene *s, const arbor_urdf *r, const char *link, arbor_real m[16])
{
    assert_int_equal(arbor_node_world_matrix(s, arbor_urdf_find_link(r, link), m), ARBOR_OK);
}

/* out = T(t) R(angle about unit axis) */
static void ref_axis_angle(double out[16], const double t[3], double x, double y, double z, double angle)
{
    const double q[4] = { x * sin(angle / 2), y * sin(angle / 2), z * sin(angle / 2), cos(angle / 2) }, one[3] = { 1, 1, 1 };
    test_ref_compose(out, t, q, one);
}

/* out = T(xyz) Rz(yaw) Ry(pitch) Rx(roll): URDF's fixed-axis roll, pitch, yaw */
static void ref_origin(double out[16], const double xyz[3], const double rpy[3])
{
    const double qx[4] = { sin(rpy[0] / 2), 0, 0, cos(rpy[0] / 2) }, qy[4] = { 0, sin(rpy[1] / 2), 0, cos(rpy[1] / 2) },
                 qz[4] = { 0, 0, sin(rpy[2] / 2), cos(rpy[2] / 2) }, one[3] = { 1, 1, 1 };
    double zy[4], q[4];
    test_ref_quat_mul(zy, qz, qy);
    test_ref_quat_mul(q, zy, qx);
    test_ref_compose(out, xyz, q, one);
}

/* joints_urdf's links' worlds (column-major) at q (dof 13: float x y z qx qy qz qw, slide2d a b c,
   spin, tilt, reach) */
static void joints_expected(const double *q, double world[7][16])
{
    const double zero[3] = { 0, 0, 0 }, one[3] = { 1, 1, 1 }, h = sqrt(0.5);
    double o[16], t[16];
    ref_axis_angle(world[0], zero, 0, 0, 1, 0);
    ref_origin(o, (const double[3]){ 0.1, 0.2, 0.3 }, (const double[3]){ 0.1, 0.2, 0.3 });
    test_ref_compose(t, q, q + 3, one); /* the quaternion normalised there */
    test_ref_mul(world[1], o, t);
    ref_axis_angle(t, (const double[3]){ 1 + q[7], q[8], 0 }, 0, 0, 1, q[9]); /* origin (1 0 0), then the plane x y */
    test_ref_mul(world[2], world[1], t);
    ref_origin(o, zero, (const double[3]){ 0.3, -0.2, 0.1 });
    ref_axis_angle(t, zero, 0, -1, 0, q[10]);
    test_ref_mul(o, o, t);
    test_ref_mul(world[3], world[2], o);
    ref_axis_angle(t, zero, h, h, 0, q[11]);
    test_ref_mul(world[4], world[3], t);
    ref_axis_angle(t, (const double[3]){ -q[12], 0, 1 }, 0, 0, 1, 0);
    test_ref_mul(world[5], world[4], t);
    ref_axis_angle(t, zero, 0, 0, 1, -2 * q[11] + 0.1);
    test_ref_mul(world[6], world[4], t);
}

/* Floating and planar joints (none of the shared robots has one, and KDL reads neither).
   world -(floating, origin with rpy)- body; body -(planar about z, origin 0 0 0.25)- sled;
   body -(planar about x)- tilted, whose plane's first direction is y x axis = (0, 0, -1) and
   second axis x that = y. */
static const char mover_urdf[] =
    "<robot name=\"mover\">\n" LINK("world") LINK("body") LINK("sled") LINK("tilted")
    JOINT("free", "floating", "world", "body", "<origin xyz=\"0.5 -1 2\" rpy=\"0.3 -0.2 0.7\"/>")
    JOINT("plane", "planar", "body", "sled", "<origin xyz=\"0 0 0.25\"/><axis xyz=\"0 0 1\"/>")
    JOINT("side", "planar", "body", "tilted", "<axis xyz=\"2 0 0\"/>")
    "</robot>\n";

/* A new scene with two robots of text: one refusing values outside limits, one clamping them. */
static void load_plain_and_clamping(arbor_scene **s, const char *text, size_t size, arbor_urdf **r, arbor_urdf **clamps)
{
    const arbor_urdf_options clamp = { .clamp = true };
    assert_int_equal(arbor_scene_create(NULL, s), ARBOR_OK);
    assert_int_equal(arbor_urdf_load_memory(*s, text, size, NULL, NULL, r), ARBOR_OK);
    assert_int_equal(arbor_urdf_load_memory(*s, text, size, NULL, &clamp, clamps), ARBOR_OK);
}

/* Floating and planar joints, an axis off the coordinate axes, negative axes, a mimic with a
   negative multiplier, angles far outside [-pi, pi] (up to 3e5 rad): the links' worlds from the
   batch, the scene and a clamping robot equal double products computed here from urdf.h's
   definitions (joints_urdf); mover_urdf: the positions at load, a planar joint about x, and a
   zero quaternion refused by set_positions (nothing changed) and by a batch (its row named). */
static void test_floating_planar_and_other_joints(void **state)
{
    (void)state;
    arbor_scene *s;
    arbor_urdf *r, *clamps;
    load_plain_and_clamping(&s, joints_urdf, sizeof joints_urdf - 1, &r, &clamps);
    assert_int_equal(arbor_urdf_dof(r), 13);
    static const char *order[] = { "base", "body", "plate", "wheel", "arm", "tip", "twin" };
    for (uint32_t i = 0; i < 7; i++) assert_string_equal(arbor_urdf_link_name(r, i), order[i]);
    double q[3][13] = { { 0.5, -0.25, 0.75, 1, 2, 3, 4, 0.3, -0.7, 1000.25, -31415.5, 0.6, 0.2 },
                        { -1, 0, 2, 0, 0, -0.5, 0.1, 0, 0, -3, 2e5, -1, 0.5 },
                        { 0, 0, 0, 0.1, 0, 0, 0, 2, 2, 7, 3e5, 0.99, 0 } };
    arbor_real out[3][7][16], one[7][16];
    assert_int_equal(arbor_urdf_forward_kinematics(r, q[0], 3, out[0][0]), ARBOR_OK);
    for (int c = 0; c < 3; c++) {
        double world[7][16];
        joints_expected(q[c], world);
        assert_int_equal(arbor_urdf_set_positions(r, q[c], 13), ARBOR_OK);
        assert_int_equal(arbor_urdf_forward_kinematics(r, q[c], 1, one[0]), ARBOR_OK);
        assert_memory_equal(one, out[c], sizeof one); /* a batch of one, the same bits */
        for (int i = 0; i < 7; i++) {
            arbor_real m[16];
            arbor_node_world_matrix(s, arbor_urdf_link_node(r, (uint32_t)i), m);
            for (int e = 0; e < 16; e++) {
                ASSERT_NEAR(out[c][i][e], world[i][e], FK_TOL);
                ASSERT_NEAR(m[e], world[i][e], FK_TOL * 10);
            }
        }
    }
    /* clamping: tilt 3 -> 1 (and its mimic with it), reach -1 -> 0 */
    double over[13] = { 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 3, -1 }, at[13] = { 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 }, world[7][16];
    joints_expected(at, world);
    assert_int_equal(arbor_urdf_forward_kinematics(r, over, 1, one[0]), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_urdf_forward_kinematics(clamps, over, 1, one[0]), ARBOR_OK);
    for (int i = 0; i < 7; i++)
        for (int e = 0; e < 16; e++) ASSERT_NEAR(one[i][e], world[i][e], FK_TOL);
    double zero_q[13] = { 0 };
    assert_int_equal(arbor_urdf_forward_kinematics(r, zero_q, 1, one[0]), ARBOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(arbor_last_error(), "row 0: joint 'float' (positions 3 to 6): the quaternion is zero"));
    arbor_urdf_destroy(clamps);
    arbor_urdf_destroy(r);

    assert_int_equal(arbor_urdf_load_memory(s, mover_urdf, sizeof mover_urdf - 1, NULL, NULL, &r), ARBOR_OK);
    assert_int_equal(arbor_urdf_dof(r), 7 + 3 + 3);
    arbor_urdf_joint j;
    assert_int_equal(arbor_urdf_joint_info(r, 0, &j), ARBOR_OK);
    assert_int_equal(j.type, ARBOR_URDF_FLOATING);
    assert_int_equal(j.position_count, 7);
    assert_int_equal(arbor_urdf_joint_info(r, 1, &j), ARBOR_OK);
    assert_int_equal(j.type, ARBOR_URDF_PLANAR);
    assert_int_equal(j.position_count, 3);
    double p[13];
    assert_int_equal(arbor_urdf_positions(r, p, 13), ARBOR_OK);
    for (int k = 0; k < 13; k++) assert_true(p[k] == (k == 6)); /* the floating joint at the identity */
    const double set[13] = { 0.3, -0.4, 1.5, 1, 2, 2, 4, /* |q| = 5: normalised */
                             0.7, -0.2, 0.9, 0.25, -0.5, -1.1 };
    double origin[16], motion[16], body[16], step[16], sled[16], tilted[16];
    ref_origin(origin, (const double[3]){ 0.5, -1, 2 }, (const double[3]){ 0.3, -0.2, 0.7 });
    assert_int_equal(arbor_urdf_set_positions(r, set, 13), ARBOR_OK);
    test_ref_compose(motion, set, (const double[4]){ 0.2, 0.4, 0.4, 0.8 }, (const double[3]){ 1, 1, 1 });
    test_ref_mul(body, origin, motion);
    /* sled: body T(0, 0, 0.25) T(0.7, -0.2, 0) Rz(0.9) */
    ref_axis_angle(step, (const double[3]){ 0.7, -0.2, 0.25 }, 0, 0, 1, 0.9);
    test_ref_mul(sled, body, step);
    /* tilted: body T(0.25 (0, 0, -1) - 0.5 (0, 1, 0)) Rx(-1.1) */
    ref_axis_angle(step, (const double[3]){ 0, -0.5, -0.25 }, 1, 0, 0, -1.1);
    test_ref_mul(tilted, body, step);
    arbor_real m[16];
    world_of(s, r, "body", m);
    ASSERT_MAT4_NEAR_D_REL(m, body, FK_TOL);
    world_of(s, r, "sled", m);
    ASSERT_MAT4_NEAR_D_REL(m, sled, FK_TOL);
    world_of(s, r, "tilted", m);
    ASSERT_MAT4_NEAR_D_REL(m, tilted, FK_TOL);
    /* a batch row gives the same, relative to the root link (world, at the identity) */
    arbor_real rows[4 * 16];
    assert_int_equal(arbor_urdf_forward_kinematics(r, set, 1, rows), ARBOR_OK);
    ASSERT_MAT4_NEAR_D_REL(rows + 16 * link_index(r, "tilted"), tilted, FK_TOL);
    /* a zero quaternion is refused, nothing changed */
    double bad[13];
    memcpy(bad, set, sizeof bad);
    bad[3] = bad[4] = bad[5] = bad[6] = 0;
    uint64_t version = arbor_node_world_version(s, arbor_urdf_find_link(r, "body"));
    assert_int_equal(arbor_urdf_set_positions(r, bad, 13), ARBOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(arbor_last_error(), "'free'"));
    assert_int_equal(arbor_node_world_version(s, arbor_urdf_find_link(r, "body")), version);
    world_of(s, r, "body", m);
    ASSERT_MAT4_NEAR_D_REL(m, body, FK_TOL);
    arbor_urdf_destroy(r);
    arbor_scene_destroy(s);
}

/* ---- positions -------------------------------------------------------------------------------- */

/* base -(revolute z, [-1, 0.5])- arm -(prismatic x, [0.1, 0.3], origin 1 0 0)- slider;
   finger mimics the revolute joint (x2 + 0.25) about y. */
static const char arm_urdf[] =
    "<robot name=\"arm\">\n" LINK("base") LINK("arm") LINK("slider") LINK("finger")
    JOINT("shoulder", "revolute", "base", "arm", "<axis xyz=\"0 0 2\"/><limit lower=\"-1\" upper=\"0.5\" effort=\"1\" velocity=\"1\"/>")
    JOINT("slide", "prismatic", "arm", "slider", "<origin xyz=\"1 0 0\"/><axis xyz=\"1 0 0\"/><limit lower=\"0.1\" upper=\"0.3\" effort=\"1\" velocity=\"1\"/>")
    JOINT("grip", "revolute", "arm", "finger", "<axis xyz=\"0 1 0\"/><limit lower=\"-9\" upper=\"9\" effort=\"1\" velocity=\"1\"/><mimic joint=\"shoulder\" multiplier=\"2\" offset=\"0.25\"/>")
    "</robot>\n";

static arbor_urdf *load_arm(arbor_scene *s, bool clamp)
{
    arbor_urdf_options o = { .clamp = clamp };
    arbor_urdf *r = NULL;
    assert_int_equal(arbor_urdf_load_memory(s, arm_urdf, sizeof arm_urdf - 1, NULL, &o, &r), ARBOR_OK);
    return r;
}

static void test_positions_limits_mimic_refusals(void **state)
{
    (void)state;
    arbor_scene *s;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_urdf *r = load_arm(s, false);
    assert_int_equal(arbor_urdf_dof(r), 2);
    assert_int_equal(arbor_urdf_link_count(r), 4);
    assert_string_equal(arbor_urdf_name(r), "arm");
    double q[2];
    assert_int_equal(arbor_urdf_positions(r, q, 2), ARBOR_OK);
    assert_true(q[0] == 0 && q[1] == 0.1); /* 0 is below slide's limits: the nearest, 0.1 */
    arbor_real m[16];
    world_of(s, r, "slider", m);
    ASSERT_NEAR(m[12], 1.1, TEST_EPS);

    double good[2] = { 0.4, 0.2 };
    assert_int_equal(arbor_urdf_set_positions(r, good, 2), ARBOR_OK);
    /* slider: Rz(0.4) * (1 + 0.2, 0, 0); finger: Rz(0.4) Ry(2 * 0.4 + 0.25) */
    world_of(s, r, "slider", m);
    ASSERT_NEAR(m[12], 1.2 * cos(0.4), TEST_EPS);
    ASSERT_NEAR(m[13], 1.2 * sin(0.4), TEST_EPS);
    world_of(s, r, "finger", m);
    double a = 1.05; /* finger's x axis: Rz(0.4) (cos a, 0, -sin a) */
    ASSERT_NEAR(m[0], cos(0.4) * cos(a), TEST_EPS);
    ASSERT_NEAR(m[1], sin(0.4) * cos(a), TEST_EPS);
    ASSERT_NEAR(m[2], -sin(a), TEST_EPS);

    /* refusals change nothing: matrices, versions, positions */
    arbor_real before[16];
    world_of(s, r, "finger", before);
    uint64_t version = arbor_node_world_version(s, arbor_urdf_find_link(r, "finger"));
    double outside[2] = { 0.6, 0.2 }, nan2[2] = { 0.1, NAN };
    assert_int_equal(arbor_urdf_set_positions(r, outside, 2), ARBOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(arbor_last_error(), "joint 'shoulder' (position 0): 0.6 is outside its limits [-1, 0.5]"));
    assert_int_equal(arbor_urdf_set_positions(r, nan2, 2), ARBOR_ERR_NONFINITE);
    assert_non_null(strstr(arbor_last_error(), "joint 'slide'"));
    assert_int_equal(arbor_urdf_set_positions(r, good, 1), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_urdf_set_position(r, "grip", 0.1), ARBOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(arbor_last_error(), "mimic"));
    assert_int_equal(arbor_urdf_set_position(r, "nope", 0.1), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_urdf_set_position(r, "slide", 0.35), ARBOR_ERR_INVALID_ARGUMENT);
    world_of(s, r, "finger", m);
    assert_memory_equal(m, before, sizeof m);
    assert_int_equal(arbor_node_world_version(s, arbor_urdf_find_link(r, "finger")), version);
    assert_int_equal(arbor_urdf_positions(r, q, 2), ARBOR_OK);
    assert_true(q[0] == 0.4 && q[1] == 0.2);

    /* one joint */
    assert_int_equal(arbor_urdf_set_position(r, "slide", 0.3), ARBOR_OK);
    world_of(s, r, "slider", m);
    ASSERT_NEAR(m[12], 1.3 * cos(0.4), TEST_EPS);
    assert_int_equal(arbor_urdf_positions(r, q, 2), ARBOR_OK);
    assert_true(q[0] == 0.4 && q[1] == 0.3);

    /* a batch with one bad row writes nothing and names the row */
    double rows[6] = { 0, 0.1, 0.2, 0.2, 0.7, 0.2 };
    arbor_real out[3 * 4 * 16];
    memset(out, 0x5a, sizeof out);
    arbor_real sentinel[3 * 4 * 16];
    memcpy(sentinel, out, sizeof out);
    assert_int_equal(arbor_urdf_forward_kinematics(r, rows, 3, out), ARBOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(arbor_last_error(), "row 2: joint 'shoulder'"));
    assert_memory_equal(out, sentinel, sizeof out);
    rows[4] = 0.5;
    assert_int_equal(arbor_urdf_forward_kinematics(r, rows, 3, out), ARBOR_OK);
    ASSERT_NEAR(out[(1 * 4 + 2) * 16 + 12], 1.2 * cos(0.2), TEST_EPS); /* row 1, link slider */
    arbor_urdf_destroy(r);

    /* clamping */
    r = load_arm(s, true);
    assert_int_equal(arbor_urdf_set_positions(r, outside, 2), ARBOR_OK);
    assert_int_equal(arbor_urdf_positions(r, q, 2), ARBOR_OK);
    assert_true(q[0] == 0.5 && q[1] == 0.2);
    assert_int_equal(arbor_urdf_set_positions(r, nan2, 2), ARBOR_ERR_NONFINITE);
    arbor_urdf_destroy(r);
    arbor_scene_destroy(s);
}

/* base -(fixed, origin 0 0 1, rpy 0 0 0.5)- plate -(continuous about -z)- arm: set_positions
   writes every link's local, a fixed link's too, though set_positions computes a fixed joint's
   once at load: a fixed link moved by hand goes back to its origin at the next call, and its
   child with it. The turn about minus a coordinate axis from an origin that does not turn (a
   path of its own in set_positions) keeps its sign. Expected by hand: plate at Tz(1) Rz(0.5),
   arm at Tz(1) Rz(0.5 - q). */
static const char fixed_urdf[] =
    "<robot name=\"fixed\">\n" LINK("base") LINK("plate") LINK("arm")
    JOINT("weld", "fixed", "base", "plate", "<origin xyz=\"0 0 1\" rpy=\"0 0 0.5\"/>")
    JOINT("turn", "continuous", "plate", "arm", "<axis xyz=\"0 0 -1\"/>")
    "</robot>\n";

static const char spin_urdf[] =
    "<robot name=\"spin\">\n" LINK("base") LINK("wheel")
    JOINT("spin", "continuous", "base", "wheel", "<axis xyz=\"0 0 1\"/>")
    "</robot>\n";

/* The batch's sines and cosines within a few units in the last place of arbor_real, against
   libm's in double: angles across [-2 pi - 1/2, 2 pi + 1/2] (every quadrant, and the multiples
   of pi/4 where the reduction's quadrant turns), large ones, and ones past 1e5 (libm's). */
static void test_batch_sincos_within_ulps(void **state)
{
    (void)state;
    enum { EVEN = 4001, QUARTERS = 17, N = EVEN + 2 * QUARTERS + 5 };
    const double pi = 3.14159265358979323846;
    double *q = malloc(sizeof(double) * N);
    arbor_real *out = malloc(sizeof(arbor_real) * 32 * N);
    assert_true(q && out);
    int n = 0;
    for (int k = 0; k < EVEN; k++) q[n++] = -2 * pi - 0.5 + (4 * pi + 1) * k / (EVEN - 1);
    for (int k = -8; k <= 8; k++) q[n++] = k * pi / 4 * (1 + 1e-15), q[n++] = k * pi / 4 * (1 - 1e-15);
    q[n++] = 1000.25, q[n++] = -31415.5, q[n++] = 99999.5, q[n++] = -2.5e5, q[n++] = 1e10; /* 1e10: n past 2^31 */
    assert_int_equal(n, N);
    arbor_scene *s;
    arbor_urdf *r = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_int_equal(arbor_urdf_load_memory(s, spin_urdf, sizeof spin_urdf - 1, NULL, NULL, &r), ARBOR_OK);
    assert_int_equal(arbor_urdf_forward_kinematics(r, q, N, out), ARBOR_OK);
#if ARBOR_REAL_IS_DOUBLE
    const double tol = 8 * DBL_EPSILON;
#else
    const double tol = 2 * FLT_EPSILON;
#endif
    double worst = 0;
    for (int c = 0; c < N; c++) {
        const arbor_real *m = out + 32 * (size_t)c + 16; /* the wheel: a turn about z, column-major */
        const double want[4] = { cos(q[c]), sin(q[c]), -sin(q[c]), cos(q[c]) }, got[4] = { m[0], m[1], m[4], m[5] };
        for (int e = 0; e < 4; e++) {
            worst = fmax(worst, fabs(got[e] - want[e]));
            if (!(fabs(got[e] - want[e]) <= tol)) fail_msg("angle %.17g, element %d: %.9g, libm %.17g", q[c], e, got[e], want[e]);
        }
    }
    print_message("max |batch - libm| %.3g (tolerance %.3g)\n", worst, tol);
    arbor_urdf_destroy(r);
    arbor_scene_destroy(s);
    free(q);
    free(out);
}

static void test_fixed_links_keep_their_origin(void **state)
{
    (void)state;
    arbor_scene *s;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_urdf *r = NULL;
    assert_int_equal(arbor_urdf_load_memory(s, fixed_urdf, sizeof fixed_urdf - 1, NULL, NULL, &r), ARBOR_OK);
    assert_int_equal(arbor_urdf_dof(r), 1);
    const double q[2] = { 0.25, -0.75 };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(arbor_node_set_translation(s, arbor_urdf_find_link(r, "plate"), 5, 6, 7), ARBOR_OK);
        assert_int_equal(arbor_urdf_set_positions(r, &q[k], 1), ARBOR_OK);
        arbor_real m[16];
        world_of(s, r, "plate", m);
        ASSERT_NEAR(m[0], cos(0.5), TEST_EPS);
        ASSERT_NEAR(m[1], sin(0.5), TEST_EPS);
        ASSERT_NEAR(m[12], 0, TEST_EPS);
        ASSERT_NEAR(m[13], 0, TEST_EPS);
        ASSERT_NEAR(m[14], 1, TEST_EPS);
        world_of(s, r, "arm", m);
        ASSERT_NEAR(m[0], cos(0.5 - q[k]), TEST_EPS);
        ASSERT_NEAR(m[1], sin(0.5 - q[k]), TEST_EPS);
        ASSERT_NEAR(m[14], 1, TEST_EPS);
    }
    arbor_urdf_destroy(r);
    arbor_scene_destroy(s);
}

/* A chain of 7 joints (continuous at 0 and 6, revolute within [-1, 1] between): every position
   is checked, wherever it falls among the groups of four the checks take (dof 7: one group, then
   the last four again). Each position in turn out of its limits, NaN or infinite is refused by
   set_positions (nothing changed) and by a batch (its row named); a clamping robot takes 2 and
   still refuses the infinity. */
#define CHAIN7_REVOLUTE(n, p, c) JOINT(n, "revolute", p, c, "<axis xyz=\"0 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>")
static const char chain7_urdf[] =
    "<robot name=\"chain7\">\n" LINK("l0") LINK("l1") LINK("l2") LINK("l3") LINK("l4") LINK("l5") LINK("l6") LINK("l7")
    JOINT("j0", "continuous", "l0", "l1", "<axis xyz=\"0 0 1\"/>")
    CHAIN7_REVOLUTE("j1", "l1", "l2") CHAIN7_REVOLUTE("j2", "l2", "l3") CHAIN7_REVOLUTE("j3", "l3", "l4")
    CHAIN7_REVOLUTE("j4", "l4", "l5") CHAIN7_REVOLUTE("j5", "l5", "l6")
    JOINT("j6", "continuous", "l6", "l7", "<axis xyz=\"1 0 0\"/>")
    "</robot>\n";

static void test_every_position_checked(void **state)
{
    (void)state;
    arbor_scene *s;
    arbor_urdf *r, *clamps;
    load_plain_and_clamping(&s, chain7_urdf, sizeof chain7_urdf - 1, &r, &clamps);
    assert_int_equal(arbor_urdf_dof(r), 7);
    arbor_node tip = arbor_urdf_find_link(r, "l7");
    const double good[7] = { 0.5, 0.1, -0.2, 0.3, -0.4, 0.5, 3 };
    assert_int_equal(arbor_urdf_set_positions(r, good, 7), ARBOR_OK);
    uint64_t version = arbor_node_world_version(s, tip);
    arbor_real out[2 * 8 * 16];
    for (int p = 0; p < 7; p++) {
        bool limited = p >= 1 && p <= 5;
        const double bad[3] = { limited ? 2 : INFINITY, NAN, -INFINITY };
        for (int b = 0; b < 3; b++) {
            double q[2][7];
            memcpy(q[0], good, sizeof good), memcpy(q[1], good, sizeof good);
            q[1][p] = bad[b];
            arbor_result want = b == 0 && limited ? ARBOR_ERR_INVALID_ARGUMENT : ARBOR_ERR_NONFINITE;
            char joint[16];
            snprintf(joint, sizeof joint, "joint 'j%d'", p);
            assert_int_equal(arbor_urdf_set_positions(r, q[1], 7), want);
            assert_non_null(strstr(arbor_last_error(), joint));
            assert_int_equal(arbor_urdf_forward_kinematics(r, q[0], 2, out), want);
            assert_non_null(strstr(arbor_last_error(), "row 1: "));
            assert_non_null(strstr(arbor_last_error(), joint));
            assert_int_equal(arbor_urdf_set_positions(clamps, q[1], 7), b == 0 && limited ? ARBOR_OK : ARBOR_ERR_NONFINITE);
            assert_int_equal(arbor_urdf_forward_kinematics(clamps, q[0], 2, out), b == 0 && limited ? ARBOR_OK : ARBOR_ERR_NONFINITE);
        }
    }
    assert_int_equal(arbor_node_world_version(s, tip), version);
    double q[7];
    assert_int_equal(arbor_urdf_positions(r, q, 7), ARBOR_OK);
    assert_memory_equal(q, good, sizeof q);
    arbor_urdf_destroy(clamps);
    arbor_urdf_destroy(r);
    arbor_scene_destroy(s);
}

/* Joint positions recorded at stamps: a lookup between them interpolates each link (the arm's
   shoulder turns about z, its slider 1 + slide out along the arm's x), a late record only fills
   the history, a refused one changes nothing. Expected values by hand: slider at time t is at
   Rz(a(t)) (1 + d(t), 0, 0). */
static void test_record_positions_lookup(void **state)
{
    (void)state;
    arbor_scene *s;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_urdf *r = load_arm(s, false);
    arbor_node slider = arbor_urdf_find_link(r, "slider");
    double q1[2] = { 0.0, 0.2 }, q3[2] = { 0.4, 0.2 }, q2[2] = { -0.4, 0.3 }, q[2];
    assert_int_equal(arbor_urdf_record_positions(r, 1.0, q1, 2), ARBOR_OK);
    assert_int_equal(arbor_urdf_record_positions(r, 3.0, q3, 2), ARBOR_OK);
    arbor_real m[16];
    assert_int_equal(arbor_scene_lookup(s, ARBOR_NONE, slider, 2.0, m), ARBOR_OK);
    ASSERT_NEAR(m[12], 1.2 * cos(0.2), TEST_EPS); /* the shorter arc's middle: Rz(0.2) */
    ASSERT_NEAR(m[13], 1.2 * sin(0.2), TEST_EPS);
    assert_int_equal(arbor_urdf_positions(r, q, 2), ARBOR_OK);
    assert_true(q[0] == 0.4 && q[1] == 0.2); /* the latest record is the present */
    world_of(s, r, "slider", m);
    ASSERT_NEAR(m[12], 1.2 * cos(0.4), TEST_EPS);

    /* a late record: history only; a lookup at its time gives it, between it and t = 1 the middle */
    assert_int_equal(arbor_urdf_record_positions(r, 2.0, q2, 2), ARBOR_OK);
    assert_int_equal(arbor_urdf_positions(r, q, 2), ARBOR_OK);
    assert_true(q[0] == 0.4 && q[1] == 0.2);
    assert_int_equal(arbor_scene_lookup(s, ARBOR_NONE, slider, 2.0, m), ARBOR_OK);
    ASSERT_NEAR(m[12], 1.3 * cos(-0.4), TEST_EPS);
    ASSERT_NEAR(m[13], 1.3 * sin(-0.4), TEST_EPS);
    assert_int_equal(arbor_scene_lookup(s, ARBOR_NONE, slider, 1.5, m), ARBOR_OK);
    ASSERT_NEAR(m[12], 1.25 * cos(-0.2), TEST_EPS);
    ASSERT_NEAR(m[13], 1.25 * sin(-0.2), TEST_EPS);

    /* refused: out of limits, NaN time, too few values; nothing changed */
    double first, last, outside[2] = { 0.9, 0.2 };
    assert_int_equal(arbor_urdf_record_positions(r, 4.0, outside, 2), ARBOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(arbor_last_error(), "joint 'shoulder'"));
    assert_int_not_equal(arbor_urdf_record_positions(r, NAN, q3, 2), ARBOR_OK);
    assert_int_equal(arbor_urdf_record_positions(r, 4.0, q3, 1), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_node_history_range(s, slider, &first, &last), ARBOR_OK);
    assert_true(first == 1.0 && last == 3.0);
    assert_int_equal(arbor_urdf_positions(r, q, 2), ARBOR_OK);
    assert_true(q[0] == 0.4 && q[1] == 0.2);
    arbor_urdf_destroy(r);
    arbor_scene_destroy(s);
}

static void test_lifetimes_and_memory(void **state)
{
    (void)state;
    test_counting_allocator counter = { 0 };
    arbor_scene_desc d = { .allocator = test_counting_allocator_hooks(&counter, true) };
    arbor_scene *s;
    assert_int_equal(arbor_scene_create(&d, &s), ARBOR_OK);
    arbor_urdf *r = load_arm(s, false);
    arbor_scene_destroy(s); /* first */
    double q[2] = { 0, 0.2 };
    arbor_real out[4 * 16];
    arbor_urdf_joint j;
    assert_int_equal(arbor_urdf_set_positions(r, q, 2), ARBOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(arbor_last_error(), "its scene was destroyed"));
    assert_int_equal(arbor_urdf_forward_kinematics(r, q, 1, out), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_urdf_joint_info(r, 0, &j), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_urdf_link_count(r), 4);
    arbor_urdf_destroy(r);
    assert_int_equal(counter.live_blocks, 0);
    assert_int_equal(counter.size_mismatches, 0);

    /* and in the other order */
    assert_int_equal(arbor_scene_create(&d, &s), ARBOR_OK);
    r = load_arm(s, false);
    arbor_urdf_destroy(r);
    assert_int_equal(arbor_scene_node_count(s), 4); /* the links stay in the scene */
    arbor_scene_destroy(s);
    assert_int_equal(counter.live_blocks, 0);
    assert_int_equal(counter.size_mismatches, 0);
}

/* Every allocation of a load, a set_position and a batch refused in turn: each refusal leaves
   the scene's node count and the allocator's live blocks as they were. */
static void test_failed_allocations_change_nothing(void **state)
{
    (void)state;
    test_counting_allocator counter = { 0 };
    arbor_scene_desc d = { .allocator = test_counting_allocator_hooks(&counter, true) };
    arbor_scene *s;
    assert_int_equal(arbor_scene_create(&d, &s), ARBOR_OK);
    arbor_urdf *r = NULL;
    uint32_t refused = 0;
    for (uint64_t k = 1; k < 200; k++) {
        int64_t blocks = counter.live_blocks;
        counter.calls = 0, counter.fail_at = k;
        arbor_result res = arbor_urdf_load_memory(s, arm_urdf, sizeof arm_urdf - 1, NULL, NULL, &r);
        counter.fail_at = 0;
        if (res == ARBOR_OK) break;
        assert_int_equal(res, ARBOR_ERR_OUT_OF_MEMORY);
        assert_int_equal(arbor_scene_node_count(s), 0);
        assert_int_equal(counter.live_blocks, blocks);
        refused++;
    }
    assert_non_null(r);
    assert_true(refused >= 3); /* the model, the robot, the pose at least */
    arbor_urdf *shapes = NULL; /* and the links' bounds */
    uint32_t shape_refusals = 0;
    for (uint64_t k = 1; k < 200; k++) {
        int64_t blocks = counter.live_blocks;
        uint32_t nodes = arbor_scene_node_count(s);
        counter.calls = 0, counter.fail_at = k;
        arbor_result res = arbor_urdf_load_memory(s, shapes_urdf, sizeof shapes_urdf - 1, NULL, NULL, &shapes);
        counter.fail_at = 0;
        if (res == ARBOR_OK) break;
        assert_int_equal(res, ARBOR_ERR_OUT_OF_MEMORY);
        assert_int_equal(arbor_scene_node_count(s), nodes);
        assert_int_equal(counter.live_blocks, blocks);
        shape_refusals++;
    }
    assert_non_null(shapes);
    assert_true(shape_refusals > refused); /* the bounds' storage failed too */
    arbor_urdf_destroy(shapes);
    double q[2] = { 0.25, 0.2 }, before[2];
    arbor_real out[4 * 16];
    assert_int_equal(arbor_urdf_positions(r, before, 2), ARBOR_OK);
    counter.calls = 0, counter.fail_at = 1;
    assert_int_equal(arbor_urdf_set_position(r, "slide", 0.2), ARBOR_ERR_OUT_OF_MEMORY);
    counter.calls = 0, counter.fail_at = 1;
    assert_int_equal(arbor_urdf_forward_kinematics(r, q, 1, out), ARBOR_ERR_OUT_OF_MEMORY);
    counter.fail_at = 0;
    assert_int_equal(arbor_urdf_positions(r, q, 2), ARBOR_OK);
    assert_memory_equal(q, before, sizeof q);
    arbor_urdf_destroy(r);
    arbor_scene_destroy(s);
    assert_int_equal(counter.live_blocks, 0);
    assert_int_equal(counter.size_mismatches, 0);
}

static void test_memory_messages_name_the_line(void **state)
{
    (void)state;
    arbor_scene *s;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    const char *text = hostile_text("two_parents");
    arbor_urdf *r = NULL;
    assert_int_equal(arbor_urdf_load_memory(s, text, strlen(text), NULL, NULL, &r), ARBOR_ERR_PARSE);
    arbor_error_info info = arbor_last_error_info();
    assert_string_equal(info.file, "");
    assert_int_equal(info.line, 5);
    assert_non_null(strstr(info.message, "arbor_urdf_load_memory: line 5: link 'a' has two parents"));
    assert_int_equal(arbor_urdf_load(s, OUT_DIR "/no-such.urdf", NULL, &r), ARBOR_ERR_IO);
    assert_int_equal(arbor_urdf_load(s, OUT_DIR, NULL, &r), ARBOR_ERR_IO); /* a folder */
    assert_null(r);
    arbor_scene_destroy(s);
}


/* ---- the CLI ---------------------------------------------------------------------------------- */

#ifdef ARBOR_CLI_PATH
/* Runs `arbor ARGS`, stdout into out (malloc'ed), stderr's first line into err: the exit code. */
/* A .glb's JSON chunk, as a string. */
static char *slurp_glb_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint32_t head[5];
    assert_int_equal(fread(head, 4, 5, f), 5);
    assert_int_equal(head[0], 0x46546C67); /* glTF */
    char *text = calloc(head[3] + 1, 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, head[3], f), head[3]);
    fclose(f);
    return text;
}

static int run_cli(const char *args, char **out, char err[512])
{
    char cmd[2048], errpath[600];
    snprintf(errpath, sizeof errpath, "%s/urdf_cli_err.txt", OUT_DIR);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", ARBOR_CLI_PATH, args, errpath);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (size_t got; (got = fread(buf + n, 1, cap - n - 1, p)) > 0;) {
        n += got;
        if (cap - n < 2) buf = realloc(buf, cap *= 2), assert_non_null(buf);
    }
    buf[n] = 0;
    int status = pclose(p);
    *out = buf;
    char *e = slurp(errpath);
    snprintf(err, 512, "%s", e);
    free(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
/* Every node of a dump (by name) has KDL's pose of its link (the oracle's output at kdl_out,
   one configuration), and each node is in its parent's children. z_up: the dump of a converted
   robot, whose root link hangs under a node "z up" turning URDF's z up to glTF's y up (a
   quarter turn about x, -90 degrees): its worlds are turned back by +90 degrees first. */
static void dump_equals_kdl(json_t *nodes, const char *kdl_out, bool z_up)
{
    char *text = slurp(kdl_out);
    uint32_t seen = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "config", 6)) continue;
        char name[256];
        int used = 0;
        assert_int_equal(sscanf(line, "%255s%n", name, &used), 1);
        char *p = line + used;
        json_t *node = NULL;
        for (size_t i = 0; i < json_array_size(nodes); i++)
            if (!strcmp(json_string_value(json_object_get(json_array_get(nodes, i), "name")), name)) node = json_array_get(nodes, i);
        if (!node) fail_msg("dump has no node '%s'", name);
        json_t *parent = json_object_get(node, "parent");
        if (json_is_integer(parent)) {
            json_t *kids = json_object_get(json_array_get(nodes, (size_t)json_integer_value(parent)), "children");
            bool listed = false;
            for (size_t c = 0; c < json_array_size(kids); c++)
                listed |= json_integer_value(json_array_get(kids, c)) == json_integer_value(json_object_get(node, "index"));
            assert_true(listed);
        }
        json_t *world = json_object_get(node, "world");
        double w[16];
        for (size_t e = 0; e < 16; e++) w[e] = json_number_value(json_array_get(world, e));
        for (int c = 0; z_up && c < 4; c++) { /* rows y, z of Rx(+90): (0 0 -1), (0 1 0) */
            double y = w[c * 4 + 1], z = w[c * 4 + 2];
            w[c * 4 + 1] = -z, w[c * 4 + 2] = y;
        }
        for (size_t e = 0; e < 16; e++) ASSERT_NEAR(w[e], strtod(p, &p), FK_TOL);
        seen++;
    }
    assert_int_equal(seen + z_up, json_array_size(nodes));
    free(text);
}

/* The .glb `arbor convert` made of the robot at `urdf` (at the positions of
   test_cli_dump_equals_kdl): the joints in the nodes' extras as the robot has them (joint_info,
   itself checked against urdfdom), the values given, the mimic following; the meshes of the
   links' shapes within their links' boxes (a cylinder's 32 sides, a sphere's 12 x 24 facets
   short of the round box by under 2 percent); mesh files named. */
static void converted_robot_holds(const char *urdf, const char *glb)
{
    arbor_scene *s, *t;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_int_equal(arbor_scene_create(NULL, &t), ARBOR_OK);
    arbor_urdf *r;
    arbor_gltf *doc;
    assert_int_equal(arbor_urdf_load(s, urdf, NULL, &r), ARBOR_OK);
    assert_int_equal(arbor_gltf_load(t, glb, NULL, &doc), ARBOR_OK);
    char *bytes = slurp_glb_json(glb);
    json_error_t jerr;
    json_t *gltf = json_loads(bytes, 0, &jerr), *nodes = json_object_get(gltf, "nodes");
    assert_non_null(gltf);
    free(bytes);
    uint32_t L = arbor_urdf_link_count(r), bounded = 0, named = 0;
    assert_int_equal(arbor_gltf_node_count(doc), L + 1);
    for (uint32_t k = 0; k < arbor_urdf_joint_count(r); k++) {
        arbor_urdf_joint j;
        assert_int_equal(arbor_urdf_joint_info(r, k, &j), ARBOR_OK);
        json_t *u = json_object_get(json_object_get(json_array_get(nodes, j.child_link), "extras"), "urdf");
        json_t *x = json_object_get(u, "joint");
        assert_string_equal(json_string_value(json_object_get(u, "link")), arbor_urdf_link_name(r, j.child_link));
        assert_string_equal(json_string_value(json_object_get(x, "name")), j.name);
        assert_string_equal(json_string_value(json_object_get(x, "type")), type_word(j.type));
        for (size_t c = 0; c < 3; c++) {
            assert_true(json_number_value(json_array_get(json_object_get(x, "axis"), c)) == j.axis[c]);
            assert_true(json_number_value(json_array_get(json_object_get(json_object_get(x, "origin"), "rpy"), c)) == j.origin_rpy[c]);
        }
        if (j.has_limits) assert_true(json_number_value(json_object_get(x, "lower")) == j.lower &&
                                      json_number_value(json_object_get(x, "upper")) == j.upper);
        else assert_null(json_object_get(x, "lower"));
        if (!strcmp(j.name, "panda_joint1")) assert_true(json_number_value(json_object_get(x, "position")) == 0.5);
        if (!strcmp(j.name, "panda_finger_joint2")) {
            assert_string_equal(json_string_value(json_object_get(json_object_get(x, "mimic"), "joint")), "panda_finger_joint1");
            ASSERT_NEAR(json_number_value(json_object_get(x, "position")), 0.03, 1e-15);
        }
    }
    for (uint32_t i = 0; i < L; i++) {
        arbor_real a[3], b[3], c[3], d[3];
        arbor_node_bounds(s, arbor_urdf_link_node(r, i), a, b);
        arbor_node_bounds(t, arbor_gltf_node(doc, i), c, d);
        named += json_array_size(json_object_get(json_object_get(json_object_get(json_array_get(nodes, i), "extras"), "urdf"), "meshes"));
        if (a[0] > b[0]) continue;
        bounded++;
        for (int k = 0; k < 3; k++) {
            double slack = (b[k] - a[k]) * 0.02 + 1e-6;
            assert_true(c[k] >= a[k] - 1e-6 && c[k] <= a[k] + slack);
            assert_true(d[k] <= b[k] + 1e-6 && d[k] >= b[k] - slack);
        }
    }
    assert_true(bounded > 0 && named > 0);
    json_decref(gltf);
    arbor_gltf_destroy(doc);
    arbor_urdf_destroy(r);
    arbor_scene_destroy(t);
    arbor_scene_destroy(s);
}
#endif

/* arbor dump ROBOT.urdf --json at positions given by --joint and --joints: the glTF dump's shape,
   every link's world matrix KDL's at those positions (the oracle given the same values), and so
   are the nodes of `arbor convert ROBOT.urdf OUT.glb` at them; a mimic joint given directly, a
   value outside limits, an unknown joint and a hostile file refused with one line. */
static void test_cli_dump_equals_kdl(void **state)
{
    (void)state;
#ifndef ARBOR_CLI_PATH
    TEST_SKIP("the CLI is not built");
#else
    files F;
    need_files(&F, __func__);
    NEED_ORACLE();
    const char *panda = NULL;
    for (int f = 0; f < F.count; f++)
        if (strstr(F.path[f], "/panda.urdf")) panda = F.path[f];
    assert_non_null(panda);
    char configs[600], joints[600], kdl_out[600], args[2400], err[512], *out;
    snprintf(configs, sizeof configs, "%s/urdf_cli_config.txt", OUT_DIR);
    snprintf(joints, sizeof joints, "%s/urdf_cli_joints.json", OUT_DIR);
    snprintf(kdl_out, sizeof kdl_out, "%s/urdf_cli_kdl.txt", OUT_DIR);
    /* joint4 is left at its load position, its upper limit -0.0698 (0 is outside its limits) */
    static const char config[] = "panda_joint1=0.5 panda_joint2=-0.25 panda_joint3=1 panda_joint4=-0.0698 panda_joint5=0.75 "
                                 "panda_joint6=2 panda_joint7=-1.5 panda_finger_joint1=0.03\n";
    write_file(configs, config, strlen(config));
    static const char json[] = "{\"panda_joint5\": 0.75, \"panda_joint6\": 2, \"panda_joint7\": -1.5, \"panda_joint1\": 9}";
    write_file(joints, json, strlen(json));
    snprintf(args, sizeof args, "fk '%s' '%s' '%s'", panda, configs, kdl_out);
    run_oracle(args);
    snprintf(args, sizeof args, "dump '%s' --json --joints '%s' --joint panda_joint1=0.5 --joint panda_joint2=-0.25 "
             "--joint panda_joint3=1 --joint panda_finger_joint1=0.03", panda, joints);
    assert_int_equal(run_cli(args, &out, err), 0);
    json_error_t jerr;
    json_t *doc = json_loads(out, 0, &jerr);
    if (!doc) fail_msg("dump --json: %s", jerr.text);
    free(out);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(json_array_get(json_object_get(doc, "scenes"), 0), "nodes"), 0)), 0);
    dump_equals_kdl(json_object_get(doc, "nodes"), kdl_out, false);
    json_decref(doc);
    /* convert: the links as the nodes of a .glb, whose glTF dump holds the same poses */
    char glb[600];
    snprintf(glb, sizeof glb, "%s/urdf_cli_panda.glb", OUT_DIR);
    snprintf(args, sizeof args, "convert '%s' '%s' --joints '%s' --joint panda_joint1=0.5 --joint panda_joint2=-0.25 "
             "--joint panda_joint3=1 --joint panda_finger_joint1=0.03", panda, glb, joints);
    assert_int_equal(run_cli(args, &out, err), 0);
    free(out);
    snprintf(args, sizeof args, "dump '%s' --json", glb);
    assert_int_equal(run_cli(args, &out, err), 0);
    doc = json_loads(out, 0, &jerr);
    free(out);
    assert_non_null(doc);
    dump_equals_kdl(json_object_get(doc, "nodes"), kdl_out, true);
    json_decref(doc);
    converted_robot_holds(panda, glb);
    /* its collision model, of cylinders and spheres */
    char collision[600];
    snprintf(collision, sizeof collision, "%.*s_collision.urdf", (int)(strlen(panda) - 5), panda);
    snprintf(args, sizeof args, "convert '%s' '%s' --joints '%s' --joint panda_joint1=0.5 --joint panda_joint2=-0.25 "
             "--joint panda_joint3=1 --joint panda_finger_joint1=0.03", collision, glb, joints);
    assert_int_equal(run_cli(args, &out, err), 0);
    free(out);
    converted_robot_holds(collision, glb);
    /* render: the shapes shaded (triangles), an arrow a joint that moves: 7 revolute, 2 prismatic */
    snprintf(args, sizeof args, "render '%s' -o - --joints '%s' --joint panda_joint1=0.5", collision, joints);
    assert_int_equal(run_cli(args, &out, err), 0);
    size_t triangles = 0, turns = 0, slides = 0;
    for (const char *p = out; (p = strstr(p, "<polygon")); p++) triangles++;
    for (const char *p = out; (p = strstr(p, "stroke-width=\"2.0\" stroke=\"#d91a1a\"")); p++) turns++;
    for (const char *p = out; (p = strstr(p, "stroke-width=\"2.0\" stroke=\"#1a4de6\"")); p++) slides++;
    free(out);
    assert_true(triangles > 1000);
    assert_int_equal(turns, 7);
    assert_int_equal(slides, 2);
    char png[600];
    snprintf(png, sizeof png, "%s/urdf_cli_panda.png", OUT_DIR);
    snprintf(args, sizeof args, "render '%s' -o '%s' --size 320x240 --joint panda_joint4=-1", collision, png);
    assert_int_equal(run_cli(args, &out, err), 0);
    free(out);
    char *image = slurp(png);
    assert_memory_equal(image, "\x89PNG", 4);
    free(image);
    snprintf(args, sizeof args, "render '%s' -o '%s' --joint panda_joint4=1", collision, png);
    assert_int_equal(run_cli(args, &out, err), 1);
    free(out);
    assert_non_null(strstr(err, "outside its limits"));

    struct { const char *args, *says; } refused[] = {
        { "--joint panda_finger_joint2=0.01", "arbor: dump: " },
        { "--joint panda_finger_joint2=0.01", "is a mimic of 'panda_finger_joint1'" },
        { "--joint panda_joint1=3", "joint 'panda_joint1' (position 0): 3 is outside its limits [-2.8973, 2.8973]" },
        { "--joint no_such_joint=0", "has no joint 'no_such_joint'" },
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        snprintf(args, sizeof args, "dump '%s' --json %s", panda, refused[k].args);
        assert_int_equal(run_cli(args, &out, err), 1);
        free(out);
        if (!strstr(err, refused[k].says)) fail_msg("%s: '%s' lacks '%s'", refused[k].args, err, refused[k].says);
        assert_null(strchr(err, '\n') ? strchr(strchr(err, '\n') + 1, '\n') : NULL); /* one line */
    }
    char hostile[600];
    snprintf(hostile, sizeof hostile, "%s/urdf_cli_two_roots.urdf", OUT_DIR);
    write_file(hostile, hostile_text("two_roots"), strlen(hostile_text("two_roots")));
    snprintf(args, sizeof args, "tree '%s'", hostile);
    assert_int_equal(run_cli(args, &out, err), 1);
    free(out);
    assert_non_null(strstr(err, "line 3: two root links"));
    snprintf(args, sizeof args, "info '%s' --json", panda);
    assert_int_equal(run_cli(args, &out, err), 0);
    doc = json_loads(out, 0, &jerr);
    free(out);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "dof")), 8); /* 7 arm joints and a finger; the other mimics it */
    assert_int_equal(json_array_size(json_object_get(doc, "joints")), 12);
    json_decref(doc);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_robots_read_as_urdfdom),
        cmocka_unit_test(test_shared_robots_fk_equal_kdl),
        cmocka_unit_test(test_hostile_files_refused_with_file_line_reason),
        cmocka_unit_test(test_geometry_bounds_links),
        cmocka_unit_test(test_floating_planar_and_other_joints),
        cmocka_unit_test(test_positions_limits_mimic_refusals),
        cmocka_unit_test(test_batch_sincos_within_ulps),
        cmocka_unit_test(test_fixed_links_keep_their_origin),
        cmocka_unit_test(test_every_position_checked),
        cmocka_unit_test(test_record_positions_lookup),
        cmocka_unit_test(test_lifetimes_and_memory),
        cmocka_unit_test(test_failed_allocations_change_nothing),
        cmocka_unit_test(test_memory_messages_name_the_line),
        cmocka_unit_test(test_cli_dump_equals_kdl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
