"""The parts of a fio JSON document anfperf reads, as typed records.

:func:`decode` turns well-formed fio output straight into these records (msgspec skips what
anfperf does not read, and hands over json+ histograms as raw bytes, parsed later in one go):
reading thousands of files is mostly decoding them. Anything it refuses (other types, NaN
literals, text around the JSON, several documents) is decoded as plain JSON elsewhere and
converted by :func:`from_json`, which gives the same records with values normalised the same
way: numbers as float (NaN when missing or not a number), sub-objects as records (None when not
an object), ``UNSET`` for what the file does not have where that matters.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
from msgspec import UNSET, Raw, UnsetType

from anfperf.errors import ParseError

__all__ = [
    "UNSET", "Doc", "Entry", "Block", "Latency", "Percentiles", "decode", "from_json", "DECODE_ERRORS",
    "num", "text", "whole_number",
]  # fmt: skip

_NAN = math.nan

#: What :func:`decode` raises for input it does not take (the caller then decodes it as JSON).
DECODE_ERRORS = (msgspec.DecodeError, ValueError, RecursionError)  # ValueError: not UTF-8


class Percentiles(
    msgspec.Struct,
    gc=False,
    rename={"p50": "50.000000", "p90": "90.000000", "p95": "95.000000", "p99": "99.000000",
            "p999": "99.900000"},
):  # fmt: skip
    """The percentiles anfperf reads, in fio's spelling of their keys (others are skipped)."""

    p50: float = _NAN
    p90: float = _NAN
    p95: float = _NAN
    p99: float = _NAN
    p999: float = _NAN

    def none_read(self) -> bool:
        """Whether none of the five was there (other keys, or another spelling of them)."""
        p50, p90, p95, p99, p999 = self.p50, self.p90, self.p95, self.p99, self.p999
        return p50 != p50 and p90 != p90 and p95 != p95 and p99 != p99 and p999 != p999


class Latency(msgspec.Struct, gc=False):
    """A latency block (``lat_ns``, ``clat_ns``, ``slat_ns``; fio 2.x ``lat``, ``clat``, ``slat``)."""

    min: float = _NAN
    max: float = _NAN
    mean: float = _NAN
    stddev: float = _NAN
    N: Any = UNSET  # sample count (fio >= 3.5); UNSET when not reported
    # Percentiles (decode; none of them: decoded as JSON again, see below), or the decoded
    # value (from_json); UNSET when not reported
    percentile: Percentiles | UnsetType = UNSET
    bins: Raw = UNSET  # json+ histogram: its JSON bytes (decode), or the decoded value (from_json)


class Block(msgspec.Struct, gc=False):
    """One direction of a job entry (``read``, ``write``, ``trim``, ``mixed``)."""

    total_ios: float = _NAN
    io_bytes: float = _NAN
    io_kbytes: float = _NAN
    bw_bytes: float = _NAN
    bw: float = _NAN
    iops: float = _NAN
    runtime: float = _NAN
    # present (even null) or UNSET: the keys fio >= 3.0 writes tell the unit (ns) from fio 2.x (us)
    lat_ns: Latency | None | UnsetType = UNSET
    clat_ns: Latency | None | UnsetType = UNSET
    slat_ns: Latency | None | UnsetType = UNSET
    lat: Latency | None | UnsetType = UNSET
    clat: Latency | None | UnsetType = UNSET
    slat: Latency | None | UnsetType = UNSET


class Entry(msgspec.Struct, gc=False, rename={"job_options": "job options"}):
    """A job entry of ``jobs`` or ``client_stats``. Text fields keep fio's value (any JSON)."""

    jobname: Any = None
    groupid: Any = None
    hostname: Any = None
    port: Any = None
    error: Any = None
    elapsed: Any = None  # seconds since fio started, rounded up (tells one fio process's documents)
    job_options: Raw = UNSET  # its JSON bytes (decode: read once per distinct set), or the value
    usr_cpu: float = _NAN
    sys_cpu: float = _NAN
    read: Block | None = None
    write: Block | None = None
    trim: Block | None = None
    mixed: Block | None = None


class Doc(msgspec.Struct, gc=False, rename={"version": "fio version", "options": "global options"}):
    """One fio JSON document."""

    version: Any = None
    timestamp: Any = None
    timestamp_ms: Any = None
    options: Raw = UNSET  # "global options": its JSON bytes (decode), or the value (from_json)
    jobs: list[Entry] | None = None
    client_stats: list[Entry] | None = None


_decoder = msgspec.json.Decoder(Doc)


def decode(data: bytes | memoryview) -> Doc:
    """The document of fio JSON that is exactly one well-formed fio object (UTF-8).

    Percentiles none of whose keys is in fio's usual spelling come out all NaN
    (:meth:`Percentiles.none_read`): decode such a file as JSON too.

    Raises
    ------
    msgspec.DecodeError, ValueError, RecursionError
        (:data:`DECODE_ERRORS`) For anything else: decode it as JSON and use :func:`from_json`.
    """
    return _decoder.decode(data)


def from_json(doc: dict, source: str) -> Doc:
    """The records of a document decoded as plain JSON.

    Raises
    ------
    anfperf.errors.ParseError
        ``jobs`` or ``client_stats`` is not a list of objects.
    """
    lists = {}
    for key in ("jobs", "client_stats"):
        value = doc.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise ParseError(source, f"'{key}' is not a list of jobs")
        lists[key] = value
    for i, entry in enumerate(e for value in lists.values() for e in value):
        if not isinstance(entry, dict):
            raise ParseError(source, f"job entry {i} is not a JSON object")
    return Doc(
        version=doc.get("fio version"),
        timestamp=doc.get("timestamp"),
        timestamp_ms=doc.get("timestamp_ms"),
        options=doc.get("global options", UNSET),
        **{key: [_entry(e) for e in value] for key, value in lists.items()},
    )


def _entry(entry: dict) -> Entry:
    blocks = {key: _block(entry.get(key)) for key in ("read", "write", "trim", "mixed")}
    return Entry(
        jobname=entry.get("jobname"),
        groupid=entry.get("groupid"),
        hostname=entry.get("hostname"),
        port=entry.get("port"),
        error=entry.get("error"),
        elapsed=entry.get("elapsed"),
        job_options=entry.get("job options", UNSET),
        usr_cpu=num(entry.get("usr_cpu")),
        sys_cpu=num(entry.get("sys_cpu")),
        **blocks,
    )


_BLOCK_NUMBERS = ("total_ios", "io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime")
_LATENCY_KEYS = ("lat_ns", "clat_ns", "slat_ns", "lat", "clat", "slat")


def _block(block: object) -> Block | None:
    if not isinstance(block, dict):
        return None
    numbers = {key: num(block.get(key)) for key in _BLOCK_NUMBERS}
    latencies = {key: _latency(block[key]) for key in _LATENCY_KEYS if key in block}
    return Block(**numbers, **latencies)


def _latency(block: object) -> Latency | None:
    if not isinstance(block, dict):
        return None
    return Latency(
        min=num(block.get("min")),
        max=num(block.get("max")),
        mean=num(block.get("mean")),
        stddev=num(block.get("stddev")),
        N=block.get("N", UNSET),
        percentile=block.get("percentile", UNSET),
        bins=block.get("bins", UNSET),
    )


def num(value: object) -> float:
    """A JSON value as a float; NaN when it is not a number."""
    try:
        return float(value)  # type: ignore[arg-type]  # int, float or a numeric string
    except (TypeError, ValueError, OverflowError):
        return _NAN


def text(value: object) -> str:
    """A JSON value as text for a string column: '' for nothing, lone surrogates replaced."""
    if isinstance(value, str):
        if value.isascii():
            return value
        # JSON may carry lone surrogates ("\ud800") that no text column can store.
        return value.encode("utf-8", "replace").decode("utf-8")
    if value is None or isinstance(value, dict | list):
        return ""
    return str(value)


def whole_number(value: object) -> int | None:
    """A JSON value as an int64 (Int64 columns); None when it is not a whole number."""
    number = num(value)
    if number != number or number in (math.inf, -math.inf) or number != int(number):
        return None
    number = int(number)
    return number if -INT64_MAX <= number <= INT64_MAX else None


#: The largest value of an Int64 column.
INT64_MAX = 2**63 - 1
