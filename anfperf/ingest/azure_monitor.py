"""Azure Monitor metrics of an Azure NetApp Files volume: what the volume itself measured.

The REST API's ``Metrics - List`` response and ``az monitor metrics list`` print the same
document: ``value[]``, one entry per metric (``name.value``, ``unit``, ``errorCode``), each with
``timeseries[].data[]`` points (``timeStamp``, the start of the point's time grain, and the
aggregations asked for: ``average``, ``maximum``, ...); the grain is the document's
``interval`` (``PT5M``; ``az`` may print ``0:05:00``). A REST example's wrapper
(``{"parameters": ..., "responses": {"200": {"body": ...}}}``) is read too.

The volume's metrics (Azure Monitor's supported-metrics table for
``Microsoft.NetApp/netAppAccounts/capacityPools/volumes``) become tidy rows with
``source='server'``, one per grain x direction. Units are converted once, here: bytes/s to
MiB/s, seconds to ms. Other metrics of the file (sizes, replication) are left out.
"""

from __future__ import annotations

import json
import logging
import os
import re
from typing import IO

import pandas as pd

from anfperf.errors import ParseError, warn
from anfperf.ingest._frame import finalize
from anfperf.ingest._source import read_bytes
from anfperf.ingest.registry import Format
from anfperf.schema import host_label
from anfperf.units import BYTES_PER_MIB, MS_PER_S

__all__ = ["METRICS", "TOOL", "read_azure_metrics"]

log = logging.getLogger(__name__)

#: The tidy frame's `tool` of these rows.
TOOL = "azure_monitor"

#: Volume metric (its name in the REST API) -> (direction, tidy column). Their units are
#: CountPerSecond (IOPS), BytesPerSecond (throughput) and MilliSeconds (latency).
METRICS: dict[str, tuple[str, str]] = {
    "ReadIops": ("read", "iops"),
    "WriteIops": ("write", "iops"),
    "TotalIops": ("total", "iops"),
    "ReadThroughput": ("read", "bw_mib_s"),
    "WriteThroughput": ("write", "bw_mib_s"),
    "TotalThroughput": ("total", "bw_mib_s"),
    "AverageReadLatency": ("read", "lat_mean_ms"),
    "AverageWriteLatency": ("write", "lat_mean_ms"),
}

# Azure Monitor unit -> (tidy column it may fill, factor to the column's unit)
_UNITS: dict[str, tuple[str, float]] = {
    "CountPerSecond": ("iops", 1.0),
    "BytesPerSecond": ("bw_mib_s", 1.0 / BYTES_PER_MIB),
    "MilliSeconds": ("lat_mean_ms", 1.0),
    "Seconds": ("lat_mean_ms", MS_PER_S),
}
_ISO_DURATION = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?")
_CLOCK_DURATION = re.compile(r"(?:(\d+) days?, )?(\d+):(\d\d):(\d\d(?:\.\d+)?)")


def read_azure_metrics(
    path_or_buffer: str | os.PathLike | IO[bytes], *, run_id: str | None = None
) -> pd.DataFrame:
    """Read Azure Monitor metrics of an Azure NetApp Files volume into the tidy frame.

    One row per time grain x direction ('read', 'write', 'total'), ``source='server'``.

    ============  ======  ============================================================
    column        unit    source
    ============  ======  ============================================================
    host, job             each volume's name: the metric's resource id, or the series'
                          ``Microsoft.ResourceId`` (a subscription's metrics split
                          by volume); one host per volume
    iops          1/s     ``ReadIops``, ``WriteIops``; total: read + write (else
                          ``TotalIops``, which counts other operations too)
    bw_mib_s      MiB/s   ``ReadThroughput``, ``WriteThroughput`` (bytes/s) / 2**20;
                          total as for iops (else ``TotalThroughput``)
    lat_mean_ms   ms      ``AverageReadLatency``, ``AverageWriteLatency``; total: their
                          mean weighted by read and write IOPS
    timestamp             end of the grain (``timeStamp`` is its start) [UTC]
    time_s        s       end of the grain since the start of the first one
    runtime_s     s       the grain (``interval``: 60 for PT1M, 300 for PT5M)
    interval              1-based number of the grain since the first (a grain
                          without data has no row)
    ============  ======  ============================================================

    Values are the points' ``average``; a metric asked for with ``--aggregation Maximum``
    only gives its ``maximum``, with a warning (a peak of the grain, not its mean).

    Parameters
    ----------
    path_or_buffer : str, os.PathLike or binary file
        The JSON file (optionally gzip-compressed).
    run_id : str, optional
        Run identifier; derived from the file name (or a run manifest above it) when not given.

    Raises
    ------
    anfperf.ParseError
        Not JSON (truncated: the line is named), not a metrics response, an empty response
        ("no metrics"), Azure's error body (its code and message), no volume metric in
        it (another resource's metrics: the ones found are named), a metric split by a
        dimension other than the volume, a subscription's metric not split by volume, two
        volumes of one name, a unit that does not fit its metric, or a point without a time.
    """
    data, source = read_bytes(path_or_buffer)
    return finalize(_parse(data, source), source=source, run_id=run_id, totals=False)


def _parse(data: bytes, source: str) -> list[dict]:
    body = _body(data, source)
    grain_s = _grain_s(body.get("interval"), source)
    # (volume, grain start, direction) -> columns
    values: dict[tuple[str, pd.Timestamp, str], dict] = {}
    ids: dict[str, set[str]] = {}  # volume name -> the resource ids it came from
    others = []
    for i, metric in enumerate(body["value"]):
        if not isinstance(metric, dict):
            raise ParseError(source, f"value[{i}] is not an object")
        names = metric.get("name")  # {"value": REST name, "localizedValue": shown name}
        name = names.get("value") if isinstance(names, dict) else None
        if name not in METRICS:
            others.append(str(name))
            continue
        if metric.get("errorCode", "Success") != "Success":
            warn(f"{source}: metric {name} left out: Azure says {metric.get('errorCode')!r}")
            continue
        direction, column = METRICS[name]
        factor = _factor(name, metric.get("unit"), column, source)
        for resource_id, points in _series(name, metric, source):
            volume = _resource_name(resource_id)
            ids.setdefault(volume, set()).add(_resource_of(resource_id).lower())
            for t, value in points:
                values.setdefault((volume, t, direction), {})[column] = value * factor
    if not values:
        found = ", ".join(dict.fromkeys(others)) or "none"
        raise ParseError(
            source,
            "holds no Azure NetApp Files volume metrics (ReadIops, ReadThroughput, "
            f"AverageReadLatency, ...); metrics found: {found}",
        )
    _refuse_name_clashes(ids, source)
    starts = sorted({t for _, t, _ in values})
    if grain_s is None:
        grain_s = _spacing_s(starts, source)
    for volume in ids:
        _add_totals(values, volume, starts)
    first = starts[0]
    rows = []
    for (volume, t, direction), columns in sorted(values.items(), key=_row_order):
        end = t + pd.Timedelta(seconds=grain_s)
        rows.append(
            {
                "tool": TOOL,
                "source": "server",
                "host": volume,
                "job": volume,
                "direction": direction,
                "interval": round((t - first).total_seconds() / grain_s) + 1,
                "time_s": (end - first).total_seconds(),
                "timestamp": end,
                "runtime_s": grain_s,
                **columns,
            }
        )
    return rows


def _row_order(item: tuple) -> tuple:
    (volume, t, direction), _ = item
    return (str(volume), t, direction)


def _refuse_name_clashes(ids: dict[str, set[str]], source: str) -> None:
    """Two volumes of one name (other pools or resource groups) cannot share a host."""
    for volume, resources in ids.items():
        if len(resources) > 1:
            raise ParseError(
                source,
                f"two volumes are named {volume!r} ({', '.join(sorted(resources))}): read "
                "each volume's metrics from its own file",
            )


def _body(data: bytes, source: str) -> dict:
    """The metrics response of the file (unwrapped from a REST example's ``responses``)."""
    try:
        doc = json.loads(data)
    except UnicodeDecodeError:
        raise ParseError(source, "not UTF-8 text, so not Azure Monitor JSON") from None
    except json.JSONDecodeError as exc:
        # a document cut short (a copy stopped midway) does not end as an object does
        cut = not data.rstrip().endswith((b"}", b"]"))
        what = "truncated JSON" if cut else f"bad JSON ({exc.msg})"
        raise ParseError(source, f"{what} in Azure Monitor metrics", line=exc.lineno) from None
    if isinstance(doc, dict) and isinstance(doc.get("responses"), dict):
        doc = (doc["responses"].get("200") or {}).get("body", doc)
    error = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(error, dict):  # ARM's error body: {"error": {"code": ..., "message": ...}}
        raise ParseError(
            source,
            f"Azure answered with an error, not metrics: {error.get('code')!r}: "
            f"{error.get('message')!r}",
        )
    if not isinstance(doc, dict) or not isinstance(doc.get("value"), list):
        raise ParseError(source, "not an Azure Monitor metrics response (no 'value' list)")
    if not doc["value"]:
        raise ParseError(
            source,
            "an Azure Monitor response with no metrics ('value' is empty: no metric of that "
            "name, namespace or time span)",
        )
    return doc


def _resource_of(resource_id: object) -> str:
    """The resource's id of a metric's id (``<resource>/providers/Microsoft.Insights/...``)."""
    if not isinstance(resource_id, str):
        return ""
    cut = re.split(r"/providers/microsoft\.insights/", resource_id, maxsplit=1, flags=re.I)
    return cut[0].rstrip("/")


def _resource_name(resource_id: object) -> str | None:
    """The volume's name from a resource id: ``.../volumes/<name>`` (or a metric's id)."""
    name = _resource_of(resource_id).rsplit("/", 1)[-1]
    return host_label(name) if name else None  # a volume named 'all' is no aggregate


def _factor(name: str, unit: object, column: str, source: str) -> float:
    fits = _UNITS.get(unit) if isinstance(unit, str) else None
    if fits is None or fits[0] != column:
        raise ParseError(source, f"metric {name} has unit {unit!r}, which is not one of its")
    return fits[1]


#: The dimension whose values name the volume of a series: Azure's own resource id (metrics
#: of a subscription or a region, ``Microsoft.ResourceId eq '*'``); Azure lists no dimension
#: of its own for ANF volume metrics.
_VOLUME_DIMENSION = "microsoft.resourceid"
_SUBSCRIPTION = re.compile(r"/?subscriptions/[^/]+", re.I)


def _series(name: str, metric: dict, source: str) -> list[tuple[str, list]]:
    """(resource id, points) of each series of a metric: one per volume.

    A series split by a volume dimension (``metadatavalues``) is that volume's; an unsplit
    one is the metric's own resource's (its ``id``). A split by another dimension (a
    protocol, a tier) would be summed silently, so it is refused.
    """
    timeseries = metric.get("timeseries")
    if not isinstance(timeseries, list):
        raise ParseError(source, f"metric {name} has no 'timeseries' list")
    out = []
    for series in timeseries:
        if not isinstance(series, dict):
            raise ParseError(source, f"metric {name}: a series is not an object")
        volume = _volume_dimension(series.get("metadatavalues"))
        if volume is None and len(timeseries) > 1:
            raise ParseError(
                source,
                f"metric {name} is split into {len(timeseries)} series by a dimension: ask "
                "for it without a split ($filter / --filter), or split by volume",
            )
        resource = volume or metric.get("id")
        if _resource_name(resource) is None or _SUBSCRIPTION.fullmatch(_resource_of(resource)):
            raise ParseError(
                source,
                f"metric {name} is not one volume's (its id is {metric.get('id')!r}): ask a "
                "subscription's metrics split by volume (Microsoft.ResourceId eq '*')",
            )
        out.append((resource, _points(name, series.get("data"), source)))
    return out


def _volume_dimension(metadata: object) -> str | None:
    """The volume a series is split by (its resource id or name), None when not split by one."""
    for item in metadata if isinstance(metadata, list) else ():
        names = item.get("name") if isinstance(item, dict) else None
        key = names.get("value") if isinstance(names, dict) else names
        if isinstance(key, str) and key.lower() == _VOLUME_DIMENSION and item.get("value"):
            return str(item["value"])
    return None


def _points(name: str, data: object, source: str) -> list[tuple[pd.Timestamp, float]]:
    """(grain start, value) of a series' points that have a value."""
    if data is None:
        data = []  # a series without points (Azure writes none for an empty time span)
    if not isinstance(data, list):
        raise ParseError(source, f"metric {name}: 'data' is not a list")
    key = "average"
    if data and not any(isinstance(p, dict) and p.get("average") is not None for p in data):
        if any(isinstance(p, dict) and p.get("maximum") is not None for p in data):
            key = "maximum"
            warn(f"{source}: metric {name} has no average, its maximum (a peak) is read")
    out = []
    for point in data:
        if not isinstance(point, dict):
            raise ParseError(source, f"metric {name}: a point is not an object")
        value = point.get(key)
        if value is None:
            continue  # no data in that grain (Azure writes the time alone)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ParseError(source, f"metric {name}: {key} {value!r} is not a number")
        try:
            t = pd.Timestamp(point["timeStamp"])
        except (KeyError, TypeError, ValueError):
            raise ParseError(
                source,
                f"metric {name}: a point has no valid timeStamp ({point.get('timeStamp')!r})",
            ) from None
        out.append(
            (t.tz_localize("UTC") if t.tzinfo is None else t.tz_convert("UTC"), float(value))
        )
    return out


def _grain_s(interval: object, source: str) -> float | None:
    """The time grain [s] from the response's ``interval`` (None when it has none)."""
    if interval is None:
        return None
    text = str(interval)
    iso = _ISO_DURATION.fullmatch(text)
    clock = _CLOCK_DURATION.fullmatch(text)
    if iso and any(iso.groups()):
        d, h, m, s = (float(g or 0) for g in iso.groups())
        seconds = ((d * 24 + h) * 60 + m) * 60 + s
    elif clock:
        d, h, m, s = (float(g or 0) for g in clock.groups())
        seconds = ((d * 24 + h) * 60 + m) * 60 + s
    else:
        raise ParseError(source, f"'interval' {text!r} is not a duration (PT5M, 0:05:00)")
    if seconds <= 0:
        raise ParseError(source, f"'interval' {text!r} is not a positive duration")
    return seconds


def _spacing_s(starts: list[pd.Timestamp], source: str) -> float:
    """The grain from the points' spacing, for a document without ``interval``."""
    if len(starts) < 2:
        raise ParseError(source, "no 'interval' and a single point: the time grain is unknown")
    return min((b - a).total_seconds() for a, b in zip(starts, starts[1:], strict=False))


def _add_totals(values: dict[tuple, dict], volume: str, starts: list) -> None:
    """'total' of each grain from read and write: what a benchmark's total compares with
    (``TotalIops``/``TotalThroughput`` count other operations too; kept where read or write
    is missing)."""
    for t in starts:
        r, w = values.get((volume, t, "read"), {}), values.get((volume, t, "write"), {})
        total = values.setdefault((volume, t, "total"), {})
        for column in ("iops", "bw_mib_s"):
            if column in r and column in w:
                total[column] = r[column] + w[column]
        if all(k in d for d in (r, w) for k in ("iops", "lat_mean_ms")):
            ops = r["iops"] + w["iops"]
            if ops > 0:
                total["lat_mean_ms"] = (
                    r["iops"] * r["lat_mean_ms"] + w["iops"] * w["lat_mean_ms"]
                ) / ops
        if not total:
            del values[(volume, t, "total")]


#: Azure Monitor's answers without metrics: an empty ``value`` list (alone or beside the
#: response's ``timespan`` / ``resourceregion``), an ARM error body
_EMPTY = re.compile(rb'"value"\s*:\s*\[\s*\]')
_ERROR = re.compile(rb'\{\s*"error"\s*:\s*\{\s*"code"')


def _sniff(head: bytes) -> bool:
    head = head.strip()
    empty = _EMPTY.search(head) is not None and (
        b'"timespan"' in head or b'"resourceregion"' in head or _EMPTY.sub(b"", head) == b"{}"
    )
    return head[:1] == b"{" and (
        b'"timeseries"' in head
        or b"/providers/Microsoft.Insights/metrics/" in head
        or empty
        or _ERROR.match(head) is not None
    )


FORMAT = Format(
    name="azure_monitor",
    title="Azure Monitor metrics JSON",
    tool=TOOL,
    sniff=_sniff,
    read=read_azure_metrics,
    suffixes=(".json",),
)
