"""Preflight: what every client host has, checked in parallel before anything runs.

One shell script per host gathers the facts a benchmark result depends on: tool versions (fio,
Vdbench, Java), the kernel and CPUs, NFS mounts from ``/proc/mounts`` with their options, free
space, TCP buffer sysctls, the clock, and the Azure VM size from the instance metadata endpoint
(a short timeout: 'unknown' off Azure). :func:`preflight` turns the answers into a
:class:`HostReport` per host: ``facts`` (recorded in the run manifest), ``problems`` (the run
would fail or mean nothing: a missing tool, an unreachable host, a missing volume) and
``warnings`` (the run works but deviates from recommended practice, e.g. NFS options).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from anfperf.runner.connect import ConnectError, connect_reason, is_local_limit, open_connection
from anfperf.runner.fleet import named_connections
from anfperf.runner.hostrun import MAX_PARALLEL_HOSTS
from anfperf.runner.inventory import DEFAULT_WORKDIR
from anfperf.runner.runlog import held_ssh_log
from anfperf.runner.security import describe_error, join, quote
from anfperf.tools import get_tool, tools

log = logging.getLogger(__name__)

#: Instance metadata endpoint of Azure VMs (answers only from inside Azure).
AZURE_IMDS_URL = "http://169.254.169.254/metadata/instance?api-version=2021-02-01"
#: Seconds allowed to the metadata endpoint: it answers in milliseconds on Azure.
AZURE_IMDS_TIMEOUT_S = 1
#: Sysctls that bound TCP windows and thereby NFS throughput per connection.
SYSCTLS = ("net.core.rmem_max", "net.core.wmem_max", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")
#: NFS mount options reported (actimeo is derived from the four ac* values the kernel shows).
NFS_OPTIONS = ("vers", "nconnect", "rsize", "wsize", "nocto", "actimeo", "hard", "proto")
#: Options recommended for benchmarking Azure NetApp Files (the EDA tests' mount line).
RECOMMENDED_NFS = {"rsize": 262144, "wsize": 262144, "nconnect": 8}
#: Filesystem types counted as NFS.
NFS_TYPES = ("nfs", "nfs4")
_MARK = "@@anfperf:"


@dataclass
class HostReport:
    """Preflight result of one host.

    Attributes
    ----------
    host : str
        Host name.
    facts : dict
        What was found, JSON-ready, recorded in the manifest:

        ====================  =====  ===================================================
        key                   unit   meaning
        ====================  =====  ===================================================
        reachable                    False when the host could not be reached at all
        controller_limit             True when it was not tried: this machine ran out of
                                     open files (``ulimit -n``), no fault of the host
        hostname, kernel, os         ``uname -n``, ``uname -r``, PRETTY_NAME
        cpus, mem_total_kib   -, KiB online CPUs, MemTotal
        fio_version                  e.g. 'fio-3.33'; None when fio is missing
        java_version                 e.g. '17.0.15'; None when java is missing
        vdbench_path                 the launcher found (None: missing)
        vdbench_refused              why not, e.g. a folder named instead of its script
        vdbench_version              e.g. 'vdbench50405', from its install (else 'present')
        setsid                       util-linux setsid present (needed to stop runs)
        mounts                       NFS mounts: mount_point, source, fstype, options and
                                     vers, nconnect, rsize [B], wsize [B], nocto,
                                     actimeo [s], hard, proto
        volumes                      mount point -> exists as a folder
        workdir_parent,              nearest existing folder of the workdir; writable?
        workdir_writable
        free_kib              KiB    folder -> space available to the user
        sysctl                B      net.core.rmem_max, wmem_max, net.ipv4.tcp_rmem,
                                     tcp_wmem (the last two 'min default max')
        azure_vm_size                e.g. 'Standard_D32s_v5'; 'unknown' off Azure
        clock_offset_s,       s      host clock minus this machine's, and its error bound
        clock_uncertainty_s
        ====================  =====  ===================================================
    problems : list of str
        What would make a run fail.
    warnings : list of str
        What a run survives but the user should know.
    """

    host: str
    facts: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def preflight_script(
    *, volumes: Mapping[str, str] | None = None, workdir: str = DEFAULT_WORKDIR,
    vdbench: str | None = None, imds_timeout_s: float = AZURE_IMDS_TIMEOUT_S,
    launchers: Mapping[str, str | None] | None = None,
) -> str:  # fmt: skip
    """The POSIX shell script whose output :func:`parse_facts` reads (every value quoted).

    Every registered tool adds its version probe; `launchers` (tool -> program, e.g. from the
    inventory) tells it where the tool is, `vdbench` being Vdbench's.
    """
    paths = join((volumes or {}).values())
    launchers = {**dict(launchers or {}), **({"vdbench": vdbench} if vdbench else {})}
    t = max(1, round(imds_timeout_s))
    lines = [
        "s() { printf '\\n%s%s\\n' '" + _MARK + "' \"$1\"; }",
        "have() { command -v \"$1\" >/dev/null 2>&1; }",
        "s hostname; uname -n",
        "s kernel; uname -r",
        "s os; ( . /etc/os-release 2>/dev/null && printf '%s\\n' \"$PRETTY_NAME\" )",
        "s cpus; nproc 2>/dev/null || getconf _NPROCESSORS_ONLN",
        "s meminfo; grep -E '^MemTotal:' /proc/meminfo",
        *(line for tool in tools() for line in tool.probe(launchers.get(tool.name))),
        "s setsid; have setsid && echo yes",
        "s mounts; cat /proc/mounts",
        # df on the nearest existing folder of the workdir, then on each volume; `timeout`
        # because df blocks forever on a hung NFS mount.
        f"s workdir; d={quote(workdir)}; while [ ! -e \"$d\" ]; do d=$(dirname -- \"$d\"); done; "
        "printf '%s\\n' \"$d\"; [ -w \"$d\" ] && echo writable",
        "s free; for p in \"$d\" " + paths + "; do [ -d \"$p\" ] || continue; "
        "printf '%s\\t%s\\n' \"$p\" \"$(timeout 10 df -Pk -- \"$p\" 2>/dev/null | awk 'NR==2 {print $4}')\"; "
        "done",
        "s volumes; for p in " + (paths or "''") + "; do [ -n \"$p\" ] || continue; "
        "if [ -d \"$p\" ]; then printf 'dir %s\\n' \"$p\"; else printf 'missing %s\\n' \"$p\"; fi; "
        "done",
        "s sysctl; for k in " + " ".join(k.replace(".", "/") for k in SYSCTLS) + "; do "
        "printf '%s=%s\\n' \"$k\" \"$(cat /proc/sys/$k 2>/dev/null)\"; done",
        f"s azure; if have curl; then curl -s --noproxy '*' --connect-timeout {t} -m {t + 1} "
        f"-H Metadata:true {quote(AZURE_IMDS_URL)}; elif have wget; then wget -q -T {t} -t 1 "
        f"--no-proxy --header=Metadata:true -O - {quote(AZURE_IMDS_URL)}; fi",
        "s end; true",
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def split_sections(text: str) -> dict[str, str]:
    """The script's output cut at its ``@@anfperf:<name>`` marker lines."""
    sections: dict[str, str] = {}
    name = None
    buf: list[str] = []
    for line in text.splitlines():
        if line.startswith(_MARK):
            if name is not None:
                sections[name] = "\n".join(buf).strip("\n")
            name, buf = line[len(_MARK) :].strip(), []
        elif name is not None:
            buf.append(line)
    if name is not None:
        sections[name] = "\n".join(buf).strip("\n")
    return sections


def parse_mounts(text: str) -> list[dict[str, Any]]:
    """NFS mounts of ``/proc/mounts`` text with their options.

    Returns
    -------
    list of dict
        One per NFS mount: ``mount_point``, ``source``, ``fstype``, ``options`` (the raw option
        string) and the :data:`NFS_OPTIONS` (ints where numeric, booleans for flags, ``hard``
        False on soft mounts, ``actimeo`` when the four attribute-cache times agree, else None).
    """
    mounts = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 4 or parts[2] not in NFS_TYPES:
            continue
        source, point, fstype, options = (_unescape(p) for p in parts[:4])
        mounts.append(
            {"mount_point": point, "source": source, "fstype": fstype, "options": options,
             **nfs_options(options)}
        )  # fmt: skip
    return mounts


def nfs_options(options: str) -> dict[str, Any]:
    """The :data:`NFS_OPTIONS` from an NFS mount's option string (as /proc/mounts shows it)."""
    opts: dict[str, str | None] = {}
    for item in options.split(","):
        key, _, value = item.partition("=")
        opts[key] = value if _ else None
    ac = [opts.get(k) for k in ("acregmin", "acregmax", "acdirmin", "acdirmax")]
    actimeo = opts.get("actimeo") or (ac[0] if ac[0] is not None and len(set(ac)) == 1 else None)
    return {
        "vers": opts.get("vers") or opts.get("nfsvers"),
        "nconnect": _int(opts.get("nconnect")),
        "rsize": _int(opts.get("rsize")),
        "wsize": _int(opts.get("wsize")),
        "nocto": "nocto" in opts,
        "actimeo": _int(actimeo),
        "hard": "soft" not in opts,  # hard is the kernel's default
        "proto": opts.get("proto"),
    }


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _unescape(field_: str) -> str:
    """/proc/mounts writes space, tab, newline and backslash as octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field_)


def parse_free(text: str) -> dict[str, int]:
    """Folder -> available KiB from the script's ``path<TAB>KiB`` lines."""
    free = {}
    for line in text.splitlines():
        path, _, kib = line.rpartition("\t")
        if path and kib.strip().isdigit():
            free[path] = int(kib)
    return free


def parse_facts(text: str) -> dict[str, Any]:
    """Facts from the output of :func:`preflight_script` (see :class:`HostReport`)."""
    s = split_sections(text)
    tool_facts = {k: v for tool in tools() for k, v in tool.parse_facts(s).items()}
    sysctl = {}
    for line in s.get("sysctl", "").splitlines():
        key, _, value = line.partition("=")
        value = " ".join(value.split())
        sysctl[key.replace("/", ".")] = (int(value) if value.isdigit() else value) or None
    mem = re.search(r"(\d+)", s.get("meminfo", ""))
    cpus = s.get("cpus", "").strip()
    workdir_lines = s.get("workdir", "").splitlines()
    volumes = {}
    for line in s.get("volumes", "").splitlines():
        state, _, path = line.partition(" ")
        volumes[path] = state == "dir"
    return {
        "hostname": s.get("hostname", "").strip() or None,
        "kernel": s.get("kernel", "").strip() or None,
        "os": s.get("os", "").strip() or None,
        "cpus": int(cpus) if cpus.isdigit() else None,
        "mem_total_kib": int(mem[1]) if mem else None,
        **tool_facts,
        "setsid": s.get("setsid", "").strip() == "yes",
        "mounts": parse_mounts(s.get("mounts", "")),
        "workdir_parent": workdir_lines[0] if workdir_lines else None,
        "workdir_writable": "writable" in workdir_lines[1:],
        "volumes": volumes,
        "free_kib": parse_free(s.get("free", "")),
        "sysctl": sysctl,
        "azure_vm_size": azure_vm_size(s.get("azure", "")),
    }


def clock_offset(conn: Any) -> tuple[float | None, float | None]:
    """The host's clock minus this machine's, and the uncertainty of that [s].

    The host's clock is read somewhere within the round trip of one command, so the offset is
    the mid-point estimate and half the round trip bounds its error.
    """
    sent = time.time()
    out = conn.run("date +%s.%N", hide=True, warn=True, in_stream=False, timeout=10).stdout
    received = time.time()
    try:
        remote = float(out.strip())
    except ValueError:
        return None, None
    return round(remote - (sent + received) / 2, 3), round((received - sent) / 2, 3)


def azure_vm_size(text: str) -> str:
    """``compute.vmSize`` from the metadata endpoint's JSON, else 'unknown'."""
    try:
        size = json.loads(text)["compute"]["vmSize"]
    except (ValueError, KeyError, TypeError):
        return "unknown"
    return size if isinstance(size, str) and size else "unknown"


def check(
    facts: dict[str, Any],
    *,
    volumes: Mapping[str, str] | None = None,
    tool: str | None = None,
    need_kib: int | None = None,
) -> tuple[list[str], list[str]]:
    """Problems and warnings for one host's facts.

    Parameters
    ----------
    facts : dict
        From :func:`parse_facts`.
    volumes : mapping, optional
        Volume name -> mount point the runs will use.
    tool : str, optional
        The tool about to run (:mod:`anfperf.tools`): what it lacks is a problem
        (otherwise only reported).
    need_kib : int, optional
        Free space each volume needs for the workload's files [KiB].
    """
    problems: list[str] = []
    warnings: list[str] = []
    if tool is not None:
        problems += get_tool(tool).problems(facts)
    if not facts.get("setsid"):
        problems.append("setsid (util-linux) is missing: runs could not be stopped")
    if not facts.get("workdir_writable"):
        problems.append(f"cannot write below {facts.get('workdir_parent')} (the workdir)")
    mounts = {m["mount_point"]: m for m in facts.get("mounts", [])}
    for name, point in (volumes or {}).items():
        if not facts.get("volumes", {}).get(point, False):
            problems.append(f"volume {name}: {point} does not exist")
            continue
        free = facts.get("free_kib", {}).get(point)
        if need_kib and free is not None and free < need_kib:
            problems.append(
                f"volume {name}: {free} KiB free at {point}, the workload needs {need_kib}"
            )
        mount = mounts.get(point)
        if mount is None:
            warnings.append(f"volume {name}: {point} is not an NFS mount point")
            continue
        if not mount["hard"]:
            warnings.append(f"volume {name}: soft mount (errors become I/O failures): use hard")
        for key, value in RECOMMENDED_NFS.items():
            if (mount.get(key) or 0) < value:
                warnings.append(f"volume {name}: {key}={mount.get(key)} (recommended {value})")
    offset = facts.get("clock_offset_s")
    if offset is not None and abs(offset) - (facts.get("clock_uncertainty_s") or 0) > 1:
        warnings.append(f"clock differs from this machine's by {offset:+.1f} s")
    return problems, warnings


def preflight(
    connections: Mapping[str, Any] | Any,
    *,
    volumes: Mapping[str, Any] | None = None,
    workdir: str | Mapping[str, str] = DEFAULT_WORKDIR,
    vdbench: str | Mapping[str, str | None] | None = None,
    tool: str | None = None,
    need_kib: int | None = None,
    timeout_s: float = 60,
    secrets: list[str] | None = None,
    launchers: Mapping[str, Mapping[str, str | None]] | None = None,
    max_parallel_hosts: int = MAX_PARALLEL_HOSTS,
) -> dict[str, HostReport]:
    """Check every host in parallel; one report per host, unreachable hosts included.

    Parameters
    ----------
    connections : mapping or iterable
        Host name -> connection (``Inventory.connect()``), or a :class:`fabric.ThreadingGroup` /
        list of connections (named by ``original_host``). Fabric Connections or
        :class:`~anfperf.runner.local.LocalConnection`.
    volumes : mapping, optional
        Volume name -> mount point for every host, or host -> (name -> mount point).
    workdir, vdbench : str or mapping, optional
        The runs' remote folder and the Vdbench launcher, for all hosts or per host.
    tool : str, optional
        Tool about to run (what it lacks becomes a problem).
    need_kib : int, optional
        Free space each volume needs [KiB].
    timeout_s : float
        Longest a host may take to answer [s].
    secrets : list of str, optional
        Texts to blank out of error messages (passwords, key text).
    launchers : mapping, optional
        Host -> (tool -> its program on that host), for the tools' version probes.
    max_parallel_hosts : int
        Hosts checked at once. What paramiko logs meanwhile (a traceback for every host that
        does not greet) is kept off the console (:func:`~anfperf.runner.runlog.held_ssh_log`).

    Returns
    -------
    dict
        Host name -> :class:`HostReport`, in the order of `connections`.
    """
    conns = named_connections(connections)

    def one(name: str, conn: Any) -> HostReport:
        return _preflight_host(
            name, conn, volumes=volumes, workdir=workdir, vdbench=vdbench, tool=tool,
            need_kib=need_kib, timeout_s=timeout_s, secrets=secrets, launchers=launchers,
        )  # fmt: skip

    workers = max(1, min(max_parallel_hosts, len(conns)))
    with held_ssh_log(), ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {name: pool.submit(one, name, conn) for name, conn in conns.items()}
        reports = {name: f.result() for name, f in futures.items()}
    _fleet_warnings(reports)
    return reports


def _preflight_host(
    name: str,
    conn: Any,
    *,
    volumes: Mapping[str, Any] | None,
    workdir: str | Mapping[str, str],
    vdbench: str | Mapping[str, str | None] | None,
    tool: str | None,
    need_kib: int | None,
    timeout_s: float,
    secrets: list[str] | None,
    launchers: Mapping[str, Mapping[str, str | None]] | None,
) -> HostReport:
    """One host's report: its facts from the probe script, problems and warnings; an
    unreachable host is a report too (the parameters are those of :func:`preflight`)."""
    vols = _for_host(volumes, name, nested=True) or {}
    wd = _for_host(workdir, name) or DEFAULT_WORKDIR
    script = preflight_script(
        volumes=vols, workdir=wd, vdbench=_for_host(vdbench, name),
        launchers=_for_host(launchers, name),
    )  # fmt: skip
    report = HostReport(name)
    try:
        open_connection(conn, timeout_s, secrets or ())
    except ConnectError as exc:
        return _not_reached(report, exc.reason, exc.local)
    try:
        result = conn.run(script, hide=True, warn=True, in_stream=False, timeout=timeout_s)
        offset, uncertainty = clock_offset(conn)
    except Exception as exc:  # every failure to reach a host is reported, not raised
        if is_local_limit(exc):
            return _not_reached(report, connect_reason(conn, exc, secrets or ()), True)
        return _not_reached(report, describe_error(exc, secrets), False)
    report.facts = {"reachable": True, **parse_facts(result.stdout),
        "clock_offset_s": offset, "clock_uncertainty_s": uncertainty}  # fmt: skip
    report.problems, report.warnings = check(
        report.facts, volumes=vols, tool=tool, need_kib=need_kib
    )
    return report


def _not_reached(report: HostReport, reason: str, local: bool) -> HostReport:
    """`report` of a host not reached: unreachable, or not checked at all when this machine
    (the controller) ran out of open files -- no fault of the host (`local`)."""
    report.facts = {"reachable": False, **({"controller_limit": True} if local else {})}
    report.problems.append(f"{'not checked' if local else 'unreachable'}: {reason}")
    return report


def _fleet_warnings(reports: dict[str, HostReport]) -> None:
    """Warn where hosts differ in what should be the same everywhere (tool versions)."""
    for key in (*(k for tool in tools() for k in tool.uniform_facts), "kernel"):
        values = {r.facts.get(key) for r in reports.values() if r.facts.get("reachable")}
        values.discard(None)
        if len(values) > 1:
            for r in reports.values():
                if r.facts.get(key):
                    r.warnings.append(f"{key} differs across hosts ({', '.join(sorted(values))})")


def _for_host(value: Any, host: str, nested: bool = False) -> Any:
    """`value` for one host: itself, or its entry when given per host."""
    if not isinstance(value, Mapping):
        return value
    if nested:  # volumes: name -> path (shared) or host -> {name -> path}
        if value and all(isinstance(v, Mapping) for v in value.values()):
            return value.get(host)
        return value
    return value.get(host)


def format_reports(reports: Mapping[str, HostReport]) -> str:
    """A plain-text summary: one block per host with its key facts, problems and warnings."""
    lines = []
    for name, r in reports.items():
        f = r.facts
        if f.get("controller_limit"):
            lines.append(f"{name}: NOT CHECKED (this machine ran out of open files)")
        elif not f.get("reachable"):
            lines.append(f"{name}: UNREACHABLE")
        else:
            nfs = ", ".join(
                f"{m['mount_point']} vers={m['vers']} nconnect={m['nconnect']} "
                f"rsize={m['rsize']} wsize={m['wsize']}{' nocto' if m['nocto'] else ''}"
                f"{' actimeo=' + str(m['actimeo']) if m['actimeo'] is not None else ''}"
                f"{'' if m['hard'] else ' soft'}"
                for m in f.get("mounts", [])
            )
            said = [text for tool in tools() if (text := tool.summary(f))]
            lines.append(
                f"{name}: {', '.join([*said, ''])}"
                f"kernel {f.get('kernel')}, {f.get('cpus')} CPUs, VM {f.get('azure_vm_size')}"
            )
            lines.append(f"  NFS: {nfs or 'none'}")
            sysctl = f.get("sysctl", {})
            lines.append(
                "  sysctl: " + ", ".join(f"{k.split('.')[-1]}={v}" for k, v in sysctl.items())
            )
        lines.extend(f"  PROBLEM: {p}" for p in r.problems)
        lines.extend(f"  warning: {w}" for w in r.warnings)
    return "\n".join(lines)


def preflight_inventory(
    inventory: Any,
    connections: Mapping[str, Any] | None = None,
    *,
    tool: str | None = None,
    need_kib: int | None = None,
    timeout_s: float = 60,
    max_parallel_hosts: int = MAX_PARALLEL_HOSTS,
) -> dict[str, HostReport]:
    """:func:`preflight` of every host of an inventory, with its volumes, workdir and Vdbench.

    Parameters
    ----------
    inventory : anfperf.runner.Inventory
    connections : mapping, optional
        From ``inventory.connect()`` (made here when not given; the caller closes them).
    tool, need_kib, timeout_s, max_parallel_hosts
        As for :func:`preflight`.
    """
    hosts = inventory.hosts
    return preflight(
        connections if connections is not None else inventory.connect(),
        volumes={h.name: dict(h.volumes) for h in hosts},
        workdir={h.name: h.workdir for h in hosts},
        launchers={h.name: {t.name: t.launcher(h) for t in tools()} for h in hosts},
        tool=tool,
        need_kib=need_kib,
        timeout_s=timeout_s,
        secrets=inventory.secrets(),
        max_parallel_hosts=max_parallel_hosts,
    )
