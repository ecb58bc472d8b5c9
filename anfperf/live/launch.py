"""A run started from a notebook, which the notebook watches without holding it.

:func:`start_run` starts ``anfperf run ...`` as a process of its own, in a session of its own:
interrupting the kernel, restarting it or closing the browser never reaches the run (a Ctrl-C
in a terminal reaches its whole process group; a kernel interrupt reaches the kernel's). Its
console output goes to two files; the :class:`RunHandle` it returns knows the run's folder
before the run makes it, watches it (:meth:`RunHandle.watch`, a :class:`~anfperf.live.view.LiveView`)
and stops it as Ctrl-C would (:meth:`RunHandle.stop`: the run records 'interrupted' and keeps
what it collected).

Examples
--------
::

    from anfperf.live import start_run
    run = start_run(["RndReadQD", "--hosts", "fleet.yml"], out_dir="data/raw")
    run.watch()          # the live figure, as the cell's output
    run.wait()           # later: 0 when complete (see `anfperf run --help` for the others)
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from anfperf.errors import AnfperfError
from anfperf.schema import MANIFEST_NAME

if TYPE_CHECKING:
    from anfperf.live.view import LiveView

__all__ = ["RunHandle", "start_run"]


def __dir__() -> list[str]:
    return sorted(__all__)


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _own_options(args: Sequence[str]) -> argparse.Namespace:
    """What start_run must know of `anfperf run`'s arguments (spelled in full, as its help)."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--run-id")
    parser.add_argument("--resume")
    parser.add_argument("--out")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("-h", "--help", action="store_true")
    known, _ = parser.parse_known_args(list(args))
    return known


def _workloads(args: Sequence[str]) -> list[str]:
    """The workload names among `args`: words before the first option."""
    names = []
    for arg in args:
        if arg.startswith("-"):
            break
        names.append(arg)
    return names


def _new_run_id(args: Sequence[str], out_dir: Path) -> str:
    """A run id as `anfperf run` makes one (UTC time, the workloads), not yet in `out_dir`."""
    label = "-".join(_workloads(args)[:3]) or "run"
    base = f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{_SAFE.sub('-', label).strip('-._')[:60] or 'run'}"
    run_id, n = base, 1
    while (out_dir / run_id).exists():
        n += 1
        run_id = f"{base}-{n}"
    return run_id


class RunHandle:
    """A run of ``anfperf run`` started by :func:`start_run`, in a process of its own.

    Attributes
    ----------
    run_id : str
        The run's id.
    run_dir : pathlib.Path
        Its folder ``<out_dir>/<run_id>/`` (made by the run once preflight passed).
    process : subprocess.Popen
        The process (its own session and process group).
    stdout_path, stderr_path : pathlib.Path
        What the command printed: the plan and the end (stdout), warnings and the live lines
        (stderr).
    args : list of str
        The command line run.
    """

    def __init__(
        self,
        process: subprocess.Popen,
        run_dir: Path,
        stdout_path: Path,
        stderr_path: Path,
        args: list[str],
        files: tuple[IO[Any], ...] = (),
    ) -> None:
        self.process = process
        self.run_dir = run_dir
        self.run_id = run_dir.name
        self.stdout_path = stdout_path
        self.stderr_path = stderr_path
        self.args = args
        self._files = files

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        """Whether the process is still running."""
        return self.process.poll() is None

    @property
    def returncode(self) -> int | None:
        """The process's exit status (``anfperf``'s: 0 complete, see ``anfperf --help``), None
        while it runs; a negative number is the signal that ended it."""
        code = self.process.poll()
        if code is not None:
            self._close_files()
        return code

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the run to end; its exit status (``subprocess.TimeoutExpired`` if it did not
        end within `timeout` seconds)."""
        code = self.process.wait(timeout)
        self._close_files()
        return code

    def stop(self) -> None:
        """Stop the run as Ctrl-C in its terminal would: SIGINT to its process group. The run
        stops its hosts' tools, records 'interrupted' and keeps what it collected (``anfperf
        run --resume RUN_ID`` goes on). Does nothing once it ended."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGINT)
            except ProcessLookupError:
                pass  # it ended meanwhile

    def watch(self, every_s: float = 2.0, **kwargs: Any) -> LiveView:
        """A :class:`~anfperf.live.view.LiveView` of the run, polled every `every_s` s until its
        record says it ended, or its process ended (`kwargs`: :func:`anfperf.live.watch`'s)."""
        from anfperf.live.view import watch

        until = kwargs.pop("until", None)

        def ended() -> bool:
            return not self.running or (until is not None and until())

        return watch(self.run_dir, every_s, until=ended, **kwargs)

    def output(self) -> str:
        """What the command printed so far, stdout then stderr."""
        return "".join(
            path.read_text(errors="replace") for path in (self.stdout_path, self.stderr_path)
        )

    @property
    def manifest_path(self) -> Path:
        return self.run_dir / MANIFEST_NAME

    def _close_files(self) -> None:
        for file in self._files:
            file.close()
        self._files = ()

    def __repr__(self) -> str:
        state = "running" if self.running else f"exited {self.returncode}"
        return f"RunHandle({self.run_id!r}, pid {self.pid}, {state}, {str(self.run_dir)!r})"


def start_run(
    args: Sequence[str],
    *,
    out_dir: str | os.PathLike,
    cwd: str | os.PathLike | None = None,
    log_dir: str | os.PathLike | None = None,
) -> RunHandle:
    """Start ``anfperf run ARGS`` in a process and session of its own; its handle.

    Parameters
    ----------
    args : sequence of str
        ``anfperf run``'s arguments (``["RndRead", "--hosts", "fleet.yml", "--set",
        "duration_s=60"]``): workloads, then options spelled in full. Without ``--run-id`` (or
        ``--resume``), one is given, as the command would make it, so that the run's folder is
        known before it starts.
    out_dir : str or os.PathLike
        Where the run folder goes (``--out``); relative to `cwd`.
    cwd : str or os.PathLike, optional
        The command's folder (relative ``--file``, ``--hosts`` and `out_dir` are read from it);
        default the current one.
    log_dir : str or os.PathLike, optional
        Where ``stdout.txt`` and ``stderr.txt`` of the command go (made if missing; default a
        new temporary folder): not the run folder, which the run makes and owns.

    Raises
    ------
    anfperf.AnfperfError
        ``--dry-run`` or ``--help`` (nothing to watch), ``--out`` other than `out_dir`, an
        argument that is not a string.
    """
    if isinstance(args, str) or not all(isinstance(a, str) for a in args):
        raise AnfperfError(f"args: a list of strings, as on the command line, got {args!r}")
    args = list(args)
    own = _own_options(args)
    if own.dry_run or own.help:
        raise AnfperfError("start_run starts a run to watch: run `anfperf run --dry-run` or "
                           "`--help` in a terminal instead")  # fmt: skip
    folder = Path(cwd).resolve() if cwd is not None else Path.cwd()
    out = (folder / out_dir).resolve()
    if own.out is not None and (folder / own.out).resolve() != out:
        raise AnfperfError(f"args say --out {own.out} and out_dir={os.fspath(out_dir)!r}: give "
                           "out_dir alone")  # fmt: skip
    if own.out is None:
        args += ["--out", str(out)]
    run_id = own.resume or own.run_id
    if run_id is None:
        run_id = _new_run_id(args, out)
        args += ["--run-id", run_id]
    logs = Path(log_dir) if log_dir is not None else Path(
        tempfile.mkdtemp(prefix=f"anfperf-run-{run_id}-"))  # fmt: skip
    logs.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-P", "-m", "anfperf", "run", *args]
    # the anfperf this process runs, not one the folder holds: -P leaves the folder off sys.path
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    stdout = open(logs / "stdout.txt", "ab")  # the handle closes them when the run ended
    stderr = open(logs / "stderr.txt", "ab")
    try:
        process = subprocess.Popen(
            command, cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
            start_new_session=True,  # a kernel interrupt (SIGINT to its group) never reaches it
        )  # fmt: skip
    except BaseException:
        stdout.close()
        stderr.close()
        raise
    return RunHandle(
        process, out / run_id, logs / "stdout.txt", logs / "stderr.txt", command, (stdout, stderr)
    )
