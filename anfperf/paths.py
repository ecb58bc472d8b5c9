"""One path is one path: the argument every reader, report and CLI command takes as "paths".

A ``str`` or ``os.PathLike`` names one file or folder; only a list, tuple or other iterable
of them names several. Without this, ``read_many('/x/run.json')`` iterated the string and read
'/', 'x', ... from the root of the file system.

:func:`check_relative` is what a task's file and output names may be (:class:`anfperf.tools.HostTask`,
collection): relative paths that stay inside their folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import PurePosixPath

from anfperf.errors import AnfperfError

PathArg = str | os.PathLike | Iterable[str | os.PathLike]


def path_list(paths: PathArg | None, what: str = "paths") -> list[str | os.PathLike]:
    """`paths` as a list: one path as a list of one, an iterable of paths as a list.

    Parameters
    ----------
    paths : str, os.PathLike, iterable of them, or None
        None gives an empty list.
    what : str
        The argument's name, for the error.

    Raises
    ------
    anfperf.AnfperfError
        An item that is not a path (a number, None, bytes, a mapping, ...), or an empty one.
    """
    if paths is None:
        return []
    if isinstance(paths, str | os.PathLike):
        items = [paths]
    elif isinstance(paths, bytes | bytearray) or not isinstance(paths, Iterable):
        raise AnfperfError(f"{what}: expected a path or a list of paths, got {_shown(paths)}")
    elif isinstance(paths, dict):
        raise AnfperfError(f"{what}: expected a path or a list of paths, got a mapping")
    else:
        items = list(paths)
    for item in items:
        if not isinstance(item, str | os.PathLike):
            raise AnfperfError(f"{what}: {_shown(item)} is not a path (a file or folder name)")
        if not os.fspath(item):
            raise AnfperfError(f"{what}: an empty path")
    return items


def _shown(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"


def is_utf8(text: str) -> bool:
    """Whether `text` can be written as UTF-8: not the lone surrogates Python makes of bytes
    in another encoding (a file name, a command-line argument)."""
    if text.isascii():  # (the bulk case: checked for thousands of files)
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable_path(path: str | os.PathLike) -> str:
    """A path as text that can be stored and printed: bytes that are not UTF-8 (a file system
    allows any) become ``\\xNN`` escapes instead of lone surrogates no encoder accepts."""
    text = os.fsdecode(path)
    if is_utf8(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def check_relative(path: str, what: str = "path") -> str:
    """`path` when it is a plain relative POSIX path that stays below its folder."""
    if not isinstance(path, str) or not path or "\0" in path or "\\" in path:
        raise ValueError(f"{what} {path!r} is not a relative path")
    pure = PurePosixPath(path)
    if pure.is_absolute() or any(part in ("..", "") for part in pure.parts) or path.startswith("-"):
        raise ValueError(f"{what} {path!r} must be relative and stay inside its folder")
    return pure.as_posix()
