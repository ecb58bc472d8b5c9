"""Latency past a sweep's measured loads: the one forecast a report both states and draws.

A concurrency sweep's latency past its largest count in flight follows its concurrency forecast
by Little's law (:mod:`.slo`). Where that gives no rate at the objective and the volume's limit
binds, and for a load curve, latency follows the load (:func:`~.latency.forecast_latency`): the
queueing curve of the known limit, or without one the queueing curve the points fit, whose band
past them reaches down to the latency last measured. That band sets a least rate at the
objective and no most: without a limit the data cannot say how far a curve that has risen
bends (13 load curves of tests/data, each fitted on its lower half, 64 objectives past it: the
fitted curve's number 22 % off at the median and 61 % at most; the least rate held on 53 of 54,
27 % under the rate measured at the median).

:func:`latency_past` makes that choice once, for the number (``analysis.findings``) and the
chart (``plots.curves.latency_curve``) alike.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.forecast.known import KnownLimits
from anfperf.models.forecast.latency import forecast_latency, iops_at_latency
from anfperf.models.forecast.result import NOT_PREDICTABLE, Forecast
from anfperf.models.forecast.slo import (
    DRAWS,
    REACH,
    allowed_at_latency,
    first_crossing,
    forecast_past_the_sweep,
    rate_at_latency,
)
from anfperf.units import MS_PER_S

__all__ = ["LOAD_REACH", "LatencyPast", "latency_past"]

#: Farthest past the highest load measured a latency-vs-load forecast without a known limit
#: is read [x].
LOAD_REACH = 8.0
#: A latency-vs-load forecast is read up to this share of a known limit (unbounded at it).
LIMIT_REACH = 0.995
#: Loads a latency-vs-load forecast is read at (a step of 0.5 % in load over LOAD_REACH).
GRID_POINTS = 400

_Curve = tuple[np.ndarray, np.ndarray]


@dataclasses.dataclass(frozen=True)
class LatencyPast:
    """Latency past a sweep's measured loads along the forecast chosen for it.

    Attributes
    ----------
    forecast : Forecast or None
        The forecast read: a concurrency forecast over counts in flight (`in_flight`), else
        latency over loads; None where the model could give none (`why` says).
    in_flight : bool
        Along a concurrency forecast by Little's law (its band closes along ``N / X`` at the
        largest count measured, ``forecast.x[0]``), else latency against load.
    why : str
        Why there is no number at the objective ("" when there is one).
    iops_at_slo : (float, float, float)
        IOPS at the objective it was chosen for: :meth:`iops_at` there, NaN with `why`.
    """

    forecast: Forecast | None
    in_flight: bool
    why: str
    iops_at_slo: tuple[float, float, float] = (math.nan, math.nan, math.nan)

    @property
    def drawn(self) -> bool:
        """Whether there is a forecast to draw."""
        return self.forecast is not None and self.forecast.predictable

    @property
    def basis(self) -> str:
        """The forecast's basis ('plateau', 'queueing at the known limit', ...)."""
        return self.forecast.basis if self.forecast is not None else NOT_PREDICTABLE

    @property
    def bound(self) -> str | None:
        """The known limit a latency-vs-load forecast rises toward (None: fitted to the data)."""
        return None if self.forecast is None else self.forecast.bound

    def curves(self) -> tuple[_Curve, _Curve, _Curve]:
        """Rate [IOPS] and mean latency [ms] along the estimate, the band's faster edge (the
        least latency at a rate) and its slower one."""
        fc = self.forecast
        if fc is None or not fc.predictable:
            none = (np.empty(0), np.empty(0))
            return none, none, none
        if self.in_flight:  # rates over counts in flight: the latency is N / X
            return tuple((rate, fc.x / rate * MS_PER_S) for rate in (fc.estimate, fc.upper,
                                                                      fc.lower))  # fmt: skip
        # no latency past the fitted curve's maximum rate: unbounded there, as the band's draws
        est = np.where(np.isnan(fc.estimate), np.inf, fc.estimate)
        return (fc.x, est), (fc.x, fc.lower), (fc.x, fc.upper)

    def iops_at(self, lat_ms: float) -> tuple[float, float, float]:
        """IOPS at a latency objective above the data: estimate, least and most (most inf: the
        data set none); NaN where the estimate does not reach it.

        A concurrency forecast is read by Little's law
        (:func:`~anfperf.models.forecast.slo.allowed_at_latency`: its upper edge's most where
        that does not reach the objective); a known limit's queueing curve exactly
        (:func:`~anfperf.models.forecast.latency.iops_at_latency`); a fitted one along its
        loads, the band's slower edge giving the least rate and its faster the most, none
        where that edge does not rise to the objective (the latency last measured held)."""
        nan = (math.nan, math.nan, math.nan)
        fc = self.forecast
        if fc is None or not fc.predictable:
            return nan
        if self.in_flight:
            est, low, high = self._in_flight_at(lat_ms)
            return (est, *allowed_at_latency(low, high, fc)) if math.isfinite(est) else nan
        if fc.bound is not None:
            return iops_at_latency(fc, lat_ms)
        (x, est), (_, fast), (_, slow) = self.curves()
        at, least, most = (_first_at(x, lat, lat_ms) for lat in (est, slow, fast))
        if not (math.isfinite(at) and math.isfinite(least)):
            return nan
        return at, least, most if math.isfinite(most) else math.inf

    def _in_flight_at(self, lat_ms: float) -> tuple[float, float, float]:
        """The rates where the estimate, lower and upper edge of a concurrency forecast reach
        `lat_ms` by Little's law (NaN: not within its counts)."""
        fc = self.forecast
        return tuple(rate_at_latency(fc.x, rate, lat_ms)
                     for rate in (fc.estimate, fc.lower, fc.upper))  # fmt: skip


def latency_past(
    iops: object,
    lat_ms: object,
    lat_slo_ms: float,
    known: KnownLimits | None = None,
    *,
    concurrency: object | None = None,
    draws: int = DRAWS,
) -> LatencyPast:
    """Latency past a sweep's measured loads, and the IOPS at an objective above them.

    Parameters
    ----------
    iops, lat_ms : array-like
        The sweep's points: throughput [IOPS] and mean latency [ms].
    lat_slo_ms : float
        The latency objective [ms], above the latencies measured.
    known : KnownLimits, optional
        The volume's and clients' limit.
    concurrency : array-like, optional
        I/Os in flight of each point: a concurrency sweep (a closed loop), read along its
        concurrency forecast first.
    draws : int
        Bootstrap draws of the band (the number and the chart of a report use the same).

    Returns
    -------
    LatencyPast
        Along the concurrency forecast where it gives a rate at the objective or no limit
        binds; else along latency against load (with a known limit: its queueing curve),
        uncapped by Little's law: the volume's latency, however many I/Os in flight would
        drive it.
    """
    conc = None if concurrency is None else _frozen(concurrency)
    return _latency_past(_frozen(iops), _frozen(lat_ms), float(lat_slo_ms),
                         known or KnownLimits(), conc, int(draws))  # fmt: skip


def _frozen(values: object) -> tuple[float, ...]:
    return tuple(np.asarray(values, float).ravel().tolist())


# a report states the number and draws the line: one forecast for both (~0.8 s of bootstrap
# for a load curve without a limit)
@functools.lru_cache(maxsize=32)
def _latency_past(
    iops: tuple[float, ...],
    lat_ms: tuple[float, ...],
    lat_slo_ms: float,
    known: KnownLimits,
    concurrency: tuple[float, ...] | None,
    draws: int,
) -> LatencyPast:
    x, y = np.array(iops), np.array(lat_ms)
    if concurrency is not None:
        in_flight = _in_flight(np.array(concurrency), x, lat_slo_ms, known, draws)
        binds = known.unless_passed_by(x)[0].known
        if math.isfinite(in_flight.iops_at_slo[0]) or not binds:
            return in_flight
        # nothing along the sweep: the volume's limit still says where its latency rises
        at_limit = _against_load(x, y, lat_slo_ms, known, draws)
        return at_limit if math.isfinite(at_limit.iops_at_slo[0]) else in_flight
    return _against_load(x, y, lat_slo_ms, known, draws)


def _chosen(fc: Forecast, in_flight: bool, lat_slo_ms: float, reach: str) -> LatencyPast:
    """The forecast read at the objective, or why it gives no number there (a concurrency
    forecast's with what it allows there, for the reader)."""
    if not fc.predictable:
        return LatencyPast(fc, in_flight, fc.says())
    past = LatencyPast(fc, in_flight, "")
    at = past.iops_at(lat_slo_ms)
    if math.isfinite(at[0]):
        return dataclasses.replace(past, iops_at_slo=at)
    allows = ""
    if in_flight:
        _, low, high = past._in_flight_at(lat_slo_ms)
        least, most = allowed_at_latency(low, high, fc)
        allows = f" (it allows {least:,.0f} .. {most:,.0f})"
    return dataclasses.replace(past, why=f"the forecast does not reach it within {reach}"
                                         f"{allows}: {NOT_PREDICTABLE}")  # fmt: skip


def _in_flight(
    conc: np.ndarray, iops: np.ndarray, lat_slo_ms: float, known: KnownLimits, draws: int
) -> LatencyPast:
    """Along the concurrency forecast by Little's law, from the largest count measured to
    :data:`~.slo.REACH` x it."""
    try:
        fc = forecast_past_the_sweep(conc, iops, known, draws)
    except ModelError as exc:
        return LatencyPast(None, True, f"no forecast ({exc})")
    return _chosen(fc, True, lat_slo_ms, f"{REACH:g} x the concurrency measured")


def _against_load(
    iops: np.ndarray, lat_ms: np.ndarray, lat_slo_ms: float, known: KnownLimits, draws: int
) -> LatencyPast:
    """Along latency against load (:func:`.latency.forecast_latency`), up to a known limit or
    :data:`LOAD_REACH` x the highest load measured."""
    ok = np.isfinite(iops) & np.isfinite(lat_ms) & (iops > 0) & (lat_ms > 0)
    largest = float(np.max(iops[ok])) if ok.any() else math.nan
    bound = known.unless_passed_by(iops[ok])[0]
    if bound.known:
        grid = np.linspace(largest, LIMIT_REACH * bound.iops_max, GRID_POINTS)
    else:
        grid = np.geomspace(largest, LOAD_REACH * largest, GRID_POINTS)
    try:
        fc = forecast_latency(iops[ok], lat_ms[ok], grid, known, draws=draws)
    except ModelError as exc:
        return LatencyPast(None, False, f"no forecast ({exc})")
    return _chosen(fc, False, lat_slo_ms, f"{LOAD_REACH:g} x the load measured")


def _first_at(load: np.ndarray, lat_ms: np.ndarray, lat_slo_ms: float) -> float:
    """The load where latency first reaches `lat_slo_ms` (interpolated; NaN: never; the load
    before where the latency becomes unbounded, the least sure)."""
    crossing = first_crossing(lat_ms, lat_slo_ms)
    if crossing is None:
        return math.nan
    lo, hi, share = crossing
    return float(load[lo] + share * (load[hi] - load[lo]))
