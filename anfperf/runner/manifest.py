"""The run ledger: ``data/raw/<run_id>/manifest.json``, rewritten atomically as results arrive.

A manifest records what ran, where and how it ended, so that a report can always be re-made and
``--resume`` knows what is missing::

    {
      "manifest_version": 1,
      "run_id": "20240501T101500Z-RndRead",   # anfperf.ingest takes run ids from here
      "status": "running" | "complete" | "partial" | "interrupted",
      "created": ISO time, "updated": ISO time, "anfperf_version": "...",
      "tool": "fio", "workloads": [...],        # the workload specs as given by the planner
      "hosts": {host: {hostname, port, user, jump, local, volumes, workdir,
                       "facts": {preflight facts, tool versions}, "problems": [...]}},
      "steps": [{"name": ..., "workload": ..., "duration_s": ..., "start_skew_s": ...,
                 "tasks": {host: {"argv", "command", "files", "outputs", "timeout_s",
                                  "status", "reason", "exit_code", "start", "end",
                                  "elapsed_s", "collected", "attempts", "tool_version"}}}]
    }

Task status is one of :data:`TASK_STATES`; only ``'ok'`` counts as done. Each write goes to a
temporary file in the same folder, is flushed to disk and renamed over the old manifest, so a
crash leaves the previous complete manifest, never a torn one. While a run is going, a reserve
file (:data:`RESERVE_NAME`) holds space for the manifest: when the disk fills up, the reserve is
given back so that the ledger can still say truthfully what happened.
"""

from __future__ import annotations

import copy
import errno
import json
import logging
import os
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from anfperf.errors import AnfperfError, ParseError
from anfperf.schema import MANIFEST_NAME as MANIFEST_NAME  # the runner writes what it names

log = logging.getLogger(__name__)
#: Space kept free for the manifest while a run is going (a manifest of 24 hosts x 20 steps
#: takes about 300 KiB).
RESERVE_NAME = ".anfperf-reserve"
RESERVE_BYTES = 1 << 20
#: Errors that mean the local disk cannot take more data.
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
MANIFEST_VERSION = 1
#: 'pending' not run yet; 'ok' ran and exited 0 with its outputs collected; 'failed' non-zero
#: exit or missing outputs; 'unreachable' no connection (or refused authentication / host key);
#: 'timeout' ran past its timeout and was stopped; 'lost' the connection dropped mid-run;
#: 'interrupted' stopped by Ctrl-C; 'skipped' not tried because the host was down earlier.
TASK_STATES = (
    "pending", "ok", "failed", "unreachable", "timeout", "lost", "interrupted", "skipped",
)  # fmt: skip


def now_iso() -> str:
    """The current UTC time, ISO 8601 with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write `data` to `path` so that readers see the old or the new file, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    """:func:`atomic_write_bytes` of `obj` as indented JSON."""
    text = json.dumps(obj, indent=2, sort_keys=False, default=str) + "\n"
    return atomic_write_bytes(path, text.encode("utf-8"))


class Manifest:
    """A run's ledger, kept on disk: every change is written at once, atomically.

    Thread-safe: the fleet's per-host threads record their results as they arrive.

    Parameters
    ----------
    run_dir : path
        ``<out>/<run_id>``; the manifest is ``run_dir / 'manifest.json'``.
    data : dict
        The manifest's content (see the module docstring).
    """

    def __init__(self, run_dir: str | os.PathLike, data: dict[str, Any]):
        self.run_dir = Path(run_dir)
        self._data = data
        self._lock = threading.RLock()

    @property
    def path(self) -> Path:
        return self.run_dir / MANIFEST_NAME

    @property
    def run_id(self) -> str:
        return self._data["run_id"]

    @property
    def data(self) -> dict[str, Any]:
        """A deep copy of the content (safe to read while hosts are still reporting)."""
        with self._lock:
            return copy.deepcopy(self._data)

    @property
    def status(self) -> str:
        return self._data.get("status", "running")

    @classmethod
    def load(cls, run_dir: str | os.PathLike) -> Manifest:
        """Read the manifest of an earlier run (for ``--resume``)."""
        path = Path(run_dir) / MANIFEST_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ParseError(path, f"cannot be read: {exc.strerror or exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(path, f"not a valid manifest: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
            raise ParseError(path, "not an anfperf run manifest (no 'steps')")
        return cls(run_dir, data)

    def write(self) -> Path:
        """Write the manifest atomically, using the reserve when the disk is full.

        Raises
        ------
        anfperf.AnfperfError
            The manifest cannot be written even with the reserve given back (the state in
            memory stays complete; a later write may succeed).
        """
        with self._lock:
            self._data["updated"] = now_iso()
            try:
                return atomic_write_json(self.path, self._data)
            except OSError as exc:
                if exc.errno not in DISK_FULL or not self.release_reserve():
                    raise AnfperfError(
                        f"{self.path}: cannot be written: {exc.strerror or exc}"
                    ) from None
                log.warning("%s: the disk is full: using the space held in reserve", self.run_dir)
            try:
                return atomic_write_json(self.path, self._data)
            except OSError as exc:
                raise AnfperfError(
                    f"{self.path}: cannot be written: {exc.strerror or exc}"
                ) from None

    def reserve(self, size: int = RESERVE_BYTES) -> None:
        """Hold `size` bytes on the run's disk for later manifest writes (see :meth:`write`)."""
        path = self.run_dir / RESERVE_NAME
        try:
            with open(path, "wb") as fh:
                fh.write(b"\0" * size)  # written, not sparse: the blocks are really taken
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            path.unlink(missing_ok=True)
            log.warning("%s: no space held for the manifest: %s", self.run_dir, exc.strerror)

    def release_reserve(self) -> bool:
        """Give the reserved space back; True when there was a reserve."""
        try:
            os.unlink(self.run_dir / RESERVE_NAME)
        except FileNotFoundError:
            return False
        return True

    def update(self, **fields: Any) -> None:
        """Set top-level fields and write."""
        with self._lock:
            self._data.update(fields)
            self.write()

    def task(self, step: int, host: str) -> dict[str, Any]:
        """A copy of one task's record."""
        with self._lock:
            return dict(self._data["steps"][step]["tasks"][host])

    def update_task(self, step: int, host: str, **fields: Any) -> None:
        """Merge `fields` into one task's record and write."""
        with self._lock:
            self._data["steps"][step]["tasks"][host].update(fields)
            self.write()

    def update_step(self, step: int, **fields: Any) -> None:
        with self._lock:
            self._data["steps"][step].update(fields)
            self.write()

    def update_host(self, host: str, **fields: Any) -> None:
        with self._lock:
            self._data["hosts"].setdefault(host, {}).update(fields)
            self.write()

    def tasks(self) -> list[tuple[int, str, dict[str, Any]]]:
        """(step index, host, task record) for every task, in run order."""
        with self._lock:
            return [
                (i, host, dict(task))
                for i, step in enumerate(self._data["steps"])
                for host, task in step["tasks"].items()
            ]

    def failures(self) -> list[tuple[str, str, str, str]]:
        """(step name, host, status, reason) of every task that is not 'ok'."""
        return [
            (self._data["steps"][i]["name"], host, t["status"], t.get("reason") or "")
            for i, host, t in self.tasks()
            if t["status"] != "ok"
        ]
