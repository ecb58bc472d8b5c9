"""Compact views of the tidy frame for people: one line per run x job."""

from __future__ import annotations

import pandas as pd

SUMMARY_COLUMNS = [
    "run_id", "tool", "host", "job", "step", "loop", "pattern", "bs_kib", "read_pct",
    "outstanding", "iops", "bw_mib_s", "lat_mean_ms", "lat_p99_ms",
]  # fmt: skip


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Whole-run 'total' rows, one per run x host x job, with the headline numbers.

    Where a run has a cross-host aggregate (host 'all'), only the aggregate is shown.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS`; IOPS [1/s], MiB/s, latencies [ms].
    """
    rows = frame[frame["is_summary"] & (frame["direction"] == "total")]
    is_all = rows["host"] == "all"
    has_all = is_all.groupby(rows["run_id"]).transform("any")
    rows = rows[~has_all | is_all]
    return rows[SUMMARY_COLUMNS].reset_index(drop=True)


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
