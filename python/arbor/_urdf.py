# SPDX-License-Identifier: MIT
"""Robots from URDF files (arbor's libarbor-urdf, arbor/urdf.h): joint positions in, every link's
pose out, one configuration in the scene or whole batches in numpy arrays."""
import os
from collections import namedtuple

import numpy as np

from . import _args as args
from . import _lowlevel as ll
from ._anim import _ScenePart
from ._errors import InvalidArgumentError
from ._lowlevel import REAL, check, ffi, lib
from ._scene import Node, Scene

_TYPES = ("fixed", "revolute", "continuous", "prismatic", "floating", "planar")

class Joint(namedtuple("Joint", "name type axis lower upper parent child mimic multiplier offset position_index "
                                "position_count")):
    """One joint of a robot (``robot.joints``, in file order): its name, type ("revolute",
    "continuous", "prismatic", "fixed", "floating", "planar"), unit axis (a float64 array), limits
    lower and upper (None without), the parent and child link names, the name of the joint it
    mimics (None) with multiplier and offset (value = multiplier * master + offset), and where its
    values sit in the joint positions (position_index None and position_count 0 for a fixed or
    mimic joint)."""

    __slots__ = ()


class Robot(_ScenePart):
    """A robot loaded from a URDF file by :func:`load_urdf`: one node a link of ``scene``, named
    as the link, the root link a root. ``links`` names them in tree order (the root first,
    parents before children), the order of :meth:`forward_kinematics`' matrices.

    Joint positions: ``dof`` values, named by ``position_names``, one a revolute, continuous or
    prismatic joint that is not a mimic (radians, meters; a floating joint takes seven, name.x
    .y .z .qx .qy .qz .qw, a planar one three, name.a .b .c). Mimic joints follow their masters.
    ``positions`` reads them; :meth:`set_positions` writes them into the scene in one pass.
    Values outside a joint's limits are refused (InvalidArgumentError naming the joint and its
    limits) unless the robot was loaded with ``clamp=True``; NaN is refused (NonFiniteError);
    a refused call changes nothing.
    """

    __slots__ = ("joints", "links", "position_names", "_index", "_pool", "_pool_threads")
    _free = lib.ap_urdf_free

    def __init__(self, scene, ptr):
        """Use :func:`load_urdf`."""
        self._ptr, self._pool, self._pool_threads = None, None, None
        self._attach(scene, ptr)
        self.links = tuple(ll.string(lib.ap_urdf_link_name(ptr, i)) for i in range(lib.ap_urdf_link_count(ptr)))
        self._index = {name: i for i, name in enumerate(self.links)}
        name, kind = ffi.new("const char **"), ffi.new("int *")
        nums, ints = ffi.new("double[8]"), ffi.new("int32_t[5]")
        joints, names = [], []
        raw = []
        for k in range(lib.ap_urdf_joint_count(ptr)):
            check(lib.ap_urdf_joint(ptr, k, name, kind, nums, ints))
            raw.append((ll.string(name[0]), _TYPES[kind[0]], tuple(nums[0:8]), tuple(ints[0:5])))
        for jname, jtype, n, i in raw:
            limited = n[7] != 0
            joints.append(Joint(jname, jtype, np.array(n[0:3]), n[3] if limited else None, n[4] if limited else None,
                                self.links[i[3]], self.links[i[4]], raw[i[0]][0] if i[0] >= 0 else None,
                                n[5], n[6], i[1] if i[1] >= 0 else None, i[2]))
            if i[2] == 1:
                names.append(jname)
            elif i[2] == 7:
                names += [f"{jname}.{c}" for c in ("x", "y", "z", "qx", "qy", "qz", "qw")]
            elif i[2] == 3:
                names += [f"{jname}.{c}" for c in ("a", "b", "c")]
        self.joints = tuple(joints)
        self.position_names = tuple(names)

    @property
    def scene(self):
        """The scene the links' nodes are in."""
        return self._scene

    @property
    def name(self):
        """The robot's name (the file's <robot name>)."""
        return ll.string(lib.ap_urdf_name(self._p()))

    @property
    def dof(self):
        """How many joint positions the robot takes."""
        return len(self.position_names)

    def link(self, name):
        """The Node of the link named name (KeyError: no such link)."""
        p = self._p()
        if name not in self._index:
            raise KeyError(f"robot {self.name!r} has no link {name!r}")
        return Node(self._scene, lib.ap_urdf_link_node(p, self._index[name]))

    @property
    def positions(self):
        """The current joint positions (a new float64 array of dof values)."""
        out = np.empty(self.dof, np.float64)
        check(lib.ap_urdf_positions(self._p(), ll.ptr(out, "double *"), self.dof))
        return out

    def _row(self, q, what):
        """q as a float64 array of dof values: an array, or a dict of position names to values
        (the others keep their current values)."""
        if isinstance(q, dict):
            row = self.positions
            index = {n: i for i, n in enumerate(self.position_names)}
            for key, value in q.items():
                if key not in index:
                    mimic = next((j.mimic for j in self.joints if j.name == key and j.mimic), None)
                    raise InvalidArgumentError(f"{what}: joint {key!r} " + (
                        f"is a mimic of {mimic!r}: give {mimic!r}" if mimic else
                        f"is not a joint position of robot {self.name!r}"))
                row[index[key]] = value
            return row
        row = np.ascontiguousarray(q, dtype=np.float64)
        if row.shape != (self.dof,):
            raise InvalidArgumentError(f"{what}: expected {self.dof} values, got an array of shape {row.shape}")
        return row

    def set_positions(self, q):
        """Sets the joint positions, from an array of dof values or a dict of position names to
        values (the others kept), and writes every link's local transform and world matrix."""
        row = self._row(q, "Robot.set_positions")
        check(lib.ap_urdf_set_positions(self._p(), ll.ptr(row, "double *"), self.dof))

    def record_positions(self, time, q):
        """Records the joint positions q (as set_positions takes them) as every link's stamped
        sample at ``time`` (seconds), so that ``scene.lookup`` answers where a link was at any
        time between records. A time later than every earlier record also makes q the current
        positions; an earlier one (a late message) only fills the history."""
        t = args.real(time, "Robot.record_positions: time")
        row = self._row(q, "Robot.record_positions")
        check(lib.ap_urdf_record_positions(self._p(), t, ll.ptr(row, "double *"), self.dof))

    def _release(self):
        ll.release_pool(self)
        super()._release()

    def forward_kinematics(self, q, threads=None):
        """Every link's pose, relative to the root link, at each configuration of q (B, dof), or
        of one configuration (dof,): a new (B, links, 4, 4) array (or (links, 4, 4)) indexed
        [config, link, row, column], computed in C without touching the scene. Checked as
        set_positions, every row before anything is computed (the message names the row).
        threads: None or 1, this thread; n > 1, the configurations shared out on a pool of n
        threads kept with the robot (arbor_urdf_forward_kinematics_parallel); 0, one per core.
        The same bits whatever the threads."""
        Q = np.ascontiguousarray(q, dtype=np.float64)
        single = Q.ndim == 1
        Q = Q.reshape(1, -1) if single else Q
        if Q.ndim != 2 or Q.shape[1] != self.dof:
            raise InvalidArgumentError(f"Robot.forward_kinematics: expected shape (B, {self.dof}), got {np.shape(q)}")
        out = np.empty((Q.shape[0], len(self.links), 4, 4), REAL)
        pool = ll.pool(self, threads, "Robot.forward_kinematics")
        check(lib.ap_urdf_forward_kinematics(self._p(), ll.ptr(Q, "double *"), Q.shape[0], ll.ptr(out, "arbor_real *"), pool))
        out = out.transpose(0, 1, 3, 2)  # arbor writes each matrix column-major
        return out[0] if single else out


def load_urdf(path, scene=None, clamp=False):
    """Loads the robot of a URDF file into ``scene`` (None: a new Scene, ``robot.scene``) and
    returns it as a :class:`Robot`. Refused, with the scene unchanged: FileError (the file cannot
    be read), ParseError naming the file, the line and the reason (``arm.urdf: line 12: joint
    'elbow': lower limit 2 is above upper limit 1``), DepthLimitError."""
    own = scene is None
    if not own and not isinstance(scene, Scene):
        raise TypeError(f"load_urdf: scene: expected an arbor.Scene or None, got {type(scene).__name__}")
    if own:
        scene = Scene()
    out = ffi.new("arbor_urdf **")
    rc = lib.ap_urdf_load(scene._p(), os.fsencode(path), bool(clamp), out)
    if rc:
        error = ll.error(rc)
        if own:
            scene.close()
        raise error
    return Robot(scene, out[0])
