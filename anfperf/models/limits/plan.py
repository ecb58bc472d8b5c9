"""Capacity planning: from a target to a service level, a quota, client VMs and threads.

:func:`plan` works through the models in order and keeps its reasoning as a table:

1. the target in both units (MiB/s and IOPS at the block size);
2. storage: for each service level and volume type, the quota the target needs (quota x rate,
   at least the capacity asked for, within the type's sizes and cap, and -- when the pattern is
   known -- within what one such volume was observed to do); the cheapest is kept. Without
   prices, "cheapest" means the smallest quota, then the lower level (prices per GiB rise with
   the level, so at equal quota the lower level is cheaper); with `prices` (USD per GiB-hour
   per level), the lowest monthly cost of the capacity pool (whole pool steps, at least the
   smallest pool; :mod:`anfperf.models.limits.prices` reads them from the Azure Retail Prices API).
   Flexible is ranked only with prices for it;
3. concurrency: Little's law, rate x latency, with the latency expected at the target (given,
   from a fitted queueing curve, or the SLO);
4. clients: per VM size, the VMs needed for the write share's egress, for NFS in-flight limits,
   and (pattern known) for what one client did over nconnect; with `vm_prices` the lowest
   monthly cost wins, else the fewest total vCPUs (VM prices scale with vCPUs);
5. threads per VM = outstanding I/O / VMs, checked against the SLO.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from anfperf.errors import ModelError
from anfperf.models.curves.curve_reading import latency_at_rate_ms
from anfperf.models.limits.client import (
    nfs_client_value,
    nfs_inflight_limit,
    observed_per_client,
    vm_network,
    vm_size_name,
)
from anfperf.models.limits.predict import published_ceiling
from anfperf.models.limits.prices import FLEXIBLE_THROUGHPUT_PRICE, hours_per_month
from anfperf.models.limits.quota import (
    PLANNED_LEVELS,
    auto_qos_rate,
    bw_to_iops,
    iops_to_bw,
    level_name,
    service_levels,
    volume_size_range,
    volume_type_cap,
)
from anfperf.models.littles_law import outstanding_io, threads_needed
from anfperf.models.tables import table_value
from anfperf.units import GIB_PER_TIB, KIB_PER_MIB
from anfperf.values import format_number, format_quota, is_number

log = logging.getLogger(__name__)

#: Volume types a plan considers unless told: breakthrough mode is a preview on request.
_DEFAULT_VOLUME_TYPES = ("regular", "large")


@dataclass
class Plan:
    """A plan and its reasoning (see :func:`plan`).

    Attributes
    ----------
    level, volume_type : str
        Chosen service level and volume type.
    quota_tib : float
        Volume quota [TiB].
    throughput_limit_mib_s : float
        The volume's limit at that quota [MiB/s].
    vm_size : str
        Client VM size.
    vm_count : int
        Client VMs.
    threads_per_vm : int
        Outstanding I/O (threads, or iodepth x numjobs) per client VM.
    outstanding : int
        Total outstanding I/O.
    lat_ms : float
        Latency the concurrency was sized for [ms].
    bw_mib_s, iops : float
        The target [MiB/s], [1/s].
    reasoning : pandas.DataFrame
        Columns step, decision, value, why.
    storage_options, client_options : pandas.DataFrame
        Every candidate considered, feasible or not, with the reason.
    """

    level: str
    volume_type: str
    quota_tib: float
    throughput_limit_mib_s: float
    vm_size: str
    vm_count: int
    threads_per_vm: int
    outstanding: int
    lat_ms: float
    bw_mib_s: float
    iops: float
    reasoning: pd.DataFrame = field(repr=False)
    storage_options: pd.DataFrame = field(repr=False)
    client_options: pd.DataFrame = field(repr=False)


#: Block size from which a workload without a stated pattern is taken as sequential [KiB].
LARGE_BLOCK_KIB = 64


def sized_in_mib_s(bs_kib: object, pattern: object) -> object:
    """Whether I/O is sized in MiB/s (large blocks or sequential: what a volume's throughput
    limit counts) rather than in IOPS (small random I/O); elementwise over arrays or Series."""
    large = pd.to_numeric(bs_kib, errors="coerce") >= LARGE_BLOCK_KIB
    return large | (pattern == "sequential")


#: One row of a plan's reasoning: step, decision, value, why.
_Step = tuple[str, str, str, str]


@dataclass(frozen=True)
class _Target:
    """Step 1 of a plan: the target in both units and what else sizes the options."""

    bw: float  # [MiB/s]
    rate: float  # [1/s]
    bs_kib: float
    read_pct: float  # [%]
    capacity_tib: float
    pattern: str
    assumed: str  # how the pattern was assumed, or ''

    def step(self) -> _Step:
        """The target's row of the reasoning."""
        return ("target", f"{format_number(self.bw)} MiB/s = {format_number(self.rate)} IOPS", f"{self.bw:.6g}",
                f"{self.bs_kib:g} KiB blocks, {self.read_pct:g} % reads, {self.pattern}"
                f"{self.assumed}"
                + (f", at least {self.capacity_tib:g} TiB" if self.capacity_tib else ""))  # fmt: skip


def plan(
    *,
    bs_kib: float,
    bw_mib_s: float | None = None,
    iops: float | None = None,
    read_pct: float = 100.0,
    lat_slo_ms: float | None = None,
    lat_ms: float | None = None,
    curve: Mapping[str, float] | None = None,
    capacity_tib: float = 0.0,
    pattern: str | None = None,
    levels: Sequence[str] = PLANNED_LEVELS,
    vm_sizes: Sequence[str] | None = None,
    prices: Mapping[str, float] | None = None,
    rule: str = "current",
    nconnect: int | None = None,
    nfs_version: str = "3",
    volume_types: Sequence[str] = _DEFAULT_VOLUME_TYPES,
    vm_prices: Mapping[str, float] | None = None,
) -> Plan:
    """Cheapest service level and quota, client VMs and threads that meet a target.

    Parameters
    ----------
    bs_kib : float
        Block size [KiB].
    bw_mib_s, iops : float
        The target, as throughput [MiB/s] or I/O rate [1/s] (one of them).
    read_pct : float
        Read share [%].
    lat_slo_ms : float, optional
        Latency objective [ms]: the plan fails when the expected latency is above it.
    lat_ms : float, optional
        Latency expected at the target [ms] (e.g. measured); default: from `curve`, else the
        SLO, else 1 ms.
    curve : mapping, optional
        Parameters of any fitted curve (queueing, USL, MVA or their blend) giving the latency
        at the target (:func:`anfperf.models.curves.curve_reading.latency_at_rate_ms`).
    capacity_tib : float
        Capacity the volume must hold [TiB].
    pattern : {'sequential', 'random'}, optional
        Access pattern, for the published per-volume and per-client observations; default:
        sequential from :data:`LARGE_BLOCK_KIB` up, else random (said in the reasoning).
    levels : sequence of str
        Service levels to consider.
    vm_sizes : sequence of str, optional
        Client VM sizes to consider (default: every size in anfperf/data/vm_network.csv).
    prices : mapping, optional
        USD per GiB-hour of each level, and ``'Flexible throughput'`` in USD per MiB/s-hour
        (:meth:`anfperf.models.limits.prices.RetailPrices.plan_prices`). A level is paid for its
        capacity pool: the quota (Flexible: the pool its throughput needs) rounded up to the
        pool step, at least the smallest pool (anfperf/data/planning.csv).
    rule : str
        Volume-limit rules ('current', ...).
    nconnect : int, optional
        NFS connections per client mount; default the recommended value of the NFS client
        table (``nconnect_recommended``, 8).
    nfs_version : {'3', '4.1'}
        NFS version.
    volume_types : sequence of str
        Volume types to consider: 'regular', 'large' and, on request, 'breakthrough' (large
        volumes in breakthrough mode, a preview).
    vm_prices : mapping, optional
        USD per VM-hour of client VM sizes (:meth:`anfperf.models.limits.prices.RetailPrices.vm_prices`):
        the priced size with the lowest monthly cost for the VMs needed is chosen (sizes
        without a price after it), and each storage option's `total_usd_month` adds it.

    Returns
    -------
    Plan
        The choice, the reasoning table and every option considered.

    Raises
    ------
    anfperf.ModelError
        No target, or no option meets it.
    """
    prices = checked_prices(prices)
    _check_inputs(bs_kib, bw_mib_s, iops, lat_ms, lat_slo_ms, read_pct, capacity_tib)
    target = _target(bw_mib_s, iops, bs_kib, read_pct, capacity_tib, pattern)
    storage = _storage_options(target, levels, prices, rule, volume_types)
    best = _best_storage(storage)
    lat, outstanding, concurrency_steps = _concurrency(target.rate, lat_ms, curve, lat_slo_ms)
    vm_prices = _checked_vm_prices(vm_prices)
    if nconnect is None:
        nconnect = int(nfs_client_value("nconnect_recommended"))
    clients = _client_options(target, outstanding, vm_sizes, nconnect, nfs_version, vm_prices)
    vm, threads, client_steps = _client_choice(clients, outstanding, lat_slo_ms)
    storage = _with_totals(storage, vm)
    steps = [target.step(), _storage_step(best, storage), *concurrency_steps, *client_steps]
    return Plan(
        level=str(best["level"]),
        volume_type=str(best["volume_type"]),
        quota_tib=float(best["quota_tib"]),
        throughput_limit_mib_s=float(best["limit_mib_s"]),
        vm_size=str(vm["vm_size"]),
        vm_count=int(vm["vm_count"]),
        threads_per_vm=int(threads),
        outstanding=outstanding,
        lat_ms=float(lat),
        bw_mib_s=float(target.bw),
        iops=float(target.rate),
        reasoning=pd.DataFrame(steps, columns=["step", "decision", "value", "why"]),
        storage_options=storage,
        client_options=clients,
    )


def _check_inputs(
    bs_kib: float,
    bw_mib_s: float | None,
    iops: float | None,
    lat_ms: float | None,
    lat_slo_ms: float | None,
    read_pct: float,
    capacity_tib: float,
) -> None:
    """A ModelError naming the first input out of its plausible range (or not a number)."""
    for name, value in (("bs_kib", bs_kib), ("bw_mib_s", bw_mib_s), ("iops", iops),
                        ("lat_ms", lat_ms), ("lat_slo_ms", lat_slo_ms)):  # fmt: skip
        _plausible(name, value)
    if not is_number(read_pct) or not 0 <= read_pct <= 100:
        raise ModelError(f"read_pct must be a number within 0 .. 100, got {read_pct!r}")
    if not is_number(capacity_tib) or not 0 <= capacity_tib < math.inf:
        raise ModelError(f"capacity_tib must be a number >= 0, got {capacity_tib!r}")


def price_key(key: object) -> str:
    """A key of `prices` in the spelling :func:`plan` looks up: a service level's
    ('premium' -> 'Premium') or :data:`FLEXIBLE_THROUGHPUT_PRICE`.

    Raises
    ------
    anfperf.ModelError
        An unknown key, naming it and listing the valid ones: a misspelt level would otherwise
        leave that level without a price, and the plan would fail (or rank) for another reason.
    """
    text = str(key).strip()
    if text.lower() == FLEXIBLE_THROUGHPUT_PRICE.lower():
        return FLEXIBLE_THROUGHPUT_PRICE
    try:
        return level_name(text)
    except ModelError:
        valid = [*service_levels()["level"].astype(str), FLEXIBLE_THROUGHPUT_PRICE]
        raise ModelError(
            f"unknown price key {key!r}: prices are per service level, or "
            f"{FLEXIBLE_THROUGHPUT_PRICE!r} for Flexible's throughput; one of {', '.join(valid)}"
        ) from None


def checked_prices(prices: Mapping[str, float] | None) -> dict[str, float] | None:
    """`prices` keyed as :func:`price_key` spells them, each a finite number >= 0.

    Raises
    ------
    anfperf.ModelError
        An unknown key (the valid ones listed), a key given twice in two spellings, or a price
        that is not a number >= 0 (a boolean is not one).
    """
    if prices is None:
        return None
    if not isinstance(prices, Mapping):
        raise ModelError(f"prices must be a mapping of service level to price, got {prices!r}")
    out: dict[str, float] = {}
    for key, price in prices.items():
        name = price_key(key)
        if name in out:
            raise ModelError(f"the price of {name} is given twice (as {key!r} too)")
        if not is_number(price) or not math.isfinite(price) or price < 0:
            raise ModelError(f"the price of {key!r} must be a finite number >= 0, got {price!r}")
        out[name] = float(price)
    return out


def _target(
    bw_mib_s: float | None,
    iops: float | None,
    bs_kib: float,
    read_pct: float,
    capacity_tib: float,
    pattern: str | None,
) -> _Target:
    """Step 1: the target in MiB/s and IOPS, and its pattern (assumed when not given)."""
    bw, rate = _rates(bw_mib_s, iops, bs_kib)
    pattern, assumed = _pattern(pattern, bs_kib)
    return _Target(bw, rate, bs_kib, read_pct, capacity_tib, pattern, assumed)


def _pattern(pattern: str | None, bs_kib: float) -> tuple[str, str]:
    """The access pattern, and a note when it was assumed from the block size."""
    if pattern is not None:
        return pattern, ""
    # Without a pattern the per-client and per-volume observations would be left out and a
    # single small VM could be planned for GiB/s; large blocks are streamed in practice.
    assumed = "sequential" if bs_kib >= LARGE_BLOCK_KIB else "random"
    return assumed, " (assumed from the block size; give the pattern if it is not)"


def _best_storage(storage: pd.DataFrame) -> pd.Series:
    """The first feasible storage option, or a ModelError saying why each was not."""
    feasible = storage[storage["feasible"]]
    if feasible.empty:
        raise ModelError(
            "no service level / volume type meets the target: "
            + "; ".join(f"{r.level} {r.volume_type}: {r.why}" for r in storage.itertuples())
        )
    return feasible.iloc[0]


def _storage_step(best: pd.Series, storage: pd.DataFrame) -> _Step:
    """Step 2's row of the reasoning: the storage option chosen, and how it was ranked."""
    ranked = f"the best of {_count(int(storage['feasible'].sum()), 'feasible option')}"
    if math.isfinite(best["cost_usd_month"]):
        ranked += (f"; its {best['pool_tib']:g} TiB capacity pool costs "
                   f"{best['cost_usd_month']:,.2f} USD a month")  # fmt: skip
    return ("storage", f"{best['level']} {best['volume_type']} volume, "
            f"{format_quota(best['quota_tib'])}", f"{best['quota_tib']:.6g}",
            best["why"] + f"; {ranked}: {best['ranked_by']}")  # fmt: skip


def _concurrency(
    rate: float, lat_ms: float | None, curve: Mapping[str, float] | None, lat_slo_ms: float | None
) -> tuple[float, int, list[_Step]]:
    """Latency at the target rate, the outstanding I/O it needs (Little's law), their steps."""
    lat, lat_why = _latency(rate, lat_ms, curve, lat_slo_ms)
    if lat_slo_ms is not None and lat > lat_slo_ms * (1 + 1e-9):
        raise ModelError(
            f"the latency expected at {rate:,.0f} IOPS is {lat:.3f} ms, above the "
            f"{lat_slo_ms:g} ms SLO ({lat_why})"
        )
    outstanding = int(threads_needed(rate, lat))
    steps = [
        ("latency", f"{lat:.3f} ms", f"{lat:.6g}", lat_why),
        ("outstanding I/O", f"{outstanding}", f"{outstanding}",
         f"Little's law: {rate:,.0f} IOPS x {lat:.3f} ms / 1000 = "
         f"{outstanding_io(rate, lat):.2f} -> {outstanding}"),
    ]  # fmt: skip
    return lat, outstanding, steps


#: How far a target may go past a published observation and still count as within it: the
#: observations are single benchmark runs, interpolated across block sizes and read shares
#: by the op-cost and mix models (5-10 % median error on real sweeps).
OBSERVED_MARGIN = 0.10

#: Plausible ranges of the plan's numeric inputs: outside, an input is a typo or a unit slip
#: (a block size of inf, 1e-9 IOPS, a latency of 1e12 ms), and the plan would be nonsense.
PLAUSIBLE = {
    "bs_kib": (0.5, 16 * KIB_PER_MIB),
    "bw_mib_s": (1e-3, 1e7),
    "iops": (1.0, 1e10),
    "lat_ms": (1e-3, 1e5),
    "lat_slo_ms": (1e-3, 1e5),
}


def _plausible(name: str, value: float | None) -> None:
    """A ModelError naming `name` unless `value` is None or a number in its plausible range."""
    if value is None:
        return
    low, high = PLAUSIBLE[name]
    if not is_number(value) or not low <= value <= high:
        raise ModelError(f"{name} must be a number within {low:g} .. {high:g}, got {value!r}")


def _rates(bw_mib_s: float | None, iops: float | None, bs_kib: float) -> tuple[float, float]:
    if not bs_kib or not bs_kib > 0:
        raise ModelError("bs_kib must be > 0")
    if (bw_mib_s is None) == (iops is None):
        raise ModelError("give the target as bw_mib_s or as iops (one of them)")
    if bw_mib_s is not None:
        if not bw_mib_s > 0 or not math.isfinite(bw_mib_s):
            raise ModelError("bw_mib_s must be > 0")
        return float(bw_mib_s), float(bw_to_iops(bw_mib_s, bs_kib))
    if not iops > 0 or not math.isfinite(iops):
        raise ModelError("iops must be > 0")
    return float(iops_to_bw(iops, bs_kib)), float(iops)


def _storage_options(
    target: _Target,
    levels: Sequence[str],
    prices: Mapping[str, float] | None,
    rule: str,
    volume_types: Sequence[str] = _DEFAULT_VOLUME_TYPES,
) -> pd.DataFrame:
    order = service_levels().set_index("level")["level_order"]
    rows = []
    for raw in levels:
        level = level_name(raw)
        for volume_type in volume_types:
            rows.append(_storage_option(level, volume_type, target, prices, rule))
    frame = pd.DataFrame(rows)
    frame["level_order"] = frame["level"].map(order)
    if prices:
        frame["ranked_by"] = (
            "those within published observations first, then the lowest monthly cost of the "
            "capacity pool (the client VMs are the same for each)"
        )
        keys = ["feasible", "observed", "cost_usd_month", "quota_tib", "level_order"]
        asc = [False, False, True, True, True]
    else:
        frame["ranked_by"] = (
            "those within published observations first, then the smallest quota, then the lower "
            "level (no prices given)"
        )
        keys = ["feasible", "observed", "quota_tib", "level_order"]
        asc = [False, False, True, True]
    frame = frame.sort_values(keys, ascending=asc, kind="stable").reset_index(drop=True)
    return frame.drop(columns="level_order")


def _storage_option(
    level: str,
    volume_type: str,
    target: _Target,
    prices: Mapping[str, float] | None,
    rule: str,
) -> dict:
    bw, capacity_tib, pattern = target.bw, target.capacity_tib, target.pattern
    bs_kib, read_pct = target.bs_kib, target.read_pct
    out = {
        "level": level,
        "volume_type": volume_type,
        "quota_tib": math.nan,
        "limit_mib_s": math.nan,
        "pool_tib": math.nan,
        "cost_usd_month": math.nan,
        "feasible": False,
        "observed": True,
        "why": "",
    }
    try:
        lo, hi = volume_size_range(level, volume_type, rule)
        cap = volume_type_cap(level, volume_type, rule)
        level_r = math.nan if level == "Flexible" else auto_qos_rate(level)
    except ModelError as exc:
        return {**out, "why": str(exc)}
    if level == "Flexible":
        if volume_type != "regular" or not prices or level not in prices:
            return {**out, "why": (
                "Flexible is ranked only with prices (capacity and throughput are bought apart)"
                if volume_type == "regular"
                else "this plan considers Flexible for regular volumes only"
            )}  # fmt: skip
        quota, limit, why, quota_for_cost = _flexible_sizing(bw, capacity_tib, lo, hi, cap)
    else:
        quota, limit, why = _auto_qos_sizing(bw, capacity_tib, level_r, lo, cap, volume_type)
        quota_for_cost = quota
    if bw > cap * (1 + 1e-12):
        return {**out, "why": f"{bw:,.1f} MiB/s is above the {cap:g} MiB/s cap of this volume type"}
    if quota > hi * (1 + 1e-9):
        return {**out, "why": f"needs {quota:.2f} TiB, above the {hi:g} TiB maximum"}
    if pattern is not None:
        # an observation, not a cap: beyond it (and its margin) the option stays feasible,
        # ranked after those within what was seen
        ceiling_bw = published_ceiling(volume_type, pattern, read_pct, bs_kib).bw_mib_s
        out["observed"] = bw <= ceiling_bw * (1 + OBSERVED_MARGIN)
        if bw > ceiling_bw * (1 + 1e-9):
            why += (
                f"; more than one such volume was seen to do ({ceiling_bw:,.1f} MiB/s at "
                f"{bs_kib:g} KiB, {read_pct:g} % read, published): not measured, within the caps"
            )
    pool = pool_size_tib(quota_for_cost)
    out.update(quota_tib=quota, limit_mib_s=limit, pool_tib=pool, feasible=True, why=why)
    if prices and level in prices:
        out["cost_usd_month"] = _monthly_cost(level, pool, bw, prices)
    elif prices:
        out["feasible"] = False
        out["why"] = f"no price given for {level}"
    return out


def _flexible_sizing(
    bw: float, capacity_tib: float, lo: float, hi: float, cap: float
) -> tuple[float, float, str, float]:
    """Flexible (manual QoS): quota, limit, why, and the pool size the cost is paid on."""
    quota = max(capacity_tib, lo)
    baseline, per_tib = _flexible_pool_rates()
    pool = max(quota, bw / per_tib, table_value("planning", "min_pool_tib"))
    why = (
        f"manual QoS: {format_number(bw)} MiB/s bought on a {format_quota(pool)} pool "
        f"({baseline:g} MiB/s included, at most {per_tib:g} MiB/s per TiB; a Flexible regular "
        f"volume takes {format_quota(lo)} .. {format_quota(hi)} and up to {format_number(cap)} "
        "MiB/s)"
    )
    return quota, min(bw, cap), why, pool


def _auto_qos_sizing(
    bw: float, capacity_tib: float, level_r: float, lo: float, cap: float, volume_type: str
) -> tuple[float, float, str]:
    """Auto QoS: the quota the throughput (or the capacity, or the smallest volume) needs."""
    quota = max(bw / level_r, capacity_tib, lo)
    why = f"{format_number(bw)} MiB/s / {level_r:g} MiB/s per TiB = {format_quota(bw / level_r)}"
    if capacity_tib > bw / level_r:
        why += f"; the {capacity_tib:g} TiB of capacity asked for is more"
    if quota > bw / level_r and quota == lo:
        why += f"; the smallest {volume_type} volume is {lo:g} TiB"
    return quota, min(quota * level_r, cap), why


def pool_size_tib(size_tib: float) -> float:
    """The capacity pool that holds `size_tib` [TiB]: rounded up to the pool step, at least
    the smallest pool (anfperf/data/planning.csv: 1 TiB steps from 1 TiB)."""
    step = table_value("planning", "pool_step_tib")
    # a size a hair above a whole step (15.625 x 1.0000000001) is float noise, not a step more
    steps = math.ceil(size_tib / step - 1e-9)
    return max(steps * step, table_value("planning", "min_pool_tib"))


def pool_cost_usd_month(
    level: str,
    bw_mib_s: float,
    prices: Mapping[str, float],
    *,
    capacity_tib: float = 0.0,
    volume_type: str = "regular",
    rule: str = "current",
) -> tuple[float, float]:
    """The capacity pool one volume of `level` needs for `bw_mib_s`, and its monthly cost.

    Sized as :func:`plan` sizes a storage option: auto QoS, the quota the throughput (or the
    capacity) needs; Flexible, the pool its throughput needs (at most 640 MiB/s per TiB), paid
    for its throughput beyond the baseline too; then whole pool steps, at least the smallest.

    Parameters
    ----------
    level : str
        Service level.
    bw_mib_s : float
        Throughput the volume must allow [MiB/s].
    prices : mapping
        As :func:`plan` takes them: USD per GiB-hour of `level` (and per MiB/s-hour of
        ``'Flexible throughput'``).
    capacity_tib : float
        Capacity the volume must hold [TiB].
    volume_type, rule : str
        As in :func:`plan`.

    Returns
    -------
    tuple of float
        The pool [TiB] and its monthly cost [USD].

    Raises
    ------
    anfperf.ModelError
        No price for `level`, or one such volume cannot allow `bw_mib_s` (above the volume
        type's cap, or needing more than its largest quota).
    """
    level = level_name(level)
    prices = checked_prices(prices) or {}
    if level not in prices:
        raise ModelError(f"no price given for {level}")
    lo, hi = volume_size_range(level, volume_type, rule)
    cap = volume_type_cap(level, volume_type, rule)
    if bw_mib_s > cap * (1 + 1e-12):
        raise ModelError(f"{bw_mib_s:,.1f} MiB/s is above the {cap:g} MiB/s cap of a {level} "
                         f"{volume_type} volume")  # fmt: skip
    if level == "Flexible":
        size = _flexible_sizing(bw_mib_s, capacity_tib, lo, hi, cap)[3]
        quota = max(capacity_tib, lo)
    else:
        quota = _auto_qos_sizing(bw_mib_s, capacity_tib, auto_qos_rate(level), lo, cap,
                                 volume_type)[0]  # fmt: skip
        size = quota
    if quota > hi * (1 + 1e-9):
        raise ModelError(f"{bw_mib_s:,.1f} MiB/s needs {quota:.2f} TiB of {level}, above the "
                         f"{hi:g} TiB maximum of a {volume_type} volume")  # fmt: skip
    pool = pool_size_tib(size)
    return pool, _monthly_cost(level, pool, bw_mib_s, prices)


def _monthly_cost(level: str, pool_tib: float, bw: float, prices: Mapping[str, float]) -> float:
    """The pool at the level's price, plus Flexible's throughput beyond its pool baseline."""
    hours = hours_per_month()
    cost = pool_tib * GIB_PER_TIB * float(prices[level]) * hours
    if level == "Flexible":
        extra = max(bw - _flexible_pool_rates()[0], 0.0)
        cost += extra * float(prices.get(FLEXIBLE_THROUGHPUT_PRICE, math.nan)) * hours
    return cost


def _checked_vm_prices(vm_prices: Mapping[str, float] | None) -> dict[str, float] | None:
    """`vm_prices` as floats >= 0 keyed by VM size, or a ModelError naming the bad one."""
    if vm_prices is None:
        return None
    if not isinstance(vm_prices, Mapping):
        raise ModelError(
            f"vm_prices must be a mapping of VM size to USD per hour, got {vm_prices!r}"
        )
    out = {}
    for size, price in vm_prices.items():
        if not is_number(price) or not math.isfinite(price) or price < 0:
            raise ModelError(f"the price of VM size {size!r} must be a finite number >= 0, "
                             f"got {price!r}")  # fmt: skip
        out[str(size).lower()] = float(price)
    return out


def _with_totals(storage: pd.DataFrame, vm: pd.Series) -> pd.DataFrame:
    """Each storage option's monthly cost [USD], and with the chosen client VMs when priced."""
    storage = storage.copy()
    clients = float(vm["vm_usd_month"])
    storage["clients_usd_month"] = clients
    # unpriced clients add nothing known: the total is then the pool's alone
    storage["total_usd_month"] = storage["cost_usd_month"] + (clients if math.isfinite(clients)
                                                              else 0.0)  # fmt: skip
    return storage


def _flexible_pool_rates() -> tuple[float, float]:
    """Flexible pools' baseline [MiB/s] and most throughput per pool TiB [MiB/s per TiB]."""
    row = service_levels().set_index("level").loc["Flexible"]
    return float(row["pool_baseline_mib_s"]), float(row["pool_max_mib_s_per_tib"])


def _latency(
    rate: float,
    lat_ms: float | None,
    curve: Mapping[str, float] | None,
    lat_slo_ms: float | None,
) -> tuple[float, str]:
    if lat_ms is not None:
        if not lat_ms > 0:
            raise ModelError("lat_ms must be > 0")
        return float(lat_ms), "latency given"
    if curve is not None:
        return latency_at_rate_ms(curve, rate)
    if lat_slo_ms is not None:
        if not lat_slo_ms > 0:
            raise ModelError("lat_slo_ms must be > 0")
        return float(lat_slo_ms), "the SLO: the most concurrency it allows"
    assumed = table_value("planning", "default_lat_ms")  # ANF's sub-millisecond average
    return assumed, (
        "assumed: ANF's sub-millisecond average, rounded up; give the latency expected at the "
        "target, or an SLO, to size for it"
    )


def _client_options(
    target: _Target,
    outstanding: int,
    vm_sizes: Sequence[str] | None,
    nconnect: int,
    nfs_version: str,
    vm_prices: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    bw, rate, read_pct, pattern = target.bw, target.rate, target.read_pct, target.pattern
    hours = hours_per_month()
    table = vm_network()
    if vm_sizes is not None:
        wanted = {vm_size_name(s) for s in vm_sizes}
        table = table[table["vm_size"].isin(wanted)]
    inflight = nfs_inflight_limit(nconnect, nfs_version)
    write_bw = bw * (1 - read_pct / 100.0)
    rows = []
    for rec in table.to_dict("records"):
        egress = float(rec["egress_mib_s"])
        n_egress = math.ceil(write_bw / egress - 1e-9) if write_bw > 0 else 1
        n_inflight = math.ceil(outstanding / inflight - 1e-9)
        reasons = [
            f"egress {egress:,.0f} MiB/s per VM for {write_bw:,.1f} MiB/s of writes -> {n_egress}",
            f"NFSv{nfs_version} nconnect={nconnect}: {inflight} in flight per VM -> {n_inflight}",
        ]
        n_observed = 1
        if pattern is not None:
            per_vm, unit, detail = observed_per_client(nconnect, pattern, read_pct, rec["vm_size"])
            n_observed = math.ceil((rate if unit == "1/s" else bw) / per_vm - 1e-9)
            reasons.append(f"{detail} -> {n_observed}")
        count = max(n_egress, n_inflight, n_observed, 1)
        rows.append(
            {
                "vm_size": rec["vm_size"],
                "vcpus": int(rec["vcpus"]),
                "egress_mib_s": egress,
                "vm_count": count,
                "total_vcpus": count * int(rec["vcpus"]),
                "vm_usd_month": count
                * (vm_prices or {}).get(rec["vm_size"].lower(), math.nan)
                * hours,
                "why": "; ".join(reasons),
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        raise ModelError("no client VM sizes to choose from")
    keys = ["total_vcpus", "vm_count"]
    if vm_prices:  # the cheapest priced size; unpriced sizes after, by vCPUs
        frame["unpriced"] = frame["vm_usd_month"].isna()
        keys = ["unpriced", "vm_usd_month", *keys]
    frame = frame.sort_values(keys, kind="stable").reset_index(drop=True)
    return frame.drop(columns="unpriced", errors="ignore")


def _client_choice(
    clients: pd.DataFrame, outstanding: int, lat_slo_ms: float | None
) -> tuple[pd.Series, int, list[_Step]]:
    """Steps 4 and 5: the first client option, the threads per VM, and their rows."""
    vm = clients.iloc[0]
    vm_count = int(vm["vm_count"])
    threads = math.ceil(outstanding / vm_count)
    within = f"; within the SLO of {lat_slo_ms:g} ms" if lat_slo_ms is not None else ""
    if math.isfinite(vm["vm_usd_month"]):
        ranked = f"the lowest monthly cost of {len(clients)} sizes ({vm['vm_usd_month']:,.2f} USD)"
    else:
        ranked = f"fewest total vCPUs of {len(clients)} sizes (no VM priced)"
    steps = [
        ("clients", f"{vm_count} x {vm['vm_size']}", f"{vm_count}", vm["why"] + f"; {ranked}"),
        ("threads per VM", f"{threads}", f"{threads}",
         f"{outstanding} outstanding I/O over {_count(vm_count, 'VM')} (threads, or iodepth x "
         "numjobs)"
         + within),
    ]  # fmt: skip
    return vm, threads, steps


def _count(n: int, what: str) -> str:
    """``1 VM``, ``2 VMs``: a count and its noun."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"
