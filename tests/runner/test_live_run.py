"""Live figures of a real run: fio's status documents read over the session the runner holds
(the local executor and real sshd), the fleet's line, alarms in the manifest, the run log and
the console, and the raw outputs still the record."""

from __future__ import annotations

import json
import math

import pytest

from anfperf.ingest import read_many
from anfperf.live import FioStream
from anfperf.runner import (
    close_all,
    load_inventory,
    local_inventory,
    plan_workloads,
    preflight_inventory,
    run_inventory,
    run_workloads,
)
from anfperf.tools.fio import LIVE_SCRIPT
from anfperf.workloads import get_workload
from tests.conftest import fio_documents

pytestmark = pytest.mark.fio

#: Three seconds of 4 KiB random reads of a 4 MiB file per host: three status documents.
WORKLOAD = get_workload("RndReadQD").replace(
    duration_s=3, warmup_s=0, file_size_gib=4 / 1024, iodepth=4, interval_s=1
)


def records(run_dir) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "live.jsonl").read_text().splitlines()]


def test_a_live_task_copies_fios_output_file_to_stdout_and_keeps_the_file():
    hosts = local_inventory({"data": "/mnt/x"}, name="here").hosts
    live = plan_workloads([WORKLOAD], local_inventory({"data": "/mnt/x"}, name="here"),
                          live_interval_s=2).steps[0].tasks["here"]  # fmt: skip
    assert live.argv[:3] == ("sh", "-c", LIVE_SCRIPT)
    assert live.argv[4:] == (
        "RndReadQD.json",
        "fio",
        "--output-format=json+",
        "--status-interval=2",
        "--output=RndReadQD.json",
        "RndReadQD.fio",
    )
    assert live.live and not live.keep_stdout and live.outputs == ("RndReadQD.json",)
    plain = plan_workloads([WORKLOAD], local_inventory({"data": "/mnt/x"}, name="here"))
    task = plain.steps[0].tasks["here"]
    assert task.argv[0] == "fio" and not task.live and task.keep_stdout
    assert len(hosts) == 1


def test_live_figures_of_a_local_run_add_up_to_its_output_and_raise_alarms(tmp_path, fio_bin):
    inv = local_inventory({"data": str(tmp_path)}, name="here", workdir=str(tmp_path))
    lines, said = [], []
    manifest = run_workloads(
        [WORKLOAD], inv, tmp_path / "raw", run_id="live", live_interval_s=1, slo_ms=0.001,
        on_live_line=lines.append, on_alarm=said.append,
    )  # fmt: skip
    assert manifest.status == "complete"
    run_dir = manifest.run_dir
    kinds = [r["kind"] for r in records(run_dir)]
    assert kinds[0] == "step" and kinds[-1] == "run" and kinds.count("interval") >= 3
    intervals = [r for r in records(run_dir) if r["kind"] == "interval"]
    assert {r["host"] for r in intervals} == {"here"} and {r["step"] for r in intervals} == {0}
    # what was shown sums to what fio wrote: the output file read as one run
    raw = (run_dir / "here" / "RndReadQD.json").read_bytes()
    replayed = FioStream("here").feed(raw)
    assert [r["ios"] for r in intervals] == [i.ios for i in replayed]
    assert lines and all(line.startswith("fleet ") for line in lines)
    # stdout repeated the output file: not saved twice
    assert not (run_dir / "here" / "RndReadQD.stdout.log").exists()
    docs = fio_documents(raw.decode())
    assert len(docs) == len(replayed)  # each document an interval, the first from the start
    assert sum(i.ios for i in replayed) == sum(job["read"]["total_ios"] for job in docs[-1]["jobs"])
    frame = read_many([run_dir])
    reads = frame[frame["is_summary"] & (frame["direction"] == "read")]
    assert len(reads) == 1  # one run, not one per status document
    assert reads["iops"].iloc[0] == pytest.approx(
        sum(job["read"]["iops"] for job in docs[-1]["jobs"]), rel=1e-9
    )
    # an objective passed: an alarm in the manifest, the run log, the record and the console
    alarms = manifest.data["steps"][0]["alarms"]
    assert {a["kind"] for a in alarms} == {"latency"} and {a["host"] for a in alarms} >= {"here"}
    first = next(a for a in alarms if a["host"] == "here")
    assert first["threshold"] == 0.001 and first["value"] > 0.001
    assert "above the objective 0.001 ms" in first["text"]
    assert [a.text for a in said] == [a["text"] for a in alarms]
    assert f"alarm: {first['text']}" in (run_dir / "run.log").read_text()
    recorded = [r for r in records(run_dir) if r["kind"] == "alarm"]
    assert [r["text"] for r in recorded] == [a["text"] for a in alarms]


@pytest.mark.ssh
def test_every_host_sends_its_figures_over_ssh(ssh_fleet, tmp_path, fio_bin):
    inventory = load_inventory(ssh_fleet.inventory(
        tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), volumes={"vol1": str(tmp_path)}
    ))  # fmt: skip
    plan = plan_workloads([WORKLOAD], inventory, live_interval_s=1)
    conns = inventory.connect()
    lines = []
    try:
        reports = preflight_inventory(inventory, conns, tool="fio")
        manifest = run_inventory(plan, inventory, tmp_path / "raw", connections=conns,
                                 reports=reports, on_live_line=lines.append)  # fmt: skip
    finally:
        close_all(conns)
    assert manifest.status == "complete"
    intervals = [r for r in records(manifest.run_dir) if r["kind"] == "interval"]
    assert {r["host"] for r in intervals} == {"vm1", "vm2"}
    for host in ("vm1", "vm2"):
        mine = [r for r in intervals if r["host"] == host]
        raw = (manifest.run_dir / host / "RndReadQD.json").read_bytes()
        assert [r["ios"] for r in mine] == [i.ios for i in FioStream(host).feed(raw)]
        assert all(r["iops"] >= 0 and (r["lat_mean_ms"] is None or r["lat_mean_ms"] > 0)
                   for r in mine)  # fmt: skip
    assert any("2 hosts" in line for line in lines)
    assert not math.isnan(intervals[0]["t_s"])
