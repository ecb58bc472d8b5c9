"""The adaptive concurrency sweep: each next outstanding I/O chosen from what was measured.

A dense sweep (queue depth 1, 2, 4, ..., 256) spends most of its steps where nothing changes:
on the flat top of the curve and far past the latency objective. :class:`AdaptiveSweep` asks
for the points that answer the questions a sweep is run for (the lowest latency, the peak
rate, the knee, the rate at the latency objective), in this order:

1. **light load** (`min_outstanding`): the lowest latency R_min;
2. **heavy load**: `max_outstanding`, or, when the volume's limit is known, :data:`HEADROOM`
   times the concurrency that limit needs by Little's law at the light-load latency, whichever
   is smaller (latency rises on the way to a limit, so the concurrency of R_min alone falls
   short of it);
3. **the latency objective's crossing**, bracketed by the measured points below and above it
   (the first point at or above the objective going up, as
   :func:`anfperf.analysis.findings.iops_at_latency_measured` reads it, and the one before):
   split where Little's law puts it (the bracket's higher rate x the objective: past the knee
   the rate is nearly flat and latency grows with concurrency), kept sqrt(:data:`BRACKET`) off
   the bracket's ends, or at its geometric mean when Little's law puts it outside; until the bracket is within
   :data:`BRACKET` in concurrency, or a point lies within :data:`PINNED` of the objective, or
   the rates either side differ by less than :data:`FLAT`;
4. **past the crossing**, when the rate does not rise by :data:`FLAT` from the highest point
   below the top (at the crossing or past it) to the top, and they are more than
   :data:`BEYOND_GAP` apart (a dense sweep's grain): a curve that falls past its peak, or a
   plateau whose points scatter, has its highest rate in between, which neither end shows; at
   their geometric mean;
5. **the knee** N* = X_max x R_min (:func:`anfperf.models.forecast.throughput.knee_concurrency`), where
   the bounds of a closed system meet, unless a measured point is within :data:`KNEE_NEAR` of
   it;
6. **one point past the highest**: twice the highest concurrency measured, until the rate is
   within :data:`AT_LIMIT` of the known limit, the latency is past the objective by :data:`PAST`,
   the rate rose less than :data:`FLAT` over each of the last two steps up, or `max_outstanding`
   is reached.

The order is that of what each step answers: the peak and the rate at the objective (what a
sweep is run for) before the knee's own point (N* is computed from the peak and R_min whether
or not a point lies at it). A sweep runs at most `max_steps` steps, by default half of those a
dense sweep in powers of two over the same range runs (:func:`dense_steps`), and never fewer
than :data:`MIN_STEPS`: when the budget is spent the sweep stops and says so.

The chooser is a pure function of the points measured (their order does not count): the same
points give the same next choice, which is what resuming a sweep needs. Every choice carries
its reason, one line with its figures, for the run's manifest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from anfperf.analysis.findings import (
    KNEE_REACH,
    MIN_R2,
    concurrency_fit,
    curve_knee,
    iops_at_latency_measured,
)
from anfperf.errors import ModelError
from anfperf.models.forecast.known import KnownLimits
from anfperf.models.forecast.throughput import knee_concurrency
from anfperf.models.littles_law import outstanding_io, threads_needed

__all__ = [
    "AT_LIMIT",
    "BEYOND_GAP",
    "BRACKET",
    "FLAT",
    "HEADROOM",
    "KNEE_NEAR",
    "MIN_STEPS",
    "PAST",
    "PINNED",
    "AdaptiveSweep",
    "Choice",
    "Point",
    "answers",
    "dense_steps",
]


def __dir__() -> list[str]:
    return __all__


#: Heavy load with a known limit: this many times the concurrency the limit needs at the
#: light-load latency (Little's law). Latency rises on the way to a limit (a queueing curve
#: doubles its light-load latency at the knee), so twice that concurrency reaches it.
HEADROOM = 2.0
#: A measured concurrency within this factor of the knee N* counts as near the knee.
KNEE_NEAR = 1.5
#: The crossing is bracketed closely enough when the concurrencies either side are within this
#: factor: then the rate at the objective, interpolated between them, is off by a few per cent
#: at most on a curve whose rate is flat there and latency linear in concurrency.
BRACKET = 1.25
#: A point whose mean latency is within this share of the objective pins the crossing: one
#: second's mean latency moves by 5-10 % from pass to pass (tests/data/fio_sweeps), so a closer
#: bracket would chase noise.
PINNED = 0.15
#: Rates within this share count as flat: either side of the crossing (the rate at the
#: objective is known within it) and over the last two steps up (the peak is reached).
FLAT = 0.03
#: A rate within this share of the known limit has reached it.
AT_LIMIT = 0.03
#: Latency past the objective by this share: the crossing lies well below, going further up
#: only lengthens queues.
PAST = 0.2
#: Past the crossing, points are looked at down to this factor apart: a dense sweep's grain.
BEYOND_GAP = 2.0
#: Fewest steps a sweep's budget allows: the light and heavy loads, the crossing, one more.
MIN_STEPS = 4


def dense_steps(min_outstanding: int, max_outstanding: int) -> int:
    """Steps of a dense sweep from `min_outstanding` doubling up to `max_outstanding`
    (the last one at `max_outstanding` when the doubling does not land on it).

    Examples
    --------
    >>> dense_steps(1, 256), dense_steps(2, 128), dense_steps(1, 1000)
    (9, 7, 11)
    """
    n = int(math.floor(math.log2(max_outstanding / min_outstanding) + 1e-9)) + 1
    return n + (min_outstanding * 2 ** (n - 1) < max_outstanding)


class Point(NamedTuple):
    """One measured step: outstanding I/O [-], rate [1/s], mean latency [ms]."""

    outstanding: int
    iops: float
    lat_ms: float


class Choice(NamedTuple):
    """The next step to run: outstanding I/O [-] and why, one line with its figures."""

    outstanding: int
    reason: str


def _at_known_limit(iops: float, known: KnownLimits | None) -> bool:
    """A rate within :data:`AT_LIMIT` of the known limit (False when none is known)."""
    return known is not None and known.known and iops >= (1 - AT_LIMIT) * known.iops_max


def _ms(lat_ms: float) -> str:
    return f"{lat_ms:.3g} ms"


def _at(p: Point, label: str = "qd") -> str:
    return f"{label} {p.outstanding} ({_ms(p.lat_ms)})"


def _points(measured: list[Point] | list[tuple]) -> list[Point]:
    """The measured points by concurrency; a concurrency measured twice counts once, with the
    median of its rates and latencies (a resumed step run again)."""
    by_n: dict[int, list[tuple[float, float]]] = {}
    for p in measured:
        n, iops, lat = int(p[0]), float(p[1]), float(p[2])
        if n != p[0] or n < 1:
            raise ModelError(f"outstanding I/O must be a whole number >= 1, got {p[0]!r}")
        if not (math.isfinite(iops) and iops > 0 and math.isfinite(lat) and lat > 0):
            raise ModelError(f"qd {n}: iops and lat_ms must be positive numbers, got {p[1:]!r}")
        by_n.setdefault(n, []).append((iops, lat))
    return [
        Point(n, float(np.median([v[0] for v in vals])), float(np.median([v[1] for v in vals])))
        for n, vals in sorted(by_n.items())
    ]


@dataclass(frozen=True)
class AdaptiveSweep:
    """Chooses the next outstanding I/O of a concurrency sweep from the points measured.

    Parameters
    ----------
    until_lat_ms : float
        The latency objective (SLO) [ms]: the sweep finds where mean latency crosses it.
    max_outstanding : int
        Most outstanding I/O the sweep may run [-].
    min_outstanding : int
        The light load, the first step [-].
    known : KnownLimits, optional
        The volume's (and clients') limit when known: it sizes the heavy step and stops the
        sweep when reached.
    label : str
        What the reasons call a concurrency: 'qd' (queue depth), 'threads'.
    max_steps : int, optional
        Most steps the sweep runs (at least 2, the light and heavy loads); by default half of
        those of a dense sweep over the same range (:func:`dense_steps`), at least
        :data:`MIN_STEPS`.

    Examples
    --------
    >>> sweep = AdaptiveSweep(until_lat_ms=1.0, max_outstanding=256)
    >>> sweep.next_point([])
    Choice(outstanding=1, reason='qd 1: light load, for the lowest latency')
    """

    until_lat_ms: float
    max_outstanding: int
    min_outstanding: int = 1
    known: KnownLimits | None = None
    label: str = "qd"
    max_steps: int | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.until_lat_ms, int | float) and self.until_lat_ms > 0):
            raise ModelError(f"until_lat_ms must be a latency > 0 ms, got {self.until_lat_ms!r}")
        for name in ("min_outstanding", "max_outstanding"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ModelError(f"{name} must be a whole number >= 1, got {value!r}")
        if self.max_outstanding < self.min_outstanding:
            raise ModelError(
                f"max_outstanding ({self.max_outstanding}) is below min_outstanding "
                f"({self.min_outstanding})"
            )
        if self.max_steps is not None and (
            isinstance(self.max_steps, bool) or not isinstance(self.max_steps, int)
            or self.max_steps < 2
        ):  # fmt: skip
            raise ModelError(
                f"max_steps must be a whole number >= 2 (the light and heavy loads), got "
                f"{self.max_steps!r}"
            )

    @property
    def step_budget(self) -> int:
        """Most steps this sweep runs: `max_steps`, or half a dense sweep's (at least
        :data:`MIN_STEPS`)."""
        if self.max_steps is not None:
            return self.max_steps
        return max(MIN_STEPS, dense_steps(self.min_outstanding, self.max_outstanding) // 2)

    # -- the decision ----------------------------------------------------------------------

    def decide(self, measured: list[Point] | list[tuple]) -> Choice | str:
        """The next step, or why the sweep is done (a str).

        Parameters
        ----------
        measured : list of Point
            Every step measured so far, in any order: (outstanding, iops, lat_ms).

        Returns
        -------
        Choice or str
            The next step and its reason; or, when the sweep is done, the reason it stops.
        """
        points = _points(measured)
        done = {p.outstanding for p in points}
        if not points:
            return Choice(self.min_outstanding, f"{self.label} {self.min_outstanding}: light load, for "
                          "the lowest latency")  # fmt: skip
        light = points[0]
        heavy, why_heavy = self._heavy(light)
        if heavy not in done and heavy > light.outstanding:
            return Choice(heavy, f"{self.label} {heavy}: heavy load, {why_heavy}")
        for choose in (self._split, self._beyond, self._knee, self._past):
            found = choose(points, done)
            if isinstance(found, Choice):
                if len(points) >= self.step_budget:
                    return self._stop(points, spent=True)
                return found
        return self._stop(points)

    def next_point(self, measured: list[Point] | list[tuple]) -> Choice | None:
        """The next step, or None when the sweep is done (:meth:`stop_reason` says why)."""
        found = self.decide(measured)
        return found if isinstance(found, Choice) else None

    def stop_reason(self, measured: list[Point] | list[tuple]) -> str | None:
        """Why the sweep stops after `measured`; None while it goes on."""
        found = self.decide(measured)
        return None if isinstance(found, Choice) else found

    # -- the steps -------------------------------------------------------------------------

    def _heavy(self, light: Point) -> tuple[int, str]:
        """The heavy step and why: `max_outstanding`, or what the known limit needs."""
        top = f"max_outstanding {self.max_outstanding}"
        if self.known is None or not self.known.known:
            return self.max_outstanding, f"the {top}, for the highest rate"
        needs = int(threads_needed(self.known.iops_max, light.lat_ms))
        n = max(int(math.ceil(HEADROOM * needs)), light.outstanding + 1)
        if n >= self.max_outstanding:
            return self.max_outstanding, (
                f"the {top} (the known limit {self.known.iops_max:,.0f} IOPS needs {needs} at "
                f"{_ms(light.lat_ms)}, x{HEADROOM:g} is {n})"
            )
        return n, (
            f"{HEADROOM:g} x the {needs} the known limit {self.known.iops_max:,.0f} IOPS needs at "
            f"the light-load {_ms(light.lat_ms)} (Little's law)"
        )

    def _knee(self, points: list[Point], done: set[int]) -> Choice | None:
        """N* = X_max x R_min, unless a measured point is near it."""
        best = max(points, key=lambda p: p.iops)
        r_min = min(p.lat_ms for p in points)
        knee = knee_concurrency(KnownLimits.of_iops(best.iops, "the highest rate measured"), r_min)
        n = min(max(round(knee), self.min_outstanding), self.max_outstanding)
        if any(max(m, knee) / max(min(m, knee), 1e-9) <= KNEE_NEAR for m in done) or n in done:
            return None
        return Choice(n, f"{self.label} {n}: near the knee N* = {best.iops:,.0f} IOPS x {_ms(r_min)} = "
                      f"{knee:.1f} (Little's law)")  # fmt: skip

    def _crossing(self, points: list[Point]) -> tuple[Point, Point] | None:
        """The measured points either side of the objective: the first at or above it going
        up, and the one before; None when the data do not bracket it."""
        for below, above in zip(points, points[1:], strict=False):
            if below.lat_ms >= self.until_lat_ms:
                return None  # the light load is already past it
            if above.lat_ms >= self.until_lat_ms:
                return below, above
        return None

    def _pinned(self, below: Point, above: Point) -> str | None:
        """Why the crossing between `below` and `above` needs no more steps; None if it does."""
        slo = self.until_lat_ms
        name = f"the {slo:.3g} ms crossing"
        for p in (below, above):
            if abs(p.lat_ms - slo) <= PINNED * slo:
                return (
                    f"{name} is pinned: {_at(p, self.label)} is within {PINNED * 100:.0f} % of it"
                )
        if (
            above.outstanding <= BRACKET * below.outstanding
            or above.outstanding - below.outstanding < 2
        ):
            return f"{name} is bracketed within x{BRACKET:g}: {_at(below, self.label)} .. {_at(above, self.label)}"
        if abs(above.iops - below.iops) < FLAT * max(above.iops, below.iops):
            return (
                f"{name} is bracketed in rate: {_at(below, self.label)} {below.iops:,.0f} IOPS and "
                f"{_at(above, self.label)} {above.iops:,.0f} IOPS differ by less than {FLAT * 100:.0f} %"
            )
        if _at_known_limit(below.iops, self.known):
            return (
                f"{name} is at the known limit: {_at(below, self.label)} {below.iops:,.0f} IOPS is within "
                f"{AT_LIMIT * 100:.0f} % of {self.known.iops_max:,.0f}"
            )
        return None

    def _split(self, points: list[Point], done: set[int]) -> Choice | None:
        """A step inside the objective's crossing, while it is not pinned."""
        bracket = self._crossing(points)
        if bracket is None or self._pinned(*bracket) is not None:
            return None
        below, above = bracket
        lo, hi = below.outstanding, above.outstanding
        # past the knee the rate is nearly flat: the crossing is where the rate of the bracket
        # (the higher of its ends: an over-driven end has fallen) meets the objective
        rate = max(below.iops, above.iops)
        guess = float(outstanding_io(rate, self.until_lat_ms))
        how = f"Little's law: {rate:,.0f} IOPS x {self.until_lat_ms:.3g} ms = {guess:.1f}"
        # kept off the bracket's ends, where it would move the bracket by a step at a time;
        # outside the bracket the curve is not what Little's law assumes: the geometric mean
        margin = math.sqrt(BRACKET)
        if not lo < guess < hi:
            guess, how = math.sqrt(lo * hi), "geometric mean"
        elif not lo * margin <= guess <= hi / margin:
            guess = min(max(guess, lo * margin), hi / margin)
            how += f", kept x{margin:.2f} off the bracket's ends"
        n = min(max(round(guess), lo + 1), hi - 1)
        if n in done:
            return None  # cannot happen between two neighbours measured; kept for safety
        return Choice(n, f"{self.label} {n}: bisects the {self.until_lat_ms:.3g} ms crossing between "
                      f"{_at(below, self.label)} and {_at(above, self.label)} ({how})")  # fmt: skip

    def _beyond(self, points: list[Point], done: set[int]) -> Choice | None:
        """A point between the top and the highest point below it (at the crossing or past it),
        when the rate does not rise between them: the peak may lie there."""
        bracket = self._crossing(points)
        top = points[-1]
        if bracket is None or len(points) < 2:
            return None
        # the highest point below the top: at the crossing (either end of its bracket) or past it
        above = points[-2]
        if above.outstanding < bracket[0].outstanding:
            return None
        if top.outstanding <= BEYOND_GAP * above.outstanding:
            return None
        best = max(p.iops for p in points if p.outstanding <= above.outstanding)
        if top.iops >= (1 + FLAT) * best or _at_known_limit(best, self.known):
            return None  # still rising to the top, or the limit reached: nothing hides between
        n = round(math.sqrt(above.outstanding * top.outstanding))
        if n in done:
            return None
        return Choice(n, f"{self.label} {n}: past the {self.until_lat_ms:.3g} ms crossing, "
                      f"between {_at(above, self.label)} and {_at(top, self.label)} (geometric mean): "
                      f"the rate does not rise {FLAT * 100:.0f} % from {best:,.0f} to "
                      f"{top.iops:,.0f} IOPS, the peak may lie between")  # fmt: skip

    def _ended_going_up(self, points: list[Point]) -> str | None:
        """Why going further up gives nothing; None while it might."""
        top = points[-1]
        slo = self.until_lat_ms
        if top.outstanding >= self.max_outstanding:
            return f"max_outstanding {self.max_outstanding} reached"
        past = [p for p in points if p.lat_ms >= (1 + PAST) * slo]
        if past:
            return (
                f"latency past the {slo:.3g} ms SLO by {PAST * 100:.0f} % or more at {_at(past[0])}"
            )
        best = max(points, key=lambda p: p.iops)
        if _at_known_limit(best.iops, self.known):
            return (
                f"rate within {AT_LIMIT * 100:.0f} % of the known limit {self.known.iops_max:,.0f} IOPS: "
                f"{best.iops:,.0f} at {self.label} {best.outstanding}"
            )
        if len(points) >= 3:
            a, b, c = points[-3:]
            if b.iops < (1 + FLAT) * a.iops and c.iops < (1 + FLAT) * b.iops:
                return (
                    f"rate flat over two steps: {self.label} {a.outstanding} {a.iops:,.0f}, {self.label} "
                    f"{b.outstanding} {b.iops:,.0f}, {self.label} {c.outstanding} {c.iops:,.0f} IOPS "
                    f"(each less than {FLAT * 100:.0f} % more)"
                )
        return None

    def _past(self, points: list[Point], done: set[int]) -> Choice | None:
        """One point past the highest measured, while going up can still say something."""
        if self._ended_going_up(points) is not None:
            return None
        top = points[-1]
        n = min(2 * top.outstanding, self.max_outstanding)
        what = (
            "past the "
            + (f"{self.until_lat_ms:.3g} ms crossing" if self._crossing(points) else
               f"highest step, the {self.until_lat_ms:.3g} ms SLO not yet crossed")
        )  # fmt: skip
        return Choice(
            n, f"{self.label} {n}: one point {what} ({_at(top, self.label)}, {top.iops:,.0f} IOPS)"
        )

    def _stop(self, points: list[Point], spent: bool = False) -> str:
        bracket = self._crossing(points)
        slo = self.until_lat_ms
        if bracket is not None:
            crossing = self._pinned(*bracket) or (
                f"the {slo:.3g} ms crossing lies between {_at(bracket[0], self.label)} and "
                f"{_at(bracket[1], self.label)}"
            )
        elif points[0].lat_ms >= slo:
            crossing = f"the light load {_at(points[0])} is already past the {slo:.3g} ms SLO"
        else:
            crossing = (
                f"the {slo:.3g} ms SLO is not crossed up to {self.label} {points[-1].outstanding}"
            )
        if spent:
            dense = dense_steps(self.min_outstanding, self.max_outstanding)
            end = (
                f"the budget of {self.step_budget} steps is spent"
                + ("" if self.max_steps is not None else
                   f" (half of the {dense} a dense sweep {self.label} {self.min_outstanding}.."
                   f"{self.max_outstanding} in powers of two runs)")
            )  # fmt: skip
        else:
            end = self._ended_going_up(points) or "nothing more to find"
        return f"stop: {crossing}; {end}"


def answers(
    measured: list[Point] | list[tuple],
    until_lat_ms: float,
    known: KnownLimits | None = None,
) -> dict[str, float]:
    """What a sweep's points say, read as the benchmark report reads any concurrency sweep.

    Parameters
    ----------
    measured : list of Point
        (outstanding, iops, lat_ms) of each step.
    until_lat_ms : float
        The latency objective [ms].
    known : KnownLimits, optional
        The volume's limit: where no point reaches the objective but one within it has
        reached the limit (within :data:`AT_LIMIT`), that rate is the rate at the objective
        (the limit allows no more, the point shows no less).

    Returns
    -------
    dict
        ``peak_iops`` [1/s] and the ``peak_outstanding`` it was measured at;
        ``iops_at_slo`` [1/s]: :func:`anfperf.analysis.findings.iops_at_latency_measured`
        (NaN when the points do not bracket the objective, unless they reached the known
        limit within it); ``knee_outstanding`` [-]: the
        knee of a closed system, N* = peak x lowest latency
        (:func:`anfperf.models.forecast.throughput.knee_concurrency`), the knee the chooser
        steers by; ``fit_knee_iops`` [1/s], ``fit_knee_lat_ms`` [ms]: the knee of the USL
        fitted to the points (:func:`~anfperf.analysis.findings.curve_knee`, latency twice
        its unloaded value), NaN where the fit explains too little or puts it past the data,
        as the report's key numbers do; ``steps``: points measured.
    """
    points = _points(measured)
    n = np.array([p.outstanding for p in points], float)
    x = np.array([p.iops for p in points], float)
    r = np.array([p.lat_ms for p in points], float)
    peak = int(np.argmax(x))
    out = {
        "steps": float(len(points)),
        "peak_iops": float(x[peak]),
        "peak_outstanding": float(n[peak]),
        "lat_min_ms": float(r.min()),
        "iops_at_slo": iops_at_latency_measured(x, r, until_lat_ms, load=n),
        "knee_outstanding": knee_concurrency(
            KnownLimits.of_iops(float(x[peak]), "the peak measured"), float(r.min())
        ),
        "fit_knee_iops": math.nan,
        "fit_knee_lat_ms": math.nan,
    }
    within = x[r <= until_lat_ms]
    if (
        math.isnan(out["iops_at_slo"])
        and within.size == x.size
        and _at_known_limit(float(within.max()), known)
    ):
        out["iops_at_slo"] = float(within.max())
    try:
        fit = concurrency_fit(n, x)
    except ModelError:
        return out
    knee_x, knee_r = curve_knee(fit)
    if fit.r2 >= MIN_R2 and knee_x <= KNEE_REACH * x.max():
        out.update(fit_knee_iops=knee_x, fit_knee_lat_ms=knee_r)
    return out
