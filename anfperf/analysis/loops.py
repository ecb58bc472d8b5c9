"""Single runs that a shell loop made of one sweep: one file per load point.

``for qd in 1 2 4 ... 128; do fio ... --iodepth=$qd --output=qd$qd.json; done`` leaves one
file per queue depth, and each file is a run of one point (its run id is its file name): the
report can fit no curve to any of them. :func:`loop_sweeps` finds such runs -- single points
of one tool in one folder, the same access pattern, block size and read share, at three or
more levels of outstanding I/O -- and :func:`loop_hint` says how to read them as one run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pandas as pd

from anfperf.analysis.findings import KIND_SINGLE
from anfperf.values import natural_key

__all__ = ["LoopSweep", "loop_sweeps", "loop_hint"]

#: Levels of outstanding I/O single runs need to make a sweep (as a run needs to be one).
MIN_LEVELS = 3
#: What the runs of one loop share, besides their folder and tool.
_SAME = ("pattern", "bs_kib", "read_pct")


@dataclass(frozen=True)
class LoopSweep:
    """Single-point runs that differ only in their outstanding I/O.

    Attributes
    ----------
    run_ids : tuple of str
        The runs, by outstanding I/O.
    folder : str
        The folder holding their files.
    tool : str
        The tool that made them.
    outstanding : tuple of float
        Their outstanding I/O [-], ascending.
    """

    run_ids: tuple[str, ...]
    folder: str
    tool: str
    outstanding: tuple[float, ...]


def loop_sweeps(rows: pd.DataFrame, kinds: pd.DataFrame) -> list[LoopSweep]:
    """The groups of single-point runs that one loop over outstanding I/O made.

    Parameters
    ----------
    rows : pandas.DataFrame
        Whole-run rows (:func:`anfperf.analysis.summary_rows`).
    kinds : pandas.DataFrame
        :func:`anfperf.analysis.findings.run_kinds` of the same runs.

    Returns
    -------
    list of LoopSweep
        One per folder, tool and workload with at least :data:`MIN_LEVELS` levels; empty
        when there is none (or the rows lack the columns that tell).
    """
    single = set(kinds.loc[kinds["kind"] == KIND_SINGLE, "run_id"].astype(str))
    needed = {"run_id", "tool", "outstanding", "source_file", *_SAME}
    if not single or not needed <= set(rows.columns):
        return []
    one = rows[rows["run_id"].astype(str).isin(single)]
    per_run = one.groupby("run_id", observed=True).agg(
        tool=("tool", "first"),
        source=("source_file", "first"),
        outstanding=("outstanding", "first"),
        levels=("outstanding", "nunique"),
        **{k: (k, "first") for k in _SAME},
    )
    per_run = per_run[(per_run["levels"] == 1) & per_run["outstanding"].notna()]
    per_run["folder"] = per_run["source"].astype(str).map(os.path.dirname)
    out = []
    keys = ["folder", "tool", *_SAME]
    for key, group in per_run.groupby(keys, dropna=False, sort=False):
        if group["outstanding"].nunique() < MIN_LEVELS:
            continue
        ids = sorted(group.index.astype(str),
                     key=lambda r: (group.loc[r, "outstanding"], natural_key(r)))  # fmt: skip
        depths = tuple(float(group.loc[r, "outstanding"]) for r in ids)
        out.append(LoopSweep(tuple(ids), str(key[0]), str(key[1]), depths))
    return out


def loop_hint(sweep: LoopSweep) -> str:
    """How to read a loop's single runs as one sweep, in one sentence with the commands."""
    folder = sweep.folder or "."
    name = os.path.basename(os.path.abspath(folder)) or "sweep"
    lo, hi = sweep.outstanding[0], sweep.outstanding[-1]
    return (
        f"{sweep.run_ids[0]} .. {sweep.run_ids[-1]}: {len(sweep.run_ids)} single {sweep.tool} "
        f"runs in {folder} that differ only in outstanding I/O ({lo:g} .. {hi:g}): read as one "
        f"run they are a concurrency sweep with its fitted curve: anfperf ingest {folder} "
        f"--run-id {name} --out store/, then anfperf report benchmark -p store store/"
    )
