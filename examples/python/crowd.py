#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A crowd animated with numpy: every joint of every character gets its rotation from one
vectorised expression per frame, written with one call, updated with one call, and read back
as one (N, 4, 4) array. No Python loop runs over the nodes while it plays.

    examples/python/crowd.py [--characters 1000] [--frames 120]

Each character is a root on a grid with a spine of 6 joints and two arms of 4; every joint
swings about +Z with its own phase. Prints the time per frame and checks one hand against the
same chain composed in numpy.
"""
import argparse
import sys
import time

import numpy as np

import arbor

SPINE, ARM = 6, 4


def build(scene, characters):
    """Creates the crowd; returns the joints (a NodeList) and the hands."""
    side = int(np.ceil(np.sqrt(characters)))
    hands = []
    for c in range(characters):
        root = scene.add(f"c{c}", translation=(2.0 * (c % side), 0, 2.0 * (c // side)))
        top = root
        for j in range(SPINE):
            top = scene.add(f"spine{j}", parent=top, translation=(0, 0.25, 0))
        for side_x in (-0.3, 0.3):
            limb = top
            for j in range(ARM):
                limb = scene.add(f"arm{j}", parent=limb, translation=(side_x if j == 0 else 0, -0.3 if j else 0, 0))
            hands.append(limb)
    joints = arbor.NodeList(scene, [n.handle for n in scene if n.parent is not None])
    return joints, hands


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--characters", type=int, default=1000)
    parser.add_argument("--frames", type=int, default=120)
    args = parser.parse_args(argv)

    with arbor.Scene() as scene:
        joints, hands = build(scene, args.characters)
        n = len(joints)
        phase = np.linspace(0, 2 * np.pi, n, dtype=np.float64)   # each joint its own phase
        q = np.zeros((n, 4), dtype=arbor.real)                   # (x, y, z, w), reused every frame
        times = []
        for frame in range(args.frames):
            t0 = time.perf_counter()
            half = 0.25 * np.sin(frame / 30.0 * 2 * np.pi + phase)   # half the angle about +Z
            q[:, 2] = np.sin(half)
            q[:, 3] = np.cos(half)
            scene.set_rotations(joints, q)        # one call, no copy: a NodeList and arbor.real
            scene.update()                         # one batch
            worlds = scene.world_matrices(joints)  # (n, 4, 4)
            times.append(time.perf_counter() - t0)
        ms = 1e3 * np.median(times)
        print(f"{args.characters} characters, {n} animated joints: {ms:.3f} ms per frame "
              f"(rotations from numpy, write, update, read back; median of {args.frames} frames)")
        print(f"first hand at {np.round(hands[0].world_position, 4)}, the crowd spans "
              f"{np.round(worlds[:, :3, 3].min(axis=0), 2)} .. {np.round(worlds[:, :3, 3].max(axis=0), 2)}")

        # the first hand against its chain composed here, in double precision
        chain, node = [], hands[0]
        while node is not None:
            chain.append(node)
            node = node.parent
        m = np.eye(4)
        for node in reversed(chain):
            m = m @ node.matrix.astype(np.float64)
        if not np.allclose(m, hands[0].world_matrix, atol=1e-4):
            print("crowd.py: the first hand does not match its chain composed in numpy", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
