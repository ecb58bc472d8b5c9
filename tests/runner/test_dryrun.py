"""`anfperf run --dry-run`: the plan of a first fleet run (hosts, files and space per volume,
duration) without contacting a host, and the example inventory it is shown with."""

from __future__ import annotations

import pytest

from anfperf.cli import main
from anfperf.runner import load_inventory, local_inventory
from anfperf.runner.dryrun import dry_run
from anfperf.runner.workflow import plan_run
from tests.conftest import TESTS

EXAMPLE = TESTS.parent / "examples" / "inventory.yml"
SMALL = ["--set", "duration_s=1", "--set", "warmup_s=0", "--set", "file_size_gib=0.004",
         "--set", "numjobs=3", "--set", "iodepth=2"]  # fmt: skip


def test_the_example_inventory_loads():
    inventory = load_inventory(EXAMPLE)
    assert inventory.names == ["vm1", "vm2", "vm3", "vm4"]
    vm3, vm4 = inventory.hosts[2], inventory.hosts[3]
    assert vm3.jump is not None and vm3.user == "azureuser"
    assert dict(vm4.volumes) == {"vol1": "/mnt/a1", "vol2": "/mnt/anf2"}


def test_a_dry_run_says_what_a_fleet_run_would_write_and_contacts_nobody(tmp_path, capsys):
    # the example's addresses are not reachable from here: a connection attempt would fail
    argv = ["run", "RndRead4k", "--hosts", str(EXAMPLE), "--out", str(tmp_path / "raw")]
    assert main([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "nothing is started, no host is contacted" in out
    assert "fio, 1 workload on 4 hosts, about 10m00s of workload time" in out
    assert "vm3: azureuser@10.0.0.6 via vm1; volumes /mnt/anf1, /mnt/anf2" in out
    # RndRead4k: iodepth 128 x numjobs 4, a 4 GiB file per job clone, on both volumes
    assert "RndRead4k: 1 load point, 10m00s; 4 x 4 GiB files per host and volume" in out
    assert "each host writes 16 GiB to each of its volumes, 64 GiB on a volume 4 hosts share" in out
    assert "128 GiB in all" in out
    assert not (tmp_path / "raw").exists()
    # sizes past 1,000 TiB in whole units (they were '4.88e+03 TiB')
    assert main([*argv, "--dry-run", "--set", "file_size_gib=5000000"]) == 0
    out = capsys.readouterr().out
    assert "4 x 4,883 TiB files per host and volume" in out and "156,250 TiB in all" in out
    assert "e+0" not in out


def test_a_dry_run_of_an_adaptive_sweep_says_its_bounds_and_budget(tmp_path, capsys):
    argv = ["run", "RndReadQD", "--volume", str(tmp_path), "--dry-run", "--adaptive", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "iodepth up to 128, until the mean latency passes 1 ms, at most 4 steps" in out
    assert main([*argv, "--set", "max_steps=6"]) == 0
    assert "at most 6 steps (each of this length)" in capsys.readouterr().out
    # a mix sweep has no objective nor highest concurrency (it was a KeyError)
    mix = ["run", "RndMix8kSweep", "--volume", str(tmp_path), "--dry-run"]
    assert main([*mix, "--set", "sweep=adaptive_mix", "--set", "read_pct=50"]) == 0
    out = capsys.readouterr().out
    assert "RndMix8kSweep-r100: 1 load point" in out
    assert "the first step of an adaptive mix sweep" in out


@pytest.mark.fio
def test_the_files_a_dry_run_announces_are_the_files_fio_makes(fio_bin, tmp_path, capsys):
    volume = tmp_path / "vol"
    volume.mkdir()
    argv = ["run", "RndRead4k", "--tool", "fio", "--volume", str(volume), "--out",
            str(tmp_path / "raw"), *SMALL]  # fmt: skip
    plan = plan_run(["RndRead4k"], local_inventory([str(volume)]), changes=SMALL[1::2])
    announced = dry_run(plan, local_inventory([str(volume)]))
    assert main(argv) == 0  # a real run of the same plan
    made = sorted(p.stat().st_size for p in volume.iterdir())
    assert len(made) == announced.steps[0]["files_per_volume"] == 3
    assert sum(made) == announced.data_bytes_per_volume
