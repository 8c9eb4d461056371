/*
 * tests/test_samples.h: the glTF sample corpus (ARBOR_SHARED_DIR "/gltf/samples") for the tests
 * that walk it: the main file of each sample folder, in a stable order. POSIX (dirent); the
 * includer defines _POSIX_C_SOURCE 200809L before any system header.
 */
#ifndef ARBOR_TEST_SAMPLES_H
#define ARBOR_TEST_SAMPLES_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

#include "test_util.h"

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

#endif
