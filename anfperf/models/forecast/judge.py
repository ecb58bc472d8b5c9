"""How a forecast does past its data: fit the lower part of a real sweep, predict the rest.

The errors of the estimate, those of holding the last fitted value flat (the baseline any model
must beat, or admit it cannot), how many held-out points the band holds and how wide it is.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.forecast.result import Forecast

#: What a forecast should reach on a held-out half: median and largest error [%], coverage [-],
#: and, where a limit is known, the band's median width relative to the estimate [-].
TARGETS = {"median_err_pct": 10.0, "max_err_pct": 25.0, "coverage": 0.8, "rel_width": 0.6}


def _errors_pct(predicted: np.ndarray, measured: np.ndarray, resolution: float) -> np.ndarray:
    """Absolute errors [%]; a difference within the measurement's resolution is none."""
    miss = np.maximum(np.abs(predicted - measured) - resolution, 0.0)
    return miss / measured * 100.0


def judge_forecast(
    x: object,
    y: object,
    forecast: Callable[[np.ndarray, np.ndarray, np.ndarray], Forecast],
    *,
    fit_share: float = 0.5,
    resolution: float = 0.0,
) -> dict:
    """Fit the lower part of a sweep with `forecast` and judge its prediction of the rest.

    Parameters
    ----------
    x, y : array-like
        The sweep, one point per x.
    forecast : callable
        ``forecast(x_fit, y_fit, x_new) -> Forecast``.
    fit_share : float
        Share of the points (lowest x first) fitted; ``ceil`` of it, at least 3.
    resolution : float
        How finely y was written (half its last digit): a miss within it is not an error,
        and a point within it of the band is inside.

    Returns
    -------
    dict
        fit_points, predicted_points, predictable; median_err_pct, max_err_pct (NaN when the
        forecast gave no number); flat_median_err_pct, flat_max_err_pct (the last fitted value
        held); coverage, median_rel_width; forecast; measured.
    """
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    order = np.argsort(xs, kind="stable")
    xs, ys = xs[order], ys[order]
    n_fit = max(3, int(np.ceil(fit_share * xs.size)))
    if xs.size - n_fit < 1:
        raise ModelError(f"a sweep of {xs.size} points leaves nothing to predict")
    fc = forecast(xs[:n_fit], ys[:n_fit], xs[n_fit:])
    measured = ys[n_fit:]
    flat = _errors_pct(np.full(measured.size, ys[n_fit - 1]), measured, resolution)
    err = _errors_pct(fc.estimate, measured, resolution)
    inside = (fc.lower - resolution <= measured) & (measured <= fc.upper + resolution)
    with np.errstate(all="ignore"):
        width = (fc.upper - fc.lower) / fc.estimate
    return {
        "fit_points": n_fit,
        "predicted_points": int(measured.size),
        "predictable": fc.predictable,
        "median_err_pct": float(np.median(err)) if fc.predictable else float("nan"),
        "max_err_pct": float(np.max(err)) if fc.predictable else float("nan"),
        "flat_median_err_pct": float(np.median(flat)),
        "flat_max_err_pct": float(np.max(flat)),
        "coverage": float(np.mean(inside)),
        "median_rel_width": float(np.median(width)) if fc.predictable else float("inf"),
        "forecast": fc,
        "measured": measured,
    }
