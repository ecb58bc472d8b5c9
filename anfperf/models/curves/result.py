"""What every curve fit returns (:class:`FitResult`) and the checks of the points it takes."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from anfperf.errors import ModelError, warn
from anfperf.models.arrays import as_float_array


class SaturationWarning(UserWarning):
    """The data show no saturation: a fitted maximum is an extrapolation."""


class FewPointsWarning(UserWarning):
    """A fit has fewer points than it needs to be trusted."""


def check_points(
    x: object,
    y: object,
    *,
    x_name: str,
    y_name: str,
    n_params: int,
    recommended: int,
    positive: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Validate (x, y) points for a fit of `n_params` parameters.

    Raises ModelError for mismatched lengths, NaN, non-positive values, fewer distinct x than
    parameters, or a constant y; warns (FewPointsWarning) below `recommended` points.
    """
    xa = as_float_array(x, x_name)
    ya = as_float_array(y, y_name)
    if xa.size != ya.size:
        raise ModelError(f"{x_name} and {y_name} differ in length ({xa.size} vs {ya.size})")
    if positive and (np.any(xa <= 0) or np.any(ya <= 0)):
        raise ModelError(f"{x_name} and {y_name} must be > 0")
    distinct = np.unique(xa).size
    if xa.size < 2 or distinct < n_params:
        raise ModelError(
            f"{xa.size} point(s) at {distinct} distinct {x_name}: a fit of {n_params} "
            f"parameters needs at least {n_params} distinct {x_name} values"
        )
    if np.ptp(ya) <= 1e-12 * max(abs(float(ya.max())), 1.0):
        raise ModelError(f"{y_name} is constant ({ya[0]:g}): nothing to fit")
    if xa.size < recommended:
        warn(
            f"only {xa.size} points: fits of this model want at least {recommended}; "
            "treat the parameters as rough",
            FewPointsWarning,
        )
    order = np.argsort(xa, kind="stable")
    return xa[order], ya[order]


class FitResult(dict):
    """Fitted parameters keyed by the model's own names, plus how well they fit.

    It is a plain ``dict`` for the model (``model(x, **fit)``); the attributes describe the fit.

    Attributes
    ----------
    model : str
        Name of the model function.
    stderr : dict
        Standard error of each parameter (from the covariance matrix); NaN where unknown.
    cov : numpy.ndarray
        Covariance matrix of the fitted parameters (order of the keys).
    ci : dict
        95 % interval of each parameter: bootstrap percentiles when a bootstrap ran, else
        value +- 1.96 standard errors.
    n_points : int
        Number of points fitted.
    r2 : float
        Coefficient of determination of the fit [-].
    rmse : float
        Root-mean-square error [unit of y].
    mape_pct, mdape_pct : float
        Mean and median absolute percentage error of the fit [%].
    notes : list of str
        Warnings raised while fitting, in words.
    y, y_fit : numpy.ndarray
        The values fitted and the fit's values at the same points.
    x : numpy.ndarray or None
        The independent values fitted (concurrency, load, read %, block size), in the order of
        `y`: :func:`anfperf.models.predict_band` refits resamples of (x, y).
    fixed : dict
        Parameters held fixed in the fit (a refit holds them too).
    bounds : dict
        Range of each fitted parameter, ``(low, high)``; intervals are clipped to it.
    aicc : dict
        Corrected Akaike information criterion of each candidate model tried (may be empty).
    selected : str or None
        The candidate kept, where a fit chooses between models.
    fits : dict
        The component fits of a model average, by name (empty otherwise).
    weights : dict
        The weight of each component fit of a model average (empty otherwise).
    prequential : numpy.ndarray or None
        A model average's predictions of its own points by fits to the prefixes below them
        (:func:`~anfperf.models.curves.selection.prequential_predictions`, mixed by `weights`):
        how far off it went past the data it had; None otherwise.
    """

    def __init__(
        self,
        params: dict[str, float],
        *,
        model: str,
        y: np.ndarray,
        y_fit: np.ndarray,
        cov: np.ndarray,
        ci: dict[str, tuple[float, float]] | None = None,
        notes: Sequence[str] = (),
        x: np.ndarray | None = None,
        fixed: dict[str, float] | None = None,
        bounds: dict[str, tuple[float, float]] | None = None,
        aicc: dict[str, float] | None = None,
        selected: str | None = None,
        fits: dict[str, FitResult] | None = None,
        weights: dict[str, float] | None = None,
        prequential: np.ndarray | None = None,
    ):
        super().__init__({k: float(v) for k, v in params.items()})
        self.model = model
        self.cov = np.asarray(cov, dtype=float)
        diag = np.diag(self.cov) if self.cov.size else np.full(len(params), np.nan)
        with np.errstate(invalid="ignore"):
            se = np.sqrt(np.where(diag >= 0, diag, np.nan))
        self.stderr = {k: float(s) for k, s in zip(params, se, strict=True)}
        self.y = np.asarray(y, dtype=float)
        self.y_fit = np.asarray(y_fit, dtype=float)
        self.n_points = int(len(y))
        resid = y - y_fit
        ss_tot = float(np.sum((y - y.mean()) ** 2))
        self.r2 = 1.0 - float(np.sum(resid**2)) / ss_tot if ss_tot > 0 else math.nan
        self.rmse = float(np.sqrt(np.mean(resid**2)))
        ape = np.abs(resid) / np.abs(y) * 100.0
        self.mape_pct = float(np.mean(ape))
        self.mdape_pct = float(np.median(ape))
        self.bounds = dict(bounds or {})
        self.ci = ci or {
            k: _clip(
                self[k] - 1.96 * self.stderr[k], self[k] + 1.96 * self.stderr[k], self.bounds.get(k)
            )
            for k in self
        }
        self.notes = list(notes)
        self.x = None if x is None else np.asarray(x, dtype=float)
        self.fixed = dict(fixed or {})
        self.aicc = dict(aicc or {})
        self.selected = selected
        self.fits = dict(fits or {})
        self.weights = dict(weights or {})
        self.prequential = None if prequential is None else np.asarray(prequential, float)

    def replace(self, **changes: object) -> FitResult:
        """A copy with some constructor arguments changed (e.g. ``ci=``)."""
        args = {
            "model": self.model, "y": self.y, "y_fit": self.y_fit, "cov": self.cov,
            "ci": self.ci, "notes": self.notes, "x": self.x, "fixed": self.fixed,
            "bounds": self.bounds, "aicc": self.aicc, "selected": self.selected,
            "fits": self.fits, "weights": self.weights, "prequential": self.prequential,
        }  # fmt: skip
        params = changes.pop("params", dict(self))
        args.update(changes)
        return FitResult(params, **args)

    def table(self) -> pd.DataFrame:
        """Parameters as a frame: parameter, value, stderr, ci_low, ci_high."""
        return pd.DataFrame(
            {
                "parameter": list(self),
                "value": list(self.values()),
                "stderr": [self.stderr[k] for k in self],
                "ci_low": [self.ci[k][0] for k in self],
                "ci_high": [self.ci[k][1] for k in self],
            }
        )

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v:.6g}" for k, v in self.items())
        return f"FitResult[{self.model}]({params}; r2={self.r2:.4f}, n={self.n_points})"


def _clip(low: float, high: float, bounds: tuple[float, float] | None) -> tuple[float, float]:
    """A normal-approximation interval kept within the parameter's range."""
    if bounds is None:
        return (low, high)
    lo_b, hi_b = bounds
    return (min(max(low, lo_b), hi_b), max(min(high, hi_b), lo_b))


def mdape_pct(actual: object, predicted: object) -> float:
    """Median absolute percentage error of `predicted` against `actual` [%]."""
    a = as_float_array(actual, "actual")
    p = as_float_array(predicted, "predicted", allow_nan=True)
    if a.size != p.size or a.size == 0:
        raise ModelError("actual and predicted must be non-empty and of equal length")
    return float(np.median(np.abs(p - a) / np.abs(a)) * 100.0)


def fit_inputs(
    x: object, y: object, *, x_name: str, y_name: str, example: str
) -> tuple[np.ndarray, np.ndarray]:
    """The two arrays a fit takes, or a ModelError pointing a frame to :func:`sweep_xy`."""
    if isinstance(x, pd.DataFrame) or isinstance(y, pd.DataFrame):
        raise ModelError(f"fits take arrays; from a tidy frame: {example}")
    return as_float_array(x, x_name), as_float_array(y, y_name)
