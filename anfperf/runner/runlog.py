"""The run's log file, ``<out>/<run_id>/run.log``: the details kept off the console.

A host that cannot be reached is one line on the console (its reason, in the manifest too);
what paramiko says about it -- an ``ERROR`` line and a traceback block for every host whose
SSH server does not greet -- goes to the run's log file instead, with every host event of the
run (:data:`details`) and the runner's warnings. Before a run has a folder (preflight),
paramiko's records are held in memory (:func:`held_ssh_log`) and written into the log when the
run starts.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections import deque
from collections.abc import Iterator
from pathlib import Path

#: File name of the log in the run's folder (ingest skips ``*.log``).
RUN_LOG_NAME = "run.log"
#: Where the runner logs what belongs in the run's log file only: every host's events and the
#: tracebacks of unexpected errors (during a run it does not reach the console).
details = logging.getLogger("anfperf.runner.details")
#: Records held before a run has a folder: at most this many (the last ones).
HELD_RECORDS = 20_000
_FORMAT = "%(asctime)s %(levelname)s [%(threadName)s] %(name)s: %(message)s"
_SSH_LOGGER = "paramiko"
_holders: list[deque[logging.LogRecord]] = []


class _Hold(logging.Handler):
    """Keeps records in the innermost holder of :func:`held_ssh_log`."""

    def emit(self, record: logging.LogRecord) -> None:
        if _holders:
            if record.exc_info:  # format now: the traceback's frames do not outlive the hold
                record.exc_text = logging.Formatter().formatException(record.exc_info)
                record.exc_info = None
            _holders[-1].append(record)


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

    Nested holds pass what they held to the one around them; the outermost drops it (the
    reasons are in the reports and the manifest).
    """
    held: deque[logging.LogRecord] = deque(maxlen=HELD_RECORDS)
    outermost = not _holders
    _holders.append(held)
    try:
        with (
            _detached(logging.getLogger(_SSH_LOGGER), _Hold())
            if outermost
            else contextlib.nullcontext()
        ):
            yield
    finally:
        _holders.remove(held)
        if _holders:
            _holders[-1].extend(held)


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
    if _holders:
        for record in _holders[-1]:
            handler.handle(record)
        _holders[-1].clear()
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
