"""fio ``--output-format=json`` and ``json+`` results.

fio writes one JSON document per run: ``{"fio version": ..., "timestamp": ..., "global options":
{...}, "jobs": [...]}``, or with ``--client`` a ``"client_stats"`` list (one entry per host and job,
plus an ``"All clients"`` aggregate when there are several hosts). Each job entry has one block per
direction (``read``, ``write``, ``trim``; ``mixed`` with ``unified_rw_reporting``) holding the rates
and the latency statistics:

- fio >= 3.0 (and 2.99 git builds): ``lat_ns``, ``clat_ns``, ``slat_ns`` in nanoseconds; fio 2.x:
  ``lat``, ``clat``, ``slat`` in microseconds. ``lat`` is the total latency (submission +
  completion), which is what anfperf reports.
- Percentiles (``"99.000000": value``) are of ``clat`` unless the job set ``lat_percentiles=1``.
- ``json+`` adds ``"bins"``: a latency histogram ``{"<ns>": count}`` (fio 3.x) or, in fio 2.x,
  bucket indexes ``{"<index>": count}`` with ``FIO_IO_U_PLAT_*`` constants (usec buckets).
- ``bw`` is KiB/s (``bw_bytes``, bytes/s, since fio 3.x); ``runtime`` is ms. In fio 2.1 ``io_bytes``
  is really KiB.
- ``job options`` lists only what the job set; ``global options`` is an object, or in fio >= 3.40
  client mode a list of per-client objects carrying ``hostname`` and ``port``.

Text around the JSON (fio warnings and errors on stderr, ``--output-format=normal,json``, progress
lines, a pasted shell prompt) is skipped with a warning. Several documents in one file (fio's
``--status-interval``, concatenated outputs) are all read; their jobs keep counting in ``step``.

Mapping rules (see :func:`read_fio_json` for the columns):

- one row per job entry x direction that did I/O (``total_ios`` or ``io_bytes`` > 0); the reader
  adds the 'total' rows (``mixed`` already is one);
- ``step`` is the 0-based position of the job entry in the file, so clones of the same name
  (``numjobs`` without ``group_reporting``) stay apart;
- host: ``hostname`` of a client entry (``hostname:port`` when one hostname shows up with several
  ports), ``'all'`` for "All clients", else ``'localhost'``. The "All clients" row takes the job
  name its hosts share (else "All clients"), and, when fio gave it no percentiles, those of its
  hosts' merged json+ histograms;
- with several documents, each keeps its own rows: ``--status-interval`` snapshots are cumulative,
  so the last one is the whole run;
- ``bs`` and ``rate_iops`` are per direction (``bs=4k,64k``: read 4k, write 64k);
- configuration: ``job options`` over ``global options`` over fio's defaults (when fio reported its
  options at all; fio 2.1 did not, leaving the configuration missing). ``outstanding`` is the
  concurrency the row's I/O came from: ``iodepth`` per clone (1 for synchronous engines such as
  psync, which ignore iodepth), times ``numjobs`` when ``group_reporting`` folded the clones into one
  entry (set in the options, or a lone entry of a numjobs > 1 job: fio does not list a
  command-line ``--group_reporting``); "All clients" sums its hosts;
- latencies fio did not measure (``gtod_reduce``, ``disable_lat``: reported as 0 with N=0) are NaN,
  never 0, with a warning; without ``lat`` the mean is ``clat + slat``;
- a job with a non-zero ``error`` and no I/O is dropped with a warning (a ParseError quoting fio's
  error text when no job is left); a job with an error that still did I/O is kept with ``error``
  set.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import warnings
from datetime import UTC, datetime
from functools import lru_cache

import numpy as np
import orjson
import pandas as pd

from anfperf.errors import ParseError
from anfperf.ingest._frame import finalize
from anfperf.ingest._source import PathOrBuffer, read_bytes
from anfperf.ingest.combine import merge_bins, percentiles_from_bins
from anfperf.ingest.fio_bins import plat_idx_to_val
from anfperf.ingest.registry import Format

log = logging.getLogger(__name__)

TOOL = "fio"

#: fio's per-direction blocks -> schema direction. 'mixed' (unified_rw_reporting) is every
#: direction together, i.e. the 'total' row.
DIRECTION_KEYS: dict[str, str] = {
    "read": "read",
    "write": "write",
    "trim": "trim",
    "mixed": "total",
}

#: Position of a direction in fio's per-direction option values ("bs=4k,64k" = read 4k, write 64k).
DDIR_INDEX: dict[str, int] = {"read": 0, "write": 1, "trim": 2}

#: Latency block names (total, completion, submission) and their units per ms, by fio generation.
LATENCY_KEYS_NS = ("lat_ns", "clat_ns", "slat_ns")
LATENCY_KEYS_US = ("lat", "clat", "slat")
NS_PER_MS = 1e6
US_PER_MS = 1e3

#: Schema percentile column -> fio's key in a "percentile" object.
PERCENTILE_KEYS: dict[str, str] = {
    "lat_p50_ms": "50.000000",
    "lat_p90_ms": "90.000000",
    "lat_p95_ms": "95.000000",
    "lat_p99_ms": "99.000000",
    "lat_p999_ms": "99.900000",
}
_PERCENTILE_VALUES = {key: float(key) for key in PERCENTILE_KEYS.values()}

#: The aggregate entry of client/server runs.
ALL_CLIENTS = "All clients"

#: fio ``rw=`` -> (pattern, requested read %); None = from rwmixread/rwmixwrite (default 50).
RW_MODES: dict[str, tuple[str, float | None]] = {
    "read": ("sequential", 100.0),
    "write": ("sequential", 0.0),
    "trim": ("sequential", 0.0),
    "rw": ("sequential", None),
    "readwrite": ("sequential", None),
    "trimwrite": ("sequential", 0.0),
    "randread": ("random", 100.0),
    "randwrite": ("random", 0.0),
    "randtrim": ("random", 0.0),
    "randrw": ("random", None),
    "randtrimwrite": ("random", 0.0),
}

#: Engines that complete each I/O before issuing the next: iodepth has no effect on them.
SYNC_ENGINES = frozenset(
    {"sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "falloc", "ftruncate", "e4defrag",
     "filecreate", "filestat", "filedelete", "dircreate", "dirstat", "dirdelete", "splice"}
)  # fmt: skip

#: fio's defaults for options a job did not set (applied only when fio reported options).
DEFAULT_OPTIONS: dict[str, str] = {"rw": "read", "bs": "4k", "iodepth": "1", "numjobs": "1"}

# A JSON document starts with '{' at the beginning of a line (fio never indents its outer brace).
#: Where a fio JSON document can start: an object whose first key is one fio writes first,
#: anywhere in the text (stray text from a shell redirect may precede it on the same line).
_DOC_START = re.compile(r'\{\s*"(?:fio version|jobs|client_stats|global options)"')
#: fio's message when a signal ends the run early (SIGTERM, SIGINT ...).
_SIGNALLED = re.compile(r"terminating on signal \d+")
#: Failed decodes a scan gives up after: each can read to the end of the file, so hostile
#: text of many truncated objects would otherwise cost quadratic time.
MAX_FAILED_DECODES = 64
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([kmgtpe]?)(i?)b?\s*$", re.IGNORECASE)
_INT64_MAX = 2**63 - 1
# Unix seconds accepted as a timestamp (1973 .. 2262, the datetime64[ns] limit).
_TS_RANGE = (1e8, 9.2e9)
_NAN = math.nan


def read_fio_json(path_or_buffer: PathOrBuffer, *, run_id: str | None = None) -> pd.DataFrame:
    """Read fio's ``--output-format=json`` or ``json+`` output.

    Parameters
    ----------
    path_or_buffer : str, os.PathLike or file-like
        The output file (gzip is recognised by content), or an open binary or text buffer.
    run_id : str, optional
        Run identifier; derived from the file name when not given.

    Returns
    -------
    pandas.DataFrame
        The tidy frame (:mod:`anfperf.schema`): one row per job entry x direction that did I/O,
        then a 'total' row per job entry. All rows are whole-run rows (``is_summary=True``,
        ``interval`` missing).

        ===================  ======  =====================================================
        column               unit    from fio
        ===================  ======  =====================================================
        tool, tool_version           'fio', the "fio version" string (e.g. 'fio-3.33')
        host                         client hostname, 'all' for "All clients", else
                                     'localhost'
        job, workload                ``jobname``
        step                         0-based job entry in the file (several documents
                                     keep counting)
        direction                    'read', 'write', 'trim'; 'total' (added, or fio's
                                     ``mixed`` block)
        timestamp            UTC     the document's timestamp (end of the run)
        pattern                      'random' / 'sequential' from ``rw``; 'mixed' when
                                     ``percentage_random`` is between 0 and 100
        bs_kib               KiB     ``bs`` of the row's direction
        read_pct             %       100 / 0 from ``rw``, else ``rwmixread`` (default 50)
        iodepth, numjobs             as configured
        outstanding                  iodepth (1 for sync engines) per clone, x numjobs with
                                     ``group_reporting``
        rate_limit_iops      1/s     ``rate_iops`` of the row's direction
        runtime_s            s       ``runtime`` / 1000
        iops                 1/s     ``iops``
        bw_mib_s             MiB/s   ``bw_bytes`` / 2**20, else ``bw`` [KiB/s] / 1024
        lat_mean_ms ...      ms      ``lat_ns`` / ``lat``: mean, min, max, stddev
        lat_p50_ms ...       ms      percentiles of ``lat_ns`` when fio computed them
                                     (``lat_percentiles=1``), else of ``clat_ns``
        lat_bins             ns      json+ histogram of the same latency
        cpu_user_pct, _sys   %       ``usr_cpu``, ``sys_cpu`` of the job
        error                        the job's ``error`` (0 = none)
        ===================  ======  =====================================================

    Raises
    ------
    anfperf.errors.ParseError
        The file holds no fio JSON (empty, another format, an error message only), the JSON is
        damaged or truncated, it has no jobs, or no job did any I/O (fio's error text quoted).

    Warns
    -----
    UserWarning
        Text around the JSON was skipped; jobs that failed were dropped; fio did not measure the
        latency (NaN).
    """
    data, source = read_bytes(path_or_buffer)
    rows = _parse_fio_json(data, source)
    return finalize(rows, source=source, run_id=run_id)


def _parse_fio_json(data: bytes, source: str) -> list[dict]:
    """Rows (plain dicts of schema columns, no 'total' rows) of one fio JSON output.

    Kept free of pandas so that many files can be parsed and finalized together quickly.
    """
    docs, outside = _documents(data, source)
    rows: list[dict] = []
    failed: list[tuple[str, int]] = []
    unmeasured = 0
    step0 = 0
    n_entries = 0
    for doc in docs:
        doc_rows, n, doc_failed, doc_unmeasured = _document_rows(doc, source, step0)
        rows.extend(doc_rows)
        failed.extend(doc_failed)
        unmeasured += doc_unmeasured
        step0 += n
        n_entries += n
    if n_entries == 0:
        raise ParseError(source, "fio JSON with no jobs ('jobs' / 'client_stats' missing or empty)")
    if failed:
        what = ", ".join(f"{name!r} (error {code}{_strerror(code)})" for name, code in failed)
        if not rows:
            said = _error_text(outside)
            raise ParseError(
                source,
                f"no fio job completed: {what}" + (f"; fio said: {said}" if said else ""),
            )
        warnings.warn(f"{source}: dropped fio jobs that failed without I/O: {what}", stacklevel=3)
    if not rows:
        raise ParseError(source, f"none of the {n_entries} fio jobs did any I/O")
    _warn_outside_text(outside, source)
    signal = next((m for chunk in outside if (m := _SIGNALLED.search(chunk))), None)
    if signal:  # fio wrote what it had measured when it was told to stop
        warnings.warn(
            f"{source}: fio was stopped ({signal[0]}): the rows cover less than the planned run "
            "and are flagged 'interrupted'",
            stacklevel=3,
        )
        for row in rows:
            row["interrupted"] = True
    if unmeasured:
        warnings.warn(
            f"{source}: fio did not measure latency for {unmeasured} job direction(s) "
            "(gtod_reduce / disable_lat?): latencies are NaN",
            stacklevel=3,
        )
    return rows


# --------------------------------------------------------------------------- finding the JSON


def _documents(data: bytes, source: str) -> tuple[list[dict], list[str]]:
    """The fio JSON documents in `data` and the pieces of text outside them."""
    stripped = data.lstrip()
    if not stripped:
        raise ParseError(source, "empty file")
    first_error: BaseException | None = None
    if stripped[:1] == b"{":
        # Fast path: a file that is just the JSON. orjson decodes UTF-8 JSON about twice as fast
        # as json, which decides the speed of reading thousands of fio files; json takes what
        # orjson refuses (UTF-16/32, NaN literals, integers beyond 64 bits).
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError:
            try:
                doc = json.loads(data)
            except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
                first_error = exc
                doc = None
        if isinstance(doc, dict):
            return [doc], []
    text = _decode(data)
    docs, outside, decode_error, other_json = _scan(text)
    if docs:
        return docs, outside
    if other_json:
        raise ParseError(source, "JSON without 'jobs' or 'client_stats': no fio jobs in it")
    error = first_error or decode_error
    if text.lstrip().startswith("{") and error is not None:
        raise _json_error(source, error)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    raise ParseError(source, f"no fio JSON output found; the file starts with {first[:120]!r}")


def _decode(data: bytes) -> str:
    """Text of any bytes: the JSON encodings by BOM, else UTF-8 with replacement characters."""
    try:
        encoding = json.detect_encoding(data)
    except (TypeError, ValueError):  # pragma: no cover - detect_encoding accepts any bytes
        encoding = "utf-8"
    text = data.decode(encoding, errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def _scan(text: str) -> tuple[list[dict], list[str], BaseException | None, bool]:
    """Decode every JSON object starting at the beginning of a line; keep fio's."""
    decoder = json.JSONDecoder()
    docs: list[dict] = []
    outside: list[str] = []
    pos = 0
    error: BaseException | None = None
    other_json = False
    failed = 0
    for match in _DOC_START.finditer(text):
        start = match.start()
        if start < pos:
            continue
        try:
            obj, end = _raw_decode(decoder, text, start)
        except (ValueError, RecursionError) as exc:
            error = error or exc
            failed += 1
            if failed >= MAX_FAILED_DECODES:
                break
            continue
        if not isinstance(obj, dict):
            continue
        if not ("jobs" in obj or "client_stats" in obj or "fio version" in obj):
            other_json = True
            continue
        outside.append(text[pos:start])
        docs.append(obj)
        pos = end
    if not docs and text.lstrip().startswith("{"):
        # not fio's: decode it once to say whether it is other JSON or broken JSON
        try:
            obj, _ = decoder.raw_decode(text, len(text) - len(text.lstrip()))
            other_json = isinstance(obj, dict)
        except (ValueError, RecursionError) as exc:
            error = error or exc
    outside.append(text[pos:])
    return docs, outside, error, other_json


def _raw_decode(decoder: json.JSONDecoder, text: str, start: int) -> tuple[object, int]:
    """The JSON value starting at `start` and where it ends, as ``decoder.raw_decode`` gives.

    orjson first (several times faster: fio output with text before the JSON is common), told
    where the document ends by its 'content after document' error; json for what orjson
    refuses (NaN literals, integers beyond 64 bits), and for its error messages.
    """
    try:
        return orjson.loads(text[start:]), len(text)
    except orjson.JSONDecodeError as exc:
        if exc.msg != "unexpected content after document":
            return decoder.raw_decode(text, start)
        end = start + exc.pos
    while text[end - 1].isspace():  # orjson points past the whitespace after the value
        end -= 1
    try:
        return orjson.loads(text[start:end]), end
    except orjson.JSONDecodeError:  # pragma: no cover - the same bytes decoded just now
        return decoder.raw_decode(text, start)


def _json_error(source: str, exc: BaseException) -> ParseError:
    if isinstance(exc, json.JSONDecodeError):
        return ParseError(source, f"invalid or truncated JSON: {exc.msg}", line=exc.lineno)
    if isinstance(exc, RecursionError):
        return ParseError(source, "invalid JSON: nested too deeply")
    return ParseError(source, f"invalid JSON: {exc}")


def _warn_outside_text(outside: list[str], source: str) -> None:
    lines = [line.strip() for chunk in outside for line in _lines(chunk) if line.strip()]
    if lines:
        log.debug("%s: text outside the fio JSON: %r", source, lines)
        warnings.warn(
            f"{source}: skipped {len(lines)} line(s) of text outside the fio JSON, "
            f"first: {lines[0][:120]!r}",
            stacklevel=4,
        )


def _lines(chunk: str) -> list[str]:
    # fio's progress line rewrites itself with carriage returns.
    return chunk.replace("\r", "\n").split("\n")


def _error_text(outside: list[str]) -> str:
    """fio's own words before the JSON (its error messages), for a ParseError."""
    before = outside[0] if outside else ""
    lines = [
        line.strip()
        for line in _lines(before)
        if line.strip() and not line.strip().startswith("Jobs:")
    ]
    return " | ".join(line[:200] for line in lines[-5:])


def _strerror(code: int) -> str:
    if 0 < code < 200:
        try:
            return f": {os.strerror(code)}"
        except ValueError:  # pragma: no cover - strerror accepts any small int
            return ""
    return ""


# --------------------------------------------------------------------------- one document


def _document_rows(doc: dict, source: str, step0: int) -> tuple[list[dict], int, list, int]:
    """Rows of one document; also the number of job entries, failed jobs, unmeasured blocks."""
    version = doc.get("fio version")
    tool_version = _text(version) if isinstance(version, str) else None
    timestamp = _timestamp(doc)
    entries = _entries(doc, source)
    global_options = doc.get("global options")
    hosts = _client_hosts(entries)
    keys = [_clone_key(entry) for _, entry in entries]  # type: ignore[arg-type]
    clones: dict[tuple, int] = {}
    for key in keys:
        clones[key] = clones.get(key, 0) + 1
    rows: list[dict] = []
    failed: list[tuple[str, int]] = []
    unmeasured = 0
    all_clients: list[tuple[int, dict]] = []
    per_host: list[tuple[dict, list[dict]]] = []

    for i, (is_client, entry) in enumerate(entries):
        name = keys[i][0]
        if is_client and name == ALL_CLIENTS:
            all_clients.append((i, entry))
            continue
        options, reported = _options(entry, global_options)
        config = _with_outstanding(_cached_config(options, reported), clones[keys[i]])
        error = _int(entry.get("error")) or 0
        host = hosts.get(keys[i][2:], "localhost") if is_client else (keys[i][2] or "localhost")
        base = _base_row(source, tool_version, timestamp, host, name, step0 + i, entry, error)
        entry_rows, n_unmeasured = _direction_rows(entry, base, config)
        unmeasured += n_unmeasured
        if error and not entry_rows:
            failed.append((name, error))
            continue
        if error:
            warnings.warn(
                f"{source}: fio job {name!r} reported error {error}{_strerror(error)}; "
                "its results are kept with error set",
                stacklevel=4,
            )
        rows.extend(entry_rows)
        per_host.append((config, entry_rows))

    for i, entry in all_clients:
        entry_rows, n_unmeasured = _all_clients_rows(
            entry, per_host, source, tool_version, timestamp, step0 + i
        )
        unmeasured += n_unmeasured
        rows.extend(entry_rows)
    return rows, len(entries), failed, unmeasured


def _entries(doc: dict, source: str) -> list[tuple[bool, dict]]:
    """The job entries of a document: (whether a client/server entry, the entry)."""
    entries: list[tuple[bool, dict]] = []
    for key in ("jobs", "client_stats"):
        value = doc.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise ParseError(source, f"'{key}' is not a list of jobs")
        entries.extend((key == "client_stats", entry) for entry in value)
    for i, (_, entry) in enumerate(entries):
        if not isinstance(entry, dict):
            raise ParseError(source, f"job entry {i} is not a JSON object")
    return entries


def _all_clients_rows(
    entry: dict,
    per_host: list[tuple[dict, list[dict]]],
    source: str,
    tool_version: str | None,
    timestamp: datetime | None,
    step: int,
) -> tuple[list[dict], int]:
    """Rows of the "All clients" aggregate: the name and settings its hosts share."""
    names = {row["job"] for _, entry_rows in per_host for row in entry_rows}
    name = names.pop() if len(names) == 1 else ALL_CLIENTS
    config = _common_config([config for config, _ in per_host])
    error = _int(entry.get("error")) or 0
    base = _base_row(source, tool_version, timestamp, "all", name, step, entry, error)
    entry_rows, n_unmeasured = _direction_rows(entry, base, config)
    _fill_all_clients_bins(entry_rows, [r for _, rs in per_host for r in rs])
    return entry_rows, n_unmeasured


def _base_row(
    source: str,
    tool_version: str | None,
    timestamp: datetime | None,
    host: str,
    name: str,
    step: int,
    entry: dict,
    error: int,
) -> dict:
    return {
        "tool": TOOL,
        "tool_version": tool_version,
        "source_file": source,
        "host": host,
        "job": name,
        "workload": name,
        "step": step,
        "timestamp": timestamp,
        "is_summary": True,
        "is_warmup": False,
        "error": error,
        "cpu_user_pct": _num(entry.get("usr_cpu")),
        "cpu_sys_pct": _num(entry.get("sys_cpu")),
    }


def _direction_rows(entry: dict, base: dict, config: dict) -> tuple[list[dict], int]:
    rows = []
    unmeasured = 0
    bs_kib, rate_iops = config["bs_kib"], config["rate_iops"]
    for key, direction in DIRECTION_KEYS.items():
        block = entry.get(key)
        if not isinstance(block, dict) or not _did_io(block):
            continue
        bw_bytes = _num(block.get("bw_bytes"))
        row = {
            **base,
            "direction": direction,
            "pattern": config["pattern"],
            "read_pct": config["read_pct"],
            "iodepth": config["iodepth"],
            "numjobs": config["numjobs"],
            "outstanding": config["outstanding"],
            "bs_kib": bs_kib.get(direction, _NAN),
            "rate_limit_iops": rate_iops.get(direction, _NAN),
            "runtime_s": _num(block.get("runtime")) / 1000.0,
            "iops": _num(block.get("iops")),
            "bw_mib_s": (
                bw_bytes / 2**20 if bw_bytes == bw_bytes else _num(block.get("bw")) / 1024.0
            ),
        }
        if not _latency(block, row):
            unmeasured += 1
        rows.append(row)
    return rows, unmeasured


def _did_io(block: dict) -> bool:
    return (
        _num(block.get("total_ios")) > 0
        or _num(block.get("io_bytes")) > 0
        or _num(block.get("io_kbytes")) > 0
    )


# --------------------------------------------------------------------------- latency


def _latency(block: dict, row: dict) -> bool:
    """Fill the latency columns of `row` from a direction block; False if fio did not measure."""
    if "lat_ns" in block or "clat_ns" in block:
        keys, per_ms, ns_per_unit = LATENCY_KEYS_NS, NS_PER_MS, 1
    else:
        keys, per_ms, ns_per_unit = LATENCY_KEYS_US, US_PER_MS, 1000
    lat, clat, slat = (block.get(k) for k in keys)
    lat = lat if isinstance(lat, dict) else None
    clat = clat if isinstance(clat, dict) else None
    slat = slat if isinstance(slat, dict) else None

    measured = True
    lat_measured = _measured(lat)
    if lat_measured:
        # Divide (not multiply by 1e-6): 101888 ns is then exactly the float nearest 0.101888.
        row["lat_mean_ms"] = _num(lat.get("mean")) / per_ms
        row["lat_min_ms"] = _num(lat.get("min")) / per_ms
        row["lat_max_ms"] = _num(lat.get("max")) / per_ms
        row["lat_std_ms"] = _num(lat.get("stddev")) / per_ms
    else:
        # disable_lat: the total latency is the submission plus the completion latency.
        clat_mean = _num(clat.get("mean")) if _measured(clat) else _NAN
        slat_mean = _num(slat.get("mean")) if _measured(slat) else 0.0
        row["lat_mean_ms"] = (clat_mean + slat_mean) / per_ms
        row["lat_min_ms"] = row["lat_max_ms"] = row["lat_std_ms"] = _NAN
        measured = clat_mean == clat_mean

    # Percentiles and histogram of the total latency when fio computed them, else of clat.
    if lat is not None and ("percentile" in lat or "bins" in lat):
        src, src_measured = lat, lat_measured
    else:
        src, src_measured = clat, _measured(clat)
    pct = src.get("percentile") if src_measured else None
    if isinstance(pct, dict) and pct:
        for column, value in _percentiles(pct).items():
            row[column] = value / per_ms
    else:
        row.update(_NO_PERCENTILES)
    row["lat_bins"] = _bins(src.get("bins"), ns_per_unit) if src_measured else None
    return measured


_NO_PERCENTILES = dict.fromkeys(PERCENTILE_KEYS, _NAN)


def _measured(block: dict | None) -> bool:
    """Whether fio timed the I/O of a latency block (it writes zeros and N=0 when it did not)."""
    if block is None or ("N" in block and not _num(block.get("N")) > 0):
        return False
    # All zeros (without N in fio < 3.5): no timing, or a broken clock; never a real 0 latency.
    return _num(block.get("mean")) > 0 or _num(block.get("max")) > 0


def _percentiles(pct: dict) -> dict[str, float]:
    out = {column: _num(pct.get(key, _NAN)) for column, key in PERCENTILE_KEYS.items()}
    if all(v != v for v in out.values()):
        # Keys not in fio's usual '%f' spelling: match them by value.
        by_value = {}
        for key, value in pct.items():
            p = _num(key)
            if p == p:
                by_value[round(p, 6)] = value
        for column, key in PERCENTILE_KEYS.items():
            out[column] = _num(by_value.get(round(_PERCENTILE_VALUES[key], 6), _NAN))
    return out


def _bins(raw: object, ns_per_unit: int) -> dict | None:
    """A json+ histogram as ``{'ns': int64 array, 'count': int64 array}``; None if unusable."""
    if not isinstance(raw, dict) or not raw:
        return None
    if ns_per_unit == 1 and "FIO_IO_U_PLAT_NR" not in raw:
        fast = _decimal_bins(raw)
        if fast is not _NOT_DECIMAL:
            return fast
    try:
        if "FIO_IO_U_PLAT_NR" in raw:  # fio 2.x: bucket index -> count, usec buckets
            bits = int(raw["FIO_IO_U_PLAT_BITS"])
            val = int(raw["FIO_IO_U_PLAT_VAL"])
            pairs = [(int(k), v) for k, v in raw.items() if not k.startswith("FIO_")]
            idx = np.array([k for k, _ in pairs], dtype=np.int64)
            count = np.fromiter((v for _, v in pairs), dtype=np.int64, count=len(pairs))
            keep = count > 0
            ns = plat_idx_to_val(idx[keep], bits, val) * ns_per_unit
            count = count[keep]
        else:
            keys = " ".join(raw)
            if keys.isascii() and keys.replace(" ", "").isdigit():
                # fio's plain decimal keys: numpy parses them in one go (3x faster than int()).
                ns = np.fromstring(keys, dtype=np.int64, sep=" ")
            else:
                ns = np.array(list(raw), dtype=np.int64)
            if len(ns) != len(raw) or (ns >= _INT64_MAX).any():  # fromstring saturates
                return None
            if ns_per_unit != 1:
                ns = ns * ns_per_unit
            count = np.fromiter(raw.values(), dtype=np.int64, count=len(raw))
    except (TypeError, ValueError, OverflowError, KeyError):
        return None
    if count.size == 0 or (count < 0).any() or (ns < 0).any() or count.sum() <= 0:
        return None
    return {"ns": ns, "count": count}


_NOT_DECIMAL = object()
_DIGITS_AND_SPACE = b"0123456789 "


def _decimal_bins(raw: dict) -> dict | None | object:
    """:func:`_bins` of fio 3.x's own histograms (plain decimal ns keys), with a third of the
    work: json+ files hold several such dicts of ~300 bins each, and converting them was half
    the time spent building rows. `_NOT_DECIMAL` for any other keys."""
    try:
        keys = " ".join(raw).encode("ascii")
    except (UnicodeEncodeError, TypeError):  # TypeError: keys not text (not from JSON)
        return _NOT_DECIMAL
    if keys.translate(None, _DIGITS_AND_SPACE):  # anything but digits and separators
        return _NOT_DECIMAL
    ns = np.fromstring(keys, dtype=np.int64, sep=" ")  # digits only: never negative
    if len(ns) != len(raw) or ns.max() >= _INT64_MAX:  # fromstring saturates
        return None
    try:
        count = np.fromiter(raw.values(), dtype=np.int64, count=len(raw))
    except (TypeError, ValueError, OverflowError):
        return None
    if count.min() < 0 or count.sum() <= 0:
        return None
    return {"ns": ns, "count": count}


def _fill_all_clients_bins(all_rows: list[dict], host_rows: list[dict]) -> None:
    """Percentiles of "All clients" from its hosts' merged histograms when fio gave none."""
    for row in all_rows:
        if row["lat_bins"] is not None or not all(row[c] != row[c] for c in PERCENTILE_KEYS):
            continue
        hists = [r["lat_bins"] for r in host_rows if r["direction"] == row["direction"]]
        if not hists or any(h is None for h in hists):
            continue
        merged = merge_bins(hists)
        row["lat_bins"] = merged
        values = percentiles_from_bins(
            merged, [_PERCENTILE_VALUES[k] for k in PERCENTILE_KEYS.values()]
        )
        for column, value in zip(PERCENTILE_KEYS, values, strict=True):
            row[column] = float(value)


# --------------------------------------------------------------------------- configuration


def _options(entry: dict, global_options: object) -> tuple[dict, bool]:
    """The entry's options: job options over global options; whether fio reported any."""
    job = entry.get("job options")
    reported = isinstance(job, dict)
    if isinstance(global_options, list):
        # fio >= 3.40 client mode: one global options object per client.
        key = _host_key(entry)
        dicts = [g for g in global_options if isinstance(g, dict)]
        global_options = next(
            (g for g in dicts if _host_key(g) == key), dicts[0] if dicts else None
        )
    merged: dict = {}
    if isinstance(global_options, dict):
        merged.update(global_options)
        reported = True
    if isinstance(job, dict):
        merged.update(job)
    return merged, reported


def _cached_config(options: dict, reported: bool) -> dict:
    # Clones (numjobs) and repeated runs share their options: work each set out once.
    try:
        return _config_of_items(tuple(options.items()), reported)
    except TypeError:  # an unhashable option value: not fio's own output
        return _config(options, reported)


@lru_cache(maxsize=512)
def _config_of_items(items: tuple, reported: bool) -> dict:
    return _config(dict(items), reported)


def _config(options: dict, reported: bool) -> dict:
    """Workload configuration of a job entry from its (merged) options.

    The result is shared between rows (and cached): never modify it.
    """

    def opt(*names: str) -> str | None:
        for name in names:
            value = options.get(name)
            if isinstance(value, str):
                return value.strip()
            if isinstance(value, int | float) and not isinstance(value, bool):
                return str(value)
        if reported:
            return DEFAULT_OPTIONS.get(names[0])
        return None

    config: dict = {
        "pattern": None, "read_pct": _NAN, "iodepth": None, "numjobs": None,
        "outstanding": None, "bs_kib": {}, "rate_iops": {}, "per_clone_depth": None,
        "group_reporting": False,
    }  # fmt: skip
    rw = opt("rw", "readwrite")
    mode = RW_MODES.get(rw.split(":")[0].strip().lower()) if rw else None
    if mode is not None:
        pattern, read_pct = mode
        if read_pct is None:
            mix_read = _num(opt("rwmixread"))
            mix_write = _num(opt("rwmixwrite"))
            if 0 <= mix_read <= 100:
                read_pct = mix_read
            elif 0 <= mix_write <= 100:
                read_pct = 100.0 - mix_write
            else:
                read_pct = 50.0
        if pattern == "random":
            random_pct = _num(_first(opt("percentage_random")))
            if random_pct == 0:
                pattern = "sequential"
            elif 0 < random_pct < 100:
                pattern = "mixed"
        config["pattern"] = pattern
        config["read_pct"] = read_pct

    kb_base = 1000 if opt("kb_base") == "1000" else 1024
    bs = _per_direction(opt("bs", "blocksize"), DEFAULT_OPTIONS["bs"] if reported else None)
    config["bs_kib"] = {d: _size_bytes(v, kb_base) / 1024.0 for d, v in bs.items()}
    rates = _per_direction(opt("rate_iops"), None)
    config["rate_iops"] = {d: v for d, v in ((d, _num(v)) for d, v in rates.items()) if v > 0}
    _same_for_total(config["bs_kib"])
    _same_for_total(config["rate_iops"])

    iodepth = _int(opt("iodepth"))
    config["iodepth"] = iodepth
    config["numjobs"] = _int(opt("numjobs"))
    engine = (opt("ioengine") or "").split(":")[0].strip().lower()
    if iodepth is not None:
        config["per_clone_depth"] = 1 if engine in SYNC_ENGINES else iodepth
    config["group_reporting"] = _flag(opt("group_reporting"))
    return config


def _with_outstanding(config: dict, n_entries: int) -> dict:
    """`config` with ``outstanding`` for an entry whose (name, group, host) has `n_entries`.

    With group_reporting fio folds a job's numjobs clones into one entry; without it each clone
    has its own entry. fio does not list group_reporting in the options when it was given on the
    command line, so a lone entry of a numjobs > 1 job counts as folded too.
    """
    depth = config.get("per_clone_depth")
    numjobs = config["numjobs"]
    if depth is None:
        return config
    folded = numjobs is not None and (config["group_reporting"] or (numjobs > 1 and n_entries == 1))
    outstanding = depth * numjobs if folded else depth
    return {**config, "outstanding": min(outstanding, _INT64_MAX)}


def _common_config(configs: list[dict]) -> dict:
    """Configuration of "All clients": what its hosts agree on; concurrency adds up."""
    out: dict = {
        "pattern": None, "read_pct": _NAN, "iodepth": None, "numjobs": None,
        "outstanding": None, "bs_kib": {}, "rate_iops": {}, "per_clone_depth": None,
        "group_reporting": False,
    }  # fmt: skip
    if not configs:
        return out
    for key in ("pattern", "read_pct", "iodepth", "numjobs"):
        values = [c[key] for c in configs]
        if all(v == values[0] for v in values[1:]):
            out[key] = values[0]
    for key in ("bs_kib", "rate_iops"):
        first = configs[0][key]
        out[key] = {d: v for d, v in first.items() if all(c[key].get(d) == v for c in configs)}
    outstanding = [c["outstanding"] for c in configs]
    if all(v is not None for v in outstanding):
        out["outstanding"] = min(sum(outstanding), _INT64_MAX)
    return out


def _per_direction(value: str | None, default: str | None) -> dict[str, str]:
    """fio's 'read,write,trim' option values: one value is all; an empty one is the default;
    missing trailing ones repeat the last."""
    if value is None:
        return {}
    if "," not in value:
        value = value or default
        return dict.fromkeys(DDIR_INDEX, value) if value else {}
    parts = [p.strip() for p in value.split(",")]
    out = {}
    for direction, i in DDIR_INDEX.items():
        part = parts[0] if len(parts) == 1 else (parts[i] if i < len(parts) else parts[-1])
        part = part or default
        if part:
            out[direction] = part
    return out


def _same_for_total(values: dict) -> None:
    # The 'mixed' (total) block gets a value only when the directions agree.
    distinct = set(values.values())
    if len(distinct) == 1 and len(values) == len(DDIR_INDEX):
        values["total"] = distinct.pop()


@lru_cache(maxsize=256)
def _size_bytes(text: str, kb_base: int) -> float:
    """fio size '4k', '64K', '1m', '4096', '8KiB' -> bytes (k = 1024 unless kb_base=1000)."""
    match = _SIZE.match(text)
    if not match:
        return _NAN
    number, prefix, binary = match.groups()
    power = "kmgtpe".find(prefix.lower()) + 1 if prefix else 0
    base = 1024 if binary else kb_base
    try:
        return float(number) * base**power
    except OverflowError:  # pragma: no cover - at most 1024**6
        return _NAN


def _first(value: str | None) -> str | None:
    return value.split(",")[0] if value else value


def _flag(value: str | None) -> bool:
    # fio prints boolean options as '1' or '' (set without a value).
    return value is not None and value.strip().lower() not in ("0", "false", "no", "off")


# --------------------------------------------------------------------------- hosts and values


def _clone_key(entry: dict) -> tuple[str, str, str, str]:
    return (
        _text(entry.get("jobname")),
        _text(entry.get("groupid")),
        _text(entry.get("hostname")),
        _text(entry.get("port")),
    )


def _host_key(entry: dict) -> tuple[str, str]:
    return _text(entry.get("hostname")), _text(entry.get("port"))


def _client_hosts(entries: list[tuple[bool, object]]) -> dict[tuple[str, str], str]:
    """Host name of each client (hostname, port): 'hostname:port' where ports tell them apart."""
    ports: dict[str, set[str]] = {}
    for is_client, entry in entries:
        if is_client and _text(entry.get("jobname")) != ALL_CLIENTS:
            hostname, port = _host_key(entry)
            ports.setdefault(hostname, set()).add(port)
    names = {}
    for hostname, seen in ports.items():
        for port in seen:
            name = hostname or "localhost"
            names[(hostname, port)] = f"{name}:{port}" if len(seen) > 1 and port else name
    return names


def _timestamp(doc: dict) -> datetime | None:
    seconds = _num(doc.get("timestamp_ms")) / 1000.0
    if not _TS_RANGE[0] < seconds < _TS_RANGE[1]:
        seconds = _num(doc.get("timestamp"))
    if not _TS_RANGE[0] < seconds < _TS_RANGE[1]:
        return None
    return datetime.fromtimestamp(seconds, tz=UTC)


def _text(value: object) -> str:
    if isinstance(value, str):
        if value.isascii():
            return value
        # JSON may carry lone surrogates ("\ud800") that no text column can store.
        return value.encode("utf-8", "replace").decode("utf-8")
    if value is None or isinstance(value, dict | list):
        return ""
    return str(value)


def _num(value: object) -> float:
    """A JSON value as a float; NaN when it is not a number."""
    try:
        return float(value)  # type: ignore[arg-type]  # int, float or a numeric string
    except (TypeError, ValueError, OverflowError):
        return _NAN


def _int(value: object) -> int | None:
    """A JSON value as an int64 (Int64 columns); None when it is not a whole number."""
    number = _num(value)
    if number != number or number in (math.inf, -math.inf) or number != int(number):
        return None
    number = int(number)
    return number if -_INT64_MAX <= number <= _INT64_MAX else None


def _sniff(head: bytes) -> bool:
    return b'"fio version"' in head or b'"client_stats"' in head or b'"jobs"' in head


FORMAT = Format(
    name="fio_json",
    title="fio JSON",
    tool=TOOL,
    sniff=_sniff,
    parse_rows=_parse_fio_json,
    read=read_fio_json,
    suffixes=(".json", ".txt"),
)
