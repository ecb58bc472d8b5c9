"""Charts of one run's detail: hosts side by side, intervals over time, latency distributions.

:func:`host_bars` and :func:`intervals` read the tidy frame; :func:`latency_over_time` reads fio's
per-interval logs (:func:`anfperf.ingest.read_fio_log`); :func:`latency_cdf` reads fio json+
latency bins (the frame's ``lat_bins``) or Vdbench histograms
(:func:`anfperf.ingest.read_vdbench_histogram`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from anfperf.analysis.summary import job_labels
from anfperf.errors import AnfperfError
from anfperf.ingest.combine import merge_bins, percentiles_from_bins
from anfperf.plots._style import (
    COLORWAY,
    LIMIT_COLOR,
    WARMUP_COLOR,
    WORSE_COLOR,
    figure,
    fit_legend,
    hover,
    log_axis,
    plot_text,
    require_rows,
    subtitle,
    throughput_column,
)
from anfperf.units import NS_PER_MS
from anfperf.values import natural_key

#: Metrics of the per-host and per-interval charts -> axis title.
METRICS = {
    "iops": "Throughput [IOPS]",
    "bw_mib_s": "Throughput [MiB/s]",
    "lat_mean_ms": "Mean latency [ms]",
    "lat_p99_ms": "99th percentile latency [ms]",
}
#: A host below this share of the hosts' median is a straggler (drawn in the 'worse' colour).
STRAGGLER_SHARE = 0.9
_LATENCY = ("lat_mean_ms", "lat_p99_ms")


def _metric(metric: str) -> str:
    if metric not in METRICS:
        raise AnfperfError(f"metric must be one of {sorted(METRICS)}, got {metric!r}")
    return METRICS[metric]


def _of_run(frame: pd.DataFrame, run_id: str | None) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame) or "run_id" not in frame:
        raise AnfperfError("expected a tidy frame (anfperf.ingest.read / read_many)")
    if run_id is None:
        return frame
    rows = frame[frame["run_id"] == run_id]
    if rows.empty:
        raise AnfperfError(
            f"run {run_id!r} is not in the frame; it holds {sorted(frame['run_id'].unique())}"
        )
    return rows


def host_bars(
    frame: pd.DataFrame, *, metric: str | None = None, run_id: str | None = None
) -> go.Figure:
    """Whole-run `metric` of every client host, per job: stragglers stand out.

    Bars of hosts below :data:`STRAGGLER_SHARE` of the median of their job's hosts (above
    1 / STRAGGLER_SHARE for latencies) are drawn in the 'worse' colour; a dashed line marks each
    job's median. The cross-host aggregate (host 'all') is left out.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame.
    metric : str, optional
        A key of :data:`METRICS`; default: MiB/s for large-block (>= 64 KiB) or sequential
        runs, IOPS for the others (:func:`anfperf.plots._style.throughput_column`).
    run_id : str, optional
        Only this run (named in the title).

    Raises
    ------
    anfperf.AnfperfError
        Unknown `metric` or run, or no per-host whole-run rows.
    """
    rows = _of_run(frame, run_id)
    rows = rows[
        rows["is_summary"] & (rows["direction"] == "total") & (rows["host"].astype(str) != "all")
    ].copy()
    require_rows(rows, "no per-host whole-run rows")
    metric = metric or throughput_column(rows)
    y_title = _metric(metric)
    rows["_job"] = rows["run_id"].astype(str) + " / " + job_labels(rows)
    rows["_host"] = rows["host"].astype(str).fillna("-")
    value = pd.to_numeric(rows[metric], errors="coerce").astype(float)
    median = value.groupby(rows["_job"]).transform("median")
    share = value / median
    slow = share > 1 / STRAGGLER_SHARE if metric in _LATENCY else share < STRAGGLER_SHARE
    fig = figure(
        f"Per host: {y_title.split(' [')[0].lower()}, {_runs_named(rows, run_id)}",
        "Job / host",
        y_title,
    )
    x = [rows["_job"].to_numpy(), rows["_host"].to_numpy()]
    data, template = hover(rows, [("value", "%{y:,.3~f}"), ("of the median", "%{text}")])
    fig.add_bar(
        x=x, y=value.to_numpy(), name=METRICS[metric],
        marker_color=np.where(slow, WORSE_COLOR, COLORWAY[0]).tolist(),
        text=[f"{s:.0%}" for s in share], textposition="none", customdata=data,
        hovertemplate=template,
    )  # fmt: skip
    fig.add_scatter(
        x=x, y=median.to_numpy(), mode="markers", name="median of the job's hosts",
        marker={"symbol": "line-ew-open", "size": 30, "color": LIMIT_COLOR, "line": {"width": 2}},
        hovertemplate="median: %{y:,.3~f}<extra></extra>",
    )  # fmt: skip
    if slow.any():
        fig.add_bar(x=[None], y=[None], name="straggler", marker_color=WORSE_COLOR)
    fig.update_layout(barmode="overlay", bargap=0.3)
    return fig


def intervals(
    frame: pd.DataFrame, *, metric: str | None = None, run_id: str | None = None
) -> go.Figure:
    """`metric` of every reporting interval over time, one line per host and job step.

    Warm-up intervals are shaded and labelled 'warm-up'. Where a run has a cross-host aggregate
    (host 'all') it is drawn as well, thicker.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame.
    metric : str, optional
        A key of :data:`METRICS`; default: MiB/s for large-block (>= 64 KiB) or sequential
        runs, IOPS for the others (:func:`anfperf.plots._style.throughput_column`).
    run_id : str, optional
        Only this run (named in the title).

    Raises
    ------
    anfperf.AnfperfError
        Unknown `metric` or run, or no interval rows (fio JSON has them with
        ``--status-interval`` alone: else chart its logs).
    """
    rows = _of_run(frame, run_id)
    rows = rows[rows["interval"].notna() & (rows["direction"] == "total")].copy()
    require_rows(
        rows, "no per-interval rows (fio JSON has them with --status-interval only: chart its logs)"
    )
    metric = metric or throughput_column(rows)
    y_title = _metric(metric)
    rows["_job"] = job_labels(rows)
    fig = figure(
        f"Per interval: {y_title.split(' [')[0].lower()}, {_runs_named(rows, run_id)}",
        "Time since the run started [s]",
        y_title,
    )
    rows = rows.sort_values(["run_id", "step", "job", "host", "interval"], kind="stable")
    rows["_t"] = _elapsed_s(rows)
    keys = ["run_id", "_job", "step", "host"]
    for i, ((rid, job, _, host), line) in enumerate(rows.groupby(keys, sort=False, dropna=False)):
        aggregate = str(host) == "all"
        data, template = hover(
            line, [("interval", "%{text}"), ("time", "%{x:.0f} s"), (metric, "%{y:,.3~f}")]
        )
        fig.add_scatter(
            x=line["_t"], y=pd.to_numeric(line[metric], errors="coerce"), mode="lines+markers",
            name=plot_text(f"{job} @ {host}" + (f" ({rid})" if run_id is None else "")),
            line={"width": 3 if aggregate else 1.5, "color": COLORWAY[i % len(COLORWAY)]},
            marker={"size": 4}, text=line["interval"].astype(str), customdata=data,
            hovertemplate=template,
        )  # fmt: skip
    spans = _warmup_spans(rows)
    fig.update_layout(
        shapes=[
            {"type": "rect", "x0": start, "x1": end, "y0": 0, "y1": 1, "xref": "x",
             "yref": "paper", "fillcolor": WARMUP_COLOR, "line": {"width": 0}, "layer": "below"}
            for start, end in spans
        ]
    )  # fmt: skip
    if spans:
        # one label says what the shading means; more would overlap on short jobs
        fig.add_annotation(
            x=spans[0][0], xref="x", xanchor="left", y=1.0, yref="paper", yanchor="top",
            text="warm-up (shaded)", showarrow=False, font={"color": LIMIT_COLOR},
        )  # fmt: skip
    fit_legend(fig)
    return fig


def _runs_named(rows: pd.DataFrame, run_id: str | None) -> str:
    """The run(s) a chart shows, for its title."""
    if run_id:
        return str(run_id)
    runs = sorted(rows["run_id"].astype(str).unique())
    return ", ".join(runs[:3]) + (f" and {len(runs) - 3} more" if len(runs) > 3 else "")


def _elapsed_s(rows: pd.DataFrame) -> np.ndarray:
    """Seconds since the run's first interval, on one axis for all its jobs.

    From the wall-clock timestamps where the tool gives them (Vdbench: interval end); else
    from time_s, consecutive jobs placed one after the other.
    """
    stamp = pd.to_datetime(rows["timestamp"], utc=True) if "timestamp" in rows else None
    if stamp is not None and stamp.notna().all():
        first = stamp.groupby(rows["run_id"]).transform("min")
        # the first interval ends one interval after the start: count from that start
        width = rows.groupby(["run_id", "job", "step", "host"], dropna=False)["timestamp"]
        step_s = width.transform(lambda t: t.diff().dt.total_seconds().median()).fillna(1.0)
        return ((stamp - first).dt.total_seconds() + step_s).to_numpy(float)
    job_key = rows["run_id"].astype(str) + "\0" + rows["step"].astype(str) + "\0" + rows["job"]
    end = rows.groupby(job_key, sort=False)["time_s"].max().astype(float)
    runs = rows.groupby(job_key, sort=False)["run_id"].first()
    start = end.groupby(runs.to_numpy()).transform(lambda e: e.cumsum().shift(fill_value=0.0))
    return rows["time_s"].to_numpy(float) + job_key.map(start).to_numpy(float)


def _warmup_spans(rows: pd.DataFrame) -> list[tuple[float, float]]:
    """(start, end) [s] of each job's run of warm-up intervals (on the shared time axis)."""
    spans = []
    warm = rows[rows["is_warmup"].astype(bool)]
    for _, job in warm.groupby(["run_id", "_job", "step"], sort=False, dropna=False):
        t = job["_t"].to_numpy(float)
        step = np.nanmedian(np.diff(np.unique(t))) if np.unique(t).size > 1 else 1.0
        spans.append((float(np.nanmin(t) - step), float(np.nanmax(t))))
    return sorted(set(spans))


#: Fewest windows a fio log needs to be drawn over time: fewer are a few numbers, not a trend.
MIN_LOG_WINDOWS = 10
#: Most jobs given a line each in latency over time; more are merged per direction.
MAX_LOG_JOBS = 6


def latency_over_time(
    logs: pd.DataFrame,
    *,
    percentiles: Sequence[float] = (50.0, 99.0),
    window_s: float | None = None,
    run_id: str = "",
    min_windows: int = MIN_LOG_WINDOWS,
) -> go.Figure:
    """Latency percentiles over time from fio logs, one colour per job (or per direction).

    Parameters
    ----------
    logs : pandas.DataFrame
        :func:`anfperf.ingest.read_fio_log` frames (concatenated): histogram logs
        (``clat_hist``) give percentiles per window, merged over the window's lines (a job's
        threads and directions); completion-latency logs (``clat``/``lat``) give the mean of
        each window.
    percentiles : sequence of float
        Percentiles drawn from histogram logs [%]: the highest as a solid line, the others
        dotted, in the job's colour.
    window_s : float, optional
        Width of the time windows [s]; default: the logs' own interval (fio's
        ``log_avg_msec`` / ``log_hist_msec``), read from the spacing of their lines.
    run_id : str
        The run the logs belong to, for the title ("": named after the logs' folder).
    min_windows : int
        Fewest windows a job's logs must span to be drawn (:data:`MIN_LOG_WINDOWS`); shorter
        ones are left out, and the subtitle says so.

    Returns
    -------
    plotly.graph_objects.Figure
        One legend entry per job (up to :data:`MAX_LOG_JOBS` jobs; more are merged into one
        line per direction, 'read' / 'write'), plus one per line style ('p99 (solid)',
        'p50 (dotted)').

    Raises
    ------
    anfperf.AnfperfError
        Neither histogram nor latency columns in `logs`, no rows, or every log shorter than
        `min_windows` windows.
    """
    if not isinstance(logs, pd.DataFrame) or logs.empty:
        raise AnfperfError("nothing to plot: no fio log rows")
    if window_s is None:
        window_s = _log_interval_s(logs)
    if not window_s > 0:
        raise AnfperfError(f"window_s must be > 0, got {window_s!r}")
    lat_col = next((c for c in ("clat_ms", "lat_ms") if c in logs), None)
    hist = "clat_bins" in logs and logs["clat_bins"].notna().any()
    if not hist and (lat_col is None or logs[lat_col].isna().all()):
        raise AnfperfError(
            "nothing to plot: the logs hold no latency (read clat, lat or clat_hist logs)"
        )
    work = logs[logs["clat_bins"].notna()] if hist else logs[logs[lat_col].notna()]
    work = work.assign(
        _window=np.floor(work["time_s"].astype(float) / window_s) * window_s + window_s,
        _job=work["source_file"].astype(str).map(job_of_log),
    )
    windows = work.groupby("_job")["_window"].nunique()
    short = sorted(windows.index[windows < min_windows], key=natural_key)
    if len(short) == len(windows):
        raise AnfperfError(
            f"the fio logs are too short to show latency over time: {_jobs_text(short)} span "
            f"{windows.max()} windows of {window_s:g} s at most ({min_windows} needed)"
        )
    work = work[~work["_job"].isin(short)]
    jobs = sorted(work["_job"].unique(), key=natural_key)
    if len(jobs) > MAX_LOG_JOBS:
        # a line per job would not be read: one per direction, all jobs merged per window
        work = work.assign(_job=work["direction"].astype(str))
        jobs = sorted(work["_job"].unique())
    fig = figure(
        f"Latency over time: {run_id or _logs_folder(work)} (fio logs)",
        "Time since the job started [s]",
        "Latency [ms]" if hist else "Mean completion latency [ms]",
    )
    drawn: list[np.ndarray] = []
    order = np.argsort(percentiles)[::-1]  # highest first: the solid line
    for i, job in enumerate(jobs):
        rows, color = work[work["_job"] == job], COLORWAY[i % len(COLORWAY)]
        label = plot_text(job)
        if hist:
            table = rows.groupby("_window")["clat_bins"].apply(
                lambda b: percentiles_from_bins(merge_bins(list(b)), percentiles)
            )
            values = np.vstack(table.to_numpy())
            for rank, k in enumerate(order):
                p = percentiles[k]
                fig.add_scatter(
                    x=table.index.to_numpy(), y=values[:, k], mode="lines", name=label,
                    legendgroup=str(job), showlegend=rank == 0,
                    line={"color": color, "width": 2 if rank == 0 else 1.5,
                          "dash": "solid" if rank == 0 else "dot"},
                    hovertemplate=f"{label} p{p:g}: %{{y:.3f}} ms at %{{x:.2f}} s<extra></extra>",
                )  # fmt: skip
            drawn.append(values.ravel())
        else:
            mean = rows.groupby("_window")[lat_col].mean()
            fig.add_scatter(
                x=mean.index.to_numpy(), y=mean.to_numpy(), mode="lines", name=label,
                legendgroup=str(job), line={"color": color},
                hovertemplate=f"{label} mean: %{{y:.3f}} ms at %{{x:.2f}} s<extra></extra>",
            )  # fmt: skip
            drawn.append(mean.to_numpy())
    if hist:
        for rank, k in enumerate(order):  # what the line styles mean
            fig.add_scatter(
                x=[None], y=[None], mode="lines", name=f"p{percentiles[k]:g}",
                line={"color": LIMIT_COLOR, "dash": "solid" if rank == 0 else "dot"},
            )  # fmt: skip
    values = np.concatenate(drawn)
    values = values[np.isfinite(values) & (values > 0)]
    if values.size and values.max() / values.min() > 30:
        log_axis(fig, "y", values)  # a tail far above the median: log, or the median is flat
    else:
        fig.update_yaxes(rangemode="tozero")
    if short:
        subtitle(
            fig,
            f"left out: {_jobs_text(short)}, shorter than {min_windows} windows of {window_s:g} s",
        )
    fit_legend(fig)
    return fig


def _jobs_text(jobs: list[str]) -> str:
    names = ", ".join(jobs[:4]) + (f" and {len(jobs) - 4} more" if len(jobs) > 4 else "")
    return f"the logs of job {names}" if len(jobs) == 1 else f"the logs of jobs {names}"


def _logs_folder(logs: pd.DataFrame) -> str:
    from pathlib import PurePath

    folders = {PurePath(str(s)).parent.name for s in logs["source_file"].unique()}
    return ", ".join(sorted(folders)) or "logs"


def _log_interval_s(logs: pd.DataFrame) -> float:
    """The typical spacing of a log's lines [s] (1 s when it cannot be told)."""
    gaps = logs.groupby("source_file", observed=True)["time_s"].apply(
        lambda t: np.diff(np.unique(t.to_numpy(float)))
    )
    gaps = np.concatenate([g for g in gaps if len(g)] or [np.array([1.0])])
    return float(np.round(np.median(gaps), 3)) or 1.0


def job_of_log(source: str) -> str:
    """'qd4' of '.../qd4_clat_hist.3.log.gz': the log's prefix names the job."""
    from anfperf.ingest.fio_log import parse_log_name

    name = source.rsplit("/", 1)[-1]
    kind = parse_log_name(name)[0]
    return name.split(f"_{kind}.")[0] if kind else name


#: Share [%] a distribution line drops to after its slowest bin: below any axis' range.
OFF_AXIS_PCT = 1e-12
#: Percentiles labelled on a latency distribution's tail axis, [%].
TAIL_PERCENTILES = (0.0, 50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999)


def latency_cdf(
    data: pd.DataFrame, *, run_id: str | None = None, title: str | None = None
) -> go.Figure:
    """Latency distribution of each job, its tail on a log axis, from latency histograms.

    The y axis is the percentile on a log scale of its tail (the share of I/Os slower,
    ``100 - percentile``, from the bottom up): p50, p90, p99, p99.9 and p99.99 are a decade
    apart, so the tail that a linear 0-100 % axis squeezes into its top pixel is most of the
    chart. Latency is on a log x axis. A line ends where the slowest I/O was.

    Parameters
    ----------
    data : pandas.DataFrame
        A tidy frame with fio json+ ``lat_bins`` (whole-run 'total' rows are drawn), or a
        Vdbench histogram frame (:func:`anfperf.ingest.read_vdbench_histogram`).
    run_id : str, optional
        Only this run (tidy frame); named in the title (of a Vdbench histogram too).
    title : str, optional
        The chart's title; default 'Latency distribution: <run(s)>'.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per job (and host, where there are several): x latency [ms], y the share of
        I/Os slower than it [%] (hover: the percentile), one point per histogram bin.

    Raises
    ------
    anfperf.AnfperfError
        No histogram in `data`.
    """
    fig = figure("Latency distribution", "Latency [ms]", "Percentile [%] (log scale of the tail)")
    if isinstance(data, pd.DataFrame) and "bin_max_ms" in data:
        _vdbench_cdfs(fig, data)
        named = title or f"Latency distribution: {run_id or 'Vdbench histogram'}"
    else:
        rows = _of_run(data, run_id)
        rows = rows[rows["is_summary"] & rows["lat_bins"].notna()]
        total = rows[rows["direction"] == "total"]
        rows = total if not total.empty else rows
        require_rows(rows, "no latency histograms (fio json+ lat_bins) in the frame")
        rows = rows.assign(_job=job_labels(rows))
        one_host = rows["host"].astype(str).nunique() == 1
        named = title or f"Latency distribution: {_runs_named(rows, run_id)}"
        for i, (key, group) in enumerate(rows.groupby(["run_id", "_job", "host"], sort=False)):
            bins = merge_bins(list(group["lat_bins"]))
            name = f"{key[1]}" + ("" if one_host or key[2] == "all" else f" @ {key[2]}")
            name += f" ({key[0]})" if run_id is None and rows["run_id"].nunique() > 1 else ""
            _add_tail(fig, np.asarray(bins["ns"], float) / NS_PER_MS, bins["count"], name, i)
    if not fig.data:
        raise AnfperfError("nothing to plot: no latency histogram with counts")
    fig.update_layout(title_text=plot_text(named))
    _tail_axes(fig)
    fit_legend(fig)
    return fig


def _add_tail(fig: go.Figure, value_ms: np.ndarray, counts: object, name: str, i: int) -> None:
    """One distribution: (latency, share of I/Os slower [%]) at each bin holding I/Os."""
    value_ms = np.asarray(value_ms, float)
    count = np.asarray(counts, float)
    keep = np.isfinite(value_ms) & (value_ms > 0) & (count > 0)
    value_ms, count = value_ms[keep], count[keep]
    if not count.size:
        return
    order = np.argsort(value_ms, kind="stable")
    value_ms, count = value_ms[order], count[order]
    cum = np.cumsum(count)
    pct = 100.0 * cum / cum[-1]
    slower = 100.0 - pct
    # the slowest bin leaves no I/O slower: the line drops off the axis there, where the
    # slowest I/O was (no axis reaches OFF_AXIS_PCT)
    slower = np.where(slower > 1e-3 * 100.0 / cum[-1], slower, OFF_AXIS_PCT)
    # a step: every I/O up to the next bin's latency is as slow as that bin
    fig.add_scatter(
        x=value_ms, y=slower, mode="lines", name=plot_text(name), line={"color": COLORWAY[i % len(COLORWAY)],
        "shape": "hv", "width": 2}, text=[_pct_text(p) for p in pct],
        hovertemplate="%{text} at or below %{x:.3f} ms<extra>" + name + "</extra>",
    )  # fmt: skip


def _pct_text(pct: float) -> str:
    """'p99.95' of 99.9512: as many decimals as the tail needs."""
    if pct >= 100.0:
        return "p100 (all)"
    decimals = max(0, min(6, math.ceil(-math.log10(100.0 - pct)) + 1))
    return f"p{pct:.{decimals}f}".rstrip("0").rstrip(".")


def _tail_axes(fig: go.Figure) -> None:
    """Log x (latency) and the percentile tail axis: p0 at the bottom, p99.99 near the top."""
    x = np.concatenate([np.asarray(t.x, float) for t in fig.data])
    log_axis(fig, "x", x)
    y = np.concatenate([np.asarray(t.y, float) for t in fig.data])
    # the deepest tail drawn: the share of the slowest bin of the largest histogram
    deepest = float(y[y > OFF_AXIS_PCT].min()) if (y > OFF_AXIS_PCT).any() else 1.0
    ticks = [(100.0 - p, f"{p:g}") for p in TAIL_PERCENTILES if 100.0 - p >= deepest * 0.5]
    fig.update_yaxes(
        type="log", tickmode="array", tickvals=[v for v, _ in ticks],
        ticktext=[t for _, t in ticks],
        range=[math.log10(100.0) + 0.05, math.log10(deepest) - 0.25],
        minor={"ticks": "", "showgrid": False},
    )  # fmt: skip


def _vdbench_cdfs(fig: go.Figure, hist: pd.DataFrame) -> None:
    # 'total' where the workload both read and wrote; else its one direction
    has_total = (hist["direction"] == "total").groupby([hist["job"], hist["step"]]).transform("any")
    rows = hist[(hist["direction"] == "total") | ~has_total]
    counted = rows.groupby(["job", "step"])["count"].transform("sum") > 0
    rows = require_rows(rows[counted], "no latency histogram counts in the Vdbench histogram")
    for i, ((job, step), group) in enumerate(rows.groupby(["job", "step"], sort=False)):
        upper = group["bin_max_ms"].to_numpy(float)
        # the last bin is open ('max'): draw it at its lower bound
        upper = np.where(np.isfinite(upper), upper, group["bin_min_ms"].to_numpy(float))
        name = f"{job} #{step}" if rows["step"].nunique() > 1 else str(job)
        _add_tail(fig, upper, group["count"].to_numpy(float), name, i)
