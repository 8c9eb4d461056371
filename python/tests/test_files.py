# SPDX-License-Identifier: MIT
"""glTF files: every sample loaded by the package against the C CLI's `arbor dump --json --scene
all` of the same file (every node: names, parents, children, local and world matrices, bit for
bit: both print and read float32 exactly), then saved by the package as .gltf and .glb and
dumped again by the CLI."""
import os
import subprocess

import numpy as np
import pytest

import arbor
from conftest import need, run_json, sample_files

SAMPLES = sample_files()


def python_view(scene):
    """What dump prints, read through the package: per file index, name, parent index, children
    indices, local and world matrices (column-major, as dump prints them)."""
    nodes = scene.file_nodes
    index = {n: i for i, n in enumerate(nodes)}
    worlds = scene.world_matrices(nodes)
    out = []
    for i, n in enumerate(nodes):
        out.append({
            "name": n.name,
            "parent": None if n.parent is None else index[n.parent],
            "children": [index[c] for c in n.children],
            "local": n.matrix.T.ravel(),
            "world": worlds[i].T.ravel(),
        })
    return out


def assert_same(reference, view, what):
    assert len(reference["nodes"]) == len(view), what
    for ref, got in zip(reference["nodes"], view):
        where = f"{what}: node {ref['index']}"
        assert ref["name"] == got["name"], where
        assert ref["parent"] == got["parent"], where
        assert ref["children"] == got["children"], where
        for key in ("local", "world"):
            expected = np.array([np.nan if v is None else v for v in ref[key]], dtype=arbor.real)
            np.testing.assert_array_equal(got[key], expected, err_msg=f"{where} {key}")


def test_there_are_samples():
    need(SAMPLES, "no glTF samples under ../shared/gltf/samples")


@pytest.mark.parametrize("path", SAMPLES, ids=[os.path.basename(p) for p in SAMPLES])
def test_load_and_save_agree_with_the_cli(path, cli, tmp_path):
    try:
        reference = run_json(cli, "dump", path, "--json", "--scene", "all")
    except subprocess.CalledProcessError:
        with pytest.raises(arbor.Error):
            arbor.load(path)
        return
    with arbor.load(path) as scene:
        view = python_view(scene)
        assert_same(reference, view, path)
        assert len(scene) == len(scene.file_nodes)
        for ext in ("gltf", "glb"):
            out = str(tmp_path / f"saved.{ext}")
            scene.save(out)
            assert_same(run_json(cli, "dump", out, "--json", "--scene", "all"), view, out)
            with arbor.load(out) as again:      # and the package reads back what it wrote
                assert_same(reference, python_view(again), out)


def test_edits_survive_a_round_trip(cli, tmp_path):
    need(SAMPLES, "no glTF samples under ../shared/gltf/samples")
    path = next(p for p in SAMPLES if p.endswith("02_node_hierarchy.gltf"))
    with arbor.load(path) as scene:
        nodes = scene.file_nodes
        moved = nodes[len(nodes) - 1]
        moved.set_parent(None, keep_world=True)
        extra = scene.add("extra", parent=nodes[0], translation=(1, 2, 3))
        out = str(tmp_path / "edited.glb")
        scene.save(out)
        dumped = run_json(cli, "dump", out, "--json", "--scene", "all")
        by_name = {n["name"]: n for n in dumped["nodes"]}
        assert by_name[moved.name]["parent"] is None
        assert by_name["extra"]["parent"] == 0 and by_name["extra"]["index"] == len(nodes)
        np.testing.assert_array_equal(np.array(by_name["extra"]["world"], dtype=arbor.real),
                                      extra.world_matrix.T.ravel())
        np.testing.assert_array_equal(np.array(by_name[moved.name]["world"], dtype=arbor.real),
                                      moved.world_matrix.T.ravel())


def test_load_into_an_existing_scene(tmp_path):
    need(SAMPLES, "no glTF samples under ../shared/gltf/samples")
    path = next(p for p in SAMPLES if p.endswith("02_node_hierarchy.gltf"))
    with arbor.Scene() as scene:
        mine = scene.add("mine")
        returned = arbor.load(path, scene=scene)
        assert returned is scene
        assert len(scene) == 1 + len(scene.file_nodes)
        assert mine not in list(scene.file_nodes) and scene.roots[0] == mine
