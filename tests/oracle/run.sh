#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Khronos glTF validator over what arbor writes: every sample of ../shared/gltf/samples and
# every file of ../shared/gltf/extensions that arbor loads, saved through `arbor convert` as .gltf
# and as .glb; the files tests/test_gltf_ext wrote with edits (instances, visibility, levels of
# detail; run here when built beside ARBOR_CLI); the meshopt files tests/meshopt/run.sh makes
# (when npm can install it); every robot of ../shared/urdf converted; and examples/robot_arm.gltf.
#
#   tests/oracle/run.sh              (ARBOR_CLI: the arbor command; default build/float/arbor,
#                                     built there when missing)
#
# Installs the pinned gltf-validator (tests/oracle/package.json and its lock) into build/oracle
# with npm; nothing is installed globally. Exits 0 when every file has no error of arbor's
# making, 1 otherwise; 0 with "skipped: npm unavailable" only when node or npm is missing or the
# npm registry cannot be reached.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
oracle=tests/oracle
prefix=build/oracle
samples=${ARBOR_SHARED_DIR:-$root/../shared}/gltf/samples
extensions=${ARBOR_SHARED_DIR:-$root/../shared}/gltf/extensions

# A skip is said, and noted in $ARBOR_SKIP_LOG (scripts/test counts it in its summary).
note_skip() {
    echo "skipped: $1"
    [ -z "${ARBOR_SKIP_LOG:-}" ] || echo "oracle: $1" >>"$ARBOR_SKIP_LOG"
}
skip() {
    note_skip "npm unavailable ($1)"
    exit 0
}

command -v node >/dev/null 2>&1 || skip "no node"
command -v npm >/dev/null 2>&1 || skip "no npm"

# ---- the validator, into build/oracle ----------------------------------------------------------
mkdir -p "$prefix"
cp "$oracle/package.json" "$oracle/package-lock.json" "$prefix/"
if ! [ -f "$prefix/node_modules/gltf-validator/package.json" ] ||
    ! cmp -s "$oracle/package-lock.json" "$prefix/node_modules/.package-lock.json.arbor"; then
    if ! (cd "$prefix" && npm ci --no-audit --no-fund --loglevel=error); then
        if ! timeout 30 npm ping >/dev/null 2>&1; then
            skip "the npm registry cannot be reached"
        fi
        echo "error: npm ci failed in $prefix although the registry answers" >&2
        exit 1
    fi
    cp "$oracle/package-lock.json" "$prefix/node_modules/.package-lock.json.arbor"
fi
export ARBOR_ORACLE_PREFIX="$root/$prefix"

# ---- the arbor command ---------------------------------------------------------------------------
cli=${ARBOR_CLI:-build/float/arbor}
if ! [ -x "$cli" ]; then
    cmake -S . -B build/float -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build build/float --target arbor_cli -j "$(nproc)" >/dev/null
fi

# ---- write and validate ----------------------------------------------------------------------------
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
node "$oracle/validate.mjs" examples/robot_arm.gltf || status=1
if ! [ -d "$samples" ]; then
    if [ "${CI:-}" = true ]; then
        echo "error: $samples is absent: CI needs ../shared" >&2
        exit 1
    fi
    note_skip "../shared is absent: only the example was validated, no sample"
    exit "$status"
fi
# convert_and_validate NAME SOURCE: SOURCE through arbor convert as .gltf and .glb, validated
convert_and_validate() {
    local name=$1 src=$2
    mkdir -p "$out/$name"
    if ! "$cli" convert "$src" "$out/$name/$name.gltf" || ! "$cli" convert "$src" "$out/$name/$name.glb"; then
        echo "$name: arbor convert failed"
        status=1
        return
    fi
    node "$oracle/validate.mjs" --against "$src" "$out/$name/$name.gltf" "$out/$name/$name.glb" || status=1
}
for dir in "$samples"/*/; do
    name=$(basename "$dir")
    src=$(find "$dir" -maxdepth 1 \( -name '*.gltf' -o -name '*.glb' \) | sort | head -n 1)
    [ -n "$src" ] || continue
    convert_and_validate "$name" "$src"
done
# The extension corpus: each file arbor loads (the meshopt ones need EXT_meshopt_compression
# the JSON-only CubeWithLOD has no data: arbor refuses it, and says so).
for src in "$extensions"/*/*.gltf "$extensions"/*/*.glb; do
    [ -f "$src" ] || continue
    name=$(basename "$(dirname "$src")")_$(basename "$src" | tr . _)
    mkdir -p "$out/ext/$name"
    if ! "$cli" convert "$src" "$out/ext/$name/$name.gltf" 2>"$out/ext/$name/err.txt"; then
        echo "$name: not loaded by arbor: $(head -c 300 "$out/ext/$name/err.txt")"
        continue
    fi
    "$cli" convert "$src" "$out/ext/$name/$name.glb" || status=1
    node "$oracle/validate.mjs" --against "$src" "$out/ext/$name/$name.gltf" "$out/ext/$name/$name.glb" || status=1
done
# The shared robots (../shared/urdf) through `arbor convert ROBOT.urdf`, as .gltf and .glb: links as
# nodes, boxes, cylinders and spheres as meshes, joints in the nodes' extras.
urdfs=${ARBOR_SHARED_DIR:-$root/../shared}/urdf
robots=0
for src in "$urdfs"/*/*.urdf; do
    [ -f "$src" ] || continue
    name=urdf_$(basename "$src" .urdf)
    mkdir -p "$out/urdf/$name"
    if ! "$cli" convert "$src" "$out/urdf/$name/$name.gltf" || ! "$cli" convert "$src" "$out/urdf/$name/$name.glb"; then
        echo "$name: arbor convert failed"
        status=1
        continue
    fi
    node "$oracle/validate.mjs" "$out/urdf/$name/$name.gltf" "$out/urdf/$name/$name.glb" || status=1
    robots=$((robots + 1))
done
if [ "$robots" -eq 0 ]; then
    echo "no robot in $urdfs: no converted URDF was validated"
    [ "${CI:-}" = true ] && status=1
fi
# Edited files, from tests/test_gltf_ext (built beside the arbor command), each against its source.
ext_test=$(cd "$(dirname "$cli")" && pwd)/tests/test_gltf_ext
if [ -x "$ext_test" ] && [ -d "$extensions" ]; then
    sources=$(dirname "$ext_test")/output/gltf_ext/sources.txt
    (cd "$(dirname "$ext_test")/output" && "$ext_test" >/dev/null) || { echo "test_gltf_ext failed"; status=1; }
    while IFS=$'\t' read -r written source; do
        node "$oracle/validate.mjs" --against "$source" "$written" || status=1
    done <"$sources"
else
    echo "no $ext_test: the edited files were not validated"
    [ "${CI:-}" = true ] && status=1
fi
# make.mjs's meshopt files (version 1 streams, every filter, fallback buffers)
rc=0
tests/meshopt/run.sh "$out/meshopt-made" >/dev/null || rc=$?
if [ "$rc" -eq 0 ]; then
    convert_and_validate meshopt_made_khr "$out/meshopt-made/khr.gltf"
    convert_and_validate meshopt_made_ext "$out/meshopt-made/ext.gltf"
elif [ "$rc" -eq 77 ]; then
    echo "tests/meshopt/run.sh: npm unavailable, its files were not validated"
else
    echo "tests/meshopt/run.sh failed"
    status=1
fi
if [ "$status" -eq 0 ]; then
    echo "oracle: every file arbor wrote passes the Khronos validator"
else
    echo "oracle: some files arbor wrote have validator errors (above)"
fi
exit "$status"
