"""Output folders: made, and checked to take files, before any work goes into them.

A command that measures for minutes or runs a notebook should learn that its output folder is
read-only, on a full or missing mount, or a file, before it starts, and say so in one line
naming the folder, not with an ``OSError`` traceback at the end.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from anfperf.errors import AnfperfError


def atomic_write(
    path: str | os.PathLike,
    write: Callable[[BinaryIO], object],
    *,
    temporary: Callable[[Path], tuple[Path, BinaryIO]] | None = None,
) -> Path:
    """Write `path` through `write(file)` so that readers see the old or the new file, never a part.

    `write` fills a temporary file beside `path`, which is flushed to disk and renamed over it
    (while still open: a temporary that a lock marks as a live writer's stays marked until
    renamed); the folder is flushed too, so that after a crash the rename is there or the old
    file is. A failure leaves `path` as it was and no temporary behind.

    Parameters
    ----------
    path : path-like
        The file to write (its folder is made when missing).
    write : callable
        ``write(file)``: writes the content to an open binary file.
    temporary : callable, optional
        ``temporary(path) -> (name, open file)``: where the content goes first; default a new
        ``.<name>.<random>.tmp`` beside `path` (the store passes its locked temporaries).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp, fh = (temporary or _temporary)(path)
    with fh:
        try:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)  # gone after the rename; a failed write's is removed
    fsync_folder(path.parent)
    return path


def _temporary(path: Path) -> tuple[Path, BinaryIO]:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    return Path(tmp), os.fdopen(fd, "wb")


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """:func:`atomic_write` of `data`: readers see the old or the new file, never a part."""
    return atomic_write(path, lambda fh: fh.write(data))


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries to disk: a file renamed or made in it is there after a crash."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # a folder that cannot be opened for reading: the rename stands anyway
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def os_reason(exc: OSError, path: str | os.PathLike) -> str:
    """What `exc` says is wrong with `path`, in words: the system's message, and the file it
    names when that is not `path` itself (a parent folder, a temporary file)."""
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        reason = "a file is in the way (not a folder)"
    else:
        reason = exc.strerror or str(exc)
    named = exc.filename
    if named is not None and os.fspath(named) != os.fspath(path):
        reason += f" ({os.fsdecode(named)})"
    return reason


def output_folder(path: str | os.PathLike, *, what: str, make: bool = True) -> Path:
    """`path` as a folder that takes files: made with its parents when missing, and tried.

    Whether it takes files is tried for real (an unnamed temporary file, gone when closed):
    root ignores permission bits, so only a write shows a read-only mount.

    Parameters
    ----------
    path : path-like
        The folder.
    what : str
        What goes into it, for the error (``"the report"``, ``"the run"``).
    make : bool, default True
        Make the folder. False makes nothing (for a check before work that may not happen):
        where `path` is missing, the nearest folder above it that exists is tried instead.

    Returns
    -------
    pathlib.Path
        `path`.

    Raises
    ------
    anfperf.AnfperfError
        Naming `path` and what is wrong (read-only, no such parent, permission, a file in the
        way).
    """
    folder = Path(path)
    tried = folder
    try:
        if make:
            folder.mkdir(parents=True, exist_ok=True)
        else:
            while not tried.exists() and tried.parent != tried:
                tried = tried.parent
            if not tried.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, "Not a directory", str(tried))
    except OSError as exc:
        raise AnfperfError(
            f"{folder}: cannot write {what} there: {os_reason(exc, folder)}"
        ) from None
    try:
        with tempfile.TemporaryFile(dir=tried):
            pass
    except OSError as exc:  # (not the probe's own name: the folder is what to fix)
        where = f" ({tried})" if tried != folder else ""
        raise AnfperfError(f"{folder}: cannot write {what} there: {exc.strerror}{where}") from None
    return folder
