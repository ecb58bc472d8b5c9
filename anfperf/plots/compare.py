"""Run A vs run B: the difference of each workload and metric with its confidence interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from anfperf.analysis.compare import METRICS
from anfperf.errors import AnfperfError
from anfperf.plots._style import (
    BETTER_COLOR,
    LIMIT_COLOR,
    SAME_COLOR,
    TEMPLATE,
    WORSE_COLOR,
    plot_text,
    require_rows,
)

#: Marker colour of each verdict of :func:`anfperf.analysis.compare.compare_runs`.
VERDICT_COLORS = {
    "better": BETTER_COLOR,
    "worse": WORSE_COLOR,
    "no significant difference": SAME_COLOR,
    "insufficient data": LIMIT_COLOR,
}
_NEEDED = {"workload", "metric", "diff_pct", "ci_low_pct", "ci_high_pct", "verdict"}


def compare_chart(table: pd.DataFrame, *, run_a: str = "A", run_b: str = "B") -> go.Figure:
    """One panel per metric: each workload's difference of B from A [%] with its interval.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`anfperf.analysis.compare.compare_runs`'s table.
    run_a, run_b : str
        Names of the runs, for the title and axis.

    Returns
    -------
    plotly.graph_objects.Figure
        Workloads on the y axis (shared by the panels), the difference [%] on each panel's x
        axis with the confidence interval as error bars, one trace per verdict coloured by
        :data:`VERDICT_COLORS` ('insufficient data': open markers, no error bars).

    Raises
    ------
    anfperf.AnfperfError
        An empty table, or one without compare_runs' columns.
    """
    missing = _NEEDED - set(table.columns)
    if missing:
        raise AnfperfError(f"not a compare_runs table: it lacks the column(s) {sorted(missing)}")
    require_rows(table, "no workload compared")
    # the runs' names are chart text from here on: shown as written
    run_a, run_b = plot_text(run_a), plot_text(run_b)
    metrics = list(dict.fromkeys(table["metric"]))
    # workloads are job names the tool wrote: tick labels and hover text, shown as written
    table = table.assign(workload=[plot_text(w) for w in table["workload"]])
    workloads = list(dict.fromkeys(table["workload"]))
    fig = make_subplots(
        rows=1, cols=len(metrics), shared_yaxes=True, horizontal_spacing=0.04,
        subplot_titles=[METRICS[m][0] if m in METRICS else m for m in metrics],
    )  # fmt: skip
    shown: set[str] = set()
    for col, metric in enumerate(metrics, start=1):
        rows = table[table["metric"] == metric]
        for verdict, color in VERDICT_COLORS.items():
            part = rows[rows["verdict"] == verdict]
            if part.empty:
                continue
            x = part["diff_pct"].to_numpy(float)
            open_marker = verdict == "insufficient data"
            fig.add_scatter(
                x=x, y=part["workload"].to_list(), mode="markers", name=verdict,
                legendgroup=verdict, showlegend=verdict not in shown,
                marker={"color": color, "size": 11,
                        "symbol": "circle-open" if open_marker else "circle"},
                # no interval: NaN ends; nan_to_num draws them as zero-length bars
                error_x={"type": "data", "symmetric": False, "color": color, "thickness": 2,
                         "array": np.nan_to_num(part["ci_high_pct"].to_numpy(float) - x),
                         "arrayminus": np.nan_to_num(x - part["ci_low_pct"].to_numpy(float))},
                customdata=np.column_stack([
                    part.get("a_mean", pd.Series(np.nan, part.index)).to_numpy(float),
                    part.get("b_mean", pd.Series(np.nan, part.index)).to_numpy(float),
                    part["ci_low_pct"].to_numpy(float), part["ci_high_pct"].to_numpy(float),
                ]),
                hovertemplate=(
                    f"%{{y}}: {METRICS.get(metric, (metric,))[0]}<br>{run_a} "
                    f"%{{customdata[0]:,.4~g}} -> {run_b} %{{customdata[1]:,.4~g}}<br>"
                    "%{x:+.1f} % (%{customdata[2]:+.1f} .. %{customdata[3]:+.1f} %)"
                    f"<extra>{verdict}</extra>"
                ),
                row=1, col=col,
            )  # fmt: skip
            shown.add(verdict)
        fig.add_vline(x=0, line={"color": LIMIT_COLOR, "width": 1}, row=1, col=col)
        # short: the figure title says "difference"; three long titles would run together
        fig.update_xaxes(title_text=f"{run_b} vs {run_a} [%]", row=1, col=col)
    fig.update_layout(
        template=TEMPLATE,
        title={"text": f"{run_b} vs {run_a}: difference per workload, with confidence intervals"},
        height=max(360, 160 + 60 * len(workloads)),
        legend={"title": {"text": f"{run_b} is"}},
        margin={"t": 90},
    )
    # workloads top to bottom in the table's order, on every panel
    fig.update_yaxes(categoryorder="array", categoryarray=workloads[::-1])
    fig.update_yaxes(title_text="Workload", row=1, col=1)
    return fig
