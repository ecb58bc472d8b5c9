"""What the volume saw: client vs server throughput and latency per server grain."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from anfperf.errors import AnfperfError
from anfperf.plots._style import (
    COLORWAY,
    LIMIT_COLOR,
    TEMPLATE,
    plot_text,
    require_rows,
    subtitle,
)

__all__ = ["client_server_chart"]

#: Colour of each side: the clients (the benchmark) and the server (the volume's metrics).
SIDE_COLORS = {"client": COLORWAY[0], "server": COLORWAY[1]}
RUN_COLOR = "rgba(0, 114, 178, 0.12)"  # the run's time span, shaded
_NEEDED = {"grain_start", "grain_end", "direction", "client_bw_mib_s", "server_bw_mib_s",
           "client_lat_ms", "server_lat_ms"}  # fmt: skip


def client_server_chart(
    joined: pd.DataFrame,
    *,
    direction: str = "total",
    subject: str = "",
    note: str = "",
    window: tuple[pd.Timestamp, pd.Timestamp] | None = None,
) -> go.Figure:
    """Throughput [MiB/s] and mean latency [ms] per server grain, as the clients and as the
    volume measured them: two panels sharing the time axis.

    Parameters
    ----------
    joined : pandas.DataFrame
        :func:`anfperf.analysis.server_metrics.join_client_server`'s frame.
    direction : str
        'total', 'read' or 'write'.
    subject : str
        What was measured (run ids), for the title.
    note : str
        A line under the title (e.g. that the grain is too coarse for the run).
    window : (Timestamp, Timestamp), optional
        The run's start and end [UTC], shaded: how much of each grain the run filled.

    Returns
    -------
    plotly.graph_objects.Figure
        A step per grain (its value held from its start to its end: an average over it) and a
        line per side.

    Raises
    ------
    anfperf.AnfperfError
        Not a join's frame, or no grain of `direction`.
    """
    missing = _NEEDED - set(joined.columns)
    if missing:
        raise AnfperfError(f"not a client/server join: it lacks the column(s) {sorted(missing)}")
    rows = require_rows(
        joined[joined["direction"] == direction], f"no {direction} grain of the volume's metrics"
    )
    rows = rows.sort_values("grain_start")
    # each value held over its grain: x the grains' starts and the last one's end
    x = [*rows["grain_start"], rows["grain_end"].iloc[-1]]
    spans = np.column_stack(
        [rows["grain_start"].dt.strftime("%H:%M:%S"), rows["grain_end"].dt.strftime("%H:%M:%S")]
    )
    spans = np.vstack([spans, spans[-1:]])
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1,
        subplot_titles=["Throughput", "Mean latency"],
    )  # fmt: skip
    panels = (("bw_mib_s", "MiB/s", "%{y:,.4~g} MiB/s", 1), ("lat_ms", "ms", "%{y:.4~g} ms", 2))
    for column, _unit, value, row in panels:
        for side, color in SIDE_COLORS.items():
            y = rows[f"{side}_{column}"].to_numpy(float)
            fig.add_scatter(
                x=x, y=[*y, y[-1]], mode="lines+markers", line_shape="hv",
                name=f"{side} ({'benchmark' if side == 'client' else 'volume metrics'})",
                legendgroup=side, showlegend=row == 1, line={"color": color, "width": 2},
                marker={"size": 7}, customdata=spans,
                hovertemplate=f"{side}, grain %{{customdata[0]}}-%{{customdata[1]}} UTC: "
                f"{value}<extra></extra>",
                row=row, col=1,
            )  # fmt: skip
    if window is not None:
        for row in (1, 2):
            fig.add_vrect(
                x0=window[0], x1=window[1], fillcolor=RUN_COLOR, line_width=0, layer="below",
                row=row, col=1,
            )  # fmt: skip
        fig.add_annotation(
            x=window[1], xref="x", xanchor="left", y=0.02, yref="y domain", yanchor="bottom",
            text=" the run (shaded)", showarrow=False, font={"color": LIMIT_COLOR},
        )  # fmt: skip
    for _column, unit, _value, row in panels:
        fig.update_yaxes(
            title_text=f"{'Throughput' if row == 1 else 'Latency'} [{unit}]",
            rangemode="tozero", row=row, col=1,
        )  # fmt: skip
    fig.update_xaxes(title_text="Time [UTC]", row=2, col=1)
    title = f"Client vs volume, {direction}" + (f": {subject}" if subject else "")
    fig.update_layout(
        template=TEMPLATE, title={"text": plot_text(title)}, height=560,
        legend={"title": {"text": "measured by"}},
    )  # fmt: skip
    subtitle(fig, note)
    return fig
