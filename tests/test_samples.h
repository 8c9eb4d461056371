/*
 * tests/test_samples.h: what the glTF tests share: the sample corpus (ARBOR_SHARED_DIR
 * "/gltf/samples"), the main file of each sample folder in a stable order, and loading a file
 * into a scene of its own. POSIX (dirent); the includer defines _POSIX_C_SOURCE 200809L before
 * any system header.
 */
#ifndef ARBOR_TEST_SAMPLES_H
#define ARBOR_TEST_SAMPLES_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

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

static inline loaded load_ok(const char *path) {
    loaded l = { arbor_scene_create(NULL), NULL };
    arbor_error error;
    arbor_result r = arbor_gltf_load(l.s, path, NULL, &l.doc, &error);
    if (r != ARBOR_OK) fail_msg("loading %s: %s (%s)", path, error.message, arbor_result_string(r));
    return l;
}

static inline void unload(loaded *l) {
    arbor_gltf_free(l->doc);
    arbor_scene_destroy(l->s);
}

/* The node's index in the loaded file, -1 for ARBOR_NONE. */
static inline int64_t index_of(const loaded *l, arbor_node n) {
    return arbor_node_is_none(n) ? -1 : arbor_gltf_index(l->doc, n);
}

#endif
