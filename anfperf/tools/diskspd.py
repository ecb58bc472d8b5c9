"""DiskSpd as a tool: command lines, and its adapter (command files per host, read as 'diskspd',
its XML results).

The seed (Azure's disk benchmarking article) runs, for maximum write IOPS::

    diskspd -c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh testfile.dat

``-c`` creates the target file at that size, ``-w`` is the write share [%] (left out for pure
reads, DiskSpd's default), ``-b`` the block size, ``-F`` the total number of threads (each
thread works on every target), ``-r`` random I/O, ``-o`` the I/Os outstanding per thread and
target, ``-W`` / ``-d`` warm-up and measured seconds, ``-Sh`` no software cache and
write-through. Options are rendered in that order; ``-L`` (latency) and ``-Rxml`` (the XML the
ingest reads; the text DiskSpd prints without it reads too, :mod:`anfperf.ingest.diskspd_text`,
but has no tool version) follow.

One command line per load point; each is an argument list, never a shell string.

DiskSpd runs on Windows clients, which the runner (POSIX shell over SSH) does not drive: it is
rendered only (``anfperf workloads --tool diskspd``, :class:`DiskSpdTool`).
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from typing import Any

from anfperf.tools.base import ToolAdapter
from anfperf.units import BYTES_PER_KIB, KIB_PER_GIB, MS_PER_S
from anfperf.values import is_positive_number
from anfperf.workloads.spec import (
    Point,
    Workload,
    WorkloadError,
    check_host,
    check_path,
    check_paths,
    size_text,
)

log = logging.getLogger(__name__)

#: Target file of client *host* on volume *vol* (1-based).
TARGET_FILE = "file-{host}-{vol}.dat"


def _size(kib: float) -> str:
    # DiskSpd's size suffixes are upper-case K/M/G (binary)
    text = size_text(kib)
    return text[:-1] + text[-1].upper() if text[-1].isalpha() else text


def _target(volume: str, host: str | None, vol: int) -> str:
    windows = bool(re.match(r"[A-Za-z]:|\\", volume)) or "\\" in volume
    sep = "\\" if windows else "/"
    return volume.rstrip("\\/") + sep + TARGET_FILE.format(host=host or 1, vol=vol)


def _throttle(total_iops: float, point: Point, bs_kib: float, share: int) -> str:
    """``-g``: bytes per millisecond per thread and target (DiskSpd's throughput cap)."""
    threads = point.threads if point.threads is not None else point.numjobs
    per_thread_target = total_iops / (share * threads)
    return f"-g{max(1, math.ceil(per_thread_target * bs_kib * BYTES_PER_KIB / MS_PER_S))}"


def render_diskspd_commands(
    workload: Workload,
    volumes: Sequence[str],
    *,
    host: str | None = None,
    n_hosts: int = 1,
    max_iops: float | None = None,
    latency: bool = True,
    xml: bool = True,
    diskspd: str = "diskspd",
) -> list[list[str]]:
    """DiskSpd command lines for `workload`, one per load point.

    Parameters
    ----------
    workload : Workload
        Must not be a `fill` (DiskSpd has no "stop at end of file"; ``-c`` fills files anyway).
    volumes : sequence of str
        Folders or drives for the targets (``<volume>\\file-<host>-<i>.dat``); Windows paths
        (``X:\\...``, ``\\\\server\\share``) and POSIX paths are accepted.
    host : str, optional
        This client's name, used in the target file names.
    n_hosts : int, default 1
        Clients running at once: a fixed rate or curve is split over them.
    max_iops : float, optional
        Measured maximum [IOPS] over all clients; needed for a load curve.
    latency : bool, default True
        Add ``-L`` (latency statistics and percentiles).
    xml : bool, default True
        Add ``-Rxml`` (results as the XML :func:`anfperf.ingest.diskspd.read_diskspd_xml` reads).
    diskspd : str, default 'diskspd'
        The DiskSpd executable.

    Returns
    -------
    list of list of str
        One ``argv`` per load point (concurrency x read share x curve point).

    Notes
    -----
    Threads-style workloads run ``-F<threads> -o1``; iodepth-style ones ``-F<numjobs>
    -o<iodepth>``. Sequential workloads with several threads use ``-si`` (threads share one
    interlocked sequential stream) rather than each thread re-reading the same offsets.
    A rate becomes ``-g`` bytes/ms per thread and target.
    """
    w = workload
    targets = _check_options(
        w, volumes, host=host, n_hosts=n_hosts, max_iops=max_iops, diskspd=diskspd
    )
    files = [_target(v, host, i) for i, v in enumerate(targets, 1)]
    share = n_hosts * len(files)
    commands = [
        _point_argv(w, point, diskspd, max_iops, share, latency=latency, xml=xml) + files
        for point in w.points()
    ]
    log.debug("rendered %d DiskSpd command lines for %s", len(commands), w.name)
    return commands


def _check_options(
    w: Workload,
    volumes: Sequence[str],
    *,
    host: str | None,
    n_hosts: int,
    max_iops: float | None,
    diskspd: str,
) -> list[str]:
    """The checked target folders; refuse a fill, bad names or counts, a curve without max."""
    if w.fill:
        raise WorkloadError(
            "DiskSpd cannot stop at the end of a file; -c creates and fills it already",
            field="fill",
            workload=w.name,
        )
    targets = check_paths(volumes, "volumes", windows=True)
    if host is not None:
        check_host(host)
    check_path(diskspd, "diskspd", windows=True)
    if isinstance(n_hosts, bool) or not isinstance(n_hosts, int) or n_hosts < 1:
        raise WorkloadError(f"must be a whole number >= 1, got {n_hosts!r}", field="n_hosts")
    if w.rate_kind == "curve" and not is_positive_number(max_iops):
        raise WorkloadError(
            "a load curve in DiskSpd needs max_iops (the measured maximum over all hosts)",
            field="rate",
            workload=w.name,
        )
    return targets


def _point_argv(
    w: Workload,
    point: Point,
    diskspd: str,
    max_iops: float | None,
    share: int,
    *,
    latency: bool,
    xml: bool,
) -> list[str]:
    """One load point's command line, without its targets, options in the seed's order."""
    threads = point.threads if point.threads is not None else point.numjobs
    depth = 1 if point.threads is not None else point.iodepth
    argv = [diskspd, f"-c{_size(w.file_size_gib * KIB_PER_GIB)}"]
    if point.read_pct < 100:
        argv.append(f"-w{100 - point.read_pct}")
    argv += [f"-b{_size(w.bs_kib)}", f"-F{threads}"]
    if w.pattern == "random":
        argv.append("-r")
    elif threads > 1:
        argv.append("-si")
    argv += [f"-o{depth}", f"-W{w.warmup_s}", f"-d{w.duration_s}"]
    if w.direct:
        argv.append("-Sh")
    if point.rate_pct is not None:
        argv.append(_throttle(max_iops * point.rate_pct / 100, point, w.bs_kib, share))
    elif point.rate_iops is not None:
        argv.append(_throttle(point.rate_iops, point, w.bs_kib, share))
    if latency:
        argv.append("-L")
    if xml:
        argv.append("-Rxml")
    return argv


# -- the adapter ----------------------------------------------------------------------------


class DiskSpdTool(ToolAdapter):
    """DiskSpd (https://github.com/microsoft/diskspd)."""

    name = "diskspd"
    output_format = "diskspd"
    runnable = False

    def render_files(
        self,
        workload: Workload,
        volumes: Sequence[str],
        hosts: Sequence[str] = (),
        *,
        max_iops: float | None = None,
        **options: Any,
    ) -> dict[str, str]:
        files = {}
        for stem, host, n_hosts in self.per_host(workload, hosts):
            cmds = render_diskspd_commands(
                workload, volumes, host=host, n_hosts=n_hosts, max_iops=max_iops
            )
            # every argument is from a checked, quote-free character set, so the plain join
            # is also what cmd.exe / PowerShell need (shlex quotes '\\')
            files[f"{stem}.diskspd.txt"] = "".join(" ".join(c) + "\n" for c in cmds)
        return files
