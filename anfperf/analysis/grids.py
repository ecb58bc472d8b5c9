"""A grid of counts in flight x read shares, read one read share at a time.

A run that measured every read share at several counts in flight
(:data:`~anfperf.analysis.findings.KIND_GRID`: fio ``--iodepth`` x ``--rwmixread`` loops,
Vdbench ``forthreads`` x ``forrdpct``) holds one concurrency sweep per read share. What an
engineer asks of it is per mix: how far it goes, at how many in flight, and what it gives
within the latency objective. :func:`grid_numbers` answers with
:func:`~anfperf.analysis.findings.key_numbers` of each read share's sweep, read as any
concurrency sweep is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anfperf.analysis import findings
from anfperf.analysis.sweep import alike
from anfperf.models.limits.scenario import QuotaScenario

__all__ = ["GRID_COLUMNS", "grid_numbers"]

#: Columns of :func:`grid_numbers`: the read share, the block size and pattern that set the
#: sweep apart, the count in flight at the peak, and those of findings' key numbers.
GRID_COLUMNS = [
    "read_pct", "bs_kib", "pattern", "points", "peak_iops", "peak_bw_mib_s",
    "outstanding_at_peak", "lat_at_peak_ms", "knee_iops", "knee_lat_ms", "lat_slo_ms",
    "iops_at_slo_measured", "iops_at_slo_model", "iops_at_slo_low", "iops_at_slo_high", "notes",
]  # fmt: skip


def grid_numbers(
    rows: pd.DataFrame, *, lat_slo_ms: float = 1.0, scenario: QuotaScenario | None = None
) -> pd.DataFrame:
    """Each read share of a grid as a concurrency sweep: its peak, knee and IOPS at the SLO.

    Parameters
    ----------
    rows : pandas.DataFrame
        Whole-run rows of one run (:func:`anfperf.analysis.summary_rows`).
    lat_slo_ms : float
        Latency objective [ms] (mean response time).
    scenario : QuotaScenario, optional
        The volume and clients measured, as :func:`~anfperf.analysis.findings.key_numbers`
        takes it.

    Returns
    -------
    pandas.DataFrame
        One row per read share (and block size and pattern) measured at
        :data:`~anfperf.analysis.findings.MIN_SWEEP_POINTS` or more counts in flight, by
        read share; columns :data:`GRID_COLUMNS`. Empty when there is none.
    """
    out = []
    for _, sweep in alike(rows, [c for c in ("bs_kib", "pattern", "read_pct") if c in rows]):
        counts = pd.to_numeric(sweep["configured"], errors="coerce")
        if counts.nunique() < findings.MIN_SWEEP_POINTS:
            continue
        kinds = pd.DataFrame({"run_id": [sweep["run_id"].iloc[0]],
                              "kind": [findings.KIND_CONCURRENCY], "cached": [False],
                              "cache_reason": [""]})  # fmt: skip
        numbers = findings.key_numbers(
            sweep, lat_slo_ms=lat_slo_ms, rows=sweep, kinds=kinds, scenario=scenario
        ).iloc[0]
        iops = pd.to_numeric(sweep["iops"], errors="coerce").to_numpy(float)
        at_peak = counts.to_numpy(float)[int(np.nanargmax(iops))] if np.isfinite(iops).any() \
            else np.nan  # fmt: skip
        out.append({
            **{c: numbers[c] for c in GRID_COLUMNS if c in numbers.index},
            "read_pct": float(sweep["read_pct"].iloc[0]),
            "bs_kib": float(sweep["bs_kib"].iloc[0]) if "bs_kib" in sweep else np.nan,
            "pattern": str(sweep["pattern"].iloc[0]) if "pattern" in sweep else "",
            "outstanding_at_peak": at_peak,
        })  # fmt: skip
    table = pd.DataFrame(out, columns=GRID_COLUMNS)
    return table.sort_values(["read_pct", "bs_kib"], kind="stable").reset_index(drop=True)
