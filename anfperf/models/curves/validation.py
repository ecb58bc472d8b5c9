"""How well a fit predicts past its data: fit the lower half of a sweep, predict the upper half.

A model that fits its points says little about the points it has not seen, which is what a
capacity plan asks of it. :func:`holdout_check` measures that on a real sweep: the errors of the
fit's predictions of the held-out upper half, the errors of the simplest alternative (a flat
line at the last fitted value), and how many held-out points the prediction band holds and how
wide it is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.arrays import as_float_array
from anfperf.models.curves.band import DEFAULT_DRAWS, model_function, predict_band
from anfperf.models.curves.blend import fit_throughput_curve
from anfperf.models.curves.result import FitResult

#: What a default model should reach on a real sweep's held-out upper half: median and largest
#: absolute error [%], and the share of held-out points inside its 95 % band [-].
HOLDOUT_TARGETS = {"median_err_pct": 10.0, "max_err_pct": 25.0, "coverage": 0.8}


def holdout_check(
    x: object,
    y: object,
    *,
    fit: Callable[[np.ndarray, np.ndarray], FitResult] = fit_throughput_curve,
    level: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
) -> dict:
    """Fit the lower half of a sweep and predict its upper half.

    Parameters
    ----------
    x, y : array-like
        The sweep (e.g. concurrency and IOPS, or load and latency), one point per x.
    fit : callable
        ``fit(x, y) -> FitResult``; the default throughput curve by default.
    level : float
        Level of the prediction band.
    draws, seed
        As in :func:`anfperf.models.predict_band`.

    Returns
    -------
    dict
        fit_points, predicted_points; median_err_pct, max_err_pct (absolute errors of the
        fit's predictions [%]); flat_median_err_pct, flat_max_err_pct (of the last fitted
        value held flat); coverage (share of the upper half inside the band [-]);
        median_rel_width (median of (upper - lower) / estimate [-]); fit; band (the frame of
        :func:`~anfperf.models.predict_band`, with the measured values as `measured`).

    Raises
    ------
    anfperf.ModelError
        Fewer than 4 points, or the fit or its band fails.
    """
    xs, ys = as_float_array(x, "x"), as_float_array(y, "y")
    if xs.size != ys.size or xs.size < 4:
        raise ModelError(f"a holdout check needs 4 or more (x, y) points, got {xs.size}")
    order = np.argsort(xs, kind="stable")
    xs, ys = xs[order], ys[order]
    lower = np.arange(xs.size) < (xs.size + 1) // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = fit(xs[lower], ys[lower])
    measured = ys[~lower]
    predicted = np.asarray(model_function(fitted)(xs[~lower], **fitted), float)
    err = np.abs(predicted / measured - 1.0) * 100.0
    flat = np.abs(ys[lower][-1] / measured - 1.0) * 100.0
    band = predict_band(fitted, xs[~lower], level, draws=draws, seed=seed)
    band["measured"] = measured
    inside = (band["lower"] <= measured) & (measured <= band["upper"])
    return {
        "fit_points": int(lower.sum()),
        "predicted_points": int((~lower).sum()),
        "median_err_pct": float(np.median(err)),
        "max_err_pct": float(np.max(err)),
        "flat_median_err_pct": float(np.median(flat)),
        "flat_max_err_pct": float(np.max(flat)),
        "coverage": float(inside.mean()),
        "median_rel_width": float(band["rel_width"].median()),
        "fit": fitted,
        "band": band,
    }
