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
