# SPDX-License-Identifier: MIT
"""Errors: the class of each refusal, arbor's message with its place, and a failed call
changing nothing."""
import errno
import json
import os
import re

import numpy as np
import pytest

import arbor
from conftest import shared_path


def file_message(path):
    """A glTF message: the file as given, then the place and reason (after the name of the C
    function, when arbor puts it first)."""
    return re.compile(r"(arbor_\w+: )?" + re.escape(path) + ": ")


def test_every_error_is_an_arbor_error_with_a_code():
    classes = [arbor.InvalidArgumentError, arbor.DeadNodeError, arbor.CycleError, arbor.NotAChildError,
               arbor.LockedError, arbor.SingularError, arbor.NonFiniteError, arbor.DepthLimitError,
               arbor.OutOfMemoryError, arbor.FileError, arbor.ParseError, arbor.UnsupportedError]
    assert [c.code for c in classes] == list(range(1, 13))    # arbor_result's order in base.h
    assert all(issubclass(c, arbor.Error) for c in classes + [arbor.ClosedError])
    assert issubclass(arbor.FileError, OSError) and issubclass(arbor.NonFiniteError, ValueError)


def test_messages_name_the_function_and_the_nodes():
    with arbor.Scene() as scene:
        a = scene.add("base_link")
        b = scene.add("tool0", parent=a)
        with pytest.raises(arbor.CycleError) as err:
            a.set_parent(b)
        message = str(err.value)
        assert err.value.code == 3 and err.value.message == message
        assert message.startswith("arbor_node_set_parent: ") and "ring" in message
        # the node, by its handle as arbor prints it (slot 'v' generation) or by its name
        assert f"{a.handle & 0xFFFFFFFF}v{a.handle >> 32}" in message or "base_link" in message
        with pytest.raises(arbor.NonFiniteError) as err:
            b.translation = (0, float("nan"), 0)
        assert "arbor_node_set_translation" in str(err.value)
        np.testing.assert_array_equal(b.translation, [0, 0, 0])
        with pytest.raises(arbor.InvalidArgumentError, match=r"Node.rotation: expected 4 numbers"):
            b.rotation = (0, 0, 1)
        with pytest.raises(arbor.InvalidArgumentError, match="no length"):
            b.rotation = (0, 0, 0, 0)
        with pytest.raises(TypeError, match=r"Scene.add: rotation"):
            scene.add(rotation="abcd")
        with pytest.raises(arbor.DepthLimitError):
            with arbor.Scene(max_depth=2) as shallow:
                shallow.add(parent=shallow.add(parent=shallow.add(parent=shallow.add())))


def test_a_failed_bulk_write_writes_nothing():
    with arbor.Scene() as scene:
        nodes = arbor.NodeList(scene, [scene.add(f"n{i}").handle for i in range(5)])
        values = np.arange(15, dtype=arbor.real).reshape(5, 3)
        values[4, 1] = np.inf
        with pytest.raises(arbor.NonFiniteError):
            scene.set_translations(nodes, values)
        np.testing.assert_array_equal(scene.world_matrices(nodes)[:, :3, 3], np.zeros((5, 3)))


@pytest.mark.parametrize("name", ["node_parent_override", "node_loop", "unresolved_child_node"])
def test_invalid_files_name_the_file_and_the_validators_pointer(name):
    path = shared_path("gltf", "invalid", "node", name + ".gltf")
    report = json.load(open(path + ".report.json"))
    pointers = [m["pointer"] for m in report["issues"]["messages"] if m["severity"] == 0]
    with arbor.Scene() as scene:
        scene.add("kept")
        with pytest.raises(arbor.ParseError) as err:
            arbor.load(path, scene=scene)
        message = str(err.value)
        assert file_message(path).match(message), message
        # the place is one of those the Khronos validator reports for this file
        assert any(f": {p}: " in message for p in pointers), (message, pointers)
        assert [n.name for n in scene] == ["kept"]                 # nothing changed
        assert len(scene.file_nodes) == 0


def test_every_invalid_node_file_is_refused_or_loads_and_a_lenient_load_repairs():
    folder = shared_path("gltf", "invalid", "node")
    refused = 0
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".gltf"):
            continue
        path = os.path.join(folder, f)
        try:
            arbor.load(path).close()
        except arbor.Error as e:
            refused += 1
            assert file_message(path).match(str(e)), str(e)
    assert refused > 0
    with arbor.load(os.path.join(folder, "node_parent_override.gltf"), lenient=True) as scene:
        assert len(scene) == len(scene.file_nodes)


def system_error(path, mode="rb"):
    """What Python's own open() raises for path: the independent reference of errno and class."""
    with pytest.raises(OSError) as err:
        open(path, mode)
    return err.value


def test_file_errors_are_the_matching_os_errors(tmp_path):
    """A file that cannot be opened raises the OSError subclass open() raises for it, with its
    errno and filename, still an arbor.FileError; the message names the file once and no C
    function."""
    folder = tmp_path / "folder.gltf"
    folder.mkdir()
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x")
    buffer_user = tmp_path / "buffer.gltf"
    buffer_user.write_text(json.dumps({"asset": {"version": "2.0"}, "buffers": [{"uri": "gone.bin", "byteLength": 4}]}))
    cases = [(str(tmp_path / "missing.gltf"), str(tmp_path / "missing.gltf"), FileNotFoundError),
             (str(a_file / "x.gltf"), str(a_file / "x.gltf"), NotADirectoryError),
             (str(buffer_user), str(tmp_path / "gone.bin"), FileNotFoundError)]
    for path, failing, kind in cases:
        reference = system_error(failing)
        assert type(reference) is kind
        with pytest.raises(kind) as err:
            arbor.load(path)
        e = err.value
        assert isinstance(e, arbor.FileError) and isinstance(e, arbor.Error) and e.code == 10
        assert (e.errno, e.strerror, e.filename) == (reference.errno, reference.strerror, failing)
        assert str(e).count(failing) == 1 and "arbor_" not in str(e), str(e)
        assert str(e).endswith(reference.strerror)
    # a folder opens on Linux, so open() says nothing; reading it is EISDIR
    with pytest.raises(IsADirectoryError) as err:
        arbor.load(str(folder))
    assert err.value.errno == errno.EISDIR and err.value.filename == str(folder)
    assert str(err.value).count(str(folder)) == 1
    with arbor.Scene() as scene:
        scene.add("a")
        for path, kind in ((tmp_path / "no" / "out.gltf", FileNotFoundError), (folder, IsADirectoryError)):
            reference = system_error(path, "wb")
            assert type(reference) is kind
            with pytest.raises(kind) as err:
                scene.save(str(path))
            assert (err.value.errno, err.value.filename) == (reference.errno, str(path))
            assert str(err.value).count(str(path)) == 1 and "arbor_" not in str(err.value)


def test_missing_file_and_bad_save():
    with pytest.raises(arbor.FileError, match=r"no-such\.gltf"):
        arbor.load("/nonexistent/no-such.gltf")
    with arbor.Scene() as scene:
        scene.add("a")
        with pytest.raises(arbor.Error, match=r"/nonexistent/out\.gltf"):
            scene.save("/nonexistent/out.gltf")
