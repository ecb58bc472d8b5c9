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
    assert plan.options == {"tool": "fio", "max_iops": 5000, "timeout_s": 30}
    assert plan.steps[0].tasks[inventory.hosts[0].name].effective_timeout_s == 30
