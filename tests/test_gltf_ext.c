/* SPDX-License-Identifier: MIT */
/*
 * tests/test_gltf_ext.c: every file of ../shared/gltf/extensions (real files others published,
 * with node-level extensions and compression), and the glTF side of instances, visibility and
 * levels of detail.
 *
 * - Each file loads strictly (the two expectations below aside), and its world matrices,
 *   instance world matrices (EXT_mesh_gpu_instancing) and effective visibilities
 *   (KHR_node_visibility) equal a product computed here in double from the file's own JSON and
 *   bytes (read with jansson and by hand, not with arbor); its MSFT_lod groups are its ids.
 * - A round trip through .gltf and through .glb keeps all of that; the files written are listed
 *   in OUT_DIR/sources.txt for tests/oracle/run.sh, which runs the Khronos validator over them
 *   (no error arbor introduced).
 * - Edited: an instance moved, instances replaced, a node hidden, a level of detail destroyed,
 *   then saved and loaded again: the new values, the LOD ids remapped with their coverage.
 * - Bad input: instance accessors of different counts, of forbidden types, non-finite values;
 *   a visibility that is not a boolean; an LOD naming a missing node; visibility pointer
 *   channels: refused with the pointer (nothing loaded), or loaded with a warning when lenient.
 *
 * Expectations: lod_CubeWithLOD_jsononly is a JSON-only fixture whose POSITION accessor has no
 * min and max: it must be refused with a message naming the file and the pointer (or, should
 * arbor ever load it, load its hierarchy). The meshopt_ files load like the others.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_gltf_json.h"

#include "arbor/edit.h"
#include "arbor/gltf.h"
#include "arbor/instances.h"
#include "arbor/view.h"

#define EXT_DIR ARBOR_SHARED_DIR "/gltf/extensions"
#define OUT_DIR ARBOR_TEST_OUTPUT_DIR "/gltf_ext"

#if ARBOR_REAL_IS_DOUBLE
#define TOL 1e-9
#else
#define TOL 2e-5
#endif

/* A new scene (desc may be NULL); the test fails when it cannot be made. */
static arbor_scene *new_scene(const arbor_scene_desc *desc) {
    arbor_scene *s = NULL;
    if (arbor_scene_create(desc, &s) != ARBOR_OK) fail_msg("arbor_scene_create: %s", arbor_last_error());
    return s;
}

/* ---- the corpus ------------------------------------------------------------------------------ */

static bool have_corpus(void) {
    struct stat st;
    return stat(EXT_DIR, &st) == 0 && S_ISDIR(st.st_mode);
}

#define MAX_FILES 64
typedef struct corpus {
    char *path[MAX_FILES], *folder[MAX_FILES], *name[MAX_FILES];
    int count;
} corpus;

static void list_corpus(corpus *c) {
    c->count = 0;
    DIR *top = opendir(EXT_DIR);
    assert_non_null(top);
    char *folders[MAX_FILES];
    int n = 0;
    for (struct dirent *e; (e = readdir(top)) && n < MAX_FILES;)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "INDEX.md")) folders[n++] = strdup(e->d_name);
    closedir(top);
    qsort(folders, (size_t)n, sizeof *folders, compare_strings);
    for (int i = 0; i < n; i++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", EXT_DIR, folders[i]);
        DIR *d = opendir(dir);
        char *names[8];
        int k = 0;
        for (struct dirent *e; d && (e = readdir(d)) && k < 8;)
            if (ends_with(e->d_name, ".gltf") || ends_with(e->d_name, ".glb")) names[k++] = strdup(e->d_name);
        if (d) closedir(d);
        qsort(names, (size_t)k, sizeof *names, compare_strings);
        for (int j = 0; j < k && c->count < MAX_FILES; j++) {
            c->path[c->count] = malloc(2 * PATH_MAX);
            snprintf(c->path[c->count], 2 * PATH_MAX, "%s/%s", dir, names[j]);
            c->folder[c->count] = strdup(folders[i]);
            c->name[c->count++] = names[j];
        }
        free(folders[i]);
    }
    assert_true(c->count >= 15); /* INDEX.md lists 15 files */
}

static void free_corpus(corpus *c) {
    for (int i = 0; i < c->count; i++) {
        free(c->path[i]);
        free(c->folder[i]);
        free(c->name[i]);
    }
}

/* Every node of the loaded file against what the file says (f: the file the scene came from,
   whose node indices are those of the document). Returns the instances checked. */
static uint64_t check_against(const loaded *l, const file_data *f, const char *what) {
    expected x = expect_from(f);
    uint64_t checked = 0;
    assert_int_equal(arbor_gltf_node_count(l->doc), x.count);
    arbor_scene_update(l->s);
    for (size_t i = 0; i < x.count; i++) {
        arbor_node n = arbor_gltf_node(l->doc, (uint32_t)i);
        arbor_real w[16];
        ASSERT_OK(arbor_node_world_matrix(l->s, n, w));
        for (int k = 0; k < 16; k++)
            if (fabs(w[k] - x.world[i][k]) > TOL * (1 + fabs(x.world[i][k])))
                fail_msg("%s: node %zu world[%d] = %.9g, the file gives %.9g", what, i, k, (double)w[k], x.world[i][k]);
        if (arbor_node_effectively_visible(l->s, n) != x.visible[i])
            fail_msg("%s: node %zu visible %d, the file gives %d", what, i, arbor_node_effectively_visible(l->s, n), x.visible[i]);
        uint64_t count = instance_count(f, i);
        assert_int_equal(arbor_node_instance_count(l->s, n), count);
        for (uint64_t e = 0; e < count; e++, checked++) {
            double want[16];
            instance_world(f, &x, i, e, want);
            ASSERT_OK(arbor_node_instance_world_matrix(l->s, n, (uint32_t)e, w));
            for (int k = 0; k < 16; k++)
                if (fabs(w[k] - want[k]) > TOL * (1 + fabs(want[k])))
                    fail_msg("%s: node %zu instance %llu world[%d] = %.9g, the file gives %.9g", what, i,
                             (unsigned long long)e, k, (double)w[k], want[k]);
        }
    }
    /* MSFT_lod: one group per node that has it, levels the node then its ids */
    uint32_t groups = 0;
    json_t *nodes = json_object_get(f->root, "nodes");
    for (size_t i = 0; i < x.count; i++) {
        json_t *ids = json_object_get(json_object_get(json_object_get(json_array_get(nodes, i), "extensions"), "MSFT_lod"), "ids");
        if (!ids) continue;
        arbor_node levels[16];
        arbor_real coverage[16];
        bool has;
        uint32_t n = arbor_gltf_lod_group(l->doc, groups++, levels, coverage, 16, &has);
        assert_int_equal(n, json_array_size(ids) + 1);
        assert_int_equal(arbor_gltf_index(l->doc, levels[0]), (int64_t)i);
        for (size_t k = 0; k < json_array_size(ids); k++)
            assert_int_equal(arbor_gltf_index(l->doc, levels[k + 1]), json_integer_value(json_array_get(ids, k)));
        json_t *cov = json_object_get(json_object_get(json_array_get(nodes, i), "extras"), "MSFT_screencoverage");
        assert_int_equal(has, cov != NULL);
        for (size_t k = 0; cov && k < n; k++) ASSERT_NEAR(coverage[k], num(json_array_get(cov, k), -1), 1e-7);
    }
    assert_int_equal(arbor_gltf_lod_count(l->doc), groups);
    free_expected(&x);
    return checked;
}

/* ---- the corpus, file by file ------------------------------------------------------------------------ */

static FILE *g_sources; /* OUT_DIR/sources.txt: "written<TAB>source" for the validator */

static void note_written(const char *written, const char *source) {
    if (g_sources) fprintf(g_sources, "%s\t%s\n", written, source);
}

static void test_every_file(void **state) {
    (void)state;
    if (!have_corpus()) TEST_SKIP_SHARED(EXT_DIR);
    make_dir(OUT_DIR);
    g_sources = fopen(OUT_DIR "/sources.txt", "w");
    assert_non_null(g_sources);
    corpus c;
    list_corpus(&c);
    uint64_t instances = 0;
    int loaded_files = 0;
    for (int i = 0; i < c.count; i++) {
        arbor_scene *s = new_scene(NULL);
        arbor_gltf *doc = NULL;
                arbor_result r = arbor_gltf_load(s, c.path[i], NULL, &doc);
        if (!strcmp(c.folder[i], "lod_CubeWithLOD_jsononly") && r != ARBOR_OK) {
            /* JSON only: its buffer has no bytes and POSITION no min and max */
            assert_int_equal(r, ARBOR_ERR_PARSE);
            assert_non_null(strstr(arbor_last_error(), c.path[i]));
            assert_non_null(strstr(arbor_last_error(), "/meshes/0/primitives/0/attributes/POSITION"));
            assert_int_equal(arbor_scene_node_count(s), 0);
            /* leniently, its hierarchy and LOD group load */
            arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
            o.lenient = true;
            arbor_scene_desc d = {0};
            log_count warnings = {0};
            d.log = count_log;
            d.log_user = &warnings;
            arbor_scene *ls = new_scene(&d);
            ASSERT_OK(arbor_gltf_load(ls, c.path[i], &o, &doc));
            assert_true(warnings.warnings > 0);
            file_data f = read_gltf(c.path[i]);
            loaded l = {ls, doc};
            check_against(&l, &f, c.path[i]);
            free_gltf(&f);
            unload(&l);
            arbor_scene_destroy(s);
            continue;
        }
        if (r != ARBOR_OK) fail_msg("%s: %s", c.path[i], arbor_last_error());
        loaded l = {s, doc};
        file_data f = read_gltf(c.path[i]);
        instances += check_against(&l, &f, c.path[i]);
        loaded_files++;
        /* round trips: .gltf and .glb keep the same nodes in the same order */
        for (int glb = 0; glb < 2; glb++) {
            char out[PATH_MAX];
            snprintf(out, sizeof out, "%s/%s%s", OUT_DIR, c.folder[i], glb ? ".glb" : ".gltf");
            ASSERT_OK(arbor_gltf_save(s, doc, out, NULL));
            note_written(out, c.path[i]);
            loaded back = load_ok(out);
            check_against(&back, &f, out);
            unload(&back);
        }
        free_gltf(&f);
        unload(&l);
    }
    assert_true(loaded_files >= 11);
    assert_int_equal(instances, 2 * (958 + 941)); /* the two instancing folders */
    fclose(g_sources);
    g_sources = NULL;
    free_corpus(&c);
}

/* ---- edits saved ------------------------------------------------------------------------------------- */

/* Instance i of n is node_world (the double product of the node's chain, from the file's JSON
   or the TRS the scene was built with) times the instance's TRS v. */
static void expect_instance(arbor_scene *s, arbor_node n, const double node_world[16], uint32_t i, const arbor_trs *v) {
    double local[16], want[16];
    arbor_real w[16];
    test_ref_compose_trs(local, v);
    test_ref_mul(want, node_world, local);
    ASSERT_OK(arbor_node_instance_world_matrix(s, n, i, w));
    ASSERT_MAT4_NEAR_D_REL(w, want, TOL);
}

static void test_edits_saved(void **state) {
    (void)state;
    if (!have_corpus()) TEST_SKIP_SHARED(EXT_DIR);
    make_dir(OUT_DIR);
    FILE *sources = fopen(OUT_DIR "/sources.txt", "a");
    assert_non_null(sources);
    const char *teapots = EXT_DIR "/instancing_teapots_galore/teapots_galore.gltf";
    loaded l = load_ok(teapots);
    file_data tf = read_gltf(teapots);
    expected tx = expect_from(&tf); /* nodes 3 and 4's worlds; hiding node 2 moves nothing */
    arbor_node teapot = arbor_gltf_node(l.doc, 3), teapot0 = arbor_gltf_node(l.doc, 4), placement = arbor_gltf_node(l.doc, 2);
    arbor_trs moved = {.translation = {1, 2, 3}, .rotation = {0, 0.6f, 0, 0.8f}, .scale = {2, 2, 2}};
    ASSERT_OK(arbor_node_set_instance(l.s, teapot, 5, &moved));
    arbor_trs three[3] = {{.translation = {0, 0, 0}, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}},
                          {.translation = {4, 0, 0}, .rotation = {0.6f, 0, 0, 0.8f}, .scale = {1, 3, 1}},
                          {.translation = {0, 0, -4}, .rotation = {0, 0, 0, 1}, .scale = {-1, 1, 1}}};
    ASSERT_OK(arbor_node_set_instances(l.s, teapot0, three, 3));
    ASSERT_OK(arbor_node_set_visible(l.s, placement, false));
    for (int glb = 0; glb < 2; glb++) {
        char out[PATH_MAX];
        snprintf(out, sizeof out, "%s/teapots_edited%s", OUT_DIR, glb ? ".glb" : ".gltf");
                ASSERT_OK(arbor_gltf_save(l.s, l.doc, out, NULL));
        fprintf(sources, "%s\t%s\n", out, teapots);
        loaded back = load_ok(out);
        arbor_node bt = arbor_gltf_node(back.doc, 3), bt0 = arbor_gltf_node(back.doc, 4);
        assert_int_equal(arbor_node_instance_count(back.s, bt), 958);
        assert_int_equal(arbor_node_instance_count(back.s, bt0), 3);
        expect_instance(back.s, bt, tx.world[3], 5, &moved);
        for (uint32_t k = 0; k < 3; k++) expect_instance(back.s, bt0, tx.world[4], k, &three[k]);
        /* an instance not edited keeps the file's value (written again as floats: a double
           build's normalised rotation rounds to float) */
        arbor_real a[16], b[16];
        ASSERT_OK(arbor_node_instance_world_matrix(l.s, teapot, 6, a));
        ASSERT_OK(arbor_node_instance_world_matrix(back.s, bt, 6, b));
        ASSERT_MAT4_NEAR_REL(a, b, 2e-6);
        /* hidden: the node and its subtree */
        assert_false(arbor_node_visible(back.s, arbor_gltf_node(back.doc, 2)));
        assert_false(arbor_node_effectively_visible(back.s, arbor_gltf_node(back.doc, 5)));
        assert_true(arbor_node_effectively_visible(back.s, arbor_gltf_node(back.doc, 3)));
        unload(&back);
    }
    unload(&l);
    free_expected(&tx);
    free_gltf(&tf);

    /* MSFT_lod: one level per group shown for a camera, by its screen coverage; culling takes it */
    {
        loaded lt = load_ok(EXT_DIR "/lod_Torus/Torus.gltf");
        arbor_node high = arbor_gltf_node(lt.doc, 2), medium = arbor_gltf_node(lt.doc, 1), low = arbor_gltf_node(lt.doc, 0);
        arbor_node cam;
        arbor_camera c = {.type = ARBOR_CAMERA_PERSPECTIVE, .yfov = 0.8f, .aspect = 1, .znear = 0.01f, .zfar = 1000};
        ASSERT_OK(arbor_node_create(lt.s, &(arbor_node_desc){.name = "eye"}, &cam));
        ASSERT_OK(arbor_node_set_camera(lt.s, cam, &c));
        arbor_real center[3], radius, vp[16], planes[24];
        ASSERT_OK(arbor_node_subtree_sphere(lt.s, high, center, &radius));
        /* distances where the sphere's share of the view's height is 0.7, 0.3, 0.1 and 0.005 */
        const double share[4] = {0.7, 0.3, 0.1, 0.005};
        const arbor_node want[4] = {high, medium, low, ARBOR_NONE};
        for (int k = 0; k < 4; k++) {
            double d = radius / (share[k] * tan(0.4));
            ASSERT_OK(arbor_node_set_translation(lt.s, cam, center[0], center[1], (arbor_real)(center[2] + d)));
            ASSERT_OK(arbor_camera_view_projection(lt.s, cam, 1, vp));
            ASSERT_NEAR(arbor_node_screen_coverage(lt.s, high, vp), share[k], 1e-4);
            assert_int_equal(arbor_gltf_select_lods(lt.doc, vp), k < 3);
            assert_int_equal(arbor_node_visible(lt.s, high), k == 0);
            assert_int_equal(arbor_node_visible(lt.s, medium), k == 1);
            assert_int_equal(arbor_node_visible(lt.s, low), k == 2);
            arbor_frustum_planes(vp, planes);
            arbor_node seen[8];
            uint32_t n = 0, levels = 0;
            ASSERT_OK(arbor_scene_cull(lt.s, planes, 6, seen, 8, &n, NULL));
            for (uint32_t i = 0; i < n; i++) {
                bool level = seen[i].id == high.id || seen[i].id == medium.id || seen[i].id == low.id;
                if (level) assert_int_equal(seen[i].id, want[k].id);
                levels += level;
            }
            assert_int_equal(levels, k < 3);
        }
        unload(&lt);
    }

    /* MSFT_lod: a level destroyed is dropped from ids, with its coverage, and the ids remapped */
    const char *torus = EXT_DIR "/lod_Torus/Torus.gltf";
    arbor_scene_desc d = {0};
    log_count warnings = {0};
    d.log = count_log;
    d.log_user = &warnings;
    loaded t = {new_scene(&d), NULL};
    ASSERT_OK(arbor_gltf_load(t.s, torus, NULL, &t.doc));
    ASSERT_OK(arbor_node_destroy(t.s, arbor_gltf_node(t.doc, 0))); /* Low_LOD, the last level */
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/torus_edited.gltf", OUT_DIR);
    ASSERT_OK(arbor_gltf_save(t.s, t.doc, out, NULL));
    fprintf(sources, "%s\t%s\n", out, torus);
    assert_int_equal(warnings.warnings, 1);
    assert_non_null(strstr(warnings.last, "MSFT_lod"));
    loaded back = load_ok(out);
    assert_int_equal(arbor_gltf_node_count(back.doc), 3);
    assert_int_equal(arbor_gltf_lod_count(back.doc), 1);
    arbor_node levels[4];
    arbor_real coverage[4];
    bool has;
    assert_int_equal(arbor_gltf_lod_group(back.doc, 0, levels, coverage, 4, &has), 2);
    assert_string_equal(arbor_node_name(back.s, levels[0]), "High_LOD");
    assert_string_equal(arbor_node_name(back.s, levels[1]), "Medium_LOD");
    assert_true(has);
    ASSERT_NEAR(coverage[0], 0.5, 1e-7);
    ASSERT_NEAR(coverage[1], 0.2, 1e-7);
    unload(&back);
    unload(&t);

    /* KHR_animation_pointer channels follow their nodes when nodes before them are destroyed, and
       node extensions arbor does not know (KHR_node_selectability) are kept as they are */
    const char *whack = EXT_DIR "/animpointer_WhackAMole/WhackAMole.glb";
    file_data wf = read_gltf(whack);
    loaded w = load_ok(whack);
    json_t *wnodes = json_object_get(wf.root, "nodes");
    uint32_t destroyed = 0;
    for (uint32_t i = 0; i < arbor_gltf_node_count(w.doc) && !destroyed; i++) { /* a leaf no channel drives */
        arbor_node n = arbor_gltf_node(w.doc, i);
        char needle[32];
        snprintf(needle, sizeof needle, "\"/nodes/%u/", i);
        char *text = json_dumps(json_object_get(wf.root, "animations"), JSON_COMPACT);
        if (arbor_node_child_count(w.s, n) == 0 && !strstr(text, needle) && i < 20) {
            ASSERT_OK(arbor_node_destroy(w.s, n));
            destroyed = i + 1;
        }
        free(text);
    }
    assert_true(destroyed > 0);
    snprintf(out, sizeof out, "%s/whack_edited.glb", OUT_DIR);
    ASSERT_OK(arbor_gltf_save(w.s, w.doc, out, NULL));
    fprintf(sources, "%s\t%s\n", out, whack);
    file_data of = read_gltf(out);
    json_t *oa = json_object_get(of.root, "animations"), *fa = json_object_get(wf.root, "animations");
    json_t *onodes = json_object_get(of.root, "nodes");
    assert_int_equal(json_array_size(oa), json_array_size(fa));
    size_t pointers = 0;
    for (size_t a = 0; a < json_array_size(fa); a++) {
        json_t *fc = json_object_get(json_array_get(fa, a), "channels"), *oc = json_object_get(json_array_get(oa, a), "channels");
        assert_int_equal(json_array_size(fc), json_array_size(oc));
        for (size_t c = 0; c < json_array_size(fc); c++) {
            const char *fp = json_string_value(json_object_get(json_object_get(json_object_get(json_object_get(
                json_array_get(fc, c), "target"), "extensions"), "KHR_animation_pointer"), "pointer"));
            const char *op = json_string_value(json_object_get(json_object_get(json_object_get(json_object_get(
                json_array_get(oc, c), "target"), "extensions"), "KHR_animation_pointer"), "pointer"));
            if (!fp) continue;
            unsigned fi, oi;
            assert_int_equal(sscanf(fp, "/nodes/%u/", &fi), 1);
            assert_int_equal(sscanf(op, "/nodes/%u/", &oi), 1);
            assert_int_equal(oi, fi >= destroyed ? fi - 1 : fi); /* the same node, renumbered */
            assert_string_equal(strchr(op + 7, '/'), strchr(fp + 7, '/'));
            assert_true(json_equal(json_object_get(json_array_get(onodes, oi), "name"), json_object_get(json_array_get(wnodes, fi), "name")));
            pointers++;
        }
    }
    assert_true(pointers > 0);
    for (size_t i = 0; i < json_array_size(wnodes); i++) { /* unknown node extensions, as they were */
        json_t *sel = json_object_get(json_object_get(json_array_get(wnodes, i), "extensions"), "KHR_node_selectability");
        if (!sel) continue;
        size_t oi = i >= destroyed ? i - 1 : i;
        assert_true(json_equal(sel, json_object_get(json_object_get(json_array_get(onodes, oi), "extensions"), "KHR_node_selectability")));
    }
    free_gltf(&of);
    free_gltf(&wf);
    unload(&w);

    /* a scene built in code, without a document: instances and visibility written anew */
    arbor_scene *s = new_scene(NULL);
    arbor_node root, grove;
    const arbor_trs root_trs = {.translation = {0, 1, 0}, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}},
                    grove_trs = {.translation = {0, 0, 0}, .rotation = {0, 0.6f, 0, 0.8f}, .scale = {1, 1, 1}};
    double grove_world[16], grove_local[16];
    test_ref_compose_trs(grove_world, &root_trs);
    test_ref_compose_trs(grove_local, &grove_trs);
    test_ref_mul(grove_world, grove_world, grove_local);
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){.name = "root", .translation = {0, 1, 0}}, &root));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){.name = "grove", .parent = root, .rotation = {0, 0.6f, 0, 0.8f}}, &grove));
    ASSERT_OK(arbor_node_set_instances(s, grove, three, 3));
    ASSERT_OK(arbor_node_set_visible(s, root, false));
    for (int glb = 0; glb < 2; glb++) {
        snprintf(out, sizeof out, "%s/built%s", OUT_DIR, glb ? ".glb" : ".gltf");
        ASSERT_OK(arbor_gltf_save(s, NULL, out, NULL));
        fprintf(sources, "%s\t%s\n", out, out);
        loaded b = load_ok(out);
        arbor_node bg = arbor_scene_find(b.s, "root/grove");
        assert_int_equal(arbor_node_instance_count(b.s, bg), 3);
        for (uint32_t k = 0; k < 3; k++) expect_instance(b.s, bg, grove_world, k, &three[k]);
        assert_false(arbor_node_effectively_visible(b.s, bg));
        unload(&b);
    }
    arbor_scene_destroy(s);
    fclose(sources);
}

/* ---- bad input ---------------------------------------------------------------------------------------- */

/* A file with two instance accessors (floats from data: URIs) and what the test puts around them. */
static float g_w = 1; /* the w of the unit rotations */

static char *instancing_file(const char *translation_type, int ctype, int count_t, int count_r, bool normalized,
                             float bad_value, const char *node_extra) {
    float data[40] = {0};
    for (int i = 0; i < 4; i++) data[12 + 4 * i + 3] = g_w; /* rotations after 12 floats of translations */
    data[1] = bad_value;
    char b64[256];
    base64(b64, data, sizeof data);
    char *json = malloc(4096);
    snprintf(json, 4096,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\",\"KHR_node_visibility\"],"
             "\"buffers\":[{\"byteLength\":160,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":64}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":%d,\"count\":%d,\"type\":\"%s\"%s},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":%d,\"type\":\"VEC4\"}],"
             "\"nodes\":[{\"name\":\"grove\",\"extensions\":{\"EXT_mesh_gpu_instancing\":{\"attributes\":"
             "{\"TRANSLATION\":0,\"ROTATION\":1}}%s}},{\"name\":\"other\"}]}",
             b64, ctype, count_t, translation_type, normalized ? ",\"normalized\":true" : "", count_r, node_extra);
    return json;
}

/* Expects a strict refusal naming the pointer and a lenient load with a warning. */
static void expect_bad(const char *json, const char *pointer, const char *reason) {
    arbor_scene_desc d = {0};
    log_count warnings = {0};
    d.log = count_log;
    d.log_user = &warnings;
    arbor_scene *s = new_scene(&d);
    arbor_gltf *doc = NULL;
        arbor_result r = arbor_gltf_load_memory(s, json, strlen(json), NULL, NULL, &doc);
    if (r != ARBOR_ERR_PARSE || strncmp(arbor_last_error(), "arbor_gltf_load_memory: ", 24) || !strstr(arbor_last_error(), pointer) || !strstr(arbor_last_error(), reason))
        fail_msg("load gave %s \"%s\", wanted %s and \"%s\"", arbor_result_string(r), arbor_last_error(), pointer, reason);
    assert_null(doc);
    assert_int_equal(arbor_scene_node_count(s), 0);
    arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
    o.lenient = true;
    ASSERT_OK(arbor_gltf_load_memory(s, json, strlen(json), NULL, &o, &doc));
    assert_true(warnings.warnings > 0);
    assert_int_equal(arbor_scene_node_count(s), 2);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

static void test_bad_input(void **state) {
    (void)state;
    char *json = instancing_file("VEC3", 5126, 4, 4, false, 0.5f, "");
    arbor_scene *s = new_scene(NULL);
    arbor_gltf *doc;
    ASSERT_OK(arbor_gltf_load_memory(s, json, strlen(json), NULL, NULL, &doc));
    assert_int_equal(arbor_node_instance_count(s, arbor_gltf_node(doc, 0)), 4);
    arbor_trs v;
    ASSERT_OK(arbor_node_instance(s, arbor_gltf_node(doc, 0), 0, &v));
    ASSERT_NEAR(v.translation[1], 0.5, 0);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
    free(json);

    json = instancing_file("VEC3", 5126, 4, 3, false, 0, "");
    expect_bad(json, "/nodes/0/extensions/EXT_mesh_gpu_instancing/attributes/", "elements");
    free(json);
    json = instancing_file("VEC3", 5125, 4, 4, false, 0, "");
    expect_bad(json, "/nodes/0/extensions/EXT_mesh_gpu_instancing/attributes/TRANSLATION", "must hold floats");
    free(json);
    json = instancing_file("VEC2", 5126, 4, 4, false, 0, "");
    expect_bad(json, "/nodes/0/extensions/EXT_mesh_gpu_instancing/attributes/TRANSLATION", "VEC3");
    free(json);
    json = instancing_file("VEC3", 5126, 4, 4, false, NAN, "");
    expect_bad(json, "/accessors/0", "NaN");
    free(json);
    g_w = 3; /* not unit */
    json = instancing_file("VEC3", 5126, 4, 4, false, 0, "");
    expect_bad(json, "/nodes/0/extensions/EXT_mesh_gpu_instancing/attributes/ROTATION", "has length 3");
    free(json);
    g_w = 1;
    json = instancing_file("VEC3", 5126, 4, 4, false, 0, ",\"KHR_node_visibility\":{\"visible\":0}");
    expect_bad(json, "/nodes/0/extensions/KHR_node_visibility/visible", "true or false");
    free(json);
    expect_bad("{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"MSFT_lod\"],"
               "\"nodes\":[{\"extensions\":{\"MSFT_lod\":{\"ids\":[1,7]}}},{}]}",
               "/nodes/0/extensions/MSFT_lod/ids/1", "node 7 does not exist");
    /* a visibility animated with LINEAR */
    float keys[4] = {0, 1};
    unsigned char values[4] = {1, 0};
    char tb64[32], vb64[32], anim[2048];
    base64(tb64, keys, 8);
    base64(vb64, values, 4);
    const char *fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_animation_pointer\",\"KHR_node_visibility\"],"
        "\"buffers\":[{\"byteLength\":8,\"uri\":\"data:application/octet-stream;base64,%s\"},"
        "{\"byteLength\":4,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":1,\"byteLength\":2}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":1,\"componentType\":5121,\"count\":2,\"type\":\"SCALAR\"}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1%s}],\"channels\":[{\"sampler\":0,\"target\":"
        "{\"path\":\"pointer\",\"extensions\":{\"KHR_animation_pointer\":{\"pointer\":"
        "\"/nodes/1/extensions/KHR_node_visibility/visible\"}}}}]}],"
        "\"nodes\":[{\"children\":[1]},{\"name\":\"mole\"}]}";
    snprintf(anim, sizeof anim, fmt, tb64, vb64, "");
    expect_bad(anim, "/animations/0/channels/0/sampler", "STEP");
    /* with STEP it loads and animates the visibility, and survives a round trip */
    snprintf(anim, sizeof anim, fmt, tb64, vb64, ",\"interpolation\":\"STEP\"");
    loaded l = {new_scene(NULL), NULL};
    ASSERT_OK(arbor_gltf_load_memory(l.s, anim, strlen(anim), NULL, NULL, &l.doc));
    arbor_node mole = arbor_gltf_node(l.doc, 1);
    assert_int_equal(arbor_gltf_apply_visibility(l.doc, 0, 0.5, false), 1);
    assert_true(arbor_node_visible(l.s, mole));
    assert_int_equal(arbor_gltf_apply_visibility(l.doc, 0, 1.0, false), 1);
    assert_false(arbor_node_visible(l.s, mole));
    assert_int_equal(arbor_gltf_apply_visibility(l.doc, 0, 1.25, true), 1); /* 0.25 into the loop */
    assert_true(arbor_node_visible(l.s, mole));
    /* the pointer follows its node when nodes before it are destroyed */
    arbor_node root = arbor_gltf_node(l.doc, 0);
    ASSERT_OK(arbor_node_set_parent(l.s, mole, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_OK(arbor_node_destroy(l.s, root));
    make_dir(OUT_DIR);
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/pointer_remapped.gltf", OUT_DIR);
    ASSERT_OK(arbor_gltf_save(l.s, l.doc, out, NULL));
    loaded back = load_ok(out);
    assert_int_equal(arbor_gltf_node_count(back.doc), 1);
    assert_int_equal(arbor_gltf_apply_visibility(back.doc, 0, 2.0, false), 1);
    assert_false(arbor_node_visible(back.s, arbor_gltf_node(back.doc, 0)));
    unload(&back);
    unload(&l);
}

int main(void) {
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_file),
        cmocka_unit_test(test_edits_saved),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
