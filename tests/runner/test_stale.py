"""Work folders a killed ``anfperf run`` left on its hosts (issue 24, item 10): removed on
``--resume`` and by the next run on the host, with what still runs in them; folders of runs
still running, of other users, links and other names are left alone. Real sshd, real fio, real
processes killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from anfperf.cli import main
from anfperf.runner import HostTask, Manifest, RunPlan, RunStep, close_all, load_inventory, run_plan
from anfperf.runner.runlock import RunLock
from anfperf.runner.stale import STALE_AFTER_S
from anfperf.schema import read_manifest
from tests.runner.test_fleet import json_iops, procs_in

pytestmark = [pytest.mark.ssh, pytest.mark.fio]

TINY = ["--set", "warmup_s=0", "--set", "file_size_gib=0.004", "--set", "threads=2"]


def one_host_inventory(ssh_fleet, tmp_path: Path) -> Path:
    """An inventory of vm1 alone (a real sshd on loopback), working below tmp_path/wd."""
    (tmp_path / "data").mkdir(exist_ok=True)
    path = ssh_fleet.inventory(
        tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), volumes={"data": str(tmp_path / "data")}
    )
    doc = yaml.safe_load(path.read_text())
    del doc["hosts"]["vm2"]
    path.write_text(yaml.safe_dump(doc))
    return path


def remote_dir_once_fio_runs(run_dir: Path, timeout_s: float = 60) -> str:
    """vm1's work folder of the run's first step, once fio works in it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        doc = read_manifest(run_dir / "manifest.json")  # with its journal: as the run goes
        try:
            wd = doc["steps"][0]["tasks"]["vm1"].get("remote_dir")
        except (TypeError, KeyError, IndexError):
            wd = None
        # its command runs and has written its pid file (the shell that writes it works there
        # a moment before)
        if wd and procs_in(wd) and (Path(wd) / ".anfperf-step0.pid").exists():
            return wd
        time.sleep(0.1)
    raise AssertionError(f"fio did not start for {run_dir}")


def test_resume_after_sigkill_removes_the_work_folder_and_stops_its_fio(
    ssh_fleet, tmp_path, fio_bin, capsys, caplog
):
    inv = one_host_inventory(ssh_fleet, tmp_path)
    out = tmp_path / "raw"
    args = [sys.executable, "-m", "anfperf.cli", "run", "RndRead", "--hosts", str(inv),
            "--out", str(out), "--run-id", "killed", "--no-progress",
            "--set", "duration_s=8", *TINY]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        stale = remote_dir_once_fio_runs(out / "killed")
        proc.send_signal(signal.SIGKILL)  # no chance to stop fio or remove anything
        proc.wait(timeout=10)
    finally:
        proc.kill()
    assert Manifest.load(out / "killed").task(0, "vm1")["status"] == "pending"
    assert procs_in(stale), "fio outlives the killed anfperf (its own session)"
    pid = int((Path(stale) / ".anfperf-step0.pid").read_text())

    resume = ["run", "--resume", "killed", "--hosts", str(inv), "--out", str(out), "--no-progress"]
    assert main(resume) == 0, capsys.readouterr().err
    # before: the folder stayed, and its fio ran on beside the resumed one
    assert not os.path.exists(stale)
    assert f"stopping pid {pid} of run killed, left running in {stale}" in caplog.text
    assert not procs_in(stale)
    manifest = Manifest.load(out / "killed")
    task = manifest.task(0, "vm1")
    assert manifest.status == "complete" and task["status"] == "ok", task
    assert task["remote_dir"] != stale and not os.path.exists(task["remote_dir"])
    assert json_iops(out / "killed" / "vm1" / "RndRead.json") > 0
    assert os.listdir(tmp_path / "wd") == []


def test_the_next_run_removes_only_folders_of_runs_that_are_not_running(ssh_fleet, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to give a folder to another user")
    wd = tmp_path / "wd"
    wd.mkdir(mode=0o700)
    out = tmp_path / "raw"

    def folder(name: str, *, age_s: float = 0) -> Path:
        path = wd / name
        path.mkdir()
        (path / "out.json").write_text("{}")
        if age_s:
            then = time.time() - age_s
            os.utime(path, (then, then))
        return path

    def recorded_run(run_id: str) -> Path:  # a run of this --out, as a manifest shows it
        (out / run_id).mkdir(parents=True)
        (out / run_id / "manifest.json").write_text("{}")
        return out / run_id

    recorded_run("ended")
    ended = folder("ended.vm1.AbCdEf0123")  # its anfperf was killed: the lock is free
    running = recorded_run("running")
    busy = folder("running.vm1.AbCdEf0123", age_s=2 * STALE_AFTER_S)  # its lock is held
    young = folder("elsewhere.vm1.AbCdEf0123")  # a run of another --out or machine
    old = folder("forgotten.vm1.AbCdEf0123", age_s=2 * STALE_AFTER_S)  # ... idle for two days
    other_host = folder("ended.vm2.AbCdEf0123")
    not_ours = folder("ended.vm1.XyZxyZ0123")
    os.chown(not_ours, 65534, 65534)
    other_name = folder("ended.vm1.short")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious").write_text("x")
    link = wd / "ended.vm1.LiNkLiNk01"
    link.symlink_to(victim)
    # a command still working in an old folder of a run unknown here: it is running
    working = folder("elsewhere2.vm1.AbCdEf0123")
    pidfile = working / ".anfperf-step0.pid"
    sleeper = subprocess.Popen(["sh", "-c", "echo $$ > .anfperf-step0.pid; exec sleep 60"],
                               cwd=working)  # fmt: skip
    while not (pidfile.exists() and pidfile.read_text().strip()):
        time.sleep(0.05)
    then = time.time() - 2 * STALE_AFTER_S
    os.utime(working, (then, then))

    probe = HostTask(argv=("true",), outputs=())
    plan = RunPlan(steps=(RunStep("probe", {"vm1": probe}, tool="true"),))
    inv = load_inventory(one_host_inventory(ssh_fleet, tmp_path))
    conns = inv.connect()
    try:
        with RunLock(running, "running"):  # this test plays the anfperf still running it
            manifest = run_plan(plan, conns, out, workdir=str(wd))
    finally:
        close_all(conns)
        sleeper.kill()
        sleeper.wait()
    assert manifest.task(0, "vm1")["status"] == "ok"
    # before: every one of them stayed
    assert not ended.exists() and not old.exists()
    for kept in (busy, young, other_host, not_ours, other_name, working):
        assert (kept / "out.json").exists(), kept
    assert link.is_symlink() and (victim / "precious").exists()
    assert sorted(p.name for p in wd.iterdir()) == sorted(
        p.name for p in (busy, young, other_host, not_ours, other_name, working, link)
    )
