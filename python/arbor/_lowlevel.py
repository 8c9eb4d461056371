# SPDX-License-Identifier: MIT
"""The one Python module that touches the compiled extension: ``ffi``, ``lib`` (the C shims of
_build.py), the numpy dtype of arbor_real, and how a result code becomes an exception."""
import numpy as np

from ._arbor_cffi import ffi, lib
from ._errors import error_for

#: numpy dtype of arbor_real, the library's float type (float32 unless built with ARBOR_DOUBLE).
REAL = np.dtype(np.float64 if lib.ap_real_size() == 8 else np.float32)
REAL_C = "arbor_real"

#: Room for a glTF message (the C error struct holds 512 bytes).
MESSAGE_CAP = 1024


def message_buffer():
    """A buffer for the glTF shims' message."""
    return ffi.new("char[]", MESSAGE_CAP)


def last_error(buffer=None):
    """arbor's message of the calling thread's last failed call (or the one a glTF shim wrote
    into buffer): the one place messages are read."""
    text = buffer if buffer is not None else lib.ap_last_error()
    return ffi.string(text).decode("utf-8", "replace")


def check(rc, buffer=None):
    """Raises the arbor.Error subclass of a nonzero result code with arbor's message."""
    if rc:
        raise error_for(rc, last_error(buffer))


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
