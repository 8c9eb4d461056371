# SPDX-License-Identifier: MIT
"""arbor's exceptions: one class per result code of the C library, all under arbor.Error."""


class Error(Exception):
    """A call arbor refused. ``str(error)`` is arbor's message: the function or file, the place
    (a node, a path, a JSON pointer) and the reason, e.g. ``robot.gltf: /nodes/7/children/1:
    node 3 already has parent 5``. ``code`` is the C result code (an int, ``None`` for errors
    raised by the Python layer alone) and ``reason`` its words ("dead node handle"). A failed
    call changes nothing."""

    code = None
    reason = "error"

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self):
        """arbor's message (the same as ``str(error)``)."""
        return self.args[0] if self.args else ""


class InvalidArgumentError(Error, ValueError):
    """An argument arbor cannot use (a wrong shape, a zero quaternion, an unknown name...)."""
    code, reason = 1, "invalid argument"


class DeadNodeError(Error):
    """The node was destroyed (or never belonged to this scene)."""
    code, reason = 2, "dead node handle"


class CycleError(Error):
    """The link would make a ring (a node under itself or its own descendant)."""
    code, reason = 3, "the link would make a ring"


class NotAChildError(Error):
    """The 'before' sibling is not a child of the new parent."""
    code, reason = 4, "the 'before' node is not a child of the new parent"


class LockedError(Error):
    """The node's local matrix is locked (a glTF ``matrix`` node): its TRS cannot be written."""
    code, reason = 5, "the node's local matrix is locked"


class SingularError(Error):
    """A matrix that had to be inverted cannot be."""
    code, reason = 6, "the matrix cannot be inverted"


class NonFiniteError(Error, ValueError):
    """A NaN or an infinity was given."""
    code, reason = 7, "a NaN or infinity was given"


class DepthLimitError(Error):
    """The link would make the tree deeper than the scene's max_depth."""
    code, reason = 8, "the link would exceed the scene's maximum depth"


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed; nothing changed."""
    code, reason = 9, "out of memory"


class FileError(Error, OSError):
    """A file could not be read or written (also a URI leaving the file's folder)."""
    code, reason = 10, "input or output failed"


class ParseError(Error):
    """The input could not be parsed: bad JSON or GLB framing, or a file that breaks the glTF
    specification (the message has the file, a JSON pointer and the reason)."""
    code, reason = 11, "the input could not be parsed"


class UnsupportedError(Error):
    """Something arbor does not support (a required glTF extension it cannot honour...)."""
    code, reason = 12, "unsupported"


class ClosedError(Error):
    """The scene (or a player, skins or pose of it) was closed: its C memory is freed. Raised by the
    Python layer, never a crash."""
    reason = "the scene is closed"


_BY_CODE = {cls.code: cls for cls in (InvalidArgumentError, DeadNodeError, CycleError, NotAChildError,
                                      LockedError, SingularError, NonFiniteError, DepthLimitError,
                                      OutOfMemoryError, FileError, ParseError, UnsupportedError)}


def error_for(code, message):
    """The exception for a C result code, carrying message (arbor's) or the code's words."""
    cls = _BY_CODE.get(code, Error)
    return cls(message or cls.reason, code)
