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
from anfperf.models.curves.blend import throughput_curve
from anfperf.models.curves.mix import fit_mix, mix_throughput
from anfperf.models.curves.mva import mva_throughput, refit_mva_throughput
from anfperf.models.curves.op_cost import fit_op_cost, op_cost_iops
from anfperf.models.curves.queueing import queueing_latency, refit_queueing_latency
from anfperf.models.curves.result import FitResult
from anfperf.models.curves.usl import refit_usl, usl

#: Resamples when the caller does not say: enough for stable 2.5 / 97.5 % percentiles on a chart.
DEFAULT_RESAMPLES = 200
#: Draws of :func:`predict_band` when the caller does not say.
DEFAULT_DRAWS = 400


def _refit_mix(x: np.ndarray, y: np.ndarray, start: FitResult) -> dict[str, float]:
    return dict(fit_mix(x, y, exponent=start.fixed.get("exponent")))


def _refit_queueing(x: np.ndarray, y: np.ndarray, start: FitResult) -> dict[str, float]:
    # the servers move with the resample unless the fit held them
    return refit_queueing_latency(x, y, start, fit_servers="servers" not in start.fixed)


def _refit_op_cost(x: np.ndarray, y: np.ndarray, start: FitResult) -> dict[str, float]:
    return dict(fit_op_cost(x, y))


#: Model of each fit (``FitResult.model``) -> (model function, one-start refit(x, y, start)).
#: A new model adds itself with :func:`register_model`.
MODELS: dict[str, tuple[Callable, Callable]] = {
    "usl": (usl, refit_usl),
    "mva_throughput": (mva_throughput, refit_mva_throughput),
    "queueing_latency": (queueing_latency, _refit_queueing),
    "mix_throughput": (mix_throughput, _refit_mix),
    "op_cost_iops": (op_cost_iops, _refit_op_cost),
}


def register_model(
    name: str,
    model: Callable[..., np.ndarray | float],
    refit: Callable[[np.ndarray, np.ndarray, FitResult], Mapping[str, float]],
) -> None:
    """Give the fits of a new model (``FitResult.model == name``) bands and bootstrap draws.

    Parameters
    ----------
    name : str
        The `model` its fit function puts in its :class:`FitResult`.
    model : callable
        ``model(x, **params)``.
    refit : callable
        ``refit(x, y, start) -> params``: one fit of resampled points, started from the fit
        `start`, holding the parameters in ``start.fixed`` and within ``start.bounds``.

    Raises
    ------
    anfperf.ModelError
        `name` is taken.
    """
    if name in MODELS or name == "throughput_curve":  # the one model average
        raise ModelError(f"a model named {name!r} is registered already")
    MODELS[name] = (model, refit)


def _components(fit: FitResult) -> list[tuple[str, FitResult, float]]:
    """(name, single fit, share of the draws) of each model a draw may come from."""
    if fit.weights:  # a model average
        parts = [(k, f, fit.weights.get(k, 0.0)) for k, f in fit.fits.items()]
        parts = [p for p in parts if p[2] > 0]
        total = sum(p[2] for p in parts)
        return [(k, f, w / total) for k, f, w in parts]
    if fit.model not in MODELS:
        raise ModelError(f"no band for a {fit.model!r} fit; known: {sorted(MODELS)}")
    return [(fit.model, fit, 1.0)]


def _residuals(fit: FitResult) -> np.ndarray:
    """Relative residuals, centred and scaled up by sqrt(n / (n - k)) for the k fitted."""
    if fit.x is None:
        raise ModelError(f"the {fit.model} fit does not carry its points: refit it with anfperf")
    y, y_fit = np.asarray(fit.y, float), np.asarray(fit.y_fit, float)
    rel = y / y_fit - 1.0
    # a model average has as many free parameters as its largest model, not their sum
    parts = fit.fits.values() if fit.fits else [fit]
    free = max(max(len(f) - len(f.fixed) for f in parts), 1)
    dof = y.size - free
    scale = np.sqrt(y.size / dof) if dof > 0 else 1.0
    return (rel - rel.mean()) * scale


def bootstrap_params(fit: FitResult, *, draws: int = DEFAULT_DRAWS, seed: int = 0) -> pd.DataFrame:
    """Seeded residual-bootstrap refits of a fit: the parameter draws behind :func:`predict_band`.

    Parameters
    ----------
    fit : FitResult
        Any fit of :mod:`anfperf.models` (USL, MVA, the default throughput curve, queueing,
        read/write mix, per-operation cost).
    draws : int
        Resamples.
    seed : int
        Seed (``numpy.random.default_rng``): the same fit gives the same draws.

    Returns
    -------
    pandas.DataFrame
        One row per successful refit: `component` (the model the draw comes from; for the
        default curve 'usl', 'amdahl' or 'mva') and that model's parameters (NaN for the
        parameters of the other components).
    """
    rows = [{"component": name, **params} for name, _, params, _ in _draw(fit, draws, seed)]
    return pd.DataFrame(rows)


def _draw(fit: FitResult, draws: int, seed: int):
    """Yield (component name, its fit, refitted parameters, residual pool) per successful draw.

    A single fit is refitted to its own curve with its own residuals put back. A model average
    is resampled around *its* curve with *its* residuals, and each draw refits one of its
    models (picked by weight) to that resample: within the data every model follows the same
    resampled points, past them each extrapolates its own way, so the band narrows where the
    data are and widens where the models part (a model's misfit is not taken for noise).
    """
    parts = _components(fit)
    averaged = bool(fit.weights)
    pools = [_residuals(fit if averaged else part) for _, part, _ in parts]
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(parts), size=int(draws), p=[share for *_, share in parts])
    for i in picks:
        (name, part, _), pool = parts[i], pools[i]
        base = fit.y_fit if averaged else part.y_fit
        y_star = base * (1.0 + rng.choice(pool, size=pool.size))
        if np.any(y_star <= 0):
            continue
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                params = MODELS[part.model][1](part.x, y_star, part)
        except (ModelError, RuntimeError, ValueError, ArithmeticError):
            continue
        yield name, part, {**dict(part), **params}, pool


def parameter_ci(
    fit: FitResult, *, draws: int = DEFAULT_DRAWS, seed: int = 0, level: float = 0.95
) -> dict[str, tuple[float, float]]:
    """Bootstrap interval of each parameter of a single-model fit (within its bounds).

    Returns
    -------
    dict
        ``{name: (low, high)}``: the central `level` share of :func:`bootstrap_params`; a
        parameter held fixed has ``(value, value)``. The fit's own normal intervals where no
        refit converged.
    """
    table = bootstrap_params(fit, draws=draws, seed=seed)
    if table.empty:
        return dict(fit.ci)
    tail = 50.0 * (1.0 - level)
    out = {}
    for name, value in fit.items():
        if name in fit.fixed or name not in table:
            out[name] = (value, value)
        else:
            low, high = np.nanpercentile(table[name].to_numpy(float), [tail, 100.0 - tail])
            out[name] = (float(low), float(high))
    return out


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
        Shape (successful draws, len(x)); non-finite predictions are NaN.
    """
    at = np.atleast_1d(np.asarray(x, float))
    rng = np.random.default_rng(seed + 1)
    rows = []
    for _, part, params, pool in _draw(fit, draws, seed):
        with np.errstate(all="ignore"):
            pred = np.asarray(MODELS[part.model][0](at, **params), float)
        if noise:
            # one residual per draw: each draw stays a smooth curve (a chart's band edges do
            # not jitter), and at every x the spread is the same as with one per point
            pred = pred * (1.0 + rng.choice(pool))
        rows.append(np.where(np.isfinite(pred), pred, np.nan))
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
        the draws; NaN where fewer than half the draws are finite) and rel_width
        (``(upper - lower) / estimate`` [-]: a band can be honest and too wide to plan with).
    """
    if not 0 < level < 1:
        raise ModelError(f"level must be between 0 and 1, got {level!r}")
    at = np.atleast_1d(np.asarray(x, float))
    low, high = _edges(band_draws(fit, at, draws=draws, seed=seed), level)
    estimate = np.asarray(model_function(fit)(at, **fit), float)
    return pd.DataFrame(
        {"x": at, "estimate": estimate, "lower": low, "upper": high,
         "rel_width": (high - low) / estimate}
    )  # fmt: skip


def model_function(fit: FitResult) -> Callable:
    """The model function a fit predicts with: ``model_function(fit)(x, **fit)``."""
    if fit.model == "throughput_curve":
        return throughput_curve
    if fit.model not in MODELS:
        raise ModelError(f"no band for a {fit.model!r} fit; known: {sorted(MODELS)}")
    return MODELS[fit.model][0]


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
    half of the draws are finite."""
    enough = np.sum(np.isfinite(stack), axis=0) >= 0.5 * stack.shape[0]
    tail = 50.0 * (1.0 - level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        low = np.nanpercentile(stack, tail, axis=0)
        high = np.nanpercentile(stack, 100.0 - tail, axis=0)
    return np.where(enough, low, np.nan), np.where(enough, high, np.nan)
