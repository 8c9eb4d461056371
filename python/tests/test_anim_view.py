# SPDX-License-Identifier: MIT
"""Clips, players, skins, cameras and culling, against values computed here from the files' own
JSON and buffers (glTF's formulas in double precision) and against the CLI's `arbor animate`."""
import base64
import json
import math

import numpy as np
import pytest

import arbor
from conftest import axis_quat, need, quat_matrix, run_json, sample_files


def sample(name):
    files = [p for p in sample_files() if p.endswith(name)]
    need(files, f"{name} is absent from ../shared/gltf/samples")
    return files[0]


def accessor(doc, index):
    """A float accessor of a .gltf whose buffers are data: URIs, as a numpy array (count, width)."""
    a = doc["accessors"][index]
    view = doc["bufferViews"][a["bufferView"]]
    data = base64.b64decode(doc["buffers"][view["buffer"]]["uri"].split(",", 1)[1])
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4, "MAT4": 16}[a["type"]]
    start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
    assert a["componentType"] == 5126 and "byteStride" not in view
    return np.frombuffer(data, "<f4", a["count"] * width, start).reshape(a["count"], width).astype(np.float64)


def slerp(a, b, u):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    d = float(a @ b)
    if d < 0:
        b, d = -b, -d
    if d > 0.9995:
        q = a + u * (b - a)
    else:
        th = math.acos(d)
        q = (math.sin((1 - u) * th) * a + math.sin(u * th) * b) / math.sin(th)
    return q / np.linalg.norm(q)


def test_simple_skin_animation_and_joint_matrices():
    path = sample("SimpleSkin.gltf")
    doc = json.load(open(path))
    anim = doc["animations"][0]
    sampler = anim["samplers"][anim["channels"][0]["sampler"]]
    times = accessor(doc, sampler["input"])[:, 0]
    keys = accessor(doc, sampler["output"])
    target = anim["channels"][0]["target"]["node"]
    ibm = accessor(doc, doc["skins"][0]["inverseBindMatrices"]).reshape(-1, 4, 4).transpose(0, 2, 1)
    joints = doc["skins"][0]["joints"]
    mesh_node = next(i for i, n in enumerate(doc["nodes"]) if "skin" in n)

    with arbor.load(path) as scene:
        assert scene.animations == [None]
        clip = scene.clip(0)
        assert clip.duration == pytest.approx(times[-1]) and clip.channel_count == 1
        player = scene.player(clip)
        skins = scene.skins()
        assert len(skins) == 1 and skins.joint_count == len(joints) and skins.first_joint(0) == 0
        nodes = scene.file_nodes
        for t in (0.0, 0.75, 2.2, 4.0, 9.0):
            player.apply(t)
            scene.update()
            k = min(np.searchsorted(times, t, side="right") - 1, len(times) - 2)
            u = min(max((t - times[k]) / (times[k + 1] - times[k]), 0.0), 1.0)
            expected_q = slerp(keys[k], keys[k + 1], u)
            got_q = nodes[target].rotation
            assert abs(float(np.dot(got_q, expected_q))) == pytest.approx(1, abs=1e-6), t
            # J = inverse(W_mesh) @ W_joint @ IBM, composed here in double precision
            w_mesh = nodes[mesh_node].world_matrix.astype(np.float64)
            got = skins.joint_matrices()
            assert got.shape == (len(joints), 4, 4) and got.dtype == np.float32
            for j, joint in enumerate(joints):
                expected = np.linalg.inv(w_mesh) @ nodes[joint].world_matrix.astype(np.float64) @ ibm[j]
                np.testing.assert_allclose(got[j], expected, atol=1e-5)
            rows = skins.joint_matrices("mat3x4")
            np.testing.assert_array_equal(rows, got[:, :3, :])
            buffer = np.zeros(len(joints) * 16, np.float32)
            view = skins.joint_matrices(out=buffer)
            assert np.shares_memory(view, buffer)
            np.testing.assert_array_equal(view, got)


@pytest.mark.parametrize("name, animation, time", [("BoxAnimated.glb", "0", 1.3), ("Fox.glb", "Run", 0.41),
                                                   ("RiggedFigure.glb", "0", 0.9)])
def test_players_agree_with_the_cli(cli, name, animation, time):
    path = sample(name)
    reference = run_json(cli, "animate", path, "--animation", animation, "--time", str(time), "--json")
    with arbor.load(path) as scene:
        key = int(animation) if animation.isdigit() else animation
        scene.player(scene.clip(key)).apply(time)
        got = scene.world_matrices(scene.file_nodes)
        for node in reference["nodes"]:
            np.testing.assert_array_equal(got[node["index"]].T.ravel(), np.array(node["world"], dtype=arbor.real))


def test_clip_names_and_refusals():
    with arbor.load(sample("Fox.glb")) as scene:
        assert scene.animations == ["Survey", "Walk", "Run"]
        assert scene.clip("Walk").name == "Walk"
        with pytest.raises(arbor.InvalidArgumentError, match="no animation named 'Jump'"):
            scene.clip("Jump")
        with pytest.raises(arbor.InvalidArgumentError, match="out of range"):
            scene.clip(3)
        walk, run = scene.player(scene.clip("Walk")), scene.player(scene.clip("Run"))
        with pytest.raises(arbor.NonFiniteError):
            walk.apply(float("nan"))
        walk.blend(0.2, run, 0.3, 0.5, loop=True)
        arbor.apply_players([walk, run], [0.1, 0.2], loop=True)


def test_cameras_of_a_file():
    path = sample("Cameras.gltf")
    doc = json.load(open(path))
    with arbor.load(path) as scene:
        for i, node in enumerate(doc["nodes"]):
            if "camera" not in node:
                continue
            n = scene.file_nodes[i]
            spec = doc["cameras"][node["camera"]]
            cam = n.camera
            assert cam.type == spec["type"]
            np.testing.assert_allclose(n.view_matrix(), np.linalg.inv(n.world_matrix.astype(np.float64)), atol=1e-6)
            if spec["type"] == "perspective":
                p = spec["perspective"]
                f = 1 / math.tan(p["yfov"] / 2)
                a, zn, zf = 1.5, p["znear"], p["zfar"]
                expected = [[f / a, 0, 0, 0], [0, f, 0, 0], [0, 0, (zf + zn) / (zn - zf), 2 * zf * zn / (zn - zf)],
                            [0, 0, -1, 0]]
                np.testing.assert_allclose(n.projection_matrix(a), expected, rtol=1e-5)
            else:
                p = spec["orthographic"]
                zn, zf = p["znear"], p["zfar"]
                expected = [[1 / p["xmag"], 0, 0, 0], [0, 1 / p["ymag"], 0, 0],
                            [0, 0, 2 / (zn - zf), (zf + zn) / (zn - zf)], [0, 0, 0, 1]]
                np.testing.assert_allclose(n.projection_matrix(), expected, rtol=1e-5)
        assert scene.file_nodes[0].camera is None


def test_cull_matches_testing_every_box_here():
    with arbor.Scene() as scene:
        rng = np.random.default_rng(5)
        groups = []
        for g in range(30):
            root = scene.add(f"g{g}", translation=rng.uniform(-20, 20, 3), rotation=rng.normal(size=4))
            groups.append(root)
            for i in range(20):
                leaf = scene.add(f"g{g}/{i}", parent=root, translation=rng.uniform(-3, 3, 3),
                                 rotation=rng.normal(size=4), scale=rng.uniform(0.5, 2, 3))
                half = rng.uniform(0.1, 1, 3)
                leaf.bounds = (-half, half)
        eye = scene.add("eye")
        eye.camera = arbor.Camera.perspective(yfov=0.9, znear=0.5, zfar=30)
        eye.look_at((0, 5, 25), (0, 0, 0))
        visible, tests = scene.cull(eye, aspect=1.5, stats=True)
        # every box on its own: its world box (the axis-aligned box around its 8 corners in the
        # world) is outside when all 8 of its corners are outside one plane of the frustum, the
        # planes taken from P @ V (Gribb and Hartmann) in double precision
        vp = eye.projection_matrix(1.5).astype(np.float64) @ eye.view_matrix().astype(np.float64)
        planes = [vp[3] + vp[0], vp[3] - vp[0], vp[3] + vp[1], vp[3] - vp[1], vp[3] + vp[2], vp[3] - vp[2]]
        expected = []
        for node in scene:
            b = node.bounds
            if b is None:
                continue
            lo, hi = (x.astype(np.float64) for x in b)
            corners = np.array([[x, y, z, 1] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
            world = corners @ node.world_matrix.astype(np.float64).T
            wlo, whi = world.min(axis=0), world.max(axis=0)
            world = np.array([[x, y, z, 1] for x in (wlo[0], whi[0]) for y in (wlo[1], whi[1]) for z in (wlo[2], whi[2])])
            if not any(np.all(world @ p < 0) for p in planes):
                expected.append(node)
        assert 0 < len(expected) < 600
        assert list(visible) == expected
        assert tests <= 600
        eye.camera = None
        with pytest.raises(arbor.InvalidArgumentError):
            scene.cull(eye)
