"""Charts of one run's detail: hosts side by side, intervals over time, latency distributions.

:func:`host_bars` and :func:`intervals` read the tidy frame; :func:`latency_over_time` reads fio's
per-interval logs (:func:`anfperf.ingest.read_fio_log`); :func:`latency_cdf` reads fio json+
latency bins (the frame's ``lat_bins``) or Vdbench histograms
(:func:`anfperf.ingest.read_vdbench_histogram`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from anfperf.errors import AnfperfError
from anfperf.ingest.combine import merge_bins, percentiles_from_bins
from anfperf.plots._style import (
    COLORWAY,
    LIMIT_COLOR,
    WARMUP_COLOR,
    WORSE_COLOR,
    figure,
    hover,
    require_rows,
)
from anfperf.summary import job_labels

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


def host_bars(frame: pd.DataFrame, *, metric: str = "iops", run_id: str | None = None) -> go.Figure:
    """Whole-run `metric` of every client host, per job: stragglers stand out.

    Bars of hosts below :data:`STRAGGLER_SHARE` of the median of their job's hosts (above
    1 / STRAGGLER_SHARE for latencies) are drawn in the 'worse' colour; a dashed line marks each
    job's median. The cross-host aggregate (host 'all') is left out.

    Raises
    ------
    anfperf.AnfperfError
        Unknown `metric` or run, or no per-host whole-run rows.
    """
    y_title = _metric(metric)
    rows = _of_run(frame, run_id)
    rows = rows[
        rows["is_summary"] & (rows["direction"] == "total") & (rows["host"].astype(str) != "all")
    ].copy()
    require_rows(rows, "no per-host whole-run rows")
    rows["_job"] = rows["run_id"].astype(str) + " / " + job_labels(rows)
    rows["_host"] = rows["host"].astype(str).fillna("-")
    value = pd.to_numeric(rows[metric], errors="coerce").astype(float)
    median = value.groupby(rows["_job"]).transform("median")
    share = value / median
    slow = share > 1 / STRAGGLER_SHARE if metric in _LATENCY else share < STRAGGLER_SHARE
    fig = figure(
        f"Per host: {y_title.split(' [')[0].lower()}" + (f" ({run_id})" if run_id else ""),
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


def intervals(frame: pd.DataFrame, *, metric: str = "iops", run_id: str | None = None) -> go.Figure:
    """`metric` of every reporting interval over time, one line per host and job step.

    Warm-up intervals are shaded and labelled 'warm-up'. Where a run has a cross-host aggregate
    (host 'all') it is drawn as well, thicker.

    Raises
    ------
    anfperf.AnfperfError
        Unknown `metric` or run, or no interval rows (fio JSON has none: use its logs).
    """
    y_title = _metric(metric)
    rows = _of_run(frame, run_id)
    rows = rows[rows["interval"].notna() & (rows["direction"] == "total")].copy()
    require_rows(rows, "no per-interval rows (fio JSON has none: chart its logs)")
    rows["_job"] = job_labels(rows)
    fig = figure(
        f"Per interval: {y_title.split(' [')[0].lower()}" + (f" ({run_id})" if run_id else ""),
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
            name=f"{job} @ {host}" + (f" ({rid})" if run_id is None else ""),
            line={"width": 3 if aggregate else 1.5, "color": COLORWAY[i % len(COLORWAY)]},
            marker={"size": 4}, text=line["interval"].astype(str), customdata=data,
            hovertemplate=template,
        )  # fmt: skip
    for k, (start, end) in enumerate(_warmup_spans(rows)):
        # one label says what the shading means; more would overlap on short jobs
        label = (
            {
                "annotation_text": "warm-up (shaded)",
                "annotation_position": "top left",
                "annotation_font_color": LIMIT_COLOR,
            }
            if k == 0
            else {}
        )
        fig.add_vrect(
            x0=start, x1=end, fillcolor=WARMUP_COLOR, line_width=0, layer="below", **label
        )  # fmt: skip
    return fig


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


def latency_over_time(
    logs: pd.DataFrame,
    *,
    percentiles: Sequence[float] = (50.0, 99.0),
    window_s: float | None = None,
) -> go.Figure:
    """Latency percentiles over time from fio logs.

    Parameters
    ----------
    logs : pandas.DataFrame
        :func:`anfperf.ingest.read_fio_log` frames (concatenated): histogram logs
        (``clat_hist``) give percentiles per window, merged over the window's lines and
        directions; completion-latency logs (``clat``/``lat``) give the mean of each window.
    percentiles : sequence of float
        Percentiles drawn from histogram logs [%].
    window_s : float, optional
        Width of the time windows [s]; default: the logs' own interval (fio's
        ``log_avg_msec`` / ``log_hist_msec``), read from the spacing of their lines.

    Raises
    ------
    anfperf.AnfperfError
        Neither histogram nor latency columns in `logs`, or no rows.
    """
    if not isinstance(logs, pd.DataFrame) or logs.empty:
        raise AnfperfError("nothing to plot: no fio log rows")
    if window_s is None:
        window_s = _log_interval_s(logs)
    if not window_s > 0:
        raise AnfperfError(f"window_s must be > 0, got {window_s!r}")
    lat_col = next((c for c in ("clat_ms", "lat_ms") if c in logs), None)
    if "clat_bins" not in logs and lat_col is None:
        raise AnfperfError(
            "nothing to plot: the logs hold no latency (read clat, lat or clat_hist logs)"
        )
    fig = figure("Latency over time (fio logs)", "Time since the job started [s]", "Latency [ms]")
    work = logs.copy()
    work["_window"] = np.floor(work["time_s"].astype(float) / window_s) * window_s + window_s
    work["_job"] = work["source_file"].astype(str).map(_job_of_log)
    i = 0
    jobs = sorted(work["_job"].unique(), key=_natural)
    for job in jobs:
        rows = work[work["_job"] == job]
        color = COLORWAY[i % len(COLORWAY)]
        i += 1
        if "clat_bins" in rows and rows["clat_bins"].notna().any():
            hist = rows[rows["clat_bins"].notna()]
            table = hist.groupby("_window")["clat_bins"].apply(
                lambda b: percentiles_from_bins(merge_bins(list(b)), percentiles)
            )
            for k, p in enumerate(percentiles):
                fig.add_scatter(
                    x=table.index.to_numpy(), y=[v[k] for v in table], mode="lines+markers",
                    name=f"{job} p{p:g}", legendgroup=job,
                    line={"color": color, "dash": "solid" if k == len(percentiles) - 1 else "dot"},
                    hovertemplate=f"{job} p{p:g}: %{{y:.3f}} ms at %{{x:.2f}} s<extra></extra>",
                )  # fmt: skip
        elif lat_col is not None and rows[lat_col].notna().any():
            mean = rows.groupby("_window")[lat_col].mean()
            fig.add_scatter(
                x=mean.index.to_numpy(), y=mean.to_numpy(), mode="lines+markers",
                name=f"{job} mean", legendgroup=job, line={"color": color},
                hovertemplate=f"{job} mean: %{{y:.3f}} ms at %{{x:.2f}} s<extra></extra>",
            )  # fmt: skip
    if not fig.data:
        raise AnfperfError("nothing to plot: the fio logs hold no latency values")
    return fig


def _log_interval_s(logs: pd.DataFrame) -> float:
    """The typical spacing of a log's lines [s] (1 s when it cannot be told)."""
    gaps = logs.groupby("source_file", observed=True)["time_s"].apply(
        lambda t: np.diff(np.unique(t.to_numpy(float)))
    )
    gaps = np.concatenate([g for g in gaps if len(g)] or [np.array([1.0])])
    return float(np.round(np.median(gaps), 3)) or 1.0


def _natural(text: str) -> list:
    """Sort key that puts 'qd2' before 'qd16'."""
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def _job_of_log(source: str) -> str:
    """'qd4' of '.../qd4_clat_hist.3.log.gz': the log's prefix names the job."""
    from anfperf.ingest.fio_log import parse_log_name

    name = source.rsplit("/", 1)[-1]
    kind = parse_log_name(name)[0]
    return name.split(f"_{kind}.")[0] if kind else name


def latency_cdf(data: pd.DataFrame, *, run_id: str | None = None) -> go.Figure:
    """Cumulative latency distribution of each job, from latency histograms.

    Parameters
    ----------
    data : pandas.DataFrame
        A tidy frame with fio json+ ``lat_bins`` (whole-run 'total' rows are drawn), or a
        Vdbench histogram frame (:func:`anfperf.ingest.read_vdbench_histogram`).
    run_id : str, optional
        Only this run (tidy frame).

    Raises
    ------
    anfperf.AnfperfError
        No histogram in `data`.
    """
    fig = figure("Latency distribution", "Latency [ms]", "Share of I/Os at or below [%]")
    if isinstance(data, pd.DataFrame) and "bin_max_ms" in data:
        _vdbench_cdfs(fig, data)
    else:
        rows = _of_run(data, run_id)
        rows = rows[rows["is_summary"] & rows["lat_bins"].notna()]
        total = rows[rows["direction"] == "total"]
        rows = total if not total.empty else rows
        require_rows(rows, "no latency histograms (fio json+ lat_bins) in the frame")
        rows = rows.assign(_job=job_labels(rows))
        for i, (key, group) in enumerate(rows.groupby(["run_id", "_job", "host"], sort=False)):
            bins = merge_bins(list(group["lat_bins"]))
            ms = np.asarray(bins["ns"], float) / 1e6
            order = np.argsort(ms)
            cum = np.cumsum(np.asarray(bins["count"], float)[order])
            name = f"{key[1]}" + (f" @ {key[2]}" if key[2] != "all" else "")
            name += f" ({key[0]})" if run_id is None else ""
            fig.add_scatter(
                x=ms[order], y=100.0 * cum / cum[-1], mode="lines", name=name,
                line={"color": COLORWAY[i % len(COLORWAY)], "shape": "hv"},
                hovertemplate="%{y:.2f} % at or below %{x:.3f} ms<extra>" + name + "</extra>",
            )  # fmt: skip
    if not fig.data:
        raise AnfperfError("nothing to plot: no latency histogram with counts")
    for p in (50, 99):
        fig.add_hline(
            y=p, line={"color": LIMIT_COLOR, "dash": "dot", "width": 1},
            annotation_text=f"p{p}", annotation_position="bottom right",
        )  # fmt: skip
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0, 101])
    return fig


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
        cum = np.cumsum(group["count"].to_numpy(float))
        name = f"{job} #{step}" if rows["step"].nunique() > 1 else str(job)
        fig.add_scatter(
            x=upper, y=100.0 * cum / cum[-1], mode="lines+markers", name=name,
            line={"color": COLORWAY[i % len(COLORWAY)], "shape": "hv"}, marker={"size": 4},
            hovertemplate="%{y:.2f} % at or below %{x:.3f} ms<extra>" + name + "</extra>",
        )  # fmt: skip
