"""Running a plan on a fleet: synchronized starts, per-host results, nothing collected is lost.

:func:`run_plan` takes a :class:`~anfperf.runner.steps.RunPlan` and connections (Fabric
Connections over SSH, or :class:`~anfperf.runner.local.LocalConnection`) and, step by step:

1. on every host at once (one thread each): connects, makes a private work folder with an
   unpredictable name below the host's workdir (mode 0700), uploads the task's files;
2. when every host is ready, starts all commands together (a start gun, not a clock: the
   spread of start times is recorded as the step's ``start_skew_s``);
3. watches each command's timeout; a command past it is stopped (its remote process group
   gets TERM, then KILL) and recorded as 'timeout';
4. as each host finishes, saves its stdout/stderr and copies its outputs to
   ``<out>/<run_id>/<host>/`` and records the result in the manifest -- each file written
   atomically, so what arrived is kept whatever happens to the other hosts -- then removes
   the work folder.

A host that cannot be reached, refuses authentication or has an unknown host key is recorded
as 'unreachable', one whose connection drops mid-run as 'lost'; either is skipped for the
remaining steps. A host that stops answering (a hung VM keeps its TCP connection open) is
declared 'lost' once it has been silent past its bound -- preparing: ``prepare_timeout_s``;
running: its timeout plus the kill grace and two ``answer_timeout_s``; collecting: four
``answer_timeout_s`` without a new file -- and the others go on without it.

Ctrl-C, SIGTERM and SIGHUP stop every running remote command, collect what the tools wrote (fio
writes its results on TERM), mark the manifest 'interrupted' and raise KeyboardInterrupt; more
signals while that happens shorten the wait for the hosts, never the recording. One run folder
is run by one process at a time (a lock file). ``resume=True`` re-runs only the tasks not
recorded as 'ok'.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import logging
import os
import posixpath
import signal
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from anfperf import __version__
from anfperf.errors import AnfperfError
from anfperf.runner.collect import LocalSaveError, collect
from anfperf.runner.inventory import DEFAULT_WORKDIR
from anfperf.runner.local import LocalConnection
from anfperf.runner.manifest import MANIFEST_VERSION, Manifest, atomic_write_bytes, now_iso
from anfperf.runner.progress import FleetProgress
from anfperf.runner.security import (
    describe_error,
    join,
    kill_command,
    redact,
    remove_command,
    workdir_command,
    wrap_command,
)
from anfperf.runner.steps import HostTask, RunPlan, RunStep, plan_from_manifest, step_files
from anfperf.runner.tools import find_tool, tool_version

log = logging.getLogger(__name__)

#: Where runs land by default (relative to the working directory), as anfperf.ingest expects.
DEFAULT_OUT = "data/raw"
#: Seconds between TERM and KILL when stopping a remote command.
KILL_GRACE_S = 5
#: Seconds to wait for hosts to finish after Ctrl-C before giving up on them.
INTERRUPT_WAIT_S = 30
#: Seconds a host may take to answer one request: open a channel, make a folder, stop a command.
ANSWER_TIMEOUT_S = 30
#: Seconds a host may take to connect and receive its files before the others start without it.
PREPARE_TIMEOUT_S = 120
#: Seconds between SSH keepalives (keeps idle connections through NAT and firewalls).
KEEPALIVE_S = 15
#: A signal repeated within this many seconds of the first is the same impatient press.
REPEAT_S = 2.0
#: The lock file that keeps two processes from running one run folder at once.
LOCK_NAME = ".anfperf-run.lock"
#: States that mean the host itself is out of reach for the rest of the run.
_HOST_DOWN = ("unreachable", "lost")
#: Signals that stop a run like Ctrl-C: CI cancel, `timeout`, systemd (TERM), a closed terminal.
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal other than Ctrl-C (``signame``: 'SIGTERM', 'SIGHUP')."""

    def __init__(self, signame: str):
        super().__init__(signame)
        self.signame = signame


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
    extra: Mapping[str, Any] | None = None,
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
        collected. A base owned by another user is refused.
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
    extra : mapping, optional
        More top-level manifest fields (e.g. the tool and workload specs).

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
    with _RunLock(run_dir, plan.run_id):
        if resume:
            manifest = _resume_manifest(plan, run_dir, facts)
        else:
            if (run_dir / "manifest.json").exists():
                raise AnfperfError(
                    f"run {plan.run_id} exists in {run_dir}: resume it or pick a new id"
                )
            data = _new_manifest(plan, conns, workdir, hosts_info, facts, extra)
            manifest = Manifest(run_dir, data)
            manifest.write()
        if isinstance(progress, FleetProgress):
            bar = progress
        else:
            bar = FleetProgress(plan.task_hosts, plan.duration_s, disable=not progress)
        runner = _Runner(plan, conns, manifest, run_dir, workdir, bar, secrets, facts)
        runner.kill_grace_s, runner.answer_timeout_s = kill_grace_s, answer_timeout_s
        runner.prepare_timeout_s = prepare_timeout_s
        manifest.reserve()
        try:
            with _signals(_raise_stopped):
                for index, step in enumerate(plan.steps):
                    runner.run_step(index, step)
        except KeyboardInterrupt as exc:
            runner.stopped_by = getattr(exc, "signame", "Ctrl-C")
            with _signals(runner.impatient):
                runner.interrupt()
                manifest.update(status="interrupted", end=now_iso())
            raise
        finally:
            if not isinstance(progress, FleetProgress):
                bar.close()
            manifest.release_reserve()
        ok = all(t["status"] == "ok" for _, _, t in manifest.tasks())
        manifest.update(status="complete" if ok else "partial", end=now_iso())
    for step, host, status, reason in manifest.failures():
        log.warning("%s on %s: %s: %s", step, host, status, reason)
    return manifest


def _resume_manifest(
    plan: RunPlan, run_dir: Path, facts: Mapping[str, Mapping[str, Any]] | None
) -> Manifest:
    """The recorded run, checked against `plan`, its tasks to re-run set to `plan`'s commands."""
    manifest = Manifest.load(run_dir)
    if manifest.run_id != plan.run_id:
        raise AnfperfError(f"{manifest.path} belongs to run {manifest.run_id}, not {plan.run_id}")
    recorded = [(s["name"], sorted(s["tasks"])) for s in manifest.data["steps"]]
    planned = [(s.name, sorted(s.tasks)) for s in plan.steps]
    if recorded != planned:
        raise AnfperfError(
            f"{manifest.path}: the plan given does not match the run (steps and hosts recorded: "
            f"{recorded}; given: {planned})"
        )
    manifest.update(status="running", resumed=[*manifest.data.get("resumed", []), now_iso()])
    for index, host, task in manifest.tasks():
        if task["status"] != "ok":
            new = plan.steps[index].tasks[host]
            manifest.update_task(index, host, **new.to_dict(), command=join(new.argv))
    # hosts with something to re-run: record their facts as they are now
    rerun = {h for _, h, t in manifest.tasks() if t["status"] != "ok"}
    for host in rerun & set(facts or {}):
        manifest.update_host(host, facts=dict(facts[host]))
    return manifest


class _RunLock:
    """An exclusive lock on a run folder (flock on :data:`LOCK_NAME`, held by this process)."""

    def __init__(self, run_dir: Path, run_id: str):
        self.path = run_dir / LOCK_NAME
        self.run_id = run_id
        self.fd: int | None = None

    def __enter__(self) -> _RunLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise AnfperfError(f"{self.path.parent}: cannot be used: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise AnfperfError(
                f"run {self.run_id} in {self.path.parent} is being run by another anfperf "
                f"(pid {holder}): wait for it to end or stop it first"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None


def _raise_stopped(signum: int, frame: Any) -> None:
    raise Stopped(signal.Signals(signum).name)


def _exit_reason(result: Any, secrets: Iterable[str]) -> str | None:
    """'exit code N: <last line it printed>' for a command that failed, else None."""
    if result is None or result.exited in (0, -1):
        return None
    last = (result.stderr or result.stdout or "").strip().splitlines()
    tail = f": {redact(last[-1], secrets)[:300]}" if last else ""
    return f"exit code {result.exited}{tail}"


@contextlib.contextmanager
def _signals(handler):
    """Handle SIGTERM and SIGHUP (and SIGINT unless `handler` raises) with `handler` meanwhile.

    Only in the main thread (Python delivers signals there), and only signals not set to be
    ignored (``nohup``).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = [*_STOP_SIGNALS] + ([signal.SIGINT] if handler is not _raise_stopped else [])
    saved = {}
    for sig in wanted:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            saved[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


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


def _new_manifest(
    plan: RunPlan,
    conns: Mapping[str, Any],
    workdir: str | Mapping[str, str],
    hosts_info: Mapping[str, Mapping[str, Any]] | None,
    facts: Mapping[str, Mapping[str, Any]] | None,
    extra: Mapping[str, Any] | None,
) -> dict[str, Any]:
    hosts = {}
    for name in plan.hosts:
        info = dict((hosts_info or {}).get(name) or _describe_connection(conns[name]))
        info["workdir"] = _workdir(workdir, name)
        info["facts"] = dict((facts or {}).get(name) or {})
        hosts[name] = info
    steps = []
    for index, step in enumerate(plan.steps):
        names = step_files(step, index)
        tasks = {}
        for host, task in step.tasks.items():
            tasks[host] = {
                **task.to_dict(),
                "command": join(task.argv),
                "stdout": f"{host}/{names['stdout']}",
                "stderr": f"{host}/{names['stderr']}",
                "tool_version": tool_version(step.tool, hosts[host]["facts"]),
                "status": "pending", "reason": None, "exit_code": None, "start": None,
                "end": None, "elapsed_s": None, "collected": [], "attempts": 0,
            }  # fmt: skip
        steps.append(
            {"name": step.name, "tool": step.tool, "workload": step.workload,
             "duration_s": step.duration_s, "start_skew_s": None, "tasks": tasks,
             "reaches": list(step.reaches)}
        )  # fmt: skip
    return {
        "manifest_version": MANIFEST_VERSION,
        "run_id": plan.run_id,
        "status": "running",
        "created": now_iso(),
        "updated": None,
        "end": None,
        "anfperf_version": __version__,
        "tools": sorted({s.tool for s in plan.steps}),
        "plan_options": dict(plan.options),
        **dict(extra or {}),
        "hosts": hosts,
        "steps": steps,
    }


def _describe_connection(conn: Any) -> dict[str, Any]:
    gateway = getattr(conn, "gateway", None)
    return {
        "hostname": getattr(conn, "host", None),
        "port": getattr(conn, "port", None),
        "user": getattr(conn, "user", None),
        "jump": getattr(gateway, "host", None) if gateway is not None else None,
        "local": isinstance(conn, LocalConnection),
    }


def _workdir(workdir: str | Mapping[str, str], host: str) -> str:
    """The base remote folder of `host`: one for all hosts, or its entry (default if none)."""
    if isinstance(workdir, Mapping):
        return workdir.get(host) or DEFAULT_WORKDIR
    return workdir


class _Runner:
    """The state of one run_plan call shared by its per-host threads."""

    def __init__(self, plan, conns, manifest, run_dir, workdir, bar, secrets, facts):
        self.plan: RunPlan = plan
        self.conns: dict[str, Any] = conns
        self.manifest: Manifest = manifest
        self.run_dir: Path = run_dir
        self.workdir = workdir
        self.bar: FleetProgress = bar
        self.secrets: list[str] = secrets
        self.kill_grace_s = KILL_GRACE_S
        self.answer_timeout_s = ANSWER_TIMEOUT_S
        self.prepare_timeout_s = PREPARE_TIMEOUT_S
        self.facts: Mapping[str, Mapping[str, Any]] = facts or {}
        self.down: dict[str, str] = {}  # host -> why it is out of reach for this run
        self.stop = threading.Event()
        self.stopped_by = "Ctrl-C"
        self.hurry = threading.Event()  # signalled again: stop waiting for the hosts
        self.first_stop = 0.0
        self.running: dict[str, tuple[Any, str]] = {}  # host -> (connection, remote pid file)
        self.lock = threading.Lock()
        self.index = 0  # the step running now
        self.ready: dict[str, threading.Event] = {}  # host -> prepared (or failed) this step
        self.done: dict[str, threading.Event] = {}  # host -> set when its thread has finished
        self.deadline: dict[str, tuple[float, str]] = {}  # host -> (give up at, phase)
        self.abandoned: set[tuple[int, str]] = set()  # (step, host) given up on
        self.go = threading.Event()

    def reason(self, exc: BaseException) -> str:
        return describe_error(exc, self.secrets)

    # -- one step ---------------------------------------------------------------------------

    def run_step(self, index: int, step: RunStep) -> None:
        todo = [h for h in step.tasks if not self._already_ok(index, h)]
        if not todo:
            return
        self.index = index
        self.ready = {host: threading.Event() for host in todo}
        self.go = go = threading.Event()
        starts: dict[str, float] = {}
        # Completion is signalled by events, not Thread.join: a KeyboardInterrupt landing inside
        # join() can leave CPython reporting a running thread as finished.
        self.done = {host: threading.Event() for host in todo}
        for host in todo:
            self._set_deadline(host, self.prepare_timeout_s, "preparing")
            threading.Thread(
                target=self._host_task,
                args=(index, step, host, step.tasks[host], go, starts),
                name=f"anfperf-{host}",
                daemon=True,  # a host that never answers must not keep Python alive
            ).start()
        self._watch(index, self.ready)  # every host ready, failed or given up on
        self.bar.start_step(f"{step.name} ({index + 1}/{len(self.plan.steps)})", step.duration_s)
        go.set()
        self._watch(index, self.done)
        self.bar.end_step()
        if len(starts) > 1:
            skew = max(starts.values()) - min(starts.values())
            self.manifest.update_step(index, start_skew_s=round(skew, 4))

    def _watch(self, index: int, events: Mapping[str, threading.Event]) -> None:
        """Wait for `events`, giving up on hosts silent past their deadline."""
        while True:
            waiting = [h for h, e in events.items() if not e.is_set()]
            if not waiting:
                return
            now = time.monotonic()
            for host in waiting:
                until, phase = self.deadline.get(host, (float("inf"), ""))
                if now > until:
                    self._give_up(index, host, "lost", f"no answer {phase} (the host hung?)")
            events[waiting[0]].wait(timeout=0.2)

    def _set_deadline(self, host: str, seconds: float, phase: str) -> None:
        """Give up on `host` if it is still busy `seconds` from now (`phase` says doing what)."""
        self.deadline[host] = (time.monotonic() + seconds, f"for {seconds:g} s while {phase}")

    def _give_up(self, index: int, host: str, status: str, reason: str) -> None:
        """Record `host` as gone for this run and stop waiting for its thread."""
        with self.lock:
            if (index, host) in self.abandoned or self.done[host].is_set():
                return
            self.abandoned.add((index, host))
        self.down[host] = reason
        self._record(index, host, status=status, reason=reason, force=True)
        log.warning("%s: %s: %s", host, status, reason)
        # closing ends whatever the host's thread waits for; it may itself hang: not here
        threading.Thread(target=_close_quietly, args=(self.conns[host],), daemon=True).start()
        self.ready[host].set()
        self.done[host].set()

    def _already_ok(self, index: int, host: str) -> bool:
        task = self.manifest.task(index, host)
        if task["status"] != "ok":
            return False
        # an 'ok' whose files were removed since is missing too
        return all((self.run_dir / p).exists() for p in task.get("collected", []))

    def _host_task(self, index, step, host, task: HostTask, go, starts) -> None:
        try:
            self._host_task_body(index, step, host, task, go, starts)
        except Exception as exc:  # never lose a host's record to an unexpected error
            log.exception("%s: unexpected error", host)
            try:
                self._record(index, host, status="failed", reason=self.reason(exc))
            except AnfperfError as again:  # the manifest cannot be written (disk full)
                log.error("%s: %s", host, again)
        finally:
            self.ready[host].set()
            self.done[host].set()

    def _host_task_body(self, index, step, host, task: HostTask, go, starts) -> None:
        attempts = self.manifest.task(index, host).get("attempts", 0) + 1
        if host in self.down:
            reason = f"host out of reach earlier in this run: {self.down[host]}"
            self._record(index, host, status="skipped", reason=reason)
            return
        wd, failure = self._prepare(host, index, task)
        if failure is not None:
            self._record(index, host, attempts=attempts, **failure)
            return
        self.bar.set_state(host, "ready")
        self.deadline.pop(host, None)  # waiting for the others is not hanging
        self.ready[host].set()
        go.wait()
        if self.stop.is_set() or (index, host) in self.abandoned:
            self._record(index, host, status="interrupted", reason="stopped before it started")
            return
        names = step_files(step, index)
        self._set_deadline(
            host,
            task.effective_timeout_s + self.kill_grace_s + 2 * self.answer_timeout_s,
            f"past its timeout of {task.effective_timeout_s:g} s: it could not be stopped",
        )
        result, error, stop_failed, fields = self._execute(
            host, step, task, wd, posixpath.join(wd, names["pidfile"]), starts
        )
        fields["attempts"] = attempts
        if host in self.facts:  # the version this attempt ran with (a resume may differ)
            fields["tool_version"] = tool_version(step.tool, self.facts[host])
        status, reason = self._classify(result, error, stop_failed, task)
        self.bar.set_state(host, "collecting")
        self._set_deadline(host, 4 * self.answer_timeout_s, "collecting its results")
        host_dir = self.run_dir / host
        problems = [reason] if reason else []
        if result is not None:
            problems += self._save_streams(host, host_dir, names, result)
        if stop_failed:  # the host hung: nothing can be collected from it
            collected, missing, collect_error = [], list(task.outputs), "the host is not answering"
        else:
            collected, missing, collect_error = self._collect(host, wd, task.outputs, host_dir)
        fields["collected"] = [f"{host}/{p}" for p in collected]
        adapter = find_tool(step.tool)
        if adapter and problems and reason == _exit_reason(result, self.secrets):
            # the tool's own words, where it has better ones than the last line it printed
            said = adapter.failure_reason(
                f"{result.stdout or ''}\n{result.stderr or ''}",
                [host_dir / o for o in task.outputs],
            )
            if said:
                problems[0] = f"exit code {result.exited}: {redact(said, self.secrets)}"
        if collect_error:
            problems.append(f"outputs not collected: {collect_error}")
            if status == "ok":
                status = "failed" if collect_error.startswith("cannot save") else "lost"
        elif missing and status == "ok":
            status = "failed"
            problems.append(f"outputs missing: {', '.join(missing)}")
        elif problems and status == "ok":  # a stream could not be saved
            status = "failed"
        if status in _HOST_DOWN:
            self.down[host] = "; ".join(problems) or status
        elif collect_error is None:  # everything there was to take is here
            self._remove(host, wd)
        self._record(index, host, status=status, reason="; ".join(problems) or None, **fields)

    def _prepare(self, host: str, index: int, task: HostTask):
        """Connect, make the private work folder, upload: (folder, None) or (None, failure)."""
        conn = self.conns[host]
        self.bar.set_state(host, "connecting")
        try:
            conn.open()
            _bound_waits(conn, self.answer_timeout_s)
        except Exception as exc:
            self.down[host] = reason = self.reason(exc)
            return None, {"status": "unreachable", "reason": reason}
        self.bar.set_state(host, "uploading")
        base = _workdir(self.workdir, host)
        try:
            made = conn.run(
                workdir_command(base, f"{self.plan.run_id}.{host}"), hide=True, warn=True,
                in_stream=False, timeout=self.answer_timeout_s,
            )  # fmt: skip
        except Exception as exc:
            return None, self._lost(host, f"no work folder made in {base}", exc)
        wd = made.stdout.strip()
        if made.exited != 0 or not wd.startswith(base.rstrip("/") + "/"):
            why = (made.stderr or made.stdout).strip().splitlines() or [f"exit {made.exited}"]
            return None, {"status": "failed", "reason": f"work folder: {why[-1][:300]}"}
        self.manifest.update_task(index, host, remote_dir=wd)
        try:
            subdirs = {posixpath.dirname(posixpath.join(wd, n)) for n in task.files} - {wd}
            if subdirs:
                conn.run(join(["mkdir", "-p", "--", *sorted(subdirs)]), hide=True, warn=False,
                         in_stream=False, timeout=self.answer_timeout_s)  # fmt: skip
            for name, text in task.files.items():
                conn.put(io.BytesIO(text.encode("utf-8")), remote=posixpath.join(wd, name))
        except Exception as exc:
            if _connection_error(exc):
                return None, self._lost(host, f"upload to {wd} failed", exc)
            return None, {
                "status": "failed",
                "reason": f"upload to {wd} failed: {self.reason(exc)}",
            }
        return wd, None

    def _lost(self, host: str, what: str, exc: BaseException) -> dict[str, str]:
        self.down[host] = reason = f"{what}: {self.reason(exc)}"
        return {"status": "lost", "reason": reason}

    def _execute(self, host, step, task: HostTask, wd: str, pidfile: str, starts):
        """Run the task's command under its timeout: (result, error, stop failed, fields).

        `stop failed` is None when the command was not stopped for its timeout, else the
        reason the stop failed ('' when it worked).
        """
        conn = self.conns[host]
        finished = threading.Event()
        stopping: list[str] = []

        def on_timeout() -> None:
            limit = task.effective_timeout_s
            log.warning("%s: %s ran past %.0f s: stopping it", host, step.name, limit)
            stopping.append(self._kill(conn, pidfile, finished))

        watchdog = threading.Timer(task.effective_timeout_s, on_timeout)
        watchdog.daemon = True
        result = error = None
        start_wall, start = now_iso(), time.monotonic()
        with self.lock:
            starts[host] = time.time()
            self.running[host] = (conn, pidfile)
        self.bar.set_state(host, "running")
        watchdog.start()
        try:
            result = conn.run(wrap_command(task.argv, wd, pidfile), hide=True, warn=True,
                              in_stream=False)  # fmt: skip
        except Exception as exc:  # the connection broke during the run
            error = exc
        finally:
            finished.set()
            watchdog.cancel()
            with self.lock:
                self.running.pop(host, None)
        fields: dict[str, Any] = {
            "start": start_wall,
            "end": now_iso(),
            "elapsed_s": round(time.monotonic() - start, 3),
        }
        if result is not None:
            fields["exit_code"] = result.exited
        # the watchdog may still be stopping the command: its verdict is needed
        deadline = time.monotonic() + self.answer_timeout_s + self.kill_grace_s + 10
        while watchdog.is_alive() and not stopping and time.monotonic() < deadline:
            time.sleep(0.05)
        return result, error, (stopping[0] if stopping else None), fields

    def _classify(self, result, error, stop_failed, task: HostTask) -> tuple[str, str | None]:
        limit = f"{task.effective_timeout_s:g} s"
        if stop_failed:
            return (
                "lost",
                f"ran past its timeout of {limit} and could not be stopped: {stop_failed}",
            )
        if stop_failed is not None:
            return "timeout", f"ran past its timeout of {limit} and was stopped"
        if self.stop.is_set():
            by = f"stopped by {self.stopped_by}"
            return "interrupted", by + (f"; {self.reason(error)}" if error else "")
        if error is not None:
            return "lost", self.reason(error)
        if result.exited == -1:  # the channel closed without an exit status
            return "lost", "connection lost during the run (no exit status)"
        if result.exited != 0:
            return "failed", _exit_reason(result, self.secrets)
        return "ok", None

    def _save_streams(self, host: str, host_dir: Path, names, result) -> list[str]:
        """Save stdout and stderr (an empty stream removes an earlier attempt's log)."""
        problems = []
        for stream in ("stdout", "stderr"):
            path = host_dir / names[stream]
            text = getattr(result, stream) or ""
            try:
                if text:
                    atomic_write_bytes(path, redact(text, self.secrets).encode())
                else:
                    path.unlink(missing_ok=True)
            except OSError as exc:
                problems.append(f"{stream} not saved in {host_dir}: {exc.strerror or exc}")
        return problems

    def _collect(self, host, wd, outputs, host_dir) -> tuple[list[str], list[str], str | None]:
        """Collect, reconnecting once if the connection dropped (the host may be fine)."""
        conn = self.conns[host]

        def progress(rel: str) -> None:  # a file arrived: the host is answering
            self._set_deadline(host, 4 * self.answer_timeout_s, "collecting its results")

        try:
            return (*collect(conn, wd, outputs, host_dir, on_file=progress), None)
        except LocalSaveError as exc:
            return [], list(outputs), str(exc)
        except Exception as first:
            if not outputs:
                return [], [], None
            try:
                conn.close()
                conn.open()
                _bound_waits(conn, self.answer_timeout_s)
                return (*collect(conn, wd, outputs, host_dir, on_file=progress), None)
            except LocalSaveError as exc:
                return [], list(outputs), str(exc)
            except Exception:
                return [], list(outputs), self.reason(first)

    def _remove(self, host: str, wd: str) -> None:
        """Remove the host's work folder (its outputs are safe here)."""
        try:
            self.conns[host].run(remove_command(wd), hide=True, warn=True, in_stream=False,
                                 timeout=self.answer_timeout_s)  # fmt: skip
        except Exception as exc:  # a leftover folder is untidy, not a failure
            log.info("%s: work folder %s not removed: %s", host, wd, self.reason(exc))

    def _kill(self, conn, pidfile: str, finished=None) -> str:
        """Stop a remote command's process group: '' when it worked, else why not.

        `finished` is set when the command's own call returned. A host that does not answer
        the stop (hung) has its connection closed, which ends the command's call here.
        """
        try:
            conn.run(kill_command(pidfile, self.kill_grace_s), hide=True, warn=True, in_stream=False,
                     timeout=self.kill_grace_s + self.answer_timeout_s)  # fmt: skip
        except Exception as exc:
            why = f"the host did not answer the stop ({self.reason(exc)})"
            log.warning("could not stop %s: %s", pidfile, why)
            conn.close()
            return why
        if finished is not None and not finished.wait(self.kill_grace_s + 10):
            conn.close()  # the command's channel must end for its thread to finish
        return ""

    def _record(self, index: int, host: str, *, force: bool = False, **fields: Any) -> None:
        with self.lock:  # a host given up on keeps the record that says so
            if not force and (index, host) in self.abandoned:
                return
        if fields.get("reason"):
            fields["reason"] = redact(fields["reason"], self.secrets)
        self.manifest.update_task(index, host, **fields)
        self.bar.set_state(host, fields.get("status", "waiting"))
        if fields.get("status") not in (None, "ok"):
            log.info("%s: %s: %s", host, fields["status"], fields.get("reason"))

    # -- Ctrl-C ---------------------------------------------------------------------------

    def impatient(self, signum: int, frame: Any) -> None:
        """A signal while stopping: a quick repeat is the same press; later ones hurry."""
        if time.monotonic() - self.first_stop > REPEAT_S:
            log.warning("not waiting for the hosts any longer; recording what is here")
            self.hurry.set()

    def interrupt(self, wait_s: float | None = None) -> None:
        """Stop every running command, let the hosts' threads record and collect, and record
        the hosts that did not finish in time."""
        self.first_stop = time.monotonic()
        wait_s = INTERRUPT_WAIT_S if wait_s is None else wait_s
        self.stop.set()
        self.go.set()  # hosts still waiting for the start gun give up
        with self.lock:
            running = dict(self.running)
        for conn, pidfile in running.values():
            threading.Thread(target=self._kill, args=(conn, pidfile), daemon=True).start()
        deadline = time.monotonic() + wait_s
        for event in self.done.values():
            while not event.wait(timeout=0.1):
                if time.monotonic() > deadline or self.hurry.is_set():
                    break
        by = f"stopped by {self.stopped_by}"
        for host, event in self.done.items():
            if not event.is_set():
                why = "not waited for" if self.hurry.is_set() else f"no answer within {wait_s:g} s"
                self._give_up(self.index, host, "interrupted", f"{by}; {why}: nothing collected")
        for conn in self.conns.values():
            _close_quietly(conn)


def _bound_waits(conn: Any, answer_timeout_s: float) -> None:
    """Keep a hung host from blocking a request for an hour (paramiko's channel timeout) and
    send SSH keepalives; nothing to do for a local connection."""
    transport = getattr(conn, "transport", None)
    if transport is not None:
        transport.set_keepalive(KEEPALIVE_S)
        transport.channel_timeout = answer_timeout_s


def _connection_error(exc: BaseException) -> bool:
    """Whether `exc` says the connection (not the command or a file) failed."""
    import paramiko
    from invoke.exceptions import CommandTimedOut

    return isinstance(
        exc, paramiko.SSHException | EOFError | TimeoutError | ConnectionError | CommandTimedOut
    )


def _close_quietly(conn: Any) -> None:
    try:
        conn.close()
    except Exception:  # closing a broken connection may fail; nothing left to save
        pass


def close_all(connections: Mapping[str, Any] | Iterable[Any]) -> None:
    """Close every connection (errors ignored)."""
    for conn in named_connections(connections).values():
        _close_quietly(conn)


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
        their facts, problems and warnings go into the manifest.
    resume, progress, extra, **options
        As for :func:`run_plan` (options: kill_grace_s, answer_timeout_s, prepare_timeout_s).
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
            extra={"inventory": inventory.source, **dict(extra or {})}, **options,
        )  # fmt: skip
    finally:
        if own:
            close_all(conns)
