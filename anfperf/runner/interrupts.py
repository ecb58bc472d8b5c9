"""Ctrl-C, SIGTERM and SIGHUP during a run: how they reach the running code.

SIGTERM (CI cancel, `timeout`, systemd) and SIGHUP (a closed terminal) stop a run like Ctrl-C,
as :class:`Stopped`; once stopping, a handler decides what more signals mean: :func:`stop_then`
hands the next ones to it before the first one's exception unwinds the running code (a second
Ctrl-C then never lands inside that unwinding, where Python can only print it as a traceback).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

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


def stop_then(then: Callable[[int, Any], None]) -> Callable[[int, Any], None]:
    """A handler of SIGINT, SIGTERM and SIGHUP that stops the run at the first of them
    (KeyboardInterrupt for Ctrl-C, :class:`Stopped` for the others) and hands every later one
    to `then` from that moment on."""

    def first(signum: int, frame: Any) -> None:
        hand_over(then)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise_stopped(signum, frame)

    return first


def hand_over(handler: Callable[[int, Any], None]) -> None:
    """The stop signals (and SIGINT) to `handler` from now on, those not set to be ignored."""
    _install(handler, [signal.SIGINT, *_STOP_SIGNALS])


def settle(saved: dict[int, Any], quiet_s: float = REPEAT_S) -> Callable[[int, Any], None]:
    """A handler for once a stopped run has recorded what it has: presses within `quiet_s`
    are still the same impatient burst (the run is on its way out: a press landing in its
    teardown would be printed as a traceback); a later one gives the signals back to their
    `saved` handlers and is theirs."""
    until = time.monotonic() + quiet_s

    def late(signum: int, frame: Any) -> None:
        if time.monotonic() < until:
            return
        _restore(saved)
        old = saved.get(signum)
        if callable(old):
            old(signum, frame)
        elif signum == signal.SIGINT:
            raise KeyboardInterrupt
        elif old != signal.SIG_IGN:
            os.kill(os.getpid(), signum)  # the default action, as it would have been

    return late


def _install(handler: Callable[[int, Any], None], signals: list[int]) -> dict[int, Any]:
    """`handler` for `signals` not set to be ignored (``nohup``); what each had before."""
    if threading.current_thread() is not threading.main_thread():
        return {}  # Python delivers signals to the main thread only
    saved = {}
    for sig in signals:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            saved[sig] = signal.signal(sig, handler)
    return saved


def _restore(saved: dict[int, Any]) -> None:
    for sig, old in saved.items():
        signal.signal(sig, old)


@contextlib.contextmanager
def stopping_on_signals(impatient: Callable[[int, Any], None]):
    """SIGINT, SIGTERM and SIGHUP stop what runs inside (:func:`stop_then`: later ones go to
    `impatient`, also while the stop unwinds); the block's ``on_stop()``, called once it has
    recorded what it has, leaves the burst's last presses to :func:`settle` instead of giving
    the signals back at once.

    Only in the main thread (Python delivers signals there), and only signals not set to be
    ignored (``nohup``).
    """
    saved = _install(stop_then(impatient), [signal.SIGINT, *_STOP_SIGNALS])
    stopped = []

    def on_stop() -> None:
        stopped.append(True)
        if saved:
            hand_over(settle(saved))

    try:
        yield on_stop
    finally:
        if not stopped:
            _restore(saved)


_kept_depth = 0


@contextlib.contextmanager
def signals_kept():
    """The signal handlers as they are when the outermost such block begins, put back when it
    ends: a stopped run's :func:`settle` covers its teardown (closing the hosts' connections)
    and is gone once the run's call returns."""
    global _kept_depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, *_STOP_SIGNALS)}
    _kept_depth += 1
    try:
        yield
    finally:
        _kept_depth -= 1
        if _kept_depth == 0:
            _restore({s: h for s, h in saved.items() if h is not None})


def keeping_signals(func):
    """`func` run inside :func:`signals_kept`."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with signals_kept():
            return func(*args, **kwargs)

    return wrapper
