"""List prices from files saved from the Azure Retail Prices API, in the planner's units.

The API (``https://prices.azure.com/api/retail/prices``) answers in pages of JSON: an
envelope (``BillingCurrency``, ``NextPageLink``, ``Count``, ...) around ``Items``, one item
per meter and price type. A saved file may hold one page, several pages written one after
the other, or a JSON list of pages; :func:`read_retail_prices` reads any of these, from one
file or several.

:func:`retail_prices` keeps what a plan pays for, in one region, at list (``Consumption``)
prices: Reservation, DevTestConsumption, Spot and Low Priority items are left out, and so are
Windows VMs (the clients run Linux: the API tells them apart only by the ``productName``
suffix). Items with a tier (``tierMinimumUnits`` > 0) are volume discounts beyond the first
units: the first tier's price is kept. Of several start dates, the latest applies.

============================================  ==========================================
what (``meterName`` of a real item)           kept as
============================================  ==========================================
'<Level> Capacity' (Standard, Premium,        USD per TiB-month, per level
Ultra), 'Flexible Service Level Capacity'
'Flexible Service Level Throughput MiBps'     USD per MiB/s-month of Flexible throughput
('1/Hour': one MiB/s an hour)                 (beyond the pool's baseline)
'<Level> Double Encrypted Capacity'           USD per TiB-month, per level (not planned)
'Standard Storage with Cool Access            USD per TiB-month of the cool tier (not
Capacity'                                     planned)
'... with Cool Access Data Transfer'          USD per GiB moved to or from the cool tier
'Backup Capacity' ('1 GiB/Month')             USD per GiB-month of backups
'Volume Restore Capacity' ('1 GiB')           USD per GiB restored
'Cross Region Replication[ - A to B]          USD per GiB replicated, per schedule (the
<Minutes|Hours|Days>', 'CRR - A to B ...'     unit says '1 GiB/Hour': the price is per GiB)
client VM (``armSkuName``, Linux)             USD per VM-month, per size
============================================  ==========================================

ANF meters are those of ``serviceName`` 'Azure NetApp Files'. The names above are those of the
API's own items (tests/data/azure_recorded/anf_retail_prices_2026-01_eastus_eastus2_westeurope.json:
rows Microsoft's ANF calculator saved from the API, PROVENANCE.md); they are matched without
regard to case and spacing. Large volumes have no meter of their own (their capacity is the
level's). An ANF item of the region matching none of them is left out, not guessed, and
named in :attr:`RetailPrices.notes`; so are its reservation, tier and spot prices, and one
note says which prices were read but are not part of a plan. Hourly prices become monthly at
the hours per month of the reference table (``anfperf/data/planning.csv``,
``hours_per_month``, the figure Azure's pricing uses).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import pandas as pd

from anfperf.errors import AnfperfError, ParseError
from anfperf.models.tables import table_value
from anfperf.paths import PathArg, path_list
from anfperf.units import GIB_PER_TIB
from anfperf.userfiles import read_user_file
from anfperf.values import is_number

__all__ = [
    "FLEXIBLE_THROUGHPUT_PRICE",
    "ANF_SERVICE",
    "VM_SERVICE",
    "RetailPrices",
    "hours_per_month",
    "per_hour",
    "per_month",
    "read_retail_prices",
    "retail_prices",
]


def __dir__() -> list[str]:
    return __all__


#: ``serviceName`` of Azure NetApp Files items.
#: The price key of Flexible's throughput (USD per MiB/s-hour), beside the levels' keys.
FLEXIBLE_THROUGHPUT_PRICE = "Flexible throughput"
ANF_SERVICE = "Azure NetApp Files"
#: ``serviceName`` of virtual machine items.
VM_SERVICE = "Virtual Machines"
#: Fields every item must have (the API's names).
_FIELDS = ("serviceName", "meterName", "unitOfMeasure", "retailPrice", "currencyCode",
           "armRegionName")  # fmt: skip
_LEVEL = r"(?P<level>standard|premium|ultra)"


class _Meter(NamedTuple):
    """How a real ANF meter's price is read: what it is (`kind`; `what` names it, None: from
    the meter name), the unit of the price kept, the quantity its unitOfMeasure is per
    ('gib', 'mib/s'), the factor to the kept unit, and how it is billed: 'month' (per hour,
    day or month, kept per month), 'once' (per unit, no time) or 'unit' (its unit's time is
    not the price's: replication's '1 GiB/Hour' is per GiB replicated). `bare`: a unit
    without a quantity ('1/Hour') is per one `quantity`, which the meter's name gives."""

    kind: str
    what: str | None
    unit: str
    quantity: str
    scale: float
    billing: str
    bare: bool = False


#: Real ANF meters (meterName, spaces normalised, any case; see :func:`_meter`) and how each is
#: read. A level's capacity and Flexible's throughput are planned; the rest is read and shown.
_ANF_METERS = tuple((re.compile(pattern, re.IGNORECASE), meter) for pattern, meter in (
    (rf"^{_LEVEL} capacity$",
     _Meter("capacity", None, "USD per TiB-month", "gib", GIB_PER_TIB, "month")),
    (r"^flexible service level capacity$",
     _Meter("capacity", "Flexible", "USD per TiB-month", "gib", GIB_PER_TIB, "month")),
    (r"^flexible service level throughput mibps$",
     _Meter("throughput", FLEXIBLE_THROUGHPUT_PRICE, "USD per MiB/s-month", "mib/s", 1.0,
            "month", bare=True)),
    (rf"^{_LEVEL} double encrypted capacity$",
     _Meter("double encryption", None, "USD per TiB-month", "gib", GIB_PER_TIB, "month")),
    (r"^\w+ storage with cool access capacity$",
     _Meter("cool", "cool tier", "USD per TiB-month", "gib", GIB_PER_TIB, "month")),
    (r"^\w+ storage with cool access data transfer$",
     _Meter("cool transfer", "cool tier transfer", "USD per GiB", "gib", 1.0, "once")),
    (r"^backup capacity$",
     _Meter("backup", "backup", "USD per GiB-month", "gib", 1.0, "month")),
    (r"^volume restore capacity$",
     _Meter("restore", "volume restore", "USD per GiB", "gib", 1.0, "once")),
    # 'Cross Region Replication Hours', '... - US East to US West Days', 'CRR - A to B
    # Minutes', 'Cross Region Replication AU East to NZ North Days': the schedule ends it
    (r"^(?:cross region replication|crr)(?:\s*-)?\s*(?P<pair>.*?)\s*"
     r"(?P<every>minutes|hours|days)$",
     _Meter("replication", None, "USD per GiB replicated", "gib", 1.0, "unit")),
))  # fmt: skip
#: Words of a skuName or meterName that mark a price a plan does not pay.
_NOT_LIST = re.compile(r"\b(?:spot|low priority)\b", re.IGNORECASE)
#: unitOfMeasure: a count, a quantity (or none: per item, '1/Hour'), per a time (or none).
_UNIT = re.compile(
    r"^\s*(?P<count>\d+(?:\.\d+)?)?\s*(?P<what>[A-Za-z][A-Za-z/]*?)?\s*"
    r"(?:/\s*(?P<per>Hour|Day|Month))?\s*$",
    re.IGNORECASE,
)
#: A quantity of a unitOfMeasure in the planner's units: GiB, MiB/s, or an item (VM).
_QUANTITY = {"": 1.0, "gib": 1.0, "tib": GIB_PER_TIB, "gb": 1e9 / 2**30, "tb": 1e12 / 2**30,
             "mib/s": 1.0, "mibps": 1.0}  # fmt: skip


def per_hour(prices_per_month: Mapping[str, float]) -> dict[str, float]:
    """USD per TiB-month of each level (per MiB/s-month of Flexible's throughput) as
    :func:`anfperf.models.plan` takes them: USD per GiB-hour (per MiB/s-hour)."""
    hours = hours_per_month()
    return {k: v / hours / (1 if k == FLEXIBLE_THROUGHPUT_PRICE else GIB_PER_TIB)
            for k, v in prices_per_month.items()}  # fmt: skip


def per_month(prices_per_hour: Mapping[str, float]) -> dict[str, float]:
    """The inverse of :func:`per_hour`: USD per GiB-hour (per MiB/s-hour) as USD per
    TiB-month (per MiB/s-month)."""
    hours = hours_per_month()
    return {k: v * hours * (1 if k == FLEXIBLE_THROUGHPUT_PRICE else GIB_PER_TIB)
            for k, v in prices_per_hour.items()}  # fmt: skip


def hours_per_month() -> float:
    """Hours a month is billed at [h] (anfperf/data/planning.csv: 730, as Azure's pricing)."""
    return table_value("planning", "hours_per_month")


# --------------------------------------------------------------------------------------------
# Reading the files


def read_retail_prices(paths: PathArg) -> pd.DataFrame:
    """Every item of files saved from the Azure Retail Prices API, one row each.

    Parameters
    ----------
    paths : path-like or sequence of path-like
        Files holding one page, pages written one after the other, or a JSON list of pages.

    Returns
    -------
    pandas.DataFrame
        The items' own fields (``serviceName``, ``productName``, ``skuName``,
        ``armSkuName``, ``meterName``, ``unitOfMeasure``, ``retailPrice``, ``currencyCode``,
        ``armRegionName``, ``type``, ``tierMinimumUnits``, ``effectiveStartDate``, ...), and
        `file` and `item` (0-based position in its file) for naming it.

    Raises
    ------
    anfperf.ParseError
        A file that is not JSON (truncated, damaged), not pages of the API (no ``Items``
        list), or an item without a field of :data:`_FIELDS` or with a price that is not a
        number; named by its file (and item).
    """
    files = path_list(paths, "prices")
    if not files:
        raise AnfperfError("no prices file given")
    frames = [_read_file(os.fspath(p)) for p in files]
    return pd.concat(frames, ignore_index=True)


def _read_file(path: str) -> pd.DataFrame:
    """The items of one file, checked."""
    try:
        text = read_user_file(path, what="a prices file").decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(path, f"not text (JSON of the Azure Retail Prices API): {exc}") from None
    items = [item for page in _pages(path, text) for item in page]
    for n, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ParseError(path, f"item {n} is not an object: {item!r:.60}")
        missing = [f for f in _FIELDS if f not in item]
        if missing:
            raise ParseError(path, f"item {n} ({item.get('meterName', '?')!r}) has no "
                             f"{', '.join(missing)}: not an item of the Azure Retail Prices API")  # fmt: skip
        if not is_number(item["retailPrice"]) or not math.isfinite(item["retailPrice"]):
            raise ParseError(path, f"item {n} ({item['meterName']!r}): retailPrice "
                             f"{item['retailPrice']!r} is not a number")  # fmt: skip
    frame = pd.DataFrame(list(items))
    for column in ("productName", "skuName", "armSkuName", "type", "effectiveStartDate"):
        if column not in frame:
            frame[column] = ""
    if "tierMinimumUnits" not in frame:
        frame["tierMinimumUnits"] = 0.0
    frame["file"] = path
    frame["item"] = range(len(frame))
    return frame


def _pages(path: str, text: str) -> list[list]:
    """The Items lists of the pages in `text`: one page, pages one after another, or a list."""
    decoder = json.JSONDecoder()
    docs, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        try:
            doc, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ParseError(path, f"not JSON of the Azure Retail Prices API ({exc.msg}, "
                             f"column {exc.colno})", line=exc.lineno) from None  # fmt: skip
        docs.append(doc)
    if not docs:
        raise ParseError(path, "empty: no page of the Azure Retail Prices API")
    pages = [page for doc in docs for page in (doc if isinstance(doc, list) else [doc])]
    out = []
    for n, page in enumerate(pages):
        items = page.get("Items") if isinstance(page, Mapping) else None
        if not isinstance(items, list):
            keys = ", ".join(list(page)[:5]) if isinstance(page, Mapping) else type(page).__name__
            raise ParseError(path, f"page {n} has no 'Items' list ({keys}): not a page of the "
                             "Azure Retail Prices API")  # fmt: skip
        out.append(items)
    return out


# --------------------------------------------------------------------------------------------
# What a plan pays


@dataclass(frozen=True)
class RetailPrices:
    """List prices of one region in the planner's units (:func:`retail_prices`).

    Attributes
    ----------
    region : str
        ``armRegionName`` ('eastus').
    levels_usd_per_tib_month : dict of str to float
        Capacity price per service level [USD per TiB-month].
    flexible_throughput_usd_per_mib_s_month : float
        Flexible's throughput beyond the pool's baseline [USD per MiB/s-month]; NaN: no item.
    cool_usd_per_tib_month : float
        Cool tier capacity [USD per TiB-month]; NaN: no item.
    vms_usd_per_month : dict of str to float
        Linux list price per VM size (``armSkuName``) [USD per VM-month].
    items : pandas.DataFrame
        The items kept: kind ('capacity', 'throughput', 'double encryption', 'cool', 'cool
        transfer', 'backup', 'restore', 'replication' or 'vm'), what (the level, 'Flexible
        throughput', 'cool tier', the replication's regions and schedule, the VM size), usd
        and its unit, meterName, unitOfMeasure, retailPrice, effectiveStartDate, file.
    files : tuple of str
        The files read.
    notes : tuple of str
        The region's Azure NetApp Files items not kept, each named: meters this reader does
        not know, and prices that are not list prices (reservations, tiers); last, one line
        of the prices read that a plan does not pay (double encryption, backup, ...).
    double_encrypted_usd_per_tib_month : dict of str to float
        Capacity of a double-encrypted pool per level [USD per TiB-month] (not planned).
    cool_transfer_usd_per_gib : float
        Data moved to or from the cool tier [USD per GiB]; NaN: no item.
    backup_usd_per_gib_month : float
        Backups [USD per GiB-month]; NaN: no item.
    restore_usd_per_gib : float
        Restoring a backup to a volume [USD per GiB]; NaN: no item.
    replication_usd_per_gib : dict of str to float
        Cross-region replication per GiB replicated, by 'regions, schedule' ('any region,
        hours': the region's own meter) [USD per GiB].
    """

    region: str
    levels_usd_per_tib_month: dict[str, float]
    flexible_throughput_usd_per_mib_s_month: float
    cool_usd_per_tib_month: float
    vms_usd_per_month: dict[str, float]
    items: pd.DataFrame = field(repr=False)
    files: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    double_encrypted_usd_per_tib_month: dict[str, float] = field(default_factory=dict)
    cool_transfer_usd_per_gib: float = math.nan
    backup_usd_per_gib_month: float = math.nan
    restore_usd_per_gib: float = math.nan
    replication_usd_per_gib: dict[str, float] = field(default_factory=dict)

    def plan_prices(self) -> dict[str, float]:
        """Prices as :func:`anfperf.models.plan` takes them: USD per GiB-hour of each level,
        per MiB/s-hour of Flexible's throughput."""
        monthly = dict(self.levels_usd_per_tib_month)
        if math.isfinite(self.flexible_throughput_usd_per_mib_s_month):
            monthly[FLEXIBLE_THROUGHPUT_PRICE] = self.flexible_throughput_usd_per_mib_s_month
        return per_hour(monthly)

    def vm_prices(self) -> dict[str, float]:
        """VM prices as :func:`anfperf.models.plan` takes them: USD per VM-hour."""
        hours = hours_per_month()
        return {k: v / hours for k, v in self.vms_usd_per_month.items()}

    def describe(self) -> str:
        """One line: where the prices come from and the capacity prices found."""
        levels = ", ".join(f"{k} {v:,.2f}" for k, v in self.levels_usd_per_tib_month.items())
        flexible = self.flexible_throughput_usd_per_mib_s_month
        throughput = (f"; Flexible throughput {flexible:,.4g} USD per MiB/s-month"
                      if math.isfinite(flexible) else "")  # fmt: skip
        files = ", ".join(os.path.basename(f) for f in self.files)
        n = len(self.vms_usd_per_month)
        unread = sum(not note.startswith(_READ_NOT_PLANNED) for note in self.notes)
        left = (f"; {unread} Azure NetApp Files item{'' if unread == 1 else 's'} not read "
                "(RetailPrices.notes names them)") if unread else ""  # fmt: skip
        return (f"list prices of {self.region} from {files}: capacity [USD per TiB-month] "
                f"{levels or 'none'}{throughput}; {n} VM size{'' if n == 1 else 's'} "
                f"priced{left}")  # fmt: skip


#: Levels in the order they are shown.
_ORDER = {level: n for n, level in enumerate(("Standard", "Premium", "Ultra", "Flexible"))}
#: How the note of the prices read but not planned begins.
_READ_NOT_PLANNED = "read, not part of a plan:"


def retail_prices(paths: PathArg, region: str) -> RetailPrices:
    """The list prices a plan pays in `region`, from files of the Azure Retail Prices API.

    Parameters
    ----------
    paths : path-like or sequence of path-like
        Files of :func:`read_retail_prices`.
    region : str
        ``armRegionName``, e.g. 'eastus' (case and spaces ignored: 'East US' is 'eastus').

    Returns
    -------
    RetailPrices

    Raises
    ------
    anfperf.ParseError
        A file is not pages of the API; a kept price is not in USD, or its unitOfMeasure is
        not one this module converts (named with its file and item).
    anfperf.AnfperfError
        No item of the files is in `region` (the regions present are listed).
    """
    frame = read_retail_prices(paths)
    files = tuple(dict.fromkeys(frame["file"]))
    want = re.sub(r"\s+", "", str(region)).lower()
    regions = frame["armRegionName"].astype(str).str.lower()
    here = frame[regions == want]
    if here.empty:
        seen = sorted(set(regions) - {""})
        raise AnfperfError(
            f"no price in region {region!r} in {', '.join(files)}; its regions: "
            + (", ".join(seen[:12]) + (", ..." if len(seen) > 12 else "") if seen else "none")
        )
    listed = here[(here["type"].astype(str) == "Consumption")
                  & ~here["skuName"].astype(str).str.contains(_NOT_LIST)
                  & ~here["meterName"].astype(str).str.contains(_NOT_LIST)
                  & (pd.to_numeric(here["tierMinimumUnits"], errors="coerce").fillna(0) == 0)]  # fmt: skip
    rows = [*_anf_rows(listed[listed["serviceName"] == ANF_SERVICE]),
            *_vm_rows(listed[listed["serviceName"] == VM_SERVICE])]  # fmt: skip
    items = pd.DataFrame(rows, columns=["kind", "what", "usd", "unit", "meterName",
                                        "unitOfMeasure", "retailPrice", "effectiveStartDate",
                                        "file"])  # fmt: skip
    # of several start dates, the latest applies
    items = (items.sort_values("effectiveStartDate", kind="stable")
             .drop_duplicates(["kind", "what"], keep="last").reset_index(drop=True))  # fmt: skip

    def of(kind: str) -> dict[str, float]:
        chosen = items[items["kind"] == kind]
        found = dict(zip(chosen["what"], chosen["usd"].astype(float), strict=True))
        return dict(sorted(found.items(), key=lambda kv: _ORDER.get(kv[0], len(_ORDER))))

    throughput = of("throughput")
    notes = [*_anf_left_out(here[here["serviceName"] == ANF_SERVICE], listed.index)]
    shown = _read_not_planned(items)
    if shown:
        notes.append(shown)
    return RetailPrices(
        region=want,
        levels_usd_per_tib_month=of("capacity"),
        flexible_throughput_usd_per_mib_s_month=throughput.get("Flexible throughput", math.nan),
        cool_usd_per_tib_month=of("cool").get("cool tier", math.nan),
        vms_usd_per_month=of("vm"),
        items=items,
        files=files,
        notes=tuple(notes),
        double_encrypted_usd_per_tib_month=of("double encryption"),
        cool_transfer_usd_per_gib=of("cool transfer").get("cool tier transfer", math.nan),
        backup_usd_per_gib_month=of("backup").get("backup", math.nan),
        restore_usd_per_gib=of("restore").get("volume restore", math.nan),
        replication_usd_per_gib=of("replication"),
    )


def _meter(rec: Mapping) -> tuple[_Meter, str] | None:
    """How a real ANF meter is read and what it names (the level, the replication's regions
    and schedule, ...); None: a meter not known."""
    meter = " ".join(str(rec["meterName"]).split())
    for pattern, how in _ANF_METERS:
        match = pattern.match(meter)
        if match is None:
            continue
        found = match.groupdict()
        if how.what is not None:
            what = how.what
        elif how.kind == "replication":
            what = f"{found['pair'] or 'any region'}, {found['every'].lower()}"
        else:
            what = found["level"].capitalize()
        return how, what
    return None


def _anf_rows(items: pd.DataFrame) -> Iterable[tuple]:
    for rec in items.to_dict("records"):
        known = _meter(rec)
        if known is None:
            continue  # a meter not known: a note names it (_anf_left_out)
        how, what = known
        usd = _usd(rec, how.quantity, billing=how.billing, bare=how.bare) * how.scale
        yield (how.kind, what, usd, how.unit, rec["meterName"], rec["unitOfMeasure"],
               float(rec["retailPrice"]), str(rec["effectiveStartDate"]), rec["file"])  # fmt: skip


def _anf_left_out(anf: pd.DataFrame, listed: pd.Index) -> Iterable[str]:
    """A note per ANF item of the region not read: none is dropped silently."""
    for rec in anf.to_dict("records"):
        if _meter(rec) is None:
            yield (f"{os.path.basename(str(rec['file']))} item {rec['item']}: Azure NetApp Files "
                   f"{rec['meterName']!r} ({rec.get('skuName')}, {rec['unitOfMeasure']}, "
                   f"{rec['type']}) left out: a meter this reader does not know")  # fmt: skip
    kept = anf.index.isin(listed)
    for rec in anf[~kept].to_dict("records"):
        if _meter(rec) is not None:
            yield (f"{os.path.basename(str(rec['file']))} item {rec['item']}: Azure NetApp Files "
                   f"{rec['meterName']!r} {_not_list(rec)} left out: a plan pays list "
                   "prices")  # fmt: skip


def _read_not_planned(items: pd.DataFrame) -> str:
    """One line: the ANF prices read that a plan does not pay, with their figures."""
    parts = []
    double = items[items["kind"] == "double encryption"]
    if len(double):
        pairs = sorted(zip(double["what"], double["usd"], strict=True),
                       key=lambda pair: _ORDER.get(pair[0], len(_ORDER)))  # fmt: skip
        levels = ", ".join(f"{what} {usd:,.2f}" for what, usd in pairs)
        parts.append(f"double-encrypted capacity {levels} USD per TiB-month")
    for kind, name, fmt in (("cool", "cool tier", "{:,.2f} USD per TiB-month"),
                            ("cool transfer", "cool tier transfer", "{:,.4g} USD per GiB"),
                            ("backup", "backup", "{:,.4g} USD per GiB-month"),
                            ("restore", "volume restore", "{:,.4g} USD per GiB")):  # fmt: skip
        chosen = items.loc[items["kind"] == kind, "usd"]
        if len(chosen):
            parts.append(f"{name} {fmt.format(float(chosen.iloc[0]))}")
    replication = items.loc[items["kind"] == "replication", "usd"]
    if len(replication):
        low, high = float(replication.min()), float(replication.max())
        span = f"{low:,.4g}" if low == high else f"{low:,.4g} to {high:,.4g}"
        parts.append(f"cross-region replication {span} USD per GiB replicated "
                     f"({len(replication)} region pairs and schedules)")  # fmt: skip
    if not parts:
        return ""
    return f"{_READ_NOT_PLANNED} {'; '.join(parts)} (RetailPrices.items holds them)"


def _not_list(rec: Mapping) -> str:
    """What makes an item's price not the list price: its type, its tier, or its sku."""
    if str(rec["type"]) != "Consumption":
        term = f", {rec['reservationTerm']}" if isinstance(rec.get("reservationTerm"), str) else ""
        return f"{rec['type']} price{term}"
    tier = pd.to_numeric(pd.Series([rec["tierMinimumUnits"]]), errors="coerce").fillna(0)[0]
    return f"tier price from {tier:g} units" if tier else f"{rec.get('skuName')} price"


def _vm_rows(items: pd.DataFrame) -> Iterable[tuple]:
    for rec in items.to_dict("records"):
        if str(rec["productName"]).rstrip().endswith("Windows") or not rec["armSkuName"]:
            continue  # clients run Linux; the API tells Windows apart by the product's suffix
        yield ("vm", str(rec["armSkuName"]), _usd(rec, ""), "USD per VM-month",
               rec["meterName"], rec["unitOfMeasure"], float(rec["retailPrice"]),
               str(rec["effectiveStartDate"]), rec["file"])  # fmt: skip


def _usd(rec: Mapping, quantity: str, *, billing: str = "month", bare: bool = False) -> float:
    """The item's price of one unit of `quantity` ('gib', 'mib/s' or '' per item), as billed
    (:class:`_Meter`: 'month' kept per month, 'once', or 'unit' whatever time its unit
    names); `bare`: a unit without a quantity ('1/Hour') is per one `quantity`."""
    unit = str(rec["unitOfMeasure"])
    match = _UNIT.match(unit)
    what = (match["what"] or "").lower() if match else None
    per = (match["per"] or "").lower() if match else ""
    if what in ("hour", "day", "month") and not per:  # '1 Hour': per VM-hour
        what, per = "", what
    if bare and what == "":
        what = quantity
    same = what is not None and (what == quantity or
                                 (quantity == "gib" and what in ("tib", "gb", "tb")) or
                                 (quantity == "mib/s" and what == "mibps"))  # fmt: skip
    if match is None or not same:
        raise ParseError(rec["file"], f"item {rec['item']} ({rec['meterName']!r}): unitOfMeasure "
                         f"{unit!r} is not per {quantity or 'item'} "
                         f"{'(once)' if billing == 'once' else '(per hour, day or month)'}")  # fmt: skip
    if str(rec["currencyCode"]).upper() != "USD":
        raise ParseError(rec["file"], f"item {rec['item']} ({rec['meterName']!r}) is in "
                         f"{rec['currencyCode']}; anfperf plans in USD (ask the API with "
                         "currencyCode='USD')")  # fmt: skip
    count = float(match["count"] or 1)
    price = float(rec["retailPrice"]) / (count * _QUANTITY[what])
    if billing == "unit":
        return price
    if billing == "once":
        if per:
            raise ParseError(rec["file"], f"item {rec['item']} ({rec['meterName']!r}): "
                             f"unitOfMeasure {unit!r} is per {per}, not once")  # fmt: skip
        return price
    if not per:
        raise ParseError(rec["file"], f"item {rec['item']} ({rec['meterName']!r}): unitOfMeasure "
                         f"{unit!r} names no time (per hour, day or month)")  # fmt: skip
    per_time = {"hour": hours_per_month(), "day": hours_per_month() / 24, "month": 1.0}
    return price * per_time[per]
