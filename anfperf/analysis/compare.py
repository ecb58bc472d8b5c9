"""Run A against run B: per workload and metric, the difference with a confidence interval.

Benchmarks are compared on their per-interval rows (warm-up excluded), not on one whole-run
number each: the spread of the intervals says whether a difference is larger than the noise.
Consecutive intervals are correlated (a slow second tends to follow a slow second), so a t-test
on the intervals themselves would claim too much. The intervals of each run are grouped into
contiguous batches and the test runs on the batch means (the method of batch means, Law &
Kelton, *Simulation Modeling and Analysis*, ch. 9), with Welch's correction for unequal
variances and unequal batch counts.

How rows become one series per run and workload:

- Rows: 'total' direction, measured intervals (``interval`` set, ``is_warmup`` False).
- Hosts: the cross-host aggregate (host 'all') where the run has one for the job; else the
  hosts' rows of each interval combined by :func:`anfperf.ingest.combine.combine` (rates add,
  mean latency IOPS-weighted, percentiles only from merged histograms). An interval that not
  every host reported is left out: a partial sum would look like a drop in throughput.
- Workloads are matched by job name (Vdbench ``rd=``, fio job, DiskSpd target); where a job
  ran several times in one run (Vdbench for-loops, fio jobs of the same name) its loop values,
  else its step number, are part of the name and must match too ('threads threads=8').
- Where a workload lacks intervals in either run, both runs' whole-run values
  (:func:`anfperf.analysis.summary_rows`) are compared instead, like with like: the difference is
  shown, without an interval and with the verdict 'insufficient data'.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from anfperf.analysis.summary import STEP_COLUMNS, aggregate_rows, job_labels
from anfperf.analysis.sweep import summary_rows
from anfperf.errors import AnfperfError, ModelError
from anfperf.ingest.combine import combine

__all__ = [
    "METRICS",
    "VERDICTS",
    "DEFAULT_BATCHES",
    "MIN_BATCH_INTERVALS",
    "CONFIG_COLUMNS",
    "COLUMNS",
    "pick_runs",
    "interval_series",
    "whole_run_values",
    "compare_runs",
    "sentences",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer: not numpy, pandas, ...


log = logging.getLogger(__name__)

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
#: A batch holds at least this many intervals; so a run needs 4 intervals for an interval.
MIN_BATCH_INTERVALS = 2
#: Configuration compared between A and B of a workload (reported in `config_diff`).
CONFIG_COLUMNS = ("tool", "pattern", "bs_kib", "read_pct", "outstanding", "rate_limit_iops")
COLUMNS = [
    "workload", "metric", "a_mean", "b_mean", "diff", "diff_pct", "ci_low", "ci_high",
    "ci_low_pct", "ci_high_pct", "basis", "intervals_a", "intervals_b", "batches", "verdict",
    "config_diff",
]  # fmt: skip


def pick_runs(
    frame: pd.DataFrame, run_a: str | None = None, run_b: str | None = None
) -> tuple[str, str]:
    """The two runs to compare: those given, else the first two runs by start time.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    run_a, run_b : str, optional
        Baseline and candidate run ids; None picks the earliest run not already chosen.

    Returns
    -------
    (str, str)
        Run ids of A and B.

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

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    run_id : str
        The run.
    metrics : sequence of str
        Measurement columns wanted (keys of :data:`METRICS`).

    Returns
    -------
    pandas.DataFrame
        workload (:func:`anfperf.analysis.summary.job_labels`), interval, hosts (hosts combined) and `metrics`, in
        the order the workloads appear and by interval; the host rule is the module's.

    Raises
    ------
    anfperf.AnfperfError
        Two rows of the same host, job step and interval (the same output read twice).
    """
    cols = ["workload", "interval", "hosts", *metrics]
    run = frame[frame["run_id"] == run_id]
    rows = run[
        run["interval"].notna()
        & (run["direction"] == "total")
        & ~run["is_warmup"].fillna(False).astype(bool)
    ]
    if rows.empty:
        return pd.DataFrame(columns=cols)
    rows = _one_host_view(rows)
    by = [*STEP_COLUMNS, "interval"]
    twice = rows.duplicated(subset=["host", *by], keep=False)
    if twice.any():  # they would be added up as if they were hosts
        first = rows[twice].iloc[0]
        raise AnfperfError(
            f"run {run_id!r} has {int(twice.sum())} rows that repeat a host, job and interval "
            f"(e.g. host {first['host']}, job {first['job']}, interval {first['interval']}): "
            "is the same output read twice?"
        )
    gid = rows.groupby(by, dropna=False, sort=False).ngroup()
    hosts = rows["host"].astype(str).groupby(gid).nunique()
    # every host of the job step must have reported the interval (no partial sums)
    need = rows.groupby(STEP_COLUMNS, dropna=False, sort=False)["host"].transform("nunique")
    full = (rows["host"].astype(str).groupby(gid).transform("nunique") == need).to_numpy()
    dropped = int((~full).sum())
    if dropped:
        log.info("run %s: left out %d row(s) of intervals not every host reported", run_id, dropped)
    combined = combine(rows[full], by, host="all")
    combined["hosts"] = hosts[np.unique(gid[full])].to_numpy() if full.any() else []
    combined["workload"] = job_labels(combined)
    # workloads in the order they ran (combine keeps first appearance), intervals in order
    order = {w: i for i, w in enumerate(dict.fromkeys(combined["workload"]))}
    combined["_order"] = combined["workload"].map(order)
    return combined.sort_values(["_order", "interval"], kind="stable")[cols].reset_index(drop=True)


def _one_host_view(rows: pd.DataFrame) -> pd.DataFrame:
    """The 'all' rows of the job steps that have them, every host's rows of the others."""
    is_all, has_all = aggregate_rows(rows, STEP_COLUMNS)
    return rows[is_all | ~has_all]


def whole_run_values(frame: pd.DataFrame, run_id: str, metrics: Sequence[str]) -> pd.DataFrame:
    """Whole-run values of one run, one row per job step (:func:`anfperf.analysis.summary_rows`).

    Returns
    -------
    pandas.DataFrame
        workload (:func:`anfperf.analysis.summary.job_labels`), `metrics` and :data:`CONFIG_COLUMNS` (outstanding:
        the configured concurrency over all hosts). No rows when the run has no whole-run rows.
    """
    cols = ["workload", *metrics, *CONFIG_COLUMNS]
    try:
        rows = summary_rows(frame[frame["run_id"] == run_id])
    except ModelError:  # no whole-run rows: intervals only (or nothing)
        return pd.DataFrame(columns=cols)
    rows = rows.assign(workload=job_labels(rows), outstanding=rows["configured"])
    return rows.reindex(columns=cols).reset_index(drop=True)


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

    The rows used, the host rule and how workloads are matched are in the module docstring.
    The computation is deterministic (no resampling): the same frame gives the same table.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame holding both runs, with per-interval rows where possible.
    run_a, run_b : str
        Baseline and candidate run ids.
    metrics : sequence of str
        Keys of :data:`METRICS`.
    confidence : float
        Confidence level of the interval, 0 < confidence < 1.
    batches : int
        Batches per run for the batch-means interval (at least 2; fewer are used where a run
        has fewer than 2 x `batches` intervals).

    Returns
    -------
    pandas.DataFrame
        One row per workload and metric, columns :data:`COLUMNS`; values in the metric's unit
        (IOPS [1/s], MiB/s, latency [ms]) unless the name ends in ``_pct``:

        ============  ==========================================================================
        workload      job name both runs ran (:func:`anfperf.analysis.summary.job_labels`), in run A's order
        metric        key of :data:`METRICS`
        a_mean        A's mean over its measured intervals, or its whole-run value (`basis`)
        b_mean        the same for B
        diff          b_mean - a_mean
        diff_pct      diff in % of a_mean
        ci_low/high   confidence interval of diff (NaN with 'insufficient data')
        ci_*_pct      the same in % of a_mean (taken as exact)
        basis         'intervals', or 'whole run' where either run lacks intervals
        intervals_a   measured intervals of A
        intervals_b   the same for B
        batches       batches of the run with fewer (0 without an interval)
        verdict       for B: 'better' / 'worse' (interval excludes 0; higher is better for
                      rates, lower for latencies), 'no significant difference', or
                      'insufficient data' (a run with fewer than 4 intervals, or no value)
        config_diff   configuration that differs between A and B ('bs_kib 8 vs 64'), else ''
        ============  ==========================================================================

        ``attrs`` holds run_a, run_b, confidence, and only_a / only_b: the workloads one run
        has and the other lacks (left out).

    Raises
    ------
    anfperf.ModelError
        Unknown metric, a confidence outside (0, 1), or fewer than 2 batches.
    anfperf.AnfperfError
        A run id not in the frame, A and B the same run, no workload both runs ran, or a run
        with the same host's interval twice.
    """
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise ModelError(f"unknown metric(s) {unknown}; choose from {sorted(METRICS)}")
    if not 0 < confidence < 1:
        raise ModelError(f"confidence must be between 0 and 1, got {confidence!r}")
    if batches < 2:
        raise ModelError(f"batches must be at least 2, got {batches!r}")
    pick_runs(frame, run_a, run_b)  # both present and distinct
    metrics = list(metrics)
    series = {r: interval_series(frame, r, metrics) for r in (run_a, run_b)}
    whole = {r: whole_run_values(frame, r, metrics) for r in (run_a, run_b)}
    names = {
        r: list(dict.fromkeys([*series[r]["workload"], *whole[r]["workload"]]))
        for r in (run_a, run_b)
    }
    shared = [w for w in names[run_a] if w in set(names[run_b])]
    if not shared:
        raise AnfperfError(
            f"runs {run_a!r} and {run_b!r} share no workload (A: {names[run_a]}, "
            f"B: {names[run_b]}); workloads are matched by job name"
        )
    only_a = [w for w in names[run_a] if w not in shared]
    only_b = [w for w in names[run_b] if w not in shared]
    if only_a or only_b:
        log.info("left out workloads only in A %s or only in B %s", only_a, only_b)
    out = []
    for workload in shared:
        config_diff = _config_diff(
            whole[run_a][whole[run_a]["workload"] == workload],
            whole[run_b][whole[run_b]["workload"] == workload],
        )
        if config_diff:
            log.warning("workload %s differs between A and B: %s", workload, config_diff)
        for m in metrics:
            xa = _intervals(series[run_a], workload, m)
            xb = _intervals(series[run_b], workload, m)
            if xa.size and xb.size:
                basis, mean_a, mean_b = "intervals", float(xa.mean()), float(xb.mean())
            else:  # like with like: both whole-run values (an interval mean if one lacks it)
                basis = "whole run"
                mean_a = _whole_value(whole[run_a], workload, m, xa)
                mean_b = _whole_value(whole[run_b], workload, m, xb)
            row = _difference(xa, xb, mean_a, mean_b, m, confidence, batches)
            out.append({"workload": workload, "metric": m, **row, "basis": basis,
                        "config_diff": config_diff})  # fmt: skip
    table = pd.DataFrame(out, columns=COLUMNS)
    table.attrs.update(run_a=run_a, run_b=run_b, confidence=confidence, only_a=only_a,
                       only_b=only_b)  # fmt: skip
    return table


def _intervals(series: pd.DataFrame, workload: str, metric: str) -> np.ndarray:
    """A run's measured intervals of a workload, in order."""
    x = series.loc[series["workload"] == workload, metric]
    return pd.to_numeric(x, errors="coerce").dropna().to_numpy(float)


def _whole_value(whole: pd.DataFrame, workload: str, metric: str, intervals: np.ndarray) -> float:
    """A run's whole-run value of a workload; its interval mean when it has none."""
    value = pd.to_numeric(whole.loc[whole["workload"] == workload, metric], errors="coerce")
    if value.notna().any():
        # one whole-run row per job step: several only when labels collide; their mean then
        return float(value.mean())
    return float(intervals.mean()) if intervals.size else math.nan


def _config_diff(a: pd.DataFrame, b: pd.DataFrame) -> str:
    parts = []
    for col in CONFIG_COLUMNS:
        va, vb = _config_value(a, col), _config_value(b, col)
        if va != vb and va is not None and vb is not None:
            parts.append(f"{col} {va} vs {vb}")
    return "; ".join(parts)


def _config_value(rows: pd.DataFrame, col: str) -> str | None:
    values = rows[col].dropna() if col in rows else pd.Series([], dtype=object)
    if values.empty:
        return None
    shown = sorted({f"{v:g}" if isinstance(v, int | float | np.number) else str(v) for v in values})
    return "/".join(shown)


def _difference(
    xa: np.ndarray,
    xb: np.ndarray,
    mean_a: float,
    mean_b: float,
    metric: str,
    confidence: float,
    k: int,
) -> dict:
    diff = mean_b - mean_a
    usable = math.isfinite(diff) and mean_a != 0
    row = {
        "a_mean": mean_a, "b_mean": mean_b, "diff": diff,
        "diff_pct": 100.0 * diff / mean_a if usable else math.nan,
        "ci_low": math.nan, "ci_high": math.nan, "ci_low_pct": math.nan, "ci_high_pct": math.nan,
        "intervals_a": int(xa.size), "intervals_b": int(xb.size), "batches": 0,
        "verdict": "insufficient data",
    }  # fmt: skip
    ba, bb = _batch_means(xa, k), _batch_means(xb, k)
    if ba.size < 2 or bb.size < 2 or not usable:
        return row
    va, vb = ba.var(ddof=1) / ba.size, bb.var(ddof=1) / bb.size
    se = math.sqrt(va + vb)
    if se > 0:  # Welch-Satterthwaite degrees of freedom
        dof = (va + vb) ** 2 / (va**2 / (ba.size - 1) + vb**2 / (bb.size - 1))
        from scipy import stats  # here: scipy.stats is slow to import, a report without a
        # comparison should not pay it

        half = float(stats.t.ppf(0.5 + confidence / 2, dof)) * se
    else:  # constant series on both sides: no spread, no doubt
        half = 0.0
    low, high = diff - half, diff + half
    higher_is_better = METRICS[metric][1]
    if low > 0 or high < 0:
        verdict = "better" if (low > 0) == higher_is_better else "worse"
    else:
        verdict = "no significant difference"
    # the % interval divides by A's mean as if it were exact (it is a ratio's approximation)
    scale = 100.0 / abs(mean_a)
    row.update(
        ci_low=low, ci_high=high, ci_low_pct=low * scale, ci_high_pct=high * scale,
        batches=int(min(ba.size, bb.size)), verdict=verdict,
    )  # fmt: skip
    return row


def sentences(table: pd.DataFrame, run_a: str = "A", run_b: str = "B") -> list[str]:
    """The comparison in words, one sentence per workload, from :func:`compare_runs`.

    Raises
    ------
    anfperf.AnfperfError
        An empty table.
    """
    if table.empty:
        raise AnfperfError("nothing compared")
    out = []
    for workload, rows in table.groupby("workload", sort=False):
        parts = []
        for r in rows.itertuples(index=False):
            label = METRICS[r.metric][0]
            if r.verdict == "insufficient data":
                if math.isfinite(r.diff_pct):
                    why = "whole-run values" if r.basis == "whole run" else "too few intervals"
                    parts.append(f"{label} {r.diff_pct:+.1f} % ({why}: no confidence interval)")
                else:
                    parts.append(f"{label}: no values to compare")
                continue
            parts.append(
                f"{label} {r.diff_pct:+.1f} % ({r.ci_low_pct:+.1f} .. {r.ci_high_pct:+.1f} %): "
                f"{r.verdict}"
            )
        text = f"{workload}, {run_b} vs {run_a}: " + "; ".join(parts)
        if rows["config_diff"].iloc[0]:
            text += f" (configuration differs: {rows['config_diff'].iloc[0]})"
        out.append(text + ".")
    return out
