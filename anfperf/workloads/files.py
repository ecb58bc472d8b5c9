"""Workloads as files and tables: what ``anfperf workloads`` lists and writes."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from anfperf.errors import AnfperfError
from anfperf.folders import output_folder
from anfperf.workloads.spec import Workload, WorkloadError, dump_workloads


def formats() -> tuple[str, ...]:
    """What ``anfperf workloads --tool`` renders: every registered tool, and 'yaml' (the specs)."""
    from anfperf.runner.tools import tool_names

    return (*tool_names(), "yaml")


def catalogue_table(workloads: Sequence[Workload]) -> pd.DataFrame:
    """One line per workload: pattern, block size, read %, concurrency, timing and rate."""
    rows = []
    for w in workloads:
        if w.threads is not None:
            concurrency = f"threads {'/'.join(map(str, w.threads))}"
        else:
            concurrency = f"qd {'/'.join(map(str, w.iodepth))} x {w.numjobs} jobs"
        reads = "/".join(map(str, w.read_pct))
        if len(w.read_pct) > 3:
            reads = f"{w.read_pct[0]}..{w.read_pct[-1]}"
        rate = w.rate if w.rate_kind != "curve" else "curve " + "/".join(map(str, w.rate))
        rows.append({
            "name": w.name, "pattern": w.pattern + (" fill" if w.fill else ""),
            "bs": f"{w.bs_kib:g}k", "read %": reads, "concurrency": concurrency,
            "warm-up/run s": f"{w.warmup_s}/{w.duration_s}", "rate": str(rate),
        })  # fmt: skip
    return pd.DataFrame(rows)


def render_files(
    workloads: Sequence[Workload],
    tool: str,
    volumes: Sequence[str],
    hosts: Sequence[str] = (),
    *,
    user: str | None = None,
    vdbench_dir: str | None = None,
    max_iops: float | None = None,
) -> tuple[dict[str, str], dict[str, WorkloadError]]:
    """Render workloads to the files a tool runs.

    Parameters
    ----------
    workloads : sequence of Workload
        What to render.
    tool : str
        A registered tool (:mod:`anfperf.runner.tools`; Vdbench: one parameter file per
        workload, all hosts in it; fio, DiskSpd: one job or command file per workload and
        host), or 'yaml': one YAML file of all workloads.
    volumes, hosts : sequence of str
        Mount points, and client host names (none: one local client).
    user, vdbench_dir, max_iops
        Passed to the renderers (Vdbench ``hd=`` user and install folder; the max rate that
        load curves are fractions of).

    Returns
    -------
    files : dict
        File name -> text.
    errors : dict
        Workload name -> the :class:`WorkloadError` that kept it from being rendered for `tool`
        (e.g. an iodepth sweep has no Vdbench form).
    """
    from anfperf.runner.tools import get_tool

    if tool == "yaml":
        return {"workloads.yml": dump_workloads(list(workloads))}, {}
    try:
        adapter = get_tool(tool)
    except ValueError:
        raise WorkloadError(f"unknown tool {tool!r}; one of {', '.join(formats())}") from None
    files: dict[str, str] = {}
    errors: dict[str, WorkloadError] = {}
    options = {"user": user, "vdbench_dir": vdbench_dir, "max_iops": max_iops}
    for w in workloads:
        try:
            files.update(adapter.render_files(w, volumes, hosts, **options))
        except WorkloadError as exc:
            errors[w.name] = exc
    return files, errors


def write_files(files: Mapping[str, str], out_dir: str | os.PathLike) -> list[Path]:
    """Write rendered files (:func:`render_files`) into `out_dir`, made when missing.

    Each file is written whole or not at all (temporary file, then rename), so a full disk
    leaves no truncated parameter file that a tool would run.

    Returns
    -------
    list of pathlib.Path
        The files written, in the order of `files`.

    Raises
    ------
    anfperf.AnfperfError
        Naming the folder that cannot be written, or the file that could not be (those written
        before it stay).
    """
    from anfperf.folders import atomic_write_bytes

    out = output_folder(out_dir, what="the rendered files")
    written = []
    for name, text in files.items():
        path = out / name
        try:
            atomic_write_bytes(path, text.encode("utf-8"))
        except OSError as exc:
            raise AnfperfError(f"{path}: could not write: {exc.strerror or exc}") from None
        written.append(path)
    return written
