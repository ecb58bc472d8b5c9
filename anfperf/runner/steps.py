"""What a run does, host by host: the interface between workloads and the fleet.

A :class:`RunPlan` is a sequence of :class:`RunStep` (one per workload, run one after the other);
a step holds one :class:`HostTask` per host, and all of a step's hosts start together. A task
is plain data: the files to upload, the argument list to run (never a shell string), the
outputs to collect and the expected duration, written to the manifest. ``--resume`` never runs
the commands read back from a manifest (anyone who can edit it could make the hosts run
anything): :func:`plan_from_manifest` renders them again from the recorded workload specs and
the current inventory.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from anfperf.errors import AnfperfError, ParseError
from anfperf.runner.manifest import check_host_folder_name
from anfperf.runner.security import check_folder_name
from anfperf.tools import ToolAdapter, find_tool, get_tool, tool_names
from anfperf.tools.base import HostTask, slug
from anfperf.values import is_positive_number
from anfperf.workloads.spec import ADAPTIVE, ADAPTIVE_MIX


@dataclass(frozen=True)
class RunStep:
    """One workload on a set of hosts, started together.

    Parameters
    ----------
    name : str
        The workload's name (a label: any text; file names use :attr:`slug`).
    tasks : mapping of str to HostTask
        Host name -> its task.
    tool : str
        A registered tool (:mod:`anfperf.tools`), or another program's name.
    workload : dict, optional
        The workload's specification, recorded in the manifest.
    reaches : sequence of str
        Hosts the tool drives itself, without a task of their own (Vdbench's slaves, which
        its master starts over SSH): checked by preflight and recorded with the run.
    adaptive : mapping, optional
        A step of an adaptive sweep (:mod:`anfperf.runner.sweeps`): ``sweep`` the adaptive
        workload's fields, ``concurrency`` this step's, ``reason`` why it was chosen (and,
        once the sweep ends on it, ``stop``: why). Recorded in the manifest.
    """

    name: str
    tasks: Mapping[str, HostTask]
    tool: str = "fio"
    workload: Mapping[str, Any] | None = None
    reaches: tuple[str, ...] = ()
    adaptive: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not self.tasks:
            raise ValueError(f"step {self.name!r} has no hosts")
        object.__setattr__(self, "reaches", tuple(self.reaches))
        folders: dict[str, str] = {}  # lower case -> host: one folder where case is lost
        for host in dict.fromkeys((*self.tasks, *self.reaches)):
            check_host_folder_name(host, folders)  # not 'run.log', nor 'VM1' beside 'vm1'

    @property
    def duration_s(self) -> float:
        return max(t.duration_s for t in self.tasks.values())


@dataclass(frozen=True)
class RunPlan:
    """Steps run one after the other under one run id.

    Parameters
    ----------
    steps : sequence of RunStep
    run_id : str, optional
        Default: UTC time and the first step's name, e.g. ``20240501T101500Z-RndRead``.
    options : mapping, optional
        How :func:`plan_workloads` made the plan (tool, max_iops, timeout_s,
        live_interval_s, slo_ms), recorded in the manifest as ``plan_options`` so that
        ``--resume`` can make it again.
    make_step : callable, optional
        Workload -> its step on the plan's hosts, as :func:`plan_workloads` makes them: how an
        adaptive sweep adds the steps it chooses as it runs.
    """

    steps: tuple[RunStep, ...]
    run_id: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    make_step: Callable[[Any], RunStep] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        steps = tuple(self.steps)
        if not steps:
            raise ValueError("a plan needs at least one step")
        object.__setattr__(self, "steps", steps)
        object.__setattr__(
            self, "run_id", check_folder_name(self.run_id or new_run_id(steps[0].name), "run id")
        )
        slugs = [slug(s.name) for s in steps]
        if len(set(slugs)) != len(slugs):
            raise ValueError(f"step names must differ (as file names): {slugs}")
        seen: dict[tuple[str, str], str] = {}
        for step in steps:
            for host, task in step.tasks.items():
                for out in task.outputs:
                    other = seen.setdefault((host, out), step.name)
                    if other != step.name:
                        raise ValueError(
                            f"{host}: steps {other!r} and {step.name!r} both write {out!r}"
                        )

    @property
    def hosts(self) -> list[str]:
        """Every host of the run: those with tasks, then those the tools reach themselves."""
        names: dict[str, None] = {}
        for step in self.steps:
            names.update(dict.fromkeys(step.tasks))
        for step in self.steps:
            names.update(dict.fromkeys(step.reaches))
        return list(names)

    @property
    def task_hosts(self) -> list[str]:
        """The hosts that run a task of their own."""
        return list({h: None for step in self.steps for h in step.tasks})

    @property
    def duration_s(self) -> float:
        return sum(s.duration_s for s in self.steps)

    def with_step(self, index: int, step: RunStep) -> RunPlan:
        """The plan with `step` inserted before step `index` (checked as a whole again)."""
        steps = (*self.steps[:index], step, *self.steps[index:])
        return dataclasses.replace(self, steps=steps)


def new_run_id(label: str = "run", when: datetime | None = None) -> str:
    """A run id: UTC time to the second and a slug of `label`."""
    when = when or datetime.now(UTC)
    return f"{when:%Y%m%dT%H%M%SZ}-{slug(label)}"


def step_files(step: RunStep, index: int) -> dict[str, str]:
    """Local names of a step's captured streams and the remote pid file.

    The step's slug and index keep names unique and free of shell or path characters, whatever
    the workload is called.
    """
    base = slug(step.name)
    return {
        "stdout": f"{base}.stdout.log",
        "stderr": f"{base}.stderr.log",
        "pidfile": f".anfperf-step{index}.pid",
    }


def expected_duration_s(workload: Any, tool: str = "fio") -> float:
    """Planned run time of a workload with `tool`: every load point's warm-up and measured
    time, as the tool runs them [s]."""
    return (find_tool(tool) or ToolAdapter()).expected_duration_s(workload)


#: The numeric options of a plan (:func:`plan_workloads`' arguments, recorded in the manifest
#: as ``plan_options``) and their units.
PLAN_NUMBERS = {
    "max_iops": "IOPS", "timeout_s": "seconds", "live_interval_s": "seconds",
    "slo_ms": "milliseconds",
}  # fmt: skip
#: The tools' live interval by default [s]: figures every few seconds cost the hosts nothing.
LIVE_INTERVAL_S = 5.0


def _option_problem(name: str, value: object) -> str | None:
    """What is wrong with a numeric plan option (None or a number > 0), or None."""
    if value is None or is_positive_number(value):
        return None
    return f"{name} must be a number of {PLAN_NUMBERS[name]} > 0, got {value!r}"


def plan_workloads(
    workloads: Sequence[Any],
    inventory: Any,
    *,
    tool: str = "fio",
    run_id: str | None = None,
    max_iops: float | None = None,
    timeout_s: float | None = None,
    live_interval_s: float | None = None,
    slo_ms: float | None = None,
) -> RunPlan:
    """A plan running `workloads` one after the other on the inventory's hosts.

    Parameters
    ----------
    workloads : sequence of anfperf.workloads.Workload
    inventory : anfperf.runner.Inventory
        Hosts and their volumes (mount points).
    tool : str
        A registered tool the runner can launch (:mod:`anfperf.tools`). fio: every
        host runs its own job file, all hosts started together; results in
        ``<host>/<workload>.json``. Vdbench: the first host is the master and runs one
        parameter file with an ``hd=`` per host; results in ``<master>/<workload>/``.
    run_id : str, optional
        Default: time and the first workload's name.
    max_iops : float, optional
        Measured maximum [IOPS] for fio load curves.
    timeout_s : float, optional
        Timeout of each task [s]; default from its expected duration.
    live_interval_s : float, optional
        The tools report their figures every so many seconds while they run, which the run
        shows live (:mod:`anfperf.runner.livefeed`); None: results at the end only.
    slo_ms : float, optional
        The latency objective the live alarms judge by [ms] (an adaptive sweep's own
        ``until_lat_ms`` for its steps).

    A workload with ``sweep: adaptive`` is planned as its first step, the light load; the run
    adds the others as it measures (:mod:`anfperf.runner.sweeps`).

    Raises
    ------
    anfperf.AnfperfError
        A numeric option is not a number > 0 (a boolean is not one).
    """
    from anfperf.runner.sweeps import first_point

    options = {"max_iops": max_iops, "timeout_s": timeout_s,
               "live_interval_s": live_interval_s, "slo_ms": slo_ms}  # fmt: skip
    for name, value in options.items():
        problem = _option_problem(name, value)
        if problem:
            raise AnfperfError(problem)
    adapter = get_tool(tool, runnable=True)
    hosts = list(inventory.hosts)
    if not hosts:
        raise ValueError("no hosts")

    def make_step(w: Any) -> RunStep:
        duration = adapter.expected_duration_s(w)
        tasks = adapter.tasks(w, hosts, duration_s=duration, max_iops=max_iops,
                              timeout_s=timeout_s, live_interval_s=live_interval_s)  # fmt: skip
        return RunStep(name=w.name, tasks=tasks, tool=tool, workload=w.to_dict(),
                       reaches=adapter.reaches(hosts))  # fmt: skip

    steps = []
    for w in workloads:
        if getattr(w, "sweep", None) in (ADAPTIVE, ADAPTIVE_MIX):
            point, adaptive = first_point(w)
            steps.append(dataclasses.replace(make_step(point), adaptive=adaptive))
        else:
            steps.append(make_step(w))
    return RunPlan(steps=tuple(steps), run_id=run_id or "", options={"tool": tool, **options},
                   make_step=make_step)  # fmt: skip


def plan_from_manifest(
    data: Mapping[str, Any], inventory: Any, *, source: str | os.PathLike | None = None
) -> RunPlan:
    """The plan of a recorded run, made again from its workload specs and `inventory`.

    Commands and files are rendered anew, so an edited manifest cannot make the hosts run
    anything but the benchmark tool, and corrected addresses or mount points in the inventory
    take effect.

    Parameters
    ----------
    data : mapping
        A run manifest (:class:`~anfperf.runner.manifest.Manifest` ``.data``).
    inventory : anfperf.runner.Inventory
        Must hold every host of the run.
    source : path-like, optional
        The manifest file, for errors about its content (default: named by the run id).

    Raises
    ------
    anfperf.ParseError
        The recorded ``plan_options`` are not those a plan is made with (a timeout of -1 or
        ``"abc"``, a boolean for a number).
    anfperf.AnfperfError
        A step has no workload spec (a hand-made plan: pass the plan itself to resume it), the
        inventory lacks a host of the run, or the specs are not valid workloads.
    """
    from anfperf.workloads import Workload

    run_id = str(data.get("run_id"))
    source = source if source is not None else f"manifest of run {run_id}"
    options = data.get("plan_options") or {}
    if not isinstance(options, Mapping):
        raise ParseError(source, f"plan_options must be an object, got {options!r}")
    options = dict(options)
    for name in PLAN_NUMBERS:
        problem = _option_problem(name, options.get(name))
        if problem:
            raise ParseError(source, f"plan_options.{problem}")
    tool = options.pop("tool", None)
    steps = data.get("steps") or []
    if tool not in tool_names(runnable=True) or any(not s.get("workload") for s in steps):
        raise AnfperfError(
            f"run {run_id} was not made from workloads: anfperf does not run commands read "
            "from a manifest; resume it with the plan it was made from (resume_run(..., plan=))"
        )
    hosts = list(data.get("hosts") or [])
    known = set(inventory.names)
    lacking = [h for h in hosts if h not in known]
    if lacking:
        raise AnfperfError(
            f"run {run_id} ran on {', '.join(hosts)}; the inventory {inventory.source} lacks "
            f"{', '.join(lacking)}"
        )
    workloads = [Workload.from_dict(s["workload"]) for s in steps]
    plan = plan_workloads(
        workloads, inventory.select(hosts), tool=tool, run_id=run_id,
        **{name: options.get(name) for name in PLAN_NUMBERS},
    )  # fmt: skip
    for old, new in zip(steps, plan.steps, strict=True):
        if sorted(old["tasks"]) != sorted(new.tasks):
            raise AnfperfError(
                f"run {run_id}: step {new.name} ran on {sorted(old['tasks'])}, the inventory "
                f"now gives {sorted(new.tasks)}"
            )
    # the steps an adaptive sweep chose are ordinary steps, each with its sweep recorded
    restored = [
        dataclasses.replace(new, adaptive=old["adaptive"]) if old.get("adaptive") else new
        for old, new in zip(steps, plan.steps, strict=True)
    ]
    return dataclasses.replace(plan, steps=tuple(restored))
