"""Throughput against concurrency past the data, bounded by what is known.

Three things bound what more I/Os in flight can give, whatever curve is fitted:

- Little's law with the lowest latency measured: ``X(N) <= N / R_min`` (operational analysis:
  latency never falls below its light-load value);
- the volume's and clients' least documented limit (:func:`~.known.known_limits`);
- the sweep itself: once it has levelled, more concurrency only lengthens queues. An
  over-driven system also loses throughput (client CPU, lock contention, retransmits): past
  a plateau the band allows a fall of :data:`FALL_PER_DOUBLING` per doubling of concurrency,
  up to :data:`FALL_CAP` (real sweeps: fio 4 KiB reads here fall 20 % at 8x past their plateau).

:func:`forecast_throughput` reads the sweep's end: levelled, or at :data:`REACHED` of a known
limit or more however fast it rose there (hold the best rate reached, the flat line, with that
fall in the band; at a limit, up to it), fallen past its peak (over two points or more: one
point dips as far in a noisy run, so a fall on the last point alone is read without it, the
band reaching down to the fall), still rising with curvature (the default stacked curve
of :mod:`anfperf.models.curves.blend` and its band, capped by the bounds; a curve that turns
down past rising points is not read to fall, the estimate holding the curve's value where the
data end and the band's floor keeping the fall), or rising without
curvature: no number unless a limit is known, since nothing in the data says where it stops
(with one, the band reaches up to it).

The stacked curve's bootstrap band spans its models' disagreement, not what none of them
foresees (a disk that keeps rising slowly where all three level off). Its own record does:
fitted to each prefix of the sweep it predicted the later points, and the band reaches at
least as far above and below as it missed there, growing with the distance past the data
(:func:`_record_reach`; on 26 one-pass fio sweeps of this machine's disk, fitted on QD 1..12,
the band alone held fewer than 80 % of QD 16..128 in 6, with the record's reach in 2). Nor
does a curve fitted through every point see how fast the sweep's end still rises: the band
reaches at least where the end's own growth goes on (:func:`_rise`, the reach a levelled
sweep's band has too, fading there as Amdahl's law's does). On the repository's 37 real
concurrency sweeps (``benchmarks/_models_sweeps.py``) the forecast refuses a number or its band
holds 80 % of the later points on 35, against 32 before; with a limit known at 1.05 x each
sweep's best rate, on 35 too (28 while a sweep held at the limit had no fall in its band). On
26 public sweeps of an NVMe SSD that never fall 10 % below their best (tests/data/public_sweeps,
which showed both misses), honest on 21 with no limit known (18 while a rising sweep's reach
faded) and 21 with one at 1.05 x (3 while a sweep rising without curvature had its band
from the fitted curve).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.curves.band import DEFAULT_DRAWS, predict_band
from anfperf.models.curves.blend import fit_throughput_curve
from anfperf.models.curves.registry import get_model
from anfperf.models.curves.result import FitResult
from anfperf.models.curves.selection import prequential_errors
from anfperf.models.forecast.known import KnownLimits
from anfperf.models.forecast.result import Forecast, refused
from anfperf.units import MS_PER_S

#: Fewest distinct concurrencies a throughput forecast takes.
MIN_POINTS = 4
#: Elasticity d log X / d log N over the last points below which a sweep has levelled.
LEVEL_SLOPE = 0.2
#: Drop of that elasticity from the sweep's start to its end that shows curvature.
CURVATURE = 0.15
#: Points at the sweep's end the elasticity and the level are read from.
TAIL_POINTS = 3
#: Fall allowed past a plateau per doubling of concurrency [-], and at most [-].
FALL_PER_DOUBLING = 0.08
FALL_CAP = 0.4
#: Share of its elasticity a sweep keeps per doubling of concurrency past its end [-]: Amdahl's
#: law's, 1 / (1 + s (N - 1)), halves per doubling once s N >> 1; the most it then gains is
#: 4 ** elasticity.
ELASTICITY_KEPT = 0.5
#: Share of a known limit the last point of a sweep reaches to have reached it, however fast
#: it rose there: a QoS limit throttles, more in flight gives no more (held at the limit).
REACHED = 0.95
#: Share of a known limit at which a levelled sweep is taken to be held by that limit.
AT_LIMIT = 0.85
#: Share below the best rate of its last points at which a sweep's last point shows a fall.
FALLEN = 0.1
#: Share below the best rate within which a point has saturated (the fall counts from it).
SATURATED = 0.1
#: Fewest predictions past its own prefixes a fitted curve's record needs to widen its band.
MIN_RECORD = 3
#: Least scatter of a sweep's end [-]: a new run at a load measured lands within this of the
#: old one, however flat the sweep's end (levelled public sweeps of SATA SSDs, HDDs and RAID
#: sets, tests/data/public_sweeps, wander up to 2 % above their best past their lower half:
#: of 378 smooth ones, the forecast is honest on 332 with their own scatter, 0.1 % on the
#: flattest, and on 367 with this).
REPEAT_SCATTER = 0.02
#: A point below this share of both its neighbours' rates is a stalled run, left out.
STALL_SHARE = 0.5


def _elasticity(n: np.ndarray, x: np.ndarray) -> tuple[float, float, float]:
    """Slope of log X against log N (least squares), its standard error and the largest
    relative distance of a point from that line."""
    log_n, log_x = np.log(n), np.log(x)
    slope, intercept = np.polyfit(log_n, log_x, 1)
    resid = log_x - (slope * log_n + intercept)
    spread = float(np.sum((log_n - log_n.mean()) ** 2))
    dof = max(n.size - 2, 1)
    se = float(np.sqrt(np.sum(resid**2) / dof / spread)) if spread > 0 else math.inf
    return float(slope), se, float(np.expm1(np.max(np.abs(resid))))


def _floor(last: float, scatter: float, ratio: np.ndarray) -> np.ndarray:
    """Least rate past the data [IOPS]: the sweep may level at once at its last point (less
    that point's scatter about the sweep's growth: a repeat of it lands as far) and then be
    over-driven (:func:`over_driven_fall` from there)."""
    return last * (1.0 - scatter) * (1.0 - over_driven_fall(ratio))


def _rise(
    best: float, scatter: float, ratio: np.ndarray, growth: float, fading: bool = True
) -> np.ndarray:
    """Most rate past the data a sweep's end allows [IOPS]: its best rate, plus its scatter,
    growing on from the elasticity `growth` (its upper half's + 1 s.e.), fading as a
    queueing system's does (:data:`ELASTICITY_KEPT`) where the sweep has levelled
    (`fading`), held where it still rises.

    Whatever a curve fitted to the whole sweep says, the band reaches this high (a levelled
    sweep's too): a curve through every point reads the end's elasticity lower than the end's
    own points show, and real sweeps still rising at 0.2 .. 0.5 there go on near that rate as
    often as they level off (37 real concurrency sweeps, fitted on their lower half: the band
    held 80 % of the later points in 32 of them without this reach, 35 with it). How fast a
    rising sweep's elasticity falls its lower half does not tell: the seed's Vdbench workload
    on a local disk and an NVMe SSD's 4 KiB 95 % reads (tests/data/public_sweeps) rose alike
    to 16 in flight (elasticities 0.92 0.61 0.39 and 0.80 0.62 0.45 per doubling), then 1.2 x
    and 3.2 x to 128: a reach that fades holds the first and misses the second.
    """
    doublings = np.log2(np.maximum(ratio, 1.0))
    # the sum of an elasticity kept at ELASTICITY_KEPT per doubling (over part of a doubling
    # it exceeds the part: held, the reach is never less than fading)
    faded = (1.0 - ELASTICITY_KEPT**doublings) / (1.0 - ELASTICITY_KEPT)
    reach = faded if fading else np.maximum(doublings, faded)
    return best * (1.0 + scatter) * 2.0 ** (max(growth, 0.0) * reach)


def over_driven_fall(ratio: np.ndarray, per_doubling: float = FALL_PER_DOUBLING) -> np.ndarray:
    """Share of a plateau an over-driven system may lose at `ratio` x the load it saturated
    at (`per_doubling` per doubling, :data:`FALL_PER_DOUBLING` for concurrency; at most
    :data:`FALL_CAP`)."""
    return np.minimum(FALL_CAP, per_doubling * np.log2(np.maximum(ratio, 1.0)))


def forecast_throughput(
    concurrency: object,
    iops: object,
    at: object,
    known: KnownLimits | None = None,
    *,
    level: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    fit: FitResult | None = None,
) -> Forecast:
    """Throughput at new concurrencies, from a measured sweep and what is known.

    Parameters
    ----------
    concurrency, iops : array-like
        Measured I/Os in flight [-] and throughput [IOPS], one per point (repeats are
        averaged).
    at : array-like
        Concurrencies to predict at [-].
    known : KnownLimits, optional
        The volume's and clients' limit [IOPS at the workload's block size].
    level : float
        Share of new measurements the band should hold.
    draws : int
        Bootstrap draws of a fitted curve's band (:func:`anfperf.models.predict_band`).
    fit : FitResult, optional
        :func:`anfperf.models.fit_throughput_curve` of the same points, when already made (a
        chart draws it over the data): not fitted again.

    Returns
    -------
    Forecast
        basis 'plateau' (levelled: the best rate reached held, the flat line being the best
        answer), 'held at the known limit', 'fitted curve' (rising with curvature: the
        default stacked curve), 'fitted curve capped by the known limit', or no number
        (rising without curvature and no limit known; fewer than 4 concurrencies).

    Raises
    ------
    anfperf.ModelError
        Mismatched lengths or non-positive values.
    """
    n, x = _mean_per_n(concurrency, iops)
    n, x, stalls = _without_stalls(n, x)
    if stalls:
        fit = None  # a caller's fit holds the stalled points
    at_arr = np.atleast_1d(np.asarray(at, float))
    known = given = known or KnownLimits()
    if n.size < MIN_POINTS:
        why = f"{n.size} concurrencies measured, {MIN_POINTS} needed to read a curve's shape"
        return refused(at_arr, 0.0, "; ".join([*stalls, why]))
    known, left_out = known.unless_passed_by(x)
    r_min_ms = float(np.min(n / x)) * MS_PER_S
    cap = np.minimum(at_arr / r_min_ms * MS_PER_S, known.iops_max)
    notes = [f"Little's law: at most N in flight / {r_min_ms:.3g} ms (the lowest latency measured)"]
    notes += stalls
    if left_out:
        notes.append(left_out)
    if known.known:
        notes.append(
            f"known limit {known.iops_max:,.0f} IOPS ({known.limit}); the knee is near "
            f"N* = limit x R_min = {knee_concurrency(known, r_min_ms):,.1f} in flight"
        )
    # the sweep's upper and lower half (by point, at least TAIL_POINTS each): how fast it
    # grows at its end against its start, and how much its end scatters about that growth
    half = max(TAIL_POINTS, (n.size + 1) // 2)
    late, late_se, scatter = _elasticity(n[-half:], x[-half:])
    scatter = max(scatter, REPEAT_SCATTER)
    early = _elasticity(n[:half], x[:half])[0]
    best = float(np.max(x[-half:]))
    ratio = at_arr / float(n[-1])
    reached = known.known and float(x[-1]) >= REACHED * known.iops_max
    if late < LEVEL_SLOPE or reached:
        if x[-1] < best * (1.0 - FALLEN) and late < 0:
            fell = _past_peak(at_arr, ratio, best, float(x[-1]), late, cap, known, notes)
            if x[-2] < best * (1.0 - FALLEN) or n.size <= MIN_POINTS:
                return fell
            # one point is no evidence of a fall (a noisy run dips as far): the sweep is read
            # without it, and the band reaches down to the fall too
            without = forecast_throughput(n[:-1], x[:-1], at_arr, given, level=level, draws=draws)
            why = (
                f"the fall rests on the last point alone ({x[-1]:,.0f} at N={n[-1]:g} after "
                f"{x[-2]:,.0f} at N={n[-2]:g}): read without it, the band reaching down to a "
                "fall past the peak"
            )
            return replace(
                without, lower=np.minimum(without.lower, fell.lower), notes=(why, *without.notes)
            )
        # an over-driven system loses throughput from where it saturated, not from where the
        # measurements stop: the fall is counted from the first point near the best rate
        saturated = float(n[np.argmax(x >= (1.0 - SATURATED) * best)])
        fall_ratio = at_arr / saturated
        return _plateau(at_arr, (ratio, fall_ratio), best, scatter, late + late_se, cap, known,
                        notes)  # fmt: skip
    if late > early - CURVATURE and not known.known:
        why = (
            f"throughput still grows as fast as at the start (elasticity {late:.2f} at "
            f"N={n[-1]:g}, {early:.2f} at N={n[0]:g}) and no limit of the volume or its "
            "clients is known: nothing says where it stops; measure higher or give the volume"
        )
        return refused(at_arr, _floor(float(x[-1]), scatter, ratio), why)
    # within the data the curve and its band stand: the reach is of the points past them
    if late < early - CURVATURE:
        rise = _rise(best, scatter, ratio, late + late_se, fading=False)
    else:  # a limit is known (else refused above): nothing in the data says it levels sooner
        rise = cap
        notes.append(
            f"throughput still grows as fast as at the start (elasticity {late:.2f} at "
            f"N={n[-1]:g}, {early:.2f} at N={n[0]:g}): nothing in the data says where it "
            "levels below the known limit, which the band reaches"
        )
    rise = np.where(ratio > 1.0, rise, 0.0)
    bounds = (_floor(float(x[-1]), scatter, ratio), rise)
    return _fitted(n, x, at_arr, bounds, cap, known, notes, (level, draws), fit)


def _mean_per_n(concurrency: object, iops: object) -> tuple[np.ndarray, np.ndarray]:
    n, x = np.asarray(concurrency, float).ravel(), np.asarray(iops, float).ravel()
    if n.size != x.size:
        raise ModelError(f"{n.size} concurrencies and {x.size} rates: give one rate per point")
    keep = np.isfinite(n) & np.isfinite(x)
    n, x = n[keep], x[keep]
    if np.any((n <= 0) | (x <= 0)):
        raise ModelError("concurrencies and rates must be > 0")
    levels = np.unique(n)
    return levels, np.array([float(np.mean(x[n == v])) for v in levels])


def stalled_points(concurrency: np.ndarray, iops: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Concurrencies whose rate is below :data:`STALL_SHARE` of both neighbours' rates, or
    above both by as much.

    More I/Os in flight never halve a system's rate from one step to the next and double it
    again at the step after: such a point is a stalled run (a host paused, a mount that hung,
    a noisy neighbour), not the curve, and a fit through it reads the wrong shape. Nor do they
    double it and halve it again: such a point is a burst (a run served by a cache, a disk's
    burst credits; a public NVMe SSD's 391,155 IOPS at 8 in flight between 166,616 and
    148,030), and a forecast reading it as the peak carries a fall from it.

    Parameters
    ----------
    concurrency, iops : numpy.ndarray
        The points [-], [IOPS]: several at one concurrency count as their mean.

    Returns
    -------
    (numpy.ndarray, list of str)
        The stalled concurrencies, and a note naming each with its neighbours.
    """
    n, at = np.unique(np.asarray(concurrency, float), return_inverse=True)
    x = np.bincount(at, weights=np.asarray(iops, float)) / np.bincount(at)
    stalled, burst = np.zeros(n.size, bool), np.zeros(n.size, bool)
    stalled[1:-1] = x[1:-1] < STALL_SHARE * np.minimum(x[:-2], x[2:])
    burst[1:-1] = STALL_SHARE * x[1:-1] > np.maximum(x[:-2], x[2:])
    notes = [
        f"N={n[i]:g}: {x[i]:,.0f} IOPS, "
        + (f"less than {STALL_SHARE:.0%} of" if stalled[i] else f"over {1 / STALL_SHARE:g} x")
        + f" both neighbours' ({x[i - 1]:,.0f} at N={n[i - 1]:g}, {x[i + 1]:,.0f} at "
        f"N={n[i + 1]:g}): "
        + ("a stalled run" if stalled[i] else "a burst (a cache, burst credits)")
        + ", left out"
        for i in np.flatnonzero(stalled | burst)
    ]
    return n[stalled | burst], notes


def _without_stalls(n: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The points less the stalled ones (:func:`stalled_points`), and the notes naming them."""
    stalled, notes = stalled_points(n, x)
    keep = ~np.isin(n, stalled)
    return n[keep], x[keep], notes


def _plateau(
    at: np.ndarray,
    ratios: tuple[np.ndarray, np.ndarray],
    best: float,
    scatter: float,
    growth: float,
    cap: np.ndarray,
    known: KnownLimits,
    notes: list[str],
) -> Forecast:
    """A levelled sweep: the best rate reached, held; the band allows an over-driven fall and
    growth from the largest elasticity the sweep's end allows (`growth`, slope + 1 s.e.,
    fading: :func:`_rise`);
    `ratios`: the concurrencies over the last measured and over the first saturated one."""
    ratio, fall_ratio = ratios
    est = np.minimum(np.full(at.size, best), cap)
    # over-driven clients lose throughput under a QoS limit too (fio's --rate_iops sweep held
    # at its 50,700 fell to 44,665 at QD 27; 8 real sweeps levelled at 95 % of a limit fall
    # 18 .. 26 % below their best past it): the band keeps that fall either way
    lower = np.minimum(best * (1.0 - scatter) * (1.0 - over_driven_fall(fall_ratio)), est)
    if _at_limit(known, best):
        notes.append(
            f"levelled at {best:,.0f}, {best / known.iops_max:.0%} of the known limit: held there "
            f"(a QoS limit throttles); the band allows an over-driven client's fall, "
            f"{FALL_PER_DOUBLING:.0%} per doubling of concurrency from where it saturated, at "
            f"most {FALL_CAP:.0%}"
        )
        return Forecast(at, est, lower, cap.copy(), "held at the known limit", True,
                        tuple(notes), known.limit)  # fmt: skip
    upper = np.minimum(_rise(best, scatter, ratio, growth), cap)
    notes.append(
        f"levelled: elasticity at most {growth:.2f} over the sweep's upper half; the best rate "
        f"reached, {best:,.0f}, held (the flat line is the best answer here); past it the band "
        f"allows {FALL_PER_DOUBLING:.0%} less per doubling of concurrency from where it "
        f"saturated, at most "
        f"{FALL_CAP:.0%} (an over-driven system), and the scatter of those points, {scatter:.0%}"
    )
    return Forecast(at, est, lower, upper, "plateau", True, tuple(notes),
                    known.limit if np.any(upper >= cap) and known.known else None)  # fmt: skip


def _at_limit(known: KnownLimits, best: float) -> bool:
    """Whether a sweep's best rate was its known limit's (:data:`AT_LIMIT` of it or more)."""
    return known.known and best >= AT_LIMIT * known.iops_max


def _past_peak(
    at: np.ndarray,
    ratio: np.ndarray,
    best: float,
    last: float,
    late: float,
    cap: np.ndarray,
    known: KnownLimits,
    notes: list[str],
) -> Forecast:
    """A sweep that has fallen past its peak: the fall goes on at its measured rate. A peak
    at a known limit (:data:`AT_LIMIT` of it or more) was the limit's: a throttle does not
    make the fall, which may pass (fio's --rate_iops 50,700 sweep: 48,441 at QD 11, 33,449 at
    16, then 48,559 .. 50,648 from QD 19 on), and the band reaches up to the limit."""
    # a fall is carried on down to FALL_CAP below the peak, or held where it already went
    # further: the estimate does not climb back above the last point
    floor = min(best * (1.0 - FALL_CAP), last)
    at_limit = _at_limit(known, best)
    upper = cap.copy() if at_limit else np.minimum(np.full(at.size, best), cap)
    est = np.minimum(np.maximum(last * ratio**late, floor), upper)
    lower = np.minimum(est * (1.0 - over_driven_fall(ratio)), est)
    carried = (f"the fall is carried on at that rate, down to {1 - FALL_CAP:.0%} of the peak"
               if last > floor else f"it fell below {1 - FALL_CAP:.0%} of the peak already: "
               "held at the last point")  # fmt: skip
    notes.append(
        f"past its peak: {best:,.0f} at best, {last:,.0f} at the last point (elasticity "
        f"{late:.2f}); {carried}, and the band reaches from a further fall to "
        + (f"the known limit (the peak was {best / known.iops_max:.0%} of it)" if at_limit
           else "the peak")
    )  # fmt: skip
    return Forecast(at, est, lower, upper, "past its peak", True, tuple(notes),
                    known.limit if at_limit else None)  # fmt: skip


def _fitted(
    n: np.ndarray,
    x: np.ndarray,
    at: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray],
    cap: np.ndarray,
    known: KnownLimits,
    notes: list[str],
    band_of: tuple[float, int],
    fit: FitResult | None,
) -> Forecast:
    """A sweep still rising with curvature: the stacked curve and its band, within the bounds
    (`bounds`: the least rate past the data, :func:`_floor`, and the most its end allows,
    :func:`_rise`, which the band's upper edge reaches at least)."""
    level, draws = band_of
    floor, rise = bounds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit if fit is not None else fit_throughput_curve(n, x)
        curve = get_model(fit.model).model
        try:
            band = predict_band(fit, at, level, draws=draws)
            drawn = [band[k].to_numpy(float) for k in ("estimate", "lower", "upper")]
        except ModelError as exc:  # no resample of the points refits (an outlier among them)
            drawn = []
            why = f"{exc}; the band is the curve's own record past each prefix alone"
    reach_up, reach_down = _record_reach(fit, at / float(n[-1]))
    if not drawn:
        if not np.any(reach_up + reach_down > 0):
            return refused(at, floor, why + ", too short to draw one")
        notes.append(why)
        drawn = [np.asarray(curve(at, **fit), float)] * 3
    fitted, lower, upper = drawn
    # past the data a sweep that has not fallen is not read to fall (a retrograde curve fitted
    # to rising points is one of its readings, not evidence): the estimate holds at least the
    # curve's value at the last concurrency measured; the band's floor keeps the fall
    at_last = float(curve(float(n[-1]), **fit))
    est = np.minimum(fitted, cap)
    est = np.where(at > float(n[-1]), np.maximum(est, np.minimum(at_last, cap)), est)
    upper = np.maximum(upper, est * np.exp(reach_up))
    if np.any(rise > np.minimum(upper, cap) * 1.01):
        notes.append(
            "the band reaches as high as the sweep's end still rising would go (its best rate "
            "growing on at its upper half's elasticity): the curve levels off sooner than that"
        )
    upper = np.maximum(upper, rise)
    lower = np.minimum(lower, est * np.exp(-reach_down))
    # no lower than `floor` (a bootstrap draw of a retrograde curve can crash to zero: not
    # physical)
    lower = np.minimum(np.maximum(lower, floor), est)
    upper = np.minimum(np.maximum(upper, est), cap)
    capped = bool(np.any(fitted > cap))
    notes += list(fit.notes)
    basis = "fitted curve capped by the known limit" if capped else "fitted curve"
    bound = known.limit if capped and known.known else None
    if capped and not known.known:
        basis, bound = "fitted curve capped by Little's law", "Little's law (lowest latency)"
    return Forecast(at, est, lower, np.where(np.isfinite(upper), upper, cap), basis, True,
                    tuple(notes), bound, params=dict(fit))  # fmt: skip


def _record_reach(fit: FitResult, ratio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How far above and below its estimate [log] the curve's own record says to reach.

    The stacked curve predicted its later points from each prefix of the sweep
    (``fit.prequential``); its largest shortfall and overshoot there, up to `r_max` times the
    concurrency each prefix saw (the farthest the record reaches), are what it may miss by
    again. At `ratio` times the last concurrency measured the reach grows as
    ``sqrt(log ratio / log r_max)`` (nothing at the data, the record's worst at its own
    distance, more beyond); too short a record (fewer than :data:`MIN_RECORD` predictions)
    gives none.
    """
    none = np.zeros(ratio.size)
    if fit.prequential is None or fit.x is None:
        return none, none
    r, err = prequential_errors(fit.x, fit.y, fit.prequential)
    if err.size < MIN_RECORD:
        return none, none
    grow = np.sqrt(np.log(np.maximum(ratio, 1.0)) / math.log(max(float(r.max()), 1.01)))
    return max(float(err.max()), 0.0) * grow, max(-float(err.min()), 0.0) * grow


def knee_concurrency(known: KnownLimits, r_min_ms: float) -> float:
    """Where the bounds meet: N* = limit x lowest latency [-] (the knee of a closed system)."""
    if not known.known or not r_min_ms > 0:
        return math.nan
    return known.iops_max * r_min_ms / MS_PER_S
