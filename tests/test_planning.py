"""Capacity planning: the library behind the notebook's controls, run without a browser."""

from __future__ import annotations

import numpy as np
import pytest

from anfperf.errors import AnfperfError
from anfperf.models import curves, plan, quota
from anfperf.models.client import client_constraints
from anfperf.planning import PlanInputs, PlannerApp, fit_sweep, plan_view
from tests.models.realdata import summary_avg


@pytest.fixture(scope="module")
def sweep():
    return fit_sweep()


def test_plan_view_is_the_models_plan(sweep):
    curve, source = sweep
    view = plan_view(PlanInputs(target_mib_s=2000, bs_kib=64), curve=curve, source=source)
    direct = plan(bs_kib=64, bw_mib_s=2000, read_pct=100, lat_slo_ms=2.0,
                  levels=["Standard", "Premium", "Ultra", "Flexible"])  # fmt: skip
    assert (view.plan.level, view.plan.quota_tib, view.plan.vm_count) == (
        direct.level,
        direct.quota_tib,
        direct.vm_count,
    )
    assert f"{direct.level} {direct.volume_type} volume of {direct.quota_tib:.3g} TiB" in (
        view.summary()
    )
    assert set(view.figures) == {"quota", "clients", "threads"}


def test_the_sweep_curve_is_fitted_on_the_bundled_real_sweep(sweep):
    curve, source = sweep
    assert source.startswith("RndReadThreads") and "not ANF" in source
    raw = summary_avg("RndReadThreads")
    # the USL through the measured thread counts (x SDs) follows the measured IOPS
    n = raw["threads"] * 2  # two SDs: Vdbench threads are per SD
    assert np.median(np.abs(curves.usl(n, **curve) / raw["iops"] - 1)) < 0.1


def test_controls_replan_through_update(sweep):
    curve, source = sweep
    app = PlannerApp(PlanInputs(target_mib_s=500, levels=("Premium",)), curve=curve, source=source)
    small = app.update(target_mib_s=500)
    big = app.update(target_mib_s=2000)
    assert big.plan.quota_tib == pytest.approx(4 * small.plan.quota_tib)
    assert big.plan.quota_tib == pytest.approx(quota.quota_needed(2000, "Premium"))
    as_iops = app.update(target_iops=100_000, bs_kib=8)
    assert app.inputs.target_mib_s is None and as_iops.plan.iops == 100_000
    assert as_iops.plan.bw_mib_s == pytest.approx(quota.iops_to_bw(100_000, 8))
    # an impossible target keeps the app alive with the reason
    assert app.update(target_mib_s=50_000) is None
    assert "above the 4500 MiB/s cap" in app.error
    assert app.update(target_mib_s=100).plan.level == "Premium" and app.error is None


def test_moving_a_control_replans(sweep, monkeypatch):
    monkeypatch.delenv("ANFPERF_BATCH", raising=False)
    curve, source = sweep
    app = PlannerApp(PlanInputs(target_mib_s=500, levels=("Premium",)), curve=curve, source=source)
    box = app.widget()  # the ipywidgets layout: controls in two rows, then the outputs
    controls = {c.description: c for row in box.children[:2] for c in row.children}
    assert app.view.plan.quota_tib == pytest.approx(quota.quota_needed(500, "Premium"))
    controls["Value"].value = 1000.0  # what a user typing 1000 does: the observer re-plans
    assert app.inputs.target_mib_s == 1000.0
    assert app.view.plan.quota_tib == pytest.approx(quota.quota_needed(1000, "Premium"))
    controls["Target"].value = "IOPS"
    assert app.inputs.target_iops == 1000.0 and app.inputs.target_mib_s is None


def test_widget_is_absent_in_a_batch_report(monkeypatch):
    monkeypatch.setenv("ANFPERF_BATCH", "1")
    assert PlannerApp(PlanInputs()).widget() is None


def test_what_if_charts_follow_the_models(sweep):
    curve, source = sweep
    view = plan_view(PlanInputs(target_mib_s=2000, bs_kib=64, read_pct=50), curve=curve,
                     source=source)  # fmt: skip
    q = view.figures["quota"]
    ultra = next(t for t in q.data if t.name.startswith("Ultra"))
    assert list(ultra.y) == pytest.approx(list(quota.throughput_limit(ultra.x, "Ultra")))
    assert any(a.text == "target 2,000 MiB/s" for a in q.layout.annotations)
    c = view.figures["clients"]
    egress = next(t for t in c.data if t.name == "client network egress")
    three = client_constraints(view.plan.vm_size, 3, bs_kib=64, read_pct=50,
                               pattern="sequential", nconnect=8)  # fmt: skip
    expected = three.set_index("constraint").loc["client network egress", "bw_mib_s"]
    assert egress.y[2] == pytest.approx(expected)
    assert (
        c.layout.xaxis.title.text == "Client VMs"
        and c.layout.yaxis.title.text == "Throughput [MiB/s]"
    )
    t = view.figures["threads"]
    at_slo = next(tr for tr in t.data if tr.name == "SLO reached")
    assert at_slo.x[0] == pytest.approx(curves.usl_concurrency_at_latency(2.0, **curve))
    assert t.layout.xaxis.title.text == "Outstanding I/O [threads]"
    for fig in view.figures.values():
        for trace in fig.data:
            assert np.isfinite(np.asarray(trace.y, float)).any(), trace.name


def test_bad_targets_are_clear_errors():
    with pytest.raises(AnfperfError, match="give one target"):
        PlanInputs(target_mib_s=100, target_iops=1000)
    with pytest.raises(AnfperfError, match="give one target"):
        PlanInputs(target_mib_s=None)
    with pytest.raises(AnfperfError, match="read_pct"):
        PlanInputs(read_pct=120)
    with pytest.raises(AnfperfError, match="no results"):
        fit_sweep(["/nonexistent/nothing"])
