# SPDX-License-Identifier: MIT
"""arbor's exceptions: one class per result code of the C library, all under arbor.Error."""
import errno as _errno
import os


class Error(Exception):
    """A call arbor refused. ``str(error)`` is arbor's message: the C function (or, for a file,
    the file alone), the place (a node, a path, a JSON pointer) and the reason, e.g.
    ``robot.gltf: /nodes/7/children/1: node 3 already has parent 5``. ``code`` is the C result
    code (an int, ``None`` for errors raised by the Python layer alone) and ``reason`` its
    words ("dead node handle"). A failed call changes nothing."""

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
    """A file could not be read or written (also a URI leaving the file's folder). Where the
    system said why, the error is also the matching OSError subclass, with ``errno``,
    ``strerror`` and ``filename`` (the file that could not be opened: the one given, or a
    buffer or image the glTF file names) set: ``except FileNotFoundError`` catches a missing
    file (arbor.FileNotFoundError), and likewise PermissionError, IsADirectoryError,
    NotADirectoryError and FileExistsError. ``str(error)`` is arbor's message, naming the file
    once: ``cannot open robot.gltf: No such file or directory``."""
    code, reason = 10, "input or output failed"

    def __init__(self, message, code=None, errno=None, filename=None):
        super().__init__(message, code)
        self.errno, self.filename = errno, filename
        self.strerror = os.strerror(errno) if errno else None

    def __str__(self):
        return self.message


def _file_error_class(base):
    return type(base.__name__, (FileError, base), {
        "__module__": "arbor", "__doc__": f"A :class:`FileError` that is a {base.__name__} too."})


#: The FileError subclasses by errno (the OSError subclass Python itself raises for it).
FILE_ERRORS = {code: _file_error_class(type(OSError(code, "")))
               for code in (_errno.ENOENT, _errno.EACCES, _errno.EISDIR, _errno.ENOTDIR, _errno.EEXIST)}
FILE_ERRORS[_errno.EPERM] = FILE_ERRORS[_errno.EACCES]      # both are PermissionError
FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError, FileExistsError = (
    FILE_ERRORS[c] for c in (_errno.ENOENT, _errno.EACCES, _errno.EISDIR, _errno.ENOTDIR, _errno.EEXIST))
# The system's words for each errno: a message ending with them says why a file failed.
_BY_STRERROR = {os.strerror(c): c for c in _errno.errorcode}


class ParseError(Error):
    """The input could not be parsed: bad JSON or GLB framing, or a file that breaks the glTF
    specification (the message has the file, a JSON pointer and the reason)."""
    code, reason = 11, "the input could not be parsed"


class UnsupportedError(Error):
    """Something arbor does not support (a required glTF extension it cannot honour...)."""
    code, reason = 12, "unsupported"


class NotConnectedError(Error):
    """A lookup between two nodes of different trees (arbor/time.h)."""
    code, reason = 13, "the nodes are in different trees"


class ExtrapolationError(Error):
    """A lookup at a time outside a node's samples (arbor/time.h): ``node`` (the Node, or None when
    its scene is unknown here), ``time`` (asked), ``first`` and ``last`` (the node's samples)."""
    code, reason = 14, "the time is outside a node's samples"
    node = time = first = last = None


class ClosedError(Error):
    """The scene (or a player, skins or pose of it) was closed: its C memory is freed. Raised by the
    Python layer, never a crash."""
    reason = "the scene is closed"


_BY_CODE = {cls.code: cls for cls in (InvalidArgumentError, DeadNodeError, CycleError, NotAChildError,
                                      LockedError, SingularError, NonFiniteError, DepthLimitError,
                                      OutOfMemoryError, FileError, ParseError, UnsupportedError,
                                      NotConnectedError, ExtrapolationError)}


def error_for(code, message, file="", pointer=""):
    """The exception for a C result code, carrying message (arbor's) or the code's words. With
    the failure's file (and JSON pointer), the message starts at the file (no C function name)
    and says the file once, and a file error gets its errno and filename."""
    if file and f"{file}: " in message:
        message = message[message.index(f"{file}: "):]
        rest = message[len(file) + 2:]
        if not pointer and file in rest:
            message = rest
    cls = _BY_CODE.get(code, Error)
    if cls is not FileError:
        return cls(message or cls.reason, code)
    return _file_error(message, file, pointer)


def _file_error(message, file, pointer):
    """A FileError of the OSError subclass for the errno whose words end message ("cannot open
    x.bin: No such file or directory"); a directory given to be read is EISDIR."""
    code = next((c for words, c in _BY_STRERROR.items() if message.endswith(": " + words)), None)
    filename = file or None
    if code is not None:
        what = message[:-len(os.strerror(code)) - 2]
        named = what.rsplit(": ", 1)[-1].split(" ", 2)        # "cannot open x.bin"
        if pointer and len(named) == 3 and named[0] == "cannot":
            filename = named[2]                              # a file the glTF file names
    elif file and not pointer and os.path.isdir(file):
        code = _errno.EISDIR
    cls = FILE_ERRORS.get(code, FileError)
    return cls(message, FileError.code, code, filename)
