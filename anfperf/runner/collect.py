"""Collecting a run's outputs from a host into ``data/raw/<run_id>/<host>/``.

Outputs are named relative to the run's folder on the host; each may be a file (fio's JSON) or a
folder (a Vdbench output directory). One ``find`` lists the files, then each is copied to a
temporary name beside its destination and renamed, so a result file is either complete or
absent, even if the connection drops half-way or the local disk fills up.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from anfperf.errors import AnfperfError
from anfperf.runner.security import check_relative, inside, quote

log = logging.getLogger(__name__)

#: Errors of a local write that no retry over the network can fix.
LOCAL_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)


class LocalSaveError(AnfperfError):
    """Outputs arrived but could not be saved here (disk full, read-only, no permission);
    ``errno`` and ``strerror`` say which, as those of an OSError."""

    def __init__(self, message: str, errno: int | None = None, strerror: str | None = None):
        super().__init__(message)
        self.errno = errno
        self.strerror = strerror


def collect(
    conn,
    workdir: str,
    outputs: Sequence[str],
    dest: str | os.PathLike,
    on_file: Callable[[str], None] | None = None,
) -> tuple[list[str], list[str]]:
    """Copy `outputs` from `workdir` on the host of `conn` into `dest`.

    Parameters
    ----------
    conn : fabric.Connection or anfperf.runner.local.LocalConnection
        An open connection to the host.
    workdir : str
        The run's folder on the host.
    outputs : sequence of str
        Files or folders relative to `workdir`.
    dest : path
        Local folder; the outputs keep their relative paths below it.
    on_file : callable, optional
        Called with each file's relative path once it is saved.

    Returns
    -------
    collected : list of str
        Relative paths of the files copied.
    missing : list of str
        Outputs that do not exist on the host (or hold no files).

    Raises
    ------
    LocalSaveError
        A file could not be saved in `dest` (disk full, read-only, no permission); no partial
        file is left behind.
    Exception
        Whatever the connection raises when the host cannot be reached (the caller records it).
    """
    if not outputs:
        return [], []
    roots = [check_relative(o, "output") for o in outputs]
    files = _list_files(conn, workdir, roots)
    dest = Path(dest)
    collected = []
    for rel in files:
        _fetch(conn, workdir, rel, dest)
        collected.append(rel)
        if on_file is not None:
            on_file(rel)
    missing = [r for r in roots if not any(f == r or f.startswith(r + "/") for f in files)]
    if missing:
        log.info("%s: outputs missing: %s", getattr(conn, "original_host", conn), missing)
    return collected, missing


def _list_files(conn, workdir: str, roots: list[str]) -> list[str]:
    """The files below `roots` in `workdir` on the host, relative to `workdir`."""
    command = (
        f"cd -- {quote(workdir)} && find {' '.join(quote('./' + r) for r in roots)} -type f -print0"
    )
    listing = conn.run(command, hide=True, warn=True, in_stream=False)
    return [f[2:] for f in listing.stdout.split("\0") if f.startswith("./")]


def _fetch(conn, workdir: str, rel: str, dest: Path) -> None:
    """Copy file `rel` into `dest` under a temporary name, then rename: whole or absent."""
    target = inside(dest, rel)
    partial = target.with_name(f".{target.name}.partial")
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _save_error(dest, exc) from None
        conn.get(f"{workdir.rstrip('/')}/{rel}", local=str(partial))
        os.replace(partial, target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        if exc.errno in LOCAL_WRITE_ERRORS:
            raise _save_error(dest, exc) from None
        raise
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _save_error(dest: Path, exc: OSError) -> LocalSaveError:
    return LocalSaveError(f"cannot save in {dest}: {exc.strerror or exc}", exc.errno, exc.strerror)
