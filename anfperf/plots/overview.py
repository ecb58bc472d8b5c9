"""The charts that apply to a set of runs, chosen from what the data hold.

A report does not know in advance what it is given: a queue-depth sweep gets a latency curve and
a scaling chart, a read/write sweep the mix model, a multi-host run per-host bars, any run with
intervals a time series, json+ results and Vdbench histograms a latency CDF, fio logs latency
over time. :func:`report_charts` makes that choice in one place, so notebooks stay thin.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import plotly.graph_objects as go

from anfperf import findings
from anfperf.errors import AnfperfError
from anfperf.plots import curves, timeseries


class Chart(NamedTuple):
    """One chart of a report: its heading, and the figure, or why there is none."""

    run_id: str
    heading: str
    figure: go.Figure | None
    note: str = ""


def report_charts(
    frame: pd.DataFrame,
    *,
    lat_slo_ms: float = 1.0,
    fio_logs: Iterable[str | os.PathLike] = (),
    seed: int = 0,
) -> list[Chart]:
    """Every chart that applies to the runs of `frame`, run by run.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame of the runs reported.
    lat_slo_ms : float
        Latency objective [ms] of the latency curves.
    fio_logs : iterable of path-like
        fio interval logs (:func:`anfperf.inputs.fio_log_paths`) for latency over time.
    seed : int
        Seed of the curves' uncertainty bands.

    Returns
    -------
    list of Chart
        In run order; a chart that could not be drawn carries its reason in `note`.
    """
    kinds = findings.run_kinds(frame).set_index("run_id")
    out: list[Chart] = []
    for run_id in kinds.index:
        kind, hosts = kinds.loc[run_id, "kind"], int(kinds.loc[run_id, "hosts"])
        run = frame[frame["run_id"] == run_id]
        wanted = []
        # each chart gets its run's rows only: the charts work out run kinds and summary rows
        # again, and on one run that is quick
        if kind in (findings.KIND_CONCURRENCY, findings.KIND_RATE):
            wanted.append(("latency vs throughput", lambda r=run, i=run_id: curves.latency_curve(
                r, run_id=i, lat_slo_ms=lat_slo_ms, seed=seed)))  # fmt: skip
        if kind == findings.KIND_CONCURRENCY:
            wanted.append(("scaling", lambda r=run, i=run_id: curves.scaling(r, run_id=i)))
        if kind == findings.KIND_MIX:
            wanted.append(("read/write mix", lambda r=run, i=run_id: curves.mix(r, run_id=i)))
        if hosts > 1:
            wanted.append(("per host", lambda r=run, i=run_id: timeseries.host_bars(r, run_id=i)))
        if run["interval"].notna().any():
            wanted.append(("intervals", lambda r=run, i=run_id: timeseries.intervals(r, run_id=i)))
        if run["lat_bins"].notna().any():
            wanted.append(
                (
                    "latency distribution",
                    lambda r=run, i=run_id: timeseries.latency_cdf(r, run_id=i),
                )
            )
        histogram = _vdbench_histogram(run)
        if histogram is not None:
            wanted.append(("latency distribution", lambda h=histogram: _histogram_cdf(h)))
        for what, draw in wanted:
            out.append(_draw(run_id, f"{run_id}: {what}", draw))
    logs = [Path(p) for p in fio_logs]
    if logs:
        out.append(_draw("", "fio logs: latency over time", lambda: _logs_chart(logs)))
    return out


def _draw(run_id: str, heading: str, draw) -> Chart:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # fits' warnings are in findings' notes
            return Chart(run_id, heading, draw())
    except AnfperfError as exc:
        return Chart(run_id, heading, None, str(exc))


def _vdbench_histogram(run: pd.DataFrame) -> Path | None:
    """The histogram.html next to a Vdbench run's flatfile, if there is one."""
    if "vdbench" not in set(run["tool"].astype(str)):
        return None
    for source in run["source_file"].dropna().unique():
        candidate = Path(str(source)).parent / "histogram.html"
        if candidate.is_file():
            return candidate
    return None


def _histogram_cdf(path: Path) -> go.Figure:
    from anfperf.ingest import read_vdbench_histogram

    fig = timeseries.latency_cdf(read_vdbench_histogram(path))
    fig.update_layout(title_text=f"Latency distribution ({path.parent.name}/{path.name})")
    return fig


def _logs_chart(paths: list[Path]) -> go.Figure:
    from anfperf.ingest import read_fio_log

    latency = [p for p in paths if "_clat" in p.name or "_lat." in p.name]
    if not latency:
        raise AnfperfError("no latency logs among the fio logs (write_lat_log / write_hist_log)")
    hist = [p for p in latency if "_hist" in p.name]
    # percentiles need the histogram logs; without them, the mean of the latency logs
    return timeseries.latency_over_time(
        pd.concat([read_fio_log(p) for p in hist or latency], ignore_index=True)
    )
