/* SPDX-License-Identifier: MIT */
/*
 * tests/test_gltf_save.c: arbor_gltf_save.
 *
 * - every sample of ../shared/gltf/samples: load, save as .gltf and as .glb, load again: the same
 *   nodes (count, names, parents, children in order, matrix or TRS), bit-for-bit the same world
 *   matrices, the same attachments (mesh, camera, light, skin), scenes and counts; the .gltf's
 *   buffers and images resolve from its own folder, the .glb has one BIN chunk;
 * - every sample again after deleting a node (with its subtree) and creating two: every
 *   reference to a node in the written JSON is remapped (children, scenes, skins' joints and
 *   skeletons, animation channels, KHR_animation_pointer paths), channels of deleted nodes are
 *   dropped, and the nodes keep their world matrices;
 * - a scene built in code, saved without a document: cameras, lights, matrix nodes, one scene
 *   holding every root; mesh indices are left out with a warning;
 * - a .glb stands alone: the images of the files that have them beside them are in its BIN chunk
 *   (the source files' bytes, a bufferView and a mimeType each), nothing else is written; with
 *   external_images they are copied beside it;
 * - a buffer's extras and name and an empty root extensions object survive load and save (.glb,
 *   where the buffer merges into the BIN chunk, and .gltf), compared with the input's JSON;
 * - refusals: a bad extension, a folder that does not exist (nothing left behind);
 * - a chain a million nodes deep saves and loads back.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "test_samples.h"

#include "arbor/gltf.h"

#define OUT_DIR ARBOR_TEST_OUTPUT_DIR "/gltf_save"

/* ---- files ---------------------------------------------------------------------------------- */

/* The JSON of a .gltf, or of a .glb's JSON chunk. */
static json_t *read_json(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)size + 1);
    assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    json_error_t error;
    json_t *root;
    if (size >= 20 && !memcmp(data, "glTF", 4)) {
        uint32_t json_size = (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 | (uint32_t)data[15] << 24;
        root = json_loadb((const char *)data + 20, json_size, 0, &error);
    } else {
        root = json_loadb((const char *)data, (size_t)size, 0, &error);
    }
    free(data);
    if (!root) fail_msg("%s: %s (line %d)", path, error.text, error.line);
    return root;
}

static bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- loading -------------------------------------------------------------------------------- */

static void save_ok(arbor_scene *s, const arbor_gltf *doc, const char *path) {
    arbor_result r = arbor_gltf_save(s, doc, path, NULL);
    if (r != ARBOR_OK) fail_msg("saving %s: %s (%s)", path, arbor_last_error(), arbor_result_string(r));
}

/* ---- comparing two loads of the same nodes ---------------------------------------------------- */

static bool same_name(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

static void assert_same_camera(const arbor_camera *a, const arbor_camera *b, const char *what) {
    if (a->type != b->type || a->yfov != b->yfov || a->aspect != b->aspect || a->xmag != b->xmag ||
        a->ymag != b->ymag || a->znear != b->znear || a->zfar != b->zfar)
        fail_msg("%s: the camera changed", what);
}

static void assert_same_light(const arbor_light *a, const arbor_light *b, const char *what) {
    bool same = a->type == b->type && a->intensity == b->intensity && a->range == b->range &&
                a->inner_cone == b->inner_cone && a->outer_cone == b->outer_cone;
    for (int i = 0; i < 3; i++) same = same && a->color[i] == b->color[i] && a->direction[i] == b->direction[i];
    if (!same) fail_msg("%s: the light changed", what);
}

/* Node i of a and of b: name, links, transform, world matrix (bit for bit), attachments. */
static void assert_same_node(loaded *a, arbor_node na, loaded *b, arbor_node nb, const char *what) {
    if (!same_name(arbor_node_name(a->s, na), arbor_node_name(b->s, nb)))
        fail_msg("%s: name \"%s\" became \"%s\"", what, arbor_node_name(a->s, na), arbor_node_name(b->s, nb));
    assert_int_equal(index_of(a, arbor_node_parent(a->s, na)), index_of(b, arbor_node_parent(b->s, nb)));
    assert_int_equal(arbor_node_child_count(a->s, na), arbor_node_child_count(b->s, nb));
    arbor_node ca = arbor_node_first_child(a->s, na), cb = arbor_node_first_child(b->s, nb);
    for (; !arbor_node_is_none(ca); ca = arbor_node_next_sibling(a->s, ca), cb = arbor_node_next_sibling(b->s, cb))
        assert_int_equal(index_of(a, ca), index_of(b, cb));
    assert_int_equal(arbor_node_is_matrix_backed(a->s, na), arbor_node_is_matrix_backed(b->s, nb));
    arbor_real wa[16], wb[16];
    ASSERT_OK(arbor_node_world_matrix(a->s, na, wa));
    ASSERT_OK(arbor_node_world_matrix(b->s, nb, wb));
    if (memcmp(wa, wb, sizeof wa)) {
        print_error("%s: the world matrix changed\n", what);
        ASSERT_MAT4_NEAR_REL(wb, wa, 1e-5);
        fail_msg("%s: the world matrix is close but not bit for bit the same", what);
    }
    if (!arbor_node_is_matrix_backed(a->s, na)) {
        arbor_trs ta, tb;
        ASSERT_OK(arbor_node_trs(a->s, na, &ta));
        ASSERT_OK(arbor_node_trs(b->s, nb, &tb));
        ASSERT_REALS_BITS_EQUAL(&ta, &tb, 10);
    }
    assert_int_equal(arbor_node_mesh(a->s, na), arbor_node_mesh(b->s, nb));
    assert_int_equal(arbor_gltf_node_skin(a->doc, na), arbor_gltf_node_skin(b->doc, nb));
    arbor_camera cam_a, cam_b;
    bool has_a = arbor_node_camera(a->s, na, &cam_a) == ARBOR_OK, has_b = arbor_node_camera(b->s, nb, &cam_b) == ARBOR_OK;
    assert_int_equal(has_a, has_b);
    if (has_a) assert_same_camera(&cam_a, &cam_b, what);
    arbor_light light_a, light_b;
    has_a = arbor_node_light(a->s, na, &light_a) == ARBOR_OK;
    has_b = arbor_node_light(b->s, nb, &light_b) == ARBOR_OK;
    assert_int_equal(has_a, has_b);
    if (has_a) assert_same_light(&light_a, &light_b, what);
}

/* b is a's file saved and loaded again: everything arbor reads is the same. */
static void assert_same_document(loaded *a, loaded *b, const char *what) {
    uint32_t count = arbor_gltf_node_count(a->doc);
    assert_int_equal(count, arbor_gltf_node_count(b->doc));
    for (uint32_t i = 0; i < count; i++) {
        char where[2 * PATH_MAX];
        snprintf(where, sizeof where, "%s: node %u", what, i);
        assert_same_node(a, arbor_gltf_node(a->doc, i), b, arbor_gltf_node(b->doc, i), where);
    }
    arbor_gltf_counts ca, cb;
    arbor_gltf_counts_get(a->doc, &ca);
    arbor_gltf_counts_get(b->doc, &cb);
    assert_int_equal(ca.scenes, cb.scenes);
    assert_int_equal(ca.meshes, cb.meshes);
    assert_int_equal(ca.cameras, cb.cameras); /* unchanged cameras and lights keep their entries */
    assert_int_equal(ca.lights, cb.lights);
    assert_int_equal(ca.skins, cb.skins);
    assert_int_equal(ca.animations, cb.animations);
    assert_int_equal(ca.accessors, cb.accessors);
    assert_int_equal(arbor_gltf_loaded_scene(a->doc), arbor_gltf_loaded_scene(b->doc));
    for (uint32_t k = 0; k < ca.scenes; k++) {
        assert_true(same_name(arbor_gltf_scene_name(a->doc, k), arbor_gltf_scene_name(b->doc, k)));
        arbor_node ra[256], rb[256];
        uint32_t na = TEST_SCENE_ROOTS(a->doc, k, ra, 256), nb = TEST_SCENE_ROOTS(b->doc, k, rb, 256);
        assert_int_equal(na, nb);
        for (uint32_t r = 0; r < na && r < 256; r++) assert_int_equal(index_of(a, ra[r]), index_of(b, rb[r]));
    }
    for (uint32_t k = 0; k < ca.skins; k++) {
        arbor_node ja[256], jb[256], sa, sb;
        uint32_t na = TEST_SKIN(a->doc, k, ja, NULL, 256, &sa), nb = TEST_SKIN(b->doc, k, jb, NULL, 256, &sb);
        assert_int_equal(na, nb);
        for (uint32_t j = 0; j < na && j < 256; j++) assert_int_equal(index_of(a, ja[j]), index_of(b, jb[j]));
        assert_int_equal(index_of(a, sa), index_of(b, sb));
    }
}

/* Every buffer and image URI of a written .gltf resolves from its folder (or is a data: URI). */
static void assert_resources_resolve(const char *gltf_path) {
    json_t *root = read_json(gltf_path);
    char dir[2 * PATH_MAX];
    snprintf(dir, sizeof dir, "%s", gltf_path);
    *strrchr(dir, '/') = '\0';
    const char *arrays[] = { "buffers", "images" };
    for (int a = 0; a < 2; a++) {
        json_t *items = json_object_get(root, arrays[a]);
        for (size_t i = 0; i < json_array_size(items); i++) {
            const char *uri = json_string_value(json_object_get(json_array_get(items, i), "uri"));
            if (!uri || !strncmp(uri, "data:", 5)) continue;
            char path[4 * PATH_MAX], *o = path;  /* percent-decoded */
            o += snprintf(path, sizeof path, "%s/", dir);
            for (const char *p = uri; *p; p++) {
                unsigned v;
                if (*p == '%' && sscanf(p + 1, "%2x", &v) == 1) {
                    *o++ = (char)v;
                    p += 2;
                } else {
                    *o++ = *p;
                }
            }
            *o = '\0';
            if (!file_exists(path)) fail_msg("%s: /%s/%zu: %s does not resolve", gltf_path, arrays[a], i, uri);
        }
    }
    json_decref(root);
}

/* A buffer that was a data: URI in the source stays one in a written .gltf. */
static void assert_data_uris_kept(const char *source, const char *written) {
    json_t *in = read_json(source), *out = read_json(written);
    json_t *b_in = json_object_get(in, "buffers"), *b_out = json_object_get(out, "buffers");
    assert_int_equal(json_array_size(b_in), json_array_size(b_out));
    for (size_t i = 0; i < json_array_size(b_in); i++) {
        const char *uri = json_string_value(json_object_get(json_array_get(b_in, i), "uri"));
        if (uri && !strncmp(uri, "data:", 5))
            assert_string_equal(json_string_value(json_object_get(json_array_get(b_out, i), "uri")), uri);
    }
    json_decref(in);
    json_decref(out);
}

/* A .glb: GLB 2 framing, lengths that add up, JSON then at most one BIN chunk, one buffer. */
static void assert_glb_layout(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char h[20];
    assert_int_equal(fread(h, 1, 20, f), 20);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
#define U32(p) ((uint32_t)(p)[0] | (uint32_t)(p)[1] << 8 | (uint32_t)(p)[2] << 16 | (uint32_t)(p)[3] << 24)
    assert_memory_equal(h, "glTF", 4);
    assert_int_equal(U32(h + 4), 2);
    assert_int_equal(U32(h + 8), (uint32_t)size);
    assert_int_equal(U32(h + 12) % 4, 0);
    assert_memory_equal(h + 16, "JSON", 4);
    long rest = size - 20 - (long)U32(h + 12);
    assert_true(rest == 0 || rest >= 8);
    json_t *root = read_json(path);
    json_t *buffers = json_object_get(root, "buffers");
    if (rest) {
        assert_int_equal(json_array_size(buffers), 1);
        assert_null(json_object_get(json_array_get(buffers, 0), "uri"));
    }
    json_decref(root);
#undef U32
}

/* ---- every sample, saved and loaded again ----------------------------------------------------- */

static void test_samples_round_trip(void **state) {
    (void)state;
    char *paths[MAX_SAMPLES], *names[MAX_SAMPLES];
    int count = sample_files(paths, names);
    if (!count) {
        TEST_SKIP_SHARED(SAMPLES_DIR);
    }
    make_dir(OUT_DIR);
    for (int i = 0; i < count; i++) {
        char dir[PATH_MAX], out[PATH_MAX + 64];
        snprintf(dir, sizeof dir, "%s/%s", OUT_DIR, names[i]);
        make_dir(dir);
        loaded a = load_ok(paths[i]);
        const char *exts[] = { ".gltf", ".glb" };
        for (int e = 0; e < 2; e++) {
            snprintf(out, sizeof out, "%s/%s%s", dir, names[i], exts[e]);
            save_ok(a.s, a.doc, out);
            loaded b = load_ok(out);
            assert_same_document(&a, &b, out);
            unload(&b);
            if (e == 0) {
                assert_resources_resolve(out);
                assert_data_uris_kept(paths[i], out);
            } else {
                assert_glb_layout(out);
            }
            /* A saved file saved again is the same bytes: the writer is deterministic. */
            loaded c = load_ok(out);
            char again[PATH_MAX + 80];
            snprintf(again, sizeof again, "%s/again_%s%s", dir, names[i], exts[e]);
            save_ok(c.s, c.doc, again);
            unload(&c);
        }
        print_message("round trip: %s (%u nodes)\n", names[i], arbor_gltf_node_count(a.doc));
        unload(&a);
    }
    free_samples(paths, names, count);
}

/* ---- deleting and creating nodes: references remapped ------------------------------------------ */

/* The lowest-index node whose subtree holds no joint or skeleton of any skin: deleting it leaves
   every skin whole and shifts the indices after it. NONE when there is none. */
static arbor_node pick_victim(loaded *l, bool *in_subtree, uint32_t count) {
    bool *joint = calloc(count + 1, 1);
    arbor_gltf_counts c;
    arbor_gltf_counts_get(l->doc, &c);
    for (uint32_t k = 0; k < c.skins; k++) {
        uint32_t n = TEST_SKIN(l->doc, k, NULL, NULL, 0, NULL);
        arbor_node *joints = calloc(n + 1, sizeof *joints), skeleton;
        TEST_SKIN(l->doc, k, joints, NULL, n, &skeleton);
        for (uint32_t j = 0; j < n; j++) joint[index_of(l, joints[j])] = true;
        if (!arbor_node_is_none(skeleton)) joint[index_of(l, skeleton)] = true;
        free(joints);
    }
    arbor_node *sub = calloc(count + 1, sizeof *sub);
    arbor_node victim = ARBOR_NONE;
    for (uint32_t i = 0; i < count && arbor_node_is_none(victim); i++) {
        arbor_node n = arbor_gltf_node(l->doc, i);
        uint32_t size = arbor_node_collect_subtree(l->s, n, sub, count);
        bool clean = true;
        for (uint32_t k = 0; k < size; k++) clean = clean && !joint[index_of(l, sub[k])];
        if (!clean) continue;
        victim = n;
        for (uint32_t k = 0; k < size; k++) in_subtree[index_of(l, sub[k])] = true;
    }
    free(sub);
    free(joint);
    return victim;
}

/* The written index of original node v (a JSON integer), -1 when it was deleted. */
static json_int_t remapped(const json_int_t *map, uint32_t count, const json_t *v) {
    json_int_t i = json_integer_value(v);
    return i >= 0 && (uint32_t)i < count ? map[i] : -2;
}

static void assert_pointer_remapped(const char *before, const char *after, const json_int_t *map, uint32_t count) {
    if (strncmp(before, "/nodes/", 7)) {
        assert_string_equal(before, after);
        return;
    }
    char *end;
    long i = strtol(before + 7, &end, 10);
    char expected[512];
    snprintf(expected, sizeof expected, "/nodes/%lld%s", (long long)(i >= 0 && (uint32_t)i < count ? map[i] : -1), end);
    assert_string_equal(after, expected);
}

/* The animations of `out` are those of `in` with every target remapped and the channels of
   deleted nodes dropped (an animation left with none is dropped). */
static void assert_animations_remapped(json_t *in, json_t *out, const json_int_t *map, uint32_t count) {
    json_t *anims_in = json_object_get(in, "animations"), *anims_out = json_object_get(out, "animations");
    size_t next = 0;
    for (size_t a = 0; a < json_array_size(anims_in); a++) {
        json_t *channels = json_object_get(json_array_get(anims_in, a), "channels");
        json_t *kept = json_array();
        for (size_t c = 0; c < json_array_size(channels); c++) {
            json_t *target = json_object_get(json_array_get(channels, c), "target");
            json_t *node = json_object_get(target, "node");
            const char *pointer = json_string_value(json_object_get(
                json_object_get(json_object_get(target, "extensions"), "KHR_animation_pointer"), "pointer"));
            bool alive = node ? remapped(map, count, node) >= 0 : true;
            if (pointer && !strncmp(pointer, "/nodes/", 7)) alive = alive && map[strtol(pointer + 7, NULL, 10)] >= 0;
            if (alive) json_array_append(kept, json_array_get(channels, c));
        }
        if (json_array_size(kept)) {
            json_t *got = json_object_get(json_array_get(anims_out, next++), "channels");
            assert_int_equal(json_array_size(got), json_array_size(kept));
            for (size_t c = 0; c < json_array_size(kept); c++) {
                json_t *t_in = json_object_get(json_array_get(kept, c), "target");
                json_t *t_out = json_object_get(json_array_get(got, c), "target");
                assert_string_equal(json_string_value(json_object_get(t_in, "path")),
                                    json_string_value(json_object_get(t_out, "path")));
                if (json_object_get(t_in, "node"))
                    assert_int_equal(json_integer_value(json_object_get(t_out, "node")),
                                     remapped(map, count, json_object_get(t_in, "node")));
                json_t *p_in = json_object_get(json_object_get(json_object_get(t_in, "extensions"), "KHR_animation_pointer"), "pointer");
                json_t *p_out = json_object_get(json_object_get(json_object_get(t_out, "extensions"), "KHR_animation_pointer"), "pointer");
                if (p_in) assert_pointer_remapped(json_string_value(p_in), json_string_value(p_out), map, count);
            }
        }
        json_decref(kept);
    }
    assert_int_equal(json_array_size(anims_out), next);
}

/* ---- a .glb stands alone ----------------------------------------------------------------------- */

/* Files of ../shared/gltf whose images are files beside them. */
static const char *const with_images[] = {
    "samples/VC/VC.gltf",
    "samples/bevy_PalmTree/PalmTree.gltf",
    "samples/BlenderIO_24_animation_pointer/24_animation_pointer.gltf",
    "extensions/variants_MaterialsVariantsShoe/MaterialsVariantsShoe.gltf",
    "extensions/draco_BoxMetaDraco/BoxMetaDraco.gltf",
};

/* The files in dir other than the ones named "keep". */
static int other_files(const char *dir, const char *keep) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' && strcmp(e->d_name, keep)) n++;
    if (d) closedir(d);
    return n;
}

static void test_glb_embeds_images(void **state) {
    (void)state;
    for (size_t f = 0; f < sizeof with_images / sizeof *with_images; f++) {
        char source[PATH_MAX], dir[PATH_MAX], out[PATH_MAX + 32], source_dir[PATH_MAX];
        snprintf(source, sizeof source, "%s/gltf/%s", ARBOR_SHARED_DIR, with_images[f]);
        if (!file_exists(source)) TEST_SKIP_SHARED(source);
        snprintf(source_dir, sizeof source_dir, "%.*s", (int)(strrchr(source, '/') - source), source);
        json_t *src = read_json(source);
        json_t *images = json_object_get(src, "images");
        size_t external = 0, files = 0; /* images with a relative URI; the distinct URIs among them */
        for (size_t i = 0; i < json_array_size(images); i++) {
            const char *uri = json_string_value(json_object_get(json_array_get(images, i), "uri"));
            if (!uri || !strncmp(uri, "data:", 5)) continue;
            external++;
            bool again = false;
            for (size_t k = 0; k < i; k++) {
                const char *before = json_string_value(json_object_get(json_array_get(images, k), "uri"));
                again |= before && !strcmp(before, uri);
            }
            files += !again;
        }
        assert_true(external > 0);
        loaded a = load_ok(source);
        for (int mode = 0; mode < 2; mode++) { /* embedded, then external_images */
            snprintf(dir, sizeof dir, "%s/alone_%zu_%d", OUT_DIR, f, mode);
            make_dir(OUT_DIR);
            make_dir(dir);
            snprintf(out, sizeof out, "%s/out.glb", dir);
            arbor_gltf_save_options o = { .external_images = mode == 1 };
            if (arbor_gltf_save(a.s, a.doc, out, &o)) fail_msg("%s: %s", out, arbor_last_error());
            loaded b = load_ok(out);
            assert_same_document(&a, &b, out);
            unload(&b);
            assert_glb_layout(out);
            if (mode == 1) { /* the images beside it */
                assert_int_equal(other_files(dir, "out.glb"), files); /* each external image's file, once */
                continue;
            }
            assert_int_equal(other_files(dir, "out.glb"), 0); /* nothing but the .glb */
            /* each image: a bufferView of the BIN chunk holding the source file's bytes */
            size_t size;
            unsigned char *glb = (unsigned char *)read_file(out, &size);
            uint32_t json_len;
            memcpy(&json_len, glb + 12, 4);
            const unsigned char *bin = glb + 20 + json_len + 8;
            json_t *root = read_json(out), *views = json_object_get(root, "bufferViews");
            json_t *out_images = json_object_get(root, "images");
            assert_int_equal(json_array_size(out_images), json_array_size(images));
            for (size_t i = 0; i < json_array_size(images); i++) {
                json_t *in = json_array_get(images, i), *img = json_array_get(out_images, i);
                const char *uri = json_string_value(json_object_get(in, "uri"));
                if (!uri || !strncmp(uri, "data:", 5)) continue;
                assert_null(json_object_get(img, "uri"));
                const char *mime = json_string_value(json_object_get(img, "mimeType"));
                assert_non_null(mime);
                json_t *view = json_array_get(views, (size_t)json_integer_value(json_object_get(img, "bufferView")));
                assert_int_equal(json_integer_value(json_object_get(view, "buffer")), 0);
                char image_path[2 * PATH_MAX];
                snprintf(image_path, sizeof image_path, "%s/%s", source_dir, uri); /* plain names in these files */
                size_t image_size = 0;
                char *image = read_file(image_path, &image_size);
                assert_non_null(image);
                assert_int_equal(json_integer_value(json_object_get(view, "byteLength")), image_size);
                size_t at = (size_t)json_integer_value(json_object_get(view, "byteOffset"));
                assert_true(at + image_size <= size);
                assert_memory_equal(bin + at, image, image_size);
                assert_string_equal(mime, ends_with(uri, ".png") ? "image/png" : "image/jpeg");
                free(image);
            }
            json_decref(root);
            free(glb);
        }
        unload(&a);
        json_decref(src);
    }
}

static void test_delete_and_create_remap(void **state) {
    (void)state;
    char *paths[MAX_SAMPLES], *names[MAX_SAMPLES];
    int samples = sample_files(paths, names);
    if (!samples) {
        TEST_SKIP_SHARED(SAMPLES_DIR);
    }
    make_dir(OUT_DIR);
    for (int f = 0; f < samples; f++) {
        loaded a = load_ok(paths[f]);
        json_t *in = read_json(paths[f]);
        uint32_t count = arbor_gltf_node_count(a.doc);
        bool *deleted = calloc(count + 1, 1);
        json_int_t *map = calloc(count + 1, sizeof *map);
        arbor_node victim = pick_victim(&a, deleted, count);
        uint32_t alive = 0;
        for (uint32_t i = 0; i < count; i++) map[i] = deleted[i] ? -1 : (json_int_t)alive++;
        if (!arbor_node_is_none(victim)) ASSERT_OK(arbor_node_destroy(a.s, victim));

        /* Two new nodes: a child of the first root (in its subtree, so written first) and a root. */
        arbor_node first_root = arbor_scene_first_root(a.s), child = ARBOR_NONE, root = ARBOR_NONE;
        if (!arbor_node_is_none(first_root))
            ASSERT_OK(arbor_node_create(a.s, &(arbor_node_desc){ .name = "added child", .parent = first_root,
                                                                 .translation = { 1, 2, 3 } }, &child));
        ASSERT_OK(arbor_node_create(a.s, &(arbor_node_desc){ .name = "added root", .scale = { 2, 2, 2 } }, &root));

        char out_path[PATH_MAX + 64];
        snprintf(out_path, sizeof out_path, "%s/edited_%s.gltf", OUT_DIR, names[f]);
        save_ok(a.s, a.doc, out_path);
        json_t *out = read_json(out_path);

        /* Nodes: the survivors in file order with their names, then the new ones. */
        json_t *nodes_in = json_object_get(in, "nodes"), *nodes_out = json_object_get(out, "nodes");
        uint32_t added = arbor_node_is_none(child) ? 1 : 2;
        assert_int_equal(json_array_size(nodes_out), alive + added);
        for (uint32_t i = 0; i < count; i++) {
            if (map[i] < 0) continue;
            json_t *name_in = json_object_get(json_array_get(nodes_in, i), "name");
            json_t *name_out = json_object_get(json_array_get(nodes_out, (size_t)map[i]), "name");
            assert_true(same_name(json_string_value(name_in), json_string_value(name_out)));
            json_t *kids_in = json_object_get(json_array_get(nodes_in, i), "children");
            json_t *kids_out = json_object_get(json_array_get(nodes_out, (size_t)map[i]), "children");
            size_t k_out = 0;
            for (size_t k = 0; k < json_array_size(kids_in); k++) {
                json_int_t expected = remapped(map, count, json_array_get(kids_in, k));
                if (expected >= 0) assert_int_equal(json_integer_value(json_array_get(kids_out, k_out++)), expected);
            }
        }
        if (added == 2) {
            assert_string_equal(json_string_value(json_object_get(json_array_get(nodes_out, alive), "name")), "added child");
            assert_string_equal(json_string_value(json_object_get(json_array_get(nodes_out, alive + 1), "name")), "added root");
        }

        /* Skins: every joint and skeleton remapped. */
        json_t *skins_in = json_object_get(in, "skins"), *skins_out = json_object_get(out, "skins");
        assert_int_equal(json_array_size(skins_in), json_array_size(skins_out));
        for (size_t k = 0; k < json_array_size(skins_in); k++) {
            json_t *j_in = json_object_get(json_array_get(skins_in, k), "joints");
            json_t *j_out = json_object_get(json_array_get(skins_out, k), "joints");
            assert_int_equal(json_array_size(j_in), json_array_size(j_out));
            for (size_t j = 0; j < json_array_size(j_in); j++)
                assert_int_equal(json_integer_value(json_array_get(j_out, j)), remapped(map, count, json_array_get(j_in, j)));
            json_t *sk = json_object_get(json_array_get(skins_in, k), "skeleton");
            if (sk)
                assert_int_equal(json_integer_value(json_object_get(json_array_get(skins_out, k), "skeleton")),
                                 remapped(map, count, sk));
        }
        assert_animations_remapped(in, out, map, count);

        /* The new root joined the default scene. */
        json_t *scenes = json_object_get(out, "scenes");
        if (json_array_size(scenes)) {
            json_t *roots = json_object_get(json_array_get(scenes, (size_t)arbor_gltf_loaded_scene(a.doc)), "nodes");
            assert_int_equal(json_integer_value(json_array_get(roots, json_array_size(roots) - 1)), alive + added - 1);
        }

        /* Loaded again: every node where it was. */
        loaded b = load_ok(out_path);
        for (uint32_t i = 0; i < count; i++) {
            if (map[i] < 0) continue;
            arbor_real wa[16], wb[16];
            ASSERT_OK(arbor_node_world_matrix(a.s, arbor_gltf_node(a.doc, i), wa));
            ASSERT_OK(arbor_node_world_matrix(b.s, arbor_gltf_node(b.doc, (uint32_t)map[i]), wb));
            ASSERT_REALS_BITS_EQUAL(wa, wb, 16);
        }
        arbor_node new_nodes[2] = { child, root };
        for (uint32_t k = 0; k < 2; k++) {
            if (arbor_node_is_none(new_nodes[k])) continue;
            arbor_real wa[16], wb[16];
            ASSERT_OK(arbor_node_world_matrix(a.s, new_nodes[k], wa));
            ASSERT_OK(arbor_node_world_matrix(b.s, arbor_gltf_node(b.doc, alive + added - 2 + k), wb));
            ASSERT_REALS_BITS_EQUAL(wa, wb, 16);
        }
        unload(&b);
        json_decref(out);
        json_decref(in);
        free(map);
        free(deleted);
        unload(&a);
    }
    free_samples(paths, names, samples);
}

/* ---- a scene built in code, no document --------------------------------------------------------- */

static void test_scene_without_document(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    log_count log = { 0 };
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .log = count_log, .log_user = &log }, &s), ARBOR_OK);
    arbor_node rig, eye, ortho, lamp, spot, sun, box, plain, second;
    arbor_real q[4];
    test_quat_axis_deg(q, 0, 1, 0, 30);
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "rig", .translation = { 0.1f, 0.2f, 0.3f },
                                                       .rotation = { q[0], q[1], q[2], q[3] }, .scale = { 1, -2, 1 } }, &rig));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "eye \"quoted\"\n", .parent = rig, .translation = { 0, 1.5f, 4 } }, &eye));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "ortho", .parent = rig }, &ortho));
    const arbor_real m[16] = { 0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 5, 6, 7, 1 };
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "lamp", .parent = rig, .matrix = m, .lock_matrix = true }, &lamp));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "spot", .parent = lamp }, &spot));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "sun" }, &sun));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "box", .parent = sun }, &box));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = sun, .translation = { 1e-7f, -0.0f, 123456.7f } }, &plain));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "second root" }, &second));
    ASSERT_OK(arbor_node_set_camera(s, eye, &(arbor_camera){ .type = ARBOR_CAMERA_PERSPECTIVE, .yfov = 0.8f, .aspect = 1.5f,
                                                             .znear = 0.1f, .zfar = 100 }));
    ASSERT_OK(arbor_node_set_camera(s, ortho, &(arbor_camera){ .type = ARBOR_CAMERA_ORTHOGRAPHIC, .xmag = 2, .ymag = 1,
                                                               .znear = 0, .zfar = 50 }));
    ASSERT_OK(arbor_node_set_light(s, lamp, &(arbor_light){ .type = ARBOR_LIGHT_POINT, .color = { 1, 0.5f, 0.25f },
                                                            .intensity = 20, .range = 10 }));
    ASSERT_OK(arbor_node_set_light(s, spot, &(arbor_light){ .type = ARBOR_LIGHT_SPOT, .color = { 1, 1, 1 }, .intensity = 1,
                                                            .inner_cone = 0.2f, .outer_cone = 0.6f }));
    ASSERT_OK(arbor_node_set_light(s, sun, &(arbor_light){ .type = ARBOR_LIGHT_DIRECTIONAL, .color = { 1, 1, 0.9f },
                                                           .intensity = 3 }));
    ASSERT_OK(arbor_node_set_mesh(s, box, 4));

    const char *files[] = { OUT_DIR "/in_code.gltf", OUT_DIR "/in_code.glb" };
    for (int f = 0; f < 2; f++) {
        log.warnings = 0;
        save_ok(s, NULL, files[f]);
        assert_int_equal(log.warnings, 1); /* the mesh index: no document holds meshes */
        assert_non_null(strstr(log.last, "mesh"));
        loaded b = load_ok(files[f]);
        assert_int_equal(arbor_gltf_node_count(b.doc), arbor_scene_node_count(s));
        assert_int_equal(arbor_gltf_scene_count(b.doc), 1);
        assert_int_equal(arbor_gltf_loaded_scene(b.doc), 0);
        arbor_node roots[4];
        assert_int_equal(TEST_SCENE_ROOTS(b.doc, 0, roots, 4), 3);
        /* Written in arbor_scene_next_node order: parents before children. */
        uint32_t i = 0;
        for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n), i++) {
            arbor_node nb = arbor_gltf_node(b.doc, i);
            assert_true(same_name(arbor_node_name(s, n), arbor_node_name(b.s, nb)));
            assert_int_equal(arbor_node_is_matrix_backed(s, n), arbor_node_is_matrix_backed(b.s, nb));
            arbor_real wa[16], wb[16];
            ASSERT_OK(arbor_node_world_matrix(s, n, wa));
            ASSERT_OK(arbor_node_world_matrix(b.s, nb, wb));
            ASSERT_REALS_BITS_EQUAL(wa, wb, 16);
            arbor_camera ca, cb;
            if (arbor_node_camera(s, n, &ca) == ARBOR_OK) {
                ASSERT_OK(arbor_node_camera(b.s, nb, &cb));
                assert_same_camera(&ca, &cb, arbor_node_name(s, n));
            }
            arbor_light la, lb;
            if (arbor_node_light(s, n, &la) == ARBOR_OK) {
                ASSERT_OK(arbor_node_light(b.s, nb, &lb));
                assert_int_equal(la.type, lb.type);
                ASSERT_VEC3_NEAR(lb.color, la.color[0], la.color[1], la.color[2], 0);
                ASSERT_NEAR(lb.intensity, la.intensity, 0);
                ASSERT_NEAR(lb.range, la.range, 0);
                if (la.type == ARBOR_LIGHT_SPOT) {
                    ASSERT_NEAR(lb.inner_cone, la.inner_cone, 0);
                    ASSERT_NEAR(lb.outer_cone, la.outer_cone, 0);
                }
            }
            assert_int_equal(arbor_node_mesh(b.s, nb), -1);
        }
        arbor_gltf_counts c;
        arbor_gltf_counts_get(b.doc, &c);
        assert_int_equal(c.cameras, 2);
        assert_int_equal(c.lights, 3);
        unload(&b);
    }
    json_t *root = read_json(files[0]);
    assert_string_equal(json_string_value(json_object_get(json_object_get(root, "asset"), "version")), "2.0");
    assert_non_null(strstr(json_string_value(json_object_get(json_object_get(root, "asset"), "generator")), "arbor"));
    assert_string_equal(json_string_value(json_array_get(json_object_get(root, "extensionsUsed"), 0)), "KHR_lights_punctual");
    assert_null(json_object_get(root, "meshes"));
    json_decref(root);
    arbor_scene_destroy(s);
}

/* Random TRS written and read back bit for bit: rotations are written so that loading (which
   normalises) gives back the very quaternion the scene held, for all but a few in 10^5 unit
   quaternions (no nearby quaternion normalises to them: they come back 1 ulp away). */
static void test_random_trs_bit_exact(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    test_rng rng = test_rng_make(42);
    arbor_node parent = ARBOR_NONE;
    for (int i = 0; i < 5000; i++) {
        arbor_node_desc d = { .parent = i % 7 ? parent : ARBOR_NONE };
        test_rng_quat(&rng, d.rotation);
        for (int k = 0; k < 3; k++) {
            d.translation[k] = (arbor_real)(100 * test_rng_sym(&rng));
            d.scale[k] = (arbor_real)(0.5 + test_rng_uniform(&rng));
        }
        ASSERT_OK(arbor_node_create(s, &d, &parent));
    }
    save_ok(s, NULL, OUT_DIR "/random_trs.glb");
    loaded b = load_ok(OUT_DIR "/random_trs.glb");
    uint32_t i = 0, exact = 0;
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n), i++) {
        arbor_trs ta, tb;
        ASSERT_OK(arbor_node_trs(s, n, &ta));
        ASSERT_OK(arbor_node_trs(b.s, arbor_gltf_node(b.doc, i), &tb));
        ASSERT_REALS_BITS_EQUAL(ta.translation, tb.translation, 3);
        ASSERT_REALS_BITS_EQUAL(ta.scale, tb.scale, 3);
        exact += !memcmp(ta.rotation, tb.rotation, sizeof ta.rotation);
        for (int k = 0; k < 4; k++) ASSERT_NEAR(tb.rotation[k], ta.rotation[k], TEST_EPS);
    }
    assert_int_equal(i, 5000);
    assert_true(exact >= 4990);
    unload(&b);
    arbor_scene_destroy(s);
}

/* An empty scene still makes a valid file: an asset and one scene without nodes. */
static void test_empty_scene(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    save_ok(s, NULL, OUT_DIR "/empty.gltf");
    loaded b = load_ok(OUT_DIR "/empty.gltf");
    assert_int_equal(arbor_gltf_node_count(b.doc), 0);
    assert_int_equal(arbor_gltf_scene_count(b.doc), 1);
    unload(&b);
    arbor_scene_destroy(s);
}

static void write_text_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    fclose(f);
}

static void assert_kept(json_t *in, const char *path, const char *what) {
    json_t *out = read_json(path);
    json_t *in_buffer = json_array_get(json_object_get(in, "buffers"), 0);
    json_t *out_buffer = json_array_get(json_object_get(out, "buffers"), 0);
    static const char *const root_keys[] = { "extensions", "extras" }, *const buffer_keys[] = { "extras", "name" };
    for (int k = 0; k < 2; k++) {
        json_t *a = json_object_get(in, root_keys[k]), *b = json_object_get(out, root_keys[k]);
        if (!b || !json_equal(a, b)) fail_msg("%s: the root's %s is not the input's", what, root_keys[k]);
        a = json_object_get(in_buffer, buffer_keys[k]), b = json_object_get(out_buffer, buffer_keys[k]);
        if (!b || !json_equal(a, b)) fail_msg("%s: /buffers/0/%s is not the input's", what, buffer_keys[k]);
    }
    json_decref(out);
}

/* A buffer's extras (and name) and an empty root extensions object survive a load and a save,
   as .glb (the buffer merged into the BIN chunk) and as .gltf, and a .glb saved again: each
   compared with the input's own JSON. Two merged buffers saying different extras: the first's
   stays, and a warning names the other's. */
static void test_round_trip_keeps_extras(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    make_dir(OUT_DIR "/extras");
    write_text_file(OUT_DIR "/extras/one.bin", "abcd");
    write_text_file(OUT_DIR "/extras/two.bin", "efgh");
    const char *one = "{\"asset\":{\"version\":\"2.0\"},\"extensions\":{},\"extras\":{\"k\":1},"
                      "\"nodes\":[{\"name\":\"n\"}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0,"
                      "\"buffers\":[{\"uri\":\"one.bin\",\"byteLength\":4,\"name\":\"data\","
                      "\"extras\":{\"origin\":\"test\",\"list\":[1,2.5,\"\\u00e9\"]}}]}";
    write_text_file(OUT_DIR "/extras/in.gltf", one);
    json_t *in = read_json(OUT_DIR "/extras/in.gltf");
    loaded a = load_ok(OUT_DIR "/extras/in.gltf");
    save_ok(a.s, a.doc, OUT_DIR "/extras/out.glb");
    save_ok(a.s, a.doc, OUT_DIR "/extras/out.gltf");
    unload(&a);
    assert_kept(in, OUT_DIR "/extras/out.glb", "in.gltf saved as .glb");
    assert_kept(in, OUT_DIR "/extras/out.gltf", "in.gltf saved as .gltf");
    loaded b = load_ok(OUT_DIR "/extras/out.glb");
    save_ok(b.s, b.doc, OUT_DIR "/extras/again.glb");
    unload(&b);
    assert_kept(in, OUT_DIR "/extras/again.glb", "out.glb saved as .glb");
    json_decref(in);

    write_text_file(OUT_DIR "/extras/two.gltf",
                    "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],"
                    "\"buffers\":[{\"uri\":\"one.bin\",\"byteLength\":4,\"extras\":{\"first\":true}},"
                    "{\"uri\":\"two.bin\",\"byteLength\":4,\"extras\":{\"second\":true}}]}");
    log_count log = { 0 };
    loaded c = { NULL, NULL };
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .log = count_log, .log_user = &log }, &c.s), ARBOR_OK);
    assert_int_equal(arbor_gltf_load(c.s, OUT_DIR "/extras/two.gltf", NULL, &c.doc), ARBOR_OK);
    save_ok(c.s, c.doc, OUT_DIR "/extras/two.glb");
    unload(&c);
    assert_int_equal(log.warnings, 1);
    assert_non_null(strstr(log.last, "/buffers/1/extras: dropped"));
    json_t *out = read_json(OUT_DIR "/extras/two.glb");
    json_t *bin = json_array_get(json_object_get(out, "buffers"), 0);
    assert_true(json_is_true(json_object_get(json_object_get(bin, "extras"), "first")));
    assert_int_equal(json_object_size(json_object_get(bin, "extras")), 1);
    json_decref(out);
}

/* Everything the saver allocates goes through the scene's allocator and comes back to it, with
   the sizes it was asked for. */
static void test_allocator(void **state) {
    (void)state;
    const char *sample = SAMPLES_DIR "/BlenderIO_24_animation_pointer/24_animation_pointer.gltf";
    struct stat st;
    if (stat(sample, &st) != 0) {
        TEST_SKIP_SHARED(sample);
    }
    make_dir(OUT_DIR);
    test_counting_allocator counts = { 0 };
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .allocator = test_counting_allocator_hooks(&counts, true) }, &s), ARBOR_OK);
    arbor_gltf *doc = NULL;
    ASSERT_OK(arbor_gltf_load(s, sample, NULL, &doc));
    int64_t live = counts.live_bytes;
    uint64_t calls = test_alloc_calls(&counts);
    save_ok(s, doc, OUT_DIR "/counted.gltf");
    save_ok(s, doc, OUT_DIR "/counted.glb");
    assert_true(test_alloc_calls(&counts) > calls);
    assert_int_equal(counts.live_bytes, live);
    assert_int_equal(counts.size_mismatches, 0);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
    assert_int_equal(counts.live_blocks, 0);
}

/* ---- refusals ----------------------------------------------------------------------------------- */

static void test_refusals(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node n;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "n" }, &n));
    assert_int_equal(arbor_gltf_save(s, NULL, OUT_DIR "/scene.obj", NULL), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_last_error_info().code, ARBOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(arbor_last_error(), "scene.obj"));
    assert_int_equal(arbor_gltf_save(NULL, NULL, OUT_DIR "/x.gltf", NULL), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_gltf_save(s, NULL, NULL, NULL), ARBOR_ERR_INVALID_ARGUMENT);

    const char *missing = OUT_DIR "/no such folder/scene.gltf";
    assert_int_equal(arbor_gltf_save(s, NULL, missing, NULL), ARBOR_ERR_IO);
    assert_string_equal(arbor_last_error_info().file, missing);
    assert_int_equal(strncmp(arbor_last_error(), "arbor_gltf_save: ", 17), 0);
    assert_int_equal(strncmp(arbor_last_error() + 17, missing, strlen(missing)), 0);

    /* A failed save leaves nothing behind and keeps the file that was there. */
    make_dir(OUT_DIR "/keep");
    FILE *f = fopen(OUT_DIR "/keep/scene.glb", "wb");
    fputs("old", f);
    fclose(f);
    chmod(OUT_DIR "/keep", 0555);
    if (access(OUT_DIR "/keep", W_OK) != 0) { /* root can write anyway */
        assert_int_equal(arbor_gltf_save(s, NULL, OUT_DIR "/keep/scene.glb", NULL), ARBOR_ERR_IO);
        json_t *none = json_load_file(OUT_DIR "/keep/scene.glb", 0, NULL);
        assert_null(none);
    }
    chmod(OUT_DIR "/keep", 0755);
    DIR *d = opendir(OUT_DIR "/keep");
    for (struct dirent *e; (e = readdir(d));) assert_null(strstr(e->d_name, ".tmp"));
    closedir(d);
    arbor_scene_destroy(s);
}

/* ---- a chain a million nodes deep ---------------------------------------------------------------- */

static void test_million_deep_chain(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    const uint32_t depth = 1000000;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .initial_capacity = depth }, &s), ARBOR_OK);
    arbor_node parent = ARBOR_NONE, n = ARBOR_NONE;
    for (uint32_t i = 0; i < depth; i++) {
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = parent, .translation = { 0, 1, 0 } }, &n));
        parent = n;
    }
    save_ok(s, NULL, OUT_DIR "/chain.glb");
    arbor_scene_destroy(s);
    loaded b = load_ok(OUT_DIR "/chain.glb");
    assert_int_equal(arbor_gltf_node_count(b.doc), depth);
    arbor_node last = arbor_gltf_node(b.doc, depth - 1);
    assert_int_equal(arbor_node_depth(b.s, last), depth - 1);
    arbor_real w[16];
    ASSERT_OK(arbor_node_world_matrix(b.s, last, w));
    ASSERT_NEAR(w[13], depth, 0);
    unload(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_round_trip),
        cmocka_unit_test(test_delete_and_create_remap),
        cmocka_unit_test(test_glb_embeds_images),
        cmocka_unit_test(test_scene_without_document),
        cmocka_unit_test(test_random_trs_bit_exact),
        cmocka_unit_test(test_empty_scene),
        cmocka_unit_test(test_round_trip_keeps_extras),
        cmocka_unit_test(test_allocator),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_million_deep_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
