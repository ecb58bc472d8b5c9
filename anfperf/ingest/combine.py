"""Combine rows of the tidy frame correctly: directions into 'total', hosts or jobs into one.

IOPS and MiB/s add; the mean latency is the IOPS-weighted mean; the standard deviation is the
pooled one; min and max are the extremes; percentiles come from merged latency histograms
(fio json+ ``lat_bins``) and are never averaged: without histograms they are only kept where a
single row carries all the I/O, otherwise they are NaN.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from anfperf.schema import COLUMN_NAMES, KEY_COLUMNS, PERCENTILE_COLUMNS, conform

# Columns summed over distinct (source_file, host, job, step): concurrency adds across hosts and
# jobs but must not be counted once per direction of the same job.
_PER_JOB_SUMS = ["outstanding", "queue_depth"]
_JOB_IDENTITY = ["source_file", "host", "job", "step"]
_MEASURED = {
    "iops", "bw_mib_s", "lat_mean_ms", "lat_min_ms", "lat_max_ms", "lat_std_ms", "cpu_user_pct",
    "cpu_sys_pct", "lat_bins", *PERCENTILE_COLUMNS, *_PER_JOB_SUMS,
}  # fmt: skip


def percentiles_from_bins(
    bins: dict, percentiles: Sequence[float] = tuple(PERCENTILE_COLUMNS.values())
) -> np.ndarray:
    """Latency percentiles [ms] from a histogram ``{'ns': [...], 'count': [...]}``.

    The value of a percentile is the first bin whose cumulative count reaches it, as fio does.
    """
    ns = np.asarray(bins["ns"], dtype=np.float64)
    count = np.asarray(bins["count"], dtype=np.float64)
    total = count.sum()
    if total <= 0:
        return np.full(len(percentiles), np.nan)
    order = np.argsort(ns)
    cum = np.cumsum(count[order])
    idx = np.searchsorted(cum, np.asarray(percentiles) / 100.0 * total, side="left")
    idx = np.minimum(idx, len(cum) - 1)
    return ns[order][idx] / 1e6


def merge_bins(histograms: Sequence[dict]) -> dict:
    """Add latency histograms bin by bin."""
    ns = np.concatenate([np.asarray(h["ns"], dtype=np.int64) for h in histograms])
    count = np.concatenate([np.asarray(h["count"], dtype=np.int64) for h in histograms])
    keys, inverse = np.unique(ns, return_inverse=True)
    return {"ns": keys, "count": np.bincount(inverse, weights=count).astype(np.int64)}


def combine(frame: pd.DataFrame, by: Sequence[str], **assign: object) -> pd.DataFrame:
    """Combine the rows of each group of `by` into one row.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (see :mod:`anfperf.schema`).
    by : sequence of str
        Columns that identify a combined row; every other identifying column keeps its value
        where it is the same across the group and becomes missing where it is not.
    **assign
        Values to set on the combined rows, e.g. ``direction='total'`` or ``host='all'``.

    Returns
    -------
    pandas.DataFrame
        One conformed row per group.
    """
    by = list(by)
    if frame.empty:
        return conform(frame.iloc[0:0])
    df = frame.reset_index(drop=True)
    grouper = df.groupby(by, sort=False, dropna=False, observed=True)
    gid = grouper.ngroup().to_numpy()
    n_groups = int(gid.max()) + 1
    first = df.groupby(gid, sort=True).first()

    out: dict[str, object] = {}
    # Identity and configuration: keep a value only where the group agrees on it.
    for name in COLUMN_NAMES:
        if name in _MEASURED or name not in df.columns:
            continue
        if name in by:
            out[name] = first[name].to_numpy()
            continue
        nunique = df.groupby(gid, sort=True)[name].nunique(dropna=False)
        col = first[name].astype(df[name].dtype)
        out[name] = col.where(nunique.to_numpy() <= 1)

    iops = pd.to_numeric(df.get("iops"), errors="coerce").to_numpy(dtype=float)
    active = iops > 0

    def gsum(values: np.ndarray) -> np.ndarray:
        return np.bincount(gid, weights=np.nan_to_num(values), minlength=n_groups)

    def gany(mask: np.ndarray) -> np.ndarray:
        return np.bincount(gid, weights=mask.astype(float), minlength=n_groups) > 0

    out["iops"] = _sum_or_nan(df, "iops", gid, n_groups)
    out["bw_mib_s"] = _sum_or_nan(df, "bw_mib_s", gid, n_groups)

    weight = gsum(np.where(active, iops, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        if "lat_mean_ms" in df:
            mean = df["lat_mean_ms"].to_numpy(dtype=float)
            unknown = gany(active & np.isnan(mean))
            mu = gsum(np.where(active, iops * mean, 0.0)) / weight
            mu[unknown | (weight <= 0)] = np.nan
            out["lat_mean_ms"] = mu
            if "lat_std_ms" in df:
                std = df["lat_std_ms"].to_numpy(dtype=float)
                unknown_sd = unknown | gany(active & np.isnan(std))
                ex2 = gsum(np.where(active, iops * (std**2 + mean**2), 0.0)) / weight
                sd = np.sqrt(np.maximum(ex2 - mu**2, 0.0))
                sd[unknown_sd | (weight <= 0)] = np.nan
                out["lat_std_ms"] = sd
    for name, how in (("lat_min_ms", "min"), ("lat_max_ms", "max")):
        if name in df:
            vals = df[name].where(active)
            out[name] = vals.groupby(gid, sort=True).agg(how).reindex(range(n_groups)).to_numpy()
    for name in ("cpu_user_pct", "cpu_sys_pct"):
        if name in df:
            out[name] = df[name].groupby(gid, sort=True).mean().reindex(range(n_groups)).to_numpy()
    for name in _PER_JOB_SUMS:
        if name in df:
            ident = [c for c in _JOB_IDENTITY if c in df.columns]
            per_job = df.assign(_g=gid).drop_duplicates(["_g", *ident])
            s = per_job.groupby("_g")[name].sum(min_count=1)
            out[name] = s.reindex(range(n_groups)).to_numpy()

    pct_cols = [c for c in PERCENTILE_COLUMNS if c in df]
    bins_col = df["lat_bins"] if "lat_bins" in df else pd.Series([None] * len(df), dtype=object)
    merged_bins: list[object] = [None] * n_groups
    pct = {c: np.full(n_groups, np.nan) for c in pct_cols}
    # Active rows of every group in one sort (a mask per group is quadratic in the rows), and
    # plain arrays: pandas element access per group dominated read_many of many fio files.
    order = np.flatnonzero(active)
    order = order[np.argsort(gid[order], kind="stable")]
    bounds = np.searchsorted(gid[order], np.arange(n_groups + 1))
    bins_list = bins_col.tolist()
    pct_values = {c: df[c].to_numpy(dtype=float, na_value=np.nan) for c in pct_cols}
    for g in range(n_groups):
        rows = order[bounds[g] : bounds[g + 1]]
        hists = [bins_list[i] for i in rows]
        if len(rows) and all(isinstance(h, dict) for h in hists):
            merged = merge_bins(hists)
            merged_bins[g] = merged
            values = percentiles_from_bins(merged, [PERCENTILE_COLUMNS[c] for c in pct_cols])
            for c, v in zip(pct_cols, values, strict=True):
                pct[c][g] = v
        elif len(rows) == 1:
            for c in pct_cols:
                pct[c][g] = pct_values[c][rows[0]]
    out.update(pct)
    out["lat_bins"] = merged_bins

    result = pd.DataFrame({k: v for k, v in out.items()}, index=pd.RangeIndex(n_groups))
    for key, value in assign.items():
        result[key] = value
    return conform(result)


def _sum_or_nan(df: pd.DataFrame, name: str, gid: np.ndarray, n_groups: int) -> np.ndarray:
    """Group sum that is NaN when any member is unknown (never a silent partial sum)."""
    if name not in df:
        return np.full(n_groups, np.nan)
    vals = df[name].to_numpy(dtype=float)
    total = np.bincount(gid, weights=np.nan_to_num(vals), minlength=n_groups)
    unknown = np.bincount(gid, weights=np.isnan(vals).astype(float), minlength=n_groups) > 0
    total[unknown] = np.nan
    return total


def add_totals(frame: pd.DataFrame) -> pd.DataFrame:
    """Append a 'total' row for every job x interval that has per-direction rows only.

    Rows are grouped by every identifying column but `direction`; groups that already have a
    'total' row are left alone.
    """
    if frame.empty:
        return frame
    by = [c for c in KEY_COLUMNS if c != "direction" and c in frame.columns]
    have_total = frame["direction"] == "total"
    dirs = frame[~have_total]
    if have_total.any():
        done = frame.loc[have_total, by].drop_duplicates()
        marker = dirs[by].merge(done.assign(_done=True), on=by, how="left")["_done"]
        dirs = dirs[~marker.fillna(False).to_numpy(dtype=bool)]
    if dirs.empty:
        return frame
    totals = combine(dirs, by, direction="total")
    return pd.concat([conform(frame), totals], ignore_index=True)
