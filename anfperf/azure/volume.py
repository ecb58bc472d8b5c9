"""An Azure NetApp Files volume and its capacity pool, as Azure describes them.

``az netappfiles volume show`` / ``pool show`` (or ``list``), ``az resource show`` and the ARM
REST API print a volume's service level, quota (``usageThreshold``, bytes) and throughput, and
its pool's QoS type, size and total throughput. :func:`read_volume` and :func:`read_pool` read
them from any file :func:`anfperf.azure.resources.read_resources` reads, into
:class:`AnfVolume` and :class:`AnfPool`, whose fields carry their units.

Two field layouts exist for an auto-QoS volume's throughput: API versions up to 2023 put it in
``throughputMibps``; later ones write ``throughputMibps: null`` (or leave it out, as a real
2023-05-01-preview body does) and the value in ``actualThroughputMibps``. Both are read; :attr:`AnfVolume.throughput_limit_mib_s` is the
volume's limit either way.

API versions up to 2020-11-01 wrote ``throughputMibps: 0.0`` for an auto-QoS volume: a 0.0 in
either field is "nothing reported", read as unknown (the limit is then quota x rate).

What does not add up is named, not guessed: a volume whose throughput is not its quota times
its level's rate can only sit on a manual-QoS pool (an error when its pool is auto QoS, a
warning naming the file when the file does not say), and a pool whose total throughput is not
its size times its level's rate is a warning. One older rule of Azure's own is read as Azure
wrote it: in 2021-2022 the service counted 1,000 GiB to the TiB (a 100 GiB Premium volume
6.4 MiB/s, a 4 TiB Premium pool 262.144 MiB/s); such a number is Azure's limit, with a note
naming the rule.

Bodies without a ``type`` (the 2019-06-01 REST examples) are read as volumes when they carry a
volume's fields (``serviceLevel``, ``usageThreshold``, ``creationToken``), and Resource Graph's
lower-case types are the same types. Elastic volumes (``elasticVolumes``, 2025-09-01-preview)
are named as not supported.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from anfperf.azure.ids import pool_key, pool_of_volume, resource_id
from anfperf.azure.resources import AzureResource, read_resources
from anfperf.errors import ModelError, ParseError, warn
from anfperf.models.limits.quota import (
    auto_qos_rate,
    level_name,
    pool_throughput_limit,
    throughput_limit,
)
from anfperf.values import format_quota, is_number

__all__ = ["AnfPool", "AnfVolume", "read_pool", "read_pools", "read_volume", "read_volumes"]

VOLUME_TYPE = "Microsoft.NetApp/netAppAccounts/capacityPools/volumes"
POOL_TYPE = "Microsoft.NetApp/netAppAccounts/capacityPools"
ELASTIC_VOLUME_TYPE = "Microsoft.NetApp/elasticAccounts/elasticCapacityPools/elasticVolumes"
#: Fields only a volume's body carries: a body without ``type`` holding them is a volume.
VOLUME_FIELDS = ("serviceLevel", "usageThreshold", "creationToken")
#: Fields of a pool's body (and no ``usageThreshold``): a body without ``type`` is a pool.
POOL_FIELDS = ("serviceLevel", "size", "poolId")
#: GiB per TiB of the rule Azure applied in 2021-2022 (1,000), over the real 1,024: its
#: throughputs were quota x rate x this.
DECIMAL_TB_FACTOR = 1024 / 1000
BYTES_PER_TIB = 2.0**40
#: Relative difference under which Azure's throughput and the model's agree (Azure prints
#: values such as 6.25 exactly; anything further apart is a different rule).
_AGREE = 1e-3


@dataclass(frozen=True)
class AnfPool:
    """A capacity pool as Azure describes it.

    Attributes
    ----------
    name : str
        Pool name ('pool1'); `resource_name` is the ARM name ('account1/pool1').
    resource_name : str
    region : str or None
        Azure region ('eastus2'), None when the file does not say.
    service_level : str
        'Standard', 'Premium', 'Ultra' or 'Flexible'.
    qos_type : {'auto', 'manual'} or None
    size_tib : float
        Pool size [TiB] (``size``, bytes / 2**40).
    total_throughput_mib_s : float or None
        ``totalThroughputMibps`` [MiB/s].
    utilized_throughput_mib_s : float or None
        ``utilizedThroughputMibps`` [MiB/s].
    custom_throughput_mib_s : float or None
        ``customThroughputMibps`` of a Flexible pool [MiB/s].
    cool_access : bool or None
    source : str
        File it was read from.
    notes : tuple of str
        What did not add up (also given as warnings).
    resource_id : str
        Its ARM id, lower-cased ('' when the file gives none).
    """

    name: str
    resource_name: str
    region: str | None
    service_level: str
    qos_type: str | None
    size_tib: float
    total_throughput_mib_s: float | None
    utilized_throughput_mib_s: float | None
    custom_throughput_mib_s: float | None
    cool_access: bool | None
    source: str
    notes: tuple[str, ...] = field(default=(), compare=False)
    resource_id: str = ""


@dataclass(frozen=True)
class AnfVolume:
    """A volume as Azure describes it, with what its pool says where the file has the pool.

    Attributes
    ----------
    name : str
        Volume name ('volume1'); `resource_name` is the ARM name ('account1/pool1/volume1').
    resource_name : str
    region : str or None
        Azure region, None when the file does not say.
    service_level : str
        'Standard', 'Premium', 'Ultra' or 'Flexible'.
    quota_tib : float
        Quota [TiB] (``usageThreshold``, bytes / 2**40).
    throughput_limit_mib_s : float or None
        The volume's throughput limit [MiB/s]: ``actualThroughputMibps`` when given, else
        ``throughputMibps``, else quota x level rate (auto QoS); None if none of these.
    throughput_mib_s : float or None
        ``throughputMibps`` as written (None under auto QoS in the 2024 layout).
    actual_throughput_mib_s : float or None
        ``actualThroughputMibps`` (2024 layout), None when absent.
    qos_type : {'auto', 'manual'} or None
        The pool's QoS type, None when the file holds no pool of this volume.
    pool_name : str
        Its pool's name ('pool1').
    pool_size_tib : float or None
        Its pool's size [TiB], when the file holds the pool.
    pool_total_throughput_mib_s : float or None
        Its pool's ``totalThroughputMibps`` [MiB/s].
    custom_throughput_mib_s : float or None
        Its pool's ``customThroughputMibps`` (Flexible) [MiB/s].
    is_large_volume : bool or None
        ``isLargeVolume``, None when absent (API versions before large volumes).
    cool_access : bool or None
        ``coolAccess``, None when absent.
    source : str
        File it was read from.
    notes : tuple of str
        What did not add up (also given as warnings).
    resource_id : str
        Its ARM id, lower-cased ('' when the file gives none).
    """

    name: str
    resource_name: str
    region: str | None
    service_level: str
    quota_tib: float
    throughput_limit_mib_s: float | None
    throughput_mib_s: float | None
    actual_throughput_mib_s: float | None
    qos_type: str | None
    pool_name: str
    pool_size_tib: float | None
    pool_total_throughput_mib_s: float | None
    custom_throughput_mib_s: float | None
    is_large_volume: bool | None
    cool_access: bool | None
    source: str
    notes: tuple[str, ...] = field(default=(), compare=False)
    resource_id: str = ""

    @classmethod
    def from_dict(cls, fields: dict) -> AnfVolume:
        """The volume from its fields as a manifest records them (``dataclasses.asdict``).

        Raises
        ------
        anfperf.ParseError
            Fields missing or unknown (a manifest of another anfperf version, or edited).
        """
        from dataclasses import fields as declared

        names = {f.name for f in declared(cls)}
        given = dict(fields) if isinstance(fields, dict) else {}
        missing = names - set(given) - {"notes", "resource_id"}
        if missing or set(given) - names:
            raise ParseError(
                str(given.get("source") or "<manifest>"),
                f"not a recorded volume (missing {sorted(missing)}, unknown "
                f"{sorted(set(given) - names)})",
            )  # fmt: skip
        given["notes"] = tuple(given.get("notes") or ())
        return cls(**given)

    @property
    def volume_type(self) -> str:
        """'large' or 'regular', the volume types of :mod:`anfperf.models.limits.quota`."""
        return "large" if self.is_large_volume else "regular"

    @property
    def label(self) -> str:
        """How reports name it: 'volume1 (Premium, 0.1 TiB, 128 MiB/s)'."""
        limit = self.throughput_limit_mib_s
        bw = f", {limit:,.4g} MiB/s" if limit is not None else ""
        return f"{self.name} ({self.service_level}, {format_quota(self.quota_tib)}{bw})"

    def model_args(self) -> dict:
        """The volume as the arguments of :func:`anfperf.models.limits.predict.predict_achievable`.

        An auto-QoS volume whose limit is quota x rate is its level and quota (the model
        applies the rate and the type cap). Any other volume with a known limit is modelled as
        Azure reports it (``manual_bw_mib_s``), named by what the file proves
        (``qos_type``, :attr:`limit_qos`): manual QoS only when its pool says so or the number
        is impossible under auto QoS; else "Azure's limit", auto or manual not stated.

        Returns
        -------
        dict
            level, quota_tib or manual_bw_mib_s and qos_type, volume_type, cool_access.
        """
        args: dict = {
            "level": self.service_level,
            "volume_type": self.volume_type,
            "cool_access": bool(self.cool_access),
        }
        limit = self.throughput_limit_mib_s
        _, decimal = self._auto_rules()
        reported = self.actual_throughput_mib_s is not None or self.throughput_mib_s is not None
        older = limit is not None and decimal is not None and _agree(limit, decimal)
        if not reported or limit is None or (self.qos_type == "auto" and not older):
            # auto QoS: quota x rate, the model's own rule (the reader refused any other number)
            args["quota_tib"] = self.quota_tib
        else:
            args["manual_bw_mib_s"] = limit
            args["qos_type"] = self.limit_qos
        return args

    @property
    def limit_qos(self) -> str | None:
        """'manual' when the file proves Azure's limit is a manual-QoS throughput (its pool is
        manual QoS, the level has no auto rate, or no auto-QoS rule gives the number), else
        None: the number is Azure's limit, auto or manual not stated.

        The one rule by which anfperf calls a volume's limit manual QoS.
        """
        if self.qos_type is not None:
            return self.qos_type
        limit = self.throughput_limit_mib_s
        if limit is None:
            return None
        auto, decimal = self._auto_rules()
        if auto is None:
            return "manual" if self.service_level == "Flexible" else None
        possible = _agree(limit, auto) or (decimal is not None and _agree(limit, decimal))
        return None if possible else "manual"

    def _auto_rules(self) -> tuple[float | None, float | None]:
        """The auto-QoS limit of this volume's size and level [MiB/s], and the same under
        Azure's 2021-2022 rule of 1,000 GiB to the TiB (None where a rule gives none)."""
        level, cool = self.service_level, bool(self.cool_access)
        auto = _auto_limit(self.quota_tib, level, self.volume_type, cool)[0]
        return auto, _decimal_limit(auto, self.quota_tib, level, cool)


def read_volumes(
    path: str | os.PathLike, pool_path: str | os.PathLike | None = None
) -> list[AnfVolume]:
    """Every NetApp volume in a file saved from ``az`` or the ARM REST API.

    Parameters
    ----------
    path : str or os.PathLike
        Any file :func:`anfperf.azure.resources.read_resources` reads.
    pool_path : str or os.PathLike, optional
        A file holding the volumes' pools, when `path` does not.

    Returns
    -------
    list of AnfVolume
        In file order.

    Raises
    ------
    anfperf.ParseError
        Malformed or truncated JSON, no NetApp volume in the file, a volume without its level
        or quota, or a throughput its auto-QoS pool cannot give.
    """
    resources = read_resources(path)
    pools = {pool_key(p): p for p in _pools(resources)}
    if pool_path is not None:
        given = read_resources(pool_path)
        if not _pools(given):
            raise ParseError(pool_path, f"no capacity pool in it ({_found(given)})")
        pools.update({pool_key(p): p for p in _pools(given)})
    volumes = [_volume(r, pools) for r in resources if _is_volume(r)]
    elastic = [r for r in resources if _is(r, ELASTIC_VOLUME_TYPE)]
    if elastic:
        what = (f"an elastic volume ({elastic[0].name or ELASTIC_VOLUME_TYPE}, "
                f"{ELASTIC_VOLUME_TYPE}) is not supported: anfperf reads volumes of capacity "
                "pools (Microsoft.NetApp/netAppAccounts/capacityPools/volumes)")  # fmt: skip
        if not volumes:
            raise ParseError(path, what)
        warn(f"{path}: {what}; left out")
    if not volumes:
        raise ParseError(path, f"no NetApp volume in it ({_found(resources)})")
    return volumes


def read_volume(
    path: str | os.PathLike, name: str | None = None, pool_path: str | os.PathLike | None = None
) -> AnfVolume:
    """The NetApp volume of a file saved from ``az`` or the ARM REST API.

    Parameters
    ----------
    path : str or os.PathLike
        ``az netappfiles volume show`` / ``list`` output, ``az resource show`` output, an ARM
        body or REST example, or a transcript or text file holding them.
    name : str, optional
        Which volume, when the file holds several: its name or ARM name.
    pool_path : str or os.PathLike, optional
        A file holding its pool (QoS type, size), when `path` does not.

    Returns
    -------
    AnfVolume

    Raises
    ------
    anfperf.ParseError
        As :func:`read_volumes`, and when `name` is missing among several volumes or unknown.
    """
    return _pick(read_volumes(path, pool_path), name, path, "volume")


def read_pools(path: str | os.PathLike) -> list[AnfPool]:
    """Every capacity pool in a file saved from ``az`` or the ARM REST API (see
    :func:`read_volumes`); a ParseError when there is none."""
    resources = read_resources(path)
    pools = _pools(resources)
    if not pools:
        raise ParseError(path, f"no NetApp capacity pool in it ({_found(resources)})")
    return pools


def read_pool(path: str | os.PathLike, name: str | None = None) -> AnfPool:
    """The capacity pool of a file saved from ``az`` or the ARM REST API.

    Parameters
    ----------
    path : str or os.PathLike
        ``az netappfiles pool show`` / ``list`` output and the like (see :func:`read_volume`).
    name : str, optional
        Which pool, when the file holds several: its name or ARM name.

    Returns
    -------
    AnfPool
    """
    return _pick(read_pools(path), name, path, "pool")


def _is(resource: AzureResource, kind: str) -> bool:
    """Of type `kind`, in any case (Resource Graph writes types in lower case)."""
    return resource.type.lower() == kind.lower()


def _is_volume(resource: AzureResource) -> bool:
    """A volume: its type, or no type and a volume's own fields (2019-06-01 examples)."""
    if _is(resource, VOLUME_TYPE):
        return True
    return not resource.type and all(k in resource.fields for k in VOLUME_FIELDS)


def _is_pool(resource: AzureResource) -> bool:
    """A capacity pool: its type, or no type and a pool's fields without a volume's quota."""
    if _is(resource, POOL_TYPE):
        return True
    fields = resource.fields
    return (not resource.type and all(k in fields for k in POOL_FIELDS)
            and "usageThreshold" not in fields)  # fmt: skip


def _found(resources: list[AzureResource]) -> str:
    types = sorted({r.type or "(no type)" for r in resources})
    return f"it holds {', '.join(types)}" if types else "it holds no Azure resource"


def _pick(items: list, name: str | None, path: str | os.PathLike, what: str):
    """The one item named `name` (any of its names), or the only item."""
    if name is None:
        if len(items) == 1:
            return items[0]
        names = ", ".join(i.name for i in items)
        hint = " (--volume-name NAME; in a report -p volume_name NAME)" if what == "volume" else ""
        raise ParseError(path, f"{len(items)} {what}s in it ({names}): name the one to read{hint}")
    named = [i for i in items if name in (i.name, i.resource_name) or _is_id(name, i)]
    if len(named) > 1:
        ids = ", ".join(item.resource_id or item.resource_name for item in named)
        raise ParseError(path, f"{len(named)} {what}s are named {name!r} ({ids}): name one by "
                         "its full id")  # fmt: skip
    if named:
        return named[0]
    names = ", ".join(i.name for i in items)
    raise ParseError(path, f"no {what} named {name!r} in it (it holds {names})")


def _is_id(name: str, item) -> bool:
    return bool(item.resource_id) and resource_id({"id": name}) == item.resource_id


def _short(resource_name: str) -> str:
    return resource_name.rsplit("/", 1)[-1]


def _where(resource: AzureResource) -> str:
    return f"{resource.source}:{resource.line}: {resource.name or resource.type}"


def _number(resource: AzureResource, key: str, *, required: bool = False) -> float | None:
    """A numeric field, None when absent or null; a ParseError when it is not a number."""
    value = resource.fields.get(key)
    if value is None:
        if required:
            raise ParseError(resource.source, f"{resource.name}: no {key}", line=resource.line)
        return None
    if not is_number(value) or not math.isfinite(float(value)):
        raise ParseError(
            resource.source, f"{resource.name}: {key} {value!r} is not a number", line=resource.line
        )
    return float(value)


def _flag(resource: AzureResource, key: str) -> bool | None:
    value = resource.fields.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise ParseError(
        resource.source,
        f"{resource.name}: {key} {value!r} is not true or false",
        line=resource.line,
    )


def _level(resource: AzureResource) -> str:
    level = resource.fields.get("serviceLevel")
    if not isinstance(level, str) or not level:
        raise ParseError(resource.source, f"{resource.name}: no serviceLevel", line=resource.line)
    try:
        return level_name(level)
    except ModelError as exc:
        raise ParseError(resource.source, f"{resource.name}: {exc}", line=resource.line) from None


def _qos(resource: AzureResource) -> str | None:
    qos = resource.fields.get("qosType")
    if qos is None:
        return None
    if str(qos).lower() not in ("auto", "manual"):
        raise ParseError(
            resource.source, f"{resource.name}: qosType {qos!r} is not Auto or Manual",
            line=resource.line,
        )  # fmt: skip
    return str(qos).lower()


def _note(notes: list[str], message: str) -> None:
    notes.append(message)
    warn(message)


def _pools(resources: list[AzureResource]) -> list[AnfPool]:
    return [_pool(r) for r in resources if _is_pool(r)]


def _pool(resource: AzureResource) -> AnfPool:
    level = _level(resource)
    size_tib = _number(resource, "size", required=True) / BYTES_PER_TIB
    total = _number(resource, "totalThroughputMibps")
    qos = _qos(resource)
    notes: list[str] = []
    if total is not None and level != "Flexible":
        try:
            most = float(pool_throughput_limit(size_tib, level))
        except ModelError:
            most = None
        decimal = most * DECIMAL_TB_FACTOR if most is not None else None
        if most is not None and _agree(total, decimal):
            _note(notes, f"{_where(resource)}: totalThroughputMibps {total:g} is "
                         f"{size_tib * 1024:,.6g} GiB / 1,000 x the {level} rate: Azure counted "
                         f"1,000 GiB to the TiB (its rule in 2021-2022; 1,024 gives {most:g} "
                         f"MiB/s); read as Azure reports it")  # fmt: skip
        elif most is not None and not _agree(total, most):
            _note(notes, f"{_where(resource)}: totalThroughputMibps {total:g} is not "
                         f"{size_tib:g} TiB x the {level} rate = {most:g} MiB/s")  # fmt: skip
    return AnfPool(
        name=_short(resource.name),
        resource_name=resource.name,
        region=resource.fields.get("location"),
        service_level=level,
        qos_type=qos,
        size_tib=size_tib,
        total_throughput_mib_s=total,
        utilized_throughput_mib_s=_number(resource, "utilizedThroughputMibps"),
        custom_throughput_mib_s=_number(resource, "customThroughputMibps"),
        cool_access=_flag(resource, "coolAccess"),
        source=resource.source,
        notes=tuple(notes),
        resource_id=resource_id(resource.fields),
    )


def _agree(a: float, b: float) -> bool:
    return abs(a - b) <= _AGREE * max(abs(a), abs(b), 1e-9)


def _volume(resource: AzureResource, pools: dict[str, AnfPool]) -> AnfVolume:
    level = _level(resource)
    quota_tib = _number(resource, "usageThreshold", required=True) / BYTES_PER_TIB
    if quota_tib <= 0:
        raise ParseError(resource.source, f"{resource.name}: usageThreshold must be > 0",
                         line=resource.line)  # fmt: skip
    notes: list[str] = []
    given = _throughput(resource, "throughputMibps", notes)
    actual = _throughput(resource, "actualThroughputMibps", notes)
    pool = pool_of_volume(resource_id(resource.fields), resource.name, pools)
    large = _flag(resource, "isLargeVolume")
    cool = _flag(resource, "coolAccess")
    auto, why_not = _auto_limit(quota_tib, level, "large" if large else "regular", bool(cool))
    if why_not is not None and level != "Flexible":  # Flexible has no auto rate, by design
        _note(notes, f"{_where(resource)}: {why_not}")
    limit = actual if actual is not None else given
    qos = pool.qos_type if pool is not None else None
    decimal = _decimal_limit(auto, quota_tib, level, bool(cool))
    if limit is not None and decimal is not None and _agree(limit, decimal):
        _note(notes, f"{_where(resource)}: {limit:g} MiB/s is {quota_tib * 1024:,.6g} GiB / "
                     f"1,000 x the {level} rate: Azure counted 1,000 GiB to the TiB (its rule "
                     f"in 2021-2022; 1,024 gives {auto:g} MiB/s); {limit:g} MiB/s is the limit "
                     "Azure enforces")  # fmt: skip
    elif limit is not None and auto is not None and not _agree(limit, auto):
        what = (f"a {level} volume of {quota_tib * 1024:,.6g} GiB with {limit:g} MiB/s is only "
                f"possible on a manual-QoS pool (auto QoS gives {auto:g} MiB/s)")  # fmt: skip
        if qos == "auto":
            raise ParseError(resource.source, f"{resource.name}: {what}, but its pool "
                             f"{pool.name} is auto QoS", line=resource.line)  # fmt: skip
        if qos is None:
            _note(notes, f"{_where(resource)}: {what}; the file does not give its pool's QoS "
                         "type (give its pool's JSON to check it: anfperf plan --volume-pool FILE, "
                         "read_volume(..., pool_path=FILE))")  # fmt: skip
    if limit is None and qos != "manual" and auto is not None:
        limit = auto
        notes.append(f"{_where(resource)}: no throughput given; {auto:g} MiB/s is quota x rate")
    elif limit is None and qos == "manual":
        _note(notes, f"{_where(resource)}: its pool {pool.name} is manual QoS and the file gives "
                     "no throughput: its limit is not known (modelled as quota x rate)")  # fmt: skip
    return AnfVolume(
        name=_short(resource.name),
        resource_name=resource.name,
        region=resource.fields.get("location"),
        service_level=level,
        quota_tib=quota_tib,
        throughput_limit_mib_s=limit,
        throughput_mib_s=given,
        actual_throughput_mib_s=actual,
        qos_type=qos,
        pool_name=_short(resource.name.rsplit("/", 1)[0]) if "/" in resource.name else "",
        pool_size_tib=pool.size_tib if pool is not None else None,
        pool_total_throughput_mib_s=pool.total_throughput_mib_s if pool is not None else None,
        custom_throughput_mib_s=pool.custom_throughput_mib_s if pool is not None else None,
        is_large_volume=large,
        cool_access=cool,
        source=resource.source,
        notes=tuple(notes),
        resource_id=resource_id(resource.fields),
    )


def _throughput(resource: AzureResource, key: str, notes: list[str]) -> float | None:
    """A throughput field [MiB/s]; 0.0 is "nothing reported" (API versions up to 2020-11-01
    wrote it for auto QoS), read as None with a note."""
    value = _number(resource, key)
    if value is not None and value <= 0:
        if value < 0:
            raise ParseError(resource.source, f"{resource.name}: {key} {value:g} is negative",
                             line=resource.line)  # fmt: skip
        notes.append(f"{_where(resource)}: {key} 0.0 is read as not reported (older API "
                     "versions wrote 0.0 for auto QoS)")  # fmt: skip
        return None
    return value


def _decimal_limit(auto: float | None, quota_tib: float, level: str, cool: bool) -> float | None:
    """The auto-QoS limit under the rule of 1,000 GiB to the TiB (2021-2022), None when the
    auto limit is not quota x rate (capped by the volume type, or unknown)."""
    if auto is None:
        return None
    try:
        rate = float(auto_qos_rate(level, cool))
    except ModelError:
        return None
    return auto * DECIMAL_TB_FACTOR if _agree(auto, quota_tib * rate) else None


def _auto_limit(
    quota_tib: float, level: str, volume_type: str, cool: bool
) -> tuple[float | None, str | None]:
    """Quota x rate capped by type (the auto-QoS limit), or None and why the model has none
    (a quota outside the volume type's sizes, a level without an auto-QoS rate)."""
    try:
        return float(throughput_limit(quota_tib, level, volume_type, cool_access=cool)), None
    except ModelError as exc:
        return None, str(exc)


def __dir__() -> list[str]:
    return sorted(__all__)
