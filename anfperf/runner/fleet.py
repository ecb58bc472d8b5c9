"""Running a plan on a fleet: synchronized starts, per-host results, nothing collected is lost.

:func:`run_plan` takes a :class:`~anfperf.runner.steps.RunPlan` and connections (Fabric
Connections over SSH, or :class:`~anfperf.runner.local.LocalConnection`) and, step by step:

1. on every host, ``max_parallel_hosts`` at a time (one thread each): connects, makes a
   private work folder with an unpredictable name below the host's workdir (mode 0700),
   uploads the task's files, and keeps the connection open;
2. when every host is ready, starts all commands together (a start gun, not a clock: the
   spread of start times is recorded as the step's ``start_skew_s``);
3. watches each command's timeout; a command past it is stopped (its remote process group
   gets TERM, then KILL) and recorded as 'timeout';
4. as each host finishes (``max_parallel_hosts`` at a time), saves its stdout/stderr and
   copies its outputs to ``<out>/<run_id>/<host>/`` and records the result in the manifest --
   each file written atomically, so what arrived is kept whatever happens to the other hosts
   -- then removes the work folder.

The manifest is written whole at the start and the end, each host's events in between are
appended to its journal (:mod:`anfperf.runner.manifest`); what paramiko says (tracebacks of
hosts that do not greet) and every host event go to ``<out>/<run_id>/run.log``, not to the
console (:mod:`anfperf.runner.runlog`).

A host that cannot be reached, refuses authentication or has an unknown host key is recorded
as 'unreachable', one whose connection drops mid-run as 'lost'; either is skipped for the
remaining steps. A host preflight found unreachable is recorded so with preflight's reason and
not connected to again (``retry_unreachable`` of :func:`run_inventory` to try it again). A
host that stops answering (a hung VM keeps its TCP connection open) is declared 'lost' once it
has been silent past its bound -- preparing: ``prepare_timeout_s``; running: its timeout plus
the kill grace and two ``answer_timeout_s``; collecting: four ``answer_timeout_s`` without a
new file -- and the others go on without it.

Ctrl-C, SIGTERM and SIGHUP stop every running remote command, collect what the tools wrote (fio
writes its results on TERM), mark the manifest 'interrupted' and raise KeyboardInterrupt; more
signals while that happens shorten the wait for the hosts, never the recording. One run folder
is run by one process at a time (a lock file). ``resume=True`` re-runs only the tasks not
recorded as 'ok'. Work folders a killed run left on a host, and what still runs in them, are
removed when a run next prepares that host (:mod:`anfperf.runner.stale`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from anfperf.errors import AnfperfError
from anfperf.live import Alarm
from anfperf.runner.connect import close_quietly, raise_open_files_limit
from anfperf.runner.hostrun import (
    ANSWER_TIMEOUT_S,
    KILL_GRACE_S,
    MAX_PARALLEL_HOSTS,
    PREPARE_TIMEOUT_S,
    StepRunner,
)
from anfperf.runner.interrupts import hand_over, keeping_signals, stopping_on_signals
from anfperf.runner.inventory import DEFAULT_WORKDIR
from anfperf.runner.ledger import new_manifest, resume_manifest, step_record
from anfperf.runner.livefeed import LiveFeed
from anfperf.runner.manifest import MANIFEST_NAME, Manifest, now_iso
from anfperf.runner.progress import FleetProgress
from anfperf.runner.runlock import RunLock
from anfperf.runner.runlog import details, run_log
from anfperf.runner.steps import RunPlan, RunStep, plan_from_manifest
from anfperf.runner.sweeps import fleet_limits, next_step

log = logging.getLogger(__name__)

DEFAULT_OUT = "data/raw"


@keeping_signals
def run_plan(
    plan: RunPlan,
    connections: Mapping[str, Any] | Iterable[Any],
    out_dir: str | os.PathLike = DEFAULT_OUT,
    *,
    workdir: str | Mapping[str, str] = DEFAULT_WORKDIR,
    hosts_info: Mapping[str, Mapping[str, Any]] | None = None,
    facts: Mapping[str, Mapping[str, Any]] | None = None,
    resume: bool = False,
    progress: bool | FleetProgress = False,
    secrets: Iterable[str] = (),
    kill_grace_s: int = KILL_GRACE_S,
    answer_timeout_s: float = ANSWER_TIMEOUT_S,
    prepare_timeout_s: float = PREPARE_TIMEOUT_S,
    max_parallel_hosts: int = MAX_PARALLEL_HOSTS,
    extra: Mapping[str, Any] | None = None,
    unreachable: Mapping[str, str] | None = None,
    on_live_line: Callable[[str], None] | None = None,
    on_alarm: Callable[[Alarm], None] | None = None,
) -> Manifest:
    """Run `plan` on the hosts of `connections` and record everything under `out_dir`.

    Parameters
    ----------
    plan : RunPlan
        The steps; every host named in it must be in `connections`.
    connections : mapping or iterable
        Host name -> connection (``Inventory.connect()``), or a Fabric Group / list of
        connections named by their ``original_host``.
    out_dir : path
        Runs land in ``out_dir/<run_id>/`` (manifest.json, one folder per host).
    workdir : str or mapping
        Remote base folder, for all hosts or per host; each task works in a private folder
        ``<workdir>/<run_id>.<host>.<random>`` (mode 0700), removed once its outputs are
        collected. A base that another user could change (it, a folder above it or a
        link on the way belongs to them, or is writable by all and not sticky) is refused.
    hosts_info, facts : mapping, optional
        Per host: how it is reached (``Host.describe()``) and its preflight facts, recorded in
        the manifest.
    resume : bool
        Continue the run already recorded in ``out_dir/<run_id>``: tasks recorded as 'ok' are
        kept, all others run again with the commands of `plan` (which must have the run's
        steps and hosts).
    progress : bool or FleetProgress
        Show a live progress bar on stderr (or use the one given).
    secrets : iterable of str
        Texts (passwords, key text) blanked out of every reason recorded.
    kill_grace_s : int
        Seconds between TERM and KILL when a command is stopped.
    answer_timeout_s : float
        Seconds a host may take to answer one request (open a channel, stop a command) before
        it counts as hung.
    prepare_timeout_s : float
        Seconds a host may take to connect and receive its files before the others start
        without it.
    max_parallel_hosts : int
        Hosts that connect and receive their files at once, and that send their results at
        once (all prepared hosts still start together). Bounds the threads and open files
        that hosts which do not answer can take. The soft limit of open files is raised (up
        to the hard one) when the hosts need more.
    extra : mapping, optional
        More top-level manifest fields (e.g. the tool and workload specs).
    unreachable : mapping, optional
        Host -> why it was found unreachable just before (by preflight,
        :func:`unreachable_at_preflight`): recorded 'unreachable' with that reason, never
        connected to in this run.
    on_live_line, on_alarm : callable, optional
        With a plan of live tasks (``plan_options.live_interval_s``): told the fleet's live
        line as figures arrive, and each alarm as it is raised
        (:class:`~anfperf.runner.livefeed.LiveFeed`). The figures go to ``live.jsonl`` in
        the run folder whether or not these are given.

    Returns
    -------
    Manifest
        The run's ledger (``.status``: 'complete', 'partial'; ``.failures()`` says what failed).

    Raises
    ------
    KeyboardInterrupt
        After stopping the remote commands and saving what was collected (Ctrl-C, SIGTERM
        or SIGHUP; the latter two as :class:`Stopped`).
    anfperf.AnfperfError
        The run exists (without `resume`), another process is running it, or its manifest
        cannot be written.
    """
    conns = named_connections(connections)
    missing = [h for h in plan.hosts if h not in conns]
    if missing:
        raise ValueError(f"no connection for hosts {missing}")
    run_dir = Path(out_dir) / plan.run_id
    secrets = [s for s in secrets if s]
    # every established connection keeps a socket through the run: room for them all
    raise_open_files_limit(_open_files() + len(plan.hosts) + 4 * max_parallel_hosts + 64)
    with RunLock(run_dir, plan.run_id), run_log(run_dir):
        manifest = _open_manifest(
            plan, conns, run_dir, resume=resume, workdir=workdir, hosts_info=hosts_info,
            facts=facts, extra=extra,
        )  # fmt: skip
        if isinstance(progress, FleetProgress):
            bar = progress
        else:
            bar = FleetProgress(plan.task_hosts, plan.duration_s, disable=not progress)
        runner = StepRunner(
            plan, conns, manifest, run_dir, workdir, bar, secrets, facts, max_parallel_hosts
        )
        runner.kill_grace_s, runner.answer_timeout_s = kill_grace_s, answer_timeout_s
        runner.prepare_timeout_s = prepare_timeout_s
        runner.unreachable = dict(unreachable or {})
        runner.live = _live_feed(plan, run_dir, manifest, bar, on_live_line, on_alarm)
        runner.step_alarms = lambda index, step: step_alarms(plan.options, index, step, manifest)
        manifest.reserve()
        try:
            _run_steps(plan, runner, manifest)
        finally:
            if not isinstance(progress, FleetProgress):
                bar.close()
            manifest.release_reserve()
        ok = all(t["status"] == "ok" for _, _, t in manifest.tasks())
        manifest.update(status="complete" if ok else "partial", end=now_iso())
        manifest.close()
        if runner.live is not None:
            runner.live.close(manifest.status)
        for step, host, status, reason in manifest.failures():
            details.info("%s on %s: %s: %s", step, host, status, reason)
        details.info(
            "manifest: %d whole writes, %d journal entries, %d bytes",
            manifest.checkpoints, manifest.journal_entries, manifest.bytes_written,
        )  # fmt: skip
    return manifest


def _open_files() -> int:
    """How many files this process has open (0 where /proc does not say)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


def _open_manifest(
    plan: RunPlan,
    conns: Mapping[str, Any],
    run_dir: Path,
    *,
    resume: bool,
    workdir: str | Mapping[str, str],
    hosts_info: Mapping[str, Mapping[str, Any]] | None,
    facts: Mapping[str, Mapping[str, Any]] | None,
    extra: Mapping[str, Any] | None,
) -> Manifest:
    """The run's manifest: the recorded one to resume, else a new one, written at once."""
    if resume:
        return resume_manifest(plan, run_dir, facts)
    if (run_dir / MANIFEST_NAME).exists():
        raise AnfperfError(f"run {plan.run_id} exists in {run_dir}: resume it or pick a new id")
    manifest = Manifest(run_dir, new_manifest(plan, conns, workdir, hosts_info, facts, extra))
    manifest.write()
    return manifest


def _run_steps(plan: RunPlan, runner: StepRunner, manifest: Manifest) -> None:
    """Run the steps in order, an adaptive sweep's next step inserted after each of its steps;
    on Ctrl-C or a signal, stop the hosts and record 'interrupted'."""
    # the first signal stops the run; later ones, even while its exception unwinds, only
    # hurry the hosts (runner.impatient), and the manifest is still written
    with stopping_on_signals(runner.impatient) as on_stop:
        try:
            index = 0
            while index < len(runner.plan.steps):
                runner.run_step(index, runner.plan.steps[index])
                follow = next_step(runner.plan, index, manifest)
                if follow is not None:
                    runner.plan = runner.plan.with_step(index + 1, follow)
                    manifest.insert_step(
                        index + 1, step_record(follow, index + 1, manifest.data["hosts"])
                    )
                    runner.bar.add_planned(follow.duration_s)
                index += 1
        except KeyboardInterrupt as exc:
            hand_over(runner.impatient)  # also when the interrupt came from elsewhere
            runner.stopped_by = getattr(exc, "signame", "Ctrl-C")
            runner.interrupt()
            manifest.update(status="interrupted", end=now_iso())
            manifest.close()
            if runner.live is not None:
                runner.live.close("interrupted")
            on_stop()  # the burst's last presses while the run winds up
            raise


def _live_feed(
    plan: RunPlan,
    run_dir: Path,
    manifest: Manifest,
    bar: FleetProgress,
    on_line: Callable[[str], None] | None,
    on_alarm: Callable[[Alarm], None] | None,
) -> LiveFeed | None:
    """The run's live figures when its tools report while they run, else None; a drawn bar
    shows the live line and writes the alarms above itself, besides the callbacks."""
    interval_s = plan.options.get("live_interval_s")
    if not interval_s:
        return None

    def line(text: str) -> None:
        bar.set_live(text)
        if on_line is not None:
            on_line(text)

    def alarm(event: Alarm) -> None:
        bar.write(f"alarm: {event.text}")
        if on_alarm is not None:
            on_alarm(event)

    return LiveFeed(run_dir, manifest, interval_s=interval_s, on_line=line, on_alarm=alarm)


def step_alarms(
    options: Mapping[str, Any], index: int, step: RunStep, manifest: Manifest
) -> dict[str, float | None]:
    """What a step's live alarms judge it by: the latency objective (an adaptive sweep's
    ``until_lat_ms``, else the plan's ``slo_ms``), the known limit of the volumes its hosts
    mount (``volume_json``) at its block size, and how often its tool prints by itself."""
    workload = step.workload or {}
    sweep = (step.adaptive or {}).get("sweep") or {}
    slo = sweep.get("until_lat_ms") or options.get("slo_ms")
    limits = None
    if workload:
        from anfperf.workloads import Workload

        limits = fleet_limits(
            manifest.data["hosts"], manifest.data["steps"][index], Workload.from_dict(workload)
        )
    return {
        "slo_ms": slo,
        "limit_iops": limits.iops_max if limits is not None else None,
        "limit_mib_s": limits.bw_mib_s if limits is not None else None,
        "tool_interval_s": float(workload.get("interval_s") or 0.0),
    }


def resume_run(
    run_dir: str | os.PathLike, inventory: Any, *, plan: RunPlan | None = None, **kwargs: Any
) -> Manifest:
    """Run again what the run in `run_dir` is missing (tasks not recorded as 'ok').

    Parameters
    ----------
    run_dir : path
        ``<out>/<run_id>``.
    inventory : anfperf.runner.Inventory
        Holds every host of the run (addresses and mount points as they are now).
    plan : RunPlan, optional
        The plan the run was made from. Default: made again from the workload specs of the
        manifest with :func:`~anfperf.runner.steps.plan_from_manifest` (the commands recorded
        in a manifest are never run).
    **kwargs
        For :func:`run_inventory` (connections, reports, progress).
    """
    run_dir = Path(run_dir)
    data = Manifest.load(run_dir).data
    if plan is None:
        plan = plan_from_manifest(data, inventory)
    return run_inventory(plan, inventory.select(plan.hosts), run_dir.parent, resume=True, **kwargs)


def named_connections(connections: Mapping[str, Any] | Iterable[Any]) -> dict[str, Any]:
    """Host name -> connection, from a mapping, a Fabric Group or a list of connections.

    Connections in a Group or list are named by ``original_host`` (the inventory sets it to
    the host's name), else by their address.
    """
    if isinstance(connections, Mapping):
        return dict(connections)
    return {getattr(c, "original_host", None) or c.host: c for c in connections}


def close_all(connections: Mapping[str, Any] | Iterable[Any]) -> None:
    """Close every connection (errors ignored)."""
    for conn in named_connections(connections).values():
        close_quietly(conn)


@keeping_signals
def run_inventory(
    plan: RunPlan,
    inventory: Any,
    out_dir: str | os.PathLike = DEFAULT_OUT,
    *,
    connections: Mapping[str, Any] | None = None,
    reports: Mapping[str, Any] | None = None,
    resume: bool = False,
    progress: bool = False,
    extra: Mapping[str, Any] | None = None,
    retry_unreachable: bool = False,
    **options: Any,
) -> Manifest:
    """:func:`run_plan` on an inventory's hosts, recording how each is reached and its preflight.

    Parameters
    ----------
    plan : RunPlan
    inventory : anfperf.runner.Inventory
    out_dir : path
    connections : mapping, optional
        From ``inventory.connect()`` (made here when not given, and closed at the end).
    reports : mapping, optional
        Preflight reports per host (:func:`anfperf.runner.preflight.preflight_inventory`):
        their facts, problems and warnings go into the manifest. A host they found
        unreachable is recorded so with preflight's reason and not connected to again
        (:func:`unreachable_at_preflight`): a dead host costs its connect timeout once.
    retry_unreachable : bool
        Connect again to the hosts the reports found unreachable.
    resume, progress, extra, **options
        As for :func:`run_plan` (options: kill_grace_s, answer_timeout_s, prepare_timeout_s,
        max_parallel_hosts).
    """
    own = connections is None
    conns = inventory.connect() if own else connections
    reports = reports or {}
    hosts_info = {}
    facts = {}
    for host in inventory.hosts:
        report = reports.get(host.name)
        hosts_info[host.name] = {
            **host.describe(),
            "problems": list(getattr(report, "problems", [])),
            "warnings": list(getattr(report, "warnings", [])),
        }
        facts[host.name] = dict(getattr(report, "facts", {}))
    try:
        return run_plan(
            plan, conns, out_dir,
            workdir={h.name: h.workdir for h in inventory.hosts},
            hosts_info=hosts_info, facts=facts, resume=resume, progress=progress,
            secrets=inventory.secrets(),
            extra={"inventory": inventory.source, **dict(extra or {})},
            unreachable={} if retry_unreachable else unreachable_at_preflight(reports),
            **options,
        )  # fmt: skip
    finally:
        if own:
            close_all(conns)


def unreachable_at_preflight(reports: Mapping[str, Any]) -> dict[str, str]:
    """Host -> why preflight could not reach it, for the hosts of `reports` it could not.

    A host preflight did not check because this machine ran out of open files
    (``controller_limit``) is left out: it may be fine.
    """
    unreachable = {}
    for name, report in reports.items():
        facts = getattr(report, "facts", {})
        if facts.get("reachable") is not False or facts.get("controller_limit"):
            continue
        said = [p for p in getattr(report, "problems", []) if p.startswith("unreachable: ")]
        reason = said[0].removeprefix("unreachable: ") if said else "unreachable"
        unreachable[name] = f"{reason} (at preflight; not tried again)"
    return unreachable
