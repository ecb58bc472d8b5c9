"""One look for every anfperf chart: the plotly template, colours and hover text.

Chart modules build figures with :func:`figure` and label points with :func:`hover`, so that
every chart has the same fonts, colours, margins and hover fields (run, host, job, step).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from anfperf.errors import AnfperfError
from anfperf.models.limits.plan import sized_in_mib_s

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


#: plotly_white's axis look (gridlines, automargin), the base of ours.
_PLOTLY_WHITE_AXIS = {
    "gridcolor": "#EBF0F8", "linecolor": "#EBF0F8", "ticks": "", "title": {"standoff": 15},
    "zerolinecolor": "#EBF0F8", "automargin": True, "zerolinewidth": 2,
}  # fmt: skip


def _template() -> go.layout.Template:
    # plotly_white's look, with only the parts these charts use: a template is validated each
    # time a figure takes it, and plotly_white's defaults cover 25 trace types and 3-D scenes.
    # Its values are written out: loading that template (its JSON for every trace type) would
    # slow every report kernel's start
    template = go.layout.Template()
    template.layout.update(
        autotypenumbers="strict",
        colorway=list(COLORWAY),
        font={"family": "Arial, Helvetica, sans-serif", "size": 13, "color": "#2a3f5f"},
        title={"x": 0.0, "xanchor": "left", "font": {"size": 16}},
        margin={"l": 70, "r": 30, "t": 60, "b": 60},
        hovermode="closest",
        hoverlabel={"align": "left"},
        paper_bgcolor="white",
        plot_bgcolor="white",
        annotationdefaults={"arrowcolor": "#2a3f5f", "arrowhead": 0, "arrowwidth": 1},
        shapedefaults={"line": {"color": "#2a3f5f"}},
        legend={"bgcolor": "rgba(255,255,255,0.7)"},
    )
    for axis in (template.layout.xaxis, template.layout.yaxis):
        axis.update(_PLOTLY_WHITE_AXIS)
        axis.update(showline=True, linecolor="#888", ticks="outside", zeroline=False)
    template.data.scatter = [go.Scatter(fillpattern={"fillmode": "overlay", "size": 10,
                                                     "solidity": 0.2})]  # fmt: skip
    template.data.bar = [go.Bar(marker={"line": {"color": "white", "width": 0.5}})]
    return template


pio.templates[TEMPLATE] = _template()

#: plotly.js reads chart text as its own HTML subset (<b>, <i>, <br>, <sup>, <a href>): a run
#: id or file name holding '<i>' would be drawn in italics, '<a href=...>' as a link.
_PLOTLY_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def plot_text(value: object) -> str:
    """`value` as plotly text that shows as written: ``&``, ``<``, ``>`` as entities.

    Every name a chart takes from its inputs (run ids, hosts, jobs, workloads, folders) passes
    through here once, where it meets chart markup: :func:`figure` (titles), :func:`hover`
    (hover fields), :func:`subtitle`, legend names. plotly.js draws the entities as the
    characters.
    """
    return str(value).translate(_PLOTLY_ESCAPES)


def _plot_field(value: object) -> object:
    # names as written; numbers (a step) stay numbers, formatted by plotly
    return plot_text(value) if isinstance(value, str) else value


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

    Titles are plain text (run ids and file names in them are shown as written, see
    :func:`plot_text`); lines under the title go through :func:`subtitle`.
    """
    fig = go.Figure()
    fig.update_layout(
        template=TEMPLATE,
        title={"text": plot_text(title)},
        xaxis_title=plot_text(x_title),
        yaxis_title=plot_text(y_title),
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
        [rows[f].astype(object).where(rows[f].notna(), "-").map(_plot_field).to_numpy()
         for f in fields]
    ) if fields else np.empty((len(rows), 0))  # fmt: skip
    text = [f"{f}: %{{customdata[{i}]}}" for i, f in enumerate(fields)]
    text += [f"{label}: {fmt}" for label, fmt in lines]
    return data, "<br>".join(text) + "<extra></extra>"


def subtitle(fig: go.Figure, *lines: str, prefix: str = "") -> None:
    """Plain-text lines under the figure's title, in small type (why a curve is missing).

    The lines are escaped here (:func:`plot_text`); `prefix` is plotly text already (a sweep's
    legend prefix, made with plot_text). The top margin grows by a line's height per line, so
    the notes never cover the plot.
    """
    lines = [line for line in lines if line]
    if not lines:
        return
    text = "".join(f"<br><sup>{prefix}{plot_text(line)}</sup>" for line in lines)
    top = fig.layout.margin.t or fig.layout.template.layout.margin.t or 60
    fig.update_layout(
        title_text=f"{fig.layout.title.text}{text}", margin={"t": top + 18 * len(lines)}
    )


def require_rows(rows: pd.DataFrame, what: str) -> pd.DataFrame:
    """`rows`, or an :class:`~anfperf.errors.AnfperfError` saying what the chart lacks."""
    if rows.empty:
        raise AnfperfError(f"nothing to plot: {what}")
    return rows


#: Most legend entries kept beside the plot; more go under it, in rows.
LEGEND_BESIDE = 6


def throughput_column(rows: pd.DataFrame) -> str:
    """'bw_mib_s' when every row is a large-block (>= 64 KiB) or sequential workload, else 'iops'.

    Large and sequential I/O is sized in MiB/s (what a volume's throughput limit counts);
    small random I/O in IOPS.
    """
    if rows.empty:
        return "iops"
    bs = rows["bs_kib"] if "bs_kib" in rows else pd.Series(math.nan, index=rows.index)
    pattern = rows["pattern"].astype(str) if "pattern" in rows else pd.Series("", index=rows.index)
    return "bw_mib_s" if bool(sized_in_mib_s(bs, pattern).all()) else "iops"


def tick_text(value: float) -> str:
    """A tick label in plain digits: '0.001', '0.2', '5', '1,000' (never '1k' or '2' for 0.2)."""
    if value >= 1:
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,g}"
    decimals = max(0, -math.floor(math.log10(value) + 1e-9))
    return f"{value:.{decimals}f}"


def log_axis(
    fig: go.Figure,
    axis: str,
    values: Sequence[float] | np.ndarray,
    *,
    base: int = 10,
    pad: float = 0.04,
    row: int | None = None,
    col: int | None = None,
) -> None:
    """Make an axis logarithmic with labels a reader cannot misread.

    Base 10: labels at the decades only ('0.01', '0.1', '1', '10', '1,000'), unlabelled minor
    ticks at 2..9 of each (plotly's own labels '2' and '5' between decades read as values);
    an axis spanning less than two decades also labels 2 and 5 of each decade, in full
    ('0.2', '0.5'). Base 2 (concurrencies): labels at the powers of 2, '1', '2', '4', ... '256'
    (and at the values themselves when they span less than two doublings).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.
    axis : {'x', 'y'}
        Which axis.
    values : array-like
        The values drawn on it (non-positive and non-finite ones are ignored): its range.
    base : {10, 2}
        Where the labels go.
    pad : float
        Margin either side of the values' range, as a share of its span in decades.
    row, col : int, optional
        The subplot, for figures made with :func:`plotly.subplots.make_subplots`.
    """
    if axis not in ("x", "y") or base not in (2, 10):
        raise AnfperfError(
            f"log_axis takes axis 'x' or 'y' and base 2 or 10, got {axis!r}, {base!r}"
        )
    v = np.asarray(values, float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        v = np.array([1.0, 10.0])
    lo, hi = float(v.min()), float(v.max())
    if hi <= lo:
        lo, hi = lo / 2, hi * 2
    minor: list[float] = []
    if base == 2:
        ticks = [2.0**k for k in range(math.floor(math.log2(lo)), math.ceil(math.log2(hi)) + 1)]
        if sum(lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9) for t in ticks) < 3:
            # less than two doublings (52, 64, 80): the values themselves are the labels
            ticks = sorted({*ticks, *(float(t) for t in np.unique(v.round(3)))})
    else:
        decades = range(math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9) + 1)
        ticks = [10.0**d for d in decades]
        inside = [t for t in ticks if lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9)]
        steps = (2, 5) if len(inside) < 2 else ()
        ticks = sorted(ticks + [k * 10.0**d for d in decades for k in steps])
        minor = [k * 10.0**d for d in decades for k in range(2, 10) if k not in steps]
    span = math.log10(hi) - math.log10(lo)
    margin = max(pad * span, 0.02)
    update = {
        "type": "log",
        "tickmode": "array",
        "tickvals": ticks,
        "ticktext": [tick_text(t) for t in ticks],
        "range": [math.log10(lo) - margin, math.log10(hi) + margin],
        "minor": {"tickmode": "array", "tickvals": minor, "ticks": "outside", "ticklen": 3,
                  "showgrid": False},
    }  # fmt: skip
    getattr(fig, f"update_{axis}axes")(update, row=row, col=col)


def fit_legend(fig: go.Figure) -> None:
    """Keep the legend readable: beside the plot up to LEGEND_BESIDE entries, else under it."""
    names = [t.name for t in fig.data if t.showlegend is not False and t.name]
    if len(names) <= LEGEND_BESIDE:
        return
    # rows of a horizontal legend in a ~900 px wide plot: ~7 px a character, 45 px a symbol
    rows = math.ceil(sum(7 * len(n) + 45 for n in names) / 900)
    fig.update_layout(
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0.0, "xanchor": "left"},
        height=(fig.layout.height or 450) + 24 * rows,
        margin={"b": 70 + 24 * rows},
    )


def rule(
    fig: go.Figure,
    *,
    x: float | None = None,
    y: float | None = None,
    color: str = LIMIT_COLOR,
    dash: str = "dash",
    width: float = 1.0,
) -> None:
    """A vertical (`x`) or horizontal (`y`) line across the plot, in data units of that axis.

    What :meth:`plotly.graph_objects.Figure.add_hline` draws, without the subplot handling it
    goes through for every line (a report draws dozens).
    """
    if (x is None) == (y is None):
        raise AnfperfError("rule takes x or y")
    where = (
        {"x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "paper"}
        if x is not None
        else {"y0": y, "y1": y, "yref": "y", "x0": 0, "x1": 1, "xref": "paper"}
    )
    fig.add_shape(type="line", line={"color": color, "dash": dash, "width": width}, **where)
