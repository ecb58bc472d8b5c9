"""The rate a closed loop reaches at a latency objective past its measured latencies.

A concurrency sweep's latency follows its throughput by Little's law, ``R(N) = N / X(N)``: the
rate at an objective ``R`` is ``X(N*)`` where ``N* / X(N*) = R``. :func:`iops_at_latency_in_flight`
solves that along :func:`~anfperf.models.forecast.throughput.forecast_throughput`'s estimate and
both edges of its band, so the number is as bounded and as honest as that forecast: no number
where it gives none, or where the objective lies further than :data:`REACH` x the concurrency
measured. A curve fitted to the whole sweep and read at the objective does neither: the USL of
a lower half still rising reads 10**28 IOPS at 0.9 ms on a SATA SSD that gave 74,060 (public
sweeps of tests/data/public_sweeps: on 773 objectives past the latencies of 378 smooth sweeps'
lower halves, median error 0.4 %, the band holding 98 %; the USL 7.4 %, unbounded). The
latency at a rate past the measured rates, :func:`latency_at_rate_in_flight` (a plan's threads
sized on a sweep), is read along the same forecast.
"""

from __future__ import annotations

import math

import numpy as np

from anfperf.models.forecast.known import KnownLimits
from anfperf.models.forecast.result import Forecast
from anfperf.models.forecast.throughput import forecast_throughput
from anfperf.units import MS_PER_S

__all__ = [
    "DRAWS",
    "REACH",
    "allowed_at_latency",
    "forecast_past_the_sweep",
    "iops_at_latency_in_flight",
    "latency_at_rate_in_flight",
    "rate_at_latency",
]

#: Farthest past the concurrency measured the objective is looked for [x].
REACH = 64.0
#: Bootstrap draws of the forecast's band: a report states its edges at the objective and
#: draws them (100 put each quantile within about 1.5 points of its level; ~80 ms a sweep).
DRAWS = 100
#: Concurrencies the forecast is read at, spaced evenly in log between the last measured one
#: and REACH x it.
GRID_POINTS = 49


def iops_at_latency_in_flight(
    concurrency: object,
    iops: object,
    lat_ms: object,
    known: KnownLimits | None = None,
    *,
    draws: int = DRAWS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Forecast]:
    """IOPS a concurrency sweep reaches at mean latency `lat_ms`, past its measured latencies.

    Parameters
    ----------
    concurrency, iops : array-like
        The sweep: I/Os in flight [-] and throughput [IOPS] of each point.
    lat_ms : float or array-like
        Latency objectives [ms], above the latencies measured: one forecast serves them all.
    known : KnownLimits, optional
        The volume's and clients' limit.
    draws : int
        Bootstrap draws of the concurrency forecast's band.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray, Forecast)
        Estimate and band [IOPS], one per objective (NaN where the forecast gives no number or
        its edge does not reach the objective within :data:`REACH` x the concurrency
        measured), and the forecast read.
    """
    slo = np.atleast_1d(np.asarray(lat_ms, float))
    fc = forecast_past_the_sweep(concurrency, iops, known, draws)
    if not fc.predictable:
        none = np.full(slo.size, math.nan)
        return none, none.copy(), none.copy(), fc
    # the lower edge runs slowest and reaches an objective at the fewest I/Os in flight
    est, low, high = (np.array([rate_at_latency(fc.x, rate, one) for one in slo])
                      for rate in (fc.estimate, fc.lower, fc.upper))  # fmt: skip
    return est, low, high, fc


def latency_at_rate_in_flight(
    concurrency: object,
    iops: object,
    rate: float,
    known: KnownLimits | None = None,
    *,
    draws: int = DRAWS,
) -> tuple[float, float, float, Forecast]:
    """Mean latency a concurrency sweep gives at a rate past its measured rates [ms].

    Along :func:`~anfperf.models.forecast.throughput.forecast_throughput` the rate is first
    reached at some count in flight N; the latency there is N / rate (Little's law). The
    band's edges reach it too: the upper (faster) at fewer I/Os in flight, the lower at more.

    Parameters
    ----------
    concurrency, iops : array-like
        The sweep: I/Os in flight [-] and throughput [IOPS] of each point.
    rate : float
        The rate wanted [IOPS].
    known : KnownLimits, optional
        The volume's and clients' limit.
    draws : int
        Bootstrap draws of the concurrency forecast's band.

    Returns
    -------
    (float, float, float, Forecast)
        Latency on the estimate, on the band's upper edge (the least) and on its lower edge
        (the most) [ms]: NaN where that curve does not reach `rate` within :data:`REACH` x the
        concurrency measured (or gives no number); and the forecast read.
    """
    fc = forecast_past_the_sweep(concurrency, iops, known, draws)
    if not fc.predictable:
        return math.nan, math.nan, math.nan, fc
    est, fast, slow = (_at_rate(fc.x, curve, float(rate))
                       for curve in (fc.estimate, fc.upper, fc.lower))  # fmt: skip
    return est, fast, slow, fc


def allowed_at_latency(low: float, high: float, forecast: Forecast) -> tuple[float, float]:
    """The range of rates a concurrency forecast allows at an objective [IOPS]: from its lower
    edge's rate there to its upper edge's, or, where the upper edge does not reach the
    objective within :data:`REACH`, the most it gives at all (`low`, `high` of
    :func:`iops_at_latency_in_flight`; `low` NaN: nothing below)."""
    top = high if math.isfinite(high) else float(np.max(forecast.upper))
    return (low if math.isfinite(low) else 0.0), top


def forecast_past_the_sweep(
    concurrency: object, iops: object, known: KnownLimits | None, draws: int = DRAWS
) -> Forecast:
    """The concurrency forecast from the largest count measured to :data:`REACH` x it, at
    :data:`GRID_POINTS` counts (its `x`), that every reading of this module is along."""
    top = float(np.nanmax(np.asarray(concurrency, float)))
    grid = np.geomspace(top, top * REACH, GRID_POINTS)
    return forecast_throughput(concurrency, iops, grid, known, draws=draws)


def first_crossing(
    values: np.ndarray, level: float, *, log: bool = False
) -> tuple[int, int, float] | None:
    """Where `values` first reach `level`: the index before, the index at, and the share of
    the way between them (of the logarithms when `log`): 0 where the first value already
    reaches it (both indices 0) or the one at is unbounded. None: never (NaN never does)."""
    hit = np.flatnonzero(values >= level)
    if hit.size == 0:
        return None
    at = int(hit[0])
    if at == 0:
        return 0, 0, 0.0
    a, b = values[at - 1], values[at]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.log(level / a) / np.log(b / a) if log else (level - a) / (b - a)
    return at - 1, at, float(share)


def rate_at_latency(grid: np.ndarray, rate: np.ndarray, lat_ms: float) -> float:
    """The rate along (grid, rate) where N / X first reaches `lat_ms` (log-interpolated; NaN:
    not within the grid; the first rate where the largest count measured already reaches it)."""
    crossing = first_crossing(grid / rate * MS_PER_S, lat_ms, log=True)
    if crossing is None:
        return math.nan
    lo, hi, share = crossing
    return float(rate[lo] * (rate[hi] / rate[lo]) ** share)


def _at_rate(grid: np.ndarray, rates: np.ndarray, rate: float) -> float:
    """N / X [ms] where the rates along (grid, rates) first reach `rate` (N log-interpolated)."""
    crossing = first_crossing(np.where(np.isfinite(rates), rates, np.nan), rate, log=True)
    if crossing is None:
        return math.nan
    lo, hi, share = crossing
    # already past it at the concurrency measured last: the rate there
    x = rates[0] if hi == 0 else rate
    return float(grid[lo] * (grid[hi] / grid[lo]) ** share / x * MS_PER_S)
