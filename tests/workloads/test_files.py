"""render_files / catalogue_table: what `anfperf workloads` prints and writes."""

from __future__ import annotations

import io

import pytest

from anfperf.tools import render_files
from anfperf.workloads import CATALOGUE, WorkloadError, catalogue_table, load_workloads


def test_fio_files_per_host_and_a_curve_without_max_is_reported_not_dropped():
    chosen = [CATALOGUE["RndRead4k"], CATALOGUE["RndReadCurve"]]
    files, errors = render_files(chosen, "fio", ["/mnt/vdb1"], ["vm1", "vm2"])
    assert sorted(files) == ["RndRead4k-vm1.fio", "RndRead4k-vm2.fio"]
    assert list(errors) == ["RndReadCurve"] and "max_iops" in errors["RndReadCurve"].reason
    files, errors = render_files(chosen, "fio", ["/mnt/vdb1"], ["vm1"], max_iops=90_000)
    assert not errors and "rate_iops" in files["RndReadCurve-vm1.fio"]


def test_vdbench_file_holds_every_host_and_yaml_holds_every_workload():
    files, _ = render_files([CATALOGUE["SeqMix"]], "vdbench", ["/mnt/vdb1"], ["vm1", "vm2"])
    text = files["SeqMix.parm"]
    assert "hd=vm1" in text and "hd=vm2" in text
    files, _ = render_files(list(CATALOGUE.values()), "yaml", ["/mnt/vdb1"])
    assert list(files) == ["workloads.yml"]
    assert [w.name for w in load_workloads(io.StringIO(files["workloads.yml"]))] == list(CATALOGUE)
    with pytest.raises(WorkloadError, match="unknown tool"):
        render_files([CATALOGUE["SeqMix"]], "iozone", ["/mnt/vdb1"])


def test_catalogue_table_states_the_seed_thread_counts():
    table = catalogue_table([CATALOGUE["SeqWrite"], CATALOGUE["RndReadQD"]]).set_index("name")
    assert table.loc["SeqWrite", "concurrency"] == "threads 26/32/40"
    assert table.loc["RndReadQD", "concurrency"] == "qd 1/2/4/8/16/32/64/128 x 4 jobs"
