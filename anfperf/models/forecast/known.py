"""What is known about a volume before its curve is fitted: its limit, its clients' and its
published load-latency shape.

A sweep measured below a volume's limit cannot show where the curve bends; the limit can. The
least documented limit of the volume and its clients (QoS throughput, volume-type cap, VM
egress, NFS in flight: :func:`anfperf.models.predict_achievable`'s rows of kind 'limit') bounds
every prediction, and ANF's published load-latency curves (SPECstorage Solution 2020 results,
``anfperf/data/anf_latency.csv``) give the shape latency takes on the way to it:
``R = lat_light_ms / (1 - U**shape)`` with ``U = load / limit`` (the M/M/m approximation of
:func:`anfperf.models.queueing_latency`, the shape the number of servers).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from anfperf.errors import ModelError
from anfperf.models.limits.predict import predict_achievable
from anfperf.models.limits.scenario import QuotaScenario
from anfperf.models.tables import load_table

#: Measured rates above a limit by more than this share show that it does not bind there.
LIMIT_SLACK = 0.02
#: Standard errors either side of each published shape its range spans.
SHAPE_SPREAD_SE = 2.0


@dataclass(frozen=True)
class LatencyShape:
    """How sharply ANF's latency rises toward its limit (the `servers` of the queueing curve).

    Attributes
    ----------
    typical : float
        Mean of the published curves' shapes [-].
    low, high : float
        The range the published curves allow (each shape +- 2 standard errors) [-].
    lat_light_ms : float
        Mean light-load latency of the published curves [ms].
    lat_light_low_ms, lat_light_high_ms : float
        Their range [ms].
    sources : str
        The results the numbers come from.
    light_basis : str
        Which results the light-load latency comes from (a volume type's own, or all of them
        when none of that type is published).
    """

    typical: float
    low: float
    high: float
    lat_light_ms: float
    lat_light_low_ms: float
    lat_light_high_ms: float
    sources: str
    light_basis: str = "all published curves"


@functools.cache
def published_shape(volume_type: str | None = None) -> LatencyShape:
    """The load-latency shape of ANF's published curves (``anfperf/data/anf_latency.csv``).

    Parameters
    ----------
    volume_type : str, optional
        'regular', 'large' or 'breakthrough': the light-load latency of that volume type's
        curves when any is published (the shape is always every curve's: it is how the rise
        goes, which the volume types share within their ranges); None or a type without a
        published curve: every curve's.

    Returns
    -------
    LatencyShape
        `light_basis` says which curves the light-load latency comes from.
    """
    table = load_table("anf_latency")
    m, se = table["shape_servers"].astype(float), table["shape_se"].astype(float)
    own = table
    basis = "all published curves"
    if volume_type is not None:
        kind = str(volume_type).strip().lower()
        rows = table[table["volume_type"].astype(str).str.lower() == kind]
        if not rows.empty:
            own = rows
            basis = f"{kind} volumes' published curves ({', '.join(rows['result'].astype(str))})"
        else:
            basis = f"all published curves (none of a {kind} volume is published)"
    light = own["lat_light_ms"].astype(float)
    return LatencyShape(
        typical=float(m.mean()),
        low=float((m - SHAPE_SPREAD_SE * se).min()),
        high=float((m + SHAPE_SPREAD_SE * se).max()),
        lat_light_ms=float(light.mean()),
        lat_light_low_ms=float(light.min()),
        lat_light_high_ms=float(light.max()),
        sources="; ".join(f"{r.source} ({r.date})" for r in table.itertuples()),
        light_basis=basis,
    )


@dataclass(frozen=True)
class KnownLimits:
    """The limits a prediction must respect, known before any fit.

    Attributes
    ----------
    iops_max : float
        The least documented limit of the volume and its clients at the workload's block size
        [1/s]; inf when none is known.
    limit : str, optional
        Which limit that is and how it was worked out.
    bw_mib_s : float
        The same limit as throughput [MiB/s]; inf when none is known.
    lat_light_ms : float, optional
        Latency at light load [ms] when known (measured, or published); else taken from the
        data.
    shape : LatencyShape
        How latency rises toward the limit (published curves by default).
    """

    iops_max: float = math.inf
    limit: str | None = None
    bw_mib_s: float = math.inf
    lat_light_ms: float | None = None
    shape: LatencyShape = field(default_factory=published_shape)

    def __post_init__(self) -> None:
        if not self.iops_max > 0:
            raise ModelError(f"a known limit must be > 0 IOPS, got {self.iops_max!r}")
        if self.lat_light_ms is not None and not (
            self.lat_light_ms > 0 and math.isfinite(self.lat_light_ms)
        ):
            raise ModelError(f"lat_light_ms must be a positive number, got {self.lat_light_ms!r}")

    @property
    def known(self) -> bool:
        """True when a finite limit is known."""
        return math.isfinite(self.iops_max)

    def unless_passed_by(self, rates: object) -> tuple[KnownLimits, str | None]:
        """This limit, or none (with why) when the rates measured pass it by more than
        :data:`LIMIT_SLACK`: then something else was measured, and it does not bind there."""
        top = float(np.nanmax(np.asarray(rates, float))) if np.size(rates) else math.nan
        if not self.known or not top > self.iops_max * (1.0 + LIMIT_SLACK):
            return self, None
        why = (f"measured rates reach {top:,.0f}, above the limit given ({self.iops_max:,.0f}, "
               f"{self.limit}): that limit does not bind here and is left out")  # fmt: skip
        return KnownLimits(lat_light_ms=self.lat_light_ms, shape=self.shape), why

    @classmethod
    def of_iops(cls, iops_max: float, limit: str, **fields) -> KnownLimits:
        """A known limit given directly in IOPS, named `limit`."""
        return cls(iops_max=float(iops_max), limit=limit, **fields)


def known_limits(
    scenario: QuotaScenario | None = None,
    *,
    lat_light_ms: float | None = None,
    **fields,
) -> KnownLimits:
    """The documented limits of a scenario's volume and clients, as a prediction's bound.

    Parameters
    ----------
    scenario : QuotaScenario, optional
        The volume, its clients and the I/O; or its fields as keywords (``bs_kib=64,
        level="Premium", quota_tib=4``).
    lat_light_ms : float, optional
        Light-load latency [ms], when known.

    Returns
    -------
    KnownLimits
        The least limit of kind 'limit' of :func:`anfperf.models.predict_achievable` (QoS,
        type cap, client egress, NFS in flight; not the published observations, which are not
        limits); unbounded when the scenario names none.
    """
    s = QuotaScenario.of(scenario, **fields)
    try:
        frame = predict_achievable(s)
    except ModelError:
        return KnownLimits(lat_light_ms=lat_light_ms)  # nothing known about the volume
    limits = frame[frame["kind"] == "limit"]
    if limits.empty:
        return KnownLimits(lat_light_ms=lat_light_ms)
    least = limits.loc[limits["bw_mib_s"].idxmin()]
    return KnownLimits(
        iops_max=float(least["iops"]),
        limit=f"{least['constraint']}: {least['detail']}",
        bw_mib_s=float(least["bw_mib_s"]),
        lat_light_ms=lat_light_ms,
    )
