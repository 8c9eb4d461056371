# SPDX-License-Identifier: MIT
"""Nodes and links: add, iteration parents first, roots, find, reparenting keeping the world or
the local transform, destroy, identity."""
import numpy as np
import pytest

import arbor
from conftest import axis_quat, trs_matrix


def small_tree(scene):
    a = scene.add("a", translation=(1, 2, 3), rotation=axis_quat((0, 1, 0), 30), scale=(2, 2, 2))
    b = scene.add("b", parent=a, translation=(0, 1, 0), rotation=axis_quat((1, 0, 0), 45))
    c = scene.add("c", parent=b, translation=(0.5, 0, 0))
    d = scene.add("d", translation=(-3, 0, 1), rotation=axis_quat((0, 0, 1), -60), scale=(1, 0.5, 1))
    e = scene.add("e", parent=d)
    return a, b, c, d, e


def test_add_len_iteration_roots_find():
    with arbor.Scene() as scene:
        a, b, c, d, e = small_tree(scene)
        late = scene.add("late", parent=a)          # a child of a, created after d and e
        assert len(scene) == 6
        assert list(scene) == [a, b, c, late, d, e]  # depth-first, parents first
        order = list(scene)
        for node in order:
            if node.parent is not None:
                assert order.index(node.parent) < order.index(node)
        assert scene.roots == [a, d]
        assert a.children == [b, late] and c.children == []
        assert scene.find("/a/b/c") == c and scene.find("a/late") == late
        assert scene.find("/a/x") is None and scene.find("") is None
        assert (c.parent, a.parent) == (b, None)
        assert [n.depth for n in (a, b, c)] == [0, 1, 2]


def test_local_transform_reads_and_writes():
    with arbor.Scene() as scene:
        n = scene.add("n", translation=[1, 2, 3], rotation=np.array([0, 0, 0, 2.0]), scale=(1, 2, 3))
        np.testing.assert_array_equal(n.translation, [1, 2, 3])
        np.testing.assert_array_equal(n.rotation, [0, 0, 0, 1])     # normalised
        assert n.translation.dtype == arbor.real and not n.translation.flags.writeable
        n.translation = (4, 5, 6)
        n.scale = np.array([2, 2, 2], dtype=np.float64)
        n.rotation = [0, 0, 1, 1]
        np.testing.assert_allclose(n.rotation, [0, 0, np.sqrt(0.5), np.sqrt(0.5)], rtol=1e-6)
        np.testing.assert_allclose(n.matrix, trs_matrix((4, 5, 6), (0, 0, 1, 1), (2, 2, 2)), atol=1e-6)
        m = trs_matrix((1, 0, 0), axis_quat((0, 1, 0), 10))
        m[0, 1] = 0.3                                                # a shear: only a matrix holds it
        n.set_matrix(m, lock=True)
        assert n.locked
        np.testing.assert_allclose(n.matrix, m, atol=1e-6)
        with pytest.raises(arbor.LockedError):
            n.translation = (0, 0, 0)
        n.name = "renamed"
        assert n.name == "renamed" and scene.find("/renamed") == n
        n.name = None
        assert n.name is None


@pytest.mark.parametrize("keep_world", [True, False])
def test_reparent_keeps_the_world_or_the_local(keep_world):
    with arbor.Scene() as scene:
        a, b, c, d, e = small_tree(scene)
        world_before = c.world_matrix.astype(np.float64)
        local_before = c.matrix.astype(np.float64)
        version = c.world_version
        c.set_parent(d, keep_world=keep_world)
        assert c.parent == d and d.children == [e, c] and b.children == []
        assert c.world_version != version
        if keep_world:
            np.testing.assert_allclose(c.world_matrix, world_before, atol=1e-5)
            # the new local is inverse(W_d) @ W_c, computed here in double precision
            expected_local = np.linalg.inv(d.world_matrix.astype(np.float64)) @ world_before
            np.testing.assert_allclose(c.matrix, expected_local, atol=1e-5)
        else:
            np.testing.assert_allclose(c.matrix, local_before, atol=1e-7)
            np.testing.assert_allclose(c.world_matrix, d.world_matrix.astype(np.float64) @ local_before, atol=1e-5)
        c.set_parent(None)
        assert c.parent is None and scene.roots == [a, d, c]
        c.set_parent(d, before=e)
        assert d.children == [c, e]


def test_reparent_refusals_change_nothing():
    with arbor.Scene() as scene:
        a, b, c, d, e = small_tree(scene)
        with pytest.raises(arbor.CycleError):
            a.set_parent(c)
        with pytest.raises(arbor.NotAChildError):
            c.set_parent(d, before=b)
        flat = scene.add("flat", scale=(1, 0, 1))
        with pytest.raises(arbor.SingularError):
            c.set_parent(flat, keep_world=True)
        assert c.parent == b and a.parent is None and flat.children == []


def test_destroy_takes_the_subtree():
    with arbor.Scene() as scene:
        a, b, c, d, e = small_tree(scene)
        b.destroy()
        assert len(scene) == 3 and list(scene) == [a, d, e]
        assert not b.alive and not c.alive and a.alive
        assert a.children == []


def test_identity_equality_and_hash():
    with arbor.Scene() as scene, arbor.Scene() as other:
        a = scene.add("a")
        same = scene.find("/a")
        assert same == a and same is not a and hash(same) == hash(a)
        assert len({a, same, scene.add("a")}) == 2
        x = other.add("a")
        assert x != a and x.handle != a.handle   # same slot and generation, another scene's tag
        assert a != "a" and a != None  # noqa: E711


def test_zero_scales_are_kept_and_bad_ones_leave_nothing():
    with arbor.Scene() as scene:
        flat = scene.add("flat", scale=(1, 0, 1))
        gone = scene.add("gone", scale=(0, 0, 0))
        np.testing.assert_array_equal(flat.scale, [1, 0, 1])
        np.testing.assert_array_equal(gone.world_matrix[:3, :3], np.zeros((3, 3)))
        with pytest.raises(arbor.NonFiniteError):
            scene.add("bad", scale=(0, np.nan, 1))
        many = scene.add_many([-1, 0], scales=[[2, 0, 2], [1, 1, 1]])
        np.testing.assert_array_equal(many[0].scale, [2, 0, 2])
        assert [n.name for n in scene.roots] == ["flat", "gone", None]
