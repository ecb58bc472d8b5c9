"""Uncertainty band of a fitted curve: refit on resampled points, read the spread of the curves.

A parameter interval (``FitResult.ci``) says how uncertain each parameter is; a chart needs how
uncertain the *curve* is at every x, which depends on the parameters together. The band here is
a case bootstrap: points drawn with replacement, the model refitted, and at each x the central
`level` share of the refitted curves. Seeded, so the same points give the same band.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

import numpy as np

from anfperf.errors import ModelError

#: Resamples when the caller does not say: enough for stable 2.5 / 97.5 % percentiles on a chart.
DEFAULT_RESAMPLES = 200


def predict_band(
    fit: Callable[[np.ndarray, np.ndarray], Mapping[str, float]],
    model: Callable[..., np.ndarray | float],
    x: object,
    y: object,
    grid: object,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = 0.95,
    seed: int = 0,
    min_distinct: int = 3,
) -> tuple[np.ndarray, np.ndarray]:
    """Pointwise band of ``model(grid, **fit(x, y))`` from a case bootstrap.

    Parameters
    ----------
    fit : callable
        ``fit(x, y) -> params``: a fit function returning the model's parameters by name, e.g.
        :func:`anfperf.models.fit_queueing_latency`, or a quicker one-start refit such as
        ``lambda x, y: refit_queueing_latency(x, y, start)``.
    model : callable
        ``model(grid, **params)``, the model the fit's parameters belong to.
    x, y : array-like
        The measured points.
    grid : array-like
        Where the band is wanted.
    resamples : int
        Bootstrap resamples.
    level : float
        Share of the refitted curves inside the band, 0 < level < 1.
    seed : int
        Seed of the resampling (``numpy.random.default_rng(seed)``): the same inputs give the
        same band.
    min_distinct : int
        Fewest distinct x a resample needs to be fitted (the model's parameter count); others
        are skipped.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper edge at each grid point (units of y); NaN where fewer than half of the
        resamples gave a finite value.

    Raises
    ------
    anfperf.ModelError
        Fewer than `min_distinct` points (at least 3), a bad `level`, or no resample could be
        fitted.
    """
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    at = np.asarray(grid, float)
    need = max(int(min_distinct), 3)
    if xs.size < need or xs.size != ys.size:
        raise ModelError(
            f"a band needs {need} or more (x, y) points of equal length, got {xs.size} x values "
            f"and {ys.size} y values"
        )
    if not 0 < level < 1:
        raise ModelError(f"level must be between 0 and 1, got {level!r}")
    rng = np.random.default_rng(seed)
    curves = []
    for _ in range(int(resamples)):
        pick = rng.integers(0, xs.size, xs.size)
        # a resample with fewer distinct loads than the model has parameters cannot be fitted
        if np.unique(xs[pick]).size < need:
            continue
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                params = fit(xs[pick], ys[pick])
                curves.append(np.asarray(model(at, **params), float))
        except (ModelError, RuntimeError, ValueError):
            continue
    if not curves:
        raise ModelError("no bootstrap resample could be fitted: no uncertainty band")
    stack = np.vstack(curves)
    stack[~np.isfinite(stack)] = np.nan
    enough = np.sum(np.isfinite(stack), axis=0) >= 0.5 * len(curves)
    tail = 50.0 * (1.0 - level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        low = np.nanpercentile(stack, tail, axis=0)
        high = np.nanpercentile(stack, 100.0 - tail, axis=0)
    return np.where(enough, low, np.nan), np.where(enough, high, np.nan)
