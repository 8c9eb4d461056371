# SPDX-License-Identifier: MIT
"""A wrong type raises TypeError at every public entry point, as numpy and the standard library
do (a str is not a number, a float or a bool is not an index, a handle number is not a Node),
with nothing changed; numpy's integer and float scalars are taken wherever Python's are."""
import numpy as np
import pytest

import arbor
from conftest import sample_files, trs_matrix


def fox():
    files = [p for p in sample_files() if p.endswith("Fox.glb")]
    if not files:
        pytest.skip("Fox.glb is absent from ../shared/gltf/samples")
    return files[0]


def wrong_calls(scene, node, other, player, skins, pose):
    """(what, call) for a call with one argument of a wrong type."""
    return [
        ("scene.clip(1.5)", lambda: scene.clip(1.5)),
        ("scene.clip(True)", lambda: scene.clip(True)),
        ("scene.clip(None)", lambda: scene.clip(None)),
        ("player.apply('1.0')", lambda: player.apply("1.0")),
        ("player.apply(None)", lambda: player.apply(None)),
        ("player.apply(True)", lambda: player.apply(True)),
        ("player.apply(loop='no')", lambda: player.apply(0.5, loop="no")),
        ("player.blend(other_time='1')", lambda: player.blend(0.1, player, "1", 0.5)),
        ("player.blend(weight=[0.5])", lambda: player.blend(0.1, player, 0.2, [0.5])),
        ("player.blend(other=node)", lambda: player.blend(0.1, node, 0.2, 0.5)),
        ("player.add('0.1', 1)", lambda: player.add("0.1", 1.0)),
        ("player.weights(1.0)", lambda: player.weights(1.0)),
        ("apply_players(times=['1'])", lambda: arbor.apply_players([player], ["1"])),
        ("apply_players([node])", lambda: arbor.apply_players([node], [1.0])),
        ("scene.player('Walk')", lambda: scene.player("Walk")),
        ("skins.first_joint(0.0)", lambda: skins.first_joint(0.0)),
        ("skins.joint_matrices(layout=4)", lambda: skins.joint_matrices(4)),
        ("skins.joint_matrices(out=list)", lambda: skins.joint_matrices(out=[0.0] * 16 * skins.joint_count)),
        ("pose.apply(threads=2.0)", lambda: pose.apply(threads=2.0)),
        ("pose.apply(threads='2')", lambda: pose.apply(threads="2")),
        ("node.translation = strs", lambda: setattr(node, "translation", ["1", "2", "3"])),
        ("node.rotation = strs", lambda: setattr(node, "rotation", ["0", "0", "0", "1"])),
        ("node.scale = str", lambda: setattr(node, "scale", "111")),
        ("node.translation = Nones", lambda: setattr(node, "translation", [None, 1, 2])),
        ("node.translation = bools", lambda: setattr(node, "translation", [True, False, True])),
        ("node.matrix = strs", lambda: setattr(node, "matrix", [["1"] * 4] * 4)),
        ("node.name = 3", lambda: setattr(node, "name", 3)),
        ("node.mesh = 1.0", lambda: setattr(node, "mesh", 1.0)),
        ("node.mesh = '1'", lambda: setattr(node, "mesh", "1")),
        ("node.mesh = True", lambda: setattr(node, "mesh", True)),
        ("node.bounds = 5", lambda: setattr(node, "bounds", 5)),
        ("node.bounds = strs", lambda: setattr(node, "bounds", (["0"] * 3, ["1"] * 3))),
        ("node.camera = 'perspective'", lambda: setattr(node, "camera", "perspective")),
        ("node.set_parent(handle)", lambda: node.set_parent(other.handle)),
        ("node.set_parent('name')", lambda: node.set_parent(other.name)),
        ("node.set_parent(keep_world='yes')", lambda: node.set_parent(other, keep_world="yes")),
        ("node.set_matrix(lock='no')", lambda: node.set_matrix(np.eye(4), lock="no")),
        ("node.projection_matrix('1.5')", lambda: node.projection_matrix("1.5")),
        ("node.look_at(strs)", lambda: node.look_at(["0"] * 3, (0, 0, -1))),
        ("scene.add(name=1)", lambda: scene.add(1)),
        ("scene.add(parent=handle)", lambda: scene.add("x", parent=node.handle)),
        ("scene.add(translation=strs)", lambda: scene.add("x", translation=["1", "2", "3"])),
        ("scene.add_many(parents=floats)", lambda: scene.add_many([-1.0, 0.5])),
        ("scene.add_many(parents=bools)", lambda: scene.add_many([False, True])),
        ("scene.add_many(translations=strs)", lambda: scene.add_many([-1], translations=[["1", "2", "3"]])),
        ("scene.set_translations(strs)", lambda: scene.set_translations([node], [["1", "2", "3"]])),
        ("scene.set_rotations(handles)", lambda: scene.set_rotations([node.handle], [[0, 0, 0, 1]])),
        ("scene.set_scales(node)", lambda: scene.set_scales(node, [[1, 1, 1]])),
        ("scene.world_matrices(handle)", lambda: scene.world_matrices(node.handle)),
        ("scene.world_matrices('abc')", lambda: scene.world_matrices("abc")),
        ("scene.pose([handle])", lambda: scene.pose([node.handle])),
        ("scene.find(b'/x')", lambda: scene.find(b"/x")),
        ("scene.cull(handle)", lambda: scene.cull(node.handle)),
        ("scene.cull(aspect='1')", lambda: scene.cull(node, aspect="1")),
        ("scene.save(3.0)", lambda: scene.save(3.0)),
        ("arbor.Scene(capacity=1.5)", lambda: arbor.Scene(capacity=1.5)),
        ("arbor.Scene(max_depth='4')", lambda: arbor.Scene(max_depth="4")),
        ("arbor.load(None)", lambda: arbor.load(None)),
        ("arbor.load(scene=node)", lambda: arbor.load(fox(), scene=node)),
        ("arbor.Camera.perspective('0.8', ...)", lambda: arbor.Camera.perspective("0.8", 0.1, 100)),
        ("arbor.Camera(type=1)", lambda: arbor.Camera(type=1)),
        ("arbor.NodeList(node, ...)", lambda: arbor.NodeList(node, [node.handle])),
        ("arbor.NodeList(handles=floats)", lambda: arbor.NodeList(scene, [1.5])),
    ]


def state(scene):
    """Everything a wrong call could have changed: names, links and world matrices."""
    nodes = scene.nodes
    return [n.name for n in nodes], [n.parent for n in nodes], scene.world_matrices(nodes).copy()


def test_wrong_types_raise_type_error_and_change_nothing():
    with arbor.load(fox()) as scene:
        node, other = scene.add("mine", translation=(1, 2, 3)), scene.add("other")
        player = scene.player(scene.clip("Walk"))
        skins = scene.skins()
        with scene.pose([node]) as pose:
            before = state(scene)
            accepted = []
            for what, call in wrong_calls(scene, node, other, player, skins, pose):
                try:
                    call()
                    accepted.append(what)
                except TypeError:
                    pass
            assert accepted == []
            after = state(scene)
            assert before[:2] == after[:2]
            np.testing.assert_array_equal(before[2], after[2])
            np.testing.assert_allclose(node.world_matrix, trs_matrix((1, 2, 3)), atol=0)


def test_a_wrong_shape_or_value_is_still_a_value_error():
    with arbor.Scene() as scene:
        node = scene.add("a")
        with pytest.raises(arbor.InvalidArgumentError):      # a ValueError
            node.translation = (1, 2)
        with pytest.raises(ValueError):
            scene.set_translations([node], [[1, 2, 3, 4]])
        with pytest.raises(ValueError):
            node.name = "a\0b"


def test_numpy_scalars_are_taken_where_python_numbers_are():
    with arbor.load(fox()) as scene:
        clips = [scene.clip(i) for i in (np.int64(1), np.int32(1), np.uint8(1), 1)]
        assert {c.name for c in clips} == {"Walk"}
        player = scene.player(clips[0])
        rig = scene.file_nodes
        for t in (np.float32(0.25), np.float64(0.25), np.int64(0), 0.25, 0):
            player.apply(t, loop=np.bool_(True))
        node = scene.add("n", translation=np.array([np.float32(1), 2, 3]))
        node.rotation = [np.float32(0), np.float64(0), np.int16(0), 1]
        node.scale = (np.float16(2), 2, 2)
        node.mesh = np.int64(0)
        assert node.mesh == 0
        np.testing.assert_allclose(node.world_matrix, trs_matrix((1, 2, 3), s=(2, 2, 2)), atol=1e-6)
        assert scene.skins().first_joint(np.int64(0)) == 0
        assert len(rig) == len(scene.file_nodes)
        with scene.pose([node]) as pose:
            pose.apply(threads=np.int64(1))
