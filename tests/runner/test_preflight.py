"""Preflight: parsing real mount lines and real machine facts; reports over a real sshd."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fabric import ThreadingGroup

from anfperf.runner import LocalConnection, format_reports, load_inventory, preflight
from anfperf.runner.preflight import (
    azure_vm_size,
    check,
    nfs_options,
    parse_mounts,
    preflight_inventory,
    preflight_script,
)

# Real /proc/mounts lines (NFSv3 with nconnect, nocto and actimeo=600, which the kernel shows as
# the four ac* values; and a plain client mount) quoted by Benjamin Maynard on the linux-nfs
# list, "Re: [PATCH v10 3/5] NFS: Convert buffered read paths to use netfs when fscache is
# enabled", November 2022 (wrapped there after the fstype).
REEXPORT = (
    "10.0.0.49:/files /srv/nfs/files nfs rw,noatime,vers=3,rsize=1048576,wsize=1048576,"
    "namlen=255,acregmin=600,acregmax=600,acdirmin=600,acdirmax=600,hard,nocto,proto=tcp,"
    "nconnect=16,timeo=600,retrans=2,sec=sys,mountaddr=10.0.0.49,mountvers=3,mountport=37485,"
    "mountproto=tcp,fsc,local_lock=none,addr=10.0.0.49 0 0"
)
CLIENT = (
    "10.0.0.3:/files /mnt/nfs nfs rw,relatime,vers=3,rsize=1048576,wsize=1048576,namlen=255,"
    "hard,proto=tcp,timeo=600,retrans=2,sec=sys,mountaddr=10.0.0.3,mountvers=3,mountport=20048,"
    "mountproto=tcp,local_lock=none,addr=10.0.0.3 0 0"
)


def test_nfs_mount_options_from_real_proc_mounts_lines():
    text = Path("/proc/mounts").read_text() + REEXPORT + "\n" + CLIENT + "\n"
    mounts = {m["mount_point"]: m for m in parse_mounts(text)}
    assert set(mounts) == {"/srv/nfs/files", "/mnt/nfs"}  # this machine mounts no NFS
    m = mounts["/srv/nfs/files"]
    assert (m["source"], m["fstype"], m["vers"]) == ("10.0.0.49:/files", "nfs", "3")
    assert (m["nconnect"], m["rsize"], m["wsize"], m["actimeo"]) == (16, 1048576, 1048576, 600)
    assert m["nocto"] and m["hard"] and m["proto"] == "tcp"
    c = mounts["/mnt/nfs"]
    assert c["nconnect"] is None and not c["nocto"] and c["actimeo"] is None and c["hard"]


def test_soft_and_uneven_attribute_caches():
    opts = nfs_options("rw,vers=4.1,soft,acregmin=3,acregmax=60,acdirmin=30,acdirmax=60")
    assert opts["hard"] is False and opts["actimeo"] is None and opts["vers"] == "4.1"


def test_mount_points_with_blanks_are_unescaped():
    # /proc/mounts writes a blank in a mount point as \040
    line = CLIENT.replace("/mnt/nfs", "/mnt/my\\040vol")
    assert parse_mounts(line)[0]["mount_point"] == "/mnt/my vol"


def test_checks_warn_about_missing_nconnect_and_refuse_missing_volumes():
    facts = {
        "fio_version": "fio-3.33", "setsid": True, "workdir_writable": True,
        "mounts": parse_mounts(CLIENT),
        "volumes": {"/mnt/nfs": True, "/mnt/gone": False},
        "free_kib": {"/mnt/nfs": 1000},
    }  # fmt: skip
    problems, warnings = check(
        facts, volumes={"v1": "/mnt/nfs", "v2": "/mnt/gone"}, tool="fio", need_kib=5000
    )
    assert "volume v2: /mnt/gone does not exist" in problems
    assert any("1000 KiB free" in p for p in problems)
    assert "volume v1: nconnect=None (recommended 8)" in warnings
    problems, _ = check({**facts, "fio_version": None}, tool="fio")
    assert "fio is not installed (or not on PATH)" in problems


def test_azure_vm_size_from_the_documented_answer_else_unknown():
    # compute fields of the sample response in Microsoft's "Azure Instance Metadata Service"
    # article (learn.microsoft.com/azure/virtual-machines/instance-metadata-service)
    sample = (
        '{"compute": {"vmId": "02aab8a4-74ef-476e-8182-f6d2ba4166a6", '
        '"vmScaleSetName": "crpteste9vflji9", "vmSize": "Standard_A3", "zone": ""}}'
    )
    assert azure_vm_size(sample) == "Standard_A3"
    for answer in ("", "resolve_deny: denied destination", "<html>404</html>", '{"compute": 1}'):
        assert azure_vm_size(answer) == "unknown"


def _truth() -> dict:
    """This machine's facts, read independently of anfperf."""
    fio = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "kernel": os.uname().release,
        "cpus": len(os.sched_getaffinity(0)),
        "fio_version": fio,
        "rmem_max": int(Path("/proc/sys/net/core/rmem_max").read_text()),
        "tcp_rmem": " ".join(Path("/proc/sys/net/ipv4/tcp_rmem").read_text().split()),
    }


def test_local_preflight_reads_this_machine(tmp_path, fio_bin):
    reports = preflight(
        {"here": LocalConnection("here")}, volumes={"data": str(tmp_path)}, workdir=str(tmp_path)
    )
    r = reports["here"]
    truth = _truth()
    f = r.facts
    assert f["reachable"] and f["kernel"] == truth["kernel"] and f["cpus"] == truth["cpus"]
    assert f["fio_version"] == truth["fio_version"]
    assert f["sysctl"]["net.core.rmem_max"] == truth["rmem_max"]
    assert f["sysctl"]["net.ipv4.tcp_rmem"] == truth["tcp_rmem"]
    st = os.statvfs(tmp_path)
    assert f["free_kib"][str(tmp_path)] == pytest.approx(st.f_bavail * st.f_frsize / 1024, rel=0.01)
    assert f["azure_vm_size"]  # 'unknown' off Azure, the size on Azure
    assert abs(f["clock_offset_s"]) <= f["clock_uncertainty_s"] + 0.05  # same clock
    assert r.ok and f"volume data: {tmp_path} is not an NFS mount point" in r.warnings


def test_script_quotes_hostile_paths(tmp_path):
    evil = tmp_path / "x$(touch pwned);`touch pwned2`'"
    evil.mkdir()
    script = preflight_script(volumes={"v": str(evil)}, workdir=str(evil / "wd"))
    out = LocalConnection().run(script, timeout=30)
    assert not (Path.cwd() / "pwned").exists() and not (tmp_path / "pwned2").exists()
    assert f"dir {evil}" in out.stdout


@pytest.mark.ssh
def test_preflight_over_ssh_on_every_host(ssh_fleet, tmp_path, fio_bin):
    inv = load_inventory(
        ssh_fleet.inventory(
            tmp_path / "inv.yml", workdir=str(tmp_path / "wd"),
            volumes={"vol1": str(tmp_path), "vol2": str(tmp_path / "absent")},
        )
    )  # fmt: skip
    reports = preflight_inventory(inv, tool="fio")
    truth = _truth()
    assert list(reports) == ["vm1", "vm2"]
    for r in reports.values():
        assert r.facts["reachable"] and r.facts["fio_version"] == truth["fio_version"]
        assert r.problems == [f"volume vol2: {tmp_path / 'absent'} does not exist"]
    text = format_reports(reports)
    assert "vm1: fio-3" in text and f"PROBLEM: volume vol2: {tmp_path / 'absent'}" in text
    # a Fabric group works as well (hosts named by their inventory names)
    group = ThreadingGroup.from_connections(list(inv.connect().values()))
    again = preflight(group, volumes={"vol1": str(tmp_path)}, tool="fio")
    assert list(again) == ["vm1", "vm2"] and all(r.ok for r in again.values())
    group.close()


@pytest.mark.ssh
@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("wrong_key", "authentication refused"),
        ("unknown_host_key", "host key unknown"),
        ("changed_host_key", "does not match known_hosts"),
        ("closed_port", "unreachable: connection refused"),
    ],
)
def test_preflight_reports_unreachable_hosts(ssh_fleet, tmp_path, change, reason):
    inv_path = ssh_fleet.inventory(tmp_path / "inv.yml")
    text = inv_path.read_text()
    vm1 = ssh_fleet.servers[0]
    if change == "wrong_key":
        text = text.replace(str(ssh_fleet.client_key), str(ssh_fleet.wrong_key))
    elif change == "unknown_host_key":
        (tmp_path / "empty").write_text("")
        text = text.replace(str(ssh_fleet.known_hosts), str(tmp_path / "empty"))
    elif change == "changed_host_key":
        # vm2's key recorded for vm1's address: a host that changed its key
        other = ssh_fleet.servers[1].known_hosts_line.split(" ", 1)[1]
        (tmp_path / "kh").write_text(f"[{vm1.address}]:{vm1.port} {other}")
        text = text.replace(str(ssh_fleet.known_hosts), str(tmp_path / "kh"))
    else:
        text = text.replace(f"port: {vm1.port}", f"port: {_closed_port(vm1.address)}", 1)
    inv_path.write_text(text)
    reports = preflight_inventory(load_inventory(inv_path).select(["vm1"]))
    assert not reports["vm1"].ok and not reports["vm1"].facts["reachable"]
    assert reason in reports["vm1"].problems[0]


def _closed_port(address: str) -> int:
    from tests.runner.sshd import free_port

    return free_port(address)  # free right now: nothing listens there


@pytest.mark.ssh
def test_trust_on_first_use_records_the_keys(ssh_fleet, tmp_path):
    known = tmp_path / "known_hosts"
    inv_path = ssh_fleet.inventory(tmp_path / "inv.yml", trust_on_first_use=True)
    inv_path.write_text(inv_path.read_text().replace(str(ssh_fleet.known_hosts), str(known)))
    reports = preflight_inventory(load_inventory(inv_path))
    assert all(r.facts["reachable"] for r in reports.values())
    recorded = known.read_text()
    for server in ssh_fleet.servers:  # both keys kept, though first met in parallel
        assert server.known_hosts_line.split()[2] in recorded


@pytest.mark.ssh
@pytest.mark.vdbench
def test_vdbench_named_by_its_folder_is_refused_with_the_script_to_name(ssh_fleet, tmp_path):
    # issue 24, item 11: 'vdbench: /opt/vdbench' got "set 'vdbench:' in the inventory" over
    # SSH (bash finds no folder) and no problem at all locally (dash takes any path), so the
    # run then failed
    from tests.conftest import vdbench_launcher

    launcher = vdbench_launcher()
    folder = launcher.parent
    not_executable = tmp_path / "vdbench"
    not_executable.write_text("#!/bin/sh\n")
    here = {"local": True}
    for vdbench, problem in [
        (str(folder), f"{folder} is a folder: name the vdbench script in it, {launcher}"),
        (f"{folder}/", f"{folder}/ is a folder: name the vdbench script in it, {launcher}"),
        (str(not_executable), f"{not_executable} is not an executable file: set 'vdbench:'"),
        (str(tmp_path / "gone"), f"{tmp_path / 'gone'} does not exist on the host: set"),
    ]:
        inv_path = ssh_fleet.inventory(
            tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), vdbench=vdbench,
            extra_hosts={"here": here},
        )  # fmt: skip
        reports = preflight_inventory(load_inventory(inv_path), tool="vdbench")
        assert list(reports) == ["vm1", "vm2", "here"]
        for name, r in reports.items():
            assert r.facts["reachable"] and r.facts["vdbench_path"] is None, (name, vdbench)
            (said,) = [p for p in r.problems if "vdbench" in p]
            assert said.startswith(problem), (name, said)
    # the script itself: found, with the install's version, on every host
    inv_path = ssh_fleet.inventory(
        tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), vdbench=str(launcher),
        extra_hosts={"here": here},
    )  # fmt: skip
    reports = preflight_inventory(load_inventory(inv_path), tool="vdbench")
    for r in reports.values():
        assert r.ok, r.problems
        assert r.facts["vdbench_path"] == str(launcher)
        assert r.facts["vdbench_version"].startswith("vdbench5")


#: Preflight of a host at a closed local port, run with this process out of open files: the
#: limit lowered for real (soft and hard) and filled up to it; prints the reports.
_OUT_OF_FILES = """
import os, resource, socket, sys
from anfperf.runner import format_reports, load_inventory, preflight_inventory
folder = sys.argv[1]
probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()  # nothing listens there now
with open(os.path.join(folder, "inv.yml"), "w") as fh:
    fh.write(f"known_hosts: {folder}/known_hosts\\nhosts:\\n  vm1: {{hostname: 127.0.0.1, port: {port}}}\\n")
inventory = load_inventory(os.path.join(folder, "inv.yml"))
conns = inventory.connect()
import paramiko.client, paramiko.transport  # loaded before the files run out
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
print(format_reports(preflight_inventory(inventory, conns, timeout_s=5)))
"""


def test_preflight_out_of_open_files_blames_this_machine_not_the_host(tmp_path):
    # issue 33, item 13: 'vm1: UNREACHABLE' when it was the controller that had no file left
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    out = subprocess.run(
        [sys.executable, "-c", _OUT_OF_FILES, str(tmp_path)], capture_output=True, text=True,
        env=env, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert out.splitlines() == [
        "vm1: NOT CHECKED (this machine ran out of open files)",
        "  PROBLEM: not checked: this machine ran out of open files (limit 64): raise it "
        "(ulimit -n) or connect to fewer hosts at once (--parallel)",
    ]
