"""Ingested runs checked against Little's law: the I/Os in flight measured against those configured."""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from anfperf.analysis.sweep import summary_rows
from anfperf.errors import ModelError
from anfperf.models.littles_law import outstanding_io

__all__ = ["VERDICTS", "check_concurrency"]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer


log = logging.getLogger(__name__)


#: Verdicts of :func:`check_concurrency`, and what each means.
VERDICTS = {
    "ok": "measured in-flight I/O matches the configuration: the storage's latency set the rate",
    "client-limited": "fewer I/Os in flight than configured: the client (CPU, submission path, "
    "think time) limited the rate, not the storage",
    "rate-limited": "fewer I/Os in flight than configured because the run asked for a fixed rate",
    "above-configured": "more I/Os in flight than configured: the configuration under-counts "
    "(e.g. Vdbench threads are per SD, or hosts are not counted)",
    "unknown": "no configured concurrency, rate or latency to compare",
}


def check_concurrency(frame: pd.DataFrame, *, tolerance: float = 0.2) -> pd.DataFrame:
    """Check ingested runs against Little's law: measured in-flight I/O vs configured.

    For every whole run (one row per run x job step, all directions and hosts together),
    ``iops x lat_mean_ms / 1000`` is the concurrency the storage actually saw. Compared with the
    configured outstanding I/O (threads; iodepth x numjobs; x hosts), it tells whether the run
    kept its I/Os in flight -- if not, the client, not the storage, was the limit.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    tolerance : float
        Relative band around 1 within which the ratio counts as 'ok' [-].

    Returns
    -------
    pandas.DataFrame
        One row per run:

        ====================  ====  ==========================================================
        column                unit  meaning
        ====================  ====  ==========================================================
        run_id, job, step           the run (as in the tidy frame)
        iops                  1/s   measured rate, all directions
        lat_mean_ms           ms    IOPS-weighted mean latency
        configured                  configured outstanding I/O over all hosts
        measured                    iops x lat_mean_ms / 1000 (Little's law)
        queue_depth                 the tool's own mean queue depth, where reported
        ratio                       measured / configured
        rate_limited                a fixed rate was requested (rate_limit_iops)
        verdict                     a key of :data:`VERDICTS`
        ====================  ====  ==========================================================
    """
    if tolerance <= 0 or not math.isfinite(tolerance):
        raise ModelError("tolerance must be a positive number")
    rows = summary_rows(frame)
    iops = _numeric(rows, "iops")
    lat = _numeric(rows, "lat_mean_ms")
    configured = rows["configured"].astype(float)
    measured = pd.Series(outstanding_io(iops, lat), index=rows.index)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = measured / configured.where(configured > 0)
    rate = _numeric(rows, "rate_limit_iops")
    rate_limited = rate.notna() & (rate > 0)
    verdict = pd.Series("unknown", index=rows.index, dtype=object)
    known = ratio.notna() & np.isfinite(ratio)
    verdict[known & (ratio > 1 + tolerance)] = "above-configured"
    verdict[known & (ratio >= 1 - tolerance) & (ratio <= 1 + tolerance)] = "ok"
    low = known & (ratio < 1 - tolerance)
    verdict[low & rate_limited] = "rate-limited"
    verdict[low & ~rate_limited] = "client-limited"
    out = pd.DataFrame(
        {
            "run_id": rows["run_id"] if "run_id" in rows else "",
            "job": rows["job"] if "job" in rows else "",
            "step": rows["step"] if "step" in rows else pd.NA,
            "iops": iops,
            "lat_mean_ms": lat,
            "configured": configured,
            "measured": measured,
            "queue_depth": _numeric(rows, "queue_depth"),
            "ratio": ratio,
            "rate_limited": rate_limited,
            "verdict": verdict,
        }
    )
    flagged = out[out["verdict"] == "client-limited"]
    if not flagged.empty:
        log.info("%d of %d runs look client-limited", len(flagged), len(out))
    return out.reset_index(drop=True)


def _numeric(rows: pd.DataFrame, name: str) -> pd.Series:
    if name not in rows:
        return pd.Series(np.nan, index=rows.index, dtype=float)
    return pd.to_numeric(rows[name], errors="coerce").astype(float)
