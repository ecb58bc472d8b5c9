"""Network namespaces with addresses of their own, for multi-host runs loopback cannot model.

Loopback hosts (127.0.0.x) share one network stack, and real Vdbench refuses a loopback master
address for multi-host runs. :class:`NetnsLab` (root only; ``ip`` from iproute2) makes N network
namespaces on a private /24 that nothing on this machine uses (10.250.0.0/24 when free, as in
the Vdbench corpus run MultiHostSeqMix), joined by a bridge in the root namespace::

    root namespace   bridge af<pid>k<lab>        10.250.0.1/24   (the runner's side)
      veth af<pid>k<lab>v0  <->  eth0 in anfperf-<pid>-<lab>-0   10.250.0.2/24
      veth af<pid>k<lab>v1  <->  eth0 in anfperf-<pid>-<lab>-1   10.250.0.3/24

Namespaces reach each other over the bridge (layer 2: no IP forwarding is switched on) and the
root namespace reaches them through the bridge's address. Each namespace gets
``/etc/netns/<ns>/hosts``, which ``ip netns exec`` binds over /etc/hosts for what runs there:
this machine's host name resolves to the namespace's own address, so a program asking for its
own address (a Vdbench master) gets the namespaced one, not 127.x.

:class:`NetnsFleet` starts a real sshd inside each namespace on port 22 (the servers of
:mod:`tests.runner.sshd`) and an ssh client configuration there (``/etc/netns/<ns>/ssh`` over
/etc/ssh) with the fleet's key and known_hosts: ``ssh <address> -l root <command>`` from one
namespace to another works as between the VMs of a fleet -- how Vdbench starts its slaves.

Names carry the pid of the process that made them, so parallel sessions do not collide; before
a lab is made, namespaces, links and /etc/netns entries whose process is gone (a crashed or
killed session) are removed, under a lock that also serializes the choice of subnets.
:meth:`NetnsLab.destroy` kills every process in the namespaces, deletes veths, bridge,
namespaces and /etc/netns entries, then checks nothing is left; it also runs at interpreter exit.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import ipaddress
import itertools
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.runner.sshd import SshFleet

log = logging.getLogger(__name__)

#: iproute2's ``ip`` (Debian ships /bin/ip and /sbin/ip; merged /usr adds /usr/sbin/ip).
IP = shutil.which("ip", path="/usr/sbin:/usr/bin:/sbin:/bin") or "/bin/ip"
#: Namespace names: ``anfperf-<pid>-<lab>-<i>``.
NS_PREFIX = "anfperf"
#: Link names: bridge ``af<pid>k<lab>``, veths ``af<pid>k<lab>v<i>`` (at most 15 characters).
LINK_PREFIX = "af"
#: Where subnets are picked from, one /24 per lab, the first unused one.
SUBNET_POOL = ipaddress.ip_network("10.250.0.0/16")
#: ``ip netns exec NS`` binds each entry of /etc/netns/NS over the same name in /etc.
ETC_NETNS = Path("/etc/netns")
#: Serializes stale clean-up and the choice of subnets between processes.
LOCK_FILE = Path("/run/anfperf-netns.lock")
#: Longest an ``ip`` command may take [s].
IP_TIMEOUT_S = 15
#: Seconds between TERM and KILL for processes left in a namespace.
KILL_GRACE_S = 1.0
#: The kernel's limit on interface names.
IFNAME_MAX = 15

_NS_NAME = re.compile(rf"^{NS_PREFIX}-(\d+)-(\d+)-(\d+)$")
_LINK_NAME = re.compile(rf"^{LINK_PREFIX}(\d+)k(\d+)(?:v\d+)?$")
#: Route types that come before the destination in ``ip route`` output.
_ROUTE_TYPES = {
    "unicast", "local", "broadcast", "multicast", "throw", "unreachable", "prohibit",
    "blackhole", "nat", "anycast",
}  # fmt: skip

_live: set[str] = set()  # names made by this process and not destroyed yet
_labs = itertools.count()  # lab numbers within this process


class NetnsError(RuntimeError):
    """Namespaces, links or addresses could not be made or removed."""


#: CAP_SYS_ADMIN: what ``ip netns add`` (unshare, mount) needs (linux/capability.h).
CAP_SYS_ADMIN = 21


def effective_caps() -> int:
    """This process's effective capability set (/proc/self/status CapEff)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            line = next(ln for ln in f if ln.startswith("CapEff:"))
    except (OSError, StopIteration):
        return 0
    return int(line.split()[1], 16)


def netns_missing() -> str | None:
    """Why network namespaces cannot be made here (None when they can be tried).

    The capability decides, not the user id: root without CAP_SYS_ADMIN (a container, or a
    process that dropped it) cannot make namespaces either.
    """
    if os.geteuid() != 0 or not effective_caps() >> CAP_SYS_ADMIN & 1:
        return "network namespaces need root (CAP_SYS_ADMIN for ip netns add)"
    if not os.access(IP, os.X_OK):
        return f"{IP} is missing (Debian package iproute2)"
    return None


def ip(*args: str, check: bool = True) -> str:
    """Run ``ip ARGS`` and return its stdout; a failure raises :class:`NetnsError`."""
    try:
        proc = subprocess.run(
            [IP, *args], capture_output=True, text=True, timeout=IP_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NetnsError(f"ip {' '.join(args)}: {exc}") from exc
    if check and proc.returncode != 0:
        reason = proc.stderr.strip() or f"exit status {proc.returncode}"
        raise NetnsError(f"ip {' '.join(args)}: {reason}")
    return proc.stdout


def namespaces() -> list[str]:
    """Names of the named network namespaces (``ip netns list``)."""
    return [line.split()[0] for line in ip("netns", "list").splitlines() if line.strip()]


def links() -> list[str]:
    """Names of the links of the root namespace."""
    names = []
    for line in ip("-o", "link", "show").splitlines():
        parts = line.split(":", 2)  # "7: af12k0v1@if2: <BROADCAST,...> ..."
        if len(parts) == 3:
            names.append(parts[1].strip().split("@", 1)[0])
    return names


def namespace_pids(name: str) -> list[int]:
    """Live processes in namespace `name` (none when it does not exist)."""
    out = ip("netns", "pids", name, check=False)
    return [int(p) for p in out.split() if p.isdigit() and int(p) != os.getpid()]


def kill_namespace(name: str, grace_s: float = KILL_GRACE_S) -> list[int]:
    """TERM, then KILL, every process in namespace `name`; returns the survivors' pids."""
    pids = namespace_pids(name)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + grace_s
        while pids and time.monotonic() < deadline:
            time.sleep(0.02)
            pids = namespace_pids(name)  # a killed zombie no longer counts as in the namespace
        if not pids:
            break
    return pids


def used_networks() -> list[ipaddress.IPv4Network]:
    """IPv4 networks of the root namespace's addresses and routes (default route excluded)."""
    nets = []
    for line in ip("-4", "-o", "addr", "show").splitlines():
        tokens = line.split()
        if "inet" in tokens[:-1]:
            nets.append(ipaddress.ip_network(tokens[tokens.index("inet") + 1], strict=False))
    for line in ip("-4", "route", "show", "table", "all").splitlines():
        tokens = line.split()
        if not tokens:
            continue
        dest = tokens[1] if tokens[0] in _ROUTE_TYPES and len(tokens) > 1 else tokens[0]
        with contextlib.suppress(ValueError):  # 'default' and the like
            nets.append(ipaddress.ip_network(dest, strict=False))
    return nets


def pick_subnet(pool: ipaddress.IPv4Network = SUBNET_POOL) -> ipaddress.IPv4Network:
    """The first /24 of `pool` that overlaps no address or route of the root namespace."""
    used = used_networks()
    for net in pool.subnets(new_prefix=24):
        if not any(net.overlaps(u) for u in used):
            return net
    raise NetnsError(f"every /24 of {pool} is in use here")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stale(pid: int, name: str) -> bool:
    # Our own pid on something this process did not make: a crashed session whose pid came
    # back (containers often give the same pids to every run).
    if pid == os.getpid():
        return name not in _live
    return not _alive(pid)


def cleanup_stale() -> list[str]:
    """Remove namespaces, links and /etc/netns entries of sessions that are gone.

    Returns what was removed. Only names made by this module (with a pid) are touched.
    """
    removed = []
    for name in namespaces():
        m = _NS_NAME.match(name)
        if m and _stale(int(m[1]), name):
            kill_namespace(name, grace_s=0.2)
            ip("netns", "del", name, check=False)
            removed.append(name)
    for name in links():  # after the namespaces: deleting one deletes its veth pair
        m = _LINK_NAME.match(name)
        if m and _stale(int(m[1]), name):
            ip("link", "del", name, check=False)
            removed.append(name)
    if ETC_NETNS.is_dir():
        for entry in ETC_NETNS.iterdir():
            m = _NS_NAME.match(entry.name)
            if m and _stale(int(m[1]), entry.name):
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(str(entry))
    if removed:
        log.info("removed what crashed sessions left: %s", removed)
    return removed


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    try:
        f = open(LOCK_FILE, "a+")  # closed by the with below
    except OSError as exc:
        raise NetnsError(f"cannot open the lock file {LOCK_FILE}: {exc}") from exc
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class NetnsLab:
    """`n` network namespaces on one /24, joined by a bridge whose address is in the root one.

    Parameters
    ----------
    n : int
        Number of namespaces.
    subnet : str, optional
        The /24 (or larger) to use; default: the first unused /24 of :data:`SUBNET_POOL`.
    hostname : str, optional
        Name resolved to each namespace's own address inside it (default: this machine's).

    Attributes
    ----------
    names : list of str
        Namespace names.
    addresses : list of str
        Each namespace's address (on its ``eth0``), after :meth:`create`.
    gateway : str
        The bridge's address in the root namespace, after :meth:`create`.
    """

    def __init__(self, n: int = 2, *, subnet: str | None = None, hostname: str | None = None):
        if not 1 <= n <= 250:
            raise ValueError("n must be within 1..250")
        pid, lab = os.getpid(), next(_labs)
        self.names = [f"{NS_PREFIX}-{pid}-{lab}-{i}" for i in range(n)]
        self.bridge = f"{LINK_PREFIX}{pid}k{lab}"
        self.veths = [f"{self.bridge}v{i}" for i in range(n)]
        if any(len(v) > IFNAME_MAX for v in self.veths):
            raise ValueError(f"interface names too long: {self.veths[-1]}")
        self.hostname = hostname or socket.gethostname()
        self._subnet = ipaddress.ip_network(subnet) if subnet else None
        self.subnet: ipaddress.IPv4Network | None = None
        self.gateway = ""
        self.addresses: list[str] = []
        self._made_etc_netns = False

    # -- making ------------------------------------------------------------------------------

    def create(self) -> NetnsLab:
        """Make namespaces, bridge, veths and addresses; on any failure undo all and raise."""
        if reason := netns_missing():
            raise NetnsError(reason)
        with _locked():
            cleanup_stale()
            self.subnet = self._subnet or pick_subnet()
            if self._subnet and any(self._subnet.overlaps(u) for u in used_networks()):
                raise NetnsError(f"{self._subnet} is already used on this machine")
            hosts = list(itertools.islice(self.subnet.hosts(), len(self.names) + 1))
            if len(hosts) <= len(self.names):
                raise NetnsError(f"{self.subnet} is too small for {len(self.names)} namespaces")
            self.gateway = str(hosts[0])
            self.addresses = [str(h) for h in hosts[1:]]
            _live.update([*self.names, self.bridge, *self.veths])
            atexit.register(self.destroy)
            try:
                self._build()
            except BaseException:
                with contextlib.suppress(NetnsError):
                    self.destroy()
                raise
        log.info("namespaces %s on %s (bridge %s)", self.names, self.subnet, self.bridge)
        return self

    def _build(self) -> None:
        plen = str(self.subnet.prefixlen)
        # no STP: ports forward at once
        ip("link", "add", self.bridge, "type", "bridge", "forward_delay", "0")
        ip("addr", "add", f"{self.gateway}/{plen}", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")
        self._made_etc_netns = not ETC_NETNS.exists()
        for i, (name, veth, address) in enumerate(
            zip(self.names, self.veths, self.addresses, strict=True)
        ):
            ip("netns", "add", name)
            self.write_etc(
                i,
                "hosts",
                "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
                f"{address}\t{self.hostname}\n",
            )
            ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", name)
            ip("link", "set", veth, "master", self.bridge, "up")
            ip("-n", name, "addr", "add", f"{address}/{plen}", "dev", "eth0")
            ip("-n", name, "link", "set", "eth0", "up")
            ip("-n", name, "link", "set", "lo", "up")

    def write_etc(self, i: int, relpath: str, text: str) -> Path:
        """Write /etc/netns/<ns i>/`relpath`: seen as /etc/`relpath` by what starts there later.

        ``ip netns exec`` binds each top-level entry over /etc/<entry> when a command starts, so
        write before starting the processes that should see it; /etc/<entry> must exist.
        """
        path = ETC_NETNS / self.names[i] / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    # -- using -------------------------------------------------------------------------------

    def exec_prefix(self, i: int) -> list[str]:
        """The command prefix running a program inside namespace `i`."""
        return [IP, "netns", "exec", self.names[i]]

    def run(self, i: int, argv: Sequence[str], timeout: float = 30) -> subprocess.CompletedProcess:
        """Run `argv` inside namespace `i` and wait (text output captured)."""
        return subprocess.run(
            [*self.exec_prefix(i), *argv], capture_output=True, text=True, timeout=timeout
        )

    def pids(self, i: int) -> list[int]:
        return namespace_pids(self.names[i])

    # -- removing ----------------------------------------------------------------------------

    def leftovers(self) -> list[str]:
        """What of this lab still exists (namespaces, links, /etc/netns entries)."""
        present = set(namespaces()) | set(links())
        left = [n for n in [*self.names, self.bridge, *self.veths] if n in present]
        left += [str(ETC_NETNS / n) for n in self.names if (ETC_NETNS / n).exists()]
        return left

    def destroy(self) -> None:
        """Remove everything of the lab, whatever state it is in; raise if something is left.

        Every process in the namespaces is killed first: a process keeps its namespace (and
        the veth in it) alive after the name is deleted.
        """
        atexit.unregister(self.destroy)
        survivors = {}
        for name in self.names:
            if left := kill_namespace(name):
                survivors[name] = left
        for veth in self.veths:  # deleting one end deletes its peer in the namespace
            ip("link", "del", veth, check=False)
        ip("link", "del", self.bridge, check=False)
        for name in self.names:
            ip("netns", "del", name, check=False)
            shutil.rmtree(ETC_NETNS / name, ignore_errors=True)
        if self._made_etc_netns:
            with contextlib.suppress(OSError):  # another lab may still use it
                ETC_NETNS.rmdir()
        left = self.leftovers()
        _live.difference_update([*self.names, self.bridge, *self.veths])
        if left or survivors:
            raise NetnsError(f"left behind: {left}; processes that would not die: {survivors}")

    def __enter__(self) -> NetnsLab:
        return self.create()

    def __exit__(self, *exc) -> None:
        self.destroy()


def ssh_client_config(key: Path, known_hosts: Path) -> str:
    """An ssh_config for root of a namespace: the fleet's key, its known_hosts, no prompts."""
    return (
        "# anfperf test fleet: each namespace reaches the others as the VMs of a fleet do\n"
        "Host *\n"
        f'    IdentityFile "{key}"\n'
        f'    UserKnownHostsFile "{known_hosts}"\n'
        f'    GlobalKnownHostsFile "{known_hosts}"\n'
        "    StrictHostKeyChecking yes\n"
        "    BatchMode yes\n"
        "    ConnectTimeout 5\n"
    )


class NetnsFleet:
    """A :class:`NetnsLab` with a real sshd in each namespace (port 22), reachable by SSH from
    the root namespace and from each other namespace (``ssh <address> -l root ...``).

    The servers, keys, known_hosts and inventories are those of :class:`SshFleet` (``.ssh``);
    hosts are named vm1, vm2, ... as in the seed's Vdbench files.
    """

    def __init__(self, folder: Path, n: int = 2, *, subnet: str | None = None):
        self.folder = folder
        self.lab = NetnsLab(n, subnet=subnet)
        self.ssh: SshFleet | None = None

    def start(self) -> NetnsFleet:
        self.lab.create()
        try:
            n = len(self.lab.names)
            self.ssh = SshFleet(
                self.folder,
                addresses=self.lab.addresses,
                port=22,
                prefixes=[self.lab.exec_prefix(i) for i in range(n)],
            )
            config = ssh_client_config(self.ssh.client_key, self.ssh.known_hosts)
            for i in range(n):  # before sshd starts: its sessions see the binds made at exec
                self.lab.write_etc(i, "ssh/ssh_config", config)
            self.ssh.start()
        except BaseException:
            with contextlib.suppress(NetnsError):
                self.stop()
            raise
        return self

    def stop(self) -> None:
        try:
            if self.ssh is not None:
                self.ssh.stop()
        finally:
            self.lab.destroy()

    def __enter__(self) -> NetnsFleet:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def addresses(self) -> list[str]:
        return self.lab.addresses

    @property
    def gateway(self) -> str:
        return self.lab.gateway

    @property
    def servers(self):
        return self.ssh.servers

    def hosts(self, names: list[str] | None = None) -> dict[str, dict]:
        return self.ssh.hosts(names)

    def inventory(self, path: Path, **kwargs) -> Path:
        """An inventory YAML of the namespaced hosts (see :meth:`SshFleet.inventory`)."""
        return self.ssh.inventory(path, **kwargs)
