"""Per-host, per-interval and latency-distribution charts of real runs."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import anfperf
from anfperf.errors import AnfperfError
from anfperf.ingest import read_fio_log, read_vdbench_histogram
from anfperf.ingest.combine import percentiles_from_bins
from anfperf.plots import timeseries as ts
from anfperf.plots._style import WORSE_COLOR
from tests.conftest import DATA, TESTS

SAMPLES = TESTS.parent / "data" / "samples"
MULTI = DATA / "vdbench" / "MultiHostSeqMix"
THREADS = DATA / "vdbench" / "RndReadThreads"
QD_SWEEP = SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json"
LOGS = SAMPLES / "fio" / "sweeps" / "logs"


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many([MULTI, THREADS, QD_SWEEP])


def host_avg_iops(report) -> dict[str, float]:
    """IOPS of the avg_ line of each 'Starting RD=' block of a Vdbench host report."""
    text = re.sub(r"<[^>]+>", "", report.read_text())
    rds = re.findall(r"Starting RD=(\S+?);", text)
    avgs = re.findall(r"avg_\d+-\d+\s+([\d.]+)", text)
    return dict(zip(rds, map(float, avgs), strict=True))


def test_host_bars_are_the_host_reports_numbers_with_the_median(frame):
    fig = ts.host_bars(frame, run_id="MultiHostSeqMix", metric="iops")
    bars, median = fig.data[0], fig.data[1]
    got = {(j.split(" / ")[1], h): v for j, h, v in zip(bars.x[0], bars.x[1], bars.y, strict=True)}
    for host in ("vm1", "vm2"):
        for rd, iops in host_avg_iops(MULTI / f"{host}.html").items():
            assert got[(rd, host)] == pytest.approx(iops, abs=0.01)
    assert median.y[0] == pytest.approx(np.median([got[("SeqMix-6", h)] for h in ("vm1", "vm2")]))
    assert fig.layout.yaxis.title.text == "Throughput [IOPS]"
    assert WORSE_COLOR not in list(bars.marker.color)  # two even hosts: no straggler
    assert fig.layout.title.text == "Per host: throughput, MultiHostSeqMix"
    # 64 KiB sequential: MiB/s unless asked otherwise, on the bars and on the intervals
    for chart in (ts.host_bars, ts.intervals):
        fig = chart(frame, run_id="MultiHostSeqMix")
        assert fig.layout.yaxis.title.text == "Throughput [MiB/s]"
    assert ts.intervals(frame, run_id="RndReadThreads").layout.yaxis.title.text == (
        "Throughput [IOPS]"  # 4 KiB random
    )


def test_a_slow_host_is_coloured_as_a_straggler(frame):
    slowed = frame.copy()
    vm2 = (slowed["host"] == "vm2") & (slowed["job"] == "SeqMix-7")
    slowed.loc[vm2, "iops"] *= 0.5
    bars = ts.host_bars(slowed, run_id="MultiHostSeqMix", metric="iops").data[0]
    colours = dict(zip(zip(bars.x[0], bars.x[1], strict=True), bars.marker.color, strict=True))
    assert colours[("MultiHostSeqMix / SeqMix-7", "vm2")] == WORSE_COLOR
    assert colours[("MultiHostSeqMix / SeqMix-7", "vm1")] != WORSE_COLOR
    with pytest.raises(AnfperfError, match="metric must be one of"):
        ts.host_bars(frame, metric="speed")


def test_intervals_follow_the_flatfile_and_shade_the_warmup(frame):
    fig = ts.intervals(frame, run_id="RndReadThreads", metric="lat_mean_ms")
    rows = frame[
        (frame["run_id"] == "RndReadThreads") & frame["interval"].notna()
        & (frame["direction"] == "total")
    ]  # fmt: skip
    lines = {t.name: t for t in fig.data}
    first = lines["threads threads=1 @ localhost"]
    assert list(first.y) == pytest.approx(rows[rows["step"] == 0]["lat_mean_ms"].tolist())
    assert len(lines) == rows["step"].nunique()
    # one shaded span per for-loop step, covering its warm-up interval (one second each)
    assert len(fig.layout.shapes) == rows[rows["is_warmup"]]["step"].nunique()
    warm_t = first.x[0]  # the first interval is the warm-up
    span = fig.layout.shapes[0]
    assert span.x0 < warm_t <= span.x1
    assert [a.text for a in fig.layout.annotations] == ["warm-up (shaded)"]
    assert fig.layout.xaxis.title.text == "Time since the run started [s]"
    with pytest.raises(AnfperfError, match="no per-interval rows"):
        ts.intervals(frame, run_id="qd_sweep_randread4k")


def legend(fig) -> list[str]:
    return [t.name for t in fig.data if t.showlegend is not False and t.name]


def test_latency_over_time_reads_percentiles_from_the_histogram_logs():
    logs = pd.concat(
        [read_fio_log(p) for p in sorted(LOGS.glob("qd*_clat_hist.*.log.gz"))], ignore_index=True
    )
    # each job ran 1 s, logged every 0.25 s: 3 windows are no trend, and the chart says so
    with pytest.raises(AnfperfError, match=r"too short .* 3 windows of 0.25 s at most \(10 needed"):
        ts.latency_over_time(logs)
    jobs = logs["source_file"].astype(str).map(ts.job_of_log)
    few = logs[jobs.isin(["qd1", "qd4", "qd64"])]
    fig = ts.latency_over_time(few, min_windows=1, run_id="qd_sweep_randread4k")
    assert fig.layout.title.text == "Latency over time: qd_sweep_randread4k (fio logs)"
    # one legend entry per job, one per line style; each job's p99 solid, its p50 dotted
    assert legend(fig) == ["qd1", "qd4", "qd64", "p99", "p50"]
    qd4 = [t for t in fig.data if t.name == "qd4"]
    assert [t.line.dash for t in qd4] == ["solid", "dot"]
    # one window computed here from the raw counts of one log line
    one = read_fio_log(LOGS / "qd4_clat_hist.3.log.gz")
    p50, p99 = percentiles_from_bins(one["clat_bins"].iloc[0], [50, 99])
    assert qd4[0].y[0] >= p99 >= p50  # the window merges qd4's 4 threads' histograms
    qd4_rows = few[jobs[few.index] == "qd4"]
    window = np.floor(qd4_rows["time_s"].to_numpy(float) / 0.25)
    merged = qd4_rows[window == window.min()]["clat_bins"]
    assert list(percentiles_from_bins(ts.merge_bins(list(merged)), [99, 50])) == pytest.approx(
        [qd4[0].y[0], qd4[1].y[0]]
    )
    assert fig.layout.yaxis.title.text == "Latency [ms]"
    # 7 jobs: one line per direction, all jobs merged; a legend that fits beside the plot
    fig = ts.latency_over_time(logs, min_windows=1)
    assert legend(fig) == ["read", "p99", "p50"]
    assert fig.layout.title.text == "Latency over time: logs (fio logs)"
    with pytest.raises(AnfperfError, match="no fio log rows"):
        ts.latency_over_time(logs.iloc[0:0])


def tail_percentile_axis(fig) -> None:
    """The distribution's y axis: log share of I/Os slower, labelled as percentiles."""
    y = fig.layout.yaxis
    assert y.type == "log" and y.title.text == "Percentile [%] (log scale of the tail)"
    labels = dict(zip(y.ticktext, y.tickvals, strict=True))
    assert labels["50"] == 50 and labels["99"] == pytest.approx(1) and "99.9" in labels
    assert y.range[0] > y.range[1]  # p0 at the bottom, the tail at the top
    x = fig.layout.xaxis
    assert x.type == "log" and x.title.text == "Latency [ms]"
    assert all(np.log10(v) == pytest.approx(round(np.log10(v))) for v in x.tickvals)


def test_latency_cdf_from_jsonplus_bins_crosses_p50_at_the_jobs_p50(frame):
    fig = ts.latency_cdf(frame, run_id="qd_sweep_randread4k")
    rows = frame[
        (frame["run_id"] == "qd_sweep_randread4k") & frame["is_summary"]
        & (frame["direction"] == "total")
    ].set_index("job")  # fmt: skip
    for trace in fig.data:
        job = trace.name.split(" @ ")[0]
        slower = np.asarray(trace.y, float)
        assert slower[-1] == ts.OFF_AXIS_PCT  # the slowest I/O: the line leaves the axis
        assert np.all(np.diff(slower) <= 0)
        crossing = trace.x[np.argmax(slower <= 50.0)]
        assert crossing == pytest.approx(rows.loc[job, "lat_p50_ms"], rel=0.02)
        crossing = trace.x[np.argmax(slower <= 1.0)]
        assert crossing == pytest.approx(rows.loc[job, "lat_p99_ms"], rel=0.02)
    assert fig.layout.title.text == "Latency distribution: qd_sweep_randread4k"
    assert [t.name for t in fig.data][:2] == ["qd1", "qd2"]  # one host: not named
    tail_percentile_axis(fig)
    with pytest.raises(AnfperfError, match="no latency histograms"):
        ts.latency_cdf(frame, run_id="MultiHostSeqMix")


def test_latency_cdf_from_a_vdbench_histogram():
    hist = read_vdbench_histogram(THREADS / "histogram.html")
    fig = ts.latency_cdf(hist, run_id="RndReadThreads")
    assert len(fig.data) == hist["step"].nunique()
    first = hist[(hist["step"] == 0) & (hist["count"] > 0)]
    slower = 100 - 100 * first["count"].cumsum() / first["count"].sum()
    expected = np.where(slower > 1e-9, slower, ts.OFF_AXIS_PCT)
    assert list(fig.data[0].y) == pytest.approx(expected.tolist())
    assert fig.layout.title.text == "Latency distribution: RndReadThreads"
    tail_percentile_axis(fig)
