# SPDX-License-Identifier: MIT
"""arbor: scene graphs (transform hierarchies) for Python, on arbor's C library.

Every node of a scene has a local transform written in its parent's frame; its world matrix
is the product of the locals from the root down, W_child = W_parent @ L_child. arbor keeps
those world matrices right at every moment (a read composes only what changed), updates a
whole frame in one batch whose cost follows what changed, and reads and writes glTF files.

Building a scene
----------------
    import arbor

    with arbor.Scene() as scene:                       # close() frees the C memory
        base = scene.add("base", translation=(0, 0.2, 0), rotation=(0, 0.2588, 0, 0.9659))
        arm = scene.add("arm", parent=base, translation=(0, 0.7, 0))
        arm.world_matrix          # 4x4 numpy array, right now, no update needed
        arm.world_position        # arm.world_matrix[:3, 3]
        base.rotation = (0, 0.7071, 0, 0.7071)         # any sequence
        scene.update()            # the frame's batch; reads are right without it too
        scene.find("/base/arm")   # by a path of names; None when nothing matches
        arm.path                  # "base/arm": the path find takes
        print(scene.tree())       # the hierarchy as text, one node a line

Conventions: matrices are 4x4 numpy arrays indexed [row, column] in the column-vector
convention (``world_matrix @ [x, y, z, 1]`` maps a point of the node's frame into the world),
quaternions are (x, y, z, w), arrays have dtype ``arbor.real`` (float32, or float64 when the
library is built with ARBOR_DOUBLE). Arrays read from a node are new, read-only copies;
writing one never reaches the node: assign to the property instead.

Nodes
-----
``Scene.add`` returns a :class:`Node`. A Node is a handle: two Node objects of the same node
compare equal and hash alike. ``name``, ``parent``, ``children``, ``translation``,
``rotation``, ``scale``, ``matrix`` (local), ``world_matrix``, ``world_position``,
``world_version`` (changes whenever the world matrix may have changed), ``path`` (the path of
names ``scene.find`` takes, None when no path finds the node), ``set_parent(parent,
keep_world=False)``, ``destroy()`` (the node and its subtree), ``mesh``, ``bounds``,
``camera``, ``view_matrix()``, ``projection_matrix(aspect)``, ``look_at(eye, target, up)``.
``len(scene)`` counts the live nodes; iterating a scene gives its nodes parents first;
``scene.roots`` lists the roots; ``scene.tree(root=None)`` draws the hierarchy as text.

Many nodes at once: numpy arrays in, numpy arrays out
------------------------------------------------------
    nodes = scene.nodes                                # a NodeList: C handles in a numpy array
    crowd = scene.add_many(parents, t, q, s)           # N nodes in one call (parents: batch indices)
    scene.set_rotations(nodes, q)                      # q: (N, 4) array, one C call
    scene.set_translations(nodes, t)                   # (N, 3); set_scales likewise
    scene.update()
    w = scene.world_matrices(nodes)                    # (N, 4, 4), or all nodes when None

A NodeList indexes as a numpy array does: ``nodes[i]`` is a Node (negative from the end, numpy
ints too), ``nodes[2:5]``, ``nodes[[4, 0, -1]]``, ``nodes[int_array]`` and ``nodes[bool_mask]``
are NodeLists. A NodeList and a C-contiguous array of dtype ``arbor.real`` go to C without a copy; other
arrays are converted first (a copy), and a plain list of Nodes is converted to handles (a
Python loop).

The pose path writes arbor's own TRS storage in place, no copy at all:

    with scene.pose(nodes) as pose:                    # nodes=None: every node
        rows = pose.nodes                              # the rows' order: index by it
        pose.rotations[:] = q                          # (N, 4) writable view; translations,
        pose.apply()                                   # scales (N, 3); apply(threads=2)

``pose.nodes`` is the nodes in arbor's storage order (parents first in a scene built parents
first), whatever the order given. The views are valid until the pose is closed (the end of
the ``with``, ``pose.close()`` or the scene's close): the memory is freed then, so do not keep
them longer (``.copy()`` keeps values). A closed pose raises ClosedError; apply refuses a NaN,
an infinity or a zero quaternion with nothing stored.

Files
-----
    scene = arbor.load("robot.gltf")                   # or load(path, scene=s, lenient=True)
    scene.file_nodes                                   # the file's nodes in index order
    scene.save("out.glb")                              # .gltf or .glb; the rest of the file passes through

Animation, skins, cameras, culling
----------------------------------
    clip = scene.clip("Walk")                          # by name or index: scene.animations
    player = scene.player(clip)                        # rig: the file's nodes
    player.apply(1.5, loop=True); scene.update()
    skins = scene.skins()
    joints = skins.joint_matrices()                    # (J, 4, 4) float32
    skins.joints[i], skins.inverse_bind_matrices[i]    # joint matrix i's node and IBM
    skins.meshes[k], skins.first_joint(k)              # skin k's mesh node, its first joint matrix
    cam.camera = arbor.Camera.perspective(0.8, 0.1, 100)
    cam.view_matrix(); cam.projection_matrix(16 / 9)
    visible = scene.cull(cam, aspect=16 / 9)           # a NodeList of the nodes it sees

Time
----
Nodes keep stamped samples, and lookups answer where one node was in another's frame at a time
(arbor/time.h, tf2's buffer)::

    base.record(12.5, translation=(1, 0, 0), rotation=(0, 0, 0, 1))   # as odometry arrives
    pose.record(12.5)                          # every entry of a pose at one stamp
    m = scene.lookup(map_node, camera, 12.52)  # (4, 4): camera's frame -> map's, at 12.52 s
    ms = scene.lookup(map_node, lidar, stamps) # stamps a 1-D array: (N, 4, 4), one C call
    scene.lookup(map_node, camera, arbor.LATEST)
    scene.lookup_between(target, t1, source, t0, fixed)

A time outside a node's samples raises ExtrapolationError (``.node``, ``.time``, ``.first``,
``.last``), nodes of two trees NotConnectedError; ``scene.time_hold = 0.05`` holds a node's
first or last sample up to 0.05 s outside them instead. One thread may record while others look up.

Errors
------
Refused calls raise :class:`arbor.Error` subclasses (DeadNodeError, CycleError, LockedError,
SingularError, NonFiniteError, InvalidArgumentError, DepthLimitError, FileError, ParseError,
UnsupportedError, OutOfMemoryError, NotAChildError) whose message is arbor's, place included
(``robot.gltf: /nodes/7/children/1: node 3 already has parent 5``; a file's message starts at
the file and names it once). A FileError is an OSError of the matching kind, with ``errno``
and ``filename``: ``except FileNotFoundError`` catches ``arbor.load("missing.gltf")``
(arbor.FileNotFoundError; PermissionError, IsADirectoryError, NotADirectoryError and
FileExistsError likewise). A failed call changes nothing.

Arguments of a wrong type raise TypeError, as numpy and the standard library do: a str where a
number goes (``player.apply("1.0")``), a float or a bool where an index goes
(``scene.clip(1.5)``), a handle number where a Node goes. Python's and numpy's ints and floats
are taken alike. A right type of a wrong shape or value raises InvalidArgumentError (a
ValueError).

Lifetime and threads
--------------------
A Scene owns C memory until ``close()`` (or the end of a ``with`` block, or garbage
collection). Players, skin sets and poses are freed with their scene. Using a destroyed node
raises DeadNodeError, anything of a closed scene ClosedError: never a crash. Arrays returned
are the caller's own, except two views: ``Skins.joint_matrices(out=buffer)`` (valid as long
as the buffer) and a Pose's arrays (valid until the pose is closed). A scene is used by one
thread at a time, except that reads may run on many threads between an ``update()`` and the
next write; separate scenes are independent; the C calls release the GIL.
"""
from ._anim import Clip, Player, Skins, apply_players
from ._errors import (ClosedError, CycleError, DeadNodeError, DepthLimitError, Error, FileError, InvalidArgumentError,
                      LockedError, NonFiniteError, NotAChildError, OutOfMemoryError, ParseError, SingularError,
                      UnsupportedError, NotConnectedError, ExtrapolationError)
# FileError's OSError subclasses: arbor.FileNotFoundError is a builtins.FileNotFoundError too. Not
# in __all__, so that `from arbor import *` never hides the builtins.
from ._errors import FileExistsError, FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError  # noqa: F401
from ._lowlevel import REAL as real
from ._lowlevel import ffi as _ffi
from ._lowlevel import lib as _lib
from ._pose import Pose
from ._scene import Camera, Node, NodeList, Scene, load
from ._urdf import Joint, Robot, load_urdf

#: The version of the arbor C library the package carries ("1.2.3").
version = _ffi.string(_lib.ap_version()).decode()
#: For Scene.lookup: the latest time at which every node on the path has samples (tf2's Time(0)).
LATEST = float(_lib.ap_time_latest())
del _ffi, _lib     # the compiled module is arbor._lowlevel's alone (help(arbor) lists no submodule)
__version__ = version

__all__ = [
    "Scene", "Node", "NodeList", "Pose", "Camera", "Clip", "Player", "Skins", "load", "apply_players", "real", "version",
    "Robot", "Joint", "load_urdf",
    "Error", "InvalidArgumentError", "DeadNodeError", "CycleError", "NotAChildError", "LockedError", "SingularError",
    "NonFiniteError", "DepthLimitError", "OutOfMemoryError", "FileError", "ParseError", "UnsupportedError",
    "ClosedError", "NotConnectedError", "ExtrapolationError", "LATEST",
]

# help(arbor) and tracebacks name the public module, not the private ones.
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type):
        _obj.__module__ = __name__
del _name, _obj
