/* SPDX-License-Identifier: MIT */
/* arbor render: a picture of a glTF scene worth looking at: flat-shaded meshes from the file's
   own vertex data, a ground grid and axes, camera frustums and light symbols; over the meshes,
   on request (and by default where no mesh is drawn), the hierarchy: dots, links, boxes, names. PNG through cairo; SVG written directly so its text stays
   text. Built only when cairo is found (Debian: libcairo2-dev). */
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor render FILE -o OUT.png|OUT.svg [--view V] [--size WxH] [--time T]\n"
    "                    [--animation A] [--overlays|--no-overlays] [--labels none|roots|all]\n"
    "                    [--joints] [--scene N|NAME] [--lenient]\n"
    "\n"
    "Draws one glTF scene (FILE - reads standard input): its meshes as flat-shaded triangles\n"
    "from the file's own vertex data where it can be read (triangle, strip and fan primitives,\n"
    "through each node's world matrix, an instanced mesh (EXT_mesh_gpu_instancing) once per\n"
    "instance through the instance's world matrix, skinned meshes posed by their joints; PNG\n"
    "through a depth buffer, SVG as polygons drawn far to near by their centres, at most 400000),\n"
    "else each node's box (its mesh's POSITION min and max) oriented by its world matrix; a\n"
    "ground grid on y = 0 with the X (red), Y (green) and Z (blue) axes; a frustum at each\n"
    "camera and a symbol at each light (a sun for directional, rays for point, a cone for\n"
    "spot); with --overlays, each node's dot, the line to its parent and the names. Back faces\n"
    "of single-sided materials are not drawn, as glTF says (a sky dome's near side is open).\n"
    "Hidden nodes (KHR_node_visibility) are not drawn; of an MSFT_lod group only level 0, the\n"
    "most detailed, is drawn (whatever the view); the skins' joints only with --joints. The\n"
    "format follows OUT's extension; -o - writes SVG to standard output. In SVG, names are\n"
    "<text> elements of UTF-8, with the textLength they were placed by.\n"
    "\n"
    "  -o OUT          the picture to write\n"
    "  --view V        where from: auto (default: perspective from the front, right and above,\n"
    "                  from outside the scene), top (down -Y), front (down -Z), side (down -X),\n"
    "                  iso (isometric, down (-1, -1, -1)): orthographic views; each frames what\n"
    "                  is drawn (the meshes' boxes, or the nodes when there are none; not the\n"
    "                  cameras and lights around them); camera (the scene's first camera) or\n"
    "                  camera:NODE (the camera on NODE: its name or #INDEX)\n"
    "  --camera NODE   the same as --view camera:NODE\n"
    "  --size WxH      the picture's size in pixels (default 960x720; a camera's aspect ratio\n"
    "                  sets the height when only --view camera is given)\n"
    "  --time T        pose the scene with an animation at T seconds (held at its ends)\n"
    "  --animation A   that animation, by name or index (default: the first; without --time,\n"
    "                  at time 0)\n"
    "  --overlays      also draw the hierarchy over the meshes: each node's dot, the line to\n"
    "                  its parent, the boxes of drawn meshes and the names (as --labels says);\n"
    "                  the default for a file whose meshes cannot be drawn (or that has none),\n"
    "                  where they are the picture; --no-overlays leaves them out there too\n"
    "  --labels L      which names to draw: none, roots, all (default: with overlays, all up to\n"
    "                  60 nodes, else roots; without, none). A name that would cover another\n"
    "                  is left out\n"
    "  --joints        also draw the skins' joints: a thin grey skeleton with small dots (and\n"
    "                  their names, as --labels says); without it they are left out, so the\n"
    "                  skinned meshes show\n"
    "  --scene N|NAME  the glTF scene to draw (0-based index or name; default: the file's)\n"
    "  --lenient       load what can be loaded, with warnings, instead of refusing the file\n";

/* Triangles an SVG holds at most (a picture of more is no clearer, and far bigger); a PNG draws
   every one. */
#define MAX_TRIANGLES 400000
/* Points closer to the camera plane than this (clip w) are cut off the segments. */
#define NEAR_W 1e-6

/* ---- a pen: the same drawing to cairo (PNG) or to SVG text -------------------------------- */

typedef struct pen {
    cairo_t *cr;   /* PNG */
    FILE *svg;     /* SVG */
    cairo_t *measure; /* text widths: cr, or a scratch context for SVG */
    double width, height;
} pen;

static void svg_colour(FILE *out, const double rgba[4], const char *what) {
    fprintf(out, " %s=\"#%02x%02x%02x\"", what, (int)lround(rgba[0] * 255), (int)lround(rgba[1] * 255), (int)lround(rgba[2] * 255));
    if (rgba[3] < 1) fprintf(out, " %s-opacity=\"%.2f\"", what, rgba[3]);
}

/* A polyline (closed when `closed`), stroked. */
static void pen_lines(pen *p, const double *xy, int n, bool closed, const double rgba[4], double width) {
    if (p->cr) {
        cairo_set_source_rgba(p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
        cairo_set_line_width(p->cr, width);
        cairo_move_to(p->cr, xy[0], xy[1]);
        for (int i = 1; i < n; i++) cairo_line_to(p->cr, xy[2 * i], xy[2 * i + 1]);
        if (closed) cairo_close_path(p->cr);
        cairo_stroke(p->cr);
        return;
    }
    fprintf(p->svg, "<%s points=\"", closed ? "polygon" : "polyline");
    for (int i = 0; i < n; i++) fprintf(p->svg, "%s%.1f,%.1f", i ? " " : "", xy[2 * i], xy[2 * i + 1]);
    fprintf(p->svg, "\" fill=\"none\" stroke-width=\"%.1f\"", width);
    svg_colour(p->svg, rgba, "stroke");
    fputs("/>\n", p->svg);
}

/* A filled polygon (a triangle's edge stroked in its own colour closes the seams). */
static void pen_fill(pen *p, const double *xy, int n, const double rgba[4]) {
    if (p->cr) {
        cairo_set_source_rgba(p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
        cairo_move_to(p->cr, xy[0], xy[1]);
        for (int i = 1; i < n; i++) cairo_line_to(p->cr, xy[2 * i], xy[2 * i + 1]);
        cairo_close_path(p->cr);
        cairo_fill_preserve(p->cr);
        cairo_set_line_width(p->cr, 0.5);
        cairo_stroke(p->cr);
        return;
    }
    fputs("<polygon points=\"", p->svg);
    for (int i = 0; i < n; i++) fprintf(p->svg, "%s%.1f,%.1f", i ? " " : "", xy[2 * i], xy[2 * i + 1]);
    fputs("\"", p->svg);
    svg_colour(p->svg, rgba, "fill");
    svg_colour(p->svg, rgba, "stroke");
    fputs(" stroke-width=\"0.5\"/>\n", p->svg);
}

static void pen_dot(pen *p, double x, double y, double r, const double rgba[4]) {
    if (p->cr) {
        cairo_set_source_rgba(p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
        cairo_arc(p->cr, x, y, r, 0, 6.283185307179586);
        cairo_fill(p->cr);
        return;
    }
    fprintf(p->svg, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", x, y, r);
    svg_colour(p->svg, rgba, "fill");
    fputs("/>\n", p->svg);
}

/* text as it can be drawn: valid UTF-8 sequences kept (names are UTF-8 in glTF's JSON), control
   characters and bytes that are no UTF-8 (a file name may hold any) as '?', cut at a character
   boundary to fit `cap`. */
static void drawable_text(const char *text, char *out, size_t cap) {
    size_t o = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c;) {
        size_t n = *c < 0x80 ? 1 : (*c >> 5) == 6 ? 2 : (*c >> 4) == 14 ? 3 : (*c >> 3) == 30 ? 4 : 0;
        for (size_t k = 1; k < n; k++)
            if ((c[k] >> 6) != 2) n = 0; /* a continuation byte missing (the NUL included) */
        if (o + (n ? n : 1) >= cap) break;
        if (n == 1 && (*c < 32 || *c == 127)) n = 0;
        if (n) memcpy(out + o, c, n);
        else out[o] = '?';
        o += n ? n : 1;
        c += n ? n : 1;
    }
    out[o] = '\0';
}

/* How wide text is at `size`, by cairo's font (an SVG is measured on a scratch surface, and says
   the width in textLength, so that the boxes labels are placed by hold in any viewer). */
static double pen_measure(pen *p, const char *text, double size) {
    cairo_text_extents_t e;
    cairo_set_font_size(p->measure, size);
    cairo_text_extents(p->measure, text, &e);
    return e.x_advance;
}

/* Text at (x, y), its baseline; on a white halo so it reads over the drawing. */
static void pen_text(pen *p, double x, double y, double size, const char *text, const double rgba[4]) {
    char safe[256];
    drawable_text(text, safe, sizeof safe);
    if (p->cr) {
        cairo_set_font_size(p->cr, size);
        cairo_move_to(p->cr, x, y);
        cairo_text_path(p->cr, safe);
        cairo_set_source_rgba(p->cr, 1, 1, 1, 0.85);
        cairo_set_line_width(p->cr, 3);
        cairo_stroke_preserve(p->cr);
        cairo_set_source_rgba(p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
        cairo_fill(p->cr);
        return;
    }
    fprintf(p->svg, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" textLength=\"%.1f\"", x, y, size,
            pen_measure(p, safe, size));
    svg_colour(p->svg, rgba, "fill");
    fputs(">", p->svg);
    for (const char *c = safe; *c; c++) {
        if (*c == '<') fputs("&lt;", p->svg);
        else if (*c == '>') fputs("&gt;", p->svg);
        else if (*c == '&') fputs("&amp;", p->svg);
        else fputc(*c, p->svg);
    }
    fputs("</text>\n", p->svg);
}

/* ---- the view: a view-projection in double ------------------------------------------------- */

typedef struct view {
    double vp[16];           /* column-major */
    double eye_dir[3];       /* toward the viewer (for shading and sorting) */
    char what[256];
} view;

typedef struct canvas {
    pen *p;
    const view *v;
} canvas;

static void to_clip(const view *v, const double q[3], double out[4]) {
    for (int r = 0; r < 4; r++) out[r] = v->vp[r] * q[0] + v->vp[4 + r] * q[1] + v->vp[8 + r] * q[2] + v->vp[12 + r];
}

static void to_pixels(const pen *p, const double clip[4], double *x, double *y) {
    *x = (clip[0] / clip[3] + 1) / 2 * p->width;
    *y = (1 - clip[1] / clip[3]) / 2 * p->height;
}

/* The segment a-b, cut where it passes behind the camera. */
static void segment(const canvas *c, const double a[3], const double b[3], const double rgba[4], double width) {
    double ca[4], cb[4], xy[4];
    to_clip(c->v, a, ca);
    to_clip(c->v, b, cb);
    if (ca[3] < NEAR_W && cb[3] < NEAR_W) return;
    if (ca[3] < NEAR_W || cb[3] < NEAR_W) {
        double *behind = ca[3] < NEAR_W ? ca : cb, *front = ca[3] < NEAR_W ? cb : ca;
        double t = (NEAR_W - behind[3]) / (front[3] - behind[3]);
        for (int i = 0; i < 4; i++) behind[i] += t * (front[i] - behind[i]);
    }
    to_pixels(c->p, ca, &xy[0], &xy[1]);
    to_pixels(c->p, cb, &xy[2], &xy[3]);
    pen_lines(c->p, xy, 2, false, rgba, width);
}

static void transform(const arbor_real w[16], const double p[3], double out[3]) {
    for (int r = 0; r < 3; r++) out[r] = w[r] * p[0] + w[4 + r] * p[1] + w[8 + r] * p[2] + w[12 + r];
}

static void normalize(double v[3]) {
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0)
        for (int i = 0; i < 3; i++) v[i] /= l;
}

static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* A view matrix looking from eye along -dir... composed with an orthographic or perspective
   projection. dir points from the scene toward the eye. */
static void look(view *v, const double center[3], const double dir_in[3], const double up_in[3], double distance, bool ortho,
                 double half_h, double aspect, double znear, double zfar, double yfov) {
    double z[3] = { dir_in[0], dir_in[1], dir_in[2] }, x[3], y[3];
    normalize(z);
    cross(up_in, z, x);
    normalize(x);
    cross(z, x, y);
    double eye[3] = { center[0] + z[0] * distance, center[1] + z[1] * distance, center[2] + z[2] * distance };
    double m[16] = { x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, 0, 0, 0, 1 };
    m[12] = -(x[0] * eye[0] + x[1] * eye[1] + x[2] * eye[2]);
    m[13] = -(y[0] * eye[0] + y[1] * eye[1] + y[2] * eye[2]);
    m[14] = -(z[0] * eye[0] + z[1] * eye[1] + z[2] * eye[2]);
    double p[16] = { 0 };
    if (ortho) {
        p[0] = 1 / (half_h * aspect);
        p[5] = 1 / half_h;
        p[10] = -2 / (zfar - znear);
        p[14] = -(zfar + znear) / (zfar - znear);
        p[15] = 1;
    } else {
        double f = 1 / tan(yfov / 2);
        p[0] = f / aspect;
        p[5] = f;
        p[10] = -(zfar + znear) / (zfar - znear);
        p[11] = -1;
        p[14] = -2 * zfar * znear / (zfar - znear);
    }
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += p[4 * k + r] * m[4 * c + k];
            v->vp[4 * c + r] = s;
        }
    memcpy(v->eye_dir, z, sizeof z);
}

/* Where node n's mesh is drawn: once per instance (EXT_mesh_gpu_instancing), through each
   instance's world matrix, else once through the node's: a malloc'ed array of *count matrices
   (NULL on no memory). */
static arbor_real *draw_matrices(cli_file *f, arbor_node n, uint32_t *count) {
    uint32_t instances = arbor_node_instance_count(f->scene, n);
    *count = instances ? instances : 1;
    arbor_real *m = malloc((size_t)*count * 16 * sizeof *m);
    if (!m) return NULL;
    uint32_t total;
    if (!instances || arbor_node_instance_world_matrices(f->scene, n, 0, m, instances, &total) != ARBOR_OK) {
        *count = 1;
        arbor_node_world_matrix(f->scene, n, m);
    }
    return m;
}

static void grow(double lo[3], double hi[3], const double q[3], bool *any) {
    for (int a = 0; a < 3; a++) {
        if (!isfinite(q[a])) return;
    }
    for (int a = 0; a < 3; a++) {
        lo[a] = fmin(lo[a], q[a]);
        hi[a] = fmax(hi[a], q[a]);
    }
    *any = true;
}

static bool skinned(cli_file *f, arbor_node n, json_t *prim, const float *v, uint32_t nv, double *world);

/* Grows [lo, hi] by the vertices of node n's skinned mesh as its joints pose them. */
static void grow_skinned(cli_file *f, arbor_node n, double lo[3], double hi[3], bool *any) {
    json_t *prims = json_object_get(json_array_get(json_object_get(cli_json(f), "meshes"), (size_t)arbor_node_mesh(f->scene, n)), "primitives"), *prim;
    size_t pi;
    json_array_foreach(prims, pi, prim) {
        json_t *pos = json_object_get(json_object_get(prim, "attributes"), "POSITION");
        uint32_t nv = 0;
        float *v = json_is_integer(pos) ? cli_accessor_floats(f, (uint32_t)json_integer_value(pos), 3, &nv) : NULL;
        double *world = v ? malloc((size_t)nv * 3 * sizeof *world + 1) : NULL;
        if (world && skinned(f, n, prim, v, nv, world))
            for (uint32_t i = 0; i < nv; i++) grow(lo, hi, world + 3 * i, any);
        free(world);
        free(v);
    }
}

/* The extent a view frames: what is drawn, not the cameras and lights around it. Every box
   corner of the nodes with bounds (their meshes, through each instance; skinned ones posed);
   for a scene without any, the origins of its nodes that are not cameras or lights (else of all
   its nodes). */
static bool scene_extent(cli_file *f, const unsigned char *in, double lo[3], double hi[3]) {
    bool any = false;
    uint32_t count = arbor_gltf_node_count(f->doc);
    for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (uint32_t i = 0; i < count; i++) {
        arbor_node n = arbor_gltf_node(f->doc, i);
        arbor_real bl[3], bh[3];
        if (!in[i] || arbor_node_is_none(n) || arbor_node_bounds(f->scene, n, bl, bh) != ARBOR_OK || bl[0] > bh[0]) continue;
        if (arbor_gltf_node_skin(f->doc, n) >= 0) { /* where its joints put it, not in its node's frame */
            grow_skinned(f, n, lo, hi, &any);
            continue;
        }
        uint32_t placed;
        arbor_real *w = draw_matrices(f, n, &placed);
        for (uint32_t m = 0; w && m < placed; m++)
            for (int c = 0; c < 8; c++) {
                double q[3] = { c & 1 ? bh[0] : bl[0], c & 2 ? bh[1] : bl[1], c & 4 ? bh[2] : bl[2] }, p[3];
                transform(w + 16 * m, q, p);
                grow(lo, hi, p, &any);
            }
        free(w);
    }
    for (int pass = 0; pass < 2 && !any; pass++) /* no boxes: the nodes' origins */
        for (uint32_t i = 0; i < count; i++) {
            arbor_node n = arbor_gltf_node(f->doc, i);
            arbor_camera cam;
            arbor_light light;
            if (!in[i] || arbor_node_is_none(n)) continue;
            if (pass == 0 && (arbor_node_camera(f->scene, n, &cam) == ARBOR_OK || arbor_node_light(f->scene, n, &light) == ARBOR_OK))
                continue;
            arbor_real w[16];
            arbor_node_world_matrix(f->scene, n, w);
            double q[3] = { w[12], w[13], w[14] };
            grow(lo, hi, q, &any);
        }
    if (!any)
        for (int k = 0; k < 3; k++) lo[k] = -1, hi[k] = 1;
    return any;
}

/* A named view (auto, top, front, side, iso) framing [lo, hi]. */
static void frame(view *v, const char *name, const double lo[3], const double hi[3], double aspect) {
    double center[3], radius = 0;
    for (int k = 0; k < 3; k++) {
        center[k] = (lo[k] + hi[k]) / 2;
        radius += (hi[k] - lo[k]) * (hi[k] - lo[k]) / 4;
    }
    radius = radius > 1e-12 ? sqrt(radius) : 1;
    static const struct { const char *name; double dir[3], up[3]; } views[] = {
        { "auto", { 0.45, 0.4, 0.8 }, { 0, 1, 0 } }, { "top", { 0, 1, 0 }, { 0, 0, -1 } },
        { "front", { 0, 0, 1 }, { 0, 1, 0 } },       { "side", { 1, 0, 0 }, { 0, 1, 0 } },
        { "iso", { 1, 1, 1 }, { 0, 1, 0 } },
    };
    int which = 0;
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, views[i].name)) which = i;
    if (which == 0) {
        const double yfov = 0.8;
        /* the sphere fits both the vertical and the horizontal field of view */
        double half = fmin(yfov / 2, atan(tan(yfov / 2) * aspect));
        double distance = 1.08 * radius / sin(half);
        look(v, center, views[0].dir, views[0].up, distance, false, 0, aspect, fmax(distance - 1.5 * radius, distance * 1e-3),
             distance + 1.5 * radius, yfov);
        snprintf(v->what, sizeof v->what, "auto (perspective, framing the scene)");
        return;
    }
    /* orthographic: the box's corners seen along the direction set the extent */
    view probe;
    look(&probe, center, views[which].dir, views[which].up, 2 * radius, true, 1, 1, 0.5 * radius, 3.5 * radius, 0);
    double w = 0, h = 0;
    for (int c = 0; c < 8; c++) {
        double q[3] = { c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2] }, clip[4];
        to_clip(&probe, q, clip);
        w = fmax(w, fabs(clip[0]));
        h = fmax(h, fabs(clip[1]));
    }
    double half_h = fmax(h, w / aspect) * 1.08;
    if (half_h < 1e-9) half_h = 1;
    look(v, center, views[which].dir, views[which].up, 2 * radius, true, half_h, aspect, 0.5 * radius * 1e-3, 4 * radius, 0);
    snprintf(v->what, sizeof v->what, "%s (orthographic)", name);
}

/* ---- drawing --------------------------------------------------------------------------------- */

static const double palette[6][3] = {
    { 0.12, 0.47, 0.71 }, { 0.85, 0.37, 0.01 }, { 0.17, 0.63, 0.17 },
    { 0.84, 0.15, 0.16 }, { 0.58, 0.40, 0.74 }, { 0.55, 0.34, 0.29 },
};

static void depth_colour(uint32_t depth, double alpha, double out[4]) {
    memcpy(out, palette[depth % 6], 3 * sizeof *out);
    out[3] = alpha;
}

typedef struct triangle {
    float xy[6];
    float z[3];        /* the corners' normalized device depth (-1 near .. 1 far) */
    float depth;       /* clip w of the centre: larger is farther */
    float rgb[3];
} triangle;

static int far_first(const void *a, const void *b) {
    float x = ((const triangle *)a)->depth, y = ((const triangle *)b)->depth;
    return (x < y) - (x > y);
}

/* The material's base colour (its baseColorFactor), else a light grey; whether it is
   double-sided (else back faces are not drawn, as glTF says). */
static bool material_colour(json_t *gltf, json_t *prim, double rgb[3]) {
    rgb[0] = rgb[1] = rgb[2] = 0.78;
    json_t *m = json_array_get(json_object_get(gltf, "materials"), (size_t)json_integer_value(json_object_get(prim, "material")));
    if (!json_is_integer(json_object_get(prim, "material"))) m = NULL;
    json_t *factor = json_object_get(json_object_get(m, "pbrMetallicRoughness"), "baseColorFactor");
    if (json_is_integer(json_object_get(prim, "material")) && json_array_size(factor) >= 3)
        for (int k = 0; k < 3; k++) rgb[k] = 0.25 + 0.75 * json_number_value(json_array_get(factor, k));
    return json_is_true(json_object_get(m, "doubleSided"));
}

/* PNG: an image and its depth buffer, triangles drawn into it as they come (exact occlusion,
   where sorting far to near fails for large triangles beside small ones; and no limit on their
   number). */
typedef struct raster {
    cairo_surface_t *image;
    unsigned char *pixels;
    float *depth;
    int w, h, stride;
} raster;

static void raster_triangle(raster *r, const triangle *t) {
    const float *xy = t->xy;
    double area = (xy[2] - xy[0]) * (xy[5] - xy[1]) - (xy[4] - xy[0]) * (xy[3] - xy[1]);
    int x0 = (int)fmax(0, floor(fmin(xy[0], fmin(xy[2], xy[4])))), x1 = (int)fmin(r->w - 1, ceil(fmax(xy[0], fmax(xy[2], xy[4]))));
    int y0 = (int)fmax(0, floor(fmin(xy[1], fmin(xy[3], xy[5])))), y1 = (int)fmin(r->h - 1, ceil(fmax(xy[1], fmax(xy[3], xy[5]))));
    uint32_t colour = 0xFF000000u | (uint32_t)lround(t->rgb[0] * 255) << 16 | (uint32_t)lround(t->rgb[1] * 255) << 8 |
                      (uint32_t)lround(t->rgb[2] * 255);
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x <= x1; x++) {
            double px = x + 0.5, py = y + 0.5; /* barycentric weights of the pixel's centre */
            double b0 = ((xy[2] - px) * (xy[5] - py) - (xy[4] - px) * (xy[3] - py)) / area;
            double b1 = ((xy[4] - px) * (xy[1] - py) - (xy[0] - px) * (xy[5] - py)) / area;
            double b2 = 1 - b0 - b1;
            if (b0 < -1e-9 || b1 < -1e-9 || b2 < -1e-9) continue;
            float z = (float)(b0 * t->z[0] + b1 * t->z[1] + b2 * t->z[2]);
            float *d = &r->depth[(size_t)y * (size_t)r->w + (size_t)x];
            if (z >= *d || z < -1) continue;
            *d = z;
            memcpy(r->pixels + (size_t)y * (size_t)r->stride + 4 * (size_t)x, &colour, 4);
        }
    }
}

/* Triangles to draw: rasterized at once (PNG), or kept to be sorted (SVG, at most MAX_TRIANGLES). */
typedef struct tri_list {
    raster *r;
    triangle *t;
    uint32_t count, cap;
    bool full;
} tri_list;

/* False when the list is full (SVG) or out of memory. */
static bool tri_add(tri_list *out, const triangle *tri) {
    if (out->r) {
        raster_triangle(out->r, tri);
        return true;
    }
    if (out->count == MAX_TRIANGLES) {
        out->full = true;
        return false;
    }
    if (out->count == out->cap) {
        uint32_t cap = out->cap ? out->cap * 2 : 4096;
        triangle *grown = realloc(out->t, cap * sizeof *grown);
        if (!grown) {
            out->full = true;
            return false;
        }
        out->t = grown;
        out->cap = cap;
    }
    out->t[out->count++] = *tri;
    return true;
}

/* The primitive's vertices posed by node n's skin (glTF: the sum of each joint's world matrix
   times its inverse bind matrix, by the vertex's weights; the node's own transform is not
   used) into world; false when n has no skin or the primitive no JOINTS_0 and WEIGHTS_0 that
   can be read. */
static bool skinned(cli_file *f, arbor_node n, json_t *prim, const float *v, uint32_t nv, double *world) {
    int32_t skin = arbor_gltf_node_skin(f->doc, n);
    json_t *attributes = json_object_get(prim, "attributes");
    json_t *ji = json_object_get(attributes, "JOINTS_0"), *wi = json_object_get(attributes, "WEIGHTS_0");
    uint32_t count = 0, nj = 0, nw = 0;
    if (skin < 0 || !json_is_integer(ji) || !json_is_integer(wi) ||
        arbor_gltf_skin(f->doc, (uint32_t)skin, NULL, NULL, 0, NULL, &count) != ARBOR_OK || !count)
        return false;
    arbor_node *joints = malloc(count * sizeof *joints);
    float *ibm = malloc((size_t)count * 16 * sizeof *ibm);
    double *palette = malloc((size_t)count * 16 * sizeof *palette);
    float *jv = cli_accessor_floats(f, (uint32_t)json_integer_value(ji), 4, &nj);
    float *wv = cli_accessor_floats(f, (uint32_t)json_integer_value(wi), 4, &nw);
    bool ok = joints && ibm && palette && jv && wv && nj == nv && nw == nv &&
              arbor_gltf_skin(f->doc, (uint32_t)skin, joints, ibm, count, NULL, &count) == ARBOR_OK;
    for (uint32_t j = 0; ok && j < count; j++) { /* palette_j = world(joint j) * ibm_j */
        arbor_real jw[16];
        if (arbor_node_is_none(joints[j])) {
            ok = false;
            break;
        }
        arbor_node_world_matrix(f->scene, joints[j], jw);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                double sum = 0;
                for (int k = 0; k < 4; k++) sum += (double)jw[4 * k + r] * ibm[16 * j + 4 * c + k];
                palette[16 * j + 4 * c + r] = sum;
            }
    }
    for (uint32_t i = 0; ok && i < nv; i++) {
        double out[3] = { 0, 0, 0 };
        for (int k = 0; k < 4; k++) {
            double weight = wv[4 * i + k];
            uint32_t j = (uint32_t)jv[4 * i + k];
            if (weight == 0) continue;
            if (j >= count) {
                ok = false;
                break;
            }
            const double *m = palette + 16 * j;
            for (int r = 0; r < 3; r++) out[r] += weight * (m[r] * v[3 * i] + m[4 + r] * v[3 * i + 1] + m[8 + r] * v[3 * i + 2] + m[12 + r]);
        }
        memcpy(world + 3 * i, out, sizeof out);
    }
    free(joints);
    free(ibm);
    free(palette);
    free(jv);
    free(wv);
    return ok;
}

/* Adds the triangles of one primitive whose vertices are in world space (true when some were
   drawn). mode: 4 triangles, 5 strip, 6 fan; ix: the indices, or NULL. */
static bool add_triangles(const canvas *c, tri_list *out, const double *world, uint32_t nv, const float *ix, uint32_t corners,
                          json_int_t mode, const double base[3], bool two_sided, bool mirrored) {
    uint32_t tris = mode == 4 ? corners / 3 : corners > 2 ? corners - 2 : 0;
    bool any = false;
    for (uint32_t t = 0; t < tris; t++) {
        uint32_t k[3];
        for (int j = 0; j < 3; j++) {
            uint32_t at = mode == 4 ? 3 * t + (uint32_t)j : mode == 5 ? t + (uint32_t)j : j == 0 ? 0 : t + (uint32_t)j;
            k[j] = ix ? (uint32_t)ix[at] : at;
        }
        if (mode == 5 && (t & 1)) { uint32_t swap = k[1]; k[1] = k[2]; k[2] = swap; }
        if (k[0] >= nv || k[1] >= nv || k[2] >= nv) continue;
        triangle tri;
        double clip[4], centre[3] = { 0, 0, 0 }, e1[3], e2[3], normal[3];
        bool behind = false;
        for (int j = 0; j < 3; j++) {
            const double *q = world + 3 * k[j];
            double x, y;
            to_clip(c->v, q, clip);
            if (clip[3] < NEAR_W) behind = true;
            to_pixels(c->p, clip, &x, &y);
            tri.z[j] = (float)(clip[2] / clip[3]);
            tri.xy[2 * j] = (float)x;
            tri.xy[2 * j + 1] = (float)y;
            for (int a = 0; a < 3; a++) centre[a] += q[a] / 3;
        }
        /* a back face: clockwise on screen (pixel y points down), mirrored worlds flip it */
        double area = (tri.xy[2] - tri.xy[0]) * (tri.xy[5] - tri.xy[1]) - (tri.xy[4] - tri.xy[0]) * (tri.xy[3] - tri.xy[1]);
        if (behind || fabs(area) < 1e-9 || (!two_sided && (area > 0) != mirrored)) continue; /* edge-on: nothing to see */
        for (int a = 0; a < 3; a++) {
            e1[a] = world[3 * k[1] + a] - world[3 * k[0] + a];
            e2[a] = world[3 * k[2] + a] - world[3 * k[0] + a];
        }
        cross(e1, e2, normal);
        if (mirrored)
            for (int a = 0; a < 3; a++) normal[a] = -normal[a];
        normalize(normal);
        /* a light from the viewer's upper left, both sides lit (files differ on winding) */
        static const double light[3] = { -0.35, 0.8, 0.5 };
        double lambert = fabs(normal[0] * light[0] + normal[1] * light[1] + normal[2] * light[2]) / 1.0062;
        double facing = fabs(normal[0] * c->v->eye_dir[0] + normal[1] * c->v->eye_dir[1] + normal[2] * c->v->eye_dir[2]);
        double shade = 0.35 + 0.45 * lambert + 0.2 * facing;
        to_clip(c->v, centre, clip);
        tri.depth = (float)clip[3];
        for (int a = 0; a < 3; a++) tri.rgb[a] = (float)fmin(1, base[a] * shade);
        if (!tri_add(out, &tri)) break;
        any = true;
    }
    return any;
}

/* Adds node n's mesh's triangles, once per instance (true when some were readable). */
static bool add_mesh(cli_file *f, const canvas *c, arbor_node n, tri_list *out) {
    json_t *gltf = cli_json(f);
    int32_t mesh = arbor_node_mesh(f->scene, n);
    json_t *prims = json_object_get(json_array_get(json_object_get(gltf, "meshes"), (size_t)mesh), "primitives"), *prim;
    uint32_t placed;
    arbor_real *w = mesh >= 0 && prims ? draw_matrices(f, n, &placed) : NULL;
    if (!w) return false;
    bool any = false;
    size_t pi;
    json_array_foreach(prims, pi, prim) {
        json_t *mode_j = json_object_get(prim, "mode"), *pos = json_object_get(json_object_get(prim, "attributes"), "POSITION");
        json_int_t mode = json_is_integer(mode_j) ? json_integer_value(mode_j) : 4;
        if ((mode != 4 && mode != 5 && mode != 6) || !json_is_integer(pos)) continue;
        uint32_t nv, ni = 0;
        float *v = cli_accessor_floats(f, (uint32_t)json_integer_value(pos), 3, &nv), *ix = NULL;
        if (!v) continue;
        if (json_is_integer(json_object_get(prim, "indices")) &&
            !(ix = cli_accessor_floats(f, (uint32_t)json_integer_value(json_object_get(prim, "indices")), 1, &ni))) {
            free(v);
            continue;
        }
        double base[3];
        bool two_sided = material_colour(gltf, prim, base);
        double *world = malloc((size_t)nv * 3 * sizeof *world);
        if (world && skinned(f, n, prim, v, nv, world)) { /* posed by its joints, drawn once */
            any |= add_triangles(c, out, world, nv, ix, ix ? ni : nv, mode, base, two_sided, false);
        } else {
            for (uint32_t m = 0; world && m < placed && !out->full; m++) {
                const arbor_real *wm = w + 16 * m;
                for (uint32_t i = 0; i < nv; i++) {
                    double q[3] = { v[3 * i], v[3 * i + 1], v[3 * i + 2] };
                    transform(wm, q, world + 3 * i);
                }
                any |= add_triangles(c, out, world, nv, ix, ix ? ni : nv, mode, base, two_sided, arbor_mat4_determinant3(wm) < 0);
            }
        }
        free(world);
        free(v);
        free(ix);
    }
    free(w);
    return any;
}

/* A frustum at a camera node: its apex at the origin, opening down -Z, `size` long. */
static void draw_camera(const canvas *c, cli_file *f, arbor_node n, double size) {
    arbor_camera cam;
    arbor_real w[16];
    arbor_node_camera(f->scene, n, &cam);
    arbor_node_world_matrix(f->scene, n, w);
    double hx, hy;
    if (cam.type == ARBOR_CAMERA_PERSPECTIVE) {
        hy = tan(cam.yfov / 2) * size;
        hx = hy * (cam.aspect > 0 ? cam.aspect : 4.0 / 3);
    } else {
        double m = fmax(cam.xmag, cam.ymag);
        hx = m > 0 ? size * cam.xmag / m / 2 : size / 2;
        hy = m > 0 ? size * cam.ymag / m / 2 : size / 2;
    }
    /* the world matrix's scale is taken out: a frustum keeps its size on scaled nodes */
    double apex[3], corner[4][3], sx = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    double sy = sqrt(w[4] * w[4] + w[5] * w[5] + w[6] * w[6]), sz = sqrt(w[8] * w[8] + w[9] * w[9] + w[10] * w[10]);
    if (!(sx > 0) || !(sy > 0) || !(sz > 0)) return;
    double zero[3] = { 0, 0, 0 };
    transform(w, zero, apex);
    for (int k = 0; k < 4; k++) {
        double q[3] = { (k == 0 || k == 3 ? -hx : hx) / sx, (k < 2 ? -hy : hy) / sy, -size / sz };
        transform(w, q, corner[k]);
    }
    const double ink[4] = { 0.25, 0.25, 0.3, 0.9 };
    for (int k = 0; k < 4; k++) {
        segment(c, apex, corner[k], ink, 1.2);
        segment(c, corner[k], corner[(k + 1) % 4], ink, 1.2);
    }
    double top[3], q[3] = { 0, hy * 1.4 / sy, -size / sz };
    transform(w, q, top); /* a tick above the frame: which way is up */
    segment(c, corner[2], top, ink, 1.2);
    segment(c, corner[3], top, ink, 1.2);
}

/* A light: a sun (directional), a star of rays (point), a cone (spot); and its direction. */
static void draw_light(const canvas *c, cli_file *f, arbor_node n, double size) {
    arbor_light l;
    arbor_real w[16];
    arbor_node_light(f->scene, n, &l);
    arbor_node_world_matrix(f->scene, n, w);
    const double ink[4] = { 0.93, 0.62, 0.0, 1 };
    double o[3], clip[4], x, y, zero[3] = { 0, 0, 0 };
    transform(w, zero, o);
    to_clip(c->v, o, clip);
    if (clip[3] < NEAR_W) return;
    to_pixels(c->p, clip, &x, &y);
    pen_dot(c->p, x, y, 5, ink);
    for (int k = 0; k < 8 && l.type == ARBOR_LIGHT_POINT; k++) {
        double a = k * 0.785398163, xy[4] = { x + 7 * cos(a), y + 7 * sin(a), x + 12 * cos(a), y + 12 * sin(a) };
        pen_lines(c->p, xy, 2, false, ink, 1.5);
    }
    if (l.type == ARBOR_LIGHT_POINT) return;
    double d[3] = { 0, 0, -1 }, tip[3], len = size;
    arbor_real sx = (arbor_real)sqrt(w[8] * w[8] + w[9] * w[9] + w[10] * w[10]);
    if (!(sx > 0)) return;
    for (int k = 0; k < 3; k++) d[k] = -w[8 + k] / sx * len;
    for (int k = 0; k < 3; k++) tip[k] = o[k] + d[k];
    segment(c, o, tip, ink, 2);
    if (l.type == ARBOR_LIGHT_SPOT) { /* the outer cone's edges in the light's XZ and YZ planes */
        double cone = l.outer_cone > 0 ? l.outer_cone : 0.785398163, r = tan(cone) * len;
        for (int k = 0; k < 4; k++) {
            double q[3] = { k == 0 ? r : k == 1 ? -r : 0, k == 2 ? r : k == 3 ? -r : 0, -len }, e[3], lq[3];
            /* in the light's frame without its scale */
            for (int a = 0; a < 3; a++)
                lq[a] = q[a] / sqrt(w[4 * a] * w[4 * a] + w[4 * a + 1] * w[4 * a + 1] + w[4 * a + 2] * w[4 * a + 2]);
            transform(w, lq, e);
            segment(c, o, e, ink, 1);
        }
    } else { /* a sun: rays all around */
        for (int k = 0; k < 12; k++) {
            double a = k * 0.523598776, xy[4] = { x + 8 * cos(a), y + 8 * sin(a), x + 13 * cos(a), y + 13 * sin(a) };
            pen_lines(c->p, xy, 2, false, ink, 1.5);
        }
    }
}

/* A grid on y = 0 over the scene's XZ extent, lines a round step apart, and the axes. */
static void draw_ground(const canvas *c, const double lo[3], const double hi[3]) {
    double span = fmax(fmax(hi[0] - lo[0], hi[2] - lo[2]), 1e-6), step = pow(10, floor(log10(span / 4)));
    if (span / step > 24) step *= 5;
    else if (span / step > 12) step *= 2;
    /* at least a step either side of the origin, so a flat scene still has a grid */
    double x0 = floor(fmin(lo[0], -step) / step) * step, x1 = ceil(fmax(hi[0], step) / step) * step;
    double z0 = floor(fmin(lo[2], -step) / step) * step, z1 = ceil(fmax(hi[2], step) / step) * step;
    const double grid[4] = { 0.6, 0.6, 0.6, 0.45 };
    for (int i = 0; i <= 200 && x0 + i * step <= x1 + step / 2; i++) {
        double a[3] = { x0 + i * step, 0, z0 }, b[3] = { x0 + i * step, 0, z1 };
        segment(c, a, b, grid, 0.7);
    }
    for (int i = 0; i <= 200 && z0 + i * step <= z1 + step / 2; i++) {
        double a[3] = { x0, 0, z0 + i * step }, b[3] = { x1, 0, z0 + i * step };
        segment(c, a, b, grid, 0.7);
    }
    const double axes[3][4] = { { 0.85, 0.1, 0.1, 1 }, { 0.1, 0.65, 0.1, 1 }, { 0.1, 0.25, 0.9, 1 } };
    for (int k = 0; k < 3; k++) {
        double o[3] = { 0, 0, 0 }, e[3] = { 0, 0, 0 };
        e[k] = 2 * step;
        segment(c, o, e, axes[k], 2.5);
    }
}

/* PNG: a transparent image and a depth buffer at infinity; false on no memory. */
static bool raster_open(raster *r, int w, int h) {
    *r = (raster){ .w = w, .h = h };
    r->image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    r->depth = malloc((size_t)w * (size_t)h * sizeof *r->depth);
    if (!r->depth || cairo_surface_status(r->image) != CAIRO_STATUS_SUCCESS) {
        free(r->depth);
        cairo_surface_destroy(r->image);
        return false;
    }
    cairo_surface_flush(r->image);
    r->pixels = cairo_image_surface_get_data(r->image);
    r->stride = cairo_image_surface_get_stride(r->image);
    memset(r->pixels, 0, (size_t)r->stride * (size_t)h); /* transparent where nothing is drawn */
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) r->depth[i] = INFINITY;
    return true;
}

/* Paints the image over the picture, and frees it. */
static void raster_close(raster *r, const pen *p) {
    cairo_surface_mark_dirty(r->image);
    cairo_set_source_surface(p->cr, r->image, 0, 0);
    cairo_paint(p->cr);
    cairo_surface_destroy(r->image);
    free(r->depth);
}

typedef enum { LABELS_NONE, LABELS_ROOTS, LABELS_ALL, LABELS_DEFAULT } labels;

/* Where labels are, on a grid of LABEL_CELL pixels: a label goes where it covers no other (and
   not on the caption's line), else it is left out. */
#define LABEL_CELL 4
typedef struct label_grid {
    unsigned char *taken;
    int w, h;
} label_grid;

/* Takes the cells of [x0, x1] x [y0, y1] when they are free and inside the picture. */
static bool label_take(label_grid *g, double x0, double y0, double x1, double y1) {
    if (x0 < 0 || y0 < 0) return false;
    int c0 = (int)(x0 / LABEL_CELL), r0 = (int)(y0 / LABEL_CELL), c1 = (int)(x1 / LABEL_CELL), r1 = (int)(y1 / LABEL_CELL);
    if (c1 >= g->w || r1 >= g->h) return false;
    for (int r = r0; r <= r1; r++)
        for (int c = c0; c <= c1; c++)
            if (g->taken[(size_t)r * (size_t)g->w + (size_t)c]) return false;
    for (int r = r0; r <= r1; r++) memset(g->taken + (size_t)r * (size_t)g->w + (size_t)c0, 1, (size_t)(c1 - c0 + 1));
    return true;
}

/* A node's name beside its dot at (x, y): right and above it, else right and below, left and
   above, left and below, the first place where it covers no other label; false: left out. The
   box held is the text's advance and the font's height, with its halo. */
static bool place_label(const canvas *c, label_grid *g, double x, double y, double size, const char *name, const double rgba[4]) {
    char text[256];
    drawable_text(name, text, sizeof text);
    double width = pen_measure(c->p, text, size);
    static const double at[4][2] = { { 1, -1 }, { 1, 1 }, { -1, -1 }, { -1, 1 } };
    for (int k = 0; k < 4; k++) {
        double left = at[k][0] > 0 ? x + 5 : x - 5 - width, base = at[k][1] < 0 ? y - 5 : y + 5 + size;
        if (label_take(g, left - 2, base - size - 2, left + width + 2, base + 0.35 * size + 2)) {
            pen_text(c->p, left, base, size, text, rgba);
            return true;
        }
    }
    return false;
}

/* The axes of the URDF joints the nodes' extras describe (`arbor convert robot.urdf`: extras.urdf.joint
   with its type and axis, in the child link's frame): an arrow from the joint along its axis in
   the world, red for a rotation, blue for a translation. */
static void draw_joint_axes(const canvas *c, cli_file *f, const unsigned char *in, double size) {
    json_t *nodes = json_object_get(cli_json(f), "nodes");
    for (uint32_t i = 0, count = arbor_gltf_node_count(f->doc); i < count; i++) {
        json_t *j = json_object_get(json_object_get(json_object_get(json_array_get(nodes, i), "extras"), "urdf"), "joint");
        const char *type = json_string_value(json_object_get(j, "type"));
        json_t *axis = json_object_get(j, "axis");
        arbor_node n = arbor_gltf_node(f->doc, i);
        if (!in[i] || !type || !strcmp(type, "fixed") || !strcmp(type, "floating") || json_array_size(axis) != 3 ||
            arbor_node_is_none(n))
            continue;
        arbor_real w[16];
        arbor_node_world_matrix(f->scene, n, w);
        double a[3], from[3] = { w[12], w[13], w[14] }, to[3], len = 0;
        for (int k = 0; k < 3; k++) {
            a[k] = w[k] * json_number_value(json_array_get(axis, 0)) + w[4 + k] * json_number_value(json_array_get(axis, 1)) +
                   w[8 + k] * json_number_value(json_array_get(axis, 2));
            len += a[k] * a[k];
        }
        if (!(len > 0)) continue;
        for (int k = 0; k < 3; k++) to[k] = from[k] + a[k] / sqrt(len) * size * 2.5;
        bool slides = !strcmp(type, "prismatic");
        const double rgba[4] = { slides ? 0.1 : 0.85, slides ? 0.3 : 0.1, slides ? 0.9 : 0.1, 0.9 };
        segment(c, from, to, rgba, 2);
        double clip[4], x, y;
        to_clip(c->v, to, clip);
        if (clip[3] < NEAR_W) continue;
        to_pixels(c->p, clip, &x, &y);
        pen_dot(c->p, x, y, 2.5, rgba);
    }
}

/* joint: the skins' joints (one byte per file node), drawn as a thin grey skeleton when
   show_joints, else left out (their dots and links would cover the skinned meshes). */
/* overlays: the nodes' dots, links to their parents, boxes over drawn meshes and names; -1: only
   when no mesh could be drawn (then they are the picture). */
static int draw(const canvas *c, cli_file *f, const unsigned char *in, const unsigned char *joint, bool show_joints,
                const double lo[3], const double hi[3], labels which, int overlays, arbor_node viewer) {
    arbor_scene *s = f->scene;
    uint32_t count = arbor_gltf_node_count(f->doc), members = 0;
    for (uint32_t i = 0; i < count; i++) members += in[i] && (show_joints || !joint[i]);
    const double white[4] = { 1, 1, 1, 1 }, all[8] = { 0, 0, c->p->width, 0, c->p->width, c->p->height, 0, c->p->height };
    pen_fill(c->p, all, 4, white);
    draw_ground(c, lo, hi);
    double size = 0;
    for (int k = 0; k < 3; k++) size += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    size = fmax(sqrt(size) * 0.03, 1e-3); /* a frustum's length: small beside the scene */

    /* Meshes first, then what is drawn over them. */
    raster image;
    tri_list tris = { .r = c->p->cr ? &image : NULL };
    unsigned char *meshed = calloc(count + 1, 1);
    if (!meshed || (c->p->cr && !raster_open(&image, (int)c->p->width, (int)c->p->height))) {
        free(meshed);
        return 1;
    }
    for (uint32_t i = 0; i < count; i++) {
        arbor_node n = arbor_gltf_node(f->doc, i);
        if (in[i] && !arbor_node_is_none(n)) meshed[i] = add_mesh(f, c, n, &tris);
    }
    if (c->p->cr) raster_close(&image, c->p);
    if (!c->p->cr && tris.count) qsort(tris.t, tris.count, sizeof *tris.t, far_first); /* SVG: far to near (none: no array) */
    for (uint32_t t = 0; !c->p->cr && t < tris.count; t++) {
        double xy[6], rgba[4] = { tris.t[t].rgb[0], tris.t[t].rgb[1], tris.t[t].rgb[2], 1 };
        for (int k = 0; k < 6; k++) xy[k] = tris.t[t].xy[k];
        pen_fill(c->p, xy, 3, rgba);
    }
    bool any_mesh = false;
    for (uint32_t i = 0; i < count; i++) any_mesh |= meshed[i];
    bool over = overlays < 0 ? !any_mesh : overlays;
    if (which == LABELS_DEFAULT) which = !over ? LABELS_NONE : members <= 60 ? LABELS_ALL : LABELS_ROOTS;
    free(tris.t);
    if (tris.full) cli_error("%s: only the first %d triangles are drawn (a PNG draws all)", f->path, MAX_TRIANGLES);

    for (uint32_t i = 0; i < count; i++) {
        arbor_node n = arbor_gltf_node(f->doc, i);
        if (!in[i] || arbor_node_is_none(n) || (joint[i] && !show_joints)) continue;
        arbor_real w[16], bl[3], bh[3];
        uint32_t depth = arbor_node_depth(s, n);
        double rgba[4];
        arbor_node_world_matrix(s, n, w);
        double origin[3] = { w[12], w[13], w[14] };
        /* the local box through the world matrix (each instance's, where the mesh could not be
           drawn; an instanced mesh drawn needs no boxes) */
        uint32_t placed = 0;
        bool boxed = arbor_node_bounds(s, n, bl, bh) == ARBOR_OK && bl[0] <= bh[0] && !(meshed[i] && arbor_node_instance_count(s, n)) &&
                     arbor_gltf_node_skin(f->doc, n) < 0 /* a skinned mesh is not in its node's frame */ &&
                     (over || !meshed[i]); /* a box in place of a mesh not drawn stays */
        arbor_real *boxes = boxed ? draw_matrices(f, n, &placed) : NULL;
        depth_colour(depth, meshed[i] ? 0.2 : 0.7, rgba);
        for (uint32_t m = 0; m < placed; m++) {
            double corner[8][3];
            for (int k = 0; k < 8; k++) {
                double q[3] = { k & 1 ? bh[0] : bl[0], k & 2 ? bh[1] : bl[1], k & 4 ? bh[2] : bl[2] };
                transform(boxes + 16 * m, q, corner[k]);
            }
            for (int k = 0; k < 8; k++)
                for (int bit = 1; bit < 8; bit <<= 1)
                    if (!(k & bit)) segment(c, corner[k], corner[k | bit], rgba, meshed[i] ? 0.6 : 1.2);
        }
        free(boxes);
        arbor_node parent = arbor_node_parent(s, n);
        if (!arbor_node_is_none(parent) && (over || joint[i])) {
            arbor_real pw[16];
            arbor_node_world_matrix(s, parent, pw);
            /* over drawn meshes the links are faint: the meshes are the picture */
            const double from[3] = { pw[12], pw[13], pw[14] }, ink[4] = { 0.15, 0.15, 0.15, any_mesh ? 0.25 : 0.55 },
                         bone[4] = { 0.4, 0.4, 0.45, 0.7 };
            segment(c, from, origin, joint[i] ? bone : ink, joint[i] ? 0.8 : any_mesh ? 0.8 : 1.1);
        }
        arbor_camera cam;
        arbor_light light;
        if (!arbor_node_equal(n, viewer) && arbor_node_camera(s, n, &cam) == ARBOR_OK) draw_camera(c, f, n, size);
        if (arbor_node_light(s, n, &light) == ARBOR_OK) draw_light(c, f, n, size);
    }
    draw_joint_axes(c, f, in, size);
    /* Dots and names last, over everything. */
    const double ink[4] = { 0.1, 0.1, 0.1, 1 };
    label_grid grid = { NULL, (int)ceil(c->p->width / LABEL_CELL), (int)ceil(c->p->height / LABEL_CELL) };
    if (which != LABELS_NONE && !(grid.taken = calloc((size_t)grid.w * (size_t)grid.h, 1))) which = LABELS_NONE;
    if (grid.taken) label_take(&grid, 0, c->p->height - 22, c->p->width - 1, c->p->height - 1); /* the caption's line */
    for (uint32_t i = 0; (over || show_joints || which != LABELS_NONE) && i < count; i++) {
        arbor_node n = arbor_gltf_node(f->doc, i);
        if (!in[i] || arbor_node_is_none(n) || (joint[i] && !show_joints)) continue;
        arbor_real w[16];
        arbor_node_world_matrix(s, n, w);
        double origin[3] = { w[12], w[13], w[14] }, clip[4], x, y, rgba[4];
        to_clip(c->v, origin, clip);
        if (clip[3] < NEAR_W) continue;
        to_pixels(c->p, clip, &x, &y);
        depth_colour(arbor_node_depth(s, n), 1, rgba);
        if (joint[i]) rgba[0] = rgba[1] = rgba[2] = 0.4; /* a joint: small and grey */
        if (over || joint[i]) pen_dot(c->p, x, y, joint[i] || members > 100 ? 1.5 : 2.5, rgba);
        bool root = arbor_node_is_none(arbor_node_parent(s, n));
        if (which == LABELS_ALL || (which == LABELS_ROOTS && root)) {
            char buf[32];
            place_label(c, &grid, x, y, root ? 12 : 10.5, cli_node_label(f, n, buf), ink);
        }
    }
    free(grid.taken);
    free(meshed);
    return 0;
}

/* MSFT_lod: each group's level 0 (its most detailed, the node that carries the extension) is
   drawn; the other levels' subtrees are left out of `in`, wherever they sit in the file. */
static bool keep_first_levels(cli_file *f, unsigned char *in) {
    for (uint32_t g = 0, groups = arbor_gltf_lod_count(f->doc); g < groups; g++) {
        uint32_t count = arbor_gltf_lod_group(f->doc, g, NULL, NULL, 0, NULL);
        arbor_node *levels = malloc(((size_t)count + 1) * sizeof *levels);
        if (!levels) return false;
        arbor_gltf_lod_group(f->doc, g, levels, NULL, count, NULL);
        for (uint32_t l = 1; l < count; l++) {
            for (arbor_node n = levels[l]; !arbor_node_is_none(n); n = cli_next_in_subtree(f->scene, levels[l], n)) {
                int64_t i = arbor_gltf_index(f->doc, n);
                if (i >= 0 && !arbor_node_equal(n, levels[0])) in[i] = 0;
            }
        }
        free(levels);
    }
    return true;
}

/* One byte per file node: 1 for the joints of the file's skins. NULL on no memory. */
static unsigned char *skin_joints(cli_file *f) {
    arbor_gltf_counts counts;
    arbor_gltf_counts_get(f->doc, &counts);
    unsigned char *joint = calloc((size_t)counts.nodes + 1, 1);
    for (uint32_t k = 0; joint && k < counts.skins; k++) {
        uint32_t n = 0;
        arbor_gltf_skin(f->doc, k, NULL, NULL, 0, NULL, &n);
        arbor_node *joints = malloc(((size_t)n + 1) * sizeof *joints);
        if (!joints) {
            free(joint);
            return NULL;
        }
        arbor_gltf_skin(f->doc, k, joints, NULL, n, NULL, &n);
        for (uint32_t j = 0; j < n; j++) {
            int64_t i = arbor_node_is_none(joints[j]) ? -1 : arbor_gltf_index(f->doc, joints[j]);
            if (i >= 0 && i < counts.nodes) joint[i] = 1;
        }
        free(joints);
    }
    return joint;
}

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* *taken once the loaded file is the picture's (closed by it). */
static int render_file(int argc, char **argv, cli_file *loaded, bool *taken) {
    if (!loaded && cli_wants_help(argc, argv, help)) return 0;
    const char *view_name = "auto", *animation = NULL, *camera_node = NULL;
    double time = 0;
    bool posed = false;
    int width = 960, height = 720;
    bool sized = false, show_joints = false;
    int overlays = -1;
    labels which = LABELS_DEFAULT;
    /* render's own options come out first; the common ones go to cli_parse_args */
    int kept = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool own = !strcmp(a, "--view") || !strcmp(a, "--size") || !strcmp(a, "--time") || !strcmp(a, "--animation") ||
                   !strcmp(a, "--labels") || !strcmp(a, "--camera");
        if (!strcmp(a, "--joints") || !strcmp(a, "--overlays") || !strcmp(a, "--no-overlays")) {
            if (a[2] == 'j') show_joints = true;
            else overlays = a[2] == 'o';
            continue;
        }
        if (!own) {
            argv[kept++] = argv[i];
            continue;
        }
        if (!value) return cli_usage_error("render: %s needs a value", a);
        i++;
        char *end;
        if (!strcmp(a, "--view")) {
            view_name = value;
            if (strcmp(value, "auto") && strcmp(value, "top") && strcmp(value, "front") && strcmp(value, "side") &&
                strcmp(value, "iso") && strcmp(value, "camera") && strncmp(value, "camera:", 7))
                return cli_usage_error("render: --view '%s': the views are auto, top, front, side, iso, camera, camera:NODE", value);
            if (!strncmp(value, "camera:", 7)) camera_node = value + 7;
        } else if (!strcmp(a, "--camera")) {
            view_name = "camera";
            camera_node = value;
        } else if (!strcmp(a, "--size")) {
            long w = strtol(value, &end, 10), h = *end == 'x' ? strtol(end + 1, &end, 10) : 0;
            if (*end || w < 16 || h < 16 || w > 8192 || h > 8192)
                return cli_usage_error("render: --size '%s': WIDTHxHEIGHT in pixels, each 16 to 8192 (960x720)", value);
            width = (int)w, height = (int)h, sized = true;
        } else if (!strcmp(a, "--time")) {
            time = strtod(value, &end);
            if (end == value || *end || !isfinite(time)) return cli_usage_error("render: --time '%s' is not a number of seconds", value);
            posed = true;
        } else if (!strcmp(a, "--animation")) {
            animation = value;
            posed = true;
        } else {
            which = !strcmp(value, "none") ? LABELS_NONE : !strcmp(value, "roots") ? LABELS_ROOTS : !strcmp(value, "all") ? LABELS_ALL : LABELS_DEFAULT;
            if (which == LABELS_DEFAULT) return cli_usage_error("render: --labels '%s': none, roots or all", value);
        }
    }
    cli_args args;
    cli_file f;
    int32_t scene;
    int status = cli_parse_args("render", kept, argv, CLI_OPT_OUTPUT | CLI_OPT_LENIENT | CLI_OPT_SCENE, 1, 1, &args);
    if (status) return status;
    if (!args.output) return cli_usage_error("render: -o OUT.svg or -o OUT.png is required");
    bool to_stdout = !strcmp(args.output, "-"), svg = to_stdout || ends_with(args.output, ".svg"), png = ends_with(args.output, ".png");
    if (!svg && !png) return cli_usage_error("render: %s: the picture's name must end in .svg or .png (or be -)", args.output);
    if (loaded) f = *loaded, *taken = true;
    else if (cli_load(&f, args.files[0], args.lenient)) return 1;
    if ((status = cli_pick_scene("render", &f, &args, &scene)) || (posed && (status = cli_pose(&f, "render", animation, time)))) {
        cli_close(&f);
        return status;
    }
    unsigned char *in = cli_scene_members(&f, scene), *joint = skin_joints(&f);
    if (!in || !joint || !keep_first_levels(&f, in)) {
        free(in);
        free(joint);
        cli_close(&f);
        cli_error("out of memory");
        return 1;
    }
    for (uint32_t i = 0, count = arbor_gltf_node_count(f.doc); i < count; i++) { /* hidden (KHR_node_visibility): not drawn */
        arbor_node n = arbor_gltf_node(f.doc, i);
        if (in[i] && !arbor_node_is_none(n) && !arbor_node_effectively_visible(f.scene, n)) in[i] = 0;
    }
    double lo[3], hi[3];
    scene_extent(&f, in, lo, hi);
    view v = { 0 };
    arbor_node viewer = ARBOR_NONE;
    if (!strncmp(view_name, "camera", 6)) {
        cli_view cv;
        if ((status = cli_view_pick("render", &f, scene, camera_node, &cv))) {
            free(in);
            free(joint);
            cli_close(&f);
            return status;
        }
        if (!sized) height = (int)fmin(8192, fmax(16, round(width / cv.aspect)));
        else if (arbor_camera_view_projection(f.scene, cv.camera, (arbor_real)width / height, cv.view_projection)) {
            cli_error("%s", cli_last_error());
            free(in);
            free(joint);
            cli_close(&f);
            return 1;
        }
        for (int k = 0; k < 16; k++) v.vp[k] = cv.view_projection[k];
        arbor_real w[16];
        arbor_node_world_matrix(f.scene, cv.camera, w);
        double z[3] = { w[8], w[9], w[10] };
        normalize(z);
        memcpy(v.eye_dir, z, sizeof z);
        snprintf(v.what, sizeof v.what, "camera: %s", cv.what);
        viewer = cv.camera;
    } else {
        frame(&v, view_name, lo, hi, (double)width / height);
    }

    pen p = { .width = width, .height = height };
    cairo_surface_t *surface = NULL;
    FILE *out = NULL;
    if (png) {
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
        p.cr = cairo_create(surface);
        cairo_set_line_join(p.cr, CAIRO_LINE_JOIN_ROUND);
        cairo_set_line_cap(p.cr, CAIRO_LINE_CAP_ROUND);
        cairo_select_font_face(p.cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
        p.measure = p.cr;
    } else {
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1); /* measures text, draws nothing */
        p.measure = cairo_create(surface);
        cairo_select_font_face(p.measure, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
        out = to_stdout ? stdout : fopen(args.output, "w");
        if (!out) {
            cli_error("%s: cannot be written", args.output);
            cairo_destroy(p.measure);
            cairo_surface_destroy(surface);
            free(in);
            free(joint);
            cli_close(&f);
            return 1;
        }
        p.svg = out;
        fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                     "font-family=\"sans-serif\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n",
                width, height, width, height);
    }
    canvas c = { &p, &v };
    status = draw(&c, &f, in, joint, show_joints, lo, hi, which, overlays, viewer);
    const double grey[4] = { 0.3, 0.3, 0.3, 1 };
    char caption[400];
    if (posed)
        snprintf(caption, sizeof caption, "%s at %g s, view %s", f.path, time, v.what);
    else
        snprintf(caption, sizeof caption, "%s, view %s", f.path, v.what);
    pen_text(&p, 8, height - 8, 11, caption, grey);
    free(in);
    free(joint);
    bool ok = !status;
    if (png) {
        ok = ok && cairo_status(p.cr) == CAIRO_STATUS_SUCCESS;
        cairo_destroy(p.cr);
        ok = ok && cairo_surface_write_to_png(surface, args.output) == CAIRO_STATUS_SUCCESS;
    } else {
        cairo_destroy(p.measure);
        fputs("</svg>\n", out);
        ok = ok && !ferror(out);
        if (to_stdout) ok = !fflush(out) && ok;
        else ok = !fclose(out) && ok;
    }
    cairo_surface_destroy(surface);
    cairo_debug_reset_static_data();
    FcFini(); /* after cairo's reset: fontconfig's caches freed, so leak checkers see none */
    cli_close(&f);
    if (!ok) {
        cli_error("%s: the picture could not be written", args.output);
        return 1;
    }
    if (!to_stdout) printf("%s: %d x %d, view %s\n", args.output, width, height, v.what);
    return 0;
}

int cli_render(int argc, char **argv, cli_file *loaded) {
    bool taken = false;
    int status = render_file(argc, argv, loaded, &taken);
    if (loaded && !taken) cli_close(loaded);
    return status;
}

int cmd_render(int argc, char **argv) { return cli_render(argc, argv, NULL); }
