"""Compact views of the tidy frame for people: one line per run x job."""

from __future__ import annotations

import pandas as pd

SUMMARY_COLUMNS = [
    "run_id", "tool", "host", "job", "step", "loop", "pattern", "bs_kib", "read_pct", "outstanding",
    "hosts", "iops", "bw_mib_s", "lat_mean_ms", "lat_p99_ms",
]  # fmt: skip


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The headline table: one row per run x job step, all hosts together.

    The rows are :func:`anfperf.models.summary_rows` (what the models and
    :func:`anfperf.findings.key_numbers` use, so the table and the conclusions agree): whole-run,
    non-warm-up, 'total' rows; a run's cross-host aggregate (host 'all') where it has one, else
    its hosts added up (rates add, mean latency IOPS-weighted; percentiles cannot be added up
    without histograms and are left empty).

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS`: `host` is the client host, or 'all' for several;
        `outstanding` is the configured concurrency over all
        hosts, `hosts` the client hosts that ran the step; IOPS [1/s], MiB/s, latencies [ms].
    """
    from anfperf.models._common import summary_rows

    rows = summary_rows(frame)
    hosts = frame[frame["host"].astype(str) != "all"]
    # per run and job, not step: fio client/server numbers each server's instance as a step
    counts = hosts.groupby([hosts["run_id"].astype(str), hosts["job"].astype(str)])[
        "host"
    ].nunique()
    key = zip(rows["run_id"].astype(str), rows["job"].astype(str), strict=True)
    out = rows.rename(columns={"outstanding": "_outstanding", "configured": "outstanding"})
    out["hosts"] = [int(counts.get(k, 1)) for k in key]
    out["outstanding"] = pd.to_numeric(out["outstanding"], errors="coerce").astype("Int64")
    for col in ("job", "loop", "run_id"):
        out[col] = out[col].replace("", pd.NA)
    return out.sort_values("run_id", kind="stable")[SUMMARY_COLUMNS].reset_index(drop=True)


def job_labels(rows: pd.DataFrame) -> pd.Series:
    """A name per job step: the job, plus its loop values where the job repeats.

    Vdbench for-loops and fio jobs of the same name run one job several times (``step``);
    'threads threads=8' tells them apart ('job #step' when there are no loop values).
    """
    job = rows["job"].astype(str)
    tag = " #" + rows["step"].astype("Int64").astype(str)
    if "loop" in rows:
        tag = tag.where(rows["loop"].isna(), " " + rows["loop"].astype(str))
    repeated = rows.groupby(["run_id", "job"])["step"].transform("nunique") > 1
    return job.where(~repeated, job + tag)


def format_table(table: pd.DataFrame, *, max_rows: int = 60) -> str:
    """Plain-text rendering with sensible rounding, for terminals and logs."""
    shown = table.copy()
    for col, digits in (("iops", 0), ("bw_mib_s", 1), ("lat_mean_ms", 3), ("lat_p99_ms", 3)):
        if col in shown:
            shown[col] = shown[col].round(digits)
    shown = shown.dropna(axis=1, how="all")
    text = shown.head(max_rows).to_string(index=False, na_rep="-")
    if len(shown) > max_rows:
        text += f"\n... {len(shown) - max_rows} more rows"
    return text
