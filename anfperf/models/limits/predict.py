"""Achievable throughput of a scenario: the least of every limit, and which one binds.

A workload on an ANF volume gets the least of:

- the volume's quota limit (quota x service-level rate; or its manual-QoS throughput),
- the volume type's cap (regular 4,500 MiB/s, Standard 1,600, large volumes by rule),
- what one volume of its type was observed to do for such I/O (ANF's published sweeps,
  interpolated across read % by :mod:`anfperf.models.curves.mix`) -- an observation, not a hard limit,
- the clients' network egress x their count (for the write share) and, observed, what one
  client did over its NFS connections (:mod:`anfperf.models.limits.client`),
- Little's law: the configured concurrency (capped by NFS's in-flight limits) over the latency
  -- a measured latency, or one from a fitted curve (:mod:`anfperf.models.curves`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anfperf.errors import ModelError
from anfperf.models.curves.curve_reading import rate_at
from anfperf.models.curves.mix import mix_throughput
from anfperf.models.curves.op_cost import binding_rate, op_cost_iops, published_op_cost
from anfperf.models.limits.client import client_constraints, nfs_inflight_limit
from anfperf.models.limits.quota import (
    auto_qos_rate,
    bw_to_iops,
    iops_to_bw,
    level_name,
    service_levels,
    volume_limit_row,
    volume_size_range,
    volume_type_cap,
)
from anfperf.models.limits.quota import cool_access as cool_access_table
from anfperf.models.limits.scenario import QuotaScenario
from anfperf.models.littles_law import iops_at_concurrency
from anfperf.values import format_quota

log = logging.getLogger(__name__)

#: Columns of the frame :func:`predict_achievable` returns.
CONSTRAINT_COLUMNS = ["constraint", "bw_mib_s", "iops", "kind", "binding", "detail", "source"]
#: Name of the constraint that is ANF's published observation for the volume type.
PUBLISHED_BENCHMARK = "published volume benchmark"
#: Name of the constraint that is a volume's limit as Azure reports it, the file not proving
#: manual QoS (:attr:`anfperf.models.QuotaScenario.qos_type` not 'manual').
AZURE_LIMIT = "Azure's limit"


def constraint_phrase(name: str) -> str:
    """A constraint's name in a sentence: 'the volume quota', but "Azure's limit"."""
    return name if name == AZURE_LIMIT else f"the {name}"


@dataclass(frozen=True)
class PublishedCeiling:
    """What one volume of a type was observed to do (:func:`published_ceiling`).

    Attributes
    ----------
    bw_mib_s, iops : float
        Throughput [MiB/s] and I/O rate [1/s] at the block size asked for.
    bound : str
        'operation rate' or 'byte rate': which cost dominates there.
    detail : str
        How it was worked out, in words.
    source : str
        The articles (dates) of the published results.
    """

    bw_mib_s: float
    iops: float
    bound: str
    detail: str
    source: str


def published_ceiling(
    volume_type: str, pattern: str, read_pct: float, bs_kib: float
) -> PublishedCeiling:
    """What one volume of a type was observed to do at a block size and read share.

    ANF's published results (a small-block IOPS and a large-block MiB/s figure per volume type
    and direction) give each operation a fixed and a per-byte cost
    (:func:`anfperf.models.curves.op_cost.published_op_cost`): the ceiling holds at every block
    size, bound by the operation rate for small blocks and by the byte rate for large ones.
    Reads and writes are mixed harmonically (time per operation) at the read share. The
    pattern is named in the description; the published figures cover both.

    Returns
    -------
    PublishedCeiling
    """
    costs = {d: published_op_cost(volume_type, d) for d in ("read", "write")}
    rates = {d: float(op_cost_iops(bs_kib, op_us, bw)) for d, (op_us, bw, _) in costs.items()}
    iops = float(mix_throughput(read_pct, rates["read"], rates["write"]))
    bw = float(iops_to_bw(iops, bs_kib))
    r_us, r_bw, where = costs["read"]
    w_us, w_bw, _ = costs["write"]
    share = read_pct / 100.0
    # the mix's time per operation: its fixed and per-byte parts, read and write weighted
    mixed_us = share * r_us + (1 - share) * w_us
    mixed_bw = 1.0 / (share / r_bw + (1 - share) / w_bw)
    bound = binding_rate(bs_kib, mixed_us, mixed_bw)
    detail = (
        f"{volume_type} volume, {pattern} {bs_kib:g} KiB at {read_pct:g} % read: "
        f"{iops:,.0f} IOPS = {bw:,.0f} MiB/s, {bound} bound (per operation {r_us:.2f} us + "
        f"bytes at {r_bw:,.0f} MiB/s read, {w_us:.2f} us + {w_bw:,.0f} MiB/s write, from "
        f"{where.split(';')[0]} read)"
    )
    return PublishedCeiling(bw, iops, bound, detail, source=where.split("; ", 1)[1])


def littles_law_iops(
    outstanding: float,
    *,
    lat_ms: float | None = None,
    curve: Mapping[str, float] | None = None,
) -> tuple[float, str]:
    """I/O rate that `outstanding` I/Os in flight sustain, and how it was worked out.

    Parameters
    ----------
    outstanding : float
        Total I/Os in flight [-].
    lat_ms : float, optional
        Mean latency at that load [ms]: rate = outstanding / latency.
    curve : mapping, optional
        A fitted curve: throughput fits (USL, MVA, their blend; fitted to IOPS) give X(N);
        queueing parameters (lat_min_ms, iops_max, servers) give the rate X with
        ``X x queueing_latency(X) = N``.

    Returns
    -------
    (float, str)
        I/O rate [1/s] and a sentence saying how.
    """
    n = float(outstanding)
    if not n > 0:
        raise ModelError("outstanding must be > 0")
    if curve is not None:
        return rate_at(curve, n)
    if lat_ms is None or not lat_ms > 0:
        raise ModelError("give lat_ms > 0 or a fitted curve for Little's law")
    x = iops_at_concurrency(n, float(lat_ms))
    return x, f"{n:g} in flight / {lat_ms:g} ms = {x:,.0f} IOPS"


def predict_achievable(
    scenario: QuotaScenario | None = None,
    *,
    outstanding: float | None = None,
    lat_ms: float | None = None,
    curve: Mapping[str, float] | None = None,
    **fields,
) -> pd.DataFrame:
    """Achievable MiB/s and IOPS of a scenario, with every constraint and the one that binds.

    Parameters
    ----------
    scenario : QuotaScenario, optional
        The volume, its clients and the I/O (:class:`~anfperf.models.limits.scenario.QuotaScenario`).
    **fields
        Fields of :class:`~anfperf.models.limits.scenario.QuotaScenario` (``bs_kib=64,
        level="Premium", quota_tib=4``): the scenario, or what to change in `scenario`.
    outstanding : float, optional
        Configured I/Os in flight per client VM [-]; with `lat_ms` or `curve`, adds Little's
        law.
    lat_ms : float, optional
        Mean latency at the load [ms].
    curve : mapping, optional
        Fitted USL or queueing parameters (see :func:`littles_law_iops`), for the total
        concurrency over all VMs.

    Returns
    -------
    pandas.DataFrame
        One row per constraint:

        ==========  =====  ==========================================================
        column      unit   meaning
        ==========  =====  ==========================================================
        constraint         name of the limit
        bw_mib_s    MiB/s  throughput it allows
        iops        1/s    I/O rate it allows at `bs_kib`
        kind               'limit' (documented or configured) or 'observed' (measured)
        binding            True for the least (the prediction)
        detail             how the number was worked out
        source             article (date) or 'configuration'
        ==========  =====  ==========================================================

        ``frame.attrs`` holds 'binding' (its name), 'bw_mib_s' and 'iops' (the prediction).

    Raises
    ------
    anfperf.ModelError
        No constraint given, or invalid inputs.
    """
    s = QuotaScenario.of(scenario, **fields)
    rows: list[tuple[str, float, str, str, str]] = []
    if s.level is not None:
        rows += _volume_rows(level_name(s.level), s.quota_tib, s.manual_bw_mib_s, s.volume_type,
                             s.rule, s.cool_access, s.qos_type)  # fmt: skip
    if s.pattern is not None:
        seen = published_ceiling(s.volume_type, s.pattern, s.read_pct, s.bs_kib)
        rows.append((PUBLISHED_BENCHMARK, seen.bw_mib_s, "observed", seen.detail, seen.source))
    if s.vm_size is not None:
        clients = client_constraints(s)
        rows += list(clients[["constraint", "bw_mib_s", "kind", "detail", "source"]].itertuples(
            index=False, name=None))  # fmt: skip
    if outstanding is not None and (lat_ms is not None or curve is not None):
        rows.append(_concurrency_row(outstanding, lat_ms, curve, s.vm_count, s.nconnect,
                                     s.nfs_version, s.bs_kib))  # fmt: skip
    if not rows:
        raise ModelError(
            "nothing to predict from: give a level and quota, a pattern, a VM size, or a "
            "concurrency with a latency"
        )
    return _binding_frame(rows, s.bs_kib)


def _volume_rows(
    name: str,
    quota_tib: float | None,
    manual_bw_mib_s: float | None,
    volume_type: str,
    rule: str,
    cool_access: bool,
    qos_type: str | None = "manual",
) -> list[tuple[str, float, str, str, str]]:
    """The volume's own limits: its QoS throughput (manual, Azure's, or quota x rate) and its
    type cap."""
    rows = []
    row = volume_limit_row(name, volume_type, rule)
    cap = volume_type_cap(name, volume_type, rule)
    if manual_bw_mib_s is not None:
        _check_manual(manual_bw_mib_s, cap, name, volume_type)
        if qos_type == "manual":
            rows.append(("volume throughput (manual QoS)", manual_bw_mib_s, "limit",
                         f"assigned {manual_bw_mib_s:g} MiB/s", "configuration"))  # fmt: skip
        else:
            qos = "auto QoS" if qos_type == "auto" else "auto or manual QoS not stated"
            rows.append((AZURE_LIMIT, manual_bw_mib_s, "limit",
                         f"{manual_bw_mib_s:g} MiB/s as Azure reports it ({qos})",
                         "Azure"))  # fmt: skip
    elif quota_tib is not None:
        lo, hi = volume_size_range(name, volume_type, rule, cool_access)
        if not lo * (1 - 1e-9) <= quota_tib <= hi * (1 + 1e-9):
            raise ModelError(
                f"quota_tib {quota_tib:g} outside the {volume_type} range {lo:g}..{hi:g} TiB"
            )
        rate = auto_qos_rate(name, cool_access)
        cool = " with cool access" if cool_access else ""
        rows.append(("volume quota", quota_tib * rate, "limit",
                     f"{format_quota(quota_tib, exact=True)} x {rate:g} MiB/s per TiB ({name}{cool})",
                     _rate_source(name, cool_access)))  # fmt: skip
    src = f"{row['source']} ({row['date']})" if pd.notna(row["date"]) else str(row["source"])
    rows.append(("volume type cap", cap, "limit",
                 f"{volume_type} {name} volume, rule {rule!r}: {row['note']}", src))  # fmt: skip
    return rows


def _concurrency_row(
    outstanding: float,
    lat_ms: float | None,
    curve: Mapping[str, float] | None,
    vm_count: int,
    nconnect: int,
    nfs_version: str,
    bs_kib: float,
) -> tuple[str, float, str, str, str]:
    """Little's law on the configured concurrency, capped by the NFS in-flight limit per VM."""
    cap_inflight = nfs_inflight_limit(nconnect, nfs_version)
    per_vm = min(float(outstanding), float(cap_inflight))
    iops, how = littles_law_iops(per_vm * vm_count, lat_ms=lat_ms, curve=curve)
    capped = (
        f" (configured {outstanding:g} per VM, NFSv{nfs_version} with nconnect={nconnect} "
        f"allows {cap_inflight})"
        if per_vm < float(outstanding)
        else ""
    )
    return ("Little's law (configured concurrency)", iops_to_bw(iops, bs_kib), "limit",
            f"{vm_count} VM x {per_vm:g} in flight{capped}: {how}", "configuration")  # fmt: skip


def _binding_frame(rows: list[tuple[str, float, str, str, str]], bs_kib: float) -> pd.DataFrame:
    """The constraints as a frame, the least one marked binding (and in attrs)."""
    frame = pd.DataFrame(rows, columns=["constraint", "bw_mib_s", "kind", "detail", "source"])
    frame["bw_mib_s"] = frame["bw_mib_s"].astype(float)
    frame["iops"] = np.asarray(bw_to_iops(frame["bw_mib_s"].to_numpy(float), bs_kib), float)
    values = frame["bw_mib_s"].to_numpy(float)
    best = int(np.nanargmin(np.where(np.isnan(values), np.inf, values)))
    frame["binding"] = False
    frame.loc[best, "binding"] = True
    frame = frame[CONSTRAINT_COLUMNS]
    frame.attrs["binding"] = str(frame.loc[best, "constraint"])
    frame.attrs["bw_mib_s"] = float(frame.loc[best, "bw_mib_s"])
    frame.attrs["iops"] = float(frame.loc[best, "iops"])
    if math.isinf(frame.attrs["bw_mib_s"]):
        log.info("no finite constraint: the prediction is unbounded")
    return frame


def _check_manual(bw_mib_s: float, cap_mib_s: float, level: str, volume_type: str) -> None:
    """A manual-QoS throughput a volume can be given: positive, finite, within its type's cap."""
    try:
        value = float(bw_mib_s)
    except (TypeError, ValueError):
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise ModelError(f"manual_bw_mib_s must be a positive finite number, got {bw_mib_s!r}")
    if value > cap_mib_s * (1 + 1e-9):
        raise ModelError(
            f"manual_bw_mib_s {value:,.0f} MiB/s is more than a {volume_type} {level} volume "
            f"can be given ({cap_mib_s:,.0f} MiB/s)"
        )


def _rate_source(level: str, cool_access: bool) -> str:
    """Article (date) of a level's auto-QoS rate, with or without cool access."""
    if cool_access:
        table = cool_access_table()
        row = table[(table["key"] == "mib_s_per_tib") & (table["level"] == level)].iloc[0]
    else:
        row = service_levels().set_index("level").loc[level]
    return f"{row['source']} ({row['date']})"
