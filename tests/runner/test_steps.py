"""A plan's numbers (issue 24, item 16): timeouts, durations and max IOPS are numbers > 0, and
a boolean is not one (``timeout_s=True`` was a one-second timeout)."""

from __future__ import annotations

import pytest

from anfperf.errors import AnfperfError
from anfperf.runner import HostTask, local_inventory, plan_workloads
from anfperf.workloads import CATALOGUE


@pytest.mark.parametrize(
    "field, value",
    [("timeout_s", True), ("timeout_s", "abc"), ("timeout_s", -1), ("timeout_s", float("nan")),
     ("duration_s", True), ("duration_s", "60"), ("duration_s", float("inf"))],
)  # fmt: skip
def test_a_task_takes_seconds_as_numbers_only(field, value):
    # before: True was 1 s, 'abc' a TypeError, nan and inf passed
    with pytest.raises(ValueError, match=rf"^{field} must be a number of seconds .*got {value!r}"):
        HostTask(argv=("fio",), **{field: value})
    assert HostTask(argv=("fio",), duration_s=60, timeout_s=90.5).effective_timeout_s == 90.5


@pytest.mark.parametrize(
    "option, value, unit",
    [("timeout_s", True, "seconds"), ("timeout_s", 0, "seconds"), ("max_iops", True, "IOPS"),
     ("max_iops", -5.0, "IOPS")],
)  # fmt: skip
def test_plan_options_are_numbers_above_zero(tmp_path, option, value, unit):
    inventory = local_inventory([str(tmp_path)])
    with pytest.raises(AnfperfError, match=rf"^{option} must be a number of {unit} > 0, got"):
        plan_workloads([CATALOGUE["RndRead"]], inventory, **{option: value})
    plan = plan_workloads([CATALOGUE["RndRead"]], inventory, timeout_s=30, max_iops=5000)
    assert plan.options == {
        "tool": "fio",
        "max_iops": 5000,
        "timeout_s": 30,
        "live_interval_s": None,
        "slo_ms": None,
    }
    assert plan.steps[0].tasks[inventory.hosts[0].name].effective_timeout_s == 30


@pytest.mark.parametrize("name", ["run.log", "Run.LOG", "MANIFEST.json", "All"])
def test_the_run_folders_own_names_cannot_be_a_host_of_a_real_run(tmp_path, name):
    # issue 33, item 5: a host 'run.log' ran, its outputs in a folder run.log where the run's
    # log should be: the log's handler raised in every thread, the run had no log and its
    # manifest said 'complete'
    from anfperf.runner import LocalConnection, RunPlan, RunStep, run_plan

    conns = {h: LocalConnection(h) for h in ("vm1", name)}
    task = HostTask(argv=("echo", "hello"))
    with pytest.raises(ValueError, match=rf"^host name '{name}' is reserved \(.*'run.log'"):
        plan = RunPlan(steps=(RunStep("hello", dict.fromkeys(conns, task), tool="echo"),))
        run_plan(plan, conns, tmp_path / "raw", workdir=str(tmp_path / "wd"))
    assert not (tmp_path / "raw").exists()


def test_hosts_of_a_run_that_differ_only_in_case_are_refused():
    from anfperf.runner import RunStep

    task = HostTask(argv=("echo", "hello"))
    with pytest.raises(ValueError, match="host names 'vm1' and 'VM1' differ only in case"):
        RunStep("hello", {"vm1": task, "VM1": task}, tool="echo")
