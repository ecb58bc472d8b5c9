"""Fleet runs for real: fio over SSH to real sshd servers, faults made real, then ingested."""

from __future__ import annotations

import _thread
import io
import json
import logging
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from anfperf.errors import AnfperfError
from anfperf.ingest import read_all, read_many
from anfperf.runner import (
    FleetProgress,
    HostTask,
    LocalConnection,
    Manifest,
    RunPlan,
    RunStep,
    close_all,
    fio_task,
    load_inventory,
    local_inventory,
    plan_workloads,
    preflight_inventory,
    resume_run,
    run_inventory,
    run_plan,
)
from anfperf.workloads import get_workload
from tests.conftest import fio_documents, vdbench_launcher
from tests.runner.sshd import once_running

pytestmark = pytest.mark.fio


def tiny(name: str = "RndRead", **changes):
    """A catalogue workload scaled down to a second on a 4 MiB file."""
    base = {"duration_s": 1, "warmup_s": 0, "file_size_gib": 4 / 1024, "threads": 2}
    return get_workload(name).replace(**{**base, **changes})


def fio_job(data: Path, host: str, runtime: int = 1) -> str:
    return (
        f"[global]\nioengine=psync\nsize=4M\nruntime={runtime}\ntime_based\n"
        f"filename={data}/data-{host}.bin\n[rr]\nrw=randread\nbs=4k\n"
    )


def json_iops(path: Path) -> float:
    """Read IOPS of every job in a fio JSON output, read with json alone (text may precede; a
    live run's status documents precede its result, the last)."""
    return sum(job["read"]["iops"] for job in fio_documents(path)[-1]["jobs"])


def fio_version() -> str:
    return subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()


def procs_in(folder: str) -> list[int]:
    """Pids of the processes working in `folder` (a task's command and what it started)."""
    pids = []
    for entry in os.listdir("/proc"):
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd") if entry.isdigit() else ""
        except OSError:
            continue
        if cwd.removesuffix(" (deleted)") == folder or cwd.startswith(folder + "/"):
            pids.append(int(entry))
    return pids


@pytest.fixture
def inventory(ssh_fleet, tmp_path):
    return load_inventory(
        ssh_fleet.inventory(
            tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), volumes={"vol1": str(tmp_path)}
        )
    )


@pytest.mark.ssh
def test_fio_runs_on_every_host_at_once_over_ssh(inventory, tmp_path, fio_bin):
    plan = plan_workloads([tiny()], inventory)
    conns = inventory.connect()
    try:
        reports = preflight_inventory(inventory, conns, tool="fio")
        manifest = run_inventory(
            plan, inventory, tmp_path / "raw", connections=conns, reports=reports
        )
    finally:
        close_all(conns)
    assert manifest.status == "complete" and manifest.failures() == []
    data = json.loads(manifest.path.read_text())
    assert data["run_id"] == plan.run_id and manifest.path.parent.name == plan.run_id
    step = data["steps"][0]
    assert step["name"] == "RndRead" and step["workload"]["threads"] == 2
    assert step["start_skew_s"] < 0.5  # started together
    version = fio_version()
    for host in ("vm1", "vm2"):
        task = step["tasks"][host]
        assert task["status"] == "ok" and task["exit_code"] == 0 and task["attempts"] == 1
        assert task["argv"][:2] == ["fio", "--output-format=json+"]
        assert task["tool_version"] == version == data["hosts"][host]["facts"]["fio_version"]
        assert task["start"] < task["end"] and task["elapsed_s"] >= 1
        assert task["collected"] == [f"{host}/RndRead.json"]
        assert f"directory={tmp_path}" in task["files"]["RndRead.fio"]
        assert data["hosts"][host]["hostname"] == inventory[host].hostname
    # ready for ingest: run id from the manifest, values as in the raw JSON
    frame = read_many([manifest.run_dir])
    assert set(frame["run_id"]) == {plan.run_id}
    for host in ("vm1", "vm2"):
        path = manifest.run_dir / host / "RndRead.json"
        rows = frame[(frame["source_file"] == str(path)) & (frame["direction"] == "read")]
        assert rows["iops"].sum() == pytest.approx(json_iops(path))


@pytest.mark.ssh
def test_hostile_names_and_paths_cannot_inject(ssh_fleet, tmp_path, fio_bin):
    canary = tmp_path / "pwned"
    hostile = [
        "plain",
        "with blank",
        'it\'s quoted "twice"',
        f"x; touch {canary}",
        f"$(touch {canary})",
        f"`touch {canary}`",
        "$HOME ${PATH} \\ * ? ~ | & > <",
        "-rf",
        "line\nbreak",
    ]
    workdir = str(tmp_path / f"wd $(touch {canary}); 'q'")
    inv = load_inventory(ssh_fleet.inventory(tmp_path / "inv.yml", workdir=workdir))
    name = f"Rnd Read; $(touch {canary})"
    task = HostTask(
        argv=("printf", "%s\\0", *hostile),
        files={"in $(touch x) ; 'q'.txt": "content; $(touch nothing)\n"},
        outputs=("in $(touch x) ; 'q'.txt",),
        duration_s=0,
    )
    plan = RunPlan(steps=(RunStep(name, {"vm1": task}, tool="printf"),))
    manifest = run_inventory(plan, inv.select(["vm1"]), tmp_path / "raw")
    assert manifest.status == "complete", manifest.failures()
    assert not canary.exists() and not (Path.cwd() / "x").exists()
    host_dir = manifest.run_dir / "vm1"
    # every argument reached the program exactly as given
    stdout = manifest.run_dir / manifest.task(0, "vm1")["stdout"]
    assert stdout.parent == host_dir and stdout.name.endswith(".stdout.log")
    assert stdout.read_text().split("\0")[:-1] == hostile
    assert (host_dir / "in $(touch x) ; 'q'.txt").read_text() == "content; $(touch nothing)\n"
    remote = Path(manifest.task(0, "vm1")["remote_dir"])  # worked in, then removed
    assert remote.parent == Path(workdir) and not remote.exists()


@pytest.mark.ssh
def test_a_hung_command_is_stopped_at_its_timeout(inventory, tmp_path, fio_bin):
    tasks = {
        "vm1": fio_task(
            fio_job(tmp_path, "vm1", runtime=60), name="hang", duration_s=1, timeout_s=2
        ),
        "vm2": fio_task(fio_job(tmp_path, "vm2"), name="hang", duration_s=1),
    }
    plan = RunPlan(steps=(RunStep("hang", tasks),))
    start = time.monotonic()
    manifest = run_inventory(plan, inventory, tmp_path / "raw")
    assert time.monotonic() - start < 15
    vm1, vm2 = manifest.task(0, "vm1"), manifest.task(0, "vm2")
    assert vm1["status"] == "timeout" and "timeout of 2 s" in vm1["reason"]
    assert vm2["status"] == "ok"
    # the remote fio and its job processes are gone; fio wrote its results on TERM
    assert not procs_in(vm1["remote_dir"]) and not Path(vm1["remote_dir"]).exists()
    assert json_iops(manifest.run_dir / "vm1" / "hang.json") > 0
    assert manifest.status == "partial"


@pytest.mark.ssh
def test_a_host_dying_mid_run_is_recorded_and_resume_reruns_only_it(own_fleet, tmp_path, fio_bin):
    inv = load_inventory(own_fleet.inventory(tmp_path / "inv.yml", workdir=str(tmp_path / "wd")))
    tasks = {
        h: fio_task(fio_job(tmp_path, h, runtime=3), name="job", duration_s=3) for h in inv.names
    }
    plan = RunPlan(steps=(RunStep("job", tasks),))
    once_running(own_fleet.servers[:1], "fio", own_fleet.servers[0].crash)  # vm1 dies mid run
    manifest = run_inventory(plan, inv, tmp_path / "raw")
    vm1, vm2 = manifest.task(0, "vm1"), manifest.task(0, "vm2")
    assert vm1["status"] == "lost" and "connection lost" in vm1["reason"], vm1
    assert vm2["status"] == "ok" and (manifest.run_dir / "vm2" / "job.json").exists()
    on_disk = json.loads(manifest.path.read_text())
    assert (
        on_disk["status"] == "partial" and on_disk["steps"][0]["tasks"]["vm1"]["status"] == "lost"
    )

    own_fleet.servers[0].start()  # the host is back
    conns = inv.connect()
    try:
        resumed = resume_run(manifest.run_dir, inv, plan=plan, connections=conns)
    finally:
        close_all(conns)
    assert resumed.status == "complete"
    assert resumed.task(0, "vm1")["attempts"] == 2 and resumed.task(0, "vm1")["status"] == "ok"
    assert resumed.task(0, "vm2")["attempts"] == 1  # kept, not run again
    assert json_iops(manifest.run_dir / "vm1" / "job.json") > 0
    # each attempt had a private folder: the collected one is removed, and the lost one too,
    # by the resume that ran its task again (issue 24, item 10: left behind until then)
    first, second = vm1["remote_dir"], resumed.task(0, "vm1")["remote_dir"]
    assert first != second and Path(first).parent == Path(second).parent == tmp_path / "wd"
    assert not Path(first).exists() and not Path(second).exists()


@pytest.mark.ssh
def test_refused_and_unreachable_hosts_leave_the_others_running(
    ssh_fleet, tmp_path, caplog, monkeypatch, fio_bin
):
    caplog.set_level(logging.DEBUG)  # paramiko's own debug output included
    password = "pw-Very-Secret-4711"
    monkeypatch.setenv("ANFPERF_TEST_PASSWORD", password)
    vm2 = ssh_fleet.servers[1]
    extra = {
        "vm3": {"hostname": vm2.address, "port": vm2.port, "key": str(ssh_fleet.wrong_key),
                "password_env": "ANFPERF_TEST_PASSWORD"},
        "vm4": {"hostname": "127.0.0.2", "port": 1},
    }  # fmt: skip
    inv_path = ssh_fleet.inventory(
        tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), extra_hosts=extra
    )
    inv = load_inventory(inv_path)
    steps = tuple(
        RunStep(
            name, {h: fio_task(fio_job(tmp_path, h), name=name, duration_s=1) for h in inv.names}
        )
        for name in ("first", "second")
    )
    manifest = run_inventory(RunPlan(steps=steps), inv, tmp_path / "raw")
    status = {(i, h): t["status"] for i, h, t in manifest.tasks()}
    assert status[0, "vm1"] == status[0, "vm2"] == status[1, "vm1"] == "ok"
    assert status[0, "vm3"] == status[0, "vm4"] == "unreachable"
    assert status[1, "vm3"] == status[1, "vm4"] == "skipped"  # not tried again in this run
    assert "authentication refused" in manifest.task(0, "vm3")["reason"]
    assert "connection refused" in manifest.task(0, "vm4")["reason"]
    # no key material and no password anywhere: manifest, logs, captured streams
    key_body = "".join(ssh_fleet.wrong_key.read_text().splitlines()[1:-1])
    written = manifest.path.read_text() + caplog.text
    written += "".join(p.read_text() for p in manifest.run_dir.rglob("*.log"))
    for secret in (password, key_body, key_body[:40]):
        assert secret not in written


@pytest.mark.ssh
def test_ctrl_c_stops_remote_fio_and_keeps_what_was_collected(
    inventory, ssh_fleet, tmp_path, fio_bin
):
    tasks = {
        h: fio_task(fio_job(tmp_path, h, runtime=30), name="long", duration_s=30)
        for h in inventory.names
    }
    plan = RunPlan(steps=(RunStep("long", tasks),))
    conns = inventory.connect()
    start = time.monotonic()
    # Ctrl-C once fio has run 2 s on both hosts (not 2 s after the start, which a loaded
    # machine's slow start can take up: fio then reports no I/O)
    once_running(ssh_fleet.servers, "fio", _thread.interrupt_main, delay_s=2.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_plan(plan, conns, tmp_path / "raw", workdir=str(tmp_path / "wd"))
    finally:
        close_all(conns)
    assert time.monotonic() - start < 15
    manifest = Manifest.load(tmp_path / "raw" / plan.run_id)
    assert manifest.status == "interrupted"
    for host in inventory.names:
        task = manifest.task(0, host)
        assert task["status"] == "interrupted" and task["collected"] == [f"{host}/long.json"], task
        assert not procs_in(task["remote_dir"])
        assert json_iops(manifest.run_dir / host / "long.json") > 0
    frame, skipped, notes = read_all([manifest.run_dir])  # fio wrote a line before its JSON
    assert not skipped and any("terminating on signal 15" in n for n in notes), notes
    assert any("stopped before its planned end (interrupted" in n for n in notes), notes
    assert set(frame["run_id"]) == {plan.run_id}


def test_local_executor_runs_the_same_plan(tmp_path, fio_bin):
    inv = local_inventory([str(tmp_path)], name="demo", workdir=str(tmp_path / "wd"))
    plan = plan_workloads([tiny()], inv)
    manifest = run_inventory(plan, inv, tmp_path / "raw")
    assert manifest.status == "complete"
    assert manifest.data["hosts"]["demo"]["local"] is True
    path = manifest.run_dir / "demo" / "RndRead.json"
    frame = read_many([manifest.run_dir])
    reads = frame[frame["direction"] == "read"]
    assert reads["iops"].sum() == pytest.approx(json_iops(path))
    # a run id is used once; resuming a complete run runs nothing
    with pytest.raises(AnfperfError, match="exists"):
        run_inventory(plan, inv, tmp_path / "raw")
    again = resume_run(manifest.run_dir, inv)
    assert again.task(0, "demo")["attempts"] == 1 and again.status == "complete"


def test_local_command_failure_is_recorded_with_its_reason(tmp_path):
    task = HostTask(argv=("sh", "-c", "echo broken >&2; exit 3"), outputs=("never.json",))
    plan = RunPlan(steps=(RunStep("bad", {"here": task}, tool="sh"),))
    manifest = run_plan(
        plan, {"here": LocalConnection("here")}, tmp_path, workdir=str(tmp_path / "wd")
    )
    rec = manifest.task(0, "here")
    assert rec["status"] == "failed" and rec["exit_code"] == 3
    assert rec["reason"] == "exit code 3: broken"
    assert (manifest.run_dir / "here" / "bad.stderr.log").read_text() == "broken\n"


def test_progress_shows_host_states_and_time_left():
    out = io.StringIO()
    bar = FleetProgress(["vm1", "vm2"], total_s=20, file=out)
    try:
        bar.start_step("RndRead (1/2)", 10)
        bar.set_state("vm1", "running")
        bar.set_state("vm2", "unreachable")
        left = bar.remaining_s()
        time.sleep(0.6)
        assert 19 <= left <= 20 and bar.remaining_s() < left
        text = bar.postfix()
        assert "vm1:run" in text and "vm2:DOWN" in text and "left" in text
        bar.end_step()
        assert bar.remaining_s() == pytest.approx(10)
    finally:
        bar.close()
    assert "RndRead (1/2)" in out.getvalue()
    many = FleetProgress([f"vm{i}" for i in range(12)], 10, disable=True)
    many.set_state("vm3", "lost")
    assert "run" not in many.postfix() and "LOST=1" in many.postfix() and "(vm3)" in many.postfix()


def test_progress_shows_the_live_line_while_a_step_runs_and_alarms_above_it():
    out = io.StringIO()
    bar = FleetProgress(["vm1", "vm2"], total_s=20, file=out)
    try:
        bar.start_step("RndRead (1/1)", 10)
        bar.set_live("fleet 85,190 IOPS 332 MiB/s 0.75 ms | 2 hosts")
        assert bar.postfix().endswith("left | fleet 85,190 IOPS 332 MiB/s 0.75 ms | 2 hosts")
        bar.write("alarm: vm2: 40 % below the median")
        bar.add_planned(5)  # a step an adaptive sweep added
        assert bar.remaining_s() == pytest.approx(25, abs=0.5)
        bar.end_step()
        assert "fleet" not in bar.postfix() and "vm1:" in bar.postfix()
    finally:
        bar.close()
    assert "alarm: vm2: 40 % below the median\n" in out.getvalue()


@pytest.mark.vdbench
def test_vdbench_runs_locally_when_installed(tmp_path):
    launcher = vdbench_launcher()
    inv = local_inventory([str(tmp_path)], name="demo", workdir=str(tmp_path / "wd"))
    inv = inv.select(["demo"])
    from dataclasses import replace

    inv = replace(inv, hosts=(replace(inv["demo"], launchers={"vdbench": str(launcher)}),))
    plan = plan_workloads([tiny(duration_s=3, interval_s=1)], inv, tool="vdbench")
    manifest = run_inventory(plan, inv, tmp_path / "raw")
    assert manifest.status == "complete", manifest.failures()
    assert (manifest.run_dir / "demo" / "RndRead" / "flatfile.html").exists()
    frame = read_many([manifest.run_dir])
    assert set(frame["run_id"]) == {plan.run_id} and set(frame["tool"]) == {"vdbench"}
    shutil.rmtree(tmp_path / "wd", ignore_errors=True)
