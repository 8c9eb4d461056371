/* SPDX-License-Identifier: MIT */
/* Posing a loaded file with one of its animations at a time (animate, render). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int32_t cli_pick_animation(const cli_file *f, const char *cmd, const char *wanted) {
    arbor_gltf_counts counts;
    arbor_gltf_counts_get(f->doc, &counts);
    if (counts.animations == 0) {
        cli_error("%s has no animations", f->path);
        return -1;
    }
    if (!wanted) return 0;
    int32_t found = arbor_gltf_animation_find(f->doc, wanted);
    if (found >= 0) return found;
    char *end;
    unsigned long index = strtoul(wanted, &end, 10);
    if (end != wanted && !*end && wanted[0] != '-' && index < counts.animations) return (int32_t)index;
    cli_error("%s has no animation named or numbered '%s'; its animations:", f->path, wanted);
    for (uint32_t i = 0; i < counts.animations; i++) {
        const char *name = arbor_gltf_animation_name(f->doc, i);
        fprintf(stderr, "  %u%s%s%s\n", i, name ? " \"" : "", name ? name : "", name ? "\"" : "");
    }
    cli_usage_error("%s: --animation takes an animation's name or index", cmd);
    return -2;
}

int cli_pose(cli_file *f, const char *cmd, const char *animation, double time) {
    int32_t index = cli_pick_animation(f, cmd, animation);
    if (index < 0) return index == -2 ? 2 : 1;
    uint32_t n = arbor_gltf_node_count(f->doc);
    arbor_node *rig = malloc(((size_t)n + 1) * sizeof *rig);
    arbor_clip *clip = NULL;
    arbor_player *player = NULL;
    int status = 1;
    if (!rig) {
        cli_error("out of memory");
        return 1;
    }
    for (uint32_t i = 0; i < n; i++) rig[i] = arbor_gltf_node(f->doc, i);
    if (arbor_gltf_clip(f->doc, (uint32_t)index, NULL, &clip) || arbor_player_create(clip, f->scene, rig, n, &player) ||
        arbor_player_apply(player, time, ARBOR_WRAP_CLAMP)) {
        cli_error("%s", cli_last_error());
    } else {
        arbor_scene_update(f->scene);
        status = 0;
    }
    arbor_player_destroy(player);
    arbor_clip_destroy(clip);
    free(rig);
    return status;
}
