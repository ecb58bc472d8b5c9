"""Read/write mixes not measured, from the mixes that were, and what was in flight in each.

The mix model (:func:`~anfperf.models.curves.mix.fit_mix`: the harmonic mean of the pure
reads and writes, a volume's limit a separate ceiling) predicts the mix as it runs under the
load that drove the measured mixes. A mix run with fewer I/Os in flight than they had may be
bound by what it had in flight, not by the mix: latency does not fall as more is in flight,
so by Little's law ``X(n) >= X(m) n / m`` for ``n < m``, and that is as low as its band
reaches (the estimate stays the mix's own rate: an upper end for such a run). Vdbench's 64 KiB
pure runs at 40 .. 80 in flight against its mixes at 12 and 14 (../shared/corpus/vdbench
SeqRead, SeqWrite, SeqMix): the mix's band alone held one of the two.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.curves.band import predict_band
from anfperf.models.curves.mix import fit_mix
from anfperf.models.forecast.result import Forecast

__all__ = ["forecast_mix"]


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
        I/Os in flight of the mixes to predict [-]; fewer than the measured points had
        widens the band down by Little's law.
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kept in the fit's notes
        fit = fit_mix(read_pct, throughput, limit=limit)
    x = np.atleast_1d(np.asarray(at, float))
    band = predict_band(fit, x, level)
    est, lower, upper = (band[k].to_numpy(float) for k in ("estimate", "lower", "upper"))
    notes = list(fit.notes)
    if outstanding is not None and at_outstanding is not None:
        m = _in_flight(outstanding, np.size(np.asarray(throughput, float)))
        n = np.broadcast_to(np.asarray(at_outstanding, float), x.shape)
        fewer = np.isfinite(n) & (n > 0) & (n < m)
        if np.any(fewer):
            lower = np.where(fewer, lower * n / m, lower)
            notes.append(
                f"{int(fewer.sum())} of the mixes ran with {np.min(n[fewer]):g} in flight, "
                f"fewer than the {m:g} of the measured ones: bound by what they had in flight "
                "they run slower than the mix; by Little's law not below "
                f"{np.min(n[fewer]) / m:.0%} of it"
            )
    return Forecast(
        x=x, estimate=est, lower=lower, upper=upper, notes=tuple(notes), level=level,
        basis=f"{fit.selected} mix of the measured read shares",
        bound=f"the limit ({limit:,g})" if limit is not None and math.isfinite(limit) else None,
        params=dict(fit),
    )  # fmt: skip


def _in_flight(outstanding: object, n_points: int) -> float:
    """The most I/Os in flight among the measured points."""
    m = np.asarray(outstanding, float).ravel()
    if m.size != n_points or not np.all(np.isfinite(m) & (m > 0)):
        raise ModelError(
            f"outstanding must give one positive count per measured point ({n_points}), "
            f"got {m.tolist()}"
        )
    return float(m.max())
