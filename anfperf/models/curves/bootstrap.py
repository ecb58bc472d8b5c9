"""The seeded residual bootstrap of any registered model's fit: parameter draws and intervals.

Each draw puts the fit's own relative residuals (centred, scaled up for the parameters fitted)
back on its curve and refits the model from the fit already found, with the model's `refit`
(:class:`~anfperf.models.curves.registry.ModelSpec`). A model average (the default throughput
curve) draws from its component models in proportion to their weights.
:func:`~anfperf.models.curves.band.predict_band` reads its bands off these draws; the fits'
``bootstrap=`` option its parameter intervals (:func:`parameter_ci`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from anfperf.errors import ModelError
from anfperf.models.curves.registry import get_model
from anfperf.models.curves.result import FitResult

#: Draws of :func:`bootstrap_params` (and the bands) when the caller does not say.
DEFAULT_DRAWS = 400


def _components(fit: FitResult) -> list[tuple[str, FitResult, float]]:
    """(name, single fit, share of the draws) of each model a draw may come from."""
    if fit.weights:  # a model average
        parts = [(k, f, fit.weights.get(k, 0.0)) for k, f in fit.fits.items()]
        parts = [p for p in parts if p[2] > 0]
        total = sum(p[2] for p in parts)
        return [(k, f, w / total) for k, f, w in parts]
    if get_model(fit.model, purpose="band").refit is None:
        raise ModelError(f"no band for a {fit.model!r} fit: its model has no refit")
    return [(fit.model, fit, 1.0)]


def _residuals(fit: FitResult) -> np.ndarray:
    """Relative residuals, centred and scaled up by sqrt(n / (n - k)) for the k fitted (of
    the log ratios, as factors less 1, where that would reach -100 %)."""
    if fit.x is None:
        raise ModelError(f"the {fit.model} fit does not carry its points: refit it with anfperf")
    y, y_fit = np.asarray(fit.y, float), np.asarray(fit.y_fit, float)
    rel = y / y_fit - 1.0
    # a model average has as many free parameters as its largest model, not their sum
    parts = fit.fits.values() if fit.fits else [fit]
    free = max(max(len(f) - len(f.fixed) for f in parts), 1)
    dof = y.size - free
    scale = np.sqrt(y.size / dof) if dof > 0 else 1.0
    out = (rel - rel.mean()) * scale
    if np.any(out <= -1.0):
        # a misfit point scaled past -100 % would put a negative value on the curve (its
        # draws skipped: then none may be left): the log residuals, as factors, stay positive
        logs = np.log(y / y_fit)
        out = np.expm1((logs - logs.mean()) * scale)
    return out


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
    rows = [{"component": name, **params} for name, _, params, _ in draws_of(fit, draws, seed)]
    return pd.DataFrame(rows)


def draws_of(fit: FitResult, draws: int, seed: int):
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
    refits = [get_model(part.model, purpose="band").refit for _, part, _ in parts]
    for i in picks:
        (name, part, _), pool, refit = parts[i], pools[i], refits[i]
        base = fit.y_fit if averaged else part.y_fit
        y_star = base * (1.0 + rng.choice(pool, size=pool.size))
        if np.any(y_star <= 0):
            continue
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                params = refit(part.x, y_star, part)
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
