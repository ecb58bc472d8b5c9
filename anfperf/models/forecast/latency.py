"""Latency against load past the data, bounded by the volume's limit.

Below a volume's limit latency stays near its light-load value; it rises as the load nears the
limit, where a queueing centre whose maximum rate *is* the limit puts the rise
(``R = lat_light_ms / (1 - U**shape)``, ``U = load / limit``; :mod:`.known`). A sweep's
lower half fixes the light-load latency; the limit fixes where the curve turns; the shape,
which a flat lower half cannot show, comes from ANF's published curves unless the data show
the rise themselves. Without a known limit, a curve that has not risen yet cannot say where
it will: :func:`forecast_latency` says so instead of printing a number. A rise fitted without
a known limit is the estimate past the data, not the band's floor: the band reaches down to
the latency at the highest load measured (latency does not fall as load grows), and where one
point alone shows the rise (it may be a stalled interval), to the curve that has not risen.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
from scipy.optimize import least_squares

from anfperf.errors import ModelError
from anfperf.models.curves.band import DEFAULT_DRAWS, predict_band
from anfperf.models.curves.queueing import (
    fit_queueing_latency,
    queueing_closed_max,
    queueing_iops_at_latency,
    queueing_latency,
)
from anfperf.models.forecast.known import KnownLimits
from anfperf.models.forecast.result import Forecast, refused
from anfperf.units import MS_PER_S

#: Latency this many times its light-load value shows the rise toward saturation.
RISE_FACTOR = 1.5
#: A fitted maximum rate below this share of the known limit: something else binds.
OTHER_BINDS = 0.85
#: Fewest measured loads a latency forecast takes.
MIN_POINTS = 3
#: z of a two-sided 95 % band (the scatter of the fit's residuals widens the band by it).
_Z95 = 1.96


def _points(load: object, lat_ms: object) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(load, float).ravel(), np.asarray(lat_ms, float).ravel()
    if x.size != y.size:
        raise ModelError(f"{x.size} loads and {y.size} latencies: give one latency per load")
    keep = np.isfinite(x) & np.isfinite(y)
    if np.any((x[keep] <= 0) | (y[keep] <= 0)):
        raise ModelError("loads and latencies must be > 0")
    order = np.argsort(x[keep], kind="stable")
    return x[keep][order], y[keep][order]


def _beyond(residual: np.ndarray, resolution: np.ndarray) -> np.ndarray:
    """Log residuals less what the printed resolution explains (0 inside it)."""
    return np.sign(residual) * np.maximum(np.abs(residual) - resolution, 0.0)


def _light_latency(
    u: np.ndarray, y: np.ndarray, shape: float, resolution: np.ndarray
) -> tuple[float, float]:
    """Light-load latency given the shape: mean of log(R (1 - U**shape)); and its log scatter."""
    logs = np.log(y) + np.log1p(-(np.clip(u, 0, 0.999) ** shape))
    centre = float(np.mean(logs))
    scatter = _beyond(logs - centre, resolution)
    return math.exp(centre), float(np.sqrt(np.mean(scatter**2)))


def _fit_shape(u: np.ndarray, y: np.ndarray, start: float) -> tuple[float, float, float]:
    """Light-load latency, shape and the shape's standard error fitted to risen data."""

    def residual(p: np.ndarray) -> np.ndarray:
        return np.log(p[0]) - np.log1p(-(np.clip(u, 0, 0.999) ** p[1])) - np.log(y)

    fit = least_squares(residual, [float(np.min(y)), start], bounds=([1e-6, 0.5], [1e6, 64.0]))
    dof = max(u.size - 2, 1)
    try:
        cov = np.linalg.inv(fit.jac.T @ fit.jac) * float(np.sum(fit.fun**2)) / dof
        se = float(np.sqrt(max(cov[1, 1], 0.0)))
    except np.linalg.LinAlgError:
        se = math.inf
    return float(fit.x[0]), float(fit.x[1]), se


def forecast_latency(
    load: object,
    lat_ms: object,
    at: object,
    known: KnownLimits | None = None,
    *,
    resolution_ms: float = 0.0,
    outstanding: float | None = None,
    level: float = 0.95,
    draws: int = DEFAULT_DRAWS,
) -> Forecast:
    """Mean latency at new loads, from measured (load, latency) points and what is known.

    Parameters
    ----------
    load, lat_ms : array-like
        Measured load [IOPS or ops/s] and mean latency [ms], one per point.
    at : array-like
        Loads to predict at [same unit as `load`].
    known : KnownLimits, optional
        The volume's and clients' limit (in the unit of `load`) and, when known, the
        light-load latency.
    resolution_ms : float
        How finely the latencies were written (SPEC prints 0.1 ms: give 0.05): differences
        within it are not errors of the fit.
    outstanding : float, optional
        Most I/Os the load generator keeps in flight (Vdbench threads x SDs, fio iodepth x
        numjobs): a closed loop's latency at rate X is at most ``outstanding / X`` (Little's
        law), which caps the curve and its band.
    level : float
        Share of new measurements the band should hold (0.95; the published shape's range is
        about 95 %).
    draws : int
        Bootstrap draws of a fitted curve's band (:func:`anfperf.models.predict_band`).

    Returns
    -------
    Forecast
        With a known limit: the queueing curve of that limit (basis 'queueing at the known
        limit'); without one, a fitted queueing curve when the data show the rise, else no
        number (`predictable` False, the reason in `notes`).

    Raises
    ------
    anfperf.ModelError
        Fewer than 3 points, non-positive values or mismatched lengths.
    """
    x, y = _points(load, lat_ms)
    at_arr = np.atleast_1d(np.asarray(at, float))
    if x.size < MIN_POINTS:
        raise ModelError(f"a latency forecast needs {MIN_POINTS} or more points, got {x.size}")
    known = known or KnownLimits()
    rel_res = np.log1p(resolution_ms / y)
    known, note = known.unless_passed_by(x)
    if known.known:
        out = _under_limit(x, y, at_arr, known, rel_res, (level, draws), outstanding)
    else:
        out = _without_limit(x, y, at_arr, (level, draws), outstanding)
    if outstanding is not None and out.predictable:
        out = _little_capped(out, float(outstanding), _floor_past_data(x, y)[0])
    if note:
        out = out.noted(note)
    return out


def _under_limit(
    x: np.ndarray,
    y: np.ndarray,
    at: np.ndarray,
    known: KnownLimits,
    rel_res: np.ndarray,
    band: tuple[float, int],
    outstanding: float | None,
) -> Forecast:
    """The queueing curve whose maximum rate is the known limit; the fitted one where the
    data rise toward a lower rate (then the clients or the device bind, not the volume)."""
    shape = known.shape
    u, u_at = x / known.iops_max, at / known.iops_max
    notes = []
    light0, _ = _light_latency(u, y, shape.typical, rel_res)
    risen = float(np.max(y)) >= RISE_FACTOR * light0 and x.size >= 4
    if risen:
        fitted = _fitted(x, y, at, band, outstanding, "queueing fit (the volume does not bind)")
        top = fitted.params["iops_max"]
        if top < OTHER_BINDS * known.iops_max:
            note = (
                f"latency rises toward {top:,.0f}, {top / known.iops_max:.0%} of the known "
                f"limit ({known.limit}): something else binds (the clients or the device), "
                "so the fitted curve is used"
            )
            return fitted.noted(note)
        _, m, se = _fit_shape(u, y, shape.typical)
        shapes = (max(m - _Z95 * se, 0.5), m, m + _Z95 * se)
        notes.append(f"shape {m:.2f} +- {se:.2f} fitted: the data show latency rising")
    else:
        shapes = (shape.low, shape.typical, shape.high)
        notes.append(
            f"latency has not risen within the loads measured: shape {shape.typical:.2f} "
            f"({shape.low:.2f} .. {shape.high:.2f}) from ANF's published curves ({shape.sources}); "
            "it rises where the limit puts it unless something else (the clients, the device) "
            "binds sooner, which only loads closer to the limit would show"
        )
    if known.lat_light_ms is not None:
        light, scatter = known.lat_light_ms, 0.0
    else:
        light, scatter = _light_latency(u, y, shapes[1], rel_res)
    # the light-load latency's error (a mean over the points: it shrinks with their number)
    # and a new point's own scatter about the curve
    spread = _Z95 * scatter / math.sqrt(x.size) + _Z95 * scatter
    est = np.asarray(queueing_latency(at, light, known.iops_max, shapes[1]), float)
    curves = np.vstack([queueing_latency(at, light, known.iops_max, s) for s in shapes])
    # the band is of the latency itself: the resolution it was written with is the judge's
    low = np.min(curves, axis=0) * math.exp(-spread)
    high = np.max(curves, axis=0) * math.exp(spread)
    notes.append(
        f"light-load latency {light:.3g} ms; maximum rate {known.iops_max:,.0f} "
        f"({known.limit or 'the known limit'})"
    )
    if np.any(u_at >= 1):
        notes.append("loads at or above the limit cannot be sustained: latency unbounded there")
    return Forecast(
        x=at, estimate=est, lower=np.maximum(low, 0.0), upper=high,
        basis="queueing at the known limit", notes=tuple(notes), bound=known.limit,
        params={"lat_light_ms": light, "iops_max": known.iops_max, "shape": shapes[1],
                "shape_low": shapes[0], "shape_high": shapes[2]},
    )  # fmt: skip


def _little_capped(fc: Forecast, outstanding: float, last_ms: float) -> Forecast:
    """A closed loop of `outstanding` I/Os waits at most ``outstanding / X`` (Little's law);
    the notes say past which load, by the fitted curve, the loop could not drive.

    Where the curve's whole band lies above that bound, the curve says the loop could not
    drive the load: a load it did drive disproves the curve there, not the loop, and its
    latency may be anything from the floor past the data (`last_ms`, :func:`_floor_past_data`:
    latency does not fall as load grows) up to the bound, which the band then spans instead of
    shrinking to the bound alone (fio's 4 KiB reads at 86,608 IOPS with 32 in flight: 0.274 ms,
    under the bound's 0.369, the band collapsed on it)."""
    bound = outstanding / fc.x * MS_PER_S
    p = fc.params
    light = p.get("lat_light_ms", p.get("lat_min_ms"))
    reach = queueing_closed_max(light, p["iops_max"], p.get("shape", p.get("servers", 1.0)),
                                outstanding)  # fmt: skip
    notes = [f"at most {outstanding:g} in flight / load (Little's law)"]
    if np.any(fc.x > reach):
        notes.append(
            f"by the fitted curve {outstanding:g} in flight drive at most {reach:,.0f}; past "
            "it the latency is the loop's bound, had it got there"
        )
    lower = np.where(fc.lower >= bound, np.minimum(last_ms, bound), fc.lower)
    capped = dataclasses.replace(
        fc, estimate=np.minimum(fc.estimate, bound), lower=np.minimum(lower, bound),
        upper=np.minimum(fc.upper, bound),
    )  # fmt: skip
    return capped.noted(*notes)


def _without_limit(
    x: np.ndarray, y: np.ndarray, at: np.ndarray, band: tuple[float, int], outstanding: float | None
) -> Forecast:
    """A fitted queueing curve when the data show the rise; no number when they do not."""
    floor = float(np.min(y))
    if float(np.max(y)) < RISE_FACTOR * floor or x.size < 4:
        why = (
            f"latency has not risen within the loads measured ({floor:.3g} .. "
            f"{float(np.max(y)):.3g} ms up to {float(np.max(x)):,.0f}) and no limit of the "
            "volume or its clients is known; give the volume (level and quota, or its Azure "
            "JSON) or measure closer to saturation"
        )
        return refused(at, floor, why)
    return _fitted(x, y, at, band, outstanding, "queueing fit (no limit known)")


def _fitted(
    x: np.ndarray,
    y: np.ndarray,
    at: np.ndarray,
    band_of: tuple[float, int],
    outstanding: float | None,
    basis: str,
) -> Forecast:
    """The queueing curve fitted to the points (its maximum rate too) and its band
    (`band_of`: its level and bootstrap draws)."""
    level, draws = band_of
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_queueing_latency(x, y, outstanding=outstanding)
        band = predict_band(fit, at, level, draws=draws)
    est, lower, upper = (band[k].to_numpy(float) for k in ("estimate", "lower", "upper"))
    notes = list(fit.notes)
    if not np.all(np.isfinite(est)):
        top = float(fit["iops_max"])
        notes.append(
            f"at {top:,.0f} and above, the fitted curve's maximum rate, it has no latency "
            f"({float(np.max(x)) / top:.0%} of that rate measured): no number there"
        )
        est = np.where(np.isfinite(est), est, np.nan)
    # a draw with no latency there (its maximum rate below the load): the band is unbounded
    # above, and below it reaches the band's floor at the highest load that has one (latency
    # does not fall as load grows), else the least latency measured
    upper = np.where(np.isfinite(upper), upper, np.inf)
    order = np.argsort(at, kind="stable")
    floor = np.maximum.accumulate(np.where(np.isfinite(lower[order]), lower[order], -np.inf))
    floor = np.maximum(floor, float(np.min(y)))[np.argsort(order, kind="stable")]
    lower = np.where(np.isfinite(lower), lower, floor)
    # past the data the fitted rise is the estimate, not the band's floor
    past = at > float(np.max(x))
    least_ms, one_point = _floor_past_data(x, y)
    if np.any(past & (lower > least_ms)):
        lower = np.where(past, np.fmin(lower, least_ms), lower)
        notes.append(
            f"past {float(np.max(x)):,.0f} the band reaches down to {least_ms:.3g} ms, the "
            "latency at the highest load measured: the fitted rise there is an extrapolation"
            if not one_point else
            f"the rise rests on one point ({y[-1]:.3g} ms at {x[-1]:,.0f}; the loads below it "
            f"stay under {RISE_FACTOR:g} x the least latency): past the data the band reaches "
            f"down to {least_ms:.3g} ms, measured below it"
        )  # fmt: skip
    return Forecast(
        x=at, estimate=est, lower=np.fmin(lower, est),
        upper=upper, basis=basis, predictable=bool(np.any(np.isfinite(est))), notes=tuple(notes),
        params=dict(fit),
    )  # fmt: skip


def _floor_past_data(x: np.ndarray, y: np.ndarray) -> tuple[float, bool]:
    """The least latency past the loads measured [ms], and whether one point alone rose: the
    latency at the highest load (latency does not fall as load grows), or where that load
    alone rose (a stalled interval?) the level the loads below it kept
    (:func:`_rise_on_one_point`)."""
    unrisen = _rise_on_one_point(x, y)
    return (float(y[-1]), False) if unrisen is None else (unrisen, True)


def _rise_on_one_point(x: np.ndarray, y: np.ndarray) -> float | None:
    """Where only the highest load's latency has risen (the points below it stay under
    ``RISE_FACTOR`` times the least): the least latency of the upper half of those points,
    the level a curve that has not risen keeps. None where more points show the rise."""
    below, x_below = y[:-1], x[:-1]
    if below.size == 0 or float(np.max(below)) >= RISE_FACTOR * float(np.min(y)):
        return None
    return float(np.min(below[x_below >= np.median(x_below)]))


def planned_latency(load: object, known: KnownLimits) -> Forecast:
    """Mean latency a volume of known limit gives at a load, before any measurement.

    The published light-load latency (or `known.lat_light_ms`) and shape, with the limit:
    ``R = lat_light_ms / (1 - (load / limit)**shape)``; the band spans the published range of
    both.

    Parameters
    ----------
    load : array-like
        Planned load [IOPS, in the unit of the limit].
    known : KnownLimits
        The volume's limit (finite).

    Returns
    -------
    Forecast

    Raises
    ------
    anfperf.ModelError
        No finite limit in `known`.
    """
    if not known.known:
        raise ModelError("a planned volume's latency needs its limit")
    at = np.atleast_1d(np.asarray(load, float))
    s = known.shape
    if known.lat_light_ms is not None:
        light = (known.lat_light_ms,) * 3
    else:
        light = (s.lat_light_low_ms, s.lat_light_ms, s.lat_light_high_ms)
    est = np.asarray(queueing_latency(at, light[1], known.iops_max, s.typical), float)
    low = np.asarray(queueing_latency(at, light[0], known.iops_max, s.high), float)
    high = np.asarray(queueing_latency(at, light[2], known.iops_max, s.low), float)
    return Forecast(
        x=at, estimate=est, lower=low, upper=high, basis="queueing at the known limit",
        notes=(f"light-load latency {light[1]:.3g} ms and shape {s.typical:.2f} from {s.sources}",),
        bound=known.limit,
        params={"lat_light_ms": light[1], "iops_max": known.iops_max, "shape": s.typical,
                "shape_low": s.low, "shape_high": s.high, "lat_light_low_ms": light[0],
                "lat_light_high_ms": light[2]},
    )  # fmt: skip


def iops_at_latency(forecast: Forecast, lat_ms: float) -> tuple[float, float, float]:
    """Load at which a limit-bounded latency forecast reaches `lat_ms`: (estimate, low, high).

    Parameters
    ----------
    forecast : Forecast
        Of :func:`forecast_latency` or :func:`planned_latency` with a known limit.
    lat_ms : float
        The latency objective [ms].

    Returns
    -------
    (float, float, float)
        Estimate and band [unit of the load]; NaN when the forecast has no limit-bounded curve
        or `lat_ms` is below the light-load latency.
    """
    p = forecast.params
    if "shape" not in p or "iops_max" not in p or not forecast.predictable:
        return math.nan, math.nan, math.nan
    light, top = p["lat_light_ms"], p["iops_max"]
    # the band's ends: a slow light load with a gentle rise, a quick one with a sharp rise
    pairs = ((light, p["shape"]),
             (p.get("lat_light_high_ms", light), p.get("shape_low", p["shape"])),
             (p.get("lat_light_low_ms", light), p.get("shape_high", p["shape"])))  # fmt: skip
    at = [float(queueing_iops_at_latency(lat_ms, r0, top, m)) for r0, m in pairs]
    return at[0], float(np.nanmin(at)), float(np.nanmax(at))
