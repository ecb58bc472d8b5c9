"""Multi-host runs between network namespaces with addresses of their own (tests/runner/netns.py).

fio runs over SSH on two namespaced hosts through the runner's public API and is ingested; the
namespaces reach each other by SSH as the VMs of a fleet do (what a Vdbench master needs); a
real Vdbench multi-host run between them runs when ANFPERF_VDBENCH names an install. The
namespace machinery itself is tested: teardown leaves nothing even when a test fails, and what
a killed session left is removed by the next one.
"""

from __future__ import annotations

import getpass
import ipaddress
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from anfperf.ingest import read_many, read_vdbench
from anfperf.runner import (
    HostTask,
    RunPlan,
    RunStep,
    close_all,
    load_inventory,
    plan_workloads,
    preflight_inventory,
    resume_run,
    run_inventory,
)
from anfperf.workloads import get_workload
from tests.conftest import DATA, DROP_CAPS, vdbench_interval_lines, vdbench_launcher
from tests.runner.netns import (
    ETC_NETNS,
    NetnsFleet,
    NetnsLab,
    cleanup_stale,
    ip,
    links,
    namespaces,
    netns_missing,
    used_networks,
)

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.ssh


def tiny(name: str = "RndRead", **changes):
    """A catalogue workload scaled down to a second on a 4 MiB file."""
    base = {"duration_s": 1, "warmup_s": 0, "file_size_gib": 4 / 1024, "threads": 2}
    return get_workload(name).replace(**{**base, **changes})


def json_iops(path: Path) -> float:
    """Read IOPS of every job in a fio JSON output, read with json alone."""
    text = path.read_text()
    doc = json.loads(text[text.index("{") :])
    return sum(job["read"]["iops"] for job in doc["jobs"])


def inet_addresses(text: str) -> set[str]:
    """IPv4 addresses in ``ip -4 -o addr`` output."""
    return set(re.findall(r"\binet (\d+\.\d+\.\d+\.\d+)/", text))


def eventually(check, timeout_s: float = 5.0) -> bool:
    """`check()` became true within `timeout_s` (polled)."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def gone(pid: int) -> bool:
    """The process has exited (a zombie nobody reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def check_multi_host_vdbench(
    folder: Path, hosts: dict[str, str], master: str, remote: list[str]
) -> None:
    """A multi-host Vdbench output folder is complete and has rows for every host.

    `hosts`: hd= name -> address; `master`: the master's address the slaves were told;
    `remote`: hd= names the master must have started over ssh.
    """
    assert (folder / "flatfile.html").exists() and (folder / "summary.html").exists()
    for name in hosts:
        assert (folder / f"{name}.html").exists(), f"no host report for {name}"
    logfile = (folder / "logfile.html").read_text()
    for name, address in hosts.items():
        started = re.search(rf"Starting slave: (.*) -m (\S+) .* -l {name}-0 ", logfile)
        assert started, f"slave {name} not started"
        assert started[2] == master  # the slaves connected back to a non-loopback master
        if name in remote:
            assert re.match(rf"ssh {re.escape(address)} -l \S+ ", started[1]), started[0]
        assert re.search(rf"Slave {name}-0 \(pid +\d+\) connected to master", logfile)
    frame = read_vdbench(folder)
    assert set(frame["host"]) == {"all", *hosts}
    sums = frame[frame["is_summary"] & (frame["direction"] == "total")]
    per_host = sums[sums["host"] != "all"].groupby(["job", "step"])["iops"].sum()
    everyone = sums[sums["host"] == "all"].set_index(["job", "step"])["iops"]
    assert len(everyone) and per_host.to_dict() == pytest.approx(everyone.to_dict(), rel=1e-3)


# -- runs between namespaces -----------------------------------------------------------------


@pytest.mark.fio
def test_fio_over_ssh_on_two_namespaced_hosts(netns_fleet, tmp_path, fio_bin):
    addr = dict(zip(["vm1", "vm2"], netns_fleet.addresses, strict=True))
    user = getpass.getuser()
    inv = load_inventory(
        netns_fleet.inventory(
            tmp_path / "inv.yml",
            workdir=str(tmp_path / "wd"),
            volumes={"vol1": str(tmp_path / "data")},
        )
    )
    (tmp_path / "data").mkdir()
    assert [(h.name, h.hostname, h.port) for h in inv.hosts] == [
        ("vm1", addr["vm1"], 22),
        ("vm2", addr["vm2"], 22),
    ]
    # where each host is, and whether it reaches the other by ssh as a Vdbench master must
    probe = RunStep(
        "probe",
        {
            host: HostTask(
                argv=(
                    "sh",
                    "-c",
                    'ip -4 -o addr show; echo ---; getent hosts "$(hostname)"; echo ---; '
                    'exec ssh "$1" -l "$2" ip -4 -o addr show dev eth0',
                    "sh",
                    addr[other],
                    user,
                ),
                duration_s=0,
            )  # fmt: skip
            for host, other in (("vm1", "vm2"), ("vm2", "vm1"))
        },
        tool="sh",
    )
    fio = plan_workloads([tiny()], inv)
    plan = RunPlan(steps=(probe, *fio.steps))
    manifest = run_inventory(plan, inv, tmp_path / "raw")
    assert manifest.status == "complete", manifest.failures()
    data = json.loads(manifest.path.read_text())
    for host, other in (("vm1", "vm2"), ("vm2", "vm1")):
        assert data["hosts"][host]["hostname"] == addr[host]
        out = (manifest.run_dir / host / "probe.stdout.log").read_text().split("---\n")
        # its own network: loopback and its namespaced address only, not this machine's
        assert inet_addresses(out[0]) == {"127.0.0.1", addr[host]}
        assert out[1].split() == [addr[host], socket.gethostname()]
        assert inet_addresses(out[2]) == {addr[other]}
    # the runner came in from the root namespace's bridge address, the hosts from each other's
    for server, other in zip(netns_fleet.servers, reversed(netns_fleet.addresses), strict=True):
        log = server.log.read_text()
        assert f"Accepted publickey for {user} from {netns_fleet.gateway} " in log
        assert f"Accepted publickey for {user} from {other} " in log
    # collected and ingested: hosts named by their folders, values as in the raw JSON
    frame = read_many([manifest.run_dir])
    assert set(frame["run_id"]) == {plan.run_id}
    assert set(frame["host"]) == {"vm1", "vm2"}
    for host in ("vm1", "vm2"):
        path = manifest.run_dir / host / "RndRead.json"
        rows = frame[(frame["source_file"] == str(path)) & (frame["direction"] == "read")]
        assert set(rows["host"]) == {host}
        assert rows["iops"].sum() == pytest.approx(json_iops(path))
        assert json_iops(path) > 0


@pytest.mark.vdbench
def test_vdbench_multi_host_between_namespaces(netns_fleet, tmp_path):
    launcher = vdbench_launcher()
    addr = dict(zip(["vm1", "vm2"], netns_fleet.addresses, strict=True))
    (tmp_path / "vol1").mkdir()
    inv = load_inventory(
        netns_fleet.inventory(
            tmp_path / "inv.yml",
            workdir=str(tmp_path / "wd"),
            vdbench=str(launcher),
            volumes={"vol1": str(tmp_path / "vol1")},
        )
    )
    # vm1 is the master (inside its namespace, where the host name resolves to its own
    # address); hd=vm1,vm2 on the namespaced addresses, shell=ssh: the master starts vm2's
    # slave with `ssh <address> -l <user>` and the slave connects back to the master
    plan = plan_workloads([tiny(duration_s=3, interval_s=1)], inv, tool="vdbench")
    parm = plan.steps[0].tasks["vm1"].files["RndRead.parm"]
    assert f"system={addr['vm2']}" in parm and "shell=ssh" in parm
    manifest = run_inventory(plan, inv, tmp_path / "raw")
    assert manifest.status == "complete", manifest.failures()
    folder = manifest.run_dir / "vm1" / "RndRead"
    check_multi_host_vdbench(folder, addr, master=addr["vm1"], remote=["vm2"])
    frame = read_many([manifest.run_dir])
    assert set(frame["run_id"]) == {plan.run_id} and set(frame["host"]) == {"all", "vm1", "vm2"}


@pytest.mark.vdbench
def test_a_multi_host_vdbench_run_is_shown_live_by_its_master(netns_fleet, tmp_path):
    """The master's console prints the fleet's intervals (Vdbench sums its slaves): the live
    figures are those lines, under the master's name, and the slave sends none of its own."""
    launcher = vdbench_launcher()
    (tmp_path / "vol1").mkdir()
    inv = load_inventory(
        netns_fleet.inventory(
            tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), vdbench=str(launcher),
            volumes={"vol1": str(tmp_path / "vol1")},
        )
    )  # fmt: skip
    plan = plan_workloads([tiny(duration_s=3, interval_s=1)], inv, tool="vdbench",
                          live_interval_s=1)  # fmt: skip
    assert [t.live for t in plan.steps[0].tasks.values()] == [True]
    manifest = run_inventory(plan, inv, tmp_path / "raw")
    assert manifest.status == "complete", manifest.failures()
    records = [
        json.loads(line) for line in (manifest.run_dir / "live.jsonl").read_text().splitlines()
    ]
    shown = [r for r in records if r["kind"] == "interval"]
    assert {r["host"] for r in shown} == {"vm1"}
    assert not [r for r in records if r["kind"] == "alarm"]  # the slave is not a silent host
    printed = vdbench_interval_lines(
        (manifest.run_dir / "vm1" / "RndRead" / "summary.html").read_text()
    )
    assert [(r["iops"], r["bw_mib_s"]) for r in shown] == [
        (rate, mib) for _, rate, mib, *_ in printed
    ]
    assert [r["lat_mean_ms"] for r in shown] == [resp if rate > 0 else None
                                                 for _, rate, _, _, resp in printed]  # fmt: skip
    # those lines are the two hosts' total, as ingested ('all')
    frame = read_many([manifest.run_dir])
    everyone = frame[(frame["host"] == "all") & frame["interval"].notna()
                     & (frame["direction"] == "total")]  # fmt: skip
    assert list(everyone["iops"]) == pytest.approx([rate for _, rate, *_ in printed])
    per_host = frame[(frame["host"] != "all") & frame["interval"].notna()
                     & (frame["direction"] == "total") & (frame["job"] == "RndRead")]  # fmt: skip
    assert set(per_host["host"]) == {"vm1", "vm2"}


@pytest.mark.vdbench
def test_vdbench_hosts_keep_their_names_mounts_and_corrected_addresses(netns_fleet, tmp_path):
    """Issue 9, items 9-13: inventory names (in any order) and each host's own mount points
    reach the hd= / sd= lines and the tidy frame; every host is preflighted; a slave that
    cannot start fails with Vdbench's reason; --resume renders the parameter file again from
    the corrected inventory."""
    launcher = vdbench_launcher()
    addr = netns_fleet.addresses
    mounts = {"client-b": tmp_path / "b", "client-a": tmp_path / "a"}
    for folder in mounts.values():
        folder.mkdir()

    def inventory(client_a_address: str):
        path = netns_fleet.inventory(
            tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), vdbench=str(launcher)
        )
        doc = yaml.safe_load(path.read_text())
        port = doc["hosts"]["vm1"]["port"]
        doc["hosts"] = {  # listed in reverse order of their names; client-b is the master
            "client-b": {"hostname": addr[1], "port": port, "volumes": {"v": str(mounts["client-b"])}},
            "client-a": {"hostname": client_a_address, "port": port,
                         "volumes": {"v": str(mounts["client-a"])}},
        }  # fmt: skip
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        return load_inventory(path)

    # client-a at the bridge's address, where nothing listens on port 22
    wrong = inventory(netns_fleet.gateway)
    sweep = tiny(duration_s=2, interval_s=1, threads=(1, 2), read_pct=(100, 70), run_name="{name}")
    plan = plan_workloads([sweep], wrong, tool="vdbench", run_id="names")
    assert plan.hosts == ["client-b", "client-a"] and plan.steps[0].reaches == ("client-a",)
    parm = plan.steps[0].tasks["client-b"].files["RndRead.parm"]
    assert f"hd=client-a,system={netns_fleet.gateway}" in parm
    assert f"sd=sd-2-1,host=client-a,lun={mounts['client-a']}/file-2-1" in parm
    # every host is preflighted, the slave too (before: only the master)
    conns = wrong.connect()
    try:
        reports = preflight_inventory(wrong.select(plan.hosts), conns, tool="vdbench")
    finally:
        close_all(conns)
    assert reports["client-b"].ok and reports["client-b"].facts["vdbench_version"] == "vdbench50405"
    assert "connection refused" in reports["client-a"].problems[0].lower()
    manifest = run_inventory(plan, wrong, tmp_path / "raw")
    task = manifest.task(0, "client-b")
    assert task["status"] == "failed" and task["exit_code"] == 157
    # before: "exit code 157: at Vdb.SlaveStarter.run(SlaveStarter.java:47)"
    assert "Slave client-a-0 prematurely terminated: ssh: connect to host" in task["reason"]
    assert "Connection refused" in task["reason"] and "Vdb." not in task["reason"]

    # the address corrected in the inventory takes effect on --resume
    manifest = resume_run(manifest.run_dir, inventory(addr[0]))
    task = manifest.task(0, "client-b")
    assert manifest.status == "complete", manifest.failures()
    assert f"hd=client-a,system={addr[0]}" in task["files"]["RndRead.parm"]
    folder = manifest.run_dir / "client-b" / "RndRead"
    hosts = {"client-b": addr[1], "client-a": addr[0]}
    check_multi_host_vdbench(folder, hosts, master=addr[1], remote=["client-a"])
    assert sorted(p.name for p in mounts["client-b"].iterdir()) == ["file-1-1"]
    assert sorted(p.name for p in mounts["client-a"].iterdir()) == ["file-2-1"]
    frame = read_many([manifest.run_dir])
    assert set(frame["host"]) == {"all", "client-a", "client-b"}  # before: vm1, vm2
    runs = frame[frame["is_summary"] & (frame["direction"] == "total")]
    assert set(runs["loop"]) == {"threads=1 rdpct=100", "threads=1 rdpct=70",
                                 "threads=2 rdpct=100", "threads=2 rdpct=70"}  # fmt: skip
    per_host = runs[runs["host"] != "all"]
    assert (per_host["outstanding"] == per_host["threads"]).all()  # one SD each
    total = runs[runs["host"] == "all"]
    assert (total["outstanding"] == 2 * total["threads"]).all()


def test_a_host_no_one_answers_for_is_unreachable_not_refused(netns_fleet, tmp_path):
    """An address of the lab's /24 that no namespace holds: ARP finds nobody, the kernel says
    'No route to host'. Before, every failure to reach all of a host's addresses was called
    'connection refused', which sends the user to look for a stopped sshd."""
    subnet = ipaddress.ip_network(f"{netns_fleet.gateway}/24", strict=False)
    nobody = str(subnet.network_address + 250)
    path = netns_fleet.inventory(tmp_path / "inv.yml", workdir=str(tmp_path / "wd"))
    doc = yaml.safe_load(path.read_text())
    doc["hosts"] = {"ghost": {"hostname": nobody, "port": doc["hosts"]["vm1"]["port"]}}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    inv = load_inventory(path)
    conns = inv.connect()
    try:
        reports = preflight_inventory(inv.select(["ghost"]), conns, tool="fio")
    finally:
        close_all(conns)
    (problem,) = reports["ghost"].problems
    assert problem.startswith("unreachable: No route to host ("), problem
    assert "refused" not in problem


def test_multi_host_checks_hold_for_a_real_vdbench_run():
    """The checks of the Vdbench test, on the real two-host run of the corpus (master
    10.250.0.1, hosts 10.250.0.2 and .3 over ssh: see its logfile.html)."""
    folder = DATA / "vdbench" / "MultiHostSeqMix"
    hosts = {"vm1": "10.250.0.2", "vm2": "10.250.0.3"}
    check_multi_host_vdbench(folder, hosts, master="10.250.0.1", remote=["vm1", "vm2"])
    with pytest.raises(AssertionError):
        check_multi_host_vdbench(folder, hosts, master="127.0.0.1", remote=[])


# -- the namespace machinery -----------------------------------------------------------------


def _require_netns() -> None:
    reason = netns_missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test: {reason}")
        pytest.skip(reason)


def test_teardown_leaves_nothing_even_when_the_test_fails(tmp_path):
    _require_netns()
    with pytest.raises(RuntimeError, match="the test failed"):
        with NetnsFleet(tmp_path, 1) as fleet:
            lab = fleet.lab
            sshd = fleet.servers[0].proc.pid
            # a process of a session that nobody stops, as a hung remote fio would be
            sleeper = subprocess.Popen([*lab.exec_prefix(0), "sleep", "60"])
            # in the namespace once `ip netns exec` has switched to it
            assert eventually(lambda: set(lab.pids(0)) >= {sshd, sleeper.pid})
            subnet = lab.subnet
            assert (ETC_NETNS / lab.names[0] / "hosts").exists()
            raise RuntimeError("the test failed")
    sleeper.wait(timeout=5)
    assert gone(sshd) and sleeper.returncode == -signal.SIGTERM
    assert lab.leftovers() == []
    assert not set(lab.names) & set(namespaces())
    assert not {lab.bridge, *lab.veths} & set(links())
    assert not any(net.overlaps(subnet) for net in used_networks())  # address and route gone
    lab.destroy()  # again: nothing to do, nothing left


def test_what_a_killed_session_left_is_removed_by_the_next():
    _require_netns()
    crashed = textwrap.dedent(
        f"""
        import subprocess, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from tests.runner.netns import NetnsLab
        lab = NetnsLab(1).create()
        p = subprocess.Popen([*lab.exec_prefix(0), "sleep", "60"])
        while p.pid not in lab.pids(0):
            time.sleep(0.02)
        print(lab.names[0], lab.bridge, lab.veths[0], p.pid, flush=True)
        time.sleep(60)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", crashed], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().split()
    finally:
        proc.kill()  # SIGKILL: no teardown, no atexit
        proc.wait()
    assert len(line) == 4, "the crashing session did not make its lab"
    name, bridge, veth, sleeper = line[0], line[1], line[2], int(line[3])
    assert name in namespaces() and {bridge, veth} <= set(links()) and not gone(sleeper)
    # a session whose pid came back: its own pid on a namespace it did not make
    reused = f"anfperf-{os.getpid()}-999-0"
    ip("netns", "add", reused)
    try:
        with NetnsLab(1) as lab:  # creating a lab cleans up first
            present = set(namespaces()) | set(links())
            assert not {name, bridge, veth, reused} & present
            assert lab.names[0] in present
            assert not (ETC_NETNS / name).exists()
            assert gone(sleeper)
    finally:
        cleanup_stale()
        ip("netns", "del", reused, check=False)


def test_fixture_fails_in_ci_and_skips_elsewhere_when_namespaces_cannot_be_made():
    """Without CAP_SYS_ADMIN namespaces cannot be made: the fixture fails with CI=true."""
    _require_netns()  # root, to give the capability up
    results = {}
    for ci in ("true", ""):
        env = {**os.environ, "CI": ci}
        proc = subprocess.run(
            [*DROP_CAPS, sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
             "-o", "addopts=", f"{Path(__file__)}::test_fio_over_ssh_on_two_namespaced_hosts"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        results[ci] = proc
    assert results["true"].returncode == 1, results["true"].stdout
    assert "CI must run this test: network namespaces need root" in results["true"].stdout
    assert results[""].returncode == 0, results[""].stdout
    assert "1 skipped" in results[""].stdout
    assert "network namespaces need root" in results[""].stdout


def test_capabilities_are_what_decides(tmp_path):
    """A process without capabilities is told so, even as root and in a 0700 folder."""
    _require_netns()
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from tests.runner.netns import netns_missing; print(netns_missing())"
    )
    proc = subprocess.run(
        [*DROP_CAPS, sys.executable, "-c", probe, str(ROOT)], cwd=private, capture_output=True,
        text=True, timeout=30, check=True,
    )  # fmt: skip
    assert proc.stdout.strip() == "network namespaces need root (CAP_SYS_ADMIN for ip netns add)"
    assert netns_missing() is None  # this process keeps them


def test_privilege_tests_pass_from_a_checkout_only_its_owner_can_read(tmp_path):
    """The issue a root user met: a clone under a 0700 folder (their home, a mktemp -d)."""
    _require_netns()
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(private / "anfperf")], check=True,
                   capture_output=True, timeout=60)  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
         "tests/runner/test_netns.py::test_fixture_fails_in_ci_and_skips_elsewhere_when_namespaces_cannot_be_made",
         "tests/runner/test_netns.py::test_capabilities_are_what_decides"],
        cwd=private / "anfperf", env={**os.environ, "CI": "true"}, capture_output=True,
        text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout
