"""Weights of candidate models for predicting past the data: prequential stacking.

An information criterion (AICc) scores how well each model fits the points it was fitted to. A
concurrency sweep is used for the opposite: what happens past its last point. There the simplest
model that fits (Amdahl's law, which never turns down) wins the criterion and keeps rising,
while the data may already be levelling off. Stacking (Wolpert 1992; Yao, Vehtari, Simpson and
Gelman, *Bayesian Analysis* 13, 2018) instead weighs the models by how well their *combination*
predicts held-out points; held out prequentially (Dawid 1984), each point is predicted by fits
to the points at lower x only (every later point from every prefix), which is the
extrapolation the weights are for. With few points
the weights are shrunk toward equal ones: when the data cannot tell the models apart, their
average, not the one that fitted best by chance, is the honest prediction.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

import numpy as np
from scipy.optimize import minimize

from anfperf.errors import ModelError

#: Distinct x values a candidate is fitted to before it predicts the next one.
FIRST_FIT_POINTS = 3
#: Pull of the weights toward equal ones: a prior worth about this many predicted points
#: (errors measured in units of the equal-weight mix's own mean squared log error).
STACK_RIDGE = 4.0


def prequential_predictions(
    x: np.ndarray,
    y: np.ndarray,
    fit: Callable[[np.ndarray, np.ndarray], Mapping[str, float]],
    model: Callable[..., object],
    *,
    first: int = FIRST_FIT_POINTS,
) -> np.ndarray:
    """Every point predicted by fits to each prefix of the points below it.

    Parameters
    ----------
    x, y : numpy.ndarray
        The points, x ascending (repeats allowed: a fit never sees the x it predicts).
    fit : callable
        ``fit(x, y) -> params``.
    model : callable
        ``model(x, **params)``.
    first : int
        Distinct x values of the shortest prefix fitted.

    Returns
    -------
    numpy.ndarray
        Shape (prefixes, points): row i holds the predictions of the fit to the points up to
        the (first + i)-th distinct x, at every point beyond it; NaN elsewhere and where a fit
        failed. Every later point counts, not only the next: the weights are for
        extrapolating far, as capacity plans do.
    """
    levels = np.unique(x)
    rows = []
    for level in levels[first - 1 : -1]:
        seen = x <= level
        row = np.full(x.size, np.nan)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                params = fit(x[seen], y[seen])
                row[~seen] = np.asarray(model(x[~seen], **params), dtype=float)
        except (ModelError, RuntimeError, ValueError, ArithmeticError):
            pass
        rows.append(row)
    return np.array(rows).reshape(len(rows), x.size)


def stacking_weights(
    predictions: Mapping[str, np.ndarray], y: np.ndarray, *, ridge: float = STACK_RIDGE
) -> tuple[dict[str, float], int]:
    """Weights on the simplex whose mix of the predictions is closest to `y` in log terms.

    Parameters
    ----------
    predictions : mapping of str to numpy.ndarray
        Each candidate's (prequential) predictions of `y`, of y's shape or rows of it (as
        :func:`prequential_predictions` gives); NaN where it has none.
    y : numpy.ndarray
        The measured values (> 0), one per column of the predictions.
    ridge : float
        Weight of ``sum((w - 1/M)^2)`` added to the sum of squared log errors of the stacked
        prediction, these in units of the equal-weight mix's mean squared log error (at least
        1e-4, a 1 % error): with few points the weights stay near equal, with many the data
        decide.

    Returns
    -------
    (dict, int)
        The weight of each candidate (equal when no point was predicted by all of them;
        0 for a candidate that predicted nothing) and the number of predictions scored.
    """
    names = [k for k, v in predictions.items() if np.isfinite(v).any()]
    if not names:
        return {k: 1.0 / len(predictions) for k in predictions}, 0
    stack = np.vstack([np.asarray(predictions[k], float).reshape(1, -1) for k in names])
    y = np.resize(np.asarray(y, float), stack.shape[1])  # one y per column, rows repeat it
    scored = np.all(np.isfinite(stack) & (stack > 0), axis=0)
    weights = dict.fromkeys(predictions, 0.0)
    if not scored.any():
        weights.update({k: 1.0 / len(names) for k in names})
        return weights, 0
    log_p, log_y = np.log(stack[:, scored]), np.log(y[scored])
    m = len(names)
    # errors in units of the equal-weight mix's own (a floor of 1 %): the prior's pull does not
    # depend on how noisy the sweep is, only on how many points speak against it
    scale = max(float(np.mean((np.log(np.mean(np.exp(log_p), axis=0)) - log_y) ** 2)), 1e-4)

    def loss(z: np.ndarray) -> float:
        w = np.exp(z - z.max())
        w /= w.sum()
        mixed = np.log(w @ np.exp(log_p))
        return float(np.sum((mixed - log_y) ** 2) / scale + ridge * np.sum((w - 1.0 / m) ** 2))

    starts = [np.zeros(m)] + [2.0 * np.eye(m)[i] for i in range(m)]
    best = min((minimize(loss, z0, method="Nelder-Mead") for z0 in starts), key=lambda r: r.fun)
    w = np.exp(best.x - best.x.max())
    w /= w.sum()
    weights.update({k: float(v) for k, v in zip(names, w, strict=True)})
    return weights, int(scored.sum())


def mixed_predictions(
    predictions: Mapping[str, np.ndarray], weights: Mapping[str, float]
) -> np.ndarray:
    """The weighted average of candidates' predictions, over those that gave one at each point.

    Parameters
    ----------
    predictions : mapping of str to numpy.ndarray
        Each candidate's predictions, all of one shape (NaN where a fit failed).
    weights : mapping of str to float
        Each candidate's weight (:func:`stacking_weights`).

    Returns
    -------
    numpy.ndarray
        The mix, of the predictions' shape; NaN where no weighted candidate predicted.
    """
    stack = np.array([np.asarray(predictions[k], float) for k in predictions])
    w = np.array([float(weights.get(k, 0.0)) for k in predictions]).reshape(
        -1, *[1] * (stack.ndim - 1)
    )
    given = np.isfinite(stack) & (w > 0)
    total = np.sum(np.where(given, w, 0.0), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, np.sum(np.where(given, w * stack, 0.0), axis=0) / total, np.nan)


def prequential_errors(
    x: np.ndarray, y: np.ndarray, predictions: np.ndarray, *, first: int = FIRST_FIT_POINTS
) -> tuple[np.ndarray, np.ndarray]:
    """How far past its data each prefix's fit reached, and how far off it was there.

    Parameters
    ----------
    x, y : numpy.ndarray
        The points, x ascending (as given to :func:`prequential_predictions`).
    predictions : numpy.ndarray
        :func:`prequential_predictions` of them (or :func:`mixed_predictions` of several).
    first : int
        Distinct x values of the shortest prefix, as given to :func:`prequential_predictions`.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        For every prediction made: x over the largest x its fit saw [-], and
        ``log(measured / predicted)`` [-] (> 0: the fit fell short).
    """
    levels = np.unique(x)
    rows = np.atleast_2d(np.asarray(predictions, float))
    ratios, errors = [], []
    for seen_max, row in zip(levels[first - 1 : -1], rows, strict=False):
        ok = np.isfinite(row) & (row > 0) & (x > seen_max)
        ratios.append(x[ok] / seen_max)
        errors.append(np.log(y[ok] / row[ok]))
    if not ratios:
        return np.empty(0), np.empty(0)
    return np.concatenate(ratios), np.concatenate(errors)
