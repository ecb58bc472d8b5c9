"""Charts of sweeps: latency against throughput, scaling with concurrency, the read/write mix.

Each chart draws the measured whole-run points (one per run x job step, all directions and hosts
together -- the cross-host 'all' row where a run has one -- as :func:`anfperf.analysis.summary_rows`
gives them) and the model fitted to the same points, and reads the knee and the IOPS at a latency
SLO from :func:`anfperf.analysis.findings.key_numbers`, so the chart and the report's numbers cannot
disagree.

A run may hold several sweeps (a Vdbench parmfile sweeping two workloads): each gets its own
trace group. Points belong to one sweep when they share the block size, access pattern and read
share (for :func:`mix`: all but the read share) and, where a run's workload names repeat across
steps (Vdbench ``wd=``), the workload. fio names each job its own workload, so there the block
size, pattern and read share alone tell the sweeps apart.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from anfperf.analysis import findings
from anfperf.analysis.sweep import alike, summary_rows
from anfperf.errors import ModelError
from anfperf.models.curves.band import case_band, predict_band
from anfperf.models.curves.blend import fit_throughput_curve, throughput_curve
from anfperf.models.curves.mix import fit_mix, mix_band, mix_throughput
from anfperf.models.curves.queueing import queueing_latency, refit_queueing_latency
from anfperf.models.curves.result import FitResult
from anfperf.models.curves.usl import refit_usl, usl_latency_at_rate_ms
from anfperf.models.forecast.known import KnownLimits
from anfperf.models.forecast.past import LatencyPast
from anfperf.models.forecast.result import NOT_PREDICTABLE, gist
from anfperf.models.forecast.throughput import (
    forecast_throughput,
    knee_concurrency,
)
from anfperf.models.littles_law import iops_at_concurrency
from anfperf.plots._style import (
    BAND_COLOR,
    COLORWAY,
    ID_FIELDS,
    MODEL_COLOR,
    SLO_COLOR,
    figure,
    fit_legend,
    hover,
    log_axis,
    plot_text,
    rule,
    subtitle,
    throughput_column,
)
from anfperf.plots.limits import add_limit_line, limit_name
from anfperf.units import KIB_PER_MIB, MS_PER_S
from anfperf.values import natural_key

__all__ = ["latency_curve", "mix", "scaling"]

#: Points of a drawn model curve.
GRID_POINTS = 200
#: Bootstrap resamples of a band. Its edges are the 2.5 / 97.5 % quantiles of the refits: 100
#: put each within about 1.5 percentage points of its level (binomial error of a quantile),
#: which on a chart is the width of its line; 200 doubled the report's chart time for that.
BAND_RESAMPLES = 100
#: Fewest distinct loads (concurrencies, rates or read shares) a sweep is drawn with. Fewer than
#: findings.MIN_SWEEP_POINTS draw the points alone: findings fits no curve to them.
MIN_POINTS = 2
#: Columns a row's identity is made of in summary_rows (its groups of tidy rows).
_IDENT = ("run_id", "job", "workload", "step", "loop")


class _Sweep(NamedTuple):
    """One trace group: the whole-run points of one sweep and the tidy rows behind them."""

    run_id: str
    label: str  # legend prefix; "" when the chart holds one sweep only
    rows: pd.DataFrame  # summary rows, in sweep order, every one with finite x and y
    part: pd.DataFrame  # all the sweep's summary rows (findings reads their tidy rows)


# --------------------------------------------------------------------------------------------
# Latency against throughput

#: Axis titles of the throughput a chart is drawn in.
THROUGHPUT_TITLES = {"iops": "Throughput [IOPS]", "bw_mib_s": "Throughput [MiB/s]"}
#: Units of those columns in labels.
_UNITS = {"iops": "IOPS", "bw_mib_s": "MiB/s"}


def latency_curve(
    frame: pd.DataFrame,
    *,
    lat_slo_ms: float = 1.0,
    run_id: str | None = None,
    workload: str | None = None,
    seed: int = 0,
    resamples: int = BAND_RESAMPLES,
    rows: pd.DataFrame | None = None,
    numbers: pd.Series | None = None,
    x: str | None = None,
    require_curve: bool = False,
    known: KnownLimits | None = None,
) -> go.Figure:
    """Mean latency against throughput of load sweeps, with the fitted curve, knee and SLO, and
    the latency up to the volume's limit where that is known.

    Per sweep (concurrency sweep or load curve): the measured points; the curve
    :func:`anfperf.analysis.findings.key_numbers` reads its numbers from -- the USL (latency by Little's
    law) for a concurrency sweep, the queueing curve for a load curve -- with its 95 % band (a
    case bootstrap, :func:`anfperf.models.curves.band.case_band`, seeded: the same inputs give the
    same figure); the knee and the IOPS at the SLO where key_numbers names them. The SLO is a
    horizontal line. A sweep of fewer than 3 loads is drawn without a curve (findings fits none);
    why a curve is missing is said under the title. The fitted curve ends at the data; past
    them the forecast findings states its IOPS at the SLO from
    (:func:`anfperf.analysis.findings.latency_past_the_data`) takes over, dashed, with its 95 %
    band, up to the chart's top: a concurrency sweep's concurrency forecast by Little's law
    (R = N / X along :func:`anfperf.models.forecast.forecast_throughput`, as on the scaling
    chart, bounded by `known`), or where that gives no rate at the SLO and a limit binds, the
    queueing curve of the limit; a load curve's latency against load
    (:func:`anfperf.models.forecast.forecast_latency`: with a known limit the queueing curve
    whose maximum rate is the limit, without one the curve its points fit, its band reaching
    down to the latency last measured). The limit is a vertical line, labelled; where the data
    cannot tell, the reason is said under the title.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`), e.g. from :func:`anfperf.ingest.read_many`.
    lat_slo_ms : float
        Latency objective [ms] (mean response time).
    run_id : str, optional
        Draw only this run.
    workload : str, optional
        Draw only the points of this workload (the frame's `workload` column: Vdbench ``wd=``,
        the fio job name).
    seed : int
        Seed of the band's bootstrap.
    resamples : int
        Bootstrap resamples of the band (0: no band).
    rows : pandas.DataFrame, optional
        :func:`anfperf.analysis.summary_rows` of `frame` (or of its run `run_id`), if already
        made: not made again.
    numbers : pandas.Series, optional
        The run's row of :func:`anfperf.analysis.findings.key_numbers` at `lat_slo_ms`, if already
        made; used when the chart holds one sweep (a run's numbers are those of all its
        points), else each sweep's are worked out.
    x : {'iops', 'bw_mib_s'}, optional
        Throughput axis; default MiB/s for large-block (>= 64 KiB) or sequential sweeps, else
        IOPS (:func:`anfperf.plots._style.throughput_column`). The fits are made in IOPS and
        drawn in MiB/s at the sweep's measured MiB/s per IOPS.
    require_curve : bool
        Raise, rather than draw the points alone, when no sweep gets a curve (for a report
        whose scaling chart already shows those points).
    known : KnownLimits, optional
        The volume's and clients' limit in IOPS at the sweep's block size
        (:func:`anfperf.models.forecast.known_limits`); None: nothing known.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces per sweep (prefixed with the run and workload when there are several):
        'measured', '<model> fit (R² r)', '95 % band', 'knee', 'forecast: <basis>' and
        '95 % forecast band' (past the data: 'forecast: plateau', 'forecast: queueing at the
        known limit', 'forecast: queueing fit (no limit known)', ...); the SLO and the IOPS at
        the SLO as lines
        with annotations ('SLO 1 ms', '79,653 IOPS at the SLO (forecast)'); the known limit
        as a vertical line ('known limit', labelled).

    Raises
    ------
    anfperf.ModelError
        An empty or non-tidy frame, `lat_slo_ms` not > 0, an unknown `run_id`, `workload` or
        `x`, no load sweep (2 or more loads of one workload) to draw, or (`require_curve`) no
        curve to draw.
    """
    if not lat_slo_ms > 0:
        raise ModelError(f"lat_slo_ms must be > 0, got {lat_slo_ms!r}")
    if x is not None and x not in THROUGHPUT_TITLES:
        raise ModelError(f"x must be one of {sorted(THROUGHPUT_TITLES)}, got {x!r}")
    sweeps = _sweeps(
        frame, run_id=run_id, workload=workload, fixed=("bs_kib", "pattern", "read_pct"),
        x="iops", y="lat_mean_ms", load=_load_key,
        order=("configured", "rate_limit_iops", "iops"), what="load sweep",
        needs="whole-run points at 2 or more concurrencies or rates of one workload",
        rows=rows,
    )  # fmt: skip
    x = x or throughput_column(pd.concat([s.rows for s in sweeps]))
    unit = _UNITS[x]
    fig = figure(_title("Latency vs throughput", sweeps, workload), THROUGHPUT_TITLES[x],
                 "Mean latency [ms]")  # fmt: skip
    top, right, missing, curves_drawn = lat_slo_ms, 0.0, [], 0
    limits: dict[float, KnownLimits] = {}
    for i, sweep in enumerate(sweeps):
        color = COLORWAY[i % len(COLORWAY)]
        sweep_rows, p = sweep.rows, sweep.label
        scale = _per_iops(sweep_rows) if x == "bw_mib_s" else 1.0
        xs, y = _floats(sweep_rows, x), _floats(sweep_rows, "lat_mean_ms")
        extra = {"outstanding": _ints(sweep_rows, "configured")}
        rate = _floats(sweep_rows, "rate_limit_iops")
        if np.isfinite(rate).any():  # a load curve: which step of it
            extra["requested"] = [f"{v:,.0f} IOPS" if math.isfinite(v) else "max" for v in rate]
        fmt = "%{x:,.0f}" if x == "iops" else "%{x:,.1f}"
        data, template = _hover(sweep_rows, extra, [(unit, fmt), ("latency", "%{y:.3f} ms")])
        fig.add_scatter(
            x=xs, y=y, mode="markers+lines", name=f"{p}measured", legendgroup=p,
            marker={"color": color, "size": 8}, line={"color": color, "width": 1, "dash": "dot"},
            customdata=data, hovertemplate=template,
        )  # fmt: skip
        top = max(top, float(np.nanmax(y)))
        sweep_numbers = numbers if numbers is not None and len(sweeps) == 1 else None
        if sweep_numbers is None:
            sweep_numbers = findings.key_numbers(
                _tidy_rows(frame, sweep.part), lat_slo_ms=lat_slo_ms
            ).iloc[0]
        iops = _floats(sweep_rows, "iops")
        bound = _binding(known, iops)
        # the fitted curve ends at the data: past them the forecast findings states its IOPS
        # at the SLO from takes over (a concurrency sweep's along its concurrency forecast)
        note = _add_latency_fit(fig, sweep, sweep_numbers, color, seed, resamples, scale, unit)
        if bound is not None:
            limits[scale * bound.iops_max] = bound
        elif known is not None and known.known:
            subtitle(fig, _left_out(known, iops), prefix=p)
        past = findings.latency_past_the_data(sweep_rows, sweep_numbers["kind"], lat_slo_ms,
                                              known or KnownLimits())  # fmt: skip
        if past is not None:
            forecast_note, reach = _add_latency_past(
                fig, p, past, color, lat_top_ms=LAT_ROOM * max(lat_slo_ms, float(np.nanmax(y))),
                largest=float(np.nanmax(iops)), known=known, scale=scale, unit=unit,
            )  # fmt: skip
            right = max(right, reach)
            if forecast_note:
                subtitle(fig, forecast_note, prefix=p)
        right = max(right, scale * float(np.nanmax(iops)))
        if note:
            missing.append((p, note))
        else:
            curves_drawn += 1
        _add_slo_iops(fig, sweep_numbers, p, scale, unit)
    if require_curve and not curves_drawn:
        raise ModelError(
            "; ".join(f"{p}{note}" for p, note in missing) or "no latency curve to draw"
        )
    for p, note in missing:
        subtitle(fig, note, prefix=p)
    for value, bound in limits.items():
        add_limit_line(fig, value, bound, horizontal=False, span=(0.0, 1.3 * top))
    rule(fig, y=lat_slo_ms, color=SLO_COLOR, width=1.5)
    fig.add_annotation(
        x=0.0, xref="paper", xanchor="left", y=lat_slo_ms, yanchor="bottom",
        text=f"SLO {lat_slo_ms:g} ms", showarrow=False, font={"color": SLO_COLOR},
    )  # fmt: skip
    # the curve and its band rise steeply past the data: show the measured range and the SLO
    fig.update_yaxes(range=[0, LAT_ROOM * top])
    if limits:  # the limit's label is past its line: room for it
        fig.update_xaxes(range=[0, LIMIT_ROOM * max(limits)])
    elif right > 0:  # the points and the forecast's estimate; a wide band may run past them
        fig.update_xaxes(range=[0, RATE_ROOM * right])
    else:
        fig.update_xaxes(rangemode="tozero")
    fit_legend(fig)
    return fig


def _per_iops(rows: pd.DataFrame) -> float:
    """MiB/s per IOPS of a sweep's points (its block size), to draw IOPS fits in MiB/s."""
    ratio = _floats(rows, "bw_mib_s") / _floats(rows, "iops")
    ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
    if ratio.size:
        return float(np.median(ratio))
    bs = _floats(rows, "bs_kib")
    bs = bs[np.isfinite(bs)]
    return float(np.median(bs)) / KIB_PER_MIB if bs.size else 1.0


def _load_key(rows: pd.DataFrame) -> pd.Series:
    """What sets the load of each point: configured concurrency and requested rate."""
    conc = _floats(rows, "configured")
    rate = _floats(rows, "rate_limit_iops")
    # a curve's uncontrolled maximum (rate NaN) is a load of its own
    return pd.Series([f"{c:g}/{r:g}" for c, r in zip(conc, rate, strict=True)], index=rows.index)


def _add_latency_fit(
    fig: go.Figure,
    sweep: _Sweep,
    numbers: pd.Series,
    color: str,
    seed: int,
    resamples: int,
    scale: float = 1.0,
    unit: str = "IOPS",
) -> str:
    """The fitted curve, its band and the knee of one sweep, up to the highest load measured
    (a forecast takes over there); returns why there is none, or "".

    The fit is in IOPS; it is drawn at `scale` `unit` per IOPS (1 for IOPS, MiB per I/O).
    """
    rows, p = sweep.rows, sweep.label
    kind = numbers["kind"]
    if kind not in (findings.KIND_CONCURRENCY, findings.KIND_RATE):
        return f"no curve fitted: {len(rows)} points (a sweep needs {findings.MIN_SWEEP_POINTS})"
    x, y, n = _floats(rows, "iops"), _floats(rows, "lat_mean_ms"), _floats(rows, "configured")
    try:
        sf = _sweep_fit(kind, x, y, n)
    except ModelError as exc:
        return f"no curve fitted: {exc}"
    fit, model, x, y = sf.fit, sf.model, sf.x, sf.y
    if not fit.r2 >= findings.MIN_R2:
        return f"no curve drawn: it fits poorly (R² {fit.r2:.2f} < {findings.MIN_R2})"
    grid = np.linspace(0.0, float(x.max()), GRID_POINTS)
    curve = np.asarray(model(grid, **fit), float)
    shown = np.isfinite(curve) & (curve <= 4.0 * float(y.max()))
    if resamples > 0 and sf.xs.size >= 3:
        _add_band(fig, p, sf, grid, shown, resamples, seed, scale)
    fmt = ",.0f" if unit == "IOPS" else ",.1f"
    if shown.any():
        fig.add_scatter(
            x=scale * grid[shown], y=curve[shown], mode="lines", legendgroup=p,
            name=f"{p}{sf.label} (R² {fit.r2:.2f})", line={"color": MODEL_COLOR, "width": 2},
            hovertemplate=f"fit: %{{x:{fmt}}} {unit}, %{{y:.3f}} ms<extra></extra>",
        )  # fmt: skip
    knee_x, knee_y = scale * float(numbers["knee_iops"]), float(numbers["knee_lat_ms"])
    if math.isfinite(knee_x) and math.isfinite(knee_y):
        fig.add_scatter(
            x=[knee_x], y=[knee_y], mode="markers", name=f"{p}knee", legendgroup=p,
            marker={"symbol": "diamond", "size": 12, "color": color,
                    "line": {"color": MODEL_COLOR, "width": 1}},
            hovertemplate=f"knee: %{{x:{fmt}}} {unit} at %{{y:.3f}} ms<extra></extra>",
        )  # fmt: skip
        fig.add_annotation(
            x=knee_x, y=knee_y, text=f"{p}knee {knee_x:{fmt}} {unit}", showarrow=True,
            arrowhead=2, ax=-40, ay=-35, font={"color": MODEL_COLOR},
        )  # fmt: skip
    return ""


#: The latency chart's throughput axis ends this far past the known limit (its label is there).
LIMIT_ROOM = 1.06
#: The latency axis ends this far above the highest latency measured or the SLO.
LAT_ROOM = 1.3
#: The throughput axis ends this far past the points and a forecast's estimate drawn.
RATE_ROOM = 1.1


def _add_latency_past(
    fig: go.Figure,
    prefix: str,
    past: LatencyPast,
    color: str,
    *,
    lat_top_ms: float,
    largest: float,
    known: KnownLimits | None,
    scale: float = 1.0,
    unit: str = "IOPS",
) -> tuple[str, float]:
    """Latency past a sweep's measured loads along the forecast findings states its IOPS at
    the SLO from (:func:`~anfperf.analysis.findings.latency_past_the_data`): the dashed
    estimate and the band between its edges, each up to `lat_top_ms` (the chart's top); a
    concurrency forecast's band closed along the largest count measured, N / X, on which the
    last point lies.

    Returns why there is no forecast ("" when one is drawn) and the highest rate of the
    estimate drawn [`unit`] (0 when none).
    """
    if not past.drawn:
        where = (f"{past.forecast.x[0]:g} in flight" if past.in_flight and past.forecast
                 else f"{scale * largest:,.0f} {unit}")  # fmt: skip
        return f"past {where}: {_not_predictable(past.why, known)}", 0.0

    def up_to_top(curve: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        # the curve's points while finite, to the first one past the chart's top
        rate, lat = curve
        keep = np.isfinite(rate) & (rate > 0) & np.isfinite(lat)
        past_top = np.flatnonzero(~(lat <= lat_top_ms))
        if past_top.size:
            keep[past_top[0] + 1 :] = False
        return scale * rate[keep], np.minimum(lat[keep], LAT_ROOM * lat_top_ms)

    estimate, fast, slow = (up_to_top(curve) for curve in past.curves())
    (x_hi, y_hi), (x_lo, y_lo) = fast, slow
    if x_hi.size and x_lo.size:
        xs, ys = [x_hi, x_lo[::-1]], [y_hi, y_lo[::-1]]
        if past.in_flight:  # closed along N / X at the largest count measured
            x_n = np.geomspace(x_lo[0], x_hi[0], 20)
            xs.append(x_n)
            ys.append(past.forecast.x[0] / (x_n / scale) * MS_PER_S)
        fig.add_scatter(
            x=np.concatenate(xs), y=np.concatenate(ys), fill="toself",
            fillcolor=FORECAST_BAND_COLOR, line={"width": 0}, hoverinfo="skip", mode="lines",
            name=f"{prefix}95 % forecast band", legendgroup=prefix,
        )  # fmt: skip
    x_est, y_est = estimate
    fmt = ",.0f" if unit == "IOPS" else ",.1f"
    fig.add_scatter(
        x=x_est, y=y_est, mode="lines", legendgroup=prefix, name=f"{prefix}forecast: {past.basis}",
        line={"color": color, "width": 2, "dash": "longdash"},
        hovertemplate=f"forecast ({plot_text(past.basis)}): %{{x:{fmt}}} {unit}, %{{y:.3f}} ms"
                      "<extra></extra>",
    )  # fmt: skip
    return "", float(x_est.max()) if x_est.size else 0.0


class _SweepFit(NamedTuple):
    """A sweep's latency curve as the report draws it."""

    fit: object  # the FitResult findings.key_numbers made: its knee is on this curve
    model: Callable  # latency [ms] at a load [IOPS]
    xs: np.ndarray  # the points fitted (concurrency or load) ...
    ys: np.ndarray  # ... and (IOPS or latency)
    label: str
    refit: Callable  # one-start refit of (xs, ys), for the band
    x: np.ndarray  # loads [IOPS] and latencies [ms] drawn
    y: np.ndarray


def _sweep_fit(kind: str, x: np.ndarray, y: np.ndarray, n: np.ndarray) -> _SweepFit:
    """The fit findings.key_numbers made (same points, same function)."""
    if kind == findings.KIND_CONCURRENCY:
        ok = np.isfinite(n) & (n > 0)
        ok[ok] = findings.unstalled_steps(n[ok], x[ok])[0]
        x, y, n = x[ok], y[ok], n[ok]
        fit = findings.concurrency_fit(n, x)
        return _SweepFit(fit, usl_latency_at_rate_ms, n, x, "USL fit",
                         lambda a, b: refit_usl(a, b, fit), x, y)  # fmt: skip
    fit = findings.latency_fit(x, y)
    return _SweepFit(fit, queueing_latency, x, y, "queueing fit",
                     lambda a, b: refit_queueing_latency(a, b, fit), x, y)  # fmt: skip


def _add_band(
    fig: go.Figure,
    prefix: str,
    sf: _SweepFit,
    grid: np.ndarray,
    shown: np.ndarray,
    resamples: int,
    seed: int,
    scale: float = 1.0,
) -> None:
    """The fit's 95 % case-bootstrap band where the curve is drawn (none if no resample fits)."""
    try:
        low, high = case_band(sf.refit, sf.model, sf.xs, sf.ys, grid, resamples=resamples,
                              seed=seed)  # fmt: skip
    except ModelError:
        return
    keep = shown & np.isfinite(low) & np.isfinite(high)
    if keep.any():
        fig.add_scatter(
            x=scale * np.concatenate([grid[keep], grid[keep][::-1]]),
            y=np.concatenate([high[keep], low[keep][::-1]]),
            fill="toself", fillcolor=BAND_COLOR, line={"width": 0}, hoverinfo="skip",
            mode="lines", name=f"{prefix}95 % band", legendgroup=prefix,
        )  # fmt: skip


def _add_slo_iops(
    fig: go.Figure, numbers: pd.Series, prefix: str, scale: float = 1.0, unit: str = "IOPS"
) -> None:
    """The IOPS at the SLO as the report states it (:func:`~anfperf.analysis.findings.
    stated_iops_at_slo`): measured, a forecast's or the fitted curve's."""
    value, source, _ = findings.stated_iops_at_slo(numbers)
    if math.isnan(value):
        return
    value *= scale
    fmt = ",.0f" if unit == "IOPS" else ",.1f"
    rule(fig, x=value, color=SLO_COLOR)
    # one label per sweep, stacked below each other so that several do not overlap
    stack = sum(1 for a in fig.layout.annotations if "at the SLO" in (a.text or ""))
    fig.add_annotation(
        x=value, y=0.97 - 0.07 * stack, xref="x", yref="paper", xanchor="right",
        showarrow=False, font={"color": SLO_COLOR},
        text=f"{prefix}{value:{fmt}} {unit} at the SLO ({source})",
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Scaling with concurrency


def scaling(
    frame: pd.DataFrame,
    *,
    run_id: str | None = None,
    workload: str | None = None,
    seed: int = 0,
    rows: pd.DataFrame | None = None,
    y: str | None = None,
    draws: int | None = None,
    known: KnownLimits | None = None,
) -> go.Figure:
    """Throughput against configured outstanding I/O, with Little's law, the fitted curve and
    what more outstanding I/O would give on this volume.

    Per concurrency sweep: the measured throughput at each configured concurrency (threads,
    iodepth x numjobs, over all hosts), Little's law at the measured latency of each point
    (``IOPS = outstanding / latency``: a measured point below it had fewer I/Os in flight than
    configured -- the tool or client, not the storage, held them back), and the ideal line at
    the latency of the lowest concurrency (the rate if latency stayed unloaded; the gap to it is
    queueing). Rate-limited points are left out: they show the rate asked for. A sweep of 4 or
    more concurrencies also gets the default throughput curve
    (:func:`anfperf.models.fit_throughput_curve`) over the concurrencies measured, with its
    95 % prediction band (:func:`anfperf.models.predict_band`), and past them the forecast
    (:func:`anfperf.models.forecast.forecast_throughput`, bounded by Little's law and the
    volume's known limit) to :data:`FORECAST_REACH` times the largest concurrency, or to the
    knee ``N* = limit x lowest latency`` where that is further (at most
    :data:`FORECAST_MAX_REACH` times): its estimate dashed, named by its basis, and its 95 %
    band; the known limit is a horizontal line, labelled. Where the data cannot tell, no
    curve is drawn past them and the reason is said under the title. Concurrency is on a log2
    axis (1, 2, 4, ... 256), so that queue depths 1 to 16 get as much room as 16 to 256.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    run_id : str, optional
        Draw only this run.
    workload : str, optional
        Draw only the points of this workload.
    seed : int
        Seed of the prediction band's bootstrap.
    rows : pandas.DataFrame, optional
        :func:`anfperf.analysis.summary_rows` of `frame` (or of run `run_id`), if already made.
    y : {'iops', 'bw_mib_s'}, optional
        Throughput axis; default MiB/s for large-block (>= 64 KiB) or sequential sweeps, else
        IOPS. Models are fitted in IOPS and drawn at the sweep's measured MiB/s per IOPS.
    draws : int, optional
        Draws of the prediction band (default :data:`BAND_DRAWS`; 0: no band).
    known : KnownLimits, optional
        The volume's and clients' limit in IOPS at the sweep's block size
        (:func:`anfperf.models.forecast.known_limits`); None: nothing known (the forecast is
        bounded by Little's law alone, or says it cannot tell).

    Returns
    -------
    plotly.graph_objects.Figure
        Traces per sweep: 'measured' (latency in its hover), 'fitted curve' and '95 %
        prediction band' (4 or more concurrencies, over the concurrencies measured),
        'forecast: <basis>' and '95 % forecast band' (past them), "Little's law at the
        measured latency", 'ideal: latency stays <ms> ms'; 'known limit' (a horizontal line,
        its annotation 'volume quota: 1,280 MiB/s = 327,680 IOPS at 4 KiB') when a limit is
        known and the rates measured do not pass it. Why a curve is missing is said under the
        title.

    Raises
    ------
    anfperf.ModelError
        An empty or non-tidy frame, an unknown `run_id`, `workload` or `y`, or no sweep of 2 or
        more concurrencies.
    """
    if y is not None and y not in THROUGHPUT_TITLES:
        raise ModelError(f"y must be one of {sorted(THROUGHPUT_TITLES)}, got {y!r}")
    sweeps = _sweeps(
        frame, run_id=run_id, workload=workload, fixed=("bs_kib", "pattern", "read_pct"),
        x="configured", y="iops", load=lambda r: r["configured"], order=("configured", "iops"),
        what="concurrency sweep",
        needs="whole-run points at 2 or more configured concurrencies of one workload, "
              "without a rate limit", uncontrolled=True, rows=rows,
    )  # fmt: skip
    y = y or throughput_column(pd.concat([s.rows for s in sweeps]))
    unit, fmt = _UNITS[y], ("%{y:,.0f}" if y == "iops" else "%{y:,.1f}")
    fig = figure(_title("Scaling with outstanding I/O", sweeps, workload),
                 "Outstanding I/O [threads x queue depth]", THROUGHPUT_TITLES[y])  # fmt: skip
    top = band_top = 0.0
    reach = 0.0
    concurrencies: list[np.ndarray] = []
    limits: dict[float, KnownLimits] = {}
    for i, sweep in enumerate(sweeps):
        color = COLORWAY[i % len(COLORWAY)]
        sweep_rows, p = sweep.rows, sweep.label
        scale = _per_iops(sweep_rows) if y == "bw_mib_s" else 1.0
        n, iops = _floats(sweep_rows, "configured"), _floats(sweep_rows, "iops")
        lat, measured = _floats(sweep_rows, "lat_mean_ms"), _floats(sweep_rows, y)
        concurrencies.append(n)
        data, template = _hover(
            sweep_rows, {"latency": [f"{v:.3f} ms" if math.isfinite(v) else "-" for v in lat]},
            [("outstanding", "%{x:,.0f}"), (unit, fmt)],
        )  # fmt: skip
        fig.add_scatter(
            x=n, y=measured, mode="markers+lines", name=f"{p}measured", legendgroup=p,
            marker={"color": color, "size": 8}, line={"color": color, "width": 1.5},
            customdata=data, hovertemplate=template,
        )  # fmt: skip
        top = max(top, float(np.nanmax(measured)))
        fitted_top, fit = _add_throughput_model(
            fig, p, n, iops, color, seed, scale=scale, unit=unit,
            draws=BAND_DRAWS if draws is None else draws,
        )  # fmt: skip
        band_top = max(band_top, fitted_top)
        bound = _binding(known, iops)
        if bound is not None:
            limits[scale * bound.iops_max] = bound
        elif known is not None and known.known:
            subtitle(fig, _left_out(known, iops), prefix=p)
        forecast_top, forecast_reach = _add_throughput_forecast(
            fig, p, n, iops, lat, color, known, scale=scale, unit=unit, fit=fit
        )
        band_top, reach = max(band_top, forecast_top), max(reach, forecast_reach)
        ok = np.isfinite(lat) & (lat > 0)
        if not ok.any():
            subtitle(fig, "no latency measured: no Little's-law lines", prefix=p)
            continue
        little = scale * iops_at_concurrency(n[ok], lat[ok])
        fig.add_scatter(
            x=n[ok], y=little, mode="markers+lines", legendgroup=p,
            name=f"{p}Little's law at the measured latency",
            marker={"symbol": "x", "size": 8, "color": MODEL_COLOR},
            line={"color": MODEL_COLOR, "width": 1, "dash": "dot"},
            hovertemplate=f"outstanding / latency: {fmt} {unit} at %{{x:,.0f}}<extra></extra>",
        )  # fmt: skip
        top = max(top, float(np.max(little)))
        first = int(np.argmax(ok))  # the lowest concurrency with a latency (rows are sorted)
        grid = np.geomspace(min(1.0, float(n[ok].min())), float(n.max()), GRID_POINTS)
        fig.add_scatter(
            x=grid, y=scale * iops_at_concurrency(grid, lat[first]), mode="lines",
            legendgroup=p, name=f"{p}ideal: latency stays {lat[first]:.3f} ms",
            line={"color": MODEL_COLOR, "dash": "dash", "width": 1},
            hovertemplate=f"ideal: {fmt} {unit} at %{{x:,.0f}}<extra></extra>",
        )  # fmt: skip
    # the ideal line climbs far above the data: keep the measured points readable, and the
    # band's upper edge in view unless it runs far above them; a known limit is always in view
    y_top = max(1.15 * top, min(1.05 * band_top, 1.6 * top))
    n_all = np.concatenate(concurrencies)
    span = (min(1.0, float(np.nanmin(n_all))), max(reach, float(np.nanmax(n_all))))
    for value, bound in limits.items():
        add_limit_line(fig, value, bound, horizontal=True, span=span)
        y_top = max(y_top, 1.12 * value)
    fig.update_yaxes(range=[0, y_top])
    log_axis(fig, "x", [*n_all, max(reach, float(n_all.max()))], base=2)
    fit_legend(fig)
    return fig


#: Draws of the scaling chart's prediction band. Its edges are the 2.5 / 97.5 % quantiles of
#: the draws: 100 put each within about 1.5 percentage points of its level, a band's width on a
#: chart drawn as well as with 200 (the report's time went into them).
BAND_DRAWS = 100
#: How far past the largest concurrency measured the forecast is drawn, at least ...
FORECAST_REACH = 4.0
#: ... and at most (when the knee N* = limit x lowest latency is further than FORECAST_REACH).
FORECAST_MAX_REACH = 16.0
#: Points of the fitted curve's grid (log-spaced, plus the concurrencies measured).
CURVE_POINTS = 40


def _add_throughput_model(
    fig: go.Figure,
    prefix: str,
    n: np.ndarray,
    iops: np.ndarray,
    color: str,
    seed: int,
    *,
    scale: float = 1.0,
    unit: str = "IOPS",
    draws: int = BAND_DRAWS,
) -> tuple[float, FitResult | None]:
    """The default throughput curve and its prediction band over the concurrencies measured.

    Fitted in IOPS, drawn at `scale` `unit` per IOPS. Returns the band's highest point [unit]
    (0 when none is drawn) and the fit (None when there is none), which the forecast past the
    data takes over (:func:`_add_throughput_forecast`). A stalled step is left out of the fit,
    as the report's key numbers leave it out (:func:`findings.unstalled_steps`).
    """
    ok = np.isfinite(n) & np.isfinite(iops) & (n > 0) & (iops > 0)
    keep, stalls = findings.unstalled_steps(n[ok], iops[ok])
    for note in stalls:
        subtitle(fig, note, prefix=prefix)
    n, iops = n[ok][keep], iops[ok][keep]
    if np.unique(n).size < 4:
        subtitle(
            fig, f"no fitted curve: {np.unique(n).size} concurrencies (4 needed)", prefix=prefix
        )
        return 0.0, None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # kept in the fit's notes, shown below
            fit = fit_throughput_curve(n, iops)
        # the depths measured are on the grid: the band is read off exactly where the data are
        grid = np.unique(
            np.concatenate(
                [np.geomspace(min(1.0, float(n.min())), float(n.max()), CURVE_POINTS), n]
            )
        )
        band = predict_band(fit, grid, draws=draws, seed=seed) if draws > 0 else None
    except ModelError as exc:
        subtitle(fig, f"no throughput curve: {exc}", prefix=prefix)
        return 0.0, None
    top = 0.0
    if band is not None:
        ok = band[["lower", "upper"]].notna().all(axis=1).to_numpy()
        fig.add_scatter(
            x=np.concatenate([grid[ok], grid[ok][::-1]]),
            y=scale * np.concatenate([band["upper"][ok], band["lower"][ok][::-1]]),
            fill="toself", fillcolor=BAND_COLOR, line={"width": 0}, hoverinfo="skip",
            mode="lines", name=f"{prefix}95 % prediction band", legendgroup=prefix,
        )  # fmt: skip
        top = scale * float(band["upper"][ok].max()) if ok.any() else 0.0
    weights = ", ".join(f"{k} {v:.0%}" for k, v in fit.weights.items())
    fmt = "%{y:,.0f}" if unit == "IOPS" else "%{y:,.1f}"
    curve = scale * np.asarray(throughput_curve(grid, **fit), float)
    fig.add_scatter(
        x=grid, y=curve, mode="lines", legendgroup=prefix,
        name=f"{prefix}fitted curve", line={"color": color, "width": 2, "dash": "dash"},
        hovertemplate=f"fitted ({weights}): {fmt} {unit} at %{{x:,.0f}}<extra></extra>",
    )  # fmt: skip
    rule(fig, x=float(n.max()), color="#999", dash="dot")
    return max(top, float(np.nanmax(curve))), fit


def _add_throughput_forecast(
    fig: go.Figure,
    prefix: str,
    n: np.ndarray,
    iops: np.ndarray,
    lat_ms: np.ndarray,
    color: str,
    known: KnownLimits | None,
    *,
    scale: float = 1.0,
    unit: str = "IOPS",
    fit: FitResult | None = None,
) -> tuple[float, float]:
    """The forecast past the largest concurrency measured: its 95 % band and dashed estimate.

    Fitted in IOPS, drawn at `scale` `unit` per IOPS. Where the data cannot tell, nothing is
    drawn and the reason is said under the title. Returns the band's highest point [unit] and
    the largest concurrency drawn (0, 0 when nothing is).
    """
    ok = np.isfinite(n) & np.isfinite(iops) & (n > 0) & (iops > 0)
    n, iops = n[ok], iops[ok]
    if np.unique(n).size < 4:
        return 0.0, 0.0  # the fitted curve's note says so
    largest = float(n.max())
    reach = FORECAST_REACH * largest
    r_min_ms = float(np.min(n / iops)) * MS_PER_S
    knee = knee_concurrency(known, r_min_ms) if known is not None else math.nan
    if math.isfinite(knee):
        reach = min(max(reach, knee), FORECAST_MAX_REACH * largest)
    grid = np.geomspace(largest, reach, CURVE_POINTS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fc = forecast_throughput(n, iops, grid, known, draws=BAND_DRAWS, fit=fit)
    except ModelError as exc:
        subtitle(fig, f"no forecast past {largest:g} in flight: {exc}", prefix=prefix)
        return 0.0, 0.0
    if not fc.predictable:
        subtitle(fig, f"past {largest:g} in flight: {_not_predictable(fc.says(), known)}",
                 prefix=prefix)  # fmt: skip
        return 0.0, 0.0
    band = np.isfinite(fc.lower) & np.isfinite(fc.upper)
    top = 0.0
    if band.any():
        fig.add_scatter(
            x=np.concatenate([grid[band], grid[band][::-1]]),
            y=scale * np.concatenate([fc.upper[band], fc.lower[band][::-1]]),
            fill="toself", fillcolor=FORECAST_BAND_COLOR, line={"width": 0}, hoverinfo="skip",
            mode="lines", name=f"{prefix}95 % forecast band", legendgroup=prefix,
        )  # fmt: skip
        top = scale * float(fc.upper[band].max())
    fmt = "%{y:,.0f}" if unit == "IOPS" else "%{y:,.1f}"
    fig.add_scatter(
        x=grid, y=scale * fc.estimate, mode="lines", legendgroup=prefix,
        name=f"{prefix}forecast: {fc.basis}",
        line={"color": color, "width": 2, "dash": "longdash"},
        hovertemplate=f"forecast ({plot_text(fc.basis)}): {fmt} {unit} at %{{x:,.0f}} in flight"
                      "<extra></extra>",
    )  # fmt: skip
    return max(top, scale * float(np.nanmax(fc.estimate))), reach


#: Fill of a forecast's band past the data (lighter than the fitted band over the data).
FORECAST_BAND_COLOR = "rgba(0, 114, 178, 0.12)"


def _binding(known: KnownLimits | None, iops: np.ndarray) -> KnownLimits | None:
    """`known` when it names a limit the rates measured do not pass (the forecasts' rule)."""
    if known is None or not known.known:
        return None
    kept, _ = known.unless_passed_by(iops[np.isfinite(iops)])
    return kept if kept.known else None


def _left_out(known: KnownLimits, iops: np.ndarray) -> str:
    """Why a known limit is not drawn: the rates measured pass it."""
    return (
        f"the limit given, {known.iops_max:,.0f} IOPS ({limit_name(known)}), is below the "
        f"{float(np.nanmax(iops)):,.0f} IOPS measured: it does not bind here, not drawn"
    )


def _not_predictable(why: str, known: KnownLimits | None) -> str:
    """Why a forecast gives no number, in a line: 'not predictable from these data: ...' with
    its first clause (:func:`~anfperf.models.forecast.result.gist`)."""
    short = gist(why) or "too little data"
    if short.startswith("no forecast ("):  # the model's own error, said whole
        return short
    if (known is None or not known.known) and "limit" not in short:
        short += "; no limit of the volume is known"
    return f"{NOT_PREDICTABLE}: {short}"


# --------------------------------------------------------------------------------------------
# Read/write mix


def mix(
    frame: pd.DataFrame,
    *,
    run_id: str | None = None,
    workload: str | None = None,
    y: str | None = None,
    rows: pd.DataFrame | None = None,
    known: KnownLimits | None = None,
) -> go.Figure:
    """Throughput against the read share of read/write mix sweeps, with the fitted mix model.

    Per sweep: the measured points (IOPS and MiB/s in their hover) and
    :func:`anfperf.models.mix_throughput` fitted to them (:func:`anfperf.models.fit_mix`), its
    median absolute percentage error (MdAPE) in the legend.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    run_id : str, optional
        Draw only this run.
    workload : str, optional
        Draw only the points of this workload.
    y : {'iops', 'bw_mib_s'}, optional
        Throughput drawn [IOPS] or [MiB/s]; default MiB/s for large-block (>= 64 KiB) or
        sequential sweeps, else IOPS.
    rows : pandas.DataFrame, optional
        :func:`anfperf.analysis.summary_rows` of `frame` (or of run `run_id`), if already made.
    known : KnownLimits, optional
        The volume's and clients' limit at the run's block size (reads and writes share it):
        no mix model goes above it, and it is drawn as a line, 'known limit'. Rates measured
        above it: it is not this volume's, neither used nor drawn, and the chart says so.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces per sweep: 'measured', 'mix model (MdAPE e %)' (with only two read shares
        measured: 'mix model (harmonic, exact at its 2 read shares)') and, when there is one
        sweep, '95 % band of the mix model' (:func:`anfperf.models.mix_band`). Several sweeps
        (a grid's counts in flight) get one legend entry each, 'measured' named by its error.
        A sweep without pure reads or writes: its model and band are drawn over the read shares
        measured only (an end not measured is an extrapolation), and a line under the title
        says so.

    Raises
    ------
    anfperf.ModelError
        An empty or non-tidy frame, an unknown `y`, `run_id` or `workload`, or no sweep of 2 or
        more read shares.
    """
    titles = THROUGHPUT_TITLES
    if y is not None and y not in titles:
        raise ModelError(f"y must be one of {sorted(titles)}, got {y!r}")
    if y is None:
        rows = rows if rows is not None else summary_rows(frame)
        chosen = rows if run_id is None else rows[rows["run_id"].astype(str) == run_id]
        y = throughput_column(chosen)

    def mixes(fixed: tuple[str, ...]) -> list[_Sweep]:
        return _sweeps(
            frame, run_id=run_id, workload=workload, fixed=fixed, x="read_pct", y=y,
            load=lambda r: r["read_pct"], order=("read_pct", "iops"),
            what="read/write mix sweep",
            needs="whole-run points at 2 or more read shares of one workload", rows=rows,
        )  # fmt: skip

    sweeps = mixes(("bs_kib", "pattern"))
    left_out = 0
    try:  # mixes are time sharing at one count in flight: a grid's counts are curves apart
        per_count = mixes(("bs_kib", "pattern", "configured"))
    except ModelError:  # mixes each run at a count of its own: one sweep, as they are
        per_count = []
    if len(per_count) > 1:
        left_out = sum(len(s.rows) for s in sweeps) - sum(len(s.rows) for s in per_count)
        sweeps = per_count
    fig = figure(_title("Read/write mix", sweeps, workload), "Read share [%]", titles[y])
    fmt = "%{y:,.0f}" if y == "iops" else "%{y:,.1f}"
    # the limit, in the chart's unit, unless the rates measured pass it (the forecasts' rule)
    all_iops = np.concatenate([_floats(s.rows, "iops") for s in sweeps])
    binding = _binding(known, all_iops)
    cap = math.inf if binding is None else binding.iops_max if y == "iops" else binding.bw_mib_s
    if known is not None and known.known and binding is None:
        subtitle(fig, _left_out(known, all_iops))
    several = len(sweeps) > 1
    if several:  # a grid's counts in flight in their numbers' order, one legend entry each
        sweeps = sorted(sweeps, key=lambda s: natural_key(s.label))
        subtitle(fig, "dots: measured; lines: the mix model fitted to each sweep's points")
    if left_out:
        subtitle(fig, f"{left_out} point{'s' if left_out > 1 else ''} not drawn: the only "
                      "read share measured at its count in flight")  # fmt: skip
    for i, sweep in enumerate(sweeps):
        color = COLORWAY[i % len(COLORWAY)]
        rows, p = sweep.rows, sweep.label
        pct, val = _floats(rows, "read_pct"), _floats(rows, y)
        other = "bw_mib_s" if y == "iops" else "iops"
        extra = {
            "MiB/s" if other == "bw_mib_s" else "IOPS": [
                f"{v:,.1f}" if other == "bw_mib_s" else f"{v:,.0f}" for v in _floats(rows, other)
            ]
        }
        data, template = _hover(
            rows, extra, [("read share", "%{x:.0f} %"), ("IOPS" if y == "iops" else "MiB/s", fmt)]
        )
        measured = fig.add_scatter(
            x=pct, y=val, mode="markers", name=f"{p}measured", legendgroup=p,
            marker={"color": color, "size": 9}, customdata=data, hovertemplate=template,
        ).data[-1]  # fmt: skip
        try:
            fit = fit_mix(pct, val, limit=cap if math.isfinite(cap) else None)
        except ModelError as exc:
            subtitle(fig, f"no mix model: {exc}", prefix=p)
            continue
        # an end not measured is an extrapolation the band may not bound: drawn up to the
        # read shares measured only
        ends = [e for e in ("write_max", "read_max") if e not in fit.fixed]
        span = (float(pct.min()) if "write_max" in ends else 0.0,
                float(pct.max()) if "read_max" in ends else 100.0)  # fmt: skip
        grid = np.linspace(*span, 101)
        if ends:
            missing = ("reads or writes" if len(ends) == 2
                       else "writes" if ends == ["write_max"] else "reads")  # fmt: skip
            subtitle(fig, f"no pure {missing} measured: the model is drawn over the read "
                          "shares measured only", prefix=p)  # fmt: skip
        # through two read shares the model fits exactly: an error of 0 would claim too much
        error = (
            f"MdAPE {fit.mdape_pct:.1f} %"
            if np.unique(pct).size > 2
            else "harmonic, exact at its 2 read shares"
        )
        if several:  # the sweep's one legend entry names its model's error
            measured.name = f"{p}({error})"
        else:  # what the mixes between the measured ones may give (one sweep: no clutter)
            low, high = mix_band(fit, grid)
            fig.add_scatter(
                x=np.concatenate([grid, grid[::-1]]), y=np.concatenate([high, low[::-1]]),
                fill="toself", fillcolor=BAND_COLOR, line={"width": 0}, hoverinfo="skip",
                mode="lines", name=f"{p}95 % band of the mix model", legendgroup=p,
                legendrank=1001,  # listed after the points and the model
            )  # fmt: skip
        fig.add_scatter(
            x=grid, y=mix_throughput(grid, **fit), mode="lines", legendgroup=p,
            name=f"{p}mix model ({error})", showlegend=not several,
            line={"color": color if several else MODEL_COLOR, "width": 2},
            hovertemplate=f"model: %{{x:.0f}} % read, {fmt}<extra></extra>",
        )  # fmt: skip
    if math.isfinite(cap):
        add_limit_line(fig, cap, binding, horizontal=True, span=(0.0, 100.0))
    fig.data = sorted(fig.data, key=lambda t: t.fill != "toself")  # bands under the points
    fig.update_xaxes(range=[-3, 103], dtick=10)
    fig.update_yaxes(rangemode="tozero")
    return fig


# --------------------------------------------------------------------------------------------
# Sweeps of a frame


def _sweeps(
    frame: pd.DataFrame,
    *,
    run_id: str | None,
    workload: str | None,
    fixed: Sequence[str],
    x: str,
    y: str,
    load: Callable[[pd.DataFrame], pd.Series],
    order: Sequence[str],
    what: str,
    needs: str,
    uncontrolled: bool = False,
    rows: pd.DataFrame | None = None,
) -> list[_Sweep]:
    """The sweeps of a frame: whole-run points alike in `fixed`, at MIN_POINTS or more loads.

    Points without a finite, positive `x` and `y` are left out; `uncontrolled` leaves out
    rate-limited points too. Each sweep's points are sorted by the columns `order` (the sweep's
    order: its dotted line follows it). `rows`: the frame's summary rows, if already made.
    Raises a ModelError naming what the frame lacks.
    """
    if rows is None:
        rows = summary_rows(frame)  # ModelError for an empty or non-tidy frame
    elif rows.empty:
        raise ModelError("the frame has no whole-run (is_summary) rows")
    runs = sorted(rows["run_id"].astype(str).unique())
    where = "the frame"
    if run_id is not None:
        if run_id not in runs:
            raise ModelError(f"run {run_id!r} is not in the frame; it holds {runs}")
        rows, where = rows[rows["run_id"].astype(str) == run_id], f"run {run_id!r}"
    if workload is not None:
        names = rows["workload"].astype(str)
        if workload not in set(names):
            raise ModelError(f"no workload {workload!r} in {where}; it holds {sorted(set(names))}")
        rows, where = rows[names == workload], f"workload {workload!r} of {where}"
    found: list[tuple[str, list[str], pd.DataFrame, pd.DataFrame]] = []
    for rid, run in rows.groupby("run_id", sort=True):
        keys = [c for c in fixed if c in run]
        # Vdbench names the workload (wd=) of every step: a repeated name is a sweep's
        if run["workload"].astype(str).nunique() < len(run):
            keys = ["workload", *keys]
        for _, part in alike(run, keys):
            usable = _usable(part, x, y, uncontrolled)
            if load(usable).nunique() >= MIN_POINTS:
                found.append((str(rid), keys, usable, part))
    if not found:
        what_is = ""
        if run_id is not None:
            kinds = findings.run_kinds(frame).set_index("run_id")["kind"]
            what_is = f" (findings: {kinds[run_id]})" if run_id in kinds.index else ""
        raise ModelError(f"no {what} to draw in {where}{what_is}: a {what} needs {needs}")
    named = [(rid, _describe(part, keys)) for rid, keys, _, part in found]
    if len(set(named)) < len(named):  # one workload swept at several settings: name those
        named = [(rid, _describe(part, keys, by_name=False)) for rid, keys, _, part in found]
    found = [(rid, desc, usable, part) for (rid, desc), (_, _, usable, part) in
             zip(named, found, strict=True)]  # fmt: skip
    several_in_run = {r: sum(f[0] == r for f in found) > 1 for r, _, _, _ in found}
    out = []
    for rid, desc, usable, part in found:
        if len(found) == 1:
            label = ""
        else:
            # the legend prefix: plotly text, as the run's and workload's names are written
            label = plot_text(f"{rid} / {desc} " if several_in_run[rid] else f"{rid} ")
        usable = usable.sort_values(list(order), kind="stable", na_position="last")
        # findings gets all the sweep's rows, as it would from the run: it leaves out what it
        # cannot use itself
        out.append(_Sweep(rid, label, usable.reset_index(drop=True), part))
    return out


def _usable(rows: pd.DataFrame, x: str, y: str, uncontrolled: bool) -> pd.DataFrame:
    xs = pd.to_numeric(rows[x], errors="coerce").astype(float)
    ys = pd.to_numeric(rows[y], errors="coerce").astype(float)
    ok = np.isfinite(xs) & np.isfinite(ys) & (ys > 0)
    if x != "read_pct":
        ok &= xs > 0  # a read share of 0 is a point; a load of 0 is none
    if uncontrolled and "rate_limit_iops" in rows:
        ok &= pd.to_numeric(rows["rate_limit_iops"], errors="coerce").isna()
    return rows[ok.to_numpy(bool)]


def _describe(rows: pd.DataFrame, keys: list[str], *, by_name: bool = True) -> str:
    """A sweep's name in the legend: its workload, else (or with `by_name` False) block size,
    pattern, read share and count in flight."""
    names = rows["workload"].astype(str).unique()
    if by_name and len(names) == 1 and names[0]:
        return names[0]
    parts = []
    for col, fmt in (("bs_kib", "{:g} KiB"), ("pattern", "{}"), ("read_pct", "{:g} % read"),
                     ("configured", "{:g} in flight")):  # fmt: skip
        if col in keys and rows[col].notna().any():
            parts.append(fmt.format(rows[col].iloc[0]))
    return " ".join(parts) or "sweep"


def _tidy_rows(frame: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of `frame` behind summary rows `rows` (same run, job, workload, step, loop)."""
    run = frame[frame["run_id"].astype(str).isin(set(rows["run_id"].astype(str)))]
    if "is_summary" in run:
        # findings reads whole-run rows only; a run's interval rows can be many
        run = run[run["is_summary"].fillna(False).astype(bool).to_numpy()]
    cols = [c for c in _IDENT if c in run.columns and c in rows.columns]

    def ident(df: pd.DataFrame) -> pd.Series:
        # summary_rows writes missing keys as "" and may turn a step 0 into 0.0: compare alike
        parts = [df[c].astype(object).map(_key_text) for c in cols]
        return pd.Series(list(zip(*parts, strict=True)), index=df.index, dtype=object)

    matched = run[ident(run).isin(set(ident(rows))).to_numpy(bool)]
    return matched if not matched.empty else run


def _key_text(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, int | float | np.integer | np.floating):
        return f"{float(value):g}"
    return str(value)


# --------------------------------------------------------------------------------------------
# Small helpers


def _floats(rows: pd.DataFrame, col: str) -> np.ndarray:
    if col not in rows:
        return np.full(len(rows), np.nan)
    return pd.to_numeric(rows[col], errors="coerce").to_numpy(float)


def _ints(rows: pd.DataFrame, col: str) -> list[str]:
    return [f"{v:,.0f}" if math.isfinite(v) else "-" for v in _floats(rows, col)]


def _hover(
    rows: pd.DataFrame, extra: dict[str, Sequence[str]], lines: Sequence[tuple[str, str]]
) -> tuple[np.ndarray, str]:
    """:func:`anfperf.plots._style.hover` with more per-point fields than the trace's x and y."""
    start = sum(f in rows.columns for f in ID_FIELDS)  # hover's customdata columns come first
    more = [(label, f"%{{customdata[{start + i}]}}") for i, label in enumerate(extra)]
    data, template = hover(rows, [*lines, *more])
    if extra:
        data = np.column_stack([data, *(np.asarray(v, dtype=object) for v in extra.values())])
    return data, template


def _title(text: str, sweeps: list[_Sweep], workload: str | None) -> str:
    runs = sorted({s.run_id for s in sweeps})
    if len(runs) == 1:
        text += f": {runs[0]}"
    return text + (f" / {workload}" if workload else "")
