"""One run folder is run by one process at a time: an flock on a lock file in it."""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path

from anfperf.errors import AnfperfError

log = logging.getLogger(__name__)

#: The lock file that keeps two processes from running one run folder at once.
LOCK_NAME = ".anfperf-run.lock"


class RunLock:
    """An exclusive lock on a run folder (flock on :data:`LOCK_NAME`, held by this process)."""

    def __init__(self, run_dir: Path, run_id: str):
        self.path = run_dir / LOCK_NAME
        self.run_id = run_id
        self.fd: int | None = None

    def __enter__(self) -> RunLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise AnfperfError(f"{self.path.parent}: cannot be used: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise AnfperfError(
                f"run {self.run_id} in {self.path.parent} is being run by another anfperf "
                f"(pid {holder}): wait for it to end or stop it first"
            ) from None
        try:  # the holder's pid, for the message of a second process; a full disk fails here
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as exc:
            os.close(fd)
            raise AnfperfError(f"{self.path.parent}: cannot be used: {exc.strerror}") from None
        self.fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None


def is_running(run_dir: Path) -> bool:
    """Whether a process holds the run lock of `run_dir` now (False: it is free or absent).

    Tries the lock without waiting and lets it go at once.
    """
    try:
        fd = os.open(run_dir / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing releases a lock taken here
    return False
