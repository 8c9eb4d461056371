# SPDX-License-Identifier: MIT
"""Arrays read from a node are new read-only copies: writing one raises (numpy's ValueError)
instead of silently changing nothing, and the node keeps the values composed here in double
precision."""
import numpy as np
import pytest

import arbor
from conftest import axis_quat, trs_matrix

T, S = (0.5, -1.0, 2.0), (1.5, 0.5, 2.0)
Q = axis_quat((0, 1, 0), 30)


def copies(node):
    """Every array a Node hands out, by the name of what gave it."""
    lo, hi = node.bounds
    return {"translation": node.translation, "rotation": node.rotation, "scale": node.scale,
            "matrix": node.matrix, "world_matrix": node.world_matrix, "world_position": node.world_position,
            "bounds min": lo, "bounds max": hi, "view_matrix()": node.view_matrix(),
            "projection_matrix()": node.projection_matrix(1.5)}


def test_arrays_read_from_a_node_are_read_only():
    with arbor.Scene() as scene:
        parent = scene.add("parent", translation=(0, 1, 0))
        node = scene.add("node", parent=parent, translation=T, rotation=Q, scale=S)
        node.bounds = ((-1, -1, -1), (1, 1, 1))
        node.camera = arbor.Camera.perspective(0.8, 0.1, 100)
        for what, a in copies(node).items():
            assert not a.flags.writeable, what
            with pytest.raises(ValueError, match="read-only"):
                a[...] = 7
        local = trs_matrix(T, Q, S)
        world = trs_matrix((0, 1, 0)) @ local
        np.testing.assert_allclose(node.matrix, local, atol=1e-6)
        np.testing.assert_allclose(node.world_matrix, world, atol=1e-6)
        np.testing.assert_allclose(node.world_position, world[:3, 3], atol=1e-6)
        np.testing.assert_array_equal(node.bounds[0], [-1, -1, -1])


def test_arrays_given_to_the_caller_stay_writable():
    """world_matrices() is the caller's own new array (documented so): writable."""
    with arbor.Scene() as scene:
        scene.add("a", translation=T)
        w = scene.world_matrices()
        w[0, 0, 0] = 2
        np.testing.assert_allclose(scene.world_matrices()[0], trs_matrix(T), atol=1e-6)


def morph_file(folder):
    """A one-node glTF whose mesh has one morph target, its weight animated 0 -> 1 over a second."""
    import base64
    import json
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], "<f4")
    data = pos.tobytes() + pos.tobytes() + np.array([0, 1], "<f4").tobytes() + np.array([0, 1], "<f4").tobytes()
    vec3 = {"componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]}
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "targets": [{"POSITION": 1}]}], "weights": [0]}],
           "buffers": [{"byteLength": len(data),
                        "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
           "bufferViews": [{"buffer": 0, "byteOffset": o, "byteLength": n}
                           for o, n in ((0, 36), (36, 36), (72, 8), (80, 8))],
           "accessors": [dict(vec3, bufferView=0), dict(vec3, bufferView=1),
                         {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
                         {"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR"}],
           "animations": [{"samplers": [{"input": 2, "output": 3}],
                           "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}]}
    path = folder / "morph.gltf"
    path.write_text(json.dumps(doc))
    return str(path)


def test_morph_weights_are_read_only(tmp_path):
    with arbor.load(morph_file(tmp_path)) as scene:
        player = scene.player(scene.clip(0))
        player.apply(0.25)
        weights = player.weights(0)
        np.testing.assert_allclose(weights, [0.25], atol=1e-6)      # linear between the keys 0 and 1
        assert not weights.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            weights[0] = 1
        np.testing.assert_allclose(player.weights(0), [0.25], atol=1e-6)
