# SPDX-License-Identifier: MIT
"""Arrays for many nodes against per-node reads and writes, and against double precision."""
import numpy as np
import pytest

import arbor
from conftest import trs_matrix


def random_scene(scene, n=300, seed=3):
    rng = np.random.default_rng(seed)
    nodes = []
    for i in range(n):
        parent = nodes[int(rng.integers(0, i))] if i and rng.random() < 0.9 else None
        nodes.append(scene.add(f"n{i}", parent=parent, translation=rng.uniform(-1, 1, 3),
                               rotation=rng.normal(size=4), scale=rng.uniform(0.5, 1.5, 3)))
    return nodes, rng


def test_world_matrices_match_per_node_reads():
    with arbor.Scene() as scene:
        nodes, _ = random_scene(scene)
        everything = scene.world_matrices()
        assert everything.shape == (len(scene), 4, 4) and everything.dtype == arbor.real
        for i, node in enumerate(scene):
            np.testing.assert_array_equal(everything[i], node.world_matrix)
        picked = [nodes[7], nodes[3], nodes[7]]
        got = scene.world_matrices(picked)
        for i, node in enumerate(picked):
            np.testing.assert_array_equal(got[i], node.world_matrix)
        # the memory is column-major per matrix, as a GPU takes it
        gpu = got.transpose(0, 2, 1)
        assert gpu.flags.c_contiguous
        np.testing.assert_array_equal(gpu[1].ravel(), nodes[3].world_matrix.T.ravel())


@pytest.mark.parametrize("dtype", [arbor.real, np.float64])
def test_bulk_writes_match_per_node_writes(dtype):
    with arbor.Scene() as bulk_scene, arbor.Scene() as one_scene:
        bulk_nodes, rng = random_scene(bulk_scene)
        one_nodes, _ = random_scene(one_scene)
        n = len(bulk_nodes)
        t = rng.uniform(-2, 2, (n, 3)).astype(dtype)
        q = rng.normal(size=(n, 4)).astype(dtype)
        s = rng.uniform(0.2, 2, (n, 3)).astype(dtype)
        nodes = bulk_scene.nodes                  # a NodeList, parents first
        order = [one_scene.find("/".join(reversed(_path(x)))) for x in nodes]
        bulk_scene.set_translations(nodes, t)
        bulk_scene.set_rotations(nodes, q)
        bulk_scene.set_scales(nodes, s)
        for i, node in enumerate(order):
            node.translation, node.rotation, node.scale = t[i], q[i], s[i]
        bulk_scene.update()
        np.testing.assert_array_equal(bulk_scene.world_matrices(nodes), one_scene.world_matrices(order))
        # and against double precision composed here from what arbor stores
        reference = {}
        for i, node in enumerate(nodes):
            local = trs_matrix(node.translation, node.rotation, node.scale)
            reference[node] = reference[node.parent] @ local if node.parent is not None else local
            np.testing.assert_allclose(bulk_scene.world_matrices([node])[0], reference[node], atol=3e-4)


def _path(node):
    names = []
    while node is not None:
        names.append(node.name)
        node = node.parent
    return names


def test_a_plain_list_of_nodes_works_too_and_shapes_are_checked():
    with arbor.Scene() as scene, arbor.Scene() as other:
        nodes = [scene.add() for _ in range(4)]
        scene.set_translations(nodes, [[i, 0, 0] for i in range(4)])
        assert [float(n.translation[0]) for n in nodes] == [0, 1, 2, 3]
        with pytest.raises(arbor.InvalidArgumentError, match=r"shape \(4, 4\), expected \(4, 3\)"):
            scene.set_translations(nodes, np.zeros((4, 4)))
        with pytest.raises(arbor.InvalidArgumentError, match="another scene"):
            scene.set_translations([other.add()], np.zeros((1, 3)))
        with pytest.raises(arbor.InvalidArgumentError, match="another scene"):
            other.world_matrices(scene.nodes)


def test_nodelist_behaves_as_a_sequence():
    with arbor.Scene() as scene:
        a, b, c = scene.add("a"), scene.add("b"), scene.add("c")
        nodes = scene.nodes
        assert len(nodes) == 3 and nodes[1] == b and nodes[-1] == c and list(nodes[1:]) == [b, c]
        assert nodes == [a, b, c] and b in nodes
        assert nodes.handles.dtype == np.uint64 and not nodes.handles.flags.writeable
        assert arbor.NodeList(scene, nodes.handles[::-1]) == [c, b, a]


def test_add_many_matches_add_one_by_one():
    rng = np.random.default_rng(11)
    n = 200
    parents = np.array([-1 if i == 0 or rng.random() < 0.1 else int(rng.integers(0, i)) for i in range(n)])
    t, q, s = rng.uniform(-1, 1, (n, 3)), rng.normal(size=(n, 4)), rng.uniform(0.5, 2, (n, 3))
    with arbor.Scene() as many, arbor.Scene() as one:
        top = many.add("top")
        nodes = many.add_many(parents, t, q, s, parent=top)
        assert len(nodes) == n and len(many) == n + 1
        one_top = one.add("top")
        singles = []
        for i in range(n):
            singles.append(one.add(parent=singles[parents[i]] if parents[i] >= 0 else one_top,
                                   translation=t[i], rotation=q[i], scale=s[i]))
        np.testing.assert_array_equal(many.world_matrices(nodes), one.world_matrices(singles))
        assert [nodes.handles.tolist().index(x.parent.handle) if x.parent != top else -1 for x in nodes] \
            == parents.tolist()
        defaults = many.add_many([-1, 0])
        np.testing.assert_array_equal(many.world_matrices(defaults), np.stack([np.eye(4)] * 2))


def test_add_many_refusals_leave_the_scene_as_it_was():
    with arbor.Scene() as scene:
        scene.add("kept")
        with pytest.raises(arbor.InvalidArgumentError, match=r"parents\[1\] = 1"):
            scene.add_many([-1, 1])
        t = np.zeros((5, 3))
        t[3, 0] = np.nan
        with pytest.raises(arbor.NonFiniteError, match="node 3"):
            scene.add_many([-1, 0, 1, 2, 3], translations=t)
        with pytest.raises(arbor.InvalidArgumentError, match="node 1: the rotation has no length"):
            scene.add_many([-1, 0], rotations=[[0, 0, 0, 1], [0, 0, 0, 0]])
        with arbor.Scene(max_depth=3) as shallow:
            with pytest.raises(arbor.DepthLimitError):
                shallow.add_many(np.arange(-1, 9))
            assert len(shallow) == 0
        assert [n.name for n in scene] == ["kept"]
