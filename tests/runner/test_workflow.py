"""run_workloads / resume_workloads: the preflight-then-force rule, --set changes, run ids.

Real fio through the local executor; a missing volume is a real preflight problem.
"""

from __future__ import annotations

import pytest

from anfperf.errors import AnfperfError, RemoteError
from anfperf.runner import (
    Manifest,
    load_inventory,
    local_inventory,
    parse_changes,
    resume_workloads,
    run_workloads,
)

pytestmark = pytest.mark.fio

TINY = {"duration_s": 1, "warmup_s": 0, "file_size_gib": 4 / 1024, "threads": 2}


def test_parse_changes_reads_yaml_scalars():
    assert parse_changes(["duration_s=30", "threads=[2, 4]", " name = X"]) == {
        "duration_s": 30, "threads": [2, 4], "name": "X"
    }  # fmt: skip
    assert parse_changes({"warmup_s": 0}) == {"warmup_s": 0}
    with pytest.raises(AnfperfError, match="--set wants FIELD=VALUE, got 'duration_s'"):
        parse_changes(["duration_s"])


def test_problems_stop_the_run_unless_forced(tmp_path, fio_bin):
    gone = tmp_path / "gone"
    inv = local_inventory({"data": str(gone)}, name="here", workdir=str(tmp_path))
    seen = []
    with pytest.raises(RemoteError, match="nothing ran: fix the problems on here") as err:
        run_workloads(["RndRead"], inv, tmp_path / "raw", changes=TINY,
                      on_preflight=lambda plan, reports: seen.append(reports["here"].ok),
                      on_start=seen.append)  # fmt: skip
    assert err.value.problems == {"here": [f"volume data: {gone} does not exist"]}
    assert seen == [False] and not (tmp_path / "raw").exists()

    manifest = run_workloads(
        ["RndRead"], inv, tmp_path / "raw", changes=TINY, run_id="forced", force=True
    )
    assert manifest.status == "partial"  # fio cannot write into the missing folder
    assert manifest.data["hosts"]["here"]["problems"] == err.value.problems["here"]


def test_run_then_resume_what_is_missing(tmp_path, fio_bin):
    inv = local_inventory({"data": str(tmp_path)}, name="here", workdir=str(tmp_path))
    set_items = [f"{k}={v}" for k, v in TINY.items()]
    manifest = run_workloads(["RndRead", "SeqRead"], inv, tmp_path / "raw", changes=set_items,
                             run_id="both")  # fmt: skip
    assert manifest.status == "complete"
    assert manifest.data["steps"][0]["workload"]["duration_s"] == 1
    (tmp_path / "raw" / "both" / "here" / "SeqRead.json").unlink()  # lost since
    started = []
    again = resume_workloads("both", inv, tmp_path / "raw", on_start=started.append)
    assert started[0].run_id == "both" and again.status == "complete"
    assert Manifest.load(tmp_path / "raw" / "both").task(1, "here")["attempts"] == 2
    with pytest.raises(AnfperfError, match="run id '../x' is not usable"):
        resume_workloads("../x", inv, tmp_path / "raw")


def test_nothing_ran_names_the_first_hosts_and_counts_the_rest(tmp_path, fio_bin):
    # issue 33, item 13: 1,000 hosts made one line of 5,946 characters
    gone = tmp_path / "gone"
    names = [f"vm{i}" for i in range(1, 13)]
    inventory = tmp_path / "inv.yml"
    inventory.write_text(
        f"volumes: {{data: {gone}}}\nworkdir: {tmp_path}\nhosts:\n"
        + "".join(f"  {name}: {{local: true}}\n" for name in names)
    )
    with pytest.raises(RemoteError) as err:
        run_workloads(["RndRead"], load_inventory(inventory), tmp_path / "raw", changes=TINY)
    assert str(err.value) == "nothing ran: fix the problems on vm1, vm2, vm3 ... and 9 more"
    # each host's problems are all there still (printed with the reports, in the run's log)
    assert list(err.value.problems) == names
    assert err.value.problems["vm12"] == [f"volume data: {gone} does not exist"]
