"""Throughput across read/write ratios, from measured pure-read and pure-write points.

If every read costs a shared bottleneck ``1 / read_max`` seconds and every write
``1 / write_max``, a mix with read fraction r runs at ``1 / (r / read_max + (1 - r) / write_max)``
-- the weighted harmonic mean, the power mean with exponent -1. A mix of two measured mixes is
time sharing of them too, so the harmonic mean needs no more than the two endpoints, and it is
what :func:`fit_mix` predicts from them. A volume's throughput limit (its QoS limit, in the unit
of the throughput: ``limit``) is a second, separate ceiling: the mix is the lesser of the two.

Where reads and writes also use resources of their own (the client's egress for writes, its
ingress for reads), a mix runs faster than the harmonic mean; where they interfere (read-ahead
or the client cache lost to writes, turnarounds), slower. Two endpoints cannot tell which, so
the prediction band (:func:`mix_band`, through :func:`~anfperf.models.predict_band`) carries
that spread: ``DEFAULT_SPREAD``, the scatter of real mixes around the harmonic mean, widest at
50 % and nil at the measured endpoints, and reaches down to the power mean of
``INTERFERENCE_EXPONENT``, as slow as interfering reads and writes have run (a band that
widens with how far apart the endpoints are). Measured interior mixes narrow or widen it.
They change the curve only when leave-one-out cross-validation over them says a fitted exponent
(:func:`mix_throughput`'s power mean, 1 = linear, 0 = geometric) predicts each of them better
than the harmonic mean does; with fewer than ``MIN_FOLDS`` of them it cannot tell, and three or
four measured mixes predict exactly what the two endpoints do.

On the ANF performance calculator's sweeps (tests/data/anf_calculator) the two-endpoint
harmonic mean is off by a median 3.3 % (max 10.2 %) at 64 KiB sequential and 2.1 % (max 11.7 %)
at 4 KiB random; no power mean through the endpoints does better than a mean 4.5 % at 64 KiB
(its 50 % step and its 4,500 MiB/s pure-read end are not on one smooth curve).
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar
from scipy.special import ndtri  # the normal quantile; scipy.stats takes ~0.6 s to import

from anfperf.errors import ModelError
from anfperf.models.curves._fitting import _curve_fit
from anfperf.models.curves.registry import ModelSpec, register_model
from anfperf.models.curves.result import FitResult, check_points, fit_inputs

log = logging.getLogger(__name__)

#: Exponent of the power mean when the data cannot tell (weighted harmonic mean).
DEFAULT_EXPONENT = -1.0
_EXPONENT_BOUNDS = (-5.0, 5.0)

#: Scatter of real mixes around the two-endpoint harmonic mean [-]: the standard deviation of
#: log(measured / predicted) at 50 % reads (``2 sqrt(r (1 - r))`` times it at read share r).
#: The root mean square over the real mixes of the repository other than the calculator's:
#: ../shared/corpus/vdbench RndMix (+11.8 %) and SeqMix (-21.1 %, -9.8 %), and the fio sweep
#: anfperf/samples/fio/sweeps/mix_sweep_randrw8k.json (nine mixes, -6.3 .. +14.5 %): 0.103.
DEFAULT_SPREAD = 0.10
#: Scatter of a repeated run at one read share [-] (sd of log throughput): a new measurement at
#: a measured endpoint is not the old one. An assumption (a quiet volume, runs of minutes), not
#: a measurement: the band's edges at the endpoints rest on it alone.
REPEAT_NOISE = 0.02
#: The slowest mixing rule a band from the two endpoints alone holds: the power mean of this
#: exponent [-]. Reads and writes that interfere (reads queued behind a flash device's writes,
#: the client cache lost to writes) run a mix slower than time sharing, the more so the more
#: the endpoints differ: 28 of 30 mixes of a public NVMe SSD at 1 .. 2 in flight sit at
#: exponents -1.4 .. -2.8 (tests/data/public_sweeps; endpoints 7 x apart), the ANF
#: calculator's 64 KiB table down to -2.1. Measured interior mixes replace it with their own
#: scatter.
INTERFERENCE_EXPONENT = -3.0
#: Weight of DEFAULT_SPREAD against measured interior mixes [points]: it counts as this many.
PRIOR_POINTS = 4
#: Fewest measured interior mixes (distinct read shares) cross-validation may choose with.
MIN_FOLDS = 3
#: An endpoint within this share of the limit ran at the limit [-].
AT_LIMIT = 0.98


def mix_throughput(
    read_pct: object,
    read_max: float,
    write_max: float,
    exponent: float = DEFAULT_EXPONENT,
    limit: float = math.inf,
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
    limit : float
        A separate ceiling of the mix, e.g. the volume's throughput limit [same unit]; inf
        (default) for none.

    Returns
    -------
    float or numpy.ndarray
        Throughput at `read_pct` [unit of read_max].
    """
    r = np.asarray(read_pct, dtype=float) / 100.0
    if np.any(np.isnan(r)) or np.any((r < 0) | (r > 1)):
        raise ModelError("read_pct must be within 0 .. 100")
    rm, wm = float(read_max), float(write_max)
    if rm <= 0 or wm <= 0 or np.isnan(rm) or np.isnan(wm):
        raise ModelError(f"read_max and write_max must be > 0, got {rm!r} and {wm!r}")
    cap = float(limit)
    if not cap > 0:
        raise ModelError(f"limit must be > 0 (inf for none), got {limit!r}")
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if abs(exponent) < 1e-9:
            out = np.exp(r * np.log(rm) + (1 - r) * np.log(wm))
        else:
            terms = np.where(r > 0, r * rm**exponent, 0.0) + np.where(
                r < 1, (1 - r) * wm**exponent, 0.0
            )
            out = terms ** (1.0 / exponent)
    out = np.minimum(out, cap)
    return float(out) if np.ndim(out) == 0 else out


def fit_mix(
    read_pct: object,
    throughput: object,
    *,
    exponent: float | None = None,
    limit: float | None = None,
) -> FitResult:
    """Fit :func:`mix_throughput` to measured (read %, throughput) points.

    Measured pure-read and pure-write points are taken as they are (several at one end: their
    geometric mean); an end not measured is fitted. The exponent is the harmonic -1 unless
    `exponent` fixes it, or leave-one-out cross-validation over ``MIN_FOLDS`` or more measured
    interior mixes finds that a fitted exponent predicts every one of them better (each left
    out in turn, the rest fitted).

    Parameters
    ----------
    read_pct : array-like
        Read share of each run [%]; from a tidy frame:
        ``*sweep_xy(frame, "read_pct", "iops")`` (or "bw_mib_s").
    throughput : array-like
        Throughput of each run [IOPS or MiB/s].
    exponent : float, optional
        Fix the power-mean exponent [-].
    limit : float, optional
        The volume's throughput limit in the unit of `throughput` (MiB/s for a MiB/s sweep):
        the mix never exceeds it, and an endpoint that ran at it is named in the notes (its
        own rate is unknown: at least the limit).

    Returns
    -------
    FitResult
        ``{'read_max', 'write_max', 'exponent'}`` (and ``'limit'`` when given), usable as
        ``mix_throughput(pct, **fit)``; ``selected`` is 'harmonic' or 'power mean', ``notes``
        say why and what the data cannot tell. :func:`~anfperf.models.predict_band` gives its
        band (:func:`mix_band`).

    Raises
    ------
    anfperf.ModelError
        Fewer than two distinct read percentages, a read % outside 0 .. 100, NaN,
        non-positive throughput, a constant throughput, or a non-positive limit.
    """
    x, y = fit_inputs(
        read_pct, throughput, x_name="read_pct", y_name="throughput",
        example="fit_mix(*sweep_xy(frame, 'read_pct', 'iops'))",
    )  # fmt: skip
    x, y = _mix_points(x, y)
    cap = _checked_limit(limit)
    notes: list[str] = []
    inner = np.unique(x[(x > 0) & (x < 100)])
    if exponent is not None:
        chosen, q = "fixed", float(exponent)
        notes.append(f"exponent fixed at {q:g} by the caller")
    else:
        chosen, q = _cross_validate(x, y, inner.size, notes)
    params, cov = _fit_params(x, y, q if chosen != "power mean" else None)
    fixed = {k: params[k] for k in ("read_max", "write_max") if _measured(x, k)}
    if chosen != "power mean":
        fixed["exponent"] = params["exponent"]
    if math.isfinite(cap):
        params["limit"] = cap
        fixed["limit"] = cap
        notes += _limit_notes(params, cap)
    return FitResult(
        params,
        model="mix_throughput",
        x=x,
        y=y,
        y_fit=mix_throughput(x, **params),
        cov=_padded(cov, len(params)),
        notes=notes,
        fixed=fixed,
        bounds={"exponent": _EXPONENT_BOUNDS},
        selected="harmonic" if chosen != "power mean" and q == DEFAULT_EXPONENT else chosen,
    )


def _checked_limit(limit: float | None) -> float:
    if limit is None:
        return math.inf
    if isinstance(limit, bool) or not isinstance(limit, (int, float, np.floating, np.integer)):
        raise ModelError(f"limit must be a number (the volume's limit), got {limit!r}")
    if not float(limit) > 0:
        raise ModelError(f"limit must be > 0, got {limit!r}")
    return float(limit)


def _mix_points(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Checked points: read shares within 0 .. 100 %, positive throughput."""
    if np.any((x < 0) | (x > 100)):
        raise ModelError(f"read_pct must be within 0 .. 100, got {x[(x < 0) | (x > 100)]}")
    x, y = check_points(
        x + 0.0, y, x_name="read_pct", y_name="throughput", n_params=2, recommended=2,
        positive=False,
    )  # fmt: skip
    if np.any(y <= 0):
        raise ModelError("throughput must be > 0")
    return x, y


def _measured(x: np.ndarray, name: str) -> bool:
    return bool(np.any(x == (100.0 if name == "read_max" else 0.0)))


def _cross_validate(x: np.ndarray, y: np.ndarray, folds: int, notes: list[str]):
    """('harmonic', -1) or ('power mean', None): the harmonic mean unless every fold says so."""
    if folds == 0:
        notes.append("no measured interior mix: the harmonic mean of the endpoints (-1)")
        return "harmonic", DEFAULT_EXPONENT
    if folds < MIN_FOLDS:
        notes.append(
            f"{folds} measured interior mix(es): too few for cross-validation to choose a shape "
            f"({MIN_FOLDS} needed); the harmonic mean of the endpoints, the measured mixes "
            "calibrate the band"
        )
        return "harmonic", DEFAULT_EXPONENT
    err_h, err_p = [], []
    for pct in np.unique(x[(x > 0) & (x < 100)]):
        keep = x != pct
        for q, errs in ((DEFAULT_EXPONENT, err_h), (None, err_p)):
            try:
                params, _ = _fit_params(x[keep], y[keep], q)
                pred = mix_throughput(pct, **params)
            except ModelError:
                pred = math.nan
            errs.append(np.mean(np.abs(np.log(pred / y[~keep]))))
    err_h, err_p = np.asarray(err_h), np.asarray(err_p)
    if np.all(err_p < err_h):
        notes.append(
            f"leave-one-out over {folds} interior mixes: a fitted exponent predicts each better "
            f"(mean {np.mean(err_p):.1%} against {np.mean(err_h):.1%} for the harmonic mean)"
        )
        return "power mean", None
    notes.append(
        f"leave-one-out over {folds} interior mixes: a fitted exponent does not predict every "
        f"one better (mean {np.nanmean(err_p):.1%} against {np.mean(err_h):.1%}): harmonic mean"
    )
    return "harmonic", DEFAULT_EXPONENT


def _end_value(x: np.ndarray, y: np.ndarray, pct: float) -> float | None:
    at = x == pct
    return float(np.exp(np.mean(np.log(y[at])))) if np.any(at) else None


def _fit_params(
    x: np.ndarray, y: np.ndarray, exponent: float | None
) -> tuple[dict[str, float], np.ndarray]:
    """Measured endpoints taken as they are; the rest by least squares on log errors."""
    read, write = _end_value(x, y, 100.0), _end_value(x, y, 0.0)
    if read is not None and write is not None:
        ends = {"read_max": read, "write_max": write}
        if exponent is not None:
            return {**ends, "exponent": float(exponent)}, np.zeros((3, 3))
        inner = (x > 0) & (x < 100)
        if not np.any(inner):
            raise ModelError("a fitted exponent needs a measured interior mix")

        def loss(q: float) -> float:
            return float(np.sum(np.log(mix_throughput(x[inner], read, write, q) / y[inner]) ** 2))

        best = minimize_scalar(loss, bounds=_EXPONENT_BOUNDS, method="bounded")
        return {**ends, "exponent": float(best.x)}, np.zeros((3, 3))
    if np.unique(x).size < (3 if exponent is None else 2):
        raise ModelError("a fitted exponent needs three distinct read shares")
    return _fit_mix_params(x, y, exponent)


def _padded(cov: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros((size, size))
    out[:3, :3] = cov
    return out


def _limit_notes(params: dict[str, float], cap: float) -> list[str]:
    out = []
    for name, what in (("read_max", "pure reads"), ("write_max", "pure writes")):
        if params[name] >= AT_LIMIT * cap:
            out.append(
                f"{what} ran at the limit ({params[name]:,.0f} of {cap:,.0f}): their own rate is "
                "unknown (at least the limit); the mix below the limit takes it as the limit, "
                "a lower bound: the data cannot tell how much more the time-shared path allows"
            )
    return out


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


def mix_spread(fit: FitResult) -> float:
    """Scatter of mixes around the fit at 50 % reads [-]: sd of log(measured / predicted).

    ``DEFAULT_SPREAD`` counted as ``PRIOR_POINTS`` points, pooled with the fit's measured
    interior mixes (each scaled to 50 % reads by ``2 sqrt(r (1 - r))``; one point fewer when the
    exponent was fitted to them).
    """
    if fit.x is None:
        raise ModelError("the mix fit does not carry its points: refit it with fit_mix")
    r = fit.x / 100.0
    inner = (r > 0) & (r < 1)
    scaled = np.log(fit.y[inner] / fit.y_fit[inner]) / (2.0 * np.sqrt(r[inner] * (1 - r[inner])))
    n = scaled.size - (0 if "exponent" in fit.fixed else 1)
    total = PRIOR_POINTS * DEFAULT_SPREAD**2 + float(scaled @ scaled)
    return math.sqrt(total / (PRIOR_POINTS + max(n, 0)))


def mix_band(
    fit: FitResult, read_pct: object, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Prediction band of a mix fit: log-normal about the curve, narrowest at measured ends.

    The shape's spread (:func:`mix_spread`, times ``2 sqrt(r (1 - r))``) and a repeated run's
    scatter (``REPEAT_NOISE``) add in quadrature. From the two endpoints alone (no interior
    mix measured, the harmonic mean) the lower edge reaches down to the power mean of
    ``INTERFERENCE_EXPONENT`` too, by as much. Past the read shares measured, toward an end
    not measured, the band also holds the curve carried on from the two shares nearest it,
    each moved to its band's edges (unbounded where that gives the end no finite rate).

    Parameters
    ----------
    fit : FitResult
        A :func:`fit_mix` result.
    read_pct : array-like
        Read shares [%].
    level : float
        Share of new measurements the band should hold, 0 < level < 1.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper edge [unit of the throughput], never above the fit's limit.
    """
    if not 0 < level < 1:
        raise ModelError(f"level must be between 0 and 1, got {level!r}")
    r = np.clip(np.atleast_1d(np.asarray(read_pct, float)) / 100.0, 0.0, 1.0)
    z = float(ndtri(0.5 + level / 2.0))
    shape = 2.0 * np.sqrt(r * (1.0 - r))
    # an end that was not measured is as uncertain as a mid-point
    if "read_max" not in fit.fixed:
        shape = np.where(r > 0.5, 1.0, shape)
    if "write_max" not in fit.fixed:
        shape = np.where(r < 0.5, 1.0, shape)
    spread = mix_spread(fit)
    half = _half_width(shape, z, spread)
    estimate = np.asarray(mix_throughput(r * 100.0, **fit), float)
    low, high = estimate * np.exp(-half), estimate * np.exp(half)
    ends_only = not np.any((fit.x > 0) & (fit.x < 100))
    if ends_only and fit["exponent"] == DEFAULT_EXPONENT:
        params = {**fit, "exponent": INTERFERENCE_EXPONENT}
        low = np.minimum(
            low, np.asarray(mix_throughput(r * 100.0, **params), float) * np.exp(-half)
        )
    for end, past in (
        ("read_max", r > fit.x.max() / 100.0),
        ("write_max", r < fit.x.min() / 100.0),
    ):
        if end not in fit.fixed and np.any(past):
            far_low, far_high = _extrapolated(
                fit, r[past], z, spread, toward_reads=end == "read_max"
            )
            low[past] = np.minimum(low[past], far_low)
            high[past] = np.maximum(high[past], far_high)
    return low, np.minimum(high, fit.get("limit", math.inf))


def _half_width(shape: object, z: float, spread: float) -> np.ndarray:
    """Half the band's width in log terms: the shape's spread (`spread` times `shape`, 1 at
    50 % reads) and a repeated run's scatter in quadrature, times `z`."""
    return z * np.hypot(spread * np.asarray(shape, float), REPEAT_NOISE)


def _extrapolated(
    fit: FitResult, r: np.ndarray, z: float, spread: float, *, toward_reads: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The band past the read shares measured, toward an end not measured: the fit's power
    mean carried on from the two measured shares nearest that end, each moved by its own band
    either way (an extrapolation amplifies their scatter; where a carried line gives the end
    no finite rate, the band is unbounded)."""
    shares = np.unique(fit.x)
    pair = shares[-2:] if toward_reads else shares[:2]
    values = [float(np.exp(np.mean(np.log(fit.y[fit.x == s])))) for s in pair]
    q = float(fit["exponent"])
    r1, r2 = pair / 100.0
    sigma = [float(_half_width(2.0 * math.sqrt(v * (1 - v)), z, spread)) for v in (r1, r2)]
    curves = []
    for s1, s2 in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
        v1, v2 = values[0] * math.exp(s1 * sigma[0]), values[1] * math.exp(s2 * sigma[1])
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if abs(q) < 1e-9:  # geometric: log-linear in the read share
                curves.append(np.exp(np.log(v1) + np.log(v2 / v1) * (r - r1) / (r2 - r1)))
                continue
            t = v1**q + (v2**q - v1**q) * (r - r1) / (r2 - r1)
            curves.append(np.where(t > 0, np.abs(t) ** (1.0 / q), math.inf if q < 0 else 0.0))
    stack = np.vstack(curves)
    return stack.min(axis=0), stack.max(axis=0)


def mix_sweep(
    read_max: float,
    write_max: float,
    exponent: float = DEFAULT_EXPONENT,
    step_pct: float = 10.0,
    limit: float = math.inf,
) -> pd.DataFrame:
    """Predicted throughput at every read % from 0 to 100 in steps (the ANF chart layout).

    Parameters
    ----------
    read_max, write_max, exponent, limit
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
        {"read_pct": pct, "throughput": mix_throughput(pct, read_max, write_max, exponent, limit)}
    )


def _refit(x: np.ndarray, y: np.ndarray, start: FitResult) -> dict[str, float]:
    params, _ = _fit_params(x, y, start.fixed.get("exponent"))
    if "limit" in start:
        params["limit"] = start["limit"]
    return params


SPEC = register_model(
    ModelSpec("mix_throughput", mix_throughput, refit=_refit, fit=fit_mix, band=mix_band)
)
