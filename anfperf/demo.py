"""The demo: measure this machine, model it and report it, in one call.

:func:`run_demo` runs a short real fio sweep on a temporary folder of the local disk through the
local executor (the runner's code path for a fleet, without SSH), ingests it into a Parquet
store, fits the latency-curve and read/write-mix models, and renders the benchmark report
notebook. With ``measure=False`` it reports the bundled real samples instead (for machines
without fio or a writable disk). The temporary data files are removed afterwards, also when the
run is interrupted.
"""

from __future__ import annotations

import errno
import math
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from anfperf._bundled import NOTEBOOKS, REPORTS, SAMPLES, report_notebook, samples_path
from anfperf.errors import AnfperfError
from anfperf.folders import output_folder
from anfperf.units import BYTES_PER_MIB, MIB_PER_GIB

__all__ = [
    "SAMPLES",
    "NOTEBOOK",
    "DEFAULT_OUT",
    "QUEUE_DEPTHS",
    "READ_SHARES",
    "MIX_IODEPTH",
    "LAT_SLO_MS",
    "DemoResult",
    "demo_workloads",
    "measure",
    "run_demo",
    "headline",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer: not numpy, pandas, ...


# Package data (anfperf._bundled), in a wheel as in a checkout: run_demo checks they are there.
NOTEBOOK = NOTEBOOKS / REPORTS["benchmark"]
DEFAULT_OUT = Path("reports") / "demo"
#: The queue depths of the 4 KiB random-read sweep.
QUEUE_DEPTHS = (1, 2, 4, 8, 16, 32, 64)
#: Read shares of the 8 KiB random read/write mix [%].
READ_SHARES = tuple(range(0, 101, 10))
#: Queue depth of the mix and of the sequential points.
MIX_IODEPTH = 16
#: The latency objective the headline reads the IOPS at [ms].
LAT_SLO_MS = 1.0


@dataclass
class DemoResult:
    """What the demo made and found.

    Attributes
    ----------
    report : pathlib.Path
        The HTML report.
    store : pathlib.Path
        The Parquet store of the runs reported.
    run_dirs : list of pathlib.Path
        Raw outputs and manifest of the measured run (empty with ``measure=False``).
    headline : list of str
        The short summary printed at the end.
    numbers : pandas.DataFrame
        :func:`anfperf.analysis.findings.key_numbers` of the runs.
    """

    report: Path
    store: Path
    run_dirs: list[Path]
    headline: list[str] = field(default_factory=list)
    numbers: pd.DataFrame | None = None


def demo_workloads(point_s: int = 2, file_size_mib: int = 64, warmup_s: int = 1) -> list:
    """The measured sweep: 4 KiB random-read queue depths, an 8 KiB mix, 64 KiB sequential.

    Parameters
    ----------
    point_s : int
        Measured seconds per load point.
    file_size_mib : int
        Size of each data file [MiB].
    warmup_s : int
        Warm-up before each point [s] (fio ``ramp_time``).
    """
    from anfperf.workloads.spec import Workload

    common = {"duration_s": int(point_s), "warmup_s": int(warmup_s),
              "file_size_gib": file_size_mib / MIB_PER_GIB}  # fmt: skip
    return [
        Workload(name="QDSweep4k", pattern="random", bs_kib=4, iodepth=list(QUEUE_DEPTHS),
                 description="4 KiB random reads, queue depth 1..64", **common),
        Workload(name="Mix8k", pattern="random", bs_kib=8, read_pct=list(READ_SHARES),
                 iodepth=MIX_IODEPTH, description="8 KiB random, read share 0..100 %", **common),
        Workload(name="SeqRead64k", pattern="sequential", bs_kib=64, read_pct=100,
                 iodepth=MIX_IODEPTH, description="64 KiB sequential reads", **common),
        Workload(name="SeqWrite64k", pattern="sequential", bs_kib=64, read_pct=0,
                 iodepth=MIX_IODEPTH, description="64 KiB sequential writes", **common),
    ]  # fmt: skip


def measure(
    out_dir: str | os.PathLike,
    *,
    directory: str | os.PathLike | None = None,
    point_s: int = 2,
    file_size_mib: int = 64,
    progress: bool = True,
    on_phase: Callable[[str], None] | None = None,
    warmup_s: int = 1,
) -> list[Path]:
    """Run the demo sweep with fio on this machine; returns the runs' folders.

    Each workload is a run of its own (its own run id and manifest), so that each sweep is
    reported as one curve. The data files go to a new temporary folder inside `directory`
    (default: the system's temporary folder), removed when the runs end, whether they succeed,
    fail or are interrupted. `progress` draws one bar over all workloads ("measuring 2/4
    Mix8k", the time left of the whole sweep); `on_phase` is told each workload as it starts
    (for a log or a pipe, where no bar is drawn). `point_s`, `file_size_mib` and `warmup_s`
    are those of :func:`demo_workloads`.

    Raises
    ------
    anfperf.AnfperfError
        fio is missing, `directory` is not a folder this process can write in or has too
        little free space for the data files, or a step failed (the manifest in the run folder
        says why).
    """
    from anfperf.runner import (
        expected_duration_s,
        local_inventory,
        plan_workloads,
        preflight_inventory,
        run_inventory,
    )
    from anfperf.runner.progress import FleetProgress, format_duration

    if shutil.which("fio") is None:
        raise AnfperfError(
            "fio is not installed: apt-get install fio (or make sysdeps), or run the demo with "
            "--no-measure to report the bundled samples"
        )
    parent = Path(directory) if directory is not None else Path(tempfile.gettempdir())
    if not parent.is_dir():
        raise AnfperfError(f"{parent}: no such folder to measure in")
    workloads = demo_workloads(point_s, file_size_mib, warmup_s)
    try:
        scratch = Path(tempfile.mkdtemp(prefix="anfperf-demo-", dir=parent))
    except OSError as exc:
        # (not the temporary name it tried: the folder given is what to fix)
        why = _DISK_FULL if exc.errno in _FULL_ERRNOS else exc.strerror
        raise AnfperfError(f"{parent}: cannot measure in this folder: {why}") from None
    run_dirs = []
    try:
        (scratch / "data").mkdir()
        inventory = local_inventory({"demo": str(scratch / "data")}, workdir=str(scratch / "work"))
        _check_room(parent, workloads, inventory)
        # this machine's facts (OS, kernel, CPUs, fio version) for every run's manifest, once
        reports = preflight_inventory(inventory, tool="fio")
        durations_s = [expected_duration_s(w, "fio") for w in workloads]
        bar = FleetProgress(inventory.names, sum(durations_s), disable=not progress)
        try:
            for k, (workload, duration_s) in enumerate(zip(workloads, durations_s, strict=True)):
                bar.phase = f"measuring {k + 1}/{len(workloads)} {workload.name}"
                if on_phase is not None:
                    on_phase(f"{bar.phase} (about {format_duration(duration_s)}) ...")
                plan = plan_workloads([workload], inventory, tool="fio")
                manifest = run_inventory(plan, inventory, out_dir, reports=reports, progress=bar)
                run_dirs.append(manifest.run_dir)
                failed = manifest.failures()
                if failed:
                    step, host, state, reason = failed[0]
                    raise AnfperfError(
                        f"demo step {step} on {host} {state}: {reason} (see {manifest.path})"
                    )
        finally:
            bar.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return run_dirs


#: What a full disk is called in the demo's errors (ENOSPC's own words name the device).
_DISK_FULL = "the disk is full"
_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)


def _check_room(parent: Path, workloads: list, inventory) -> None:
    """AnfperfError naming `parent` when the demo's data files do not fit there: said before
    anything runs, not as a failed upload of the first workload's job file."""
    from anfperf.runner import plan_workloads
    from anfperf.runner.dryrun import dry_run

    planned = dry_run(plan_workloads(workloads, inventory, tool="fio"), inventory)
    need_mib = planned.data_bytes_per_volume / BYTES_PER_MIB
    free_mib = shutil.disk_usage(parent).free / BYTES_PER_MIB
    if free_mib >= need_mib:
        return
    said = _DISK_FULL if free_mib < 1 else f"only {free_mib:,.1f} MiB free"
    raise AnfperfError(
        f"{parent}: cannot measure in this folder: {said}, and the demo's data files take "
        f"{need_mib:,.0f} MiB (free some space, or choose another folder or smaller files)"
    )


def run_demo(
    out_dir: str | os.PathLike = DEFAULT_OUT,
    *,
    measure_here: bool = True,
    directory: str | os.PathLike | None = None,
    point_s: int = 2,
    file_size_mib: int = 64,
    progress: bool = True,
    on_phase: Callable[[str], None] | None = None,
    warmup_s: int = 1,
) -> DemoResult:
    """Measure (or take the bundled samples), store, model and report.

    Parameters
    ----------
    out_dir : path-like
        Where the raw run (``raw/``), the store (``store/``) and ``report.html`` go.
    measure_here : bool
        Measure this machine with fio; False reports the bundled real samples.
    directory, point_s, file_size_mib, progress, warmup_s
        As in :func:`measure`.
    on_phase : callable, optional
        Told each phase as it starts, in words: each workload measured, reading, reporting
        (the CLI prints them, so that a log shows where the demo is).

    Returns
    -------
    DemoResult

    Raises
    ------
    anfperf.AnfperfError
        The report notebook or the samples are missing (a broken install), or `out_dir` cannot
        be written, before anything runs; or as in :func:`measure`.
    """
    # before a two-minute measurement that could not be reported
    notebook = report_notebook("benchmark")
    samples = samples_path() if not measure_here else None

    from anfperf.analysis.findings import key_numbers
    from anfperf.ingest import read_many
    from anfperf.report import render_report
    from anfperf.store import save_frame

    out = output_folder(Path(out_dir).resolve(), what="the demo's outputs")
    say = on_phase or (lambda _: None)
    if measure_here:
        run_dirs = measure(out / "raw", directory=directory, point_s=point_s,
                           file_size_mib=file_size_mib, progress=progress,
                           on_phase=None if progress else say, warmup_s=warmup_s)  # fmt: skip
        inputs = run_dirs
    else:
        run_dirs, inputs = [], [samples]
    say(f"reading {'the runs' if measure_here else 'the bundled samples'} into {out / 'store'} ...")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = read_many(inputs, errors="warn")
    if frame.empty:
        raise AnfperfError("nothing to report: no results in " + ", ".join(map(str, inputs)))
    store = out / "store"
    shutil.rmtree(store, ignore_errors=True)  # this demo's runs only
    save_frame(frame, store)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numbers = key_numbers(frame, lat_slo_ms=LAT_SLO_MS)
    say(f"fitting and rendering the report {out / 'report.html'} ...")
    result = render_report(
        notebook, parameters={"paths": [str(p) for p in inputs], "lat_slo_ms": LAT_SLO_MS},
        out_dir=out, name="report",
    )  # fmt: skip
    if not result.ok:
        raise result.error
    return DemoResult(result.html, store, run_dirs, headline(frame, numbers), numbers)


def headline(frame: pd.DataFrame, numbers: pd.DataFrame) -> list[str]:
    """The demo's short summary: peak, knee, IOPS at 1 ms, Little's law, the mix model's error."""
    from anfperf.analysis import findings
    from anfperf.analysis.sweep import sweep_xy
    from anfperf.models import fit_mix, threads_needed
    from anfperf.report.benchmark import SWEEP_KINDS, main_run

    lines = []
    # the report's own choice: runs served from a client cache are neither peak nor main sweep
    main = main_run(numbers)
    sweep = None
    if main is not None:
        row = numbers[numbers["run_id"] == main].iloc[0]
        sweep = row if row["kind"] in SWEEP_KINDS else None
    peak = findings.peak_run(numbers)
    top_bw = findings.peak_run(numbers, by="peak_bw_mib_s")
    if peak is not None and top_bw is not None:
        lines.append(f"peak: {peak['peak_iops']:,.0f} IOPS ({peak['run_id']}), "
                     f"{top_bw['peak_bw_mib_s']:,.1f} MiB/s ({top_bw['run_id']})")  # fmt: skip
    cached = numbers[findings.cached_runs(numbers)]
    if len(cached):
        lines.append("set apart, served from a client cache: " + ", ".join(cached["run_id"]))
    if sweep is not None and not math.isnan(sweep["knee_iops"]):
        lines.append(f"knee: {sweep['knee_lat_ms']:.3f} ms at {sweep['knee_iops']:,.0f} IOPS "
                     f"({sweep['run_id']})")  # fmt: skip
        slo, how, band = findings.stated_iops_at_slo(sweep)
        if not math.isnan(slo):
            lines.append(f"IOPS at a {LAT_SLO_MS:g} ms SLO: {slo:,.0f} "
                         f"({findings.slo_source_words(how, band)})")  # fmt: skip
            needed = threads_needed(slo, LAT_SLO_MS)
            lines.append(
                f"Little's law: {slo:,.0f} IOPS at {LAT_SLO_MS:g} ms need {needed} I/Os in "
                "flight (threads x queue depth, over all clients)"
            )
    mixes = numbers[numbers["kind"] == findings.KIND_MIX]
    for run_id in mixes["run_id"]:
        rows = frame[frame["run_id"] == run_id]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = fit_mix(*sweep_xy(rows, "read_pct", "iops"))
        lines.append(f"mix model ({run_id}): median error {fit.mdape_pct:.1f} % on the "
                     f"{fit.n_points} measured mixes")  # fmt: skip
    return lines
