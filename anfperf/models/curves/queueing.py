"""Response time of a queueing centre as load grows: M/M/1, M/M/m, capped by Little's law."""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from anfperf.errors import ModelError, warn
from anfperf.models.curves._fitting import (
    RECOMMENDED_POINTS,
    _curve_fit,
    _scalar,
)
from anfperf.models.curves.bootstrap import parameter_ci
from anfperf.models.curves.registry import ModelSpec, register_model
from anfperf.models.curves.result import FitResult, SaturationWarning, check_points, fit_inputs
from anfperf.models.littles_law import latency_at_concurrency, outstanding_io
from anfperf.values import format_number

#: Knee of the queueing curve: the load at which latency reaches this multiple of lat_min_ms.
KNEE_FACTOR = 2.0
_SERVERS_BOUNDS = (1.0, 64.0)


def queueing_latency(
    iops: object,
    lat_min_ms: float,
    iops_max: float,
    servers: float = 1.0,
    outstanding: float | None = None,
) -> np.ndarray | float:
    """Response time of a queueing centre as load grows.

    Parameters
    ----------
    iops : array-like
        Offered load [1/s].
    lat_min_ms : float
        Response time at no load (the service time) [ms].
    iops_max : float
        Load at which the centre saturates [1/s].
    servers : float
        Parallel servers [-]: 1 is M/M/1, ``R = S / (1 - U)``; more use the common M/M/m
        approximation ``R = S / (1 - U**m)``.
    outstanding : float, optional
        Most I/Os the load generator keeps in flight [-] (Vdbench threads x SDs, fio iodepth x
        numjobs). A closed loop of N I/Os cannot queue more than N, so by Little's law its mean
        latency at rate X is at most ``N / X`` (reached when every I/O slot is busy, as in an
        uncontrolled "max" run). Given, the open-queue latency is capped at that bound
        (an asymptotic bound of operational analysis, Lazowska et al. 1984, ch. 5); it is the
        latency where the open curve would need more than N in flight, and never inf.

    Returns
    -------
    float or numpy.ndarray
        Mean response time [ms]; inf at or beyond `iops_max` when `outstanding` is not given.
    """
    load = np.asarray(iops, dtype=float)
    u = load / float(iops_max)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(u < 1.0, lat_min_ms / (1.0 - np.clip(u, 0, None) ** servers), np.inf)
        if outstanding is not None:
            out = np.minimum(out, _little_bound_ms(load, outstanding))
    return _scalar(out)


def _little_bound_ms(load: np.ndarray, outstanding: float) -> np.ndarray:
    """Little's law bound on the latency of a closed loop: ``1000 N / X`` [ms]."""
    positive = load > 0
    bound = latency_at_concurrency(float(outstanding), np.where(positive, load, np.nan))
    return np.where(positive, bound, np.inf)


def queueing_closed_max(
    lat_min_ms: float, iops_max: float, servers: float = 1.0, outstanding: float | None = None
) -> float:
    """Most throughput a closed loop of `outstanding` I/Os gets from the queueing centre.

    Where the open-queue latency reaches the Little's-law bound: ``X R(X) / 1000 = N``.

    Returns
    -------
    float
        Throughput [1/s]; `iops_max` when `outstanding` is not given (an open system).
    """
    if outstanding is None:
        return float(iops_max)
    if not (math.isfinite(outstanding) and outstanding > 0):
        raise ModelError(f"outstanding must be a number > 0, got {outstanding!r}")

    def gap(x: float) -> float:
        return outstanding_io(x, queueing_latency(x, lat_min_ms, iops_max, servers)) - outstanding

    hi = float(iops_max) * (1.0 - 1e-12)
    return float(brentq(gap, 0.0, hi)) if gap(hi) > 0 else hi


def fit_queueing_latency(
    iops: object,
    lat_ms: object,
    *,
    servers: float | None = None,
    outstanding: float | None = None,
    bootstrap: int = 0,
    seed: int = 0,
) -> FitResult:
    """Fit :func:`queueing_latency` to (load, latency) points.

    Parameters
    ----------
    iops : array-like
        Measured load of each run [1/s]; from a tidy frame:
        ``*sweep_xy(frame, "iops", "lat_mean_ms")`` (rate-limited runs included).
    lat_ms : array-like
        Mean response time of each run [ms].
    servers : float, optional
        Fix the number of servers (1 = M/M/1). By default it is fitted (1 .. 64) when there
        are 4 or more distinct loads, else 1.
    outstanding : float, optional
        I/Os the load generator kept in flight at most [-] (for a Vdbench ``iorate=curve`` run,
        threads x SDs; over all hosts: the frame's configured 'outstanding'). Given, the model
        is capped by Little's law (see :func:`queueing_latency`) in the fit and the result
        carries it, so ``queueing_latency(x, **fit)`` predicts with the cap.
    bootstrap, seed
        As in :func:`fit_usl`.

    Returns
    -------
    FitResult
        ``{'lat_min_ms', 'iops_max', 'servers'}``, and ``'outstanding'`` when given.

    Raises
    ------
    anfperf.ModelError
        Fewer than 2 (3 when fitting servers) distinct loads, NaN, non-positive values, constant
        latency, or no convergence.

    Warns
    -----
    FewPointsWarning
        Fewer than 6 points.
    SaturationWarning
        The highest load measured is below half the fitted `iops_max`: the maximum is an
        extrapolation.
    """
    x, y = fit_inputs(
        iops, lat_ms, x_name="iops", y_name="lat_ms",
        example="fit_queueing_latency(*sweep_xy(frame, 'iops', 'lat_mean_ms'))",
    )  # fmt: skip
    fit_m = servers is None and np.unique(x).size >= 4
    x, y = check_points(
        x, y, x_name="iops", y_name="lat_ms", n_params=3 if fit_m else 2,
        recommended=RECOMMENDED_POINTS,
    )  # fmt: skip
    fixed_m = 1.0 if servers is None else float(servers)
    if not _SERVERS_BOUNDS[0] <= fixed_m <= _SERVERS_BOUNDS[1]:
        raise ModelError(f"servers must be within {_SERVERS_BOUNDS}")
    outstanding = _checked_outstanding(outstanding)
    params, cov = _best_queueing_fit(x, y, None if fit_m else fixed_m, outstanding)
    notes = [] if fit_m or servers is not None else ["fewer than 4 loads: servers fixed at 1"]
    utilisation = float(np.max(x)) / params["iops_max"]
    if utilisation < 0.5:
        note = (
            f"no saturation seen: the highest load is {utilisation:.0%} of the fitted "
            f"iops_max ({format_number(params['iops_max'])}); the maximum is an extrapolation"
        )
        notes.append(note)
        warn(note, SaturationWarning)
    fixed = {} if fit_m else {"servers": fixed_m}
    if outstanding is not None:
        fixed["outstanding"] = outstanding
    result = FitResult(
        params,
        model="queueing_latency",
        x=x,
        y=y,
        y_fit=np.asarray(queueing_latency(x, **params)),
        cov=cov,
        notes=notes,
        fixed=fixed,
        bounds={
            "lat_min_ms": (0.0, math.inf),
            "iops_max": (float(np.max(x)), math.inf),
            "servers": _SERVERS_BOUNDS,
        },
    )
    if not bootstrap:
        return result
    return result.replace(ci=parameter_ci(result, draws=int(bootstrap), seed=seed))


def _checked_outstanding(outstanding: object) -> float | None:
    """`outstanding` as a positive finite float (or None), else a ModelError."""
    if outstanding is None:
        return None
    try:
        value = float(outstanding)
    except (TypeError, ValueError):
        raise ModelError(f"outstanding must be a number, got {outstanding!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise ModelError(f"outstanding must be a number > 0, got {outstanding!r}")
    return value


def _best_queueing_fit(
    x: np.ndarray, y: np.ndarray, servers: float | None, outstanding: float | None
) -> tuple[dict[str, float], np.ndarray]:
    """Best of several starts (servers fitted when None); parameters and their covariance."""
    starts = [
        {"lat_min_ms": 0.9 * float(np.min(y)), "iops_max": m0 * float(np.max(x)), "servers": k0}
        for m0 in (1.05, 1.2, 1.5, 2.0, 4.0)
        for k0 in ((1.0, 2.0, 4.0) if servers is None else (servers,))
    ]
    return _queueing_least_squares(x, y, starts, servers is None, outstanding)


def _queueing_least_squares(
    x: np.ndarray,
    y: np.ndarray,
    starts: list[dict[str, float]],
    fit_servers: bool,
    outstanding: float | None,
) -> tuple[dict[str, float], np.ndarray]:
    """Relative least squares from each start, the best kept; a ModelError when none converge.

    Load and latency are scaled by the largest load and the smallest latency, so the
    parameters fitted are O(1); the servers are held at the start's when not `fit_servers`.
    """
    xs, ys = float(np.max(x)), float(np.min(y))
    lower = [1e-6, 1.0 + 1e-6] + ([_SERVERS_BOUNDS[0]] if fit_servers else [])
    upper = [np.inf, 1e4] + ([_SERVERS_BOUNDS[1]] if fit_servers else [])
    best, errors = None, []
    fitted = len(lower)  # parameters the Jacobian has columns for
    for start in starts:
        held = float(start["servers"])

        def model(load, s, m, k=held):
            return np.asarray(queueing_latency(load, s * ys, m * xs, k, outstanding))

        def jac(load, s, m, k=held):
            return _queueing_jacobian(load, s, m, k, xs, ys, outstanding)[:, :fitted]

        p0 = [start["lat_min_ms"] / ys, max(start["iops_max"] / xs, 1.0 + 1e-3)]
        if fit_servers:
            p0.append(min(max(held, _SERVERS_BOUNDS[0]), _SERVERS_BOUNDS[1]))
        try:
            fit = _curve_fit(model, x, y, p0, (lower, upper), jac)
        except (RuntimeError, ValueError) as exc:
            errors.append(str(exc))
            continue
        if best is None or fit[2] < best[2]:
            best, servers = fit, held
    if best is None:
        raise ModelError(f"the queueing fit did not converge: {errors[-1] if errors else ''}")
    popt, pcov, _ = best
    params = {
        "lat_min_ms": popt[0] * ys,
        "iops_max": popt[1] * xs,
        "servers": float(popt[2]) if fit_servers else servers,
    }
    if outstanding is not None:
        params["outstanding"] = float(outstanding)
    scales = np.array([ys, xs] + ([1.0] if fit_servers else []))
    cov = np.zeros((len(params), len(params)))
    cov[: len(scales), : len(scales)] = pcov * np.outer(scales, scales)
    return params, cov


def _queueing_jacobian(
    load: np.ndarray,
    s: float,
    m: float,
    k: float,
    load_scale: float,
    lat_scale_ms: float,
    outstanding: float | None,
) -> np.ndarray:
    """d latency / d(s, m, k) of the fit's scaled model, one row per load.

    ``R = s L / (1 - U**k)``, ``U = X / (m X_s)``: ``dU**k/dm = -k U**k / m`` and
    ``dU**k/dk = U**k ln U``. Zero where Little's law caps the latency (the cap does not move
    with the parameters).
    """
    load = np.asarray(load, dtype=float)
    u = np.clip(load / (m * load_scale), 0.0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        uk = u**k
        free = 1.0 / (1.0 - uk)
        open_ms = s * lat_scale_ms * free
        out = np.column_stack(
            [
                lat_scale_ms * free,
                -open_ms * free * k * uk / m,
                open_ms * free * np.where(u > 0, uk * np.log(u), 0.0),
            ]
        )
    if outstanding is not None:
        out[open_ms > _little_bound_ms(load, outstanding)] = 0.0
    return out


def refit_queueing_latency(
    iops: object, lat_ms: object, start: dict, *, fit_servers: bool = False
) -> dict[str, float]:
    """One fit of :func:`queueing_latency` started from `start`: for resamples.

    :func:`fit_queueing_latency` tries many starting points and checks its input; a bootstrap
    refits hundreds of resamples of points already checked, near a fit already found, so one
    start suffices.

    Parameters
    ----------
    iops, lat_ms : array-like
        The (resampled) points [1/s], [ms].
    start : dict
        A :func:`fit_queueing_latency` result.
    fit_servers : bool
        Fit the servers too (from `start`'s), as a prediction band must where the data do not
        pin them down; by default they are held (quicker, for a band of the curve's shape).

    Returns
    -------
    dict
        lat_min_ms, iops_max, servers (and outstanding when `start` has it).

    Raises
    ------
    anfperf.ModelError
        The fit did not converge.
    """
    x, y = np.asarray(iops, float), np.asarray(lat_ms, float)
    params, _ = _queueing_least_squares(x, y, [start], fit_servers, start.get("outstanding"))
    return params


def queueing_iops_at_latency(
    lat_ms: object,
    lat_min_ms: float,
    iops_max: float,
    servers: float = 1.0,
    outstanding: float | None = None,
) -> np.ndarray | float:
    """Load at which :func:`queueing_latency` reaches `lat_ms` ("IOPS at 2 ms").

    Returns
    -------
    float or numpy.ndarray
        ``iops_max (1 - lat_min_ms / lat_ms) ** (1 / servers)`` [1/s], at most the closed
        loop's maximum (:func:`queueing_closed_max`) when `outstanding` is given; NaN where
        `lat_ms` is below `lat_min_ms`.
    """
    lat = np.asarray(lat_ms, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(
            lat >= lat_min_ms,
            iops_max * np.clip(1.0 - lat_min_ms / lat, 0, None) ** (1.0 / servers),
            np.nan,
        )
    if outstanding is not None:
        out = np.minimum(out, queueing_closed_max(lat_min_ms, iops_max, servers, outstanding))
    return _scalar(out)


def queueing_knee(
    lat_min_ms: float,
    iops_max: float,
    servers: float = 1.0,
    outstanding: float | None = None,
    factor: float = KNEE_FACTOR,
) -> tuple[float, float]:
    """Knee of the response-time curve: where latency reaches `factor` x `lat_min_ms`.

    For M/M/1 and the default factor 2 (R = 2 S) this is half of `iops_max`.

    Returns
    -------
    (float, float)
        Load [1/s] and latency [ms] at the knee.
    """
    if not factor > 1:
        raise ModelError("factor must be > 1")
    lat = factor * lat_min_ms
    x = float(queueing_iops_at_latency(lat, lat_min_ms, iops_max, servers, outstanding))
    return x, float(queueing_latency(x, lat_min_ms, iops_max, servers, outstanding))


def _refit(x: np.ndarray, y: np.ndarray, start: FitResult) -> dict[str, float]:
    # the servers move with the resample unless the fit held them
    return refit_queueing_latency(x, y, start, fit_servers="servers" not in start.fixed)


def _read_rate(values: dict[str, float], outstanding: float) -> tuple[float, str]:
    """The rate `outstanding` I/Os in flight reach: the closed loop's maximum."""
    s, xmax = values["lat_min_ms"], values["iops_max"]
    m = float(values.get("servers", 1.0))
    x = queueing_closed_max(s, xmax, m, outstanding)
    lat = float(queueing_latency(x, s, xmax, m))
    return x, f"queueing fit: {outstanding:g} in flight at {lat:.3f} ms -> {x:,.0f} IOPS"


def _read_latency(values: dict[str, float], rate: float) -> tuple[float, str]:
    """The open queue's latency at a rate; a ModelError at or past iops_max."""
    s, xmax = values["lat_min_ms"], values["iops_max"]
    lat = float(queueing_latency(rate, s, xmax, float(values.get("servers", 1.0))))
    if not math.isfinite(lat):
        raise ModelError(f"{rate:,.0f} IOPS is beyond the fitted curve's iops_max ({xmax:,.0f})")
    return lat, f"queueing fit at {rate:,.0f} IOPS (lat_min {s:.3f} ms, iops_max {xmax:,.0f})"


SPEC = register_model(
    ModelSpec(
        "queueing_latency",
        queueing_latency,
        refit=_refit,
        fit=fit_queueing_latency,
        rate_at=_read_rate,
        latency_at_rate_ms=_read_latency,
    )
)
