"""Work folders a killed ``anfperf run`` left on a host: found, judged and removed.

A run that is killed outright (SIGKILL, a crash, the machine going down) cannot remove its work
folders ``<workdir>/<run_id>.<host>.<random>``, and the command it started there goes on: the
remote process group was made a session of its own (``setsid``) so that anfperf can stop it,
and so it outlives the SSH connection. When a run next prepares a host, :func:`sweep` lists the
folders of that host's name this user made below the workdir and removes those of runs that
are certainly not running, stopping what still runs in them first:

- the run being resumed (this process holds its run lock: whatever is left is from before);
- a run of the same output folder whose run lock is free
  (:func:`~anfperf.runner.runlock.is_running`);
- a run unknown here (another output folder, another machine) only when nothing runs in the
  folder and it has not changed for :data:`STALE_AFTER_S`.

Only real folders (never links) owned by this user whose names have the work-folder pattern are
touched; ``rm -rf`` does not follow links inside them.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anfperf.runner.manifest import MANIFEST_NAME
from anfperf.runner.runlock import LOCK_NAME, is_running
from anfperf.runner.security import KILL_SCRIPT, SAFE_NAME, join, quote

log = logging.getLogger(__name__)

#: Age after which the unchanged, idle work folder of a run unknown here counts as left
#: behind [s]. A run's folder changes as files are uploaded and outputs written, and holds a
#: live process while its command runs; a day leaves room for the slowest collection.
STALE_AFTER_S = 24 * 3600
#: Random characters ``mktemp`` puts after ``<run_id>.<host>.``.
RANDOM_CHARS = 10
#: Pid files of the steps' commands (see :func:`anfperf.runner.steps.step_files`).
_PIDFILES = ".anfperf-step*.pid"

#: Prints ``<age in s> <pid of a live command or 0> <name>`` for each real folder of this user
#: below $0 whose name ends in ``.$1.`` and RANDOM_CHARS characters. A command counts as live
#: when the pid in its pid file is a process working in that folder (not a reused pid).
_LIST_SCRIPT = r"""
base=$0; host=$1; me=$(id -u); now=$(date +%s)
[ -d "$base" ] || exit 0
find "$base/" -mindepth 1 -maxdepth 1 -type d -user "$me" -name "*.$host.__RANDOM__" |
while IFS= read -r d; do
  real=$(readlink -f "$d"); live=0
  for f in "$d"/__PIDFILES__; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    p=$(cat -- "$f"); case $p in ''|*[!0-9]*) continue;; esac
    [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$real" ] && live=$p
  done
  printf '%s %s %s\n' "$(( now - $(stat -c %Y -- "$d") ))" "$live" "${d##*/}"
done
""".replace("__RANDOM__", "?" * RANDOM_CHARS).replace("__PIDFILES__", _PIDFILES)

#: Removes the folders $2... below $0, each checked again (a real folder of this user), after
#: stopping a command still working in it (the kill script $1, pid files named as above).
_REMOVE_SCRIPT = r"""
base=$0; kill=$1; shift; me=$(id -u)
for name in "$@"; do
  d=$base/$name
  [ -d "$d" ] && [ ! -L "$d" ] && [ "$(stat -c %u -- "$d")" = "$me" ] || continue
  real=$(readlink -f "$d")
  for f in "$d"/__PIDFILES__; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    p=$(cat -- "$f"); case $p in ''|*[!0-9]*) continue;; esac
    [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$real" ] && sh -c "$kill" "$f" __GRACE__
  done
  rm -rf -- "$d" && printf '%s\n' "$name"
done
""".replace("__PIDFILES__", _PIDFILES)


@dataclass(frozen=True)
class LeftFolder:
    """A work folder found on a host.

    Attributes
    ----------
    name : str
        Its name, ``<run_id>.<host>.<random>``.
    run_id : str
        The run that made it.
    age_s : int
        Seconds since it last changed [s].
    live_pid : int
        The command still working in it (0: none).
    """

    name: str
    run_id: str
    age_s: int
    live_pid: int


def list_command(base: str, host: str) -> str:
    """The command line that lists `host`'s work folders below `base` (see :func:`parse`)."""
    return f"sh -c {quote(_LIST_SCRIPT)} {quote(base)} {quote(host)}"


def parse(text: str, host: str) -> list[LeftFolder]:
    """The folders of :func:`list_command`'s output whose names are work-folder names of
    `host` (anything else is left alone)."""
    name = rf"(?P<name>(?P<run>.+)\.{re.escape(host)}\.[A-Za-z0-9]{{{RANDOM_CHARS}}})"
    pattern = re.compile(rf"^(-?\d+) (\d+) {name}$")
    found = []
    for line in text.splitlines():
        m = pattern.match(line)
        if m and SAFE_NAME.match(m["run"]):
            found.append(LeftFolder(m["name"], m["run"], int(m[1]), int(m[2])))
    return found


def left_behind(
    folders: list[LeftFolder], run_id: str, out_dir: Path, *, stale_after_s: float = STALE_AFTER_S
) -> list[LeftFolder]:
    """The folders of runs certainly not running (the rules of the module docstring).

    Parameters
    ----------
    folders : list of LeftFolder
        From :func:`parse`, the folder this run just made left out.
    run_id : str
        The run this process runs (and holds the lock of).
    out_dir : Path
        Its output folder: runs recorded there tell by their run lock whether they run.
    stale_after_s : float
        Age after which an idle folder of a run unknown here is left behind [s].
    """
    chosen = []
    for folder in folders:
        run_dir = out_dir / folder.run_id
        if folder.run_id == run_id:
            chosen.append(folder)
        elif (run_dir / MANIFEST_NAME).exists() or (run_dir / LOCK_NAME).exists():
            if not is_running(run_dir):
                chosen.append(folder)
        elif not folder.live_pid and folder.age_s > stale_after_s:
            chosen.append(folder)
    return chosen


def remove_command(base: str, names: list[str], kill_grace_s: int) -> str:
    """The command line that stops what runs in the folders `names` below `base` and removes
    them; it prints the names removed."""
    script = _REMOVE_SCRIPT.replace("__GRACE__", str(int(kill_grace_s)))
    return f"sh -c {quote(script)} {quote(base)} {quote(KILL_SCRIPT)} {join(names)}"


def sweep(
    conn: Any,
    base: str,
    host: str,
    *,
    run_id: str,
    out_dir: Path,
    keep: str,
    timeout_s: float,
    kill_grace_s: int,
) -> list[str]:
    """Remove the work folders killed runs left on `host` below `base`: the names removed.

    Parameters
    ----------
    conn : fabric.Connection or LocalConnection
        Open.
    base : str
        The host's workdir (checked by :func:`~anfperf.runner.security.workdir_command`).
    host : str
        The host's name in the inventory (work folders carry it).
    run_id, out_dir
        As for :func:`left_behind`.
    keep : str
        The folder this run just made there.
    timeout_s : float
        Longest a host may take to answer one request [s].
    kill_grace_s : int
        Seconds between TERM and KILL for a command still running in a folder removed.
    """
    listed = conn.run(
        list_command(base, host), hide=True, warn=True, in_stream=False, timeout=timeout_s
    )
    folders = [f for f in parse(listed.stdout, host) if f.name != keep]
    chosen = left_behind(folders, run_id, out_dir)
    if not chosen:
        return []
    for f in chosen:
        if f.live_pid:
            log.warning(
                "%s: stopping pid %s of run %s, left running in %s/%s by an anfperf that ended",
                host, f.live_pid, f.run_id, base, f.name,
            )  # fmt: skip
    removed = conn.run(
        remove_command(base, [f.name for f in chosen], kill_grace_s),
        hide=True, warn=True, in_stream=False,
        timeout=timeout_s + (kill_grace_s + 3) * sum(1 for f in chosen if f.live_pid),
    ).stdout.split()  # fmt: skip
    log.info("%s: removed work folders left behind in %s: %s", host, base, ", ".join(removed))
    return removed
