# SPDX-License-Identifier: MIT
"""Clips, players and skins (arbor's anim.h)."""
import numpy as np

from . import _args as args
from . import _lowlevel as ll
from ._errors import ClosedError, InvalidArgumentError
from ._lowlevel import REAL, check, ffi, lib


class Clip:
    """An animation's keyframes (a glTF animation), read-only and shared: one clip drives any
    number of players, in any scene. Its channels target indices into a rig (for a clip of a
    file, the file's node indices). Get one with ``scene.clip(name)``; freed when no longer
    referenced (a player keeps its clip alive)."""

    __slots__ = ("_ptr", "__weakref__")

    def __init__(self, ptr):
        self._ptr = ffi.gc(ptr, lib.ap_clip_free)

    @property
    def name(self):
        """The animation's name, None when it has none."""
        return ll.string(lib.ap_clip_name(self._ptr))

    @property
    def duration(self):
        """What the clip lasts, in seconds."""
        return float(lib.ap_clip_duration(self._ptr))

    @property
    def rig_size(self):
        """How many rig entries (nodes) the clip's targets index."""
        return int(lib.ap_clip_rig_size(self._ptr))

    @property
    def channel_count(self):
        """How many channels (animated properties of targets) the clip has."""
        return int(lib.ap_clip_channel_count(self._ptr))

    def __repr__(self):
        return f"<arbor.Clip {self.name!r}, {self.duration:g} s, {self.channel_count} channels>"


class _ScenePart:
    """A C object made for a scene: freed by close(), its finalizer or the scene's close(),
    whichever comes first (arbor frees a scene and its dependents safely in either order), and
    unusable after its scene is closed (ClosedError)."""

    __slots__ = ("_ptr", "_scene", "__weakref__")
    _free = None

    def _attach(self, scene, ptr):
        self._scene = scene
        self._ptr = ptr
        scene._dependents.add(self)

    def _p(self):
        p = self._ptr
        if p is None or self._scene._ptr is None:
            raise ClosedError(f"the {type(self).__name__.lower()} is closed (or its scene is)")
        return p

    def _release(self):
        p, self._ptr = self._ptr, None
        # Also after the scene was freed (a reference cycle is collected in any order): the
        # object is inert then, and its destroy still frees it.
        if p is not None:
            type(self)._free(p)

    def close(self):
        """Frees the C object now (the scene does it otherwise); later uses raise ClosedError."""
        self._scene._dependents.discard(self)
        self._release()

    def __del__(self):
        try:
            self._release()
        except Exception:
            pass


class Player(_ScenePart):
    """One clip playing on one rig of nodes (a character): ``player.apply(time)`` poses the
    nodes as the clip at that time (seconds). Made by ``scene.player(clip, rig)``. Keyframe
    cursors make time moving forward O(1). Refused calls (a rig node destroyed or locked since,
    a time that is not finite) write nothing."""

    __slots__ = ("clip",)
    _free = lib.ap_player_free

    def __init__(self, scene, clip, rig_ids):
        if not isinstance(clip, Clip):
            raise TypeError(f"Scene.player: expected an arbor.Clip, got {type(clip).__name__}")
        out = ffi.new("arbor_player **")
        check(lib.ap_player_create(clip._ptr, scene._p(), ll.ptr(rig_ids, "uint64_t *"), len(rig_ids), out))
        self.clip = clip  # keeps the clip alive as long as the player
        self._attach(scene, out[0])

    def apply(self, time, loop=False):
        """Poses the rig as the clip at time (seconds); loop wraps the time into the clip's
        duration, otherwise the ends hold."""
        time, loop = args.real(time, "Player.apply: time"), args.flag(loop, "Player.apply: loop")
        check(lib.ap_player_apply(self._p(), time, loop))

    def blend(self, time, other, other_time, weight, loop=False):
        """Cross-fade: (1 - weight) * this clip at time + weight * other's clip at other_time
        (translation and scale linear, rotation slerp), weight in [0, 1]; both players of the
        same scene with rigs that agree."""
        if not isinstance(other, Player):
            raise TypeError(f"Player.blend: expected an arbor.Player, got {type(other).__name__}")
        time, other_time = args.real(time, "Player.blend: time"), args.real(other_time, "Player.blend: other_time")
        weight, loop = args.real(weight, "Player.blend: weight"), args.flag(loop, "Player.blend: loop")
        check(lib.ap_player_blend(self._p(), time, other._p(), other_time, weight, loop))

    def add(self, time, weight, loop=False):
        """Additive layer: the clip's change at time from its first keyframes, scaled by weight,
        on top of the current pose."""
        time, weight = args.real(time, "Player.add: time"), args.real(weight, "Player.add: weight")
        check(lib.ap_player_add(self._p(), time, weight, args.flag(loop, "Player.add: loop")))

    def weights(self, target):
        """The morph weights last sampled for rig entry target (a new read-only array), None when
        the clip has no weights channel for it."""
        count = ffi.new("uint32_t *")
        target = args.index(target, "Player.weights: target")
        if target < 0:
            raise InvalidArgumentError(f"Player.weights: target {target} is negative")
        w = lib.ap_player_weights(self._p(), target, count)
        if w == ffi.NULL or count[0] == 0:
            return None
        weights = np.frombuffer(ffi.buffer(w, count[0] * REAL.itemsize), REAL).copy()
        weights.flags.writeable = False
        return weights


def apply_players(players, times, loop=False):
    """Poses many players (each at most once) at times[i] each, in one C call: the crowd's frame.
    Refused as a whole, nothing written, when any player would be."""
    players = list(players)
    bad = next((p for p in players if not isinstance(p, Player)), None)
    if bad is not None:
        raise TypeError(f"apply_players: expected arbor.Players, got {type(bad).__name__}")
    t = args.numbers_array(times, "apply_players: times", np.float64)
    if t.shape != (len(players),):
        raise InvalidArgumentError(f"apply_players: times has shape {t.shape}, expected ({len(players)},)")
    ptrs = ffi.new("arbor_player *[]", [p._p() for p in players])
    check(lib.ap_players_apply(ptrs, ll.ptr(t, "double *"), len(players), args.flag(loop, "apply_players: loop")))


class Skins(_ScenePart):
    """Every skinned mesh of a loaded file (``scene.skins()``): ``joint_matrices()`` writes all
    their joint matrices J = inverse(W_mesh) @ W_joint @ inverse_bind, skin after skin. Joint
    matrix i is that of node ``joints[i]``, with ``inverse_bind_matrices[i]``, for the mesh node
    ``meshes[k]`` of the skin k it belongs to (``first_joint(k)`` is where skin k starts)."""

    __slots__ = ()
    _free = lib.ap_skins_free

    def __init__(self, scene, doc):
        out = ffi.new("arbor_skins **")
        check(lib.ap_gltf_skins(doc, scene._p(), out))
        self._attach(scene, out[0])

    def __len__(self):
        """How many skins."""
        return int(lib.ap_skins_count(self._p()))

    @property
    def joint_count(self):
        """How many joint matrices all skins make together."""
        return int(lib.ap_skins_joint_total(self._p()))

    def first_joint(self, skin):
        """Where skin's first joint matrix is in joint_matrices() (its joints follow in order)."""
        p = self._p()
        skin = args.index(skin, "Skins.first_joint: skin")
        if not 0 <= skin < lib.ap_skins_count(p):
            raise InvalidArgumentError(f"Skins.first_joint: skin {skin} out of range (0..{lib.ap_skins_count(p) - 1})")
        return int(lib.ap_skins_first_joint(p, skin))

    def _skin(self, skin, want_ibm):
        """Skin skin's mesh handle, joint handles and (want_ibm) inverse bind matrices (flat)."""
        p = self._p()
        mesh, count = ffi.new("uint64_t *"), ffi.new("uint32_t *")
        check(lib.ap_skins_skin(p, skin, mesh, ffi.NULL, ffi.NULL, 0, count))
        n = count[0]
        joints = np.empty(n, np.uint64)
        ibm = np.empty(n * 16 if want_ibm else 0, np.float32)
        check(lib.ap_skins_skin(p, skin, mesh, ll.ptr(joints, "uint64_t *"),
                                ll.ptr(ibm, "float *") if want_ibm else ffi.NULL, n, count))
        return mesh[0], joints, ibm

    @property
    def meshes(self):
        """The mesh node of each skin, skin k at k (a NodeList)."""
        from ._scene import NodeList
        return NodeList(self._scene, [self._skin(k, False)[0] for k in range(len(self))])

    @property
    def joints(self):
        """The node of every joint matrix, in joint_matrices() order (a NodeList of joint_count):
        skin after skin, each skin's joints in its file order."""
        from ._scene import NodeList
        ids = [self._skin(k, False)[1] for k in range(len(self))]
        return NodeList(self._scene, np.concatenate(ids) if ids else np.empty(0, np.uint64))

    @property
    def inverse_bind_matrices(self):
        """Every joint's inverse bind matrix (glTF's, identity where the file gives none), in
        joint_matrices() order: a new read-only (J, 4, 4) float32 array indexed [joint, row,
        column]."""
        flats = [self._skin(k, True)[2] for k in range(len(self))]
        flat = np.concatenate(flats) if flats else np.empty(0, np.float32)
        ibm = flat.reshape(-1, 4, 4).transpose(0, 2, 1)
        ibm.flags.writeable = False
        return ibm

    def joint_matrices(self, layout="mat4", out=None):
        """Every joint matrix, as float32: layout "mat4" gives a (J, 4, 4) array indexed
        [joint, row, column] whose memory is column-major per matrix, as GPUs take it
        (``result.transpose(0, 2, 1)`` is C-contiguous); "mat3x4" a C-contiguous (J, 3, 4) array
        of the first three rows. out (optional) is your own C-contiguous float32 buffer of J * 16
        (or J * 12) values, written in place (no allocation; the result is a view of it, valid
        as long as out is). World matrices are read as they stand: cheapest after update()."""
        p = self._p()
        if not isinstance(layout, str):
            raise TypeError(f"Skins.joint_matrices: layout: expected a str, got {type(layout).__name__}")
        if layout not in ("mat4", "mat3x4"):
            raise InvalidArgumentError(f"Skins.joint_matrices: layout {layout!r} is neither 'mat4' nor 'mat3x4'")
        j = lib.ap_skins_joint_total(p)
        width = 16 if layout == "mat4" else 12
        if out is None:
            out = np.empty(j * width, np.float32)
        elif not isinstance(out, np.ndarray):
            raise TypeError(f"Skins.joint_matrices: out: expected a numpy array, got {type(out).__name__}")
        elif not (out.dtype == np.float32 and out.flags.c_contiguous and out.flags.writeable and out.size == j * width):
            raise InvalidArgumentError(f"Skins.joint_matrices: out must be a writable C-contiguous float32 array "
                                       f"of {j * width} values")
        check(lib.ap_skins_compute(p, layout == "mat3x4", ffi.cast("float *", ffi.from_buffer(out)), j))
        flat = out.reshape(-1)
        return flat.reshape(j, 4, 4).transpose(0, 2, 1) if layout == "mat4" else flat.reshape(j, 3, 4)
