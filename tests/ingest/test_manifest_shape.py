"""Issue 24, item 3: a manifest that is valid JSON of the wrong shape keeps a run's hosts apart.

Before, a ``manifest.json`` without an object ``hosts`` (or not an object at all) named every
host 'localhost', and a two-host run's total fell apart into two rows of one host each.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

import anfperf
from anfperf.analysis import provenance
from anfperf.analysis.findings import anf_verdict_applies
from anfperf.analysis.summary import summary_table

#: name -> what replaces the runner's manifest (a function of the real one)
BAD_SHAPES = {
    "no hosts": lambda doc: {k: v for k, v in doc.items() if k != "hosts"},
    "hosts a list": lambda doc: {**doc, "hosts": list(doc["hosts"])},
    "hosts null": lambda doc: {**doc, "hosts": None},
    "hosts a string": lambda doc: {**doc, "hosts": "vm1,vm2"},
    "document a list": lambda doc: [doc],
    "document null": lambda doc: None,
    "document a string": lambda doc: "vm1,vm2",
    "document a number": lambda doc: 40336,
    "steps a number": lambda doc: {**doc, "steps": 2},
    "tasks a list": lambda doc: {**doc, "steps": [{**s, "tasks": ["vm1"]} for s in doc["steps"]]},
}
#: what the warning says is wrong, per shape
WHY = {
    "no hosts": "no 'hosts'",
    "hosts a list": "'hosts' is a list",
    "hosts null": "'hosts' is null",
    "hosts a string": "'hosts' is a string",
    "document a list": "the document is a list, not an object",
    "document null": "the document is null, not an object",
    "document a string": "the document is a string, not an object",
    "document a number": "the document is a number, not an object",
    "steps a number": "'steps' is a number, not a list",
    "tasks a list": "'tasks' of step 0 is a list, not an object",
}


def two_host_run(local_fio_run: Path, tmp_path: Path) -> Path:
    """The real local run as the runner would have written it for two hosts, vm1 and vm2."""
    run = tmp_path / local_fio_run.name
    shutil.copytree(local_fio_run, run)
    doc = json.loads((run / "manifest.json").read_text())
    (one,) = doc["hosts"]
    (run / one).rename(run / "vm1")
    shutil.copytree(run / "vm1", run / "vm2")
    doc["hosts"] = {h: {**copy.deepcopy(doc["hosts"][one]), "hostname": h} for h in ("vm1", "vm2")}
    for step in doc["steps"]:
        task = step["tasks"][one]
        step["tasks"] = {h: {**task, "collected": [f"{h}/{c.split('/', 1)[1]}"
                                                   for c in task.get("collected") or []]}
                         for h in ("vm1", "vm2")}  # fmt: skip
    (run / "manifest.json").write_text(json.dumps(doc))
    return run


@pytest.fixture
def run(local_fio_run, tmp_path) -> Path:
    return two_host_run(local_fio_run, tmp_path)


def per_host_and_total(frame) -> tuple[dict[str, float], dict[str, float]]:
    """IOPS of each (host, job) and summary_table's total per job."""
    rows = frame.query("is_summary and direction == 'total' and host != 'all'")
    hosts = rows.groupby(["host", "job"])["iops"].sum().to_dict()
    summary = summary_table(frame)
    return hosts, dict(zip(summary["job"], summary["iops"], strict=True))


def test_the_runners_manifest_names_both_hosts(run):
    frame = anfperf.read_many([run])
    hosts, total = per_host_and_total(frame)
    assert set(frame["host"]) == {"vm1", "vm2"} and set(frame["run_id"]) == {run.name}
    for job, iops in total.items():
        assert iops == pytest.approx(hosts["vm1", job] + hosts["vm2", job])


@pytest.mark.parametrize("shape", BAD_SHAPES)
def test_a_manifest_of_the_wrong_shape_leaves_the_folder_layout(run, shape):
    manifest = run / "manifest.json"
    good = anfperf.read_many([run])
    manifest.write_text(json.dumps(BAD_SHAPES[shape](json.loads(manifest.read_text()))))
    with pytest.warns(UserWarning) as caught:
        frame = anfperf.read_many([run])
    said = [str(w.message) for w in caught]
    assert any(
        f"{manifest}: not an anfperf run manifest ({WHY[shape]}" in s
        and "taken from its folder layout" in s
        for s in said
    ), said
    # before: both hosts 'localhost', two rows of one host each where there was one total
    assert set(frame["host"]) == {"vm1", "vm2"} and set(frame["run_id"]) == {run.name}
    hosts, total = per_host_and_total(frame)
    assert len(total) == 2
    for job, iops in total.items():
        assert iops == pytest.approx(hosts["vm1", job] + hosts["vm2", job])
    assert total == pytest.approx(per_host_and_total(good)[1])


@pytest.mark.parametrize("shape", BAD_SHAPES)
def test_provenance_says_why_a_manifest_of_the_wrong_shape_is_not_used(run, shape):
    manifest = run / "manifest.json"
    manifest.write_text(json.dumps(BAD_SHAPES[shape](json.loads(manifest.read_text()))))
    why = f"unreadable manifest: not an anfperf run manifest ({WHY[shape]}"
    (row,) = provenance.manifests_table([manifest]).itertuples()
    assert row.run_id == run.name and row.status.startswith(why)
    (host,) = provenance.hosts_table([manifest]).itertuples()
    assert host.run_id == run.name and host.hostname.startswith(why)
    assert provenance.volumes_table([manifest]).empty
    assert provenance.tasks_table([manifest]).empty
    assert provenance.workloads_table([manifest]).empty
    with pytest.warns(UserWarning, match="not an anfperf run manifest"):
        frame = anfperf.read_many([run])
    prov = provenance.run_provenance(frame, [run])
    assert list(prov["manifests"]["manifest"]) == [str(manifest)]
    # no manifest to say where the I/O went: the verdict applies against an assumed volume
    applies, reason = anf_verdict_applies(frame)
    assert applies and "assumed" in reason
