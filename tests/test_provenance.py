"""Provenance of real runner runs (their manifests) and of raw files without one."""

from __future__ import annotations

import hashlib
import json
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest

import anfperf
from anfperf.analysis import provenance
from anfperf.cli import main
from anfperf.errors import AnfperfError
from anfperf.report import _params
from anfperf.runner.preflight import parse_mounts
from tests.conftest import TESTS
from tests.runner.test_preflight import CLIENT, REEXPORT

SAMPLES = TESTS.parent / "data" / "samples"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "manifest.json").read_text())


@pytest.fixture(scope="module")
def failed_run(fio_bin, tmp_path_factory) -> Path:
    """A real run whose one task failed: fio cannot lay out its file on a missing volume."""
    base = tmp_path_factory.mktemp("failed")
    args = ["run", "RndRead", "--tool", "fio", "--volume", str(base / "missing"),
            "--out", str(base / "raw"), "--set", "duration_s=1", "--set", "warmup_s=0",
            "--set", "file_size_gib=0.004", "--force"]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(args) == 1  # partial
    (run_dir,) = (base / "raw").iterdir()
    return run_dir


@pytest.mark.fio
def test_a_runner_run_states_hosts_tools_workloads_times_and_inputs(local_fio_run):
    frame = anfperf.read_many([local_fio_run])
    prov = provenance.run_provenance(frame, [local_fio_run])
    manifest = manifest_of(local_fio_run)
    (host,) = manifest["hosts"]
    tasks = [s["tasks"][host] for s in manifest["steps"]]
    assert prov["anfperf_version"] == anfperf.__version__

    runs = prov["runs"].set_index("run_id")
    assert list(runs.index) == [manifest["run_id"]]
    assert runs.iloc[0]["tool"] == "fio" and runs.iloc[0]["tool_version"] == "fio-3.33"
    assert runs.iloc[0]["workloads"] == "RndRead, SeqWrite" and runs.iloc[0]["files"] == 2
    # when the run started and ended, as the runner recorded it (fio's JSON has only its end)
    first, last = pd.Timestamp(tasks[0]["start"]), pd.Timestamp(tasks[1]["end"])
    assert (runs.iloc[0]["start"], runs.iloc[0]["end"]) == (first, last)

    (run,) = prov["manifests"].itertuples()
    assert (run.run_id, run.status, run.tools, run.hosts, run.steps) == (
        manifest["run_id"], "complete", "fio", host, 2,
    )  # fmt: skip
    assert (run.tasks_ok, run.tasks_failed) == (2, 0)
    assert run.start == pd.Timestamp(tasks[0]["start"]) and run.end == pd.Timestamp(tasks[1]["end"])
    assert run.anfperf_version == manifest["anfperf_version"]

    (h,) = prov["hosts"].itertuples()
    facts = manifest["hosts"][host]["facts"]
    assert (h.host, h.kernel, h.os, h.cpus) == (host, facts["kernel"], facts["os"], facts["cpus"])
    assert h.tool_versions == facts["fio_version"] == "fio-3.33"
    assert h.volumes == str(local_fio_run.parent.parent / "vol")
    assert h.nfs_mounts == "none found"  # a local disk, not NFS
    assert (h.tasks_ok, h.tasks_failed) == (2, 0)

    t = prov["tasks"]
    assert list(t["workload"]) == ["RndRead", "SeqWrite"] and set(t["status"]) == {"ok"}
    assert list(t["elapsed_s"]) == [task["elapsed_s"] for task in tasks]
    assert (t["end"] > t["start"]).all() and set(t["tool_version"]) == {"fio-3.33"}

    w = prov["workloads"]
    assert list(w["name"]) == ["RndRead", "SeqWrite"] and list(w["bs_kib"]) == [8, 64]
    assert list(w["threads"]) == [2, 2] and list(w["duration_s"]) == [1, 1]

    inputs = prov["inputs"].set_index("path")
    files = [f for f in local_fio_run.rglob("*") if f.is_file() and not f.name.startswith(".")]
    assert len(inputs) == len(files) and (local_fio_run / "manifest.json").exists()
    assert (local_fio_run / ".anfperf-run.lock").exists()  # the runner's, not an input
    assert not inputs.index.str.contains(".anfperf").any()
    for f in files:
        shown = str(local_fio_run / f.relative_to(local_fio_run))
        assert inputs.loc[shown, "sha256"] == sha256(f)
        assert inputs.loc[shown, "bytes"] == f.stat().st_size


@pytest.mark.fio
def test_each_manifest_is_read_once_for_all_the_tables(local_fio_run, monkeypatch):
    # the manifests, hosts, tasks and workloads tables each read it (and replayed its journal)
    read = []
    real = provenance.read_manifest
    monkeypatch.setattr(provenance, "read_manifest", lambda path: read.append(path) or real(path))
    prov = provenance.run_provenance(anfperf.read_many([local_fio_run]), [local_fio_run])
    manifest = local_fio_run / "manifest.json"
    assert read == [manifest]
    assert list(prov["tasks"]["status"]) == list(provenance.tasks_table([manifest])["status"])
    assert len(prov["hosts"]) == 1 and len(prov["workloads"]) == 2


@pytest.mark.fio
def test_the_manifest_is_found_above_a_host_folder_or_a_file(local_fio_run):
    (host,) = manifest_of(local_fio_run)["hosts"]
    result = local_fio_run / host / "RndRead.json"
    for given in (local_fio_run / host, result):
        prov = provenance.run_provenance(paths=[given])  # the frame is read from the paths
        assert list(prov["manifests"]["run_id"]) == list(prov["runs"]["run_id"])
        assert list(prov["manifests"]["manifest"]) == [str(local_fio_run / "manifest.json")]
    assert list(prov["runs"]["workloads"]) == ["RndRead"]
    assert list(prov["inputs"]["path"]) == [str(result)]


@pytest.mark.fio
def test_a_failed_task_is_stated_with_its_reason(failed_run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fio wrote an error, not JSON: skipped with a warning
        prov = provenance.run_provenance(paths=[failed_run])
    assert prov["runs"].empty  # nothing measured, and still a provenance section
    (run,) = prov["manifests"].itertuples()
    assert (run.status, run.tasks_ok, run.tasks_failed) == ("partial", 0, 1)
    (task,) = prov["tasks"].itertuples()
    assert task.status == "failed" and task.exit_code == 1
    assert task.reason.startswith("exit code 1: ")
    assert prov["hosts"].iloc[0]["tasks_failed"] == 1


@pytest.mark.fio
def test_nfs_mounts_show_their_options(local_fio_run, tmp_path):
    run_dir = tmp_path / local_fio_run.name
    shutil.copytree(local_fio_run, run_dir)
    manifest = manifest_of(run_dir)
    (host,) = manifest["hosts"]
    # what the preflight records from real /proc/mounts lines of NFS clients
    manifest["hosts"][host]["facts"]["mounts"] = parse_mounts(REEXPORT + "\n" + CLIENT + "\n")
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    (h,) = provenance.hosts_table([run_dir / "manifest.json"]).itertuples()
    first, second = h.nfs_mounts.split("; ")
    assert first.startswith("/srv/nfs/files (10.0.0.49:/files): rw,noatime,vers=3,")
    assert "nconnect=16" in first and "nocto" in first
    assert second.startswith("/mnt/nfs (10.0.0.3:/files): rw,relatime,vers=3,rsize=1048576,")


def test_raw_files_without_a_manifest_still_have_runs_and_checksums():
    folder = SAMPLES / "vdbench" / "MultiHostSeqMix"
    frame = anfperf.read_many([folder])
    prov = provenance.run_provenance(frame, [folder])
    (run,) = prov["runs"].itertuples()
    assert (run.run_id, run.tool, run.hosts, run.workloads) == (
        "MultiHostSeqMix", "vdbench", "vm1, vm2", "SeqMix",
    )  # fmt: skip
    assert run.tool_version == frame["tool_version"].dropna().iloc[0]
    assert run.start == frame["timestamp"].min() and run.end == frame["timestamp"].max()
    assert run.rows == len(frame)
    for name, columns in (("manifests", provenance.MANIFEST_COLUMNS),
                          ("hosts", provenance.HOST_COLUMNS), ("tasks", provenance.TASK_COLUMNS),
                          ("workloads", provenance.WORKLOAD_COLUMNS)):  # fmt: skip
        assert prov[name].empty and list(prov[name].columns) == columns
    assert len(prov["inputs"]) == sum(1 for p in folder.iterdir() if p.is_file())


def test_input_checksums_expand_folders_and_skip_missing_paths():
    folder = SAMPLES / "fio" / "sweeps"
    one = SAMPLES / "fio" / "randread_qd4.json"
    table = provenance.input_checksums([one, folder, SAMPLES / "no-such-file"])
    assert list(table.columns) == provenance.CHECKSUM_COLUMNS
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    assert len(table) == 1 + len(files)
    assert table.iloc[0].tolist() == [str(one), one.stat().st_size, sha256(one)]
    shown = [str(folder / p.relative_to(folder)) for p in files]
    assert list(table["path"].iloc[1:]) == shown
    assert list(table["sha256"].iloc[1:]) == [sha256(p) for p in files]
    # relative to another folder, named as given
    rel = provenance.input_checksums(["randread_qd4.json"], root=SAMPLES / "fio")
    assert rel.iloc[0].tolist() == ["randread_qd4.json", one.stat().st_size, sha256(one)]


def test_a_report_states_the_same_checksums(tmp_path):
    values = {"paths": ["fio/randread_qd4.json", "vdbench/RndRead"], "title": "not a path"}
    rows = _params.input_checksums(values, SAMPLES)
    table = provenance.input_checksums(values["paths"], root=SAMPLES)
    assert [r["parameter"] for r in rows] == ["paths"] * len(table)
    assert [(r["path"], r["bytes"], r["sha256"]) for r in rows] == list(
        table.itertuples(index=False, name=None)
    )
    assert all(type(r["bytes"]) is int for r in rows)  # into the notebook's JSON metadata


def test_unreadable_manifests_and_no_inputs(tmp_path):
    bad = tmp_path / "run" / "manifest.json"
    bad.parent.mkdir()
    bad.write_text("{not json")
    assert provenance.find_manifests([tmp_path]) == [bad]
    (row,) = provenance.manifests_table([bad]).itertuples()
    assert row.run_id == "run" and row.status.startswith("unreadable manifest")
    assert provenance.hosts_table([bad]).iloc[0]["hostname"].startswith("unreadable manifest")
    assert provenance.tasks_table([bad]).empty
    with pytest.raises(AnfperfError, match="needs a frame or the paths"):
        provenance.run_provenance()


def test_a_run_of_one_fio_json_starts_before_it_ends():
    # fio stamps its JSON once, at the end: every row had the same timestamp, start == end
    sweep = SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json"
    frame = anfperf.read_many(sweep)
    assert frame["timestamp"].nunique() == 1
    run = provenance.runs_table(frame).iloc[0]
    longest_s = frame.loc[frame["is_summary"], "runtime_s"].max()
    assert (run["end"] - run["start"]).total_seconds() == pytest.approx(longest_s, abs=1e-3)
