"""Azure NetApp Files throughput limits: service levels, volume types, QoS, and the inverse.

The rules are data, not code: ``anfperf/data/service_levels.csv`` (MiB/s per TiB of each level)
and ``anfperf/data/volume_limits.csv`` (size range and throughput cap of each volume type and
level, under the current and earlier rules), each row with the azure-docs article it comes from
and its date.

- Auto QoS: a volume's limit is its quota times its level's rate, capped by its volume type
  (regular 4,500 MiB/s, Standard 1,600; large volumes 12,800 since Jul 2024 -- rule 'current';
  per-level caps 1,600 / 6,400 / 10,240 in Nov 2023 -- rule '2023-11'; the public calculator's
  10,240 for Ultra -- rule 'calculator'). 100 GiB Premium -> 6.25 MiB/s.
- Manual QoS: volumes share the pool's size times its rate; each volume 1 .. 4,500 MiB/s (the
  Flexible row of volume_limits.csv, :func:`manual_qos_range_mib_s`).
- Flexible (manual QoS only): 128 MiB/s per pool whatever its size, more purchasable up to
  640 MiB/s per pool TiB.
- Elastic (shared QoS): the pool's 32 MiB/s per pool TiB is shared by its volumes, which have
  no limit of their own (:func:`pool_throughput_limit`).
- Large volumes in breakthrough mode (volume type 'breakthrough'): no predefined limit; "up to
  50 GiB/s" achievable is the ceiling the articles state. Under auto QoS the model keeps
  quota x rate below it (no article states a breakthrough-specific auto-QoS rule).
- Cool access (``anfperf/data/cool_access.csv``): Premium 36 and Ultra 68 MiB/s per TiB instead
  of 64 and 128; large volumes with cool access 2,400 GiB .. 7.2 PiB.
- Inverse: the quota a target needs (Premium 4,500 MiB/s -> 70.3125 TiB).

Units: quota and pool sizes in TiB (binary, 2**40 bytes), throughput in MiB/s, block sizes in
KiB. Network rates in Mbps are decimal (10**6 bit/s): 16,000 Mbps = 1,907.35 MiB/s.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from anfperf.errors import ModelError
from anfperf.models.arrays import float_values
from anfperf.models.tables import load_table
from anfperf.units import BYTES_PER_MIB, GIB_PER_TIB, KIB_PER_MIB

log = logging.getLogger(__name__)

#: The service levels the planner weighs and the charts draw unless told otherwise, in order of
#: price (the table also holds Elastic, zone-redundant storage, taken only when asked for).
PLANNED_LEVELS = ("Standard", "Premium", "Ultra", "Flexible")


def service_levels() -> pd.DataFrame:
    """The service-level table (anfperf/data/service_levels.csv).

    Returns
    -------
    pandas.DataFrame
        ======================  =============  ==================================================
        column                  unit           meaning
        ======================  =============  ==================================================
        level                                  'Standard', 'Premium', 'Ultra', 'Flexible',
                                               'Elastic'
        qos                                    QoS types the level offers ('auto|manual',
                                               'manual', 'shared')
        mib_s_per_tib           MiB/s per TiB  auto-QoS rate (NaN for Flexible; per pool TiB
                                               for Elastic)
        pool_baseline_mib_s     MiB/s          throughput every pool gets (Flexible)
        pool_max_mib_s_per_tib  MiB/s per TiB  most a pool can have per TiB of its size
        pool_min_tib            TiB            smallest pool, where stated (Elastic)
        pool_max_tib            TiB            largest pool, where stated (Elastic)
        level_order                            1 = least per-GiB price ... (Flexible, then
                                               Elastic last: no price compared)
        note, source, date                     what, which azure-docs article, its ms.date
        ======================  =============  ==================================================
    """
    return load_table("service_levels")


def cool_access() -> pd.DataFrame:
    """The cool-access table (anfperf/data/cool_access.csv): rates, sizes and observations.

    Returns
    -------
    pandas.DataFrame
        Columns key, level, volume_type, value, unit, note, source, date. Keys:
        'mib_s_per_tib' (per level), 'min_tib' / 'max_tib' (per volume type) and observed
        hot- and cool-tier read throughputs ('hot_seq_read_mib_s', ...).
    """
    return load_table("cool_access")


def volume_limits() -> pd.DataFrame:
    """The volume-type table (anfperf/data/volume_limits.csv): size range, cap per type and rule.

    Returns
    -------
    pandas.DataFrame
        Columns volume_type, rule, level, min_tib [TiB], max_tib [TiB], min_mib_s [MiB/s],
        max_mib_s [MiB/s], note, source, date.
    """
    return load_table("volume_limits")


def level_name(level: str) -> str:
    """The table's spelling of a service level ('premium' -> 'Premium')."""
    table = service_levels()
    names = {str(n).lower(): str(n) for n in table["level"]}
    try:
        return names[str(level).strip().lower()]
    except KeyError:
        raise ModelError(
            f"unknown service level {level!r}; known: {sorted(names.values())}"
        ) from None


def level_rate(level: str) -> float:
    """Throughput per TiB of a service level [MiB/s per TiB]: of quota, or of pool (Elastic)."""
    name = level_name(level)
    table = service_levels().set_index("level")
    rate = float(table.loc[name, "mib_s_per_tib"])
    if not np.isfinite(rate):
        raise ModelError(
            f"{name} has no auto-QoS rate: it is a manual-QoS level (see pool_throughput_limit "
            "and flexible_pool_throughput)"
        )
    return rate


def cool_access_rate(level: str) -> float:
    """Auto-QoS throughput per TiB of quota of a level with cool access [MiB/s per TiB].

    Premium 36 and Ultra 68 (instead of 64 and 128), Standard unchanged at 16
    (manage-cool-access.md). Flexible keeps its configured throughput: no rate, a ModelError.
    """
    name = level_name(level)
    table = cool_access()
    hit = table[(table["key"] == "mib_s_per_tib") & (table["level"] == name)]
    rate = float(hit["value"].iloc[0]) if not hit.empty else math.nan
    if not np.isfinite(rate):
        why = hit["note"].iloc[0] if not hit.empty else "no cool-access rate in the table"
        raise ModelError(f"{name} with cool access has no auto-QoS rate: {why}")
    return rate


def auto_qos_rate(level: str, cool_access: bool = False) -> float:
    """Rate that turns a volume's quota into its limit [MiB/s per TiB], or a ModelError.

    Manual-QoS levels (Flexible) and shared-QoS levels (Elastic, whose volumes have no limit of
    their own) have none.
    """
    name = level_name(level)
    if "shared" in str(service_levels().set_index("level").loc[name, "qos"]).split("|"):
        raise ModelError(
            f"{name} volumes share their pool's QoS and have no limit of their own: use "
            f"pool_throughput_limit(pool_tib, {name!r})"
        )
    return cool_access_rate(name) if cool_access else level_rate(name)


def volume_types() -> tuple[str, ...]:
    """Volume types of anfperf/data/volume_limits.csv: 'regular', 'large', 'breakthrough'."""
    return tuple(dict.fromkeys(volume_limits()["volume_type"]))


def volume_limit_row(level: str, volume_type: str, rule: str) -> pd.Series:
    """The row of the volume_limits table for a level, volume type and rule (a ModelError
    naming the rules there are when there is none)."""
    known = volume_types()
    if volume_type not in known:
        raise ModelError(f"volume_type must be one of {known}, got {volume_type!r}")
    name = level_name(level)
    table = volume_limits()
    hit = table[
        (table["volume_type"] == volume_type) & (table["rule"] == rule) & (table["level"] == name)
    ]
    if hit.empty:
        rules = sorted(set(table.loc[table["volume_type"] == volume_type, "rule"]))
        raise ModelError(
            f"no {volume_type} volume limits for {name} under rule {rule!r} (rules: {rules})"
        )
    return hit.iloc[0]


def volume_type_cap(level: str, volume_type: str = "regular", rule: str = "current") -> float:
    """Most throughput a volume of a type can have at a level, whatever its quota [MiB/s]."""
    return float(volume_limit_row(level, volume_type, rule)["max_mib_s"])


def manual_qos_range_mib_s() -> tuple[float, float]:
    """Least and most manual-QoS throughput one regular volume may be given [MiB/s]: 1 .. 4,500.

    The regular, current row of Flexible (a manual-QoS-only level) in
    anfperf/data/volume_limits.csv: its min_mib_s and max_mib_s.
    """
    row = volume_limit_row("Flexible", "regular", "current")
    return float(row["min_mib_s"]), float(row["max_mib_s"])


def volume_size_range(
    level: str, volume_type: str = "regular", rule: str = "current", cool_access: bool = False
) -> tuple[float, float]:
    """Smallest and largest quota of a volume type [TiB].

    With `cool_access`, the cool-access table's range where it has one (current rules): large
    volumes 2,400 GiB .. 7.2 PiB.
    """
    row = volume_limit_row(level, volume_type, rule)
    sizes = _cool_access_sizes(volume_type) if cool_access and rule == "current" else None
    return sizes or (float(row["min_tib"]), float(row["max_tib"]))


def _cool_access_sizes(volume_type: str) -> tuple[float, float] | None:
    """Size range [TiB] of a volume type with cool access, if the cool-access table has one."""
    table = cool_access()
    rows = table[table["volume_type"] == volume_type].set_index("key")["value"]
    if not {"min_tib", "max_tib"} <= set(rows.index):
        return None
    return float(rows["min_tib"]), float(rows["max_tib"])


def throughput_limit(
    quota_tib: object,
    level: str,
    volume_type: str = "regular",
    rule: str = "current",
    cool_access: bool = False,
) -> np.ndarray | float:
    """Throughput limit of an auto-QoS volume: quota x level rate, capped by its type.

    Parameters
    ----------
    quota_tib : array-like
        Volume quota [TiB] (100 GiB = 100 / 1024 TiB).
    level : str
        'Standard', 'Premium' or 'Ultra'.
    volume_type : {'regular', 'large', 'breakthrough'}
        Volume type ('breakthrough': a large volume in breakthrough mode, capped at the stated
        "up to 50 GiB/s").
    rule : str
        Which rules: 'current', 'before-2025' (regular: 100 GiB minimum), '2023-11' (large:
        per-level caps), '2023-09' (large: 102,401 GiB minimum) or 'calculator' (large: the
        public calculator's Ultra cap).
    cool_access : bool
        Cool access enabled: the cool-access rate (Premium 36, Ultra 68 MiB/s per TiB) and size
        range (large volumes 2,400 GiB .. 7.2 PiB).

    Returns
    -------
    float or numpy.ndarray
        Throughput limit [MiB/s]. 100 GiB Premium -> 6.25; 70.3125 TiB Premium -> 4,500.

    Raises
    ------
    anfperf.ModelError
        Unknown level, type or rule, a level without auto QoS, or a quota outside the type's
        size range.
    """
    q = float_values(quota_tib, "quota_tib")
    lo, hi = volume_size_range(level, volume_type, rule, cool_access)
    if np.any(~np.isfinite(q)) or np.any(q < lo * (1 - 1e-9)) or np.any(q > hi * (1 + 1e-9)):
        raise ModelError(
            f"quota_tib {quota_tib} outside the {volume_type} volume range {lo:g} .. {hi:g} TiB"
        )
    rate = auto_qos_rate(level, cool_access)
    out = np.minimum(q * rate, volume_type_cap(level, volume_type, rule))
    return float(out) if out.ndim == 0 else out


def quota_needed(
    bw_mib_s: object,
    level: str,
    volume_type: str = "regular",
    rule: str = "current",
    cool_access: bool = False,
) -> np.ndarray | float:
    """Smallest auto-QoS quota whose limit reaches a target throughput (the inverse).

    Parameters
    ----------
    bw_mib_s : array-like
        Target throughput [MiB/s].
    level, volume_type, rule, cool_access
        As in :func:`throughput_limit`.

    Returns
    -------
    float or numpy.ndarray
        Quota [TiB], at least the type's smallest size. Premium 4,500 MiB/s -> 70.3125.

    Raises
    ------
    anfperf.ModelError
        The target is above the volume type's cap (no quota reaches it) or the quota needed
        is above the type's largest size.
    """
    bw = float_values(bw_mib_s, "bw_mib_s")
    if np.any(~np.isfinite(bw)) or np.any(bw < 0):
        raise ModelError("bw_mib_s must be finite and >= 0")
    cap = volume_type_cap(level, volume_type, rule)
    name = level_name(level)
    if np.any(bw > cap * (1 + 1e-12)):
        raise ModelError(
            f"{float(np.max(bw)):g} MiB/s is above the {cap:g} MiB/s cap of a {volume_type} "
            f"{name} volume (rule {rule!r}); no quota reaches it"
        )
    lo, hi = volume_size_range(level, volume_type, rule, cool_access)
    q = np.maximum(bw / auto_qos_rate(level, cool_access), lo)
    if np.any(q > hi * (1 + 1e-9)):
        raise ModelError(
            f"{float(np.max(bw)):g} MiB/s needs {float(np.max(q)):g} TiB, above the "
            f"{hi:g} TiB maximum of a {volume_type} volume"
        )
    return float(q) if q.ndim == 0 else q


def pool_throughput_limit(pool_tib: object, level: str) -> np.ndarray | float:
    """Most throughput a manual- or shared-QoS capacity pool can hand out to its volumes [MiB/s].

    Standard / Premium / Ultra: pool size x rate (10 TiB Ultra -> 1,280 MiB/s). Flexible: the
    128 MiB/s baseline or 640 MiB/s per pool TiB, whichever is more. Elastic (shared QoS):
    32 MiB/s per pool TiB, any volume up to all of it (128 TiB -> 4,096 MiB/s).

    Parameters
    ----------
    pool_tib : array-like
        Capacity pool size [TiB], within the level's pool sizes where the table has them
        (Elastic 1 .. 128 TiB).
    level : str
        Service level of the pool.
    """
    p = float_values(pool_tib, "pool_tib")
    if np.any(~np.isfinite(p)) or np.any(p <= 0):
        raise ModelError("pool_tib must be > 0")
    row = service_levels().set_index("level").loc[level_name(level)]
    _check_pool_size(p, row)
    baseline = float(row["pool_baseline_mib_s"]) if pd.notna(row["pool_baseline_mib_s"]) else 0.0
    out = np.maximum(p * float(row["pool_max_mib_s_per_tib"]), baseline)
    return float(out) if out.ndim == 0 else out


def _check_pool_size(pool_tib: np.ndarray, row: pd.Series) -> None:
    """A ModelError when a pool size is outside the level's pool sizes (where the table has them)."""
    lo = float(row["pool_min_tib"]) if pd.notna(row["pool_min_tib"]) else 0.0
    hi = float(row["pool_max_tib"]) if pd.notna(row["pool_max_tib"]) else math.inf
    if np.any(pool_tib < lo * (1 - 1e-9)) or np.any(pool_tib > hi * (1 + 1e-9)):
        raise ModelError(f"{row.name} pools take {lo:g} .. {hi:g} TiB, got {pool_tib}")


def flexible_pool_throughput(pool_tib: float, purchased_mib_s: float = 0.0) -> float:
    """Throughput of a Flexible pool: the 128 MiB/s baseline plus what was purchased [MiB/s].

    Raises ModelError when the total is above the pool's 640 MiB/s-per-TiB maximum.
    """
    row = service_levels().set_index("level").loc["Flexible"]
    baseline = float(row["pool_baseline_mib_s"])
    if not np.isfinite(purchased_mib_s) or purchased_mib_s < 0:
        raise ModelError("purchased_mib_s must be >= 0")
    total = baseline + float(purchased_mib_s)
    most = float(pool_throughput_limit(pool_tib, "Flexible"))
    if total > most * (1 + 1e-12):
        raise ModelError(
            f"a {pool_tib:g} TiB Flexible pool offers at most {most:g} MiB/s; {total:g} MiB/s asked"
        )
    return total


def manual_qos(
    pool_tib: float,
    level: str,
    volumes_mib_s: Mapping[str, float] | Sequence[float],
) -> pd.DataFrame:
    """Check throughput assignments of volumes in a manual-QoS pool.

    Parameters
    ----------
    pool_tib : float
        Capacity pool size [TiB].
    level : str
        Service level of the pool.
    volumes_mib_s : mapping or sequence of float
        Throughput assigned to each volume [MiB/s] (names -> values, or values).

    Returns
    -------
    pandas.DataFrame
        One row per volume and a last row 'pool': name, bw_mib_s [MiB/s], limit_mib_s [MiB/s],
        ok, reason. The pool row holds the total assigned and the pool's limit; its reason says
        how much is left or how much is over.
    """
    items = (
        list(volumes_mib_s.items())
        if isinstance(volumes_mib_s, Mapping)
        else [(f"volume{i + 1}", v) for i, v in enumerate(volumes_mib_s)]
    )
    pool_limit = float(pool_throughput_limit(pool_tib, level))
    least, most = manual_qos_range_mib_s()
    rows = []
    for name, value in items:
        bw = float(value)
        ok = least <= bw <= most
        reason = "ok" if ok else f"a volume takes {least:g} .. {most:g} MiB/s"
        rows.append((str(name), bw, most, ok, reason))
    total = float(sum(r[1] for r in rows))
    left = pool_limit - total
    pool_ok = left >= -1e-9
    reason = f"{left:g} MiB/s unassigned" if pool_ok else f"{-left:g} MiB/s over the pool"
    rows.append(("pool", total, pool_limit, pool_ok, reason))
    return pd.DataFrame(rows, columns=["name", "bw_mib_s", "limit_mib_s", "ok", "reason"])


# --------------------------------------------------------------------------------------------
# Unit conversions


def iops_to_bw(iops: object, bs_kib: object) -> np.ndarray | float:
    """Throughput of an I/O rate at a block size [MiB/s]: ``iops * bs_kib / 1024``."""
    out = float_values(iops, "iops") * float_values(bs_kib, "bs_kib") / KIB_PER_MIB
    return float(out) if out.ndim == 0 else out


def bw_to_iops(bw_mib_s: object, bs_kib: object) -> np.ndarray | float:
    """I/O rate of a throughput at a block size [1/s]: ``bw_mib_s * 1024 / bs_kib``."""
    bs = float_values(bs_kib, "bs_kib")
    if np.any(bs <= 0):
        raise ModelError("bs_kib must be > 0")
    out = float_values(bw_mib_s, "bw_mib_s") * KIB_PER_MIB / bs
    return float(out) if out.ndim == 0 else out


def mbps_to_mib_s(mbps: object) -> np.ndarray | float:
    """Network rate in Mbps (10**6 bit/s) as MiB/s (2**20 bytes/s): 16,000 -> 1,907.35."""
    out = float_values(mbps, "mbps") * 1e6 / 8.0 / BYTES_PER_MIB
    return float(out) if out.ndim == 0 else out


def gib_to_tib(gib: object) -> np.ndarray | float:
    """GiB as TiB (binary): 100 GiB -> 0.09765625 TiB."""
    out = float_values(gib, "gib") / GIB_PER_TIB
    return float(out) if out.ndim == 0 else out
