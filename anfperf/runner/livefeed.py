"""A run's live figures: every live task's stdout read as it arrives, the fleet's figures, alarms.

While a step runs, each host whose task is ``live`` (:attr:`anfperf.tools.HostTask.live`)
sends its tool's interval figures over the session the runner already holds: its stdout goes
through :meth:`LiveFeed.writer` (invoke's ``out_stream``) into the tool adapter's reader
(:meth:`anfperf.tools.ToolAdapter.live_stream`), and each :class:`anfperf.live.Interval` into the
step's :class:`anfperf.live.FleetFigures`. What arrives is

- appended to the run's live record (``<run>/live.jsonl``, :class:`anfperf.live.LiveLog`), which
  a notebook watches (:func:`anfperf.live.watch`);
- logged per host (``anfperf run -v``) and, for the fleet, passed to `on_line` at most once per
  `line_every_s` (the console's live line);
- judged: each :class:`anfperf.live.Alarm` goes to the run log, the manifest (the step's
  ``alarms``) and `on_alarm` at the moment it is raised.

Nothing here is ever ingested and nothing here may stop a run: a reader that fails is logged
and the host's figures stop, the raw outputs are the record.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from anfperf.live import Alarm, FleetFigures, Interval, LiveLog, LiveStream, live_line
from anfperf.runner.manifest import Manifest
from anfperf.runner.runlog import details

log = logging.getLogger(__name__)

#: What a step's alarms judge it by, given its place and the step: ``slo_ms``,
#: ``limit_iops``, ``limit_mib_s``, ``tool_interval_s`` (:meth:`LiveFeed.start_step`'s keywords).
StepAlarms = Callable[[int, Any], Mapping[str, float | None]]
#: A host silent this many live intervals (at least :data:`MIN_SILENT_S`) is reported hung.
SILENT_INTERVALS = 4
MIN_SILENT_S = 15.0


class LiveFeed:
    """The live figures of one run, step after step.

    Parameters
    ----------
    run_dir : path
        The run folder: the live record is written there.
    manifest : Manifest
        Alarms are recorded in it (each step's ``alarms``).
    interval_s : float
        The tools' live interval [s]: a host silent :data:`SILENT_INTERVALS` of them is hung.
    on_line : callable, optional
        Called with the fleet's one line (:func:`anfperf.live.live_line`) as figures arrive, at
        most once per `line_every_s`.
    on_alarm : callable, optional
        Called with each :class:`anfperf.live.Alarm` as it is raised.
    line_every_s : float
        Shortest time between two calls of `on_line` [s].
    """

    def __init__(
        self,
        run_dir: str | Path,
        manifest: Manifest,
        *,
        interval_s: float,
        on_line: Callable[[str], None] | None = None,
        on_alarm: Callable[[Alarm], None] | None = None,
        line_every_s: float | None = None,
    ) -> None:
        self.manifest = manifest
        self.interval_s = float(interval_s)
        self.on_line = on_line
        self.on_alarm = on_alarm
        self.line_every_s = self.interval_s if line_every_s is None else float(line_every_s)
        self.record = LiveLog(Path(run_dir))
        self.fleet: FleetFigures | None = None
        self.index = -1
        self._lock = threading.Lock()
        self._alarms: list[dict] = []
        self._line_at = -math.inf

    # -- steps ------------------------------------------------------------------------------

    def start_step(
        self,
        index: int,
        name: str,
        hosts: Iterable[str],
        *,
        slo_ms: float | None = None,
        limit_iops: float | None = None,
        limit_mib_s: float | None = None,
        tool_interval_s: float = 0.0,
    ) -> None:
        """A step starts on `hosts`; alarms judge it against `slo_ms` and the known limits.

        `tool_interval_s` is how often its tool prints by itself [s] (Vdbench's ``interval=``,
        whatever the live interval): a host is silent past :data:`SILENT_INTERVALS` of the
        longer of the two.
        """
        every_s = max(self.interval_s, float(tool_interval_s or 0.0))
        with self._lock:
            self.index = index
            self._alarms = []
            self.fleet = FleetFigures(
                hosts, slo_ms=slo_ms, limit_iops=limit_iops, limit_mib_s=limit_mib_s,
                silent_after_s=max(MIN_SILENT_S, SILENT_INTERVALS * every_s),
            )  # fmt: skip
            self.record.step(index, name, "start")

    def host_done(self, host: str) -> None:
        """The host's command ended: its silence from now on is no alarm."""
        with self._lock:
            if self.fleet is not None:
                self.fleet.finish(host)

    def end_step(self, name: str) -> None:
        with self._lock:
            self.record.step(self.index, name, "end")
            self.fleet = None

    def tick(self) -> None:
        """Judge silences (a host that sends nothing raises no alarm by itself)."""
        with self._lock:
            if self.fleet is not None:
                self._raise(self.fleet.alarms())

    def close(self, status: str) -> None:
        with self._lock:
            self.record.end(status)
            self.record.close()

    # -- what arrives -----------------------------------------------------------------------

    def writer(self, host: str, stream: LiveStream) -> _HostWriter:
        """A text sink (``write``, ``flush``) for the host's stdout, read by `stream`."""
        return _HostWriter(self, host, stream)

    def add(self, intervals: list[Interval]) -> None:
        with self._lock:
            fleet = self.fleet
            if fleet is None:
                return
            for interval in intervals:
                fleet.add(interval)
                self.record.interval(self.index, interval)
                log.info(
                    "%s: %s IOPS, %.1f MiB/s, %s ms", interval.host, f"{interval.iops:,.0f}",
                    interval.bw_mib_s, f"{interval.lat_mean_ms:.3g}",
                )  # fmt: skip
            self._raise(fleet.alarms())
            now = time.monotonic()
            if self.on_line is not None and now - self._line_at >= self.line_every_s:
                self._line_at = now
                self._safely(self.on_line, live_line(fleet))

    def _raise(self, alarms: list[Alarm]) -> None:
        """Record and announce each alarm (the lock is held)."""
        for alarm in alarms:
            details.warning("alarm: %s", alarm.text)
            self.record.alarm(self.index, alarm)
            self._alarms.append(alarm.as_dict())
            try:
                self.manifest.update_step(self.index, alarms=list(self._alarms))
            except Exception as exc:  # the manifest keeps it in memory and says so itself
                log.debug("alarm not journaled: %s", exc)
            if self.on_alarm is not None:
                self._safely(self.on_alarm, alarm)

    @staticmethod
    def _safely(call: Callable[[Any], None], value: Any) -> None:
        try:
            call(value)
        except Exception:  # a console that fails must not stop the run
            log.exception("live figures: the console could not show them")


class _HostWriter:
    """Invoke's ``out_stream`` for one host: text in, the host's intervals to the feed."""

    def __init__(self, feed: LiveFeed, host: str, stream: LiveStream) -> None:
        self.feed, self.host, self.stream = feed, host, stream
        self.failed = False

    def write(self, text: str) -> int:
        if not self.failed and text:
            try:
                found = self.stream.feed(text.encode("utf-8", "replace"))
            except Exception:  # a reader's bug costs the live figures, never the run
                self.failed = True
                log.exception("%s: live figures stopped", self.host)
                return len(text)
            if found:
                self.feed.add(found)
        return len(text)

    def flush(self) -> None:
        """Nothing is buffered here."""
