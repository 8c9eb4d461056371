/* SPDX-License-Identifier: MIT */
/* arbor info: what a glTF file holds, and what is odd about it (sheared or mirrored worlds). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor info FILE [--scene N|NAME] [--json] [--lenient]\n"
    "\n"
    "What a glTF file (.gltf or .glb; - reads standard input) holds, as a 3D user checks it:\n"
    "  asset       generator, copyright, glTF version\n"
    "  scenes      each scene's name, nodes and roots; the shown one's depth and world bounds\n"
    "              (the union of its nodes' boxes moved by their world matrices)\n"
    "  meshes      each mesh's name, primitives, vertices (POSITION counts) and triangles\n"
    "              (of triangle, strip and fan primitives)\n"
    "  materials   names; textures with their image's size in pixels (PNG and JPEG headers)\n"
    "  animations  name, duration in seconds, channels and keyframes (the channels' input counts)\n"
    "  skins       name and joint count; cameras and lights with their type and parameters\n"
    "  extensions  used and required; buffers and images with their sizes in bytes\n"
    "  instancing  nodes with EXT_mesh_gpu_instancing and their instances, nodes hidden by\n"
    "              KHR_node_visibility, MSFT_lod groups\n"
    "  warnings    nodes of the shown scene whose world matrix is sheared (no TRS holds it) or\n"
    "              mirrored (negative determinant), and what the load warned about\n"
    "\n"
    "  --scene N|NAME  the glTF scene to show (0-based index or name; default: the file's)\n"
    "  --json          the same as one JSON object: \"asset\", \"scenes\" (each with \"index\",\n"
    "                  \"name\", \"nodes\", \"roots\"), \"scene\" (the shown one's \"index\",\n"
    "                  \"nodes\", \"depth\", \"bounds\"), \"nodes\", \"meshes\" (each with \"name\",\n"
    "                  \"primitives\", \"vertices\", \"triangles\"), \"materials\", \"textures\",\n"
    "                  \"images\" (\"bytes\", \"width\", \"height\"), \"animations\" (each with\n"
    "                  \"name\", \"duration\", \"channels\", \"keyframes\"), \"skins\" (\"joints\"),\n"
    "                  \"cameras\", \"lights\", \"extensions_used\", \"extensions_required\",\n"
    "                  \"buffers\" (\"bytes\"), \"hidden_nodes\", \"instanced_nodes\", \"instances\",\n"
    "                  \"lod_groups\", \"sheared\", \"mirrored\" (node paths), \"warnings\";\n"
    "                  a name the file does not give is null\n"
    "  --lenient       load what can be loaded, with warnings, instead of refusing the file\n";


/* Grows [min, max] by the node's local box moved into the world (its 8 corners). */
static void add_world_box(arbor_scene *s, arbor_node n, const arbor_real w[16], double min[3], double max[3]) {
    arbor_real lo[3], hi[3];
    if (arbor_node_bounds(s, n, lo, hi) != ARBOR_OK || lo[0] > hi[0]) return; /* none: an empty box */
    for (int c = 0; c < 8; c++) {
        arbor_real p[3] = { c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2] }, q[3];
        arbor_mat4_transform_point(q, w, p);
        for (int i = 0; i < 3; i++) {
            min[i] = fmin(min[i], (double)q[i]);
            max[i] = fmax(max[i], (double)q[i]);
        }
    }
}

static json_t *name_of(json_t *item) {
    json_t *name = json_object_get(item, "name");
    return json_is_string(name) ? json_incref(name) : json_null();
}

static json_int_t count_of(json_t *accessors, json_t *index) {
    return json_is_integer(index) ? json_integer_value(json_object_get(json_array_get(accessors, (size_t)json_integer_value(index)), "count")) : 0;
}

/* Meshes: primitives, vertices (POSITION counts), triangles (of modes 4, 5, 6). */
static json_t *meshes_report(json_t *gltf) {
    json_t *out = json_array(), *mesh, *accessors = json_object_get(gltf, "accessors");
    size_t i;
    json_array_foreach(json_object_get(gltf, "meshes"), i, mesh) {
        json_t *prims = json_object_get(mesh, "primitives"), *prim;
        json_int_t vertices = 0, triangles = 0;
        size_t k;
        json_array_foreach(prims, k, prim) {
            json_int_t v = count_of(accessors, json_object_get(json_object_get(prim, "attributes"), "POSITION"));
            json_t *mode_j = json_object_get(prim, "mode");
            json_int_t mode = json_is_integer(mode_j) ? json_integer_value(mode_j) : 4;
            json_int_t drawn = json_object_get(prim, "indices") ? count_of(accessors, json_object_get(prim, "indices")) : v;
            vertices += v;
            triangles += mode == 4 ? drawn / 3 : (mode == 5 || mode == 6) && drawn > 2 ? drawn - 2 : 0;
        }
        json_array_append_new(out, json_pack("{s:o, s:I, s:I, s:I}", "name", name_of(mesh), "primitives",
                                             (json_int_t)json_array_size(prims), "vertices", vertices, "triangles", triangles));
    }
    return out;
}

/* Animations: duration (the largest input max), channels, keyframes (the channels' input counts). */
static json_t *animations_report(json_t *gltf) {
    json_t *out = json_array(), *anim, *accessors = json_object_get(gltf, "accessors");
    size_t i;
    json_array_foreach(json_object_get(gltf, "animations"), i, anim) {
        json_t *samplers = json_object_get(anim, "samplers"), *channel, *sampler;
        double duration = 0;
        json_int_t keyframes = 0;
        size_t k;
        json_array_foreach(samplers, k, sampler) {
            json_t *input = json_array_get(accessors, (size_t)json_integer_value(json_object_get(sampler, "input")));
            json_t *max = json_array_get(json_object_get(input, "max"), 0);
            if (json_is_number(max) && json_number_value(max) > duration) duration = json_number_value(max);
        }
        json_array_foreach(json_object_get(anim, "channels"), k, channel) {
            json_t *sampler_j = json_array_get(samplers, (size_t)json_integer_value(json_object_get(channel, "sampler")));
            keyframes += count_of(accessors, json_object_get(sampler_j, "input"));
        }
        json_array_append_new(out, json_pack("{s:o, s:o, s:I, s:I}", "name", name_of(anim), "duration", cli_json_real(duration),
                                             "channels", (json_int_t)json_array_size(json_object_get(anim, "channels")),
                                             "keyframes", keyframes));
    }
    return out;
}

static json_t *copy_or_null(json_t *v) { return v ? json_deep_copy(v) : json_null(); }

static json_t *cameras_report(json_t *gltf) {
    json_t *out = json_array(), *cam;
    size_t i;
    json_array_foreach(json_object_get(gltf, "cameras"), i, cam) {
        const char *type = json_string_value(json_object_get(cam, "type"));
        json_t *params = json_object_get(cam, type ? type : "");
        json_t *item = json_pack("{s:o, s:s}", "name", name_of(cam), "type", type ? type : "?");
        const char *keys[] = { "yfov", "aspectRatio", "xmag", "ymag", "znear", "zfar" };
        for (size_t k = 0; k < 6; k++) {
            json_t *v = json_object_get(params, keys[k]);
            if (json_is_number(v)) json_object_set_new(item, keys[k], cli_json_real(json_number_value(v)));
        }
        json_array_append_new(out, item);
    }
    return out;
}

static json_t *lights_report(json_t *gltf) {
    json_t *out = json_array(), *light;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(json_object_get(gltf, "extensions"), "KHR_lights_punctual"), "lights"), i, light) {
        json_t *item = json_pack("{s:o, s:o}", "name", name_of(light), "type", copy_or_null(json_object_get(light, "type")));
        json_t *intensity = json_object_get(light, "intensity"), *range = json_object_get(light, "range");
        json_object_set_new(item, "intensity", cli_json_real(json_is_number(intensity) ? json_number_value(intensity) : 1));
        json_object_set_new(item, "color", json_object_get(light, "color") ? json_deep_copy(json_object_get(light, "color")) : json_pack("[i,i,i]", 1, 1, 1));
        if (json_is_number(range)) json_object_set_new(item, "range", cli_json_real(json_number_value(range)));
        json_t *spot = json_object_get(light, "spot");
        if (spot) json_object_set_new(item, "spot", json_deep_copy(spot));
        json_array_append_new(out, item);
    }
    return out;
}

static json_t *names_report(json_t *array) {
    json_t *out = json_array(), *item;
    size_t i;
    json_array_foreach(array, i, item) json_array_append_new(out, json_pack("{s:o}", "name", name_of(item)));
    return out;
}

/* ---- the report as text -------------------------------------------------------------------- */

static const char *str(json_t *o, const char *key) {
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "(unnamed)";
}

static double num(json_t *o, const char *key) { return json_number_value(json_object_get(o, key)); }

/* "  meshes      3" then one line per item, at most LIST_SHOWN. */
#define LIST_SHOWN 20
static void heading(const char *title, json_t *list) { printf("  %-11s %zu\n", title, json_array_size(list)); }
static bool shown(size_t i, json_t *list) {
    if (i == LIST_SHOWN) printf("    ... %zu more (--json lists them all)\n", json_array_size(list) - LIST_SHOWN);
    return i < LIST_SHOWN;
}

static void print_names(json_t *list, const char *title) {
    json_t *item;
    size_t i;
    printf("  %-11s %zu", title, json_array_size(list));
    json_array_foreach(list, i, item) {
        if (i == 8) {
            printf(", ...");
            break;
        }
        printf("%s%s", i ? ", " : ": ", json_is_string(item) ? json_string_value(item) : str(item, "name"));
    }
    putchar('\n');
}

static void print_report(json_t *r) {
    json_t *asset = json_object_get(r, "asset"), *scene = json_object_get(r, "scene"), *item, *list;
    size_t i;
    printf("%s\n", str(r, "file"));
    printf("  asset       glTF %s", str(asset, "version"));
    if (json_string_value(json_object_get(asset, "generator"))) printf(", generator \"%s\"", str(asset, "generator"));
    if (json_string_value(json_object_get(asset, "copyright"))) printf(", copyright \"%s\"", str(asset, "copyright"));
    putchar('\n');
    list = json_object_get(r, "scenes");
    heading("scenes", list);
    json_array_foreach(list, i, item) {
        if (!shown(i, list)) break;
        printf("    %d%s%s%s: %d nodes, %d roots%s\n", (int)num(item, "index"), json_is_string(json_object_get(item, "name")) ? " \"" : "",
               json_is_string(json_object_get(item, "name")) ? str(item, "name") : "", json_is_string(json_object_get(item, "name")) ? "\"" : "",
               (int)num(item, "nodes"), (int)num(item, "roots"), json_is_true(json_object_get(item, "default")) ? " (the default)" : "");
    }
    if (json_is_integer(json_object_get(scene, "index")))
        printf("  showing     scene %d", (int)num(scene, "index"));
    else
        printf("  showing     every root (no scenes)");
    printf(": %d of %d nodes, %d roots, depth %d\n", (int)num(scene, "nodes"), (int)num(r, "nodes"), (int)num(scene, "roots"), (int)num(scene, "depth"));
    json_t *bounds = json_object_get(scene, "bounds");
    if (json_is_object(bounds)) {
        json_t *lo = json_object_get(bounds, "min"), *hi = json_object_get(bounds, "max");
        printf("  bounds      min (%g, %g, %g) max (%g, %g, %g)\n", json_number_value(json_array_get(lo, 0)), json_number_value(json_array_get(lo, 1)),
               json_number_value(json_array_get(lo, 2)), json_number_value(json_array_get(hi, 0)), json_number_value(json_array_get(hi, 1)),
               json_number_value(json_array_get(hi, 2)));
    } else {
        printf("  bounds      none (no node of this scene carries a box)\n");
    }
    list = json_object_get(r, "meshes");
    heading("meshes", list);
    json_array_foreach(list, i, item) {
        if (!shown(i, list)) break;
        printf("    %s: %d primitive%s, %.0f vertices, %.0f triangles\n", str(item, "name"), (int)num(item, "primitives"),
               num(item, "primitives") == 1 ? "" : "s", num(item, "vertices"), num(item, "triangles"));
    }
    print_names(json_object_get(r, "materials"), "materials");
    list = json_object_get(r, "textures");
    heading("textures", list);
    json_array_foreach(list, i, item) {
        if (!shown(i, list)) break;
        printf("    %s: image %d", str(item, "name"), (int)num(item, "image"));
        if (json_is_integer(json_object_get(item, "width"))) printf(", %d x %d", (int)num(item, "width"), (int)num(item, "height"));
        putchar('\n');
    }
    list = json_object_get(r, "images");
    heading("images", list);
    json_array_foreach(list, i, item) {
        if (!shown(i, list)) break;
        printf("    %s: %s", str(item, "name"), json_is_string(json_object_get(item, "mime_type")) ? str(item, "mime_type") : "image");
        if (json_is_integer(json_object_get(item, "width"))) printf(", %d x %d", (int)num(item, "width"), (int)num(item, "height"));
        if (json_is_integer(json_object_get(item, "bytes"))) printf(", %.0f bytes", num(item, "bytes"));
        putchar('\n');
    }
    list = json_object_get(r, "animations");
    heading("animations", list);
    json_array_foreach(list, i, item) {
        if (!shown(i, list)) break;
        printf("    %s: %g s, %d channels, %.0f keyframes\n", str(item, "name"), num(item, "duration"), (int)num(item, "channels"), num(item, "keyframes"));
    }
    list = json_object_get(r, "skins");
    heading("skins", list);
    json_array_foreach(list, i, item) {
        if (!shown(i, list)) break;
        printf("    %s: %d joints\n", str(item, "name"), (int)num(item, "joints"));
    }
    list = json_object_get(r, "cameras");
    heading("cameras", list);
    json_array_foreach(list, i, item) {
        if (!shown(i, list)) break;
        printf("    %s: %s", str(item, "name"), str(item, "type"));
        const char *keys[] = { "yfov", "aspectRatio", "xmag", "ymag", "znear", "zfar" };
        for (int k = 0; k < 6; k++)
            if (json_object_get(item, keys[k])) printf(", %s %g", keys[k], num(item, keys[k]));
        putchar('\n');
    }
    list = json_object_get(r, "lights");
    heading("lights", list);
    json_array_foreach(list, i, item) {
        if (!shown(i, list)) break;
        json_t *c = json_object_get(item, "color");
        printf("    %s: %s, intensity %g, color (%g, %g, %g)", str(item, "name"), str(item, "type"), num(item, "intensity"),
               json_number_value(json_array_get(c, 0)), json_number_value(json_array_get(c, 1)), json_number_value(json_array_get(c, 2)));
        if (json_object_get(item, "range")) printf(", range %g", num(item, "range"));
        putchar('\n');
    }
    printf("  instancing  %d nodes draw %.0f instances; %d hidden nodes; %d LOD groups\n", (int)num(r, "instanced_nodes"),
           num(r, "instances"), (int)num(r, "hidden_nodes"), (int)num(r, "lod_groups"));
    print_names(json_object_get(r, "extensions_used"), "ext. used");
    print_names(json_object_get(r, "extensions_required"), "ext. req.");
    list = json_object_get(r, "buffers");
    heading("buffers", list);
    json_array_foreach(list, i, item) {
        if (!shown(i, list)) break;
        printf("    %.0f bytes, %s\n", num(item, "bytes"), str(item, "where"));
    }
    json_t *shear = json_object_get(r, "sheared"), *mirrored = json_object_get(r, "mirrored");
    int warnings = (int)num(r, "warnings");
    if (!json_array_size(shear) && !json_array_size(mirrored) && !warnings) {
        printf("  warnings    none\n");
        return;
    }
    printf("  warnings\n");
    if (warnings) printf("    %d while loading (above)\n", warnings);
    const char *what[2] = { "sheared (not TRS)", "mirrored (negative determinant)" };
    json_t *lists[2] = { shear, mirrored };
    for (int k = 0; k < 2; k++) {
        size_t n = json_array_size(lists[k]);
        if (!n) continue;
        printf("    %zu node%s with a %s world matrix:", n, n == 1 ? "" : "s", what[k]);
        json_array_foreach(lists[k], i, item) {
            if (i == 5) break;
            printf("%s %s", i ? "," : "", json_string_value(item));
        }
        printf("%s\n", n > 5 ? ", ..." : "");
    }
}

int cmd_info(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    int32_t scene;
    cli_file f;
    int status = cli_parse_args("info", argc, argv, CLI_OPT_SCENE | CLI_OPT_LENIENT | CLI_OPT_JSON, 1, 1, &args);
    if (status) return status;
    if (cli_load(&f, args.files[0], args.lenient)) return 1;
    if ((status = cli_pick_scene("info", &f, &args, &scene))) {
        cli_close(&f);
        return status;
    }
    json_t *gltf = cli_json(&f);
    if (!gltf) {
        cli_error("%s: the JSON cannot be read again", f.path);
        cli_close(&f);
        return 1;
    }
    json_t *r = json_object();
    json_t *asset = json_object_get(gltf, "asset");
    json_object_set_new(r, "file", json_string(f.path));
    json_object_set_new(r, "asset", json_pack("{s:o, s:o, s:o}", "version", copy_or_null(json_object_get(asset, "version")),
                                              "generator", copy_or_null(json_object_get(asset, "generator")), "copyright",
                                              copy_or_null(json_object_get(asset, "copyright"))));
    /* Scenes, each with its node and root count. */
    json_t *scenes = json_array();
    for (uint32_t i = 0; i < arbor_gltf_scene_count(f.doc); i++) {
        uint32_t roots, nodes = 0;
        arbor_node *list = cli_scene_roots(&f, (int32_t)i, &roots);
        for (uint32_t k = 0; k < roots; k++)
            for (arbor_node n = list[k]; !arbor_node_is_none(n); n = cli_next_in_subtree(f.scene, list[k], n)) nodes++;
        free(list);
        const char *name = arbor_gltf_scene_name(f.doc, i);
        json_array_append_new(scenes, json_pack("{s:i, s:o, s:i, s:i, s:b}", "index", (int)i, "name", name ? json_string(name) : json_null(),
                                                "nodes", (int)nodes, "roots", (int)roots, "default", (int32_t)i == arbor_gltf_loaded_scene(f.doc)));
    }
    json_object_set_new(r, "scenes", scenes);

    /* The shown scene: depth, bounds, sheared and mirrored nodes. */
    uint32_t root_count, nodes = 0, depth = 0;
    arbor_node *roots = cli_scene_roots(&f, scene, &root_count);
    double min[3] = { INFINITY, INFINITY, INFINITY }, max[3] = { -INFINITY, -INFINITY, -INFINITY };
    json_t *shear = json_array(), *mirrored = json_array();
    for (uint32_t k = 0; k < root_count; k++) {
        for (arbor_node n = roots[k]; !arbor_node_is_none(n); n = cli_next_in_subtree(f.scene, roots[k], n)) {
            arbor_real w[16];
            char path[512];
            arbor_node_world_matrix(f.scene, n, w);
            nodes++;
            uint32_t d = arbor_node_depth(f.scene, n) + 1;
            if (d > depth) depth = d;
            add_world_box(f.scene, n, w, min, max);
            if (cli_sheared(w)) json_array_append_new(shear, json_string(cli_node_path(&f, n, path, sizeof path)));
            if (arbor_mat4_determinant3(w) < 0) json_array_append_new(mirrored, json_string(cli_node_path(&f, n, path, sizeof path)));
        }
    }
    free(roots);
    json_t *bounds = json_null();
    if (min[0] <= max[0])
        bounds = json_pack("{s:[o,o,o], s:[o,o,o]}", "min", cli_json_real(min[0]), cli_json_real(min[1]), cli_json_real(min[2]), "max",
                           cli_json_real(max[0]), cli_json_real(max[1]), cli_json_real(max[2]));
    const char *scene_name = scene >= 0 ? arbor_gltf_scene_name(f.doc, (uint32_t)scene) : NULL;
    json_object_set_new(r, "scene", json_pack("{s:o, s:o, s:i, s:i, s:i, s:o}", "index", scene >= 0 ? json_integer(scene) : json_null(),
                                              "name", scene_name ? json_string(scene_name) : json_null(), "nodes", (int)nodes,
                                              "roots", (int)root_count, "depth", (int)depth, "bounds", bounds));
    json_object_set_new(r, "nodes", json_integer(arbor_gltf_node_count(f.doc)));
    json_object_set_new(r, "meshes", meshes_report(gltf));
    json_object_set_new(r, "materials", names_report(json_object_get(gltf, "materials")));
    json_t *textures = json_array(), *images = json_array(), *item;
    size_t i;
    json_array_foreach(json_object_get(gltf, "images"), i, item) {
        size_t bytes;
        uint32_t w, h;
        bool known = cli_image_size(&f, (uint32_t)i, &bytes, &w, &h);
        json_array_append_new(images, json_pack("{s:o, s:o, s:o, s:o, s:o}", "name", name_of(item), "mime_type",
                                                copy_or_null(json_object_get(item, "mimeType")), "bytes",
                                                known ? json_integer((json_int_t)bytes) : json_null(), "width", w ? json_integer(w) : json_null(),
                                                "height", h ? json_integer(h) : json_null()));
    }
    json_array_foreach(json_object_get(gltf, "textures"), i, item) {
        json_t *source = json_object_get(item, "source");
        json_t *image = json_is_integer(source) ? json_array_get(images, (size_t)json_integer_value(source)) : NULL;
        json_array_append_new(textures, json_pack("{s:o, s:o, s:o, s:o}", "name", name_of(item), "image", copy_or_null(source), "width",
                                                  copy_or_null(json_object_get(image, "width")), "height", copy_or_null(json_object_get(image, "height"))));
    }
    json_object_set_new(r, "textures", textures);
    json_object_set_new(r, "images", images);
    json_object_set_new(r, "animations", animations_report(gltf));
    json_t *skins = json_array();
    json_array_foreach(json_object_get(gltf, "skins"), i, item)
        json_array_append_new(skins, json_pack("{s:o, s:I}", "name", name_of(item), "joints", (json_int_t)json_array_size(json_object_get(item, "joints"))));
    json_object_set_new(r, "skins", skins);
    json_object_set_new(r, "cameras", cameras_report(gltf));
    json_object_set_new(r, "lights", lights_report(gltf));
    json_object_set_new(r, "extensions_used", json_object_get(gltf, "extensionsUsed") ? json_deep_copy(json_object_get(gltf, "extensionsUsed")) : json_array());
    json_object_set_new(r, "extensions_required", json_object_get(gltf, "extensionsRequired") ? json_deep_copy(json_object_get(gltf, "extensionsRequired")) : json_array());
    json_t *buffers = json_array();
    json_array_foreach(json_object_get(gltf, "buffers"), i, item) {
        const char *uri = json_string_value(json_object_get(item, "uri"));
        json_array_append_new(buffers, json_pack("{s:o, s:o, s:s}", "name", name_of(item), "bytes", copy_or_null(json_object_get(item, "byteLength")),
                                                 "where", !uri ? "GLB chunk" : !strncmp(uri, "data:", 5) ? "data URI" : uri));
    }
    json_object_set_new(r, "buffers", buffers);
    /* instancing, visibility and levels of detail, as the scene holds them */
    uint32_t hidden = 0, instanced = 0;
    uint64_t instances = 0;
    for (uint32_t i = 0, count = arbor_gltf_node_count(f.doc); i < count; i++) {
        arbor_node n = arbor_gltf_node(f.doc, i);
        if (arbor_node_is_none(n)) continue;
        hidden += !arbor_node_visible(f.scene, n);
        instanced += arbor_node_instance_count(f.scene, n) > 0;
        instances += arbor_node_instance_count(f.scene, n);
    }
    json_object_set_new(r, "hidden_nodes", json_integer(hidden));
    json_object_set_new(r, "instanced_nodes", json_integer(instanced));
    json_object_set_new(r, "instances", json_integer((json_int_t)instances));
    json_object_set_new(r, "lod_groups", json_integer(arbor_gltf_lod_count(f.doc)));
    json_object_set_new(r, "sheared", shear);
    json_object_set_new(r, "mirrored", mirrored);
    json_object_set_new(r, "warnings", json_integer(f.warnings));

    if (args.json) {
        status = cli_print_json(r);
    } else {
        print_report(r);
        json_decref(r);
        status = fflush(stdout) ? 1 : 0;
    }
    cli_close(&f);
    return status;
}
