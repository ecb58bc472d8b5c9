"""What-if charts of a plan: they draw the models' numbers, with units, on one template."""

from __future__ import annotations

import warnings

import numpy as np
import plotly.io as pio
import pytest

from anfperf import models
from anfperf.analysis.sweep import sweep_points, sweep_xy
from anfperf.errors import ModelError
from anfperf.ingest import read_many
from anfperf.models import client_constraints
from anfperf.models.limits import quota
from anfperf.plots import TEMPLATE
from anfperf.plots.planning import (
    clients_vs_throughput,
    concurrency_for_target,
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
        return models.fit_usl(*sweep_xy(frame))


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
    lines = [
        t for t in fig.data
        if t.mode == "lines" and t.name != "target 2,000 MiB/s" and t.meta != "cap"
    ]  # fmt: skip
    markers = [t for t in fig.data if t.mode == "markers"]
    # a line per level; a marker per level that meets 2,000 MiB/s (Standard's cap is 1,600)
    assert [t.name.split(" ")[0] for t in lines] == list(LEVELS)
    # the target is a legend entry: a horizontal line at 2,000 MiB/s across the quotas
    target = trace(fig, "target 2,000 MiB/s")
    assert list(target.y) == [2000, 2000] and list(target.x) == pytest.approx([50 / 1024, 100])
    # the caps are named in the legend, where the target's label cannot run through them
    assert [t.name for t in fig.data if t.meta == "cap"] == [
        "regular volume cap 1,600 MiB/s (Standard)",
        "regular volume cap 4,500 MiB/s (Premium, Ultra, Flexible: manual QoS)",
    ]
    assert not any("volume cap" in a.text for a in fig.layout.annotations)
    assert [t.name for t in markers] == [
        "Premium meets the target at 31.25 TiB",
        "Ultra meets the target at 15.63 TiB",
        "Flexible meets the target at 3.13 TiB",
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
    assert " quota 15.63 TiB" in text and not any("target" in t for t in text)
    assert "Standard cannot: 2000 MiB/s is above the 1600 MiB/s cap" in fig.layout.title.text


def test_quota_chart_of_a_large_volume_plan():
    fig = quota_vs_throughput(["Premium", "Ultra"], 256, 6000, volume_type="large",
                              level="Premium", quota_tib=93.75)  # fmt: skip
    premium = trace(fig, "Premium (64 MiB/s per TiB)")
    assert premium.line.width == 3 and min(premium.x) == pytest.approx(50)
    # the large-volume minimum of 50 TiB already gives Ultra 6,400 MiB/s
    assert trace(fig, "Ultra meets the target at 50 TiB").x[0] == pytest.approx(50)
    assert trace(fig, "Premium meets the target at 93.75 TiB").x[0] == pytest.approx(93.75)


def test_a_small_volumes_target_keeps_its_decimals_in_names_and_hovers():
    fig = quota_vs_throughput(["Premium"], 64, 6.25, level="Premium", quota_tib=100 / 1024)
    meets = trace(fig, "Premium meets the target at 100 GiB")
    assert meets.x[0] == pytest.approx(100 / 1024)
    assert "100 GiB for 6.25 MiB/s" in meets.hovertemplate
    # plotly's d3 format: 4 significant digits, zeros trimmed (6.25, 4,500), never whole MiB/s
    line = trace(fig, "Premium (64 MiB/s per TiB)")
    assert "%{y:,.4~r} MiB/s" in line.hovertemplate and ",.0f" not in line.hovertemplate


@pytest.mark.parametrize("target", [1500.0, 1600.0, 1700.0, 2000.0, 4000.0, 4500.0, 5000.0])
def test_the_target_line_never_strikes_through_a_cap_label(target):
    # a 2,000 MiB/s target drew its dashed line through 'regular volume cap 1,600 MiB/s'
    fig = quota_vs_throughput(LEVELS, 64, target)
    # no text on the plot at a data y for a line to strike through: caps, target and levels
    # are named in the legend
    assert not [a.text for a in fig.layout.annotations if a.yref == "y"]
    assert {"regular volume cap 1,600 MiB/s (Standard)", f"target {target:,.0f} MiB/s"} <= {
        t.name for t in fig.data
    }
    # the target and every line stay on the chart, with decade labels only
    lo, hi = fig.layout.yaxis.range
    assert lo <= np.log10(target) <= hi
    assert set(fig.layout.yaxis.ticktext) <= {"0.1", "1", "10", "100", "1,000", "10,000", "100,000"}


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
        "client network egress", "client NFS connections", "volume limit 1,562 MiB/s",
        "achievable (least of the limits)", "target reached with 2 VMs", "target 1,562 MiB/s",
        "plan: 2 VMs",
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
    # reference lines are legend entries: no label on the plot to collide with a line
    assert not fig.layout.annotations
    assert list(trace(fig, "plan: 2 VMs").x) == [2, 2]
    assert list(trace(fig, "volume limit 1,562 MiB/s").y) == [1562.5, 1562.5]
    # log y: every line stays on the chart from 1 to 8 VMs
    lo, hi = fig.layout.yaxis.range
    assert fig.layout.yaxis.type == "log"
    for t in fig.data:
        y = np.log10(np.asarray(t.y, float))
        assert ((lo <= y) & (y <= hi)).all(), t.name


def test_clients_chart_at_the_defaults_shows_the_clients_rising():
    # the notebook's default: 2,000 MiB/s of 64 KiB reads; the volume binds from one VM, and
    # the chart showed one flat line (the client limits were above its linear axis)
    fig = clients_vs_throughput("Standard_D8ds_v4", 2000, bs_kib=64, pattern="sequential",
                                volume_limit_mib_s=2000, vm_count=1, max_vms=8)  # fmt: skip
    nfs = trace(fig, "client NFS connections")
    assert nfs.y[0] == pytest.approx(3500) and nfs.y[-1] == pytest.approx(8 * 3500)
    lo, hi = fig.layout.yaxis.range
    assert lo <= np.log10(2000) and np.log10(8 * 3500) <= hi
    assert "the volume limit binds from 1 VM on" in fig.layout.title.text
    # the ticks are written out (not plotly's bare '2', '5' of a log axis)
    assert "2,000" in fig.layout.yaxis.ticktext and "20,000" in fig.layout.yaxis.ticktext


def test_clients_chart_of_reads_has_no_egress_line():
    fig = clients_vs_throughput("D8ds_v4", 5000, bs_kib=64, max_vms=4)
    # reads are not metered and no pattern gives no observed line: nothing limits the clients
    assert [t.name for t in fig.data] == ["target 5,000 MiB/s"]
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
    assert np.asarray(lat.y, float) == pytest.approx(models.usl_latency_ms(n, **fit))
    rate = trace(fig, "throughput (USL) [IOPS]")
    assert np.asarray(rate.y, float) == pytest.approx(models.usl(n, **fit))
    slo = trace(fig, "SLO reached")
    assert slo.x[0] == pytest.approx(models.usl_concurrency_at_latency(2.0, **fit))
    assert models.usl_latency_ms(slo.x[0], **fit) == pytest.approx(2.0)
    assert " plan: 64 threads" in [a.text for a in fig.layout.annotations]


def test_threads_chart_from_a_frame_draws_the_measured_runs(frame, fit):
    fig = threads_vs_latency(frame, 1.0)
    points = sweep_points(frame, "outstanding", "lat_mean_ms")
    measured = trace(fig, "measured")
    assert list(measured.x) == points["outstanding"].tolist()
    assert list(measured.y) == pytest.approx(points["lat_mean_ms"].tolist())
    lat = trace(fig, "latency (USL)")
    assert np.asarray(lat.y, float) == pytest.approx(models.usl_latency_ms(lat.x, **fit))
    assert fig.layout.title.text == "Threads vs latency: USL fitted on RndReadThreads"


def test_threads_chart_defaults_to_the_bundled_sample_and_says_so():
    fig = threads_vs_latency(lat_slo_ms=2.0)
    assert "bundled sample: a local disk, not ANF" in fig.layout.title.text
    assert len(trace(fig, "measured").x) >= 6


def test_threads_chart_with_an_slo_below_the_unloaded_latency(fit):
    unloaded = float(models.usl_latency_ms(1, **fit))
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


# --------------------------------------------------------------------------------------------
# The plan's outstanding I/O on the target's Little's-law line


def test_concurrency_chart_is_the_plans_littles_law():
    # 32,000 IOPS at 2 ms: 64 outstanding I/O, as the plan says (it said 64 while the old
    # chart's USL curve of a local disk said '259 threads at 2 ms')
    fig = concurrency_for_target(32_000, 2.0, outstanding=64, vm_count=1)
    check_chart(fig, "Outstanding I/O, all client VMs [count]", "Mean latency [ms]")
    assert fig.layout.title.text.startswith("Outstanding I/O for 32,000 IOPS: the plan by Little")
    line = fig.data[0]
    n = np.asarray(line.x, float)
    assert np.asarray(line.y, float) == pytest.approx(n * 1000 / 32_000)  # R = N / X
    plan = trace(fig, "plan: 64 outstanding I/O on 1 VM, at 2 ms")
    assert (plan.x[0], plan.y[0]) == (64, 2.0)
    assert np.interp(64, n, np.asarray(line.y, float)) == pytest.approx(2.0)  # on the line
    assert list(trace(fig, "latency SLO 2 ms").y) == [2.0, 2.0]
    assert not fig.layout.annotations  # legend entries only
    spread = concurrency_for_target(200_000, 1.0, outstanding=200, vm_count=3)
    assert trace(spread, "plan: 200 outstanding I/O, 67 per VM on 3 VMs, at 1 ms").x[0] == 200


def test_concurrency_chart_with_a_measured_sweep_names_it(frame, fit):
    fig = concurrency_for_target(32_000, 2.0, outstanding=64, curve=frame,
                                 source="RndReadThreads (bundled sample: a local disk, not ANF)")  # fmt: skip
    assert fig.layout.title.text.startswith(
        "Outstanding I/O for 32,000 IOPS: the plan by Little's law, and latency measured on "
        "RndReadThreads (bundled sample: a local disk, not ANF)"
    )
    assert "RndReadThreads is the bundled sample: a local disk, not ANF" in fig.layout.title.text
    curve = trace(fig, "latency measured on RndReadThreads (USL fit)")
    assert np.asarray(curve.y, float) == pytest.approx(models.usl_latency_ms(curve.x, **fit))
    points = sweep_points(frame, "outstanding", "lat_mean_ms")
    assert list(trace(fig, "measured on RndReadThreads").x) == points["outstanding"].tolist()
    # where the measured system delivers the target: on the Little's-law line, at X(N) = target
    met = next(t for t in fig.data if t.name.startswith("the target on RndReadThreads: "))
    assert models.usl(met.x[0], **fit) == pytest.approx(32_000, rel=1e-6)
    assert met.y[0] == pytest.approx(met.x[0] * 1000 / 32_000)
    # no 'SLO reached' marker of the measured system: it would contradict the plan
    assert not any("SLO reached" in t.name for t in fig.data)
    too_much = concurrency_for_target(10_000_000, 2.0, outstanding=20_000, curve=fit,
                                      source="X")  # fmt: skip
    assert "X peaks at" in too_much.layout.title.text
    with pytest.raises(ModelError, match="outstanding must be an integer >= 1"):
        concurrency_for_target(1000, 2.0, outstanding=0)
    with pytest.raises(ModelError, match="target_iops must be a number > 0"):
        concurrency_for_target(0, 2.0, outstanding=1)


def test_a_small_target_keeps_its_decimals_in_the_title_and_legend():
    # a 100 GiB Premium volume's 6.25 MiB/s: "what meets 6.25 MiB/s", not "6 MiB/s"
    fig = quota_vs_throughput(["Premium"], 64.0, 6.25)
    assert "what meets 6.25 MiB/s" in fig.layout.title.text
    assert "target 6.25 MiB/s" in [t.name for t in fig.data]
