"""The runner under faults, with real processes: hung hosts (sshd stopped with SIGSTOP),
SIGTERM and repeated Ctrl-C, a full disk (a real tmpfs), two resumes racing, edited manifests,
planted work folders and hostile YAML (issue 9, items 1-8)."""

from __future__ import annotations

import _thread
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from anfperf.cli import main
from anfperf.errors import AnfperfError, ParseError
from anfperf.ingest import read_all
from anfperf.runner import (
    HostTask,
    LocalConnection,
    Manifest,
    RunPlan,
    RunStep,
    close_all,
    fio_task,
    hostrun,
    load_inventory,
    local_inventory,
    plan_workloads,
    preflight_inventory,
    resume_run,
    run_inventory,
    run_plan,
)
from anfperf.schema import read_manifest
from tests.conftest import fio_documents, small_tmpfs
from tests.runner.sshd import once_running
from tests.runner.test_fleet import fio_job, json_iops, procs_in, tiny

pytestmark = pytest.mark.fio

#: Bounds short enough for tests: a request may go unanswered 2 s, TERM -> KILL after 1 s.
QUICK = {"answer_timeout_s": 2, "kill_grace_s": 1}
TINY = ["--set", "warmup_s=0", "--set", "file_size_gib=0.004", "--set", "threads=2"]


@pytest.fixture
def frozen(own_fleet):
    """own_fleet, whose hosts are thawed and killed at the end whatever a test froze."""
    yield own_fleet
    for server in own_fleet.servers:
        server.thaw()
        server.crash()


def fleet_plan(tmp_path: Path, names, runtime: int, timeout_s: float) -> RunPlan:
    tasks = {
        h: fio_task(fio_job(tmp_path, h, runtime), name="job", duration_s=runtime,
                    timeout_s=timeout_s)
        for h in names
    }  # fmt: skip
    return RunPlan(steps=(RunStep("job", tasks),))


# -- item 1: a host that hangs ------------------------------------------------------------------


@pytest.mark.ssh
def test_a_host_hanging_mid_run_is_given_up_and_the_other_finishes(frozen, tmp_path, fio_bin):
    inv = load_inventory(frozen.inventory(tmp_path / "inv.yml", workdir=str(tmp_path / "wd")))
    plan = fleet_plan(tmp_path, inv.names, runtime=3, timeout_s=4)
    once_running(frozen.servers[:1], "fio", frozen.servers[0].freeze)  # vm1 hangs mid run
    start = time.monotonic()
    manifest = run_inventory(plan, inv, tmp_path / "raw", **QUICK)
    elapsed = time.monotonic() - start
    # before: about an hour (paramiko's channel timeout) in the stop of the hung host
    assert elapsed < 30, elapsed
    vm1, vm2 = manifest.task(0, "vm1"), manifest.task(0, "vm2")
    assert vm1["status"] == "lost", vm1
    assert "timeout of 4 s and could not be stopped" in vm1["reason"]
    assert "did not answer" in vm1["reason"]
    assert vm2["status"] == "ok" and json_iops(manifest.run_dir / "vm2" / "job.json") > 0
    on_disk = json.loads(manifest.path.read_text())
    assert on_disk["status"] == "partial"
    assert on_disk["steps"][0]["tasks"]["vm1"]["status"] == "lost"


@pytest.mark.ssh
def test_a_host_hanging_after_preflight_does_not_hold_back_the_others(frozen, tmp_path, fio_bin):
    inv = load_inventory(frozen.inventory(tmp_path / "inv.yml", workdir=str(tmp_path / "wd")))
    steps = tuple(
        RunStep(name, {h: fio_task(fio_job(tmp_path, h), name=name, duration_s=1)
                       for h in inv.names})
        for name in ("first", "second")
    )  # fmt: skip
    conns = inv.connect()
    try:
        reports = preflight_inventory(inv, conns, tool="fio")
        assert all(r.ok for r in reports.values())
        frozen.servers[0].freeze()  # hangs between preflight and the run
        start = time.monotonic()
        manifest = run_inventory(
            RunPlan(steps=steps), inv, tmp_path / "raw", connections=conns, **QUICK
        )
        elapsed = time.monotonic() - start
    finally:
        close_all(conns)
    assert elapsed < 20, elapsed  # before: every host waited at the start for the hung one
    first = manifest.task(0, "vm1")
    assert first["status"] == "lost" and "no work folder made" in first["reason"], first
    assert manifest.task(1, "vm1")["status"] == "skipped"  # not tried again in this run
    for index, name in enumerate(("first", "second")):
        assert manifest.task(index, "vm2")["status"] == "ok"
        assert json_iops(manifest.run_dir / "vm2" / f"{name}.json") > 0


@pytest.mark.ssh
def test_ctrl_c_while_a_host_hangs_records_it_with_a_reason(frozen, tmp_path, fio_bin, monkeypatch):
    monkeypatch.setattr(hostrun, "INTERRUPT_WAIT_S", 6)
    inv = load_inventory(frozen.inventory(tmp_path / "inv.yml", workdir=str(tmp_path / "wd")))
    plan = fleet_plan(tmp_path, inv.names, runtime=30, timeout_s=60)

    # fio has run 1 s on both hosts: vm1 hangs, and 1.5 s later the operator presses Ctrl-C
    def hang_then_interrupt() -> None:
        frozen.servers[0].freeze()
        time.sleep(1.5)
        _thread.interrupt_main()

    start = time.monotonic()
    once_running(frozen.servers, "fio", hang_then_interrupt, delay_s=1.0)
    with pytest.raises(KeyboardInterrupt):
        run_inventory(plan, inv, tmp_path / "raw", **QUICK)
    assert time.monotonic() - start < 30
    manifest = Manifest.load(tmp_path / "raw" / plan.run_id)
    assert manifest.status == "interrupted"
    vm1, vm2 = manifest.task(0, "vm1"), manifest.task(0, "vm2")
    # before: 'pending' with no reason
    assert vm1["status"] == "interrupted" and vm1["reason"].startswith("stopped by Ctrl-C"), vm1
    assert vm1["collected"] == []
    assert vm2["status"] == "interrupted" and vm2["collected"] == ["vm2/job.json"]
    assert json_iops(manifest.run_dir / "vm2" / "job.json") > 0


# -- item 2: SIGTERM and repeated Ctrl-C ----------------------------------------------------------


def start_cli_run(
    tmp_path: Path, run_id: str, duration_s: int, *extra: str
) -> tuple[subprocess.Popen, Path]:
    """`anfperf run RndRead` on this machine in a child process; (process, run folder)."""
    (tmp_path / "data").mkdir(exist_ok=True)
    args = [
        sys.executable, "-m", "anfperf.cli", "run", "RndRead", "--volume", str(tmp_path / "data"),
        "--out", str(tmp_path / "raw"), "--run-id", run_id, "--no-progress",
        "--set", f"duration_s={duration_s}", *TINY, *extra,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return proc, tmp_path / "raw" / run_id


def wait_for_fio(run_dir: Path, timeout_s: float = 30, step: int = 0) -> str:
    """The work folder of the first task of step `step` once fio works in it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        doc = read_manifest(run_dir / "manifest.json")  # with its journal: as the run goes
        if isinstance(doc, dict) and len(doc["steps"]) > step:
            wd = next(iter(doc["steps"][step]["tasks"].values())).get("remote_dir")
        else:
            wd = None
        if wd and any(_comm(p) == "fio" for p in procs_in(wd)):
            return wd
        time.sleep(0.1)
    raise AssertionError(f"fio did not start for {run_dir}")


def wait_for_measured_io(folder: Path, timeout_s: float = 30) -> None:
    """Until a fio output in `folder` holds a status document with reads done."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for out in folder.glob("*.json"):
            docs = fio_documents(out) if out.stat().st_size else []
            if docs and sum(job["read"]["total_ios"] for job in docs[-1]["jobs"]) > 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"fio measured nothing in {folder} within {timeout_s:g} s")


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@pytest.mark.parametrize(
    ("signals", "stopped_by", "gap_s"),
    [
        ([signal.SIGTERM], "SIGTERM", 0.15),
        ([signal.SIGINT] * 3, "Ctrl-C", 0.15),
        # presses while the first one's exception unwinds the run (one once landed in a weakref
        # callback there and Python printed it as a traceback)
        ([signal.SIGINT] * 12, "Ctrl-C", 0.01),
    ],
    ids=["sigterm", "three-quick-ctrl-c", "a-burst-of-ctrl-c"],
)
def test_sigterm_and_repeated_ctrl_c_stop_the_run_and_keep_its_results(
    tmp_path, fio_bin, signals, stopped_by, gap_s
):
    # fio's status every second into its output: the signals come once it has measured
    proc, run_dir = start_cli_run(tmp_path, "stopme", 30, "--live-interval", "1")
    try:
        wd = wait_for_fio(run_dir)
        wait_for_measured_io(Path(wd))  # a loaded machine may start fio late
        for sig in signals:
            proc.send_signal(sig)
            time.sleep(gap_s)
        out, err = proc.communicate(timeout=40)
    finally:
        proc.kill()
    err = err.decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "anfperf run --resume stopme" in err
    manifest = Manifest.load(run_dir)
    # before (SIGTERM): manifest 'running', a 0-byte JSON
    assert manifest.status == "interrupted"
    ((index, host, task),) = manifest.tasks()
    assert task["status"] == "interrupted" and task["reason"] == f"stopped by {stopped_by}"
    assert task["collected"] == [f"{host}/RndRead.json"]
    assert json_iops(run_dir / host / "RndRead.json") > 0
    assert not procs_in(wd)  # fio and its jobs are gone
    frame, skipped, notes = read_all([run_dir])  # what reading says, as data
    assert not skipped and any("stopped before its planned end" in n for n in notes), notes
    assert (frame["iops"] > 0).any() and frame["interrupted"].all()  # before: a normal result


# -- item 3: the output folder's disk fills up ---------------------------------------------------


@pytest.fixture
def small_disk(tmp_path):
    """A real 3 MiB tmpfs (needs root)."""
    with small_tmpfs(tmp_path / "small", "3m") as folder:
        yield folder


def fill(folder: Path) -> Path:
    """Write a file in `folder` until the disk is full."""
    filler = folder / "filler"
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\1" * 65536)
                fh.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_is_recorded_truthfully_and_resume_completes(
    small_disk, tmp_path, fio_bin, capsys
):
    (tmp_path / "data").mkdir()
    args = ["run", "RndRead", "--volume", str(tmp_path / "data"), "--out", str(small_disk),
            "--run-id", "full", "--no-progress", "--set", "duration_s=2", *TINY]  # fmt: skip
    run_dir = small_disk / "full"
    filler: list[Path] = []
    filling = threading.Thread(
        target=lambda: (wait_for_fio(run_dir), filler.append(fill(small_disk)))
    )
    filling.start()
    assert main(args) == 1
    filling.join()
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    manifest = Manifest.load(run_dir)
    ((_, host, task),) = manifest.tasks()
    # before: 'lost' (a host fault) or no record at all
    assert manifest.status == "partial" and task["status"] == "failed", task
    assert task["reason"].startswith(f"no space left in {small_disk} (No space left on device)")
    assert task["collected"] == []
    assert "RndRead on " in captured.err and "No space left on device" in captured.err
    assert not list(run_dir.rglob("*.partial")) and not list(run_dir.rglob("*.tmp"))
    # the work folder is removed all the same (issue 24, item 8): --resume runs the task again
    assert not Path(task["remote_dir"]).exists()

    filler[0].unlink()  # space again
    assert main(["run", "--resume", "full", "--volume", str(tmp_path / "data"),
                 "--out", str(small_disk), "--no-progress"]) == 0  # fmt: skip
    manifest = Manifest.load(run_dir)
    ((_, host, task),) = manifest.tasks()
    assert manifest.status == "complete" and task["attempts"] == 2
    assert json_iops(run_dir / host / "RndRead.json") > 0
    assert not (run_dir / ".anfperf-reserve").exists()


def test_a_change_the_full_disk_cannot_take_is_kept_and_written_when_space_returns(
    small_disk, caplog
):
    run_dir = small_disk / "r"
    tasks = {"h1": {"status": "pending"}, "h2": {"status": "pending"}}
    manifest = Manifest(run_dir, {"run_id": "r", "hosts": {}, "steps": [{"tasks": tasks}]})
    manifest.write()
    filler = small_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    for size in (65536, 4096, 1):  # to the last byte, no reserve
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\1" * size)
    os.close(fd)
    # before: AnfperfError, raised in the host's thread (a traceback) and the record lost
    manifest.update_task(0, "h1", status="failed", reason="x" * 8192)
    assert "cannot be written: No space left on device (kept in memory" in caplog.text
    assert manifest.task(0, "h1")["status"] == "failed"
    assert Manifest.load(run_dir).task(0, "h1")["status"] == "pending"  # what the disk took
    filler.unlink()
    manifest.update_task(0, "h2", status="ok")  # writes the whole manifest, with h1's change
    loaded = Manifest.load(run_dir)
    assert loaded.task(0, "h1")["reason"] == "x" * 8192 and loaded.task(0, "h2")["status"] == "ok"
    assert json.loads(manifest.path.read_text())["steps"][0]["tasks"]["h1"]["status"] == "failed"


#: Two steps of fio writing per-I/O latency logs (about 5 MB a host) on every host of an
#: inventory into OUT, logging set up as the CLI does; prints every task's status and reason.
_BIG_LOGS_RUN = """
import json, logging, sys
from anfperf.runner import HostTask, RunPlan, RunStep, load_inventory, run_inventory
logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
inventory, out, data = sys.argv[1:]
inv = load_inventory(inventory)
def task(host, name):
    job = (f"[global]\\nioengine=psync\\nfilename={data}/big-{host}.bin\\nsize=4M\\n"
           f"io_size=512M\\nbs=4k\\nrw=read\\nwrite_lat_log={name}\\nlog_avg_msec=0\\n[j]\\n")
    return HostTask(argv=("fio", "--output-format=json", f"--output={name}.json", "job.fio"),
                    files={"job.fio": job}, duration_s=2,
                    outputs=(f"{name}.json", f"{name}_clat.1.log", f"{name}_lat.1.log"))
steps = tuple(RunStep(name, {h: task(h, name) for h in inv.names}, tool="fio")
              for name in ("first", "second"))
manifest = run_inventory(RunPlan(steps=steps, run_id="full"), inv, out)
print(json.dumps([[i, h, t["status"], t["reason"]] for i, h, t in manifest.tasks()]))
"""


@pytest.mark.ssh
def test_out_filling_up_while_outputs_arrive_ends_the_run_truthfully(
    ssh_fleet, small_disk, tmp_path, fio_bin
):
    (tmp_path / "data").mkdir()
    inv = ssh_fleet.inventory(tmp_path / "inv.yml", workdir=str(tmp_path / "wd"))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    run = subprocess.run(
        [sys.executable, "-c", _BIG_LOGS_RUN, str(inv), str(small_disk), str(tmp_path / "data")],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    # before: tracebacks of the host threads that could not write the manifest
    assert "Traceback" not in run.stderr and "ERROR" not in run.stderr, run.stderr
    tasks = json.loads(run.stdout)
    on_disk = json.loads((small_disk / "full" / "manifest.json").read_text())
    assert on_disk["status"] == "partial"
    assert [t[:3] for t in tasks] == [[0, "vm1", "failed"], [0, "vm2", "failed"],
                                      [1, "vm1", "failed"], [1, "vm2", "failed"]]  # fmt: skip
    full = f"no space left in {small_disk} (No space left on device)"
    for index, host, _, reason in tasks:
        assert on_disk["steps"][index]["tasks"][host]["reason"] == reason
        # before: 'outputs not collected: cannot save in ...'; the second step ran all the same
        if index == 0:
            assert reason.startswith(full) and "outputs not collected" in reason, reason
        else:
            assert reason == f"{full}: not run"
    # before: the hosts' work folders (5 MB of logs each) were left behind
    assert list((tmp_path / "wd").iterdir()) == []
    run_dir = small_disk / "full"
    assert not list(run_dir.rglob("*.partial")) and not list(run_dir.rglob("*.tmp"))


# -- items 4, 5, 7: resume ----------------------------------------------------------------------


def failed_run(tmp_path: Path, duration_s: int = 1) -> tuple[Path, str]:
    """A real run on this machine whose one task is then marked failed: (run folder, host)."""
    inv = local_inventory([str(tmp_path)], name="demo", workdir=str(tmp_path / "wd"))
    plan = plan_workloads([tiny(duration_s=duration_s)], inv, run_id="again")
    manifest = run_inventory(plan, inv, tmp_path / "raw")
    assert manifest.status == "complete"
    manifest.update_task(0, "demo", status="failed", reason="made to fail")
    return manifest.run_dir, "demo"


def test_two_resumes_of_one_run_cannot_run_at_once(tmp_path, fio_bin):
    run_dir, host = failed_run(tmp_path, duration_s=3)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    inv = tmp_path / "inv.yml"
    inv.write_text(yaml.safe_dump(
        {"workdir": str(tmp_path / "wd"), "volumes": [str(tmp_path)],
         "hosts": {"demo": {"local": True}}}
    ))  # fmt: skip
    args = [sys.executable, "-m", "anfperf.cli", "run", "--resume", "again", "--hosts", str(inv),
            "--out", str(run_dir.parent), "--no-progress"]  # fmt: skip
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
             for _ in range(2)]  # fmt: skip
    results = sorted((p.wait(timeout=60), p.stderr.read().decode()) for p in procs)
    # before: both ran fio on the same files and recorded halved IOPS as ok
    assert [rc for rc, _ in results] == [0, 2], results
    assert "is being run by another anfperf (pid" in results[1][1]
    task = Manifest.load(run_dir).task(0, host)
    assert task["status"] == "ok" and task["attempts"] == 2


def test_resume_never_runs_commands_read_from_the_manifest(tmp_path, fio_bin, capsys):
    run_dir, host = failed_run(tmp_path)
    canary = tmp_path / "pwned"
    data = json.loads((run_dir / "manifest.json").read_text())
    task = data["steps"][0]["tasks"][host]
    task["argv"] = ["sh", "-c", f"touch {canary}"]
    task["files"]["RndRead.fio"] += f"exec_prerun=touch {canary}\n"
    (run_dir / "manifest.json").write_text(json.dumps(data))
    inv = local_inventory([str(tmp_path)], name="demo", workdir=str(tmp_path / "wd"))
    manifest = resume_run(run_dir, inv)
    assert not canary.exists()
    task = manifest.task(0, host)
    assert task["status"] == "ok" and task["argv"][0] == "fio"
    assert "exec_prerun" not in task["files"]["RndRead.fio"]
    # a hand-made plan is resumed only from the plan itself
    hand = RunPlan(steps=(RunStep("x", {"here": HostTask(argv=("true",))}, tool="sh"),))
    run_plan(hand, {"here": LocalConnection("here")}, tmp_path / "hand",
             workdir=str(tmp_path / "wd"))  # fmt: skip
    with pytest.raises(AnfperfError, match="not made from workloads"):
        resume_run(tmp_path / "hand" / hand.run_id, inv)
    # a run id climbing out of --out is refused before anything is read
    (tmp_path / "outside").mkdir()
    shutil.copy(run_dir / "manifest.json", tmp_path / "outside" / "manifest.json")
    out = ["--volume", str(tmp_path), "--out", str(run_dir.parent)]
    assert main(["run", "--resume", "../outside", *out]) == 2
    assert "run id '../outside' is not usable" in capsys.readouterr().err


def test_resume_with_an_inventory_lacking_a_host_says_so(tmp_path, fio_bin):
    run_dir, _ = failed_run(tmp_path)
    other = local_inventory([str(tmp_path)], name="other", workdir=str(tmp_path / "wd"))
    # before: KeyError
    with pytest.raises(AnfperfError, match="ran on demo; the inventory <local> lacks demo"):
        resume_run(run_dir, other)


def test_a_retry_that_succeeds_replaces_the_failed_attempts_stderr(tmp_path):
    flag = tmp_path / "fixed"
    task = HostTask(argv=("sh", "-c", f"[ -e {flag} ] || {{ echo broken >&2; exit 3; }}"))
    plan = RunPlan(steps=(RunStep("flaky", {"here": task}, tool="sh"),))
    conns = {"here": LocalConnection("here")}
    manifest = run_plan(plan, conns, tmp_path / "raw", workdir=str(tmp_path / "wd"))
    stderr = manifest.run_dir / manifest.task(0, "here")["stderr"]
    assert manifest.task(0, "here")["status"] == "failed" and stderr.read_text() == "broken\n"
    flag.touch()
    manifest = run_plan(plan, conns, tmp_path / "raw", workdir=str(tmp_path / "wd"), resume=True)
    assert manifest.task(0, "here")["status"] == "ok"
    assert not stderr.exists()  # before: the failed attempt's "broken" stayed


def test_run_id_and_set_are_checked(tmp_path, capsys, fio_bin):
    local = ["--volume", str(tmp_path), "--out", str(tmp_path / "raw"), "--no-progress"]
    assert main(["run", "RndRead", "--run-id", "../up", *local]) == 2
    assert "run id '../up' is not usable" in capsys.readouterr().err
    assert main(["run", "RndRead", "--set", "thread=2", *local]) == 2
    assert "field 'thread': unknown field; did you mean 'threads'?" in capsys.readouterr().err
    assert main(["run", "RndRead", "--set", "threads=[1", *local]) == 2
    assert "--set threads: not valid YAML" in capsys.readouterr().err
    assert main(["run", "RndRead", "--run-id", "mine", *local, "--set", "duration_s=1", *TINY]) == 0
    assert (tmp_path / "raw" / "mine" / "manifest.json").exists()


# -- item 6: private work folders ---------------------------------------------------------------


def test_work_folders_are_private_and_planted_folders_refused(tmp_path):
    probe = HostTask(argv=("stat", "-c", "%a %u", "."), outputs=())
    plan = RunPlan(steps=(RunStep("probe", {"here": probe}, tool="stat"),))
    conns = {"here": LocalConnection("here")}
    base = tmp_path / "wd"
    manifest = run_plan(plan, conns, tmp_path / "a", workdir=str(base))
    task = manifest.task(0, "here")
    out = (manifest.run_dir / task["stdout"]).read_text().split()
    assert out == ["700", str(os.getuid())]
    remote = Path(task["remote_dir"])
    assert remote.parent == base and remote.name.startswith(f"{plan.run_id}.here.")
    assert not remote.exists()  # removed after collection
    if os.geteuid() != 0:
        pytest.skip("needs root to give a folder or a link to another user")
    # a link planted by another user where the base folder should be: nothing is written
    # through it (a link of this user or root is followed: see test_security.py)
    target = tmp_path / "victim"
    target.mkdir()
    (tmp_path / "planted").symlink_to(target)
    os.lchown(tmp_path / "planted", 65534, 65534)
    manifest = run_plan(plan, conns, tmp_path / "b", workdir=str(tmp_path / "planted"))
    task = manifest.task(0, "here")
    assert task["status"] == "failed" and "planted is a link of user 65534" in task["reason"]
    assert list(target.iterdir()) == []
    # a base folder that belongs to another user
    other = tmp_path / "other"
    other.mkdir()
    os.chown(other, 65534, 65534)
    refusal = "belongs to user 65534"
    manifest = run_plan(plan, conns, tmp_path / "c", workdir=str(other))
    task = manifest.task(0, "here")
    assert task["status"] == "failed" and refusal in task["reason"]
    assert list(other.iterdir()) == []


# -- item 8: alias bombs ------------------------------------------------------------------------


def test_an_alias_bomb_inventory_is_refused_quickly_and_small(tmp_path):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        lines.append(f"{chr(97 + i)}: &{chr(97 + i)} [" + ",".join([f"*{chr(96 + i)}"] * 9) + "]")
    lines.append("hosts: {vm1: {hostname: 10.0.0.4, volumes: *i}}")
    bomb = tmp_path / "bomb.yml"
    bomb.write_text("\n".join(lines) + "\n")
    code = (
        "import sys\n"
        "from anfperf.runner import load_inventory\n"
        "try:\n    load_inventory(sys.argv[1])\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
        # the peak of this program's own memory (ru_maxrss would count the forking parent's)
        "print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    start = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", code, str(bomb)], capture_output=True, text=True, env=env,
        timeout=60, check=True,
    ).stdout.splitlines()  # fmt: skip
    # before: 109 s and 3.4 GB before failing
    assert time.monotonic() - start < 20
    assert out[0].startswith("ParseError") and "alias bomb" in out[0] and str(bomb) in out[0]
    assert int(out[1]) < 300_000  # KiB
    with pytest.raises(ParseError, match="alias bomb"):
        load_inventory(bomb)
