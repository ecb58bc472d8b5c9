"""Charts of sweeps: latency against throughput, scaling with concurrency, the read/write mix.

Each draws the measured whole-run points (one per run x job step, all hosts together, as
:func:`anfperf.models.summary_rows` gives them) and the model fitted to the same points, so the
chart and the report's numbers (:func:`anfperf.findings.key_numbers`) cannot disagree.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from anfperf import findings
from anfperf.errors import ModelError
from anfperf.models._common import summary_rows
from anfperf.models.band import predict_band
from anfperf.models.curves import (
    queueing_latency,
    refit_queueing_latency,
    refit_usl,
    usl,
    usl_latency_ms,
)
from anfperf.models.littles_law import iops_at_concurrency
from anfperf.models.mix import fit_mix, mix_throughput
from anfperf.plots._style import (
    BAND_COLOR,
    COLORWAY,
    MODEL_COLOR,
    SLO_COLOR,
    figure,
    hover,
)

#: Points of a drawn model curve.
GRID_POINTS = 200
#: Bootstrap resamples of a band: stable enough for a chart, quick enough for a report.
BAND_RESAMPLES = 200


def _runs(frame: pd.DataFrame, run_id: str | None, kinds: tuple[str, ...], what: str):
    """(run_id, whole-run rows) of the runs of the given kinds, in run order."""
    rows = summary_rows(frame)
    kind = findings.run_kinds(frame).set_index("run_id")["kind"]
    wanted = [r for r in kind.index if kind[r] in kinds and (run_id is None or r == run_id)]
    if run_id is not None and run_id not in kind.index:
        raise ModelError(f"run {run_id!r} is not in the frame; it holds {sorted(kind.index)}")
    if not wanted:
        where = f"run {run_id!r} is a {kind[run_id]}" if run_id else "the frame has none"
        raise ModelError(f"no {what} to draw: {where}")
    return [(r, rows[rows["run_id"] == r]) for r in wanted]


def _one_run_names(fig: go.Figure, runs: list) -> go.Figure:
    """Legend entries without the run id when one run is drawn (the title names it)."""
    if len(runs) == 1:
        prefix = f"{runs[0][0]} "
        for trace in fig.data:
            if trace.name and trace.name.startswith(prefix):
                trace.name = trace.name[len(prefix) :]
    return fig


def _floats(rows: pd.DataFrame, col: str) -> np.ndarray:
    return pd.to_numeric(rows[col], errors="coerce").to_numpy(float)


def latency_curve(
    frame: pd.DataFrame,
    *,
    run_id: str | None = None,
    lat_slo_ms: float = 1.0,
    seed: int = 0,
    resamples: int = BAND_RESAMPLES,
) -> go.Figure:
    """Mean latency against throughput of load sweeps, with the fitted queueing curve.

    Per run: the measured points, the queueing curve fitted to them
    (:func:`anfperf.findings.latency_fit`) and its 95 % band (case bootstrap, seeded), the knee
    and the IOPS at the latency SLO where :func:`anfperf.findings.key_numbers` names them; the SLO
    as a horizontal line.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame holding concurrency sweeps or load curves.
    run_id : str, optional
        Draw only this run.
    lat_slo_ms : float
        Latency objective [ms].
    seed, resamples : int
        Seed and size of the band's bootstrap.

    Raises
    ------
    anfperf.ModelError
        No sweep in the frame (or `run_id` is not one).
    """
    runs = _runs(frame, run_id, (findings.KIND_CONCURRENCY, findings.KIND_RATE), "load sweep")
    drawn = frame[frame["run_id"].isin([r for r, _ in runs])]
    numbers = findings.key_numbers(drawn, lat_slo_ms=lat_slo_ms).set_index("run_id")
    fig = figure(
        "Latency vs throughput" + (f": {run_id}" if run_id else ""),
        "Throughput [IOPS]",
        "Mean latency [ms]",
    )
    top = lat_slo_ms
    for i, (rid, rows) in enumerate(runs):
        color = COLORWAY[i % len(COLORWAY)]
        # in sweep order (concurrency, then load): the dotted line follows the sweep
        rows = rows.sort_values(["configured", "iops"], kind="stable")
        x, y = _floats(rows, "iops"), _floats(rows, "lat_mean_ms")
        ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
        data, template = hover(
            rows, [("outstanding", "%{text}"), ("IOPS", "%{x:,.0f}"), ("latency", "%{y:.3f} ms")]
        )
        fig.add_scatter(
            x=x, y=y, mode="markers+lines", name=f"{rid} measured", legendgroup=rid,
            marker={"color": color, "size": 8}, line={"color": color, "width": 1, "dash": "dot"},
            text=rows["configured"].astype(str).to_numpy(), customdata=data,
            hovertemplate=template,
        )  # fmt: skip
        n = _floats(rows, "configured")
        _add_fit(fig, rid, (x[ok], y[ok], n[ok]), numbers.loc[rid], color, seed, resamples)
        top = max(top, float(np.nanmax(y[ok])) if ok.any() else 0.0)
    fig.add_hline(
        y=lat_slo_ms, line={"color": SLO_COLOR, "dash": "dash", "width": 1.5},
        annotation_text=f"SLO {lat_slo_ms:g} ms", annotation_position="top left",
        annotation_font_color=SLO_COLOR,
    )  # fmt: skip
    # the model and its band rise steeply past the data: show the measured range and the SLO
    fig.update_yaxes(range=[0, 1.3 * top])
    return _one_run_names(fig, runs)


def usl_latency_at_iops(iops: object, lam: float, sigma: float, kappa: float) -> np.ndarray:
    """Mean latency [ms] of the USL as a function of throughput, up to its peak (NaN beyond).

    The USL gives throughput X(N) and latency N / X(N) for each concurrency N; read as latency
    against throughput, the curve ends where X stops growing (more concurrency only adds
    latency there).
    """
    n_peak = math.sqrt((1 - sigma) / kappa) if kappa > 0 else 1e6
    n = np.geomspace(1.0, max(n_peak, 2.0), 600)
    x = np.asarray(usl(n, lam, sigma, kappa), float)
    r = np.asarray(usl_latency_ms(n, lam, sigma, kappa), float)
    grow = np.concatenate([[True], np.diff(x) > 0])
    return np.interp(np.asarray(iops, float), x[grow], r[grow], left=np.nan, right=np.nan)


def _add_fit(fig, rid, points, numbers, color, seed, resamples) -> None:
    """The fitted curve, its band, the knee and the IOPS at the SLO of one run.

    The curve is the one :func:`anfperf.findings.key_numbers` read its numbers from: the USL
    for a concurrency sweep, the queueing curve for a load curve.
    """
    x, y, n = points
    try:
        if numbers["kind"] == findings.KIND_CONCURRENCY:
            fit = findings.concurrency_fit(n, x)
            model, xs, ys = usl_latency_at_iops, n, x
            refit, label = refit_usl, "USL fit"
        else:
            fit = findings.latency_fit(x, y)
            model, xs, ys = queueing_latency, x, y
            refit, label = refit_queueing_latency, "queueing fit"
    except ModelError:
        return  # key_numbers' notes say why; the measured points stand alone
    if not fit.r2 >= findings.MIN_R2:
        return
    grid = np.linspace(0.0, float(np.nanmax(x)) * 1.1, GRID_POINTS)
    curve = np.asarray(model(grid, **fit), float)
    shown = np.isfinite(curve) & (curve <= 4 * float(np.nanmax(y)))
    if x.size >= 4:
        try:
            low, high = predict_band(
                lambda a, b: refit(a, b, fit), model, xs, ys, grid, resamples=resamples,
                seed=seed,
            )  # fmt: skip
        except ModelError:
            low = high = None
        if low is not None:
            keep = shown & np.isfinite(low) & np.isfinite(high)
            fig.add_scatter(
                x=np.concatenate([grid[keep], grid[keep][::-1]]),
                y=np.concatenate([high[keep], low[keep][::-1]]),
                fill="toself", fillcolor=BAND_COLOR, line={"width": 0}, hoverinfo="skip",
                name=f"{rid} 95 % band", legendgroup=rid, showlegend=True,
            )  # fmt: skip
    fig.add_scatter(
        x=grid[shown], y=curve[shown], mode="lines", legendgroup=rid,
        name=f"{rid} {label} (R² {fit.r2:.2f})", line={"color": MODEL_COLOR, "width": 2},
        hovertemplate="fit: %{x:,.0f} IOPS, %{y:.3f} ms<extra></extra>",
    )  # fmt: skip
    if not math.isnan(numbers["knee_iops"]):
        fig.add_scatter(
            x=[numbers["knee_iops"]], y=[numbers["knee_lat_ms"]], mode="markers+text",
            name=f"{rid} knee", legendgroup=rid, text=[f"knee {numbers['knee_iops']:,.0f} IOPS"],
            textposition="top left",
            marker={"symbol": "diamond", "size": 12, "color": color,
                    "line": {"color": MODEL_COLOR, "width": 1}},
            hovertemplate="knee: %{x:,.0f} IOPS at %{y:.3f} ms<extra></extra>",
        )  # fmt: skip
    slo_iops = numbers["iops_at_slo_measured"]
    source = "measured"
    if math.isnan(slo_iops):
        slo_iops, source = numbers["iops_at_slo_model"], "fitted curve"
    if not math.isnan(slo_iops):
        fig.add_vline(
            x=slo_iops, line={"color": SLO_COLOR, "dash": "dot", "width": 1},
            annotation_text=f"{slo_iops:,.0f} IOPS at the SLO ({source})",
            annotation_position="top left", annotation_font_color=SLO_COLOR,
        )  # fmt: skip


def scaling(frame: pd.DataFrame, *, run_id: str | None = None) -> go.Figure:
    """Throughput against outstanding I/O of concurrency sweeps, with Little's law.

    Per run: the measured IOPS at each configured concurrency, Little's law at the measured
    latency of each point (``IOPS = outstanding / latency``: a point below it had I/Os waiting
    outside the device, in the tool or the client), and the ideal line at the latency of the
    lowest concurrency (what the rate would be if latency stayed unloaded).

    Raises
    ------
    anfperf.ModelError
        No concurrency sweep in the frame (or `run_id` is not one).
    """
    runs = _runs(frame, run_id, (findings.KIND_CONCURRENCY,), "concurrency sweep")
    fig = figure(
        "Scaling with outstanding I/O" + (f": {run_id}" if run_id else ""),
        "Outstanding I/O [threads x queue depth]",
        "Throughput [IOPS]",
    )
    for i, (rid, rows) in enumerate(runs):
        color = COLORWAY[i % len(COLORWAY)]
        rows = rows.sort_values("configured", kind="stable")
        n, x, lat = _floats(rows, "configured"), _floats(rows, "iops"), _floats(rows, "lat_mean_ms")
        data, template = hover(
            rows, [("outstanding", "%{x:,.0f}"), ("IOPS", "%{y:,.0f}"), ("latency", "%{text} ms")]
        )
        fig.add_scatter(
            x=n, y=x, mode="markers+lines", name=f"{rid} measured", legendgroup=rid,
            marker={"color": color, "size": 8}, line={"color": color, "width": 1.5},
            text=[f"{v:.3f}" for v in lat], customdata=data, hovertemplate=template,
        )  # fmt: skip
        ok = np.isfinite(n) & np.isfinite(lat) & (lat > 0)
        fig.add_scatter(
            x=n[ok], y=iops_at_concurrency(n[ok], lat[ok]), mode="markers", legendgroup=rid,
            name=f"{rid} Little's law at the measured latency",
            marker={"symbol": "x", "size": 8, "color": MODEL_COLOR},
            hovertemplate="N / R: %{y:,.0f} IOPS<extra></extra>",
        )  # fmt: skip
        if ok.any():
            first = int(np.argmax(ok))
            grid = np.linspace(0.0, float(np.nanmax(n)), GRID_POINTS)
            ideal = iops_at_concurrency(grid, lat[first])
            fig.add_scatter(
                x=grid, y=ideal, mode="lines", legendgroup=rid,
                name=f"{rid} ideal: latency stays {lat[first]:.3f} ms",
                line={"color": MODEL_COLOR, "dash": "dash", "width": 1},
                hovertemplate="ideal: %{y:,.0f} IOPS at N=%{x:.0f}<extra></extra>",
            )  # fmt: skip
    top = max(float(np.nanmax(_floats(r, "iops"))) for _, r in runs)
    fig.update_yaxes(range=[0, 1.15 * top])  # the ideal line would flatten the measured curve
    return _one_run_names(fig, runs)


def mix(frame: pd.DataFrame, *, run_id: str | None = None, y: str = "iops") -> go.Figure:
    """Throughput against the read share of read/write mix sweeps, with the mix model.

    Per run: the measured points and :func:`anfperf.models.mix_throughput` fitted to them
    (:func:`anfperf.models.fit_mix`), its median error in the legend.

    Parameters
    ----------
    y : {'iops', 'bw_mib_s'}
        Throughput measure.

    Raises
    ------
    anfperf.ModelError
        No mix sweep in the frame (or `run_id` is not one), or an unknown `y`.
    """
    units = {"iops": "Throughput [IOPS]", "bw_mib_s": "Throughput [MiB/s]"}
    if y not in units:
        raise ModelError(f"y must be one of {sorted(units)}, got {y!r}")
    runs = _runs(frame, run_id, (findings.KIND_MIX,), "read/write mix sweep")
    fig = figure("Read/write mix" + (f": {run_id}" if run_id else ""), "Read share [%]", units[y])
    fmt = "%{y:,.0f}" if y == "iops" else "%{y:,.1f}"
    for i, (rid, rows) in enumerate(runs):
        color = COLORWAY[i % len(COLORWAY)]
        rows = rows.sort_values("read_pct", kind="stable")
        pct, val = _floats(rows, "read_pct"), _floats(rows, y)
        data, template = hover(rows, [("read %", "%{x:.0f}"), (y, fmt)])
        fig.add_scatter(
            x=pct, y=val, mode="markers", name=f"{rid} measured", legendgroup=rid,
            marker={"color": color, "size": 9}, customdata=data, hovertemplate=template,
        )  # fmt: skip
        try:
            fit = fit_mix(pct, val)
        except ModelError:
            continue
        grid = np.linspace(0.0, 100.0, 101)
        fig.add_scatter(
            x=grid, y=mix_throughput(grid, **fit), mode="lines", legendgroup=rid,
            name=f"{rid} mix model (median error {fit.mdape_pct:.1f} %)",
            line={"color": MODEL_COLOR, "width": 2},
            hovertemplate=f"model: %{{x:.0f}} % read, {fmt}<extra></extra>",
        )  # fmt: skip
    fig.update_xaxes(range=[-3, 103], dtick=10)
    return _one_run_names(fig, runs)
