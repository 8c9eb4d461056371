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
