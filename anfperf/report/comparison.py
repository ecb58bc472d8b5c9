"""What the compare report shows: the verdicts first, then one table a person reads.

``compare_runs.ipynb`` is a thin shell over this module, :mod:`anfperf.analysis.compare` (the numbers)
and :mod:`anfperf.report.page` (the page).
"""

from __future__ import annotations

import pandas as pd

from anfperf.analysis.compare import METRICS, VERDICTS
from anfperf.report.page import Card, Table, format_number, table

_TONES = {
    "better": "good",
    "worse": "bad",
    "no significant difference": "",
    "insufficient data": "warn",
}


def _pct(value: float) -> str:
    text = format_number(value)
    return f"+{text}" if text and not text.startswith(("-", "−")) and value > 0 else text


def headline(
    compared: pd.DataFrame,
    run_a: str,
    run_b: str,
    confidence: float,
    *,
    kinds: pd.DataFrame | None = None,
) -> dict:
    """The verdict paragraph and one card per verdict of a comparison.

    Parameters
    ----------
    compared : pandas.DataFrame
        :func:`anfperf.analysis.compare.compare_runs`'s table.
    run_a, run_b : str
        Baseline and candidate.
    confidence : float
        Confidence level of the intervals (0.95).
    kinds : pandas.DataFrame, optional
        :func:`anfperf.analysis.findings.run_kinds` of the runs: a run served from a client cache is
        named, since the comparison then measures the cache, not the storage.

    Returns
    -------
    dict
        ``verdict`` (str) and ``cards`` (list of :class:`anfperf.report.page.Card`).
    """
    n = len(compared)
    workloads = compared["workload"].nunique()
    counts = compared["verdict"].value_counts()
    parts = [f"{counts[v]} {v}" for v in VERDICTS if counts.get(v, 0)]
    text = (
        f"**{run_b}** against **{run_a}**: {n} comparison{'s' if n != 1 else ''} "
        f"({workloads} workload{'s' if workloads != 1 else ''} x "
        f"{compared['metric'].nunique()} metrics) at {confidence:.0%} confidence: "
        + ", ".join(parts)
        + "."
    )
    significant = compared[compared["verdict"].isin(["better", "worse"])]
    if not significant.empty:
        top = significant.loc[significant["diff_pct"].abs().idxmax()]
        text += (
            f" The largest change: {METRICS[top['metric']][0]} of {top['workload']} "
            f"{_pct(top['diff_pct'])} % ({_pct(top['ci_low_pct'])} .. "
            f"{_pct(top['ci_high_pct'])} %)."
        )
    if kinds is not None and "cached" in kinds:
        cached = kinds[kinds["run_id"].isin([run_a, run_b]) & kinds["cached"].fillna(False)]
        for row in cached.itertuples(index=False):
            text += (
                f" {row.run_id} was served from a client cache ({row.cache_reason}): the "
                "difference measures the cache, not the storage."
            )
    if compared["config_diff"].astype(bool).any():
        text += " The configuration differs between the runs (see the table): like is not compared with like."
    cards = []
    for verdict in VERDICTS:
        rows = compared[compared["verdict"] == verdict]
        if rows.empty:
            continue
        names = sorted({f"{r.workload} {METRICS[r.metric][0]}" for r in rows.itertuples()})
        note = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        cards.append(Card(verdict[:1].upper() + verdict[1:], str(len(rows)), note, _TONES[verdict],
                          key="comparisons_" + verdict.replace(" ", "_"), number=len(rows)))  # fmt: skip
    return {"verdict": text, "cards": cards}


def comparison_table(compared: pd.DataFrame, run_a: str, run_b: str, confidence: float) -> Table:
    """Per workload and metric: A, B, the difference in the metric's unit and in % with its
    confidence interval, the verdict; units stated per row (a column mixes IOPS and ms)."""
    shown = pd.DataFrame(
        {
            "workload": compared["workload"],
            "metric": [METRICS[m][0] for m in compared["metric"]],
            "a": [format_number(v) for v in compared["a_mean"]],
            "b": [format_number(v) for v in compared["b_mean"]],
            "diff": [_pct(v) for v in compared["diff"]],
            "diff_pct": [_pct(v) for v in compared["diff_pct"]],
            "ci": [
                f"{_pct(lo)} .. {_pct(hi)}" if pd.notna(lo) else ""
                for lo, hi in zip(compared["ci_low_pct"], compared["ci_high_pct"], strict=True)
            ],
            "verdict": compared["verdict"],
            "intervals": [
                f"{a} / {b}" if a or b else ""
                for a, b in zip(compared["intervals_a"], compared["intervals_b"], strict=True)
            ],
            "config_diff": compared["config_diff"],
        }
    )
    labels = {
        "workload": "Workload",
        "metric": "Metric [unit]",
        "a": f"A: {run_a}",
        "b": f"B: {run_b}",
        "diff": "B − A [metric's unit]",
        "diff_pct": "B − A [%]",
        "ci": f"{confidence:.0%} interval [%]",
        "verdict": "Verdict for B",
        "intervals": "Intervals A / B",
        "config_diff": "Configuration differs",
    }
    out = table(
        shown, labels=labels, caption="Means over the measured intervals, warm-up excluded."
    )
    # the formatted numbers are strings here: align them as numbers
    numeric = {"a", "b", "diff", "diff_pct", "ci", "intervals"}
    out.numeric = [name in numeric for name in shown.columns if labels[name] in out.cells.columns]
    return out
