/* SPDX-License-Identifier: MIT */
/*
 * tests/test_samples.h: what the glTF tests share: the sample corpus (ARBOR_SHARED_DIR
 * "/gltf/samples"), the main file of each sample folder in a stable order, loading a file into a
 * scene of its own, reading a whole file, base64 for data: URIs, counting a scene's warnings,
 * running the arbor command. POSIX (dirent); the includer defines _POSIX_C_SOURCE 200809L before
 * any system header.
 */
#ifndef ARBOR_TEST_SAMPLES_H
#define ARBOR_TEST_SAMPLES_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_util.h"

#include "arbor/gltf.h"

#define SAMPLES_DIR ARBOR_SHARED_DIR "/gltf/samples"
#define MAX_SAMPLES 64

static inline void make_dir(const char *path) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) fail_msg("mkdir %s: %s", path, strerror(errno));
}

static inline int compare_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static inline bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* A whole file, NUL-terminated (free it); NULL when it cannot be read. */
static inline char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p) p[n] = 0;
    if (size) *size = p ? (size_t)n : 0;
    return p;
}

static const char base64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* n bytes as base64 into out (4 characters per 3 bytes, NUL-terminated). */
static inline void base64(char *out, const void *data, size_t n) {
    const unsigned char *p = data;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out[o++] = base64_alphabet[v >> 18 & 63];
        out[o++] = base64_alphabet[v >> 12 & 63];
        out[o++] = i + 1 < n ? base64_alphabet[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? base64_alphabet[v & 63] : '=';
    }
    out[o] = 0;
}

/* base64 text (up to '=' or its end) into out; the byte count. */
static inline size_t unbase64(unsigned char *out, const char *s) {
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (; *s && *s != '='; s++) {
        const char *c = strchr(base64_alphabet, *s);
        acc = acc << 6 | (uint32_t)(c - base64_alphabet);
        if ((bits += 6) >= 8) out[n++] = (unsigned char)(acc >> (bits -= 8));
    }
    return n;
}

/* The main file of each sample folder (its one .gltf or .glb), sorted; 0 when there are none. */
static inline int sample_files(char *paths[MAX_SAMPLES], char *names[MAX_SAMPLES]) {
    DIR *top = opendir(SAMPLES_DIR);
    if (!top) return 0;
    char *folders[MAX_SAMPLES];
    int count = 0;
    for (struct dirent *e; (e = readdir(top)) && count < MAX_SAMPLES;)
        if (e->d_name[0] != '.') folders[count++] = strdup(e->d_name);
    closedir(top);
    qsort(folders, (size_t)count, sizeof *folders, compare_strings);
    int found = 0;
    for (int i = 0; i < count; i++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", SAMPLES_DIR, folders[i]);
        DIR *d = opendir(dir);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (!ends_with(e->d_name, ".gltf") && !ends_with(e->d_name, ".glb")) continue;
            paths[found] = malloc(2 * PATH_MAX);
            snprintf(paths[found], 2 * PATH_MAX, "%s/%s", dir, e->d_name);
            names[found++] = strdup(folders[i]);
            break;
        }
        if (d) closedir(d);
        free(folders[i]);
    }
    return found;
}

static inline void free_samples(char *paths[], char *names[], int count) {
    for (int i = 0; i < count; i++) {
        free(paths[i]);
        free(names[i]);
    }
}

/* A glTF file loaded into a scene of its own; the test fails when it cannot be loaded. */
typedef struct loaded {
    arbor_scene *s;
    arbor_gltf *doc;
} loaded;

/* arbor_gltf_scene_roots and arbor_gltf_skin that must succeed: their counts. */
static inline uint32_t test_scene_roots_(const arbor_gltf *doc, uint32_t scene, arbor_node *out, uint32_t cap,
                                         const char *file, int line) {
    uint32_t count = UINT32_MAX;
    arbor_result r = arbor_gltf_scene_roots(doc, scene, out, cap, &count);
    if (r != ARBOR_OK) {
        print_error("arbor_gltf_scene_roots: %s\n", arbor_last_error());
        _fail(file, line);
    }
    return count;
}
#define TEST_SCENE_ROOTS(doc, scene, out, cap) test_scene_roots_((doc), (scene), (out), (cap), __FILE__, __LINE__)
static inline uint32_t test_skin_(const arbor_gltf *doc, uint32_t skin, arbor_node *joints, float *ibm, uint32_t cap,
                                  arbor_node *skeleton, const char *file, int line) {
    uint32_t count = UINT32_MAX;
    arbor_result r = arbor_gltf_skin(doc, skin, joints, ibm, cap, skeleton, &count);
    if (r != ARBOR_OK) {
        print_error("arbor_gltf_skin: %s\n", arbor_last_error());
        _fail(file, line);
    }
    return count;
}
#define TEST_SKIN(doc, skin, joints, ibm, cap, skeleton) \
    test_skin_((doc), (skin), (joints), (ibm), (cap), (skeleton), __FILE__, __LINE__)

static inline loaded load_ok(const char *path) {
    loaded l = { NULL, NULL };
    assert_int_equal(arbor_scene_create(NULL, &l.s), ARBOR_OK);
    arbor_result r = arbor_gltf_load(l.s, path, NULL, &l.doc);
    if (r != ARBOR_OK) fail_msg("loading %s: %s (%s)", path, arbor_last_error(), arbor_result_string(r));
    return l;
}

static inline void unload(loaded *l) {
    arbor_gltf_destroy(l->doc);
    arbor_scene_destroy(l->s);
}

/* A scene log hook that counts warnings and keeps the last one. */
typedef struct log_count {
    int warnings;
    char last[512];
} log_count;

static inline void count_log(void *user, arbor_log_level level, const char *message) {
    log_count *c = user;
    if (level != ARBOR_LOG_WARN) return;
    c->warnings++;
    snprintf(c->last, sizeof c->last, "%s", message);
}

#ifdef ARBOR_CLI_PATH
/* Runs `arbor ARGS` (ARGS is shell text), stdout and stderr into out_dir/stdout.txt and
   out_dir/stderr.txt; the exit status. */
static inline int run_arbor(const char *out_dir, const char *args) {
    make_dir(out_dir);
    size_t size = strlen(ARBOR_CLI_PATH) + strlen(args) + 2 * strlen(out_dir) + 64;
    char *command = malloc(size);
    snprintf(command, size, "'%s' %s >'%s/stdout.txt' 2>'%s/stderr.txt'", ARBOR_CLI_PATH, args, out_dir, out_dir);
    int status = system(command);
    free(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
#endif

/* The node's index in the loaded file, -1 for ARBOR_NONE. */
static inline int64_t index_of(const loaded *l, arbor_node n) {
    return arbor_node_is_none(n) ? -1 : arbor_gltf_index(l->doc, n);
}

#endif
