"""Uncertainty bands of fitted curves: refit on resampled points, read the spread of the curves.

A parameter interval (``FitResult.ci``) says how uncertain each parameter is; a chart needs how
uncertain the *curve* is at every x, which depends on the parameters together.

- :func:`predict_band` takes any fit anfperf makes and gives a prediction band: a seeded
  residual bootstrap (the fit's relative residuals, scaled up for the parameters fitted, put
  back on its curve; the model refitted within its parameter bounds), each refitted curve
  with a residual of its own added (a new measurement scatters like the old ones). For the
  default throughput curve, a model average, each draw comes from one of its models in
  proportion to its weight: where the models part past the data, so does the band.
  :func:`bootstrap_params` and :func:`band_draws` expose the draws.
- :func:`case_band`: a case bootstrap (points drawn with replacement) of a fit function and
  model given separately, as the report's latency charts use.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from anfperf.errors import ModelError
from anfperf.models.curves.bootstrap import DEFAULT_DRAWS, bootstrap_params, draws_of, parameter_ci
from anfperf.models.curves.registry import get_model, register_model
from anfperf.models.curves.result import FitResult

__all__ = [
    "DEFAULT_DRAWS",
    "DEFAULT_RESAMPLES",
    "band_draws",
    "bootstrap_params",
    "case_band",
    "model_function",
    "parameter_ci",
    "predict_band",
    "register_model",
]

#: Resamples when the caller does not say: enough for stable 2.5 / 97.5 % percentiles on a chart.
DEFAULT_RESAMPLES = 200


def band_draws(
    fit: FitResult,
    x: object,
    *,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
    noise: bool = True,
) -> np.ndarray:
    """Predictions of the bootstrap refits at `x`: one row per draw.

    Parameters
    ----------
    fit : FitResult
        Any fit of :mod:`anfperf.models`.
    x : array-like
        Where to predict (units of the fit's x).
    draws, seed
        As in :func:`bootstrap_params`.
    noise : bool
        Add to each predicted value a relative residual drawn from the fit's own (a prediction
        of a new measurement); False gives the spread of the curve alone.

    Returns
    -------
    numpy.ndarray
        Shape (successful draws, len(x)); +inf where a draw's value is unbounded (a latency at
        or past the draw's maximum rate), other non-finite predictions NaN.
    """
    at = np.atleast_1d(np.asarray(x, float))
    rng = np.random.default_rng(seed + 1)
    rows = []
    for _, part, params, pool in draws_of(fit, draws, seed):
        with np.errstate(all="ignore"):
            pred = np.asarray(model_function(part)(at, **params), float)
        if noise:
            # one residual per draw: each draw stays a smooth curve (a chart's band edges do
            # not jitter), and at every x the spread is the same as with one per point
            pred = pred * (1.0 + rng.choice(pool))
        rows.append(np.where(np.isfinite(pred) | (pred == np.inf), pred, np.nan))
    if not rows:
        raise ModelError(f"no bootstrap refit of the {fit.model} fit converged: no band")
    return np.vstack(rows)


def predict_band(
    fit: FitResult,
    x: object,
    level: float = 0.95,
    *,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
) -> pd.DataFrame:
    """Prediction band of any fitted curve at `x`, from a seeded residual bootstrap.

    Parameters
    ----------
    fit : FitResult
        A fit of :mod:`anfperf.models`: :func:`~anfperf.models.fit_usl`,
        :func:`~anfperf.models.fit_mva_throughput`, :func:`~anfperf.models.fit_throughput_curve`
        (draws from its three models by weight), :func:`~anfperf.models.fit_queueing_latency`,
        :func:`~anfperf.models.fit_mix`, :func:`~anfperf.models.curves.op_cost.fit_op_cost`.
    x : array-like
        Where to predict: concurrency, load [IOPS], read % or block size [KiB], as fitted.
    level : float
        Share of new measurements the band should hold, 0 < level < 1.
    draws, seed
        As in :func:`bootstrap_params`.

    Returns
    -------
    pandas.DataFrame
        Columns x, estimate (the fit's own curve), lower, upper (the central `level` share of
        the draws, widened to hold the estimate; inf where more than the tail's share of the
        draws is unbounded, a latency past their maximum rate; NaN where fewer than half the
        draws give a value) and rel_width
        (``(upper - lower) / estimate`` [-]: a band can be honest and too wide to plan with).
    """
    if not 0 < level < 1:
        raise ModelError(f"level must be between 0 and 1, got {level!r}")
    at = np.atleast_1d(np.asarray(x, float))
    own = None if fit.weights else get_model(fit.model, purpose="band").band
    if own is not None:  # the model knows its band (e.g. a mix from two endpoints)
        low, high = (np.asarray(edge, float) for edge in own(fit, at, level))
    else:
        low, high = _edges(band_draws(fit, at, draws=draws, seed=seed), level)
    estimate = np.asarray(model_function(fit)(at, **fit), float)
    # the band holds the curve it is drawn about: a poor fit's refits can pass to one side
    finite = np.isfinite(estimate)
    low = np.minimum(low, np.where(finite, estimate, np.inf))
    high = np.maximum(high, np.where(finite, estimate, -np.inf))
    with np.errstate(invalid="ignore"):  # unbounded over an unbounded estimate: NaN
        rel_width = (high - low) / estimate
    return pd.DataFrame(
        {"x": at, "estimate": estimate, "lower": low, "upper": high, "rel_width": rel_width}
    )


def model_function(fit: FitResult) -> Callable:
    """The model function a fit predicts with: ``model_function(fit)(x, **fit)``."""
    return get_model(fit.model, purpose="band").model


def case_band(
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
    return _edges(stack, level)


def _edges(stack: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The central `level` share of the draws (rows) at each x (columns); NaN where fewer than
    half of the draws give a value.

    A draw of +inf (unbounded: a latency past that draw's maximum rate) ranks above every
    finite one: an edge whose rank falls among them is inf. Left out instead, the slower edge
    would be the quantile of the draws that have not saturated, and fall as more of them do.
    """
    drawn = np.sum(~np.isnan(stack), axis=0)
    unbounded = np.sum(np.isposinf(stack), axis=0)
    enough = drawn >= 0.5 * stack.shape[0]
    tail = 50.0 * (1.0 - level)
    ranked = np.where(np.isposinf(stack), np.finfo(float).max, stack)  # sorts last
    edges = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        for q in (tail, 100.0 - tail):
            edge = np.nanpercentile(ranked, q, axis=0)
            # numpy's linear rule reads ranks floor(h) and ceil(h), h = q (n - 1) / 100
            reaches = np.ceil(q / 100.0 * (drawn - 1)) >= drawn - unbounded
            edges.append(np.where(enough, np.where(reaches, np.inf, edge), np.nan))
    return edges[0], edges[1]
