"""Provenance of a real local run (the runner's manifest) and of raw files without one."""

from __future__ import annotations

import hashlib
import json
import warnings

import pytest

import anfperf
from anfperf import provenance
from tests.conftest import DATA

pytestmark = pytest.mark.fio


def test_a_runner_run_names_its_host_tools_workloads_and_inputs(local_fio_run):
    frame = anfperf.read_many([local_fio_run])
    prov = provenance.run_provenance(frame, [local_fio_run])
    manifest = json.loads((local_fio_run / "manifest.json").read_text())
    assert prov["anfperf_version"] == anfperf.__version__
    runs = prov["runs"].set_index("run_id")
    assert list(runs.index) == [manifest["run_id"]]
    assert runs.iloc[0]["tool"] == "fio" and runs.iloc[0]["tool_version"].startswith("fio-3")
    (host,) = prov["hosts"].itertuples()
    facts = manifest["hosts"][host.host]["facts"]
    assert (host.kernel, host.os, host.cpus) == (facts["kernel"], facts["os"], facts["cpus"])
    assert host.tool_versions == facts["fio_version"]
    assert host.nfs_mounts == "none found"  # a local disk, not NFS
    assert (host.tasks_ok, host.tasks_failed) == (2, 0)
    assert list(prov["workloads"]["name"]) == ["RndRead", "SeqWrite"]
    inputs = prov["inputs"].set_index("path")
    for f in local_fio_run.rglob("*.json"):
        shown = str(local_fio_run / f.relative_to(local_fio_run))
        assert inputs.loc[shown, "sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
        assert inputs.loc[shown, "bytes"] == f.stat().st_size


def test_raw_files_without_a_manifest_still_have_runs_and_checksums():
    folder = DATA / "vdbench" / "MultiHostSeqMix"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([folder])
    prov = provenance.run_provenance(frame, [folder])
    run = prov["runs"].iloc[0]
    assert (run["run_id"], run["hosts"], run["tool_version"]) == (
        "MultiHostSeqMix",
        "vm1, vm2",
        frame["tool_version"].dropna().iloc[0],
    )
    assert prov["hosts"].empty and prov["workloads"].empty
    assert len(prov["inputs"]) == sum(1 for p in folder.iterdir() if p.is_file())
