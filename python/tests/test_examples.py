# SPDX-License-Identifier: MIT
"""The examples of examples/python run, and what they print agrees with the course's robot arm
(the hand at (-0.78, 1.47, 0.45), two decimals)."""
import os
import re
import subprocess
import sys

from conftest import ROOT

EXAMPLES = os.path.join(ROOT, "examples", "python")
HAND = (-0.78, 1.47, 0.45)


def run(script, *args):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def hand_at(line):
    return tuple(float(v) for v in re.search(r"at \(([^)]*)\)", line).group(1).split(","))


def near(a, b):
    return all(abs(x - y) <= 0.006 for x, y in zip(a, b))


def test_robot_arm():
    lines = run("robot_arm.py").splitlines()
    assert near(hand_at(next(l for l in lines if l.startswith("hand at"))), HAND)


def test_gltf_hierarchy():
    lines = run("gltf_hierarchy.py").splitlines()
    hand = next(l for l in lines if " hand " in l)
    assert hand.startswith("      #3 hand") and near(hand_at(hand), HAND)       # depth 3, file index 3
    assert near(hand_at(next(l for l in lines if " hand2 " in l)), (0.78, 1.47, -0.45))


def test_crowd():
    assert "50 characters, 700 animated joints" in run("crowd.py", "--characters", "50", "--frames", "5")
