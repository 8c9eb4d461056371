# SPDX-License-Identifier: MIT
"""What every public entry point takes, checked in one place. A wrong type raises TypeError, as
numpy and the standard library do (a str is not a number, a float or a bool not an index); a
right type with a wrong shape or value raises InvalidArgumentError (a ValueError). numpy scalars
are taken wherever Python's are."""
import numbers
import operator

import numpy as np

from ._errors import InvalidArgumentError

_NUMBER_KINDS = "iuf"     # numpy dtype kinds of numbers (not bool 'b', str 'U', object 'O'...)


def _name(value):
    return type(value).__name__


def real(value, what):
    """value (an int or float, Python's or numpy's) as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.ndarray)) or \
            (isinstance(value, np.ndarray) and (value.ndim or value.dtype.kind not in _NUMBER_KINDS)):
        raise TypeError(f"{what}: expected a number, got {_name(value)}")
    return float(value)


def index(value, what):
    """value (an int, Python's or numpy's; not a bool) as an int."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what}: expected an int, got {_name(value)}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: expected an int, got {_name(value)}") from None


def flag(value, what):
    """value (a bool, or an int used as one) as a bool."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return bool(index(value, what))


def text(value, what):
    """value (a str) as UTF-8 bytes without NUL; None stays None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{what}: expected a str, got {_name(value)}")
    b = value.encode("utf-8")
    if b"\0" in b:
        raise InvalidArgumentError(f"{what}: {value!r} holds a NUL character")
    return b


def numbers_array(value, what, dtype, integers=False):
    """value (an array or nested sequences of numbers; integers only when integers) as a numpy
    array of dtype, without a copy when it already is one."""
    try:
        a = np.asarray(value)
    except (TypeError, ValueError) as e:     # ragged nesting
        raise InvalidArgumentError(f"{what}: {e}") from None
    kinds = "iu" if integers else _NUMBER_KINDS
    if a.dtype.kind not in kinds and a.size:
        if a.dtype.kind == "O":
            bad = [v for v in a.ravel() if isinstance(v, (bool, np.bool_)) or
                   not isinstance(v, numbers.Integral if integers else numbers.Real)]
            if not bad:       # numbers numpy keeps as objects (Python ints beyond 64 bits...)
                return np.ascontiguousarray(a, dtype=dtype)
            raise TypeError(f"{what}: expected {'ints' if integers else 'numbers'}, got {_name(bad[0])}")
        raise TypeError(f"{what}: expected {'ints' if integers else 'numbers'}, got an array of {a.dtype}")
    return np.ascontiguousarray(a, dtype=dtype)


def vector(value, n, what):
    """value as n float64s (arbor checks finiteness)."""
    a = numbers_array(value, what, np.float64)
    if a.shape != (n,):
        raise InvalidArgumentError(f"{what}: expected {n} numbers, got an array of shape {a.shape}")
    return a
