"""Pieces every curve fit shares: point extraction, weighted least squares, AICc, Kneedle."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
from scipy.optimize import OptimizeWarning, curve_fit

from anfperf.errors import ModelError
from anfperf.models.curves.result import check_points

#: Points a fit should have before its parameters are trusted (the public USL fitters' rule).
RECOMMENDED_POINTS = 6
#: Share of a fitted maximum the data must reach to count as having seen saturation.
SATURATION_SHARE = 0.8


def _scalar(out: np.ndarray) -> np.ndarray | float:
    return float(out) if np.ndim(out) == 0 else out


def _curve_fit(
    func: Callable,
    x: np.ndarray,
    y: np.ndarray,
    p0: list[float],
    bounds: tuple,
    jac: Callable | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """curve_fit on relative errors; returns (popt, pcov, cost) or raises RuntimeError.

    `jac(x, *params)` is the model's (n, k) Jacobian: given, the solver calls it once per step
    instead of differencing the model k more times (most of a small fit's time).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptimizeWarning)
        with np.errstate(all="ignore"):
            popt, pcov = curve_fit(
                func, x, y, p0=p0, bounds=bounds, sigma=y, maxfev=20000, jac=jac or "2-point"
            )
            resid = (func(x, *popt) - y) / y
    cost = float(np.sum(resid**2))
    if not np.isfinite(cost):
        raise RuntimeError("non-finite residuals")
    return np.asarray(popt, float), np.asarray(pcov, float), cost


def _aicc(cost: float, n: int, k: int) -> float:
    """Corrected Akaike information criterion of a least-squares fit (relative residuals)."""
    if n - k - 1 <= 0:
        return math.inf
    return n * math.log(max(cost, 1e-300) / n) + 2 * k + 2 * k * (k + 1) / (n - k - 1)


def kneedle(x: object, y: object, curve: str = "concave") -> tuple[float, float]:
    """Kneedle (Satopaa et al. 2011): the point of a monotone curve farthest from its chord.

    Parameters
    ----------
    x, y : array-like
        The curve (at least 3 points), x increasing.
    curve : {'concave', 'convex'}
        'concave' for throughput rising to a plateau, 'convex' for latency rising with load.

    Returns
    -------
    (float, float)
        The knee's x and y.
    """
    xa, ya = check_points(x, y, x_name="x", y_name="y", n_params=3, recommended=3, positive=False)
    xn = (xa - xa[0]) / (xa[-1] - xa[0])
    span = ya[-1] - ya[0]
    if span == 0:
        raise ModelError("the curve ends where it starts: no knee")
    yn = (ya - ya[0]) / span
    if curve == "concave":
        diff = yn - xn
    elif curve == "convex":
        diff = xn - yn
    else:
        raise ModelError(f"curve must be 'concave' or 'convex', got {curve!r}")
    i = int(np.argmax(diff))
    return float(xa[i]), float(ya[i])
