"""The run's log file, ``<out>/<run_id>/run.log``: the details kept off the console.

A host that cannot be reached is one line on the console (its reason, in the manifest too);
what paramiko says about it -- an ``ERROR`` line and a traceback block for every host whose
SSH server does not greet -- goes to the run's log file instead, with every host event of the
run (:data:`details`) and the runner's warnings. Each connection logs under its host's name
(:func:`ssh_log_channel`: ``paramiko.transport.<host>``). Before a run has a folder
(preflight), paramiko's records are held in memory (:func:`held_ssh_log`) and written into the
log when the run starts: every host's first failure whole (its ``ERROR`` line and traceback,
however many hosts failed), other records up to :data:`HELD_RECORDS`, dropped whole and oldest
first, and a count of what was left out.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import Counter, deque
from collections.abc import Iterator
from pathlib import Path

#: File name of the log in the run's folder (ingest skips ``*.log``).
RUN_LOG_NAME = "run.log"
#: Where the runner logs what belongs in the run's log file only: every host's events and the
#: tracebacks of unexpected errors (during a run it does not reach the console).
details = logging.getLogger("anfperf.runner.details")
#: Records held before a run has a folder, besides each host's first failure (kept whole
#: whatever their number): at most this many, the last ones, dropped a whole entry at a time.
HELD_RECORDS = 20_000
_FORMAT = "%(asctime)s %(levelname)s [%(threadName)s] %(name)s: %(message)s"
_SSH_LOGGER = "paramiko"
#: Log channel of a host's connection -> the host (:func:`ssh_log_channel`).
_channels: dict[str, str] = {}
_holders: list[_Held] = []


def ssh_log_channel(host: str) -> str:
    """The paramiko log channel of `host`'s connections (``paramiko.transport.<host>``): its
    records say which host they are about, and its first failure is held whole."""
    name = f"{_SSH_LOGGER}.transport.{host}"
    _channels[name] = host
    return name


def _host_of(logger_name: str) -> str | None:
    """The host a paramiko logger is about (its SFTP channel's too), else None."""
    return _channels.get(logger_name) or _channels.get(logger_name.removesuffix(".sftp"))


class _Entry:
    """What one thread logged in a row under one logger at one level."""

    __slots__ = ("seq", "records", "kind")

    def __init__(self, seq: int, record: logging.LogRecord, kind: str) -> None:
        self.seq = seq
        self.records = [record]
        self.kind = kind  # 'first' (a host's first failure), 'other', 'repeat' or 'dropped'


class _Held:
    """Records held for the run's log, in entries (:class:`_Entry`): paramiko logs an error as
    an ``Exception`` line and then its traceback a line a record, all one entry, never split.

    Each host's first ``ERROR`` entry is kept whole; its later ones are counted; the other
    entries are kept among the last `max_records` records (the oldest dropped whole).
    """

    def __init__(self, max_records: int) -> None:
        self.max_records = max_records
        self.lock = threading.Lock()
        self.firsts: dict[str, _Entry] = {}  # host -> its first failure
        self.others: deque[_Entry] = deque()
        self.other_records = 0
        self.dropped = 0  # other records left out for the bound
        self.repeats: Counter[str] = Counter()  # host -> later failures left out
        self.open: dict[tuple[int | None, str | None], _Entry] = {}  # thread -> its entry
        self.seq = 0
        self.taken = False  # the run's log has them: hold no more

    def add(self, record: logging.LogRecord) -> None:
        with self.lock:
            if self.taken:
                return
            thread = (record.thread, record.threadName)
            entry = self.open.get(thread)
            first = entry.records[0] if entry is not None else None
            if first is None or (first.name, first.levelno) != (record.name, record.levelno):
                self.open[thread] = self._new_entry(record)
            elif entry.kind in ("first", "other"):
                entry.records.append(record)
                if entry.kind == "other":
                    self.other_records += 1
                    self._bound_others()
            elif entry.kind == "dropped":
                self.dropped += 1

    def _new_entry(self, record: logging.LogRecord) -> _Entry:
        self.seq += 1
        host = _host_of(record.name) if record.levelno >= logging.ERROR else None
        if host is not None and host not in self.firsts:
            self.firsts[host] = entry = _Entry(self.seq, record, "first")
        elif host is not None:
            self.repeats[host] += 1
            entry = _Entry(self.seq, record, "repeat")
        else:
            entry = _Entry(self.seq, record, "other")
            self.others.append(entry)
            self.other_records += 1
            self._bound_others()
        return entry

    def _bound_others(self) -> None:
        """Drop the oldest other entries, whole, while they hold more than the bound."""
        while self.other_records > self.max_records and self.others:
            old = self.others.popleft()
            old.kind = "dropped"  # what its thread logs next in a row is dropped too
            self.other_records -= len(old.records)
            self.dropped += len(old.records)

    def take(self) -> list[logging.LogRecord]:
        """Every record kept, in the order the entries began, then what was left out in
        words; nothing is held from now on."""
        with self.lock:
            self.taken = True
            entries = sorted([*self.firsts.values(), *self.others], key=lambda e: e.seq)
            records = [r for entry in entries for r in entry.records]
            for host, count in self.repeats.items():
                records.append(_note(f"{host}: {count} later failure record(s) of this host "
                                     "left out (its first is above)"))  # fmt: skip
            if self.dropped:
                records.append(_note(f"{self.dropped} earlier records of paramiko left out "
                                     f"(at most {self.max_records} held besides each host's "
                                     "first failure)"))  # fmt: skip
            self.firsts, self.others, self.open = {}, deque(), {}
            return records


def _note(text: str) -> logging.LogRecord:
    return logging.makeLogRecord(
        {"name": __name__, "levelno": logging.INFO, "levelname": "INFO", "msg": text,
         "threadName": threading.current_thread().name}
    )  # fmt: skip


class _Hold(logging.Handler):
    """Keeps records in the holder of :func:`held_ssh_log`."""

    def emit(self, record: logging.LogRecord) -> None:
        if _holders:
            if record.exc_info:  # format now: the traceback's frames do not outlive the hold
                record.exc_text = logging.Formatter().formatException(record.exc_info)
                record.exc_info = None
            _holders[-1].add(record)


class _QuietFileHandler(logging.FileHandler):
    """A log file that fails quietly: a full disk must not print a traceback per record."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


@contextlib.contextmanager
def _detached(
    logger: logging.Logger, handler: logging.Handler, propagate: bool = False
) -> Iterator[None]:
    """`logger` sends its records to `handler` (and, unless `propagate`, nowhere else)
    meanwhile."""
    saved = logger.propagate
    logger.addHandler(handler)
    logger.propagate = propagate
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = saved


@contextlib.contextmanager
def held_ssh_log() -> Iterator[None]:
    """Keep paramiko's records off the console meanwhile, held for the run's log.

    Nested holds keep what they hold in the one around them; the outermost drops it (the
    reasons are in the reports and the manifest).
    """
    outermost = not _holders
    _holders.append(_Held(HELD_RECORDS) if outermost else _holders[-1])
    try:
        with (
            _detached(logging.getLogger(_SSH_LOGGER), _Hold())
            if outermost
            else contextlib.nullcontext()
        ):
            yield
    finally:
        _holders.pop()


@contextlib.contextmanager
def run_log(run_dir: str | os.PathLike) -> Iterator[Path]:
    """Log the run into ``run_dir/run.log`` (appended to) meanwhile.

    The file gets the records held so far, paramiko's records and :data:`details` (both kept
    off the console meanwhile; :data:`details` reaches it too where the application shows
    INFO records, as ``anfperf -v``), and the warnings of every anfperf logger.
    """
    path = Path(run_dir) / RUN_LOG_NAME
    handler = _QuietFileHandler(path, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.setLevel(logging.INFO)
    if _holders:  # what preflight held; from now on paramiko's records come here
        for record in _holders[-1].take():
            handler.handle(record)
    saved_level = details.level
    details.setLevel(logging.INFO)
    anfperf = logging.getLogger("anfperf")
    anfperf.addHandler(handler)
    try:
        with (
            _detached(logging.getLogger(_SSH_LOGGER), handler),
            _detached(details, handler, logging.getLogger().isEnabledFor(logging.INFO)),
        ):
            yield path
    finally:
        anfperf.removeHandler(handler)
        details.setLevel(saved_level)
        handler.close()
