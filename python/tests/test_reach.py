# SPDX-License-Identifier: MIT
"""What a Python user reaches for: Node.path, a printable tree, the skins' joint nodes and inverse
bind matrices, fancy indexing of node lists. Expected values come from the glTF file's own JSON
(read here) and numpy double products, or from Python's own list semantics."""
import json
import struct

import numpy as np
import pytest

import arbor
from test_anim_view import accessor, sample


def test_path_is_what_find_takes():
    with arbor.Scene() as scene:
        base = scene.add("base")
        joint = scene.add("joint", parent=base)
        arm = scene.add("arm", parent=joint)
        twin = scene.add("arm", parent=joint)          # find takes the first "arm"
        unnamed = scene.add(parent=joint)
        below = scene.add("hand", parent=unnamed)
        slash = scene.add("a/b", parent=base)
        assert (base.path, joint.path, arm.path) == ("base", "base/joint", "base/joint/arm")
        assert scene.find(arm.path) == arm and scene.find("/" + joint.path) == joint
        assert twin.path is None and unnamed.path is None and below.path is None and slash.path is None
        arm.name = "left"
        assert twin.path == "base/joint/arm" and scene.find(twin.path) == twin
        arm.destroy()
        with pytest.raises(arbor.DeadNodeError):
            arm.path


def json_paths(doc):
    """Each file node's path of names from the file's own JSON (None where find could not take it)."""
    parent = {c: i for i, n in enumerate(doc["nodes"]) for c in n.get("children", [])}
    roots = [i for i in range(len(doc["nodes"])) if i not in parent]
    paths = {}
    for i in range(len(doc["nodes"])):
        names, k = [], i
        while k is not None:
            names.append(doc["nodes"][k].get("name"))
            k = parent.get(k)
        if any(not n or "/" in n for n in names):
            paths[i] = None
            continue
        paths[i] = "/".join(reversed(names))
    # an earlier sibling (or root) of the same name on the way hides a node from find
    for i, path in list(paths.items()):
        k = i
        while path is not None and k is not None:
            siblings = doc["nodes"][parent[k]].get("children", []) if k in parent else roots
            before = siblings[:siblings.index(k)]
            if any(doc["nodes"][s].get("name") == doc["nodes"][k].get("name") for s in before):
                paths[i] = path = None
            k = parent.get(k)
    return paths


@pytest.mark.parametrize("name", ["02_node_hierarchy.gltf", "SimpleSkin.gltf", "Cameras.gltf"])
def test_path_of_every_file_node_from_the_json(name):
    path = sample(name)
    doc = json.load(open(path))
    expected = json_paths(doc)
    with arbor.load(path) as scene:
        for i, node in enumerate(scene.file_nodes):
            assert node.path == expected[i], (i, doc["nodes"][i].get("name"))
            if expected[i] is not None:
                assert scene.find(expected[i]) == node


def test_tree_prints_the_hierarchy():
    with arbor.Scene() as scene:
        base = scene.add("base")
        joint = scene.add("joint", parent=base)
        scene.add("arm", parent=joint)
        scene.add(parent=joint)
        scene.add("tool", parent=base)
        other = scene.add("other")
        scene.add(parent=other)
        expected = "\n".join(["base",
                              "├── joint",
                              "│   ├── arm",
                              "│   └── [1]",
                              "└── tool",
                              "other",
                              "└── [0]"])
        assert scene.tree() == expected
        assert scene.tree(joint) == "joint\n├── arm\n└── [1]"
        assert arbor.Scene().tree() == ""


def test_tree_of_a_file_follows_its_json():
    path = sample("02_node_hierarchy.gltf")
    doc = json.load(open(path))
    with arbor.load(path) as scene:
        lines = scene.tree().split("\n")
        assert len(lines) == len(doc["nodes"])
        # each line ends with a node's name, as many times as the JSON has it
        names = sorted(n.get("name") for n in doc["nodes"])
        assert sorted(line.split("── ")[-1] for line in lines) == names


def test_skins_name_their_joints_and_inverse_bind_matrices():
    path = sample("SimpleSkin.gltf")
    doc = json.load(open(path))
    skinned = [i for i, n in enumerate(doc["nodes"]) if "skin" in n and "mesh" in n]
    with arbor.load(path) as scene:
        nodes = scene.file_nodes
        skins = scene.skins()
        assert list(skins.meshes) == [nodes[i] for i in skinned]
        joints, ibms = [], []
        for i in skinned:
            skin = doc["skins"][doc["nodes"][i]["skin"]]
            joints += [nodes[j] for j in skin["joints"]]
            ibms.append(accessor(doc, skin["inverseBindMatrices"]).reshape(-1, 4, 4).transpose(0, 2, 1))
        assert list(skins.joints) == joints and len(skins.joints) == skins.joint_count
        ibm = skins.inverse_bind_matrices
        assert ibm.shape == (skins.joint_count, 4, 4) and ibm.dtype == np.float32 and not ibm.flags.writeable
        np.testing.assert_array_equal(ibm, np.concatenate(ibms).astype(np.float32))
        # joint matrix i is joints[i]'s: J = inverse(W_mesh) @ W_joint @ IBM in double
        scene.player(scene.clip(0)).apply(1.1)
        scene.update()
        w_mesh = skins.meshes[0].world_matrix.astype(np.float64)
        for i, (j, m) in enumerate(zip(skins.joints, skins.joint_matrices())):
            expected = np.linalg.inv(w_mesh) @ j.world_matrix.astype(np.float64) @ ibms[0][i]
            np.testing.assert_allclose(m, expected, atol=1e-5)


def glb_json(path):
    """The JSON chunk of a .glb (its first chunk, after the 12-byte header)."""
    data = open(path, "rb").read()
    length = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + length])


@pytest.mark.parametrize("name", ["RiggedFigure.glb", "Fox.glb"])
def test_skins_of_a_glb_follow_its_json(name):
    path = sample(name)
    doc = glb_json(path)
    skinned = [i for i, n in enumerate(doc["nodes"]) if "skin" in n and "mesh" in n]
    with arbor.load(path) as scene:
        nodes, skins = scene.file_nodes, scene.skins()
        assert list(skins.meshes) == [nodes[i] for i in skinned]
        for k, i in enumerate(skinned):
            joints = doc["skins"][doc["nodes"][i]["skin"]]["joints"]
            start = skins.first_joint(k)
            assert list(skins.joints[start:start + len(joints)]) == [nodes[j] for j in joints]


def test_node_lists_take_numpy_style_indices():
    with arbor.Scene() as scene:
        made = [scene.add(f"n{i}") for i in range(6)]
        nodes = scene.nodes
        assert list(nodes) == made
        assert nodes[-1] == made[-1] and nodes[np.int64(2)] == made[2] and nodes[np.uint8(0)] == made[0]
        assert list(nodes[[4, 0, -1, 4]]) == [made[4], made[0], made[-1], made[4]]
        assert list(nodes[np.array([5, 1])]) == [made[5], made[1]]
        assert list(nodes[1:5:2]) == made[1:5:2] and list(nodes[::-1]) == made[::-1]
        mask = np.array([True, False, True, False, False, True])
        assert list(nodes[mask]) == [m for m, keep in zip(made, mask) if keep]
        assert list(nodes[[]]) == [] and isinstance(nodes[[2]], arbor.NodeList)
        picked = nodes[[3, 1]]
        np.testing.assert_array_equal(scene.world_matrices(picked), scene.world_matrices([made[3], made[1]]))
        for bad in (1.0, True, np.bool_(False), "0", [1.5], np.array([[0]]), None):
            with pytest.raises(TypeError):
                nodes[bad]
        for bad in (6, -7, [0, 6], np.array([True, False])):
            with pytest.raises(IndexError):
                nodes[bad]
