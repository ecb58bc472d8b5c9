"""Reading a workload off a fitted curve: the rate N I/Os in flight reach, and the latency at a
rate, for every curve whose model reads them.

- latency curves (the queueing fit: lat_min_ms, iops_max[, servers]) give the latency as a
  function of the rate; the rate N I/Os in flight reach is where Little's law holds,
  ``X R(X) = N``;
- throughput curves -- the USL (lam, sigma, kappa), the MVA network (demand_ms, delay_ms) and
  their weighted blend (both sets and usl_weight) -- give the rate as a function of the
  concurrency N; the latency at a rate X is then Little's law at the smallest N reaching X,
  ``R = N / X``.

:func:`rate_at` and :func:`latency_at_rate_ms` find the model of a mapping of parameters in
the registry (:func:`~anfperf.models.curves.registry.spec_for_params`), check the parameters it
declares and call its reader (:class:`~anfperf.models.curves.registry.ModelSpec`);
:func:`throughput_readers` makes both readers of any throughput curve X(N).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
from scipy.optimize import brentq

from anfperf.errors import ModelError
from anfperf.models.curves.registry import ModelSpec, Reader, spec_for_params
from anfperf.models.littles_law import latency_at_concurrency

#: Largest concurrency searched for a rate on a curve with no peak [-].
SEARCH_MAX_N = 100_000


def checked_params(params: Mapping[str, float], names: tuple[str, ...]) -> dict[str, float]:
    """The parameters `names` of `params` as finite floats, else a ModelError naming them."""
    flags = [k for k in names if isinstance(params[k], bool | np.bool_)]
    if flags:  # float(True) is 1.0: a slip, not a parameter
        raise ModelError(f"curve parameter {flags[0]} must be a number, got {params[flags[0]]!r}")
    out = {k: float(params[k]) for k in names}
    if not all(math.isfinite(v) for v in out.values()):
        raise ModelError(f"curve parameters must be finite, got {out}")
    return out


def curve_model(params: Mapping[str, float], reads: str = "rate_at") -> ModelSpec:
    """The registered model a fit's parameters belong to, among those with the reader `reads`
    ('rate_at' or 'latency_at_rate_ms')."""
    return spec_for_params(params, reads=reads)


def _reading(params: Mapping[str, float], reads: str) -> tuple[Reader, dict[str, float]]:
    """The reader of the model of `params`, and the parameters with the declared ones checked."""
    spec = curve_model(params, reads)
    return getattr(spec, reads), {**params, **checked_params(params, spec.params)}


def rate_at(params: Mapping[str, float], outstanding: float) -> tuple[float, str]:
    """I/O rate [1/s] that `outstanding` I/Os in flight reach on any fitted curve, and how.

    Throughput fits give X(N) directly; a queueing fit gives the rate X at which Little's law
    holds, ``X x latency(X) = N``.
    """
    reader, values = _reading(params, "rate_at")
    return reader(values, float(outstanding))


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
    reader, values = _reading(params, "latency_at_rate_ms")
    return reader(values, rate)


def throughput_readers(
    label: str,
    curve: Callable[[Mapping[str, float]], Callable],
    rises_to: Callable[[Mapping[str, float]], float] = lambda values: float(SEARCH_MAX_N),
    concurrency_at: Callable[[Mapping[str, float], float], float] | None = None,
) -> tuple[Reader, Reader]:
    """Both readers of a throughput curve X(N), for its :class:`ModelSpec`.

    Parameters
    ----------
    label : str
        How the sentences name the fit: 'USL' gives "USL fit: ...".
    curve : callable
        ``curve(params) -> X``, X(N) [1/s] of those parameters.
    rises_to : callable
        ``rises_to(params)``: the concurrency up to which X(N) rises [-] (its peak; by default
        :data:`SEARCH_MAX_N`). Rates are looked for below it.
    concurrency_at : callable, optional
        ``concurrency_at(params, rate)``: the N reaching a rate on the rising side, where the
        model solves it in closed form; by default it is searched for (Brent's method).

    Returns
    -------
    (callable, callable)
        ``rate_at(params, outstanding)`` and ``latency_at_rate_ms(params, rate)``.
    """

    def read_rate(values: Mapping[str, float], outstanding: float) -> tuple[float, str]:
        x = float(curve(values)(outstanding))
        return x, f"{label} fit: X({outstanding:g}) = {x:,.0f} IOPS"

    def read_latency(values: Mapping[str, float], rate: float) -> tuple[float, str]:
        model, top = curve(values), rises_to(values)
        grid = np.unique(np.geomspace(1.0, top, 200).round(6)) if top > 1 else np.array([1.0])
        xs = np.asarray(model(grid), dtype=float)
        reach = np.flatnonzero(xs >= rate)
        if reach.size == 0:
            raise ModelError(
                f"{rate:,.0f} IOPS is beyond the fitted curve ({label.lower()}), which "
                f"reaches at most {np.nanmax(xs):,.0f} IOPS"
            )
        i = int(reach[0])
        if i == 0:
            n = 1.0  # reached with one I/O in flight: its latency is the unloaded one
            rate_n = float(xs[0])
        else:
            if concurrency_at is not None:
                n = float(concurrency_at(values, rate))
            else:
                n = brentq(lambda v: float(model(v)) - rate, grid[i - 1], grid[i])
            rate_n = rate
        lat = float(latency_at_concurrency(n, rate_n))
        return lat, (
            f"{label} fit: {rate:,.0f} IOPS at {n:.3g} in flight -> {lat:.3f} ms (Little's law)"
        )

    return read_rate, read_latency
