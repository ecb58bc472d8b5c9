"""Run A vs run B: the difference of each workload and metric with its confidence interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from anfperf.compare import METRICS
from anfperf.plots._style import (
    BETTER_COLOR,
    LIMIT_COLOR,
    SAME_COLOR,
    TEMPLATE,
    WORSE_COLOR,
    require_rows,
)

VERDICT_COLORS = {
    "better": BETTER_COLOR,
    "worse": WORSE_COLOR,
    "no significant difference": SAME_COLOR,
    "insufficient data": LIMIT_COLOR,
}


def compare_chart(table: pd.DataFrame, *, run_a: str = "A", run_b: str = "B") -> go.Figure:
    """One panel per metric: each workload's difference of B from A [%] with its interval.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`anfperf.compare.compare_runs`'s table.
    run_a, run_b : str
        Names of the runs, for the title and axis.

    Raises
    ------
    anfperf.AnfperfError
        An empty table.
    """
    require_rows(table, "no workload compared")
    metrics = list(dict.fromkeys(table["metric"]))
    workloads = list(dict.fromkeys(table["workload"]))
    fig = make_subplots(
        rows=1, cols=len(metrics), shared_yaxes=True, horizontal_spacing=0.04,
        subplot_titles=[METRICS[m][0] for m in metrics],
    )  # fmt: skip
    shown = set()
    for col, metric in enumerate(metrics, start=1):
        rows = table[table["metric"] == metric].set_index("workload").reindex(workloads)
        for verdict, color in VERDICT_COLORS.items():
            part = rows[rows["verdict"] == verdict]
            if part.empty:
                continue
            x = part["diff_pct"].to_numpy(float)
            fig.add_scatter(
                x=x, y=part.index.to_list(), mode="markers", name=verdict, legendgroup=verdict,
                showlegend=verdict not in shown, marker={"color": color, "size": 11},
                error_x={"type": "data", "symmetric": False, "color": color, "thickness": 2,
                         "array": np.nan_to_num(part["ci_high_pct"].to_numpy(float) - x),
                         "arrayminus": np.nan_to_num(x - part["ci_low_pct"].to_numpy(float))},
                customdata=np.column_stack([part["a_mean"], part["b_mean"],
                                            part["ci_low_pct"], part["ci_high_pct"]]),
                hovertemplate=(
                    f"%{{y}}: {METRICS[metric][0]}<br>A %{{customdata[0]:,.3~f}} -> "
                    "B %{customdata[1]:,.3~f}<br>%{x:+.1f} % "
                    "(%{customdata[2]:+.1f} .. %{customdata[3]:+.1f} %)<extra>"
                    f"{verdict}</extra>"
                ),
                row=1, col=col,
            )  # fmt: skip
            shown.add(verdict)
        fig.add_vline(x=0, line={"color": LIMIT_COLOR, "width": 1}, row=1, col=col)
        fig.update_xaxes(title_text=f"{run_b} vs {run_a} [%]", row=1, col=col)
    fig.update_layout(
        template=TEMPLATE,
        title={"text": f"Difference of {run_b} from {run_a}, with confidence intervals"},
        height=max(360, 160 + 60 * len(workloads)),
        legend={"orientation": "h", "x": 1.0, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
        margin={"t": 90},
    )
    fig.update_yaxes(title_text="Workload", row=1, col=1, autorange="reversed")
    return fig
