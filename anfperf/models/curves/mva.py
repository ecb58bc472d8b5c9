"""Closed queueing network by mean value analysis: throughput of N I/Os in flight."""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import least_squares

from anfperf.errors import ModelError, warn
from anfperf.models.curves._fitting import (
    RECOMMENDED_POINTS,
    SATURATION_SHARE,
    _aicc,
    _scalar,
)
from anfperf.models.curves.curve_reading import throughput_readers
from anfperf.models.curves.registry import ModelSpec, register_model
from anfperf.models.curves.result import FitResult, SaturationWarning, check_points, fit_inputs
from anfperf.models.littles_law import latency_at_concurrency
from anfperf.units import MS_PER_S
from anfperf.values import format_number

#: Largest concurrency :func:`mva_throughput` evaluates (its recursion is one step per I/O).
MVA_MAX_N = 1_000_000
#: Largest concurrency :func:`fit_mva_throughput` fits (each evaluation recurses up to it).
MVA_FIT_MAX_N = 10_000
#: How far the fitted ceiling may lie below the best rate measured [-]: about the scatter of
#: repeated runs at one point, so that one lucky run does not set the ceiling.
CEILING_SLACK = 0.05


def _demand_top(y: np.ndarray) -> float:
    """Largest service demand the fit allows [ms]: a ceiling near the best rate measured."""
    return MS_PER_S / ((1.0 - CEILING_SLACK) * float(np.max(y)))


def mva_throughput(n: object, demand_ms: float, delay_ms: float) -> np.ndarray | float:
    """Throughput of a closed loop of N I/Os through one queueing centre and a delay.

    Exact mean value analysis (Reiser & Lavenberg 1980; Lazowska et al., *Quantitative System
    Performance*, 1984, ch. 6) of the simplest closed network with no think time: every I/O
    spends `delay_ms` in a centre without queueing (device and path latency, many in parallel)
    and `demand_ms` at the bottleneck, where it queues:
    ``R_q(N) = D (1 + Q(N - 1))``, ``X(N) = N / (Z + R_q(N))``, ``Q(N) = X(N) R_q(N)``.
    Throughput rises as ``N / (D + Z)`` and turns sharply to the ceiling ``1 / D`` past
    ``N* = (D + Z) / D`` -- a sharper knee than Amdahl's law, whose latency grows linearly in N
    from the start.

    Parameters
    ----------
    n : array-like
        Concurrency (I/Os in flight) [-], >= 1; between integers the throughput is
        interpolated linearly.
    demand_ms : float
        Service demand at the bottleneck [ms]; ``1000 / demand_ms`` is the ceiling [1/s].
    delay_ms : float
        Latency outside the bottleneck, which does not queue [ms].

    Returns
    -------
    float or numpy.ndarray
        Throughput [1/s].
    """
    n_arr = np.asarray(n, dtype=float)
    if not (demand_ms > 0 and delay_ms >= 0 and math.isfinite(demand_ms + delay_ms)):
        raise ModelError("mva_throughput needs demand_ms > 0 and delay_ms >= 0")
    if n_arr.size == 0:
        return _scalar(n_arr)
    if not (np.all(np.isfinite(n_arr)) and np.all(n_arr >= 1)):
        raise ModelError("concurrency must be finite and >= 1")
    top = math.ceil(float(np.max(n_arr)))
    if top > MVA_MAX_N:
        raise ModelError(f"concurrency {top} is beyond {MVA_MAX_N}: the recursion is O(N)")
    d, z = float(demand_ms), float(delay_ms)
    x = [0.0] * top
    q = 0.0
    for i in range(top):  # the recursion: each population from the one below (plain floats)
        r = d * (1.0 + q)
        x[i] = (i + 1) / (z + r)
        q = x[i] * r
    out = np.interp(n_arr, np.arange(1, top + 1), x) * MS_PER_S
    return _scalar(out)


def _mva_slopes(n: np.ndarray, demand_ms: float, delay_ms: float) -> np.ndarray:
    """d throughput / d(demand_ms, delay_ms) at each concurrency [1/s per ms], (n, 2).

    The recursion of :func:`mva_throughput` carried forward with its derivatives.
    """
    d, z = demand_ms, delay_ms
    top = math.ceil(float(np.max(n)))
    dx = np.empty((top, 2))
    q, dq_d, dq_z = 0.0, 0.0, 0.0
    for i in range(top):
        r = d * (1.0 + q)
        dr_d, dr_z = 1.0 + q + d * dq_d, d * dq_z
        x = (i + 1) / (z + r)
        dx_d, dx_z = -x / (z + r) * dr_d, -x / (z + r) * (1.0 + dr_z)
        q, dq_d, dq_z = x * r, dx_d * r + x * dr_d, dx_z * r + x * dr_z
        dx[i] = dx_d, dx_z
    grid = np.arange(1, top + 1)
    return np.column_stack([np.interp(n, grid, dx[:, j]) for j in (0, 1)]) * MS_PER_S


def fit_mva_throughput(concurrency: object, throughput: object) -> FitResult:
    """Fit :func:`mva_throughput` to (concurrency, IOPS) points.

    Parameters
    ----------
    concurrency : array-like
        I/Os in flight of each run [-]; from a tidy frame: ``*sweep_xy(frame)``.
    throughput : array-like
        IOPS of each run [1/s].

    Returns
    -------
    FitResult
        ``{'demand_ms', 'delay_ms'}`` -- ``mva_throughput(n, **fit)`` predicts -- and `aicc`
        (``{'mva': value}``, comparable with :func:`fit_usl`'s: the same relative residuals).

    Raises
    ------
    anfperf.ModelError
        Fewer than 2 distinct concurrencies, a concurrency outside 1 .. 10,000, NaN,
        non-positive values,
        constant throughput, or no convergence.

    Warns
    -----
    FewPointsWarning
        Fewer than 6 points.
    SaturationWarning
        The highest throughput measured is below 80 % of the fitted ceiling ``1000 / demand_ms``.

    Notes
    -----
    The ceiling is held at or above 95 % of the highest throughput measured: a bottleneck
    cannot cap the rate below one the sweep reached, give or take the scatter of repeated runs.
    (A least-squares fit through a sweep that still rises would otherwise put the ceiling well
    below its last point.)
    """
    x, y = fit_inputs(
        concurrency, throughput, x_name="concurrency", y_name="throughput",
        example="fit_mva_throughput(*sweep_xy(frame, 'outstanding', 'iops'))",
    )  # fmt: skip
    x, y = check_points(
        x, y, x_name="concurrency", y_name="throughput", n_params=2, recommended=RECOMMENDED_POINTS
    )
    if np.any(x < 1) or np.max(x) > MVA_FIT_MAX_N:
        raise ModelError(f"concurrency must be within 1 .. {MVA_FIT_MAX_N} for the MVA fit")
    demand_top = _demand_top(y)
    best = None
    for share in (0.95, 0.7, 0.4, 0.2):
        d0 = demand_top * share
        z0 = max(float(np.min(latency_at_concurrency(x, y))) - d0, 1e-3 * d0)
        fit = _mva_least_squares(x, y, demand_top, d0, z0)
        if fit is not None and (best is None or fit.cost < best.cost):
            best = fit
    if best is None:
        raise ModelError("the MVA fit did not converge")
    params = _mva_params(best.x, demand_top)
    cost = float(np.sum(best.fun**2))
    # covariance from the Jacobian of the transformed parameters, carried to the parameters
    dof = max(x.size - 2, 1)
    try:
        cov_t = np.linalg.inv(best.jac.T @ best.jac) * cost / dof
    except np.linalg.LinAlgError:
        cov_t = np.full((2, 2), np.nan)
    grad = _mva_gradient(best.x, demand_top)
    cov = grad @ cov_t @ grad.T
    y_fit = np.asarray(mva_throughput(x, **params))
    notes = []
    share = float(np.max(y)) * params["demand_ms"] / MS_PER_S
    if share < SATURATION_SHARE:
        note = (
            f"no saturation seen: the highest throughput measured is {share:.0%} of the fitted "
            f"ceiling 1000 / demand_ms = {format_number(MS_PER_S / params['demand_ms'])}, an extrapolation"
        )
        notes.append(note)
        warn(note, SaturationWarning)
    return FitResult(
        params,
        model="mva_throughput",
        x=x,
        y=y,
        y_fit=y_fit,
        cov=cov,
        notes=notes,
        aicc={"mva": _aicc(cost, x.size, 2)},
        bounds={"demand_ms": (0.0, demand_top), "delay_ms": (0.0, math.inf)},
    )


def _mva_params(p: np.ndarray, demand_top: float) -> dict[str, float]:
    """(logit of demand / demand_top, log delay) -> the parameters [ms]."""
    return {
        "demand_ms": float(demand_top / (1.0 + math.exp(-p[0]))),
        "delay_ms": float(math.exp(p[1])),
    }


def _mva_gradient(p: np.ndarray, demand_top: float) -> np.ndarray:
    """d(demand_ms, delay_ms) / d(transformed parameters)."""
    s = 1.0 / (1.0 + math.exp(-p[0]))
    return np.diag([demand_top * s * (1.0 - s), math.exp(p[1])])


def _mva_least_squares(x: np.ndarray, y: np.ndarray, demand_top: float, d0: float, z0: float):
    """One least-squares fit on relative residuals from (d0, z0); None when it fails.

    The demand is fitted as a logistic share of `demand_top` (so the ceiling stays at or
    above the best rate measured), the delay by its logarithm (positive, spans decades).
    """
    share = min(max(d0 / demand_top, 1e-6), 1.0 - 1e-6)
    start = np.array([math.log(share / (1.0 - share)), math.log(z0)])

    def resid(p: np.ndarray) -> np.ndarray:
        return np.asarray(mva_throughput(x, **_mva_params(p, demand_top))) / y - 1.0

    def jac(p: np.ndarray) -> np.ndarray:
        params = _mva_params(p, demand_top)
        slopes = _mva_slopes(x, params["demand_ms"], params["delay_ms"])
        return slopes @ _mva_gradient(p, demand_top) / y[:, None]

    try:
        with np.errstate(all="ignore"):
            fit = least_squares(resid, start, jac=jac, method="lm", max_nfev=400)
    except (ValueError, ModelError, OverflowError):
        return None
    return fit if fit.success and np.all(np.isfinite(fit.fun)) else None


def refit_mva_throughput(concurrency: object, throughput: object, start: dict) -> dict[str, float]:
    """One fit of :func:`mva_throughput` started from `start`: for resamples.

    Like :func:`anfperf.models.curves.usl.refit_usl`: one start near a fit already found.

    Raises
    ------
    RuntimeError
        The fit did not converge.
    """
    x, y = np.asarray(concurrency, float), np.asarray(throughput, float)
    demand_top = _demand_top(y)
    d0 = min(float(start["demand_ms"]), 0.999 * demand_top)
    fit = _mva_least_squares(x, y, demand_top, d0, max(float(start["delay_ms"]), 1e-9))
    if fit is None:
        raise RuntimeError("the MVA refit did not converge")
    return _mva_params(fit.x, demand_top)


_read_rate, _read_latency = throughput_readers(
    "MVA", lambda v: lambda n: mva_throughput(n, v["demand_ms"], v["delay_ms"])
)

SPEC = register_model(
    ModelSpec(
        "mva_throughput",
        mva_throughput,
        refit=refit_mva_throughput,
        fit=fit_mva_throughput,
        rate_at=_read_rate,
        latency_at_rate_ms=_read_latency,
    )
)
