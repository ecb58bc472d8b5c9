"""Adaptive sweeps run for real: each step chosen from what fio measured through the local
executor, recorded with its reason, ingested as ordinary steps, and resumed after a kill."""

from __future__ import annotations

import html
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from anfperf.analysis.provenance import run_provenance
from anfperf.analysis.summary import summary_table
from anfperf.errors import WorkloadError
from anfperf.ingest import read_many
from anfperf.report.benchmark import adaptive_steps_table, steps_table
from anfperf.runner import Manifest, local_inventory, resume_workloads, run_workloads
from anfperf.runner.steps import plan_workloads
from anfperf.runner.sweeps import chooser, measured_point
from anfperf.workloads import Workload, get_workload

pytestmark = pytest.mark.fio

#: 4 KiB random reads of a 4 MiB file, a second a step, from 1 up to 32 in flight.
SWEEP = Workload(
    name="qd", pattern="random", bs_kib=4, iodepth=1, duration_s=1, file_size_gib=4 / 1024,
    sweep="adaptive", until_lat_ms=0.25, max_outstanding=32,
)  # fmt: skip


def sweep_steps(manifest: Manifest) -> list[dict]:
    return [s for s in manifest.data["steps"] if s.get("adaptive")]


def test_an_adaptive_workload_is_checked_and_planned_as_its_light_load():
    with pytest.raises(WorkloadError, match="needs until_lat_ms"):
        SWEEP.replace(until_lat_ms=None)
    with pytest.raises(WorkloadError, match="field 'max_outstanding': goes with sweep"):
        get_workload("RndReadQD").replace(max_outstanding=64)
    with pytest.raises(WorkloadError, match="give one threads or iodepth"):
        SWEEP.replace(iodepth=[1, 2])
    with pytest.raises(WorkloadError, match="field 'max_steps': goes with sweep"):
        get_workload("RndReadQD").replace(max_steps=4)
    with pytest.raises(WorkloadError, match="field 'max_steps'"):
        SWEEP.replace(max_steps=1)  # the light and heavy loads at least
    assert chooser(SWEEP).step_budget == 4
    assert chooser(Workload.from_dict({**SWEEP.to_dict(), "max_steps": 6})).step_budget == 6
    assert "max_steps" not in SWEEP.adaptive_point(8).to_dict()
    adaptive = get_workload("RndReadQD").as_adaptive(2.0)
    assert (adaptive.iodepth, adaptive.max_outstanding) == ((1,), 128)
    assert Workload.from_dict(adaptive.to_dict()) == adaptive
    plan = plan_workloads([SWEEP], local_inventory({"data": "/mnt/x"}, name="here"))
    (step,) = plan.steps
    assert step.name == "qd-qd1" and step.workload["iodepth"] == 1
    assert "sweep" not in step.workload  # each step is an ordinary workload
    assert step.adaptive == {"sweep": SWEEP.to_dict(), "concurrency": 1,
                             "reason": "qd 1: light load, for the lowest latency"}  # fmt: skip


def test_the_sweep_chooses_each_step_from_what_it_measured(tmp_path, fio_bin):
    inv = local_inventory({"data": str(tmp_path)}, name="here", workdir=str(tmp_path))
    manifest = run_workloads([SWEEP], inv, tmp_path / "raw", run_id="ad", live_interval_s=None)
    assert manifest.status == "complete"
    steps = sweep_steps(manifest)
    # at most half of the 6 steps a dense sweep 1..32 runs, and at least 4
    assert 3 <= len(steps) <= 4 and len(steps) == len(manifest.data["steps"])
    first, heavy = steps[0]["adaptive"], steps[1]["adaptive"]
    assert first["concurrency"] == 1 and "light load" in first["reason"]
    assert heavy["concurrency"] == 32 and "heavy load, the max_outstanding 32" in heavy["reason"]
    chosen = [s["adaptive"]["concurrency"] for s in steps]
    assert len(set(chosen)) == len(chosen) and all(1 <= c <= 32 for c in chosen)
    assert [s["name"] for s in steps] == [f"qd-qd{c}" for c in chosen]
    assert all(s["workload"]["iodepth"] == c for s, c in zip(steps, chosen, strict=True))
    assert "stop" in steps[-1]["adaptive"] and all("stop" not in s["adaptive"] for s in steps[:-1])
    # every figure a reason quotes is a measured one
    points = {p.at: p for p in (measured_point(manifest.run_dir, s, {}) for s in steps)}
    for step in steps:
        for qd, lat in re.findall(r"qd (\d+) \(([\d.]+) ms\)", step["adaptive"]["reason"]):
            assert float(lat) == pytest.approx(points[int(qd)].lat_ms, abs=6e-3 * float(lat))
    # a measured point is the step's ingested figures
    frame = read_many([manifest.run_dir])
    reads = frame[frame["is_summary"] & (frame["direction"] == "read")]
    row = reads[reads["job"] == "qd-qd1"].iloc[0]
    assert points[1] == (1, pytest.approx(row["iops"]), pytest.approx(row["lat_mean_ms"]))
    assert set(reads["job"]) == {s["name"] for s in steps}
    # the benchmark report's section of the run says why each point ran, and the stop
    why = run_provenance(frame, [manifest.run_dir])["adaptive"]
    assert why["chosen"].tolist() == chosen and why["run_id"].eq("ad").all()
    assert why["reason"].tolist() == [s["adaptive"]["reason"] for s in steps]
    assert why["stop"].notna().tolist() == [False] * (len(steps) - 1) + [True]
    shown = adaptive_steps_table(why, "ad")
    table = shown.to_html()
    assert all(html.escape(s["adaptive"]["reason"]) in table for s in steps)
    # the stop a row of its own under the last step, not run on into its reason
    last = shown.cells.iloc[-1].tolist()
    assert last[0] == "" and last[2] == "Stopped: " + steps[-1]["adaptive"]["stop"]
    assert shown.cells.iloc[-2, 2] == steps[-1]["adaptive"]["reason"]
    # its job steps as the load grows, not in the order they ran nor as text sorts them
    jobs = steps_table(summary_table(frame), "ad").cells.iloc[:, 0].tolist()
    assert jobs == [f"qd-qd{c}" for c in sorted(chosen)]


def test_a_killed_sweep_resumes_where_it_stopped(tmp_path, fio_bin):
    """SIGINT to `anfperf run` once two steps are recorded; --resume finishes the sweep."""
    raw = tmp_path / "raw"
    spec = tmp_path / "sweep.yml"
    spec.write_text(f"workloads:\n  - {SWEEP.to_dict()}\n")
    cmd = [str(Path(sys.executable).with_name("anfperf")), "run", "qd", "--file", str(spec), "--volume",
           str(tmp_path), "--out", str(raw), "--run-id", "cut", "--no-progress"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            done = [s for s in Manifest.load(raw / "cut").data["steps"]
                    if all(t["status"] == "ok" for t in s["tasks"].values())]  # fmt: skip
        except Exception:
            done = []
        if len(done) >= 2:
            break
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=60)
    cut = Manifest.load(raw / "cut")
    assert cut.status == "interrupted"
    kept = [(s["name"], s["adaptive"]) for s in cut.data["steps"][:2]]
    inv = local_inventory({"data": str(tmp_path)}, name=cut.data["steps"][0]["tasks"].popitem()[0],
                          workdir=str(tmp_path))  # fmt: skip
    again = resume_workloads("cut", inv, raw)
    assert again.status == "complete"
    steps = sweep_steps(again)

    def chosen(step: dict) -> tuple:  # a step's choice; the stop joins the step the sweep ends on
        return step["name"], {k: v for k, v in step["adaptive"].items() if k != "stop"}

    assert [chosen(s) for s in steps[:2]] == [chosen({"name": n, "adaptive": a}) for n, a in kept]
    assert [s["tasks"][inv.names[0]]["attempts"] for s in steps[:2]] == [1, 1]  # not run again
    # a loaded machine's light load may already pass the SLO: then the sweep ends on step 2
    assert len(steps) >= 2 and "stop" in steps[-1]["adaptive"]
    assert all("stop" not in s["adaptive"] for s in steps[:-1])
    assert len(again.data.get("resumed", [])) == 1


def test_an_adaptive_mix_measures_the_endpoints_then_where_the_model_is_least_sure(
    tmp_path, fio_bin
):
    mix = Workload(name="mx", pattern="random", bs_kib=4, iodepth=4, duration_s=1,
                   file_size_gib=4 / 1024, sweep="adaptive_mix")  # fmt: skip
    inv = local_inventory({"data": str(tmp_path)}, name="here", workdir=str(tmp_path))
    manifest = run_workloads([mix], inv, tmp_path / "raw", run_id="mix", live_interval_s=None)
    steps = sweep_steps(manifest)
    shares = [s["adaptive"]["read_pct"] for s in steps]
    assert shares[:2] == [100, 0] and len(set(shares)) == len(shares) <= 5
    assert [s["workload"]["read_pct"] for s in steps] == shares
    assert [s["name"] for s in steps] == [f"mx-r{r}" for r in shares]
    assert "pure reads" in steps[0]["adaptive"]["reason"]
    assert all("least sure" in s["adaptive"]["reason"] for s in steps[2:])
    assert steps[-1]["adaptive"]["stop"]
    frame = read_many([manifest.run_dir])
    mixed = frame[frame["is_summary"] & (frame["direction"] == "total")]
    assert set(mixed["job"]) >= {s["name"] for s in steps[1:-1]}


def test_the_volumes_limit_from_its_azure_json_sizes_the_heavy_step_and_pins_the_rate(
    tmp_path, fio_bin
):
    """The REST example volume (Premium, 128 MiB/s manual QoS: 8,192 IOPS at 16 KiB), played
    by this machine's disk with fio holding the rate at that limit (16 KiB: a quarter of the
    I/Os of 4 KiB, so that a loaded CI machine still holds the limit for two rounds)."""
    from tests.azure.test_volume import S01, corpus

    (tmp_path / "vol").mkdir()
    inventory = tmp_path / "inv.yml"
    inventory.write_text(
        f"volumes: {{volume1: {tmp_path / 'vol'}}}\nvolume_json: {{volume1: '{corpus(S01)}'}}\n"
        f"workdir: {tmp_path}\nhosts:\n  demo: {{local: true}}\n"
    )
    from anfperf.runner import load_inventory

    with pytest.warns(UserWarning, match="only possible on a manual-QoS pool"):
        inv = load_inventory(inventory)
    # 3 s a step: the heavy step gives the two 1 s rounds at the limit the alarm waits for even
    # when a loaded machine holds one of them a little below it
    limited = SWEEP.replace(
        bs_kib=16, rate=8192.0, until_lat_ms=5.0, max_outstanding=64, duration_s=3
    )
    alarms = []
    manifest = run_workloads([limited], inv, tmp_path / "raw", run_id="lim", live_interval_s=1,
                             on_alarm=alarms.append)  # fmt: skip
    steps = sweep_steps(manifest)
    heavy = steps[1]["adaptive"]
    assert "the known limit 8,192 IOPS" in heavy["reason"]  # Little's law at the light load
    assert heavy["concurrency"] < 64  # not the max_outstanding: the limit needs fewer
    stop = steps[-1]["adaptive"]["stop"]
    assert "within 3 % of the known limit 8,192 IOPS" in stop
    # pinned at the IOPS limit (and, by its MiB/s, at 128 MiB/s: which alarm comes first is
    # the machine's timing)
    pinned = [a for a in alarms if a.kind == "pinned"]
    assert any(a.threshold == pytest.approx(0.97 * 8192) for a in pinned), pinned
    assert any(a["kind"] == "pinned" for s in manifest.data["steps"] for a in s.get("alarms", []))
