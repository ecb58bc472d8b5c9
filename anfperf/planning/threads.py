"""Threads per VM from a measured concurrency sweep, or by Little's law at the SLO.

A plan sizes the outstanding I/O as ``rate x latency`` (Little's law). Which latency: the one
a measured system shows at the target rate, when a concurrency sweep of it is given (its
fitted curve, :func:`anfperf.models.fit_throughput_curve`, read at the target by
:func:`anfperf.models.curves.curve_reading.latency_at_rate_ms`), else the SLO (the most
concurrency it allows). :func:`plan_on_sweep` plans both ways as needed and says which it
used, and why the sweep's curve could not be (it does not reach the target, or reaches it only
above the SLO). Past the rates the sweep measured, its fitted curve is not read on: the
latency there comes from its concurrency forecast by Little's law
(:func:`anfperf.models.forecast.slo.latency_at_rate_in_flight`), with the band's, or, where
that cannot tell, from the SLO.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anfperf.analysis.sweep import sweep_xy
from anfperf.errors import ModelError
from anfperf.models import FitResult, Plan, fit_throughput_curve, plan
from anfperf.models.forecast.result import NOT_PREDICTABLE
from anfperf.models.forecast.slo import REACH, latency_at_rate_in_flight

__all__ = ["SweepCurve", "ThreadsBasis", "plan_on_sweep", "sweep_curve"]


@dataclass(frozen=True)
class SweepCurve:
    """The fitted throughput curve of a concurrency sweep, and what it was measured on.

    Attributes
    ----------
    fit : FitResult
        The default stacked throughput curve X(N) of the sweep [IOPS against in flight].
    source : str
        The sweep's runs, as named in charts and text.
    concurrency, iops : numpy.ndarray
        Its measured points: I/Os in flight [-] and throughput [IOPS] (empty: only the fit is
        known, and it is read wherever it reaches).
    """

    fit: FitResult
    source: str
    concurrency: np.ndarray = field(default_factory=lambda: np.empty(0))
    iops: np.ndarray = field(default_factory=lambda: np.empty(0))


@dataclass(frozen=True)
class ThreadsBasis:
    """How a plan's threads per VM were sized.

    Attributes
    ----------
    text : str
        In a sentence, with the latency and where it came from.
    from_sweep : bool
        On a measured sweep's fitted curve (else Little's law at the SLO or the latency given).
    """

    text: str
    from_sweep: bool

    def __str__(self) -> str:
        return self.text


def sweep_curve(frame: pd.DataFrame, source: str) -> SweepCurve:
    """The fitted throughput curve of a concurrency sweep's tidy frame.

    Raises
    ------
    anfperf.ModelError
        The frame is not a concurrency sweep that can be fitted (fewer than 2 concurrencies;
        a load curve, whose steps were paced at requested rates with one count in flight, is
        named as such).
    """
    n, iops = sweep_xy(frame, "outstanding", "iops")
    paced = pd.to_numeric(frame.get("rate_limit_iops"), errors="coerce").dropna()
    if np.unique(n).size < 2 and paced.size:
        # sweep_xy leaves the paced steps out (their rate is the one asked for, not the
        # system's): what is left is no sweep of the count in flight
        flight = pd.to_numeric(frame["outstanding"], errors="coerce").dropna().unique()
        raise ModelError(
            f"{source} is a load curve ({paced.nunique()} requested rates at "
            f"{', '.join(f'{v:g}' for v in sorted(flight))} in flight), not a concurrency "
            "sweep: threads per VM are sized on a sweep of the I/Os in flight (Vdbench "
            "threads=(...), fio iodepth); without --sweep the plan sizes them by Little's law "
            "at the SLO"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its notes say what the fit could not tell
        fit = fit_throughput_curve(n, iops)
    return SweepCurve(fit, source, n, iops)


def plan_on_sweep(sweep: SweepCurve | None, **plan_args: Any) -> tuple[Plan, str]:
    """:func:`anfperf.models.plan` with the threads sized on a sweep's curve where it can be.

    Parameters
    ----------
    sweep : SweepCurve, optional
        The measured system's curve; None: Little's law at the SLO (or the latency given).
    **plan_args
        Arguments of :func:`anfperf.models.plan` (not `curve`).

    Returns
    -------
    (Plan, ThreadsBasis)
        The plan, and how its threads per VM were sized.
    """
    by_law = plan(**plan_args)  # Little's law at the SLO; its target [IOPS] is the plan's
    if sweep is not None and plan_args.get("lat_ms") is None:
        if sweep.iops.size and by_law.iops > float(np.max(sweep.iops)):
            return _past_measured_rates(sweep, by_law, plan_args)
        try:
            chosen = plan(**plan_args, curve=sweep.fit)
        except ModelError as exc:
            return _by_littles_law(sweep, by_law, str(exc))
        return chosen, ThreadsBasis(
            f"threads per VM from the fitted curve of the sweep {sweep.source}: "
            f"{_latency_why(chosen)}", from_sweep=True,
        )  # fmt: skip
    return by_law, ThreadsBasis(f"threads per VM by Little's law: {_latency_why(by_law)}", False)


def _past_measured_rates(
    sweep: SweepCurve, by_law: Plan, plan_args: Mapping[str, Any]
) -> tuple[Plan, ThreadsBasis]:
    """The plan past the rates the sweep measured: threads for the latency at `rate` on the
    slower edge of its concurrency forecast's band, at most the SLO; by Little's law at the
    SLO where the forecast cannot tell.

    The slower edge, not the estimate: past a sweep's best rate a little more throughput can
    take many more I/Os in flight, and threads sized on the estimate fall short (on the
    public sweeps' lower halves, the estimate's latency is off by 75 % at the median; the
    band holds 94 % of the latencies measured).
    """
    rate = by_law.iops
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lat, fast, slow, fc = latency_at_rate_in_flight(sweep.concurrency, sweep.iops, rate)
    past = f"{rate:,.0f} IOPS is past the {float(np.max(sweep.iops)):,.0f} IOPS it measured"
    if not math.isfinite(lat):
        why = fc.says() if not fc.predictable else (
            f"its forecast ({fc.basis}) reaches at most {np.nanmax(fc.estimate):,.0f} IOPS "
            f"within {REACH:g} x the I/Os in flight measured")  # fmt: skip
        return _by_littles_law(sweep, by_law, f"{past}, and {why}: {NOT_PREDICTABLE}")
    slo = plan_args.get("lat_slo_ms")
    if slo is not None and lat > slo:
        return _by_littles_law(sweep, by_law, f"{past}, and its forecast ({fc.basis}) puts "
                               f"{lat:.3g} ms there, above the {slo:g} ms SLO")  # fmt: skip
    sized = float(np.fmin(slow, math.inf if slo is None else slo))  # a NaN edge: the SLO
    if not math.isfinite(sized):
        return _by_littles_law(sweep, by_law, f"{past}; the slower edge of its forecast's "
                               f"band does not reach it: {NOT_PREDICTABLE}")  # fmt: skip
    chosen = plan(**{**plan_args, "lat_ms": sized})
    band = f"{fast:.3g} .. {slow:.3g} ms" if math.isfinite(slow) else f"{fast:.3g} ms or more"
    return chosen, ThreadsBasis(
        f"threads per VM for {sized:.3g} ms at the target, from the concurrency forecast "
        f"({fc.basis}) of the sweep {sweep.source}: {past}; by Little's law it gives "
        f"{lat:.3g} ms there, {band} along its 95 % band, sized for the slower edge"
        f"{' (capped at the SLO)' if sized == slo else ''}", from_sweep=True,
    )  # fmt: skip


def _by_littles_law(sweep: SweepCurve, by_law: Plan, why: str) -> tuple[Plan, ThreadsBasis]:
    """The plan by Little's law at the SLO (or the default latency), and why not on `sweep`."""
    return by_law, ThreadsBasis(
        f"threads per VM by Little's law at {by_law.lat_ms:.3g} ms, not from the sweep "
        f"{sweep.source}: {why}", from_sweep=False,
    )  # fmt: skip


def _latency_why(chosen: Plan) -> str:
    """The plan's latency step in words (its value and why)."""
    steps: Mapping[str, Any] = chosen.reasoning.set_index("step")["why"].to_dict()
    return f"{chosen.lat_ms:.3g} ms at the target ({steps.get('latency', 'as given')})"
