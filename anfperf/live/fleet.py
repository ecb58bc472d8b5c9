"""The fleet's live figures: every host's latest interval, the totals, and alarms as they happen.

:class:`FleetFigures` takes each host's :class:`~anfperf.live.fio_stream.Interval` as it arrives
(:meth:`FleetFigures.add`) and keeps the latest of each host. Its :meth:`~FleetFigures.totals` are
the fleet's: IOPS and MiB/s summed over the hosts reporting, the mean latency weighted by each
host's IOPS (a host's mean counts as much as the I/O it did), and the slowest host.
:meth:`~FleetFigures.alarms` returns the :class:`Alarm` events raised since it was last called:

- ``slow``: a host's rate below the fleet's median by more than `slow_fraction` (30 %) for
  `slow_intervals` (2) of its intervals in a row, judged as each of its intervals arrives
  against the median of every reporting host's latest;
- ``latency``: a host's interval, or the fleet's round, with its mean latency above `slo_ms`;
- ``pinned``: the fleet's rate within `pinned_fraction` (3 %) of a known limit (`limit_iops`,
  `limit_mib_s`: the volume's), or above it, for `pinned_intervals` (2) rounds in a row;
- ``hung``: a host that sent no interval for `silent_after_s`, as the runner names a host that
  stops answering (the host hung?).

A fleet round closes when every host expected (named at the start or heard since, and neither
silent nor finished) has sent an interval since the last round; the fleet's own alarms are judged
then, on the latest of each. Each alarm is raised once when its condition starts and again only
after it has cleared. A silent host leaves the totals and the
median until it sends again; :meth:`~FleetFigures.finish` says a host's step ended (no alarm).

:func:`live_line` is the console's one line of the fleet.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from anfperf.live.fio_stream import Interval

__all__ = [
    "ALARM_KINDS", "Alarm", "FleetTotals", "FleetFigures", "live_line", "LINE_WIDTH",
]  # fmt: skip

#: What each alarm kind means.
ALARM_KINDS = {
    "slow": "a host below the fleet's median rate for two intervals",
    "latency": "a mean latency above the objective (a host's interval or the fleet's round)",
    "pinned": "the fleet's rate at a known limit for two rounds",
    "hung": "a host that stopped sending intervals",
}
#: The console line's width at most [columns].
LINE_WIDTH = 100
#: The `host` of an alarm about the whole fleet.
FLEET = "fleet"
_RATE_UNITS = {"iops": "IOPS", "bw_mib_s": "MiB/s"}


@dataclass(frozen=True)
class Alarm:
    """One alarm, an event of the run log and the manifest, and a console line (`text`).

    Attributes
    ----------
    kind : str
        One of :data:`ALARM_KINDS`.
    host : str
        The host, or ``'fleet'`` for the fleet's own figures.
    at_s : float
        When it was raised [s], since the fleet's figures started (the controller's clock).
    value : float
        The figure that raised it (a rate, a latency [ms], seconds of silence).
    threshold : float
        What it was judged against (the median's 70 %, the objective [ms], the limit's 97 %,
        the silence allowed [s]).
    text : str
        One line naming the host and the figures.
    """

    kind: str
    host: str
    at_s: float
    value: float
    threshold: float
    text: str

    def as_dict(self) -> dict:
        """The alarm as JSON's types, for the run log and the manifest."""
        return asdict(self)


@dataclass(frozen=True)
class FleetTotals:
    """The fleet's figures from the latest interval of each host reporting.

    Attributes
    ----------
    hosts : int
        Hosts whose latest interval counts (neither silent nor finished).
    iops : float
        Sum of their IOPS [1/s].
    bw_mib_s : float
        Sum of their throughputs [MiB/s].
    lat_mean_ms : float
        Their mean latencies weighted by their IOPS [ms]; NaN when none measured any.
    slowest : Interval or None
        The latest interval of the host with the lowest rate (None with no host).
    silent : tuple of str
        Hosts silent past the allowed time, in the order they were added.
    """

    hosts: int
    iops: float
    bw_mib_s: float
    lat_mean_ms: float
    slowest: Interval | None
    silent: tuple[str, ...]


class FleetFigures:
    """Every host's latest interval of a running step, the fleet's totals and its alarms.

    Parameters
    ----------
    hosts : iterable of str, optional
        The hosts expected to report: one that never sends is reported silent too.
    slo_ms : float, optional
        The latency objective [ms]; no latency alarms without it.
    limit_iops, limit_mib_s : float, optional
        The volume's known limits [1/s], [MiB/s]; no pinned alarms without one.
    rate : {'iops', 'bw_mib_s'}
        The rate hosts are compared by, and the slowest host chosen by.
    slow_fraction : float
        How far below the median a slow host is (0.30: below 70 % of it).
    slow_intervals : int
        Intervals in a row a host must be slow before the alarm.
    pinned_fraction : float
        How close to a limit a pinned rate is (0.03: at 97 % of it or above).
    pinned_intervals : int
        Fleet rounds in a row the rate must be pinned before the alarm.
    silent_after_s : float
        Seconds without an interval after which a host is reported hung (a few intervals).
    min_span_s : float
        A host's interval shorter than this [s] is shown but not judged: fio's final document
        follows its last status one by a few ms, and rates over a few ms say little.
    clock : callable
        Seconds of a monotonic clock (tests give their own).

    Attributes
    ----------
    latest : dict of str to Interval
        Each host's latest interval.
    events : list of Alarm
        Every alarm raised, in order.
    start_s : float
        The clock when the figures started: alarms' `at_s` count from it.
    """

    def __init__(
        self,
        hosts: Iterable[str] = (),
        *,
        slo_ms: float | None = None,
        limit_iops: float | None = None,
        limit_mib_s: float | None = None,
        rate: str = "iops",
        slow_fraction: float = 0.30,
        slow_intervals: int = 2,
        pinned_fraction: float = 0.03,
        pinned_intervals: int = 2,
        silent_after_s: float = 10.0,
        min_span_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate not in _RATE_UNITS:
            raise ValueError(f"rate={rate!r}: one of {sorted(_RATE_UNITS)}")
        if not 0 < slow_fraction < 1 or not 0 <= pinned_fraction < 1:
            raise ValueError("slow_fraction must be in (0, 1) and pinned_fraction in [0, 1)")
        if slow_intervals < 1 or pinned_intervals < 1 or not silent_after_s > 0:
            raise ValueError("slow_intervals, pinned_intervals and silent_after_s must be > 0")
        self.slo_ms = slo_ms
        self.limit_iops = limit_iops
        self.limit_mib_s = limit_mib_s
        self.rate = rate
        self.slow_fraction = slow_fraction
        self.slow_intervals = slow_intervals
        self.pinned_fraction = pinned_fraction
        self.pinned_intervals = pinned_intervals
        self.silent_after_s = silent_after_s
        self.min_span_s = min_span_s
        self._clock = clock
        self.start_s = clock()
        self.latest: dict[str, Interval] = {}
        self.events: list[Alarm] = []  # every alarm raised, in order
        self._heard: dict[str, float] = {}  # host -> clock of its last interval (or the start)
        self._silent: set[str] = set()
        self._finished: set[str] = set()
        self._slow_run: dict[str, int] = {}
        self._raised: set[tuple[str, str]] = set()  # (kind, host) whose condition still holds
        self._round: set[str] = set()
        self._pinned_run = 0
        self._unread = 0  # events not yet returned by alarms()
        for host in hosts:
            self._heard.setdefault(host, self.start_s)

    # ------------------------------------------------------------------ what arrives

    def add(self, interval: Interval, now: float | None = None) -> None:
        """Take a host's latest interval (alarms it raises are returned by :meth:`alarms`)."""
        now = self._clock() if now is None else now
        host = interval.host
        self.latest[host] = interval
        self._heard[host] = now
        self._silent.discard(host)
        self._raised.discard(("hung", host))
        self._finished.discard(host)
        if interval.span_s >= self.min_span_s:
            self._judge_host(interval, now)
        self._round.add(host)
        self._close_round(now)

    def finish(self, host: str) -> None:
        """The host's step ended: it no longer counts, and its silence is no alarm."""
        self._finished.add(host)
        self._round.discard(host)

    def alarms(self, now: float | None = None) -> list[Alarm]:
        """The alarms raised since the last call: by intervals added, and by silence at `now`."""
        now = self._clock() if now is None else now
        for host, heard in self._heard.items():
            if host in self._finished or host in self._silent:
                continue
            quiet = now - heard
            if quiet > self.silent_after_s:
                self._silent.add(host)
                self._round.discard(host)
                last = self.latest.get(host)
                figures = (
                    f"last {_count(last.iops)} IOPS at t={last.t_s:.0f} s" if last
                    else "none received"
                )  # fmt: skip
                self._raise(
                    "hung", host, now, quiet, self.silent_after_s,
                    f"{host}: no interval for {quiet:.1f} s (the host hung?); {figures}",
                )  # fmt: skip
        self._close_round(now)
        new = self.events[len(self.events) - self._unread :] if self._unread else []
        self._unread = 0
        return list(new)

    # ------------------------------------------------------------------ figures

    def reporting(self) -> list[str]:
        """Hosts whose latest interval counts: neither silent nor finished."""
        return [h for h in self.latest if h not in self._silent and h not in self._finished]

    def totals(self) -> FleetTotals:
        """The fleet's figures from each reporting host's latest interval."""
        latest = [self.latest[h] for h in self.reporting()]
        weighted = [(i.iops, i.lat_mean_ms) for i in latest if math.isfinite(i.lat_mean_ms)]
        weight = sum(w for w, _ in weighted)
        lat = sum(w * lat for w, lat in weighted) / weight if weight > 0 else math.nan
        return FleetTotals(
            hosts=len(latest),
            iops=sum(i.iops for i in latest),
            bw_mib_s=sum(i.bw_mib_s for i in latest),
            lat_mean_ms=lat,
            slowest=min(latest, key=self._rate_of) if latest else None,
            silent=tuple(h for h in self._heard if h in self._silent),
        )

    # ------------------------------------------------------------------ judging

    def _rate_of(self, interval: Interval) -> float:
        return getattr(interval, self.rate)

    def _judge_host(self, interval: Interval, now: float) -> None:
        host, unit = interval.host, _RATE_UNITS[self.rate]
        rates = [self._rate_of(self.latest[h]) for h in self.reporting()]
        mine = self._rate_of(interval)
        if len(rates) >= 2:
            median = statistics.median(rates)
            floor = median * (1 - self.slow_fraction)
            if mine < floor:
                self._slow_run[host] = self._slow_run.get(host, 0) + 1
                if self._slow_run[host] >= self.slow_intervals:
                    below = 1 - mine / median if median > 0 else 1.0
                    self._raise(
                        "slow", host, now, mine, floor,
                        f"{host}: {_count(mine)} {unit}, {below:.0%} below the fleet median "
                        f"{_count(median)} {unit} for {self._slow_run[host]} intervals "
                        f"(t={interval.t_s:.0f} s)",
                    )  # fmt: skip
            else:
                self._slow_run[host] = 0
                self._raised.discard(("slow", host))
        self._judge_latency(host, now, interval.lat_mean_ms, interval.iops,
                            f"(t={interval.t_s:.0f} s)")  # fmt: skip

    def _judge_latency(self, who: str, now: float, lat_ms: float, iops: float, where: str) -> None:
        """A latency alarm for `who` (a host or the fleet) while it is above the objective."""
        if self.slo_ms is None or not math.isfinite(lat_ms):
            return
        if lat_ms > self.slo_ms:
            self._raise(
                "latency", who, now, lat_ms, self.slo_ms,
                f"{who}: mean latency {lat_ms:.2f} ms above the objective {self.slo_ms:g} ms at "
                f"{_count(iops)} IOPS {where}",
            )  # fmt: skip
        else:
            self._raised.discard(("latency", who))

    def _close_round(self, now: float) -> None:
        # every host expected (known, neither silent nor finished), not only those heard so far
        expected = set(self._heard) - self._silent - self._finished
        if not expected or not expected <= self._round:
            return
        self._round.clear()
        fleet = self.totals()
        if fleet.hosts > 1:  # a lone host's own alarm already says it
            self._judge_latency(FLEET, now, fleet.lat_mean_ms, fleet.iops,
                                f"over {fleet.hosts} hosts")  # fmt: skip
        pinned = [
            (value, limit, unit)
            for value, limit, unit in (
                (fleet.iops, self.limit_iops, "IOPS"), (fleet.bw_mib_s, self.limit_mib_s, "MiB/s")
            )
            if limit is not None and value >= limit * (1 - self.pinned_fraction)
        ]  # fmt: skip
        if not pinned:
            self._pinned_run = 0
            self._raised.discard(("pinned", FLEET))
            return
        self._pinned_run += 1
        if self._pinned_run >= self.pinned_intervals:
            value, limit, unit = pinned[0]
            self._raise(
                "pinned", FLEET, now, value, limit * (1 - self.pinned_fraction),
                f"fleet: {_count(value)} {unit} pinned at the limit {_count(limit)} {unit} "
                f"({value / limit:.0%}) for {self._pinned_run} rounds over {fleet.hosts} hosts",
            )  # fmt: skip

    def _raise(
        self, kind: str, host: str, now: float, value: float, threshold: float, text: str
    ) -> None:
        if (kind, host) in self._raised:
            return  # raised already; again only after it clears
        self._raised.add((kind, host))
        self.events.append(Alarm(kind, host, now - self.start_s, value, threshold, text))
        self._unread += 1


def live_line(fleet: FleetFigures, width: int = LINE_WIDTH) -> str:
    """The console's one line of the fleet, at most `width` columns.

    e.g. ``fleet 48,210 IOPS 188 MiB/s 0.66 ms | 24 hosts | slowest vm07 1,920 IOPS | silent vm03``
    """
    t = fleet.totals()
    lat = f"{t.lat_mean_ms:.2f} ms" if math.isfinite(t.lat_mean_ms) else "- ms"
    parts = [
        f"fleet {_count(t.iops)} IOPS {_count(t.bw_mib_s)} MiB/s {lat}",
        f"{t.hosts} host" + ("" if t.hosts == 1 else "s"),
    ]
    if t.slowest is not None and t.hosts > 1:
        unit = _RATE_UNITS[fleet.rate]
        parts.append(
            f"slowest {_short(t.slowest.host)} {_count(getattr(t.slowest, fleet.rate))} {unit}"
        )
    if t.silent:
        names = " ".join(_short(h) for h in t.silent[:3])
        more = f" +{len(t.silent) - 3}" if len(t.silent) > 3 else ""
        parts.append(f"silent {names}{more}")
    line = " | ".join(parts)
    return line if len(line) <= width else line[: width - 1] + "…"


def _count(value: float) -> str:
    """A rate as people read it: thousands separated, whole above 10, else one decimal."""
    if not math.isfinite(value):
        return "-"
    return f"{value:,.0f}" if abs(value) >= 10 else f"{value:,.1f}"


def _short(host: str, most: int = 20) -> str:
    return host if len(host) <= most else host[: most - 1] + "…"
