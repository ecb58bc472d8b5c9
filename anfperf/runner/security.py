"""Quoting, names and secrets: what keeps remote commands and local paths safe.

Everything anfperf sends to a host is one POSIX shell command line built here from argument
lists with :func:`shlex.quote`, so a workload name, a path or a parameter holding spaces,
quotes, ``;`` or ``$(...)`` reaches the program as one literal argument and is never run. Names
that become local folders (hosts, run ids, output files) are checked so that they cannot climb
out of the run folder. Host keys are checked against known_hosts unless the user explicitly
trusts new hosts on first use.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import shlex
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import paramiko
import paramiko.hostkeys

from anfperf.paths import check_relative  # here too: collect and inside() check outputs

log = logging.getLogger(__name__)

DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"

#: Host names, run ids: become folder names, so no separators, no leading dot or dash.
SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.@+-]{0,127}$")

#: Run by ``sh -c SCRIPT PIDFILE ARGV...``: records the process-group leader's pid (setsid made
#: it one), then becomes the program, so that ``kill -- -PID`` later stops the program and every
#: child it forked (fio's job processes, Vdbench's JVMs).
_PIDFILE_SCRIPT = 'echo $$ >"$0" && exec "$@"'

#: Stops the program named in a pid file: TERM to its process group first (fio then stops its
#: jobs and still writes its results; Vdbench stops its JVMs), KILL after `grace` seconds to the
#: group and every descendant (fio's job processes run in sessions of their own). Waits briefly
#: for the pid file when the run is just starting. `kill -SIG -PGID`, not `kill -- -PGID`:
#: dash's built-in kill does not take `--`.
KILL_SCRIPT = r"""
f=$0; grace=$1; i=0
while [ ! -s "$f" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done
[ -s "$f" ] || exit 0
p=$(cat -- "$f")
case $p in ''|*[!0-9]*) exit 0;; esac
tree() { for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; tree "$c"; done; }
kill -TERM "-$p" 2>/dev/null || exit 0
i=0
while kill -0 "-$p" 2>/dev/null; do
  if [ $i -ge $((grace*10)) ]; then
    pids=$(tree "$p")
    kill -KILL "-$p" $pids 2>/dev/null
    exit 0
  fi
  sleep 0.1; i=$((i+1))
done
"""


#: Makes a private work folder below the base folder $0 and prints its path. Like sshd's
#: StrictModes (``safe_path``), every folder on the way from / to the base, and the base, must
#: belong to this user or root and not be writable by others unless sticky like /tmp; a link on
#: the way must belong to this user or root, and the folders it leads to pass the same test.
#: Nobody else can then swap a folder on the way for a link. Missing folders are made (mode
#: 0700) only below folders that passed, and checked again once made; the work folder itself
#: gets an unpredictable name and mode 0700 (``mktemp -d``). Exit 3 with the reason (one line
#: naming the folder) on stderr otherwise.
_WORKDIR_SCRIPT = r"""
base=$0; prefix=$1
umask 077
me=$(id -u)
refuse() { printf '%s\n' "$1" >&2; exit 3; }
case $base in /*) ;; *) refuse "$base is not an absolute path";; esac
folder_ok() {  # $1: an existing folder reached without links
  [ -d "$1" ] || refuse "$1 is not a folder"
  owner=$(stat -c %u -- "$1") && mode=$(stat -c %a -- "$1") || refuse "$1 cannot be checked"
  if [ "$owner" != "$me" ] && [ "$owner" != 0 ]; then
    refuse "$1 belongs to user $owner (trusted: root and user $me): refusing to work below it"
  fi
  if [ $(( 0$mode & 022 )) -ne 0 ] && [ $(( 0$mode & 01000 )) -eq 0 ]; then
    refuse "$1 can be changed by other users (mode $mode, not sticky): refusing to work below it"
  fi
}
resolved_ok() {  # $1: a link; every folder of the path it leads to
  t=$(readlink -f "$1") && [ -n "$t" ] && [ -d "$t" ] || refuse "$1 is a link to no folder"
  folder_ok /
  r=; trest=${t#/}
  while [ -n "$trest" ]; do
    tc=${trest%%/*}
    case $trest in */*) trest=${trest#*/};; *) trest=;; esac
    r=$r/$tc; folder_ok "$r"
  done
}
walk() {  # every existing folder or link from / down to the base; stops at the first missing
  d=
  folder_ok /
  rest=${base#/}
  while [ -n "$rest" ]; do
    c=${rest%%/*}
    case $rest in */*) rest=${rest#*/};; *) rest=;; esac
    case $c in '') continue;; .|..) refuse "$base: '.' and '..' are not allowed in a workdir";; esac
    d=$d/$c
    if [ -L "$d" ]; then
      owner=$(stat -c %u -- "$d") || refuse "$d cannot be checked"
      if [ "$owner" != "$me" ] && [ "$owner" != 0 ]; then
        refuse "$d is a link of user $owner (trusted: root and user $me): refusing to follow it"
      fi
      resolved_ok "$d"
    elif [ -e "$d" ]; then
      folder_ok "$d"
    else
      return 0
    fi
  done
}
walk
mkdir -p -- "$base" || refuse "$base cannot be made"
walk
mktemp -d -- "$base/$prefix.XXXXXXXXXX"
"""


def workdir_command(base: str, prefix: str) -> str:
    """The command line that makes a private work folder below `base` and prints its path.

    Parameters
    ----------
    base : str
        Absolute folder on the host (e.g. ``/tmp/anfperf``); made when missing (mode 0700).
        Refused (exit 3, the reason on stderr) when another user could change it or a folder
        or link on the way to it (see :data:`_WORKDIR_SCRIPT`).
    prefix : str
        Start of the folder's name (a checked name such as ``<run_id>.<host>``); random
        characters follow, so other users cannot plant a folder or link there in advance.
    """
    return (
        f"sh -c {quote(_WORKDIR_SCRIPT)} {quote(base)} {quote(check_folder_name(prefix, 'prefix'))}"
    )


def remove_command(folder: str) -> str:
    """The command line that removes a work folder made by :func:`workdir_command`."""
    return join(["rm", "-rf", "--", folder])


def quote(value: str | os.PathLike) -> str:
    """One shell word that stands for `value` literally."""
    return shlex.quote(os.fspath(value))


def join(argv: Iterable[str | os.PathLike]) -> str:
    """A shell command line that runs `argv` exactly, every argument quoted."""
    return " ".join(quote(a) for a in argv)


def wrap_command(argv: Sequence[str], workdir: str, pidfile: str) -> str:
    """The command line that runs `argv` in `workdir` as a process group anfperf can stop.

    ``setsid -w`` starts the program in a session (and process group) of its own and waits for
    it, so the exit status comes back through SSH, while :func:`kill_command` can stop the whole
    group by the pid written to `pidfile`.
    """
    if not argv:
        raise ValueError("empty command")
    return (
        f"cd -- {quote(workdir)} && exec setsid -w sh -c {quote(_PIDFILE_SCRIPT)} "
        f"{quote(pidfile)} {join(argv)}"
    )


def kill_command(pidfile: str, grace_s: int = 5) -> str:
    """The command line that stops the process group recorded in `pidfile` (TERM, then KILL)."""
    return f"sh -c {quote(KILL_SCRIPT)} {quote(pidfile)} {int(grace_s)}"


def check_folder_name(name: str, what: str = "name") -> str:
    """`name` when it is safe as a single folder name (host names, run ids), else ValueError.

    Looser than :func:`anfperf.workloads.check_name` (workload names, which also go into
    parameter files): '.', '@' and '+' are allowed here.
    """
    if not isinstance(name, str) or not SAFE_NAME.match(name):
        raise ValueError(
            f"{what} {name!r} is not usable as a folder name: use letters, digits and . _ - @ +, "
            "not starting with '.' or '-'"
        )
    return name


def inside(base: Path, relative: str) -> Path:
    """``base / relative``, refusing anything that would land outside `base`."""
    target = (base / check_relative(relative)).resolve()
    root = base.resolve()
    if target != root and root not in target.parents:
        raise ValueError(f"{relative!r} leaves {base}")
    return target


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret (password, passphrase, key text) replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


class TrustOnFirstUse(paramiko.MissingHostKeyPolicy):
    """Accept an unknown host's key and append it to known_hosts (one writer at a time).

    Paramiko's AutoAddPolicy rewrites the whole file from each client's copy, so hosts first
    met in parallel would overwrite each other's entries; this appends under a lock instead.
    """

    _lock = threading.Lock()

    def __init__(self, path: Path):
        self.path = path

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str, key) -> None:
        client.get_host_keys().add(hostname, key.get_name(), key)
        line = paramiko.hostkeys.HostKeyEntry([hostname], key).to_line()
        with self._lock, open(self.path, "a", encoding="ascii") as fh:
            fh.write(line)
        log.warning(
            "trusted the new %s host key of %s on first use (recorded in %s)",
            key.get_name(),
            hostname,
            self.path,
        )


def host_key_policy(
    client: paramiko.SSHClient, known_hosts: str | os.PathLike | None, trust_on_first_use: bool
) -> None:
    """Make `client` check host keys: known_hosts by default, new keys only when trusted.

    Parameters
    ----------
    client : paramiko.SSHClient
        The client of a Fabric Connection (which would otherwise accept any key).
    known_hosts : path, optional
        File of known host keys; default ``~/.ssh/known_hosts``. A host whose key differs from
        the recorded one is always refused.
    trust_on_first_use : bool
        Accept the key of a host not yet in `known_hosts` and record it there. Off by default:
        an unknown host is refused.
    """
    path = Path(os.path.expanduser(os.fspath(known_hosts or DEFAULT_KNOWN_HOSTS)))
    if path.is_file():
        client.get_host_keys().load(str(path))
    if trust_on_first_use:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            path.touch(mode=0o600)
        client.set_missing_host_key_policy(TrustOnFirstUse(path))
    else:
        client.set_missing_host_key_policy(paramiko.RejectPolicy())


#: Errors of a file written or read (the local executor's copies, SFTP's status codes), which
#: are no network error: the disk is full, the folder read-only, missing or not allowed.
_FILE_ERRNOS = frozenset({
    errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOENT,
    errno.ENOTDIR, errno.EISDIR, errno.EFBIG, errno.ENAMETOOLONG,
})  # fmt: skip


def _no_valid_connections(exc) -> str:
    """Paramiko's failure to connect to every address of a host, by what the addresses said:
    refused only when each refused (a host down or a network without a route is no refusal)."""
    reasons = {err.errno: err.strerror or str(err) for err in exc.errors.values()}
    if set(reasons) == {errno.ECONNREFUSED}:
        return f"connection refused ({exc})"
    return f"{'; '.join(dict.fromkeys(reasons.values()))} ({exc})"


def describe_error(exc: BaseException, secrets: Iterable[str] | None = None) -> str:
    """A short reason for a failed connection or command, with secrets blanked out.

    The reason names the kind of failure the user can act on: unreachable, authentication
    refused, host key unknown or changed, connection lost, timed out; or a file that could
    not be written (a full disk, a read-only or missing folder), in the system's words.
    """
    from invoke.exceptions import CommandTimedOut
    from paramiko.ssh_exception import NoValidConnectionsError

    if isinstance(exc, paramiko.BadHostKeyException):
        text = (
            f"host key of {exc.hostname} does not match known_hosts (refused: the host was "
            "re-installed, or someone is in between)"
        )
    elif isinstance(exc, paramiko.AuthenticationException):
        text = f"authentication refused: {exc}"
    elif isinstance(exc, paramiko.SSHException) and "known_hosts" in str(exc):
        text = (
            f"host key unknown: {exc} (add it to known_hosts, e.g. with ssh-keyscan, or allow "
            "trust_on_first_use)"
        )
    elif isinstance(exc, NoValidConnectionsError):
        text = _no_valid_connections(exc)
    elif isinstance(exc, TimeoutError):  # socket.timeout is TimeoutError since 3.10
        text = f"no answer ({exc or 'timed out'})"
    elif isinstance(exc, CommandTimedOut):
        text = f"timed out after {exc.timeout} s"
    elif isinstance(exc, EOFError | ConnectionError) or (
        isinstance(exc, paramiko.SSHException) and "not active" in str(exc)
    ):
        text = f"connection lost: {exc or type(exc).__name__}"
    elif isinstance(exc, OSError) and exc.errno in _FILE_ERRNOS:  # a file, not the network
        named = f" ({os.fsdecode(exc.filename)})" if exc.filename is not None else ""
        text = f"{exc.strerror or exc}{named}"
    elif isinstance(exc, OSError):
        text = f"network error: {exc.strerror or exc}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return redact(text, secrets or ())
