"""Workloads as files and tables: what ``anfperf workloads`` lists and writes."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from anfperf.workloads.diskspd import render_diskspd_commands
from anfperf.workloads.fio import render_fio_jobfile
from anfperf.workloads.spec import Workload, WorkloadError, dump_workloads
from anfperf.workloads.vdbench import render_vdbench

TOOLS = ("vdbench", "fio", "diskspd", "yaml")


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
    tool : {'vdbench', 'fio', 'diskspd', 'yaml'}
        One Vdbench parameter file per workload (all hosts in it); one fio job file or DiskSpd
        command file per workload and host; or one YAML file of all workloads.
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
    if tool not in TOOLS:
        raise WorkloadError(f"unknown tool {tool!r}; one of {', '.join(TOOLS)}")
    if tool == "yaml":
        return {"workloads.yml": dump_workloads(list(workloads))}, {}
    files: dict[str, str] = {}
    errors: dict[str, WorkloadError] = {}
    for w in workloads:
        try:
            if tool == "vdbench":
                files[f"{w.name}.parm"] = render_vdbench(
                    w, volumes, hosts, user=user, vdbench_dir=vdbench_dir
                )
                continue
            for host in hosts or [None]:
                stem = w.name if host is None else f"{w.name}-{host}"
                kw = {"host": host, "n_hosts": max(len(hosts), 1), "max_iops": max_iops}
                if tool == "fio":
                    files[f"{stem}.fio"] = render_fio_jobfile(w, volumes, **kw)
                else:
                    # every argument is from a checked, quote-free character set, so the
                    # plain join is also what cmd.exe / PowerShell need (shlex quotes '\\')
                    cmds = render_diskspd_commands(w, volumes, **kw)
                    files[f"{stem}.diskspd.txt"] = "".join(" ".join(c) + "\n" for c in cmds)
        except WorkloadError as exc:
            errors[w.name] = exc
    return files, errors
