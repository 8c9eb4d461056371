# SPDX-License-Identifier: MIT
# arbor 0.1 -> 1.0: the pure renames (docs/MIGRATING.md lists them, and the changes a sed
# cannot make). GNU sed:  sed -i -f docs/migrate-1.0.sed FILES
# Running it twice changes nothing more.
s/\barbor_clip_free\b/arbor_clip_destroy/g
s/\barbor_player_free\b/arbor_player_destroy/g
s/\barbor_skins_free\b/arbor_skins_destroy/g
s/\barbor_gltf_free\b/arbor_gltf_destroy/g
s/\barbor_camera_free\b/arbor_camera_fly/g
s/\barbor_scene_reset_stats\b/arbor_scene_stats_reset/g
s/\barbor_scene_stats\b\([[:space:]]*(\)/arbor_scene_stats_get\1/g
s/\barbor_stats\b/arbor_scene_stats/g
s/\barbor_gltf_default_scene\b/arbor_gltf_loaded_scene/g
s/\barbor_gltf_save_with\b/arbor_gltf_save/g
