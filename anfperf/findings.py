"""Conclusions computed from measured runs: peak, knee, IOPS at a latency SLO, what binds.

A report states its conclusions from these functions, never from hand-written text:

- :func:`run_kinds` tells what each run is: a concurrency sweep (threads / iodepth steps), a
  load curve (rate-limited steps, Vdbench ``iorate=curve``), a read/write-mix sweep, or single
  points. The report draws the charts that apply to each kind.
- :func:`key_numbers` gives one row per run: peak IOPS and MiB/s, the knee of its
  latency-vs-load curve and the IOPS at a latency SLO, read off the measured points and a
  fitted curve: the USL for concurrency sweeps (:func:`anfperf.models.fit_usl`, latency by
  Little's law), the queueing curve for load curves (:func:`anfperf.models.fit_queueing_latency`).
- :func:`quota_check` sets a measured rate against the ANF bandwidth model
  (:func:`anfperf.models.predict_achievable`) and names the binding constraint.
- :func:`sentences` turns those numbers into the report's conclusions.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from anfperf.errors import AnfperfError, ModelError
from anfperf.models import (
    fit_queueing_latency,
    fit_usl,
    predict_achievable,
    queueing_iops_at_latency,
    queueing_knee,
    summary_rows,
    usl,
    usl_concurrency_at_latency,
    usl_latency_ms,
    usl_throughput_at_latency,
)
from anfperf.models.queueing import KNEE_FACTOR
from anfperf.units import MS_PER_S

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
KIND_SINGLE = "single points"

KEY_COLUMNS = [
    "run_id", "tool", "kind", "points", "peak_iops", "peak_bw_mib_s", "lat_at_peak_ms",
    "lat_min_ms", "knee_iops", "knee_lat_ms", "lat_slo_ms", "iops_at_slo_measured",
    "iops_at_slo_model", "fit_r2", "notes",
]  # fmt: skip


def run_kinds(frame: pd.DataFrame) -> pd.DataFrame:
    """What each run of a tidy frame is, from its whole-run rows.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).

    Returns
    -------
    pandas.DataFrame
        One row per run: run_id, tool, kind (:data:`KIND_CONCURRENCY`, :data:`KIND_RATE`,
        :data:`KIND_MIX` or :data:`KIND_SINGLE`), points (whole-run rows), hosts (distinct
        client hosts, the 'all' aggregate left out).
    """
    rows = summary_rows(frame)
    out = []
    for run_id, run in rows.groupby("run_id", sort=True):
        out.append(
            {
                "run_id": run_id,
                "tool": _first(run, "tool"),
                "kind": _kind(run),
                "points": len(run),
                "hosts": _hosts(frame, run_id),
            }
        )
    return pd.DataFrame(out, columns=["run_id", "tool", "kind", "points", "hosts"])


def _first(rows: pd.DataFrame, col: str) -> str:
    values = rows[col].dropna().astype(str).unique() if col in rows else []
    return ", ".join(sorted(values)) if len(values) else ""


def _hosts(frame: pd.DataFrame, run_id: str) -> int:
    hosts = frame.loc[frame["run_id"] == run_id, "host"].dropna().astype(str)
    return int(hosts[hosts != "all"].nunique()) or 1


def _distinct(rows: pd.DataFrame, col: str) -> int:
    return int(pd.to_numeric(rows[col], errors="coerce").dropna().nunique()) if col in rows else 0


def _swept(run: pd.DataFrame, col: str, fixed: list[str]) -> bool:
    """Whether `col` takes MIN_SWEEP_POINTS or more values among rows alike in `fixed`."""
    keys = [run[c].astype(object).where(run[c].notna(), "") for c in fixed if c in run]
    groups = run.groupby(keys, dropna=False) if keys else [(None, run)]
    return any(_distinct(g, col) >= MIN_SWEEP_POINTS for _, g in groups)


def _kind(run: pd.DataFrame) -> str:
    if _distinct(run, "rate_limit_iops") >= MIN_SWEEP_POINTS - 1 and len(run) >= MIN_SWEEP_POINTS:
        return KIND_RATE  # curve steps: a few rate-limited points and the uncontrolled maximum
    # a sweep varies one thing: the points compared share the block size (and, for a
    # concurrency sweep, the read share); a run of different workloads is no sweep
    if _swept(run, "read_pct", ["bs_kib"]):
        return KIND_MIX
    if _swept(run, "configured", ["bs_kib", "read_pct"]):
        return KIND_CONCURRENCY
    return KIND_SINGLE


def key_numbers(frame: pd.DataFrame, *, lat_slo_ms: float = 1.0) -> pd.DataFrame:
    """The headline numbers of every run: peak, knee, IOPS at the latency SLO.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    lat_slo_ms : float
        Latency objective [ms] (mean response time).

    Returns
    -------
    pandas.DataFrame
        One row per run, columns :data:`KEY_COLUMNS`: peak IOPS [1/s] and MiB/s over its
        whole-run rows, the mean latency at the IOPS peak [ms], the lowest latency [ms]; for
        concurrency sweeps and load curves also the knee (load [1/s] and latency [ms] where the
        fitted queueing curve reaches twice its unloaded latency), the IOPS at `lat_slo_ms`
        interpolated between measured points (NaN when the SLO lies outside them) and from
        the fitted curve, and the fit's R^2. `notes` says what could not be worked out and why.
    """
    if not lat_slo_ms > 0:
        raise ModelError(f"lat_slo_ms must be > 0, got {lat_slo_ms!r}")
    rows = summary_rows(frame)
    kinds = run_kinds(frame).set_index("run_id")
    out = []
    for run_id, run in rows.groupby("run_id", sort=True):
        out.append(_run_numbers(run, str(kinds.loc[run_id, "kind"]), lat_slo_ms))
    return pd.DataFrame(out, columns=KEY_COLUMNS)


def _run_numbers(run: pd.DataFrame, kind: str, lat_slo_ms: float) -> dict:
    iops = pd.to_numeric(run["iops"], errors="coerce").to_numpy(float)
    bw = pd.to_numeric(run["bw_mib_s"], errors="coerce").to_numpy(float)
    lat = pd.to_numeric(run["lat_mean_ms"], errors="coerce").to_numpy(float)
    numbers = _measured_numbers(run, kind, iops, bw, lat, lat_slo_ms)
    if kind not in (KIND_CONCURRENCY, KIND_RATE):
        return numbers
    ok = np.isfinite(iops) & np.isfinite(lat) & (iops > 0) & (lat > 0)
    numbers["iops_at_slo_measured"] = iops_at_latency_measured(iops[ok], lat[ok], lat_slo_ms)
    notes = []
    try:
        if kind == KIND_CONCURRENCY:
            # a closed loop: throughput against the concurrency that drove it (USL); latency
            # follows by Little's law. A latency-vs-load curve cannot bend back, as the
            # throughput of an over-driven device does
            conc = pd.to_numeric(run["configured"], errors="coerce").to_numpy(float)
            ok &= np.isfinite(conc) & (conc > 0)
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
    numbers["notes"] = "; ".join(notes)
    return numbers


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
        "tool": _first(run, "tool"),
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
        return [f"the latency curve fits poorly (R^2 {fit.r2:.2f}): no knee, no model SLO"]
    if not knee_x <= KNEE_REACH * np.nanmax(iops):
        where = f", {knee_x:,.0f} IOPS," if math.isfinite(knee_x) else ""
        notes.append(f"no knee within the measured loads (the fitted one{where} lies beyond them)")
    else:
        numbers.update(knee_iops=knee_x, knee_lat_ms=knee_y)
    model = curve_iops_at_latency(fit, lat_slo_ms)
    numbers["iops_at_slo_model"] = model
    # what was measured within the SLO is achievable whatever the curve says: where the curve
    # falls short of it, the measured rate is the answer (a lower bound)
    within = iops[lat <= lat_slo_ms]
    if math.isnan(numbers["iops_at_slo_measured"]) and within.size and model < within.max():
        numbers["iops_at_slo_measured"] = float(within.max())
        notes.append(
            f"the fitted curve reaches {lat_slo_ms:g} ms at {model:,.0f} IOPS, below the "
            f"{within.max():,.0f} IOPS measured within it: at least that is achievable"
        )
    return notes


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
        n = float(usl_concurrency_at_latency(KNEE_FACTOR * MS_PER_S / fit["lam"], **fit))
        if not math.isfinite(n):
            return math.nan, math.nan
        return float(usl(n, **fit)), float(usl_latency_ms(n, **fit))
    return queueing_knee(**fit)


def curve_iops_at_latency(fit, lat_ms: float) -> float:
    """Most IOPS a fitted curve (USL or queueing) allows at a mean latency of `lat_ms`."""
    if fit.model == "usl":
        return float(usl_throughput_at_latency(lat_ms, **fit))
    return float(queueing_iops_at_latency(lat_ms, **fit))


def iops_at_latency_measured(iops: np.ndarray, lat_ms: np.ndarray, lat_slo_ms: float) -> float:
    """Load at which the measured latency first reaches `lat_slo_ms`, linearly interpolated.

    Points are taken in order of load; NaN when every point is below the SLO (the data stop
    before it) or the first is already above it.
    """
    order = np.argsort(iops, kind="stable")
    x, y = np.asarray(iops, float)[order], np.asarray(lat_ms, float)[order]
    above = np.nonzero(y >= lat_slo_ms)[0]
    if x.size < 2 or above.size == 0 or above[0] == 0:
        return math.nan
    i = int(above[0])
    x0, x1, y0, y1 = x[i - 1], x[i], y[i - 1], y[i]
    return float(x0 + (lat_slo_ms - y0) * (x1 - x0) / (y1 - y0)) if y1 != y0 else float(x1)


def operating_point(frame: pd.DataFrame, *, run_id: str | None = None) -> dict:
    """The whole-run point set against the ANF bandwidth model: the highest MiB/s measured.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    run_id : str, optional
        Only this run's points; None = every run's.

    Returns
    -------
    dict
        run_id, job, step, label (``"run / job"``), bw_mib_s, iops, bs_kib, read_pct (100 when
        the tool did not say) and pattern (None when unknown) of that point.

    Raises
    ------
    anfperf.AnfperfError
        No whole-run point with a throughput (or none of `run_id`).
    """
    rows = summary_rows(frame)
    if run_id is not None:
        rows = rows[rows["run_id"] == run_id]
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
    }


def quota_check(
    measured_bw_mib_s: float,
    *,
    bs_kib: float,
    level: str,
    quota_tib: float,
    read_pct: float = 100.0,
    volume_type: str = "regular",
    rule: str = "current",
    pattern: str | None = None,
    vm_size: str | None = None,
    vm_count: int = 1,
    nconnect: int = 1,
) -> dict:
    """A measured rate against the ANF bandwidth model of the same scenario.

    Parameters
    ----------
    measured_bw_mib_s : float
        Measured throughput [MiB/s].
    bs_kib, level, quota_tib, read_pct, volume_type, rule, pattern, vm_size, vm_count, nconnect
        The scenario, as in :func:`anfperf.models.predict_achievable`.

    Returns
    -------
    dict
        binding (the binding constraint's name), predicted_bw_mib_s, measured_bw_mib_s,
        share_pct (measured as a percentage of the prediction), detail (how the binding limit
        was worked out) and constraints (predict_achievable's frame).
    """
    constraints = predict_achievable(
        bs_kib=bs_kib, read_pct=read_pct, level=level, quota_tib=quota_tib,
        volume_type=volume_type, rule=rule, pattern=pattern, vm_size=vm_size,
        vm_count=vm_count, nconnect=nconnect,
    )  # fmt: skip
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


def sentences(numbers: pd.DataFrame, quota: dict | None = None) -> list[str]:
    """The report's conclusions, in words, from :func:`key_numbers` (and :func:`quota_check`).

    Raises
    ------
    anfperf.AnfperfError
        `numbers` has no rows.
    """
    if numbers.empty:
        raise AnfperfError("no runs to conclude from")
    out = []
    for row in numbers.itertuples(index=False):
        text = (
            f"{row.run_id} ({row.kind}, {row.points} point{'s' if row.points != 1 else ''}): peak {row.peak_iops:,.0f} IOPS "
            f"and {row.peak_bw_mib_s:,.1f} MiB/s; mean latency {row.lat_at_peak_ms:.3g} ms at "
            "the IOPS peak"
        )
        if not math.isnan(row.knee_iops):
            text += f"; knee at {row.knee_iops:,.0f} IOPS ({row.knee_lat_ms:.3g} ms)"
        slo = row.iops_at_slo_measured
        if not math.isnan(slo):
            text += f"; {slo:,.0f} IOPS at the {row.lat_slo_ms:g} ms SLO (measured)"
        elif not math.isnan(row.iops_at_slo_model):
            text += (
                f"; {row.iops_at_slo_model:,.0f} IOPS at the {row.lat_slo_ms:g} ms SLO "
                "(fitted curve, outside the measured range)"
            )
        out.append(text + ".")
    if quota is not None:
        out.append(
            f"Against the ANF model the measured {quota['measured_bw_mib_s']:,.1f} MiB/s is "
            f"{quota['share_pct']:.0f} % of the predicted {quota['predicted_bw_mib_s']:,.1f} "
            f"MiB/s; the binding constraint is the {quota['binding']} ({quota['detail']})."
        )
        if quota["share_pct"] > OVER_MODEL_PCT:
            out.append(
                "The measured rate is far above what the model allows this volume: the data "
                "are not from an ANF volume of this level and quota, or a client cache served "
                "the I/O (buffered rather than direct I/O)."
            )
    return out
