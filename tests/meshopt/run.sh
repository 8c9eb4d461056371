#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes the meshopt test data into OUT (tests/meshopt/make.mjs) with the npm meshoptimizer
# package pinned in tests/meshopt/package.json and its lock, installed into build/meshopt with
# npm ci (nothing global, nothing in the source tree).
#
#   tests/meshopt/run.sh OUT
#
# Exits 77 when node or npm is missing or the npm registry cannot be reached (test_meshopt then
# skips what needs the data, except in CI, where that is a failure).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:?usage: tests/meshopt/run.sh OUT}
prefix=$root/build/meshopt
command -v node >/dev/null 2>&1 || { echo "no node" >&2; exit 77; }
command -v npm >/dev/null 2>&1 || { echo "no npm" >&2; exit 77; }
mkdir -p "$prefix"
# one install at a time (several test builds may run at once)
exec 9>"$prefix/.lock"
flock 9
cp "$root/tests/meshopt/package.json" "$root/tests/meshopt/package-lock.json" "$prefix/"
if ! [ -f "$prefix/node_modules/meshoptimizer/package.json" ] ||
    ! cmp -s "$prefix/package-lock.json" "$prefix/node_modules/.package-lock.json.arbor"; then
    if ! (cd "$prefix" && npm ci --no-audit --no-fund --loglevel=error >&2); then
        timeout 30 npm ping >/dev/null 2>&1 || { echo "the npm registry cannot be reached" >&2; exit 77; }
        echo "error: npm ci failed in $prefix although the registry answers" >&2
        exit 1
    fi
    cp "$prefix/package-lock.json" "$prefix/node_modules/.package-lock.json.arbor"
fi
flock -u 9
cp "$root/tests/meshopt/make.mjs" "$root/tests/meshopt/inputs.mjs" "$prefix/"   # meshoptimizer resolves from $prefix
node "$prefix/make.mjs" "$out"
