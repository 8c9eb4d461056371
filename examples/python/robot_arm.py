#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Forward kinematics of the scene-graph course's robot arm with the arbor package.

    base  (root)   translation (0, 0.2, 0), yaw about +Y
    joint (base)   translation (0, 0.2, 0), bend about +Z
    arm   (joint)  translation (0, 0.7, 0)
    hand  (arm)    translation (0, 0.7, 0)

Prints the hand's world matrix at the default pose (yaw 30, bend 40 degrees), then where the
hand goes as the bend sweeps, and exits 0 only when the hand is at (-0.78, 1.47, 0.45) within
0.01 as the course prints it.
"""
import math
import sys

import numpy as np

import arbor


def about(axis, degrees):
    """A quaternion (x, y, z, w) turning by degrees about a unit axis."""
    h = math.radians(degrees) / 2
    return [a * math.sin(h) for a in axis] + [math.cos(h)]


def main():
    with arbor.Scene() as scene:
        base = scene.add("base", translation=(0, 0.2, 0), rotation=about((0, 1, 0), 30))
        joint = scene.add("joint", parent=base, translation=(0, 0.2, 0), rotation=about((0, 0, 1), 40))
        arm = scene.add("arm", parent=joint, translation=(0, 0.7, 0))
        hand = scene.add("hand", parent=arm, translation=(0, 0.7, 0))

        np.set_printoptions(precision=4, suppress=True)
        print(f"arbor {arbor.version} ({arbor.real.name}): the hand's world matrix at yaw 30, bend 40")
        print(hand.world_matrix)
        x, y, z = hand.world_position
        print(f"hand at ({x:.4f}, {y:.4f}, {z:.4f})")
        ok = np.allclose(hand.world_position, (-0.78, 1.47, 0.45), atol=0.01)

        print("\nbend sweep (the joint stays put, the hand rides the arm's tip):")
        for bend in range(0, 121, 20):
            joint.rotation = about((0, 0, 1), bend)
            scene.update()
            x, y, z = hand.world_position
            print(f"  bend {bend:3d}: hand at ({x:7.4f}, {y:7.4f}, {z:7.4f})")

        joint.rotation = about((0, 0, 1), 40)
        base.rotation = about((0, 1, 0), 90)
        x, y, z = hand.world_position
        print(f"\nyaw 90, bend 40: hand at ({x:.4f}, {y:.4f}, {z:.4f})")

    if not ok:
        print("robot_arm.py: expected the hand at (-0.78, 1.47, 0.45) within 0.01", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
