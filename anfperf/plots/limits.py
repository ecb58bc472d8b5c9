"""A known limit of the volume or its clients drawn on a chart: a line, its legend entry and
its words (the latency, scaling, mix and block-size charts draw it alike)."""

from __future__ import annotations

import plotly.graph_objects as go

from anfperf.models.forecast.known import KnownLimits
from anfperf.plots._style import SLO_COLOR, plot_text, rule
from anfperf.units import KIB_PER_MIB

__all__ = ["add_limit_line", "limit_label", "limit_name"]


def limit_name(known: KnownLimits) -> str:
    """The limit's name without how it was worked out: 'volume quota'."""
    return (known.limit or "known limit").split(":")[0]


def limit_label(known: KnownLimits) -> str:
    """The known limit in words: 'volume quota 1,280 MiB/s = 327,680 IOPS at 4 KiB'."""
    bs_kib = known.bw_mib_s / known.iops_max * KIB_PER_MIB
    bw = f"{known.bw_mib_s:,.0f}" if known.bw_mib_s >= 10 else f"{known.bw_mib_s:.3g}"
    return f"{limit_name(known)} {bw} MiB/s = {known.iops_max:,.0f} IOPS at {bs_kib:g} KiB"


def add_limit_line(
    fig: go.Figure,
    value: float,
    known: KnownLimits,
    *,
    horizontal: bool,
    span: tuple[float, float],
    label: str | None = None,
) -> None:
    """The known limit at `value` (in the axis's unit) as a line, a legend entry and a label.

    `span`: where along the other axis the line's trace runs (its hover and legend entry);
    `label`: the words on the line (default :func:`limit_label`: the limit in MiB/s and IOPS).

    Horizontal (throughput): the whole label above the line, 'known limit' in the legend.
    Vertical (latency): the whole label in the legend, the limit's name and rate beside the
    line, past it, where nothing else is drawn (no load past a limit is sustained).
    """
    label = plot_text(label or limit_label(known))
    tip = f"{label}<br>{plot_text(known.limit or '')}<extra></extra>"
    line = {"color": SLO_COLOR, "width": 2, "dash": "dashdot"}
    if horizontal:
        rule(fig, y=value, color=SLO_COLOR, dash="dashdot", width=2)
        # a trace too: the legend names the line, and its hover says how it was worked out
        fig.add_scatter(x=list(span), y=[value, value], mode="lines", line=line,
                        name="known limit", hovertemplate=tip, meta={"limit": value})  # fmt: skip
        fig.add_annotation(
            x=0.0, xref="paper", xanchor="left", y=value, yref="y", yanchor="bottom",
            text=label, showarrow=False, font={"color": SLO_COLOR},
        )  # fmt: skip
        return
    rule(fig, x=value, color=SLO_COLOR, dash="dashdot", width=2)
    fig.add_scatter(x=[value, value], y=list(span), mode="lines", line=line,
                    name=f"limit: {label}", hovertemplate=tip, meta={"limit": value})  # fmt: skip
    unit = "IOPS" if value == known.iops_max else "MiB/s"
    fig.add_annotation(
        x=value, xref="x", xanchor="left", y=0.5, yref="paper", yanchor="middle",
        textangle=-90, showarrow=False, font={"color": SLO_COLOR},
        text=f"{plot_text(limit_name(known))} {value:,.0f} {unit}",
    )  # fmt: skip
