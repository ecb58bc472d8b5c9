"""One fio JSON output -> row tuples: the parser behind :mod:`anfperf.ingest.fio_json`.

:func:`parse_fio_json` finds the JSON documents in a file's text (skipping the text around them),
checks them and gives one tuple per job entry (:data:`ENTRY_COLUMNS`) and one per direction row
(:data:`BLOCK_COLUMNS`), which :class:`anfperf.ingest.fio_table.FioTable` turns into the tidy
frame. Documents of one run (a ``--status-interval`` series, :func:`anfperf.ingest.fio_series.runs`)
give the rows of its last document and of each interval (a "job entry" of its own, with its
``interval``). The format and the mapping rules are described in :mod:`anfperf.ingest.fio_json`.
"""

from __future__ import annotations

import codecs
import json
import logging
import math
import os
import re
from collections.abc import Iterable
from typing import NamedTuple

import orjson
from msgspec import Raw

from anfperf.errors import ParseError, warn
from anfperf.ingest import fio_doc
from anfperf.ingest.combine import merge_bins, percentiles_from_bins
from anfperf.ingest.fio_bins import histogram
from anfperf.ingest.fio_config import (
    ENTRY_VALUES,
    common_config,
    entry_config,
    host_key,
    json_value,
    options_key,
)
from anfperf.ingest.fio_doc import (
    INT64_MAX,
    UNSET,
    Block,
    Doc,
    Entry,
    Latency,
    Percentiles,
    num,
    text,
    whole_number,
)
from anfperf.ingest.fio_series import Run, difference, runs
from anfperf.schema import AGGREGATE_HOST, host_label
from anfperf.units import BYTES_PER_MIB, KIB_PER_MIB, MS_PER_S, NS_PER_MS, US_PER_MS

__all__ = [
    "TOOL", "ENTRY_COLUMNS", "BLOCK_COLUMNS", "BLOCK_BINS", "PERCENTILE_KEYS", "Parsed",
    "parse_fio_json",
]  # fmt: skip

log = logging.getLogger(__name__)

#: The tidy frame's `tool` value of fio's rows.
TOOL = "fio"

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


# A JSON document starts with '{' at the beginning of a line (fio never indents its outer brace).
#: Where a fio JSON document can start: an object whose first key is one fio writes first,
#: anywhere in the text (stray text from a shell redirect may precede it on the same line).
_DOC_START = re.compile(r'\{\s*"(?:fio version|jobs|client_stats|global options)"')
_DOC_START_BYTES = re.compile(_DOC_START.pattern.encode())
#: Where fio's pretty-printed document ends: its outer closing brace, the only one at the start
#: of a line.
_DOC_END = b"\n}"
#: fio's message when a signal ends the run early (SIGTERM, SIGINT ...).
_SIGNALLED = re.compile(r"terminating on signal \d+")
#: Failed decodes a scan gives up after: each can read to the end of the file, so hostile
#: text of many truncated objects would otherwise cost quadratic time.
MAX_FAILED_DECODES = 64
# Unix seconds accepted as a timestamp (1973 .. 2262, the datetime64[ns] limit).
_TS_RANGE = (1e8, 9.2e9)
_TS_MS_WHOLE = (int(_TS_RANGE[0] * 1000), 2**31 * 1000)  # fio's whole ms until 2038: see below
_NAN = math.nan


class Parsed(NamedTuple):
    """The rows of one fio JSON output, without 'total' rows (see :mod:`anfperf.ingest.fio_table`).

    ``entries``: one tuple per job entry that did I/O, its values in :data:`ENTRY_COLUMNS`;
    ``blocks``: one tuple per direction row, its entry's position in `entries` then its values
    in :data:`BLOCK_COLUMNS` (json+ histograms may still be JSON text, a :class:`msgspec.Raw`);
    ``interrupted``: fio said it was stopped by a signal.
    """

    entries: list[tuple]
    blocks: list[tuple]
    interrupted: bool


#: Values of a job entry, shared by its direction rows: a run's result (is_summary) or one
#: interval of a status-interval series.
ENTRY_COLUMNS = (
    "tool_version", "host", "job", "step", "timestamp", "error", "cpu_user_pct", "cpu_sys_pct",
    *ENTRY_VALUES, "interval", "time_s", "is_summary", "is_warmup",
)  # fmt: skip
_STEP, _TIMESTAMP, _ERROR = (ENTRY_COLUMNS.index(name) for name in ("step", "timestamp", "error"))
_VALUES = slice(ENTRY_COLUMNS.index(ENTRY_VALUES[0]), ENTRY_COLUMNS.index("interval"))
#: The last values of a result's entry: no interval, no time, a summary, not warm-up.
_RESULT = (None, math.nan, True, False)
#: Values of a direction row (after its entry's position).
BLOCK_COLUMNS = (
    "direction", "bs_kib", "rate_limit_iops", "runtime_s", "iops", "bw_mib_s",
    "lat_mean_ms", "lat_min_ms", "lat_max_ms", "lat_std_ms", *PERCENTILE_KEYS, "lat_bins",
)  # fmt: skip
#: Position of the json+ histogram in a direction row's tuple (after its entry's position).
BLOCK_BINS = 1 + BLOCK_COLUMNS.index("lat_bins")
_PERCENTILES = slice(1 + BLOCK_COLUMNS.index("lat_p50_ms"), BLOCK_BINS)


class _OtherSpelling(Exception):
    """Percentiles whose keys the typed decoding does not know: decode the file as JSON."""


def parse_fio_json(data: bytes, source: str) -> Parsed:
    """The rows of one fio JSON output, checked, with warnings for what was left out.

    Raises
    ------
    anfperf.errors.ParseError
        `source` holds no fio JSON, damaged JSON, no jobs, or no job that did any I/O.
    """
    docs, outside, cut = _documents(data, source)
    try:
        entries, blocks, failed, unmeasured, step0, notes = _rows(docs, source)
    except _OtherSpelling:
        docs, outside, cut = _documents(data, source, typed=False)
        entries, blocks, failed, unmeasured, step0, notes = _rows(docs, source)
    for note in notes:
        warn(note)
    if step0 == 0:
        raise ParseError(source, "fio JSON with no jobs ('jobs' / 'client_stats' missing or empty)")
    if failed:
        what = ", ".join(f"{name!r} (error {code}{_strerror(code)})" for name, code in failed)
        if not blocks:
            said = _errortext(outside)
            raise ParseError(
                source,
                f"no fio job completed: {what}" + (f"; fio said: {said}" if said else ""),
            )
        warn(f"{source}: dropped fio jobs that failed without I/O: {what}")
    if not blocks:
        raise ParseError(source, f"none of the {step0} fio jobs did any I/O")
    if outside:
        _warn_outsidetext(outside, source)
    signal = (
        next((m for chunk in outside if (m := _SIGNALLED.search(chunk))), None) if outside else None
    )
    if signal:  # fio wrote what it had measured when it was told to stop
        warn(
            f"{source}: fio was stopped ({signal[0]}): the rows cover less than the planned run "
            "and are flagged 'interrupted'"
        )
    if unmeasured:
        warn(
            f"{source}: fio did not measure latency for {unmeasured} job direction(s) "
            "(gtod_reduce / disable_lat?): latencies are NaN"
        )
    if cut:  # a copy stopped midway, a full disk, fio killed while writing
        warn(
            f"{source}: the file ends inside a fio JSON document (cut short): read the "
            f"{len(docs)} complete one(s) before it; the run's result is the last of them, "
            "which covers less than the run, and its rows are flagged 'interrupted'"
        )
    return Parsed(entries, blocks, signal is not None or cut)


def _rows(docs: list[Doc], source: str) -> tuple[list, list, list, int, int, list[str]]:
    """Entries and direction rows of the documents' runs (a status-interval series is one: its
    last document's rows, then its intervals'); failed jobs, unmeasured latency blocks, job
    entries, and warnings to give."""
    entries: list[tuple] = []
    blocks: list[tuple] = []
    failed: list[tuple[str, int]] = []
    notes: list[str] = []
    unmeasured = 0
    step0 = 0
    for run in runs(docs):
        first = len(entries), len(blocks)
        n, doc_failed, doc_unmeasured = _document_rows(
            docs[run.documents[-1]], source, step0, entries, blocks, notes
        )
        if run.counters is not None:  # a series
            _interval_rows(docs, run, step0, first, entries, blocks)
        failed.extend(doc_failed)
        unmeasured += doc_unmeasured
        step0 += n
    return entries, blocks, failed, unmeasured, step0, notes


def _interval_rows(
    docs: list[Doc],
    run: Run,
    step0: int,
    first: tuple[int, int],
    entries: list[tuple],
    blocks: list[tuple],
) -> None:
    """Add the interval rows of a status-interval series: for each job entry that has result
    rows, its figures in each interval, the difference of two consecutive documents
    (:func:`anfperf.ingest.fio_series.difference`). The series' first job entry is `step0`;
    its result's entries and direction rows are those from `first` (positions in `entries` and
    `blocks`) on, and give the intervals' host, job, configuration and error."""
    counters, times_ms = run.counters or [], run.times_ms or []  # (a series has both)
    result_of = {entries[at][_STEP] - step0: at for at in range(first[0], len(entries))}
    config = {(b[0], b[1]): (b[2], b[3]) for b in blocks[first[1] :]}  # bs_kib, rate_limit_iops
    # the run's clock: its first document came this long after the first I/O, then fio's
    t0_ms = max((c.runtime_ms for entry in counters[0] for c in entry.values()), default=0)
    for k, doc in enumerate(docs[i] for i in run.documents):
        timestamp = _timestamp(doc)
        time_s = (t0_ms + times_ms[k] - times_ms[0]) / MS_PER_S
        for e, now in enumerate(counters[k]):
            at = result_of.get(e)
            if at is None:  # no result rows (a job that failed, or did no I/O)
                continue
            before = counters[k - 1][e] if k else {}
            entry_at, first_block = len(entries), len(blocks)
            for key, now_counters in now.items():
                delta = difference(now_counters, before.get(key))
                if not delta.ran:
                    continue
                direction = _DIRECTION_OF[key]
                bs_kib, rate = config.get((at, direction), _NO_CONFIG)
                blocks.append((
                    entry_at, direction, bs_kib, rate, delta.runtime_ms / MS_PER_S, delta.iops,
                    delta.bw_mib_s, delta.lat_mean_ms, _NAN, _NAN, _NAN, *_NO_PERCENTILES, None,
                ))  # fmt: skip
            if len(blocks) > first_block:
                result = entries[at]
                warmup = k < run.resets.get(e, 0)  # before the ramp's end
                entries.append((*result[:_TIMESTAMP], timestamp, result[_ERROR], _NAN, _NAN,
                                *result[_VALUES], k + 1, time_s, False, warmup))  # fmt: skip


# --------------------------------------------------------------------------- finding the JSON


def _documents(data: bytes, source: str, typed: bool = True) -> tuple[list[Doc], list[str], bool]:
    """The fio JSON documents in `data`, the pieces of text outside them, and whether the file
    ends inside one more (cut short)."""
    docs, outside = _typed_documents(data) if typed else ([], [])
    if docs:
        return docs, outside, False
    docs, outside, cut = _json_documents(data, source)
    for doc in docs:  # only JSON decoding lets them in: the typed decoding refuses them
        _note_non_finite(doc, source)
    return [fio_doc.from_json(doc, source) for doc in docs], outside, cut


#: Fields named one by one in the note on numbers that are not finite; the rest are counted.
_NON_FINITE_NAMED = 5
#: The lists of job entries in a document (a field of theirs is named with its job).
_JOB_LISTS = ("jobs", "client_stats")


def _note_non_finite(doc: dict, source: str) -> None:
    """Numbers of `doc` that are not finite (``1e999`` overflows to inf; ``NaN``, ``Infinity``
    literals) made NaN, and named in a note: a figure that cannot be is missing, never an
    infinite rate in the frame, and never silently."""
    found: list[str] = []
    for key in _JOB_LISTS:
        for i, entry in enumerate(doc.get(key) or ()):
            if isinstance(entry, dict):
                name = entry.get("jobname")
                job = f" of job {name!r}" if isinstance(name, str) else ""
                found += [f"{field}{job} ({value})" for field, value in
                          _non_finite(entry, f"{key}[{i}]", [])]  # fmt: skip
    found += [f"{field} ({value})" for field, value in _non_finite(doc, "", [], skip=_JOB_LISTS)]
    if found:
        more = len(found) - _NON_FINITE_NAMED
        warn(
            f"{source}: not a finite number: {', '.join(found[:_NON_FINITE_NAMED])}"
            + (f" and {more} more" if more > 0 else "")
            + "; read as missing (NaN)"
        )


def _non_finite(
    node: object, path: str, found: list[tuple[str, float]], skip: tuple[str, ...] = ()
) -> list[tuple[str, float]]:
    """(JSON field, value) of every number in `node` that is not finite, each replaced by NaN
    (the top-level keys in `skip` are left out)."""
    if isinstance(node, dict):
        items: Iterable[tuple[object, object]] = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return found
    for key, value in items:
        if key in skip:
            continue
        field = f"{path}[{key}]" if isinstance(node, list) else f"{path}.{key}" if path else key
        if isinstance(value, float) and not math.isfinite(value):
            found.append((field, value))
            node[key] = _NAN  # type: ignore[index]
        elif isinstance(value, dict | list):
            _non_finite(value, field, found)
    return found


def _typed_documents(data: bytes) -> tuple[list[Doc], list[str]]:
    """Fast path: a file that is one fio document, maybe after text (fio's own messages, or
    ``--output-format=normal,json``), decoded straight into records. ([], []) otherwise."""
    start = 0
    if data[:1] != b"{" and data.lstrip()[:1] != b"{":
        if data[:3] == codecs.BOM_UTF8:  # for the generic path, which removes it
            return [], []
        match = _DOC_START_BYTES.search(data)
        if match is None:
            return [], []
        start = match.start()
    try:
        doc = fio_doc.decode(memoryview(data)[start:] if start else data)
    except fio_doc.DECODE_ERRORS:
        return _typed_series(data, start)
    if not start:
        return [doc], []
    if doc.jobs is None and doc.client_stats is None and doc.version is None:
        return [], []  # other JSON after text: the generic scan tells what it is
    return [doc], [data[:start].decode("utf-8", "replace"), ""]


def _typed_series(data: bytes, start: int) -> tuple[list[Doc], list[str]]:
    """Fast path of several fio documents one after the other (``--status-interval``): each
    decoded straight into records, split where fio closes its outer object (the one brace it
    writes at the start of a line). ([], []) for anything else, which the generic path reads."""
    docs: list[Doc] = []
    outside: list[str] = []
    view = memoryview(data)
    pos = 0
    while (match := _DOC_START_BYTES.search(data, start)) is not None:
        begin = match.start()
        end = data.find(_DOC_END, begin)
        if end < 0:
            return [], []  # cut short: the generic path tells so
        end += len(_DOC_END)
        try:
            doc = fio_doc.decode(view[begin:end])
        except fio_doc.DECODE_ERRORS:
            return [], []
        if doc.jobs is None and doc.client_stats is None:
            return [], []
        outside.append(data[pos:begin].decode("utf-8", "replace"))
        docs.append(doc)
        pos = start = end
    if len(docs) < 2:
        return [], []
    outside.append(data[pos:].decode("utf-8", "replace"))
    return docs, outside


def _json_documents(data: bytes, source: str) -> tuple[list[dict], list[str], bool]:
    """The fio JSON documents in `data` decoded as JSON, the text outside them, and whether a
    last document was cut short."""
    stripped = data.lstrip()
    if not stripped:
        raise ParseError(source, "empty file")
    first_error: BaseException | None = None
    if stripped[:1] == b"{":
        # A file that is just the JSON: orjson decodes UTF-8 JSON faster than json;
        # json takes what orjson refuses (UTF-16/32, NaN literals, integers beyond 64 bits).
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError:
            try:
                doc = json.loads(data)
            except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
                first_error = exc
                doc = None
        if isinstance(doc, dict):
            return [doc], [], False
    text = _decode(data)
    docs, outside, decode_error, other_json, cut = _scan(text)
    if docs:
        return docs, outside, cut
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


def _scan(text: str) -> tuple[list[dict], list[str], BaseException | None, bool, bool]:
    """Decode every JSON object starting at the beginning of a line; keep fio's. Also whether
    the text ends inside a fio document after them (cut short: its text is left out)."""
    decoder = json.JSONDecoder()
    docs: list[dict] = []
    outside: list[str] = []
    pos = 0
    error: BaseException | None = None
    other_json = False
    failed = 0
    cut_at = None  # where a document starts that the end of the text cut short
    for match in _DOC_START.finditer(text):
        start = match.start()
        if start < pos:
            continue
        try:
            obj, end = _raw_decode(decoder, text, start)
        except (ValueError, RecursionError) as exc:
            error = error or exc
            if cut_at is None and _at_the_end(exc, text):
                cut_at = start
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
        cut_at = None
    if not docs and text.lstrip().startswith("{"):
        # not fio's: decode it once to say whether it is other JSON or broken JSON
        try:
            obj, _ = decoder.raw_decode(text, len(text) - len(text.lstrip()))
            other_json = isinstance(obj, dict)
        except (ValueError, RecursionError) as exc:
            error = error or exc
    cut = bool(docs) and cut_at is not None
    outside.append(text[pos:cut_at] if cut else text[pos:])
    return docs, outside, error, other_json, cut


def _at_the_end(exc: BaseException, text: str) -> bool:
    """Whether a JSON decoding error is the text's end coming inside the value (cut short)."""
    return isinstance(exc, json.JSONDecodeError) and not text[exc.pos :].strip()


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


def _warn_outsidetext(outside: list[str], source: str) -> None:
    lines = [
        line for chunk in outside if chunk for line in _lines(chunk) if line and not line.isspace()
    ]
    if lines:
        log.debug("%s: text outside the fio JSON: %r", source, lines)
        warn(
            f"{source}: skipped {len(lines)} line(s) of text outside the fio JSON, "
            f"first: {lines[0].strip()[:120]!r}"
        )


def _lines(chunk: str) -> list[str]:
    # fio's progress line rewrites itself with carriage returns.
    return chunk.replace("\r", "\n").split("\n")


def _errortext(outside: list[str]) -> str:
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


class _Document(NamedTuple):
    """What the rows of one document's job entries share."""

    tool_version: str | None
    timestamp: int | None  # ns since 1970
    global_options: object  # "global options" (a list per client in fio >= 3.40 client mode)
    global_key: object  # their options_key
    jobs: list[Entry]  # the 'jobs' entries, then the 'client_stats' ones
    n_jobs: int  # how many are 'jobs' entries (the rest are client/server entries)
    keys: list[tuple[str, str, str, str]]  # each entry's clone key
    clones: dict[tuple, int]  # entries per clone key
    hosts: dict[tuple[str, str], str] | None  # client mode: host name per (hostname, port)


def _document(doc: Doc) -> _Document:
    """The values a document's entries share."""
    version = doc.version
    global_options = doc.options
    global_key = options_key(global_options)
    if isinstance(global_key, bytes) and global_key[:1] == b"[":
        global_options = json_value(global_key)  # fio >= 3.40 client mode: one per client
    jobs, clients = doc.jobs or [], doc.client_stats
    if clients:
        jobs = jobs + clients
    keys = [_clone_key(entry) for entry in jobs]
    clones: dict[tuple, int] = {}  # (a Counter costs more than all else here)
    for key in keys:
        clones[key] = clones.get(key, 0) + 1
    return _Document(
        text(version) if isinstance(version, str) else None, _timestamp(doc), global_options,
        global_key, jobs, len(jobs) - len(clients or ()), keys, clones,
        _client_hosts(clients) if clients else None,
    )  # fmt: skip


def _document_rows(
    doc: Doc,
    source: str,
    step0: int,
    entries: list[tuple],
    blocks: list[tuple],
    notes: list[str],
) -> tuple[int, list, int]:
    """Add the rows of one document to `entries` and `blocks` (and warnings to `notes`); the
    number of job entries, the failed jobs and the latency blocks fio did not measure."""
    d = _document(doc)
    failed, unmeasured, per_host, all_clients = _job_rows(d, source, step0, entries, blocks, notes)
    for i, entry in all_clients:
        unmeasured += _all_clients_rows(d, step0 + i, entry, per_host, entries, blocks)
    return len(d.jobs), failed, unmeasured


def _job_rows(
    d: _Document,
    source: str,
    step0: int,
    entries: list[tuple],
    blocks: list[tuple],
    notes: list[str],
) -> tuple[list[tuple[str, int]], int, list[tuple[dict, str, list[tuple]]], list[tuple]]:
    """Add the rows of the document's job entries but "All clients"; the failed jobs, the
    latency blocks fio did not measure, in client mode each host's (configuration, job name,
    direction rows): what "All clients" is made of, and the "All clients" entries (position,
    entry)."""
    failed: list[tuple[str, int]] = []
    per_host: list[tuple[dict, str, list[tuple]]] = []
    all_clients: list[tuple[int, Entry]] = []
    unmeasured = 0
    tool_version, timestamp, global_options, global_key, jobs, n_jobs, keys, clones, hosts = d
    for i, entry in enumerate(jobs):
        key = keys[i]
        name = key[0]
        if i >= n_jobs and name == ALL_CLIENTS:
            all_clients.append((i, entry))
            continue
        config = entry_config(entry, global_options, global_key, clones[key])
        error = entry.error
        if type(error) is not int or (error and not -INT64_MAX <= error <= INT64_MAX):
            error = whole_number(error) or 0
        first = len(blocks)  # its direction rows go after this
        unmeasured += _direction_blocks(entry, config, len(entries), blocks)
        if error:
            if len(blocks) == first:
                failed.append((name, error))
                continue
            notes.append(
                f"{source}: fio job {name!r} reported error {error}{_strerror(error)}; "
                "its results are kept with error set"
            )
        if len(blocks) > first:
            host = (
                hosts.get(key[2:], "localhost")
                if i >= n_jobs
                else host_label(key[2] or "localhost")
            )
            entries.append((tool_version, host, name, step0 + i, timestamp, error,
                            entry.usr_cpu, entry.sys_cpu, *config["values"], *_RESULT))  # fmt: skip
        if hosts is not None:
            per_host.append((config, name, blocks[first:]))
    return failed, unmeasured, per_host, all_clients


def _all_clients_rows(
    d: _Document,
    step: int,
    entry: Entry,
    per_host: list[tuple[dict, str, list[tuple]]],
    entries: list[tuple],
    blocks: list[tuple],
) -> int:
    """Add the rows of an "All clients" entry: the job name its hosts share, their common
    configuration, and percentiles from their merged histograms where fio gave none; the
    latency blocks fio did not measure."""
    names = {name for _, name, host_blocks in per_host if host_blocks}
    name = names.pop() if len(names) == 1 else ALL_CLIENTS
    config = common_config([config for config, _, _ in per_host])
    first = len(blocks)
    unmeasured = _direction_blocks(entry, config, len(entries), blocks)
    if len(blocks) > first:
        host_blocks = [b for _, _, bs in per_host for b in bs]
        blocks[first:] = _fill_all_clients_bins(blocks[first:], host_blocks)
        error = whole_number(entry.error) or 0
        entries.append((d.tool_version, AGGREGATE_HOST, name, step, d.timestamp, error,
                        entry.usr_cpu, entry.sys_cpu, *config["values"], *_RESULT))  # fmt: skip
    return unmeasured


def _direction_blocks(entry: Entry, config: dict, at: int, blocks: list[tuple]) -> int:
    """Add the direction rows of an entry (at position `at`) to `blocks`; how many fio did not
    time."""
    unmeasured = 0
    bs_kib, rate_iops = config["bs_kib"], config["rate_iops"]
    for block, direction in (
        (entry.read, "read"),
        (entry.write, "write"),
        (entry.trim, "trim"),
        (entry.mixed, "total"),  # unified_rw_reporting: every direction together
    ):
        if block is None or not (
            block.total_ios > 0 or block.io_bytes > 0 or block.io_kbytes > 0  # did I/O
        ):
            continue
        bw_bytes = block.bw_bytes
        latency, measured = _latency(block)
        unmeasured += not measured
        blocks.append((
            at, direction, bs_kib.get(direction, _NAN), rate_iops.get(direction, _NAN),
            block.runtime / MS_PER_S, block.iops,
            bw_bytes / BYTES_PER_MIB if bw_bytes == bw_bytes else block.bw / KIB_PER_MIB,
            *latency,
        ))  # fmt: skip
    return unmeasured


# --------------------------------------------------------------------------- latency


def _latency(block: Block) -> tuple[tuple, bool]:
    """Latency values of a direction block (mean, min, max, stddev [ms], the percentiles [ms],
    the histogram); and whether fio measured the latency."""
    lat = block.lat_ns
    if lat is not UNSET or block.clat_ns is not UNSET:
        clat, slat = block.clat_ns, block.slat_ns
        per_ms, ns_per_unit = NS_PER_MS, 1
    else:
        lat, clat, slat = block.lat, block.clat, block.slat
        per_ms, ns_per_unit = US_PER_MS, 1000
    # (run for every direction of thousands of files: each test made once, None for no block)
    lat = lat if type(lat) is Latency else None
    clat = clat if type(clat) is Latency else None

    measured = True
    lat_measured = lat is not None and _measured(lat)
    if lat_measured:
        # Divide (not multiply by 1e-6): 101888 ns is then exactly the float nearest 0.101888.
        moments = (lat.mean / per_ms, lat.min / per_ms, lat.max / per_ms, lat.stddev / per_ms)
    else:
        # disable_lat: the total latency is the submission plus the completion latency.
        clat_mean = clat.mean if clat is not None and _measured(clat) else _NAN
        slat = slat if type(slat) is Latency else None
        slat_mean = slat.mean if slat is not None and _measured(slat) else 0.0
        moments = ((clat_mean + slat_mean) / per_ms, _NAN, _NAN, _NAN)
        measured = clat_mean == clat_mean

    # Percentiles and histogram of the total latency when fio computed them, else of clat.
    if lat is not None and (lat.percentile is not UNSET or lat.bins is not UNSET):
        src, src_measured = lat, lat_measured
    else:
        src, src_measured = clat, clat is not None and _measured(clat)
    if not src_measured:
        return (*moments, *_NO_PERCENTILES, None), measured
    bins = src.bins
    if type(bins) is not Raw or ns_per_unit != 1:  # (fio 3.x's stay JSON text: see fio_table)
        bins = None if bins is UNSET else histogram(bins, ns_per_unit)
    pct = src.percentile
    if type(pct) is Percentiles:  # (one tuple made: this runs for every row of every file)
        p50 = pct.p50
        if p50 != p50 and pct.none_read():  # keys in another spelling: the JSON itself tells
            raise _OtherSpelling
        return (*moments, p50 / per_ms, pct.p90 / per_ms, pct.p95 / per_ms, pct.p99 / per_ms,
                pct.p999 / per_ms, bins), measured  # fmt: skip
    if isinstance(pct, dict) and pct:
        percentiles = tuple(value / per_ms for value in _percentiles(pct))
    else:
        percentiles = _NO_PERCENTILES
    return (*moments, *percentiles, bins), measured


_NO_PERCENTILES = (_NAN,) * len(PERCENTILE_KEYS)
#: fio's direction blocks -> the rows' direction.
_DIRECTION_OF = {"read": "read", "write": "write", "trim": "trim", "mixed": "total"}
#: bs_kib and rate_limit_iops of a direction the result has no row of.
_NO_CONFIG = (_NAN, _NAN)


def _measured(block: Latency) -> bool:
    """Whether fio timed the I/O of a latency block (it writes zeros and N=0 when it did not)."""
    n = block.N
    if n is not UNSET and not (0 < n <= INT64_MAX if type(n) is int else num(n) > 0):
        return False
    # All zeros (without N in fio < 3.5): no timing, or a broken clock; never a real 0 latency.
    return block.mean > 0 or block.max > 0


def _percentiles(pct: dict) -> tuple[float, ...]:
    """fio's percentiles of :data:`PERCENTILE_KEYS`, in order (NaN where missing)."""
    out = [num(pct.get(key, _NAN)) for key in PERCENTILE_KEYS.values()]
    if all(v != v for v in out):
        # Keys not in fio's usual '%f' spelling: match them by value.
        by_value = {}
        for key, value in pct.items():
            p = num(key)
            if p == p:
                by_value[round(p, 6)] = value
        out = [num(by_value.get(round(_PERCENTILE_VALUES[key], 6), _NAN))
               for key in PERCENTILE_KEYS.values()]  # fmt: skip
    return tuple(out)


def _fill_all_clients_bins(all_blocks: list[tuple], host_blocks: list[tuple]) -> list[tuple]:
    """Percentiles of "All clients" from its hosts' merged histograms when fio gave none."""
    out = []
    for block in all_blocks:
        if block[BLOCK_BINS] is not None or not all(v != v for v in block[_PERCENTILES]):
            out.append(block)
            continue
        hists = [_histogram(b[BLOCK_BINS]) for b in host_blocks if b[1] == block[1]]
        if not hists or any(h is None for h in hists):
            out.append(block)
            continue
        merged = merge_bins(hists)
        values = percentiles_from_bins(
            merged, [_PERCENTILE_VALUES[k] for k in PERCENTILE_KEYS.values()]
        )
        out.append((*block[: _PERCENTILES.start], *map(float, values), merged))
    return out


def _histogram(bins: object) -> dict | None:
    """A histogram as arrays, whether still JSON text or not."""
    return histogram(bins, 1) if type(bins) is Raw else bins  # type: ignore[return-value]


# --------------------------------------------------------------------------- configuration


# --------------------------------------------------------------------------- hosts and values


def _clone_key(entry: Entry) -> tuple[str, str, str, str]:
    name, group, hostname, port = entry.jobname, entry.groupid, entry.hostname, entry.port
    if hostname is None and port is None and type(group) is int and type(name) is str:
        # a 'jobs' entry as fio writes it: what text() gives, without its four calls
        return (name if name.isascii() else text(name), str(group), "", "")
    return (text(name), text(group), text(hostname), text(port))


def _client_hosts(clients: list[Entry]) -> dict[tuple[str, str], str]:
    """Host name of each client (hostname, port): 'hostname:port' where ports tell them apart."""
    ports: dict[str, set[str]] = {}
    for entry in clients:
        if text(entry.jobname) != ALL_CLIENTS:
            hostname, port = host_key(entry.hostname, entry.port)
            ports.setdefault(hostname, set()).add(port)
    names = {}
    for hostname, seen in ports.items():
        for port in seen:
            name = host_label(hostname or "localhost")  # a server named 'all' is not "All clients"
            names[(hostname, port)] = f"{name}:{port}" if len(seen) > 1 and port else name
    return names


def _timestamp(doc: Doc) -> int | None:
    """The document's time [ns since 1970, UTC], to the microsecond as a datetime holds it."""
    ms = doc.timestamp_ms
    if type(ms) is int and _TS_MS_WHOLE[0] < ms < _TS_MS_WHOLE[1]:
        # what the rounding below gives for fio's whole milliseconds until 2038 (where a
        # float's error stays under half a microsecond)
        return ms * 1_000_000
    seconds = num(ms) / MS_PER_S
    if not _TS_RANGE[0] < seconds < _TS_RANGE[1]:
        seconds = num(doc.timestamp)
    if not _TS_RANGE[0] < seconds < _TS_RANGE[1]:
        return None
    # datetime.fromtimestamp's rounding (CPython _PyTime_DoubleToDenominator): whole seconds,
    # and the fraction to the microsecond, half to even; without making a datetime per file
    fraction, whole = math.modf(seconds)
    return (int(whole) * 1_000_000 + round(fraction * 1e6)) * 1000
