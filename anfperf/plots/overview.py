"""The charts that apply to a set of runs, chosen from what the data hold, in order of importance.

A report does not know in advance what it is given: a queue-depth sweep gets a latency curve and
a scaling chart, a read/write sweep the mix model, a multi-host run per-host bars, json+ results
and Vdbench histograms a latency distribution, any run with intervals a time series, fio logs
latency over time. :func:`report_charts` makes that choice in one place, so notebooks stay thin,
and orders the charts: run by run, the runs that answer most first (sweeps before single points,
runs served from a client cache last), each run's charts from its key chart down.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import plotly.graph_objects as go

from anfperf.analysis import findings
from anfperf.analysis.sweep import summary_rows
from anfperf.errors import AnfperfError
from anfperf.models.forecast.known import KnownLimits
from anfperf.plots import blocks, curves, timeseries

#: Chart kinds of :class:`Chart`, in the order a run's charts are shown, with their headings.
CHART_KINDS = {
    "latency_curve": "Latency vs throughput",
    "scaling": "Scaling with concurrency",
    "mix": "Read/write mix",
    "block_size": "Block size",
    "host_bars": "Per host",
    "latency_cdf": "Latency distribution",
    "intervals": "Per interval",
    "latency_over_time": "Latency over time (fio logs)",
}
#: Runs' order by kind: the sweeps, which answer "how far does it go", first.
RUN_ORDER = (
    findings.KIND_CONCURRENCY, findings.KIND_RATE, findings.KIND_GRID, findings.KIND_MIX,
    findings.KIND_BLOCK, findings.KIND_SINGLE,
)  # fmt: skip


class Chart(NamedTuple):
    """One chart of a report: its run, a short heading, and the figure or why there is none.

    Attributes
    ----------
    run_id : str
        The run charted; ``""`` for a chart of no run (fio logs that match none).
    heading : str
        What the chart shows, without the run: 'Latency vs throughput'.
    figure : plotly.graph_objects.Figure or None
        None when there is nothing worth drawing; `note` says why, in one line.
    note : str
        Why there is no figure ("" when there is one).
    kind : str
        Which chart: a key of :data:`CHART_KINDS` ('latency_curve', 'scaling', ...).
    """

    run_id: str
    heading: str
    figure: go.Figure | None
    note: str = ""
    kind: str = ""


def report_charts(
    frame: pd.DataFrame,
    *,
    lat_slo_ms: float = 1.0,
    fio_logs: Iterable[str | os.PathLike] = (),
    seed: int = 0,
    rows: pd.DataFrame | None = None,
    kinds: pd.DataFrame | None = None,
    numbers: pd.DataFrame | None = None,
    known: Mapping[str, KnownLimits] | None = None,
) -> list[Chart]:
    """Every chart that applies to the runs of `frame`, grouped by run, in order of importance.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame of the runs reported.
    lat_slo_ms : float
        Latency objective [ms] of the latency curves.
    fio_logs : iterable of path-like
        fio interval logs (:func:`anfperf.analysis.inputs.fio_log_paths`) for latency over time. Logs
        of a run's jobs (same job names, in or under the run's directory) go with that run;
        the others make a chart of their own (run_id ``""``), last.
    seed : int
        Seed of the curves' uncertainty bands.
    rows : pandas.DataFrame, optional
        :func:`anfperf.analysis.summary_rows` of `frame`, if already made (else made here, once).
    kinds : pandas.DataFrame, optional
        :func:`anfperf.analysis.findings.run_kinds` of `frame`, if already made; a boolean `cached`
        column (runs served from a client cache) puts those runs last.
    numbers : pandas.DataFrame, optional
        :func:`anfperf.analysis.findings.key_numbers` of `frame` at `lat_slo_ms`, if already made: the
        latency curves read their knee and IOPS at the SLO from it instead of working them out.
    known : mapping of str to KnownLimits, optional
        The volume's and clients' limit per run id, in IOPS at the run's block size
        (:func:`anfperf.report.benchmark.known_limits_of_runs`): the latency and scaling charts
        draw their forecasts up to it and the limit as a line. A run not in it: nothing known.

    Returns
    -------
    list of Chart
        Run by run (concurrency sweeps, load curves, mix and block-size sweeps, single points;
        cached runs last; ties in run order), each run's charts in the order of
        :data:`CHART_KINDS`. A chart with nothing worth drawing carries its one-line reason in
        `note` and no figure.
    """
    if rows is None:
        rows = summary_rows(frame)
    if kinds is None:
        kinds = findings.run_kinds(frame, rows=rows)
    is_curve = kinds["kind"].isin([findings.KIND_CONCURRENCY, findings.KIND_RATE])
    if numbers is None and is_curve.any():
        # only the load curves' numbers are read (a chart's knee and SLO), from the rows made
        numbers = findings.key_numbers(
            frame, lat_slo_ms=lat_slo_ms, kinds=kinds[is_curve],
            rows=rows[rows["run_id"].isin(kinds.loc[is_curve, "run_id"])],
        )  # fmt: skip
    kinds = kinds.set_index("run_id", drop=False)
    numbers_of = numbers.set_index("run_id") if numbers is not None else None
    logs = _logs_by_run([Path(p) for p in fio_logs], frame)
    out: list[Chart] = []
    for run_id in _run_order(kinds):
        kind, hosts = str(kinds.loc[run_id, "kind"]), int(kinds.loc[run_id, "hosts"])
        run = frame[frame["run_id"] == run_id]
        run_rows = rows[rows["run_id"].astype(str) == str(run_id)]
        num = (
            numbers_of.loc[run_id]
            if numbers_of is not None and run_id in numbers_of.index
            else None
        )
        limit = (known or {}).get(str(run_id))
        wanted: list[tuple[str, Callable[[], go.Figure]]] = []
        if kind in (findings.KIND_CONCURRENCY, findings.KIND_RATE):
            # a concurrency sweep's points are on its scaling chart: without a curve, a latency
            # chart would only repeat them
            wanted.append(("latency_curve", lambda r=run, i=run_id, s=run_rows, n=num, k=kind,
                           lim=limit:
                curves.latency_curve(r, run_id=i, lat_slo_ms=lat_slo_ms, seed=seed, rows=s,
                                     numbers=n, require_curve=k == findings.KIND_CONCURRENCY,
                                     known=lim)))  # fmt: skip
        if kind == findings.KIND_CONCURRENCY:
            wanted.append(("scaling", lambda r=run, i=run_id, s=run_rows, lim=limit:
                           curves.scaling(r, run_id=i, seed=seed, rows=s, known=lim)))  # fmt: skip
        if kind in (findings.KIND_MIX, findings.KIND_GRID):
            wanted.append(("mix", lambda r=run, i=run_id, s=run_rows, lim=limit:
                           curves.mix(r, run_id=i, rows=s, known=lim)))  # fmt: skip
        if kind == findings.KIND_BLOCK:
            wanted.append(("block_size", lambda r=run, i=run_id, s=run_rows, lim=limit:
                           blocks.block_size(r, run_id=i, rows=s, known=lim)))  # fmt: skip
        if hosts > 1:
            wanted.append(("host_bars", lambda r=run, i=run_id: timeseries.host_bars(r, run_id=i)))
        if run["lat_bins"].notna().any():
            wanted.append(
                ("latency_cdf", lambda r=run, i=run_id: timeseries.latency_cdf(r, run_id=i))
            )
        histogram = _vdbench_histogram(run)
        if histogram is not None:
            wanted.append(("latency_cdf", lambda h=histogram, i=run_id: _histogram_cdf(h, i)))
        if run["interval"].notna().any():
            wanted.append(("intervals", lambda r=run, i=run_id: timeseries.intervals(r, run_id=i)))
        if logs.get(run_id):
            wanted.append(("latency_over_time", lambda p=logs[run_id], i=run_id: _logs_chart(p, i)))
        for what, draw in wanted:
            out.append(_draw(str(run_id), what, draw))
    if logs.get(""):
        out.append(_draw("", "latency_over_time", lambda: _logs_chart(logs[""], "")))
    return out


def _run_order(kinds: pd.DataFrame) -> list[str]:
    """Run ids by importance: kind (RUN_ORDER), cached runs last, then run order."""
    rank = {k: i for i, k in enumerate(RUN_ORDER)}
    cached = (
        kinds["cached"].fillna(False).astype(bool)
        if "cached" in kinds
        else pd.Series(False, index=kinds.index)
    )
    keyed = [
        (bool(cached.iloc[i]), rank.get(str(kinds["kind"].iloc[i]), len(rank)), i, run_id)
        for i, run_id in enumerate(kinds.index)
    ]
    return [run_id for *_, run_id in sorted(keyed)]


def _draw(run_id: str, kind: str, draw: Callable[[], go.Figure]) -> Chart:
    heading = CHART_KINDS[kind]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # fits' warnings are in findings' notes
            return Chart(run_id, heading, draw(), "", kind)
    except AnfperfError as exc:
        return Chart(run_id, heading, None, str(exc).splitlines()[0] if str(exc) else "", kind)


def _vdbench_histogram(run: pd.DataFrame) -> Path | None:
    """The histogram.html next to a Vdbench run's flatfile, if there is one."""
    if "vdbench" not in set(run["tool"].astype(str)):
        return None
    for source in run["source_file"].dropna().unique():
        candidate = Path(str(source)).parent / "histogram.html"
        if candidate.is_file():
            return candidate
    return None


def _histogram_cdf(path: Path, run_id: str) -> go.Figure:
    from anfperf.ingest import read_vdbench_histogram

    return timeseries.latency_cdf(
        read_vdbench_histogram(path), title=f"Latency distribution: {run_id} (Vdbench histogram)"
    )


def _logs_by_run(paths: list[Path], frame: pd.DataFrame) -> dict[str, list[Path]]:
    """fio logs by the run whose job wrote them (same job name, in or under its directory)."""
    if not paths:
        return {}
    runs = frame[frame["tool"].astype(str) == "fio"].drop_duplicates(["run_id", "job"])
    places: dict[str, tuple[set[str], set[Path]]] = {}
    for run_id, run in runs.groupby("run_id", sort=False, observed=True):
        dirs = {Path(str(s)).resolve().parent for s in run["source_file"].dropna().unique()}
        places[str(run_id)] = (set(run["job"].dropna().astype(str)), dirs)
    out: dict[str, list[Path]] = {}
    for path in paths:
        job, where = timeseries.job_of_log(str(path)), path.resolve().parent
        owners = [
            run_id
            for run_id, (jobs, dirs) in places.items()
            if job in jobs and any(d == where or d in where.parents for d in dirs)
        ]
        out.setdefault(owners[0] if len(owners) == 1 else "", []).append(path)
    return out


def _logs_chart(paths: list[Path], run_id: str) -> go.Figure:
    from anfperf.ingest import read_fio_log
    from anfperf.ingest.fio_log import parse_log_name

    kinds = {p: parse_log_name(p.name)[0] for p in paths}
    latency = [p for p in paths if kinds[p] in ("clat", "lat", "clat_hist")]
    if not latency:
        raise AnfperfError("no latency logs among the fio logs (write_lat_log / write_hist_log)")
    hist = [p for p in latency if kinds[p] == "clat_hist"]
    # percentiles need the histogram logs; without them, the mean of the latency logs
    return timeseries.latency_over_time(
        pd.concat([read_fio_log(p) for p in hist or latency], ignore_index=True), run_id=run_id
    )
