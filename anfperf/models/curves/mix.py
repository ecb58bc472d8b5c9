"""Throughput across read/write ratios, from measured pure-read and pure-write points.

If every read costs the bottleneck ``1 / read_max`` seconds and every write ``1 / write_max``,
a mix with read fraction r runs at ``1 / (r / read_max + (1 - r) / write_max)`` -- the weighted
harmonic mean, which is the power mean with exponent -1. Intermediate measurements, where
there are some, fit the exponent too (1 = linear interpolation, 0 = geometric).

The ANF regular-volume charts (performance-benchmarks-linux.md) go from ~1,600 MiB/s pure write
to ~4,500 MiB/s pure read for 64 KiB sequential I/O, and from ~130,000 to ~460,000 IOPS for 4 KiB
random I/O, in 10 % steps: :func:`mix_sweep` predicts such sweeps.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from anfperf.errors import ModelError
from anfperf.models.curves._fitting import _curve_fit
from anfperf.models.curves.registry import ModelSpec, register_model
from anfperf.models.curves.result import FitResult, check_points, fit_inputs

log = logging.getLogger(__name__)

#: Exponent of the power mean when the data cannot tell (weighted harmonic mean).
DEFAULT_EXPONENT = -1.0
_EXPONENT_BOUNDS = (-5.0, 5.0)


def mix_throughput(
    read_pct: object,
    read_max: float,
    write_max: float,
    exponent: float = DEFAULT_EXPONENT,
) -> np.ndarray | float:
    """Throughput of a read/write mix: the power mean of the pure-read and pure-write rates.

    Parameters
    ----------
    read_pct : array-like
        Read share of the I/Os [%], 0 .. 100.
    read_max : float
        Throughput of pure reads [IOPS or MiB/s, the unit of the result]. May be inf.
    write_max : float
        Throughput of pure writes [same unit]. May be inf.
    exponent : float
        Power-mean exponent [-]: -1 (default) harmonic, i.e. every read and write uses a fixed
        share of the bottleneck; 0 geometric; 1 linear.

    Returns
    -------
    float or numpy.ndarray
        Throughput at `read_pct` [unit of read_max].
    """
    r = np.asarray(read_pct, dtype=float) / 100.0
    if np.any((r < 0) | (r > 1)):
        raise ModelError("read_pct must be within 0 .. 100")
    rm, wm = float(read_max), float(write_max)
    if rm <= 0 or wm <= 0 or np.isnan(rm) or np.isnan(wm):
        raise ModelError("read_max and write_max must be > 0")
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if abs(exponent) < 1e-9:
            out = np.exp(r * np.log(rm) + (1 - r) * np.log(wm))
        else:
            terms = np.where(r > 0, r * rm**exponent, 0.0) + np.where(
                r < 1, (1 - r) * wm**exponent, 0.0
            )
            out = terms ** (1.0 / exponent)
    return float(out) if np.ndim(out) == 0 else out


def fit_mix(
    read_pct: object,
    throughput: object,
    *,
    exponent: float | None = None,
) -> FitResult:
    """Fit :func:`mix_throughput` to measured (read %, throughput) points.

    Parameters
    ----------
    read_pct : array-like
        Read share of each run [%]; from a tidy frame:
        ``*sweep_xy(frame, "read_pct", "iops")`` (or "bw_mib_s").
    throughput : array-like
        Throughput of each run [IOPS or MiB/s].
    exponent : float, optional
        Fix the power-mean exponent. By default it is fitted when three or more distinct read
        percentages were measured, else it is the harmonic -1.

    Returns
    -------
    FitResult
        ``{'read_max', 'write_max', 'exponent'}``, usable as ``mix_throughput(pct, **fit)``.

    Raises
    ------
    anfperf.ModelError
        Fewer than two distinct read percentages, NaN, non-positive throughput, or a constant
        throughput.
    """
    x, y = fit_inputs(
        read_pct, throughput, x_name="read_pct", y_name="throughput",
        example="fit_mix(*sweep_xy(frame, 'read_pct', 'iops'))",
    )  # fmt: skip
    fit_exp = exponent is None and np.unique(x).size >= 3
    x, y = _mix_points(x, y, fit_exp)
    fixed = DEFAULT_EXPONENT if exponent is None else float(exponent)
    notes = []
    if exponent is None and not fit_exp:
        notes.append("two read percentages only: exponent fixed at -1 (harmonic)")
    params, cov = _fit_mix_params(x, y, None if fit_exp else fixed)
    return FitResult(
        params,
        model="mix_throughput",
        x=x,
        y=y,
        y_fit=mix_throughput(x, **params),
        cov=cov,
        notes=notes,
        fixed={} if fit_exp else {"exponent": fixed},
        bounds={"exponent": _EXPONENT_BOUNDS},
    )


def _mix_points(x: np.ndarray, y: np.ndarray, fit_exp: bool) -> tuple[np.ndarray, np.ndarray]:
    """Checked points: read shares within 0 .. 100 %, positive throughput."""
    x, y = check_points(
        np.clip(x, 0, 100) + 0.0, y, x_name="read_pct", y_name="throughput",
        n_params=3 if fit_exp else 2, recommended=5 if fit_exp else 2, positive=False,
    )  # fmt: skip
    if np.any(y <= 0):
        raise ModelError("throughput must be > 0")
    return x, y


def _fit_mix_params(
    x: np.ndarray, y: np.ndarray, exponent: float | None
) -> tuple[dict[str, float], np.ndarray]:
    """Least squares on relative errors (exponent fitted when None); params and 3 x 3 cov."""
    scale = float(np.max(y))
    fit_exp = exponent is None

    def model(pct, rm, wm, q=exponent):
        return mix_throughput(pct, rm * scale, wm * scale, q)

    # start from the rates measured nearest to pure read and pure write
    p0 = [float(y[np.argmax(x)]) / scale, float(y[np.argmin(x)]) / scale]
    p0 += [DEFAULT_EXPONENT] if fit_exp else []
    lower = [1e-9, 1e-9] + ([_EXPONENT_BOUNDS[0]] if fit_exp else [])
    upper = [np.inf, np.inf] + ([_EXPONENT_BOUNDS[1]] if fit_exp else [])
    try:
        popt, pcov, _ = _curve_fit(model, x, y, p0, (lower, upper))
    except (RuntimeError, ValueError) as exc:
        raise ModelError(f"the read/write mix fit did not converge: {exc}") from None
    k = popt.size
    scales = np.array([scale, scale, 1.0])[:k]
    cov = np.zeros((3, 3))
    cov[:k, :k] = pcov * np.outer(scales, scales)
    params = {"read_max": popt[0] * scale, "write_max": popt[1] * scale,
              "exponent": float(popt[2]) if fit_exp else exponent}  # fmt: skip
    return params, cov


def mix_sweep(
    read_max: float,
    write_max: float,
    exponent: float = DEFAULT_EXPONENT,
    step_pct: float = 10.0,
) -> pd.DataFrame:
    """Predicted throughput at every read % from 0 to 100 in steps (the ANF chart layout).

    Parameters
    ----------
    read_max, write_max, exponent
        As in :func:`mix_throughput`.
    step_pct : float
        Step of the read share [%].

    Returns
    -------
    pandas.DataFrame
        Columns read_pct [%] and throughput [unit of read_max], read_pct ascending.
    """
    step = float(step_pct)
    if not np.isfinite(step) or step <= 0 or step > 100:
        raise ModelError("step_pct must be within (0, 100]")
    pct = np.unique(np.append(np.arange(0.0, 100.0 + 1e-9, step), 100.0).round(9))
    return pd.DataFrame(
        {"read_pct": pct, "throughput": mix_throughput(pct, read_max, write_max, exponent)}
    )


def _refit(x: np.ndarray, y: np.ndarray, start: FitResult) -> dict[str, float]:
    return dict(fit_mix(x, y, exponent=start.fixed.get("exponent")))


SPEC = register_model(ModelSpec("mix_throughput", mix_throughput, refit=_refit, fit=fit_mix))
