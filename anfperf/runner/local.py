"""The local executor: this machine behind the interface of a Fabric Connection.

The fleet code calls ``run(command, hide=True, warn=True, in_stream=False)``, ``put``, ``get``,
``open`` and ``close`` on its connections. :class:`LocalConnection` answers them on this machine
with a local shell and file copies, so the same runs, preflight checks, manifests and faults
work without SSH (the demo's default).
"""

from __future__ import annotations

import codecs
import getpass
import os
import shutil
import signal
import socket
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

from invoke.runners import Result

#: The shell that runs commands, as sshd would run them with a POSIX login shell.
SHELL = "/bin/sh"


class LocalConnection:
    """Run commands and move files on this machine, like a Fabric Connection would remotely.

    Parameters
    ----------
    name : str
        The host name used in results and folders (default ``'local'``).

    Notes
    -----
    Only the subset of :class:`fabric.Connection` that anfperf uses is offered: ``run``,
    ``put``, ``get``, ``open``, ``close``, ``is_connected`` and the attributes ``host``,
    ``original_host``, ``user``, ``port``. :meth:`close` stops every command still running,
    as a dropped SSH connection would end a remote session.
    """

    def __init__(self, name: str = "local"):
        self.original_host = name
        self.host = "localhost"
        self.user = getpass.getuser()
        self.port = None
        self.gateway = None
        self._procs: set[subprocess.Popen] = set()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<LocalConnection name={self.original_host!r}>"

    @property
    def is_connected(self) -> bool:
        return True

    def open(self) -> None:
        """Nothing to open: this machine is always reachable."""

    def close(self) -> None:
        """Stop the commands still running (their whole process groups)."""
        with self._lock:
            procs = list(self._procs)
        for proc in procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def run(
        self,
        command: str,
        *,
        hide: bool | str = True,
        warn: bool = True,
        in_stream: Any = False,
        timeout: float | None = None,
        out_stream: IO[str] | None = None,
        **_: Any,
    ) -> Result:
        """Run `command` with ``/bin/sh -c`` and return an :class:`invoke.runners.Result`.

        Output is captured (as with ``hide=True``); a non-zero exit gives a result with that
        ``exited`` value (as with ``warn=True``); ``timeout`` kills the command's process group.
        With `out_stream` and stdout not hidden (``hide='stderr'``), stdout is also written to
        it as it arrives, as invoke does.
        """
        proc = subprocess.Popen(
            [SHELL, "-c", command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own group: close() stops it and all it started
        )
        with self._lock:
            self._procs.add(proc)
        echo = out_stream if out_stream is not None and hide in ("err", "stderr") else None
        try:
            out, err = self._communicate(proc, timeout, echo)
        finally:
            with self._lock:
                self._procs.discard(proc)
        return Result(
            stdout=out.decode("utf-8", "replace"),
            stderr=err.decode("utf-8", "replace"),
            command=command,
            shell=SHELL,
            exited=proc.returncode if proc.returncode >= 0 else 128 - proc.returncode,
            hide=("stdout", "stderr"),
        )

    @staticmethod
    def _communicate(
        proc: subprocess.Popen, timeout: float | None, echo: IO[str] | None
    ) -> tuple[bytes, bytes]:
        """Both streams whole; stdout also to `echo` as it comes (decoded, like invoke)."""
        if echo is None:
            try:
                return proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                return proc.communicate()
        err: list[bytes] = []
        reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
        reader.start()
        out = bytearray()
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        killer = None
        if timeout is not None:
            killer = threading.Timer(timeout, lambda: _kill_group(proc.pid))
            killer.start()
        try:
            while chunk := os.read(proc.stdout.fileno(), 1 << 16):
                out += chunk
                echo.write(decoder.decode(chunk))
            echo.write(decoder.decode(b"", final=True))
            proc.wait()
        finally:
            if killer is not None:
                killer.cancel()
        reader.join()
        proc.stdout.close()
        proc.stderr.close()
        return bytes(out), err[0] if err else b""

    def put(self, local: str | os.PathLike | IO[bytes], remote: str) -> None:
        """Copy a file (or the bytes of an open binary file) to the path `remote`."""
        target = Path(remote)
        target.parent.mkdir(parents=True, exist_ok=True)
        if hasattr(local, "read"):
            with open(target, "wb") as fh:
                shutil.copyfileobj(local, fh)
        else:
            shutil.copyfile(local, target)

    def get(self, remote: str, local: str | os.PathLike) -> None:
        """Copy the file `remote` to `local`."""
        shutil.copyfile(remote, local)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def local_hostname() -> str:
    """This machine's short host name (the demo's host name in folders and manifests)."""
    return socket.gethostname().split(".")[0] or "local"
