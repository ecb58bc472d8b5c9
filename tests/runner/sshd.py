"""Real OpenSSH servers on loopback addresses (127.0.0.2, 127.0.0.3, ...) for the runner tests.

Each :class:`SshServer` is a real ``/usr/sbin/sshd -D`` with its own generated host key, a
config that only accepts one generated client key (no passwords, no PAM), running as the
current user. :class:`SshFleet` starts several and writes the known_hosts file and inventories
that point at them. :class:`SilentHosts` are hosts that accept TCP connections and never greet. Used by tests/runner (fixtures in conftest.py), tests/runner/netns.py (the
same servers started inside network namespaces, on port 22) and benchmarks/bench_fleet.py.
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import yaml

SSHD = "/usr/sbin/sshd"
SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"


def sshd_missing() -> str | None:
    """Why real-sshd tests cannot run here (None when they can)."""
    if not os.path.exists(SSHD):
        return f"{SSHD} is missing (Debian package openssh-server; `make sysdeps` installs it)"
    if not os.path.exists(SSH_KEYGEN):
        return "ssh-keygen is missing (Debian package openssh-client)"
    return None


def keygen(path: Path, comment: str = "anfperf-test") -> Path:
    """A new ed25519 key pair at `path` (private) and `path`.pub."""
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        capture_output=True,
    )
    return path


def free_port(address: str) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


class SshServer:
    """One sshd listening on `address`:`port`, accepting `authorized` public keys.

    `port` defaults to a free one; `prefix` is put before the sshd command line (e.g.
    ``ip netns exec NS``, where the address lives in another namespace: give the port then).
    """

    def __init__(
        self,
        folder: Path,
        address: str,
        authorized: Path,
        *,
        port: int | None = None,
        prefix: Sequence[str] = (),
    ):
        self.folder = folder
        self.address = address
        self.port = port or free_port(address)
        self.prefix = tuple(prefix)
        folder.mkdir(parents=True, exist_ok=True)
        self.host_key = keygen(folder / "host_key", f"host-{address}")
        self.config = folder / "sshd_config"
        # A fresh HOME for the sessions: the remote shell then starts like a new VM's, without
        # this machine's ~/.bashrc (here it runs `pyenv init`, 0.1 s of CPU per command).
        self.home = folder / "home"
        self.home.mkdir(exist_ok=True)
        self.log = folder / "sshd.log"
        self.config.write_text(
            f"ListenAddress {address}\n"
            f"Port {self.port}\n"
            f"HostKey {self.host_key}\n"
            f"AuthorizedKeysFile {authorized}\n"
            f"PidFile {folder / 'sshd.pid'}\n"
            "StrictModes no\n"
            "UsePAM no\n"
            "PasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\n"
            "PermitRootLogin prohibit-password\n"
            "UseDNS no\n"
            "PrintMotd no\n"
            "MaxStartups 100\n"
            "MaxSessions 50\n"
            f"SetEnv HOME={self.home}\n"
            "Subsystem sftp internal-sftp\n"
            "LogLevel VERBOSE\n"
        )
        self.proc: subprocess.Popen | None = None

    @property
    def known_hosts_line(self) -> str:
        key_type, key, *_ = (self.host_key.with_suffix(".pub")).read_text().split()
        # OpenSSH and Paramiko look port 22 up under the bare address
        name = self.address if self.port == 22 else f"[{self.address}]:{self.port}"
        return f"{name} {key_type} {key}\n"

    def start(self) -> SshServer:
        if os.geteuid() == 0:
            # sshd refuses to start as root without its privilege-separation folder, which the
            # Debian service unit normally creates at boot.
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.proc = subprocess.Popen(
            [*self.prefix, SSHD, "-D", "-e", "-f", str(self.config), "-E", str(self.log)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd on {self.address} exited: {self.log.read_text()}")
            try:
                with socket.create_connection((self.address, self.port), timeout=0.5) as s:
                    if s.recv(4).startswith(b"SSH-"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"sshd on {self.address}:{self.port} did not start")

    def descendants(self) -> list[int]:
        """Pids of every process below the listener (sessions and what they run)."""
        if self.proc is None:
            return []
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
        out, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            for child in children.get(pid, []):
                out.append(child)
                todo.append(child)
        return out

    def crash(self) -> None:
        """The host dies: the listener, every session and everything they run, at once."""
        pids = [*self.descendants(), self.proc.pid] if self.proc else []
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc:
            self.proc.wait(timeout=5)

    def freeze(self) -> None:
        """The host hangs: the listener, every session and what they run stop (SIGSTOP), while
        the kernel keeps their TCP connections open -- as a VM that stopped responding."""
        self._signal_all(signal.SIGSTOP)

    def thaw(self) -> None:
        self._signal_all(signal.SIGCONT)

    def _signal_all(self, sig: int) -> None:
        for pid in [self.proc.pid, *self.descendants()] if self.proc else []:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class SshFleet:
    """`n` sshd on 127.0.0.2 ... with one client key, a wrong key and a known_hosts file.

    Or one sshd per address of `addresses`, each on `port` and started after its entry of
    `prefixes` (see :class:`SshServer`).
    """

    def __init__(
        self,
        folder: Path,
        n: int = 2,
        first: int = 2,
        *,
        addresses: Sequence[str] | None = None,
        port: int | None = None,
        prefixes: Sequence[Sequence[str]] | None = None,
    ):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.client_key = keygen(folder / "client_key")
        self.wrong_key = keygen(folder / "wrong_key")
        self.authorized = folder / "authorized_keys"
        self.authorized.write_text(self.client_key.with_suffix(".pub").read_text())
        if addresses is None:
            addresses = [f"127.0.0.{first + i}" for i in range(n)]
        if prefixes is None:
            prefixes = [()] * len(addresses)
        self.servers = [
            SshServer(folder / f"sshd{i}", address, self.authorized, port=port, prefix=prefix)
            for i, (address, prefix) in enumerate(zip(addresses, prefixes, strict=True))
        ]
        self.known_hosts = folder / "known_hosts"

    def start(self) -> SshFleet:
        for server in self.servers:
            server.start()
        self.known_hosts.write_text("".join(s.known_hosts_line for s in self.servers))
        return self

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def __enter__(self) -> SshFleet:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def hosts(self, names: list[str] | None = None) -> dict[str, dict]:
        names = names or [f"vm{i + 1}" for i in range(len(self.servers))]
        return {
            name: {"hostname": s.address, "port": s.port}
            for name, s in zip(names, self.servers, strict=False)
        }

    def inventory(
        self, path: Path, *, key: Path | None = None, extra_hosts: dict | None = None, **top
    ) -> Path:
        """Write an inventory YAML for these servers (plus `extra_hosts`) and return its path."""
        doc = {
            "user": getpass.getuser(),
            "key": str(key or self.client_key),
            "agent": False,
            "known_hosts": str(self.known_hosts),
            "connect_timeout_s": 5,
            "hosts": {**self.hosts(), **(extra_hosts or {})},
            **top,
        }
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        return path


#: Listens on every address given and never accepts: the kernel completes each TCP connection
#: (up to the backlog) and nothing ever answers -- an SSH server that does not greet.
_SILENT_SCRIPT = """
import resource, signal, socket, sys
port, addresses = int(sys.argv[1]), sys.argv[2:]
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
held = []
for address in addresses:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((address, port))
    s.listen(64)
    held.append(s)
print("ready", flush=True)
signal.pause()
"""


class SilentHosts:
    """Hosts that accept TCP connections on `port` but never send an SSH banner: one listening
    socket per address of `addresses` (e.g. 127.77.0.1 ...), in a child process of their own
    (so that their sockets do not count among the runner's open files)."""

    def __init__(self, addresses: Sequence[str], port: int | None = None):
        self.addresses = list(addresses)
        self.port = port or free_port(self.addresses[0])
        self.proc: subprocess.Popen | None = None

    @staticmethod
    def loopback(n: int, prefix: str = "127.77") -> list[str]:
        """`n` loopback addresses ``prefix.x.y`` (x.y from 0.1 on)."""
        return [f"{prefix}.{i // 250}.{i % 250 + 1}" for i in range(n)]

    def start(self) -> SilentHosts:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SILENT_SCRIPT, str(self.port), *self.addresses],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            text=True,
        )
        if self.proc.stdout.readline().strip() != "ready":
            self.stop()
            raise RuntimeError(f"silent listeners on port {self.port} did not start")
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> SilentHosts:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def hosts(self, prefix: str = "silent") -> dict[str, dict]:
        """Inventory entries ``silent1`` ... for these addresses."""
        return {
            f"{prefix}{i + 1}": {"hostname": address, "port": self.port}
            for i, address in enumerate(self.addresses)
        }


def once_running(
    servers: Sequence[SshServer],
    name: str,
    action: Callable[[], None],
    *,
    delay_s: float = 0.0,
    timeout_s: float = 30.0,
) -> threading.Thread:
    """Call `action` in a thread once a process called `name` (its /proc comm) runs below
    every one of `servers` (and `delay_s` more have passed: the task has done some work): a
    fault "mid run" that does not race a slow start on a loaded machine. At `timeout_s`
    without them, `action` runs anyway: the test then fails saying what it found."""

    def started(server: SshServer) -> bool:
        return any(_comm(pid) == name for pid in server.descendants())

    def wait_then_act() -> None:
        end = time.monotonic() + timeout_s
        while time.monotonic() < end and not all(started(s) for s in servers):
            time.sleep(0.05)
        time.sleep(delay_s)
        action()

    thread = threading.Thread(target=wait_then_act, daemon=True)
    thread.start()
    return thread


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:  # gone meanwhile
        return ""
