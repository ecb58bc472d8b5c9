"""Run A against run B: per workload and metric, the difference with a confidence interval.

Benchmarks are compared on their per-interval rows (warm-up excluded), not on one whole-run
number each: the spread of the intervals says whether a difference is larger than the noise.
Consecutive intervals are correlated (a slow second tends to follow a slow second), so a t-test
on the intervals themselves would claim too much; the intervals are grouped into contiguous
batches and the test runs on the batch means (the method of batch means, Law & Kelton,
*Simulation Modeling and Analysis*, ch. 9), with Welch's correction for unequal variances.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from anfperf.errors import AnfperfError
from anfperf.summary import job_labels

#: Metric -> (label with unit, True when higher is better).
METRICS = {
    "iops": ("IOPS", True),
    "bw_mib_s": ("MiB/s", True),
    "lat_mean_ms": ("mean latency [ms]", False),
    "lat_p99_ms": ("p99 latency [ms]", False),
}
VERDICTS = ("better", "worse", "no significant difference", "insufficient data")
#: Batches the intervals of one run are grouped into (fewer when there are few intervals).
DEFAULT_BATCHES = 10
#: A batch holds at least this many intervals.
MIN_BATCH_INTERVALS = 2
COLUMNS = [
    "workload", "metric", "a_mean", "b_mean", "diff", "diff_pct", "ci_low_pct", "ci_high_pct",
    "intervals_a", "intervals_b", "batches", "verdict",
]  # fmt: skip


def pick_runs(
    frame: pd.DataFrame, run_a: str | None = None, run_b: str | None = None
) -> tuple[str, str]:
    """The two runs to compare: those given, else the first two runs by start time.

    Raises
    ------
    anfperf.AnfperfError
        A run id not in the frame, fewer than two runs, or A and B the same.
    """
    order = frame.groupby("run_id", observed=True)["timestamp"].min().sort_values(kind="stable")
    runs = [str(r) for r in order.index]
    for given in (run_a, run_b):
        if given is not None and given not in runs:
            raise AnfperfError(f"run {given!r} is not in the data; it holds {runs}")
    rest = [r for r in runs if r not in (run_a, run_b)]
    run_a = run_a if run_a is not None else (rest.pop(0) if rest else None)
    run_b = run_b if run_b is not None else (rest.pop(0) if rest else None)
    if run_a is None or run_b is None:
        raise AnfperfError(f"two runs are needed to compare; the data hold {runs}")
    if run_a == run_b:
        raise AnfperfError(f"run A and run B are the same run ({run_a!r})")
    return run_a, run_b


def interval_series(frame: pd.DataFrame, run_id: str, metrics: Sequence[str]) -> pd.DataFrame:
    """Measured (non-warm-up) intervals of one run, all hosts together, per job step.

    The cross-host aggregate (host 'all') where the run has one; else the hosts added up per
    interval (rates add, latencies weighted by IOPS).

    Returns
    -------
    pandas.DataFrame
        workload (job, and its loop values where the job repeats), interval, and `metrics`.
    """
    rows = frame[
        (frame["run_id"] == run_id)
        & frame["interval"].notna()
        & (frame["direction"] == "total")
        & ~frame["is_warmup"].astype(bool)
    ].copy()
    if rows.empty:
        return pd.DataFrame(columns=["workload", "interval", *metrics])
    rows["workload"] = job_labels(rows)
    host = rows["host"].astype(str)
    has_all = (host == "all").groupby(rows["workload"]).transform("any")
    rows = rows[~has_all | (host == "all")]
    weight = pd.to_numeric(rows["iops"], errors="coerce")
    out = {}
    grouped = rows.groupby(["workload", "interval"], sort=True)
    for m in metrics:
        value = pd.to_numeric(rows[m], errors="coerce")
        if METRICS[m][1]:  # rates add over hosts
            out[m] = value.groupby([rows["workload"], rows["interval"]]).sum(min_count=1)
        else:  # a latency over hosts: weighted by each host's I/O count
            num = (value * weight).groupby([rows["workload"], rows["interval"]]).sum(min_count=1)
            out[m] = num / grouped["iops"].sum()
    return pd.DataFrame(out).reset_index()


def _batch_means(values: np.ndarray, batches: int) -> np.ndarray:
    k = min(batches, values.size // MIN_BATCH_INTERVALS)
    if k < 2:
        return np.array([])
    return np.array([b.mean() for b in np.array_split(values, k)])


def compare_runs(
    frame: pd.DataFrame,
    run_a: str,
    run_b: str,
    *,
    metrics: Sequence[str] = ("iops", "bw_mib_s", "lat_mean_ms"),
    confidence: float = 0.95,
    batches: int = DEFAULT_BATCHES,
) -> pd.DataFrame:
    """Per workload the two runs share, and per metric: B - A with a confidence interval.

    Workloads are matched by job name (with the loop values of Vdbench for-loops, e.g.
    'threads threads=8'); those only one run has are left out.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame holding both runs, with per-interval rows.
    run_a, run_b : str
        Baseline and candidate run ids.
    metrics : sequence of str
        Keys of :data:`METRICS`.
    confidence : float
        Confidence level of the interval, 0 < confidence < 1.
    batches : int
        Batches per run for the batch-means interval.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`: the means of A and B over their measured intervals, the
        difference B - A (metric unit) and in % of A with its interval, the interval counts,
        the batches used (of the run with fewer), and the verdict for B: 'better', 'worse' (the
        interval excludes 0; higher is better for rates, lower for latencies), 'no significant
        difference', or 'insufficient data' (fewer than 4 measured intervals in a run).

    Raises
    ------
    anfperf.AnfperfError
        Unknown metric, run, a bad confidence, or no workload both runs ran with intervals.
    """
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise AnfperfError(f"unknown metric(s) {unknown}; choose from {sorted(METRICS)}")
    if not 0 < confidence < 1:
        raise AnfperfError(f"confidence must be between 0 and 1, got {confidence!r}")
    pick_runs(frame, run_a, run_b)  # both present and distinct
    a = interval_series(frame, run_a, metrics)
    b = interval_series(frame, run_b, metrics)
    shared = sorted(set(a["workload"]) & set(b["workload"]))
    if not shared:
        raise AnfperfError(
            f"runs {run_a!r} and {run_b!r} share no workload with per-interval rows "
            f"(A: {sorted(set(a['workload']))}, B: {sorted(set(b['workload']))})"
        )
    out = []
    for workload in shared:
        for m in metrics:
            xa = a.loc[a["workload"] == workload, m].dropna().to_numpy(float)
            xb = b.loc[b["workload"] == workload, m].dropna().to_numpy(float)
            out.append({"workload": workload, "metric": m,
                        **_difference(xa, xb, m, confidence, batches)})  # fmt: skip
    return pd.DataFrame(out, columns=COLUMNS)


def _difference(xa: np.ndarray, xb: np.ndarray, metric: str, confidence: float, k: int) -> dict:
    mean_a = float(xa.mean()) if xa.size else math.nan
    mean_b = float(xb.mean()) if xb.size else math.nan
    diff = mean_b - mean_a
    row = {
        "a_mean": mean_a, "b_mean": mean_b, "diff": diff,
        "diff_pct": 100.0 * diff / mean_a if mean_a else math.nan,
        "ci_low_pct": math.nan, "ci_high_pct": math.nan,
        "intervals_a": int(xa.size), "intervals_b": int(xb.size), "batches": 0,
        "verdict": "insufficient data",
    }  # fmt: skip
    ba, bb = _batch_means(xa, k), _batch_means(xb, k)
    if ba.size < 2 or bb.size < 2 or not mean_a:
        return row
    va, vb = ba.var(ddof=1) / ba.size, bb.var(ddof=1) / bb.size
    se = math.sqrt(va + vb)
    if se > 0:
        dof = (va + vb) ** 2 / (va**2 / (ba.size - 1) + vb**2 / (bb.size - 1))
        half = float(stats.t.ppf(0.5 + confidence / 2, dof)) * se
    else:  # identical constant series: no spread, no doubt
        half = 0.0
    low, high = 100.0 * (diff - half) / mean_a, 100.0 * (diff + half) / mean_a
    higher_is_better = METRICS[metric][1]
    if low > 0 or high < 0:
        verdict = "better" if (low > 0) == higher_is_better else "worse"
    else:
        verdict = "no significant difference"
    row.update(ci_low_pct=low, ci_high_pct=high, batches=int(min(ba.size, bb.size)),
               verdict=verdict)  # fmt: skip
    return row


def sentences(table: pd.DataFrame, run_a: str = "A", run_b: str = "B") -> list[str]:
    """The comparison in words, one sentence per workload, from :func:`compare_runs`."""
    if table.empty:
        raise AnfperfError("nothing compared")
    out = []
    for workload, rows in table.groupby("workload", sort=False):
        parts = []
        for r in rows.itertuples(index=False):
            label = METRICS[r.metric][0]
            if r.verdict == "insufficient data":
                parts.append(f"{label}: too few intervals to tell")
                continue
            parts.append(
                f"{label} {r.diff_pct:+.1f} % ({r.ci_low_pct:+.1f} .. {r.ci_high_pct:+.1f} %): "
                f"{r.verdict}"
            )
        out.append(f"{workload}, {run_b} vs {run_a}: " + "; ".join(parts) + ".")
    return out
