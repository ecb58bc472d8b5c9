"""Measured read/write mixes against the pure reads and writes measured beside them.

A report often holds the pure runs and a mixed one apart (the seed workloads RndRead, RndWrite
and RndMix; SeqRead, SeqWrite and SeqMix), each run with its own count in flight. What the pure
runs predict for the mix (:func:`anfperf.models.forecast.forecast_mix`, carried to the mix's
count) against what it measured says whether reads and writes share one bottleneck as the mix
model has it, or the mix ran faster (separate resources) or slower (interference).
:func:`mix_checks` works it out for every mixed step whose own run lacks a pure end.
"""

from __future__ import annotations

import warnings

import pandas as pd

from anfperf.errors import ModelError
from anfperf.models.forecast import forecast_mix
from anfperf.models.limits.plan import sized_in_mib_s
from anfperf.units import KIB_PER_MIB

__all__ = ["MIX_CHECK_COLUMNS", "mix_checks", "mix_check_text"]

#: Columns of :func:`mix_checks`.
MIX_CHECK_COLUMNS = [
    "run_id", "job", "bs_kib", "pattern", "read_pct", "outstanding", "iops", "predicted_iops",
    "lower_iops", "upper_iops", "off_pct", "inside", "pure_runs",
]  # fmt: skip


def mix_checks(rows: pd.DataFrame, kinds: pd.DataFrame) -> pd.DataFrame:
    """Each mixed step against the pure runs of the same block size and pattern.

    Parameters
    ----------
    rows : pandas.DataFrame
        Whole-run rows (:func:`anfperf.analysis.summary_rows`).
    kinds : pandas.DataFrame
        :func:`anfperf.analysis.findings.run_kinds` of the same runs: a run a client cache
        served is neither checked nor a pure end.

    Returns
    -------
    pandas.DataFrame
        One row per mixed step (0 < read share < 100) of a run without pure reads and writes of
        its own, where other runs measured both at its block size and pattern (closed loops,
        not rate-limited); columns :data:`MIX_CHECK_COLUMNS`, IOPS [1/s], off_pct the measured
        against the predicted [%]. Empty when there is none.
    """
    need = {"run_id", "read_pct", "iops", "outstanding", "bs_kib", "pattern"}
    if rows.empty or not need <= set(rows.columns):
        return pd.DataFrame(columns=MIX_CHECK_COLUMNS)
    cached = set(kinds.loc[kinds["cached"].astype(bool), "run_id"].astype(str))
    ok = ~rows["run_id"].astype(str).isin(cached)
    if "rate_limit_iops" in rows:
        ok &= pd.to_numeric(rows["rate_limit_iops"], errors="coerce").isna()
    usable = rows[ok & (pd.to_numeric(rows["iops"], errors="coerce") > 0)]
    share = pd.to_numeric(usable["read_pct"], errors="coerce")
    out = []
    for _, mixed in usable[(share > 0) & (share < 100)].iterrows():
        own = usable[usable["run_id"] == mixed["run_id"]]
        if own["read_pct"].isin([0, 100]).any():  # its own chart mixes its own ends
            continue
        alike = usable[(usable["bs_kib"] == mixed["bs_kib"])
                       & (usable["pattern"] == mixed["pattern"])
                       & usable["read_pct"].isin([0, 100])]  # fmt: skip
        if alike["read_pct"].nunique() < 2:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fc = forecast_mix(
                    alike["read_pct"].to_numpy(float), alike["iops"].to_numpy(float),
                    [float(mixed["read_pct"])], outstanding=alike["outstanding"].to_numpy(float),
                    at_outstanding=float(mixed["outstanding"]),
                )  # fmt: skip
        except ModelError:  # counts unknown, or a fit the points refuse: no check
            continue
        iops, est = float(mixed["iops"]), float(fc.estimate[0])
        lo, hi = float(fc.lower[0]), float(fc.upper[0])
        out.append({
            "run_id": str(mixed["run_id"]), "job": str(mixed.get("job", "")),
            "bs_kib": float(mixed["bs_kib"]), "pattern": str(mixed["pattern"]),
            "read_pct": float(mixed["read_pct"]), "outstanding": float(mixed["outstanding"]),
            "iops": iops, "predicted_iops": est, "lower_iops": lo, "upper_iops": hi,
            "off_pct": 100.0 * (iops / est - 1.0), "inside": bool(lo <= iops <= hi),
            "pure_runs": ", ".join(sorted(alike["run_id"].astype(str).unique())),
        })  # fmt: skip
    return pd.DataFrame(out, columns=MIX_CHECK_COLUMNS)


def mix_check_text(check: pd.Series) -> str:
    """One sentence: what the pure runs predict for a mixed step, and what it measured (in
    MiB/s for large blocks or sequential I/O, as the report's charts draw them, else IOPS)."""
    where = "inside" if check["inside"] else "outside"
    in_mib_s = bool(sized_in_mib_s(check["bs_kib"], check["pattern"]))
    scale, unit = (check["bs_kib"] / KIB_PER_MIB, "MiB/s") if in_mib_s else (1.0, "IOPS")
    est, lo, hi, got = (scale * check[c] for c in ("predicted_iops", "lower_iops",
                                                   "upper_iops", "iops"))  # fmt: skip
    return (
        f"{check['job'] or check['run_id']} ({check['read_pct']:g} % reads, "
        f"{check['outstanding']:g} in flight) against the pure runs {check['pure_runs']}: "
        f"predicted {est:,.0f} {unit} ({lo:,.0f} .. {hi:,.0f}), measured {got:,.0f} "
        f"({check['off_pct']:+.1f} %), {where} the band"
    )
