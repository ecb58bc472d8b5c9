"""One look for every anfperf chart: the plotly template, colours and hover text.

Chart modules build figures with :func:`figure` and label points with :func:`hover`, so that
every chart has the same fonts, colours, margins and hover fields (run, host, job, step).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from anfperf.errors import AnfperfError

#: Name under which the template is registered in :data:`plotly.io.templates`.
TEMPLATE = "anfperf"

#: Colours of the data series (colour-blind safe, Okabe-Ito order).
COLORWAY = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
)  # fmt: skip
#: Colours with a fixed meaning on every chart.
MODEL_COLOR = "#444444"  # fitted or modelled curves
BAND_COLOR = "rgba(68, 68, 68, 0.18)"  # their uncertainty band
SLO_COLOR = "#D55E00"  # latency objectives and limits that bind
LIMIT_COLOR = "#7F7F7F"  # limits that do not bind
WARMUP_COLOR = "rgba(127, 127, 127, 0.15)"  # shaded warm-up intervals
BETTER_COLOR, WORSE_COLOR, SAME_COLOR = "#009E73", "#D55E00", "#7F7F7F"

#: Hover fields that identify a measured point, in the order shown.
ID_FIELDS = ("run_id", "host", "job", "step")


def _template() -> go.layout.Template:
    base = pio.templates["plotly_white"]
    template = go.layout.Template(base)
    template.layout.update(
        colorway=list(COLORWAY),
        font={"family": "Arial, Helvetica, sans-serif", "size": 13},
        title={"x": 0.0, "xanchor": "left", "font": {"size": 16}},
        margin={"l": 70, "r": 30, "t": 60, "b": 60},
        hovermode="closest",
        legend={"bgcolor": "rgba(255,255,255,0.7)"},
    )
    template.layout.xaxis.update(showline=True, linecolor="#888", ticks="outside", zeroline=False)
    template.layout.yaxis.update(showline=True, linecolor="#888", ticks="outside", zeroline=False)
    return template


pio.templates[TEMPLATE] = _template()


def figure(title: str, x_title: str, y_title: str, *, height: int = 450) -> go.Figure:
    """An empty figure in the anfperf look.

    Parameters
    ----------
    title : str
        Chart title.
    x_title, y_title : str
        Axis titles, units in brackets: ``"Latency [ms]"``.
    height : int
        Height [px].
    """
    fig = go.Figure()
    fig.update_layout(
        template=TEMPLATE,
        title={"text": title},
        xaxis_title=x_title,
        yaxis_title=y_title,
        height=height,
    )
    return fig


def hover(rows: pd.DataFrame, lines: Sequence[tuple[str, str]] = ()) -> tuple[np.ndarray, str]:
    """``customdata`` and ``hovertemplate`` naming run, host, job and step of each point.

    Parameters
    ----------
    rows : pandas.DataFrame
        The plotted rows (tidy-frame columns; missing identity columns are left out).
    lines : sequence of (str, str)
        Further hover lines as (label, plotly format of a trace field), e.g.
        ``("IOPS", "%{y:,.0f}")``.

    Returns
    -------
    (numpy.ndarray, str)
        Pass as ``customdata=`` and ``hovertemplate=`` to a trace.
    """
    fields = [f for f in ID_FIELDS if f in rows.columns]
    data = np.column_stack(
        [rows[f].astype(object).where(rows[f].notna(), "-").to_numpy() for f in fields]
    ) if fields else np.empty((len(rows), 0))  # fmt: skip
    text = [f"{f}: %{{customdata[{i}]}}" for i, f in enumerate(fields)]
    text += [f"{label}: {fmt}" for label, fmt in lines]
    return data, "<br>".join(text) + "<extra></extra>"


def require_rows(rows: pd.DataFrame, what: str) -> pd.DataFrame:
    """`rows`, or an :class:`~anfperf.errors.AnfperfError` saying what the chart lacks."""
    if rows.empty:
        raise AnfperfError(f"nothing to plot: {what}")
    return rows
