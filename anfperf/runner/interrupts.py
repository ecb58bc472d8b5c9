"""Ctrl-C, SIGTERM and SIGHUP during a run: how they reach the running code.

SIGTERM (CI cancel, `timeout`, systemd) and SIGHUP (a closed terminal) stop a run like Ctrl-C,
as :class:`Stopped`; once stopping, a handler decides what more signals mean.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from typing import Any

log = logging.getLogger(__name__)

#: A signal repeated within this many seconds of the first is the same impatient press.
REPEAT_S = 2.0
#: Signals that stop a run like Ctrl-C: CI cancel, `timeout`, systemd (TERM), a closed terminal.
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal other than Ctrl-C (``signame``: 'SIGTERM', 'SIGHUP')."""

    def __init__(self, signame: str):
        super().__init__(signame)
        self.signame = signame


def raise_stopped(signum: int, frame: Any) -> None:
    raise Stopped(signal.Signals(signum).name)


@contextlib.contextmanager
def handling_signals(handler):
    """Handle SIGTERM and SIGHUP (and SIGINT unless `handler` raises) with `handler` meanwhile.

    Only in the main thread (Python delivers signals there), and only signals not set to be
    ignored (``nohup``).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = [*_STOP_SIGNALS] + ([signal.SIGINT] if handler is not raise_stopped else [])
    saved = {}
    for sig in wanted:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            saved[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)
