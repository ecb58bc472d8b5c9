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
    fig = ts.host_bars(frame, run_id="MultiHostSeqMix")
    bars, median = fig.data[0], fig.data[1]
    got = {(j.split(" / ")[1], h): v for j, h, v in zip(bars.x[0], bars.x[1], bars.y, strict=True)}
    for host in ("vm1", "vm2"):
        for rd, iops in host_avg_iops(MULTI / f"{host}.html").items():
            assert got[(rd, host)] == pytest.approx(iops, abs=0.01)
    assert median.y[0] == pytest.approx(np.median([got[("SeqMix-6", h)] for h in ("vm1", "vm2")]))
    assert fig.layout.yaxis.title.text == "Throughput [IOPS]"
    assert WORSE_COLOR not in list(bars.marker.color)  # two even hosts: no straggler


def test_a_slow_host_is_coloured_as_a_straggler(frame):
    slowed = frame.copy()
    vm2 = (slowed["host"] == "vm2") & (slowed["job"] == "SeqMix-7")
    slowed.loc[vm2, "iops"] *= 0.5
    bars = ts.host_bars(slowed, run_id="MultiHostSeqMix").data[0]
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


def test_latency_over_time_reads_percentiles_from_the_histogram_logs():
    logs = pd.concat(
        [read_fio_log(p) for p in sorted(LOGS.glob("qd*_clat_hist.*.log.gz"))], ignore_index=True
    )
    fig = ts.latency_over_time(logs)
    traces = {t.name: t for t in fig.data}
    assert sorted(traces) == sorted(
        f"qd{q} p{p}" for q in (1, 2, 4, 8, 16, 32, 64) for p in (50, 99)
    )
    # one window computed here from the raw counts of one log line
    one = read_fio_log(LOGS / "qd4_clat_hist.3.log.gz")
    p50, p99 = percentiles_from_bins(one["clat_bins"].iloc[0], [50, 99])
    assert traces["qd4 p50"].y[0] == pytest.approx(p50)
    assert traces["qd4 p99"].y[0] == pytest.approx(p99)
    assert all(np.all(traces[f"qd{q} p99"].y >= traces[f"qd{q} p50"].y) for q in (1, 64))
    assert fig.layout.yaxis.title.text == "Latency [ms]"
    with pytest.raises(AnfperfError, match="no fio log rows"):
        ts.latency_over_time(logs.iloc[0:0])


def test_latency_cdf_from_jsonplus_bins_crosses_p50_at_the_jobs_p50(frame):
    fig = ts.latency_cdf(frame, run_id="qd_sweep_randread4k")
    rows = frame[
        (frame["run_id"] == "qd_sweep_randread4k") & frame["is_summary"]
        & (frame["direction"] == "total")
    ].set_index("job")  # fmt: skip
    for trace in fig.data:
        job = trace.name.split(" @ ")[0]
        assert trace.y[-1] == pytest.approx(100.0)
        crossing = trace.x[np.searchsorted(trace.y, 50.0)]
        assert crossing == pytest.approx(rows.loc[job, "lat_p50_ms"], rel=0.02)
    assert fig.layout.xaxis.type == "log"
    with pytest.raises(AnfperfError, match="no latency histograms"):
        ts.latency_cdf(frame, run_id="MultiHostSeqMix")


def test_latency_cdf_from_a_vdbench_histogram():
    hist = read_vdbench_histogram(THREADS / "histogram.html")
    fig = ts.latency_cdf(hist)
    assert len(fig.data) == hist["step"].nunique()
    first = hist[hist["step"] == 0]
    cum = 100 * first["count"].cumsum() / first["count"].sum()
    assert list(fig.data[0].y) == pytest.approx(cum.tolist())
    assert fig.layout.yaxis.title.text == "Share of I/Os at or below [%]"
