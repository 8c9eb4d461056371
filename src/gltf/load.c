/* SPDX-License-Identifier: MIT */
/* arbor_gltf_load and arbor_gltf_load_memory: read the bytes, split a GLB, parse the JSON, run
   the checks (check.c, links.c, uri.c, data.c), and only then touch the scene: reserve storage,
   create every node in creation order (parents before children, siblings in children order) and
   put their attachments on. A failure there (out of memory) destroys what was created: the scene
   is as before. */
#include <stdio.h>
#include <string.h>

#include "gltf/load_internal.h"

/* ---- the document ---------------------------------------------------------------------------- */

static char *copy_string(ld *L, const char *s) {
    char *p = s ? arbor__ld_calloc(L, strlen(s) + 1, 1) : NULL;
    if (p) memcpy(p, s, strlen(s) + 1);
    return p;
}

/* The document with everything but the handles (filled by create) and what is handed over on
   success (JSON, buffers); NULL when out of memory. */
static arbor_gltf *new_doc(ld *L, const char *base_dir) {
    arbor_gltf *doc = arbor__ld_calloc(L, 1, sizeof *doc);
    if (!doc) return NULL;
    uint32_t n = L->n_nodes;
    doc->allocator = *L->a;
    doc->scene = L->s;
    doc->node_count = n;
    doc->skin_count = L->n_skins;
    doc->scene_count = L->n_scenes;
    bool ok = (doc->path = copy_string(L, L->file)) && (!base_dir || (doc->base_dir = copy_string(L, base_dir))) &&
              (doc->nodes = arbor__ld_calloc(L, n, sizeof *doc->nodes)) &&
              (doc->by_id = arbor__ld_calloc(L, n, sizeof *doc->by_id)) &&
              (doc->by_id_index = arbor__ld_calloc(L, n, sizeof *doc->by_id_index)) &&
              (doc->node_skin = arbor__ld_calloc(L, n, sizeof *doc->node_skin)) &&
              (doc->skins = arbor__ld_calloc(L, L->n_skins, sizeof *doc->skins));
    for (uint32_t i = 0; ok && i < n; i++) doc->node_skin[i] = L->nodes[i].skin;
    for (uint32_t k = 0; ok && k < L->n_skins; k++) {
        const ld_skin *K = &L->skins[k];
        arbor__gltf_skin *D = &doc->skins[k];
        D->joint_count = K->njoints;
        D->skeleton = K->skeleton == LD_NONE ? -1 : (int64_t)K->skeleton;
        ok = (D->joints = arbor__ld_calloc(L, K->njoints, sizeof *D->joints)) != NULL;
        if (ok) memcpy(D->joints, L->joints + K->joint0, (size_t)K->njoints * sizeof *D->joints);
        const ld_accessor *A = K->ibm == LD_NONE ? NULL : &L->acc[K->ibm];
        if (!ok || !A || (A->view != LD_NONE && !arbor__ld_has_data(L, A))) continue; /* identity, or no bytes */
        ok = (D->ibm = arbor__ld_calloc(L, (size_t)K->njoints * 16, sizeof *D->ibm)) != NULL;
        for (uint32_t j = 0; ok && j < K->njoints; j++)
            for (uint32_t c = 0; c < 16; c++) D->ibm[j * 16 + c] = (float)arbor__ld_read(L, A, j, c);
    }
    ok = ok && arbor__ld_decode_animations(L, doc);
    if (!ok) {
        arbor_gltf_destroy(doc);
        return NULL;
    }
    return doc;
}

/* by_id sorted (with by_id_index alongside): handles come out of a fresh scene in order, so the
   usual case is a check; otherwise an in-place heap sort. */
static void sift(uint64_t *id, uint32_t *index, size_t root, size_t n) {
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && id[child + 1] > id[child]) child++;
        if (id[root] >= id[child]) return;
        uint64_t t = id[root];
        id[root] = id[child], id[child] = t;
        uint32_t u = index[root];
        index[root] = index[child], index[child] = u;
    }
}

static void sort_ids(uint64_t *id, uint32_t *index, size_t n) {
    size_t k = 1;
    while (k < n && id[k - 1] < id[k]) k++;
    if (k >= n) return;
    for (size_t i = n / 2; i-- > 0;) sift(id, index, i, n);
    for (size_t end = n; end-- > 1;) {
        uint64_t t = id[0];
        id[0] = id[end], id[end] = t;
        uint32_t u = index[0];
        index[0] = index[end], index[end] = u;
        sift(id, index, 0, end);
    }
}

/* ---- creating the nodes ---------------------------------------------------------------------- */

/* The node's mesh (with bounds), camera and light; false only when out of memory. A value arbor
   refuses after conversion to arbor_real (say a zfar equal to znear in float) is left off with a
   warning. */
static bool attach(ld *L, uint32_t i, arbor_node h) {
    const ld_node *N = &L->nodes[i];
    arbor_result r = ARBOR_OK;
    if (N->mesh >= 0) {
        const ld_mesh *M = &L->meshes[N->mesh];
        r = arbor_node_set_mesh(L->s, h, N->mesh);
        if (!r && M->has_bounds) {
            arbor_real lo[3], hi[3];
            for (int k = 0; k < 3; k++) lo[k] = (arbor_real)M->min[k], hi[k] = (arbor_real)M->max[k];
            r = arbor_node_set_bounds(L->s, h, lo, hi);
        }
        if (r == ARBOR_ERR_OUT_OF_MEMORY) return false;
        if (r) arbor__log(L->s, ARBOR_LOG_WARN, "%s: /nodes/%u/mesh: no bounds: %s", L->file, i, arbor_last_error());
    }
    if (N->camera >= 0 && L->camera_ok[N->camera]) {
        r = arbor_node_set_camera(L->s, h, &L->cameras[N->camera]);
        if (r == ARBOR_ERR_OUT_OF_MEMORY) return false;
        if (r)
            arbor__log(L->s, ARBOR_LOG_WARN, "%s: /nodes/%u/camera: not attached: %s", L->file, i, arbor_last_error());
    }
    if (N->light >= 0 && L->light_ok[N->light]) {
        r = arbor_node_set_light(L->s, h, &L->lights[N->light]);
        if (r == ARBOR_ERR_OUT_OF_MEMORY) return false;
        if (r)
            arbor__log(L->s, ARBOR_LOG_WARN, "%s: /nodes/%u/extensions/KHR_lights_punctual: not attached: %s", L->file,
                       i, arbor_last_error());
    }
    return true;
}

static bool create(ld *L, arbor_gltf *doc) {
    uint32_t n = L->n_nodes, k = 0;
    bool ok = arbor__reserve(L->s, n) && arbor__gltf_docs_reserve(L->s);
    if (!ok) arbor__ld_stop(L, ARBOR_ERR_OUT_OF_MEMORY, LDI_ARBOR_OUT_OF_MEMORY, "/nodes", "no memory for %u nodes", n);
    for (; ok && k < n; k++) {
        uint32_t i = L->order[k];
        const ld_node *N = &L->nodes[i];
        arbor_node_desc d = {.name = N->name, .parent = N->parent == LD_NONE ? ARBOR_NONE : doc->nodes[N->parent]};
        if (N->matrix != LD_NONE) {
            d.matrix = L->matrices + (size_t)N->matrix * 16;
            d.lock_matrix = N->locked;
        } else {
            memcpy(d.translation, N->trs, sizeof d.translation);
            memcpy(d.rotation, N->trs + 3, sizeof d.rotation);
        }
        /* arbor_node_desc takes a zero scale as "none given" and refuses one partly zero: a scale
           with a zero component (a flattened node) is written afterwards */
        bool flat = N->matrix == LD_NONE && (N->trs[7] == 0 || N->trs[8] == 0 || N->trs[9] == 0);
        if (N->matrix == LD_NONE && !flat) memcpy(d.scale, N->trs + 7, sizeof d.scale);
        arbor_result r = arbor_node_create(L->s, &d, &doc->nodes[i]);
        if (!r && flat) r = arbor_node_set_scale(L->s, doc->nodes[i], N->trs[7], N->trs[8], N->trs[9]);
        if (r) {
            ok = arbor__ld_stop(L, r, r == ARBOR_ERR_OUT_OF_MEMORY ? LDI_ARBOR_OUT_OF_MEMORY : LDI_ARBOR_LIMIT, arbor__ld_at(L, "/nodes/%u", i), "node %u: %s", i, arbor_last_error());
            k++; /* created, maybe: destroyed below with the rest */
            break;
        }
        doc->by_id[k] = doc->nodes[i].id;
        doc->by_id_index[k] = i;
        if (!attach(L, i, doc->nodes[i]) || !arbor__ld_node_ext_attach(L, i, doc->nodes[i])) {
            ok = arbor__ld_stop(L, ARBOR_ERR_OUT_OF_MEMORY, LDI_ARBOR_OUT_OF_MEMORY, arbor__ld_at(L, "/nodes/%u", i),
                                "no memory for node %u's attachments", i);
            k++; /* created: destroyed below with the rest (k counted once, not again by the loop) */
            break;
        }
    }
    if (!ok) { /* undo: every node created hangs from a created root */
        for (uint32_t j = 0; j < k; j++) {
            uint32_t i = L->order[j];
            if (L->nodes[i].parent == LD_NONE && arbor_node_alive(L->s, doc->nodes[i]))
                arbor_node_destroy(L->s, doc->nodes[i]);
        }
        return false;
    }
    sort_ids(doc->by_id, doc->by_id_index, n);
    arbor__gltf_docs_add(doc);
    return true;
}

/* ---- the load -------------------------------------------------------------------------------- */

static void free_context(ld *L) {
    if (L->buffers) {
        for (uint32_t i = 0; i < L->n_buffers; i++) arbor__ld_free(L, L->buffers[i].data, L->buffers[i].size, 1);
        arbor__ld_free(L, L->buffers, L->n_buffers, sizeof *L->buffers);
    }
    for (uint32_t i = 0; L->views && i < L->n_views; i++) arbor__ld_free(L, L->views[i].decoded, L->views[i].length, 1);
    arbor__ld_free(L, L->views, L->n_views, sizeof *L->views);
    arbor__ld_free(L, L->acc, L->n_accessors, sizeof *L->acc);
    arbor__ld_free(L, L->meshes, L->n_meshes, sizeof *L->meshes);
    arbor__ld_free(L, L->cameras, L->n_cameras, sizeof *L->cameras);
    arbor__ld_free(L, L->camera_ok, L->n_cameras, sizeof *L->camera_ok);
    arbor__ld_free(L, L->lights, L->n_lights, sizeof *L->lights);
    arbor__ld_free(L, L->light_ok, L->n_lights, sizeof *L->light_ok);
    arbor__ld_free(L, L->nodes, L->n_nodes, sizeof *L->nodes);
    arbor__ld_free(L, L->matrices, L->cap_matrices, sizeof *L->matrices);
    arbor__ld_free(L, L->kids, L->cap_kids, sizeof *L->kids);
    arbor__ld_free(L, L->skins, L->n_skins, sizeof *L->skins);
    arbor__ld_free(L, L->joints, L->cap_joints, sizeof *L->joints);
    arbor__ld_free(L, L->scenes, L->n_scenes, sizeof *L->scenes);
    arbor__ld_free(L, L->roots, L->cap_roots, sizeof *L->roots);
    arbor__ld_free(L, L->anim_checks, L->cap_anim_checks, sizeof *L->anim_checks);
    arbor__ld_free(L, L->animations, L->n_animations, sizeof *L->animations);
    arbor__ld_free(L, L->samplers, L->n_samplers, sizeof *L->samplers);
    arbor__ld_free(L, L->channels, L->n_channels, sizeof *L->channels);
    arbor__ld_free(L, L->order, L->n_nodes, sizeof *L->order);
    arbor__ld_free(L, L->tree, L->n_nodes, sizeof *L->tree);
    arbor__ld_node_ext_free(L);
    json_decref(L->ext_used);
    json_decref(L->root);
}

/* The JSON, or NULL after stopping the load. jansson does not always say that its allocator
   failed: a failed allocation may come out with no message, or as a syntax error at a good
   token. A broken file fails the same way twice; a parse that fails otherwise the second time
   ran out of memory, and one that succeeds the second time is kept. */
static json_t *parse_json(ld *L, const uint8_t *json, size_t size) {
    json_error_t first, again;
    json_t *root = json_loadb((const char *)json, size, JSON_REJECT_DUPLICATES, &first);
    if (root) return root;
    bool memory = json_error_code(&first) == json_error_out_of_memory || !first.text[0];
    if (!memory) {
        if ((root = json_loadb((const char *)json, size, JSON_REJECT_DUPLICATES, &again))) return root;
        memory = json_error_code(&again) != json_error_code(&first) || again.position != first.position ||
                 strcmp(again.text, first.text) != 0;
    }
    if (memory)
        arbor__ld_stop(L, ARBOR_ERR_OUT_OF_MEMORY, LDI_ARBOR_OUT_OF_MEMORY, NULL, "out of memory while parsing the JSON (near line %d)", first.line);
    else {
        L->line = first.line > 0 ? (uint32_t)first.line : 0;
        L->column = first.column > 0 ? (uint32_t)first.column : 0;
        arbor__ld_stop(L, ARBOR_ERR_PARSE, LDI_INVALID_JSON, NULL, "line %d, column %d: %s", first.line, first.column, first.text);
    }
    return NULL;
}

static bool has_glb_magic(const uint8_t *data, size_t size) { return size >= 4 && !memcmp(data, "glTF", 4); }

static arbor_result load(ld *L, const uint8_t *data, size_t size, bool glb, const char *base_dir, arbor_gltf **out) {
    const uint8_t *json = data;
    size_t json_size = size;
    arbor_gltf *doc = NULL;
    if (L->opt.scene < 0 && L->opt.scene != ARBOR_GLTF_DEFAULT_SCENE) {
        arbor__ld_stop(L, ARBOR_ERR_INVALID_ARGUMENT, LDI_ARBOR_LIMIT, NULL,
                       "options.scene %d is neither a scene index nor ARBOR_GLTF_DEFAULT_SCENE", (int)L->opt.scene);
        goto done;
    }
    L->glb = glb;
    if (glb && !arbor__ld_glb(L, data, size, &json, &json_size)) goto done;
    if (json_size >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF) {
        L->line = L->column = 1;
        arbor__ld_stop(L, ARBOR_ERR_PARSE, LDI_INVALID_JSON, NULL, "line 1, column 1: a byte order mark is not allowed");
        goto done;
    }
    if (!(L->root = parse_json(L, json, json_size))) goto done;
    if (!arbor__ld_check(L) || !arbor__ld_links(L) || !arbor__ld_node_ext(L) || !arbor__ld_images(L) ||
        !arbor__ld_buffers(L) || !arbor__ld_meshopt(L) || !arbor__ld_data(L) || !arbor__ld_node_ext_data(L))
        goto done;
    int32_t scene = arbor__ld_chosen_scene(L);
    if (L->opt.scene >= 0 && (uint32_t)L->opt.scene >= L->n_scenes) {
        arbor__ld_stop(L, ARBOR_ERR_INVALID_ARGUMENT, LDI_ARBOR_LIMIT, "/scenes", "options.scene asks for scene %d, the file has %u",
                       (int)L->opt.scene, L->n_scenes);
        goto done;
    }
    if (!(doc = new_doc(L, base_dir)) || !arbor__ld_node_ext_doc(L, doc) || !create(L, doc)) goto done;
    /* success: hand over the JSON and the buffers */
    doc->default_scene = scene;
    doc->root = L->root;
    L->root = NULL;
    doc->buffers = L->buffers;
    doc->buffer_count = L->n_buffers;
    L->buffers = NULL;
    *out = doc;
    doc = NULL;
done:
    if (doc) arbor_gltf_destroy(doc);
    free_context(L);
    return L->code;
}

static void begin(ld *L, arbor_scene *s, const char *file, const char *base_dir, const arbor_gltf_options *options) {
    *L = (ld){.s = s, .a = &s->allocator, .file = file, .base_dir = base_dir, .scene = -1};
    L->opt = options ? *options : (arbor_gltf_options)ARBOR_GLTF_OPTIONS_DEFAULT;
    if (!L->opt.use_scene) L->opt.scene = ARBOR_GLTF_DEFAULT_SCENE;
}

static arbor_result refuse_arguments(const char *fn, const char *what) {
    return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "%s", what);
}

/* The file at path, loaded with the context begin() made. */
static arbor_result load_file(ld *L, const char *path, arbor_gltf **out) {
    /* relative URIs resolve from the file's folder */
    const char *slash = strrchr(path, '/');
    size_t dir_len = !slash || slash == path ? 1 : (size_t)(slash - path);
    char dir_buf[256], *dir = dir_len < sizeof dir_buf ? dir_buf : arbor__ld_calloc(L, dir_len + 1, 1);
    if (!dir) return L->code;
    memcpy(dir, !slash ? "." : slash == path ? "/" : path, dir_len);
    dir[dir_len] = 0;
    L->base_dir = dir;
    uint8_t *data;
    size_t size;
    char reason[400];
    arbor_result r = arbor__gltf_read_file(L->a, path, &data, &size, reason, sizeof reason);
    if (r) {
        arbor__ld_stop(L, r, r == ARBOR_ERR_OUT_OF_MEMORY ? LDI_ARBOR_OUT_OF_MEMORY : LDI_IO_ERROR, NULL, "%s", reason);
    } else {
        size_t n = strlen(path);
        bool glb = (n >= 4 && !strcmp(path + n - 4, ".glb")) || (n >= 4 && !strcmp(path + n - 4, ".GLB")) ||
                   has_glb_magic(data, size);
        r = load(L, data, size, glb, dir, out);
        arbor__free_with(L->a, data, size);
    }
    if (dir != dir_buf) arbor__ld_free(L, dir, dir_len + 1, 1);
    return L->code;
}

arbor_result arbor_gltf_load(arbor_scene *s, const char *path, const arbor_gltf_options *options, arbor_gltf **out) {
    if (out) *out = NULL;
    if (!s || !path || !out) return refuse_arguments("arbor_gltf_load", "scene, path and out are required");
    ld L;
    begin(&L, s, path, NULL, options);
    return load_file(&L, path, out);
}

static void no_log(void *user, arbor_log_level level, const char *message) {
    (void)user;
    (void)level;
    (void)message;
}

/* Bytes to validate from memory, and the folder their URIs resolve from. */
typedef struct validate_bytes {
    const void *data;
    size_t size;
    const char *base_dir;
} validate_bytes;

/* Every validation: a lenient load into a scene of its own, every problem into issues or
   messages; of the file at path, or of the bytes of mem when it is not NULL. */
static arbor_result validate(const char *fn, const char *path, const validate_bytes *mem,
                             const arbor_gltf_options *options, arbor_gltf_issue *issues, arbor_gltf_message *messages,
                             uint32_t cap, uint32_t *count) {
    if (count) *count = 0;
    if (!mem && (!path || (cap && !issues && !messages)))
        return refuse_arguments(fn, "path is required, and the list when cap > 0");
    if (mem && ((!mem->data && mem->size) || (cap && !messages)))
        return refuse_arguments(fn, "data is required when size > 0, and the list when cap > 0");
    arbor_scene_desc desc = {.log = no_log};
    arbor_scene *s = NULL;
    arbor_result made = arbor_scene_create(&desc, &s);
    if (made) return made;
    ld L;
    begin(&L, s, mem ? fn : path, mem ? mem->base_dir : NULL, options); /* from memory, messages name the call */
    L.opt.lenient = true; /* every breach is an issue, and the check goes on */
    L.validating = true;
    L.issues = issues;
    L.messages = messages;
    L.issue_cap = cap;
    arbor_gltf *doc = NULL;
    if (mem) {
        L.memory = true;
        const uint8_t *bytes = mem->data ? mem->data : (const uint8_t *)"";
        load(&L, bytes, mem->size, has_glb_magic(bytes, mem->size), mem->base_dir, &doc);
    } else {
        load_file(&L, path, &doc);
    }
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
    if (count) *count = L.issue_count;
    if (L.issue_code)
        arbor__fail(L.issue_code, fn, "%s: %u issue%s", mem ? "the bytes" : path, L.issue_count,
                    L.issue_count == 1 ? "" : "s");
    return L.issue_code;
}

arbor_result arbor_gltf_validate(const char *path, const arbor_gltf_options *options, arbor_gltf_issue *issues,
                                 uint32_t cap, uint32_t *count) {
    return validate("arbor_gltf_validate", path, NULL, options, issues, NULL, cap, count);
}

arbor_result arbor_gltf_validate_messages(const char *path, const arbor_gltf_options *options,
                                          arbor_gltf_message *messages, uint32_t cap, uint32_t *count) {
    return validate("arbor_gltf_validate_messages", path, NULL, options, NULL, messages, cap, count);
}

arbor_result arbor_gltf_validate_memory(const void *data, size_t size, const char *base_dir,
                                        const arbor_gltf_options *options, arbor_gltf_message *messages, uint32_t cap,
                                        uint32_t *count) {
    validate_bytes mem = {data, size, base_dir};
    return validate("arbor_gltf_validate_memory", NULL, &mem, options, NULL, messages, cap, count);
}

arbor_result arbor_gltf_load_memory(arbor_scene *s, const void *data, size_t size, const char *base_dir,
                                    const arbor_gltf_options *options, arbor_gltf **out) {
    if (out) *out = NULL;
    if (!s || (!data && size) || !out) return refuse_arguments("arbor_gltf_load_memory", "scene, data and out are required");
    ld L;
    begin(&L, s, "arbor_gltf_load_memory", base_dir, options); /* the name in its warnings */
    L.memory = true;
    const uint8_t *bytes = data ? data : (const uint8_t *)"";
    return load(&L, bytes, size, has_glb_magic(bytes, size), base_dir, out);
}
