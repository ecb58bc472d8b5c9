"""Response-time and scalability curves fitted to measured runs.

Two models, each a pure function with a paired fit (``model(x, **fit_model(...))``):

- :func:`queueing_latency` -- the response time of a queueing centre as load grows,
  ``R = lat_min_ms / (1 - U**servers)`` with utilisation ``U = iops / iops_max``: M/M/1 for one
  server, the usual approximation of M/M/m for more. Fitted to (load, latency) points such as
  a Vdbench ``iorate=curve`` run. Predicts the IOPS at a latency SLO ("IOPS at 2 ms", as the
  SPEC SFS tables quote) and the knee (where R = 2 x the unloaded latency, by default).
- :func:`usl` -- Gunther's Universal Scalability Law, ``X(N) = lam N / (1 + sigma (N - 1) +
  kappa N (N - 1))``, fitted to (concurrency, throughput) points such as a Vdbench
  ``forthreads=`` or fio iodepth sweep. The fit needs no N = 1 point: it starts from
  ``lam = max(X / N)`` and several (sigma, kappa) pairs and keeps the best. Predicts throughput
  at a concurrency, at a latency SLO (through Little's law, R = N / X), the knee (Kneedle) and
  the maximum at ``N = floor(sqrt((1 - sigma) / kappa))``.

Both fits weight points by their relative error (a sweep spans orders of magnitude), bound the
parameters, report covariance-based standard errors or a bootstrap with a fixed seed, and give
R^2 and the median absolute percentage error. Too few points is an error (fewer than the
parameters) or a :class:`FewPointsWarning` (fewer than 6); data that never saturate give a
:class:`SaturationWarning`, and the maximum is then an extrapolation.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy.optimize import OptimizeWarning, brentq, curve_fit, least_squares

from anfperf.errors import ModelError
from anfperf.models._common import (
    FewPointsWarning,
    FitResult,
    SaturationWarning,
    as_float_array,
    check_points,
    sweep_points,
)

log = logging.getLogger(__name__)

MS_PER_S = 1000.0
#: Points a fit should have before its parameters are trusted (the public USL fitters' rule).
RECOMMENDED_POINTS = 6
#: Starting (sigma, kappa) pairs of the USL fit: the public fitters' 0.1 / 0.01, 0.01 / 1e-4,
#: and smaller ones for sweeps to hundreds of outstanding I/Os.
USL_STARTS = [(0.1, 0.01), (0.01, 1e-4), (0.05, 1e-3), (0.001, 1e-6), (0.3, 1e-5)]
#: Knee of the queueing curve: the load at which latency reaches this multiple of lat_min_ms.
KNEE_FACTOR = 2.0
#: Share of a fitted maximum the data must reach to count as having seen saturation.
SATURATION_SHARE = 0.8
_SERVERS_BOUNDS = (1.0, 64.0)
#: Largest concurrency :func:`mva_throughput` evaluates (its recursion is one step per I/O).
MVA_MAX_N = 1_000_000
#: Largest concurrency :func:`fit_mva_throughput` fits (each evaluation recurses up to it).
MVA_FIT_MAX_N = 10_000

__all__ = [
    "FewPointsWarning",
    "SaturationWarning",
    "fit_mva_throughput",
    "fit_queueing_latency",
    "fit_throughput_curve",
    "fit_usl",
    "kneedle",
    "mva_throughput",
    "queueing_closed_max",
    "queueing_iops_at_latency",
    "queueing_knee",
    "queueing_latency",
    "throughput_curve",
    "usl",
    "usl_concurrency_at_latency",
    "usl_knee",
    "usl_latency_ms",
    "usl_max",
    "usl_peak",
    "usl_throughput_at_latency",
]


def _scalar(out: np.ndarray) -> np.ndarray | float:
    return float(out) if np.ndim(out) == 0 else out


# --------------------------------------------------------------------------------------------
# Universal Scalability Law


def usl(n: object, lam: float, sigma: float, kappa: float) -> np.ndarray | float:
    """Gunther's Universal Scalability Law.

    Parameters
    ----------
    n : array-like
        Concurrency: outstanding I/Os, threads, clients [-].
    lam : float
        Throughput per unit of concurrency without contention (the slope at N -> 1)
        [unit of the throughput fitted, IOPS or MiB/s].
    sigma : float
        Contention (serialisation) coefficient [-], 0 .. 1.
    kappa : float
        Coherency (crosstalk) coefficient [-], 0 .. 1.

    Returns
    -------
    float or numpy.ndarray
        Throughput ``lam N / (1 + sigma (N - 1) + kappa N (N - 1))`` [unit of lam].
    """
    n_arr = np.asarray(n, dtype=float)
    out = lam * n_arr / (1.0 + sigma * (n_arr - 1.0) + kappa * n_arr * (n_arr - 1.0))
    return _scalar(out)


def _fit_points(
    x: object, y: object, x_col: str, y_col: str, *, uncontrolled: bool
) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(x, pd.DataFrame):
        if y is not None:
            raise ModelError("with a frame, name the columns with x_col= and y_col=")
        frame = x
        if uncontrolled and "rate_limit_iops" in frame:
            # a rate-limited run shows the rate asked for, not what the concurrency could do
            limited = pd.to_numeric(frame["rate_limit_iops"], errors="coerce").notna()
            frame = frame[~limited]
        points = sweep_points(frame, x_col, y_col)
        return points[x_col].to_numpy(float), points[y_col].to_numpy(float)
    if y is None:
        raise ModelError("give both arrays, or a tidy frame")
    return as_float_array(x, x_col), as_float_array(y, y_col)


def _curve_fit(
    func: Callable, x: np.ndarray, y: np.ndarray, p0: list[float], bounds: tuple
) -> tuple[np.ndarray, np.ndarray, float]:
    """curve_fit on relative errors; returns (popt, pcov, cost) or raises RuntimeError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptimizeWarning)
        with np.errstate(all="ignore"):
            popt, pcov = curve_fit(func, x, y, p0=p0, bounds=bounds, sigma=y, maxfev=20000)
            resid = (func(x, *popt) - y) / y
    cost = float(np.sum(resid**2))
    if not np.isfinite(cost):
        raise RuntimeError("non-finite residuals")
    return np.asarray(popt, float), np.asarray(pcov, float), cost


def _bootstrap(
    func: Callable,
    x: np.ndarray,
    y_fit: np.ndarray,
    rel_resid: np.ndarray,
    popt: np.ndarray,
    bounds: tuple,
    n: int,
    seed: int,
) -> np.ndarray:
    """Residual bootstrap on relative residuals; returns the refitted parameter sets."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        y_star = y_fit * (1.0 + rng.choice(rel_resid, size=rel_resid.size, replace=True))
        if np.any(y_star <= 0):
            continue
        try:
            p, _, _ = _curve_fit(func, x, y_star, list(popt), bounds)
        except (RuntimeError, ValueError):
            continue
        out.append(p)
    return np.array(out)


def fit_usl(
    concurrency: object,
    throughput: object = None,
    *,
    x_col: str = "outstanding",
    y_col: str = "iops",
    kappa: str | float = "auto",
    bootstrap: int = 0,
    seed: int = 0,
) -> FitResult:
    """Fit the Universal Scalability Law to (concurrency, throughput) points.

    Parameters
    ----------
    concurrency : array-like or pandas.DataFrame
        Concurrency of each run [-] (threads, iodepth x numjobs, ...); or a tidy frame, whose
        whole-run rows give `x_col` and `y_col` (rate-limited runs are left out).
    throughput : array-like, optional
        Throughput of each run [IOPS or MiB/s] (not with a frame).
    x_col, y_col : str
        Frame columns: concurrency ('outstanding': configured, over all hosts) and throughput.
    kappa : 'auto', 'fit' or float
        'fit': fit all three parameters. A number: fix kappa (0 gives Amdahl's law).
        'auto' (default): fit both the USL and its kappa = 0 special case and keep the USL only
        when its AICc is lower by more than 2 -- before the peak, kappa is poorly determined
        and a spurious kappa bends extrapolations down too early.
    bootstrap : int
        Bootstrap resamples for the parameters' 95 % intervals (0: from the covariance).
    seed : int
        Seed of the bootstrap's random generator (results are reproducible).

    Returns
    -------
    FitResult
        ``{'lam', 'sigma', 'kappa'}`` -- ``usl(n, **fit)`` predicts -- with stderr, ci, r2,
        mdape_pct, and `aicc` (AICc of each model tried).

    Raises
    ------
    anfperf.ModelError
        Fewer than 3 distinct concurrencies (2 with kappa fixed), NaN, non-positive values,
        constant throughput, or no convergence.

    Warns
    -----
    FewPointsWarning
        Fewer than 6 points.
    SaturationWarning
        The fitted peak lies beyond twice the largest concurrency measured, or the curve has no
        peak (kappa = 0): the data show no saturation and the maximum is an extrapolation.
    """
    x, y = _fit_points(concurrency, throughput, x_col, y_col, uncontrolled=True)
    if isinstance(kappa, str) and kappa not in ("auto", "fit"):
        raise ModelError(f"kappa must be 'auto', 'fit' or a number, got {kappa!r}")
    fixed = None if isinstance(kappa, str) else float(kappa)
    if fixed is not None and not 0.0 <= fixed <= 1.0:
        raise ModelError("a fixed kappa must be within 0 .. 1")
    x, y = check_points(
        x,
        y,
        x_name="concurrency",
        y_name="throughput",
        n_params=3 if fixed is None else 2,
        recommended=RECOMMENDED_POINTS,
    )
    # work in units of the best per-unit rate so all parameters are O(1)
    scale = float(np.max(y / x))
    candidates = {}
    if fixed is None:
        candidates["usl"] = _fit_usl_once(x, y, scale, None)
    if fixed is not None or kappa == "auto":
        candidates["amdahl" if not fixed else "kappa fixed"] = _fit_usl_once(
            x, y, scale, fixed or 0.0
        )
    aicc = {name: _aicc(fit[2], x.size, fit[3]) for name, fit in candidates.items()}
    if len(candidates) == 2 and aicc["amdahl"] <= aicc["usl"] + 2.0:
        chosen = "amdahl"
    else:
        chosen = next(iter(candidates)) if len(candidates) == 1 else "usl"
    popt, pcov, _, _ = candidates[chosen]
    notes = []
    if len(candidates) == 2:
        notes.append(
            f"kept {'Amdahl (kappa = 0)' if chosen == 'amdahl' else 'the USL'}: AICc "
            + ", ".join(f"{k} {v:.2f}" for k, v in aicc.items())
        )
    lam, sigma = popt[0] * scale, popt[1]
    kap = popt[2] if popt.size == 3 else (fixed or 0.0)
    params = {"lam": lam, "sigma": sigma, "kappa": kap}
    cov = np.zeros((3, 3))
    k = popt.size
    scales = np.array([scale, 1.0, 1.0])[:k]
    cov[:k, :k] = pcov * np.outer(scales, scales)
    y_fit = usl(x, **params)
    ci = None
    if bootstrap:
        model, bounds = _usl_model(scale, None if k == 3 else kap)
        rel = (y - y_fit) / y_fit
        boot = _bootstrap(model, x, model(x, *popt), rel, popt, bounds, int(bootstrap), seed)
        if len(boot):
            boot = boot * scales
            lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
            ci = {name: (float(lo[i]), float(hi[i])) for i, name in enumerate(list(params)[:k])}
            if k == 2:
                ci["kappa"] = (kap, kap)
    saturation = _usl_saturation_notes(params, float(np.max(x)), float(np.max(y)))
    for note in saturation:
        warnings.warn(note, SaturationWarning, stacklevel=2)
    result = FitResult(
        params, model="usl", y=y, y_fit=y_fit, cov=cov, ci=ci, notes=notes + saturation
    )
    result.aicc = aicc
    result.selected = chosen  # the candidate kept: 'usl', 'amdahl' or 'kappa fixed'
    return result


def _usl_model(scale: float, kappa: float | None) -> tuple[Callable, tuple]:
    if kappa is None:

        def model(n, lam, sigma, kap):
            return usl(n, lam * scale, sigma, kap)

        return model, ([1e-9, 0.0, 0.0], [np.inf, 1.0, 1.0])

    def fixed_model(n, lam, sigma):
        return usl(n, lam * scale, sigma, kappa)

    return fixed_model, ([1e-9, 0.0], [np.inf, 1.0])


def _fit_usl_once(
    x: np.ndarray, y: np.ndarray, scale: float, kappa: float | None
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Best of several starts; returns (popt, pcov, cost, n_params)."""
    model, bounds = _usl_model(scale, kappa)
    best = None
    errors = []
    for sigma0, kappa0 in USL_STARTS:
        # lam0 = max(X / N) = 1 in scaled units: the contention-free slope is at least the
        # best ratio measured, so no N = 1 point is needed
        p0 = [1.0, sigma0] + ([kappa0] if kappa is None else [])
        try:
            fit = _curve_fit(model, x, y, p0, bounds)
        except (RuntimeError, ValueError) as exc:
            errors.append(str(exc))
            continue
        if best is None or fit[2] < best[2]:
            best = fit
    if best is None:
        raise ModelError(f"the USL fit did not converge: {errors[-1] if errors else ''}")
    return best[0], best[1], best[2], len(best[0])


def refit_usl(concurrency: object, throughput: object, start: dict) -> dict[str, float]:
    """One fit of :func:`usl` started from `start`, in the same model: for resamples.

    Like :func:`refit_queueing_latency`: one start near a fit already found instead of
    :func:`fit_usl`'s many starts and model choice; kappa stays 0 when `start` chose Amdahl's law.

    Raises
    ------
    RuntimeError, ValueError
        The fit did not converge.
    """
    x, y = np.asarray(concurrency, float), np.asarray(throughput, float)
    scale = float(np.max(y / x))
    kappa = 0.0 if start["kappa"] == 0 else None
    model, bounds = _usl_model(scale, kappa)
    p0 = [start["lam"] / scale, min(max(start["sigma"], 0.0), 1.0)]
    p0 += [] if kappa is not None else [min(max(start["kappa"], 0.0), 1.0)]
    popt, _, _ = _curve_fit(model, x, y, p0, bounds)
    return {
        "lam": float(popt[0] * scale),
        "sigma": float(popt[1]),
        "kappa": 0.0 if kappa is not None else float(popt[2]),
    }


def _aicc(cost: float, n: int, k: int) -> float:
    """Corrected Akaike information criterion of a least-squares fit (relative residuals)."""
    if n - k - 1 <= 0:
        return math.inf
    return n * math.log(max(cost, 1e-300) / n) + 2 * k + 2 * k * (k + 1) / (n - k - 1)


def _usl_saturation_notes(params: dict[str, float], n_seen: float, x_seen: float) -> list[str]:
    """Warnings when the data do not show where throughput stops growing."""
    lam, sigma, kappa = params["lam"], params["sigma"], params["kappa"]
    if kappa <= 1e-12:
        if sigma <= 1e-9:
            return [
                "no saturation seen: throughput grows linearly with concurrency "
                f"up to N={n_seen:g}; the USL has no maximum"
            ]
        share = x_seen / (lam / sigma)
        if share < SATURATION_SHARE:
            return [
                f"no saturation seen: the highest throughput measured is {share:.0%} of the "
                f"fitted asymptote lam / sigma = {lam / sigma:.4g}, an extrapolation"
            ]
        return []
    peak = math.sqrt(max(1.0 - sigma, 0.0) / kappa)
    if peak > 2.0 * n_seen:
        return [
            f"no saturation seen: the fitted peak N={peak:.0f} lies beyond twice the largest "
            f"concurrency measured ({n_seen:g}); the maximum is an extrapolation"
        ]
    return []


def check_usl(lam: float, sigma: float, kappa: float) -> None:
    """A ModelError naming the parameter unless lam > 0 and sigma, kappa >= 0, all finite."""
    for name, value, low in (("lam", lam, 0.0), ("sigma", sigma, 0.0), ("kappa", kappa, 0.0)):
        if not isinstance(value, int | float | np.floating) or not math.isfinite(value):
            raise ModelError(f"USL parameter {name} must be a finite number, got {value!r}")
        if value < low or (name == "lam" and value == 0):
            raise ModelError(f"USL parameter {name} must be {'>' if name == 'lam' else '>='} 0, "
                             f"got {value!r}")  # fmt: skip


def usl_peak(lam: float, sigma: float, kappa: float) -> tuple[int, float]:
    """Concurrency of the USL maximum and the throughput there.

    Parameters
    ----------
    lam, sigma, kappa
        USL parameters (see :func:`usl`).

    Returns
    -------
    (int, float)
        ``N_max = floor(sqrt((1 - sigma) / kappa))`` (at least 1) [-] and ``usl(N_max)``
        [unit of lam].

    Raises
    ------
    anfperf.ModelError
        kappa = 0: the curve never turns down, there is no finite peak.
    """
    check_usl(lam, sigma, kappa)
    if not kappa > 0:
        raise ModelError(
            "kappa = 0: the USL never turns down, so it has no finite peak "
            f"(throughput tends to lam / sigma = {lam / sigma:g})"
            if sigma > 0
            else "sigma = kappa = 0: linear scaling, no peak"
        )
    n_max = max(1, math.floor(math.sqrt(max(1.0 - sigma, 0.0) / kappa)))
    return n_max, float(usl(n_max, lam, sigma, kappa))


def usl_max(lam: float, sigma: float, kappa: float) -> float:
    """Most throughput the USL reaches: at its peak, or its asymptote ``lam / sigma``.

    Returns
    -------
    float
        [unit of lam]; inf for linear scaling (sigma = kappa = 0).
    """
    check_usl(lam, sigma, kappa)
    if kappa > 0:
        return usl_peak(lam, sigma, kappa)[1]
    return lam / sigma if sigma > 0 else math.inf


def usl_latency_ms(n: object, lam: float, sigma: float, kappa: float) -> np.ndarray | float:
    """Mean latency at a concurrency by Little's law, ``R = N / X(N)`` [ms].

    Valid when the USL was fitted to IOPS (lam in 1/s): ``1000 (1 + sigma (N - 1) + kappa N
    (N - 1)) / lam``.
    """
    n_arr = np.asarray(n, dtype=float)
    out = MS_PER_S * n_arr / np.asarray(usl(n_arr, lam, sigma, kappa))
    return _scalar(out)


def usl_concurrency_at_latency(
    lat_ms: object, lam: float, sigma: float, kappa: float
) -> np.ndarray | float:
    """Concurrency at which the USL's latency (:func:`usl_latency_ms`) reaches `lat_ms`.

    Solves ``kappa N^2 + (sigma - kappa) N + (1 - sigma) - lam lat_ms / 1000 = 0`` for N.

    Returns
    -------
    float or numpy.ndarray
        Concurrency [-]; NaN where `lat_ms` is below the unloaded latency ``1000 / lam``, inf
        where latency never reaches it (sigma = kappa = 0).
    """
    check_usl(lam, sigma, kappa)
    c = lam * np.asarray(lat_ms, dtype=float) / MS_PER_S
    with np.errstate(invalid="ignore", divide="ignore"):
        if kappa > 0:
            b = sigma - kappa
            disc = b * b - 4.0 * kappa * (1.0 - sigma - c)
            n = (-b + np.sqrt(disc)) / (2.0 * kappa)
        elif sigma > 0:
            n = (c - 1.0 + sigma) / sigma
        else:
            n = np.where(c >= 1.0, np.inf, np.nan)
    n = np.where(c < 1.0 - 1e-12, np.nan, np.maximum(n, 1.0))
    return _scalar(n)


def usl_throughput_at_latency(
    lat_ms: object, lam: float, sigma: float, kappa: float
) -> np.ndarray | float:
    """Most throughput the USL allows with a mean latency of at most `lat_ms`.

    The concurrency that reaches the SLO, capped at the peak (beyond the peak, more
    concurrency only adds latency). "IOPS at 2 ms" is ``usl_throughput_at_latency(2, **fit)``
    for a fit to IOPS.

    Returns
    -------
    float or numpy.ndarray
        Throughput [unit of lam]; NaN where the SLO is below the unloaded latency.
    """
    check_usl(lam, sigma, kappa)
    n = np.asarray(usl_concurrency_at_latency(lat_ms, lam, sigma, kappa), dtype=float)
    if kappa > 0:
        n = np.minimum(n, math.sqrt(max(1.0 - sigma, 0.0) / kappa))
    with np.errstate(invalid="ignore"):
        out = np.where(np.isfinite(n), usl(np.where(np.isfinite(n), n, 1.0), lam, sigma, kappa), n)
    if sigma > 0 and kappa <= 0:
        out = np.where(np.isinf(n), lam / sigma, out)
    return _scalar(out)


def usl_knee(
    lam: float, sigma: float, kappa: float, n_max: float | None = None
) -> tuple[float, float]:
    """Knee of the USL curve: Kneedle's point of maximum curvature between N = 1 and the peak.

    Parameters
    ----------
    lam, sigma, kappa
        USL parameters.
    n_max : float, optional
        Right end of the range searched [-]; needed when the curve has no peak (kappa = 0),
        defaults to the peak.

    Returns
    -------
    (float, float)
        Concurrency of the knee [-] and the throughput there [unit of lam].
    """
    check_usl(lam, sigma, kappa)
    if n_max is None:
        if not kappa > 0:
            raise ModelError("the USL has no peak (kappa = 0): give n_max for the knee")
        n_max = math.sqrt(max(1.0 - sigma, 0.0) / kappa)
    if not n_max > 1:
        raise ModelError("the knee needs a range beyond N = 1 (n_max > 1)")
    n = np.linspace(1.0, float(n_max), 2001)
    return kneedle(n, np.asarray(usl(n, lam, sigma, kappa)), curve="concave")


# --------------------------------------------------------------------------------------------
# Closed queueing network (mean value analysis) and the model-averaged throughput curve


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


def fit_mva_throughput(
    concurrency: object,
    throughput: object = None,
    *,
    x_col: str = "outstanding",
    y_col: str = "iops",
) -> FitResult:
    """Fit :func:`mva_throughput` to (concurrency, IOPS) points.

    Parameters
    ----------
    concurrency : array-like or pandas.DataFrame
        I/Os in flight of each run [-]; or a tidy frame (as in :func:`fit_usl`; rate-limited
        runs are left out).
    throughput : array-like, optional
        IOPS of each run [1/s] (not with a frame).
    x_col, y_col : str
        Frame columns.

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
    """
    x, y = _fit_points(concurrency, throughput, x_col, y_col, uncontrolled=True)
    x, y = check_points(
        x, y, x_name="concurrency", y_name="throughput", n_params=2, recommended=RECOMMENDED_POINTS
    )
    if np.any(x < 1) or np.max(x) > MVA_FIT_MAX_N:
        raise ModelError(f"concurrency must be within 1 .. {MVA_FIT_MAX_N} for the MVA fit")
    # fit log-parameters in ms: both are positive and span orders of magnitude
    d_ceiling = MS_PER_S / float(np.max(y))  # the ceiling is at least the best rate seen

    def resid(p: np.ndarray) -> np.ndarray:
        return np.asarray(mva_throughput(x, *np.exp(p))) / y - 1.0

    best = None
    for share in (1.0, 0.7, 0.4, 0.2):
        d0 = d_ceiling * share
        z0 = max(float(np.min(MS_PER_S * x / y)) - d0, 1e-3 * d0)
        try:
            with np.errstate(all="ignore"):
                fit = least_squares(resid, np.log([d0, z0]), method="lm", max_nfev=400)
        except (ValueError, ModelError):
            continue
        if fit.success and np.all(np.isfinite(fit.fun)) and (best is None or fit.cost < best.cost):
            best = fit
    if best is None:
        raise ModelError("the MVA fit did not converge")
    demand, delay = np.exp(best.x)
    params = {"demand_ms": float(demand), "delay_ms": float(delay)}
    cost = float(np.sum(best.fun**2))
    # covariance of the log-parameters from the Jacobian, carried to the parameters
    jac = best.jac
    dof = max(x.size - 2, 1)
    try:
        cov_log = np.linalg.inv(jac.T @ jac) * cost / dof
    except np.linalg.LinAlgError:
        cov_log = np.full((2, 2), np.nan)
    vals = np.array([demand, delay])
    cov = cov_log * np.outer(vals, vals)
    y_fit = np.asarray(mva_throughput(x, **params))
    notes = []
    share = float(np.max(y)) * demand / MS_PER_S
    if share < SATURATION_SHARE:
        note = (
            f"no saturation seen: the highest throughput measured is {share:.0%} of the fitted "
            f"ceiling 1000 / demand_ms = {MS_PER_S / demand:.4g}, an extrapolation"
        )
        notes.append(note)
        warnings.warn(note, SaturationWarning, stacklevel=2)
    result = FitResult(params, model="mva_throughput", y=y, y_fit=y_fit, cov=cov, notes=notes)
    result.aicc = {"mva": _aicc(cost, x.size, 2)}
    return result


def throughput_curve(
    n: object,
    lam: float,
    sigma: float,
    kappa: float,
    demand_ms: float,
    delay_ms: float,
    usl_weight: float,
) -> np.ndarray | float:
    """Model-averaged throughput: ``w usl(N) + (1 - w) mva_throughput(N)``.

    Amdahl's law / the USL and a closed queueing network (:func:`mva_throughput`) are two
    physical readings of a concurrency sweep: latency growing linearly with N from the start
    (contention), or flat until a bottleneck saturates (queueing). Below saturation the data
    often cannot tell them apart, yet they extrapolate to different ceilings. Multimodel
    inference (Burnham & Anderson, *Model Selection and Multimodel Inference*, 2002, ch. 4)
    then predicts with the Akaike-weighted average rather than the single best model.

    Parameters
    ----------
    n : array-like
        Concurrency [-].
    lam, sigma, kappa
        USL parameters (see :func:`usl`), fitted to IOPS.
    demand_ms, delay_ms
        MVA parameters (see :func:`mva_throughput`) [ms].
    usl_weight : float
        Akaike weight of the USL [-], 0 .. 1.

    Returns
    -------
    float or numpy.ndarray
        Throughput [1/s].
    """
    if not 0.0 <= usl_weight <= 1.0:
        raise ModelError(f"usl_weight must be within 0 .. 1, got {usl_weight!r}")
    n_arr = np.asarray(n, dtype=float)
    out = usl_weight * np.asarray(usl(n_arr, lam, sigma, kappa)) + (1.0 - usl_weight) * (
        np.asarray(mva_throughput(n_arr, demand_ms, delay_ms))
    )
    return _scalar(out)


def fit_throughput_curve(
    concurrency: object,
    throughput: object = None,
    *,
    x_col: str = "outstanding",
    y_col: str = "iops",
) -> FitResult:
    """Fit :func:`throughput_curve`: the USL and the MVA network, weighted by their AICc.

    Both models are fitted to the same points with the same relative residuals
    (:func:`fit_usl` with kappa='auto', :func:`fit_mva_throughput`); the Akaike weight of the
    USL is ``1 / (1 + exp((AICc_usl - AICc_mva) / 2))``. A model that fits clearly worse gets
    next to no weight (a difference of 10 in AICc: < 1 %); where the data cannot tell them
    apart the prediction lies between their ceilings. Only the points given are used.

    Parameters
    ----------
    concurrency, throughput, x_col, y_col
        As in :func:`fit_usl` (throughput in IOPS).

    Returns
    -------
    FitResult
        ``{'lam', 'sigma', 'kappa', 'demand_ms', 'delay_ms', 'usl_weight'}``, with `aicc`
        (each model's) and `fits` (the two fits).

    Raises
    ------
    anfperf.ModelError
        Fewer than 3 distinct concurrencies, NaN, non-positive values, constant throughput, or
        neither model converging.
    """
    x, y = _fit_points(concurrency, throughput, x_col, y_col, uncontrolled=True)
    x, y = check_points(
        x, y, x_name="concurrency", y_name="throughput", n_params=3, recommended=RECOMMENDED_POINTS
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        u_fit = fit_usl(x, y)
        m_fit = fit_mva_throughput(x, y)
    a_usl = u_fit.aicc[u_fit.selected]
    a_mva = m_fit.aicc["mva"]
    if math.isfinite(a_usl) and math.isfinite(a_mva):
        weight = 1.0 / (1.0 + math.exp(min((a_usl - a_mva) / 2.0, 700.0)))
        notes = [f"AICc {u_fit.selected} {a_usl:.2f}, mva {a_mva:.2f}: usl_weight {weight:.2f}"]
    else:  # too few points for AICc (n <= k + 1): nothing to tell the models apart
        weight = 0.5
        notes = ["too few points for AICc: the two models weighted equally"]
    params = {**{k: u_fit[k] for k in ("lam", "sigma", "kappa")}, **m_fit, "usl_weight": weight}
    y_fit = np.asarray(throughput_curve(x, **params))
    # a weighted average's own covariance is not defined: the two fits carry theirs
    cov = np.full((len(params), len(params)), np.nan)
    cov[:3, :3] = weight * u_fit.cov[:3, :3]
    cov[3:5, 3:5] = (1.0 - weight) * m_fit.cov
    # the saturation warnings of the model(s) that carry the weight
    for w in caught:
        if issubclass(w.category, SaturationWarning):
            from_usl = str(w.message) in u_fit.notes
            if (from_usl and weight >= 0.5) or (not from_usl and weight < 0.5):
                notes.append(str(w.message))
                warnings.warn(str(w.message), SaturationWarning, stacklevel=2)
    result = FitResult(params, model="throughput_curve", y=y, y_fit=y_fit, cov=cov, notes=notes)
    result.aicc = {u_fit.selected: a_usl, "mva": a_mva}
    result.fits = {"usl": u_fit, "mva": m_fit}
    return result


# --------------------------------------------------------------------------------------------
# Queueing response time


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
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(load > 0, MS_PER_S * float(outstanding) / load, np.inf)


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
        return (
            x * float(queueing_latency(x, lat_min_ms, iops_max, servers)) / MS_PER_S - outstanding
        )

    hi = float(iops_max) * (1.0 - 1e-12)
    return float(brentq(gap, 0.0, hi)) if gap(hi) > 0 else hi


def fit_queueing_latency(
    iops: object,
    lat_ms: object = None,
    *,
    servers: float | None = None,
    outstanding: float | None = None,
    x_col: str = "iops",
    y_col: str = "lat_mean_ms",
    bootstrap: int = 0,
    seed: int = 0,
) -> FitResult:
    """Fit :func:`queueing_latency` to (load, latency) points.

    Parameters
    ----------
    iops : array-like or pandas.DataFrame
        Measured load of each run [1/s]; or a tidy frame, whose whole-run rows give `x_col`
        and `y_col`.
    lat_ms : array-like, optional
        Mean response time of each run [ms] (not with a frame).
    servers : float, optional
        Fix the number of servers (1 = M/M/1). By default it is fitted (1 .. 64) when there
        are 4 or more distinct loads, else 1.
    outstanding : float, optional
        I/Os the load generator kept in flight at most [-] (for a Vdbench ``iorate=curve`` run,
        threads x SDs; over all hosts: the frame's configured 'outstanding'). Given, the model
        is capped by Little's law (see :func:`queueing_latency`) in the fit and the result
        carries it, so ``queueing_latency(x, **fit)`` predicts with the cap.
    x_col, y_col : str
        Frame columns of the load and the latency.
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
    x, y = _fit_points(iops, lat_ms, x_col, y_col, uncontrolled=False)
    fit_m = servers is None and np.unique(x).size >= 4
    n_params = 3 if fit_m else 2
    x, y = check_points(
        x,
        y,
        x_name="iops",
        y_name="lat_ms",
        n_params=n_params,
        recommended=RECOMMENDED_POINTS,
    )
    fixed_m = 1.0 if servers is None else float(servers)
    if not _SERVERS_BOUNDS[0] <= fixed_m <= _SERVERS_BOUNDS[1]:
        raise ModelError(f"servers must be within {_SERVERS_BOUNDS}")
    if outstanding is not None:
        try:
            outstanding = float(outstanding)
        except (TypeError, ValueError):
            raise ModelError(f"outstanding must be a number, got {outstanding!r}") from None
        if not (math.isfinite(outstanding) and outstanding > 0):
            raise ModelError(f"outstanding must be a number > 0, got {outstanding!r}")
    xs, ys = float(np.max(x)), float(np.min(y))

    def model(load, s, m, k=fixed_m):
        return np.asarray(queueing_latency(load, s * ys, m * xs, k, outstanding)) / 1.0

    lower = [1e-6, 1.0 + 1e-6] + ([_SERVERS_BOUNDS[0]] if fit_m else [])
    upper = [np.inf, 1e4] + ([_SERVERS_BOUNDS[1]] if fit_m else [])
    best = None
    errors = []
    for m0 in (1.05, 1.2, 1.5, 2.0, 4.0):
        for k0 in (1.0, 2.0, 4.0) if fit_m else (fixed_m,):
            p0 = [0.9, m0] + ([k0] if fit_m else [])
            try:
                fit = _curve_fit(model, x, y, p0, (lower, upper))
            except (RuntimeError, ValueError) as exc:
                errors.append(str(exc))
                continue
            if best is None or fit[2] < best[2]:
                best = fit
    if best is None:
        raise ModelError(f"the queueing fit did not converge: {errors[-1] if errors else ''}")
    popt, pcov, _ = best
    params = {
        "lat_min_ms": popt[0] * ys,
        "iops_max": popt[1] * xs,
        "servers": popt[2] if fit_m else fixed_m,
    }
    if outstanding is not None:
        params["outstanding"] = outstanding
    scales = np.array([ys, xs] + ([1.0] if fit_m else []))
    cov_fit = pcov * np.outer(scales, scales)
    cov = np.zeros((len(params), len(params)))
    cov[: len(scales), : len(scales)] = cov_fit
    y_fit = np.asarray(queueing_latency(x, **params))
    ci = None
    notes = [] if fit_m or servers is not None else ["fewer than 4 loads: servers fixed at 1"]
    if bootstrap:
        rel = (y - y_fit) / y_fit
        boot = _bootstrap(model, x, model(x, *popt), rel, popt, (lower, upper), bootstrap, seed)
        if len(boot):
            boot = boot * scales
            lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
            names = list(params)[: len(scales)]
            ci = {k: (float(lo[i]), float(hi[i])) for i, k in enumerate(names)}
            if not fit_m:
                ci["servers"] = (fixed_m, fixed_m)
            if outstanding is not None:
                ci["outstanding"] = (outstanding, outstanding)
    utilisation = xs / params["iops_max"]
    if utilisation < 0.5:
        note = (
            f"no saturation seen: the highest load is {utilisation:.0%} of the fitted "
            f"iops_max ({params['iops_max']:.4g}); the maximum is an extrapolation"
        )
        notes.append(note)
        warnings.warn(note, SaturationWarning, stacklevel=2)
    return FitResult(
        params, model="queueing_latency", y=y, y_fit=y_fit, cov=cov, ci=ci, notes=notes
    )


def refit_queueing_latency(iops: object, lat_ms: object, start: dict) -> dict[str, float]:
    """One fit of :func:`queueing_latency` started from `start`, its servers held: for resamples.

    :func:`fit_queueing_latency` tries many starting points and checks its input; a bootstrap
    refits hundreds of resamples of points already checked, near a fit already found, so one
    start suffices (30x quicker).

    Parameters
    ----------
    iops, lat_ms : array-like
        The (resampled) points [1/s], [ms].
    start : dict
        A :func:`fit_queueing_latency` result.

    Returns
    -------
    dict
        lat_min_ms, iops_max, servers (and outstanding when `start` has it).

    Raises
    ------
    RuntimeError, ValueError
        The fit did not converge.
    """
    x, y = np.asarray(iops, float), np.asarray(lat_ms, float)
    servers, outstanding = float(start["servers"]), start.get("outstanding")
    xs, ys = float(np.max(x)), float(np.min(y))

    def model(load, s, m):
        return np.asarray(queueing_latency(load, s * ys, m * xs, servers, outstanding))

    p0 = [start["lat_min_ms"] / ys, max(start["iops_max"] / xs, 1.0 + 1e-3)]
    popt, _, _ = _curve_fit(model, x, y, p0, ([1e-6, 1.0 + 1e-6], [np.inf, 1e4]))
    out = {"lat_min_ms": popt[0] * ys, "iops_max": popt[1] * xs, "servers": servers}
    if outstanding is not None:
        out["outstanding"] = float(outstanding)
    return out


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


# --------------------------------------------------------------------------------------------
# Knee of measured or modelled curves


def kneedle(x: object, y: object, curve: str = "concave") -> tuple[float, float]:
    """Kneedle (Satopaa et al. 2011): the point of a monotone curve farthest from its chord.

    Parameters
    ----------
    x, y : array-like
        The curve (at least 3 points), x increasing.
    curve : {'concave', 'convex'}
        'concave' for throughput rising to a plateau, 'convex' for latency rising with load.

    Returns
    -------
    (float, float)
        The knee's x and y.
    """
    xa, ya = check_points(x, y, x_name="x", y_name="y", n_params=3, recommended=3, positive=False)
    xn = (xa - xa[0]) / (xa[-1] - xa[0])
    span = ya[-1] - ya[0]
    if span == 0:
        raise ModelError("the curve ends where it starts: no knee")
    yn = (ya - ya[0]) / span
    if curve == "concave":
        diff = yn - xn
    elif curve == "convex":
        diff = xn - yn
    else:
        raise ModelError(f"curve must be 'concave' or 'convex', got {curve!r}")
    i = int(np.argmax(diff))
    return float(xa[i]), float(ya[i])
