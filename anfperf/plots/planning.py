"""What-if charts of a capacity plan: quota per level, client VMs, threads against latency."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from anfperf.errors import ModelError
from anfperf.models import curves
from anfperf.models.client import client_constraints
from anfperf.models.quota import quota_needed
from anfperf.plots._style import (
    COLORWAY,
    LIMIT_COLOR,
    MODEL_COLOR,
    SLO_COLOR,
    figure,
)
from anfperf.plots.quota import DEFAULT_LEVELS, quota_model


def _target_line(fig: go.Figure, target_mib_s: float, *, log: bool = False) -> None:
    fig.add_hline(y=target_mib_s, line={"color": SLO_COLOR, "dash": "dash", "width": 1.5})
    fig.add_annotation(
        x=0.99, xref="paper", y=math.log10(target_mib_s) if log else target_mib_s, yref="y",
        xanchor="right", yanchor="bottom", showarrow=False, font={"color": SLO_COLOR},
        text=f"target {target_mib_s:,.0f} MiB/s",
    )  # fmt: skip


def quota_vs_throughput(
    *,
    target_mib_s: float,
    bs_kib: float,
    level: str,
    quota_tib: float,
    read_pct: float = 100.0,
    volume_type: str = "regular",
    levels: Sequence[str] = DEFAULT_LEVELS,
) -> go.Figure:
    """Throughput against quota per level, the target, and the quota each level needs for it.

    The chosen plan's volume (`level`, `quota_tib`) is marked as in
    :func:`anfperf.plots.quota_model`; a marker on each level's line shows the smallest quota
    that meets the target (none where the level's cap is below it).
    """
    fig = quota_model(
        quota_tib=quota_tib, level=level, bs_kib=bs_kib, read_pct=read_pct,
        volume_type=volume_type, levels=levels,
    )  # fmt: skip
    fig.update_layout(title_text=f"What quota meets {target_mib_s:,.0f} MiB/s, per level")
    _target_line(fig, target_mib_s, log=True)
    for i, name in enumerate(levels):
        if name.lower() == "flexible":
            continue
        try:
            need = float(quota_needed(target_mib_s, name, volume_type))
        except ModelError:
            continue  # the level's cap is below the target
        fig.add_scatter(
            x=[need], y=[target_mib_s], mode="markers", showlegend=False,
            marker={"symbol": "circle", "size": 10, "color": COLORWAY[i % len(COLORWAY)],
                    "line": {"color": "#333", "width": 1}},
            hovertemplate=f"{name}: {need:.3g} TiB for the target<extra></extra>",
        )  # fmt: skip
    return fig


def clients_vs_throughput(
    *,
    vm_size: str,
    target_mib_s: float,
    bs_kib: float,
    read_pct: float = 100.0,
    pattern: str | None = None,
    nconnect: int = 8,
    volume_limit_mib_s: float | None = None,
    max_vms: int = 16,
) -> go.Figure:
    """Most throughput 1..`max_vms` client VMs of a size can drive, per client constraint.

    One line per client constraint of :func:`anfperf.models.client_constraints` (network
    egress for the writes, the NFS connection ceiling observed per client); the volume's limit
    and the target as horizontal lines.
    """
    counts = np.arange(1, int(max_vms) + 1)
    rows = [client_constraints(vm_size, int(n), bs_kib=bs_kib, read_pct=read_pct,
                               pattern=pattern, nconnect=nconnect) for n in counts]  # fmt: skip
    fig = figure(
        f"Client VMs ({vm_size}) vs throughput, {bs_kib:g} KiB, {read_pct:g} % read",
        "Client VMs", "Throughput [MiB/s]",
    )  # fmt: skip
    names = list(dict.fromkeys(rows[0]["constraint"]))
    for i, name in enumerate(names):
        y = np.array([float(r.loc[r["constraint"] == name, "bw_mib_s"].iloc[0]) for r in rows])
        if not np.isfinite(y).any():
            continue  # e.g. egress with no writes: no limit to draw
        fig.add_scatter(
            x=counts, y=y, mode="lines+markers", name=name,
            line={"color": COLORWAY[i % len(COLORWAY)]},
            hovertemplate=f"{name}: %{{y:,.0f}} MiB/s with %{{x}} VMs<extra></extra>",
        )  # fmt: skip
    if volume_limit_mib_s is not None:
        fig.add_hline(y=volume_limit_mib_s, line={"color": LIMIT_COLOR, "dash": "dot"})
        fig.add_annotation(
            x=0.01, xref="paper", y=volume_limit_mib_s, yref="y", xanchor="left",
            yanchor="bottom", showarrow=False, font={"color": LIMIT_COLOR},
            text=f"volume limit {volume_limit_mib_s:,.0f} MiB/s",
        )  # fmt: skip
    _target_line(fig, target_mib_s)
    fig.update_xaxes(dtick=1 if max_vms <= 16 else None)
    fig.update_layout(showlegend=True, yaxis_rangemode="tozero")
    return fig


def threads_vs_latency(
    curve: Mapping[str, float],
    *,
    lat_slo_ms: float,
    source: str,
    threads_planned: int | None = None,
    max_threads: int | None = None,
) -> go.Figure:
    """Latency and throughput against concurrency from a fitted USL curve.

    Parameters
    ----------
    curve : mapping
        USL parameters (lam, sigma, kappa) from :func:`anfperf.models.fit_usl`.
    lat_slo_ms : float
        Latency objective [ms]: marked, with the concurrency where the curve reaches it.
    source : str
        Where the curve comes from (named in the title: a curve only holds for what it measured).
    threads_planned : int, optional
        The plan's outstanding I/O, marked.
    max_threads : int, optional
        Right end of the axis; default: past the SLO point or 128.
    """
    at_slo = float(curves.usl_concurrency_at_latency(lat_slo_ms, **curve))
    top = max_threads or int(max(128, 1.5 * at_slo if math.isfinite(at_slo) else 0,
                                 threads_planned or 0))  # fmt: skip
    n = np.unique(np.geomspace(1, top, 200).round())
    lat = np.asarray(curves.usl_latency_ms(n, **curve), float)
    rate = np.asarray(curves.usl(n, **curve), float)
    fig = figure(
        f"Threads vs latency (USL fitted on {source})", "Outstanding I/O [threads]",
        "Mean latency [ms]",
    )  # fmt: skip
    fig.add_scatter(
        x=n, y=lat, mode="lines", name="latency (USL)", line={"color": MODEL_COLOR, "width": 2},
        customdata=rate, hovertemplate="%{x:.0f} threads: %{y:.3f} ms, %{customdata:,.0f} IOPS"
        "<extra></extra>",
    )  # fmt: skip
    fig.add_scatter(
        x=n, y=rate, mode="lines", name="throughput (USL) [IOPS]", yaxis="y2",
        line={"color": COLORWAY[0], "dash": "dot"},
        hovertemplate="%{x:.0f} threads: %{y:,.0f} IOPS<extra></extra>",
    )  # fmt: skip
    fig.update_layout(
        yaxis2={"title": "Throughput [IOPS]", "overlaying": "y", "side": "right",
                "showgrid": False, "rangemode": "tozero"},
        legend={"x": 0.02, "y": 0.98, "xanchor": "left"},
    )  # fmt: skip
    fig.add_hline(y=lat_slo_ms, line={"color": SLO_COLOR, "dash": "dash", "width": 1.5})
    if math.isfinite(at_slo):
        fig.add_scatter(
            x=[at_slo], y=[lat_slo_ms], mode="markers+text", name="SLO reached",
            text=[f"{at_slo:.0f} threads at {lat_slo_ms:g} ms"], textposition="top left",
            marker={"color": SLO_COLOR, "size": 11, "symbol": "diamond"},
            hovertemplate="SLO reached at %{x:.0f} threads<extra></extra>",
        )  # fmt: skip
    if threads_planned:
        fig.add_vline(x=threads_planned, line={"color": LIMIT_COLOR, "dash": "dot"})
        fig.add_annotation(
            x=math.log10(threads_planned), xref="x", y=1.0, yref="paper", showarrow=False,
            xanchor="left", yanchor="top", text=f" plan: {threads_planned} threads",
            font={"color": LIMIT_COLOR},
        )  # fmt: skip
    fig.update_xaxes(type="log")
    # latency axis only (update_yaxes would also fix the throughput axis)
    fig.update_layout(yaxis_range=[0, 3 * lat_slo_ms])
    return fig
