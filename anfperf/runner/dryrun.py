"""What a run would do, without touching a host: ``anfperf run --dry-run``.

A first fleet run should not be a surprise: the hosts it reaches (and how), each workload with
its load points and duration, the data files the tool makes on every volume of every host
(``RndRead4k`` makes four 4 GiB files per host and volume) and the space that takes, and the
run's expected length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anfperf.runner.progress import format_duration
from anfperf.runner.steps import RunPlan
from anfperf.runner.sweeps import chooser
from anfperf.tools import get_tool
from anfperf.workloads.spec import Workload

_GIB = 2**30


@dataclass(frozen=True)
class DryRun:
    """A run's plan in numbers (see :func:`dry_run`)."""

    run_id: str
    tool: str
    hosts: dict[str, str]  # name -> how it is reached
    volumes: dict[str, dict[str, str]]  # host -> volume name -> mount point
    steps: list[dict[str, Any]]  # name, points, duration_s, files_per_volume, file_bytes
    data_bytes_per_volume: int  # on each volume of each host (files shared by steps once)
    duration_s: float

    @property
    def data_bytes(self) -> int:
        """The data files of the whole fleet [bytes]."""
        mounts = sum(len(v) for v in self.volumes.values())
        return self.data_bytes_per_volume * mounts


def dry_run(plan: RunPlan, inventory: Any) -> DryRun:
    """The plan of a run in numbers, from the plan and the inventory alone (no connection).

    Parameters
    ----------
    plan : RunPlan
        From :func:`anfperf.runner.workflow.plan_run` (or ``plan_workloads``).
    inventory : anfperf.runner.Inventory
        The hosts, their addresses and volumes.
    """
    tool = get_tool(plan.options.get("tool") or plan.steps[0].tool)
    files: dict[str, int] = {}
    steps = []
    for step in plan.steps:
        workload = Workload.from_dict(step.workload) if step.workload else None
        made = tool.data_files(workload) if workload is not None else {}
        for name, size in made.items():  # a file reused by later workloads takes its largest
            files[name] = max(files.get(name, 0), size)
        steps.append(
            {
                "name": step.name,
                "points": len(workload.points()) if workload is not None else None,
                "duration_s": step.duration_s,
                "files_per_volume": len(made),
                "file_bytes": max(made.values(), default=0),
                "adaptive": _adaptive_note(step),
            }
        )
    planned = set(plan.hosts)  # once: the plan makes its list anew on each call
    chosen = [h for h in inventory.hosts if h.name in planned]
    hosts = {h.name: _reached(h) for h in chosen}
    volumes = {h.name: dict(h.volumes) for h in chosen}
    return DryRun(
        run_id=plan.run_id, tool=tool.name, hosts=hosts, volumes=volumes, steps=steps,
        data_bytes_per_volume=sum(files.values()), duration_s=plan.duration_s,
    )  # fmt: skip


def _adaptive_note(step: Any) -> str:
    """What an adaptive sweep's first step leads to ('' for any other step)."""
    if not step.adaptive:
        return ""
    sweep = step.adaptive["sweep"]
    if "until_lat_ms" not in sweep:  # adaptive_mix: its read shares
        return "; the first step of an adaptive mix sweep: the next read shares are chosen as it measures"
    unit = "threads" if "threads" in sweep else "iodepth"
    budget = chooser(Workload.from_dict(sweep)).step_budget
    return (
        f"; the first step of an adaptive sweep: the next steps are chosen as it measures, "
        f"{unit} up to {sweep['max_outstanding']}, until the mean latency passes "
        f"{sweep['until_lat_ms']:g} ms, at most {budget} steps (each of this length)"
    )


def _reached(host: Any) -> str:
    info = host.describe()
    if info.get("local"):
        return "this machine"
    where = f"{info.get('user') + '@' if info.get('user') else ''}{info['hostname']}"
    where += f":{info['port']}" if info.get("port") not in (None, 22) else ""
    return where + (f" via {info['jump']}" if info.get("jump") else "")


def format_dry_run(d: DryRun) -> str:
    """The plan as a reader checks it before starting: hosts, workloads, files, space, time."""
    lines = [
        f"run {d.run_id} (dry run: nothing is started, no host is contacted)",
        f"  {d.tool}, {len(d.steps)} workload{'s' * (len(d.steps) != 1)} on "
        f"{len(d.hosts)} host{'s' * (len(d.hosts) != 1)}, about {format_duration(d.duration_s)} "
        "of workload time",
        "hosts:",
    ]
    for name, reached in d.hosts.items():
        mounts = ", ".join(d.volumes.get(name, {}).values()) or "no volumes"
        lines.append(f"  {name}: {reached}; volumes {mounts}")
    lines.append("workloads:")
    for s in d.steps:
        points = f"{s['points']} load point{'s' * (s['points'] != 1)}, " if s["points"] else ""
        made = (
            f"; {s['files_per_volume']} x {_size(s['file_bytes'])} file"
            f"{'s' * (s['files_per_volume'] != 1)} per host and volume"
            if s["files_per_volume"]
            else ""
        )
        lines.append(
            f"  {s['name']}: {points}{format_duration(s['duration_s'])}{made}{s['adaptive']}"
        )
    if d.data_bytes_per_volume:
        # the hosts mount the same volumes (NFS): each volume holds every host's files
        sharing = max(
            (sum(v in m for m in d.volumes.values()) for v in _volume_names(d)), default=1
        )
        shared = (
            f", {_size(d.data_bytes_per_volume * sharing)} on a volume {sharing} hosts share"
            if sharing > 1
            else ""
        )
        lines.append(
            f"space: each host writes {_size(d.data_bytes_per_volume)} to each of its volumes"
            f"{shared}, {_size(d.data_bytes)} in all (files the workloads share counted once)"
        )
    return "\n".join(lines)


def _volume_names(d: DryRun) -> set[str]:
    return {name for mounts in d.volumes.values() for name in mounts}


def _size(nbytes: float) -> str:
    """A size as people read it: three digits, or whole units with thousands separators from
    100 on (20,300 TiB, never 2.03e+04 TiB)."""
    for unit, scale in (("TiB", 2**40), ("GiB", _GIB), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            value = nbytes / scale
            return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"
    return f"{nbytes:,.0f} B"
