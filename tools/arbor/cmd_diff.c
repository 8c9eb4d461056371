/* SPDX-License-Identifier: MIT */
/* arbor diff: what changed between two glTF files' hierarchies, node by node, matched by path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor diff A B [--scene N|NAME|all] [--tolerance T] [--lenient]\n"
    "\n"
    "Compares the hierarchies of two glTF files (one of them may be -, standard input) and\n"
    "prints what changed from A to B, one line a node, nodes named by path:\n"
    "  - PATH (#I)           removed: in A, not in B\n"
    "  + PATH (#J)           added: in B, not in A\n"
    "  ~ PATH_A -> PATH_B    renamed: the same place under the same parent, another name\n"
    "  > PATH_A -> PATH_B    moved: a node of the same name under another parent\n"
    "  * PATH: ...           its local transform differs by more than the tolerance (the\n"
    "                        largest difference of its local matrix's entries), with the\n"
    "                        translations, rotations and scales of both where they differ\n"
    "Nodes are matched from the roots down: children by name (the first free one of equal\n"
    "name), then the unmatched ones by their order among the siblings (a rename); then nodes of\n"
    "equal names whose parents differ (a move).\n"
    "\n"
    "Exit status, as diff's: 0 the same, 1 different, 2 an error (usage, or a file that does not\n"
    "load).\n"
    "\n"
    "  --scene S       the glTF scene of both files: an index or a name (default: each file's\n"
    "                  own), or all: every node of each file\n"
    "  --tolerance T   the largest difference of matrix entries taken as equal (default 1e-6)\n"
    "  --lenient       load what can be loaded, with warnings, instead of refusing a file\n";

typedef struct side {
    cli_file f;
    int32_t scene;
    unsigned char *in;   /* the scene's nodes, by file index */
    int64_t *match;      /* the other side's file index, or -1 */
    uint32_t count;      /* file nodes */
} side;

static int64_t idx(const side *s, arbor_node n) { return arbor_node_is_none(n) ? -1 : arbor_gltf_index(s->f.doc, n); }

static bool same_name(const side *a, arbor_node x, const side *b, arbor_node y) {
    const char *p = arbor_node_name(a->f.scene, x), *q = arbor_node_name(b->f.scene, y);
    return p && q && !strcmp(p, q);
}

static void pair(side *a, side *b, int64_t i, int64_t j, int64_t *queue, uint32_t *tail) {
    a->match[i] = j;
    b->match[j] = i;
    queue[(*tail)++] = i;
}

/* Matches two sibling lists (the children of matched parents, or the roots): by name, then the
   rest in order. Pairs go onto the queue. */
static void match_siblings(side *a, side *b, arbor_node first_a, arbor_node first_b, int64_t *queue, uint32_t *tail) {
    const arbor_scene *sa = a->f.scene, *sb = b->f.scene;
    for (arbor_node x = first_a; !arbor_node_is_none(x); x = arbor_node_next_sibling(sa, x)) {
        int64_t i = idx(a, x);
        if (i < 0 || !a->in[i] || a->match[i] >= 0) continue;
        for (arbor_node y = first_b; !arbor_node_is_none(y); y = arbor_node_next_sibling(sb, y)) {
            int64_t j = idx(b, y);
            if (j >= 0 && b->in[j] && b->match[j] < 0 && same_name(a, x, b, y)) {
                pair(a, b, i, j, queue, tail);
                break;
            }
        }
    }
    arbor_node y = first_b;
    for (arbor_node x = first_a; !arbor_node_is_none(x); x = arbor_node_next_sibling(sa, x)) {
        int64_t i = idx(a, x);
        if (i < 0 || !a->in[i] || a->match[i] >= 0) continue;
        while (!arbor_node_is_none(y) && (idx(b, y) < 0 || !b->in[idx(b, y)] || b->match[idx(b, y)] >= 0)) y = arbor_node_next_sibling(sb, y);
        if (arbor_node_is_none(y)) break;
        /* a name of A that B has elsewhere is a move, not a rename */
        pair(a, b, i, idx(b, y), queue, tail);
        y = arbor_node_next_sibling(sb, y);
    }
}

/* A translation, rotation or scale without float noise: a value below 1e-5 of the largest one
   prints as 0, as cli_tidy3 does. */
static void print_tuple(const arbor_real *v, int n) {
    double largest = 0;
    for (int k = 0; k < n; k++) largest = fmax(largest, fabs((double)v[k]));
    for (int k = 0; k < n; k++) printf("%s%.6g", k ? ", " : "", fabs((double)v[k]) < 1e-5 * largest ? 0.0 : cli_tidy(v[k]));
}

static void print_trs(const char *what, const arbor_real *p, const arbor_real *q, int n) {
    bool differ = false;
    for (int k = 0; k < n; k++) differ |= fabs((double)p[k] - (double)q[k]) > 1e-6 * fmax(1, fabs((double)p[k]));
    if (!differ) return;
    printf("  %s (", what);
    print_tuple(p, n);
    printf(") -> (");
    print_tuple(q, n);
    printf(")");
}

static int load_side(side *s, const char *path, const cli_args *args) {
    if (cli_load(&s->f, path, args->lenient)) return 2;
    if (cli_pick_scene("diff", &s->f, args, &s->scene)) return 2;
    s->count = arbor_gltf_node_count(s->f.doc);
    s->in = cli_scene_members(&s->f, s->scene);
    s->match = malloc((s->count + 1) * sizeof *s->match);
    if (!s->in || !s->match) {
        cli_error("out of memory");
        return 2;
    }
    for (uint32_t i = 0; i < s->count; i++) s->match[i] = -1;
    return 0;
}

static void free_side(side *s) {
    free(s->in);
    free(s->match);
    if (s->f.scene) cli_close(&s->f);
}

int cmd_diff(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    double tolerance = 1e-6;
    /* --tolerance T comes out before the common options are parsed. */
    int kept = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--tolerance")) {
            char *end = NULL;
            if (i + 1 < argc) tolerance = strtod(argv[i + 1], &end);
            if (i + 1 >= argc || end == argv[i + 1] || *end || !(tolerance >= 0) || !isfinite(tolerance))
                return cli_usage_error("diff: --tolerance needs a number >= 0");
            i++;
        } else {
            argv[kept++] = argv[i];
        }
    }
    cli_args args;
    int status = cli_parse_args("diff", kept, argv, CLI_OPT_SCENE | CLI_OPT_SCENE_ALL | CLI_OPT_LENIENT, 2, 2, &args);
    if (status) return status;
    if (!strcmp(args.files[0], "-") && !strcmp(args.files[1], "-")) return cli_usage_error("diff: only one of A and B can be -");
    side a = { 0 }, b = { 0 };
    if ((status = load_side(&a, args.files[0], &args)) || (status = load_side(&b, args.files[1], &args))) {
        free_side(&a);
        free_side(&b);
        return status;
    }
    /* Match from the roots down; then moves (equal names, other parents) start new subtrees. */
    int64_t *queue = malloc((a.count + 1) * sizeof *queue);
    if (!queue) {
        cli_error("out of memory");
        free_side(&a);
        free_side(&b);
        return 2;
    }
    uint32_t head = 0, tail = 0, ra, rb;
    arbor_node *roots_a = cli_scene_roots(&a.f, a.scene, &ra), *roots_b = cli_scene_roots(&b.f, b.scene, &rb);
    /* the roots as one sibling list each: matched by name, then in order */
    for (uint32_t i = 0; i < ra; i++) {
        for (uint32_t j = 0; j < rb; j++) {
            if (a.match[idx(&a, roots_a[i])] < 0 && b.match[idx(&b, roots_b[j])] < 0 && same_name(&a, roots_a[i], &b, roots_b[j])) {
                pair(&a, &b, idx(&a, roots_a[i]), idx(&b, roots_b[j]), queue, &tail);
                break;
            }
        }
    }
    for (uint32_t i = 0, j = 0; i < ra; i++) {
        if (a.match[idx(&a, roots_a[i])] >= 0) continue;
        while (j < rb && b.match[idx(&b, roots_b[j])] >= 0) j++;
        if (j == rb) break;
        pair(&a, &b, idx(&a, roots_a[i]), idx(&b, roots_b[j]), queue, &tail);
    }
    free(roots_a);
    free(roots_b);
    for (;;) {
        while (head < tail) {
            int64_t i = queue[head++];
            arbor_node x = arbor_gltf_node(a.f.doc, (uint32_t)i), y = arbor_gltf_node(b.f.doc, (uint32_t)a.match[i]);
            match_siblings(&a, &b, arbor_node_first_child(a.f.scene, x), arbor_node_first_child(b.f.scene, y), queue, &tail);
        }
        uint32_t before = tail;
        for (uint32_t i = 0; i < a.count; i++) {
            arbor_node x = arbor_gltf_node(a.f.doc, i);
            if (!a.in[i] || a.match[i] >= 0 || !arbor_node_name(a.f.scene, x)) continue;
            for (uint32_t j = 0; j < b.count; j++) {
                if (b.in[j] && b.match[j] < 0 && same_name(&a, x, &b, arbor_gltf_node(b.f.doc, j))) {
                    pair(&a, &b, i, j, queue, &tail);
                    break;
                }
            }
        }
        if (tail == before) break;
    }
    free(queue);

    /* Report, in A's file order, then B's additions. */
    uint32_t changes = 0;
    for (uint32_t i = 0; i < a.count; i++) {
        if (!a.in[i]) continue;
        arbor_node x = arbor_gltf_node(a.f.doc, i);
        char pa[512], pb[512];
        cli_node_path(&a.f, x, pa, sizeof pa);
        if (a.match[i] < 0) {
            printf("- %s (#%u)\n", pa, i);
            changes++;
            continue;
        }
        arbor_node y = arbor_gltf_node(b.f.doc, (uint32_t)a.match[i]);
        cli_node_path(&b.f, y, pb, sizeof pb);
        arbor_node px = arbor_node_parent(a.f.scene, x), py = arbor_node_parent(b.f.scene, y);
        bool parents_match = arbor_node_is_none(px) ? arbor_node_is_none(py)
                                                    : !arbor_node_is_none(py) && a.match[idx(&a, px)] == idx(&b, py);
        const char *na = arbor_node_name(a.f.scene, x), *nb = arbor_node_name(b.f.scene, y);
        bool renamed = (na == NULL) != (nb == NULL) || (na && nb && strcmp(na, nb));
        if (!parents_match) {
            printf("> %s -> %s\n", pa, pb);
            changes++;
        } else if (renamed) {
            printf("~ %s -> %s\n", pa, pb);
            changes++;
        }
        arbor_real la[16], lb[16];
        arbor_node_local_matrix(a.f.scene, x, la);
        arbor_node_local_matrix(b.f.scene, y, lb);
        double most = 0;
        for (int k = 0; k < 16; k++) most = fmax(most, fabs((double)la[k] - (double)lb[k]));
        if (most > tolerance) {
            arbor_real ta[3], ra4[4], sa[3], tb[3], rb4[4], sb[3];
            printf("* %s: local matrix differs by %.6g", pb, most);
            if (arbor_mat4_decompose(la, ta, ra4, sa) && arbor_mat4_decompose(lb, tb, rb4, sb)) {
                print_trs("translation", ta, tb, 3);
                print_trs("rotation", ra4, rb4, 4);
                print_trs("scale", sa, sb, 3);
            }
            putchar('\n');
            changes++;
        }
    }
    for (uint32_t j = 0; j < b.count; j++) {
        if (!b.in[j] || b.match[j] >= 0) continue;
        char pb[512];
        printf("+ %s (#%u)\n", cli_node_path(&b.f, arbor_gltf_node(b.f.doc, j), pb, sizeof pb), j);
        changes++;
    }
    if (!changes) printf("same hierarchy and transforms (tolerance %g)\n", tolerance);
    free_side(&a);
    free_side(&b);
    if (fflush(stdout)) return 2;
    return changes ? 1 : 0;
}
