# SPDX-License-Identifier: MIT
"""Lifetime misuse raises, never crashes: destroyed nodes, closed scenes, players and skins of a
closed scene, garbage collection in any order. The misuse runs in a child process too, so that
a crash would fail the test instead of killing pytest."""
import gc
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import arbor
from conftest import need, sample_files


def test_destroyed_nodes_raise_everywhere():
    with arbor.Scene() as scene:
        a = scene.add("a")
        b = scene.add("b", parent=a)
        a.destroy()
        for use in (lambda: b.name, lambda: b.world_matrix, lambda: b.translation, lambda: b.children,
                    lambda: setattr(b, "translation", (1, 2, 3)), lambda: b.destroy(), lambda: b.set_parent(None),
                    lambda: scene.add(parent=b), lambda: scene.set_rotations([b], [[0, 0, 0, 1]])):
            with pytest.raises(arbor.DeadNodeError):
                use()
        with pytest.raises(arbor.DeadNodeError, match=r"nodes\[1\]"):
            scene.world_matrices([scene.add(), b])
        assert not b.alive and "dead" in repr(b)
        # a slot reused by a new node does not bring the old handle back
        c = scene.add("c")
        assert c != a and not a.alive


def test_a_closed_scene_raises_for_everything_of_it():
    scene = arbor.Scene()
    a = scene.add("a")
    nodes = scene.nodes
    scene.close()
    scene.close()                                  # twice is fine
    assert scene.closed and not a.alive and "closed" in repr(scene)
    for use in (lambda: a.name, lambda: a.world_matrix, lambda: len(scene), lambda: scene.add(),
                lambda: scene.update(), lambda: scene.world_matrices(nodes), lambda: list(scene),
                lambda: scene.save("x.glb"), lambda: arbor.load("x.glb", scene=scene)):
        with pytest.raises(arbor.ClosedError):
            use()
    with pytest.raises(arbor.ClosedError):
        with scene:
            pass


def test_players_and_skins_close_with_their_scene():
    files = [p for p in sample_files() if p.endswith("Fox.glb")]
    need(files, "Fox.glb is absent from ../shared/gltf/samples")
    scene = arbor.load(files[0])
    player = scene.player(scene.clip("Walk"))
    skins = scene.skins()
    player.apply(0.1)
    skins.joint_matrices()
    scene.close()
    with pytest.raises(arbor.ClosedError):
        player.apply(0.2)
    with pytest.raises(arbor.ClosedError):
        skins.joint_matrices()
    player.close()                                 # already released with the scene: a no-op


def test_a_node_keeps_its_scene_alive():
    scene = arbor.Scene()
    a = scene.add("a", translation=(1, 2, 3))
    del scene
    gc.collect()
    np.testing.assert_array_equal(a.world_position, [1, 2, 3])
    assert a.scene.find("/a") == a


CHILD = textwrap.dedent("""
    import gc, arbor
    # players, skins and scene in a reference cycle, collected in whatever order gc picks
    for _ in range(20):
        scene = arbor.load(FOX)
        holder = [scene, scene.player(scene.clip(0)), scene.skins()]
        holder.append(holder)
        del scene, holder
        gc.collect()
    # a clip outliving its file's scene, a player outliving nothing it needs
    scene = arbor.load(FOX)
    clip = scene.clip("Run")
    scene.close()
    other = arbor.load(FOX)
    p = other.player(clip)
    del clip
    gc.collect()
    p.apply(0.3)
    other.update()
    # a node used after its scene was garbage-collected through close()
    s = arbor.Scene()
    n = s.add()
    s.close()
    try:
        n.world_matrix
    except arbor.ClosedError:
        print("ok")
""")


def test_misuse_in_a_child_process_exits_cleanly():
    files = [p for p in sample_files() if p.endswith("Fox.glb")]
    need(files, "Fox.glb is absent from ../shared/gltf/samples")
    out = subprocess.run([sys.executable, "-c", f"FOX = {files[0]!r}\n" + CHILD], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
