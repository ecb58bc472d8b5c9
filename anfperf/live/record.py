"""The live record of a run: ``<out>/<run_id>/live.jsonl``, the figures shown while it went on.

The controller appends one JSON object a line as figures arrive (:class:`LiveLog`); a notebook
reads it, whole (:func:`read_live`) or line by line as it grows (:class:`LiveFollower`), from
another process if need be: watching a run never touches it. Each line is one of::

    {"kind": "step", "event": "start" | "end", "step": 0, "name": "RndRead", "wall": 1764331000.5}
    {"kind": "interval", "step": 0, "wall": ..., "host": "vm01", "t_s": 3.0, "span_s": 1.0,
     "ios": 5120, "iops": 5120.0, "bw_mib_s": 20.0, "lat_mean_ms": 0.78, "read_iops": 5120.0,
     "write_iops": 0.0, "read_bw_mib_s": 20.0, "write_bw_mib_s": 0.0}
    {"kind": "alarm", "step": 0, "wall": ..., "alarm": "slow", "host": "vm03", "at_s": 4.1,
     "value": 310.0, "threshold": 3584.0, "text": "vm03: 310 IOPS, 94% below ..."}
    {"kind": "run", "event": "end", "status": "complete", "wall": ...}

`wall` is the controller's clock when it wrote the line [s since the epoch]; an interval's
fields are :class:`~anfperf.live.fio_stream.Interval`'s, an alarm's
:class:`~anfperf.live.fleet.Alarm`'s (its kind under ``alarm``: ``kind`` is the line's). A
missing value (a latency not measured) is ``null``.

The record is what was shown, not what was measured: it is never ingested (the raw outputs and
the manifest are the run's record), so writing it must never cost the run anything. A write
that fails (the disk full, a quota, any ``OSError``) logs one warning and ends the record; the
run goes on. A line cut by a crash is left out by the readers, never an error.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anfperf.jsonable import jsonable
from anfperf.live.fio_stream import Interval
from anfperf.live.fleet import Alarm
from anfperf.schema import LIVE_LOG_NAME

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "LIVE_LOG_NAME", "RECORD_KINDS", "LIVE_COLUMNS", "LiveLog", "read_live", "LiveFollower",
    "live_path",
]  # fmt: skip

log = logging.getLogger(__name__)


def __dir__() -> list[str]:
    return sorted(__all__)


#: What each line's ``kind`` says.
RECORD_KINDS = {
    "step": "a step started or ended (event 'start' or 'end')",
    "interval": "one host's figures over one interval of a step",
    "alarm": "an alarm raised while a step ran",
    "run": "the run ended (event 'end', with its status)",
}
_INTERVAL_FIELDS = tuple(f.name for f in dataclasses.fields(Interval))
_ALARM_FIELDS = tuple("alarm" if f.name == "kind" else f.name for f in dataclasses.fields(Alarm))
#: The columns of :func:`read_live`'s frame, in order, and their dtypes.
LIVE_COLUMNS: dict[str, str] = {
    "kind": "object", "event": "object", "step": "Int64", "name": "object", "wall": "float64",
    **{f: ("object" if f == "host" else "Int64" if f == "ios" else "float64")
       for f in _INTERVAL_FIELDS},
    "alarm": "object", "at_s": "float64", "value": "float64", "threshold": "float64",
    "text": "object", "status": "object",
}  # fmt: skip
#: Errors that mean the disk (or the user's quota) is full.
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def live_path(path_or_run_dir: str | os.PathLike) -> Path:
    """The record's file: `path_or_run_dir` itself when it is a file or named ``*.jsonl``, else
    ``live.jsonl`` in it (a run folder, which need not exist yet)."""
    path = Path(path_or_run_dir)
    return path if path.suffix == ".jsonl" or path.is_file() else path / LIVE_LOG_NAME


class LiveLog:
    """Appends a run's live record, ``<run_dir>/live.jsonl``, as figures arrive.

    Every method may be called from any thread (each host's runs in its own): each line is one
    ``write`` of the whole line to a file opened for appending, unbuffered, under a lock, so
    lines never interleave and a reader in another process sees each as soon as it is written.
    The file is opened at the first line; a run folder whose record ends in a line cut by a
    crash (a resumed run) gets that line ended first, so that it stays one bad line.

    Nothing here raises into the run: a write that fails logs one warning (the disk full, or any
    other ``OSError``), the line cut short by it is taken back where possible, and nothing more
    is written. :attr:`failed` says so.

    Parameters
    ----------
    run_dir : str or os.PathLike
        The run's folder ``<out>/<run_id>/``.
    clock : callable
        Seconds since the epoch of each line's ``wall`` (tests give their own).

    Examples
    --------
    >>> record = LiveLog(run_dir)  # doctest: +SKIP
    >>> record.step(0, "RndRead", "start")  # doctest: +SKIP
    >>> for interval in stream.feed(chunk):  # doctest: +SKIP
    ...     record.interval(0, interval)
    >>> record.end("complete"); record.close()  # doctest: +SKIP
    """

    def __init__(
        self, run_dir: str | os.PathLike, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = Path(run_dir) / LIVE_LOG_NAME
        self._clock = clock
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._closed = False
        #: The OSError that ended the record, if one did.
        self.failed: OSError | None = None
        #: Lines written.
        self.lines = 0

    # ------------------------------------------------------------------ what the run says

    def step(self, index: int, name: str, event: str) -> None:
        """Step `index` (`name`) started (`event` 'start') or ended ('end')."""
        if event not in ("start", "end"):
            raise ValueError(f"event must be 'start' or 'end', got {event!r}")
        self._write({"kind": "step", "event": event, "step": index, "name": name})

    def interval(self, step: int, interval: Interval | Mapping[str, Any]) -> None:
        """A host's :class:`~anfperf.live.fio_stream.Interval` in step `step`."""
        fields = _as_dict(interval)
        self._write({"kind": "interval", "step": step, **fields})

    def alarm(self, step: int, alarm: Alarm | Mapping[str, Any]) -> None:
        """An :class:`~anfperf.live.fleet.Alarm` raised in step `step` (its kind as ``alarm``)."""
        fields = dict(alarm.as_dict() if isinstance(alarm, Alarm) else alarm)
        self._write({"kind": "alarm", "step": step, "alarm": fields.pop("kind", None), **fields})

    def end(self, status: str) -> None:
        """The run ended with `status` ('complete', 'partial', 'interrupted', ...)."""
        self._write({"kind": "run", "event": "end", "status": status})

    def close(self) -> None:
        """Close the file; lines given after are dropped."""
        with self._lock:
            self._closed = True
            self._close_fd()

    def __enter__(self) -> LiveLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    def _write(self, record: dict[str, Any]) -> None:
        with self._lock:
            if self._closed or self.failed is not None:
                return
            record["wall"] = self._clock()
            line = (json.dumps(jsonable(record), ensure_ascii=False) + "\n").encode()
            start = None
            try:
                if self._fd is None:
                    self._fd = self._open()
                start = os.lseek(self._fd, 0, os.SEEK_END)
                view = memoryview(line)
                while view:  # a short write (a disk filling up) is followed by the rest or an error
                    written = os.write(self._fd, view)
                    view = view[written:]
            except OSError as exc:
                self._fail(exc, start)
                return
            self.lines += 1

    def _open(self) -> int:
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                os.write(fd, b"\n")  # a line cut by a crash stays one line, not the start of ours
        except OSError:
            os.close(fd)
            raise
        return fd

    def _fail(self, exc: OSError, start: int | None) -> None:
        self.failed = exc
        if self._fd is not None and start is not None:
            try:
                os.ftruncate(self._fd, start)  # take back a line cut short by the failure
            except OSError:
                pass  # the readers leave a cut line out anyway
        self._close_fd()
        full = " (the disk is full)" if exc.errno in _DISK_FULL else ""
        log.warning(
            "%s: live figures no longer recorded%s: %s; the run goes on, its raw outputs are "
            "its record", self.path, full, exc.strerror or exc,
        )  # fmt: skip

    def _close_fd(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.close(fd)
            except OSError:
                pass


def _as_dict(item: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return dataclasses.asdict(item)
    return dict(item)


# ---------------------------------------------------------------------- reading


def _parse_line(line: bytes) -> dict | None:
    """One line's record, or None for a line that is not one (cut by a crash, or noise)."""
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except ValueError:
        log.debug("a live record line that is not JSON skipped: %.80r", line)
        return None
    return record if isinstance(record, dict) and "kind" in record else None


def read_live(path_or_run_dir: str | os.PathLike) -> pd.DataFrame:
    """A run's live record as a frame, one row per line, in the order written.

    Parameters
    ----------
    path_or_run_dir : str or os.PathLike
        The run's folder, or its ``live.jsonl``.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`LIVE_COLUMNS` (any further keys after them): ``kind``,
        ``event``, ``step``, ``name``, ``wall`` [s since the epoch], the interval's (``host``,
        ``t_s`` [s], ``span_s`` [s], ``ios``, ``iops`` [1/s], ``bw_mib_s`` [MiB/s],
        ``lat_mean_ms`` [ms], the read and write rates), the alarm's (``alarm``, its kind;
        ``at_s`` [s], ``value``, ``threshold``, ``text``) and the run's ``status``; blank (NaN,
        None, <NA>) where a line has no such field. A missing file gives no rows; a last line
        without its newline (being written, or cut by a crash) and lines that are not JSON are
        left out.
    """
    import pandas as pd

    path = live_path(path_or_run_dir)
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        data = b""
    complete = data[: data.rfind(b"\n") + 1]
    records = [r for r in map(_parse_line, complete.splitlines()) if r is not None]
    frame = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    extra = [c for c in frame.columns if c not in LIVE_COLUMNS]
    frame = frame.reindex(columns=[*LIVE_COLUMNS, *extra])
    for column, dtype in LIVE_COLUMNS.items():
        if dtype == "object":
            frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
        else:
            frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(dtype)
    return frame


class LiveFollower:
    """Reads a live record as it grows: each :meth:`poll` returns the lines completed since.

    It keeps its place in the file (a byte offset) and holds a line not yet ended until its
    newline arrives. The file may not exist yet (the run not started): a poll returns nothing
    until it does. A file that shrank (a new record in its place) is read again from its start.

    Parameters
    ----------
    path : str or os.PathLike
        The record, or the run's folder.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = live_path(path)
        self.offset = 0  # bytes of the file read, the held tail included
        self._tail = b""

    def poll(self) -> list[dict]:
        """The records of the lines completed since the last poll, in order."""
        try:
            with open(self.path, "rb") as file:
                size = os.fstat(file.fileno()).st_size
                if size < self.offset:
                    log.info("%s: the live record shrank: read again from its start", self.path)
                    self.offset, self._tail = 0, b""
                file.seek(self.offset)
                data = file.read()
        except FileNotFoundError:
            return []
        self.offset += len(data)
        data = self._tail + data
        end = data.rfind(b"\n") + 1
        self._tail = data[end:]
        return [r for r in map(_parse_line, data[:end].splitlines()) if r is not None]

    @property
    def pending_bytes(self) -> int:
        """Bytes of a line not yet ended, held for the next poll."""
        return len(self._tail)
