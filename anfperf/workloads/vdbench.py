"""Vdbench parameter files in the seed's layout.

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
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

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
    block_mib = math.ceil(workload.bs_kib / 2**10)
    return max(round(workload.file_size_gib * 2**10), block_mib, 1)


def _storage_lines(
    w: Workload, volumes: list[str], hosts: list[VdbenchHost], comments: bool
) -> list[str]:
    """``sd=default`` and one ``sd=`` per host x volume, on that host's own mount points."""
    size_mib = vdbench_file_size_mib(w)
    lines = []
    if comments and size_mib * 2**10 != w.file_size_gib * 2**20:
        lines.append(
            _comment(
                f"file_size_gib {w.file_size_gib:g}: rounded to whole MiB, as Vdbench makes files"
            )
        )
    lines.append(_join("sd", "default", ("size", size_text(size_mib * 2**10))))
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
