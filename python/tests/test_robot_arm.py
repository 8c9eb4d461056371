# SPDX-License-Identifier: MIT
"""The scene-graph chapter's robot arm (seed 002): its worked numbers, printed there to two or
three decimals, and the same chains against double-precision products computed here."""
import numpy as np
import pytest

import arbor
from conftest import axis_quat, trs_matrix

TWO_DECIMALS = 0.0051    # the chapter prints two decimals
THREE_DECIMALS = 0.00051


def build_arm(scene, yaw=30.0, bend=40.0, mirrored=False):
    """base (yaw about +Y), joint (bend about +Z), arm, hand, as the chapter's glTF nodes."""
    base = scene.add("base", translation=(0, 0.2, 0), rotation=axis_quat((0, 1, 0), yaw))
    joint = scene.add("joint", parent=base, translation=(0, 0.2, 0), rotation=axis_quat((0, 0, 1), bend))
    arm = scene.add("arm", parent=joint, translation=(0, 0.7, 0))
    hand = scene.add("hand", parent=arm, translation=(0, 0.7, 0))
    nodes = {"base": base, "joint": joint, "arm": arm, "hand": hand}
    if mirrored:  # L_arm2 = S(-1, 1, 1) L_arm: the mirror sits in the base's frame
        mirror = scene.add("mirror", parent=base, scale=(-1, 1, 1))
        joint2 = scene.add("joint2", parent=mirror, translation=(0, 0.2, 0), rotation=axis_quat((0, 0, 1), bend))
        nodes["arm2"] = scene.add("arm2", parent=joint2, translation=(0, 0.7, 0))
        nodes["hand2"] = scene.add("hand2", parent=nodes["arm2"], translation=(0, 0.7, 0))
    return nodes


def test_default_pose_hand_matrix():
    with arbor.Scene() as scene:
        n = build_arm(scene)
        w = n["hand"].world_matrix
        expected = np.array([[0.66, -0.56, 0.50, -0.78],
                             [0.64, 0.77, 0.00, 1.47],
                             [-0.38, 0.32, 0.87, 0.45],
                             [0, 0, 0, 1]])
        np.testing.assert_allclose(w, expected, atol=TWO_DECIMALS)
        np.testing.assert_allclose(n["hand"].world_position, (-0.78, 1.47, 0.45), atol=TWO_DECIMALS)
        np.testing.assert_allclose(n["arm"].world_position, (-0.39, 0.94, 0.22), atol=TWO_DECIMALS)
        np.testing.assert_allclose(n["base"].world_position, (0, 0.2, 0), atol=1e-7)
        # the column-vector convention: W @ (x, y, z, 1) maps a local point into the world
        np.testing.assert_allclose(w @ [0, 0, 0, 1], [-0.78, 1.47, 0.45, 1], atol=TWO_DECIMALS)


def test_yaw_90_swings_the_hand_a_quarter_turn():
    with arbor.Scene() as scene:
        n = build_arm(scene)
        n["base"].rotation = axis_quat((0, 1, 0), 90)
        np.testing.assert_allclose(n["hand"].world_position, (0.00, 1.47, 0.90), atol=TWO_DECIMALS)
        # and back: only the hand's own yaw changes nothing of its position
        n["base"].rotation = axis_quat((0, 1, 0), 30)
        before = n["hand"].world_position
        n["hand"].rotation = axis_quat((0, 1, 0), 70)
        np.testing.assert_array_equal(n["hand"].world_position, before)


@pytest.mark.parametrize("bend, expected_xy", [(0, (0, 1.8)), (120, (-1.21, -0.30))])
def test_bends_with_the_base_unyawed(bend, expected_xy):
    with arbor.Scene() as scene:
        n = build_arm(scene, yaw=0, bend=bend)
        np.testing.assert_allclose(n["hand"].world_position[:2], expected_xy, atol=TWO_DECIMALS)


def test_the_hand_from_three_frames():
    with arbor.Scene() as scene:
        n = build_arm(scene)
        hand_world = np.append(n["hand"].world_position, 1)
        np.testing.assert_allclose(hand_world[:3], (-0.779, 1.472, 0.450), atol=THREE_DECIMALS)
        in_base = np.linalg.inv(n["base"].world_matrix.astype(np.float64)) @ hand_world
        np.testing.assert_allclose(in_base[:3], (-0.900, 1.272, 0), atol=THREE_DECIMALS)
        in_arm = n["arm"].view_matrix() @ hand_world          # V = W^-1, any node as the eye
        np.testing.assert_allclose(in_arm[:3], (0, 0.7, 0), atol=1e-5)
        point_in_hand = n["hand"].view_matrix() @ [0, 1, 0, 1]
        np.testing.assert_allclose(point_in_hand[:3], (0.386, -0.940, 0), atol=THREE_DECIMALS)


def test_a_camera_on_the_hand():
    with arbor.Scene() as scene:
        n = build_arm(scene)
        cam = scene.add("cam", parent=n["hand"], translation=(0, 0.3, 0))
        np.testing.assert_allclose(cam.world_position, (-0.946, 1.702, 0.546), atol=THREE_DECIMALS)
        expected = np.array([[0.66, 0.64, -0.38, -0.26],
                             [-0.56, 0.77, 0.32, -2.01],
                             [0.50, 0.00, 0.87, 0.00],
                             [0, 0, 0, 1]])
        v = cam.view_matrix()
        np.testing.assert_allclose(v, expected, atol=TWO_DECIMALS)
        np.testing.assert_allclose(v @ np.append(cam.world_position, 1), [0, 0, 0, 1], atol=1e-5)


def test_the_mirrored_second_arm():
    with arbor.Scene() as scene:
        n = build_arm(scene, mirrored=True)
        np.testing.assert_allclose(n["arm2"].world_position, (0.39, 0.94, -0.22), atol=TWO_DECIMALS)
        np.testing.assert_allclose(n["hand2"].world_position, (0.78, 1.47, -0.45), atol=TWO_DECIMALS)
        assert np.linalg.det(n["arm2"].world_matrix.astype(np.float64)) == pytest.approx(-1, abs=1e-5)


def test_two_node_chain():
    with arbor.Scene() as scene:
        base = scene.add("base", rotation=axis_quat((0, 1, 0), 90))
        arm = scene.add("arm", parent=base, translation=(1, 0, 0))
        expected = np.array([[0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, -1], [0, 0, 0, 1]])
        np.testing.assert_allclose(arm.world_matrix, expected, atol=1e-6)
        np.testing.assert_allclose(arm.world_matrix @ [1, 0, 0, 1], [0, 0, -2, 1], atol=1e-6)
        np.testing.assert_allclose(arm.view_matrix() @ [0, 0, -1, 1], [0, 0, 0, 1], atol=1e-6)


@pytest.mark.parametrize("locals_, expected", [
    ([dict(translation=(0, 1, 0)), dict(rotation=axis_quat((0, 0, 1), 90)), dict(translation=(2, 0, 0))], (0, 3, 0)),
    ([dict(rotation=axis_quat((0, 0, 1), 90)), dict(translation=(0, 1, 0)), dict(translation=(2, 0, 0))], (-1, 2, 0)),
])
def test_exercises_one_and_two(locals_, expected):
    with arbor.Scene() as scene:
        parent = None
        for kw in locals_:
            parent = scene.add(parent=parent, **kw)
        np.testing.assert_allclose(parent.world_position, expected, atol=1e-6)


def test_random_chains_against_double_precision_products():
    rng = np.random.default_rng(7)
    with arbor.Scene() as scene:
        reference, nodes, parents = [], [], []
        for i in range(200):
            parent = int(rng.integers(-1, i)) if i else -1
            t = rng.uniform(-1, 1, 3)
            r = rng.normal(size=4)
            s = rng.uniform(0.5, 1.5, 3)
            nodes.append(scene.add(f"n{i}", parent=nodes[parent] if parent >= 0 else None, translation=t, rotation=r, scale=s))
            # the reference composes what arbor stores (float TRS), in double precision
            local = trs_matrix(nodes[-1].translation, nodes[-1].rotation, nodes[-1].scale)
            reference.append(reference[parent] @ local if parent >= 0 else local)
            parents.append(parent)
        scene.update()
        got = scene.world_matrices(nodes)
        for i in range(200):
            np.testing.assert_allclose(got[i], reference[i], atol=2e-4, err_msg=f"node {i}")
