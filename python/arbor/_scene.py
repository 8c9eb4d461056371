# SPDX-License-Identifier: MIT
"""Scenes, nodes, lists of nodes, cameras, glTF files: the Python face of arbor's C API."""
import collections.abc
import numbers
import operator
import os
import weakref

import numpy as np

from . import _args as args
from . import _lowlevel as ll
from ._anim import Clip, Player, Skins
from ._pose import Pose
from ._errors import ClosedError, DeadNodeError, ExtrapolationError, InvalidArgumentError, NonFiniteError, error_for
from ._lowlevel import REAL, check, ffi, lib

_UINT64 = np.dtype(np.uint64)


def _label(node_id):
    """A handle as repr() shows it, as arbor's messages do: id 'v' the word above it (the scene's tag and
    the id's generation)."""
    return f"{node_id & 0xFFFFFFFF}v{node_id >> 32}"


def _matrix_in(value, what):
    """A 4x4 (row, column) matrix as 16 column-major arbor_reals."""
    a = args.numbers_array(value, what, np.float64)
    if a.shape != (4, 4):
        raise InvalidArgumentError(f"{what}: expected a 4x4 matrix, got an array of shape {a.shape}")
    return np.ascontiguousarray(a.T, dtype=REAL).ravel()


def _readonly(a):
    """a, made read-only: a copy handed out, whose writes would reach nothing."""
    a.flags.writeable = False
    return a


def _matrix_out(flat):
    """16 column-major values as a read-only (4, 4) array indexed [row, column]."""
    return _readonly(flat.reshape(4, 4).T)


def _encode(text, what):
    b = args.text(text, what)
    return ffi.NULL if b is None else b


class Camera:
    """A glTF camera, as carried by a node (``node.camera``). It sits at the node's origin and
    looks down the node's local -Z. ``type`` is "perspective" (``yfov`` in radians, ``aspect``
    width / height or 0 to give it at projection time, ``zfar`` 0 for an infinite far plane) or
    "orthographic" (``xmag``, ``ymag`` half-extents). Make one with :meth:`perspective` or
    :meth:`orthographic`."""

    __slots__ = ("type", "yfov", "aspect", "xmag", "ymag", "znear", "zfar")

    def __init__(self, type="perspective", yfov=0.0, aspect=0.0, xmag=0.0, ymag=0.0, znear=0.0, zfar=0.0):
        if not isinstance(type, str):
            raise TypeError(f"Camera: type: expected a str, got {type.__class__.__name__}")
        if type not in ("perspective", "orthographic"):
            raise InvalidArgumentError(f"Camera: type {type!r} is neither 'perspective' nor 'orthographic'")
        self.type = type
        for key, value in (("yfov", yfov), ("aspect", aspect), ("xmag", xmag), ("ymag", ymag), ("znear", znear),
                           ("zfar", zfar)):
            setattr(self, key, args.real(value, f"Camera: {key}"))

    @classmethod
    def perspective(cls, yfov, znear, zfar=0.0, aspect=0.0):
        """A perspective camera: vertical field of view yfov (radians), near and far planes (zfar
        0: infinite), aspect (0: given at projection time)."""
        return cls("perspective", yfov=yfov, aspect=aspect, znear=znear, zfar=zfar)

    @classmethod
    def orthographic(cls, xmag, ymag, znear, zfar):
        """An orthographic camera with half-extents xmag and ymag."""
        return cls("orthographic", xmag=xmag, ymag=ymag, znear=znear, zfar=zfar)

    def __eq__(self, other):
        return isinstance(other, Camera) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self):
        if self.type == "perspective":
            return f"Camera.perspective(yfov={self.yfov:g}, znear={self.znear:g}, zfar={self.zfar:g}, aspect={self.aspect:g})"
        return f"Camera.orthographic(xmag={self.xmag:g}, ymag={self.ymag:g}, znear={self.znear:g}, zfar={self.zfar:g})"


class Node:
    """A node of a scene: a handle (it owns nothing). Nodes compare equal, and hash alike, when
    they are the same node of the same scene. Any use of a node that was destroyed raises
    :class:`arbor.DeadNodeError`, of a node of a closed scene :class:`arbor.ClosedError`;
    ``node.alive`` tells without raising.

    Local transform: ``translation`` (3), ``rotation`` (quaternion x, y, z, w), ``scale`` (3),
    read as new read-only numpy arrays of dtype ``arbor.real`` and written from any sequence;
    ``matrix`` is the local 4x4. World: ``world_matrix`` (4x4, column-vector convention:
    ``world_matrix @ [x, y, z, 1]`` maps a point of the node's frame into the world),
    ``world_position``, ``world_version``; always current, with or without ``scene.update()``.
    """

    __slots__ = ("_scene", "_id", "__weakref__")

    def __init__(self, scene, node_id):
        self._scene = scene
        self._id = node_id

    def _s(self):
        p = self._scene._ptr
        if p is None:
            raise ClosedError("the node's scene is closed")
        if not lib.ap_node_alive(p, self._id):
            raise DeadNodeError("the node is not alive (destroyed)", 2)
        return p

    # ---- identity ----
    @property
    def scene(self):
        """The scene the node belongs to."""
        return self._scene

    @property
    def handle(self):
        """The C handle (arbor_node.id) as an int: id in the low 32 bits, the scene's tag and the id's
        generation above (base.h)."""
        return self._id

    @property
    def alive(self):
        """True while the node exists (False once destroyed or its scene is closed); never raises."""
        p = self._scene._ptr
        return p is not None and bool(lib.ap_node_alive(p, self._id))

    def __eq__(self, other):
        return isinstance(other, Node) and other._scene is self._scene and other._id == self._id

    def __hash__(self):
        return hash((id(self._scene), self._id))

    def __repr__(self):
        if not self.alive:
            return f"<arbor.Node {_label(self._id)} (dead)>"
        return f"<arbor.Node {self.name!r} {_label(self._id)}>"

    # ---- name and links ----
    @property
    def name(self):
        """The node's name (None when it has none). Settable (None clears)."""
        return ll.string(lib.ap_node_name(self._s(), self._id))

    @name.setter
    def name(self, value):
        check(lib.ap_node_set_name(self._s(), self._id, _encode(value, "Node.name")))

    @property
    def parent(self):
        """The parent Node, None for a root."""
        pid = lib.ap_node_parent(self._s(), self._id)
        return Node(self._scene, pid) if pid else None

    @property
    def children(self):
        """The children, in sibling order (a list of Nodes)."""
        p = self._s()
        n = lib.ap_node_children(p, self._id, ffi.NULL, 0)
        ids = np.empty(n, _UINT64)
        n = min(n, lib.ap_node_children(p, self._id, ll.ptr(ids, "uint64_t *"), n))
        return [Node(self._scene, int(i)) for i in ids[:n]]

    @property
    def depth(self):
        """How many ancestors the node has (a root: 0)."""
        return lib.ap_node_depth(self._s(), self._id)

    @property
    def path(self):
        """The path of names from the node's root down to it, "base/joint/arm": the path
        ``scene.find`` takes, so ``scene.find(node.path) == node``. None when no path finds the
        node: a node on the way without a name or with a "/" in it, or an earlier sibling of the
        same name on the way (find takes the first)."""
        p = self._s()
        names, h = [], self._id
        for _ in range(lib.ap_node_depth(p, self._id) + 1):
            names.append(ll.string(lib.ap_node_name(p, h)))
            h = lib.ap_node_parent(p, h)
        if any(not n or "/" in n for n in names):
            return None
        path = "/".join(reversed(names))
        return path if lib.ap_scene_find(p, path.encode("utf-8")) == self._id else None

    def set_parent(self, parent, keep_world=False, before=None):
        """Moves the node (with its subtree) under parent (None: makes it a root), appended as the
        last child, or just before the sibling ``before``. keep_world=False keeps the local
        transform (the node follows its new parent); True keeps the world matrix (the new local
        is inverse(W_parent) @ W_node, written back as TRS, or as a matrix where a shear needs
        one). Refused, with nothing changed: a ring (:class:`CycleError`), a dead node, a
        singular parent with keep_world (:class:`SingularError`), too deep
        (:class:`DepthLimitError`)."""
        p = self._s()
        pid = self._scene._id_of(parent, "Node.set_parent: parent")
        bid = self._scene._id_of(before, "Node.set_parent: before")
        keep = args.flag(keep_world, "Node.set_parent: keep_world")
        check(lib.ap_node_set_parent(p, self._id, pid, bid, keep))

    def destroy(self):
        """Destroys the node and its whole subtree. Their Node objects raise from then on."""
        check(lib.ap_node_destroy(self._s(), self._id))

    # ---- local transform ----
    def _trs(self):
        a, out = ll.real_array(10)
        check(lib.ap_node_get_trs(self._s(), self._id, out))
        return a

    @property
    def translation(self):
        """Local translation (x, y, z): a new read-only array; assign any 3-sequence to write."""
        return _readonly(self._trs()[0:3])

    @translation.setter
    def translation(self, value):
        x, y, z = args.vector(value, 3, "Node.translation").tolist()
        check(lib.ap_node_set_translation(self._s(), self._id, x, y, z))

    @property
    def rotation(self):
        """Local rotation, a unit quaternion (x, y, z, w): a new read-only array; assign any
        4-sequence to write (it is normalised; all zeros is refused)."""
        return _readonly(self._trs()[3:7])

    @rotation.setter
    def rotation(self, value):
        x, y, z, w = args.vector(value, 4, "Node.rotation").tolist()
        check(lib.ap_node_set_rotation(self._s(), self._id, x, y, z, w))

    @property
    def scale(self):
        """Local scale (x, y, z): a new read-only array; assign any 3-sequence to write."""
        return _readonly(self._trs()[7:10])

    @scale.setter
    def scale(self, value):
        x, y, z = args.vector(value, 3, "Node.scale").tolist()
        check(lib.ap_node_set_scale(self._s(), self._id, x, y, z))

    @property
    def matrix(self):
        """The local matrix (4x4, [row, column]): T @ R @ S, or the node's own matrix when it is
        matrix-backed: a new read-only array. Assigning a 4x4 makes the node matrix-backed
        (unlocked, see :meth:`set_matrix`)."""
        a, out = ll.real_array(16)
        check(lib.ap_node_local_matrix(self._s(), self._id, out))
        return _matrix_out(a)

    @matrix.setter
    def matrix(self, value):
        self.set_matrix(value)

    def set_matrix(self, matrix, lock=False):
        """Makes the local transform the 4x4 ``matrix`` (last row 0, 0, 0, 1), locked against TRS
        writes when lock is true (as glTF ``matrix`` nodes load)."""
        m = _matrix_in(matrix, "Node.set_matrix")
        lock = args.flag(lock, "Node.set_matrix: lock")
        check(lib.ap_node_set_local_matrix(self._s(), self._id, ll.ptr(m, "arbor_real *"), lock))

    @property
    def locked(self):
        """True when the local transform is a locked matrix (TRS writes raise LockedError)."""
        return bool(lib.ap_node_is_locked(self._s(), self._id))

    # ---- time (arbor/time.h) ----
    def record(self, time, translation=None, rotation=None, scale=None):
        """Stores a sample of the local TRS at ``time`` (seconds); the parts not given are the
        node's current ones. A sample later than every earlier one also becomes the current TRS;
        an older one only fills the history. Threads: as arbor/time.h says (one recording thread
        beside any number of looking-up ones)."""
        trs = self._trs().astype(REAL)
        for part, at, n, what in ((translation, 0, 3, "translation"), (rotation, 3, 4, "rotation"), (scale, 7, 3, "scale")):
            if part is not None:
                trs[at:at + n] = args.vector(part, n, f"Node.record: {what}")
        check(lib.ap_node_record_trs(self._s(), self._id, float(time), ll.ptr(trs, "arbor_real *")))

    @property
    def history_range(self):
        """(first, last): the times of the first and last samples; (-inf, inf) for a node never
        recorded (static: valid at every time)."""
        first, last = ffi.new("double *"), ffi.new("double *")
        check(lib.ap_node_history_range(self._s(), self._id, first, last))
        return first[0], last[0]

    # ---- world ----
    @property
    def world_matrix(self):
        """The world matrix (4x4, [row, column], column-vector convention) as the scene stands
        now: a new read-only array. ``world_matrix[:3, 3]`` is the world position."""
        a, out = ll.real_array(16)
        check(lib.ap_node_world_matrix(self._s(), self._id, out))
        return _matrix_out(a)

    @property
    def world_position(self):
        """Where the node's origin is in the world (3 values, a new read-only array)."""
        a, out = ll.real_array(16)
        check(lib.ap_node_world_matrix(self._s(), self._id, out))
        return _readonly(a[12:15])

    @property
    def world_version(self):
        """An int that changes whenever the world matrix may have changed, and only then."""
        return int(lib.ap_node_world_version(self._s(), self._id))

    # ---- what the node carries ----
    @property
    def mesh(self):
        """The mesh index the node carries (glTF's), None for none. Settable."""
        m = lib.ap_node_mesh(self._s(), self._id)
        return None if m < 0 else int(m)

    @mesh.setter
    def mesh(self, value):
        mesh = -1 if value is None else args.index(value, "Node.mesh")
        check(lib.ap_node_set_mesh(self._s(), self._id, mesh))

    @property
    def bounds(self):
        """The local box (min, max), two new read-only arrays of 3, or None. Settable from (min,
        max) or None."""
        p = self._s()
        lo, plo = ll.real_array(3)
        hi, phi = ll.real_array(3)
        return (_readonly(lo), _readonly(hi)) if lib.ap_node_local_bounds(p, self._id, plo, phi) else None

    @bounds.setter
    def bounds(self, value):
        p = self._s()
        if value is None:
            check(lib.ap_node_set_bounds(p, self._id, ffi.NULL, ffi.NULL))
            return
        if not isinstance(value, collections.abc.Sequence) or len(value) != 2:
            raise TypeError(f"Node.bounds: expected (min, max) or None, got {type(value).__name__}")
        lo = np.ascontiguousarray(args.vector(value[0], 3, "Node.bounds min"), REAL)
        hi = np.ascontiguousarray(args.vector(value[1], 3, "Node.bounds max"), REAL)
        check(lib.ap_node_set_bounds(p, self._id, ll.ptr(lo, "arbor_real *"), ll.ptr(hi, "arbor_real *")))

    @property
    def camera(self):
        """The node's :class:`Camera` (a copy), None for none. Settable (None removes)."""
        p = self._s()
        c = ffi.new("arbor_camera *")
        if lib.ap_node_camera(p, self._id, c):
            return None
        kind = "perspective" if c.type == lib.ARBOR_CAMERA_PERSPECTIVE else "orthographic"
        return Camera(kind, c.yfov, c.aspect, c.xmag, c.ymag, c.znear, c.zfar)

    @camera.setter
    def camera(self, value):
        p = self._s()
        if value is None:
            check(lib.ap_node_set_camera(p, self._id, ffi.NULL))
            return
        if not isinstance(value, Camera):
            raise TypeError(f"Node.camera: expected an arbor.Camera or None, got {type(value).__name__}")
        kind = lib.ARBOR_CAMERA_PERSPECTIVE if value.type == "perspective" else lib.ARBOR_CAMERA_ORTHOGRAPHIC
        c = ffi.new("arbor_camera *", {"type": kind, "yfov": value.yfov, "aspect": value.aspect, "xmag": value.xmag,
                                       "ymag": value.ymag, "znear": value.znear, "zfar": value.zfar})
        check(lib.ap_node_set_camera(p, self._id, c))

    def view_matrix(self):
        """The view matrix V = inverse(world_matrix) (4x4): world space into the space of a
        camera at this node, looking down its -Z, as a new read-only array. Any node may serve as
        the eye."""
        a, out = ll.real_array(16)
        check(lib.ap_camera_view_matrix(self._s(), self._id, out))
        return _matrix_out(a)

    def projection_matrix(self, aspect=0.0):
        """glTF's projection matrix of the node's camera (OpenGL clip space); a nonzero aspect
        (width / height) overrides the camera's. A new read-only array."""
        a, out = ll.real_array(16)
        aspect = args.real(aspect, "Node.projection_matrix: aspect")
        check(lib.ap_camera_projection_matrix(self._s(), self._id, aspect, out))
        return _matrix_out(a)

    def look_at(self, eye, target, up=(0.0, 1.0, 0.0)):
        """Writes the local translation and rotation so the node sits at eye (in its parent's
        frame) and looks down -Z at target, with +Y as close to up as can be."""
        v = [np.ascontiguousarray(args.vector(x, 3, f"Node.look_at: {what}"), REAL)
             for x, what in ((eye, "eye"), (target, "target"), (up, "up"))]
        check(lib.ap_camera_look_at(self._s(), self._id, *(ll.ptr(x, "arbor_real *") for x in v)))


class NodeList(collections.abc.Sequence):
    """An immutable list of nodes of one scene, held as a numpy array of C handles (``handles``,
    uint64, read-only), so that whole lists go to arbor in one call without a Python loop:
    ``scene.set_rotations(nodes, array)``. Indexing gives Nodes (None for a file node destroyed
    since the load), slicing gives NodeLists. It is a snapshot: nodes created later are not in
    it, destroyed ones raise when used."""

    __slots__ = ("_scene", "_ids")

    def __init__(self, scene, handles):
        if not isinstance(scene, Scene):
            raise TypeError(f"NodeList: expected an arbor.Scene, got {type(scene).__name__}")
        handles = args.numbers_array(handles, "NodeList: handles", _UINT64, integers=True)
        handles.flags.writeable = False
        self._scene = scene
        self._ids = handles

    @property
    def scene(self):
        """The scene the nodes belong to."""
        return self._scene

    @property
    def handles(self):
        """The C handles, a read-only numpy uint64 array (0 for no node)."""
        return self._ids

    def __len__(self):
        return len(self._ids)

    def __getitem__(self, index):
        """nodes[i] is a Node (None for a file node destroyed since the load; i may be a numpy
        int, negative from the end); nodes[slice], nodes[ints] (a list or numpy array of
        indices, negative from the end, in any order, repeats allowed) and nodes[mask] (booleans,
        one per node) are NodeLists. A float or a bool is not an index (TypeError)."""
        if isinstance(index, slice):
            return NodeList(self._scene, self._ids[index])
        if isinstance(index, (numbers.Integral, np.integer)) and not isinstance(index, (bool, np.bool_)):
            h = int(self._ids[operator.index(index)])     # IndexError beyond either end
            return Node(self._scene, h) if h else None
        if isinstance(index, (bool, np.bool_, str, bytes)) or not isinstance(index, (collections.abc.Sequence,
                                                                                      np.ndarray)):
            raise TypeError(f"NodeList indices are ints, slices, int arrays or boolean masks, not "
                            f"{type(index).__name__}")
        a = np.asarray(index)
        if a.size == 0 and a.dtype.kind != "b":
            a = a.astype(np.intp)
        if a.ndim != 1 or a.dtype.kind not in "biu":
            raise TypeError(f"NodeList indices are ints, slices, int arrays or boolean masks, not an array of "
                            f"{a.dtype} and shape {a.shape}")
        if a.dtype.kind == "b" and len(a) != len(self._ids):
            raise IndexError(f"a boolean mask of {len(a)} for a NodeList of {len(self._ids)}")
        return NodeList(self._scene, self._ids[a])

    def __iter__(self):
        for h in self._ids.tolist():
            yield Node(self._scene, h) if h else None

    def __eq__(self, other):
        if isinstance(other, NodeList):
            return other._scene is self._scene and np.array_equal(other._ids, self._ids)
        if isinstance(other, collections.abc.Sequence) and not isinstance(other, (str, bytes)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return f"<arbor.NodeList of {len(self)} nodes>"


class Scene:
    """A scene: a forest of nodes, their local transforms and world matrices.

    ``Scene(capacity=0, max_depth=0)``: capacity reserves storage for that many nodes up front;
    max_depth limits how deep the tree may grow (0: arbor's default, 2^20).

    The scene owns C memory: ``close()`` frees it (and every player, skin set and pose made from
    it); ``with arbor.Scene() as scene:`` closes it at the end of the block. A closed scene, and
    every Node, Player, Skins and Pose of it, raises :class:`arbor.ClosedError` when used, never crashes.
    Garbage collection closes a scene nobody references any more.

    Threads: a scene is used by one thread at a time, except that after ``update()`` and until
    the next write, reads (``world_matrix``, ``world_matrices``, names, links, TRS) may run on
    many threads at once. Separate scenes are independent. arbor's calls release the GIL.
    """

    def __init__(self, capacity=0, max_depth=0):
        self._ptr = None
        self._docs = []           # every loaded document (arbor_gltf *), freed with the scene
        self._doc = ffi.NULL      # the last loaded one: its file order, clips and skins; save()
        self._dependents = weakref.WeakSet()
        out = ffi.new("arbor_scene **")
        capacity, max_depth = args.index(capacity, "Scene: capacity"), args.index(max_depth, "Scene: max_depth")
        check(lib.ap_scene_create(capacity, max_depth, out))
        self._ptr = out[0]

    def _p(self):
        p = self._ptr
        if p is None:
            raise ClosedError("the scene is closed")
        return p

    # ---- lifetime ----
    def close(self):
        """Frees the scene's C memory, with its players and skins and loaded documents. Safe to
        call twice; every later use raises ClosedError."""
        p = self._ptr
        if p is None:
            return
        for dependent in list(self._dependents):
            dependent._release()
        self._ptr = None
        for doc in self._docs:
            lib.ap_gltf_free(doc)
        self._docs, self._doc = [], ffi.NULL
        lib.ap_scene_destroy(p)

    @property
    def closed(self):
        """True once close() ran."""
        return self._ptr is None

    def __enter__(self):
        self._p()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the module may be half gone
            pass

    # ---- nodes ----
    def _id_of(self, node, what):
        """The handle of node (None: 0), refusing a node of another scene."""
        if node is None:
            return 0
        if not isinstance(node, Node):
            raise TypeError(f"{what}: expected an arbor.Node or None, got {type(node).__name__}")
        if node._scene is not self:
            raise InvalidArgumentError(f"{what}: the node belongs to another scene")
        return node._id

    def _ids_of(self, nodes, what):
        """A uint64 handle array for a NodeList (no copy) or a sequence of Nodes of this scene."""
        if isinstance(nodes, NodeList):
            if nodes._scene is not self:
                raise InvalidArgumentError(f"{what}: the NodeList belongs to another scene")
            return nodes._ids
        if not isinstance(nodes, collections.abc.Iterable) or isinstance(nodes, (str, bytes, Node)):
            raise TypeError(f"{what}: expected a NodeList or a sequence of Nodes, got {type(nodes).__name__}")
        return np.fromiter((self._id_of(n, what) for n in nodes), dtype=_UINT64)

    def add(self, name=None, parent=None, translation=(0, 0, 0), rotation=(0, 0, 0, 1), scale=(1, 1, 1)):
        """Creates a node (the last child of parent, or the last root when parent is None) and
        returns it. Refused, with nothing created: a dead parent, a NaN or infinity, a zero
        quaternion, a tree deeper than max_depth."""
        p = self._p()
        pid = self._id_of(parent, "Scene.add: parent")
        t = args.vector(translation, 3, "Scene.add: translation")
        r = args.vector(rotation, 4, "Scene.add: rotation")
        s = args.vector(scale, 3, "Scene.add: scale")
        if not r.any():
            raise InvalidArgumentError("Scene.add: the rotation has no length")
        trs = np.concatenate([t, r, s]).astype(REAL)
        out = ffi.new("uint64_t *")
        check(lib.ap_node_create(p, _encode(name, "Scene.add: name"), pid, ll.ptr(trs, "arbor_real *"), out))
        return Node(self, out[0])

    def add_many(self, parents, translations=None, rotations=None, scales=None, parent=None):
        """Creates len(parents) unnamed nodes in one call and returns them as a NodeList:
        node i goes under node parents[i] of the same batch (an index below i), or under
        ``parent`` (None: as a root) where parents[i] is -1. translations (N, 3), rotations
        (N, 4) and scales (N, 3) default to the identity; a single row is broadcast. One call
        of arbor_scene_create_nodes. Refused as add is, naming the node's index, with no node
        made."""
        p = self._p()
        under = self._id_of(parent, "Scene.add_many: parent")
        par = args.numbers_array(parents, "Scene.add_many: parents", np.int64, integers=True)
        if par.ndim != 1:
            raise InvalidArgumentError(f"Scene.add_many: parents has shape {par.shape}, expected (N,)")
        n = len(par)
        late = np.nonzero(par >= np.arange(n))[0]
        if len(late):
            i = int(late[0])
            raise InvalidArgumentError(f"Scene.add_many: parents[{i}] = {par[i]} is not -1 or the index of an "
                                       "earlier node of the batch")
        trs = np.empty((n, 10), REAL)
        for lo, hi, value, default, what in ((0, 3, translations, 0, "translations"), (3, 7, rotations, (0, 0, 0, 1),
                                              "rotations"), (7, 10, scales, 1, "scales")):
            try:
                trs[:, lo:hi] = default if value is None else args.numbers_array(value, f"Scene.add_many: {what}", REAL)
            except ValueError as e:     # shapes that do not broadcast
                raise InvalidArgumentError(f"Scene.add_many: {what}: {e}") from None
        nonfinite = np.nonzero(~np.isfinite(trs).all(axis=1))[0]
        if len(nonfinite):
            raise NonFiniteError(f"Scene.add_many: node {int(nonfinite[0])}: its transform holds a NaN or infinity")
        zero = np.nonzero(~trs[:, 3:7].any(axis=1))[0]
        if len(zero):
            raise InvalidArgumentError(f"Scene.add_many: node {int(zero[0])}: the rotation has no length")
        out = np.empty(n, _UINT64)
        bad = ffi.new("uint32_t *")
        rc = lib.ap_add_many(p, under, ll.ptr(par, "int64_t *"), ll.ptr(trs, "arbor_real *"), n,
                             ll.ptr(out, "uint64_t *"), bad)
        if rc:
            where = f"node {bad[0]}: " if bad[0] < n else ""
            raise error_for(rc, f"Scene.add_many: {where}{ll.last_error()}")
        return NodeList(self, out)

    def __len__(self):
        """The number of live nodes."""
        return lib.ap_scene_node_count(self._p())

    @property
    def nodes(self):
        """Every node, parents first (depth-first pre-order over the roots in order), as a
        NodeList (a snapshot)."""
        p = self._p()
        ids = np.empty(lib.ap_scene_node_count(p), _UINT64)
        n = lib.ap_scene_nodes(p, ll.ptr(ids, "uint64_t *"), len(ids))
        return NodeList(self, ids[:n])

    def __iter__(self):
        """Iterates the nodes parents first (a snapshot taken when iteration starts)."""
        return iter(self.nodes)

    @property
    def roots(self):
        """The roots, in order (a list of Nodes)."""
        p = self._p()
        ids = np.empty(lib.ap_scene_node_count(p), _UINT64)
        n = lib.ap_scene_roots(p, ll.ptr(ids, "uint64_t *"), len(ids))
        return [Node(self, int(i)) for i in ids[:n]]

    def tree(self, root=None):
        """The scene (or root's subtree) as text, one node a line, parents first, each child under
        its parent with a branch: ``print(scene.tree())``. A node shows its name, or ``[i]``, its
        place among its siblings (roots among the roots), when it has none."""
        p = self._p()
        nodes = self.nodes._ids.tolist()
        if root is not None:
            top = self._id_of(root, "Scene.tree: root")
            root._s()                                     # DeadNodeError for a destroyed one
            start, depth = nodes.index(top), lib.ap_node_depth(p, top)
            end = next((i for i in range(start + 1, len(nodes)) if lib.ap_node_depth(p, nodes[i]) <= depth),
                       len(nodes))
            nodes = nodes[start:end]
        parents = [lib.ap_node_parent(p, h) for h in nodes]
        last_child = {parent: h for h, parent in zip(nodes, parents)}   # preorder keeps sibling order
        place, lines, path = {}, [], []        # path: (node, is its parent's last child) down to here
        for h, parent in zip(nodes, parents):
            place[parent] = place.get(parent, -1) + 1
            name = ll.string(lib.ap_node_name(p, h))
            if name is None and not path and parent:      # a subtree's unnamed top: its own place
                place[parent] = [c.handle for c in Node(self, parent).children].index(h)
            label = name if name is not None else f"[{place[parent]}]"
            while path and path[-1][0] != parent:
                path.pop()
            if not path:                                  # a root, or the subtree's top
                lines.append(label)
                path.append((h, True))
                continue
            last = last_child[parent] == h
            prefix = "".join("    " if done else "│   " for _, done in path[1:])
            lines.append(prefix + ("└── " if last else "├── ") + label)
            path.append((h, last))
        return "\n".join(lines)

    # ---- time (arbor/time.h) ----
    def _frame(self, node, what):
        if node is None:
            return 0
        if not isinstance(node, Node) or node._scene is not self:
            raise InvalidArgumentError(f"Scene.{what}: expected a Node of this scene or None, got {node!r}")
        node._s()
        return node._id

    def _time_error(self, rc):
        e = ll.error(rc)
        if isinstance(e, ExtrapolationError):
            node, time, first, last = ffi.new("uint64_t *"), ffi.new("double *"), ffi.new("double *"), ffi.new("double *")
            if lib.ap_last_extrapolation(node, time, first, last):
                e.node = Node(self, int(node[0])) if node[0] else None
                e.time, e.first, e.last = time[0], first[0], last[0]
        return e

    def lookup(self, target, source, time):
        """The matrix (4x4, [row, column]) that maps points written in ``source``'s frame at
        ``time`` into ``target``'s frame at ``time`` (target None: the world), every recorded node
        on the path interpolated at ``time`` (arbor/time.h). ``time`` may be ``arbor.LATEST``, or a
        1-D array of times: an (N, 4, 4) array then, in one C call. Raises ExtrapolationError
        (``.node``, ``.time``, ``.first``, ``.last``), NotConnectedError, DeadNodeError."""
        p = self._p()
        t, s = self._frame(target, "lookup"), self._frame(source, "lookup")
        scalar = np.ndim(time) == 0
        times = np.ascontiguousarray(np.atleast_1d(np.asarray(time, dtype=np.float64)))
        if times.ndim != 1:
            raise InvalidArgumentError(f"Scene.lookup: time: expected a number or a 1-D array, got shape {times.shape}")
        out = np.empty((len(times), 16), REAL)
        rc = lib.ap_scene_lookup_many(p, t, s, ll.ptr(times, "double *"), len(times),
                                      ffi.cast("arbor_real *", ffi.from_buffer(out)))
        if rc:
            raise self._time_error(rc)
        m = out.reshape(-1, 4, 4).transpose(0, 2, 1)
        return _readonly(m[0].copy() if scalar else np.ascontiguousarray(m))

    @property
    def time_hold(self):
        """Seconds a lookup may hold a node's first or last sample outside its samples instead of
        raising ExtrapolationError (arbor_scene_set_time_hold); 0, the default: never. Set it
        with no lookups running."""
        return lib.ap_scene_time_hold(self._p())

    @time_hold.setter
    def time_hold(self, tolerance):
        check(lib.ap_scene_set_time_hold(self._p(), float(tolerance)))

    def lookup_between(self, target, target_time, source, source_time, fixed):
        """From ``source`` at ``source_time`` into the frame of ``fixed`` (assumed not to move),
        then to ``target`` at ``target_time``: a 4x4 array (arbor_scene_lookup_between)."""
        p = self._p()
        a, out = ll.real_array(16)
        rc = lib.ap_scene_lookup_between(p, self._frame(target, "lookup_between"), float(target_time),
                                         self._frame(source, "lookup_between"), float(source_time),
                                         self._frame(fixed, "lookup_between"), out)
        if rc:
            raise self._time_error(rc)
        return _matrix_out(a)

    def find(self, path):
        """The node at a path of names from a root down ("/base/joint/arm" or "base/joint/arm";
        the first of equally named siblings), None when nothing matches."""
        h = lib.ap_scene_find(self._p(), _encode(path, "Scene.find"))
        return Node(self, h) if h else None

    def update(self):
        """Makes every world matrix current in one batch, at a cost that follows what changed.
        Reads are right without it; it is what a frame calls once after its writes."""
        lib.ap_scene_update(self._p())

    # ---- many nodes at once ----
    def world_matrices(self, nodes=None):
        """The world matrices of nodes (a NodeList or a sequence of Nodes; None: every node, parents
        first) as a new (N, 4, 4) array indexed [i, row, column]. Its memory holds each matrix
        column-major, as a GPU takes it: ``result.transpose(0, 2, 1)`` is a C-contiguous view of
        those bytes. Refused with DeadNodeError naming the index of a destroyed node."""
        p = self._p()
        ids = self.nodes._ids if nodes is None else self._ids_of(nodes, "Scene.world_matrices")
        out = np.empty((len(ids), 4, 4), REAL)
        check(lib.ap_world_matrices(p, ll.ptr(ids, "uint64_t *"), len(ids), ll.ptr(out, "arbor_real *")))
        return out.transpose(0, 2, 1)

    def _bulk(self, fn, nodes, values, width, what):
        p = self._p()
        ids = self._ids_of(nodes, what)
        v = args.numbers_array(values, f"{what}: values", REAL)   # no copy for a C-contiguous arbor.real array
        if v.shape != (len(ids), width):
            raise InvalidArgumentError(f"{what}: values has shape {v.shape}, expected ({len(ids)}, {width})")
        check(fn(p, ll.ptr(ids, "uint64_t *"), ll.ptr(v, "arbor_real *"), len(ids)))

    def set_translations(self, nodes, values):
        """nodes[i] gets the translation values[i]: one C call for the whole (N, 3) array. With
        a NodeList and a C-contiguous array of dtype ``arbor.real`` nothing is copied. Refused,
        with nothing written: a dead node, a NaN or infinity, a locked node."""
        self._bulk(lib.ap_set_translations, nodes, values, 3, "Scene.set_translations")

    def set_rotations(self, nodes, values):
        """nodes[i] gets the rotation values[i], an (N, 4) array of quaternions (x, y, z, w),
        normalised; as set_translations otherwise (a zero quaternion is refused too)."""
        self._bulk(lib.ap_set_rotations, nodes, values, 4, "Scene.set_rotations")

    def set_scales(self, nodes, values):
        """nodes[i] gets the scale values[i] ((N, 3)); as set_translations otherwise."""
        self._bulk(lib.ap_set_scales, nodes, values, 3, "Scene.set_scales")

    def pose(self, nodes=None):
        """A :class:`Pose` of nodes (a NodeList or a sequence of Nodes, none twice; None: every
        node): writable numpy views ``translations`` (N, 3), ``rotations`` (N, 4) and ``scales``
        (N, 3) of the nodes' TRS in arbor's own memory, stored and brought up to date by
        ``pose.apply()``. Its rows follow ``pose.nodes``: the nodes in arbor's storage order
        (parents first in a scene built parents first), whatever the order of ``nodes``. The
        views are valid until the pose is closed (a context manager; closed with the scene
        too). Refused: a dead node (DeadNodeError), a node given twice (InvalidArgumentError)."""
        ids = None if nodes is None else self._ids_of(nodes, "Scene.pose")
        return Pose(self, ids)

    # ---- culling ----
    def cull(self, camera, aspect=0.0, stats=False):
        """The nodes with bounds (``node.bounds``, or a loaded mesh's) that the camera node's
        frustum does not exclude, parents first, as a NodeList; whole subtrees are accepted or
        rejected by one box test. aspect (width / height) overrides the camera's. With
        stats=True, returns (nodes, box_tests)."""
        p = self._p()
        if not isinstance(camera, Node):
            raise TypeError(f"Scene.cull: camera: expected an arbor.Node, got {type(camera).__name__}")
        cid = self._id_of(camera, "Scene.cull: camera")
        aspect = args.real(aspect, "Scene.cull: aspect")
        ids = np.empty(lib.ap_scene_node_count(p), _UINT64)
        count, tests = ffi.new("uint32_t *"), ffi.new("uint32_t *")
        check(lib.ap_cull(p, cid, aspect, ll.ptr(ids, "uint64_t *"), len(ids), count, tests))
        visible = NodeList(self, ids[:min(count[0], len(ids))])
        return (visible, int(tests[0])) if args.flag(stats, "Scene.cull: stats") else visible

    # ---- files ----
    def _add_doc(self, doc):
        self._docs.append(doc)
        self._doc = doc

    def _doc_or_raise(self, what):
        self._p()
        if self._doc == ffi.NULL:
            raise InvalidArgumentError(f"{what}: no glTF file was loaded into this scene")
        return self._doc

    @property
    def file_nodes(self):
        """The nodes of the last file loaded into the scene, in the file's index order (None where
        a node was destroyed since); an empty NodeList when no file was loaded."""
        self._p()
        if self._doc == ffi.NULL:
            return NodeList(self, np.empty(0, _UINT64))
        n = lib.ap_gltf_nodes(self._doc, ffi.NULL, 0)
        ids = np.empty(n, _UINT64)
        lib.ap_gltf_nodes(self._doc, ll.ptr(ids, "uint64_t *"), n)
        return NodeList(self, ids)

    @property
    def animations(self):
        """The names of the last loaded file's animations, in file order (None for unnamed ones)."""
        self._p()
        doc = self._doc
        if doc == ffi.NULL:
            return []
        return [ll.string(lib.ap_gltf_animation_name(doc, i)) for i in range(lib.ap_gltf_animation_count(doc))]

    def clip(self, animation, pointer=False):
        """The Clip of the last loaded file's animation, by name (the first so named) or index.
        pointer=True also takes KHR_animation_pointer channels on node translation, rotation and
        scale. Its targets are the file's node indices: play it with ``scene.player(clip)``."""
        doc = self._doc_or_raise("Scene.clip")
        names = self.animations
        if isinstance(animation, str):
            if animation not in names:
                raise InvalidArgumentError(f"Scene.clip: the file has no animation named {animation!r} "
                                           f"(it has {', '.join(repr(n) for n in names) or 'none'})")
            index = names.index(animation)
        else:
            index = args.index(animation, "Scene.clip: animation (a name or an index)")
            if not 0 <= index < len(names):
                raise InvalidArgumentError(f"Scene.clip: animation {index} out of range (the file has {len(names)})")
        out = ffi.new("arbor_clip **")
        check(lib.ap_gltf_clip(doc, index, args.flag(pointer, "Scene.clip: pointer"), out))
        return Clip(out[0])

    def player(self, clip, rig=None):
        """A Player of clip on rig (a NodeList or sequence of Nodes indexed by the clip's targets;
        None: ``file_nodes``, the rig of a clip of the loaded file). Each rig node's current TRS
        is its rest pose for blends. Closed with the scene."""
        ids = self.file_nodes._ids if rig is None else self._ids_of(rig, "Scene.player: rig")
        return Player(self, clip, ids)

    def skins(self):
        """The skinned meshes of the last loaded file (every node with a skin and a mesh) as a
        Skins set, whose joint_matrices() are ready for a GPU. Closed with the scene."""
        return Skins(self, self._doc_or_raise("Scene.skins"))

    def save(self, path):
        """Writes the scene as .gltf or .glb (by the extension). With a loaded file, its nodes are
        written in file order, then the nodes created since, and everything else of the file
        (meshes, materials, animations, extensions) passes through. Refused (FileError...) with
        arbor's message; nothing is written then."""
        check(lib.ap_gltf_save(self._p(), self._doc, os.fsencode(path)))

    def __repr__(self):
        return "<arbor.Scene (closed)>" if self._ptr is None else f"<arbor.Scene of {len(self)} nodes>"


def load(path, scene=None, lenient=False):
    """Loads a .gltf or .glb file and returns the scene: a new Scene, or ``scene`` with the
    file's nodes added. ``scene.file_nodes`` then lists the file's nodes in index order.
    lenient=True repairs what the glTF specification forbids (with warnings on stderr) instead of
    refusing it. Refused, with the scene unchanged: FileError (a file cannot be read), ParseError
    (bad JSON or GLB, or a file breaking the specification), UnsupportedError (a required
    extension arbor cannot honour), DepthLimitError; the message names the file, a JSON pointer
    and the reason: ``robot.gltf: /nodes/7/children/1: node 3 already has parent 5``."""
    own = scene is None
    if not own and not isinstance(scene, Scene):
        raise TypeError(f"load: scene: expected an arbor.Scene or None, got {type(scene).__name__}")
    lenient = args.flag(lenient, "load: lenient")
    if own:
        scene = Scene()
    p = scene._p()
    doc = ffi.new("arbor_gltf **")
    rc = lib.ap_gltf_load(p, os.fsencode(path), lenient, doc)
    if rc:
        error = ll.error(rc)   # read before close() makes any other call
        if own:
            scene.close()
        raise error
    scene._add_doc(doc[0])
    return scene
