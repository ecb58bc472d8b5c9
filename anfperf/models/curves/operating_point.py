"""Where a fitted curve puts a workload: the rate N I/Os in flight reach, and the latency at a
rate, for every curve anfperf fits.

- queueing fits (lat_min_ms, iops_max[, servers]) give latency as a function of the rate;
- throughput fits -- the USL (lam, sigma, kappa), the MVA network (demand_ms, delay_ms) and
  their AICc-weighted blend (both sets and usl_weight) -- give the rate as a function of the
  concurrency N; the latency at a rate X is then Little's law at the smallest N reaching X,
  ``R = N / X``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
from scipy.optimize import brentq

from anfperf.errors import ModelError
from anfperf.models.curves.blend import throughput_curve
from anfperf.models.curves.mva import mva_throughput
from anfperf.models.curves.queueing import queueing_latency
from anfperf.models.curves.usl import usl, usl_peak
from anfperf.units import MS_PER_S

_USL = ("lam", "sigma", "kappa")
_MVA = ("demand_ms", "delay_ms")
_QUEUEING = ("lat_min_ms", "iops_max")
_BLEND = ("usl_weight", "amdahl_lam", "amdahl_sigma", "amdahl_weight")
#: Largest concurrency searched for a rate on a curve with no peak [-].
SEARCH_MAX_N = 100_000


def curve_kind(params: Mapping[str, float]) -> str:
    """'queueing', 'usl', 'mva' or 'blend' from the parameters a fit returned."""
    keys = set(params)
    if set(_USL) <= keys and set(_MVA) <= keys and "usl_weight" in keys:
        return "blend"
    if set(_USL) <= keys:
        return "usl"
    if set(_MVA) <= keys:
        return "mva"
    if set(_QUEUEING) <= keys:
        return "queueing"
    raise ModelError(
        "curve must hold the parameters of a fit: USL (lam, sigma, kappa), MVA (demand_ms, "
        "delay_ms), their blend (both and usl_weight) or queueing (lat_min_ms, iops_max); "
        f"got {sorted(keys)}"
    )


def _values(params: Mapping[str, float], names: tuple[str, ...]) -> dict[str, float]:
    flags = [k for k in names if isinstance(params[k], bool | np.bool_)]
    if flags:  # float(True) is 1.0: a slip, not a parameter
        raise ModelError(f"curve parameter {flags[0]} must be a number, got {params[flags[0]]!r}")
    out = {k: float(params[k]) for k in names}
    if not all(math.isfinite(v) for v in out.values()):
        raise ModelError(f"curve parameters must be finite, got {out}")
    return out


def throughput_model(params: Mapping[str, float]) -> tuple[Callable, float]:
    """X(N) of a throughput fit and the concurrency up to which it rises [-].

    Raises
    ------
    anfperf.ModelError
        `params` are those of a queueing (latency) fit, or not of a fit at all.
    """
    kind = curve_kind(params)
    if kind == "queueing":
        raise ModelError("a queueing fit gives latency from the rate, not a rate from N")
    top = float(SEARCH_MAX_N)
    if kind in ("usl", "blend"):
        u = _values(params, _USL)
        if u["kappa"] > 0:
            top = min(top, float(usl_peak(**u)[0]))
    if kind == "usl":
        return (lambda n: usl(n, **u)), top
    m = _values(params, _MVA)
    if kind == "mva":
        return (lambda n: mva_throughput(n, **m)), top
    blend = {k: float(params[k]) for k in _BLEND if k in params}

    def model(n: object) -> np.ndarray | float:
        return throughput_curve(n, **u, **m, **blend)

    # the average rises as long as its weighted models do: its own peak, not the USL's
    grid = np.unique(np.geomspace(1.0, SEARCH_MAX_N, 2000).round())
    return model, float(grid[int(np.argmax(np.asarray(model(grid))))])


def rate_at(params: Mapping[str, float], outstanding: float) -> tuple[float, str]:
    """I/O rate [1/s] that `outstanding` I/Os in flight reach on any fitted curve, and how.

    Throughput fits give X(N) directly; a queueing fit gives the rate X at which Little's law
    holds, ``X x latency(X) = N``.
    """
    n = float(outstanding)
    kind = curve_kind(params)
    if kind != "queueing":
        model, _ = throughput_model(params)
        x = float(model(n))
        return x, f"{kind.upper()} fit: X({n:g}) = {x:,.0f} IOPS"
    q = _values(params, _QUEUEING)
    s, xmax = q["lat_min_ms"], q["iops_max"]
    m = float(params.get("servers", 1.0))

    def gap(x: float) -> float:
        return x * float(queueing_latency(x, s, xmax, m)) / MS_PER_S - n

    hi = xmax * (1 - 1e-12)
    x = brentq(gap, 0.0, hi) if gap(hi) > 0 else hi
    lat = float(queueing_latency(x, s, xmax, m))
    return x, f"queueing fit: {n:g} in flight at {lat:.3f} ms -> {x:,.0f} IOPS"


def latency_at_rate_ms(params: Mapping[str, float], rate: float) -> tuple[float, str]:
    """Mean latency [ms] at an I/O rate on any fitted curve, and how it was worked out.

    Raises
    ------
    anfperf.ModelError
        The rate is beyond what the curve reaches (its peak, its ceiling).
    """
    rate = float(rate)
    if not (rate > 0 and math.isfinite(rate)):
        raise ModelError(f"rate must be a positive finite number, got {rate!r}")
    if curve_kind(params) == "queueing":
        q = _values(params, _QUEUEING)
        servers = float(params.get("servers", 1.0))
        lat = float(queueing_latency(rate, q["lat_min_ms"], q["iops_max"], servers))
        if not math.isfinite(lat):
            raise ModelError(
                f"{rate:,.0f} IOPS is beyond the fitted curve's iops_max ({q['iops_max']:,.0f})"
            )
        return lat, (
            f"queueing fit at {rate:,.0f} IOPS (lat_min {q['lat_min_ms']:.3f} ms, "
            f"iops_max {q['iops_max']:,.0f})"
        )
    model, top = throughput_model(params)
    grid = np.unique(np.geomspace(1.0, top, 200).round(6)) if top > 1 else np.array([1.0])
    xs = np.asarray(model(grid), dtype=float)
    reach = np.flatnonzero(xs >= rate)
    if reach.size == 0:
        raise ModelError(
            f"{rate:,.0f} IOPS is beyond the fitted curve ({curve_kind(params)}), which "
            f"reaches at most {np.nanmax(xs):,.0f} IOPS"
        )
    i = int(reach[0])
    if i == 0:
        n = 1.0  # reached with one I/O in flight: its latency is the unloaded one
        rate_n = float(xs[0])
    else:
        n = brentq(lambda v: float(model(v)) - rate, grid[i - 1], grid[i])
        rate_n = rate
    lat = MS_PER_S * n / rate_n
    return lat, (
        f"{curve_kind(params).upper()} fit: {rate:,.0f} IOPS at {n:.3g} in flight -> "
        f"{lat:.3f} ms (Little's law)"
    )
