"""Running a plan on a fleet: synchronized starts, per-host results, nothing collected is lost.

:func:`run_plan` takes a :class:`~anfperf.runner.plan.RunPlan` and connections (Fabric
Connections over SSH, or :class:`~anfperf.runner.local.LocalConnection`) and, step by step:

1. on every host at once (one thread each): connects, makes the task's folder
   ``<workdir>/<run_id>/<host>``, uploads the task's files;
2. when every host is ready, starts all commands together (a start gun, not a clock: the
   spread of start times is recorded as the step's ``start_skew_s``);
3. watches each command's timeout; a command past it is stopped (its remote process group
   gets TERM, then KILL) and recorded as 'timeout';
4. as each host finishes, saves its stdout/stderr and copies its outputs to
   ``<out>/<run_id>/<host>/`` and records the result in the manifest -- each file written
   atomically, so what arrived is kept whatever happens to the other hosts.

A host that cannot be reached, refuses authentication or has an unknown host key is recorded
as 'unreachable', one whose connection drops mid-run as 'lost'; either is skipped for the
remaining steps. Ctrl-C stops every running remote command, collects what the tools wrote
(fio writes its results on TERM), marks the manifest 'interrupted' and re-raises. ``resume=True``
re-runs only the tasks not recorded as 'ok'.
"""

from __future__ import annotations

import io
import logging
import os
import posixpath
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from anfperf import __version__
from anfperf.errors import AnfperfError
from anfperf.runner.collect import collect
from anfperf.runner.inventory import DEFAULT_WORKDIR
from anfperf.runner.local import LocalConnection
from anfperf.runner.manifest import MANIFEST_VERSION, Manifest, atomic_write_bytes, now_iso
from anfperf.runner.plan import HostTask, RunPlan, RunStep, step_files
from anfperf.runner.progress import FleetProgress
from anfperf.runner.security import (
    describe_error,
    join,
    kill_command,
    redact,
    wrap_command,
)

log = logging.getLogger(__name__)

#: Where runs land by default (relative to the working directory), as anfperf.ingest expects.
DEFAULT_OUT = "data/raw"
#: Seconds between TERM and KILL when stopping a remote command.
KILL_GRACE_S = 5
#: Seconds to wait for hosts to finish after Ctrl-C before giving up on them.
INTERRUPT_WAIT_S = 30
#: States that mean the host itself is out of reach for the rest of the run.
_HOST_DOWN = ("unreachable", "lost")


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
        Remote folder for runs, for all hosts or per host; each task uses
        ``<workdir>/<run_id>/<host>``.
    hosts_info, facts : mapping, optional
        Per host: how it is reached (``Host.describe()``) and its preflight facts, recorded in
        the manifest.
    resume : bool
        Continue the run already recorded in ``out_dir/<run_id>``: tasks recorded as 'ok' are
        kept, all others run again.
    progress : bool or FleetProgress
        Show a live progress bar on stderr (or use the one given).
    secrets : iterable of str
        Texts (passwords, key text) blanked out of every reason recorded.
    kill_grace_s : int
        Seconds between TERM and KILL when a command is stopped.
    extra : mapping, optional
        More top-level manifest fields (e.g. the tool and workload specs).

    Returns
    -------
    Manifest
        The run's ledger (``.status``: 'complete', 'partial'; ``.failures()`` says what failed).

    Raises
    ------
    KeyboardInterrupt
        After stopping the remote commands and saving what was collected.
    """
    conns = named_connections(connections)
    missing = [h for h in plan.hosts if h not in conns]
    if missing:
        raise ValueError(f"no connection for hosts {missing}")
    run_dir = Path(out_dir) / plan.run_id
    secrets = [s for s in secrets if s]
    if resume:
        manifest = Manifest.load(run_dir)
        if manifest.run_id != plan.run_id:
            raise AnfperfError(
                f"{manifest.path} belongs to run {manifest.run_id}, not {plan.run_id}"
            )
        manifest.update(status="running", resumed=[*manifest.data.get("resumed", []), now_iso()])
        # hosts with something to re-run: record their facts as they are now
        rerun = {h for _, h, t in manifest.tasks() if t["status"] != "ok"}
        for host in rerun & set(facts or {}):
            manifest.update_host(host, facts=dict(facts[host]))
    else:
        if (run_dir / "manifest.json").exists():
            raise AnfperfError(f"run {plan.run_id} exists in {run_dir}: resume it or pick a new id")
        manifest = Manifest(run_dir, _new_manifest(plan, conns, workdir, hosts_info, facts, extra))
        manifest.write()
    if isinstance(progress, FleetProgress):
        bar = progress
    else:
        bar = FleetProgress(plan.hosts, plan.duration_s, disable=not progress)
    runner = _Runner(plan, conns, manifest, run_dir, workdir, bar, secrets, kill_grace_s, facts)
    try:
        for index, step in enumerate(plan.steps):
            runner.run_step(index, step)
    except KeyboardInterrupt:
        runner.interrupt()
        manifest.update(status="interrupted", end=now_iso())
        raise
    finally:
        if not isinstance(progress, FleetProgress):
            bar.close()
    ok = all(t["status"] == "ok" for _, _, t in manifest.tasks())
    manifest.update(status="complete" if ok else "partial", end=now_iso())
    for step, host, status, reason in manifest.failures():
        log.warning("%s on %s: %s: %s", step, host, status, reason)
    return manifest


def resume_run(
    run_dir: str | os.PathLike, connections: Mapping[str, Any] | Iterable[Any], **kwargs: Any
) -> Manifest:
    """Run again what the run in `run_dir` is missing (tasks not recorded as 'ok').

    The plan is the one recorded in the manifest; `kwargs` go to :func:`run_plan`.
    """
    run_dir = Path(run_dir)
    data = Manifest.load(run_dir).data
    plan = RunPlan.from_manifest(data)
    # the same remote folders as the first attempt, unless told otherwise
    kwargs.setdefault(
        "workdir", {h: i["workdir"] for h, i in data.get("hosts", {}).items() if i.get("workdir")}
    )
    return run_plan(plan, connections, run_dir.parent, resume=True, **kwargs)


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
                "tool_version": _tool_version(step.tool, hosts[host]["facts"]),
                "status": "pending", "reason": None, "exit_code": None, "start": None,
                "end": None, "elapsed_s": None, "collected": [], "attempts": 0,
            }  # fmt: skip
        steps.append(
            {"name": step.name, "tool": step.tool, "workload": step.workload,
             "duration_s": step.duration_s, "start_skew_s": None, "tasks": tasks}
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


def _tool_version(tool: str, facts: Mapping[str, Any]) -> str | None:
    return facts.get(f"{tool}_version")


class _Runner:
    """The state of one run_plan call shared by its per-host threads."""

    def __init__(self, plan, conns, manifest, run_dir, workdir, bar, secrets, kill_grace_s, facts):
        self.plan: RunPlan = plan
        self.conns: dict[str, Any] = conns
        self.manifest: Manifest = manifest
        self.run_dir: Path = run_dir
        self.workdir = workdir
        self.bar: FleetProgress = bar
        self.secrets: list[str] = secrets
        self.kill_grace_s = kill_grace_s
        self.facts: Mapping[str, Mapping[str, Any]] = facts or {}
        self.down: dict[str, str] = {}  # host -> why it is out of reach for this run
        self.stop = threading.Event()
        self.running: dict[str, tuple[Any, str]] = {}  # host -> (connection, remote pid file)
        self.lock = threading.Lock()
        self.done: dict[str, threading.Event] = {}  # host -> set when its thread has finished
        self.go = threading.Event()

    def remote_dir(self, host: str) -> str:
        return posixpath.join(_workdir(self.workdir, host), self.plan.run_id, host)

    def reason(self, exc: BaseException) -> str:
        return describe_error(exc, self.secrets)

    # -- one step ---------------------------------------------------------------------------

    def run_step(self, index: int, step: RunStep) -> None:
        todo = [h for h in step.tasks if not self._already_ok(index, h)]
        if not todo:
            return
        ready = {host: threading.Event() for host in todo}  # set when prepared or failed
        self.go = go = threading.Event()
        starts: dict[str, float] = {}
        # Completion is signalled by events, not Thread.join: a KeyboardInterrupt landing inside
        # join() can leave CPython reporting a running thread as finished.
        self.done = {host: threading.Event() for host in todo}
        for host in todo:
            threading.Thread(
                target=self._host_task,
                args=(
                    index,
                    step,
                    host,
                    step.tasks[host],
                    ready[host],
                    self.done[host],
                    go,
                    starts,
                ),
                name=f"anfperf-{host}",
                daemon=True,  # a host that never answers must not keep Python alive
            ).start()
        for event in ready.values():  # every host ready (or failed to get ready)
            while not event.wait(timeout=0.2):
                pass
        self.bar.start_step(f"{step.name} ({index + 1}/{len(self.plan.steps)})", step.duration_s)
        go.set()
        for event in self.done.values():
            while not event.wait(timeout=0.2):
                pass
        self.bar.end_step()
        if len(starts) > 1:
            skew = max(starts.values()) - min(starts.values())
            self.manifest.update_step(index, start_skew_s=round(skew, 4))

    def _already_ok(self, index: int, host: str) -> bool:
        task = self.manifest.task(index, host)
        if task["status"] != "ok":
            return False
        # an 'ok' whose files were removed since is missing too
        return all((self.run_dir / p).exists() for p in task.get("collected", []))

    def _host_task(self, index, step, host, task: HostTask, ready, done, go, starts) -> None:
        try:
            self._host_task_body(index, step, host, task, ready, go, starts)
        except Exception as exc:  # never lose a host's record to an unexpected error
            log.exception("%s: unexpected error", host)
            self._record(index, host, status="failed", reason=self.reason(exc))
        finally:
            ready.set()
            done.set()

    def _host_task_body(self, index, step, host, task: HostTask, ready, go, starts) -> None:
        attempts = self.manifest.task(index, host).get("attempts", 0) + 1
        if host in self.down:
            reason = f"host out of reach earlier in this run: {self.down[host]}"
            self._record(index, host, status="skipped", reason=reason)
            return
        wd = self.remote_dir(host)
        failure = self._prepare(host, wd, task)
        if failure is not None:
            self._record(index, host, attempts=attempts, **failure)
            return
        self.bar.set_state(host, "ready")
        ready.set()
        go.wait()
        if self.stop.is_set():
            self._record(index, host, status="interrupted", reason="stopped before it started")
            return
        names = step_files(step, index)
        result, error, timed_out, fields = self._execute(
            host, step, task, wd, posixpath.join(wd, names["pidfile"]), starts
        )
        fields["attempts"] = attempts
        if host in self.facts:  # the version this attempt ran with (a resume may differ)
            fields["tool_version"] = _tool_version(step.tool, self.facts[host])
        status, reason = self._classify(result, error, timed_out, task)
        self.bar.set_state(host, "collecting")
        host_dir = self.run_dir / host
        if result is not None:
            for stream in ("stdout", "stderr"):
                text = getattr(result, stream) or ""
                if text:
                    data = redact(text, self.secrets).encode()
                    atomic_write_bytes(host_dir / names[stream], data)
        collected, missing, collect_error = self._collect(host, wd, task.outputs, host_dir)
        fields["collected"] = [f"{host}/{p}" for p in collected]
        if collect_error:
            if status == "ok":
                status = "lost"
            reason = "; ".join(filter(None, [reason, f"outputs not collected: {collect_error}"]))
        elif missing and status == "ok":
            status, reason = "failed", f"outputs missing: {', '.join(missing)}"
        if status in _HOST_DOWN:
            self.down[host] = reason or status
        self._record(index, host, status=status, reason=reason, **fields)

    def _prepare(self, host: str, wd: str, task: HostTask) -> dict[str, str] | None:
        """Connect and upload the task's files; the failure's record fields, or None."""
        conn = self.conns[host]
        self.bar.set_state(host, "connecting")
        try:
            conn.open()
        except Exception as exc:
            self.down[host] = reason = self.reason(exc)
            return {"status": "unreachable", "reason": reason}
        self.bar.set_state(host, "uploading")
        try:
            dirs = {wd} | {posixpath.dirname(posixpath.join(wd, n)) for n in task.files}
            mkdir = join(["mkdir", "-p", "--", *sorted(dirs)])
            conn.run(mkdir, hide=True, warn=False, in_stream=False)
            for name, text in task.files.items():
                conn.put(io.BytesIO(text.encode("utf-8")), remote=posixpath.join(wd, name))
        except Exception as exc:
            return {"status": "failed", "reason": f"upload to {wd} failed: {self.reason(exc)}"}
        return None

    def _execute(self, host, step, task: HostTask, wd: str, pidfile: str, starts):
        """Run the task's command under its timeout: (result, error, timed out, fields)."""
        conn = self.conns[host]
        finished = threading.Event()
        timed_out = threading.Event()

        def on_timeout() -> None:
            timed_out.set()
            limit = task.effective_timeout_s
            log.warning("%s: %s ran past %.0f s: stopping it", host, step.name, limit)
            self._kill(conn, pidfile, finished)

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
        return result, error, timed_out.is_set(), fields

    def _classify(self, result, error, timed_out: bool, task: HostTask) -> tuple[str, str | None]:
        if timed_out:
            return (
                "timeout",
                f"ran past its timeout of {task.effective_timeout_s:g} s and was stopped",
            )
        if self.stop.is_set():
            return "interrupted", "stopped by Ctrl-C" + (f"; {self.reason(error)}" if error else "")
        if error is not None:
            return "lost", self.reason(error)
        if result.exited == -1:  # the channel closed without an exit status
            return "lost", "connection lost during the run (no exit status)"
        if result.exited != 0:
            last = (result.stderr or result.stdout or "").strip().splitlines()
            tail = f": {redact(last[-1], self.secrets)[:300]}" if last else ""
            return "failed", f"exit code {result.exited}{tail}"
        return "ok", None

    def _collect(self, host, wd, outputs, host_dir) -> tuple[list[str], list[str], str | None]:
        """Collect, reconnecting once if the connection dropped (the host may be fine)."""
        conn = self.conns[host]
        try:
            return (*collect(conn, wd, outputs, host_dir), None)
        except Exception as first:
            if not outputs:
                return [], [], None
            try:
                conn.close()
                conn.open()
                return (*collect(conn, wd, outputs, host_dir), None)
            except Exception:
                return [], list(outputs), self.reason(first)

    def _kill(self, conn, pidfile: str, finished=None, killed=None) -> None:
        """Stop a remote command's process group; drop the connection if even that hangs.

        `finished` is set when the command's own call returned; `killed` is set here at the end.
        """
        try:
            conn.run(kill_command(pidfile, self.kill_grace_s), hide=True, warn=True, in_stream=False,
                     timeout=self.kill_grace_s + 10)  # fmt: skip
        except Exception as exc:
            log.warning("could not stop %s: %s", pidfile, self.reason(exc))
        if finished is not None and not finished.wait(self.kill_grace_s + 10):
            conn.close()  # the command's channel must end for its thread to finish
        if killed is not None:
            killed.set()

    def _record(self, index: int, host: str, **fields: Any) -> None:
        if fields.get("reason"):
            fields["reason"] = redact(fields["reason"], self.secrets)
        self.manifest.update_task(index, host, **fields)
        self.bar.set_state(host, fields.get("status", "waiting"))
        if fields.get("status") not in (None, "ok"):
            log.info("%s: %s: %s", host, fields["status"], fields.get("reason"))

    # -- Ctrl-C ---------------------------------------------------------------------------

    def interrupt(self, wait_s: float = INTERRUPT_WAIT_S) -> None:
        """Stop every running command, then let the hosts' threads record and collect."""
        self.stop.set()
        self.go.set()  # hosts still waiting for the start gun give up
        with self.lock:
            running = dict(self.running)
        killed = []
        for conn, pidfile in running.values():
            event = threading.Event()
            killed.append(event)
            threading.Thread(
                target=self._kill, args=(conn, pidfile, None, event), daemon=True
            ).start()
        deadline = time.monotonic() + wait_s
        try:
            for event in [*killed, *self.done.values()]:
                while not event.wait(timeout=0.2) and time.monotonic() < deadline:
                    pass
        except KeyboardInterrupt:  # a second Ctrl-C: stop waiting
            log.warning("not waiting for hosts any longer")
        for conn in self.conns.values():
            _close_quietly(conn)


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
    resume, progress, extra
        As for :func:`run_plan`.
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
        )  # fmt: skip
    finally:
        if own:
            close_all(conns)
