# SPDX-License-Identifier: MIT
"""Threads as the C API allows them: many readers between an update and the next write,
separate scenes on separate threads, each thread its own last error."""
import threading

import numpy as np

import arbor


def build(scene, n=2000, seed=1):
    rng = np.random.default_rng(seed)
    nodes = []
    for i in range(n):
        parent = nodes[int(rng.integers(0, i))] if i else None
        nodes.append(scene.add(parent=parent, translation=rng.uniform(-1, 1, 3), rotation=rng.normal(size=4)))
    return nodes


def run_threads(target, count):
    results, errors = [None] * count, []

    def body(k):
        try:
            results[k] = target(k)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_many_readers_after_an_update():
    with arbor.Scene() as scene:
        build(scene)
        scene.update()
        expected = scene.world_matrices()
        nodes = scene.nodes

        def read(k):
            got = [scene.world_matrices(nodes) for _ in range(5)]
            singles = np.stack([n.world_matrix for n in nodes[k::7]])
            return got, singles

        for k, (got, singles) in enumerate(run_threads(read, 6)):
            for g in got:
                np.testing.assert_array_equal(g, expected)
            np.testing.assert_array_equal(singles, expected[k::7])


def test_separate_scenes_on_separate_threads():
    def work(k):
        with arbor.Scene() as scene:
            build(scene, 500, seed=k)
            nodes = scene.nodes
            q = np.random.default_rng(k).normal(size=(len(nodes), 4)).astype(arbor.real)
            for _ in range(20):
                scene.set_rotations(nodes, q)
                scene.update()
            return scene.world_matrices(nodes)

    results = run_threads(work, 4)
    for k, got in enumerate(results):
        np.testing.assert_array_equal(got, work(k))


def test_each_thread_gets_its_own_message():
    barrier = threading.Barrier(4)

    def fail(k):
        with arbor.Scene() as scene:
            a = scene.add(f"a{k}")
            b = scene.add(parent=a)
            for _ in range(k + 1):  # a different node id per thread
                scene.add()
            barrier.wait()
            try:
                a.set_parent(b) if k % 2 else scene.add(translation=(0, np.nan, 0))
            except arbor.Error as e:
                return type(e), str(e)

    for k, (kind, message) in enumerate(run_threads(fail, 4)):
        if k % 2:
            assert kind is arbor.CycleError and "arbor_node_set_parent" in message
        else:
            assert kind is arbor.NonFiniteError and "arbor_node_create" in message
