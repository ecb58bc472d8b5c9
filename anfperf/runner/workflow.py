"""Workloads from name to manifest: preflight, the ``--force`` rule, then the run.

What ``anfperf run`` does, as library calls: :func:`run_workloads` picks the workloads (by name
from the catalogue and workload files), applies ``--set`` changes (:func:`parse_changes`),
plans them, checks every host and runs only when no host has a problem (or `force`);
:func:`resume_workloads` does the same for what a recorded run is missing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from anfperf.errors import AnfperfError, RemoteError
from anfperf.folders import output_folder
from anfperf.runner.fleet import DEFAULT_OUT, close_all, run_inventory
from anfperf.runner.hostrun import MAX_PARALLEL_HOSTS
from anfperf.runner.interrupts import keeping_signals
from anfperf.runner.inventory import Inventory
from anfperf.runner.manifest import Manifest
from anfperf.runner.preflight import HostReport, preflight_inventory
from anfperf.runner.runlog import held_ssh_log
from anfperf.runner.security import check_folder_name
from anfperf.runner.steps import LIVE_INTERVAL_S, RunPlan, plan_from_manifest, plan_workloads

#: Called with the plan and the preflight reports once every host is checked.
OnPreflight = Callable[[RunPlan, Mapping[str, HostReport]], None]
#: Called with the plan just before it runs (preflight passed, or was overruled).
OnStart = Callable[[RunPlan], None]
#: Hosts a one-line message names before it counts the rest.
NAMED_HOSTS = 3


def named(hosts: Sequence[str], first: int = NAMED_HOSTS) -> str:
    """'vm1, vm2, vm3 ... and 997 more': a line that stays short for any fleet (each host's
    problems are in the preflight reports and the run's log)."""
    shown = ", ".join(hosts[:first])
    return shown + (f" ... and {len(hosts) - first:,} more" if len(hosts) > first else "")


def parse_changes(items: Sequence[str] | Mapping[str, Any]) -> dict[str, Any]:
    """Workload field -> value from ``FIELD=VALUE`` texts (values read as YAML scalars).

    A mapping is taken as it is. ``duration_s=30`` gives 30, ``threads=[2, 4]`` a list.

    Raises
    ------
    anfperf.AnfperfError
        An item is not ``FIELD=VALUE``, or its value is not valid YAML.
    """
    from anfperf.yamlsafe import load_yaml

    if isinstance(items, Mapping):
        return dict(items)
    changes = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise AnfperfError(f"--set wants FIELD=VALUE, got {item!r}")
        changes[key.strip()] = load_yaml(value, f"--set {key.strip()}")
    return changes


def checked_run_id(run_id: str) -> str:
    """`run_id` when it is usable as a run folder's name, else :class:`AnfperfError`."""
    try:
        return check_folder_name(run_id, "run id")
    except ValueError as exc:
        raise AnfperfError(str(exc)) from None


def run_workloads(
    workloads: Sequence[Any],
    inventory: Inventory,
    out_dir: str | os.PathLike = DEFAULT_OUT,
    *,
    files: Sequence[str | os.PathLike] = (),
    changes: Sequence[str] | Mapping[str, Any] = (),
    tool: str = "fio",
    run_id: str | None = None,
    max_iops: float | None = None,
    force: bool = False,
    progress: bool = False,
    on_preflight: OnPreflight | None = None,
    on_start: OnStart | None = None,
    max_parallel_hosts: int = MAX_PARALLEL_HOSTS,
    retry_unreachable: bool = False,
    adaptive_ms: float | None = None,
    live_interval_s: float | None = LIVE_INTERVAL_S,
    slo_ms: float | None = None,
    on_live_line: Callable[[str], None] | None = None,
    on_alarm: Callable[[Any], None] | None = None,
) -> Manifest:
    """Preflight every host, then run `workloads` one after the other on all of them.

    Parameters
    ----------
    workloads : sequence of str or Workload
        Names (from the catalogue or `files`) or workloads.
    inventory : anfperf.runner.Inventory
    out_dir : path
        The run lands in ``out_dir/<run_id>/``.
    files : sequence of path
        Workload YAML files whose workloads shadow catalogue names.
    changes : sequence of 'FIELD=VALUE' or mapping
        Fields changed in every workload for this run (:func:`parse_changes`).
    tool, run_id, max_iops
        As for :func:`~anfperf.runner.steps.plan_workloads`.
    force : bool
        Run despite preflight problems (the hosts with problems are recorded as they fail; a
        host preflight could not reach is recorded with preflight's reason, not connected to
        again).
    retry_unreachable : bool
        With `force`, connect again in the run to the hosts preflight could not reach.
    progress : bool
        Show a live progress bar on stderr.
    on_preflight, on_start : callable, optional
        Told the plan and the reports after preflight, and the plan before it runs (the CLI
        prints them).
    max_parallel_hosts : int
        Hosts checked, connected to or collected from at once
        (:func:`~anfperf.runner.fleet.run_plan`).
    adaptive_ms, live_interval_s, slo_ms
        As for :func:`plan_run`.
    on_live_line, on_alarm : callable, optional
        Told the fleet's live figures and alarms as they come
        (:func:`~anfperf.runner.fleet.run_plan`).

    Returns
    -------
    Manifest
        The run's ledger.

    Raises
    ------
    anfperf.RemoteError
        Preflight found problems and `force` is False: nothing ran (``.problems`` per host).
    anfperf.AnfperfError
        A workload, a change or the run id is not valid, or `out_dir` cannot be written.
    """
    plan = plan_run(
        workloads, inventory, files=files, changes=changes, tool=tool, run_id=run_id,
        max_iops=max_iops, adaptive_ms=adaptive_ms, live_interval_s=live_interval_s,
        slo_ms=slo_ms,
    )  # fmt: skip
    return _preflight_and_run(
        plan, inventory, out_dir, force, progress, on_preflight, on_start,
        max_parallel_hosts=max_parallel_hosts, retry_unreachable=retry_unreachable,
        on_live_line=on_live_line, on_alarm=on_alarm,
    )  # fmt: skip


def plan_run(
    workloads: Sequence[Any],
    inventory: Inventory,
    *,
    files: Sequence[str | os.PathLike] = (),
    changes: Sequence[str] | Mapping[str, Any] = (),
    tool: str = "fio",
    run_id: str | None = None,
    max_iops: float | None = None,
    adaptive_ms: float | None = None,
    live_interval_s: float | None = LIVE_INTERVAL_S,
    slo_ms: float | None = None,
) -> RunPlan:
    """The plan :func:`run_workloads` runs, made without contacting a host: what ``anfperf run
    --dry-run`` shows.

    `adaptive_ms` makes each workload an adaptive sweep with that latency objective [ms]
    (:meth:`anfperf.workloads.Workload.as_adaptive`: from its lowest concurrency up to its
    highest, or the ``max_outstanding`` set); `live_interval_s` and `slo_ms` are as for
    :func:`~anfperf.runner.steps.plan_workloads`; the other arguments as for
    :func:`run_workloads`.
    """
    from anfperf.workloads import get_workload, load_workloads

    if not workloads:
        raise AnfperfError("name the workloads to run (see `anfperf workloads`)")
    extra = {w.name: w for path in files for w in load_workloads(path)}
    fields = parse_changes(changes)
    chosen = [(get_workload(w, extra) if isinstance(w, str) else w) for w in workloads]
    if adaptive_ms is not None:  # before --set, which may then change its bounds
        chosen = [w.as_adaptive(adaptive_ms) for w in chosen]
    chosen = [w.replace(**fields) for w in chosen]
    return plan_workloads(
        chosen, inventory, tool=tool, max_iops=max_iops,
        run_id=checked_run_id(run_id) if run_id else None, live_interval_s=live_interval_s,
        slo_ms=slo_ms,
    )  # fmt: skip


def resume_workloads(
    run_id: str,
    inventory: Inventory,
    out_dir: str | os.PathLike = DEFAULT_OUT,
    *,
    force: bool = False,
    progress: bool = False,
    on_preflight: OnPreflight | None = None,
    on_start: OnStart | None = None,
    max_parallel_hosts: int = MAX_PARALLEL_HOSTS,
    retry_unreachable: bool = False,
    on_live_line: Callable[[str], None] | None = None,
    on_alarm: Callable[[Any], None] | None = None,
) -> Manifest:
    """Preflight the hosts of run `run_id`, then run again what it is missing.

    The plan is made again from the manifest's workload specs and `inventory`
    (:func:`~anfperf.runner.steps.plan_from_manifest`); the rest is as for
    :func:`run_workloads`.
    """
    manifest = Manifest.load(Path(out_dir) / checked_run_id(run_id))
    plan = plan_from_manifest(manifest.data, inventory, source=manifest.path)
    return _preflight_and_run(
        plan, inventory, out_dir, force, progress, on_preflight, on_start, resume=True,
        max_parallel_hosts=max_parallel_hosts, retry_unreachable=retry_unreachable,
        on_live_line=on_live_line, on_alarm=on_alarm,
    )  # fmt: skip


@keeping_signals  # a stopped run's last presses held through closing the hosts
def _preflight_and_run(
    plan: RunPlan,
    inventory: Inventory,
    out_dir: str | os.PathLike,
    force: bool,
    progress: bool,
    on_preflight: OnPreflight | None,
    on_start: OnStart | None,
    *,
    resume: bool = False,
    max_parallel_hosts: int = MAX_PARALLEL_HOSTS,
    retry_unreachable: bool = False,
    **live: Any,
) -> Manifest:
    """Check the plan's hosts; run unless one has a problem (and not `force`); `live`: the
    live callbacks of :func:`~anfperf.runner.fleet.run_plan`."""
    # before the hosts are checked, which takes time; made only when the run starts
    output_folder(out_dir, what="the run", make=False)
    inventory = inventory.select(plan.hosts)
    conns = inventory.connect()
    try:
        with held_ssh_log():
            reports = preflight_inventory(
                inventory, conns, tool=plan.options["tool"], max_parallel_hosts=max_parallel_hosts
            )
            if on_preflight is not None:
                on_preflight(plan, reports)
            bad = {name: list(r.problems) for name, r in reports.items() if not r.ok}
            if bad and not force:
                raise RemoteError(f"nothing ran: fix the problems on {named(list(bad))}", bad)
            if on_start is not None:
                on_start(plan)
            return run_inventory(
                plan, inventory, out_dir, connections=conns, reports=reports, resume=resume,
                progress=progress, max_parallel_hosts=max_parallel_hosts,
                retry_unreachable=retry_unreachable, **live,
            )  # fmt: skip
    finally:
        close_all(conns)
