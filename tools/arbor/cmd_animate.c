/* SPDX-License-Identifier: MIT */
/* arbor animate: a glTF file posed by one of its animations (printed as `arbor dump --json`), or
   played frame after frame and timed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"

static const char help[] =
    "usage: arbor animate FILE [--animation NAME|INDEX] --time T [--scene N|NAME|all] [--loop]\n"
    "                     [--pointer] [--json] [--lenient]\n"
    "       arbor animate FILE [--animation NAME|INDEX] --fps F --frames N [--loop] [--pointer] [--json]\n"
    "                     [--lenient]\n"
    "\n"
    "Poses the nodes of a glTF file with one of its animations (the first by default).\n"
    "\n"
    "With --time T: prints the nodes posed at T seconds exactly as `arbor dump --json` prints them\n"
    "(scenes, then each node of the scene: parent, children, local and world matrices). Before a\n"
    "channel's first keyframe it holds that keyframe, after its last the last one; --loop wraps T into\n"
    "[0, duration) first. Interpolation is glTF's: STEP, LINEAR (slerp for rotations),\n"
    "CUBICSPLINE (Hermite, tangents scaled by the keyframe interval); rotations normalised.\n"
    "\n"
    "With --fps F --frames N: plays the animation from time 0, N frames F per second (held at\n"
    "its end, or wrapped with --loop); each frame writes the pose, updates the scene and computes\n"
    "every skin's joint matrices. Prints the time per frame (median and fastest, microseconds)\n"
    "and per animated node; --json prints it as one JSON line.\n"
    "\n"
    "  --animation A   the animation by name, or by index (0, 1, ...)\n"
    "  --scene S       with --time: the glTF scene whose nodes are printed (an index or a name;\n"
    "                  default: the file's), or all: every node of the file\n"
    "  --loop          wrap the time into the animation instead of holding its ends\n"
    "  --pointer       also apply KHR_animation_pointer channels on a node's translation,\n"
    "                  rotation or scale (without it they are ignored)\n"
    "  --json          --time: the format (the only one); --fps: one JSON line\n"
    "  --lenient       load what can be loaded, with warnings, instead of refusing the file\n";

typedef struct options {
    const char *file, *animation, *scene;
    double time, fps;
    uint32_t frames;
    bool has_time, has_fps, has_frames, loop, pointer, json, lenient;
} options;

static int parse(int argc, char **argv, options *o) {
    *o = (options){ 0 };
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "--loop")) {
            o->loop = true;
        } else if (!strcmp(a, "--pointer")) {
            o->pointer = true;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--lenient")) {
            o->lenient = true;
        } else if (!strcmp(a, "--scene")) {
            if (!value) return cli_usage_error("animate: --scene needs a scene index or name");
            o->scene = argv[++i];
        } else if (!strcmp(a, "--animation")) {
            if (!value) return cli_usage_error("animate: --animation needs a name or an index");
            o->animation = argv[++i];
        } else if (!strcmp(a, "--time")) {
            o->time = value ? strtod(value, &end) : 0;
            if (!value || end == value || *end || !isfinite(o->time))
                return cli_usage_error("animate: --time needs a number of seconds");
            o->has_time = true;
            i++;
        } else if (!strcmp(a, "--fps")) {
            o->fps = value ? strtod(value, &end) : 0;
            if (!value || end == value || *end || !(o->fps > 0) || !isfinite(o->fps))
                return cli_usage_error("animate: --fps needs a number of frames per second above 0");
            o->has_fps = true;
            i++;
        } else if (!strcmp(a, "--frames")) {
            unsigned long n = value && value[0] != '-' ? strtoul(value, &end, 10) : 0;
            if (!value || end == value || *end || n == 0 || n > 100000000ul)
                return cli_usage_error("animate: --frames needs a count from 1 to 100000000");
            o->frames = (uint32_t)n;
            o->has_frames = true;
            i++;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("animate: unknown option '%s'", a);
        } else if (o->file) {
            return cli_usage_error("animate: '%s' is one operand too many", a);
        } else {
            o->file = a;
        }
    }
    if (!o->file) return cli_usage_error("animate: FILE is missing");
    if (o->has_time == (o->has_fps || o->has_frames))
        return cli_usage_error("animate: give either --time T, or --fps F and --frames N");
    if (!o->has_time && !(o->has_fps && o->has_frames))
        return cli_usage_error("animate: --fps and --frames go together");
    return 0;
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Plays the clip and reports the time per frame. */
static int play(cli_file *f, const options *o, int32_t index, const arbor_clip *clip, arbor_player *player) {
    arbor_skins *skins = NULL;
    float *joints = NULL;
    double *frame_us = malloc(o->frames * sizeof *frame_us);
    int status = 1;
    if (!frame_us || arbor_skins_create(f->scene, &skins) || arbor_gltf_add_skins(f->doc, skins, NULL)) {
        cli_error("%s", cli_last_error());
        goto done;
    }
    uint32_t joint_total = arbor_skins_joint_total(skins), animated = 0;
    joints = malloc(((size_t)joint_total + 1) * 16 * sizeof *joints);
    if (!joints) {
        cli_error("out of memory");
        goto done;
    }
    arbor_wrap wrap = o->loop ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP;
    for (uint32_t i = 0; i < o->frames; i++) {
        double start = now_us();
        arbor_result r = arbor_player_apply(player, i / o->fps, wrap);
        arbor_scene_update(f->scene);
        if (!r) r = arbor_skins_compute(skins, ARBOR_LAYOUT_MAT4, joints, joint_total, NULL);
        frame_us[i] = now_us() - start;
        if (r) {
            cli_error("frame %u: %s", i, cli_last_error());
            goto done;
        }
    }
    for (uint32_t i = 0, n = arbor_clip_rig_size(clip); i < n; i++) {
        bool driven = false;
        for (uint32_t c = 0; c < arbor_clip_channel_count(clip) && !driven; c++) {
            arbor_channel_desc ch;
            arbor_clip_channel(clip, c, &ch);
            driven = ch.target == i && ch.path != ARBOR_ANIM_WEIGHTS;
        }
        animated += driven;
    }
    qsort(frame_us, o->frames, sizeof *frame_us, by_value);
    double median = frame_us[o->frames / 2], fastest = frame_us[0];
    double per_node = animated ? median * 1e3 / animated : 0;
    const char *name = arbor_gltf_animation_name(f->doc, (uint32_t)index);
    if (o->json) {
        json_t *line = json_pack("{s:s, s:i, s:s?, s:f, s:i, s:i, s:i, s:i, s:f, s:f, s:f, s:f}", "file", f->path,
                                 "animation", (int)index, "name", name, "duration", arbor_clip_duration(clip),
                                 "channels", (int)arbor_clip_channel_count(clip), "nodes", (int)animated, "joints",
                                 (int)joint_total, "frames", (int)o->frames, "fps", o->fps, "us_per_frame", median,
                                 "min_us", fastest, "ns_per_node", per_node);
        if (line) json_dumpf(line, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
        putchar('\n');
        json_decref(line);
    } else {
        printf("%s: animation %d%s%s%s (%.3f s, %u channels on %u nodes, %u skins of %u joints)\n", f->path,
               (int)index, name ? " \"" : "", name ? name : "", name ? "\"" : "", arbor_clip_duration(clip),
               arbor_clip_channel_count(clip), animated, arbor_skins_count(skins), joint_total);
        printf("%u frames at %g fps: %.3f us per frame (median; fastest %.3f), %.1f ns per animated node\n",
               o->frames, o->fps, median, fastest, per_node);
    }
    status = 0;
done:
    free(frame_us);
    free(joints);
    arbor_skins_destroy(skins);
    return status;
}

int cmd_animate(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    options o;
    int status = parse(argc, argv, &o);
    if (status) return status;
    cli_file f;
    if (cli_load(&f, o.file, o.lenient)) return 1;
    int32_t index = cli_pick_animation(&f, "animate", o.animation);
    arbor_clip *clip = NULL;
    arbor_player *player = NULL;
    uint32_t n = arbor_gltf_node_count(f.doc);
    arbor_node *rig = malloc(((size_t)n + 1) * sizeof *rig);
    status = index == -2 ? 2 : 1;
    if (index < 0 || !rig) goto done;
    status = 1;
    for (uint32_t i = 0; i < n; i++) rig[i] = arbor_gltf_node(f.doc, i);
    arbor_gltf_clip_options clip_options = { .pointer = o.pointer };
    if (arbor_gltf_clip(f.doc, (uint32_t)index, &clip_options, &clip) ||
        arbor_player_create(clip, f.scene, rig, n, &player)) {
        cli_error("%s", cli_last_error());
        goto done;
    }
    if (o.has_time) {
        if (arbor_player_apply(player, o.time, o.loop ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP)) {
            cli_error("%s", cli_last_error());
            goto done;
        }
        arbor_scene_update(f.scene);
        status = cli_dump_scene(&f, "animate", o.scene);
    } else {
        status = play(&f, &o, index, clip, player);
    }
done:
    arbor_player_destroy(player);
    arbor_clip_destroy(clip);
    free(rig);
    cli_close(&f);
    return status;
}
