# SPDX-License-Identifier: MIT
"""Robots from URDF files: every shared robot's links at random configurations equal KDL's
(the C oracle tests/urdf_kdl/oracle.cpp, urdfdom and kdl_parser, run as a program), through the
scene and through batched forward kinematics; batches equal one configuration at a time bit for
bit; limits, mimic joints and refusals."""
import os
import subprocess

import numpy as np
import pytest

import arbor
from conftest import IN_CI, ROOT, SHARED, need

URDF = os.path.join(SHARED, "urdf")
TOL = 1e-10 if arbor.real == np.float64 else 1e-5


def robots():
    found = []
    if os.path.isdir(URDF):
        for folder in sorted(os.listdir(URDF)):
            d = os.path.join(URDF, folder)
            if os.path.isdir(d):
                found += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".urdf")]
    return found


@pytest.fixture(scope="session")
def oracle():
    """The urdfdom + KDL oracle: ARBOR_URDF_KDL, else build/float/tests/urdf_kdl."""
    path = os.environ.get("ARBOR_URDF_KDL") or os.path.join(ROOT, "build", "float", "tests", "urdf_kdl")
    need(os.access(path, os.X_OK), f"the URDF oracle {path} was not found (set ARBOR_URDF_KDL)")
    return path


def test_the_robots_are_there():
    need(robots(), f"{URDF} is absent (../shared beside the checkout)")
    assert len(robots()) >= 30 or not IN_CI


def random_configs(robot, rng, count):
    """count rows within limits (continuous joints in [-pi, pi])."""
    q = np.empty((count, robot.dof))
    for j in robot.joints:
        if j.position_index is None:
            continue
        assert j.position_count == 1
        lo, hi = (j.lower, j.upper) if j.lower is not None else (-np.pi, np.pi)
        q[:, j.position_index] = rng.uniform(lo, hi, count)
    return q


def kdl_poses(oracle, path, robot, q, tmp_path):
    """The oracle's poses, (B, links, 4, 4) in robot.links order, [row, column]."""
    configs, out = tmp_path / "configs.txt", tmp_path / "kdl.txt"
    configs.write_text("".join(" ".join(f"{n}={v!r}" for n, v in zip(robot.position_names, row)) + "\n" for row in q))
    subprocess.run([oracle, "fk", path, str(configs), str(out)], check=True, capture_output=True)
    poses = np.full((len(q), len(robot.links), 4, 4), np.nan)
    index = {n: i for i, n in enumerate(robot.links)}
    c = -1
    for line in out.read_text().splitlines():
        words = line.split()
        if words[0] == "config":
            c = int(words[1])
        else:
            poses[c, index[words[0]]] = np.array(words[1:], float).reshape(4, 4).T
    assert not np.isnan(poses).any()
    return poses


@pytest.mark.parametrize("path", robots() or ["(none)"], ids=lambda p: os.path.basename(p))
def test_fk_equals_kdl(path, oracle, tmp_path):
    need(os.path.exists(path), f"{URDF} is absent (../shared beside the checkout)")
    robot = arbor.load_urdf(path)
    rng = np.random.default_rng(27)
    q = random_configs(robot, rng, 20)
    expected = kdl_poses(oracle, path, robot, q, tmp_path)
    batch = robot.forward_kinematics(q)
    assert batch.shape == (20, len(robot.links), 4, 4)
    assert np.abs(batch - expected).max() <= TOL
    for b in range(len(q)):
        assert np.array_equal(robot.forward_kinematics(q[b]), batch[b])  # bit for bit
    threaded = robot.forward_kinematics(q, threads=3)  # on a pool: the same bits, KDL's poses
    assert np.array_equal(threaded, batch)
    assert np.abs(threaded - expected).max() <= TOL
    robot.set_positions(q[7])
    nodes = [robot.link(n) for n in robot.links]
    scene = robot.scene.world_matrices(nodes)
    assert np.abs(scene - expected[7]).max() <= TOL
    robot.set_positions(dict(zip(robot.position_names, q[3])))
    assert np.array_equal(robot.positions, q[3])


def test_threads_share_out_big_batches():
    """A batch of 1000 on pools of 2, 4 threads and one a core: the single thread's bits; the
    pool is kept between calls and made again for another count; bad counts refused."""
    path = next((p for p in robots() if p.endswith("talos_full_v2_box.urdf")), None)
    need(path, f"{URDF} is absent (../shared beside the checkout)")
    robot = arbor.load_urdf(path)
    q = random_configs(robot, np.random.default_rng(5), 1000)
    single = robot.forward_kinematics(q)
    for threads in (2, 2, 4, 0, 1, None):
        assert np.array_equal(robot.forward_kinematics(q, threads=threads), single)
    with pytest.raises(arbor.InvalidArgumentError, match="threads = -1 is negative"):
        robot.forward_kinematics(q, threads=-1)
    with pytest.raises(TypeError):
        robot.forward_kinematics(q, threads=1.5)
    robot.close()
    with pytest.raises(arbor.ClosedError):
        robot.forward_kinematics(q, threads=2)


def test_limits_mimic_and_refusals():
    path = os.path.join(URDF, "panda_description", "panda.urdf")
    need(os.path.exists(path), f"{path} is absent (../shared beside the checkout)")
    robot = arbor.load_urdf(path)
    assert robot.dof == 8 and len(robot.links) == 13
    assert "panda_finger_joint2" not in robot.position_names
    finger2 = next(j for j in robot.joints if j.name == "panda_finger_joint2")
    assert finger2.mimic == "panda_finger_joint1" and finger2.position_index is None
    joint4 = next(j for j in robot.joints if j.name == "panda_joint4")
    assert robot.positions[joint4.position_index] == joint4.upper  # 0 is outside: the nearest limit
    before = robot.scene.world_matrices()
    with pytest.raises(arbor.InvalidArgumentError, match=r"joint 'panda_joint1' \(position 0\): 3 is outside its limits"):
        robot.set_positions({"panda_joint1": 3.0})
    with pytest.raises(arbor.InvalidArgumentError, match="mimic of 'panda_finger_joint1'"):
        robot.set_positions({"panda_finger_joint2": 0.01})
    q = robot.positions
    q[2] = np.nan
    with pytest.raises(arbor.NonFiniteError):
        robot.set_positions(q)
    with pytest.raises(arbor.NonFiniteError, match="row 1: joint 'panda_joint3'"):
        robot.forward_kinematics(np.array([robot.positions, q]))
    assert np.array_equal(robot.scene.world_matrices(), before)
    clamped = arbor.load_urdf(path, clamp=True)
    clamped.set_positions({"panda_joint1": 3.0})
    assert clamped.positions[0] == 2.8973
    with pytest.raises(KeyError):
        robot.link("no_such_link")


def test_bad_file_names_the_line(tmp_path):
    f = tmp_path / "two_roots.urdf"
    f.write_text('<robot name="r">\n<link name="a"/>\n<link name="b"/>\n</robot>\n')
    with pytest.raises(arbor.ParseError, match="line 3: two root links"):
        arbor.load_urdf(f)


def test_record_positions_then_lookup(tmp_path):
    """A shoulder turning about z with a tip 1 out along its x: recorded at 0 and 2 s, the tip at
    1 s is at Rz(0.5) (1, 0, 0) (the shorter arc's middle, by hand), for one time and an array."""
    path = tmp_path / "arm.urdf"
    path.write_text('<robot name="arm"><link name="base"/><link name="arm"/><link name="tip"/>'
                    '<joint name="shoulder" type="continuous"><parent link="base"/><child link="arm"/>'
                    '<axis xyz="0 0 1"/></joint>'
                    '<joint name="end" type="fixed"><parent link="arm"/><child link="tip"/>'
                    '<origin xyz="1 0 0"/></joint></robot>')
    robot = arbor.load_urdf(str(path))
    robot.record_positions(0.0, [0.0])
    robot.record_positions(2.0, {"shoulder": 1.0})
    tip = robot.link("tip")
    m = robot.scene.lookup(None, tip, 1.0)
    assert np.allclose(m[:3, 3], [np.cos(0.5), np.sin(0.5), 0], atol=TOL)
    many = robot.scene.lookup(None, tip, np.array([0.0, 1.0, 2.0]))
    assert many.shape == (3, 4, 4)
    assert np.allclose(many[:, 0, 3], np.cos([0.0, 0.5, 1.0]), atol=TOL)
    assert robot.positions[0] == 1.0  # the latest record is the present
    robot.record_positions(1.5, [0.2])  # late: history only
    assert robot.positions[0] == 1.0
    with pytest.raises(TypeError):
        robot.record_positions("1", [0.0])
    with pytest.raises(arbor.ExtrapolationError):
        robot.scene.lookup(None, tip, 3.0)
