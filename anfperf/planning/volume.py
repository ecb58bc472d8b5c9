"""What a given volume would do: its limit, what binds, and the clients it needs.

``anfperf plan --volume FILE`` answers this for a volume Azure describes
(:func:`anfperf.azure.read_volume`): the volume's own limits at a workload (its QoS throughput,
its type's cap, what such a volume was seen to do), the client VMs and threads that reach them
(:func:`anfperf.models.plan`'s client sizing), and the limit that binds with those clients
(:func:`anfperf.models.predict_achievable`).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from anfperf import wrapping
from anfperf.azure.volume import AnfVolume
from anfperf.models.forecast.option import OptionLatency, option_latency
from anfperf.models.limits.client import nfs_client_value
from anfperf.models.limits.plan import Plan, plan
from anfperf.models.limits.predict import predict_achievable
from anfperf.models.limits.prices import FLEXIBLE_THROUGHPUT_PRICE
from anfperf.planning.volume_cost import volume_cost_usd_month
from anfperf.report import page
from anfperf.units import KIB_PER_MIB
from anfperf.values import format_quota

__all__ = ["VolumePlan", "plan_volume"]


@dataclass(frozen=True)
class VolumePlan:
    """A volume, what it allows at a workload, and the clients that reach it.

    Attributes
    ----------
    volume : anfperf.azure.AnfVolume
        The volume as Azure describes it.
    bs_kib, read_pct : float
        The workload: block size [KiB], read share [%].
    volume_mib_s : float
        Most the volume allows at that workload, whatever the clients [MiB/s].
    target_mib_s : float
        What the clients are sized for [MiB/s]: the target asked, at most `volume_mib_s`.
    plan : anfperf.models.Plan
        :func:`anfperf.models.plan` of `target_mib_s` (its clients and threads are used).
    constraints : pandas.DataFrame
        :func:`anfperf.models.predict_achievable` of the volume with those clients.
    notes : list of str
        What the user should know (the file's own inconsistencies, a target out of reach).
    lat_slo_ms : float, optional
        The latency objective asked for [ms] (the expected latency is read at it).
    cost_usd_month : float, optional
        Its monthly cost, its pool's share (:func:`anfperf.planning.volume_cost.volume_cost_usd_month`),
        when prices were given [USD per month].
    priced : bool
        Prices were given (without a cost, the notes say why it is unknown).
    """

    volume: AnfVolume
    bs_kib: float
    read_pct: float
    volume_mib_s: float
    target_mib_s: float
    plan: Plan = field(repr=False)
    constraints: pd.DataFrame = field(repr=False)
    notes: list[str] = field(default_factory=list)
    lat_slo_ms: float | None = None
    cost_usd_month: float | None = None
    priced: bool = False

    @property
    def binding(self) -> str:
        """Name of the limit that binds the volume with the planned clients."""
        return str(self.constraints.attrs["binding"])

    @property
    def bw_mib_s(self) -> float:
        """What the volume with the planned clients achieves [MiB/s]."""
        return float(self.constraints.attrs["bw_mib_s"])

    @property
    def iops(self) -> float:
        """The same as an I/O rate at the block size [1/s]."""
        return float(self.constraints.attrs["iops"])

    @property
    def latency(self) -> OptionLatency:
        """Expected mean latency at the target on this volume's limit, from ANF's published
        load-latency curves (:func:`anfperf.models.forecast.option.option_latency`)."""
        return option_latency(
            self.target_mib_s, self.volume_mib_s, self.bs_kib,
            volume_type=self.volume.volume_type, objective_ms=self.lat_slo_ms,
        )  # fmt: skip

    def text(self, width: int = 100) -> str:
        """The answer for a terminal: the volume, what it does, the clients, every limit."""
        v, p = self.volume, self.plan
        row = self.constraints[self.constraints["binding"]].iloc[0]
        limit = v.throughput_limit_mib_s
        qos = f"{v.qos_type} QoS" if v.qos_type else "QoS not in the file"
        facts = pd.DataFrame(
            {
                "label": ["volume", "settings", "Azure's limit", "achievable", "binds",
                          "clients", "monthly cost"],
                "value": [
                    v.name,
                    f"{v.service_level}, {format_quota(v.quota_tib)}, {qos}",
                    f"{limit:,.6g} MiB/s" if limit is not None else "not given",
                    f"{page.format_number(self.bw_mib_s)} MiB/s = "
                    f"{page.format_number(self.iops)} IOPS",
                    self.binding,
                    f"{p.vm_count} x {p.vm_size}, {p.threads_per_vm} outstanding I/O per VM",
                    self._cost_text(),
                ],
                "note": [
                    f"in pool {v.pool_name}" if v.pool_name else "",
                    f"{v.volume_type} volume in {v.region or 'a region the file does not name'}",
                    _limit_note(v),
                    f"{self.bs_kib:g} KiB at {self.read_pct:g} % reads",
                    str(row["detail"]),
                    f"sized for {page.format_number(self.target_mib_s)} MiB/s at {p.lat_ms:g} ms",
                    "its pool's share (notes below)" if self.cost_usd_month is not None else "",
                ],
            }
        )  # fmt: skip
        parts = [
            f"What this volume would do (from {os.path.basename(v.source)})",
            page.Table(facts, [False, False, False]).to_text(width, header=False, indent=2),
            "",
            wrapping.fill(wrapping.sentence(self.latency.text()), width),
        ]
        if self.notes:
            parts.append("")
            parts += [wrapping.fill(f"- {n}", width, subsequent_indent="  ") for n in self.notes]
        cols = [c for c in ("constraint", "bw_mib_s", "iops", "kind", "binding", "detail")
                if c in self.constraints]  # fmt: skip
        table = page.table(self.constraints, cols, caption="Every limit of the volume and "
                           "clients; the least binds.")  # fmt: skip
        parts += ["", table.to_text(width)]
        return "\n".join(parts)

    def _cost_text(self) -> str:
        if self.cost_usd_month is not None:
            return f"{self.cost_usd_month:,.2f} USD"
        return "unknown (notes below)" if self.priced else "no prices given"

    def as_dict(self) -> dict[str, Any]:
        """The answer for machine readers (``anfperf plan --volume FILE --json``)."""
        from dataclasses import asdict

        from anfperf.jsonable import jsonable

        p = self.plan
        return jsonable({
            "volume": asdict(self.volume),
            "workload": {"bs_kib": self.bs_kib, "read_pct": self.read_pct},
            "volume_mib_s": self.volume_mib_s,
            "target_mib_s": self.target_mib_s,
            "achievable": {"bw_mib_s": self.bw_mib_s, "iops": self.iops,
                           "binding": self.binding},
            "clients": {"vm_size": p.vm_size, "vm_count": p.vm_count,
                        "threads_per_vm": p.threads_per_vm, "outstanding_io": p.outstanding,
                        "lat_ms": p.lat_ms},
            "latency": {"lat_expected_ms": self.latency.lat_ms,
                        "lat_expected_low_ms": self.latency.lat_low_ms,
                        "lat_expected_high_ms": self.latency.lat_high_ms,
                        "predictable": self.latency.predictable, "text": self.latency.text()},
            "cost_usd_month": self.cost_usd_month,
            "notes": self.notes,
            "constraints": self.constraints,
        })  # fmt: skip


def _limit_note(volume: AnfVolume) -> str:
    """Which field Azure's limit came from."""
    if volume.actual_throughput_mib_s is not None:
        return "actualThroughputMibps"
    if volume.throughput_mib_s is not None:
        return "throughputMibps"
    return "quota x level rate (no throughput in the file)"


#: The volume is given: its level is not an option to rank, only its clients are sized from
#: the plan. Flexible is ranked only with prices, so it is given nominal (zero) ones here;
#: the plan's storage choice and cost are never read.
_CLIENTS_ONLY: dict[str, dict[str, float]] = {
    "Flexible": {"Flexible": 0.0, FLEXIBLE_THROUGHPUT_PRICE: 0.0}
}


def plan_volume(
    volume: AnfVolume,
    *,
    bs_kib: float,
    read_pct: float = 100.0,
    bw_mib_s: float | None = None,
    iops: float | None = None,
    pattern: str | None = None,
    vm_sizes: list[str] | None = None,
    lat_ms: float | None = None,
    lat_slo_ms: float | None = None,
    rule: str = "current",
    nconnect: int | None = None,
    nfs_version: str = "3",
    prices: Mapping[str, float] | None = None,
    prices_given: Collection[str] = (),
    price_notes: Collection[str] = (),
    prices_region: str | None = None,
) -> VolumePlan:
    """What a volume would do at a workload, and the clients that get it there.

    Parameters
    ----------
    volume : anfperf.azure.AnfVolume
        The volume (:func:`anfperf.azure.read_volume`).
    bs_kib : float
        Block size [KiB].
    read_pct : float
        Read share [%].
    bw_mib_s, iops : float, optional
        A target [MiB/s] or [1/s]; default: all the volume allows.
    pattern : {'sequential', 'random'}, optional
        Access pattern (adds what such a volume was seen to do).
    vm_sizes : list of str, optional
        Client VM sizes to consider (default: all).
    lat_ms, lat_slo_ms : float, optional
        Latency expected at the target and the latency objective [ms] (concurrency sizing).
    rule, nconnect, nfs_version
        As in :func:`anfperf.models.plan`.
    prices : mapping, optional
        USD per GiB-hour per level, per MiB/s-hour of Flexible throughput (as
        :func:`anfperf.models.plan` takes them): the volume's monthly cost, and a note for
        each price of `prices_given` (the ones set one by one) that has no effect on it.
    price_notes : collection of str
        What the prices' reader said (:attr:`anfperf.models.limits.prices.RetailPrices.notes`).
    prices_region : str, optional
        The region of the prices (:attr:`anfperf.models.limits.prices.RetailPrices.region`):
        a note says so when the volume is in another (list prices differ by region).

    Returns
    -------
    VolumePlan

    Raises
    ------
    anfperf.ModelError
        The volume's settings are outside the model's rules, or no client size is given.
    """
    if nconnect is None:
        nconnect = int(nfs_client_value("nconnect_recommended"))
    args = volume.model_args()
    alone = predict_achievable(bs_kib=bs_kib, read_pct=read_pct, pattern=pattern, rule=rule,
                               **args)  # fmt: skip
    most = float(alone.attrs["bw_mib_s"])
    asked = bw_mib_s if bw_mib_s is not None else (
        iops * bs_kib / KIB_PER_MIB if iops is not None else None
    )  # fmt: skip
    notes = list(volume.notes)
    target = most
    if asked is not None and asked <= most:
        target = asked
    elif asked is not None:
        notes.append(
            f"the target of {page.format_number(asked)} MiB/s is above what this volume allows "
            f"({page.format_number(most)} MiB/s, {alone.attrs['binding']}): the clients are "
            f"sized for {page.format_number(most)} MiB/s"
        )
    sized = plan(
        bs_kib=bs_kib, bw_mib_s=target, read_pct=read_pct, pattern=pattern,
        levels=[volume.service_level], volume_types=[volume.volume_type], vm_sizes=vm_sizes,
        lat_ms=lat_ms, lat_slo_ms=lat_slo_ms, rule=rule, nconnect=nconnect,
        nfs_version=nfs_version, prices=_CLIENTS_ONLY.get(volume.service_level),
    )  # fmt: skip
    constraints = predict_achievable(
        bs_kib=bs_kib, read_pct=read_pct, pattern=pattern, rule=rule, vm_size=sized.vm_size,
        vm_count=sized.vm_count, nconnect=nconnect, nfs_version=nfs_version, **args,
    )  # fmt: skip
    cost, cost_notes = volume_cost_usd_month(volume, prices, prices_given, prices_region)
    return VolumePlan(volume, float(bs_kib), float(read_pct), most, target, sized, constraints,
                      [*notes, *cost_notes, *price_notes], lat_slo_ms, cost,
                      priced=bool(prices))  # fmt: skip


def __dir__() -> list[str]:
    return sorted(__all__)
