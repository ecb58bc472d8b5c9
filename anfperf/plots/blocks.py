"""The chart of a block-size sweep: MiB/s against block size, each I/O's costs, and past it.

The measured MiB/s at each block size (IOPS and latency in the hover), the per-operation and
per-byte cost fitted to them (:func:`anfperf.analysis.blocks.block_reading`: a line in
``1 / IOPS``, drawn as the MiB/s it gives) and, past the largest size, what larger blocks would
give (:func:`anfperf.models.forecast.forecast_block_size`: the line within its bounds and its
band, up to the volume's limit when it is known, drawn as a line).
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from anfperf.analysis.blocks import FELL, MIN_SIZES, BlockReading, block_reading, block_sweeps
from anfperf.analysis.sweep import summary_rows
from anfperf.errors import AnfperfError, ModelError
from anfperf.models.curves.op_cost import op_cost_iops
from anfperf.models.forecast.block import FAR, NO_LINE, forecast_block_size
from anfperf.models.forecast.known import KnownLimits
from anfperf.plots._style import (
    BAND_COLOR,
    COLORWAY,
    MODEL_COLOR,
    figure,
    fit_legend,
    hover,
    log_axis,
    plot_text,
    require_rows,
    subtitle,
)
from anfperf.plots.limits import add_limit_line, limit_name
from anfperf.units import KIB_PER_MIB

__all__ = ["block_size"]

#: Points of a drawn curve.
CURVE_POINTS = 60


def block_size(
    frame: pd.DataFrame,
    *,
    run_id: str,
    rows: pd.DataFrame | None = None,
    known: KnownLimits | None = None,
) -> go.Figure:
    """MiB/s against block size of one block-size sweep, with each I/O's fitted costs.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`) holding the run.
    run_id : str
        The run (a block-size sweep: :data:`anfperf.analysis.findings.KIND_BLOCK`).
    rows : pandas.DataFrame, optional
        :func:`anfperf.analysis.summary_rows` of the run, if already made.
    known : KnownLimits, optional
        The volume's and clients' limit: its MiB/s caps what larger blocks are predicted to
        give and is drawn as a line.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces 'measured', 'per-op + per-byte cost' (when it can be fitted), 'larger blocks'
        and its band (when the forecast gives a number past the largest size and the MiB/s
        did not fall past its peak: then the costs do not hold there), 'known limit'.

    Raises
    ------
    anfperf.AnfperfError
        No whole-run rows of `run_id`, or fewer than two block sizes.
    """
    if rows is None:
        rows = summary_rows(frame[frame["run_id"].astype(str) == str(run_id)])
    rows = require_rows(rows[rows["run_id"].astype(str) == str(run_id)], f"no run {run_id!r}")
    sweeps = block_sweeps(rows)
    if not sweeps:
        raise AnfperfError(f"no block-size chart of {run_id}: no {MIN_SIZES} block sizes alike "
                           "in pattern, read share and load")  # fmt: skip
    fig = figure(f"Block size: {run_id}", "Block size [KiB]", "Throughput [MiB/s]")
    drawn = [
        _add_sweep(fig, sweep.rows, f"{plot_text(sweep.label)}: " if sweep.label else "",
                   COLORWAY[i % len(COLORWAY)], known)
        for i, sweep in enumerate(sweeps)
    ]  # fmt: skip
    sizes = [size for d in drawn for size in d.sizes_kib]
    top = max(d.top_mib_s for d in drawn)
    if len(drawn) == 1:
        subtitle(fig, drawn[0].costs, drawn[0].refused, drawn[0].said)
    else:  # each sweep's costs are in its curve's hover and the run's fit notes
        fell = [sweep.label for sweep, d in zip(sweeps, drawn, strict=True) if d.refused]
        if fell:
            subtitle(fig, f"larger blocks not predicted where the MiB/s fell past its peak: "
                          f"{'; '.join(fell)}")  # fmt: skip
    if known is not None and known.known and math.isfinite(known.bw_mib_s):
        add_limit_line(fig, known.bw_mib_s, known, horizontal=True, span=(min(sizes), max(sizes)),
                        label=f"{limit_name(known)} {known.bw_mib_s:,.0f} MiB/s")  # fmt: skip
        top = max(top, known.bw_mib_s)
    log_axis(fig, "x", sizes, base=2)
    # the band past the data may reach far up (IOPS no more than at the largest size): the
    # axis is the data's, the band runs off its top
    fig.update_yaxes(range=[0, 1.15 * top], tickformat=",~g")
    fit_legend(fig)
    return fig


class _Drawn(NamedTuple):
    sizes_kib: list[float]  # the smallest and largest block size drawn
    top_mib_s: float  # the highest measured or estimated MiB/s drawn
    costs: str  # each I/O's costs, in words ("" when not fitted)
    refused: str  # why larger blocks are not predicted ("" when they are)
    said: str = ""  # how they are predicted when not by the costs' line


def _add_sweep(
    fig: go.Figure, rows: pd.DataFrame, prefix: str, color: str, known: KnownLimits | None
) -> _Drawn:
    """One sweep's points, its costs' curve and what larger blocks give."""
    rows = rows.sort_values("bs_kib", kind="stable")
    data, template = hover(
        rows, [("block size", "%{x:,g} KiB"), ("MiB/s", "%{y:,.1f}"), ("IOPS", "%{text}")]
    )
    iops = pd.to_numeric(rows["iops"], errors="coerce")
    mib_s = pd.to_numeric(rows["bw_mib_s"], errors="coerce")
    fig.add_scatter(
        x=rows["bs_kib"], y=mib_s, mode="markers", name=f"{prefix}measured", legendgroup=prefix,
        marker={"color": color, "size": 9}, customdata=data, text=[f"{v:,.0f}" for v in iops],
        hovertemplate=template,
    )  # fmt: skip
    sizes = pd.to_numeric(rows["bs_kib"], errors="coerce")
    measured = _Drawn([float(sizes.min()), float(sizes.max())], float(mib_s.max()), "", "")
    try:
        reading = block_reading(rows)
    except ModelError as exc:
        return measured._replace(costs=f"no costs fitted: {exc}")
    if reading.fit is None:
        return measured._replace(costs="; ".join(reading.notes))
    lo, hi = float(reading.bs_kib[0]), float(reading.bs_kib[-1])
    fell = reading.fall >= FELL
    grid = np.geomspace(lo, reading.peak_bs_kib if fell else hi, CURVE_POINTS)
    fitted = np.asarray(op_cost_iops(grid, **reading.fit), float) * grid / KIB_PER_MIB
    fig.add_scatter(
        x=grid, y=fitted, mode="lines", name=f"{prefix}per-op + per-byte cost",
        legendgroup=prefix, line={"color": color if prefix else MODEL_COLOR, "width": 2},
        hovertemplate=f"{reading.costs_text(brief=True)}: %{{y:,.1f}} MiB/s at %{{x:,.0f}} KiB"
                      "<extra></extra>",
    )  # fmt: skip
    costs = reading.costs_text()
    top = max(measured.top_mib_s, float(np.max(fitted)))
    if fell:
        why = (f"larger blocks not predicted: the MiB/s fell {reading.fall:.0%} past its peak "
               f"at {reading.peak_bs_kib:g} KiB")  # fmt: skip
        return _Drawn([lo, hi], top, costs, why)
    reach, estimate, why, said = _add_larger_blocks(fig, reading, known, prefix, color)
    return _Drawn([lo, reach], max(top, estimate), costs, why, said)


def _add_larger_blocks(
    fig: go.Figure, reading: BlockReading, known: KnownLimits | None, prefix: str, color: str
) -> tuple[float, float, str, str]:
    """The forecast past the largest size, to FAR times it: its estimate and band. Returns
    the largest block size drawn [KiB], the highest estimate [MiB/s], why none is drawn and
    how it is made when not by the costs' line."""
    hi = float(reading.bs_kib[-1])
    limit = known.bw_mib_s if known is not None and known.known else None
    at = np.geomspace(hi, FAR * hi, CURVE_POINTS // 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fc = forecast_block_size(reading.bs_kib, reading.iops, at, limit_mib_s=limit)
        except ModelError as exc:
            return hi, 0.0, f"larger blocks not predicted: {exc}", ""
    ok = np.isfinite(fc.estimate)
    if not ok.any():
        return hi, 0.0, fc.says(), ""
    x, scale = at[ok], at[ok] / KIB_PER_MIB
    upper = np.where(np.isfinite(fc.upper[ok]), fc.upper[ok], fc.estimate[ok]) * scale
    fig.add_scatter(
        x=np.concatenate([x, x[::-1]]), y=np.concatenate([upper, (fc.lower[ok] * scale)[::-1]]),
        fill="toself", fillcolor=BAND_COLOR, line={"width": 0}, hoverinfo="skip", mode="lines",
        name=f"{prefix}larger blocks: 95 % band", legendgroup=prefix,
    )  # fmt: skip
    fig.add_scatter(
        x=x, y=fc.estimate[ok] * scale, mode="lines", name=f"{prefix}larger blocks (forecast)",
        legendgroup=prefix, line={"color": color if prefix else MODEL_COLOR, "width": 2,
                                  "dash": "dot"},
        hovertemplate="forecast: %{y:,.1f} MiB/s at %{x:,.0f} KiB<extra></extra>",
    )  # fmt: skip
    said = next((note for note in fc.notes if note.startswith(NO_LINE)), "")
    return float(x.max()), float(np.max(fc.estimate[ok] * scale)), "", said
