"""Vdbench through the runner without running it (issue 9, items 9-14): hd= names and mount
points from the inventory, the hosts a plan reaches, run time estimates, Vdbench's failure
messages (real console output in tests/data/vdbench/console), its version from the install,
and ANFPERF_VDBENCH as folder or launcher. The real runs are in test_netns.py and test_fleet.py.
"""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from anfperf.errors import AnfperfError
from anfperf.runner import LocalConnection, expected_duration_s, load_inventory, plan_workloads
from anfperf.runner.preflight import parse_facts, preflight_script
from anfperf.runner.steps import plan_from_manifest
from anfperf.tools import VdbenchHost, render_vdbench
from anfperf.tools.vdbench_failure import failure_reason
from anfperf.workloads import WorkloadError, get_workload
from tests.conftest import DATA, vdbench_launcher

CONSOLE = DATA / "vdbench" / "console"


def inventory(tmp_path: Path, hosts: str):
    path = tmp_path / "inv.yml"
    path.write_text(
        f"user: root\nvdbench: /opt/vdbench/vdbench\nvolumes: [/mnt/v1]\nhosts: {hosts}\n"
    )
    return load_inventory(path)


def test_hd_lines_carry_inventory_names_and_each_hosts_mount_points(tmp_path):
    inv = inventory(
        tmp_path,
        "{client-b: {hostname: 10.0.0.5, volumes: {v1: /mnt/b1, v2: /mnt/b2}},"
        " client-a: {hostname: 10.0.0.4, user: bench, vdbench: /opt/vdb2/vdbench}}",
    )
    plan = plan_workloads([get_workload("RndRead")], inv, tool="vdbench")
    (step,) = plan.steps
    assert list(step.tasks) == ["client-b"] and step.reaches == ("client-a",)
    assert plan.hosts == ["client-b", "client-a"] and plan.task_hosts == ["client-b"]
    parm = step.tasks["client-b"].files["RndRead.parm"].splitlines()
    # before: hd=vm1 / vm2 by position, and every sd= on the master's mount points
    assert "hd=client-b,system=10.0.0.5,user=root" in parm
    assert "hd=client-a,system=10.0.0.4,user=bench,vdbench=/opt/vdb2" in parm
    sds = [line for line in parm if line.startswith("sd=sd-")]
    assert sds == [
        "sd=sd-1-1,host=client-b,lun=/mnt/b1/file-1-1,openflags=o_direct",
        "sd=sd-1-2,host=client-b,lun=/mnt/b2/file-1-2,openflags=o_direct",
        "sd=sd-2-1,host=client-a,lun=/mnt/v1/file-2-1,openflags=o_direct",
    ]


def test_plain_addresses_keep_the_seeds_names():
    text = render_vdbench(get_workload("RndRead"), ["/mnt/a"], ["10.0.0.4", "10.0.0.5"])
    assert "hd=vm1,system=10.0.0.4" in text and "sd=sd-2-1,host=vm2,lun=/mnt/a/file-2-1" in text


@pytest.mark.parametrize(
    ("hosts", "message"),
    [
        ([VdbenchHost("a", "10.0.0.4"), VdbenchHost("a", "10.0.0.5")], "same host name"),
        ([VdbenchHost("a", "10.0.0.4"), VdbenchHost("b", "10.0.0.4")], "same host address"),
        ([VdbenchHost("a,system=x", "10.0.0.4")], "not a valid name"),
        ([VdbenchHost("a", "10.0.0.4", volumes=("/mnt/a b",))], "volumes"),
    ],
)
def test_bad_hosts_are_refused(hosts, message):
    with pytest.raises(WorkloadError, match=message):
        render_vdbench(get_workload("RndRead"), ["/mnt/a"], hosts)


def test_a_host_name_vdbench_cannot_use_is_refused_clearly(tmp_path):
    inv = inventory(tmp_path, "{vm.1: 10.0.0.4, vm2: 10.0.0.5}")
    with pytest.raises(AnfperfError, match=r"host vm\.1: not usable in a Vdbench run"):
        plan_workloads([get_workload("RndRead")], inv, tool="vdbench")


def test_resume_renders_the_slaves_from_the_current_inventory(tmp_path):
    old = inventory(tmp_path, "{vm1: 10.0.0.4, vm2: 10.0.0.9}")
    plan = plan_workloads([get_workload("RndRead")], old, tool="vdbench", run_id="r")
    data = {
        "run_id": "r", "plan_options": dict(plan.options), "hosts": dict.fromkeys(plan.hosts),
        "steps": [{"name": s.name, "workload": s.workload, "tasks": dict.fromkeys(s.tasks)}
                  for s in plan.steps],
    }  # fmt: skip
    fixed = inventory(tmp_path, "{vm1: 10.0.0.4, vm2: 10.0.0.5}")
    again = plan_from_manifest(data, fixed)
    parm = again.steps[0].tasks["vm1"].files["RndRead.parm"]
    assert "hd=vm2,system=10.0.0.5" in parm and "10.0.0.9" not in parm
    with pytest.raises(AnfperfError, match="lacks vm2"):
        plan_from_manifest(data, inventory(tmp_path, "{vm1: 10.0.0.4}"))


def test_the_run_time_of_a_vdbench_curve_counts_its_max_rate_run():
    curve = get_workload("RndReadCurve")  # 7 points at one thread count
    per_run = curve.warmup_s + curve.duration_s
    assert expected_duration_s(curve) == 7 * per_run  # fio: the curve's points only
    assert expected_duration_s(curve, "vdbench") == 8 * per_run  # before: 7
    flat = get_workload("RndRead")
    assert expected_duration_s(flat, "vdbench") == expected_duration_s(flat)


# -- why Vdbench failed ---------------------------------------------------------------------


def test_a_slave_that_never_started_is_named_with_its_own_words():
    folder = CONSOLE / "slave_not_started"
    text = (folder / "RndRead.stdout.log").read_text() + (folder / "RndRead.stderr.log").read_text()
    assert (
        (folder / "RndRead.stderr.log").read_text().splitlines()[-1].strip().startswith("at Vdb.")
    )
    assert failure_reason(text, [folder / "RndRead"]) == (
        "Slave vm2-0 prematurely terminated: bash: line 1: /nonexistent/vdbench: "
        "No such file or directory"
    )
    # without the output folder, Vdbench's message alone
    assert failure_reason(text) == "Slave vm2-0 prematurely terminated"


def test_a_missing_lun_and_a_bad_parameter_file_are_explained():
    text = (CONSOLE / "lun_missing.log").read_text()
    assert failure_reason(text) == (
        "lun=/tmp/vd3/nodir/file-1-1 does not exist or is too small. host=localhost; "
        "Slave localhost-0 aborting: Open for lun '/tmp/vd3/nodir/file-1-1' failed; "
        "Slave localhost-0 prematurely terminated"
    )
    text = (CONSOLE / "parm_error.log").read_text()
    assert failure_reason(text) == "Exception during reading of input parameter file(s)"
    assert failure_reason("Vdbench execution completed successfully.\n") is None


# -- the Vdbench version ------------------------------------------------------------------------


def fake_install(folder: Path, *, jar: str | None, readme: str | None) -> Path:
    """An install folder with a launcher script and the files Vdbench ships its version in."""
    folder.mkdir()
    launcher = folder / "vdbench"
    launcher.write_text("#!/bin/sh\nexit 0\n")
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    if jar is not None:
        with zipfile.ZipFile(folder / "vdbench.jar", "w") as zf:
            zf.writestr("Vdb/Dist.class", b"\xca\xfe\xba\xbe\x00\x01" + jar.encode() + b"\x00")
    if readme is not None:
        (folder / "readme.txt").write_text(readme)
    return launcher


def version_of(launcher: Path) -> str | None:
    script = preflight_script(workdir=str(launcher.parent), vdbench=str(launcher))
    return parse_facts(LocalConnection().run(script, timeout=30).stdout)["vdbench_version"]


def test_the_vdbench_version_comes_from_the_install(tmp_path):
    # before: 'present' whenever the path did not tell
    both = fake_install(tmp_path / "a", jar="vdbench50407", readme="Readme file for vdbench50406:")
    # the jar when the host has unzip, else the readme next to it
    assert version_of(both) == ("vdbench50407" if shutil.which("unzip") else "vdbench50406")
    readme = fake_install(tmp_path / "b", jar=None, readme="Readme file for vdbench50403: Mon")
    assert version_of(readme) == "vdbench50403"
    bare = fake_install(tmp_path / "vdbench50402", jar=None, readme=None)
    assert version_of(bare) == "vdbench50402"  # the folder's name
    unknown = fake_install(tmp_path / "c", jar=None, readme=None)
    assert version_of(unknown) == "present"


def test_anfperf_vdbench_may_name_the_folder_or_the_launcher(tmp_path):
    launcher = fake_install(tmp_path / "v", jar=None, readme=None)
    assert vdbench_launcher(str(tmp_path / "v")) == launcher
    assert vdbench_launcher(str(launcher)) == launcher
    with pytest.raises(pytest.fail.Exception, match="neither a Vdbench folder"):
        vdbench_launcher(str(tmp_path / "missing"))
    (tmp_path / "v" / "readme.txt").write_text("x")
    with pytest.raises(pytest.fail.Exception, match="neither a Vdbench folder"):
        vdbench_launcher(str(tmp_path / "v" / "readme.txt"))
    assert os.access(launcher, os.X_OK)
