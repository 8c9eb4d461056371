/* SPDX-License-Identifier: MIT */
/*
 * The lower bounds memory sets, for as many nodes as the shape has:
 * - animate: stream 44 bytes in per node (translation 12, rotation 16, scale 12, parent 4, in
 *   arrays of their own: structure of arrays) and 48 bytes out (a 3x4 world matrix), with
 *   ordinary stores, with non-temporal stores (_mm_stream_ps), and with non-temporal stores
 *   plus software prefetch of the inputs 64 nodes ahead; the fastest is the bound.
 * - read_all: read 48 bytes per node (the world matrices) and add them up, with and without
 *   software prefetch; the faster is the bound.
 * Each on one thread and on two (the nodes split in halves). SSE2 only, 4 nodes per step, so
 * the arithmetic is negligible beside the memory traffic.
 *
 * Usage: membound --shape S [--size N] [--length L] [--frames N] [--json]
 * Prints, per thread count, "memory bound t<N>" for metric animate (with the ordinary and
 * non-temporal figures as extra fields) and for metric read_all, in ns/node.
 */
#define _POSIX_C_SOURCE 200809L
#include <emmintrin.h>
#include <pthread.h>

#include "../workloads.h"

typedef struct arrays {
    float *t, *r, *s, *world;
    int32_t *parent;
    uint32_t count; /* a multiple of 4 */
} arrays;

#define PREFETCH_NODES 64 /* how far ahead the prefetching variants ask for the inputs */

/* Nodes [begin, end) (multiples of 4): out = a cheap function of all 44 input bytes. */
static void stream_range(const arrays *a, uint32_t begin, uint32_t end, bool nontemporal, bool prefetch) {
    for (uint32_t i = begin; i < end; i += 4) {
        const float *t = a->t + 3 * (size_t)i, *r = a->r + 4 * (size_t)i, *s = a->s + 3 * (size_t)i;
        if (prefetch) { /* one line of each stream per 4 nodes covers them all (48, 64, 48, 16 B) */
            _mm_prefetch((const char *)(t + 3 * PREFETCH_NODES), _MM_HINT_NTA);
            _mm_prefetch((const char *)(r + 4 * PREFETCH_NODES), _MM_HINT_NTA);
            _mm_prefetch((const char *)(s + 3 * PREFETCH_NODES), _MM_HINT_NTA);
            _mm_prefetch((const char *)(a->parent + i + PREFETCH_NODES), _MM_HINT_NTA);
        }
        __m128 t0 = _mm_load_ps(t), t1 = _mm_load_ps(t + 4), t2 = _mm_load_ps(t + 8);
        __m128 r0 = _mm_load_ps(r), r1 = _mm_load_ps(r + 4), r2 = _mm_load_ps(r + 8), r3 = _mm_load_ps(r + 12);
        __m128 s0 = _mm_load_ps(s), s1 = _mm_load_ps(s + 4), s2 = _mm_load_ps(s + 8);
        __m128 p = _mm_cvtepi32_ps(_mm_load_si128((const __m128i *)(a->parent + i)));
        __m128 o[12] = { t0, t1, t2, r0, r1, r2, r3, s0, s1, s2, p, _mm_add_ps(t0, r0) };
        float *w = a->world + 12 * (size_t)i;
        if (nontemporal)
            for (int k = 0; k < 12; k++) _mm_stream_ps(w + 4 * k, o[k]);
        else
            for (int k = 0; k < 12; k++) _mm_store_ps(w + 4 * k, o[k]);
    }
    if (nontemporal) _mm_sfence();
}

static float read_range(const arrays *a, uint32_t begin, uint32_t end, bool prefetch) {
    __m128 acc0 = _mm_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    const float *w = a->world + 12 * (size_t)begin, *e = a->world + 12 * (size_t)end;
    for (; w < e; w += 16) {
        if (prefetch) _mm_prefetch((const char *)(w + 12 * PREFETCH_NODES), _MM_HINT_NTA);
        acc0 = _mm_add_ps(acc0, _mm_load_ps(w));
        acc1 = _mm_add_ps(acc1, _mm_load_ps(w + 4));
        acc2 = _mm_add_ps(acc2, _mm_load_ps(w + 8));
        acc3 = _mm_add_ps(acc3, _mm_load_ps(w + 12));
    }
    float out[4];
    _mm_storeu_ps(out, _mm_add_ps(_mm_add_ps(acc0, acc1), _mm_add_ps(acc2, acc3)));
    return out[0] + out[1] + out[2] + out[3];
}

enum { JOB_STREAM, JOB_STREAM_NT, JOB_STREAM_NT_PF, JOB_READ, JOB_READ_PF, JOB_COUNT, JOB_QUIT = JOB_COUNT };

typedef struct worker {
    pthread_t thread;
    const arrays *a;
    uint32_t begin, end;
    int job;
    float sum;
    pthread_barrier_t *start, *done;
} worker;

static void run_job(worker *w) {
    if (w->job == JOB_READ || w->job == JOB_READ_PF)
        w->sum += read_range(w->a, w->begin, w->end, w->job == JOB_READ_PF);
    else
        stream_range(w->a, w->begin, w->end, w->job != JOB_STREAM, w->job == JOB_STREAM_NT_PF);
}

static void *worker_main(void *arg) {
    worker *w = arg;
    for (;;) {
        pthread_barrier_wait(w->start);
        if (w->job == JOB_QUIT) return NULL;
        run_job(w);
        pthread_barrier_wait(w->done);
    }
}

/* Aligned to 64 bytes, each array's start staggered by a different multiple of 256 bytes
   (modulo 4 KiB) so the streams do not all map to the same cache sets. */
static void *alloc_staggered(size_t bytes, unsigned k, void **base) {
    size_t off = (size_t)k * 256 % 4096;
    char *p = aligned_alloc(4096, (bytes + off + 4095) / 4096 * 4096);
    *base = p;
    return p ? p + off : NULL;
}

int main(int argc, char **argv) {
    const char *shape_name = "skeletons";
    uint32_t frames = WL_FRAMES, size = 0, length = 0;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            json = true;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "membound: '%s' needs a value\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--shape"))
            shape_name = v;
        else if (!strcmp(a, "--frames"))
            frames = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--size"))
            size = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--length"))
            length = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(a, "--frame")) { /* --frame is accepted and ignored: every bound is printed */
            fprintf(stderr, "membound: unknown argument '%s'\n", a);
            return 2;
        }
    }
    wl_shape shape;
    if (!wl_shape_make(shape_name, size, length, &shape) || !frames) {
        fputs("membound: bad shape, size or frame count\n", stderr);
        return 2;
    }
    arrays a = { .count = (shape.count + 3) / 4 * 4 };
    void *bases[5];
    a.t = alloc_staggered((size_t)a.count * 12, 0, &bases[0]);
    a.r = alloc_staggered((size_t)a.count * 16, 3, &bases[1]);
    a.s = alloc_staggered((size_t)a.count * 12, 6, &bases[2]);
    a.parent = alloc_staggered((size_t)a.count * 4, 9, &bases[3]);
    a.world = alloc_staggered((size_t)a.count * 48, 12, &bases[4]);
    if (!a.t || !a.r || !a.s || !a.parent || !a.world) {
        fputs("membound: out of memory\n", stderr);
        return 1;
    }
    /* The real workload's values (not that they matter to the bound). */
    wl_rng g = wl_rng_make();
    memset(a.t, 0, (size_t)a.count * 12);
    memset(a.r, 0, (size_t)a.count * 16);
    for (uint32_t i = 0; i < a.count; i++) {
        float sc = 1;
        a.parent[i] = i < shape.count ? wl_draw_node(&g, &shape, i, a.t + 3 * (size_t)i, a.r + 4 * (size_t)i, &sc) : -1;
        a.s[3 * (size_t)i] = a.s[3 * (size_t)i + 1] = a.s[3 * (size_t)i + 2] = sc;
    }
    memset(a.world, 0, (size_t)a.count * 48);

    pthread_barrier_t start, done;
    pthread_barrier_init(&start, NULL, 2);
    pthread_barrier_init(&done, NULL, 2);
    uint32_t half = a.count / 8 * 4;
    worker helper = { .a = &a, .begin = half, .end = a.count, .start = &start, .done = &done };
    worker self = { .a = &a, .begin = 0, .end = half };
    if (pthread_create(&helper.thread, NULL, worker_main, &helper)) {
        fputs("membound: cannot start a thread\n", stderr);
        return 1;
    }

    const uint32_t total = WL_WARMUP + frames;
    double *times = malloc((size_t)total * sizeof *times);
    double fig[3][JOB_COUNT], best[3][JOB_COUNT]; /* [threads 1, 2][job]: median, fastest (ns/node) */
    volatile float sink = 0;
    for (int threads = 1; threads <= 2; threads++) {
        for (int job = 0; job < JOB_COUNT; job++) {
            for (uint32_t k = 0; k < total; k++) {
                double t0 = wl_now();
                if (threads == 1) {
                    worker one = { .a = &a, .begin = 0, .end = a.count, .job = job };
                    run_job(&one);
                    sink += one.sum;
                } else {
                    helper.job = self.job = job;
                    pthread_barrier_wait(&start);
                    run_job(&self);
                    pthread_barrier_wait(&done);
                }
                times[k] = wl_now() - t0;
            }
            fig[threads][job] = wl_median(times + WL_WARMUP, frames) * 1e9 / (double)shape.count;
            best[threads][job] = times[WL_WARMUP] * 1e9 / (double)shape.count; /* sorted by the median */
        }
    }
    sink += self.sum + helper.sum;
    (void)sink;
    helper.job = JOB_QUIT;
    pthread_barrier_wait(&start);
    pthread_join(helper.thread, NULL);

    for (int threads = 1; threads <= 2; threads++) {
        char peer[32], extra[160];
        snprintf(peer, sizeof peer, "memory bound t%d", threads);
        const double *f = fig[threads], *b = best[threads];
        int bound = JOB_STREAM; /* the fastest way to stream */
        for (int job = JOB_STREAM_NT; job <= JOB_STREAM_NT_PF; job++)
            if (f[job] < f[bound]) bound = job;
        snprintf(extra, sizeof extra,
                 "\"ordinary\":%.6g,\"nontemporal\":%.6g,\"nontemporal_prefetch\":%.6g,\"bytes_in\":44,\"bytes_out\":48",
                 f[JOB_STREAM], f[JOB_STREAM_NT], f[JOB_STREAM_NT_PF]);
        wl_report rep = { .peer = peer, .metric = "animate", .shape = &shape, .value = f[bound], .min = b[bound],
                          .frames = frames, .checksum = -1, .extra = extra };
        wl_print(&rep, json);
        int rb = f[JOB_READ_PF] < f[JOB_READ] ? JOB_READ_PF : JOB_READ;
        snprintf(extra, sizeof extra, "\"plain\":%.6g,\"prefetch\":%.6g,\"bytes_in\":48", f[JOB_READ], f[JOB_READ_PF]);
        rep.metric = "read_all";
        rep.value = f[rb];
        rep.min = b[rb];
        wl_print(&rep, json);
    }
    for (int k = 0; k < 5; k++) free(bases[k]);
    free(times);
    return 0;
}
