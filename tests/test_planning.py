"""Capacity planning: the library behind the notebook's controls, run without a browser."""

from __future__ import annotations

import dataclasses
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from anfperf import models
from anfperf.analysis.sweep import SAMPLE_SWEEP, load_sweep, sweep_xy
from anfperf.errors import AnfperfError, ModelError
from anfperf.models import plan, predict_achievable
from anfperf.models.forecast import NOT_PREDICTABLE
from anfperf.models.limits import quota
from anfperf.models.limits.plan import OBSERVED_MARGIN
from anfperf.planning import (
    ANY_VM,
    FIGURES,
    PlanInputs,
    PlannerApp,
    control_values,
    controls,
    convert_target,
    explain_plan,
    plan_view,
    what_if_figures,
)
from tests.models.realdata import sd_count, summary_avg

ALL_LEVELS = ["Standard", "Premium", "Ultra", "Flexible"]
PLOTLY = "application/vnd.plotly.v1+json"
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def sweep():
    """The bundled real Vdbench thread sweep, read once: (frame, source)."""
    return load_sweep()


@pytest.fixture
def interactive(monkeypatch):
    """A JupyterLab session: no ANFPERF_BATCH (which a report kernel sets)."""
    monkeypatch.delenv("ANFPERF_BATCH", raising=False)


# --------------------------------------------------------------------------------------------
# plan_view is models.plan, plus the binding constraint of the planned setup


@pytest.mark.parametrize(
    ("inputs", "direct"),
    [
        (PlanInputs(target_mib_s=2000), {"bw_mib_s": 2000, "bs_kib": 64}),
        (
            PlanInputs(target_iops=200_000, bs_kib=8, read_pct=70, lat_slo_ms=1.0,
                       levels=("Ultra",)),
            {"iops": 200_000, "bs_kib": 8, "read_pct": 70, "lat_slo_ms": 1.0,
             "levels": ["Ultra"]},
        ),
        (
            PlanInputs(target_mib_s=6000, bs_kib=256, read_pct=30, vm_size="D32s_v5",
                       nconnect=4, capacity_tib=80),
            {"bw_mib_s": 6000, "bs_kib": 256, "read_pct": 30,
             "vm_sizes": ["Standard_D32s_v5"], "nconnect": 4, "capacity_tib": 80},
        ),
    ],
    ids=["MiB/s", "IOPS-Ultra", "large-writes-fixed-VM"],
)  # fmt: skip
def test_plan_view_is_the_models_plan(inputs, direct):
    view = plan_view(inputs, figures=False)
    expected = plan(**{"read_pct": 100.0, "lat_slo_ms": 2.0, "levels": ALL_LEVELS, **direct})
    got = view.plan
    for name in (
        "level",
        "volume_type",
        "quota_tib",
        "throughput_limit_mib_s",
        "vm_size",
        "vm_count",
        "threads_per_vm",
        "outstanding",
        "lat_ms",
        "bw_mib_s",
        "iops",
    ):
        assert getattr(got, name) == getattr(expected, name), name  # fmt: skip
    pd.testing.assert_frame_equal(view.reasoning, expected.reasoning)
    pd.testing.assert_frame_equal(view.plan.storage_options, expected.storage_options)
    # no clients given: the plan's count and threads
    assert (view.vm_count, view.threads_per_vm) == (expected.vm_count, expected.threads_per_vm)
    # the binding constraint is predict_achievable's for the planned volume and clients
    limits = predict_achievable(
        bs_kib=inputs.bs_kib, read_pct=inputs.read_pct, level=got.level,
        quota_tib=got.quota_tib, volume_type=got.volume_type, pattern=inputs.pattern,
        vm_size=got.vm_size, vm_count=got.vm_count, nconnect=inputs.nconnect,
    )  # fmt: skip
    pd.testing.assert_frame_equal(view.constraints, limits)
    assert view.binding == limits.attrs["binding"]
    assert view.binding_mib_s == pytest.approx(limits["bw_mib_s"].min())
    # a plan meets its target: no limit binds below it; a published observation may, within
    # its margin, and the view says so
    if view.binding_mib_s < got.bw_mib_s * (1 - 1e-9):
        assert view.binding == "published volume benchmark"
        assert view.binding_mib_s >= got.bw_mib_s / (1 + OBSERVED_MARGIN)
        assert len(view.notes) == 1 and "above what one such volume was seen" in view.notes[0]
    else:
        assert view.notes == []


def test_what_the_notebook_shows_of_a_plan():
    view = plan_view(PlanInputs(target_mib_s=2000, levels=("Premium",)), figures=False)
    need = quota.quota_needed(2000, "Premium")  # 31.25 TiB
    assert view.plan.quota_tib == pytest.approx(need)
    assert view.summary().startswith(f"**Premium regular volume of {need:.4g} TiB** (2,000 MiB/s)")
    # the quota was sized to the target: the volume's quota binds, exactly at it
    assert view.binding == "volume quota" and abs(view.headroom_pct) < 1e-9
    assert view.binding_text() == (
        "Binding constraint: **volume quota**, 2,000 MiB/s (just the target: the plan sized it "
        "so): 31.25 TiB x 64 MiB/s per TiB (Premium)."
    )
    storage = view.reasoning.iloc[1]
    assert (storage["step"], storage["decision"]) == (
        "storage",
        "Premium regular volume, 31.25 TiB",
    )
    assert storage["why"].startswith("2,000 MiB/s / 64 MiB/s per TiB")
    assert list(view.options.columns) == [
        "level", "volume_type", "quota_tib", "limit_mib_s", "feasible", "why",
    ]  # fmt: skip
    assert view.options["feasible"].iloc[0] and "vm_count" in view.client_options


def test_too_few_clients_bind_and_are_named():
    inputs = PlanInputs(target_iops=200_000, bs_kib=8, read_pct=70, lat_slo_ms=1.0,
                        levels=("Ultra",))  # fmt: skip
    needed = plan_view(inputs, figures=False)
    # 3 x D8ds_v4 (24 vCPUs; 80,700 IOPS each: 200,000 read, 135,000 / 4 write by its egress,
    # mixed 70/30) beat 2 x D16s_v5 (32 vCPUs) since reads are not scaled by egress
    assert needed.plan.vm_size == "Standard_D8ds_v4" and needed.plan.vm_count == 3
    # 200,000 8 KiB IOPS at 70 % reads: 0.1 % past what the published results give a regular
    # volume (199,859 IOPS by the per-operation costs), within their margin
    assert needed.binding == "published volume benchmark"
    assert needed.binding_mib_s == pytest.approx(1561.4, abs=0.1)
    assert "(just the target): regular volume, random 8 KiB" in needed.binding_text()
    why = needed.client_options.set_index("vm_size").loc["Standard_D8ds_v4", "why"]
    # the mix is worked out from the pure read and write runs, not claimed as seen
    assert "135,000 1/s write (random); writes x 0.25 for this VM's network limit" in why
    assert why.endswith("70 % read mixed harmonically: 80,717 1/s per VM -> 3")
    assert " did " not in why
    one = plan_view(dataclasses.replace(inputs, clients=1), figures=False)
    assert one.vm_count == 1 and one.threads_per_vm == needed.plan.outstanding
    assert one.binding == "client NFS connections" and one.headroom_pct < 0
    assert "% short of the target" in one.binding_text()
    assert one.notes[-1].startswith("with 1 x Standard_D8ds_v4 the clients fall short")
    more = plan_view(dataclasses.replace(inputs, clients=4), figures=False)
    assert more.threads_per_vm == math.ceil(needed.plan.outstanding / 4)
    assert more.notes == needed.notes  # only the note on the published observation


def test_threads_beyond_nfs_inflight_are_noted():
    view = plan_view(
        PlanInputs(target_iops=100_000, bs_kib=4, lat_slo_ms=20.0, nconnect=1, clients=1),
        figures=False,
    )
    assert view.threads_per_vm == 2000  # 100,000 IOPS x 20 ms, on one VM
    assert any("more than NFSv3 with nconnect=1 keeps in flight (128)" in n for n in view.notes)


# --------------------------------------------------------------------------------------------
# The concurrency sweep and the charts


def test_the_sweep_curve_is_fitted_on_the_bundled_real_sweep(sweep, tmp_path):
    frame, source = sweep
    assert source == "RndReadThreads (bundled sample: a local disk, not ANF)"
    fit = models.fit_usl(*sweep_xy(frame))
    raw = summary_avg("RndReadThreads")
    # the USL through the measured thread counts (x SDs: Vdbench threads are per SD) follows
    # the measured IOPS
    n = raw["threads"] * sd_count("RndReadThreads")
    assert np.median(np.abs(models.usl(n, **fit) / raw["iops"] - 1)) < 0.1
    with pytest.raises(AnfperfError, match="sweep: no such file or folder: /nonexistent/nothing"):
        load_sweep(["/nonexistent/nothing"])
    with pytest.raises(AnfperfError, match=f"no results in {tmp_path}"):
        load_sweep([tmp_path])  # there, but nothing in it to read


def test_what_if_figures_follow_the_plan(sweep):
    frame, source = sweep
    inputs = PlanInputs(target_mib_s=2000, read_pct=50)
    view = plan_view(inputs, curve=frame, source=source)
    assert tuple(view.figures) == FIGURES
    q = view.figures["quota"]
    marker = next(t for t in q.data if t.name.startswith(f"{view.plan.level} meets"))
    assert marker.x[0] == pytest.approx(view.plan.quota_tib)
    c = view.figures["clients"]
    vms = f"{view.vm_count} VM" + ("s" if view.vm_count > 1 else "")
    assert list(next(t for t in c.data if t.name == f"plan: {vms}").x) == [view.vm_count] * 2
    # the outstanding-I/O chart is the plan's Little's law: its point is the plan's figure
    t = view.figures["threads"]
    assert t.layout.title.text.startswith(
        f"Outstanding I/O for {view.plan.iops:,.0f} IOPS: the plan by Little's law, and "
        f"latency measured on {source}"
    )
    plan_point = next(tr for tr in t.data if tr.name.startswith("plan: "))
    assert plan_point.x[0] == view.plan.outstanding
    assert plan_point.x[0] == pytest.approx(view.plan.iops * view.plan.lat_ms / 1000, abs=1)
    assert math.ceil(plan_point.x[0] / view.vm_count) == view.threads_per_vm
    # same charts from what_if_figures alone; curve=None: the plan alone, no measured curve
    alone = what_if_figures(inputs)
    for name in ("quota", "clients"):
        assert [tr.name for tr in alone[name].data] == [tr.name for tr in view.figures[name].data]

    # without the sweep the plan sizes its threads by Little's law at the SLO, with it on the
    # sweep's fitted curve: only the plan's point differs besides the sweep's own traces
    def names(data):
        return [tr.name for tr in data if not tr.name.startswith("plan: ")]

    assert names(alone["threads"].data) == [n for n in names(t.data) if "RndReadThreads" not in n]
    assert view.threads_basis.text.startswith("threads per VM from the fitted curve of the sweep")


def test_the_plan_block_says_what_to_buy():
    prices = {"Standard": 150.0, "Premium": 300.0, "Ultra": 400.0}
    view = plan_view(PlanInputs(target_mib_s=2000, prices_usd_per_tib_month=prices),
                     figures=False)  # fmt: skip
    p = view.plan
    # priced: Ultra 15.625 TiB in a 16 TiB pool x 400 = 6,400 USD beats Premium 31.25 TiB in
    # a 32 TiB pool x 300 = 9,600 USD
    assert (p.level, p.quota_tib) == ("Ultra", pytest.approx(15.625))
    assert view.cost_usd_month == pytest.approx(16 * 400)
    cards = {c.label: c for c in view.cards()}
    assert list(cards) == ["Service level", "Volume type", "Quota", "Throughput limit",
                           "Expected latency", "Monthly cost", "Client VMs", "Threads per VM",
                           "Binds"]  # fmt: skip
    assert cards["Service level"].value == "Ultra"
    assert cards["Volume type"].value == "regular"
    assert cards["Quota"].value == "15.63 TiB"
    assert cards["Throughput limit"].value == "2,000 MiB/s"
    assert cards["Monthly cost"].value == "6,400 USD"
    assert cards["Monthly cost"].note == "16 TiB pool 6,400 USD (client VMs not priced)"
    assert cards["Client VMs"].value == f"{p.vm_count} x {p.vm_size.removeprefix('Standard_')}"
    assert cards["Threads per VM"].value == f"{view.threads_per_vm}"
    assert cards["Binds"].value == view.binding == "volume quota"
    verdict = view.verdict_text()
    assert verdict.startswith("Buy an **Ultra regular volume of 15.63 TiB** (2,000 MiB/s) for "
                              "6,400 USD a month and drive it from")  # fmt: skip
    assert verdict.endswith("what binds: the volume quota (just the target).")
    # the options table shows the costs; without prices there is no cost card nor column
    assert "Monthly cost [USD]" in view.options_table().cells.columns
    plain = plan_view(PlanInputs(target_mib_s=2000), figures=False)
    assert "Monthly cost" not in [c.label for c in plain.cards()]
    assert math.isnan(plain.cost_usd_month)
    assert "Monthly cost [USD]" not in plain.options_table().cells.columns
    # the CLI's unit: USD per GiB-hour
    assert view.inputs.plan_prices["Ultra"] == pytest.approx(400 / 1024 / 730)


def test_prices_are_checked():
    with pytest.raises(ModelError, match="must be a mapping"):
        PlanInputs(target_mib_s=100, prices_usd_per_tib_month=300)
    with pytest.raises(ModelError, match="price of 'Ultra' must be a number >= 0"):
        PlanInputs(target_mib_s=100, prices_usd_per_tib_month={"Ultra": -1})
    with pytest.raises(ModelError, match="unknown price key .Gold.*one of Standard, Premium"):
        PlanInputs(target_mib_s=100, prices_usd_per_tib_month={"Gold": 1})
    assert PlanInputs(target_mib_s=1, prices_usd_per_tib_month={"ultra": 1}).plan_prices == {
        "Ultra": pytest.approx(1 / 1024 / 730)
    }


def test_the_tables_are_for_people():
    # they cut the why, detail and source prose at 50 characters and showed 476.837158, inf
    # and True/False
    view = plan_view(PlanInputs(target_mib_s=2000), figures=False)
    tables = [view.reasoning_table(), view.constraints_table(), view.options_table(),
              view.client_options_table()]  # fmt: skip
    for table in tables:
        cells = table.cells.to_numpy().ravel().tolist()
        assert not [c for c in cells if c in ("nan", "NaN", "<NA>", "inf", "True", "False")]
        assert not [c for c in cells if "476.83" in c]
        html = table.to_html()
        assert "..." not in html.split("</table>")[0]  # nothing cut
    why = view.plan.reasoning["why"].tolist()
    assert view.reasoning_table().cells["Why"].tolist() == why  # whole, not cut
    limits = view.constraints_table().cells
    assert "no limit" in limits["Throughput [MiB/s]"].tolist()  # inf: reads are not metered
    assert set(limits["Binds"]) == {"yes", "no"}
    assert limits["Source"].tolist() == view.constraints["source"].tolist()
    clients = view.client_options_table().cells
    assert "477" in clients["Egress per VM [MiB/s]"].tolist()
    assert list(view.options_table().cells.columns)[:4] == [
        "Service level", "Volume type", "Quota", "Throughput limit [MiB/s]",
    ]  # fmt: skip
    assert "left" in view.reasoning_table().to_html()  # prose left-aligned
    assert "anfperf-prose" in view.constraints_table().to_html()


# --------------------------------------------------------------------------------------------
# The app: update() is what every control calls


def test_update_replans_and_redraws(sweep):
    frame, source = sweep
    app = PlannerApp(PlanInputs(target_mib_s=500, levels=("Premium",)), curve=frame,
                     source=source)  # fmt: skip
    small = app.update()
    big = app.update(target_mib_s=1000)  # doubling the target doubles the quota it needs
    assert big.plan.quota_tib == pytest.approx(2 * small.plan.quota_tib)
    assert big.plan.quota_tib == pytest.approx(quota.quota_needed(1000, "Premium"))
    assert any(t.name == "target 1,000 MiB/s" for t in big.figures["quota"].data)
    assert any(t.name == "target 500 MiB/s" for t in small.figures["quota"].data)
    as_iops = app.update(target_iops=100_000, bs_kib=8)  # the other unit clears the first
    assert app.inputs.target_mib_s is None and as_iops.plan.iops == 100_000
    assert as_iops.plan.bw_mib_s == pytest.approx(quota.iops_to_bw(100_000, 8))
    # an impossible target or a bad value keeps the app alive, with the reason
    assert app.update(target_mib_s=50_000) is None
    assert "above the 4500 MiB/s cap" in app.error
    assert app.update(read_pct=120) is None and "read_pct" in app.error
    assert app.inputs.read_pct == 100  # the last valid value
    back = app.update(target_mib_s=100)
    assert back.plan.level == "Premium" and app.error is None
    with pytest.raises(AnfperfError, match="no such planner input"):
        app.update(target_gib_s=1)


def test_controls_round_trip_to_inputs():
    inputs = PlanInputs(target_iops=150_000, bs_kib=8, read_pct=70, lat_slo_ms=0.5,
                        vm_size="Standard_D32s_v5", clients=3, levels=("Ultra",), nconnect=4)  # fmt: skip
    widgets = controls(inputs)
    assert PlanInputs(**control_values(widgets)) == inputs
    widgets["clients"].value = 0  # the control's "as many as needed"
    widgets["unit"].value = "MiB/s"
    values = control_values(widgets)
    assert values["clients"] is None and values["target_iops"] is None
    assert values["target_mib_s"] == 150_000


def test_moving_a_control_replans(sweep, interactive):
    frame, source = sweep
    app = PlannerApp(PlanInputs(target_mib_s=500, levels=("Premium",)), curve=frame,
                     source=source)  # fmt: skip
    box = app.widget()
    # what to buy, three rows of controls, the details
    assert box is not None and len(box.children) == 1 + 3 + 1
    assert box.children[0] is app.outputs["headline"] and box.children[-1] is app.outputs["details"]
    assert app.view.plan.quota_tib == pytest.approx(quota.quota_needed(500, "Premium"))
    app.controls["target"].value = 1000.0  # what a user typing 1000 does
    assert app.inputs.target_mib_s == 1000.0
    assert app.view.plan.quota_tib == pytest.approx(quota.quota_needed(1000, "Premium"))
    app.controls["levels"].value = ("Premium", "Ultra")
    assert app.view.plan.level == "Ultra"
    app.controls["unit"].value = "IOPS"  # 1,000 MiB/s of 64 KiB = 16,000 IOPS
    assert app.inputs.target_iops == 16_000 and app.inputs.target_mib_s is None
    assert app.controls["target"].value == 16_000
    app.controls["levels"].value = ()
    assert app.view is None and "at least one service level" in app.error


def test_the_unit_toggle_converts_the_target_at_the_block_size(interactive):
    # 5,000 MiB/s silently became 5,000 IOPS
    app = PlannerApp(PlanInputs(target_mib_s=5000, bs_kib=64, levels=("Ultra",)))
    app.widget()
    c = app.controls
    replans = []
    original = app.update
    app.update = lambda **kw: replans.append(kw) or original(**kw)
    c["unit"].value = "IOPS"
    assert c["target"].value == 80_000 and c["target"].description == "Value [IOPS]"
    assert app.inputs.target_iops == 80_000 and app.view.plan.bw_mib_s == pytest.approx(5000)
    assert len(replans) == 1  # one re-plan, with the converted value (not 5,000 IOPS first)
    # with IOPS shown, a block-size change keeps the IOPS the user typed; MiB/s follows
    c["bs_kib"].value = 8
    assert c["target"].value == 80_000 and app.inputs.target_iops == 80_000
    assert app.view.plan.bw_mib_s == pytest.approx(80_000 * 8 / 1024)
    c["unit"].value = "MiB/s"  # and back, at the block size shown: 625 MiB/s
    assert c["target"].value == 625 and app.inputs.target_mib_s == 625
    assert convert_target(625, "MiB/s", "IOPS", 8) == 80_000
    assert convert_target(100_000, "IOPS", "MiB/s", 8) == pytest.approx(781.25)


def test_no_plan_clears_the_charts(interactive):
    # the previous plan's three charts stayed under the 'No plan' message
    app = PlannerApp(PlanInputs(target_mib_s=2000, levels=("Ultra",)))
    app.widget()
    details = app.outputs["details"]
    plotly = [o for o in details.outputs if PLOTLY in o["data"]]
    assert len(plotly) == len(FIGURES)
    app.controls["target"].value = 50_000.0  # above every cap
    assert app.view is None
    assert details.outputs == ()
    (headline,) = app.outputs["headline"].outputs
    assert "No plan:" in headline["data"]["text/html"] and "4500 MiB/s cap" in app.error
    app.controls["target"].value = 1000.0  # back: the plan and its charts again
    assert len([o for o in details.outputs if PLOTLY in o["data"]]) == len(FIGURES)


def test_the_vm_size_dropdown_says_any():
    widgets = controls(PlanInputs(target_mib_s=100))
    assert widgets["vm_size"].label == ANY_VM == "any"
    assert control_values(widgets)["vm_size"] is None
    widgets["vm_size"].value = "Standard_D32s_v5"
    assert control_values(widgets)["vm_size"] == "Standard_D32s_v5"
    assert controls(PlanInputs(target_mib_s=1, vm_size="D32s_v5"))["vm_size"].label == (
        "Standard_D32s_v5"
    )


def test_the_plan_is_shown_once(interactive, monkeypatch):
    # the plan was shown twice: static cells, then the widget
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    InteractiveShell.instance()
    app = PlannerApp(PlanInputs(target_mib_s=2000))
    with capture_output() as live:
        app.show()
    # live: one widget, whose outputs hold the cards once
    assert [WIDGET in o.data for o in live.outputs] == [True]
    headline = [o["data"].get("text/html", "") for o in app.outputs["headline"].outputs]
    assert sum("anfperf-cards" in h for h in headline) == 1
    assert not any("anfperf-cards" in o["data"].get("text/html", "")
                   for o in app.outputs["details"].outputs)  # fmt: skip
    monkeypatch.setenv("ANFPERF_BATCH", "1")
    with capture_output() as batch:
        PlannerApp(PlanInputs(target_mib_s=2000)).show()
    html = [o.data.get("text/html", "") for o in batch.outputs]
    assert sum("anfperf-cards" in h for h in html) == 1 and "anfperf-cards" in html[0]
    assert not any(WIDGET in o.data for o in batch.outputs)
    assert len([o for o in batch.outputs if PLOTLY in o.data]) == len(FIGURES)


def test_widget_is_absent_in_a_batch_report(monkeypatch):
    monkeypatch.setenv("ANFPERF_BATCH", "1")
    assert PlannerApp(PlanInputs(target_mib_s=100)).widget() is None


# --------------------------------------------------------------------------------------------
# Bad inputs


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"target_mib_s": 100, "target_iops": 1000}, "give one target"),
        ({}, "give one target"),
        ({"target_mib_s": -5}, "target_mib_s must be a number > 0"),
        ({"target_iops": float("nan")}, "target_iops must be a number > 0"),
        ({"target_mib_s": 100, "bs_kib": 0}, "bs_kib must be a number > 0"),
        ({"target_mib_s": 100, "read_pct": 120}, "read_pct must be within 0 .. 100"),
        ({"target_mib_s": 100, "lat_slo_ms": "2"}, "lat_slo_ms must be a number > 0"),
        ({"target_mib_s": 100, "clients": 0}, "clients must be an integer >= 1"),
        ({"target_mib_s": 100, "levels": ()}, "at least one service level"),
        ({"target_mib_s": 100, "levels": ("Gold",)}, "unknown service level 'Gold'"),
        ({"target_mib_s": 100, "vm_size": "D3_v9"}, "unknown VM size 'D3_v9'"),
        ({"target_mib_s": 100, "nconnect": 0}, "nconnect must be an integer 1 .. 16"),
        ({"target_mib_s": 100, "capacity_tib": -1}, "capacity_tib must be >= 0"),
    ],
)
def test_bad_inputs_are_clear_errors(kwargs, match):
    with pytest.raises(ModelError, match=match):
        PlanInputs(**kwargs)


def test_inputs_are_normalised_and_parameters_prefer_iops():
    inputs = PlanInputs(target_mib_s=100, levels="ultra", vm_size="d32s_v5")
    assert inputs.levels == ("Ultra",) and inputs.vm_size == "Standard_D32s_v5"
    assert PlanInputs(target_mib_s=1, levels=["premium", "Premium"]).levels == ("Premium",)
    # a report run with -p target_iops keeps the notebook's default target_mib_s: iops wins
    p = PlanInputs.from_parameters(target_mib_s=2000.0, target_iops=50_000, bs_kib=4)
    assert (p.target_mib_s, p.target_iops, p.iops) == (None, 50_000, 50_000)
    assert p.bw_mib_s == pytest.approx(50_000 * 4 / 1024) and p.pattern == "random"
    assert PlanInputs.from_parameters(target_mib_s=64.0).iops == pytest.approx(1024)


def test_a_target_nothing_meets_is_the_plans_error():
    with pytest.raises(ModelError, match="no service level / volume type meets the target"):
        plan_view(PlanInputs(target_mib_s=20_000, levels=("Ultra",)))
    assert SAMPLE_SWEEP.is_dir()


# --------------------------------------------------------------------------------------------
# Before buying: the latency of a planned volume (issue 34, item 6)


def test_the_plan_states_the_expected_latency_at_the_target_with_its_band():
    # 40 TiB asked for: an Ultra regular volume at its 4,500 MiB/s cap, the target at 2/3 of it
    view = plan_view(PlanInputs(target_mib_s=3000, capacity_tib=40, levels=("Ultra",)),
                     figures=False)  # fmt: skip
    assert view.plan.throughput_limit_mib_s == 4500
    lat = view.latency
    assert (lat.lat_ms, lat.lat_low_ms, lat.lat_high_ms) == pytest.approx(
        (0.4496, 0.4004, 0.5450), abs=5e-4
    )
    card = {c.label: c for c in view.cards()}["Expected latency"]
    assert (card.value, card.key) == ("0.45 ms", "lat_expected_ms")
    assert card.note.startswith("0.40 .. 0.55 ms at 3,000 MiB/s")
    text = view.text()
    assert "Expected mean latency at 3,000 MiB/s: 0.45 ms (0.40 .. 0.55 ms)." in text
    assert re.search(r"^Ultra +regular +40 TiB +4,500 +0\.45 ms \(0\.40 \.\. 0\.55\) +yes$", text,
                     re.M)  # fmt: skip
    assert max(len(line) for line in text.split("\n\nStorage options")[0].splitlines()) <= 100
    doc = view.as_dict()
    assert doc["latency"] == "Expected mean latency at 3,000 MiB/s: 0.45 ms (0.40 .. 0.55 ms)."
    assert doc["buy"]["lat_expected_ms"] == pytest.approx(0.4496, abs=5e-4)
    assert doc["buy"]["lat_expected_low_ms"] == pytest.approx(0.4004, abs=5e-4)
    assert doc["buy"]["lat_expected_high_ms"] == pytest.approx(0.5450, abs=5e-4)
    assert doc["buy"]["bw_within_objective_mib_s"] == pytest.approx(4256.5, abs=0.5)
    assert doc["storage_options"][0]["latency"] == "0.45 ms (0.40 .. 0.55)"
    cells = view.options_table().cells
    assert cells["Expected mean latency at the target"].iloc[0] == "0.45 ms (0.40 .. 0.55)"


def test_an_option_at_its_limit_says_so_and_what_it_carries_within_the_slo():
    view = plan_view(PlanInputs(target_mib_s=2000, lat_slo_ms=1.0), figures=False)
    assert view.plan.throughput_limit_mib_s == 2000  # sized to the target exactly
    assert view.latency.at_limit
    card = {c.label: c for c in view.cards()}["Expected latency"]
    assert (card.value, card.tone) == ("at the limit", "warn")
    # within the 1 ms SLO: 2,000 x (1 - 0.3275 / 1) ** (1 / 3.215) = 1,768 MiB/s
    assert view.latency.bw_at_objective_mib_s == pytest.approx(1768, abs=1)
    assert "within 1 ms up to 1,768 MiB/s" in card.note
    assert "none finite, the target is at the 2,000 MiB/s limit" in view.text()
    doc = view.as_dict()
    assert doc["buy"]["lat_expected_ms"] is None and doc["buy"]["at_limit"] is True


def test_breakthrough_mode_is_not_predictable_from_these_data():
    inputs = PlanInputs(target_mib_s=3000, levels=("Premium",))
    chosen = plan(bs_kib=64, bw_mib_s=3000, levels=["Premium"], volume_types=["breakthrough"])
    view = explain_plan(inputs, chosen)
    assert view.plan.volume_type == "breakthrough"
    card = {c.label: c for c in view.cards()}["Expected latency"]
    assert card.value == "not predictable"
    assert "no QoS throughput limit" in card.note
    text = view.text()
    assert f"Expected mean latency at 3,000 MiB/s: {NOT_PREDICTABLE}: breakthrough mode" in text
    # the cell wraps: "not predictable from" / "these data"
    assert re.search(r"^Premium +breakthrough .* not predictable from +yes$", text, re.M)
    doc = view.as_dict()
    assert doc["buy"]["latency_predictable"] is False and doc["buy"]["lat_expected_ms"] is None
    assert doc["latency"].startswith(f"Expected mean latency at 3,000 MiB/s: {NOT_PREDICTABLE}")


def test_threads_per_vm_from_a_sweeps_fitted_curve_and_the_fallback_says_why():
    from anfperf.analysis.sweep import load_sweep
    from anfperf.planning.threads import plan_on_sweep, sweep_curve

    sweep = sweep_curve(*load_sweep(None))  # the bundled Vdbench RndReadThreads (a local disk)
    # 50,000 IOPS of 8 KiB: on the curve at 4.4 in flight and 0.089 ms (Little's law)
    on_curve, why = plan_on_sweep(sweep, bs_kib=8, iops=50_000, lat_slo_ms=1.0)
    assert why.text.startswith("threads per VM from the fitted curve of the sweep RndReadThreads")
    assert on_curve.lat_ms == pytest.approx(0.0887, abs=0.002)
    assert on_curve.outstanding == 5
    by_slo, why_slo = plan_on_sweep(None, bs_kib=8, iops=50_000, lat_slo_ms=1.0)
    assert by_slo.lat_ms == 1.0 and by_slo.outstanding == 50
    assert why_slo.text.startswith("threads per VM by Little's law: 1 ms at the target")
    # 384,000 IOPS are past what the measured system ever gave (it levelled at 121,009): its
    # forecast past the data, a plateau, does not reach them
    beyond, why_beyond = plan_on_sweep(sweep, bs_kib=8, bw_mib_s=3000, lat_slo_ms=1.0)
    assert beyond.lat_ms == 1.0
    assert "not from the sweep RndReadThreads" in why_beyond.text
    assert ("384,000 IOPS is past the 121,009 IOPS it measured, and its forecast (plateau) "
            "reaches at most 121,009 IOPS within 64 x the I/Os in flight measured: "
            f"{NOT_PREDICTABLE}") in why_beyond.text  # fmt: skip
    assert why.from_sweep and not why_slo.from_sweep and not why_beyond.from_sweep


def test_threads_per_vm_past_a_sweeps_measured_rates_come_from_its_forecast():
    from anfperf.analysis.sweep import load_sweep
    from anfperf.models import fit_throughput_curve
    from anfperf.planning.threads import SweepCurve, plan_on_sweep, sweep_curve

    whole = sweep_curve(*load_sweep(None))  # RndReadThreads: 2 .. 128 in flight
    # its lower half, 2 .. 16 in flight (25,700 .. 97,662 IOPS): 110,000 IOPS lie past it.
    # The fitted curve alone would be read there without a band; the concurrency forecast
    # puts them at 0.320 ms (35 in flight), where the whole sweep measured 113,551 at 0.282 ms;
    # its band's slower edge never reaches them (the sweep could level below): the threads
    # are sized for the SLO
    n, x = whole.concurrency[:4], whole.iops[:4]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no saturation seen: the forecast says so
        half = SweepCurve(fit_throughput_curve(n, x), "lower half", n, x)
    chosen, why = plan_on_sweep(half, bs_kib=8, iops=110_000, lat_slo_ms=1.0)
    assert why.from_sweep and chosen.lat_ms == 1.0 and chosen.outstanding == 110
    assert whole.concurrency[4] == 32 and whole.iops[4] == pytest.approx(113_550.5)
    assert why.text == (
        "threads per VM for 1 ms at the target, from the concurrency forecast (fitted curve) of "
        "the sweep lower half: 110,000 IOPS is past the 97,662 IOPS it measured; by Little's "
        "law it gives 0.32 ms there, 0.141 ms or more along its 95 % band, sized for the "
        "slower edge (capped at the SLO)"
    )
    # 100,000 IOPS, 2.4 % past it: the estimate 0.175 ms, the slower edge still short of them
    near, why_near = plan_on_sweep(half, bs_kib=8, iops=100_000, lat_slo_ms=1.0)
    assert near.lat_ms == 1.0 and "it gives 0.175 ms there, 0.141 ms or more" in why_near.text
    # within the rates measured, the fitted curve is read as before
    inside, why_inside = plan_on_sweep(half, bs_kib=8, iops=90_000, lat_slo_ms=1.0)
    assert why_inside.text.startswith("threads per VM from the fitted curve of the sweep")
    assert inside.lat_ms == pytest.approx(0.133, abs=0.001)


def test_the_verdict_promises_the_objective_only_where_the_volume_can_keep_it():
    """Sized exactly at the target, ANF's load-latency curve has no finite mean there: the
    verdict names the limit a 2 ms mean needs (300 / (1 - 0.33 / 2)^(1/m), about +6 %) instead
    of saying "within 2 ms"; a volume with room above the target keeps the promise."""
    at_limit = plan_view(PlanInputs(target_mib_s=300, lat_slo_ms=2.0, levels=("Ultra",)),
                         figures=False)  # fmt: skip
    needs = at_limit.latency.limit_for_objective_mib_s
    assert at_limit.latency.at_limit and 310 < needs < 325
    verdict = at_limit.verdict_text()
    assert "reads within 2 ms" not in verdict
    assert f"at the volume's limit (a mean within 2 ms needs a {needs:.0f} MiB/s limit)" in verdict
    roomy = plan_view(PlanInputs(target_mib_s=300, lat_slo_ms=2.0, levels=("Ultra",),
                                 capacity_tib=4.0), figures=False)  # fmt: skip
    assert roomy.plan.throughput_limit_mib_s == 512 and not roomy.latency.at_limit
    assert "300 MiB/s = 4,800 IOPS of 64 KiB at 100 % reads within 2 ms;" in roomy.verdict_text()


def test_a_load_curve_given_as_the_sweep_is_named_as_such():
    # RndReadCurve paces 32 threads at requested rates: no sweep of the count in flight, so
    # no threads per VM from it. The message said "1 point(s) at 1 distinct concurrency"
    from anfperf.planning.threads import sweep_curve
    from tests.models.realdata import vdbench_dir

    frame, source = load_sweep([vdbench_dir("RndReadCurve")])
    with pytest.raises(ModelError) as caught:
        sweep_curve(frame, source)
    assert str(caught.value) == (
        "RndReadCurve is a load curve (7 requested rates at 32 in flight), not a concurrency "
        "sweep: threads per VM are sized on a sweep of the I/Os in flight (Vdbench "
        "threads=(...), fio iodepth); without --sweep the plan sizes them by Little's law at "
        "the SLO"
    )
