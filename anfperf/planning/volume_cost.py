"""What a volume Azure describes costs a month: its share of its capacity pool.

Azure bills capacity pools, not volumes. A volume's share is its quota at its level's
capacity price (the pool's size is the sum of its volumes' quotas plus what is unused, which
is no volume's); a Flexible volume adds its share of the throughput its pool bought beyond
the pool's baseline, in proportion of the volume's throughput to the pool's.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

from anfperf.azure.volume import AnfVolume
from anfperf.models.limits.prices import FLEXIBLE_THROUGHPUT_PRICE, per_month
from anfperf.models.limits.quota import service_levels
from anfperf.units import GIB_PER_TIB

__all__ = ["volume_cost_usd_month"]


def volume_cost_usd_month(
    volume: AnfVolume,
    prices_usd_per_hour: Mapping[str, float] | None,
    given: Collection[str] = (),
    prices_region: str | None = None,
) -> tuple[float | None, list[str]]:
    """The volume's monthly cost [USD per month] and what to know of it.

    Parameters
    ----------
    volume : anfperf.azure.AnfVolume
        The volume (:func:`anfperf.azure.read_volume`).
    prices_usd_per_hour : mapping, optional
        USD per GiB-hour per service level and, key 'Flexible throughput', per MiB/s-hour
        (:func:`anfperf.models.plan`'s prices: ``--price`` and ``--prices``).
    given : collection of str
        The keys the user set one by one (``--price``): each that does not apply to this
        volume is said to have no effect (a prices file holds every level's, unremarked).
    prices_region : str, optional
        The prices' region (armRegionName): a note says so when the volume is in another
        (list prices differ by region).

    Returns
    -------
    (float or None, list of str)
        The cost (None: no price of the volume's level, or no price given) and notes: the
        prices given that have no effect on this volume, what the cost leaves out.
    """
    if not prices_usd_per_hour:
        return None, []
    monthly = per_month(prices_usd_per_hour)  # per TiB-month, per MiB/s-month
    level = volume.service_level
    used = {level} | ({FLEXIBLE_THROUGHPUT_PRICE} if level == "Flexible" else set())
    notes = [
        f"the price of {key} has no effect: this volume is {level}"
        for key in given
        if key not in used
    ]
    if level not in monthly:
        notes.append(f"no price of {level} capacity given: the volume's monthly cost is unknown")
        return None, notes
    cost = volume.quota_tib * monthly[level]
    what = f"{volume.quota_tib * GIB_PER_TIB:,.6g} GiB at {monthly[level]:,.2f} USD per TiB-month"
    if level == "Flexible":
        extra, said = _flexible_throughput_usd_month(volume, monthly.get(FLEXIBLE_THROUGHPUT_PRICE))
        notes.append(said)
        if extra is None:
            return None, notes
        cost += extra
    notes.insert(0, f"monthly cost {cost:,.2f} USD: its pool's share, {what}")
    here, there = _region(volume.region), _region(prices_region)
    if here and there and here != there:
        notes.append(f"the prices are {there}'s, the volume is in {here}: list prices differ "
                     "by region (--region)")  # fmt: skip
    return cost, notes


def _region(name: str | None) -> str:
    """A region as armRegionName writes it: 'East US' is 'eastus'."""
    return "".join(str(name or "").split()).lower()


def _flexible_throughput_usd_month(
    volume: AnfVolume, usd_per_mib_s_month: float | None
) -> tuple[float | None, str]:
    """The volume's share of the throughput its Flexible pool bought beyond the baseline."""
    pool_mib_s = volume.custom_throughput_mib_s
    limit = volume.throughput_limit_mib_s
    baseline = float(service_levels().set_index("level").at["Flexible", "pool_baseline_mib_s"])
    if usd_per_mib_s_month is None:
        return None, "no price of Flexible throughput given: the volume's cost is unknown"
    if pool_mib_s is None or limit is None or not math.isfinite(pool_mib_s) or pool_mib_s <= 0:
        return None, (
            "the file does not hold this Flexible volume's pool: its share of the pool's "
            "throughput (beyond the 128 MiB/s baseline) is unknown, and so is its cost"
        )
    bought = max(pool_mib_s - baseline, 0.0)
    share = bought * min(limit / pool_mib_s, 1.0)
    return share * usd_per_mib_s_month, (
        f"Flexible throughput: {share:,.4g} of the {bought:,.4g} MiB/s its pool bought beyond "
        f"the {baseline:g} MiB/s baseline ({limit:g} of the pool's {pool_mib_s:g} MiB/s), at "
        f"{usd_per_mib_s_month:,.4g} USD per MiB/s-month"
    )
