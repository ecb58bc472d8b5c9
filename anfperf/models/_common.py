"""Shared pieces of the models: reference tables, input checks, fit results, frame points."""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np
import pandas as pd

from anfperf.errors import ModelError, warn

log = logging.getLogger(__name__)

#: Reference tables shipped with anfperf as package data (``anfperf/data/*.csv``).
DATA_FILES = {
    "service_levels": "service_levels.csv",
    "volume_limits": "volume_limits.csv",
    "vm_network": "vm_network.csv",
    "nfs_client": "nfs_client.csv",
    "anf_benchmarks": "anf_benchmarks.csv",
    "cool_access": "cool_access.csv",
    "planning": "planning.csv",
}

# Found through the import system, not a path into the source tree: editable installs, wheels
# and zipped installs read the same files.
_TABLES: Traversable = resources.files("anfperf") / "data"


class SaturationWarning(UserWarning):
    """The data show no saturation: a fitted maximum is an extrapolation."""


class FewPointsWarning(UserWarning):
    """A fit has fewer points than it needs to be trusted."""


def data_dir() -> Path:
    """The folder of anfperf's reference tables on disk (``anfperf/data`` of the install).

    :func:`load_table` reads the tables; this is for looking at the files themselves.

    Raises
    ------
    ModelError
        anfperf is installed in a form whose files are not on disk (a zip), or without its
        tables.
    """
    if not isinstance(_TABLES, Path) or not (_TABLES / DATA_FILES["service_levels"]).is_file():
        raise ModelError(
            f"anfperf's reference tables (service_levels.csv, ...) are not files in {_TABLES}; "
            "reinstall anfperf (pip install anfperf, or pip install -e . in a checkout)"
        )
    return _TABLES


@functools.cache
def _load(name: str) -> pd.DataFrame:
    table = _TABLES / DATA_FILES[name]
    if not table.is_file():
        raise ModelError(
            f"anfperf's reference table {DATA_FILES[name]} is missing from {_TABLES}; "
            "reinstall anfperf (pip install anfperf, or pip install -e . in a checkout)"
        )
    with table.open("rb") as fh:
        return pd.read_csv(fh, dtype={"date": "string", "source": "string"}, keep_default_na=True)


def load_table(name: str) -> pd.DataFrame:
    """One reference table as a fresh frame (callers may change it freely).

    Parameters
    ----------
    name : {'service_levels', 'volume_limits', 'vm_network', 'nfs_client', 'anf_benchmarks',
            'cool_access', 'planning'}
        Table name; every table has a `source` (article file name) and a `date` column.
    """
    return _table(name).copy()


def _table(name: str) -> pd.DataFrame:
    """The cached table `name` (not to be changed), or a ModelError naming the known ones."""
    if name not in DATA_FILES:
        raise ModelError(f"no reference table {name!r}; known: {sorted(DATA_FILES)}")
    return _load(name)


def table_value(name: str, key: str) -> float:
    """One fact of a key/value reference table ('nfs_client', 'planning'), by its key.

    Raises
    ------
    anfperf.ModelError
        No such table or key.
    """
    table = _table(name)
    made = _key_values.get(name)
    if made is None or made[0] is not table:  # (made again when the table is loaded again)
        values = dict(zip(table["key"], table["value"].astype(float), strict=True))
        made = _key_values[name] = (table, values)
    values = made[1]
    if key not in values:
        raise ModelError(f"no {key!r} in {DATA_FILES[name]}; known: {sorted(values)}")
    return values[key]


# table name -> (the loaded table, its key -> value): a plan asks for some 35 facts, and indexing
# the table for each was a sixth of its time
_key_values: dict[str, tuple[pd.DataFrame, dict[str, float]]] = {}


# --------------------------------------------------------------------------------------------
# Input checks


def float_values(values: object, name: str) -> np.ndarray:
    """`values` (a number or array-like) as a float array of its own shape, or a ModelError.

    Booleans are refused, not read as 0 and 1: ``True`` passed for a block size or a latency
    is a slip (a flag in the wrong place), and 1 KiB or 1 ms would make a plausible answer.
    """
    if _holds_bool(values):
        what = "a number" if np.ndim(values) == 0 else "numbers"
        raise ModelError(f"{name} must be {what}, not true/false: got {_short(values)}")
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{name} must be numbers: {exc}") from None


def _holds_bool(values: object) -> bool:
    """Whether `values` is a boolean or holds one."""
    if isinstance(values, bool | np.bool_):
        return True
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    if kind is not None and kind != "O":
        return kind == "b"  # an array or a Series: its dtype says it
    if kind == "O" or isinstance(values, list | tuple):
        items = np.ravel(np.asarray(values, dtype=object))
        return any(isinstance(v, bool | np.bool_) for v in items)
    return False


def _short(values: object) -> str:
    text = repr(values)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_array(values: object, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """`values` as a 1-D float array, or a ModelError saying why not (booleans too)."""
    arr = np.atleast_1d(float_values(values, name))
    if arr.ndim != 1:
        raise ModelError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if not allow_nan and not np.all(np.isfinite(arr)):
        bad = int(np.sum(~np.isfinite(arr)))
        raise ModelError(f"{name} has {bad} NaN or infinite value(s): drop or fill them first")
    return arr


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


# --------------------------------------------------------------------------------------------
# Fit results


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

    def replace(self, **changes: object) -> FitResult:
        """A copy with some constructor arguments changed (e.g. ``ci=``)."""
        args = {
            "model": self.model, "y": self.y, "y_fit": self.y_fit, "cov": self.cov,
            "ci": self.ci, "notes": self.notes, "x": self.x, "fixed": self.fixed,
            "bounds": self.bounds, "aicc": self.aicc, "selected": self.selected,
            "fits": self.fits, "weights": self.weights,
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


# --------------------------------------------------------------------------------------------
# Points from the tidy frame


def summary_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Whole-run rows of a tidy frame, one per run x job step, all hosts and directions together.

    The rows of :func:`anfperf.summary.summary_table` with every column (the headline table and
    the models read the same numbers), plus `configured`: the configured concurrency over all
    hosts as a float (the table's `outstanding`: outstanding, else threads, else iodepth x
    numjobs, added up over hosts). Missing identity values (run_id, source_file, job, workload,
    step, loop) are ``""`` and `direction` is text, so that rows group and compare alike.

    Raises
    ------
    ModelError
        `frame` is not a tidy frame, or has no whole-run (``is_summary``) rows.
    """
    from anfperf.errors import AnfperfError
    from anfperf.summary import summary_table

    try:
        rows = summary_table(frame, all_columns=True)
    except ModelError:
        raise
    except AnfperfError as exc:  # the models' callers catch ModelError
        raise ModelError(str(exc)) from exc
    if rows.empty:
        raise ModelError("the frame has no whole-run (is_summary) rows")
    rows["configured"] = rows["outstanding"].astype(float)
    rows["direction"] = rows["direction"].astype(str)
    for col in ("run_id", "source_file", "job", "workload", "step", "loop"):
        rows[col] = rows[col].astype(object).where(rows[col].notna(), "")
    return rows


def sweep_points(
    frame: pd.DataFrame,
    x: str = "outstanding",
    y: str = "iops",
) -> pd.DataFrame:
    """(x, y) points of a sweep from a tidy frame, one per run x job step.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`) with whole-run rows.
    x : str
        Load column: 'outstanding' (configured concurrency over all hosts: outstanding, else
        threads, else iodepth x numjobs), any schema column such as 'iops' or 'read_pct'.
    y : str
        Response column, e.g. 'iops', 'bw_mib_s' or 'lat_mean_ms'.

    Returns
    -------
    pandas.DataFrame
        Columns `x` and `y` (the names asked for) and the rest of the summary row, sorted by
        `x`. Rows without a value in `x` or `y` are left out with a warning.
    """
    rows = summary_rows(frame)
    xcol = "configured" if x == "outstanding" else x
    for col in (xcol, y):
        if col not in rows:
            raise ModelError(f"frame has no column {col!r}")
    xs = pd.to_numeric(rows[xcol], errors="coerce").astype(float)
    ys = pd.to_numeric(rows[y], errors="coerce").astype(float)
    ok = np.isfinite(xs) & np.isfinite(ys)
    if not ok.all():
        warn(f"left out {int((~ok).sum())} of {len(rows)} runs without {x} or {y}")
    rows = rows[ok].copy()
    if rows.empty:
        raise ModelError(f"no runs with both {x} and {y} in the frame")
    rows = rows.drop(columns=[c for c in (x,) if c in rows and c != xcol])
    rows[x] = xs[ok]
    rows[y] = ys[ok]
    return rows.sort_values(x, kind="stable").reset_index(drop=True)


#: Columns that hold a measured rate: a rate-limited run's value there is the rate asked for.
RATE_COLUMNS = ("iops", "bw_mib_s")


def sweep_xy(
    frame: pd.DataFrame, x: str = "outstanding", y: str = "iops"
) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) arrays of a sweep from a tidy frame: the one adapter from frames to the fits.

    ``fit_usl(*sweep_xy(frame))``, ``fit_queueing_latency(*sweep_xy(frame, "iops",
    "lat_mean_ms"))``, ``fit_mix(*sweep_xy(frame, "read_pct", "iops"))``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame with whole-run rows (see :func:`sweep_points`).
    x, y : str
        Columns, as in :func:`sweep_points`.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        One point per run x job step, sorted by x. When `y` is a rate (iops, bw_mib_s),
        rate-limited runs are left out: their rate is the one asked for, not what the load
        could reach. Latency points of rate-limited runs stay (a load curve is made of them).

    Raises
    ------
    anfperf.ModelError
        Not a tidy frame, a missing column, or no point left.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ModelError(f"sweep_xy takes a tidy frame, got {type(frame).__name__}")
    if y in RATE_COLUMNS and "rate_limit_iops" in frame:
        limited = pd.to_numeric(frame["rate_limit_iops"], errors="coerce").notna()
        if limited.all():
            raise ModelError(
                f"every run is rate-limited: their {y} is the rate asked for, not a capacity"
            )
        frame = frame[~limited]
    points = sweep_points(frame, x, y)
    return points[x].to_numpy(float), points[y].to_numpy(float)


def fit_inputs(
    x: object, y: object, *, x_name: str, y_name: str, example: str
) -> tuple[np.ndarray, np.ndarray]:
    """The two arrays a fit takes, or a ModelError pointing a frame to :func:`sweep_xy`."""
    if isinstance(x, pd.DataFrame) or isinstance(y, pd.DataFrame):
        raise ModelError(f"fits take arrays; from a tidy frame: {example}")
    return as_float_array(x, x_name), as_float_array(y, y_name)
