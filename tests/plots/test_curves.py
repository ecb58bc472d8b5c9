"""Sweep charts drawn from real runs: the numbers on the chart are the runs' numbers."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import anfperf
from anfperf import findings
from anfperf.errors import AnfperfError
from anfperf.models.band import predict_band
from anfperf.models.curves import fit_queueing_latency, queueing_latency, refit_queueing_latency
from anfperf.plots import curves
from tests.conftest import DATA, TESTS
from tests.models.realdata import summary_avg

SWEEPS = TESTS.parent / "data" / "samples" / "fio" / "sweeps"
QD_SWEEP = SWEEPS / "qd_sweep_randread4k.json"
MIX_SWEEP = SWEEPS / "mix_sweep_randrw8k.json"


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many(
            [QD_SWEEP, MIX_SWEEP, DATA / "vdbench" / "RndReadThreads", DATA / "vdbench" / "RndRead"]
        )


def traces(fig) -> dict:
    return {t.name: t for t in fig.data}


def no_nan_only_traces(fig) -> None:
    for t in fig.data:
        if t.y is not None and len(t.y):
            assert np.isfinite(np.asarray(t.y, float)).any(), t.name


def test_latency_curve_draws_the_measured_points_fit_band_knee_and_slo(frame):
    fig = curves.latency_curve(frame, run_id="qd_sweep_randread4k", lat_slo_ms=0.5)
    t = traces(fig)
    jobs = json.loads(QD_SWEEP.read_text())["jobs"]
    measured = t["measured"]
    # the points in sweep order (iodepth 1..64), straight from the JSON
    assert list(measured.x) == pytest.approx([j["read"]["iops"] for j in jobs])
    assert list(measured.y) == pytest.approx([j["read"]["lat_ns"]["mean"] / 1e6 for j in jobs])
    assert fig.layout.xaxis.title.text == "Throughput [IOPS]"
    assert fig.layout.yaxis.title.text == "Mean latency [ms]"
    numbers = (
        findings.key_numbers(frame, lat_slo_ms=0.5).set_index("run_id").loc["qd_sweep_randread4k"]
    )
    knee = t["knee"]
    assert (knee.x[0], knee.y[0]) == pytest.approx((numbers["knee_iops"], numbers["knee_lat_ms"]))
    # the SLO line and the IOPS read off at it, as the report's numbers say
    assert [s.y0 for s in fig.layout.shapes if s.y0 == s.y1] == [0.5]
    slo_x = [s.x0 for s in fig.layout.shapes if s.x0 == s.x1 and s.x0 != 0]
    assert slo_x == pytest.approx([numbers["iops_at_slo_measured"]])
    texts = [a.text for a in fig.layout.annotations]
    assert f"{numbers['iops_at_slo_measured']:,.0f} IOPS at the SLO (measured)" in texts
    assert "SLO 0.5 ms" in texts
    # the fit lies inside its band
    fit_trace = next(v for k, v in t.items() if "USL fit" in k)
    band = t["95 % band"]
    n = len(band.x) // 2
    upper = np.interp(fit_trace.x, band.x[:n], band.y[:n])
    lower = np.interp(fit_trace.x, band.x[n:][::-1], band.y[n:][::-1])
    inside = (fit_trace.x >= band.x[0]) & (fit_trace.x <= band.x[n - 1])
    assert np.all(lower[inside] <= fit_trace.y[inside] + 1e-9)
    assert np.all(fit_trace.y[inside] <= upper[inside] + 1e-9)
    no_nan_only_traces(fig)


def test_latency_curve_hover_names_run_host_job_and_step(frame):
    fig = curves.latency_curve(frame, run_id="RndReadThreads")
    measured = traces(fig)["measured"]
    assert "run_id: %{customdata[0]}" in measured.hovertemplate
    assert "job: %{customdata[2]}" in measured.hovertemplate
    raw = summary_avg("RndReadThreads")
    assert sorted(measured.x) == pytest.approx(sorted(raw["iops"]))
    # the SLO (1 ms) lies beyond this sweep: IOPS at the SLO comes from the fitted curve
    assert any("IOPS at the SLO (fitted curve)" in a.text for a in fig.layout.annotations)


def test_band_is_seeded_and_brackets_the_fit():
    jobs = json.loads(QD_SWEEP.read_text())["jobs"]
    x = np.array([j["read"]["iops"] for j in jobs])
    y = np.array([j["read"]["lat_ns"]["mean"] / 1e6 for j in jobs])
    grid = np.linspace(0, x.max(), 20)
    a = predict_band(fit_queueing_latency, queueing_latency, x, y, grid, resamples=40, seed=3)
    b = predict_band(fit_queueing_latency, queueing_latency, x, y, grid, resamples=40, seed=3)
    np.testing.assert_array_equal(a[0], b[0])
    fit = fit_queueing_latency(x, y)
    ok = np.isfinite(a[0])
    assert ok.sum() > 10
    assert np.all(a[0][ok] <= queueing_latency(grid[ok], **fit) * 1.0001)
    assert np.all(queueing_latency(grid[ok], **fit) <= a[1][ok] * 1.0001)
    # the one-start refit of the bootstraps lands where the full multi-start fit did
    refit = refit_queueing_latency(x, y, fit)
    assert refit["lat_min_ms"] == pytest.approx(fit["lat_min_ms"], rel=1e-3)
    assert refit["iops_max"] == pytest.approx(fit["iops_max"], rel=1e-3)
    with pytest.raises(AnfperfError, match="3 or more"):
        predict_band(fit_queueing_latency, queueing_latency, x[:2], y[:2], grid)


def test_scaling_draws_littles_law_at_each_measured_latency(frame):
    fig = curves.scaling(frame, run_id="qd_sweep_randread4k")
    t = traces(fig)
    jobs = json.loads(QD_SWEEP.read_text())["jobs"]
    measured = t["measured"]
    assert list(measured.x) == [float(j["job options"]["iodepth"]) for j in jobs]
    little = t["Little's law at the measured latency"]
    lat_s = np.array([j["read"]["lat_ns"]["mean"] for j in jobs]) / 1e9
    assert list(little.y) == pytest.approx(list(measured.x / lat_s))
    assert fig.layout.xaxis.title.text == "Outstanding I/O [threads x queue depth]"
    assert fig.layout.yaxis.title.text == "Throughput [IOPS]"
    no_nan_only_traces(fig)


def test_mix_draws_the_sweep_and_the_fitted_mix_model(frame):
    fig = curves.mix(frame, y="bw_mib_s")
    t = traces(fig)
    jobs = json.loads(MIX_SWEEP.read_text())["jobs"]
    measured = t["measured"]
    assert list(measured.x) == [float(j["job options"]["rwmixread"]) for j in jobs]
    bw = [(j["read"]["bw_bytes"] + j["write"]["bw_bytes"]) / 2**20 for j in jobs]
    assert list(measured.y) == pytest.approx(bw)
    model = next(v for k, v in t.items() if "mix model" in k)
    fit = anfperf.models.fit_mix(measured.x, measured.y)
    assert f"median error {fit.mdape_pct:.1f} %" in model.name
    assert fig.layout.xaxis.title.text == "Read share [%]"
    assert fig.layout.yaxis.title.text == "Throughput [MiB/s]"


def test_charts_say_what_the_data_lack(frame):
    with pytest.raises(AnfperfError, match="no load sweep to draw: run 'RndRead' is a single"):
        curves.latency_curve(frame, run_id="RndRead")
    with pytest.raises(AnfperfError, match="run 'nope' is not in the frame"):
        curves.scaling(frame, run_id="nope")
    with pytest.raises(AnfperfError, match="no read/write mix sweep to draw"):
        curves.mix(frame, run_id="qd_sweep_randread4k")
    with pytest.raises(AnfperfError, match="y must be one of"):
        curves.mix(frame, y="lat")
    with pytest.raises(AnfperfError):
        curves.latency_curve(frame.iloc[0:0])
