"""Threads per VM from a measured concurrency sweep, or by Little's law at the SLO.

A plan sizes the outstanding I/O as ``rate x latency`` (Little's law). Which latency: the one
a measured system shows at the target rate, when a concurrency sweep of it is given (its
fitted curve, :func:`anfperf.models.fit_throughput_curve`, read at the target by
:func:`anfperf.models.curves.curve_reading.latency_at_rate_ms`), else the SLO (the most
concurrency it allows). :func:`plan_on_sweep` plans both ways as needed and says which it
used, and why the sweep's curve could not be (it does not reach the target, or reaches it only
above the SLO).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from anfperf.analysis.sweep import sweep_xy
from anfperf.errors import ModelError
from anfperf.models import FitResult, Plan, fit_throughput_curve, plan

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
    """

    fit: FitResult
    source: str


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
        The frame is not a concurrency sweep that can be fitted (fewer than 2 concurrencies).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its notes say what the fit could not tell
        fit = fit_throughput_curve(*sweep_xy(frame, "outstanding", "iops"))
    return SweepCurve(fit, source)


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
    if sweep is not None and plan_args.get("lat_ms") is None:
        try:
            chosen = plan(**plan_args, curve=sweep.fit)
        except ModelError as exc:
            fallback = plan(**plan_args)
            return fallback, ThreadsBasis(
                f"threads per VM by Little's law at {fallback.lat_ms:.3g} ms, not from the "
                f"sweep {sweep.source}: {exc}", from_sweep=False,
            )  # fmt: skip
        return chosen, ThreadsBasis(
            f"threads per VM from the fitted curve of the sweep {sweep.source}: "
            f"{_latency_why(chosen)}", from_sweep=True,
        )  # fmt: skip
    chosen = plan(**plan_args)
    return chosen, ThreadsBasis(f"threads per VM by Little's law: {_latency_why(chosen)}", False)


def _latency_why(chosen: Plan) -> str:
    """The plan's latency step in words (its value and why)."""
    steps: Mapping[str, Any] = chosen.reasoning.set_index("step")["why"].to_dict()
    return f"{chosen.lat_ms:.3g} ms at the target ({steps.get('latency', 'as given')})"
