# SPDX-License-Identifier: MIT
"""The pose path (arbor's pose.h): many nodes' TRS as writable numpy views of arbor's own memory."""
import numpy as np

from . import _lowlevel as ll
from ._anim import _ScenePart
from ._lowlevel import REAL, check, ffi, lib


class Pose(_ScenePart):
    """A fixed set of nodes whose TRS you write in place, in arbor's own memory, then store and
    bring up to date with one call, :meth:`apply`. Make one with ``scene.pose(nodes)``
    (``nodes=None``: every node)::

        with scene.pose(joints) as pose:         # once
            for t in frames:                     # every frame
                pose.rotations[:] = sample(t)    # (N, 4), no copy
                pose.apply()                     # stores them, computes the world matrices
                scene.update()                   # anything below the pose

    Row i of ``translations`` (N, 3), ``rotations`` (N, 4, x, y, z, w) and ``scales`` (N, 3)
    is ``nodes[i]``'s: index the arrays by ``pose.nodes``, the nodes in arbor's storage order
    when the pose was made (parents first in a scene built parents first), whatever the order
    given. It stays that order when the scene later renumbers its storage (apply is fastest in
    storage order: make the pose again to get it back). The rows start as the nodes' current
    TRS, and :meth:`read` reloads them.

    The three arrays are writable strided views (dtype ``arbor.real``) of one C array of
    (translation, rotation, scale) rows: no copy either way. They stay valid until the pose is
    closed (``close()``, the end of a ``with`` block, or its scene's close); after that the
    memory is freed, and a view still held reads freed memory. Drop them with the pose, or take
    ``.copy()`` to keep values. Every other use of a closed pose raises :class:`ClosedError`.

    What apply leaves is exactly what writing every node's TRS one by one would (rotations
    normalised alike), bit for bit. It checks every value first: a NaN or infinity
    (:class:`NonFiniteError`), an all-zero rotation (:class:`InvalidArgumentError`), a node
    locked (:class:`LockedError`) or destroyed (:class:`DeadNodeError`) since is refused with
    nothing stored, the message naming the pose index and the node.
    """

    __slots__ = ("_trs", "_pool", "_pool_threads")
    _free = lib.ap_pose_free

    def __init__(self, scene, ids):
        """Use ``scene.pose(nodes)``; ids: a uint64 handle array, or None for every node."""
        self._ptr, self._trs, self._pool, self._pool_threads = None, None, None, None
        p = scene._p()
        out = ffi.new("arbor_pose **")
        if ids is None:
            check(lib.ap_pose_create(p, ffi.NULL, 0, True, out))
        else:
            check(lib.ap_pose_create(p, ll.ptr(ids, "uint64_t *"), len(ids), False, out))
        self._attach(scene, out[0])
        n = lib.ap_pose_count(out[0])
        if n:
            buffer = ffi.buffer(lib.ap_pose_trs(out[0]), n * 10 * REAL.itemsize)
            self._trs = np.frombuffer(buffer, dtype=REAL).reshape(n, 10)
        else:
            self._trs = np.empty((0, 10), REAL)

    def _release(self):
        ll.release_pool(self)
        self._trs = None
        super()._release()

    def __enter__(self):
        self._p()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def closed(self):
        """True once the pose (or its scene) was closed."""
        return self._ptr is None or self._scene._ptr is None

    def __len__(self):
        """How many nodes the pose has."""
        return int(lib.ap_pose_count(self._p()))

    @property
    def nodes(self):
        """The pose's nodes as a NodeList, row i of the arrays being nodes[i]'s: arbor's storage
        order when the pose was made, whatever the order given."""
        from ._scene import NodeList
        p = self._p()
        n = lib.ap_pose_count(p)
        ids = np.frombuffer(ffi.buffer(lib.ap_pose_nodes(p), 8 * n), dtype=np.uint64) if n else ()
        return NodeList(self._scene, np.array(ids, dtype=np.uint64))

    def _view(self, lo, hi):
        self._p()
        return self._trs[:, lo:hi]

    @property
    def translations(self):
        """(N, 3) writable view of the nodes' translations in arbor's memory; valid until the pose
        is closed (see the class)."""
        return self._view(0, 3)

    @translations.setter
    def translations(self, values):
        self.translations[...] = values

    @property
    def rotations(self):
        """(N, 4) writable view of the nodes' rotations (x, y, z, w), need not be unit (apply
        normalises them); valid until the pose is closed."""
        return self._view(3, 7)

    @rotations.setter
    def rotations(self, values):
        self.rotations[...] = values

    @property
    def scales(self):
        """(N, 3) writable view of the nodes' scales; valid until the pose is closed."""
        return self._view(7, 10)

    @scales.setter
    def scales(self, values):
        self.scales[...] = values

    def read(self):
        """Reloads the arrays with the nodes' current TRS (after per-node or bulk writes, an
        animation player, a refused apply). Refused for a node destroyed since."""
        check(lib.ap_pose_read(self._p()))

    def apply(self, threads=None):
        """Checks the arrays, stores them as the nodes' TRS and computes the nodes' world
        matrices in one pass. threads: None or 1, this thread; n > 1, a pool of n threads kept
        with the pose; 0, one per core. The same bits whatever the threads. Refused with
        nothing stored (see the class); nodes below the pose but not in it are current after
        ``scene.update()`` or a read, as after any write."""
        p = self._p()
        check(lib.ap_pose_apply(p, ll.pool(self, threads, "Pose.apply")))

    def record(self, time):
        """Records every entry (``trs``) as a sample of its node at ``time``; an entry later than
        its node's other samples also becomes its current TRS (as arbor_node_set_trs sets it),
        and a late one leaves it as it is (arbor_pose_record)."""
        check(lib.ap_pose_record(self._p(), float(time)))

    def __repr__(self):
        return "<arbor.Pose (closed)>" if self.closed else f"<arbor.Pose of {len(self)} nodes>"

