"""Hosts that do not answer SSH, for real (issue 33, items 7, 9, 10): a listening socket that
never greets, one that greets and then stalls, and many silent hosts among real sshd; what
`anfperf preflight` and `anfperf run --force` say of them, how often they are connected to, and
what the run's log keeps of their tracebacks."""

from __future__ import annotations

import re
import socket
import threading

import pytest

from anfperf.cli import main
from anfperf.runner import Manifest, load_inventory, run_workloads, runlog
from tests.runner.sshd import SilentHosts, SshFleet
from tests.runner.test_cli_run import TINY

pytestmark = pytest.mark.ssh

#: What an OpenSSH 9.2 server says first.
BANNER = b"SSH-2.0-OpenSSH_9.2\r\n"
#: The start of a record in run.log (runlog._FORMAT): time, level, [thread].
RECORD_START = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ \[")


class Listener:
    """A TCP server on a loopback address that accepts every connection, counts it, sends
    `greeting` (nothing: an SSH server that never greets) and then never says anything more."""

    def __init__(self, address: str = "127.0.0.1", greeting: bytes = b""):
        self.sock = socket.create_server((address, 0))
        self.address, self.port = self.sock.getsockname()[:2]
        self.greeting = greeting
        self.accepts = 0
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed: the test is over
                return
            self.accepts += 1
            self.held.append(conn)
            if self.greeting:
                conn.sendall(self.greeting)

    @property
    def host(self) -> dict:
        return {"hostname": self.address, "port": self.port}

    def __enter__(self) -> Listener:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.mark.fio
def test_force_connects_once_to_a_host_preflight_found_unreachable(
    ssh_fleet, tmp_path, capsys, fio_bin
):
    (tmp_path / "data").mkdir()
    with Listener() as silent:
        inv = ssh_fleet.inventory(
            tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), extra_hosts={"dead": silent.host},
            volumes={"data": str(tmp_path / "data")}, connect_timeout_s=1,
        )  # fmt: skip
        args = ["run", "RndRead", "--hosts", str(inv), "--out", str(tmp_path / "raw"),
                "--force", "--no-progress", *TINY]  # fmt: skip
        assert main([*args, "--run-id", "once"]) == 1  # partial: the silent host failed
        # before: 2 (preflight, then the run again: each dead host cost its timeout twice)
        assert silent.accepts == 1
        out = capsys.readouterr()
        assert "dead: UNREACHABLE\n  PROBLEM: unreachable: no SSH banner within 1 s" in out.out
        assert (
            "RndRead on dead: unreachable: no SSH banner within 1 s (its SSH server does not "
            "answer) (at preflight; not tried again)"
        ) in out.err
        manifest = Manifest.load(tmp_path / "raw" / "once")
        assert manifest.task(0, "vm1")["status"] == manifest.task(0, "vm2")["status"] == "ok"
        dead = manifest.task(0, "dead")
        assert dead["status"] == "unreachable"
        assert dead["reason"].startswith("no SSH banner within 1 s")
        assert manifest.data["hosts"]["dead"]["problems"] == [
            "unreachable: no SSH banner within 1 s (its SSH server does not answer)"
        ]

        assert main([*args, "--run-id", "again", "--retry-unreachable"]) == 1
        assert silent.accepts == 3  # preflight, and the run tried it again
    dead = Manifest.load(tmp_path / "raw" / "again").task(0, "dead")
    assert dead["status"] == "unreachable"
    assert dead["reason"] == "no SSH banner within 1 s (its SSH server does not answer)"


def test_a_host_that_greets_then_stalls_is_said_so(ssh_fleet, tmp_path, capsys):
    said = "SSH banner received, then no key exchange within 1 s"
    with Listener(greeting=BANNER) as stalled:
        inv = ssh_fleet.inventory(
            tmp_path / "inv.yml", workdir=str(tmp_path / "wd"),
            extra_hosts={"stalled": stalled.host}, volumes={"data": str(tmp_path)},
            connect_timeout_s=1,
        )  # fmt: skip
        assert main(["preflight", "--hosts", str(inv)]) == 1
        # before: 'unreachable: SSHException: No existing session'
        assert f"stalled: UNREACHABLE\n  PROBLEM: unreachable: {said}\n" in capsys.readouterr().out
        inventory = load_inventory(inv).select(["stalled"])
        for run_id, retry in (("once", False), ("again", True)):
            manifest = run_workloads(
                ["RndRead"], inventory, tmp_path / "raw", run_id=run_id, force=True,
                retry_unreachable=retry, changes={"duration_s": 1},
            )  # fmt: skip
            task = manifest.task(0, "stalled")
            assert task["status"] == "unreachable"
            # from preflight, or from the run's own attempt
            assert task["reason"].startswith(said), task["reason"]
            assert manifest.data["hosts"]["stalled"]["problems"] == [f"unreachable: {said}"]
        assert stalled.accepts == 4  # preflight; the run's preflight; again with the run


def test_the_run_log_keeps_each_hosts_first_failure_whole(tmp_path, monkeypatch):
    n = 120
    # a bound far below what the hosts log (about 22 records each): before, the log kept the
    # last 40 records, starting mid-traceback, and the other hosts' tracebacks were dropped
    monkeypatch.setattr(runlog, "HELD_RECORDS", 40)
    with SilentHosts(SilentHosts.loopback(n, prefix="127.82")) as silent:
        keys = SshFleet(tmp_path / "keys", 0).start()  # a client key and known_hosts, no server
        inventory = load_inventory(
            keys.inventory(
                tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), extra_hosts=silent.hosts(),
                volumes={"data": str(tmp_path)}, connect_timeout_s=1,
            )
        )  # fmt: skip
        manifest = run_workloads(
            ["RndRead"], inventory, tmp_path / "raw", run_id="many", force=True,
            changes={"duration_s": 1}, max_parallel_hosts=n,
        )  # fmt: skip
    assert {t["status"] for _, _, t in manifest.tasks()} == {"unreachable"}
    lines = (manifest.run_dir / "run.log").read_text().splitlines()
    assert RECORD_START.match(lines[0]), lines[0]
    records = [_record(line) for line in lines]
    messages = [m for _, m in records]
    # never mid-record: paramiko logs a failure as an 'Exception' line, then its traceback a
    # line a record; before, the log began inside some host's traceback
    assert messages[0].startswith("Exception (client): "), lines[0]
    assert sum(m.startswith("Exception (client): Error reading SSH") for m in messages) == n
    assert messages.count("Traceback (most recent call last):") == 2 * n
    for host in inventory.names:
        logger = f"paramiko.transport.{host}"
        at = [i for i, (name, _) in enumerate(records) if name == logger]
        assert at, f"no record of {host}"
        block = [records[i][1] for i in at]
        assert at == list(range(at[0], at[0] + len(at))), host  # one block, in a row
        assert block[0].startswith("Exception (client): Error reading SSH protocol banner")
        assert block.count("Traceback (most recent call last):") == 2, (host, block)
        assert block[-2].startswith("paramiko.ssh_exception.SSHException: Error reading SSH")


def _record(line: str) -> tuple[str | None, str]:
    """(logger, message) of a run.log line."""
    m = re.match(r".*? [A-Z]+ \[[^]]*\] (\S+): ?(.*)$", line)
    return (m[1], m[2]) if m else (None, line)
