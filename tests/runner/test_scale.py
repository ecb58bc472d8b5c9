"""A fleet at scale, for real (issue 24, items 4 and 5): hosts that accept TCP connections but
never greet (real listening sockets), a lowered open-file limit, real sshd and real fio among
them, the console and the run's log of a real `anfperf run`, and a run killed with SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from anfperf.ingest import read_all
from anfperf.runner import HostTask, LocalConnection, Manifest, RunPlan, RunStep, run_plan
from anfperf.runner.hostrun import MAX_PARALLEL_HOSTS
from anfperf.runner.manifest import RESERVE_BYTES
from anfperf.schema import MANIFEST_JOURNAL_NAME, read_manifest
from tests.runner.sshd import SilentHosts
from tests.runner.test_faults import TINY, wait_for_fio

ROOT = Path(__file__).parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
#: The reason recorded for a host that does not greet within the inventory's 1 s.
NO_BANNER = "no SSH banner within 1 s"

#: Runs one step on every host of an inventory with the open-file limit lowered (soft and hard:
#: nothing can raise it), sampling the process's threads and open files meanwhile; prints them
#: with every task's status and reason as JSON.
_BOUNDED_RUN = """
import json, os, resource, sys, threading, time
inventory, out, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
from anfperf.runner import HostTask, RunPlan, RunStep, load_inventory, run_inventory
inv = load_inventory(inventory)
plan = RunPlan(steps=(RunStep("hello", {h: HostTask(argv=("echo", "hello")) for h in inv.names},
                              tool="echo"),), run_id="bounded")
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
peak = {"threads": 0, "fds": 0}
done = threading.Event()
def sample():
    while not done.is_set():
        peak["threads"] = max(peak["threads"], len(os.listdir("/proc/self/task")))
        peak["fds"] = max(peak["fds"], len(os.listdir("/proc/self/fd")))
        time.sleep(0.002)
base = {"threads": len(os.listdir("/proc/self/task")), "fds": len(os.listdir("/proc/self/fd"))}
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
manifest = run_inventory(plan, inv, out)
done.set()
sampler.join()
tasks = {h: [t["status"], t["reason"]] for _, h, t in manifest.tasks()}
print(json.dumps({"peak": peak, "base": base, "tasks": tasks}))
"""


@pytest.mark.ssh
def test_silent_hosts_take_bounded_threads_and_files_and_healthy_hosts_run(ssh_fleet, tmp_path):
    n_silent, limit = 120, 72
    with SilentHosts(SilentHosts.loopback(n_silent)) as silent:
        inv = ssh_fleet.inventory(
            tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), extra_hosts=silent.hosts(),
            connect_timeout_s=1,
        )  # fmt: skip
        out = subprocess.run(
            [sys.executable, "-c", _BOUNDED_RUN, str(inv), str(tmp_path / "raw"), str(limit)],
            capture_output=True, text=True, env=ENV, timeout=120,
        )  # fmt: skip
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    peak, base, tasks = seen["peak"], seen["base"], seen["tasks"]
    # before: a thread, a paramiko thread and a socket per host at once -- 'Too many open
    # files' for some silent hosts and healthy ones alike, recorded as their fault
    assert peak["fds"] <= base["fds"] + MAX_PARALLEL_HOSTS + 12 < limit, seen
    # 2 threads per host connecting (its own and paramiko's, waited for when it fails) and the
    # healthy hosts' commands with invoke's I/O threads: bounded by the hosts at once, not by
    # the 120 hosts (before: 2 or more per host, all at once)
    assert peak["threads"] <= base["threads"] + 2 * MAX_PARALLEL_HOSTS + 16, seen
    assert tasks.pop("vm1") == tasks.pop("vm2") == ["ok", None]
    assert len(tasks) == n_silent
    for host, (status, reason) in tasks.items():
        # before: 'SSHException: No existing session'
        assert status == "unreachable" and reason.startswith(NO_BANNER), (host, reason)


@pytest.mark.ssh
@pytest.mark.fio
def test_the_console_says_one_line_per_silent_host_and_the_run_log_has_the_details(
    ssh_fleet, tmp_path, fio_bin
):
    (tmp_path / "data").mkdir()
    with SilentHosts(SilentHosts.loopback(3, prefix="127.78")) as silent:
        inv = ssh_fleet.inventory(
            tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), extra_hosts=silent.hosts(),
            volumes={"data": str(tmp_path / "data")}, connect_timeout_s=1,
        )  # fmt: skip
        args = [
            sys.executable, "-m", "anfperf.cli", "run", "RndRead", "--hosts", str(inv),
            "--out", str(tmp_path / "raw"), "--run-id", "console", "--force", "--no-progress",
            "--parallel", "2", "--set", "duration_s=1", *TINY,
        ]  # fmt: skip
        run = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=120)
    assert run.returncode == 1, run.stderr  # partial: the silent hosts failed
    # before: 'ERROR' lines and two traceback blocks per host (preflight, run), and each
    # failure twice (a WARNING line and the plain one)
    assert "Traceback" not in run.stderr and "ERROR" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 3, run.stderr
    for i, line in enumerate(lines, 1):
        assert line.startswith(f"RndRead on silent{i}: unreachable: {NO_BANNER}"), line
    assert f"silent1: UNREACHABLE\n  PROBLEM: unreachable: {NO_BANNER}" in run.stdout
    run_dir = tmp_path / "raw" / "console"
    manifest = Manifest.load(run_dir)
    assert manifest.task(0, "vm1")["status"] == manifest.task(0, "vm2")["status"] == "ok"
    log = (run_dir / "run.log").read_text()
    # paramiko's tracebacks, from preflight (the run does not connect to them again), each
    # under its host's name; a traceback of paramiko is two chained ones
    assert log.count("Traceback (most recent call last)") >= 2 * 3
    for i in (1, 2, 3):
        assert f"paramiko.transport.silent{i}: Exception (client): Error reading SSH" in log
    assert f"silent3: unreachable: {NO_BANNER}" in log


#: Runs one step of `echo` on N hosts of this machine (LocalConnection); prints the bytes this
#: process wrote (/proc/self/io wchar) and the size of the manifest in the end.
_MANY_LOCAL_HOSTS = """
import os, sys
from anfperf.runner import HostTask, LocalConnection, RunPlan, RunStep, run_plan
n, out, wd = int(sys.argv[1]), sys.argv[2], sys.argv[3]
conns = {f"h{i}": LocalConnection(f"h{i}") for i in range(n)}
task = HostTask(argv=("echo", "hello"))
plan = RunPlan(steps=(RunStep("hello", {h: task for h in conns}, tool="echo"),), run_id="many")
def written():
    io = dict(line.split(": ") for line in open("/proc/self/io").read().splitlines())
    return int(io["wchar"])
before = written()
manifest = run_plan(plan, conns, out, workdir=wd)
print(written() - before, manifest.path.stat().st_size, manifest.status)
"""


def test_a_run_writes_its_manifest_whole_a_few_times_not_once_per_host_event(tmp_path):
    n = 60
    out = subprocess.run(
        [sys.executable, "-c", _MANY_LOCAL_HOSTS, str(n), str(tmp_path / "raw"),
         str(tmp_path / "wd")],
        capture_output=True, text=True, env=ENV, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    written, size, status = out.stdout.split()
    assert status == "complete"
    # before: the whole manifest rewritten and flushed at each of the 2 events of every host
    # (120 x 50 KB = 6 MB); now whole at the start and the end, a journal line per event in
    # between; besides, the reserve (1 MiB) and the hosts' stdout files (6 bytes each)
    assert int(written) - RESERVE_BYTES < 4 * int(size), (written, size)


def test_a_run_killed_with_sigkill_is_read_back_from_its_manifest_and_journal(tmp_path, fio_bin):
    (tmp_path / "data").mkdir()
    args = [
        sys.executable, "-m", "anfperf.cli", "run", "RndRead", "SeqWrite",
        "--volume", str(tmp_path / "data"), "--out", str(tmp_path / "raw"), "--run-id", "killed",
        "--no-progress", "--set", "duration_s=3", *TINY,
    ]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    run_dir = tmp_path / "raw" / "killed"
    try:
        wait_for_fio(run_dir, step=1)  # the first workload is recorded, the second runs
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
    journal = run_dir / MANIFEST_JOURNAL_NAME
    assert journal.exists()
    with open(journal, "ab") as fh:  # as if killed while appending a line
        fh.write(b'{"seq": 99, "at": ["steps", 1, "tas')
    manifest = Manifest.load(run_dir)
    assert manifest.status == "running"
    ((_, host, first), (_, _, second)) = manifest.tasks()
    assert first["status"] == "ok" and first["collected"] == [f"{host}/RndRead.json"]
    assert second["status"] == "pending" and second["remote_dir"]
    assert read_manifest(run_dir / "manifest.json")["steps"][0]["tasks"][host]["status"] == "ok"
    frame, skipped, _ = read_all([run_dir])  # ingest reads the manifest with its journal
    assert not skipped and set(frame["run_id"]) == {"killed"} and (frame["iops"] > 0).any()

    resume = [
        sys.executable, "-m", "anfperf.cli", "run", "--resume", "killed", "--volume",
        str(tmp_path / "data"), "--out", str(tmp_path / "raw"), "--no-progress",
    ]  # fmt: skip
    again = subprocess.run(resume, capture_output=True, text=True, env=ENV, timeout=120)
    assert again.returncode == 0, again.stderr
    manifest = Manifest.load(run_dir)
    assert manifest.status == "complete" and not journal.exists()  # folded into the manifest
    assert [t["status"] for _, _, t in manifest.tasks()] == ["ok", "ok"]
    assert json.loads(manifest.path.read_text())["steps"][1]["tasks"][host]["status"] == "ok"


def test_the_journal_applies_in_order_from_the_manifest_on_and_stops_where_it_breaks(tmp_path):
    tasks = {"h1": {"status": "pending"}, "h2": {"status": "pending"}}
    doc = {"run_id": "r", "hosts": {}, "steps": [{"tasks": tasks}], "journal_seq": 1}
    (tmp_path / "manifest.json").write_text(json.dumps(doc))
    entries = [
        {"seq": 1, "at": ["steps", 0, "tasks", "h1"], "set": {"status": "stale"}},  # held
        {"seq": 2, "at": ["steps", 0, "tasks", "h1"], "set": {"status": "ok"}},
        {"seq": 3, "at": ["hosts", "h2"], "set": {"facts": {"cpus": 2}}},  # a host made
        {"seq": 5, "at": ["steps", 0, "tasks", "h2"], "set": {"status": "ok"}},  # after a gap
    ]
    journal = tmp_path / MANIFEST_JOURNAL_NAME
    journal.write_text("".join(json.dumps(e) + "\n" for e in entries))
    for read in (
        lambda: read_manifest(tmp_path / "manifest.json"),
        lambda: Manifest.load(tmp_path).data,
    ):
        got = read()
        assert got["journal_seq"] == 3 and got["hosts"] == {"h2": {"facts": {"cpus": 2}}}
        assert [t["status"] for t in got["steps"][0]["tasks"].values()] == ["ok", "pending"]
    # an entry torn by a kill, or pointing nowhere, ends the journal there
    for bad in ('{"seq": 4, "at": ["steps", 0, "ta', '{"seq": 4, "at": ["steps", 7], "set": {}}'):
        journal.write_text(json.dumps(entries[1]) + "\n" + bad + "\n" + json.dumps(entries[2]))
        assert read_manifest(tmp_path / "manifest.json")["journal_seq"] == 2


def test_hosts_prepared_a_few_at_a_time_still_start_together(tmp_path):
    n, wd, started = 6, tmp_path / "wd", tmp_path / "started"
    started.mkdir()
    # at its start, a task counts the hosts' work folders (made while preparing), then waits
    # until every task has started, so that no folder is removed before all have counted
    script = (
        'ls -d "$1"/sync.* | wc -l; touch "$2/$3"; i=0; '
        'while [ "$(ls "$2" | wc -l)" -lt "$4" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done'
    )
    tasks = {
        f"h{i}": HostTask(argv=("sh", "-c", script, "sh", str(wd), str(started), f"h{i}", str(n)))
        for i in range(n)
    }
    plan = RunPlan(steps=(RunStep("sync", tasks, tool="sh"),), run_id="sync")
    conns = {h: LocalConnection(h) for h in tasks}
    manifest = run_plan(plan, conns, tmp_path / "raw", workdir=str(wd), max_parallel_hosts=2)
    assert manifest.status == "complete"
    for host in tasks:
        # every host was prepared (its folder made) before any started
        assert (manifest.run_dir / manifest.task(0, host)["stdout"]).read_text().strip() == str(n)
