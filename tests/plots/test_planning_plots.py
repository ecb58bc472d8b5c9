"""What-if charts of a plan: they draw the models' numbers, with units, on one template."""

from __future__ import annotations

import warnings

import numpy as np
import plotly.io as pio
import pytest

from anfperf.errors import ModelError
from anfperf.ingest import read_many
from anfperf.models import client_constraints, curves, quota
from anfperf.models._common import sweep_points, sweep_xy
from anfperf.plots import TEMPLATE
from anfperf.plots.planning import (
    clients_vs_throughput,
    quota_meeting,
    quota_vs_throughput,
    threads_vs_latency,
)
from anfperf.plots.quota import level_line
from tests.conftest import DATA

LEVELS = ("Standard", "Premium", "Ultra", "Flexible")
SWEEP = DATA / "vdbench" / "RndReadThreads"  # a real Vdbench thread sweep (forthreads=)


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_many([SWEEP])


@pytest.fixture(scope="module")
def fit(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no saturation in the sweep: kappa 0, noted in fit
        return curves.fit_usl(*sweep_xy(frame))


def trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def check_chart(fig, x_title, y_title):
    """One template, axis titles with units, no trace without a finite value."""
    assert fig.layout.template == pio.templates[TEMPLATE]
    assert (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == (x_title, y_title)
    for t in fig.data:
        assert np.isfinite(np.asarray(t.y, float)).any(), f"trace {t.name!r} has no value"


# --------------------------------------------------------------------------------------------
# Quota per level


def test_quota_chart_draws_the_quota_model_and_the_target():
    fig = quota_vs_throughput(LEVELS, 64, 2000)
    check_chart(fig, "Volume quota [TiB]", "Throughput [MiB/s]")
    lines = [t for t in fig.data if t.mode == "lines" and t.meta != "cap"]
    markers = [t for t in fig.data if t.mode == "markers"]
    # a line per level; a marker per level that meets 2,000 MiB/s (Standard's cap is 1,600)
    assert [t.name.split(" ")[0] for t in lines] == list(LEVELS)
    # the caps are named in the legend, where the target's label cannot run through them
    assert [t.name for t in fig.data if t.meta == "cap"] == [
        "regular volume cap 1,600 MiB/s (Standard)",
        "regular volume cap 4,500 MiB/s (Premium, Ultra, Flexible: manual QoS)",
    ]
    assert not any("volume cap" in a.text for a in fig.layout.annotations)
    assert [t.name for t in markers] == [
        "Premium meets the target at 31.2 TiB",
        "Ultra meets the target at 15.6 TiB",
        "Flexible meets the target at 3.12 TiB",
    ]
    for level in ("Standard", "Premium", "Ultra"):
        line = next(t for t in lines if t.name.startswith(level))
        x = np.asarray(line.x, float)
        assert np.asarray(line.y, float) == pytest.approx(quota.throughput_limit(x, level))
        for q_tib in (0.5, 10.0, 70.3125):  # sample points on the lines
            assert np.interp(q_tib, x, np.asarray(line.y, float)) == pytest.approx(
                quota.throughput_limit(q_tib, level)
            )
    flexible = lines[-1]
    assert np.asarray(flexible.y, float) == pytest.approx(
        np.minimum(quota.pool_throughput_limit(np.asarray(flexible.x, float), "Flexible"), 4500)
    )
    for m in markers[:2]:
        level = m.name.split(" ")[0]
        assert m.x[0] == pytest.approx(quota.quota_needed(2000, level)) and m.y[0] == 2000
    assert markers[2].x[0] == pytest.approx(2000 / 640)  # a Flexible pool: 640 MiB/s per TiB
    # the planned volume by default: the level meeting the target with the smallest quota
    ultra = next(t for t in lines if t.name.startswith("Ultra"))
    assert ultra.line.width == 3
    text = [a.text for a in fig.layout.annotations]
    assert "target 2,000 MiB/s" in text and " quota 15.625 TiB" in text
    assert "Standard cannot: 2000 MiB/s is above the 1600 MiB/s cap" in fig.layout.title.text


def test_quota_chart_of_a_large_volume_plan():
    fig = quota_vs_throughput(["Premium", "Ultra"], 256, 6000, volume_type="large",
                              level="Premium", quota_tib=93.75)  # fmt: skip
    premium = trace(fig, "Premium (64 MiB/s per TiB)")
    assert premium.line.width == 3 and min(premium.x) == pytest.approx(50)
    # the large-volume minimum of 50 TiB already gives Ultra 6,400 MiB/s
    assert trace(fig, "Ultra meets the target at 50 TiB").x[0] == pytest.approx(50)
    assert trace(fig, "Premium meets the target at 93.8 TiB").x[0] == pytest.approx(93.75)


@pytest.mark.parametrize("target", [50.0, 128.0, 1000.0, 4500.0])
def test_flexible_meets_the_target_on_its_line(target):
    need = quota_meeting("Flexible", target)
    lo = quota.volume_size_range("Ultra")[0]
    assert need >= lo
    assert float(level_line(np.array([need]), "Flexible")[0]) >= target * (1 - 1e-9)
    if need > lo:  # the smallest: just below it the line is under the target
        assert float(level_line(np.array([need * 0.999]), "Flexible")[0]) < target


def test_quota_chart_bad_inputs():
    with pytest.raises(ModelError, match="target_mib_s must be a number > 0"):
        quota_vs_throughput(LEVELS, 64, 0)
    with pytest.raises(ModelError, match="at least one service level"):
        quota_vs_throughput([], 64, 100)
    with pytest.raises(ModelError, match="unknown service level"):
        quota_vs_throughput(["Gold"], 64, 100)
    with pytest.raises(ModelError, match="above the 4,500 MiB/s one Flexible volume"):
        quota_meeting("Flexible", 5000)


# --------------------------------------------------------------------------------------------
# Client VMs


def test_clients_chart_draws_the_client_limits():
    fig = clients_vs_throughput("Standard_D16s_v5", 1562.5, bs_kib=8, read_pct=70,
                                pattern="random", volume_limit_mib_s=1562.5, vm_count=2,
                                max_vms=8)  # fmt: skip
    check_chart(fig, "Client VMs [count]", "Throughput [MiB/s]")
    assert [t.name for t in fig.data] == [
        "client network egress", "client NFS connections", "achievable (least of the limits)",
        "target reached with 2 VMs",
    ]  # fmt: skip
    for n in (1, 3, 8):
        expected = client_constraints("Standard_D16s_v5", n, bs_kib=8, read_pct=70,
                                      pattern="random", nconnect=8)  # fmt: skip
        expected = expected.set_index("constraint")["bw_mib_s"]
        for name in ("client network egress", "client NFS connections"):
            t = trace(fig, name)
            assert list(t.x)[n - 1] == n and t.y[n - 1] == pytest.approx(expected[name])
        assert trace(fig, "achievable (least of the limits)").y[n - 1] == pytest.approx(
            min(expected.min(), 1562.5)
        )
    text = [a.text for a in fig.layout.annotations]
    assert {"target 1,562 MiB/s", "volume limit 1,562 MiB/s", " plan: 2 VMs"} <= set(text)


def test_clients_chart_of_reads_has_no_egress_line():
    fig = clients_vs_throughput("D8ds_v4", 5000, bs_kib=64, max_vms=4)
    # reads are not metered and no pattern gives no observed line: nothing limits the clients
    assert fig.data == ()
    assert "no client network egress line: reads are ingress" in fig.layout.title.text
    assert "give the access pattern" in fig.layout.title.text
    # reads are ingress: 3,500 MiB/s per VM as the D32s was seen, 4 VMs 14,000 MiB/s
    short = clients_vs_throughput("D8ds_v4", 15000, bs_kib=64, pattern="sequential", max_vms=4)
    assert "4 VMs do not reach the target" in short.layout.title.text
    with pytest.raises(ModelError, match="unknown VM size"):
        clients_vs_throughput("D3_v9", 100, bs_kib=64)
    with pytest.raises(ModelError, match="max_vms must be an integer >= 1"):
        clients_vs_throughput("D8ds_v4", 100, bs_kib=64, max_vms=0)


# --------------------------------------------------------------------------------------------
# Threads against latency


def test_threads_chart_from_a_fit(fit):
    fig = threads_vs_latency(fit, 2.0, source="RndReadThreads", threads_planned=64)
    check_chart(fig, "Outstanding I/O [threads]", "Mean latency [ms]")
    assert fig.layout.yaxis2.title.text == "Throughput [IOPS]"
    assert fig.layout.title.text == "Threads vs latency: USL fitted on RndReadThreads"
    lat = trace(fig, "latency (USL)")
    n = np.asarray(lat.x, float)
    assert np.asarray(lat.y, float) == pytest.approx(curves.usl_latency_ms(n, **fit))
    rate = trace(fig, "throughput (USL) [IOPS]")
    assert np.asarray(rate.y, float) == pytest.approx(curves.usl(n, **fit))
    slo = trace(fig, "SLO reached")
    assert slo.x[0] == pytest.approx(curves.usl_concurrency_at_latency(2.0, **fit))
    assert curves.usl_latency_ms(slo.x[0], **fit) == pytest.approx(2.0)
    assert " plan: 64 threads" in [a.text for a in fig.layout.annotations]


def test_threads_chart_from_a_frame_draws_the_measured_runs(frame, fit):
    fig = threads_vs_latency(frame, 1.0)
    points = sweep_points(frame, "outstanding", "lat_mean_ms")
    measured = trace(fig, "measured")
    assert list(measured.x) == points["outstanding"].tolist()
    assert list(measured.y) == pytest.approx(points["lat_mean_ms"].tolist())
    lat = trace(fig, "latency (USL)")
    assert np.asarray(lat.y, float) == pytest.approx(curves.usl_latency_ms(lat.x, **fit))
    assert fig.layout.title.text == "Threads vs latency: USL fitted on RndReadThreads"


def test_threads_chart_defaults_to_the_bundled_sample_and_says_so():
    fig = threads_vs_latency(lat_slo_ms=2.0)
    assert "bundled sample: a local disk, not ANF" in fig.layout.title.text
    assert len(trace(fig, "measured").x) >= 6


def test_threads_chart_with_an_slo_below_the_unloaded_latency(fit):
    unloaded = float(curves.usl_latency_ms(1, **fit))
    fig = threads_vs_latency(fit, unloaded / 2)
    assert all(t.name != "SLO reached" for t in fig.data)
    assert "unloaded latency" in fig.layout.title.text
    assert fig.layout.yaxis.range[1] >= unloaded  # the curve stays on the chart


def test_threads_chart_bad_curves(frame):
    with pytest.raises(ModelError, match="needs a USL fit"):
        threads_vs_latency({"lat_min_ms": 0.3, "iops_max": 1e5}, 1.0)
    with pytest.raises(ModelError, match="lat_slo_ms must be > 0"):
        threads_vs_latency(frame, 0)
    with pytest.raises(ModelError):
        threads_vs_latency(frame.iloc[0:0], 1.0)
