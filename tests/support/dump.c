/* SPDX-License-Identifier: MIT */
/* tests/support/dump.h: a scene as text. */
#include "support/dump.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h" /* ARBOR__GEN_MASK */

static void put(scene_dump *d, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = d->cap - d->len;
        int n = vsnprintf(d->text + d->len, room, fmt, ap);
        va_end(ap);
        if (n < 0) abort();
        if ((size_t)n < room) {
            d->len += (size_t)n;
            return;
        }
        d->cap = 2 * d->cap + (size_t)n + 1;
        d->text = realloc(d->text, d->cap);
        if (!d->text) abort();
    }
}

static void put_reals(scene_dump *d, const char *label, const arbor_real *v, int n) {
    put(d, " %s", label);
    for (int i = 0; i < n; i++) put(d, "%c%a", i ? ',' : '=', (double)v[i]);
}

uint64_t test_node_key(arbor_node n) { return n.id & ~((uint64_t)~ARBOR__GEN_MASK << 32); }
void test_node_keys(arbor_node *nodes, size_t count) {
    for (size_t i = 0; i < count; i++) nodes[i].id = test_node_key(nodes[i]);
}

static unsigned long long id(arbor_node n) { return (unsigned long long)test_node_key(n); }

void scene_dump_take(arbor_scene *s, scene_dump *d) {
    if (!d->text) {
        d->cap = 4096;
        d->text = malloc(d->cap);
        if (!d->text) abort();
    }
    d->len = 0;
    d->text[0] = '\0';
    put(d, "nodes=%u first_root=%llx last_root=%llx\n", arbor_scene_node_count(s), id(arbor_scene_first_root(s)),
        id(arbor_scene_last_root(s)));
    const arbor_journal *j = arbor_scene_journal(s);
    if (j) {
        arbor_journal_stats st;
        arbor_journal_stats_get(j, &st);
        put(d, "journal undo=%u redo=%u records=%u held=%u dropped=%llu bytes=%zu\n", st.undo_steps, st.redo_steps,
            st.records, st.held_nodes, (unsigned long long)st.dropped_steps, st.bytes);
    }
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n)) {
        const char *name = arbor_node_name(s, n);
        put(d, "%llx depth=%u parent=%llx first=%llx last=%llx prev=%llx next=%llx children=%u", id(n),
            arbor_node_depth(s, n), id(arbor_node_parent(s, n)), id(arbor_node_first_child(s, n)),
            id(arbor_node_last_child(s, n)), id(arbor_node_prev_sibling(s, n)), id(arbor_node_next_sibling(s, n)),
            arbor_node_child_count(s, n));
        /* the name in full, with its length: a truncated or changed name shows */
        put(d, " name=%s%zu:%s user=%p mb=%d locked=%d foreign=%d", name ? "" : "-", name ? strlen(name) : 0,
            name ? name : "", arbor_node_user(s, n), arbor_node_is_matrix_backed(s, n), arbor_node_is_locked(s, n),
            arbor_node_has_foreign_parent(s, n));
        arbor_trs trs;
        arbor_real m[16];
        if (arbor_node_trs(s, n, &trs) != ARBOR_OK) abort();
        put_reals(d, "t", trs.translation, 3);
        put_reals(d, "r", trs.rotation, 4);
        put_reals(d, "s", trs.scale, 3);
        if (arbor_node_local_matrix(s, n, m) != ARBOR_OK) abort();
        put_reals(d, "local", m, 16);
        if (arbor_node_world_matrix(s, n, m) != ARBOR_OK) abort();
        put_reals(d, "world", m, 16);
        put(d, " version=%llu mesh=%d", (unsigned long long)arbor_node_world_version(s, n), (int)arbor_node_mesh(s, n));
        put(d, " visible=%d/%d instances=%u", arbor_node_visible(s, n), arbor_node_effectively_visible(s, n),
            arbor_node_instance_count(s, n));
        for (uint32_t i = 0; i < arbor_node_instance_count(s, n); i++) {
            if (arbor_node_instance(s, n, i, &trs) != ARBOR_OK) abort();
            put_reals(d, "it", trs.translation, 3);
            put_reals(d, "ir", trs.rotation, 4);
            put_reals(d, "is", trs.scale, 3);
        }
        arbor_real lo[3], hi[3];
        if (arbor_node_bounds(s, n, lo, hi) == ARBOR_OK && lo[0] <= hi[0]) { /* none: an empty box */
            put_reals(d, "min", lo, 3);
            put_reals(d, "max", hi, 3);
        }
        arbor_camera c;
        if (arbor_node_camera(s, n, &c) == ARBOR_OK) {
            const arbor_real v[6] = {c.yfov, c.aspect, c.xmag, c.ymag, c.znear, c.zfar};
            put(d, " camera=%d", (int)c.type);
            put_reals(d, "", v, 6);
        }
        arbor_light l;
        if (arbor_node_light(s, n, &l) == ARBOR_OK) {
            const arbor_real v[10] = {l.color[0], l.color[1], l.color[2], l.intensity, l.range, l.inner_cone,
                                      l.outer_cone, l.direction[0], l.direction[1], l.direction[2]};
            put(d, " light=%d", (int)l.type);
            put_reals(d, "", v, 10);
        }
        put(d, "\n");
    }
}

void scene_dump_free(scene_dump *d) {
    free(d->text);
    *d = (scene_dump){0};
}

/* The line of text that holds offset at, copied into out (cut at size). */
static void line_at(const scene_dump *d, size_t at, char *out, size_t size) {
    size_t start = at, end = at;
    while (start > 0 && d->text[start - 1] != '\n') start--;
    while (end < d->len && d->text[end] != '\n') end++;
    snprintf(out, size, "%.*s", (int)(end - start), d->text + start);
}

const char *scene_dump_diff(const scene_dump *a, const scene_dump *b) {
    if (a->len == b->len && !memcmp(a->text, b->text, a->len)) return NULL;
    size_t at = 0;
    while (at < a->len && at < b->len && a->text[at] == b->text[at]) at++;
    static char message[2200];
    char x[1024], y[1024];
    line_at(a, at, x, sizeof x);
    line_at(b, at, y, sizeof y);
    snprintf(message, sizeof message, "the scenes differ at byte %zu:\n  was: %s\n  now: %s", at, x, y);
    return message;
}
