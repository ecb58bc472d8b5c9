"""Interactive capacity planning: a target in, the plan with its reasoning and what-if charts out.

The capacity-planning notebook is a thin shell over this module: :class:`PlannerApp` recomputes
the plan (:func:`anfperf.models.plan`) and its charts from the inputs, as a plain method call
(:meth:`PlannerApp.update`) that tests and papermill run without a browser; in JupyterLab
:meth:`PlannerApp.widget` wires ipywidgets controls to the same method.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from anfperf.errors import AnfperfError, ModelError
from anfperf.models import curves
from anfperf.models._common import FitResult
from anfperf.models.plan import LARGE_BLOCK_KIB, Plan, plan
from anfperf.models.quota import bw_to_iops, iops_to_bw
from anfperf.plots.planning import clients_vs_throughput, quota_vs_throughput, threads_vs_latency

#: The concurrency sweep the threads-vs-latency chart uses when the user gives none: a real
#: Vdbench thread sweep bundled with anfperf (a local disk, so its shape, not ANF's numbers).
SAMPLE_SWEEP = (
    Path(__file__).resolve().parent.parent / "data" / "samples" / "vdbench" / ("RndReadThreads")
)
LEVELS = ("Standard", "Premium", "Ultra", "Flexible")
BLOCK_SIZES_KIB = (4, 8, 16, 32, 64, 128, 256, 1024)


@dataclass(frozen=True)
class PlanInputs:
    """What the user asks for. Exactly one of `target_mib_s` and `target_iops` is set.

    Attributes
    ----------
    target_mib_s, target_iops : float or None
        The target throughput [MiB/s] or I/O rate [1/s].
    bs_kib : float
        Block size [KiB].
    read_pct : float
        Read share [%].
    lat_slo_ms : float
        Latency objective [ms]; the plan sizes concurrency for it.
    vm_size : str or None
        Client VM size; None lets the plan choose.
    levels : tuple of str
        Service levels considered.
    nconnect : int
        NFS connections per mount.
    """

    target_mib_s: float | None = 1000.0
    target_iops: float | None = None
    bs_kib: float = 64.0
    read_pct: float = 100.0
    lat_slo_ms: float = 2.0
    vm_size: str | None = None
    levels: tuple[str, ...] = LEVELS
    nconnect: int = 8

    def __post_init__(self) -> None:
        if (self.target_mib_s is None) == (self.target_iops is None):
            raise AnfperfError("give one target: target_mib_s or target_iops (the other None)")
        target = self.target_mib_s if self.target_mib_s is not None else self.target_iops
        if not target > 0:
            raise AnfperfError(f"the target must be > 0, got {target!r}")
        if not 0 <= self.read_pct <= 100:
            raise AnfperfError(f"read_pct must be within 0..100, got {self.read_pct!r}")
        if not self.bs_kib > 0 or not self.lat_slo_ms > 0:
            raise AnfperfError("bs_kib and lat_slo_ms must be > 0")
        if not self.levels:
            raise AnfperfError("give at least one service level")

    @property
    def bw_mib_s(self) -> float:
        """The target as throughput [MiB/s]."""
        if self.target_mib_s is not None:
            return float(self.target_mib_s)
        return float(iops_to_bw(self.target_iops, self.bs_kib))

    @property
    def iops(self) -> float:
        """The target as I/O rate [1/s]."""
        if self.target_iops is not None:
            return float(self.target_iops)
        return float(bw_to_iops(self.target_mib_s, self.bs_kib))

    @property
    def pattern(self) -> str:
        return "sequential" if self.bs_kib >= LARGE_BLOCK_KIB else "random"


def fit_sweep(paths: Sequence[str | os.PathLike] | None = None) -> tuple[FitResult, str]:
    """USL fitted on a concurrency sweep, and the name of its source.

    Parameters
    ----------
    paths : sequence of path-like, optional
        Raw outputs of a concurrency sweep; default :data:`SAMPLE_SWEEP`.

    Raises
    ------
    anfperf.AnfperfError
        Nothing readable, or no sweep to fit.
    """
    from anfperf.ingest import read_many

    paths = list(paths) if paths else [SAMPLE_SWEEP]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = read_many(paths, errors="warn")
        if frame.empty:
            raise AnfperfError("no results in " + ", ".join(map(str, paths)))
        fit = curves.fit_usl(frame)
    names = ", ".join(sorted(frame["run_id"].astype(str).unique()))
    source = (
        f"{names} (bundled sample: a local disk, not ANF)" if paths == [SAMPLE_SWEEP] else names
    )
    return fit, source


@dataclass
class PlanView:
    """A plan and what the notebook shows of it."""

    inputs: PlanInputs
    plan: Plan
    figures: dict[str, go.Figure] = field(repr=False)

    def summary(self) -> str:
        """The plan in a few Markdown lines."""
        p = self.plan
        return "\n".join(
            [
                f"**{p.level} {p.volume_type} volume of {p.quota_tib:.3g} TiB** "
                f"({p.throughput_limit_mib_s:,.0f} MiB/s), **{p.vm_count} x {p.vm_size}**, "
                f"**{p.threads_per_vm} outstanding I/O per VM** for "
                f"{p.bw_mib_s:,.0f} MiB/s = {p.iops:,.0f} IOPS of {self.inputs.bs_kib:g} KiB "
                f"at {self.inputs.read_pct:g} % reads, sized for {p.lat_ms:g} ms.",
            ]
        )

    @property
    def reasoning(self) -> pd.DataFrame:
        return self.plan.reasoning


def plan_view(inputs: PlanInputs, *, curve: FitResult | None = None, source: str = "") -> PlanView:
    """The plan for `inputs` and its what-if charts.

    Parameters
    ----------
    inputs : PlanInputs
        The target.
    curve : FitResult, optional
        USL fit for the threads-vs-latency chart (:func:`fit_sweep`); None leaves it out.
    source : str
        Name of the curve's data, for its chart title.

    Raises
    ------
    anfperf.ModelError
        No level, quota or client meets the target (the error says why).
    """
    chosen = plan(
        bs_kib=inputs.bs_kib, bw_mib_s=inputs.bw_mib_s, read_pct=inputs.read_pct,
        lat_slo_ms=inputs.lat_slo_ms, levels=list(inputs.levels),
        vm_sizes=[inputs.vm_size] if inputs.vm_size else None, nconnect=inputs.nconnect,
    )  # fmt: skip
    figures = {
        "quota": quota_vs_throughput(
            target_mib_s=chosen.bw_mib_s, bs_kib=inputs.bs_kib, level=chosen.level,
            quota_tib=chosen.quota_tib, read_pct=inputs.read_pct,
            volume_type=chosen.volume_type, levels=inputs.levels,
        ),
        "clients": clients_vs_throughput(
            vm_size=chosen.vm_size, target_mib_s=chosen.bw_mib_s, bs_kib=inputs.bs_kib,
            read_pct=inputs.read_pct, pattern=inputs.pattern, nconnect=inputs.nconnect,
            volume_limit_mib_s=chosen.throughput_limit_mib_s,
            max_vms=max(8, 2 * chosen.vm_count),
        ),
    }  # fmt: skip
    if curve is not None:
        figures["threads"] = threads_vs_latency(
            curve, lat_slo_ms=inputs.lat_slo_ms, source=source or "a sweep",
            threads_planned=chosen.threads_per_vm,
        )  # fmt: skip
    return PlanView(inputs, chosen, figures)


class PlannerApp:
    """The capacity planner: inputs -> plan, reasoning and charts, redrawn on every change.

    Parameters
    ----------
    inputs : PlanInputs
        Starting values.
    curve : FitResult, optional
        USL fit for the threads-vs-latency chart.
    source : str
        Name of the curve's data.
    """

    def __init__(self, inputs: PlanInputs, *, curve: FitResult | None = None, source: str = ""):
        self.inputs = inputs
        self.curve = curve
        self.source = source
        self.view: PlanView | None = None
        self.error: str | None = None
        self._outputs = None

    def update(self, **changes) -> PlanView | None:
        """Apply changes to the inputs (field names of :class:`PlanInputs`) and re-plan.

        A change to ``target_mib_s`` clears ``target_iops`` and the other way round. An
        impossible target keeps the inputs and sets :attr:`error` (the plan's reason) instead
        of raising: in an interactive session the user just moves a control back.

        Returns
        -------
        PlanView or None
            The new plan view, None when there is no plan (see :attr:`error`).
        """
        if "target_mib_s" in changes and changes["target_mib_s"] is not None:
            changes.setdefault("target_iops", None)
        if "target_iops" in changes and changes["target_iops"] is not None:
            changes.setdefault("target_mib_s", None)
        if "levels" in changes:
            changes["levels"] = tuple(changes["levels"])
        try:
            self.inputs = dataclasses.replace(self.inputs, **changes)
            self.view = plan_view(self.inputs, curve=self.curve, source=self.source)
            self.error = None
        except (AnfperfError, ModelError) as exc:
            self.view, self.error = None, str(exc)
        self._render()
        return self.view

    def widget(self):
        """ipywidgets controls and outputs for JupyterLab; every change calls :meth:`update`.

        Returns None in a batch report (``ANFPERF_BATCH`` set by :mod:`anfperf.report`): a
        static HTML page has no kernel for the controls to talk to.
        """
        if os.environ.get("ANFPERF_BATCH"):
            return None
        import ipywidgets as w

        i = self.inputs
        kind = "IOPS" if i.target_iops is not None else "MiB/s"
        controls = {
            "kind": w.ToggleButtons(options=["MiB/s", "IOPS"], value=kind, description="Target"),
            "target": w.FloatText(value=i.target_iops or i.target_mib_s, description="Value"),
            "bs_kib": w.Dropdown(options=BLOCK_SIZES_KIB, value=int(i.bs_kib),
                                 description="Block KiB"),
            "read_pct": w.IntSlider(value=int(i.read_pct), min=0, max=100, step=10,
                                    description="Read %"),
            "lat_slo_ms": w.FloatText(value=i.lat_slo_ms, description="SLO ms"),
            "levels": w.SelectMultiple(options=LEVELS, value=tuple(i.levels),
                                       description="Levels"),
        }  # fmt: skip
        outputs = [w.Output() for _ in range(4)]
        self._outputs = outputs

        def changed(_=None):
            value = float(controls["target"].value)
            target = {"target_iops": value} if controls["kind"].value == "IOPS" else {
                "target_mib_s": value}  # fmt: skip
            self.update(
                **target, bs_kib=float(controls["bs_kib"].value),
                read_pct=float(controls["read_pct"].value),
                lat_slo_ms=float(controls["lat_slo_ms"].value),
                levels=controls["levels"].value,
            )  # fmt: skip

        for control in controls.values():
            control.observe(changed, names="value")
        changed()
        return w.VBox([w.HBox(list(controls.values())[:3]), w.HBox(list(controls.values())[3:]),
                       *outputs])  # fmt: skip

    def _render(self) -> None:
        if self._outputs is None:
            return  # no widgets: nothing to redraw (tests, papermill)
        from IPython.display import Markdown, display

        for out in self._outputs:
            out.clear_output(wait=True)
        with self._outputs[0]:
            if self.view is None:
                display(Markdown(f"**No plan:** {self.error}"))
                return
            display(Markdown(self.view.summary()))
            display(self.view.reasoning)
        for out, fig in zip(self._outputs[1:], self.view.figures.values(), strict=False):
            with out:
                fig.show()
