/* SPDX-License-Identifier: MIT */
/* arbor render: the scene as a camera sees it, drawn with cairo so a person can see the
   hierarchy: each node's world box, a line from each parent to each child, names. Built only
   when cairo is found (Debian: libcairo2-dev). */
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor render FILE -o OUT.svg|OUT.png [--camera NAME] [--lenient]\n"
    "\n"
    "Draws a glTF file's scene as a camera sees it, to show its hierarchy: each node's world box\n"
    "(its mesh's POSITION min and max through its world matrix), a line from each parent's\n"
    "origin to each child's, a dot at each origin and the node's name; colours follow depth.\n"
    "The format follows OUT's extension (.svg or .png); the picture is 960 pixels wide.\n"
    "\n"
    "  -o OUT          the picture to write\n"
    "  --camera NAME   the node carrying the camera: its name, or #INDEX for a node without one\n"
    "                  (default: the file's first camera, else one made to frame the scene)\n"
    "  --lenient       load what can be loaded, with warnings, instead of refusing the file\n";

#define WIDTH 960.0
/* Names are drawn up to this many nodes; past it they would cover the picture. */
#define MAX_LABELS 400
/* Points closer to the camera plane than this (clip w) are cut off the segments. */
#define NEAR_W 1e-6

typedef struct canvas {
    cairo_t *cr;
    const arbor_real *vp;
    double width, height;
} canvas;

/* p through the view-projection: clip coordinates (x, y, w). */
static void to_clip(const canvas *c, const double p[3], double out[3]) {
    static const int rows[3] = { 0, 1, 3 };
    for (int i = 0; i < 3; i++) {
        int r = rows[i];
        out[i] = c->vp[r] * p[0] + c->vp[4 + r] * p[1] + c->vp[8 + r] * p[2] + c->vp[12 + r];
    }
}

static void to_pixels(const canvas *c, const double clip[3], double *x, double *y) {
    *x = (clip[0] / clip[2] + 1) / 2 * c->width;
    *y = (1 - clip[1] / clip[2]) / 2 * c->height;
}

/* The segment a-b, cut where it passes behind the camera. */
static void segment(const canvas *c, const double a[3], const double b[3]) {
    double ca[3], cb[3], x, y;
    to_clip(c, a, ca);
    to_clip(c, b, cb);
    if (ca[2] < NEAR_W && cb[2] < NEAR_W) return;
    if (ca[2] < NEAR_W || cb[2] < NEAR_W) {
        double *behind = ca[2] < NEAR_W ? ca : cb, *front = ca[2] < NEAR_W ? cb : ca;
        double t = (NEAR_W - behind[2]) / (front[2] - behind[2]);
        for (int i = 0; i < 3; i++) behind[i] += t * (front[i] - behind[i]);
    }
    to_pixels(c, ca, &x, &y);
    cairo_move_to(c->cr, x, y);
    to_pixels(c, cb, &x, &y);
    cairo_line_to(c->cr, x, y);
}

/* The twelve edges of an axis-aligned box. */
static void box_edges(const canvas *c, const arbor_real lo[3], const arbor_real hi[3]) {
    for (int axis = 0; axis < 3; axis++)
        for (int corner = 0; corner < 4; corner++) {
            double a[3], b[3];
            int u = (axis + 1) % 3, v = (axis + 2) % 3;
            a[axis] = lo[axis];
            b[axis] = hi[axis];
            a[u] = b[u] = corner & 1 ? hi[u] : lo[u];
            a[v] = b[v] = corner & 2 ? hi[v] : lo[v];
            segment(c, a, b);
        }
}

static void set_depth_colour(cairo_t *cr, uint32_t depth, double alpha) {
    static const double palette[6][3] = {
        { 0.12, 0.47, 0.71 }, { 0.85, 0.37, 0.01 }, { 0.17, 0.63, 0.17 },
        { 0.84, 0.15, 0.16 }, { 0.58, 0.40, 0.74 }, { 0.55, 0.34, 0.29 },
    };
    const double *rgb = palette[depth % 6];
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], alpha);
}

/* cairo takes UTF-8 and refuses invalid strings: anything outside printable ASCII becomes '?'. */
static void show_text(cairo_t *cr, const char *text) {
    char safe[256];
    size_t i = 0;
    for (; text[i] && i + 1 < sizeof safe; i++) safe[i] = text[i] >= 32 && text[i] < 127 ? text[i] : '?';
    safe[i] = '\0';
    cairo_show_text(cr, safe);
}

static void draw(const canvas *c, cli_file *f, const cli_view *view) {
    cairo_t *cr = c->cr;
    arbor_scene *s = f->scene;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 11);
    bool labels = arbor_scene_node_count(s) <= MAX_LABELS;
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n)) {
        if (view->made && arbor_node_equal(n, view->camera)) continue;
        if (!arbor_node_effectively_visible(s, n)) continue; /* hidden (KHR_node_visibility): not drawn */
        arbor_real w[16], lo[3], hi[3];
        uint32_t depth = arbor_node_depth(s, n);
        arbor_node_world_matrix(s, n, w);
        double origin[3] = { w[12], w[13], w[14] }, clip[3], x, y;
        if (arbor_node_local_bounds(s, n, lo, hi)) {
            arbor_node_world_bounds(s, n, lo, hi);
            set_depth_colour(cr, depth, 0.55);
            cairo_set_line_width(cr, 1.0);
            box_edges(c, lo, hi);
            cairo_stroke(cr);
        }
        arbor_node parent = arbor_node_parent(s, n);
        if (!arbor_node_is_none(parent)) {
            arbor_real pw[16];
            arbor_node_world_matrix(s, parent, pw);
            const double from[3] = { pw[12], pw[13], pw[14] };
            cairo_set_source_rgba(cr, 0.2, 0.2, 0.2, 0.9);
            cairo_set_line_width(cr, 1.8);
            segment(c, from, origin);
            cairo_stroke(cr);
        }
        to_clip(c, origin, clip);
        if (clip[2] < NEAR_W) continue;
        to_pixels(c, clip, &x, &y);
        set_depth_colour(cr, depth, 1);
        cairo_arc(cr, x, y, 3, 0, 6.283185307179586);
        cairo_fill(cr);
        if (labels) {
            char buf[32];
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            cairo_move_to(cr, x + 5, y - 5);
            show_text(cr, cli_node_label(f, n, buf));
        }
    }
    char camera[256];
    snprintf(camera, sizeof camera, "camera: %s", view->what);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_move_to(cr, 8, c->height - 22);
    show_text(cr, f->path);
    cairo_move_to(cr, 8, c->height - 8);
    show_text(cr, camera);
}

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

int cmd_render(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    cli_file f;
    cli_view view;
    int status = cli_parse_args("render", argc, argv, CLI_OPT_CAMERA | CLI_OPT_OUTPUT | CLI_OPT_LENIENT, 1, 1, &args);
    if (status) return status;
    if (!args.output) return cli_usage_error("render: -o OUT.svg or -o OUT.png is required");
    bool svg = ends_with(args.output, ".svg"), png = ends_with(args.output, ".png");
    if (!svg && !png) return cli_usage_error("render: %s: the picture's name must end in .svg or .png", args.output);
    if (cli_load(&f, args.files[0], args.lenient)) return 1;
    if ((status = cli_view_pick("render", &f, -1, args.camera, &view))) {
        cli_close(&f);
        return status;
    }
    canvas c = { .vp = view.view_projection, .width = WIDTH, .height = round(WIDTH / view.aspect) };
    if (c.height < 16) c.height = 16;
    if (c.height > 4 * WIDTH) c.height = 4 * WIDTH;
    cairo_surface_t *surface = svg ? cairo_svg_surface_create(args.output, c.width, c.height)
                                   : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)c.width, (int)c.height);
    c.cr = cairo_create(surface);
    draw(&c, &f, &view);
    cairo_status_t result = cairo_status(c.cr);
    cairo_destroy(c.cr);
    if (result == CAIRO_STATUS_SUCCESS && png) result = cairo_surface_write_to_png(surface, args.output);
    cairo_surface_finish(surface);
    if (result == CAIRO_STATUS_SUCCESS) result = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    cairo_debug_reset_static_data();
    FcFini(); /* after cairo's reset: fontconfig's caches freed, so leak checkers see none */
    cli_close(&f);
    if (result != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "arbor: render: %s: %s\n", args.output, cairo_status_to_string(result));
        return 1;
    }
    printf("%s: %.0f x %.0f, camera: %s\n", args.output, c.width, c.height, view.what);
    return 0;
}
