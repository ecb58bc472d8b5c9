"""Vdbench as a tool: parameter files in the seed's layout, and its adapter (read as 'vdbench').

The seed (the Azure NetApp Files performance-benchmarks article's example script) writes, per
workload pattern, one parameter file made of:

- host definitions: ``hd=default,jvms=1,shell=ssh`` and one ``hd=vm<i>,system=<host>,user=root``
  per client VM (only for multi-host runs: a single-host run has no ``hd=``); a
  :class:`VdbenchHost` keeps its own name, mount points, user and install folder;
- storage definitions: ``sd=default,size=<file size>`` and one
  ``sd=sd-<vm>-<vol>,host=<its hd>,lun=<mount>/file-<vm>-<vol>,openflags=o_direct`` per VM x
  volume, on that host's own mount points;
- one workload definition ``wd=<name>,sd=sd*,rdpct=..,seekpct=100|0|eof,xfersize=..``;
- run defaults ``rd=default,warmup=..,elapsed=..,interval=..,iorate=..`` and one ``rd=`` per run
  (``rd=<name>,wd=<name>,sd=("sd*"),threads=..``).

Vdbench comments are lines starting with ``*``, as in the seed.

The runner (:class:`VdbenchTool`) makes the first host the master, which runs one parameter
file with an ``hd=`` per host (``shell=ssh``, as the seed does; the master must reach the others
by SSH); results land in ``<master>/<workload>/``. A single host runs without ``hd=`` lines.
The inventory's ``vdbench:`` names the launcher on each host. Vdbench's failures are explained
in its own words (:mod:`anfperf.tools.vdbench_failure`).
"""

from __future__ import annotations

import logging
import math
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anfperf.errors import AnfperfError
from anfperf.tools.base import HostTask, ToolAdapter, ToolOption, slug
from anfperf.tools.vdbench_failure import failure_reason
from anfperf.units import BYTES_PER_MIB, KIB_PER_GIB, KIB_PER_MIB, MIB_PER_GIB
from anfperf.workloads.spec import (
    RATE_MAX,
    Workload,
    WorkloadError,
    check_host,
    check_name,
    check_path,
    check_paths,
    check_user,
    size_text,
)

if TYPE_CHECKING:
    from anfperf.live import LiveStream

log = logging.getLogger(__name__)

#: ``seekpct=`` per pattern; a fill writes sequentially to the end of each file and stops.
SEEKPCT = {"random": "100", "sequential": "0", "fill": "eof"}
#: Host label of client *i* (1-based) in ``hd=`` and ``sd=...,host=`` (the seed's naming).
HOST_LABEL = "vm{}"
#: Storage definition name and file name of client *vm* on volume *vol* (both 1-based).
SD_NAME = "sd-{vm}-{vol}"
LUN_FILE = "file-{vm}-{vol}"


@dataclass(frozen=True)
class VdbenchHost:
    """One client of a multi-host run, as its ``hd=`` and ``sd=`` lines name it.

    Parameters
    ----------
    name : str
        Its ``hd=`` name, which Vdbench's per-host reports (and so the tidy frame's ``host``
        column) carry: the inventory's host name.
    system : str
        Address or DNS name the master reaches it at (``system=``).
    volumes : sequence of str, optional
        Its mount points; empty: the `volumes` given to :func:`render_vdbench`.
    user : str, optional
        Its SSH user (``user=``); default the run's.
    vdbench_dir : str, optional
        Its Vdbench install folder (``vdbench=``); default the run's.
    """

    name: str
    system: str
    volumes: tuple[str, ...] = ()
    user: str | None = None
    vdbench_dir: str | None = None

    def checked(self) -> VdbenchHost:
        check_name(self.name, "hosts")
        check_host(self.system, "hosts")
        if self.user is not None:
            check_user(self.user)
        if self.vdbench_dir is not None:
            check_path(self.vdbench_dir, "vdbench_dir")
        volumes = tuple(check_paths(self.volumes, "volumes")) if self.volumes else ()
        return VdbenchHost(self.name, self.system, volumes, self.user, self.vdbench_dir)


def _vdbench_hosts(hosts: Sequence[str | VdbenchHost] | None) -> list[VdbenchHost]:
    """Checked hosts: plain addresses are named vm1, vm2 ... in order (the seed's naming)."""
    if isinstance(hosts, str):
        hosts = [hosts]
    out = [
        (h if isinstance(h, VdbenchHost) else VdbenchHost(HOST_LABEL.format(i), h)).checked()
        for i, h in enumerate(hosts or (), 1)
    ]
    for what, values in (("name", [h.name for h in out]), ("address", [h.system for h in out])):
        if len(set(values)) != len(values):
            raise WorkloadError(f"the same host {what} is listed twice: {values}", field="hosts")
    return out


def _comment(text: str) -> str:
    # a Vdbench comment is a whole line starting with '*'; keep it to one printable line
    return "* " + "".join(ch if ch.isprintable() else " " for ch in text)


def _join(kind: str, name: str, *pairs: tuple[str, object]) -> str:
    return ",".join([f"{kind}={name}", *(f"{k}={v}" for k, v in pairs if v is not None)])


def _list(values: Sequence[object]) -> str:
    return "(" + ",".join(str(v) for v in values) + ")"


def _run_names(workload: Workload) -> list[tuple[str, tuple[int, ...]]]:
    """(rd name, thread counts) pairs: one rd per count when the name uses ``{threads}``."""
    counts = workload.outstanding
    template = workload.run_name
    if template is None:
        template = "{name}-{threads}" if len(counts) > 1 else "{name}"
    if "{threads}" in template:
        runs = [(template.format(name=workload.name, threads=t), (t,)) for t in counts]
    else:
        runs = [(template.format(name=workload.name, threads=counts[0]), counts)]
    names = [check_name(n, "run_name", workload.name) for n, _ in runs]
    if len(set(names)) != len(names):
        raise WorkloadError(f"run names repeat: {names}", field="run_name", workload=workload.name)
    return runs


def render_vdbench(
    workload: Workload,
    volumes: Sequence[str],
    hosts: Sequence[str | VdbenchHost] | None = None,
    *,
    user: str | None = None,
    vdbench_dir: str | None = None,
    comments: bool = True,
) -> str:
    """Render a Vdbench parameter file for `workload` in the seed's layout.

    Parameters
    ----------
    workload : Workload
    volumes : sequence of str
        Mount points (one sd per host x volume, ``lun=<mount>/file-<vm>-<vol>``).
    hosts : sequence of str or VdbenchHost, optional
        Clients: addresses (``hd=vm<i>,system=<address>``), or :class:`VdbenchHost` with
        their own names and mount points. None or empty: a single-host run on the Vdbench
        master, without ``hd=`` lines.
    user : str, optional
        Remote user for ``hd=`` (the seed uses ``root``).
    vdbench_dir : str, optional
        Vdbench install folder on the clients (``hd=default,...,vdbench=``).
    comments : bool, default True
        Write ``*`` comment lines (a header and the seed's "Run Defaults / Run Definitions").

    Returns
    -------
    str
        The parameter file text, ending with a newline.

    Notes
    -----
    A workload given as ``iodepth`` x ``numjobs`` runs with ``threads = iodepth * numjobs``:
    Vdbench threads are its only concurrency control. ``warmup_s = 0`` writes no ``warmup=``,
    leaving Vdbench's default (which drops the first interval from its averages).
    """
    volumes = check_paths(volumes, "volumes")
    hosts = _vdbench_hosts(hosts)
    if user is not None:
        check_user(user)
    if vdbench_dir is not None:
        check_path(vdbench_dir, "vdbench_dir")

    w = workload
    lines = _header_lines(w) if comments else []
    lines += _host_lines(hosts, user, vdbench_dir)
    lines += _storage_lines(w, volumes, hosts, comments)
    lines.append(_workload_line(w))
    lines += _run_lines(w, comments)
    log.debug("rendered Vdbench parameters for %s: %d lines", w.name, len(lines))
    return "\n".join(lines) + "\n"


def _header_lines(w: Workload) -> list[str]:
    """Comment lines naming the workload and its source."""
    lines = [
        _comment(f"anfperf workload {w.name}" + (f": {w.description}" if w.description else ""))
    ]
    if w.source:
        lines.append(_comment(f"source: {w.source}"))
    return lines


def _host_lines(hosts: list[VdbenchHost], user: str | None, vdbench_dir: str | None) -> list[str]:
    """``hd=`` lines; none for a single-host run."""
    if not hosts:
        return []
    lines = [_join("hd", "default", ("jvms", 1), ("shell", "ssh"), ("vdbench", vdbench_dir))]
    for h in hosts:
        lines.append(
            _join("hd", h.name, ("system", h.system), ("user", h.user or user),
                  ("vdbench", h.vdbench_dir if h.vdbench_dir != vdbench_dir else None))
        )  # fmt: skip
    return lines


def vdbench_file_size_mib(workload: Workload) -> int:
    """The file size Vdbench is given for `workload` [MiB]: whole MiB, at least one block.

    Vdbench creates (and later expands) a file in whole MiB only: a ``size=`` that is not a
    multiple of 1 MiB gets a file rounded down, and the next run on it fails with "lun ...
    does not exist or is too small". The workload's size is rounded to the nearest MiB.
    """
    block_mib = math.ceil(workload.bs_kib / KIB_PER_MIB)
    return max(round(workload.file_size_gib * MIB_PER_GIB), block_mib, 1)


def _storage_lines(
    w: Workload, volumes: list[str], hosts: list[VdbenchHost], comments: bool
) -> list[str]:
    """``sd=default`` and one ``sd=`` per host x volume, on that host's own mount points."""
    size_mib = vdbench_file_size_mib(w)
    lines = []
    if comments and size_mib * KIB_PER_MIB != w.file_size_gib * KIB_PER_GIB:
        lines.append(
            _comment(
                f"file_size_gib {w.file_size_gib:g}: rounded to whole MiB, as Vdbench makes files"
            )
        )
    lines.append(_join("sd", "default", ("size", size_text(size_mib * KIB_PER_MIB))))
    for vm, host in enumerate(hosts or [None], 1):
        for vol, mount in enumerate(host.volumes if host and host.volumes else volumes, 1):
            lun = mount.rstrip("/") + "/" + LUN_FILE.format(vm=vm, vol=vol)
            lines.append(
                _join(
                    "sd",
                    SD_NAME.format(vm=vm, vol=vol),
                    ("host", host.name if host else None),
                    ("lun", lun),
                    ("openflags", "o_direct" if w.direct else None),
                )
            )
    return lines


def _workload_line(w: Workload) -> str:
    """The ``wd=`` line; a read/write sweep leaves ``rdpct=`` to the ``rd=`` lines."""
    sweep_reads = len(w.read_pct) > 1
    return _join(
        "wd",
        w.name,
        ("sd", "sd*"),
        ("rdpct", None if sweep_reads else w.read_pct[0]),
        ("seekpct", SEEKPCT["fill" if w.fill else w.pattern]),
        ("xfersize", size_text(w.bs_kib)),
    )


def _run_lines(w: Workload, comments: bool) -> list[str]:
    """``rd=default`` (timing and rate) and the ``rd=`` lines of the runs."""
    if w.rate_kind == "curve":
        iorate: list[tuple[str, object]] = [("iorate", "curve"), ("curve", _list(w.rate))]
    else:
        iorate = [("iorate", RATE_MAX if w.rate == RATE_MAX else w.rate)]
    lines = ["* Run Defaults"] if comments else []
    lines.append(
        _join(
            "rd",
            "default",
            ("warmup", w.warmup_s or None),
            ("elapsed", w.duration_s),
            ("interval", w.interval_s),
            *iorate,
        )
    )
    if comments:
        lines.append("* Run Definitions")
    sweep_reads = len(w.read_pct) > 1
    for rd, counts in _run_names(w):
        threads = ("threads", counts[0]) if len(counts) == 1 else ("forthreads", _list(counts))
        lines.append(
            _join(
                "rd",
                rd,
                ("wd", w.name),
                ("sd", '("sd*")'),
                threads,
                ("forrdpct", _list(w.read_pct) if sweep_reads else None),
            )
        )
    return lines


# -- the adapter ----------------------------------------------------------------------------


class VdbenchTool(ToolAdapter):
    """Vdbench (the user's own install: Oracle's licence)."""

    name = "vdbench"
    output_format = "vdbench"
    uniform_facts = ("java_version",)
    inventory_key = "vdbench"
    options = (
        ToolOption("user", "remote user in Vdbench hd= lines (the seed uses root)"),
        ToolOption("vdbench_dir", "Vdbench folder on the clients", metavar="PATH"),
    )

    def render_files(
        self,
        workload: Workload,
        volumes: Sequence[str],
        hosts: Sequence[str] = (),
        *,
        max_iops: float | None = None,
        user: str | None = None,
        vdbench_dir: str | None = None,
    ) -> dict[str, str]:
        # max_iops unused: Vdbench runs a load curve itself (iorate=curve)
        parm = render_vdbench(workload, volumes, hosts, user=user, vdbench_dir=vdbench_dir)
        return {f"{workload.name}.parm": parm}

    def data_files(self, workload: Workload) -> dict[str, int]:
        # one lun per host and volume (LUN_FILE), in whole MiB as Vdbench makes it
        return {"file": round(vdbench_file_size_mib(workload) * BYTES_PER_MIB)}

    def expected_duration_s(self, workload: Workload) -> float:
        """A load curve (``iorate=curve``) first runs at the maximum rate, once per thread count
        and read share: that run counts too."""
        runs = len(workload.points())
        if workload.rate_kind == "curve":
            runs += runs // len(workload.rate)
        return float(runs * (workload.warmup_s + workload.duration_s))

    def tasks(
        self,
        workload: Workload,
        hosts: Sequence[Any],
        *,
        duration_s: float,
        max_iops: float | None = None,
        timeout_s: float | None = None,
        live_interval_s: float | None = None,
    ) -> dict[str, HostTask]:
        master = hosts[0]
        vdbench = self.launcher(master) or "vdbench"
        parm = render_vdbench(
            workload, list(master.volumes.values()), _clients(hosts, self.launcher),
            user=master.user if len(hosts) > 1 else None,
            vdbench_dir=posixpath.dirname(vdbench) or None if len(hosts) > 1 else None,
        )  # fmt: skip
        stem = slug(workload.name)
        return {
            master.name: HostTask(
                argv=(vdbench, "-f", f"{stem}.parm", "-o", stem),
                files={f"{stem}.parm": parm},
                outputs=(stem,),
                duration_s=duration_s,
                timeout_s=timeout_s,
                live=live_interval_s is not None,  # its console prints every interval anyway
            )
        }

    def live_stream(self, host: str, interval_s: float = 1.0) -> LiveStream:
        """The master's console: the whole fleet's intervals (Vdbench sums its slaves)."""
        from anfperf.live import VdbenchStream

        return VdbenchStream(host, interval_s)

    def reaches(self, hosts: Sequence[Any]) -> tuple[str, ...]:
        """The slaves: every host after the master (its Vdbench starts them over SSH)."""
        return tuple(h.name for h in hosts[1:])

    def failure_reason(self, output: str, folders: Iterable[Path] = ()) -> str | None:
        # Vdbench's own messages, not the last line of its Java stack trace
        return failure_reason(output, folders)

    def probe(self, launcher: str | None = None) -> list[str]:
        vdb = shlex.quote(launcher or "vdbench")
        return [
            "s java; have java && java -version 2>&1",
            # A path is checked as such (bash's `command -v` finds no folder, dash's any file):
            # 'found PATH' and the version, else why the path cannot be run.
            f"s vdbench; v={vdb}; p=; case $v in */*) "
            "if [ -d \"$v\" ]; then if [ -f \"${v%/}/vdbench\" ] && [ -x \"${v%/}/vdbench\" ]; "
            "then printf 'folder %s\\n' \"$v\"; else printf 'bare-folder %s\\n' \"$v\"; fi; "
            "elif [ -f \"$v\" ] && [ -x \"$v\" ]; then p=$v; "
            "elif [ -e \"$v\" ]; then printf 'not-executable %s\\n' \"$v\"; "
            "else printf 'missing %s\\n' \"$v\"; fi;; "
            "*) p=$(command -v \"$v\" 2>/dev/null) || printf 'not-on-path %s\\n' \"$v\";; esac; "
            # the version is in the jar (unzip) and the install's readme.txt, next to the launcher
            "if [ -n \"$p\" ]; then printf 'found %s\\n' \"$p\"; "
            "d=$(dirname -- \"$(readlink -f -- \"$p\" 2>/dev/null || printf '%s' \"$p\")\"); "
            "{ unzip -p \"$d/vdbench.jar\" Vdb/Dist.class 2>/dev/null; cat \"$d/readme.txt\" 2>/dev/null; } "
            "| grep -a -o -m1 'vdbench[0-9][0-9][0-9][0-9]*' | head -n1; fi",
        ]  # fmt: skip

    def parse_facts(self, sections: Mapping[str, str]) -> dict[str, Any]:
        java = re.search(r'version "([^"]+)"', sections.get("java", ""))
        lines = sections.get("vdbench", "").strip().splitlines()
        state, _, path = (lines[0] if lines else "").partition(" ")
        found = path if state == "found" else None
        # from the install (jar, readme), else from a versioned path such as /opt/vdbench50407
        version = re.search(r"vdbench\d{3,}\w*", " ".join(lines[1:2] or [path]))
        return {
            "java_version": java[1] if java else None,
            "vdbench_path": found,
            "vdbench_version": version[0] if version and found else ("present" if found else None),
            "vdbench_refused": None if found else _launcher_problem(state, path),
        }

    def problems(self, facts: Mapping[str, Any]) -> list[str]:
        problems = []
        if not facts.get("vdbench_path"):
            problems.append(facts.get("vdbench_refused") or _launcher_problem("", ""))
        if not facts.get("java_version"):
            problems.append("java is not installed (Vdbench needs it)")
        return problems

    def summary(self, facts: Mapping[str, Any]) -> str | None:
        return (
            f"vdbench {facts.get('vdbench_version') or '-'}, "
            f"java {facts.get('java_version') or '-'}"
        )


#: What the inventory's ``vdbench:`` should name.
_NAME_THE_SCRIPT = "set 'vdbench:' in the inventory to the vdbench script of the install"


def _launcher_problem(state: str, path: str) -> str:
    """Why the launcher the probe looked for cannot be run (`state`: its word for it)."""
    script = f"{path.rstrip('/')}/vdbench"
    return {
        "folder": f"{path} is a folder: name the vdbench script in it, {script}",
        "bare-folder": f"{path} is a folder without a vdbench script: {_NAME_THE_SCRIPT}",
        "not-executable": f"{path} is not an executable file: {_NAME_THE_SCRIPT}",
        "missing": f"{path} does not exist on the host: {_NAME_THE_SCRIPT}",
    }.get(
        state,
        f"{path or 'vdbench'} is not on the PATH: {_NAME_THE_SCRIPT} (e.g. /opt/vdbench/vdbench)",
    )


def _clients(
    hosts: Sequence[Any], launcher: Callable[[Any], str | None]
) -> list[VdbenchHost] | None:
    """hd= lines for a multi-host Vdbench run: inventory names, addresses, mount points and
    install folders (`launcher`: a host's Vdbench script, or None)."""
    if len(hosts) < 2:
        return None  # one host: Vdbench runs there without hd= lines
    out = []
    for h in hosts:
        script = launcher(h)
        try:
            out.append(VdbenchHost(
                name=h.name, system=h.hostname, volumes=tuple(h.volumes.values()), user=h.user,
                vdbench_dir=posixpath.dirname(script) or None if script else None,
            ).checked())  # fmt: skip
        except WorkloadError as exc:
            raise AnfperfError(f"host {h.name}: not usable in a Vdbench run: {exc}") from None
    return out
