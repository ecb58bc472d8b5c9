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

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from anfperf.errors import AnfperfError
from anfperf.runner.security import check_name, check_relative

#: Extra time a task gets beyond its expected duration before it counts as hung: fio lays out
#: its files and Vdbench starts its JVMs before the measured time begins [s].
TIMEOUT_MARGIN_S = 120.0
#: ... and in proportion to the duration (a formatting pass can take as long as the run).
TIMEOUT_FACTOR = 1.5


@dataclass(frozen=True)
class HostTask:
    """One command on one host.

    Parameters
    ----------
    argv : sequence of str
        Program and arguments, run in the task's folder on the host. Each argument reaches the
        program literally, whatever characters it holds.
    files : mapping of str to str
        File name (relative to the task's folder) -> text, uploaded before the run.
    outputs : sequence of str
        Files or folders (relative to the task's folder) to collect after the run.
    duration_s : float
        Expected run time [s] (progress bar, default timeout).
    timeout_s : float, optional
        Longest the command may run before it is stopped [s]; default
        ``duration_s * TIMEOUT_FACTOR + TIMEOUT_MARGIN_S``.
    """

    argv: tuple[str, ...]
    files: Mapping[str, str] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()
    duration_s: float = 0.0
    timeout_s: float | None = None

    def __post_init__(self) -> None:
        argv = tuple(self.argv)
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("argv must be a non-empty list of strings")
        object.__setattr__(self, "argv", argv)
        object.__setattr__(
            self, "outputs", tuple(check_relative(o, "output") for o in self.outputs)
        )
        object.__setattr__(
            self, "files", {check_relative(k, "file name"): str(v) for k, v in self.files.items()}
        )
        if self.timeout_s is not None and self.timeout_s <= 0:
            raise ValueError("timeout_s must be positive")

    @property
    def effective_timeout_s(self) -> float:
        if self.timeout_s is not None:
            return float(self.timeout_s)
        return self.duration_s * TIMEOUT_FACTOR + TIMEOUT_MARGIN_S

    def to_dict(self) -> dict[str, Any]:
        return {
            "argv": list(self.argv),
            "files": dict(self.files),
            "outputs": list(self.outputs),
            "duration_s": self.duration_s,
            "timeout_s": self.effective_timeout_s,
        }


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
        'fio' or 'vdbench' (or another program).
    workload : dict, optional
        The workload's specification, recorded in the manifest.
    reaches : sequence of str
        Hosts the tool drives itself, without a task of their own (Vdbench's slaves, which
        its master starts over SSH): checked by preflight and recorded with the run.
    """

    name: str
    tasks: Mapping[str, HostTask]
    tool: str = "fio"
    workload: Mapping[str, Any] | None = None
    reaches: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.tasks:
            raise ValueError(f"step {self.name!r} has no hosts")
        object.__setattr__(self, "reaches", tuple(self.reaches))
        for host in (*self.tasks, *self.reaches):
            check_name(host, "host name")

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
        How :func:`plan_workloads` made the plan (tool, max_iops, timeout_s), recorded in the
        manifest as ``plan_options`` so that ``--resume`` can make it again.
    """

    steps: tuple[RunStep, ...]
    run_id: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        steps = tuple(self.steps)
        if not steps:
            raise ValueError("a plan needs at least one step")
        object.__setattr__(self, "steps", steps)
        object.__setattr__(
            self, "run_id", check_name(self.run_id or new_run_id(steps[0].name), "run id")
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


def slug(text: str, limit: int = 40) -> str:
    """`text` reduced to letters, digits and ``._-`` (for run ids and file names)."""
    out = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._-")[:limit]
    return out or "run"


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


def fio_task(
    jobfile: str,
    *,
    name: str,
    duration_s: float,
    timeout_s: float | None = None,
    extra_args: Sequence[str] = (),
) -> HostTask:
    """A task running one fio job file, its JSON+ results collected as ``<name>.json``.

    Parameters
    ----------
    jobfile : str
        The job file's text (uploaded as ``<name>.fio``).
    name : str
        File stem (a slug is taken).
    duration_s : float
        Expected run time [s].
    """
    stem = slug(name)
    return HostTask(
        argv=("fio", "--output-format=json+", f"--output={stem}.json", *extra_args, f"{stem}.fio"),
        files={f"{stem}.fio": jobfile},
        outputs=(f"{stem}.json",),
        duration_s=duration_s,
        timeout_s=timeout_s,
    )


def expected_duration_s(workload: Any, tool: str = "fio") -> float:
    """Planned run time of a workload: every load point's warm-up and measured time [s].

    Vdbench runs a load curve (``iorate=curve``) after a run at the maximum rate, once per
    thread count and read share: that run counts too.
    """
    runs = len(workload.points())
    if tool == "vdbench" and workload.rate_kind == "curve":
        runs += runs // len(workload.rate)
    return float(runs * (workload.warmup_s + workload.duration_s))


def plan_workloads(
    workloads: Sequence[Any],
    inventory: Any,
    *,
    tool: str = "fio",
    run_id: str | None = None,
    max_iops: float | None = None,
    timeout_s: float | None = None,
) -> RunPlan:
    """A plan running `workloads` one after the other on the inventory's hosts.

    Parameters
    ----------
    workloads : sequence of anfperf.workloads.Workload
    inventory : anfperf.runner.Inventory
        Hosts and their volumes (mount points).
    tool : {'fio', 'vdbench'}
        fio: every host runs its own job file (``directory=`` its volumes, file names with its
        name), all hosts started together; results in ``<host>/<workload>.json``.
        Vdbench: the first host is the master and runs one parameter file with an ``hd=`` per
        host (``shell=ssh``, as the seed does; the master must reach the others by SSH);
        results in ``<master>/<workload>/``. A single host runs without ``hd=`` lines.
    run_id : str, optional
        Default: time and the first workload's name.
    max_iops : float, optional
        Measured maximum [IOPS] for fio load curves.
    timeout_s : float, optional
        Timeout of each task [s]; default from its expected duration.
    """
    from anfperf.workloads import render_fio_jobfile, render_vdbench

    hosts = list(inventory.hosts)
    if not hosts:
        raise ValueError("no hosts")
    steps = []
    for w in workloads:
        duration = expected_duration_s(w, tool)
        spec = w.to_dict()
        if tool == "fio":
            tasks = {}
            for host in hosts:
                jobfile = render_fio_jobfile(
                    w, list(host.volumes.values()), host=host.name, n_hosts=len(hosts),
                    max_iops=max_iops,
                )  # fmt: skip
                tasks[host.name] = fio_task(
                    jobfile, name=w.name, duration_s=duration, timeout_s=timeout_s
                )
        elif tool == "vdbench":
            master = hosts[0]
            vdbench = master.vdbench or "vdbench"
            parm = render_vdbench(
                w, list(master.volumes.values()), _vdbench_clients(hosts),
                user=master.user if len(hosts) > 1 else None,
                vdbench_dir=posixpath.dirname(vdbench) or None if len(hosts) > 1 else None,
            )  # fmt: skip
            stem = slug(w.name)
            tasks = {
                master.name: HostTask(
                    argv=(vdbench, "-f", f"{stem}.parm", "-o", stem),
                    files={f"{stem}.parm": parm},
                    outputs=(stem,),
                    duration_s=duration,
                    timeout_s=timeout_s,
                )
            }
        else:
            raise ValueError(f"tool must be 'fio' or 'vdbench', not {tool!r}")
        reaches = tuple(h.name for h in hosts[1:]) if tool == "vdbench" else ()
        steps.append(RunStep(name=w.name, tasks=tasks, tool=tool, workload=spec, reaches=reaches))
    options = {"tool": tool, "max_iops": max_iops, "timeout_s": timeout_s}
    return RunPlan(steps=tuple(steps), run_id=run_id or "", options=options)


def _vdbench_clients(hosts: Sequence[Any]) -> list[Any] | None:
    """hd= lines for a multi-host Vdbench run: inventory names, addresses, mount points."""
    from anfperf.workloads import VdbenchHost, WorkloadError

    if len(hosts) < 2:
        return None  # one host: Vdbench runs there without hd= lines
    out = []
    for h in hosts:
        try:
            out.append(VdbenchHost(
                name=h.name, system=h.hostname, volumes=tuple(h.volumes.values()), user=h.user,
                vdbench_dir=posixpath.dirname(h.vdbench) or None if h.vdbench else None,
            ).checked())  # fmt: skip
        except WorkloadError as exc:
            raise AnfperfError(f"host {h.name}: not usable in a Vdbench run: {exc}") from None
    return out


def plan_from_manifest(data: Mapping[str, Any], inventory: Any) -> RunPlan:
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

    Raises
    ------
    anfperf.AnfperfError
        A step has no workload spec (a hand-made plan: pass the plan itself to resume it), the
        inventory lacks a host of the run, or the specs are not valid workloads.
    """
    from anfperf.workloads import Workload

    run_id = str(data.get("run_id"))
    options = dict(data.get("plan_options") or {})
    tool = options.pop("tool", None)
    steps = data.get("steps") or []
    if tool not in ("fio", "vdbench") or any(not s.get("workload") for s in steps):
        raise AnfperfError(
            f"run {run_id} was not made from workloads: anfperf does not run commands read "
            "from a manifest; resume it with the plan it was made from (resume_run(..., plan=))"
        )
    hosts = list(data.get("hosts") or [])
    lacking = [h for h in hosts if h not in inventory.names]
    if lacking:
        raise AnfperfError(
            f"run {run_id} ran on {', '.join(hosts)}; the inventory {inventory.source} lacks "
            f"{', '.join(lacking)}"
        )
    workloads = [Workload.from_dict(s["workload"]) for s in steps]
    plan = plan_workloads(
        workloads, inventory.select(hosts), tool=tool, run_id=run_id,
        max_iops=options.get("max_iops"), timeout_s=options.get("timeout_s"),
    )  # fmt: skip
    for old, new in zip(steps, plan.steps, strict=True):
        if sorted(old["tasks"]) != sorted(new.tasks):
            raise AnfperfError(
                f"run {run_id}: step {new.name} ran on {sorted(old['tasks'])}, the inventory "
                f"now gives {sorted(new.tasks)}"
            )
    return plan
