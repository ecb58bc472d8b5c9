"""How a stopped run takes the signals that follow its first (anfperf.runner.interrupts)."""

from __future__ import annotations

import signal
import time

import pytest

from anfperf.runner.interrupts import Stopped, settle, signals_kept, stopping_on_signals


def test_a_burst_of_presses_stops_once_and_the_signals_come_back_after_the_run():
    before = signal.getsignal(signal.SIGINT)
    hurried = []
    with signals_kept():  # as run_workloads and run_plan hold them
        with pytest.raises(KeyboardInterrupt):
            with stopping_on_signals(lambda *a: hurried.append(1)) as on_stop:
                try:
                    signal.raise_signal(signal.SIGINT)  # the first press stops
                    time.sleep(1)  # not reached
                except KeyboardInterrupt:
                    signal.raise_signal(signal.SIGINT)  # while it unwinds: hurries only
                    assert hurried == [1]
                    on_stop()
                    raise
        # the burst's last press while the run closes its hosts' connections: swallowed
        signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is not before and hurried == [1]
    assert signal.getsignal(signal.SIGINT) is before  # the run's call gives them back


def test_once_the_burst_is_over_a_press_is_the_callers_again():
    def caller(signum, frame):
        raise LookupError("the caller's handler")

    with signals_kept():
        late = settle({signal.SIGINT: caller}, quiet_s=0.0)
        signal.signal(signal.SIGINT, late)
        with pytest.raises(LookupError, match="the caller's handler"):
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is caller


def test_sigterm_stops_as_stopped_and_a_run_that_ends_gives_the_signals_back():
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with pytest.raises(Stopped, match="SIGTERM"), stopping_on_signals(lambda *a: None):
        signal.raise_signal(signal.SIGTERM)
    # without on_stop (a stop that recorded nothing) the handlers come back at once
    assert {s: signal.getsignal(s) for s in before} == before
    with stopping_on_signals(lambda *a: None):
        pass
    assert {s: signal.getsignal(s) for s in before} == before
