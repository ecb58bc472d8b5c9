"""Sweep charts drawn from real runs: the numbers on a chart are the runs' and the report's numbers.

Expected values come from the raw outputs (fio JSON read with :mod:`json`, the Vdbench avg_ lines
of summary.html / vm1.html / vm2.html), and the knee and IOPS at the SLO from
:func:`anfperf.analysis.findings.key_numbers`, which the report states.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import anfperf
from anfperf.analysis import findings
from anfperf.errors import AnfperfError, ModelError
from anfperf.models import (
    QuotaScenario,
    fit_mix,
    fit_throughput_curve,
    mix_throughput,
    throughput_curve,
)
from anfperf.models.curves.band import case_band
from anfperf.models.curves.queueing import (
    fit_queueing_latency,
    queueing_latency,
    refit_queueing_latency,
)
from anfperf.models.forecast import NOT_PREDICTABLE, KnownLimits, known_limits
from anfperf.plots import curves
from anfperf.plots.limits import limit_label
from tests.conftest import DATA, TESTS

SAMPLES = TESTS.parent / "data" / "samples"
QD_SWEEP = SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json"
MIX_SWEEP = SAMPLES / "fio" / "sweeps" / "mix_sweep_randrw8k.json"
THREADS = SAMPLES / "vdbench" / "RndReadThreads"  # forthreads=(1-64,d), 2 SDs
MULTI_HOST = SAMPLES / "vdbench" / "MultiHostSeqMix"  # vm1 + vm2, threads 6 and 7, 2 SDs each
CURVE = DATA / "vdbench" / "RndReadCurve"  # iorate=curve: the queueing-curve path
#: Bootstrap resamples in these tests: enough for a band, quick (the default is 200).
RESAMPLES = 50

# Vdbench avg_ lines of RndReadThreads/summary.html (threads 1..64): i/o rate, resp time [ms]
THREADS_IOPS = [25699.83, 48709.83, 74431.17, 97662.17, 113550.50, 110842.17, 121008.67]
THREADS_LAT_MS = [0.069, 0.076, 0.100, 0.154, 0.264, 0.541, 0.998]
# MultiHostSeqMix: avg_ i/o rate per host (vm1.html, vm2.html) and of both (summary.html)
VM1_IOPS, VM2_IOPS, ALL_IOPS = [15423.14, 16923.57], [15542.29, 16881.00], [30965.43, 33804.57]
ALL_LAT_MS = [0.767, 0.823]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many([QD_SWEEP, MIX_SWEEP, THREADS, MULTI_HOST, CURVE])


@pytest.fixture(scope="module")
def numbers(frame) -> pd.DataFrame:
    return findings.key_numbers(frame, lat_slo_ms=1.0).set_index("run_id")


@pytest.fixture(scope="module")
def qd_jobs() -> list[dict]:
    return json.loads(QD_SWEEP.read_text())["jobs"]


@pytest.fixture(scope="module")
def figs(frame) -> dict:
    """The latency curve of each sweep, drawn once for the tests that read it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            run: curves.latency_curve(frame, run_id=run, resamples=RESAMPLES)
            for run in ("qd_sweep_randread4k", "RndReadThreads", "RndReadCurve")
        }


def traces(fig) -> dict:
    return {t.name: t for t in fig.data}


def assert_no_nan_only_traces(fig) -> None:
    for t in fig.data:
        assert len(t.x) and len(t.y), t.name
        assert np.isfinite(np.asarray(t.x, float)).any(), t.name
        assert np.isfinite(np.asarray(t.y, float)).any(), t.name


def band_edges(band) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, lower, upper) of a band drawn as one closed polygon: upper forward, lower back."""
    n = len(band.x) // 2
    x = np.asarray(band.x[:n], float)
    np.testing.assert_array_equal(x, np.asarray(band.x[n:], float)[::-1])
    return x, np.asarray(band.y[n:], float)[::-1], np.asarray(band.y[:n], float)


def slo_lines(fig) -> tuple[list[float], list[float]]:
    """(y of horizontal lines, x of vertical lines) among the figure's shapes."""
    horizontal = [s.y0 for s in fig.layout.shapes if s.y0 == s.y1]
    vertical = [s.x0 for s in fig.layout.shapes if s.x0 == s.x1]
    return horizontal, vertical


# --------------------------------------------------------------------------------------------
# latency_curve


@pytest.mark.parametrize(
    ("run", "fit_name"),
    [
        ("qd_sweep_randread4k", "USL fit"),
        ("RndReadThreads", "USL fit"),
        ("RndReadCurve", "queueing fit"),
    ],
)
def test_latency_curve_draws_points_fit_band_knee_and_slo(figs, numbers, run, fit_name):
    fig, row = figs[run], numbers.loc[run]
    names = [t.name for t in fig.data]
    fit_trace = f"{fit_name} (R² {row['fit_r2']:.2f})"
    # the forecast past the data: a concurrency sweep's concurrency forecast, by Little's law;
    # a load curve's the queueing curve its points fit, its band reaching down to the latency
    # last measured
    basis = "queueing fit (no limit known)" if run == "RndReadCurve" else "plateau"
    assert names == ["measured", "95 % band", fit_trace, "knee", "95 % forecast band",
                     f"forecast: {basis}"]  # fmt: skip
    assert fig.layout.xaxis.title.text == "Throughput [IOPS]"
    assert fig.layout.yaxis.title.text == "Mean latency [ms]"
    assert fig.layout.title.text == f"Latency vs throughput: {run}"
    t = traces(fig)
    assert max(t["measured"].x) == pytest.approx(row["peak_iops"])
    assert len(t["measured"].x) == row["points"]
    # the knee is the report's
    assert (t["knee"].x[0], t["knee"].y[0]) == pytest.approx((row["knee_iops"], row["knee_lat_ms"]))
    assert f"knee {row['knee_iops']:,.0f} IOPS" in [a.text for a in fig.layout.annotations]
    # the SLO at 1 ms; these sweeps stay below it, so the IOPS at the SLO is the forecast's
    horizontal, vertical = slo_lines(fig)
    assert horizontal == [1.0]
    assert "SLO 1 ms" in [a.text for a in fig.layout.annotations]
    assert np.isnan(row["iops_at_slo_measured"])
    assert vertical == pytest.approx([row["iops_at_slo_model"]])
    text = f"{row['iops_at_slo_model']:,.0f} IOPS at the SLO (forecast)"
    assert text in [a.text for a in fig.layout.annotations]
    # the fit ends at the data; the drawn forecast reaches 1 ms where the report says
    fit = t[fit_trace]
    assert max(fit.x) == pytest.approx(row["peak_iops"], rel=0.01)
    est = t[f"forecast: {basis}"]
    i = int(np.argmax(np.asarray(est.y) >= 1.0))  # where the estimate reaches 1 ms
    near = est.x[max(i - 1, 0) : i + 1]
    assert min(near) * 0.999 <= row["iops_at_slo_model"] <= max(near) * 1.001
    # the forecast band runs from the edges' rates there: the report's band at the SLO
    band = t["95 % forecast band"]
    inside = np.asarray(band.x)[np.asarray(band.y) <= 1.0]
    assert row["iops_at_slo_low"] < row["iops_at_slo_model"] < row["iops_at_slo_high"]
    if run == "RndReadCurve":
        # 133,996 at 1 ms, at least 103,764: no most, the band's faster edge at or under the
        # 0.30 ms last measured out to 8 x the load (the data cannot say how far it bends)
        assert row["iops_at_slo_model"] == pytest.approx(133_996, rel=0.01)
        assert row["iops_at_slo_low"] == pytest.approx(103_764, rel=0.02)
        assert math.isinf(row["iops_at_slo_high"])
        past = np.asarray(band.x) > 1.01 * row["peak_iops"]
        assert min(np.asarray(band.y)[past]) <= row["lat_at_peak_ms"]
        assert inside.max() > 7 * row["peak_iops"]
    else:
        assert inside.max() >= 0.99 * row["iops_at_slo_high"]
    # the band holds the fit
    bx, lower, upper = band_edges(t["95 % band"])
    at = np.isin(np.asarray(fit.x), bx)
    assert at.sum() > 0.9 * len(fit.x)
    fy = np.asarray(fit.y)[at]
    idx = np.searchsorted(bx, np.asarray(fit.x)[at])
    assert np.all(lower[idx] <= fy) and np.all(fy <= upper[idx])
    assert np.all(upper[idx] > lower[idx])
    assert_no_nan_only_traces(fig)


def test_latency_curve_points_are_the_raw_outputs(figs, qd_jobs):
    qd = traces(figs["qd_sweep_randread4k"])["measured"]
    # in sweep order, iodepth 1..64, as in the fio JSON
    assert list(qd.x) == pytest.approx([j["read"]["iops"] for j in qd_jobs])
    assert list(qd.y) == pytest.approx([j["read"]["lat_ns"]["mean"] / 1e6 for j in qd_jobs])
    threads = traces(figs["RndReadThreads"])["measured"]
    assert list(threads.x) == pytest.approx(THREADS_IOPS, abs=0.01)
    assert list(threads.y) == pytest.approx(THREADS_LAT_MS, abs=5e-4)


def test_latency_curve_reads_a_measured_iops_at_the_slo(frame, qd_jobs):
    fig = curves.latency_curve(frame, run_id="qd_sweep_randread4k", lat_slo_ms=0.5, resamples=0)
    row = findings.key_numbers(frame, lat_slo_ms=0.5).set_index("run_id").loc["qd_sweep_randread4k"]
    # 0.5 ms lies between iodepth 32 and 64: interpolated between those two measured points
    (x0, y0), (x1, y1) = (
        (j["read"]["iops"], j["read"]["lat_ns"]["mean"] / 1e6) for j in qd_jobs[-2:]
    )
    expected = x0 + (0.5 - y0) * (x1 - x0) / (y1 - y0)
    assert row["iops_at_slo_measured"] == pytest.approx(expected)
    horizontal, vertical = slo_lines(fig)
    assert horizontal == [0.5]
    assert vertical == pytest.approx([expected])
    texts = [a.text for a in fig.layout.annotations]
    assert f"{expected:,.0f} IOPS at the SLO (measured)" in texts
    assert "SLO 0.5 ms" in texts
    assert "95 % band" not in traces(fig)  # resamples=0: no band


def test_latency_curve_hover_names_run_host_job_step_and_load(figs):
    measured = traces(figs["RndReadThreads"])["measured"]
    template = measured.hovertemplate
    for i, field in enumerate(("run_id", "host", "job", "step")):
        assert f"{field}: %{{customdata[{i}]}}" in template
    assert "outstanding: %{customdata[4]}" in template
    assert "IOPS: %{x:,.0f}" in template and "latency: %{y:.3f} ms" in template
    first = list(measured.customdata[0])
    # threads=1 on 2 SDs: 2 outstanding I/Os
    assert first == ["RndReadThreads", "localhost", "threads", 0, "2"]
    # a load curve also names the rate asked for; its uncontrolled step is 'max'
    curve = traces(figs["RndReadCurve"])["measured"]
    assert "requested: %{customdata[5]}" in curve.hovertemplate
    assert [c[5] for c in curve.customdata][-2:] == ["92,500 IOPS", "max"]


def test_latency_curve_is_seeded(frame):
    def draw(seed):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return curves.latency_curve(
                frame, run_id="RndReadCurve", seed=seed, resamples=RESAMPLES
            )

    first = draw(7)
    assert first.to_json() == draw(7).to_json()
    band = np.asarray(traces(first)["95 % band"].y, float)
    assert not np.array_equal(band, np.asarray(traces(draw(8))["95 % band"].y, float))


def test_latency_curve_draws_the_cross_host_total(frame):
    fig = curves.latency_curve(frame, run_id="MultiHostSeqMix", x="iops")
    measured = traces(fig)["measured"]
    # the 'all' rows of summary.html: the two hosts added up, not either host
    assert list(measured.x) == pytest.approx(ALL_IOPS, abs=0.01)
    assert list(measured.x) == pytest.approx(np.add(VM1_IOPS, VM2_IOPS), abs=0.02)
    assert list(measured.y) == pytest.approx(ALL_LAT_MS, abs=5e-4)
    assert {c[1] for c in measured.customdata} == {"all"}
    # two steps are no sweep for findings: no curve, and the chart says why
    assert [t.name for t in fig.data] == ["measured"]
    assert fig.layout.title.text == (
        "Latency vs throughput: MultiHostSeqMix<br><sup>no curve fitted: 2 points (a sweep "
        "needs 3)</sup>"
    )
    assert slo_lines(fig) == ([1.0], [])
    # 64 KiB sequential: charted in MiB/s unless asked otherwise
    fig = curves.latency_curve(frame, run_id="MultiHostSeqMix")
    assert fig.layout.xaxis.title.text == "Throughput [MiB/s]"
    assert list(fig.data[0].x) == pytest.approx(np.multiply(ALL_IOPS, 64 / 1024), rel=1e-3)
    # a chart that must show a curve and has none is a reason, not a figure
    with pytest.raises(AnfperfError, match=r"^no curve fitted: 2 points \(a sweep needs 3\)$"):
        curves.latency_curve(frame, run_id="MultiHostSeqMix", require_curve=True)


def test_latency_curve_draws_one_trace_group_per_sweep(frame, numbers):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig = curves.latency_curve(frame, resamples=0)
    runs = ["MultiHostSeqMix", "RndReadCurve", "RndReadThreads", "qd_sweep_randread4k"]
    assert [t.name for t in fig.data if t.name.endswith("measured")] == [
        f"{r} measured" for r in runs
    ]
    assert fig.layout.title.text == (
        "Latency vs throughput<br><sup>MultiHostSeqMix no curve fitted: 2 points (a sweep "
        "needs 3)</sup>"
    )
    groups = {t.legendgroup for t in fig.data}
    assert groups == {f"{r} " for r in runs}
    slo = {a.text for a in fig.layout.annotations if "IOPS at the SLO" in a.text}
    assert slo == {
        f"{r} {numbers.loc[r, 'iops_at_slo_model']:,.0f} IOPS at the SLO (forecast)"
        for r in runs[1:]
    }
    # the workload filter: both Vdbench runs drive the workload RndRead
    fig = curves.latency_curve(frame, workload="RndRead", resamples=0)
    assert {t.legendgroup for t in fig.data} == {"RndReadCurve ", "RndReadThreads "}
    assert fig.layout.title.text == "Latency vs throughput / RndRead"
    assert_no_nan_only_traces(fig)


# --------------------------------------------------------------------------------------------
# case_band


def test_band_is_seeded_and_brackets_the_fit(qd_jobs):
    x = np.array([j["read"]["iops"] for j in qd_jobs])
    y = np.array([j["read"]["lat_ns"]["mean"] / 1e6 for j in qd_jobs])
    fit = fit_queueing_latency(x, y)
    grid = np.linspace(0, x.max(), 20)

    def refit(a, b):
        return refit_queueing_latency(a, b, fit)

    low, high = case_band(refit, queueing_latency, x, y, grid, resamples=RESAMPLES, seed=3)
    again = case_band(refit, queueing_latency, x, y, grid, resamples=RESAMPLES, seed=3)
    np.testing.assert_array_equal(low, again[0])
    np.testing.assert_array_equal(high, again[1])
    other = case_band(refit, queueing_latency, x, y, grid, resamples=RESAMPLES, seed=4)
    assert not np.array_equal(high, other[1])
    ok = np.isfinite(low) & np.isfinite(high)
    assert ok.sum() > 10
    curve = queueing_latency(grid[ok], **fit)
    assert np.all(low[ok] <= curve) and np.all(curve <= high[ok])
    with pytest.raises(ModelError, match="3 or more"):
        case_band(refit, queueing_latency, x[:2], y[:2], grid)
    with pytest.raises(ModelError, match="level"):
        case_band(refit, queueing_latency, x, y, grid, level=95)


# --------------------------------------------------------------------------------------------
# scaling


def test_scaling_draws_littles_law_at_each_measured_latency(frame, numbers, qd_jobs):
    fig = curves.scaling(frame, run_id="qd_sweep_randread4k")
    names = [t.name for t in fig.data]
    assert names == [
        "measured",
        "95 % prediction band",
        "fitted curve",
        "95 % forecast band",
        "forecast: plateau",
        "Little's law at the measured latency",
        "ideal: latency stays 0.070 ms",
    ]
    assert fig.layout.xaxis.title.text == "Outstanding I/O [threads x queue depth]"
    assert fig.layout.yaxis.title.text == "Throughput [IOPS]"
    t = traces(fig)
    measured = t["measured"]
    assert list(measured.x) == [float(j["job options"]["iodepth"]) for j in qd_jobs]
    assert list(measured.y) == pytest.approx([j["read"]["iops"] for j in qd_jobs])
    assert max(measured.y) == pytest.approx(numbers.loc["qd_sweep_randread4k", "peak_iops"])
    lat_s = np.array([j["read"]["lat_ns"]["mean"] for j in qd_jobs]) / 1e9
    assert list(t["Little's law at the measured latency"].x) == list(measured.x)
    assert list(t["Little's law at the measured latency"].y) == pytest.approx(measured.x / lat_s)
    ideal = t["ideal: latency stays 0.070 ms"]
    assert ideal.y[-1] == pytest.approx(64 / lat_s[0])  # iodepth 64 at the iodepth-1 latency
    assert "latency: %{customdata[4]}" in measured.hovertemplate
    assert measured.customdata[0][4] == f"{lat_s[0] * 1e3:.3f} ms"
    assert_no_nan_only_traces(fig)


def test_scaling_draws_the_default_curve_and_its_band_over_the_data(frame, qd_jobs):
    fig = curves.scaling(frame, run_id="qd_sweep_randread4k")
    t = traces(fig)
    depths = np.array([float(j["job options"]["iodepth"]) for j in qd_jobs])
    iops = np.array([j["read"]["iops"] for j in qd_jobs])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_throughput_curve(depths, iops)
    curve = t["fitted curve"]
    # over the depths measured: past them the forecast takes over
    assert curve.x[0] == 1 and curve.x[-1] == depths.max()
    np.testing.assert_allclose(curve.y, throughput_curve(np.asarray(curve.x), **fit))
    band = t["95 % prediction band"]
    half = len(band.x) // 2
    upper, lower = np.asarray(band.y[:half]), np.asarray(band.y[half:])[::-1]
    assert list(band.x[:half]) == list(curve.x)
    assert np.all((lower <= np.asarray(curve.y)) & (np.asarray(curve.y) <= upper))
    # the measured points lie inside the band at their depths (all of them here)
    at = np.searchsorted(np.asarray(curve.x), depths)
    assert list(np.asarray(curve.x)[at]) == list(depths)
    assert np.all((lower[at] <= iops) & (iops <= upper[at]))
    # the largest depth measured is marked
    assert any(shape.x0 == depths.max() for shape in fig.layout.shapes)


def test_scaling_counts_outstanding_io_over_sds_and_hosts(frame):
    fig = curves.scaling(frame, y="iops")
    t = traces(fig)
    assert sorted(n for n in t if n.endswith("measured")) == [
        "MultiHostSeqMix measured",
        "RndReadThreads measured",
        "qd_sweep_randread4k measured",
    ]
    # Vdbench threads are per SD: threads 1..64 on 2 SDs
    threads = t["RndReadThreads measured"]
    assert list(threads.x) == [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0]
    assert list(threads.y) == pytest.approx(THREADS_IOPS, abs=0.01)
    # threads 6 and 7 on 2 SDs of each of 2 hosts; the rate of both hosts
    multi = t["MultiHostSeqMix measured"]
    assert list(multi.x) == [24.0, 28.0]
    assert list(multi.y) == pytest.approx(np.add(VM1_IOPS, VM2_IOPS), abs=0.02)
    little = t["MultiHostSeqMix Little's law at the measured latency"]
    assert list(little.y) == pytest.approx([24 / 0.767e-3, 28 / 0.8233e-3], rel=1e-3)
    assert_no_nan_only_traces(fig)


# --------------------------------------------------------------------------------------------
# mix


@pytest.mark.parametrize(
    ("y", "title"), [("iops", "Throughput [IOPS]"), ("bw_mib_s", "Throughput [MiB/s]")]
)
def test_mix_draws_the_sweep_and_the_fitted_mix_model(frame, y, title):
    fig = curves.mix(frame, y=y)
    jobs = json.loads(MIX_SWEEP.read_text())["jobs"]
    if y == "iops":
        expected = [j["read"]["iops"] + j["write"]["iops"] for j in jobs]
    else:
        expected = [(j["read"]["bw_bytes"] + j["write"]["bw_bytes"]) / 2**20 for j in jobs]
    fit = fit_mix(np.arange(0.0, 101.0, 10.0), expected)
    assert [t.name for t in fig.data] == [
        "95 % band of the mix model", "measured", f"mix model (MdAPE {fit.mdape_pct:.1f} %)"
    ]  # fmt: skip
    assert fig.layout.title.text == "Read/write mix: mix_sweep_randrw8k"
    assert fig.layout.xaxis.title.text == "Read share [%]"
    assert fig.layout.yaxis.title.text == title
    assert fig.layout.xaxis.dtick == 10
    band, measured, model = fig.data
    # the band, drawn under the points, holds each of the 11 real mixes of the sweep
    high, low = np.asarray(band.y[:101]), np.asarray(band.y[101:])[::-1]
    at = (np.asarray(measured.x) * 1).astype(int)  # the band's grid is every whole per cent
    assert np.all((low[at] <= np.asarray(measured.y)) & (np.asarray(measured.y) <= high[at]))
    assert np.all(low < np.asarray(model.y)) and np.all(np.asarray(model.y) < high)
    assert list(measured.x) == [float(j["job options"]["rwmixread"]) for j in jobs]
    assert list(measured.x) == list(np.arange(0.0, 101.0, 10.0))
    assert list(measured.y) == pytest.approx(expected)
    assert model.x[0] == 0 and model.x[-1] == 100
    assert list(model.y) == pytest.approx(list(mix_throughput(np.asarray(model.x), **fit)))
    assert_no_nan_only_traces(fig)


def test_mix_is_bounded_by_the_known_limit_and_draws_it_unless_the_rates_pass_it(frame):
    # the sample's 11 mixes of 8 KiB random: 49,839 .. 67,268 IOPS; a limit 1.9 % under the
    # highest (within the 2 % a measurement may pass a limit by)
    fig = curves.mix(frame, known=KnownLimits.of_iops(66_000, "volume quota: test"))
    t = {tr.name: tr for tr in fig.data}
    assert list(t) == ["95 % band of the mix model", "measured", "mix model (MdAPE 3.3 %)",
                       "known limit"]  # fmt: skip
    assert list(t["known limit"].y) == [66_000, 66_000]
    # the band stops at the limit; without it, it reaches 67,271
    assert max(t["95 % band of the mix model"].y) == pytest.approx(66_000)
    alone = {tr.name: tr for tr in curves.mix(frame).data}
    assert max(alone["95 % band of the mix model"].y) == pytest.approx(67_271, abs=1)
    assert max(t["mix model (MdAPE 3.3 %)"].y) <= 66_000
    passed = curves.mix(frame, known=KnownLimits.of_iops(50_000, "volume quota: test"))
    assert "known limit" not in [tr.name for tr in passed.data]
    assert "the limit given, 50,000 IOPS (volume quota), is below the 67,268 IOPS measured" in (
        passed.layout.title.text
    )


def test_mix_of_two_read_shares_states_no_error():
    # fio stonewall groups: 64 KiB sequential, one job writing, one reading
    fig = curves.mix(anfperf.read(DATA / "fio" / "stonewall_2groups.json"))
    band, measured, model = fig.data
    # nil width at the measured ends but a repeat's scatter, widest halfway
    width = np.asarray(band.y[:101]) - np.asarray(band.y[101:])[::-1]
    assert width[50] > 4 * width[0] > 0
    assert model.name == "mix model (harmonic, exact at its 2 read shares)"
    assert list(measured.x) == [0.0, 100.0]
    # the harmonic mean of the two rates halfway: 1 / (0.5 / read + 0.5 / write)
    write, read = measured.y
    assert np.interp(50.0, model.x, model.y) == pytest.approx(1 / (0.5 / read + 0.5 / write))


def test_mix_without_pure_runs_is_drawn_over_the_read_shares_measured(frame):
    # the sample sweep's nine mixes (10 .. 90 % reads) without its pure runs: the model is not
    # drawn past the shares measured, where its band cannot bound it; the chart says why
    mixes = frame[~frame["read_pct"].isin([0, 100])]
    fig = curves.mix(mixes)
    band, measured, model = fig.data
    assert list(measured.x) == list(np.arange(10.0, 91.0, 10.0))
    assert (model.x[0], model.x[-1]) == (10, 90) and (min(band.x), max(band.x)) == (10, 90)
    assert (
        "no pure reads or writes measured: the model is drawn over the read shares measured "
        "only" in fig.layout.title.text
    )
    # the pure writes kept: drawn from 0 %, the reads' side up to 90 %
    writes = curves.mix(frame[frame["read_pct"] != 100])
    assert (writes.data[2].x[0], writes.data[2].x[-1]) == (0, 90)
    assert "no pure reads measured: the model is drawn" in writes.layout.title.text
    # with both, the whole width and no such line
    whole = curves.mix(frame)
    assert (whole.data[2].x[0], whole.data[2].x[-1]) == (0, 100)
    assert "measured only" not in whole.layout.title.text


# --------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("chart", [curves.latency_curve, curves.scaling, curves.mix])
def test_charts_refuse_frames_without_whole_run_rows(frame, chart):
    with pytest.raises(AnfperfError, match="no whole-run"):
        chart(frame.iloc[0:0])
    with pytest.raises(AnfperfError, match="lacks the column"):
        chart(pd.DataFrame())
    with pytest.raises(AnfperfError, match="expected a tidy frame"):
        chart([1, 2, 3])
    with pytest.raises(AnfperfError, match=r"run 'nope' is not in the frame; it holds \["):
        chart(frame, run_id="nope")
    with pytest.raises(AnfperfError, match="no workload 'nope'"):
        chart(frame, workload="nope")


def test_charts_say_what_the_data_lack(frame):
    with pytest.raises(
        ModelError,
        match=r"no load sweep to draw in run 'mix_sweep_randrw8k' "
        r"\(findings: read/write mix sweep\)",
    ):
        curves.latency_curve(frame, run_id="mix_sweep_randrw8k")
    # a load curve's steps are rate-limited: they show the rate asked for, not scaling
    with pytest.raises(ModelError, match="no concurrency sweep to draw in run 'RndReadCurve'"):
        curves.scaling(frame, run_id="RndReadCurve")
    with pytest.raises(ModelError, match="no read/write mix sweep to draw in run 'RndReadThreads'"):
        curves.mix(frame, run_id="RndReadThreads")
    with pytest.raises(ModelError, match="no load sweep to draw in workload 'qd8'"):
        curves.latency_curve(frame, workload="qd8")
    with pytest.raises(ModelError, match="y must be one of"):
        curves.mix(frame, y="lat_mean_ms")
    with pytest.raises(ModelError, match="lat_slo_ms must be > 0"):
        curves.latency_curve(frame, lat_slo_ms=0)


# --------------------------------------------------------------------------------------------
# forecasts past the data, bounded by the volume's known limit

QD_RANDREAD = DATA / "fio_sweeps" / "qd_randread"  # make_sweeps.sh: 3 passes, iodepth 1 .. 128


def _rising_sweep() -> pd.DataFrame:
    """Pass 2 of the real iodepth sweep at depths 1 .. 4 (36k .. 92k IOPS), one run: rising."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([QD_RANDREAD / f"pass2_qd{d}.json" for d in (1, 2, 3, 4)])
    return frame.assign(run_id="pass2")


def _limit_trace(fig):
    (limit,) = [t for t in fig.data if t.meta and "limit" in t.meta]
    return limit


@pytest.mark.parametrize(
    ("level", "quota_tib", "basis"),
    [("Ultra", 10.0, "forecast: plateau"), ("Standard", 20.0, "forecast: held at the known limit")],
)
def test_scaling_forecasts_past_the_data_up_to_the_known_limit(frame, level, quota_tib, basis):
    known = known_limits(QuotaScenario(bs_kib=4, level=level, quota_tib=quota_tib))
    fig = curves.scaling(frame, run_id="qd_sweep_randread4k", known=known)
    t = traces(fig)
    assert basis in t and "95 % forecast band" in t
    estimate = t[basis]
    # from the largest depth measured to 4 times it, never above the limit
    assert estimate.x[0] == 64 and estimate.x[-1] == pytest.approx(256)
    assert np.all(np.asarray(estimate.y) <= known.iops_max)
    band = np.asarray(t["95 % forecast band"].y, float)
    assert np.all(band <= known.iops_max * (1 + 1e-9))
    # the limit is a line at its value, in the legend, labelled with its rate and block size
    assert _limit_trace(fig).meta["limit"] == pytest.approx(known.iops_max)
    assert any(s.y0 == s.y1 == pytest.approx(known.iops_max) for s in fig.layout.shapes)
    label = limit_label(known)
    assert label == (
        f"volume quota {known.bw_mib_s:,.0f} MiB/s = {known.iops_max:,.0f} IOPS at 4 KiB"
    )
    assert label in [a.text for a in fig.layout.annotations]
    assert fig.layout.yaxis.range[1] > known.iops_max  # the limit and its label are in view
    assert "not predictable" not in fig.layout.title.text
    assert_no_nan_only_traces(fig)


def test_scaling_of_a_still_rising_sweep_says_it_cannot_tell_without_a_limit():
    rising = _rising_sweep()
    fig = curves.scaling(rising, run_id="pass2")
    names = [t.name for t in fig.data]
    assert not any(n.startswith("forecast") or n == "95 % forecast band" for n in names)
    assert "known limit" not in names
    assert f"past 4 in flight: {NOT_PREDICTABLE}: throughput still grows" in fig.layout.title.text
    # with the volume's limit (Standard 24 TiB: 98,304 IOPS at 4 KiB) it can, capped by it
    known = known_limits(QuotaScenario(bs_kib=4, level="Standard", quota_tib=24))
    fig = curves.scaling(rising, run_id="pass2", known=known)
    t = traces(fig)
    estimate = t["forecast: fitted curve capped by the known limit"]
    assert np.max(estimate.y) == pytest.approx(known.iops_max)
    assert np.all(np.asarray(estimate.y) <= known.iops_max)
    assert NOT_PREDICTABLE not in fig.layout.title.text


def test_a_limit_below_the_rates_measured_is_said_not_drawn(frame):
    known = known_limits(QuotaScenario(bs_kib=4, level="Standard", quota_tib=1.0))  # 4,096 IOPS
    for chart in (curves.scaling, curves.latency_curve):
        fig = chart(frame, run_id="qd_sweep_randread4k", known=known)
        assert not [t for t in fig.data if t.meta and "limit" in t.meta]
        assert "4,096 IOPS (volume quota), is below the" in fig.layout.title.text


def test_latency_curve_forecasts_up_to_the_known_limit(frame):
    known = known_limits(QuotaScenario(bs_kib=4, level="Ultra", quota_tib=10.0))
    # depths 1, 2, 4: 0.070 .. 0.104 ms, latency not yet risen; the volume's limit says where
    flat = frame[frame["job"].isin(["qd1", "qd2", "qd4"])]
    fig = curves.latency_curve(flat, run_id="qd_sweep_randread4k", known=known,
                               resamples=RESAMPLES)  # fmt: skip
    t = traces(fig)
    estimate = t["forecast: queueing at the known limit"]
    x = np.asarray(estimate.x, float)
    top_measured = max(t["measured"].x)
    assert x[0] == pytest.approx(top_measured) and x[-1] < known.iops_max
    assert np.all(np.diff(np.asarray(estimate.y, float)) > 0)  # latency rises toward the limit
    assert "95 % forecast band" in t
    # the limit: a vertical line at its value, named in full in the legend
    assert _limit_trace(fig).meta["limit"] == pytest.approx(known.iops_max)
    assert _limit_trace(fig).name == f"limit: {limit_label(known)}"
    assert any(s.x0 == s.x1 == pytest.approx(known.iops_max) for s in fig.layout.shapes)
    assert fig.layout.xaxis.range[1] > known.iops_max
    assert fig.layout.title.text == "Latency vs throughput: qd_sweep_randread4k"


def test_latency_curve_that_rises_well_below_the_limit_is_not_the_volumes(frame):
    # the whole sweep levels at 79,653 IOPS (0.80 ms), 24 % of the volume's 327,680: the
    # clients or the device bind, so the forecast past it is its plateau (the concurrency
    # forecast, as on the scaling chart), its latency rising by Little's law, not the volume's
    known = known_limits(QuotaScenario(bs_kib=4, level="Ultra", quota_tib=10.0))
    fig = curves.latency_curve(frame, run_id="qd_sweep_randread4k", known=known,
                               resamples=RESAMPLES)  # fmt: skip
    t = traces(fig)
    estimate = t["forecast: plateau"]
    y = np.asarray(estimate.y, float)
    assert np.all(np.diff(y) > 0) and y[-1] > 1.3 * 0.80  # past the chart's top
    assert np.asarray(estimate.x, float) == pytest.approx(79_653, rel=1e-3)
    assert max(t["95 % forecast band"].x) < 0.3 * known.iops_max
    top_measured = max(t["measured"].x)
    assert max(t["USL fit (R² 1.00)"].x) == pytest.approx(top_measured)
    assert _limit_trace(fig).meta["limit"] == pytest.approx(known.iops_max)


def test_latency_curve_of_a_flat_sweep_without_a_limit_says_it_cannot_tell(frame):
    # depths 1, 2, 4: 0.070 .. 0.104 ms, latency has not risen
    flat = frame[frame["job"].isin(["qd1", "qd2", "qd4"])]
    fig = curves.latency_curve(flat, run_id="qd_sweep_randread4k", resamples=0)
    assert not any(str(t.name).startswith("forecast") for t in fig.data)
    assert (
        f"past 4 in flight: {NOT_PREDICTABLE}: 3 concurrencies measured, 4 needed to read "
        "a curve's shape; no limit of the volume is known"
    ) in fig.layout.title.text
    # a sweep that has risen gets no such note: its fitted curve is what it says
    risen = curves.latency_curve(frame, run_id="qd_sweep_randread4k", resamples=0)
    assert NOT_PREDICTABLE not in risen.layout.title.text


def test_scaling_leaves_a_stalled_step_out_of_its_fitted_curve_and_says_so():
    # pass 2 of the dense sweep as one run: QD 5 stalled (4,441 IOPS); with it in the fit no
    # bootstrap refit converged and the chart said "no throughput curve"
    files = sorted((DATA / "fio_sweeps" / "qd_dense" / "unlimited").glob("pass2_*.json"))
    fig = curves.scaling(anfperf.read_many(files, run_id="pass2"), draws=50)
    names = [t.name for t in fig.data]
    assert "fitted curve" in names and "95 % prediction band" in names
    title = fig.layout.title.text
    assert "N=5: 4,441 IOPS" in title and "a stalled run, left out of the fit" in title
    assert "no throughput curve" not in title
    measured = next(t for t in fig.data if t.name == "measured")
    assert 4441 == round(min(measured.y))  # the measured point itself stays drawn
