"""The run ledger: ``data/raw/<run_id>/manifest.json`` and the journal of what changed since.

A manifest records what ran, where and how it ended, so that a report can always be re-made and
``--resume`` knows what is missing::

    {
      "manifest_version": 1,
      "run_id": "20240501T101500Z-RndRead",   # anfperf.ingest takes run ids from here
      "status": "running" | "complete" | "partial" | "interrupted",
      "created": ISO time, "updated": ISO time, "anfperf_version": "...",
      "journal_seq": n,                         # the last journal entry written into it
      "tool": "fio", "workloads": [...],        # the workload specs as given by the planner
      "hosts": {host: {hostname, port, user, jump, local, volumes, workdir,
                       "facts": {preflight facts, tool versions}, "problems": [...]}},
      "steps": [{"name": ..., "workload": ..., "duration_s": ..., "start_skew_s": ...,
                 "tasks": {host: {"argv", "command", "files", "outputs", "timeout_s",
                                  "status", "reason", "exit_code", "start", "end",
                                  "elapsed_s", "collected", "attempts", "tool_version"}}}]
    }

Task status is one of :data:`TASK_STATES`; only ``'ok'`` counts as done.

The manifest is written whole at the start and the end of a run, on top-level changes, and when
its journal has grown as large as itself: each time to a temporary file in the same folder,
flushed to disk and renamed over the old one, so a crash leaves the previous complete manifest,
never a torn one. In between, each change a host reports is one line appended to the journal
(:data:`~anfperf.schema.MANIFEST_JOURNAL_NAME`) and flushed to disk -- a few hundred bytes,
where a 1,000-host manifest is 1.5 MB -- and reading a manifest
(:func:`anfperf.schema.read_manifest`, :meth:`Manifest.load`) applies them: a run killed at any
moment leaves a manifest and a journal that say everything recorded until then.

While a run is going, a reserve file (:data:`RESERVE_NAME`) holds space for the ledger: when the
disk fills up, the reserve is given back so that the ledger can still say truthfully what
happened. A change that cannot be written even so stays in memory and is written with the next
whole manifest.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import json
import logging
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from anfperf.errors import AnfperfError, ParseError
from anfperf.folders import atomic_write_bytes, fsync_folder
from anfperf.runner.runlock import LOCK_NAME
from anfperf.runner.runlog import RUN_LOG_NAME
from anfperf.runner.security import check_folder_name
from anfperf.schema import (
    AGGREGATE_HOST,
    LIVE_LOG_NAME,
    MANIFEST_JOURNAL_NAME,
    MAX_MANIFEST_MIB,
    RESERVED_HOST_NAMES,
    apply_journal,
    read_journal,
)
from anfperf.schema import MANIFEST_NAME as MANIFEST_NAME  # the runner writes what it names
from anfperf.userfiles import read_user_file

log = logging.getLogger(__name__)
#: Space kept free for the ledger while a run is going: at least this, and more for large
#: manifests (a manifest of 24 hosts x 20 steps takes about 300 KiB, of 1,000 hosts 1.5 MB).
RESERVE_NAME = ".anfperf-reserve"
RESERVE_BYTES = 1 << 20
#: Every name the run folder ``<out>/<run_id>/`` gives its own files beside the ``<host>/``
#: folders, and the aggregate's (:data:`~anfperf.schema.RESERVED_HOST_NAMES`): no host may be
#: called so, in any case (a case-insensitive file system takes 'Run.LOG' for 'run.log', and a
#: host's folder there would take the log's place). Names starting with '.' (the journal, the
#: lock, the reserve, the manifest's temporaries) are no folder names of hosts anyway.
RUN_FOLDER_NAMES = tuple(
    dict.fromkeys(
        (
            *RESERVED_HOST_NAMES,
            RUN_LOG_NAME,
            LIVE_LOG_NAME,
            MANIFEST_JOURNAL_NAME,
            LOCK_NAME,
            RESERVE_NAME,
        )
    )
)
_RESERVED_LOWER = frozenset(name.lower() for name in RUN_FOLDER_NAMES)
#: The journal is folded into the manifest once it is as large as the manifest, or this.
JOURNAL_MIN_BYTES = 256 << 10
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


def check_host_folder_name(name: str, seen: dict[str, str] | None = None) -> str:
    """`name` when it can name a host's folder in a run folder, else ValueError (why).

    A safe folder name (:func:`~anfperf.runner.security.check_folder_name`), none of
    :data:`RUN_FOLDER_NAMES` in any case, and, given the names `seen` so far (lower case ->
    name; `name` is added), none that differs from it only in case: their folders would be
    one on a case-insensitive file system.
    """
    check_folder_name(name, "host name")
    if name.lower() in _RESERVED_LOWER:
        raise ValueError(
            f"host name {name!r} is reserved ({', '.join(map(repr, RUN_FOLDER_NAMES))}, in any "
            f"case: the run's folder names its own files so, and '{AGGREGATE_HOST}' is the "
            "aggregate across hosts in results): rename the host"
        )
    if seen is not None and (first := seen.setdefault(name.lower(), name)) != name:
        raise ValueError(
            f"host names {first!r} and {name!r} differ only in case: their folders would be "
            "one on a case-insensitive file system; rename one"
        )
    return name


def now_iso() -> str:
    """The current UTC time, ISO 8601 with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


class Manifest:
    """A run's ledger, kept on disk: every change is written at once (see the module docstring).

    Thread-safe: the fleet's per-host threads record their results as they arrive.

    Parameters
    ----------
    run_dir : path
        ``<out>/<run_id>``; the manifest is ``run_dir / 'manifest.json'``.
    data : dict
        The manifest's content (see the module docstring).

    Attributes
    ----------
    checkpoints, journal_entries, bytes_written : int
        Whole writes of the manifest, journal lines and the bytes of both written so far.
    """

    def __init__(self, run_dir: str | os.PathLike, data: dict[str, Any]):
        self.run_dir = Path(run_dir)
        self._data = data
        self._lock = threading.RLock()
        seq = data.get("journal_seq")
        self._seq = seq if isinstance(seq, int) else 0
        self._journal: int | None = None  # its file descriptor, open for appending
        self._journal_bytes = 0
        self._manifest_bytes = 0
        self._unsaved = False  # a change neither file holds: the next change writes it whole
        self._warned: set[str] = set()
        self.checkpoints = self.journal_entries = self.bytes_written = 0

    @property
    def path(self) -> Path:
        return self.run_dir / MANIFEST_NAME

    @property
    def journal_path(self) -> Path:
        return self.run_dir / MANIFEST_JOURNAL_NAME

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
        """Read the manifest of an earlier run with its journal (for ``--resume``)."""
        path = Path(run_dir) / MANIFEST_NAME
        journal = path.with_name(MANIFEST_JOURNAL_NAME)
        text = read_journal(journal)  # first: see read_journal
        raw = read_user_file(path, what="a manifest", max_mib=MAX_MANIFEST_MIB)
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(path, f"not a valid manifest: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
            raise ParseError(path, "not an anfperf run manifest (no 'steps')")
        return cls(run_dir, apply_journal(data, text))

    def write(self) -> Path:
        """Write the manifest whole, atomically (its journal folded in), using the reserve when
        the disk is full.

        Raises
        ------
        anfperf.AnfperfError
            The manifest cannot be written even with the reserve given back (the state in
            memory stays complete; a later write may succeed).
        """
        with self._lock:
            self._data["updated"] = now_iso()
            self._data["journal_seq"] = self._seq
            text = (json.dumps(self._data, indent=2, sort_keys=False, default=str) + "\n").encode()
            self._with_reserve(lambda: atomic_write_bytes(self.path, text), self.path)
            self._manifest_bytes = len(text)
            self.checkpoints += 1
            self.bytes_written += len(text)
            self._unsaved = False
            # the manifest holds every entry now: the journal may go (a crash before it is gone
            # leaves entries numbered up to journal_seq, which readers skip)
            self._close_journal()
            try:
                os.unlink(self.journal_path)
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("%s: cannot be removed: %s", self.journal_path, exc.strerror or exc)
            return self.path

    def close(self) -> None:
        """Close the journal's file (the manifest object can still write later)."""
        with self._lock:
            self._close_journal()

    def _close_journal(self) -> None:
        if self._journal is not None:
            os.close(self._journal)
            self._journal = None
            self._journal_bytes = 0

    def _with_reserve(self, write, path: Path):
        """`write()`, once more with the reserve given back if the disk is full."""
        try:
            return write()
        except OSError as exc:
            if exc.errno not in DISK_FULL or not self.release_reserve():
                raise AnfperfError(f"{path}: cannot be written: {exc.strerror or exc}") from None
            log.warning("%s: the disk is full: using the space held in reserve", self.run_dir)
        try:
            return write()
        except OSError as exc:
            raise AnfperfError(f"{path}: cannot be written: {exc.strerror or exc}") from None

    def _change(self, at: list[Any], fields: dict[str, Any]) -> None:
        """Apply `fields` to the object at path `at` and record the change on disk."""
        with self._lock:
            target: Any = self._data
            for key in at:
                target = target.setdefault(key, {}) if isinstance(target, dict) else target[key]
            target.update(fields)
            self._seq += 1
            try:
                if self._unsaved or self._journal_bytes > max(JOURNAL_MIN_BYTES,
                                                              self._manifest_bytes):  # fmt: skip
                    self.write()
                else:
                    entry = {"seq": self._seq, "at": at, "set": fields}
                    line = (json.dumps(entry, default=str) + "\n").encode()
                    self._with_reserve(lambda: self._append(line), self.journal_path)
            except AnfperfError as exc:
                # the run goes on; what is in memory is written whole at the next change
                self._unsaved = True
                if str(exc) not in self._warned:
                    self._warned.add(str(exc))
                    log.warning("%s (kept in memory: written when it can be)", exc)

    def _append(self, line: bytes) -> None:
        """Append one journal line and flush it to disk; nothing of it stays if that fails."""
        if self._journal is None:
            if self.journal_path.exists():
                # left by an earlier process (its last line may be torn): fold it into the
                # manifest, which then holds this change too, and start a new one
                self.write()
                return
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND
            self._journal, self._journal_bytes = os.open(self.journal_path, flags, 0o644), 0
            fsync_folder(self.run_dir)  # the journal's name is on disk too
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._journal, view) :]
            os.fsync(self._journal)
        except OSError:
            with contextlib.suppress(OSError):  # no torn line before the next one
                os.ftruncate(self._journal, self._journal_bytes)
            raise
        self._journal_bytes += len(line)
        self.journal_entries += 1
        self.bytes_written += len(line)

    def reserve(self, size: int | None = None) -> None:
        """Hold `size` bytes on the run's disk for later ledger writes (see :meth:`write`).

        Default: :data:`RESERVE_BYTES`, or room for the manifest written twice and as much
        journal when that is more.
        """
        if size is None:
            size = max(RESERVE_BYTES, 3 * self._manifest_bytes)
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
        """Set top-level fields and write the manifest whole.

        Raises
        ------
        anfperf.AnfperfError
            It cannot be written (see :meth:`write`).
        """
        with self._lock:
            self._data.update(fields)
            self.write()

    def task(self, step: int, host: str) -> dict[str, Any]:
        """A copy of one task's record."""
        with self._lock:
            return dict(self._data["steps"][step]["tasks"][host])

    def update_task(self, step: int, host: str, **fields: Any) -> None:
        """Merge `fields` into one task's record and journal the change."""
        self._change(["steps", step, "tasks", host], fields)

    def update_step(self, step: int, **fields: Any) -> None:
        self._change(["steps", step], fields)

    def insert_step(self, index: int, record: dict[str, Any]) -> None:
        """Insert a step's record before step `index` (an adaptive sweep's next step) and
        write the manifest whole: journal entries name steps by their place.

        Raises
        ------
        anfperf.AnfperfError
            It cannot be written (see :meth:`write`).
        """
        with self._lock:
            self._data["steps"].insert(index, record)
            self.write()

    def update_host(self, host: str, **fields: Any) -> None:
        self._change(["hosts", host], fields)

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
