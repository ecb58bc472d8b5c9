"""Workloads rendered for a tool, and written as files: what ``anfperf workloads`` writes."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anfperf.errors import AnfperfError
from anfperf.folders import atomic_write_bytes, output_folder
from anfperf.tools.base import get_tool, tool_names, tool_options
from anfperf.workloads.spec import Workload, WorkloadError, dump_workloads


def formats() -> tuple[str, ...]:
    """What ``anfperf workloads --tool`` renders: every registered tool, and 'yaml' (the specs)."""
    return (*tool_names(), "yaml")


def render_files(
    workloads: Sequence[Workload],
    tool: str,
    volumes: Sequence[str],
    hosts: Sequence[str] = (),
    *,
    max_iops: float | None = None,
    **options: Any,
) -> tuple[dict[str, str], dict[str, WorkloadError]]:
    """Render workloads to the files a tool runs.

    Parameters
    ----------
    workloads : sequence of Workload
        What to render.
    tool : str
        A registered tool (:mod:`anfperf.tools`; Vdbench: one parameter file per workload, all
        hosts in it; fio, DiskSpd: one job or command file per workload and host), or 'yaml':
        one YAML file of all workloads.
    volumes, hosts : sequence of str
        Mount points, and client host names (none: one local client).
    max_iops : float, optional
        The max rate that load curves are fractions of [IOPS].
    **options
        Render options of the registered tools (:func:`anfperf.tools.tool_options`, e.g.
        Vdbench's ``user`` and ``vdbench_dir`` of its ``hd=`` lines); `tool` receives its own,
        the others' are left out.

    Returns
    -------
    files : dict
        File name -> text.
    errors : dict
        Workload name -> the :class:`WorkloadError` that kept it from being rendered for `tool`
        (e.g. an iodepth sweep has no Vdbench form).

    Raises
    ------
    TypeError
        An option no registered tool has.
    """
    known = {o.name for o in tool_options()}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"render_files() got options no tool has: {', '.join(unknown)}")
    if tool == "yaml":
        return {"workloads.yml": dump_workloads(list(workloads))}, {}
    try:
        adapter = get_tool(tool)
    except ValueError:
        raise WorkloadError(f"unknown tool {tool!r}; one of {', '.join(formats())}") from None
    own = {o.name: options.get(o.name) for o in adapter.options}
    files: dict[str, str] = {}
    errors: dict[str, WorkloadError] = {}
    for w in workloads:
        try:
            files.update(adapter.render_files(w, volumes, hosts, max_iops=max_iops, **own))
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
