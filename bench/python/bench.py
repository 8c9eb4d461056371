#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The `animate --bulk` frame of `arbor bench` through the Python package: the same workload
(WORKLOADS.md's skeletons, drawn from the same splitmix64 stream, computed here with numpy), the
same frame (one bulk rotation write of every node from a numpy array, then the update), the
same figure (median ns/node of the timed frames after 2 warm-up ones). With --pose, the frame of
`animate --pose` instead: the rotations written in place into a Pose of every node (one numpy
copy into its view), then its apply and the update.

    bench.py [--size K] [--frames N] [--pose]   prints one JSON line like `arbor bench --json`

The checksum (sum of |x| + |y| + |z| of every world translation after the build) is the one
`arbor bench` prints for the same workload: equal checksums, equal scenes.
"""
import argparse
import json
import time

import numpy as np

import arbor

SEED, GOLDEN = np.uint64(0x5EED), np.uint64(0x9E3779B97F4A7C15)
SKELETON_PARENT = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 5, 9, 10, 11, 12, 13, 14, 12, 16, 17, 12, 19, 20, 12, 22, 23, 12, 25,
                   26, 5, 28, 29, 30, 31, 32, 33, 31, 35, 36, 31, 38, 39, 31, 41, 42, 31, 44, 45, 0, 47, 48, 49, 50,
                   51, 0, 53, 54, 55, 56, 57]
WARMUP = 2


def draws(first, count):
    """Outputs first .. first + count - 1 of splitmix64 seeded 0x5EED (output k mixes
    seed + (k + 1) * golden), as doubles in [0, 1) with 24 random bits."""
    with np.errstate(over="ignore"):
        z = SEED + (np.arange(first + 1, first + count + 1, dtype=np.uint64) * GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(40)).astype(np.float64) * (1.0 / 16777216.0)


def quats(sym4):
    """(sym, sym, sym, sym) rows normalised in double, identity when shorter than 1e-6."""
    length = np.sqrt((sym4 * sym4).sum(axis=1))
    q = np.where(length[:, None] < 1e-6, [0, 0, 0, 1], sym4 / np.maximum(length, 1e-300)[:, None])
    return q.astype(arbor.real)


def workload(k):
    n = k * len(SKELETON_PARENT)
    u = draws(0, 8 * n).reshape(n, 8)               # per node: t (3 sym), q (4 sym), s (uniform)
    sym = 2.0 * u - 1.0
    t = sym[:, 0:3].astype(arbor.real)
    r = quats(sym[:, 3:7])
    s = (0.9 + 0.2 * u[:, 7]).astype(arbor.real)
    bone = np.arange(n) % len(SKELETON_PARENT)
    local = np.array(SKELETON_PARENT)[bone]
    parents = np.where(local < 0, -1, np.arange(n) - bone + local)
    rotation_sets = [quats(2.0 * draws(8 * n + 4 * n * j, 4 * n).reshape(n, 4) - 1.0) for j in range(4)]
    return n, parents, t, r, np.repeat(s[:, None], 3, axis=1), rotation_sets


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=16949, help="skeletons (59 nodes each)")
    parser.add_argument("--frames", type=int, default=31)
    parser.add_argument("--pose", action="store_true", help="write through a Pose instead of set_rotations")
    args = parser.parse_args()

    n, parents, t, r, s, rotation_sets = workload(args.size)
    with arbor.Scene(capacity=n) as scene:
        nodes = scene.add_many(parents, t, r, s)
        scene.update()
        checksum = float(np.abs(scene.world_matrices(nodes)[:, :3, 3].astype(np.float64)).sum())
        times = []
        pose = scene.pose(nodes) if args.pose else None
        if pose is not None:   # the rows follow pose.nodes: put the workload's arrays in that order once
            row = np.argsort(nodes.handles)[np.searchsorted(np.sort(nodes.handles), pose.nodes.handles)]
            rotation_sets = [q[row] for q in rotation_sets]
        for k in range(WARMUP + args.frames):
            q = rotation_sets[k % 4]
            t0 = time.perf_counter()
            if pose is None:
                scene.set_rotations(nodes, q)  # a NodeList and a C-contiguous arbor.real array: no copy
            else:
                pose.rotations[:] = q          # into arbor's own memory
                pose.apply()
            scene.update()
            times.append(time.perf_counter() - t0)
    timed = sorted(times[WARMUP:])
    # What the Python layer adds to a frame, whatever the node count: the same two calls on a
    # one-node scene (argument checks, cffi, and arbor's own cost for one node).
    with arbor.Scene() as tiny:
        one = tiny.add_many([-1])
        q1 = rotation_sets[0][:1].copy()
        tiny_pose = tiny.pose(one) if args.pose else None
        calls = []
        for _ in range(2000):
            t0 = time.perf_counter()
            if tiny_pose is None:
                tiny.set_rotations(one, q1)
            else:
                tiny_pose.rotations[:] = q1
                tiny_pose.apply()
            tiny.update()
            calls.append(time.perf_counter() - t0)
    print(json.dumps({"peer": f"arbor-python {arbor.version} {arbor.real.name}", "shape": "skeletons",
                      "metric": "animate", "variant": "pose" if args.pose else "bulk", "value": 1e9 * float(np.median(timed)) / n,
                      "min": 1e9 * timed[0] / n, "unit": "ns/node", "frames": args.frames, "nodes": n,
                      "checksum": float(f"{checksum:.9g}"), "one_node_frame_us": 1e6 * float(np.median(calls))}))


if __name__ == "__main__":
    main()
