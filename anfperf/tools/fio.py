"""fio as a tool: job files and command lines, and its adapter (``fio --output-format=json+``,
read as 'fio_json').

Every host runs its own job file (``directory=`` its volumes, file names with its name); all
hosts start together and each writes ``<workload>.json`` (:class:`FioTool`).

Layout of a rendered job: a ``[global]`` section with what every load point shares (engine,
direct I/O, block size, file size, timing, ``group_reporting``), then, per load point, one
section per volume (``directory=<mount>``), all with the load point's name. The first section of
every load point after the first carries ``stonewall`` and ``new_group``: load points run one
after another, and each is one reporting group, so fio's JSON has one entry per load point.

Files are named ``file-<host>.<clone>.0`` (``filename_format``) inside each volume: clients that
share a volume never share files (like the seed's ``lun=<mount>/file-<vm>-<vol>``), and every
load point of a sweep reuses the files laid out by the first. Workloads given as ``threads``
(the Vdbench seed's) share one file ``file-<host>.0`` per volume, as Vdbench threads share an
sd; their sequential threads each read or write their own slice of it (``offset_increment``).

Command lines are argument lists, never shell strings; ``shlex.join`` them for display.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from anfperf.tools.base import HostTask, ToolAdapter, slug
from anfperf.units import BYTES_PER_GIB, KIB_PER_GIB, MS_PER_S
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

if TYPE_CHECKING:
    from anfperf.live import LiveStream

log = logging.getLogger(__name__)

#: fio ``rw=`` per (pattern, kind of mix).
RW = {
    ("random", "read"): "randread",
    ("random", "write"): "randwrite",
    ("random", "mixed"): "randrw",
    ("sequential", "read"): "read",
    ("sequential", "write"): "write",
    ("sequential", "mixed"): "rw",
}
#: Output formats whose JSON the ingest reads (json+ adds the latency histograms that let
#: percentiles be merged across jobs and hosts).
OUTPUT_FORMATS = ("json", "json+")
#: Runs fio (the arguments after the output file's name) and, while it runs, copies that output
#: file to stdout as fio writes it (``--status-interval`` documents, then the results), so the
#: controller reads the figures over the SSH session it holds while the file stays the record.
#: The exit status is fio's; TERM, INT and HUP are passed on to fio, which still writes its
#: results; without GNU tail the run is the same, only not live. tail checks every 0.2 s
#: whether fio ended (each second would add up to a second to every task).
LIVE_SCRIPT = (
    'out=$1; shift; "$@" & f=$!\n'
    "trap 'kill -TERM $f 2>/dev/null' TERM INT HUP\n"
    'tail -n +1 -s 0.2 --pid=$f -F "$out" 2>/dev/null & t=$!\n'
    "while :; do wait $f; s=$?; kill -0 $f 2>/dev/null || break; done\n"
    "wait $t; exit $s"
)
#: A job is a list of sections; a section is a name and its (option, value) pairs; a value of
#: None is a flag written without '=' (``stonewall``).
Section = tuple[str, list[tuple[str, str | None]]]


def _mix(read_pct: int) -> str:
    return "read" if read_pct == 100 else "write" if read_pct == 0 else "mixed"


def _rate_iops(total: float, point: Point, share: int) -> str:
    """fio ``rate_iops`` for one job clone: a total rate split over hosts x volumes x clones.

    fio caps reads and writes separately ("r,w"), so a mixed workload's total is split by its
    read share; each value is rounded up so the load asked for is never below the target.
    """
    per_clone = total / (share * (point.threads or point.numjobs))
    if point.read_pct in (0, 100):  # one direction: a single value caps it
        return str(max(1, math.ceil(per_clone)))
    reads = per_clone * point.read_pct / 100
    return f"{max(1, math.ceil(reads))},{max(1, math.ceil(per_clone - reads))}"


def _slices(file_kib: float, bs_kib: float, threads: int) -> list[tuple[str, str | None]]:
    """``size`` / ``offset_increment`` giving each of `threads` clones its own slice of a file."""
    if threads == 1:
        return [("size", size_text(file_kib))]
    blocks = int(file_kib // bs_kib) // threads
    if blocks < 1:
        raise WorkloadError(
            f"the file is too small for {threads} sequential threads", field="file_size_gib"
        )
    region = size_text(blocks * bs_kib)
    return [("size", region), ("offset_increment", region)]


def fio_sections(
    workload: Workload,
    volumes: Sequence[str],
    *,
    host: str | None = None,
    n_hosts: int = 1,
    max_iops: float | None = None,
    log_prefix: str | None = None,
) -> list[Section]:
    """The job as data: ``[("global", [...]), (name, [...]), ...]``.

    Parameters are those of :func:`render_fio_jobfile`.
    """
    w = workload
    volumes = _checked_volumes(volumes)
    _check_options(w, host=host, n_hosts=n_hosts, max_iops=max_iops, log_prefix=log_prefix)
    file_kib = w.file_size_gib * KIB_PER_GIB
    sections: list[Section] = [("global", _global_options(w, file_kib, host, log_prefix))]
    share = n_hosts * len(volumes)
    for i, point in enumerate(w.points()):
        opts = _point_options(w, point, file_kib, max_iops, share)
        name = w.point_name(point)
        for j, mount in enumerate(volumes):
            head = [("new_group", None), ("stonewall", None)] if i and not j else []
            sections.append((name, [*head, *opts, ("directory", mount)]))
    return sections


def _checked_volumes(volumes: Sequence[str]) -> list[str]:
    """`volumes` as safe, distinct paths that fio's ``directory=`` can take."""
    volumes = check_paths(volumes, "volumes")
    for mount in volumes:
        if ":" in mount:  # fio splits directory= on ':'
            raise WorkloadError(f"{mount!r}: fio cannot take ':' in a folder name", field="volumes")
    return volumes


def _check_options(
    w: Workload,
    *,
    host: str | None,
    n_hosts: int,
    max_iops: float | None,
    log_prefix: str | None,
) -> None:
    """Refuse a bad host, log prefix or host count, and a load curve without `max_iops`."""
    if host is not None:
        check_host(host)
    if log_prefix is not None:
        check_path(log_prefix, "log_prefix")
    if isinstance(n_hosts, bool) or not isinstance(n_hosts, int) or n_hosts < 1:
        raise WorkloadError(f"must be a whole number >= 1, got {n_hosts!r}", field="n_hosts")
    if w.rate_kind == "curve":
        if max_iops is None:
            raise WorkloadError(
                "a load curve in fio needs max_iops (the measured maximum over all hosts)",
                field="rate",
                workload=w.name,
            )
        if not is_positive_number(max_iops):
            raise WorkloadError(f"must be a positive number, got {max_iops!r}", field="max_iops")


def _global_options(
    w: Workload, file_kib: float, host: str | None, log_prefix: str | None
) -> list[tuple[str, str | None]]:
    """The ``[global]`` section: what every load point shares."""
    glob: list[tuple[str, str | None]] = [
        ("ioengine", "libaio"),
        ("direct", "1" if w.direct else "0"),
        ("bs", size_text(w.bs_kib)),
    ]
    if w.threads is None:
        # iodepth x numjobs (the fio seed): every job clone has a file of its own
        glob.append(("size", size_text(file_kib)))
        file_format = ".$jobnum.$filenum"
    else:
        # threads (the Vdbench seed): the threads share one file per client and volume, as
        # Vdbench threads share an sd; sequential threads each take their own slice of it
        glob.append(("filesize", size_text(file_kib)))
        if w.pattern == "random":
            glob.append(("size", size_text(file_kib)))
        file_format = ".$filenum"
    if len(w.read_pct) == 1:
        glob.append(("rw", RW[w.pattern, _mix(w.read_pct[0])]))
        if _mix(w.read_pct[0]) == "mixed":
            glob.append(("rwmixread", str(w.read_pct[0])))
    if w.fill:
        # write each file once; runtime only bounds a fill that is slower than expected
        glob.append(("runtime", str(w.duration_s)))
    else:
        glob += [("time_based", "1"), ("runtime", str(w.duration_s))]
        if w.warmup_s:
            glob.append(("ramp_time", str(w.warmup_s)))
    if w.pattern == "random":
        # a fresh random sequence each run: repeated runs must not hit a storage-side cache
        glob.append(("randrepeat", "0"))
    glob += [
        ("group_reporting", "1"),
        ("filename_format", (f"file-{host}" if host else "file") + file_format),
    ]
    if log_prefix is not None:
        glob += [
            ("write_bw_log", log_prefix),
            ("write_iops_log", log_prefix),
            ("write_lat_log", log_prefix),
            ("log_avg_msec", str(round(w.interval_s * MS_PER_S))),
        ]
    return glob


def _point_options(
    w: Workload, point: Point, file_kib: float, max_iops: float | None, share: int
) -> list[tuple[str, str | None]]:
    """One load point's options: concurrency, the read share of a sweep, its rate.

    `share` is the number of hosts x volumes that a total rate is split over.
    """
    opts: list[tuple[str, str | None]] = []
    if point.threads is not None:
        opts += [("numjobs", str(point.threads)), ("iodepth", "1")]
        if w.pattern == "sequential":
            opts += _slices(file_kib, w.bs_kib, point.threads)
    else:
        opts += [("numjobs", str(point.numjobs)), ("iodepth", str(point.iodepth))]
    if len(w.read_pct) > 1:
        opts.append(("rw", RW[w.pattern, _mix(point.read_pct)]))
        if _mix(point.read_pct) == "mixed":
            opts.append(("rwmixread", str(point.read_pct)))
    if point.rate_pct is not None:
        opts.append(("rate_iops", _rate_iops(max_iops * point.rate_pct / 100, point, share)))
    elif point.rate_iops is not None:
        opts.append(("rate_iops", _rate_iops(point.rate_iops, point, share)))
    return opts


def render_fio_jobfile(
    workload: Workload,
    volumes: Sequence[str],
    *,
    host: str | None = None,
    n_hosts: int = 1,
    max_iops: float | None = None,
    log_prefix: str | None = None,
) -> str:
    """Render a fio job file for `workload`.

    Parameters
    ----------
    workload : Workload
    volumes : sequence of str
        Mount points; one job section per volume and load point (``directory=``).
    host : str, optional
        This client's name, used in the data file names so that clients sharing a volume use
        their own files.
    n_hosts : int, default 1
        Clients running the job at once: a fixed rate or curve is split over them.
    max_iops : float, optional
        The measured maximum [IOPS] over all clients, needed for a load curve: each curve
        point runs with ``rate_iops`` = point% x `max_iops`, split over clients, volumes and
        job clones.
    log_prefix : str, optional
        Write per-interval bandwidth, IOPS and latency logs (``write_*_log``) under this prefix,
        averaged over ``interval_s`` (``log_avg_msec``).

    Returns
    -------
    str
        The job file text.
    """
    sections = fio_sections(
        workload, volumes, host=host, n_hosts=n_hosts, max_iops=max_iops, log_prefix=log_prefix
    )
    w = workload
    out = [f"; anfperf workload {w.name}" + (f": {w.description}" if w.description else "")]
    if w.source:
        out.append(f"; source: {w.source}")
    out = ["".join(ch if ch.isprintable() else " " for ch in line) for line in out]
    for name, opts in sections:
        out.append(f"\n[{name}]")
        out += [key if value is None else f"{key}={value}" for key, value in opts]
    return "\n".join(out) + "\n"


def render_fio_command(
    workload: Workload,
    volumes: Sequence[str],
    *,
    jobfile: str | None = None,
    output: str | None = None,
    output_format: str = "json+",
    fio: str = "fio",
    host: str | None = None,
    n_hosts: int = 1,
    max_iops: float | None = None,
    log_prefix: str | None = None,
) -> list[str]:
    """The fio command line for `workload`, as an argument list.

    Parameters
    ----------
    workload : Workload
    volumes : sequence of str
        Mount points, as for :func:`render_fio_jobfile`.
    jobfile : str, optional
        Path of a job file rendered by :func:`render_fio_jobfile`: the command then runs that
        file. Without it the whole job is spelled out as options (``--name=`` starts each
        section).
    output : str, optional
        Result file (``--output=``); fio writes to stdout without it.
    output_format : {'json+', 'json'}
        ``json+`` adds latency histograms (needed to merge percentiles across hosts).
    fio : str, default 'fio'
        The fio executable.
    host, n_hosts, max_iops, log_prefix
        As for :func:`render_fio_jobfile`.

    Returns
    -------
    list of str
        ``argv``; display it with ``shlex.join``, never build a shell string by hand.
    """
    if output_format not in OUTPUT_FORMATS:
        raise WorkloadError(f"must be one of {OUTPUT_FORMATS}", field="output_format")
    check_path(fio, "fio")
    argv = [fio, f"--output-format={output_format}"]
    if output is not None:
        argv.append(f"--output={check_path(output, 'output')}")
    if jobfile is not None:
        # the job file was rendered from the same workload; only its path is needed here
        argv.append(check_path(jobfile, "jobfile"))
        return argv
    sections = fio_sections(
        workload, volumes, host=host, n_hosts=n_hosts, max_iops=max_iops, log_prefix=log_prefix
    )
    for name, opts in sections:
        if name != "global":  # options before the first --name are global
            argv.append(f"--name={name}")
        argv += [f"--{key}" if value is None else f"--{key}={value}" for key, value in opts]
    return argv


# -- the adapter ----------------------------------------------------------------------------


def fio_task(
    jobfile: str,
    *,
    name: str,
    duration_s: float,
    timeout_s: float | None = None,
    extra_args: Sequence[str] = (),
    live_interval_s: float | None = None,
) -> HostTask:
    """A task running one fio job file, its JSON+ results collected as ``<name>.json``.

    Parameters
    ----------
    jobfile : str
        The job file's text (uploaded as ``<name>.fio``).
    name : str
        File stem (a slug is taken).
    duration_s : float
        Expected run time [s].
    live_interval_s : float, optional
        fio writes its cumulative figures every so many seconds (``--status-interval``) into
        the output file before its results, and the task copies that file to stdout as it
        grows (:data:`LIVE_SCRIPT`): a ``live`` task.
    """
    stem = slug(name)
    fio = ["fio", "--output-format=json+", f"--output={stem}.json", *extra_args, f"{stem}.fio"]
    if live_interval_s is not None:
        fio.insert(2, f"--status-interval={max(1, round(live_interval_s))}")
        fio = ["sh", "-c", LIVE_SCRIPT, "anfperf-fio-live", f"{stem}.json", *fio]
    return HostTask(
        argv=tuple(fio),
        files={f"{stem}.fio": jobfile},
        outputs=(f"{stem}.json",),
        duration_s=duration_s,
        timeout_s=timeout_s,
        live=live_interval_s is not None,
        keep_stdout=live_interval_s is None,
    )


class FioTool(ToolAdapter):
    """fio (https://github.com/axboe/fio)."""

    name = "fio"
    output_format = "fio_json"
    uniform_facts = ("fio_version",)

    def data_files(self, workload: Workload) -> dict[str, int]:
        # filename_format of the job file: a file per job clone (iodepth x numjobs), or one file
        # the threads share (the Vdbench seed's threads)
        size = round(workload.file_size_gib * BYTES_PER_GIB)
        if workload.threads is not None:
            return {"file.0": size}
        clones = max(point.numjobs for point in workload.points())
        return {f"file.{job}.0": size for job in range(clones)}

    def render_files(
        self,
        workload: Workload,
        volumes: Sequence[str],
        hosts: Sequence[str] = (),
        *,
        max_iops: float | None = None,
        **options: Any,
    ) -> dict[str, str]:
        return {
            f"{stem}.fio": render_fio_jobfile(
                workload, volumes, host=host, n_hosts=n_hosts, max_iops=max_iops
            )
            for stem, host, n_hosts in self.per_host(workload, hosts)
        }

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
        tasks = {}
        for host in hosts:
            jobfile = render_fio_jobfile(
                workload, list(host.volumes.values()), host=host.name, n_hosts=len(hosts),
                max_iops=max_iops,
            )  # fmt: skip
            tasks[host.name] = fio_task(
                jobfile, name=workload.name, duration_s=duration_s, timeout_s=timeout_s,
                live_interval_s=live_interval_s,
            )  # fmt: skip
        return tasks

    def live_stream(self, host: str, interval_s: float = 1.0) -> LiveStream:
        from anfperf.live import FioStream

        return FioStream(host)

    def probe(self, launcher: str | None = None) -> list[str]:
        return ["s fio; have fio && fio --version 2>&1"]

    def parse_facts(self, sections: Mapping[str, str]) -> dict[str, Any]:
        fio = sections.get("fio", "").strip()
        return {"fio_version": fio.splitlines()[0] if fio.startswith("fio") else None}

    def summary(self, facts: Mapping[str, Any]) -> str | None:
        return facts.get("fio_version") or "no fio"
