"""One step on every host at once: a thread per host prepares, waits for the start gun, runs,
collects and records; hosts that hang are given up on; Ctrl-C stops them all.

At most ``max_parallel_hosts`` hosts connect and receive their files at once, and as many
send their results back at once: a host's thread starts when a place is free, keeps its
connection open once it is prepared, and all prepared hosts start together at the start gun.
A thousand hosts that accept TCP connections but never greet thus take a bounded number of
threads and open files, never one each at once.

When this machine cannot save more (the disk of the output folder is full), the outputs not
saved yet are not fetched, the hosts' work folders are removed all the same (``--resume`` runs
those tasks again) and the steps not started are recorded as failed, not run.

:class:`StepRunner` holds the state one :func:`~anfperf.runner.fleet.run_plan` call shares with
its per-host threads.
"""

from __future__ import annotations

import collections
import contextlib
import io
import logging
import math
import posixpath
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from anfperf.folders import atomic_write_bytes
from anfperf.runner.collect import LocalSaveError, collect
from anfperf.runner.connect import ConnectError, close_quietly, open_connection
from anfperf.runner.interrupts import REPEAT_S
from anfperf.runner.ledger import host_workdir
from anfperf.runner.livefeed import LiveFeed, StepAlarms
from anfperf.runner.manifest import DISK_FULL, Manifest, now_iso
from anfperf.runner.progress import FleetProgress
from anfperf.runner.runlog import RUN_LOG_NAME, details
from anfperf.runner.security import (
    describe_error,
    join,
    kill_command,
    redact,
    remove_command,
    workdir_command,
    wrap_command,
)
from anfperf.runner.stale import sweep
from anfperf.runner.steps import RunPlan, RunStep, step_files
from anfperf.tools import HostTask, find_tool, tool_version

log = logging.getLogger(__name__)

#: Seconds between TERM and KILL when stopping a remote command.
KILL_GRACE_S = 5
#: Seconds to wait for hosts to finish after Ctrl-C before giving up on them.
INTERRUPT_WAIT_S = 30
#: Seconds a host may take to answer one request: open a channel, make a folder, stop a command.
ANSWER_TIMEOUT_S = 30
#: Seconds a host may take to connect and receive its files before the others start without it.
PREPARE_TIMEOUT_S = 120
#: Hosts that connect and receive their files (or send their results) at once, by default.
MAX_PARALLEL_HOSTS = 32
#: States that mean the host itself is out of reach for the rest of the run.
_HOST_DOWN = ("unreachable", "lost")


def _exit_reason(result: Any, secrets: Iterable[str]) -> str | None:
    """'exit code N: <last line it printed>' for a command that failed, else None."""
    if result is None or result.exited in (0, -1):
        return None
    last = (result.stderr or result.stdout or "").strip().splitlines()
    tail = f": {redact(last[-1], secrets)[:300]}" if last else ""
    return f"exit code {result.exited}{tail}"


class StepRunner:
    """The state of one run_plan call shared by its per-host threads."""

    def __init__(
        self, plan, conns, manifest, run_dir, workdir, bar, secrets, facts,
        max_parallel_hosts: int = MAX_PARALLEL_HOSTS,
    ):  # fmt: skip
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
        # host -> why preflight could not reach it: recorded so, not connected to again
        self.unreachable: dict[str, str] = {}
        self.stop = threading.Event()
        self.stopped_by = "Ctrl-C"
        self.hurry = threading.Event()  # signalled again: stop waiting for the hosts
        self.first_stop = math.inf  # a press before interrupt() is the first press
        self.running: dict[str, tuple[Any, str]] = {}  # host -> (connection, remote pid file)
        self.lock = threading.Lock()
        self.index = 0  # the step running now
        self.ready: dict[str, threading.Event] = {}  # host -> prepared (or failed) this step
        self.done: dict[str, threading.Event] = {}  # host -> set when its thread has finished
        self.deadline: dict[str, tuple[float, str]] = {}  # host -> (give up at, phase)
        self.abandoned: set[tuple[int, str]] = set()  # (step, host) given up on
        self.go = threading.Event()
        self.swept: set[str] = set()  # hosts cleared of work folders killed runs left
        self.max_parallel_hosts = max(1, int(max_parallel_hosts))
        self.launched: set[str] = set()  # hosts of this step whose thread has started
        self.changed = threading.Event()  # a host became ready: a place to prepare is free
        self.transfers = threading.BoundedSemaphore(self.max_parallel_hosts)
        self.transferring: set[str] = set()  # hosts holding a place to send their results
        self.out_full: str | None = None  # why nothing more can be saved here
        self.live: LiveFeed | None = None  # the live figures, when the run shows them
        self.step_alarms: StepAlarms | None = None  # what the live alarms judge a step by

    def reason(self, exc: BaseException) -> str:
        return describe_error(exc, self.secrets)

    # -- one step ---------------------------------------------------------------------------

    def run_step(self, index: int, step: RunStep) -> None:
        todo = [h for h in step.tasks if not self._already_ok(index, h)]
        if not todo:
            return
        if self.out_full:  # nothing this step makes could be saved
            for host in todo:
                self._record(index, host, status="failed", reason=f"{self.out_full}: not run")
            return
        self.index = index
        self.ready = {host: threading.Event() for host in todo}
        self.go = go = threading.Event()
        starts: dict[str, float] = {}
        # Completion is signalled by events, not Thread.join: a KeyboardInterrupt landing inside
        # join() can leave CPython reporting a running thread as finished.
        self.done = {host: threading.Event() for host in todo}
        self.launched = set()
        self._prepare_all(index, step, todo, go, starts)  # every host ready, failed or given up
        self.bar.start_step(f"{step.name} ({index + 1}/{len(self.plan.steps)})", step.duration_s)
        live = [h for h in todo if step.tasks[h].live]
        if self.live is not None and live:
            judged = self.step_alarms(index, step) if self.step_alarms is not None else {}
            self.live.start_step(index, step.name, live, **judged)
        go.set()
        self._watch(index, self.done)
        if self.live is not None and live:
            self.live.end_step(step.name)
        self.bar.end_step()
        if len(starts) > 1:
            skew = max(starts.values()) - min(starts.values())
            self.manifest.update_step(index, start_skew_s=round(skew, 4))

    def _prepare_all(self, index: int, step: RunStep, todo: list[str], go, starts) -> None:
        """Start the hosts' threads, at most `max_parallel_hosts` preparing at once, and wait
        until every host is prepared, failed or given up on (silent past its deadline)."""
        queue = collections.deque(todo)
        preparing: list[str] = []
        while True:
            self.changed.clear()
            preparing = [h for h in preparing if not self.ready[h].is_set()]
            while queue and len(preparing) < self.max_parallel_hosts and not self.stop.is_set():
                host = queue[0]
                self._set_deadline(host, self.prepare_timeout_s, "preparing")
                threading.Thread(
                    target=self._host_task,
                    args=(index, step, host, step.tasks[host], go, starts),
                    name=f"anfperf-{host}",
                    daemon=True,  # a host that never answers must not keep Python alive
                ).start()
                self.launched.add(queue.popleft())
                preparing.append(host)
            if not preparing:
                return
            self._give_up_overdue(index, preparing)
            self.changed.wait(timeout=0.2)

    def _watch(self, index: int, events: Mapping[str, threading.Event]) -> None:
        """Wait for `events`, giving up on hosts silent past their deadline."""
        while True:
            waiting = [h for h, e in events.items() if not e.is_set()]
            if not waiting:
                return
            self._give_up_overdue(index, waiting)
            if self.live is not None:
                self.live.tick()
            events[waiting[0]].wait(timeout=0.2)

    def _give_up_overdue(self, index: int, hosts: Iterable[str]) -> None:
        """Record as 'lost' the `hosts` silent past their deadline."""
        now = time.monotonic()
        for host in hosts:
            until, phase = self.deadline.get(host, (float("inf"), ""))
            if now > until:
                self._give_up(index, host, "lost", f"no answer {phase} (the host hung?)")

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
        # closing ends whatever the host's thread waits for; it may itself hang: not here
        threading.Thread(target=close_quietly, args=(self.conns[host],), daemon=True).start()
        self._release_transfer(host)  # its place goes to the others even if its thread hangs
        self.ready[host].set()
        self.changed.set()
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
            details.error("%s: unexpected error", host, exc_info=True)
            why = f"unexpected error: {self.reason(exc)} (details in {RUN_LOG_NAME})"
            self._record(index, host, status="failed", reason=why)
        finally:
            self._release_transfer(host)
            self.ready[host].set()
            self.changed.set()
            self.done[host].set()

    def _host_task_body(self, index, step, host, task: HostTask, go, starts) -> None:
        attempts = self.manifest.task(index, host).get("attempts", 0) + 1
        if host in self.down:
            reason = f"host out of reach earlier in this run: {self.down[host]}"
            self._record(index, host, status="skipped", reason=reason)
            return
        wd = self._prepare_and_wait(index, host, task, go, attempts)
        if wd is None:
            return
        names = step_files(step, index)
        result, stop_failed, status, reason, fields = self._run_task(
            step, host, task, wd, names, starts, attempts
        )
        self.bar.set_state(host, "collecting")
        self.deadline.pop(host, None)  # waiting for a place to send results is not hanging
        with self._transfer_place(host):
            self._set_deadline(host, 4 * self.answer_timeout_s, "collecting its results")
            host_dir = self.run_dir / host
            problems = [reason] if reason else []
            if result is not None:
                problems += self._save_streams(host, host_dir, names, result, task)
            local = False  # the outputs could not be saved here: no fault of the host
            if stop_failed:  # the host hung: nothing can be collected from it
                collected, missing = [], list(task.outputs)
                collect_error = "outputs not collected: the host is not answering"
            elif self.out_full:
                collected, missing = [], list(task.outputs)
                collect_error, local = f"{self.out_full}: outputs not collected", True
            else:
                collected, missing, collect_error, local = self._collect(
                    host, wd, task.outputs, host_dir
                )
            fields["collected"] = [f"{host}/{p}" for p in collected]
            if problems and reason == _exit_reason(result, self.secrets):
                problems[0] = self._tool_reason(step, task, result, host_dir) or problems[0]
            status = _final_status(status, problems, missing, collect_error, local)
            if status in _HOST_DOWN:
                self.down[host] = "; ".join(problems) or status
            elif collect_error is None or local:
                # everything there was to take is here, or nothing can be taken: a re-run
                # (--resume) makes the outputs again, kept there they only fill the host
                self._remove(host, wd)
        self._record(index, host, status=status, reason="; ".join(problems) or None, **fields)

    @contextlib.contextmanager
    def _transfer_place(self, host: str) -> Iterator[None]:
        """Hold one of the `max_parallel_hosts` places to send results meanwhile."""
        while not self.hurry.is_set():  # (stopping, and not waiting any longer: go on)
            if self.transfers.acquire(timeout=0.5):
                with self.lock:
                    self.transferring.add(host)
                break
        try:
            yield
        finally:
            self._release_transfer(host)

    def _release_transfer(self, host: str) -> None:
        with self.lock:
            if host not in self.transferring:
                return
            self.transferring.discard(host)
        self.transfers.release()

    def _out_of_space(self, exc: OSError | LocalSaveError) -> str:
        """'no space left in OUT (why)'; from now on nothing more is fetched or run."""
        why = f"no space left in {self.run_dir.parent} ({exc.strerror})"
        with self.lock:
            if self.out_full is None:
                self.out_full = why
                details.warning("%s: nothing more is fetched or run", why)
        return why

    def _prepare_and_wait(
        self, index: int, host: str, task: HostTask, go: threading.Event, attempts: int
    ) -> str | None:
        """Prepare the host, then wait for the start gun: its work folder, or None when it
        failed or the run stopped meanwhile (recorded)."""
        wd, failure = self._prepare(host, index, task)
        if failure is not None:
            self._record(index, host, attempts=attempts, **failure)
            return None
        self.bar.set_state(host, "ready")
        self.deadline.pop(host, None)  # waiting for the others is not hanging
        self.ready[host].set()
        self.changed.set()
        go.wait()
        if self.stop.is_set() or (index, host) in self.abandoned:
            self._record(index, host, status="interrupted", reason="stopped before it started")
            return None
        return wd

    def _run_task(self, step, host, task: HostTask, wd: str, names, starts, attempts: int):
        """Run the command under its timeout: (result, stop failed, status, reason, fields)."""
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
        return result, stop_failed, status, reason, fields

    def _tool_reason(self, step, task: HostTask, result, host_dir: Path) -> str | None:
        """Why the command failed in the tool's own words, where it has better ones than the
        last line it printed; else None."""
        adapter = find_tool(step.tool)
        if not adapter:
            return None
        said = adapter.failure_reason(
            f"{result.stdout or ''}\n{result.stderr or ''}",
            [host_dir / o for o in task.outputs],
        )
        return f"exit code {result.exited}: {redact(said, self.secrets)}" if said else None

    def _prepare(self, host: str, index: int, task: HostTask):
        """Connect, make the private work folder, upload: (folder, None) or (None, failure)."""
        if host in self.unreachable:  # a dead host costs its connect timeout once, not twice
            self.down[host] = why = self.unreachable[host]
            return None, {"status": "unreachable", "reason": why}
        conn = self.conns[host]
        self.bar.set_state(host, "connecting")
        try:
            open_connection(conn, self.answer_timeout_s, self.secrets)
        except ConnectError as exc:
            if exc.local:  # this machine's limit: the host may be fine
                return None, {"status": "failed", "reason": exc.reason}
            self.down[host] = exc.reason
            return None, {"status": "unreachable", "reason": exc.reason}
        self.bar.set_state(host, "uploading")
        base = host_workdir(self.workdir, host)
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
        self._sweep(host, base, wd)
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

    def _sweep(self, host: str, base: str, wd: str) -> None:
        """Once per host and run: remove the work folders killed runs left below `base`, and
        stop what still runs in them, before this run measures anything (:mod:`.stale`)."""
        if host in self.swept:
            return
        self.swept.add(host)
        try:
            sweep(self.conns[host], base, host, run_id=self.plan.run_id,
                  out_dir=self.run_dir.parent, keep=posixpath.basename(wd),
                  timeout_s=self.answer_timeout_s, kill_grace_s=self.kill_grace_s)  # fmt: skip
        except Exception as exc:  # a leftover folder is untidy, not a failure of this run
            log.info("%s: work folders left in %s not removed: %s", host, base, self.reason(exc))

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
            details.info("%s: %s ran past %.0f s: stopping it", host, step.name, limit)
            stopping.append(self._kill(conn, pidfile, finished))

        watchdog = threading.Timer(task.effective_timeout_s, on_timeout)
        watchdog.daemon = True
        result = error = None
        start_wall, start = now_iso(), time.monotonic()
        with self.lock:
            starts[host] = time.time()
            self.running[host] = (conn, pidfile)
        self.bar.set_state(host, "running")
        log.info("%s: %s: started", host, step.name)  # anfperf run -v: every host's events
        watchdog.start()
        streams = self._live_streams(host, step, task)
        try:
            result = conn.run(wrap_command(task.argv, wd, pidfile), warn=True, in_stream=False,
                              **streams)  # fmt: skip
        except Exception as exc:  # the connection broke during the run
            error = exc
        finally:
            finished.set()
            watchdog.cancel()
            with self.lock:
                self.running.pop(host, None)
            if "out_stream" in streams:
                self.live.host_done(host)
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

    def _live_streams(self, host: str, step: RunStep, task: HostTask) -> dict[str, Any]:
        """``conn.run``'s output options: everything captured, and a live task's stdout also
        read as it arrives (:class:`~anfperf.runner.livefeed.LiveFeed`)."""
        adapter = find_tool(step.tool) if task.live and self.live is not None else None
        interval_s = float((step.workload or {}).get("interval_s") or 1)
        stream = adapter.live_stream(host, interval_s) if adapter is not None else None
        if stream is None:
            return {"hide": True}
        return {"hide": "stderr", "out_stream": self.live.writer(host, stream)}

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

    def _save_streams(self, host: str, host_dir: Path, names, result, task) -> list[str]:
        """Save stdout and stderr (an empty stream removes an earlier attempt's log)."""
        problems = []
        for stream in ("stdout", "stderr"):
            if self.out_full:  # (the task's reason says so)
                break
            path = host_dir / names[stream]
            text = getattr(result, stream) or ""
            if stream == "stdout" and not task.keep_stdout:
                text = ""  # a copy of an output file: collected whole
            try:
                if text:
                    atomic_write_bytes(path, redact(text, self.secrets).encode())
                else:
                    path.unlink(missing_ok=True)
            except OSError as exc:
                if exc.errno in DISK_FULL:
                    problems.append(f"{self._out_of_space(exc)}: {stream} not saved")
                else:
                    problems.append(f"{stream} not saved in {host_dir}: {exc.strerror or exc}")
        return problems

    def _collect(self, host, wd, outputs, host_dir):
        """Collect, reconnecting once if the connection dropped (the host may be fine):
        (collected, missing, why not all, whether the fault is this machine's)."""
        conn = self.conns[host]

        def progress(rel: str) -> None:  # a file arrived: the host is answering
            self._set_deadline(host, 4 * self.answer_timeout_s, "collecting its results")

        try:
            return (*collect(conn, wd, outputs, host_dir, on_file=progress), None, False)
        except LocalSaveError as exc:
            return [], list(outputs), self._save_failure(exc), True
        except Exception as first:
            if not outputs:
                return [], [], None, False
            try:
                conn.close()
                open_connection(conn, self.answer_timeout_s, self.secrets)
                return (*collect(conn, wd, outputs, host_dir, on_file=progress), None, False)
            except LocalSaveError as exc:
                return [], list(outputs), self._save_failure(exc), True
            except Exception:
                return [], list(outputs), f"outputs not collected: {self.reason(first)}", False

    def _save_failure(self, exc: LocalSaveError) -> str:
        if exc.errno in DISK_FULL:
            return f"{self._out_of_space(exc)}: outputs not collected"
        return f"outputs not collected: {exc}"

    def _remove(self, host: str, wd: str) -> None:
        """Remove the host's work folder (its outputs are safe here)."""
        try:
            self.conns[host].run(remove_command(wd), hide=True, warn=True, in_stream=False,
                                 timeout=self.answer_timeout_s)  # fmt: skip
        except Exception as exc:  # a leftover folder is untidy, not a failure
            details.info("%s: work folder %s not removed: %s", host, wd, self.reason(exc))

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
            details.info("could not stop %s: %s", pidfile, why)
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
        if fields.get("status") is not None:  # run.log; the console too with anfperf -v
            reason = fields.get("reason")
            details.info("%s: %s: %s%s", host, self.plan.steps[index].name, fields["status"],
                         f": {reason}" if reason else "")  # fmt: skip

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
        for host, event in self.done.items():  # never started: nothing to wait for
            if host not in self.launched and not event.is_set():
                self._record(self.index, host, status="interrupted",
                             reason=f"stopped by {self.stopped_by} before it started")  # fmt: skip
                event.set()
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
            close_quietly(conn)


def _final_status(
    status: str, problems: list[str], missing: list[str], collect_error: str | None, local: bool
) -> str:
    """The task's status once its outputs are in; what went wrong is added to `problems`
    (`collect_error`: why not all outputs are here; `local`: they could not be saved here, the
    host is not at fault)."""
    if collect_error:
        problems.append(collect_error)
        if status == "ok":
            status = "failed" if local else "lost"
    elif missing and status == "ok":
        status = "failed"
        problems.append(f"outputs missing: {', '.join(missing)}")
    elif problems and status == "ok":  # a stream could not be saved
        status = "failed"
    return status


def _connection_error(exc: BaseException) -> bool:
    """Whether `exc` says the connection (not the command or a file) failed."""
    import paramiko
    from invoke.exceptions import CommandTimedOut

    return isinstance(
        exc, paramiko.SSHException | EOFError | TimeoutError | ConnectionError | CommandTimedOut
    )
