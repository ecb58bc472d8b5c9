"""Files users name, read whole at a bounded cost; only regular files.

A volume's JSON, a prices file, an inventory, a workload file, a manifest: anfperf reads each
whole, so each is bounded (``/dev/zero`` given as a volume filled 23 GB before the kernel
killed it). And only a regular file is opened for reading as one: a named pipe blocks
``open`` until a writer comes (forever), a device never ends. The file is opened without
blocking and checked on its open descriptor, so nothing can swap it in between.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable

from anfperf.errors import ParseError
from anfperf.units import BYTES_PER_MIB

__all__ = [
    "MAX_DESCRIPTION_MIB",
    "mib_text",
    "not_regular_reason",
    "open_regular",
    "read_regular",
    "read_user_file",
    "special_file_reason",
]

#: Largest description file read whole by default [MiB]: volume, pool and price JSON, Azure
#: Monitor metrics, inventories, workload files, manifests, report parameters. Real ones are
#: kilobytes to a few MiB (a Retail Prices page of 1,000 items is about 1 MiB).
MAX_DESCRIPTION_MIB = 64

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular_reason(mode: int) -> str | None:
    """Why a file of this ``st_mode`` is not read (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"is {kind}, not a regular file"


def special_file_reason(path: str | os.PathLike) -> str | None:
    """Why `path` is neither a file to read nor a folder: a FIFO, a device, a socket.

    None for a regular file, a folder, and a path that cannot be looked at (missing: whoever
    opens it names that). Only ``stat``: nothing is opened, so a FIFO is never waited on.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISDIR(mode) else not_regular_reason(mode)


def open_regular(path: str | os.PathLike, source: str | None = None) -> int:
    """An open, read-only descriptor of `path`, which must be a regular file.

    Opened with ``O_NONBLOCK`` (a FIFO opens at once instead of waiting for a writer) and
    checked on the descriptor (``fstat``), then set back to blocking reads.

    Raises
    ------
    anfperf.ParseError
        Naming the file: missing, a folder, a FIFO, a device, a socket, or unreadable.
    """
    source = source if source is not None else os.fsdecode(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ParseError(source, "no such file") from None
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            raise ParseError(source, "is a folder, not a file") from None
        raise ParseError(source, f"cannot be read: {exc.strerror or exc}") from None
    try:
        reason = not_regular_reason(os.fstat(fd).st_mode)
        if reason is not None:
            raise ParseError(source, reason)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_user_file(
    path: str | os.PathLike,
    *,
    what: str,
    max_mib: float = MAX_DESCRIPTION_MIB,
    source: str | None = None,
) -> bytes:
    """The whole of a regular file of at most `max_mib` MiB.

    Parameters
    ----------
    path : path-like
        The file.
    what : str
        What the file should be, for the error (``"a volume's JSON"``, ``"an inventory"``).
    max_mib : float
        The largest size read [MiB]; a larger file is refused before it is read.
    source : str, optional
        The name used in errors (default: the path).

    Raises
    ------
    anfperf.ParseError
        Naming the file: not a regular file, missing, unreadable, or larger than `max_mib`.
    """
    source = source if source is not None else os.fsdecode(path)
    limit = int(max_mib * BYTES_PER_MIB)

    def too_big(n_bytes: int) -> ParseError:
        why = f"{mib_text(n_bytes)}, more than the {max_mib:g} MiB anfperf reads of {what}"
        return ParseError(source, f"{why}: not {what}?")

    data = read_regular(path, limit, source=source, too_big=too_big)
    if len(data) > limit:  # it grew while it was read
        raise too_big(len(data))
    return data


def read_regular(
    path: str | os.PathLike,
    limit_bytes: int,
    *,
    source: str,
    too_big: Callable[[int], ParseError],
) -> bytes:
    """A regular file's bytes, refused by its size before it is read: at most `limit_bytes`
    plus one (more means it grew meanwhile: the caller says so).

    Raises
    ------
    anfperf.ParseError
        :func:`open_regular`'s, ``too_big(size)`` for a file larger than `limit_bytes`, or
        "cannot be read".
    """
    fd = open_regular(path, source)
    try:
        with open(fd, "rb") as fh:
            size = os.fstat(fd).st_size
            if size > limit_bytes:
                raise too_big(size)
            # read(limit + 1) would allocate the whole limit for every small file
            data = fh.read(size + 1)
            if len(data) > size:  # it grew meanwhile (or st_size is 0: /proc)
                data += fh.read(limit_bytes + 1 - len(data))
    except OSError as exc:
        raise ParseError(source, f"cannot be read: {exc.strerror or exc}") from None
    return data


def mib_text(n_bytes: int) -> str:
    """A size in MiB as a person reads it: 2,048 MiB; 0.000286 MiB (never a bare '0 MiB')."""
    mib = n_bytes / BYTES_PER_MIB
    return f"{mib:,.0f} MiB" if mib >= 10 else f"{mib:.3g} MiB"
