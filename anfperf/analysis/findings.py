"""Conclusions computed from measured runs: peak, knee, IOPS at a latency SLO, what binds.

A report states its conclusions from these functions, never from hand-written text:

- :func:`analyse` does all of it once for a report: the whole-run rows, the kinds and the key
  numbers of a frame (an :class:`Analysis`), the summary rows computed a single time.
- :func:`run_kinds` tells what each run is: a concurrency sweep (threads / iodepth steps), a
  load curve (rate-limited steps, Vdbench ``iorate=curve``), a read/write-mix sweep, or single
  points; and whether a client cache served it (:func:`cache_verdict`): buffered I/O, or a
  latency no network round trip reaches. The report draws the charts that apply to each kind
  and lists cached runs apart: they are never the peak (:func:`peak_run`) nor the point set
  against the ANF model (:func:`operating_point`).
- :func:`key_numbers` gives one row per run: peak IOPS and MiB/s, the knee of its
  latency-vs-load curve and the IOPS at a latency SLO, read off the measured points and a
  fitted curve: the USL for concurrency sweeps (:func:`anfperf.models.fit_usl`, latency by
  Little's law), the queueing curve for load curves (:func:`anfperf.models.fit_queueing_latency`).
- :func:`quota_check` sets a measured rate against the ANF bandwidth model
  (:func:`anfperf.models.predict_achievable`) and names the binding constraint;
  :func:`anf_verdict_applies` says whether such a verdict is meaningful at all (a run on a local
  disk gets none unless a level and quota are given).
- :func:`sentences` turns those numbers into the report's conclusions.
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anfperf.analysis.blocks import block_notes, block_sweeps
from anfperf.analysis.sweep import alike, summary_rows
from anfperf.errors import AnfperfError, ModelError
from anfperf.models import (
    KnownLimits,
    QuotaScenario,
    fit_queueing_latency,
    fit_usl,
    forecast_throughput,
    known_limits,
    nfs_client_value,
    predict_achievable,
    queueing_iops_at_latency,
    queueing_knee,
    usl,
    usl_concurrency_at_latency,
    usl_latency_ms,
    usl_throughput_at_latency,
)
from anfperf.models.curves.queueing import KNEE_FACTOR
from anfperf.models.forecast.past import LatencyPast, latency_past
from anfperf.models.forecast.throughput import stalled_points
from anfperf.models.limits.predict import constraint_phrase
from anfperf.models.littles_law import latency_at_concurrency
from anfperf.values import natural_key

__all__ = [
    "MIN_SWEEP_POINTS",
    "MIN_R2",
    "KNEE_REACH",
    "OVER_MODEL_PCT",
    "KIND_CONCURRENCY",
    "KIND_RATE",
    "KIND_MIX",
    "KIND_BLOCK",
    "KIND_GRID",
    "KIND_SINGLE",
    "KEY_COLUMNS",
    "KIND_COLUMNS",
    "SLO_FITTED",
    "SLO_FORECAST",
    "SLO_MEASURED",
    "Analysis",
    "cached_runs",
    "trusted",
    "analyse",
    "run_kinds",
    "cache_verdict",
    "key_numbers",
    "run_known_limits",
    "peak_run",
    "stated_iops_at_slo",
    "band_words",
    "slo_source_words",
    "latency_past_the_data",
    "latency_fit",
    "concurrency_fit",
    "unstalled_steps",
    "curve_knee",
    "curve_iops_at_latency",
    "iops_at_latency_measured",
    "operating_point",
    "quota_check",
    "anf_verdict_applies",
    "sentences",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer: not numpy, pandas, ...


#: Distinct steps a run needs to count as a sweep.
MIN_SWEEP_POINTS = 3

#: A latency-curve fit below this R^2 explains too little to name a knee from it.
MIN_R2 = 0.5
#: A fitted knee past this multiple of the highest measured load is not in the data.
KNEE_REACH = 1.25
#: Measured above this share of the model's prediction [%]: not explained by ANF's limits.
OVER_MODEL_PCT = 150.0

KIND_CONCURRENCY = "concurrency sweep"
KIND_RATE = "load curve"
KIND_MIX = "read/write mix sweep"
KIND_BLOCK = "block-size sweep"
#: Several read shares at each of several counts in flight (fio iodepth x rwmixread, Vdbench
#: forthreads x forrdpct): one mix curve per count; each read share a concurrency sweep
#: (:mod:`anfperf.analysis.grids`).
KIND_GRID = "mix x concurrency grid"
KIND_SINGLE = "single points"

KEY_COLUMNS = [
    "run_id", "tool", "kind", "points", "peak_iops", "peak_bw_mib_s", "lat_at_peak_ms",
    "lat_min_ms", "knee_iops", "knee_lat_ms", "lat_slo_ms", "iops_at_slo_measured",
    "iops_at_slo_model", "iops_at_slo_low", "iops_at_slo_high", "iops_at_slo_why", "fit_r2",
    "notes", "cached", "cache_reason",
]  # fmt: skip
#: Columns of :func:`run_kinds`.
KIND_COLUMNS = ["run_id", "tool", "kind", "points", "hosts", "cached", "cache_reason"]


@dataclass(frozen=True)
class Analysis:
    """What a report concludes from a tidy frame, worked out once (:func:`analyse`).

    Attributes
    ----------
    frame : pandas.DataFrame
        The tidy frame (:mod:`anfperf.schema`).
    rows : pandas.DataFrame
        :func:`anfperf.analysis.summary_rows` of `frame`: one whole-run row per run x job step.
    kinds : pandas.DataFrame
        :func:`run_kinds`: kind, points, hosts and the `cached` flag of every run.
    numbers : pandas.DataFrame
        :func:`key_numbers` at `lat_slo_ms`.
    lat_slo_ms : float
        Latency objective [ms] of `numbers`.
    """

    frame: pd.DataFrame
    rows: pd.DataFrame
    kinds: pd.DataFrame
    numbers: pd.DataFrame
    lat_slo_ms: float

    def operating_point(self, run_id: str | None = None) -> dict:
        """:func:`operating_point` of the frame, from the rows already worked out."""
        return operating_point(self.frame, run_id=run_id, rows=self.rows, kinds=self.kinds)

    def bounded_by(self, scenario: QuotaScenario | None) -> Analysis:
        """The same analysis with its key numbers bounded by the volume measured.

        A report knows the volume only after its analysis has chosen the operating point set
        against it; its key numbers past the measured points (the IOPS at the SLO) are then
        worked out again within that volume's limit (:func:`key_numbers`' `scenario`). None:
        this analysis, unchanged.
        """
        if scenario is None:
            return self
        numbers = key_numbers(self.frame, lat_slo_ms=self.lat_slo_ms, rows=self.rows,
                              kinds=self.kinds, scenario=scenario)  # fmt: skip
        return dataclasses.replace(self, numbers=numbers)


def cached_runs(numbers: pd.DataFrame) -> pd.Series:
    """Per row of :func:`key_numbers` (or :func:`run_kinds`): served from a client cache.

    All False where the frame has no `cached` column (made before the flag existed).
    """
    if "cached" not in numbers:
        return pd.Series(False, index=numbers.index)
    return numbers["cached"].fillna(False).astype(bool)


def trusted(numbers: pd.DataFrame) -> pd.DataFrame:
    """The rows whose numbers stand for the storage: those no client cache served."""
    return numbers[~cached_runs(numbers)]


def analyse(
    frame: pd.DataFrame, *, lat_slo_ms: float = 1.0, scenario: QuotaScenario | None = None
) -> Analysis:
    """Whole-run rows, run kinds and key numbers of a frame, the rows computed once.

    A report asks for these many times (the headline, each chart, the conclusions); computing
    :func:`anfperf.analysis.summary_rows` once and passing it on (``rows=``) saves doing it for
    each.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    lat_slo_ms : float
        Latency objective [ms] (mean response time) of the key numbers.
    scenario : QuotaScenario, optional
        The volume and clients measured (a report's level and quota, or volume): their
        limits bound the IOPS at the SLO past the measured points (:func:`key_numbers`).

    Returns
    -------
    Analysis

    Raises
    ------
    anfperf.ModelError
        `frame` has no whole-run rows, or `lat_slo_ms` is not > 0.
    """
    rows = summary_rows(frame)
    kinds = run_kinds(frame, rows=rows)
    numbers = key_numbers(frame, lat_slo_ms=lat_slo_ms, rows=rows, kinds=kinds, scenario=scenario)
    return Analysis(frame, rows, kinds, numbers, float(lat_slo_ms))


def run_kinds(frame: pd.DataFrame, *, rows: pd.DataFrame | None = None) -> pd.DataFrame:
    """What each run of a tidy frame is, from its whole-run rows.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    rows : pandas.DataFrame, optional
        :func:`anfperf.analysis.summary_rows` of `frame`, when already worked out.

    Returns
    -------
    pandas.DataFrame
        One row per run, columns :data:`KIND_COLUMNS`: run_id, tool, kind
        (:data:`KIND_CONCURRENCY`, :data:`KIND_RATE`, :data:`KIND_MIX`, :data:`KIND_GRID`,
        :data:`KIND_BLOCK` or :data:`KIND_SINGLE`),
        points (whole-run rows), hosts (distinct client hosts, the 'all' aggregate left out),
        cached (a client cache served the run, or may have: :func:`cache_verdict`) and
        cache_reason (why, in words; "" when not cached).
    """
    if rows is None:
        rows = summary_rows(frame)
    floor_ms = nfs_client_value("nfs_min_lat_ms")
    out = []
    for run_id, run in rows.groupby("run_id", sort=True):
        cached, reason = cache_verdict(run, floor_ms=floor_ms)
        out.append(
            {
                "run_id": run_id,
                "tool": _distinct_values(run, "tool"),
                "kind": _kind(run),
                "points": len(run),
                "hosts": _hosts(frame, run_id),
                "cached": cached,
                "cache_reason": reason,
            }
        )
    return pd.DataFrame(out, columns=KIND_COLUMNS).astype({"cached": bool})


#: How each tool is told to bypass the client's page cache (for the reason a run is cached).
_DIRECT_OPTION = {
    "fio": "direct=0 (fio's default) rather than direct=1",
    "vdbench": "no openflags=o_direct in its parameter file",
}


def cache_verdict(run: pd.DataFrame, *, floor_ms: float | None = None) -> tuple[bool, str]:
    """Whether a client's page cache served a run (or may have), and why, from its rows.

    A run counts as cached when any of its whole-run rows

    - did buffered I/O (`direct_io` False: fio ``direct=0`` for an engine that goes through
      the page cache, Vdbench without ``openflags=o_direct``): re-reads come from the client's
      memory and writes are absorbed there, not on the volume (ANF's testing methodology
      uses direct I/O to avoid the client cache); or
    - was not said to be direct and has a mean latency below `floor_ms`, less than any NFS
      round trip to ANF takes.

    Direct I/O that is faster than the floor is not cached: it went to a device nearer than a
    network (a local disk; :func:`anf_verdict_applies` deals with that).

    Parameters
    ----------
    run : pandas.DataFrame
        Whole-run rows of one run (:func:`anfperf.analysis.summary_rows`).
    floor_ms : float, optional
        Latency floor [ms]; default the NFS client table's ``nfs_min_lat_ms``
        (``anfperf/data/nfs_client.csv``).

    Returns
    -------
    (bool, str)
        cached, and the reason in words ("" when not cached).
    """
    if floor_ms is None:
        floor_ms = nfs_client_value("nfs_min_lat_ms")
    n = len(run)
    if "direct_io" in run:
        direct = run["direct_io"].astype("boolean")
    else:
        direct = pd.Series(pd.NA, index=run.index, dtype="boolean")
    buffered = direct.eq(False).fillna(False).to_numpy(bool)
    lat = pd.to_numeric(run["lat_mean_ms"], errors="coerce").to_numpy(float)
    fast = ~direct.eq(True).fillna(False).to_numpy(bool) & (lat < floor_ms)
    reasons = []
    if buffered.any():
        tool = _distinct_values(run[buffered], "tool")
        how = _DIRECT_OPTION.get(tool, "not direct")
        steps = f"{int(buffered.sum())} of {n} steps" if buffered.sum() < n else "every step"
        reasons.append(
            f"buffered I/O in {steps} ({how}): the client's page cache can serve reads and "
            "absorb writes"
        )
    if fast.any():
        reasons.append(
            f"mean latency {np.nanmin(lat[fast]):.3g} ms, below the {floor_ms:g} ms no NFS "
            "round trip to ANF goes under"
        )
    return bool(reasons), "; ".join(reasons)


def _distinct_values(rows: pd.DataFrame, col: str) -> str:
    """Every distinct value of `col` in `rows`, sorted and joined by ', ' ('' for none)."""
    values = rows[col].dropna().astype(str).unique() if col in rows else []
    return ", ".join(sorted(values)) if len(values) else ""


def _hosts(frame: pd.DataFrame, run_id: str) -> int:
    hosts = frame.loc[frame["run_id"] == run_id, "host"].dropna().astype(str)
    return int(hosts[hosts != "all"].nunique()) or 1


def _distinct(rows: pd.DataFrame, col: str) -> int:
    return int(pd.to_numeric(rows[col], errors="coerce").dropna().nunique()) if col in rows else 0


def _swept(run: pd.DataFrame, col: str, fixed: list[str]) -> bool:
    """Whether `col` takes MIN_SWEEP_POINTS or more values among rows alike in `fixed`."""
    return any(_distinct(g, col) >= MIN_SWEEP_POINTS for _, g in alike(run, fixed))


def _kind(run: pd.DataFrame) -> str:
    if _distinct(run, "rate_limit_iops") >= MIN_SWEEP_POINTS - 1 and len(run) >= MIN_SWEEP_POINTS:
        return KIND_RATE  # curve steps: a few rate-limited points and the uncontrolled maximum
    # a sweep varies one thing: the points compared share the block size (and, for a
    # concurrency sweep, the read share); a run of different workloads is no sweep
    if _swept(run, "read_pct", ["bs_kib"]):
        if _swept(run, "read_pct", ["bs_kib", "configured"]) and _swept(
            run, "configured", ["bs_kib", "read_pct"]
        ):
            return KIND_GRID
        return KIND_MIX
    if _swept(run, "configured", ["bs_kib", "read_pct"]):
        return KIND_CONCURRENCY
    if block_sweeps(run):  # block sizes at one pattern, read share and load
        return KIND_BLOCK
    return KIND_SINGLE


def key_numbers(
    frame: pd.DataFrame,
    *,
    lat_slo_ms: float = 1.0,
    rows: pd.DataFrame | None = None,
    kinds: pd.DataFrame | None = None,
    scenario: QuotaScenario | None = None,
) -> pd.DataFrame:
    """The headline numbers of every run: peak, knee, IOPS at the latency SLO.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    lat_slo_ms : float
        Latency objective [ms] (mean response time).
    rows, kinds : pandas.DataFrame, optional
        :func:`anfperf.analysis.summary_rows` and :func:`run_kinds` of `frame`, when already
        worked out (:func:`analyse`).
    scenario : QuotaScenario, optional
        The volume and clients measured. Where the SLO lies past the measured points, the
        model's IOPS at it comes from :mod:`anfperf.models.forecast`, bounded by their limit
        at each run's block size; NaN, with the reason in `notes`, where the data cannot
        tell (a flat latency curve and no limit known).

    Returns
    -------
    pandas.DataFrame
        One row per run, columns :data:`KEY_COLUMNS`: peak IOPS [1/s] and MiB/s over its
        whole-run rows, the mean latency at the IOPS peak [ms], the lowest latency [ms]; for
        concurrency sweeps and load curves also the knee (load [1/s] and latency [ms] where the
        fitted queueing curve reaches twice its unloaded latency), the IOPS at `lat_slo_ms`
        read off the measured points along the load axis (:func:`iops_at_latency_measured`;
        NaN when the SLO lies outside them) and from the model (the fitted curve within the
        measured latencies; past them a forecast, with its 95 % band in `iops_at_slo_low`
        and `iops_at_slo_high`: :func:`stated_iops_at_slo` says which a report states), and
        the fit's R^2.
        `notes` says what could not be worked out and why; `cached` and `cache_reason` are
        :func:`run_kinds`' (a cached run's numbers are the client cache's, not the volume's).
    """
    if not lat_slo_ms > 0:
        raise ModelError(f"lat_slo_ms must be > 0, got {lat_slo_ms!r}")
    if rows is None:
        rows = summary_rows(frame)
    if kinds is None:
        kinds = run_kinds(frame, rows=rows)
    kinds = kinds.set_index("run_id")
    out = []
    for run_id, run in rows.groupby("run_id", sort=True):
        numbers = _run_numbers(run, str(kinds.loc[run_id, "kind"]), lat_slo_ms, scenario)
        numbers["cached"] = bool(kinds.loc[run_id, "cached"])
        numbers["cache_reason"] = str(kinds.loc[run_id, "cache_reason"])
        out.append(numbers)
    # runs named by a number (a loop's qd1 .. qd128) in the number's order, not as strings
    out.sort(key=lambda numbers: natural_key(numbers["run_id"]))
    return pd.DataFrame(out, columns=KEY_COLUMNS).astype({"cached": bool})


def peak_run(numbers: pd.DataFrame, *, by: str = "peak_iops") -> pd.Series | None:
    """The run with the highest peak among those no client cache served.

    Parameters
    ----------
    numbers : pandas.DataFrame
        :func:`key_numbers`.
    by : {'peak_iops', 'peak_bw_mib_s'}
        Which peak [1/s or MiB/s].

    Returns
    -------
    pandas.Series or None
        That run's row of `numbers`; None when every run was cached (or none has a peak):
        there is no peak of the storage to state.
    """
    if by not in ("peak_iops", "peak_bw_mib_s"):
        raise AnfperfError(f"by must be 'peak_iops' or 'peak_bw_mib_s', got {by!r}")
    kept = trusted(numbers)
    values = pd.to_numeric(kept[by], errors="coerce")
    if not values.notna().any():
        return None
    return kept.loc[values.idxmax()]


def _run_numbers(
    run: pd.DataFrame, kind: str, lat_slo_ms: float, scenario: QuotaScenario | None = None
) -> dict:
    iops = pd.to_numeric(run["iops"], errors="coerce").to_numpy(float)
    bw = pd.to_numeric(run["bw_mib_s"], errors="coerce").to_numpy(float)
    lat = pd.to_numeric(run["lat_mean_ms"], errors="coerce").to_numpy(float)
    numbers = _measured_numbers(run, kind, iops, bw, lat, lat_slo_ms)
    if kind == KIND_BLOCK:
        numbers["notes"] = "; ".join(block_notes(run))
    if kind not in (KIND_CONCURRENCY, KIND_RATE):
        return numbers
    ok = np.isfinite(iops) & np.isfinite(lat) & (iops > 0) & (lat > 0)
    load = _load_axis(run, kind, iops)
    numbers["iops_at_slo_measured"] = iops_at_latency_measured(
        iops[ok], lat[ok], lat_slo_ms, load=load[ok]
    )
    ok, notes = _fitted_points(run, kind, iops, lat)
    try:
        if kind == KIND_CONCURRENCY:
            # a closed loop: throughput against the concurrency that drove it (USL); latency
            # follows by Little's law. A latency-vs-load curve cannot bend back, as the
            # throughput of an over-driven device does
            conc = pd.to_numeric(run["configured"], errors="coerce").to_numpy(float)
            fit = concurrency_fit(conc[ok], iops[ok])
        else:
            fit = latency_fit(iops[ok], lat[ok])
    except ModelError as exc:
        notes.append(f"no latency-curve fit: {exc}")
    else:
        notes += fit.notes + _curve_numbers(fit, numbers, iops[ok], lat[ok], lat_slo_ms)
    if math.isnan(numbers["iops_at_slo_measured"]):
        notes.append(
            f"the {lat_slo_ms:g} ms SLO lies outside the measured latencies "
            f"({np.nanmin(lat):.3g}..{np.nanmax(lat):.3g} ms): IOPS at the SLO is the model's"
        )
        known = run_known_limits(run, scenario)
        above = ok.any() and lat_slo_ms > float(np.max(lat[ok]))
        past = latency_past_the_data(run, kind, lat_slo_ms, known) if above else None
        if past is not None:
            notes += _stated_past(numbers, past, lat_slo_ms)
        else:
            notes += _slo_below_the_data(run, kind, numbers, iops, ok, lat_slo_ms, known)
        notes += _not_undercut(numbers, iops[ok], lat[ok], lat_slo_ms)
        lightest = float(np.min(lat[ok])) if ok.any() else math.nan
        if lat_slo_ms < lightest and math.isnan(numbers["iops_at_slo_model"]):
            notes += _no_slo_number(numbers, lat_slo_ms, f"below the lowest latency measured "
                                    f"({lightest:.3g} ms): no load measured met it")  # fmt: skip
    numbers["notes"] = "; ".join(notes)
    return numbers


def run_known_limits(run: pd.DataFrame, scenario: QuotaScenario | None) -> KnownLimits:
    """The limits of `scenario` at a run's block size, read share and pattern.

    Parameters
    ----------
    run : pandas.DataFrame
        The run's summary rows (bs_kib, read_pct, pattern).
    scenario : QuotaScenario, optional
        The volume and clients measured.

    Returns
    -------
    anfperf.models.KnownLimits
        None known (unbounded) without a scenario, for a run of several block sizes (one limit
        in IOPS cannot hold for all of them) or one the model does not take. A run that is one
        block-size sweep gets the limit at its largest size: what bounds its MiB/s.
    """
    if scenario is None or run.empty:
        return KnownLimits()
    fields: dict = {}
    for col in ("bs_kib", "read_pct"):
        values = pd.to_numeric(run[col], errors="coerce").dropna().unique()
        if len(values) == 1:
            fields[col] = float(values[0])
    if "bs_kib" not in fields:
        sweeps = block_sweeps(run)
        if len(sweeps) != 1 or len(sweeps[0].rows) != len(run):
            return KnownLimits()
        # one block-size sweep: the limit at its largest size, where bytes bind (its MiB/s)
        fields["bs_kib"] = float(pd.to_numeric(run["bs_kib"], errors="coerce").max())
    patterns = run["pattern"].dropna().astype(str).unique() if "pattern" in run else []
    if len(patterns) == 1 and patterns[0] in ("random", "sequential"):
        fields["pattern"] = str(patterns[0])
    try:
        return known_limits(QuotaScenario.of(scenario, **fields))
    except ModelError:
        return KnownLimits()


#: Bootstrap draws of a forecast whose number, not its band, a key number needs.
DECISION_DRAWS = 20


def _fitted_points(
    run: pd.DataFrame, kind: str, iops: np.ndarray, lat: np.ndarray
) -> tuple[np.ndarray, list[str]]:
    """Which of a sweep's points its curve and forecasts take: those with a rate and a latency
    (and a concurrency sweep's count in flight), less a concurrency sweep's stalled steps
    (:func:`unstalled_steps`: rerun them); and the notes naming those left out."""
    ok = np.isfinite(iops) & np.isfinite(lat) & (iops > 0) & (lat > 0)
    if kind != KIND_CONCURRENCY:
        return ok, []
    conc = pd.to_numeric(run["configured"], errors="coerce").to_numpy(float)
    ok &= np.isfinite(conc) & (conc > 0)
    keep, said = unstalled_steps(conc[ok], iops[ok])
    ok[ok] = keep
    return ok, said


def latency_past_the_data(
    run: pd.DataFrame, kind: str, lat_slo_ms: float, known: KnownLimits
) -> LatencyPast | None:
    """The forecast of a sweep's latency past its measured latencies, toward an objective
    above them: the one a report states (:func:`key_numbers`) and draws
    (:func:`anfperf.plots.curves.latency_curve`).

    Parameters
    ----------
    run : pandas.DataFrame
        The sweep's summary rows (:func:`anfperf.analysis.summary_rows`).
    kind : str
        Its kind (:data:`KIND_CONCURRENCY`: along its concurrency forecast first;
        :data:`KIND_RATE`: latency against load).
    lat_slo_ms : float
        The latency objective [ms].
    known : KnownLimits
        The volume's and clients' limit at its block size (:func:`run_known_limits`).

    Returns
    -------
    anfperf.models.forecast.past.LatencyPast or None
        None for another kind or fewer than 3 points. Its IOPS at the objective is what a
        report states where the objective lies above the latencies measured.
    """
    if kind not in (KIND_CONCURRENCY, KIND_RATE):
        return None
    iops = pd.to_numeric(run["iops"], errors="coerce").to_numpy(float)
    lat = pd.to_numeric(run["lat_mean_ms"], errors="coerce").to_numpy(float)
    ok, _ = _fitted_points(run, kind, iops, lat)
    if ok.sum() < 3:
        return None
    conc = pd.to_numeric(run["configured"], errors="coerce").to_numpy(float)[ok]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the volume's latency, however many I/Os in flight would drive it: Little's law caps
        # the loop that measured, not what more threads give (RndReadCurve's 32 threads
        # cannot wait 1 ms above 32,000 IOPS; its volume can)
        return latency_past(iops[ok], lat[ok], lat_slo_ms, known,
                            concurrency=conc if kind == KIND_CONCURRENCY else None)  # fmt: skip


def _stated_past(numbers: dict, past: LatencyPast, lat_slo_ms: float) -> list[str]:
    """The IOPS at an SLO above the measured latencies, with its band, from the forecast past
    the data (:func:`latency_past_the_data`), not the fitted curve read that far: that is
    unbounded (the USL of a SATA SSD's rising lower half: 10**28 IOPS at 0.9 ms) and has no
    band (on 378 public sweeps' lower halves, 1,122 objectives past their latencies: the
    concurrency forecast a number on 773, median error 0.4 %, its band holding 98 %; the USL
    where kept 3.0 %, largest 291 %)."""
    curve = numbers["iops_at_slo_model"]
    if past.why:
        return _no_slo_number(numbers, lat_slo_ms, past.why)
    est, least, most = past.iops_at_slo
    numbers.update(iops_at_slo_model=est, iops_at_slo_low=least, iops_at_slo_high=most,
                   iops_at_slo_why="")  # fmt: skip
    fitted = f"; the fitted curve alone reads {curve:,.0f}" if math.isfinite(curve) else ""
    if past.in_flight:
        source = f"the concurrency forecast ({past.basis}) by Little's law"
    elif past.bound:
        source = "the queueing curve of the known limit"
        fitted = f"; {past.bound}, unless the clients or the device bind sooner"
    else:
        source = "the queueing curve the points fit, past them"
    return [f"IOPS at the {lat_slo_ms:g} ms SLO from {source}: {est:,.0f} "
            f"({band_words(least, most)}){fitted}"]  # fmt: skip


#: A band whose upper edge is this many times its lower bounds it below only, in words.
LOOSE_BAND = 4.0


def slo_source_words(
    how: str, band: tuple[float, float] | None, number: Callable[[float], str] = "{:,.0f}".format
) -> str:
    """Where a stated IOPS at the SLO comes from, in words (`how` and `band` of
    :func:`stated_iops_at_slo`): 'measured', 'forecast past the measured loads, 95 % band ...'
    or 'fitted curve, beyond the measured loads'."""
    if how == SLO_FORECAST and band is not None:
        return f"forecast past the measured loads, 95 % band {band_words(*band, number)}"
    return "fitted curve, beyond the measured loads" if how == SLO_FITTED else how


def band_words(low: float, high: float, number: Callable[[float], str] = "{:,.0f}".format) -> str:
    """A band of IOPS in words (`number` writes each edge): '68,933 .. 91,270'; 'at least
    13,349, no most from these data' where its upper edge is unbounded; 'at least 75,935, up
    to 1,078,239: the data hardly bound it above' where that edge is :data:`LOOSE_BAND` x its
    lower or more (a reader plans on the least, not on a number 14 x it). No parentheses: a
    report puts the band in its own."""
    if math.isinf(high):
        return f"at least {number(low)}, no most from these data"
    if high >= LOOSE_BAND * low:
        return f"at least {number(low)}, up to {number(high)}: the data hardly bound it above"
    return f"{number(low)} .. {number(high)}"


def _slo_below_the_data(
    run: pd.DataFrame,
    kind: str,
    numbers: dict,
    iops: np.ndarray,
    ok: np.ndarray,
    lat_slo_ms: float,
    known: KnownLimits,
) -> list[str]:
    """The model's IOPS at an SLO below the lightest load's latency: a load curve's on the
    queueing curve of the known limit (none where no limit binds: the fitted curve's); a
    concurrency sweep's fitted one where its forecast can tell."""
    if ok.sum() < 3 or math.isnan(numbers["iops_at_slo_model"]) and kind != KIND_RATE:
        return []
    if kind == KIND_RATE:
        past = latency_past_the_data(run, kind, lat_slo_ms, known)
        if not past.drawn:
            return _no_slo_number(numbers, lat_slo_ms, past.why)
        if past.bound is None:
            return []
        est, low, high = past.iops_at(lat_slo_ms)
        numbers.update(iops_at_slo_model=est, iops_at_slo_low=low, iops_at_slo_high=high)
        return [f"IOPS at the {lat_slo_ms:g} ms SLO from the queueing curve of the known limit: "
                f"{est:,.0f} ({low:,.0f} .. {high:,.0f}; {known.limit})"]  # fmt: skip
    conc = pd.to_numeric(run["configured"], errors="coerce").to_numpy(float)
    try:
        fc = forecast_throughput(conc[ok], iops[ok], [float(np.nanmax(conc[ok]))], known,
                                 draws=DECISION_DRAWS)  # fmt: skip
    except ModelError as exc:
        return _no_slo_number(numbers, lat_slo_ms, f"no forecast ({exc})")
    return [] if fc.predictable else _no_slo_number(numbers, lat_slo_ms, fc.says())


def _no_slo_number(numbers: dict, lat_slo_ms: float, why: str) -> list[str]:
    """No model number for the IOPS at the SLO, and the note saying why (also in
    `iops_at_slo_why`, for a report to state instead of a number)."""
    numbers.update(iops_at_slo_model=math.nan, iops_at_slo_low=math.nan,
                   iops_at_slo_high=math.nan, iops_at_slo_why=why)  # fmt: skip
    return [f"IOPS at the {lat_slo_ms:g} ms SLO: {why}"]


def _load_axis(run: pd.DataFrame, kind: str, iops: np.ndarray) -> np.ndarray:
    """The load that drove each point: configured outstanding I/O (concurrency sweep), the
    requested rate (load curve; the uncontrolled step, without one, is the highest)."""
    if kind == KIND_RATE:
        rate = pd.to_numeric(run["rate_limit_iops"], errors="coerce").to_numpy(float)
        return np.where(np.isfinite(rate), rate, np.inf)
    conc = pd.to_numeric(run["configured"], errors="coerce").to_numpy(float)
    return np.where(np.isfinite(conc), conc, np.inf) if np.isfinite(conc).any() else iops


def _measured_numbers(
    run: pd.DataFrame,
    kind: str,
    iops: np.ndarray,
    bw: np.ndarray,
    lat: np.ndarray,
    lat_slo_ms: float,
) -> dict:
    """The run's numbers as measured; the fitted ones NaN until :func:`_curve_numbers`."""
    peak = int(np.nanargmax(iops)) if np.isfinite(iops).any() else None
    return {
        "run_id": run["run_id"].iloc[0],
        "tool": _distinct_values(run, "tool"),
        "kind": kind,
        "points": len(run),
        "peak_iops": iops[peak] if peak is not None else math.nan,
        "peak_bw_mib_s": float(np.nanmax(bw)) if np.isfinite(bw).any() else math.nan,
        "lat_at_peak_ms": lat[peak] if peak is not None else math.nan,
        "lat_min_ms": float(np.nanmin(lat)) if np.isfinite(lat).any() else math.nan,
        "lat_slo_ms": lat_slo_ms,
        "knee_iops": math.nan,
        "knee_lat_ms": math.nan,
        "iops_at_slo_measured": math.nan,
        "iops_at_slo_model": math.nan,
        "iops_at_slo_low": math.nan,
        "iops_at_slo_high": math.nan,
        "iops_at_slo_why": "",
        "fit_r2": math.nan,
        "notes": "",
    }


def _curve_numbers(
    fit, numbers: dict, iops: np.ndarray, lat: np.ndarray, lat_slo_ms: float
) -> list[str]:
    """Knee and IOPS at the SLO from a fitted curve, into `numbers`; notes on what was not."""
    notes = []
    numbers["fit_r2"] = fit.r2
    knee_x, knee_y = curve_knee(fit)
    if fit.r2 < MIN_R2:
        return [f"the latency curve fits poorly (R² {fit.r2:.2f}): no knee, not read at the SLO"]
    if not knee_x <= KNEE_REACH * np.nanmax(iops):
        where = f", {knee_x:,.0f} IOPS," if math.isfinite(knee_x) else ""
        notes.append(f"no knee within the measured loads (the fitted one{where} lies beyond them)")
    else:
        numbers.update(knee_iops=knee_x, knee_lat_ms=knee_y)
    numbers["iops_at_slo_model"] = curve_iops_at_latency(fit, lat_slo_ms)
    return notes


def _not_undercut(numbers: dict, iops: np.ndarray, lat: np.ndarray, lat_slo_ms: float) -> list[str]:
    """What was measured within the SLO is achievable whatever a model says: where the model's
    IOPS at the SLO falls short of it, the measured rate is the answer (a lower bound)."""
    model, within = numbers["iops_at_slo_model"], iops[lat <= lat_slo_ms]
    if not (math.isnan(numbers["iops_at_slo_measured"]) and within.size
            and model < within.max()):  # fmt: skip
        return []
    numbers["iops_at_slo_measured"] = float(within.max())
    how = SLO_FORECAST if math.isfinite(numbers["iops_at_slo_low"]) else SLO_FITTED
    return [f"the {how} reaches {lat_slo_ms:g} ms at {model:,.0f} IOPS, below the "
            f"{within.max():,.0f} IOPS measured within it: at least that is achievable"]  # fmt: skip


def latency_fit(iops: np.ndarray, lat_ms: np.ndarray):
    """The queueing curve of (load, latency) points, with its warnings kept as notes.

    Parameters
    ----------
    iops, lat_ms : numpy.ndarray
        Measured load [1/s] and mean latency [ms] of each whole-run row.

    Returns
    -------
    anfperf.models.FitResult
        :func:`anfperf.models.fit_queueing_latency`'s result; the warnings it raised are in
        its `notes` (not raised again: a report shows them as text).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_queueing_latency(iops, lat_ms)


def unstalled_steps(concurrency: np.ndarray, iops: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Which points of a concurrency sweep to fit: all but its stalled steps.

    A step whose mean rate is below half of both neighbouring steps' is a stalled run
    (:func:`anfperf.models.forecast.throughput.stalled_points`), not the curve.

    Returns
    -------
    (numpy.ndarray, list of str)
        A mask over the points (False: a stalled step's), and a note naming each step left out.
    """
    stalled, notes = stalled_points(concurrency, iops)
    return ~np.isin(concurrency, stalled), [f"{note} of the fit" for note in notes]


def concurrency_fit(concurrency: np.ndarray, iops: np.ndarray):
    """The USL of (concurrency, IOPS) points, with its warnings kept as notes.

    Returns
    -------
    anfperf.models.FitResult
        :func:`anfperf.models.fit_usl`'s result; warnings in its `notes`.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_usl(concurrency, iops)


def curve_knee(fit) -> tuple[float, float]:
    """Knee [IOPS, ms] of a fitted curve: where latency reaches twice its unloaded value.

    For a USL fit the unloaded latency is 1000 / lam [ms] (one I/O in flight); for a
    queueing fit it is lat_min_ms. NaN where the curve never gets there.
    """
    if fit.model == "usl":
        unloaded_ms = latency_at_concurrency(1.0, fit["lam"])  # one I/O in flight
        n = float(usl_concurrency_at_latency(KNEE_FACTOR * unloaded_ms, **fit))
        if not math.isfinite(n):
            return math.nan, math.nan
        return float(usl(n, **fit)), float(usl_latency_ms(n, **fit))
    return queueing_knee(**fit)


def curve_iops_at_latency(fit, lat_ms: float) -> float:
    """Most IOPS a fitted curve (USL or queueing) allows at a mean latency of `lat_ms`."""
    if fit.model == "usl":
        return float(usl_throughput_at_latency(lat_ms, **fit))
    return float(queueing_iops_at_latency(lat_ms, **fit))


def iops_at_latency_measured(
    iops: np.ndarray,
    lat_ms: np.ndarray,
    lat_slo_ms: float,
    *,
    load: np.ndarray | None = None,
) -> float:
    """The most IOPS measured to be achievable at a mean latency of `lat_slo_ms`.

    What it means: the highest rate a client can run at while the mean latency stays within
    the SLO, as far as the measured points show it. Going up the load axis, the point where the
    latency first reaches the SLO is found, and IOPS are interpolated linearly between it and
    the point before it (the rate at which the SLO is crossed). The answer is never less than
    the best IOPS measured at or below the SLO: a sweep driven past its peak (more outstanding
    I/O, fewer IOPS, more latency) crosses the SLO at fewer IOPS than it did at a lower load,
    and running at that lower load is what achieves the rate. So the result is

        max(IOPS interpolated at the crossing, max IOPS of the points with latency <= SLO)

    Parameters
    ----------
    iops, lat_ms : numpy.ndarray
        Measured rate [1/s] and mean latency [ms] of each point.
    lat_slo_ms : float
        Latency objective [ms].
    load : numpy.ndarray, optional
        The load that drove each point, in any unit: the configured outstanding I/O of a
        concurrency sweep, the requested rate of a load curve (+inf for an uncontrolled step).
        Points of equal load are taken in order of IOPS. None: IOPS is the load (right only
        for curves whose IOPS rise with the load).

    Returns
    -------
    float
        IOPS [1/s]; NaN when the points do not bracket the SLO: every one is below it (the
        data stop before it; a fitted curve has to say), or the one of lowest load is already
        above it.
    """
    x, y = np.asarray(iops, float), np.asarray(lat_ms, float)
    keys = x if load is None else np.asarray(load, float)
    order = np.lexsort((x, keys))  # by load, then IOPS
    x, y = x[order], y[order]
    above = np.nonzero(y >= lat_slo_ms)[0]
    if x.size < 2 or above.size == 0 or above[0] == 0:
        return math.nan
    i = int(above[0])
    x0, x1, y0, y1 = x[i - 1], x[i], y[i - 1], y[i]
    crossing = float(x0 + (lat_slo_ms - y0) * (x1 - x0) / (y1 - y0)) if y1 != y0 else float(x1)
    return max(crossing, float(x[y <= lat_slo_ms].max()))


def operating_point(
    frame: pd.DataFrame,
    *,
    run_id: str | None = None,
    rows: pd.DataFrame | None = None,
    kinds: pd.DataFrame | None = None,
) -> dict:
    """The whole-run point set against the ANF bandwidth model: the highest MiB/s measured.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    run_id : str, optional
        Only this run's points; None = those of every run no client cache served
        (:func:`run_kinds`' `cached`): a cache's rate says nothing about the volume.
    rows, kinds : pandas.DataFrame, optional
        :func:`anfperf.analysis.summary_rows` and :func:`run_kinds` of `frame`, when already
        worked out (:func:`analyse`).
    scenario : QuotaScenario, optional
        The volume and clients measured. Where the SLO lies past the measured points, the
        model's IOPS at it comes from :mod:`anfperf.models.forecast`, bounded by their limit
        at each run's block size; NaN, with the reason in `notes`, where the data cannot
        tell (a flat latency curve and no limit known).

    Returns
    -------
    dict
        run_id, job, step, label (``"run / job"``), bw_mib_s, iops, bs_kib, read_pct (100 when
        the tool did not say) and pattern (None when unknown) of that point; cached (whether
        its run was, which only a `run_id` asked for can be) and chosen (why this point, in
        words, naming the cached runs left out).

    Raises
    ------
    anfperf.AnfperfError
        No whole-run point with a throughput (or none of `run_id`), or every run was cached.
    """
    if rows is None:
        rows = summary_rows(frame)
    if kinds is None:
        kinds = run_kinds(frame, rows=rows)
    cached = set(kinds.loc[kinds["cached"].astype(bool), "run_id"].astype(str))
    if run_id is not None:
        rows = rows[rows["run_id"] == run_id]
        chosen = f"the highest whole-run throughput of run {run_id}"
        if run_id in cached:
            chosen += " (served from a client cache: not the volume's rate)"
    else:
        left_out = sorted(cached & set(rows["run_id"].astype(str)))
        rows = rows[~rows["run_id"].astype(str).isin(cached)]
        if rows.empty and left_out:
            raise AnfperfError(
                f"every run ({', '.join(left_out)}) was served from a client cache: none tells "
                "the volume's rate; name a run_id to set one against the ANF model anyway"
            )
        chosen = f"the highest whole-run throughput of {rows['run_id'].nunique()} run(s)"
        if left_out:
            chosen += f"; left out, served from a client cache: {', '.join(left_out)}"
    bw = pd.to_numeric(rows["bw_mib_s"], errors="coerce")
    if not bw.notna().any():
        where = f"run {run_id!r}" if run_id is not None else "the data"
        raise AnfperfError(f"no whole-run throughput in {where} to set against the ANF model")
    row = rows.loc[bw.idxmax()]
    read_pct = pd.to_numeric(row.get("read_pct"), errors="coerce")
    pattern = row.get("pattern")
    return {
        "run_id": str(row["run_id"]),
        "job": str(row["job"]),
        "step": int(row["step"]) if pd.notna(row.get("step")) else None,
        "label": f"{row['run_id']} / {row['job']}",
        "bw_mib_s": float(row["bw_mib_s"]),
        "iops": float(row["iops"]),
        "bs_kib": float(row["bs_kib"]),
        "read_pct": 100.0 if pd.isna(read_pct) else float(read_pct),
        "pattern": None if pd.isna(pattern) else str(pattern),
        "cached": str(row["run_id"]) in cached,
        "chosen": chosen,
    }


def quota_check(measured_bw_mib_s: float, scenario: QuotaScenario | None = None, **fields) -> dict:
    """A measured rate against the ANF bandwidth model of the same scenario.

    Parameters
    ----------
    measured_bw_mib_s : float
        Measured throughput [MiB/s].
    scenario : anfperf.models.QuotaScenario, optional
        The volume (its `level` at least), the clients and the I/O measured, as
        :func:`anfperf.models.predict_achievable` takes it (:meth:`anfperf.azure.AnfVolume.model_args`
        gives a volume's fields).
    **fields
        Fields of the scenario (``bs_kib=8, level="Premium", quota_tib=4``), or what to change
        in `scenario`.

    Returns
    -------
    dict
        binding (the binding constraint's name), predicted_bw_mib_s, measured_bw_mib_s,
        share_pct (measured as a percentage of the prediction), detail (how the binding limit
        was worked out) and constraints (predict_achievable's frame).
    """
    scenario = QuotaScenario.of(scenario, **fields)
    if scenario.level is None:
        raise ModelError("quota_check needs the volume's service level (level)")
    constraints = predict_achievable(scenario)
    binding = constraints[constraints["binding"]].iloc[0]
    predicted = float(binding["bw_mib_s"])
    return {
        "binding": str(binding["constraint"]),
        "predicted_bw_mib_s": predicted,
        "measured_bw_mib_s": float(measured_bw_mib_s),
        "share_pct": 100.0 * float(measured_bw_mib_s) / predicted if predicted > 0 else math.nan,
        "detail": str(binding["detail"]),
        "constraints": constraints,
    }


def anf_verdict_applies(
    data: pd.DataFrame | dict | Iterable[str | os.PathLike],
    level: str | None = None,
    quota_tib: float | None = None,
    *,
    run_id: str | None = None,
) -> tuple[bool, str]:
    """Whether a run may be judged against the ANF model of a level and quota, and why.

    What a storage engineer expects:

    - `level` and `quota_tib` both given: the verdict applies, as asked (where the runner's
      manifest shows no NFS mount, the reason says so).
    - Not given, and the runner's manifests (``<run>/manifest.json``) show every volume of
      the run on an NFS mount: it applies; the reason names the mounts.
    - Not given, and a manifest shows a volume on no NFS mount (a local disk, as the demo
      measures): no verdict, reason ``"run on a local file system (<path> is on no NFS mount),
      not an NFS mount of ANF"``: an ANF quota says nothing about a local disk.
    - Not given and no manifest (plain result files: where the I/O went is not recorded): it
      applies, against an assumed volume; the reason says the level and quota were assumed.

    Parameters
    ----------
    data : pandas.DataFrame, dict or iterable of path-like
        A tidy frame (its manifests are looked for above its source files,
        :func:`anfperf.analysis.provenance.find_manifests`), :func:`anfperf.analysis.provenance.run_provenance`'s
        dict, or manifest paths.
    level : str, optional
        Service level given for the volume; None = not given.
    quota_tib : float, optional
        Volume quota given [TiB]; None = not given.
    run_id : str, optional
        Only this run's manifest; None = every manifest found.

    Returns
    -------
    (bool, str)
        Whether to state an ANF verdict, and the reason in words.
    """
    from anfperf.analysis import provenance

    given = level is not None and quota_tib is not None
    volumes = provenance.volumes_table(_manifests(data))
    if run_id is not None:
        volumes = volumes[volumes["run_id"].astype(str) == str(run_id)]
    local = volumes[volumes["nfs_mount"].isna()]
    if not local.empty:
        paths = ", ".join(sorted(set(local["path"])))
        where = f"run on a local file system ({paths} is on no NFS mount)"
        if given:
            return True, (
                f"{level} at {quota_tib:g} TiB as given, although the manifest shows the {where}"
            )
        return False, f"{where}, not an NFS mount of ANF: no ANF quota verdict"
    if given:
        return True, f"{level} at {quota_tib:g} TiB as given"
    if volumes.empty:
        return True, (
            "no runner manifest says where the I/O went: compared with an assumed ANF volume "
            "(level and quota assumed, not given)"
        )
    mounts = sorted(set(volumes["nfs_mount"] + " (" + volumes["nfs_source"].fillna("") + ")"))
    return True, (f"run on NFS mount(s) {', '.join(mounts)}; level and quota assumed, not given")


def _manifests(data: pd.DataFrame | dict | Iterable[str | os.PathLike]) -> list:
    """Manifest paths of a tidy frame, a run_provenance dict or paths."""
    from anfperf.analysis import provenance

    if isinstance(data, pd.DataFrame):
        files = data["source_file"].dropna().astype(str).unique() if "source_file" in data else []
        return provenance.find_manifests(f for f in files if os.path.exists(f))
    if isinstance(data, dict):
        table = data.get("manifests")
        return [] if table is None or table.empty else list(table["manifest"])
    return provenance.find_manifests(data)


#: How a report names the source of the IOPS at the SLO it states.
SLO_MEASURED, SLO_FORECAST, SLO_FITTED = "measured", "forecast", "fitted curve"


def stated_iops_at_slo(row: pd.Series) -> tuple[float, str, tuple[float, float] | None]:
    """The IOPS at the SLO a report states for a run: measured where the points reach it,
    else the model's.

    Parameters
    ----------
    row : pandas.Series
        The run's row of :func:`key_numbers`.

    Returns
    -------
    (float, str, tuple of float or None)
        The rate [IOPS] (NaN: none to state), its source (:data:`SLO_MEASURED`;
        :data:`SLO_FORECAST`, a forecast past the measured loads that has a 95 % band; or
        :data:`SLO_FITTED`, the fitted curve read within them or without a band), and the
        band [IOPS] of a forecast, else None.
    """
    measured = float(row.get("iops_at_slo_measured", math.nan))
    if math.isfinite(measured):
        return measured, SLO_MEASURED, None
    model = float(row.get("iops_at_slo_model", math.nan))
    low, high = (float(row.get(c, math.nan)) for c in ("iops_at_slo_low", "iops_at_slo_high"))
    if math.isfinite(model) and math.isfinite(low) and not math.isnan(high):
        return model, SLO_FORECAST, (low, high)
    return model, SLO_FITTED, None


def sentences(
    numbers: pd.DataFrame,
    quota: dict | None = None,
    *,
    verdict: tuple[bool, str] | None = None,
) -> list[str]:
    """The report's conclusions, in words, from :func:`key_numbers` (and :func:`quota_check`).

    Runs served from a client cache (`cached`) come after the others, said apart, with the
    reason. With `verdict` (:func:`anf_verdict_applies`) False, `quota` is not stated: the
    reason why no ANF verdict is given is.

    Raises
    ------
    anfperf.AnfperfError
        `numbers` has no rows.
    """
    if numbers.empty:
        raise AnfperfError("no runs to conclude from")
    out = []
    cached = cached_runs(numbers)
    for row in numbers[~cached].itertuples(index=False):
        text = (
            f"{row.run_id} ({row.kind}, {row.points} point{'s' if row.points != 1 else ''}): peak {row.peak_iops:,.0f} IOPS "
            f"and {row.peak_bw_mib_s:,.1f} MiB/s; mean latency {row.lat_at_peak_ms:.3g} ms at "
            "the IOPS peak"
        )
        if not math.isnan(row.knee_iops):
            text += f"; knee at {row.knee_iops:,.0f} IOPS ({row.knee_lat_ms:.3g} ms)"
        slo, how, band = stated_iops_at_slo(pd.Series(row._asdict()))
        if how == SLO_MEASURED:
            text += f"; {slo:,.0f} IOPS at the {row.lat_slo_ms:g} ms SLO (measured)"
        elif band is not None:
            text += (f"; {slo:,.0f} IOPS ({band_words(*band)}) at the "
                     f"{row.lat_slo_ms:g} ms SLO (forecast past the measured loads)")  # fmt: skip
        elif not math.isnan(slo):
            text += f"; {slo:,.0f} IOPS at the {row.lat_slo_ms:g} ms SLO ({slo_source_words(how, band)})"
        elif row.iops_at_slo_why:
            text += f"; IOPS at the {row.lat_slo_ms:g} ms SLO: {row.iops_at_slo_why}"
        out.append(text + ".")
    for row in numbers[cached].itertuples(index=False):
        out.append(
            f"{row.run_id} was served from a client cache, not the volume, and is left out of "
            f"the peak ({row.cache_reason}): {row.peak_iops:,.0f} IOPS and "
            f"{row.peak_bw_mib_s:,.1f} MiB/s at {row.lat_at_peak_ms:.3g} ms."
        )
    if verdict is not None and not verdict[0]:
        out.append(f"No ANF verdict: {verdict[1]}.")
    elif quota is not None:
        out.append(
            f"Against the ANF model the measured {quota['measured_bw_mib_s']:,.1f} MiB/s is "
            f"{quota['share_pct']:.0f} % of the predicted {quota['predicted_bw_mib_s']:,.1f} "
            f"MiB/s; the binding constraint is {constraint_phrase(quota['binding'])} "
            f"({quota['detail']})."
        )
        if quota["share_pct"] > OVER_MODEL_PCT:
            out.append(
                "The measured rate is far above what the model allows this volume: the data "
                "are not from an ANF volume of this level and quota, or a client cache served "
                "the I/O (buffered rather than direct I/O)."
            )
    return out
