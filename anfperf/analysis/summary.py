"""The headline table: one row per run x job step, all hosts together.

:func:`summary_table` is the one place that decides which tidy rows are a job step's whole-run
numbers and how the hosts of a step are put together. :func:`anfperf.analysis.summary_rows` (what
the models, findings, charts and comparisons read) is this table with every column, so that the
table a report shows and the conclusions drawn from it agree.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from anfperf.errors import AnfperfError

__all__ = [
    "SUMMARY_COLUMNS",
    "STEP_COLUMNS",
    "summary_table",
    "job_labels",
    "aggregate_rows",
    "format_table",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer: not numpy, pandas, ...


#: Columns of :func:`summary_table`, in order.
SUMMARY_COLUMNS = [
    "run_id", "tool", "job", "workload", "step", "loop", "pattern", "bs_kib", "read_pct",
    "outstanding", "host", "hosts", "iops", "bw_mib_s", "lat_mean_ms", "lat_p99_ms",
]  # fmt: skip

#: What tells the job steps of a run apart, whichever files (hosts) their rows came from:
#: Vdbench writes each host's rows to its own report, anfperf's runner each host's fio output
#: to its own folder.
STEP_COLUMNS = ["run_id", "job", "workload", "step", "loop"]

# Identity of one host's instance of a job in one file (everything but the direction).
_INSTANCE_COLUMNS = ["run_id", "tool", "source_file", "host", "job", "workload", "step", "interval"]


def summary_table(frame: pd.DataFrame, *, all_columns: bool = False) -> pd.DataFrame:
    """The headline table: one row per run x job step (job + step), hosts together.

    The rows are the whole-run (``is_summary``), non-warm-up rows of the 'total' direction
    (combined from the directions where a frame made by hand lacks it). Per job step:

    - where the tool wrote a cross-host aggregate (host 'all': Vdbench's flatfile of a
      multi-host run, fio's "All clients"), that row;
    - else, where several hosts ran the step (anfperf's runner: one output per host), their rows
      combined by :func:`anfperf.ingest.combine.combine`: IOPS and MiB/s add, mean latency is
      IOPS-weighted, percentiles come from merged fio json+ histograms (NaN without them);
    - else the one host's row as it is.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`), of one run or many.
    all_columns : bool
        Also return every other column of the tidy frame (source_file, direction, threads,
        latency percentiles and histograms, ...): what :func:`anfperf.analysis.summary_rows`
        gives the models.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS` (then the other tidy columns with `all_columns`), sorted
        by run id, each run's steps in the order of the frame. `outstanding` is the configured
        concurrency over all hosts (outstanding, else threads, else iodepth x numjobs, added up
        over hosts), `host` the client host or 'all' for several, `hosts` the number of client
        hosts (<NA> where only the tool's aggregate was read), `iops` [1/s], `bw_mib_s` [MiB/s],
        `lat_mean_ms` and `lat_p99_ms` [ms]. No rows when the frame has no whole-run rows.

    Raises
    ------
    anfperf.AnfperfError
        `frame` is not a tidy frame.
    """
    from anfperf.schema import COLUMN_NAMES

    columns = SUMMARY_COLUMNS + [c for c in COLUMN_NAMES if c not in SUMMARY_COLUMNS]
    rows = _whole_run_totals(frame)
    if rows.empty:
        out = rows.assign(hosts=pd.Series(dtype="Int64"))
    else:
        out = _hosts_together(frame, rows)
        out = out.sort_values(["run_id", "_position"], kind="stable")
    out["outstanding"] = out.pop("_configured").round().astype("Int64")
    out["hosts"] = out["hosts"].astype("Int64")
    return out[columns if all_columns else SUMMARY_COLUMNS].reset_index(drop=True)


def _whole_run_totals(frame: pd.DataFrame) -> pd.DataFrame:
    """Conformed whole-run, non-warm-up 'total' rows, with `_position` and `_configured`."""
    from anfperf.ingest.combine import combine, group_ids
    from anfperf.schema import COLUMN_NAMES, conform

    if not isinstance(frame, pd.DataFrame):
        raise AnfperfError(f"expected a tidy frame (pandas.DataFrame), got {type(frame).__name__}")
    missing = {"iops", "direction"} - set(frame.columns)
    if missing:
        raise AnfperfError(f"frame lacks the column(s) {sorted(missing)}: is it a tidy frame?")
    keep = np.ones(len(frame), dtype=bool)
    # a frame without the flags (made by hand) is taken as whole-run rows
    if "is_summary" in frame:
        keep &= frame["is_summary"].fillna(False).astype(bool).to_numpy()
    if "is_warmup" in frame:
        keep &= ~frame["is_warmup"].fillna(False).astype(bool).to_numpy()
    rows = conform(frame.loc[keep, [c for c in frame.columns if c in COLUMN_NAMES]])
    rows["_position"] = np.flatnonzero(keep)
    if not rows.empty:
        gid = group_ids(rows, _INSTANCE_COLUMNS)
        is_total = rows["direction"].eq("total").to_numpy(dtype=bool, na_value=False)
        has_total = (np.bincount(gid, weights=is_total) > 0)[gid]
        n_directions = rows.groupby(gid)["direction"].nunique(dropna=False).to_numpy()[gid]
        split = ~has_total & (n_directions > 1)
        # a job's 'total' row, else its only direction as it is
        parts = [rows[is_total | (~has_total & (n_directions == 1))]]
        if split.any():
            # per-direction rows only (a frame not made by anfperf.ingest): add them up here
            dirs = rows[split]
            totals = combine(dirs.drop(columns="_position"), _INSTANCE_COLUMNS, direction="total")
            by_job = dirs.groupby(group_ids(dirs, _INSTANCE_COLUMNS))  # combine's order
            totals["_position"] = by_job["_position"].min().to_numpy()
            parts.append(totals)
        rows = pd.concat(parts, ignore_index=True)
    rows = rows.reset_index(drop=True)
    rows["_configured"] = _configured(rows)
    return rows


def _configured(rows: pd.DataFrame) -> pd.Series:
    """Configured concurrency: outstanding, else threads, else iodepth x numjobs (float)."""

    def floats(name: str) -> pd.Series:
        return rows[name].astype("Float64").astype(float)

    return (
        floats("outstanding")
        .fillna(floats("threads"))
        .fillna(floats("iodepth") * floats("numjobs"))
    )


def _hosts_together(frame: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """One row per job step of `rows`: the tool's aggregate, the hosts combined, or the host."""
    from anfperf.ingest.combine import combine, group_ids

    # fio client/server numbers the "All clients" instance as a step of its own: its file and
    # job tell which host rows it aggregates
    is_all, has_all = aggregate_rows(rows, STEP_COLUMNS, ["source_file", "job"])

    aggregate = rows[has_all & is_all].copy()
    aggregate["hosts"] = _host_counts(frame, aggregate)
    rest = rows[~has_all]
    rest_id = group_ids(rest, STEP_COLUMNS)
    n_hosts = rest.groupby(rest_id)["host"].nunique(dropna=False).to_numpy()[rest_id]
    parts = [aggregate, rest[n_hosts <= 1].assign(hosts=1)]
    several = rest[n_hosts > 1]
    if not several.empty:
        # group_ids numbers the steps in order of appearance, as combine orders its rows
        gid = group_ids(several, STEP_COLUMNS)
        by_step = several.groupby(gid, sort=True)
        combined = combine(several.drop(columns=["_position", "_configured"]), STEP_COLUMNS)
        combined["host"] = "all"
        combined["hosts"] = by_step["host"].nunique(dropna=False).to_numpy()
        # concurrency adds over hosts; unknown on one host is unknown in total (NaN adds NaN)
        combined["_configured"] = np.bincount(gid, weights=several["_configured"].to_numpy())
        combined["_position"] = by_step["_position"].min().to_numpy()
        parts.append(combined)
    return pd.concat(parts, ignore_index=True)


def _host_counts(frame: pd.DataFrame, aggregate: pd.DataFrame) -> pd.Series:
    """Client hosts behind each aggregate row: distinct hosts of its run, job, workload, loop.

    Not per step: fio client/server numbers each host's instance of a job as its own step.
    <NA> where the frame holds only the aggregate (e.g. a Vdbench flatfile without host reports).
    """
    key = [c for c in ("run_id", "job", "workload", "loop") if c in frame.columns]
    if aggregate.empty or "host" not in frame.columns:
        return pd.Series(pd.NA, index=aggregate.index, dtype="Int64")
    hosts = frame.loc[frame["host"].ne("all").fillna(True).to_numpy(bool), [*key, "host"]]
    counts = hosts.drop_duplicates().groupby(key, dropna=False, observed=True).size()
    index = pd.MultiIndex.from_frame(aggregate[key]) if len(key) > 1 else aggregate[key[0]]
    return pd.Series(counts.reindex(index).to_numpy(), index=aggregate.index, dtype="Int64")


def job_labels(rows: pd.DataFrame) -> pd.Series:
    """A name per job step: the job, plus its loop values where the job repeats.

    Vdbench for-loops and fio jobs of the same name run one job several times (``step``);
    'threads threads=8' tells them apart ('job #step' when there are no loop values). The name
    the report's tables and charts show a job step by, and :func:`anfperf.analysis.compare.compare_runs`
    matches two runs' job steps by.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows with run_id, job, step and (optional) loop; missing or empty values are no value.

    Returns
    -------
    pandas.Series
        'RndRead' for a job that ran once; 'threads threads=8' (loop values) or 'job #1'
        (step, when there are no loop values) for each instance of a job that ran several times.
    """
    job = rows["job"].astype(object).where(rows["job"].notna(), "").astype(str)
    step = pd.to_numeric(rows["step"].replace("", pd.NA), errors="coerce").astype("Int64")
    loop = rows["loop"].replace("", pd.NA) if "loop" in rows else pd.Series(pd.NA, rows.index)
    tag = (" #" + step.astype(str)).where(loop.isna(), " " + loop.astype(str))
    repeated = step.groupby([rows["run_id"].astype(str), job]).transform("nunique") > 1
    return job.where(~repeated, job + tag)


def aggregate_rows(rows: pd.DataFrame, *keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Where a tool's aggregate across hosts (host 'all') stands for the hosts' own rows.

    A job step that has an 'all' row is read from it alone: added up again from the hosts'
    rows it would count them twice. The one rule :func:`summary_table` and
    :func:`anfperf.analysis.compare.interval_series` take the hosts of a job step by.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows with host and the columns of `keys`.
    *keys : list of str
        Columns that make a group; an 'all' row stands for its group under any of them
        (default :data:`STEP_COLUMNS`: the job step).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Per row of `rows`: whether it is an 'all' row, and whether its group has one.
    """
    from anfperf.ingest.combine import group_ids

    is_all = rows["host"].eq("all").to_numpy(dtype=bool, na_value=False)
    has_all = np.zeros(len(rows), dtype=bool)
    for key in keys or (STEP_COLUMNS,):
        group = group_ids(rows, key)
        has_all |= (np.bincount(group, weights=is_all, minlength=1) > 0)[group]
    return is_all, has_all


def format_table(table: pd.DataFrame, *, max_rows: int | None = 60) -> str:
    """Plain-text rendering with sensible rounding, for terminals and logs.

    Columns without any value are left out; missing values show as '-'. `max_rows` None shows
    every row, 0 none (an empty string).

    Raises
    ------
    anfperf.AnfperfError
        `max_rows` is not a whole number >= 0 (or None).
    """
    if max_rows is not None and (
        isinstance(max_rows, bool) or not isinstance(max_rows, numbers.Integral) or max_rows < 0
    ):
        raise AnfperfError(f"max_rows must be a whole number >= 0 or None, got {max_rows!r}")
    if max_rows == 0:
        return ""
    shown = table.copy()
    for col, digits in (("iops", 0), ("bw_mib_s", 1), ("lat_mean_ms", 3), ("lat_p99_ms", 3)):
        if col in shown:
            shown[col] = shown[col].round(digits)
    shown = shown.dropna(axis=1, how="all")
    limit = len(shown) if max_rows is None else max_rows
    head = shown.head(limit)
    # string and Int64 columns show <NA> whatever na_rep says: one marker for every missing value
    for col in head.columns:
        if head[col].dtype != "float64":
            head[col] = head[col].astype(object).where(head[col].notna(), "-")
    text = head.to_string(index=False, na_rep="-")
    if len(shown) > limit:
        text += f"\n... {len(shown) - limit} more rows"
    return text
