"""Quoting, names, redaction, plans and manifests: what keeps runs safe and records sound."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from anfperf.errors import ParseError
from anfperf.folders import atomic_write_bytes
from anfperf.runner import HostTask, Manifest, RunPlan, RunStep, close_all, load_inventory, run_plan
from anfperf.runner.security import (
    check_folder_name,
    check_relative,
    inside,
    join,
    kill_command,
    redact,
    wrap_command,
)

HOSTILE = [
    "a b", "it's", 'say "hi"', "x; touch CANARY", "$(touch CANARY)", "`touch CANARY`",
    "${HOME}", "back\\slash", "new\nline", "-n", "*", "",
]  # fmt: skip


def test_wrapped_commands_pass_every_argument_literally(tmp_path):
    canary = tmp_path / "pwned"
    args = [a.replace("CANARY", str(canary)) for a in HOSTILE]
    workdir = tmp_path / "dir $(touch pwned) 'x'"
    workdir.mkdir()
    command = wrap_command(["printf", "%s\\0", *args], str(workdir), str(workdir / "pid"))
    out = subprocess.run(["/bin/sh", "-c", command], capture_output=True, check=True).stdout
    assert out.decode().split("\0")[:-1] == args
    assert not canary.exists() and not any(p.name == "pwned" for p in tmp_path.rglob("*"))
    assert (workdir / "pid").read_text().strip().isdigit()
    # the same through bash, the usual login shell
    out = subprocess.run(["bash", "-c", join(["printf", "%s\\0", *args])], capture_output=True)
    assert out.stdout.decode().split("\0")[:-1] == args


def test_kill_command_stops_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "pid"
    # a shell that forks a child: both must go
    script = "sleep 30 & echo $! > child; wait"
    proc = subprocess.Popen(
        ["/bin/sh", "-c", wrap_command(["sh", "-c", script], str(tmp_path), str(pidfile))]
    )
    for _ in range(50):
        if (tmp_path / "child").exists() and (tmp_path / "child").read_text().strip():
            break
        subprocess.run(["sleep", "0.1"])
    child = int((tmp_path / "child").read_text())
    subprocess.run(["/bin/sh", "-c", kill_command(str(pidfile), 2)], check=True, timeout=10)
    assert proc.wait(timeout=5) != 0
    assert (
        not Path(f"/proc/{child}").exists()
        or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]
    )


@pytest.mark.parametrize(
    "name", ["../x", ".hidden", "-rf", "a/b", "a b", "", "x" * 200, "semi;colon"]
)
def test_unsafe_folder_names_are_refused(name):
    with pytest.raises(ValueError, match="not usable as a folder name"):
        check_folder_name(name)


@pytest.mark.parametrize(
    "path", ["/etc/passwd", "../up", "a/../../b", "-opt", "", "nul\0", "back\\slash"]
)
def test_outputs_must_stay_inside_their_folder(path, tmp_path):
    with pytest.raises(ValueError):
        check_relative(path)
    with pytest.raises(ValueError):
        HostTask(argv=("true",), outputs=(path,))


def test_inside_refuses_symlinks_out(tmp_path):
    (tmp_path / "out").symlink_to("/etc")
    with pytest.raises(ValueError, match="leaves"):
        inside(tmp_path, "out/passwd")
    assert inside(tmp_path, "a b/c.json") == tmp_path / "a b" / "c.json"


def test_redact():
    assert redact("login as bob with pw s3cr3t-pw failed", ["s3cr3t-pw", ""]) == (
        "login as bob with pw *** failed"
    )


def test_plans_validate_their_steps():
    task = HostTask(argv=("fio", "x.fio"), outputs=("x.json",), duration_s=10)
    assert task.effective_timeout_s == 10 * 1.5 + 120
    with pytest.raises(ValueError, match="both write"):
        RunPlan(steps=(RunStep("a", {"vm1": task}), RunStep("b", {"vm1": task})))
    with pytest.raises(ValueError, match="must differ"):
        RunPlan(steps=(RunStep("a b", {"vm1": task}), RunStep("a;b", {"vm2": task})))
    with pytest.raises(ValueError, match="host name"):
        RunStep("a", {"../vm": task})
    with pytest.raises(ValueError, match="non-empty"):
        HostTask(argv=())
    plan = RunPlan(steps=(RunStep("RndRead", {"vm1": task}),))
    assert plan.run_id.endswith("-RndRead") and plan.hosts == ["vm1"]


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b"<html>502</html>", b"\xff\xfe\x00", b"[1, 2]", b'{"run_id": "x"}'],
)
def test_broken_manifests_are_parse_errors(tmp_path, content):
    (tmp_path / "manifest.json").write_bytes(content)
    with pytest.raises(ParseError) as info:
        Manifest.load(tmp_path)
    assert info.value.source == str(tmp_path / "manifest.json")


def test_manifest_writes_are_atomic(tmp_path):
    # the manifest, collected outputs, rendered workloads and reports are written this way
    path = atomic_write_bytes(tmp_path / "m.json", b'{"run_id": "r1", "steps": []}')
    assert json.loads(path.read_text()) == {"run_id": "r1", "steps": []}
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]  # no temporary left behind

    with pytest.raises(TypeError):  # a write that fails half-way
        atomic_write_bytes(tmp_path / "m.json", {"run_id": "r2"})
    assert json.loads(path.read_text())["run_id"] == "r1"  # the old file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_vdbench_plan_runs_one_master_with_every_host(tmp_path):
    from anfperf.runner import load_inventory, plan_workloads
    from anfperf.tools import render_vdbench
    from anfperf.workloads import get_workload

    inv_path = tmp_path / "inv.yml"
    inv_path.write_text(
        "user: root\nvdbench: /opt/vdbench/vdbench\nvolumes: [/mnt/vdb1, /mnt/vdb2]\n"
        "hosts: {vm1: 10.0.0.4, vm2: 10.0.0.5}\n"
    )
    inv = load_inventory(inv_path)
    w = get_workload("SeqMix")
    plan = plan_workloads([w], inv, tool="vdbench")
    (step,) = plan.steps
    assert list(step.tasks) == ["vm1"]  # the master runs the parameter file
    task = step.tasks["vm1"]
    assert task.argv == ("/opt/vdbench/vdbench", "-f", "SeqMix.parm", "-o", "SeqMix")
    assert task.outputs == ("SeqMix",)
    expected = render_vdbench(
        w, ["/mnt/vdb1", "/mnt/vdb2"], ["10.0.0.4", "10.0.0.5"], user="root",
        vdbench_dir="/opt/vdbench",
    )  # fmt: skip
    assert task.files == {"SeqMix.parm": expected}
    # the seed's SeqMix: two rd= (6 and 7 threads), each warmup 60 + elapsed 600
    assert task.duration_s == 2 * (60 + 600)


@pytest.mark.ssh
def test_every_folder_on_the_way_to_the_workdir_is_checked(ssh_fleet, tmp_path):
    # issue 24, item 9: only the base itself was checked, so a link of another user on the way
    # was followed, and as root a root-owned folder writable by all was taken
    if os.geteuid() != 0:
        pytest.skip("needs root to give a link to another user")
    victim = tmp_path / "victim"
    victim.mkdir()
    (tmp_path / "linkparent").symlink_to(victim)
    os.lchown(tmp_path / "linkparent", 65534, 65534)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # root's, writable by all, not sticky
    (tmp_path / "mylink").symlink_to(shared)  # root's own link, but to a folder anyone changes
    safe = tmp_path / "safe"
    safe.mkdir()
    (tmp_path / "goodlink").symlink_to(safe)
    probe = HostTask(argv=("stat", "-c", "%a %u", "."), outputs=())
    plan = RunPlan(steps=(RunStep("probe", {"vm1": probe}, tool="stat"),))
    conns = load_inventory(ssh_fleet.inventory(tmp_path / "inv.yml")).select(["vm1"]).connect()

    def run(workdir, out):
        manifest = run_plan(plan, conns, tmp_path / out, workdir=str(workdir))
        return manifest, manifest.task(0, "vm1")

    try:
        for n, (workdir, refusal) in enumerate([
            (tmp_path / "linkparent" / "sub", f"{tmp_path / 'linkparent'} is a link of user 65534"),
            (shared, f"{shared} can be changed by other users (mode 777, not sticky)"),
            (shared / "deep" / "sub", f"{shared} can be changed by other users (mode 777"),
            (tmp_path / "mylink" / "sub", f"{shared} can be changed by other users (mode 777"),
        ]):  # fmt: skip
            _, task = run(workdir, f"refused{n}")
            assert task["status"] == "failed", (workdir, task)
            assert task["reason"].startswith(f"work folder: {refusal}"), task["reason"]
            assert "\n" not in task["reason"]
        assert list(victim.iterdir()) == [] and list(shared.iterdir()) == []  # nothing made
        # /tmp (sticky, mode 1777) and a link of root to a folder only root changes are fine
        for n, workdir in enumerate(["/tmp", tmp_path / "goodlink" / "sub"]):
            manifest, task = run(workdir, f"taken{n}")
            assert task["status"] == "ok", task
            assert (manifest.run_dir / task["stdout"]).read_text().split() == ["700", "0"]
            assert task["remote_dir"].startswith(f"{workdir}/{plan.run_id}.vm1.")
            assert not os.path.exists(task["remote_dir"])  # removed after collection
        assert [p.name for p in safe.iterdir()] == ["sub"]
    finally:
        close_all(conns)
