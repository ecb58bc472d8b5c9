"""Combine rows of the tidy frame correctly: directions into 'total', hosts or jobs into one.

IOPS and MiB/s add; the mean latency is the IOPS-weighted mean; the standard deviation is the
pooled one; min and max are the extremes; percentiles come from merged latency histograms
(fio json+ ``lat_bins``) and are never averaged: without histograms they are only kept where a
single row carries all the I/O, otherwise they are NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from anfperf.schema import COLUMN_NAMES, KEY_COLUMNS, PERCENTILE_COLUMNS, conform
from anfperf.units import NS_PER_MS

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
    return ns[order][idx] / NS_PER_MS


#: Counts up to this stay exact in float64, and so do their sums.
_EXACT_FLOAT_INT = 2**53


def percentiles_by_histogram(
    histograms: Sequence[dict], percentiles: Sequence[float] = tuple(PERCENTILE_COLUMNS.values())
) -> np.ndarray:
    """:func:`percentiles_from_bins` of many histograms in one vectorised pass.

    Parameters
    ----------
    histograms : sequence of dict
        Histograms ``{'ns': [...], 'count': [...]}``.
    percentiles : sequence of float
        Percentiles [%] wanted.

    Returns
    -------
    numpy.ndarray
        One row per histogram, one column per percentile [ms]: exactly what
        :func:`percentiles_from_bins` gives for each.
    """
    wanted = np.asarray(percentiles) / 100.0
    if not histograms:
        return np.empty((0, len(wanted)))
    ns = np.concatenate([np.asarray(h["ns"], dtype=np.int64) for h in histograms])
    count = np.concatenate([np.asarray(h["count"], dtype=np.int64) for h in histograms])
    sizes = np.fromiter((len(h["ns"]) for h in histograms), np.int64, len(histograms))
    starts = np.cumsum(sizes) - sizes
    new_group = np.zeros(len(ns), dtype=bool)
    new_group[starts[sizes > 0]] = True
    # The shortcut reproduces percentiles_from_bins bit for bit only where its float sums are
    # exact (integer counts below 2**53 in all) and its sort is the identity (increasing bins,
    # as merged histograms have); anything else goes histogram by histogram.
    if (
        len(ns) != len(count)
        or not (sizes > 0).all()
        or count.min() < 0
        or count.sum() >= _EXACT_FLOAT_INT
        or not ((np.diff(ns) > 0) | new_group[1:]).all()
    ):
        return np.array([percentiles_from_bins(h, percentiles) for h in histograms])
    cum = np.cumsum(count)  # over all histograms, in integers
    before = cum[starts] - count[starts]  # each histogram's cumulative count starts after this
    totals = (cum[starts + sizes - 1] - before).astype(np.float64)
    targets = wanted[None, :] * totals[:, None]  # the same product as percentiles_from_bins
    # searchsorted(side='left') within each histogram: how many of its cumulative counts fall
    # short of the target. Counts are whole, so short of the target is short of its ceiling,
    # which one search of the shared cumulative count finds for all histograms.
    reach = np.ceil(targets).astype(np.int64) + before[:, None]
    below = np.searchsorted(cum, reach.ravel(), side="left").reshape(reach.shape)
    idx = np.clip(below - starts[:, None], 0, sizes[:, None] - 1)
    out = ns.astype(np.float64)[starts[:, None] + idx] / NS_PER_MS
    out[totals <= 0] = np.nan
    return out


def merge_bins(histograms: Sequence[dict]) -> dict:
    """Add latency histograms bin by bin (in integers: counts stay exact at any size)."""
    ns = np.concatenate([np.asarray(h["ns"], dtype=np.int64) for h in histograms])
    count = np.concatenate([np.asarray(h["count"], dtype=np.int64) for h in histograms])
    if not len(ns):
        return {"ns": ns, "count": count}
    order = np.argsort(ns, kind="stable")
    ns, count = ns[order], count[order]
    starts = np.flatnonzero(np.concatenate(([True], ns[1:] != ns[:-1])))
    return {"ns": ns[starts], "count": np.add.reduceat(count, starts)}


_NS_BITS = 36  # bin values below 2**36 ns (19 hours) share an int64 key with their group


def merge_bins_by_group(groups: Sequence[Sequence[dict]]) -> list[dict]:
    """:func:`merge_bins` of each group of histograms, many groups in one vectorised pass."""
    # Passes of some thousand bins: arrays of a megabyte each would be fresh memory from the
    # system at each step, and their page faults cost more than the merge.
    out: list[dict] = []
    start, n_bins = 0, 0
    for end, group in enumerate(groups):
        if n_bins > _BINS_PER_PASS:
            out.extend(_merge_groups(groups[start:end]))
            start, n_bins = end, 0
        n_bins += sum(len(h["ns"]) for h in group)
    out.extend(_merge_groups(groups[start:]))
    return out


_BINS_PER_PASS = 8192


def _merge_groups(groups: Sequence[Sequence[dict]]) -> list[dict]:
    if not groups:
        return []
    hists = [h for group in groups for h in group]
    ns = np.concatenate([np.asarray(h["ns"], dtype=np.int64) for h in hists])
    count = np.concatenate([np.asarray(h["count"], dtype=np.int64) for h in hists])
    sizes = np.fromiter((len(h["ns"]) for h in hists), dtype=np.int64, count=len(hists))
    per_group = np.add.reduceat(sizes, np.cumsum([0] + [len(g) for g in groups[:-1]]))
    gid = np.repeat(np.arange(len(groups), dtype=np.int64), per_group)
    if len(ns) and 0 <= ns.min() and ns.max() < 1 << _NS_BITS and len(groups) < 1 << 26:
        # one int64 key (group, bin): one stable sort instead of lexsort's sort per key
        order = np.argsort((gid << _NS_BITS) | ns, kind="stable")
    else:
        order = np.lexsort((ns, gid))  # by group, then bin
    ns, gid, count = ns[order], gid[order], count[order]
    new = np.ones(len(ns), dtype=bool)
    new[1:] = (ns[1:] != ns[:-1]) | (gid[1:] != gid[:-1])
    starts = np.flatnonzero(new)
    keys, key_gid = ns[starts], gid[starts]
    sums = np.add.reduceat(count, starts)
    bounds = np.searchsorted(key_gid, np.arange(len(groups) + 1))
    return [
        {"ns": keys[a:b], "count": sums[a:b]} for a, b in zip(bounds[:-1], bounds[1:], strict=True)
    ]


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
        One conformed row per group, in the order the groups first appear.
    """
    by = list(by)
    if frame.empty:
        return conform(frame.iloc[0:0])
    df = frame.reset_index(drop=True)
    groups = Groups(group_ids(df, by))
    out: dict[str, object] = {}
    # Identity and configuration: keep a value only where the group agrees on it.
    for name in COLUMN_NAMES:
        if name in _MEASURED or name not in df.columns:
            continue
        first = df[name].take(groups.first_row).reset_index(drop=True)
        if name not in by:
            codes, _ = pd.factorize(df[name], use_na_sentinel=False)
            first = first.where(groups.uniform(codes))
        out[name] = first

    ident = [c for c in _JOB_IDENTITY if c in df.columns]
    first_of_job = ~pd.DataFrame({"g": groups.gid, **{c: df[c] for c in ident}}).duplicated()
    bins = df["lat_bins"].tolist() if "lat_bins" in df else [None] * len(df)
    out.update(
        combine_measures(lambda name: _floats(df, name), bins, groups, first_of_job.to_numpy())
    )

    result = pd.DataFrame(out, index=pd.RangeIndex(groups.n))
    for key, value in assign.items():
        result[key] = value
    return conform(result)


def combine_measures(
    values: Callable[[str], np.ndarray],
    bins: list,
    groups: Groups,
    first_of_job: np.ndarray,
) -> dict[str, object]:
    """The measured columns of combined rows, by the rules in this module's docstring.

    Parameters
    ----------
    values : callable
        ``values(column)``: the rows' float values of a measured column (NaN where missing).
    bins : list
        The rows' latency histograms (None where missing).
    groups : Groups
        The group of every row.
    first_of_job : numpy.ndarray
        bool per row: the first row of its job (source file, host, job, step) in its group;
        concurrency (`outstanding`, `queue_depth`) is counted once per job.

    Returns
    -------
    dict
        Column -> one value per group (arrays; `lat_bins` a list).
    """
    out: dict[str, object] = {}
    iops = values("iops")
    mean = values("lat_mean_ms")
    std = values("lat_std_ms")
    # A row whose IOPS is unknown (a figure that was not a finite number: NaN, with a reading
    # note) but whose latency was measured did I/O: alone in its group, its latency is the
    # group's whatever its weight; beside other rows that did I/O it cannot be weighed.
    active = (iops > 0) | (np.isnan(iops) & ~np.isnan(mean))
    unweighed = active & ~(iops > 0)
    out["iops"] = groups.sum_or_nan(iops)
    out["bw_mib_s"] = groups.sum_or_nan(values("bw_mib_s"))
    w = np.where(iops > 0, iops, np.where(unweighed, 1.0, 0.0))
    weight = groups.sum(w)
    with np.errstate(invalid="ignore", divide="ignore"):
        cannot_weigh = groups.any(unweighed) & (groups.sum(active.astype(float)) > 1)
        unknown = groups.any(active & np.isnan(mean)) | (weight <= 0) | cannot_weigh
        mu = groups.sum(np.where(active, w * mean, 0.0)) / weight
        ex2 = groups.sum(np.where(active, w * (std**2 + mean**2), 0.0)) / weight
    out["lat_mean_ms"] = np.where(unknown, np.nan, mu)
    unknown_sd = unknown | groups.any(active & np.isnan(std))
    out["lat_std_ms"] = np.where(unknown_sd, np.nan, np.sqrt(np.maximum(ex2 - mu**2, 0.0)))
    # Extremes over the rows that did I/O (a direction without I/O has no latency).
    out["lat_min_ms"] = groups.reduce(np.fmin, np.where(active, values("lat_min_ms"), np.nan))
    out["lat_max_ms"] = groups.reduce(np.fmax, np.where(active, values("lat_max_ms"), np.nan))
    for name in ("cpu_user_pct", "cpu_sys_pct"):
        out[name] = groups.nanmean(values(name))
    for name in _PER_JOB_SUMS:
        out[name] = groups.sum_or_nan(values(name), where=first_of_job, skipna=True)
    out.update(_combined_percentiles(values, bins, groups, active))
    return out


def _combined_percentiles(
    values: Callable[[str], np.ndarray], bins: list, groups: Groups, active: np.ndarray
) -> dict:
    """Percentile columns and `lat_bins` of the combined rows.

    From merged histograms where every row that did I/O has one; else copied from the one row
    that did all the I/O; else NaN.
    """
    n_active = groups.sum(active.astype(float))
    pct_cols = list(PERCENTILE_COLUMNS)
    pct = {c: np.full(groups.n, np.nan) for c in pct_cols}
    single = n_active == 1
    for c in pct_cols:
        one = groups.reduce(np.fmax, np.where(active, values(c), np.nan))
        pct[c][single] = one[single]
    merged_bins: list[object] = [None] * groups.n
    has_bins = np.fromiter((isinstance(b, dict) for b in bins), bool, len(bins))
    complete = groups.all(has_bins | ~active) & (n_active > 0)
    if complete.any():
        # (as lists: numpy's scalars cost more than all else here)
        order, bounds, is_active = groups.order.tolist(), groups.bounds.tolist(), active.tolist()
        wanted = [PERCENTILE_COLUMNS[c] for c in pct_cols]
        to_merge: dict[int, list[dict]] = {}
        for g in np.flatnonzero(complete).tolist():
            rows = [i for i in order[bounds[g] : bounds[g + 1]] if is_active[i]]
            if len(rows) == 1:  # nothing to merge: its own histogram and percentiles
                merged_bins[g] = bins[rows[0]]
            else:
                to_merge[g] = [bins[i] for i in rows]
        # every group's histograms merged in one pass: thousands of small fio files make
        # thousands of groups, and a merge each cost more than all the rest of combine
        merged = merge_bins_by_group(list(to_merge.values()))
        for g, hist in zip(to_merge, merged, strict=True):
            merged_bins[g] = hist
        # and their percentiles in one pass too, not one call per group
        where = np.fromiter(to_merge, dtype=np.int64, count=len(to_merge))
        values = percentiles_by_histogram(merged, wanted)
        for j, c in enumerate(pct_cols):
            pct[c][where] = values[:, j]
    return {**pct, "lat_bins": merged_bins}


def group_ids(frame: pd.DataFrame, by: Sequence[str]) -> np.ndarray:
    """Group number of every row for the key columns `by`, numbered in order of appearance.

    Missing values form a group of their own. The same as ``groupby(by, sort=False,
    dropna=False).ngroup()``, without pandas' groupby machinery (the cost that counts when
    thousands of small fio files are read).
    """
    key = np.zeros(len(frame), dtype=np.int64)
    for name in by:
        codes, uniques = pd.factorize(frame[name], use_na_sentinel=False)
        # key x (cardinality) + code stays small: the key is re-numbered after each column
        key = key * (len(uniques) + 1) + codes
        _, key = np.unique(key, return_inverse=True)
    if not by:
        return key
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.reshape(-1)]


def _floats(df: pd.DataFrame, name: str) -> np.ndarray:
    if name not in df:
        return np.full(len(df), np.nan)
    return df[name].to_numpy(dtype=float, na_value=np.nan)


class Groups:
    """Group-wise reductions over numpy arrays, given each row's group number."""

    def __init__(self, gid: np.ndarray):
        self.gid = gid
        self.n = int(gid.max()) + 1
        self.order = np.argsort(gid, kind="stable")
        self.bounds = np.searchsorted(gid[self.order], np.arange(self.n + 1))
        self.first_row = self.order[self.bounds[:-1]]

    def sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.gid, weights=values, minlength=self.n)

    def any(self, mask: np.ndarray) -> np.ndarray:
        return self.sum(mask.astype(float)) > 0

    def all(self, mask: np.ndarray) -> np.ndarray:
        return ~self.any(~mask)

    def sum_or_nan(
        self, values: np.ndarray, *, where: np.ndarray | None = None, skipna: bool = False
    ) -> np.ndarray:
        """Group sums; NaN where a member is unknown (never a silent partial sum), or where
        all are unknown with `skipna`."""
        use = np.ones(len(values), bool) if where is None else where
        nan = np.isnan(values) & use
        total = self.sum(np.where(use & ~nan, values, 0.0))
        if skipna:
            return np.where(self.all(nan | ~use), np.nan, total)
        return np.where(self.any(nan), np.nan, total)

    def nanmean(self, values: np.ndarray) -> np.ndarray:
        known = ~np.isnan(values)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.sum(np.where(known, values, 0.0)) / self.sum(known.astype(float))

    def reduce(self, ufunc: np.ufunc, values: np.ndarray) -> np.ndarray:
        return ufunc.reduceat(values[self.order], self.bounds[:-1])

    def uniform(self, codes: np.ndarray) -> np.ndarray:
        """True where every member of the group has the same code."""
        return self.reduce(np.minimum, codes) == self.reduce(np.maximum, codes)


def add_totals(frame: pd.DataFrame) -> pd.DataFrame:
    """Append a 'total' row for every job x interval that has per-direction rows only.

    Rows are grouped by every identifying column but `direction`; groups that already have a
    'total' row are left alone.
    """
    if frame.empty:
        return frame
    by = [c for c in KEY_COLUMNS if c != "direction" and c in frame.columns]
    gid = group_ids(frame, by)
    is_total = (frame["direction"] == "total").to_numpy(dtype=bool, na_value=False)
    has_total = np.bincount(gid, weights=is_total, minlength=int(gid.max()) + 1) > 0
    dirs = frame[~has_total[gid]]
    if dirs.empty:
        return frame
    totals = combine(dirs, by, direction="total")
    return pd.concat([conform(frame), totals], ignore_index=True)
