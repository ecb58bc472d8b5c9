"""A live progress bar for fleet runs: per-host state and time left from the workload durations.

The bar measures seconds of planned workload time, not tasks: a step counts its expected
duration while it runs (capped there if it overruns), so "left" is the sum of the remaining
steps' durations plus what is left of the current one -- an estimate from the plan that needs
no history. The postfix shows each host's state (or counts per state for large fleets).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from typing import IO

from tqdm import tqdm

#: Short labels of the host states shown in the bar.
STATE_LABELS = {
    "waiting": "wait", "connecting": "conn", "uploading": "up", "ready": "ready",
    "running": "run", "collecting": "coll", "ok": "ok", "failed": "FAIL", "unreachable": "DOWN",
    "timeout": "TIMEOUT", "lost": "LOST", "interrupted": "INT", "skipped": "skip",
}  # fmt: skip
#: Up to this many hosts are listed one by one; beyond, states are counted.
LIST_HOSTS_UP_TO = 8


def format_duration(seconds: float) -> str:
    """``1h02m``, ``3m05s`` or ``42s``."""
    seconds = max(0, int(round(seconds)))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    if h:
        return f"{h}h{m:02d}m"
    return f"{m}m{s:02d}s" if m else f"{s}s"


class FleetProgress:
    """Progress of a run: a tqdm bar refreshed twice a second.

    Parameters
    ----------
    hosts : list of str
        Host names, in display order.
    total_s : float
        Planned workload time of the whole run [s].
    file : file-like, optional
        Where the bar goes (default stderr).
    disable : bool
        Track states without drawing anything.

    Attributes
    ----------
    phase : str
        Shown instead of the runner's step label while set: one bar over several runs (the
        demo's four workloads) says "measuring 2/4 Mix8k", not each run's "Mix8k (1/1)".
    """

    def __init__(
        self,
        hosts: list[str],
        total_s: float,
        *,
        file: IO[str] | None = None,
        disable: bool = False,
    ):
        self.states = dict.fromkeys(hosts, "waiting")
        self.total_s = max(float(total_s), 1e-9)
        self._done_s = 0.0  # planned seconds of finished steps
        self._step_s = 0.0
        self._step_started: float | None = None
        self._step_label = ""
        self.phase = ""
        self.live = ""  # the fleet's live figures, shown instead of the host states
        self._lock = threading.Lock()
        self._bar = tqdm(
            total=round(self.total_s, 1),
            file=file or sys.stderr,
            disable=disable,
            unit="s",
            dynamic_ncols=True,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}{postfix}",
            leave=True,
        )
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, daemon=True, name="anfperf-progress")
        if not disable:
            self._ticker.start()

    def start_step(self, label: str, duration_s: float) -> None:
        """A step begins (its hosts start now)."""
        with self._lock:
            self._step_label = label
            self._step_s = float(duration_s)
            self._step_started = time.monotonic()
        self.refresh()

    def add_planned(self, seconds: float) -> None:
        """More planned time: a step an adaptive sweep added."""
        with self._lock:
            self.total_s += float(seconds)
            self._bar.total = round(self.total_s, 1)
        self.refresh()

    def end_step(self) -> None:
        with self._lock:
            self.live = ""
            self._done_s += self._step_s
            self._step_s = 0.0
            self._step_started = None
        self.refresh()

    def set_state(self, host: str, state: str) -> None:
        with self._lock:
            self.states[host] = state
        self.refresh()

    def set_live(self, line: str) -> None:
        """The fleet's live line (:func:`anfperf.live.live_line`), shown while a step runs."""
        with self._lock:
            self.live = line
        self.refresh()

    def write(self, text: str) -> None:
        """A line above the bar (an alarm), the bar drawn again below it."""
        if self._bar.disable:
            return
        self._bar.write(text, file=self._bar.fp)

    def remaining_s(self) -> float:
        """Planned seconds left: the steps not started plus the rest of the current one."""
        return max(0.0, self.total_s - self._position())

    def _position(self) -> float:
        if self._step_started is None:
            return self._done_s
        elapsed = time.monotonic() - self._step_started
        return self._done_s + min(elapsed, self._step_s)

    def postfix(self) -> str:
        with self._lock:
            states = dict(self.states)
            live = self.live
        if live:
            return f"~{format_duration(self.remaining_s())} left | {live}"
        if len(states) <= LIST_HOSTS_UP_TO:
            shown = " ".join(f"{h}:{STATE_LABELS.get(s, s)}" for h, s in states.items())
        else:
            counts = Counter(states.values())
            shown = " ".join(f"{STATE_LABELS.get(s, s)}={n}" for s, n in counts.items())
            bad = [
                h for h, s in states.items() if s in ("failed", "unreachable", "timeout", "lost")
            ]
            if bad:
                shown += " (" + ", ".join(bad[:6]) + ("..." if len(bad) > 6 else "") + ")"
        return f"~{format_duration(self.remaining_s())} left | {shown}"

    def refresh(self) -> None:
        if self._bar.disable:
            return
        with self._lock:
            self._bar.n = round(min(self._position(), self.total_s), 1)
            self._bar.set_description_str(
                self.phase or self._step_label or "anfperf", refresh=False
            )
        self._bar.set_postfix_str(self.postfix(), refresh=False)
        self._bar.refresh()

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            self.refresh()

    def close(self) -> None:
        self._stop.set()
        if self._ticker.is_alive():
            self._ticker.join(timeout=2)
        self.refresh()
        self._bar.close()
