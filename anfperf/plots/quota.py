"""Measured throughput against the ANF bandwidth model: quota x service level, capped.

One chart answers "is the volume what limits us?": the throughput each service level allows at
each quota, the volume caps, and where the run measured sits, with the binding constraint named
as :func:`anfperf.findings.quota_check` works it out (so chart and report text agree).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from anfperf import findings
from anfperf.errors import ModelError
from anfperf.models import quota as q
from anfperf.plots._style import COLORWAY, LIMIT_COLOR, SLO_COLOR, figure

DEFAULT_LEVELS = ("Standard", "Premium", "Ultra", "Flexible")
GRID_POINTS = 120


def quota_model(
    *,
    quota_tib: float,
    level: str,
    bs_kib: float,
    measured_bw_mib_s: float | None = None,
    measured_label: str = "measured",
    read_pct: float = 100.0,
    volume_type: str = "regular",
    vm_size: str | None = None,
    vm_count: int = 1,
    levels: Sequence[str] = DEFAULT_LEVELS,
) -> go.Figure:
    """Throughput against volume quota per service level, with the run's operating point.

    Parameters
    ----------
    quota_tib : float
        Quota of the volume measured [TiB].
    level : str
        Its service level.
    bs_kib, read_pct, volume_type, vm_size, vm_count
        The scenario, as in :func:`anfperf.findings.quota_check`.
    measured_bw_mib_s : float, optional
        Throughput measured [MiB/s]; None draws the model alone.
    measured_label : str
        Name of the measured point (run / job).
    levels : sequence of str
        Levels drawn. 'Flexible' is drawn as the most a capacity pool of that size can hand out
        (its throughput is bought, not tied to the quota).

    Raises
    ------
    anfperf.ModelError
        Unknown level or volume type, or a quota outside the type's range.
    """
    lo, hi = q.volume_size_range(level, volume_type)
    if not lo <= quota_tib <= hi:
        raise ModelError(f"quota_tib {quota_tib:g} outside the {volume_type} range {lo:g}..{hi:g}")
    grid = np.geomspace(lo, hi, GRID_POINTS)
    fig = figure(
        f"Throughput vs quota ({volume_type} volume, {bs_kib:g} KiB, {read_pct:g} % read)",
        "Volume quota [TiB]",
        "Throughput [MiB/s]",
    )
    caps: dict[float, list[str]] = {}
    for i, name in enumerate(levels):
        color = COLORWAY[i % len(COLORWAY)]
        width = 3 if q.level_name(name) == q.level_name(level) else 1.5
        if q.level_name(name) == "Flexible":
            y = q.pool_throughput_limit(grid, "Flexible")
            label = "Flexible (most a pool of this size offers)"
            dash = "dashdot"
        else:
            y = q.throughput_limit(grid, name, volume_type)
            caps.setdefault(q.volume_type_cap(name, volume_type), []).append(q.level_name(name))
            label = f"{q.level_name(name)} ({q.level_rate(name):g} MiB/s per TiB)"
            dash = "solid"
        fig.add_scatter(
            x=grid, y=y, mode="lines", name=label, line={"color": color, "width": width,
                                                         "dash": dash},
            hovertemplate=f"{q.level_name(name)}: %{{y:,.0f}} MiB/s at %{{x:.3g}} TiB<extra></extra>",
        )  # fmt: skip
    for cap, names in sorted(caps.items()):
        fig.add_hline(y=cap, line={"color": LIMIT_COLOR, "dash": "dash", "width": 1})
        # line annotations misplace on log axes: place them by hand (log10 of the value)
        fig.add_annotation(
            x=0.01, xref="paper", y=np.log10(cap), yref="y", xanchor="left", yanchor="bottom",
            text=f"{volume_type} volume cap {cap:,.0f} MiB/s ({', '.join(names)})",
            showarrow=False, font={"color": LIMIT_COLOR, "size": 11},
        )  # fmt: skip
    fig.add_vline(x=quota_tib, line={"color": LIMIT_COLOR, "dash": "dot", "width": 1})
    fig.add_annotation(
        x=np.log10(quota_tib), xref="x", y=0.0, yref="paper", xanchor="left", yanchor="bottom",
        text=f" quota {quota_tib:g} TiB", showarrow=False, font={"color": LIMIT_COLOR, "size": 11},
    )  # fmt: skip
    if measured_bw_mib_s is not None:
        check = findings.quota_check(
            measured_bw_mib_s, bs_kib=bs_kib, level=level, quota_tib=quota_tib,
            read_pct=read_pct, volume_type=volume_type, vm_size=vm_size, vm_count=vm_count,
        )  # fmt: skip
        fig.add_scatter(
            x=[quota_tib], y=[measured_bw_mib_s], mode="markers", name=measured_label,
            marker={"symbol": "star", "size": 16, "color": SLO_COLOR,
                    "line": {"color": "#333", "width": 1}},
            hovertemplate=f"{measured_label}: %{{y:,.1f}} MiB/s<extra></extra>",
        )  # fmt: skip
        fig.add_scatter(
            x=[quota_tib], y=[check["predicted_bw_mib_s"]], mode="markers",
            name=f"model: {check['predicted_bw_mib_s']:,.1f} MiB/s",
            marker={"symbol": "circle-open", "size": 14, "color": "#333", "line": {"width": 2}},
            hovertemplate="model: %{y:,.1f} MiB/s<extra></extra>",
        )  # fmt: skip
        fig.update_layout(
            title_text=(
                f"{fig.layout.title.text}<br><sup>binding: {check['binding']} "
                f"({check['detail']}); measured {check['share_pct']:.0f} % of it</sup>"
            )
        )
    # log axes: a 50 GiB and a 100 TiB volume on one chart; explicit range (the lines'
    # annotations would otherwise stretch it)
    fig.update_xaxes(type="log", range=[np.log10(lo), np.log10(hi)])
    fig.update_yaxes(type="log")
    fig.update_layout(margin={"t": 80})
    return fig
