"""Run fio and Vdbench on a fleet of client hosts (Fabric over SSH) or on this machine.

- :func:`load_inventory` reads hosts, how to reach them and their volumes (YAML or
  ``~/.ssh/config``); ``Inventory.connect()`` gives Fabric Connections with host keys checked
  against known_hosts (or :class:`LocalConnection` for this machine).
- :func:`preflight` checks every host in parallel and reports problems before anything runs.
- :func:`run_plan` runs a :class:`RunPlan` (steps of per-host :class:`HostTask`) with
  synchronized starts, timeouts and Ctrl-C handling, writing raw outputs and ``manifest.json``
  under ``data/raw/<run_id>/`` for :func:`anfperf.ingest.read_many`; :func:`resume_run`
  re-runs what is missing.
- :func:`run_workloads` / :func:`resume_workloads` do what ``anfperf run`` does: preflight,
  refuse hosts with problems unless ``force``, run.
- A workload with ``sweep: adaptive`` (or ``adaptive_mix``) is run step by step, each next load
  point chosen from what the fleet measured (:mod:`anfperf.runner.sweeps`); while a step runs,
  the hosts' figures arrive live (:mod:`anfperf.runner.livefeed`: the console's line, alarms,
  ``live.jsonl``, which :func:`anfperf.live.watch` shows in a notebook).
- Each benchmark tool is an adapter in :mod:`anfperf.tools` (re-exported here: the runner's
  tasks are :class:`HostTask`, :func:`fio_task` makes fio's).
"""

from anfperf.runner.collect import collect
from anfperf.runner.fleet import DEFAULT_OUT, close_all, resume_run, run_inventory, run_plan
from anfperf.runner.inventory import (
    DEFAULT_WORKDIR,
    Host,
    Inventory,
    load_inventory,
    local_inventory,
)
from anfperf.runner.local import LocalConnection
from anfperf.runner.manifest import TASK_STATES, Manifest
from anfperf.runner.preflight import HostReport, format_reports, preflight, preflight_inventory
from anfperf.runner.progress import FleetProgress
from anfperf.runner.steps import (
    RunPlan,
    RunStep,
    expected_duration_s,
    new_run_id,
    plan_workloads,
)
from anfperf.runner.workflow import parse_changes, resume_workloads, run_workloads
from anfperf.tools import HostTask, ToolAdapter, fio_task, get_tool, register, tool_names

__all__ = [
    "DEFAULT_OUT",
    "DEFAULT_WORKDIR",
    "TASK_STATES",
    "FleetProgress",
    "Host",
    "HostReport",
    "HostTask",
    "Inventory",
    "LocalConnection",
    "Manifest",
    "RunPlan",
    "RunStep",
    "ToolAdapter",
    "close_all",
    "collect",
    "expected_duration_s",
    "fio_task",
    "format_reports",
    "get_tool",
    "load_inventory",
    "local_inventory",
    "new_run_id",
    "parse_changes",
    "plan_workloads",
    "preflight",
    "preflight_inventory",
    "register",
    "resume_run",
    "resume_workloads",
    "run_inventory",
    "run_plan",
    "run_workloads",
    "tool_names",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer
