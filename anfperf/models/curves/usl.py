"""Gunther's Universal Scalability Law: the model, its fit, peak, knee and latency.

``X(N) = lam N / (1 + sigma (N - 1) + kappa N (N - 1))``, fitted to (concurrency, throughput)
points such as a Vdbench ``forthreads=`` or fio iodepth sweep. The fit needs no N = 1 point: it
starts from ``lam = max(X / N)`` and several (sigma, kappa) pairs and keeps the best. Predicts
throughput at a concurrency, at a latency SLO (through Little's law, R = N / X), the knee
(Kneedle) and the maximum at ``N = floor(sqrt((1 - sigma) / kappa))``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from anfperf.errors import ModelError, warn
from anfperf.models.curves._fitting import (
    RECOMMENDED_POINTS,
    SATURATION_SHARE,
    _aicc,
    _curve_fit,
    _scalar,
    kneedle,
)
from anfperf.models.curves.bootstrap import parameter_ci
from anfperf.models.curves.curve_reading import SEARCH_MAX_N, throughput_readers
from anfperf.models.curves.registry import ModelSpec, register_model
from anfperf.models.curves.result import FitResult, SaturationWarning, check_points, fit_inputs
from anfperf.models.littles_law import latency_at_concurrency
from anfperf.units import MS_PER_S
from anfperf.values import format_number

#: Starting (sigma, kappa) pairs of the USL fit: the public fitters' 0.1 / 0.01, 0.01 / 1e-4,
#: and smaller ones for sweeps to hundreds of outstanding I/Os.
USL_STARTS = [(0.1, 0.01), (0.01, 1e-4), (0.05, 1e-3), (0.001, 1e-6), (0.3, 1e-5)]
#: Range of each USL parameter in the fit.
USL_BOUNDS = {"lam": (0.0, math.inf), "sigma": (0.0, 1.0), "kappa": (0.0, 1.0)}


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


def fit_usl(
    concurrency: object,
    throughput: object,
    *,
    kappa: str | float = "auto",
    bootstrap: int = 0,
    seed: int = 0,
) -> FitResult:
    """Fit the Universal Scalability Law to (concurrency, throughput) points.

    Parameters
    ----------
    concurrency : array-like
        Concurrency of each run [-] (threads, iodepth x numjobs, ...); from a tidy frame:
        ``fit_usl(*sweep_xy(frame))`` (configured outstanding I/O over all hosts, IOPS;
        rate-limited runs left out).
    throughput : array-like
        Throughput of each run [IOPS or MiB/s].
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
    x, y = fit_inputs(
        concurrency, throughput, x_name="concurrency", y_name="throughput",
        example="fit_usl(*sweep_xy(frame, 'outstanding', 'iops'))",
    )  # fmt: skip
    fixed = _fixed_kappa(kappa)
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
    candidates = _usl_candidates(x, y, scale, kappa, fixed)
    aicc = {name: _aicc(fit[2], x.size, fit[3]) for name, fit in candidates.items()}
    chosen, notes = _choose_usl(aicc)
    params, cov = _usl_params(candidates[chosen], scale, fixed)
    saturation = _usl_saturation_notes(params, float(np.max(x)), float(np.max(y)))
    for note in saturation:
        warn(note, SaturationWarning)
    result = FitResult(
        params,
        model="usl",
        x=x,
        y=y,
        y_fit=usl(x, **params),
        cov=cov,
        notes=notes + saturation,
        aicc=aicc,
        selected=chosen,  # the candidate kept: 'usl', 'amdahl' or 'kappa fixed'
        fixed={} if candidates[chosen][3] == 3 else {"kappa": params["kappa"]},
        bounds=USL_BOUNDS,
    )
    if not bootstrap:
        return result
    return result.replace(ci=parameter_ci(result, draws=int(bootstrap), seed=seed))


def _fixed_kappa(kappa: str | float) -> float | None:
    """The kappa to hold, None to fit it; a ModelError for anything else."""
    if isinstance(kappa, str):
        if kappa not in ("auto", "fit"):
            raise ModelError(f"kappa must be 'auto', 'fit' or a number, got {kappa!r}")
        return None
    fixed = float(kappa)
    if not 0.0 <= fixed <= 1.0:
        raise ModelError("a fixed kappa must be within 0 .. 1")
    return fixed


def _usl_candidates(
    x: np.ndarray, y: np.ndarray, scale: float, kappa: str | float, fixed: float | None
) -> dict[str, tuple[np.ndarray, np.ndarray, float, int]]:
    """The USL fitted with kappa free ('usl') and/or held ('amdahl' at 0, or 'kappa fixed')."""
    candidates = {}
    if fixed is None:
        candidates["usl"] = _fit_usl_once(x, y, scale, None)
    if fixed is not None or kappa == "auto":
        name = "amdahl" if not fixed else "kappa fixed"
        candidates[name] = _fit_usl_once(x, y, scale, fixed or 0.0)
    return candidates


def _choose_usl(aicc: dict[str, float]) -> tuple[str, list[str]]:
    """The candidate kept, and a note when there was a choice.

    Amdahl's law is kept unless the USL's AICc is lower by more than 2: before the peak, kappa
    is poorly determined and a spurious kappa bends the curve down too early.
    """
    if len(aicc) == 1:
        return next(iter(aicc)), []
    amdahl, full = aicc["amdahl"], aicc["usl"]
    if amdahl <= full + 2.0:
        why = (
            "too few points to fit the USL's coherency term as well"
            if not math.isfinite(full) else
            f"the USL's coherency term fits these points no better (AICc {full:.1f} against "
            f"{amdahl:.1f}: it would need to be lower by more than 2)"
        )  # fmt: skip
        return "amdahl", [f"kept Amdahl's law (kappa = 0): {why}"]
    return "usl", [
        f"kept the USL: its coherency term (kappa) fits these points better than Amdahl's law "
        f"(AICc {full:.1f} against {amdahl:.1f})"
    ]


def _usl_params(
    candidate: tuple[np.ndarray, np.ndarray, float, int], scale: float, fixed: float | None
) -> tuple[dict[str, float], np.ndarray]:
    """Parameters in the data's units and their 3 x 3 covariance (zeros for a held kappa)."""
    popt, pcov, _, k = candidate
    kap = popt[2] if k == 3 else (fixed or 0.0)
    params = {"lam": popt[0] * scale, "sigma": popt[1], "kappa": kap}
    cov = np.zeros((3, 3))
    scales = np.array([scale, 1.0, 1.0])[:k]
    cov[:k, :k] = pcov * np.outer(scales, scales)
    return params, cov


def _usl_model(scale: float, kappa: float | None) -> tuple[Callable, Callable, tuple]:
    """The USL in scaled units (lam / scale), its Jacobian and its bounds; kappa held if given."""

    def jac(n: np.ndarray, lam: float, sigma: float, kap: float) -> np.ndarray:
        # X = lam s N / D, D = 1 + sigma (N - 1) + kappa N (N - 1)
        n = np.asarray(n, dtype=float)
        d = 1.0 + sigma * (n - 1.0) + kap * n * (n - 1.0)
        x = lam * scale * n / d
        return np.column_stack([scale * n / d, -x * (n - 1.0) / d, -x * n * (n - 1.0) / d])

    if kappa is None:

        def model(n, lam, sigma, kap):
            return usl(n, lam * scale, sigma, kap)

        return model, jac, ([1e-9, 0.0, 0.0], [np.inf, 1.0, 1.0])

    def fixed_model(n, lam, sigma):
        return usl(n, lam * scale, sigma, kappa)

    def fixed_jac(n, lam, sigma):
        return jac(n, lam, sigma, kappa)[:, :2]

    return fixed_model, fixed_jac, ([1e-9, 0.0], [np.inf, 1.0])


def _fit_usl_once(
    x: np.ndarray, y: np.ndarray, scale: float, kappa: float | None
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Best of several starts; returns (popt, pcov, cost, n_params)."""
    model, jac, bounds = _usl_model(scale, kappa)
    best = None
    errors = []
    for sigma0, kappa0 in USL_STARTS:
        # lam0 = max(X / N) = 1 in scaled units: the contention-free slope is at least the
        # best ratio measured, so no N = 1 point is needed
        p0 = [1.0, sigma0] + ([kappa0] if kappa is None else [])
        try:
            fit = _curve_fit(model, x, y, p0, bounds, jac)
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
    held = getattr(start, "fixed", {}).get("kappa")
    kappa = float(held) if held is not None else (0.0 if start["kappa"] == 0 else None)
    model, jac, bounds = _usl_model(scale, kappa)
    p0 = [start["lam"] / scale, min(max(start["sigma"], 0.0), 1.0)]
    p0 += [] if kappa is not None else [min(max(start["kappa"], 0.0), 1.0)]
    popt, _, _ = _curve_fit(model, x, y, p0, bounds, jac)
    return {
        "lam": float(popt[0] * scale),
        "sigma": float(popt[1]),
        "kappa": kappa if kappa is not None else float(popt[2]),
    }


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
                f"fitted asymptote lam / sigma = {format_number(lam / sigma)}, an extrapolation"
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
    return latency_at_concurrency(n_arr, usl(n_arr, lam, sigma, kappa))


def usl_concurrency_at_rate(
    rate: object, lam: float, sigma: float, kappa: float
) -> np.ndarray | float:
    """Concurrency at which the USL reaches a throughput, on its rising side [-].

    Solves ``X = lam N / (1 + sigma (N - 1) + kappa N (N - 1))`` for N: the smaller root of
    ``kappa N^2 + (sigma - kappa - lam / X) N + (1 - sigma) = 0`` (before the peak), or
    ``N = X (1 - sigma) / (lam - sigma X)`` when kappa = 0.

    Returns
    -------
    float or numpy.ndarray
        Concurrency [-] (below 1 for rates under X(1) = lam); NaN where the curve never
        reaches `rate` (past its peak or its asymptote ``lam / sigma``).
    """
    check_usl(lam, sigma, kappa)
    x = np.asarray(rate, dtype=float)
    with np.errstate(all="ignore"):
        if kappa > 0:
            b = sigma - kappa - lam / x
            n = (-b - np.sqrt(b * b - 4.0 * kappa * (1.0 - sigma))) / (2.0 * kappa)
        else:
            n = x * (1.0 - sigma) / (lam - sigma * x)
        n = np.where(np.isfinite(n) & (n > 0), n, np.nan)
    return _scalar(n)


def usl_latency_at_rate_ms(
    rate: object, lam: float, sigma: float, kappa: float
) -> np.ndarray | float:
    """Mean latency [ms] of the USL as a function of its throughput, N >= 1, up to the peak.

    The USL gives X(N) and, by Little's law, R = 1000 N / X(N), at the concurrency
    :func:`usl_concurrency_at_rate` finds. Valid when the USL was fitted to IOPS.

    Returns
    -------
    float or numpy.ndarray
        [ms]; NaN below X(1) = lam and beyond the peak, where more concurrency only adds
        latency.
    """
    x = np.asarray(rate, dtype=float)
    n = np.asarray(usl_concurrency_at_rate(x, lam, sigma, kappa), dtype=float)
    with np.errstate(invalid="ignore"):
        lat = np.asarray(latency_at_concurrency(n, np.where(x > 0, x, np.nan)), dtype=float)
        valid = np.isfinite(lat) & (n >= 1.0 - 1e-9) & (x > 0)
    return _scalar(np.where(valid, lat, np.nan))


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


def _usl_rises_to(values: dict[str, float]) -> float:
    """Concurrency up to which the USL rises: its peak, or the search's end without one."""
    u = {k: values[k] for k in ("lam", "sigma", "kappa")}
    top = float(SEARCH_MAX_N)
    return min(top, float(usl_peak(**u)[0])) if u["kappa"] > 0 else top


_read_rate, _read_latency = throughput_readers(
    "USL",
    lambda v: lambda n: usl(n, v["lam"], v["sigma"], v["kappa"]),
    _usl_rises_to,
    lambda v, rate: usl_concurrency_at_rate(rate, v["lam"], v["sigma"], v["kappa"]),
)

SPEC = register_model(
    ModelSpec(
        "usl",
        usl,
        refit=refit_usl,
        fit=fit_usl,
        rate_at=_read_rate,
        latency_at_rate_ms=_read_latency,
    )
)
