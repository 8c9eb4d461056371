# SPDX-License-Identifier: MIT
"""The one Python module that touches the compiled extension: ``ffi``, ``lib`` (the C shims of
../_build.py), the numpy dtype of arbor_real, and how a result code becomes an exception."""
import numpy as np

from ._arbor_cffi import ffi, lib
from ._errors import error_for

#: numpy dtype of arbor_real, the library's float type (float32 unless built with ARBOR_DOUBLE).
REAL = np.dtype(np.float64 if lib.ap_real_size() == 8 else np.float32)
REAL_C = "arbor_real"

def last_error():
    """arbor's message of the calling thread's last failed call: the one place messages are read."""
    return ffi.string(lib.ap_last_error()).decode("utf-8", "replace")


def error(rc):
    """The arbor.Error of the calling thread's last failure, with result code rc: arbor's message,
    starting at the file where there is one (see error_for)."""
    file, pointer = ffi.new("const char **"), ffi.new("const char **")
    lib.ap_last_error_place(file, pointer)
    return error_for(rc, last_error(), string(file[0]) or "", string(pointer[0]) or "")


def check(rc):
    """Raises the arbor.Error subclass of a nonzero result code with arbor's message."""
    if rc:
        raise error(rc)


def string(ptr):
    """A C string as str, None for NULL."""
    return None if ptr == ffi.NULL else ffi.string(ptr).decode("utf-8", "replace")


def real_array(n):
    """A new numpy array of n arbor_reals and a cdata pointer into it."""
    a = np.empty(n, REAL)
    return a, ffi.cast("arbor_real *", ffi.from_buffer(a))


def ptr(array, ctype):
    """A cdata pointer to a C-contiguous numpy array's data (no copy)."""
    return ffi.cast(ctype, ffi.from_buffer(array, require_writable=False))


def pool(owner, threads, what):
    """The thread pool of ``owner`` (a Pose or a Robot, slots _pool and _pool_threads) for
    ``threads``: NULL for None or 1 (this thread); else a pool of that many threads (0: one per
    core), made on first use and kept with the owner until another count is asked for or the
    owner is released (release_pool)."""
    from . import _args as args
    from ._errors import InvalidArgumentError

    threads = 1 if threads is None else args.index(threads, f"{what}: threads")
    if threads == 1:
        return ffi.NULL
    if threads < 0:
        raise InvalidArgumentError(f"{what}: threads = {threads} is negative")
    if owner._pool is None or owner._pool_threads != threads:
        out = ffi.new("arbor_pool **")
        check(lib.ap_pool_create(threads, out))
        release_pool(owner)
        owner._pool, owner._pool_threads = out[0], threads
    return owner._pool


def release_pool(owner):
    """Frees the pool ``pool`` made for owner, if any."""
    p, owner._pool = owner._pool, None
    if p is not None:
        lib.ap_pool_free(p)

