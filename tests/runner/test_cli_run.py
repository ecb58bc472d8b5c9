"""`anfperf preflight` and `anfperf run` against real sshd servers and real fio."""

from __future__ import annotations

import json

import pytest
import yaml

from anfperf.cli import main
from anfperf.runner import Manifest

pytestmark = [pytest.mark.ssh, pytest.mark.fio]

TINY = ["--set", "duration_s=1", "--set", "warmup_s=0", "--set", "file_size_gib=0.004",
        "--set", "threads=2"]  # fmt: skip


def test_preflight_command(ssh_fleet, tmp_path, capsys):
    inv = ssh_fleet.inventory(tmp_path / "inv.yml", volumes={"data": str(tmp_path)})
    assert main(["preflight", "--hosts", str(inv)]) == 0
    out = capsys.readouterr().out
    assert "vm1: fio-3" in out and "vm2: fio-3" in out and "2 of 2 hosts ready" in out
    assert main(["preflight", "--hosts", str(inv), "--volume", str(tmp_path / "gone")]) == 1
    out = capsys.readouterr().out
    assert f"PROBLEM: volume gone: {tmp_path / 'gone'} does not exist" in out
    assert "problems on vm1, vm2" in out


def test_run_command_fails_one_host_then_resumes_it(ssh_fleet, tmp_path, capsys, fio_bin):
    out_dir = tmp_path / "raw"
    inv = ssh_fleet.inventory(
        tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), volumes={"data": str(tmp_path)}
    )
    doc = yaml.safe_load(inv.read_text())
    good_port = doc["hosts"]["vm2"]["port"]
    doc["hosts"]["vm2"]["port"] = 1  # nothing listens there
    inv.write_text(yaml.safe_dump(doc))
    args = ["run", "RndRead", "--hosts", str(inv), "--out", str(out_dir), *TINY]

    assert main(args) == 1  # preflight finds vm2 unreachable: nothing runs
    captured = capsys.readouterr()
    assert "vm2: UNREACHABLE" in captured.out and "nothing ran" in captured.err
    assert not out_dir.exists()

    assert main([*args, "--force"]) == 1  # vm1 runs, vm2 is recorded as unreachable
    captured = capsys.readouterr()
    (run_dir,) = out_dir.iterdir()
    assert f"anfperf run --resume {run_dir.name}" in captured.out
    assert "RndRead on vm2: unreachable: connection refused" in captured.err
    manifest = Manifest.load(run_dir)
    assert manifest.status == "partial" and manifest.data["inventory"] == str(inv)
    assert manifest.task(0, "vm1")["status"] == "ok"

    doc["hosts"]["vm2"]["port"] = good_port  # the host is back
    inv.write_text(yaml.safe_dump(doc))
    resume = ["run", "--resume", run_dir.name, "--hosts", str(inv), "--out", str(out_dir)]
    assert main(resume) == 0
    manifest = Manifest.load(run_dir)
    assert manifest.status == "complete"
    assert [manifest.task(0, h)["attempts"] for h in ("vm1", "vm2")] == [1, 2]
    assert len(json.loads(manifest.path.read_text())["resumed"]) == 1
    capsys.readouterr()
    assert main(["ingest", str(run_dir)]) == 0
    assert run_dir.name in capsys.readouterr().out


def test_run_command_usage_errors(tmp_path, capsys):
    local = ["--volume", str(tmp_path), "--out", str(tmp_path)]  # this machine, no SSH
    assert main(["run", *local]) == 2
    assert "name the workloads" in capsys.readouterr().err
    assert main(["run", "RndRaed", *local]) == 2
    assert "did you mean RndRead" in capsys.readouterr().err
    assert main(["run", "RndRead", "--set", "duration_s", *local]) == 2
    assert main(["run", "--resume", "no-such-run", *local]) == 2
    assert "no-such-run/manifest.json: no such file" in capsys.readouterr().err


def test_run_verbose_after_the_command_logs_every_host_event(ssh_fleet, tmp_path, fio_bin):
    import subprocess
    import sys

    inv = ssh_fleet.inventory(
        tmp_path / "inv.yml", workdir=str(tmp_path / "wd"), volumes={"data": str(tmp_path)}
    )
    argv = ["run", "RndRead", "--hosts", str(inv), "--out", str(tmp_path / "raw"), *TINY, "-v"]
    proc = subprocess.run([sys.executable, "-m", "anfperf.cli", *argv], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for host in ("vm1", "vm2"):  # each host's start and its end, on stderr
        assert f"INFO {host}: RndRead: started" in proc.stderr
        assert f"INFO {host}: RndRead: ok" in proc.stderr
