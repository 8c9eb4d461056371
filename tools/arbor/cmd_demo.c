/* arbor demo: the robot arm of the course (seed 002, sections 4, 6 and 14), built as nodes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DEMO_PI 3.14159265358979323846

typedef struct demo_arm {
    arbor_scene *scene;
    arbor_node base, joint, arm, hand, mirror, joint2, arm2, hand2;
} demo_arm;

static arbor_node add(arbor_scene *s, const char *name, arbor_node parent, arbor_real ty, arbor_real sx) {
    arbor_node n = ARBOR_NONE;
    arbor_node_create(s, &(arbor_node_desc){ .name = name, .parent = parent, .translation = {0, ty, 0},
                                             .scale = {sx, 1, 1} }, &n);
    return n;
}

/* The tree: base > joint > arm > hand, and base > mirror S(-1, 1, 1) > joint2 > arm2 > hand2,
   so that L_arm2 = S(-1, 1, 1) L_arm as in section 6. The pivot sandwich of section 4 is the
   joint node (lift and bend) with the arm node (half-length offset) under it (section 14). */
static demo_arm build(void) {
    demo_arm d = { .scene = arbor_scene_create(NULL) };
    d.base = add(d.scene, "base", ARBOR_NONE, 0.2f, 1);
    d.joint = add(d.scene, "joint", d.base, 0.2f, 1);
    d.arm = add(d.scene, "arm", d.joint, 0.7f, 1);
    d.hand = add(d.scene, "hand", d.arm, 0.7f, 1);
    d.mirror = add(d.scene, "mirror", d.base, 0, -1);
    d.joint2 = add(d.scene, "joint2", d.mirror, 0.2f, 1);
    d.arm2 = add(d.scene, "arm2", d.joint2, 0.7f, 1);
    d.hand2 = add(d.scene, "hand2", d.arm2, 0.7f, 1);
    return d;
}

static void pose(demo_arm *d, double yaw_deg, double bend_deg) {
    const arbor_real up[3] = {0, 1, 0}, forward[3] = {0, 0, 1};
    arbor_real q[4];
    arbor_quat_from_axis_angle(q, up, (arbor_real)(yaw_deg * DEMO_PI / 180));
    arbor_node_set_rotation(d->scene, d->base, q[0], q[1], q[2], q[3]);
    arbor_quat_from_axis_angle(q, forward, (arbor_real)(bend_deg * DEMO_PI / 180));
    arbor_node_set_rotation(d->scene, d->joint, q[0], q[1], q[2], q[3]);
    arbor_node_set_rotation(d->scene, d->joint2, q[0], q[1], q[2], q[3]);
    arbor_scene_update(d->scene);
}

/* Two decimals, as the course prints them, without a "-0.00" for a rounding residue. */
static double tidy(arbor_real v) { return fabs((double)v) < 0.005 ? 0.0 : (double)v; }

static void print_node(arbor_scene *s, arbor_node n) {
    arbor_real w[16];
    arbor_node_world_matrix(s, n, w);
    printf("  %-7s at (%6.2f, %5.2f, %5.2f)   det %+.0f\n", arbor_node_name(s, n), tidy(w[12]), tidy(w[13]), tidy(w[14]),
           (double)arbor_mat4_determinant3(w));
    for (int r = 0; r < 4; r++)
        printf("          | %6.2f %6.2f %6.2f %6.2f |\n", tidy(w[r]), tidy(w[4 + r]), tidy(w[8 + r]), tidy(w[12 + r]));
}

static void print_pose(demo_arm *d, double yaw, double bend) {
    pose(d, yaw, bend);
    printf("base yaw %g deg, bend %g deg: world matrices (rows) and origins\n", yaw, bend);
    const arbor_node shown[] = {d->base, d->arm, d->hand, d->arm2, d->hand2};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) print_node(d->scene, shown[i]);
}

static bool parse_degrees(const char *text, double *out) {
    char *end;
    *out = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*out);
}

int cmd_demo(int argc, char **argv) {
    double yaw = 30, bend = 40;
    bool given = false;
    for (int i = 0; i < argc; i += 2) {
        double *target = !strcmp(argv[i], "--yaw") ? &yaw : !strcmp(argv[i], "--bend") ? &bend : NULL;
        if (!target) return cli_usage_error("demo: unknown option '%s'", argv[i]);
        if (i + 1 >= argc || !parse_degrees(argv[i + 1], target))
            return cli_usage_error("demo: %s needs a number of degrees", argv[i]);
        given = true;
    }
    demo_arm d = build();
    if (!d.scene) {
        fputs("arbor: demo: out of memory\n", stderr);
        return 1;
    }
    print_pose(&d, yaw, bend);
    if (!given) {
        printf("\n");
        print_pose(&d, 90, bend);
    }
    arbor_scene_destroy(d.scene);
    return 0;
}
