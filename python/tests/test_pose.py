# SPDX-License-Identifier: MIT
"""The pose path: writable views of arbor's TRS, applied in one call, against the bulk writes."""
import numpy as np
import pytest

import arbor
from conftest import trs_matrix


def build(scene, n=200, seed=5):
    """A random forest built parents first; the same seed builds the same scene."""
    rng = np.random.default_rng(seed)
    nodes = []
    for i in range(n):
        parent = nodes[int(rng.integers(0, i))] if i and rng.random() < 0.9 else None
        nodes.append(scene.add(f"n{i}", parent=parent, translation=rng.uniform(-1, 1, 3),
                               rotation=rng.normal(size=4), scale=rng.uniform(0.5, 1.5, 3)))
    return nodes


def new_values(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-2, 2, (n, 3)).astype(arbor.real), rng.normal(size=(n, 4)).astype(arbor.real),
            rng.uniform(0.5, 2, (n, 3)).astype(arbor.real))


@pytest.mark.parametrize("every", [False, True])
@pytest.mark.parametrize("threads", [None, 2])
def test_pose_apply_matches_bulk_writes_bit_for_bit(every, threads):
    with arbor.Scene() as a, arbor.Scene() as b:
        nodes_a, nodes_b = build(a), build(b)
        index = {n: i for i, n in enumerate(nodes_a)}
        rng = np.random.default_rng(9)
        picked = None if every else [nodes_a[i] for i in rng.permutation(len(nodes_a))[:120]]
        a.update(), b.update()
        with a.pose(picked) as pose:
            order = [index[n] for n in pose.nodes]     # creation indices of the pose's rows
            assert sorted(order) == sorted(range(len(nodes_a)) if every else [index[n] for n in picked])
            for frame in range(3):
                t, q, s = new_values(len(order), 100 + frame)
                pose.translations[:] = t
                pose.rotations = q                      # assignment writes in place too
                pose.scales[...] = s
                pose.apply(threads=threads)
                same = arbor.NodeList(b, [nodes_b[i].handle for i in order])
                b.set_translations(same, t), b.set_rotations(same, q), b.set_scales(same, s)
                np.testing.assert_array_equal(a.world_matrices(nodes_a), b.world_matrices(nodes_b))
                for i in order[::17]:
                    np.testing.assert_array_equal(nodes_a[i].rotation, nodes_b[i].rotation)
                    np.testing.assert_array_equal(nodes_a[i].matrix, nodes_b[i].matrix)


def test_pose_world_matrix_against_double_precision():
    with arbor.Scene() as scene:
        base = scene.add("base")
        arm = scene.add("arm", parent=base)
        with scene.pose([arm, base]) as pose:
            assert set(pose.nodes) == {base, arm}
            row = {n: i for i, n in enumerate(pose.nodes)}
            b, a = row[base], row[arm]
            pose.translations[[b, a]] = [(0, 0.2, 0), (0, 0.7, 0)]
            pose.rotations[[b, a]] = [(0, 0.2588190451, 0, 0.9659258263), (0, 0, 0.3826834324, 0.9238795325)]
            pose.scales[a] = (2, 2, 2)
            pose.apply()
            t, r, s = (pose.translations.astype(np.float64), pose.rotations.astype(np.float64),
                       pose.scales.astype(np.float64))
        want = trs_matrix(t[b], r[b], s[b]) @ trs_matrix(t[a], r[a], s[a])
        np.testing.assert_allclose(arm.world_matrix, want, rtol=0, atol=1e-5)


def test_pose_order_and_views():
    with arbor.Scene() as scene:
        nodes = build(scene, n=60, seed=2)
        with scene.pose() as everything:                 # every node: storage order, parents first
            position = {n: i for i, n in enumerate(everything.nodes)}
            assert len(everything) == 60 and set(position) == set(nodes)
            for n in nodes:
                if n.parent is not None:
                    assert position[n.parent] < position[n]
            storage = list(everything.nodes)
        given = nodes[::-1]
        with scene.pose(given) as pose:                  # rows follow pose.nodes: storage order, whatever was given
            assert len(pose) == 60 and list(pose.nodes) == storage
            order = list(pose.nodes)
            for i in range(0, 60, 7):                   # rows start as the nodes' TRS, in pose order
                np.testing.assert_array_equal(pose.translations[i], order[i].translation)
                np.testing.assert_array_equal(pose.rotations[i], order[i].rotation)
                np.testing.assert_array_equal(pose.scales[i], order[i].scale)
            size = arbor.real.itemsize
            for view, width in ((pose.translations, 3), (pose.rotations, 4), (pose.scales, 3)):
                assert view.shape == (60, width) and view.dtype == arbor.real and view.flags.writeable
                assert view.strides == (10 * size, size)
            pose.translations[3] = (1, 2, 3)            # the same memory on every access
            np.testing.assert_array_equal(pose.translations[3], [1, 2, 3])
            pose.read()                                  # not applied: read brings the node's back
            np.testing.assert_array_equal(pose.translations[3], order[3].translation)
            scene.set_scales([order[5]], [(3, 4, 5)])
            pose.read()
            np.testing.assert_array_equal(pose.scales[5], [3, 4, 5])


def test_refused_values_change_nothing():
    with arbor.Scene() as scene:
        nodes = build(scene, n=50, seed=4)
        scene.update()
        with scene.pose() as pose:
            before = scene.world_matrices(nodes)
            versions = [n.world_version for n in nodes]
            trs = [(n.translation, n.rotation, n.scale) for n in nodes]
            victim = pose.nodes[20]
            pose.translations[:] += 1
            pose.translations[20, 1] = np.nan
            with pytest.raises(arbor.NonFiniteError, match=victim.name):
                pose.apply()
            pose.read()
            pose.scales[:] *= 2
            pose.scales[30, 0] = np.inf
            with pytest.raises(arbor.NonFiniteError):
                pose.apply()
            pose.read()
            pose.rotations[40] = 0
            with pytest.raises(arbor.InvalidArgumentError):
                pose.apply()
            np.testing.assert_array_equal(scene.world_matrices(nodes), before)
            assert [n.world_version for n in nodes] == versions
            for n, (t, r, s) in zip(nodes, trs):
                np.testing.assert_array_equal(n.translation, t)
                np.testing.assert_array_equal(n.rotation, r)
                np.testing.assert_array_equal(n.scale, s)


def test_pose_refusals():
    with arbor.Scene() as scene, arbor.Scene() as other:
        a, b = scene.add("a"), scene.add("b")
        with pytest.raises(arbor.InvalidArgumentError):
            scene.pose([a, b, a])                        # a node twice
        with pytest.raises(arbor.InvalidArgumentError, match="another scene"):
            other.pose([a])
        b.set_matrix(np.eye(4), lock=True)
        with pytest.raises(arbor.LockedError):
            with scene.pose([a, b]) as pose:
                pose.apply()
        dead = scene.add("dead")
        dead.destroy()
        with pytest.raises(arbor.DeadNodeError):
            scene.pose([a, dead])
        with scene.pose([a]) as empty_then:
            assert len(scene.pose([])) == 0
            a.destroy()
            with pytest.raises(arbor.DeadNodeError):
                empty_then.apply()
            with pytest.raises(arbor.DeadNodeError):
                empty_then.read()
        with pytest.raises(arbor.InvalidArgumentError):
            scene.pose([b]).apply(threads=-1)


def test_pose_lifetime():
    scene = arbor.Scene()
    node = scene.add("n")
    pose = scene.pose([node])
    assert not pose.closed
    pose.close()
    pose.close()                                         # twice is fine
    assert pose.closed and repr(pose) == "<arbor.Pose (closed)>"
    for use in (lambda: pose.translations, lambda: pose.rotations, lambda: pose.scales, lambda: pose.nodes,
                pose.apply, pose.read, lambda: len(pose)):
        with pytest.raises(arbor.ClosedError):
            use()
    with pytest.raises(arbor.ClosedError):
        pose.translations = [(1, 2, 3)]
    kept = scene.pose()                                  # closed with its scene
    with scene.pose([node]) as inside:
        pass
    assert inside.closed
    scene.close()
    assert kept.closed
    with pytest.raises(arbor.ClosedError):
        kept.apply()
    with pytest.raises(arbor.ClosedError):
        with kept:
            pass
    with pytest.raises(arbor.ClosedError):
        scene.pose()
