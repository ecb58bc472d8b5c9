"""Single runs that a shell loop made of one sweep: one file per load point.

``for qd in 1 2 4 ... 128; do fio ... --iodepth=$qd --output=qd$qd.json; done`` leaves one
file per queue depth, and each file is a run of one point (its run id is its file name): the
report can fit no curve to any of them. :func:`loop_sweeps` finds such runs -- single points
of one tool in one folder that differ in one thing only, at three or more levels of it:
outstanding I/O (a concurrency sweep), block size (a block-size sweep), read share (a
read/write mix sweep) or requested rate (a load curve) -- and :func:`loop_hint` says how to
read them as one run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pandas as pd

from anfperf.analysis.findings import (
    KIND_BLOCK,
    KIND_CONCURRENCY,
    KIND_GRID,
    KIND_MIX,
    KIND_RATE,
    KIND_SINGLE,
)
from anfperf.analysis.sweep import alike
from anfperf.values import natural_key

__all__ = ["LoopSweep", "loop_sweeps", "loop_hint", "loop_hints"]

#: Levels single runs need to make a sweep (as a run needs to be one).
MIN_LEVELS = 3
#: What a loop may vary: the column, the sweep it makes, its name in words, its unit.
VARIED = {
    "outstanding": (KIND_CONCURRENCY, "outstanding I/O", ""),
    "bs_kib": (KIND_BLOCK, "block size", " KiB"),
    "read_pct": (KIND_MIX, "read share", " %"),
    "rate_limit_iops": (KIND_RATE, "requested rate", " IOPS"),
}
#: What the runs of one loop share besides their folder and tool (and all but the varied one
#: of VARIED).
_SAME = ("pattern",)


@dataclass(frozen=True)
class LoopSweep:
    """Single-point runs that differ in one thing only.

    Attributes
    ----------
    run_ids : tuple of str
        The runs, by the level of what they vary.
    folder : str
        The folder holding their files.
    tool : str
        The tool that made them.
    varies : str
        The column they differ in, a key of :data:`VARIED` ('outstanding', 'bs_kib', ...).
    levels : tuple of float
        Its value in each run, ascending [its unit].
    """

    run_ids: tuple[str, ...]
    folder: str
    tool: str
    varies: str
    levels: tuple[float, ...]

    @property
    def kind(self) -> str:
        """The sweep the runs make as one run (:mod:`anfperf.analysis.findings`' kinds)."""
        return VARIED[self.varies][0]


def loop_sweeps(rows: pd.DataFrame, kinds: pd.DataFrame) -> list[LoopSweep]:
    """The groups of single-point runs that one loop made.

    Parameters
    ----------
    rows : pandas.DataFrame
        Whole-run rows (:func:`anfperf.analysis.summary_rows`).
    kinds : pandas.DataFrame
        :func:`anfperf.analysis.findings.run_kinds` of the same runs.

    Returns
    -------
    list of LoopSweep
        One per folder, tool and what the runs share, with at least :data:`MIN_LEVELS` levels
        of what they vary; empty when there is none (or the rows lack the columns that tell).
    """
    single = set(kinds.loc[kinds["kind"] == KIND_SINGLE, "run_id"].astype(str))
    needed = {"run_id", "tool", "source_file", *_SAME}
    if not single or not needed <= set(rows.columns):
        return []
    varied = [c for c in VARIED if c in rows.columns]
    one = rows[rows["run_id"].astype(str).isin(single)]
    per_run = one.groupby("run_id", observed=True).agg(
        tool=("tool", "first"),
        source=("source_file", "first"),
        steps=("run_id", "size"),
        **{k: (k, "first") for k in (*_SAME, *varied)},
    )
    per_run = per_run[per_run["steps"] == 1]  # one point each
    per_run["folder"] = per_run["source"].astype(str).map(os.path.dirname)
    out = []
    for column in varied:
        levels = pd.to_numeric(per_run[column], errors="coerce")
        runs = per_run[levels.notna()]
        keys = ["folder", "tool", *_SAME, *(c for c in varied if c != column)]
        for key, group in alike(runs, keys):
            values = pd.to_numeric(group[column], errors="coerce")
            if values.nunique() < MIN_LEVELS:
                continue
            ids = sorted(group.index.astype(str), key=lambda r: (values[r], natural_key(r)))
            out.append(LoopSweep(tuple(ids), str(key[0]), str(key[1]), column,
                                 tuple(float(values[r]) for r in ids)))  # fmt: skip
    return out


def loop_hint(sweep: LoopSweep) -> str:
    """How to read a loop's single runs as one sweep, in one sentence with the commands."""
    kind, what, unit = VARIED[sweep.varies]
    lo, hi = sweep.levels[0], sweep.levels[-1]
    return (
        f"{sweep.run_ids[0]} .. {sweep.run_ids[-1]}: {len(sweep.run_ids)} single {sweep.tool} "
        f"runs in {sweep.folder or '.'} that differ only in {what} ({lo:,g} .. {hi:,g}{unit}): "
        f"read as one run they are a {kind} with its fitted curve: {_commands(sweep.folder)}"
    )


def loop_hints(sweeps: list[LoopSweep]) -> list[str]:
    """How to read each folder's loops as one run: one sentence per folder and tool.

    Nested loops (``for qd ...; for mix ...``) leave one :class:`LoopSweep` per line and column
    of their grid; they are said once, as the grid they make (a count in flight x read share
    grid is :data:`~anfperf.analysis.findings.KIND_GRID`).
    """
    groups: dict[tuple[str, str], list[LoopSweep]] = {}
    for sweep in sweeps:
        groups.setdefault((sweep.folder, sweep.tool), []).append(sweep)
    out = []
    for (folder, tool), group in groups.items():
        if len(group) == 1:
            out.append(loop_hint(group[0]))
            continue
        ids = sorted({r for s in group for r in s.run_ids}, key=natural_key)
        varies = sorted({s.varies for s in group}, key=list(VARIED).index)
        ranges = []
        for column in varies:
            levels = [v for s in group if s.varies == column for v in s.levels]
            _, what, unit = VARIED[column]
            ranges.append(f"{what} ({min(levels):,g} .. {max(levels):,g}{unit})")
        kind = (
            f"a {KIND_GRID}, one mix curve per count in flight"
            if set(varies) == {"outstanding", "read_pct"}
            else "one run of several sweeps"
        )
        out.append(
            f"{ids[0]} .. {ids[-1]}: {len(ids)} single {tool} runs in {folder or '.'} that "
            f"differ in {' and '.join(ranges)}: read as one run they are {kind}: "
            + _commands(folder)
        )
    return out


def _commands(folder: str) -> str:
    folder = folder or "."
    name = os.path.basename(os.path.abspath(folder)) or "sweep"
    return (
        f"anfperf ingest {folder} --run-id {name} --out store/, then anfperf report benchmark "
        "-p store store/"
    )
