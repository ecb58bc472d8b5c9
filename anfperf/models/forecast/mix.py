"""Read/write mixes not measured, from the mixes that were, and what was in flight in each.

The mix model (:func:`~anfperf.models.curves.mix.fit_mix`: the harmonic mean of the pure
reads and writes, a volume's limit a separate ceiling) is time sharing: it holds between runs
made with as many I/Os in flight. When the measured runs and the mix to predict had different
counts in flight, each measured read share is first carried to the mix's count, then mixed:

- between two counts measured at that read share, along its own measured points (linear in
  log throughput against log count);
- past them, from the nearest count ``m`` by ``X(n) = X(m) (n / m) ** IN_FLIGHT_ELASTICITY``.
  By Little's law the latency does not fall as more is in flight and the throughput does not
  fall as less is, so ``X(n)`` lies between ``X(m)`` and ``X(m) n / m``: that is how far the
  band reaches (elasticity 0 and 1, the mix band about each);
- above them, when that read share was measured at ``MIN_CURVE_COUNTS`` counts or more, by its
  own concurrency curve (:func:`~anfperf.models.forecast.throughput.forecast_throughput`, its
  band; never above ``X(m) n / m``).

On this machine's disk (tests/data/fio_sweeps/mix_qd: 8 KiB random and 64 KiB sequential,
1 .. 64 in flight x 0 .. 100 % reads), the 25, 50 and 75 % mixes at every count from pure runs
at other counts: median error 20 .. 104 % without the counts, 8 .. 24 % with them, every
mix inside the band where a count was carried past the measured ones
(``benchmarks/bench_models.py``, context rows).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.curves.band import predict_band
from anfperf.models.curves.mix import fit_mix
from anfperf.models.forecast.result import Forecast
from anfperf.models.forecast.throughput import forecast_throughput

__all__ = ["IN_FLIGHT_ELASTICITY", "forecast_mix"]

#: Counts in flight a read share needs for its own concurrency curve to carry it past them
#: (:func:`~anfperf.models.forecast.throughput.forecast_throughput`: no number below 4).
MIN_CURVE_COUNTS = 4
#: Bootstrap draws of that curve's band: a mix's band is the spread of mixes, mostly.
CURVE_DRAWS = 100
#: How throughput follows the count in flight past the counts measured [-]: d log X / d log N.
#: The median over every pair of counts of the repository's real concurrency sweeps recorded
#: before the mix grids: fio random reads of a VM's disk (tests/data/fio_sweeps/qd_randread
#: 0.12, qd_onepass 0.29) and a Vdbench forthreads run of the seed's workload on a local disk
#: (../shared/corpus RndReadThreads 0.30).
IN_FLIGHT_ELASTICITY = 0.3


def forecast_mix(
    read_pct: object,
    throughput: object,
    at: object,
    *,
    limit: float | None = None,
    outstanding: object | None = None,
    at_outstanding: object | None = None,
    level: float = 0.95,
) -> Forecast:
    """Throughput at read shares not measured, from measured mixes (the pure ends at least).

    Parameters
    ----------
    read_pct, throughput : array-like
        Measured read shares [%] and throughput at each [IOPS or MiB/s].
    at : array-like
        Read shares to predict at [%].
    limit : float, optional
        The volume's throughput limit in the unit of `throughput`.
    outstanding : array-like, optional
        I/Os in flight at each measured point [-].
    at_outstanding : float or array-like, optional
        I/Os in flight of the mixes to predict [-]. With `outstanding`, each measured read
        share is carried to that count first (see the module's docstring).
    level : float
        Share of new measurements the band should hold.

    Returns
    -------
    Forecast
        Estimate and band [unit of `throughput`], basis the mix model chosen.

    Raises
    ------
    anfperf.ModelError
        What :func:`~anfperf.models.curves.mix.fit_mix` refuses; an `outstanding` that is not
        one positive count per measured point.
    """
    pct = np.asarray(read_pct, float).ravel()
    rate = np.asarray(throughput, float).ravel()
    x = np.atleast_1d(np.asarray(at, float))
    fit = _fit(pct, rate, limit)
    est, lower, upper = _band(fit, x, level)
    notes = list(fit.notes)
    if outstanding is not None and at_outstanding is not None:
        m = _counts(outstanding, rate.size)
        try:
            n = np.broadcast_to(np.asarray(at_outstanding, float), x.shape)
        except ValueError:
            raise ModelError(
                f"at_outstanding must be one count or one per read share to predict ({x.size}), "
                f"got {np.size(at_outstanding)}"
            ) from None
        carried = np.zeros(x.shape, bool)
        for count in np.unique(n[np.isfinite(n) & (n > 0)]):
            if np.all(m == count):
                continue
            here = n == count
            carried |= here
            shares, *carried_rates = _carried(pct, rate, m, count)
            # each carried reading's mix with its band; an end fitted rather than measured
            # can turn the lowest reading's mix above the middle one's: the widest of them
            bands = np.array([_band(_fit(shares, r, limit), x[here], level)
                              for r in carried_rates])  # fmt: skip
            est[here] = bands[0, 0]
            lower[here] = bands[:, 1].min(axis=0)
            upper[here] = bands[:, 2].max(axis=0)
        if np.any(carried):
            notes.append(
                f"{int(carried.sum())} of the mixes ran with {_counts_text(n[carried])} in "
                f"flight, the measured ones with {_counts_text(m)}: each measured read share "
                f"carried to the mix's count (past its measured counts: throughput ~ "
                f"count^{IN_FLIGHT_ELASTICITY:g}, or its own concurrency curve above "
                f"{MIN_CURVE_COUNTS} or more; by Little's law between holding and scaling with "
                "the count)"
            )
    return Forecast(
        x=x, estimate=est, lower=lower, upper=upper, notes=tuple(notes), level=level,
        basis=f"{fit.selected} mix of the measured read shares",
        bound=f"the limit ({limit:,g})" if limit is not None and math.isfinite(limit) else None,
        params=dict(fit),
    )  # fmt: skip


def _fit(pct: np.ndarray, rate: np.ndarray, limit: float | None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kept in the fit's notes
        return fit_mix(pct, rate, limit=limit)


def _band(fit, x: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    band = predict_band(fit, x, level)
    return tuple(band[k].to_numpy(float).copy() for k in ("estimate", "lower", "upper"))


def _carried(
    pct: np.ndarray, rate: np.ndarray, m: np.ndarray, count: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each measured read share's throughput at `count` in flight: estimate, lowest, highest."""
    shares, mid, low, high = [], [], [], []
    for share in np.unique(pct):
        at = pct == share
        # repeats at one count: their geometric mean (interpolation wants distinct counts)
        counts = np.unique(m[at])
        rates = np.array([np.exp(np.mean(np.log(rate[at][m[at] == c]))) for c in counts])
        if counts[0] <= count <= counts[-1]:  # along its own measured points
            value = float(np.exp(np.interp(np.log(count), np.log(counts), np.log(rates))))
            lo = hi = value
        else:
            near = 0 if count < counts[0] else -1
            ratio = count / counts[near]
            value = rates[near] * ratio**IN_FLIGHT_ELASTICITY
            lo, hi = sorted((rates[near], rates[near] * ratio))
            if ratio > 1 and counts.size >= MIN_CURVE_COUNTS:
                value, lo, hi = _along_curve(counts, rates, count, (value, lo, hi))
        shares.append(share)
        mid.append(value)
        low.append(lo)
        high.append(hi)
    return tuple(np.array(v, float) for v in (shares, mid, low, high))


def _along_curve(
    counts: np.ndarray, rates: np.ndarray, count: float, fallback: tuple[float, float, float]
) -> tuple[float, float, float]:
    """A read share's throughput at `count`, more in flight than measured, by the concurrency
    forecast of its own sweep; `fallback` where that forecast gives no number."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a forecast's notes say what the fit warned
        fc = forecast_throughput(counts, rates, [count], draws=CURVE_DRAWS)
    value, lo, hi = (float(v[0]) for v in (fc.estimate, fc.lower, fc.upper))
    if not (math.isfinite(value) and math.isfinite(lo)):
        return fallback
    cap = float(rates[-1] * count / counts[-1])  # Little's law: latency does not fall
    return min(value, cap), min(lo, cap), min(hi, cap)  # an unbounded band: the cap


def _counts(outstanding: object, n_points: int) -> np.ndarray:
    m = np.asarray(outstanding, float).ravel()
    if m.size != n_points or not np.all(np.isfinite(m) & (m > 0)):
        raise ModelError(
            f"outstanding must give one positive count per measured point ({n_points}), "
            f"got {m.tolist()}"
        )
    return m


def _counts_text(counts: np.ndarray) -> str:
    values = np.unique(counts)
    return f"{values[0]:g}" if values.size == 1 else f"{values[0]:g} .. {values[-1]:g}"
