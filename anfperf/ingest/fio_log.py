"""Read fio's per-job time-series logs: latency, bandwidth, IOPS and histogram logs.

fio writes these when a job sets ``write_lat_log``, ``write_bw_log``, ``write_iops_log`` or
``write_hist_log`` (with ``log_hist_msec``). They are a *time series*, not a result summary, so
:func:`read_fio_log` returns its own frame (:data:`LOG_COLUMNS`, :data:`HIST_COLUMNS`) rather than
the tidy result frame of :mod:`anfperf.schema`; units are in the column names all the same.

Value logs (fio HOWTO, "Log File Formats"; ``iolog.c:flush_samples``) are comma+space separated
integers without a header, one line per I/O or, with ``log_avg_msec``, one line per window and
data direction::

    time [ms], value, [value_max,] ddir, bs [B], [offset [B],] [prio,] [issue_time [ns]]

* fio <= 3.17: ``time, value, ddir, bs`` and ``offset`` with ``log_offset=1``.
* fio >= 3.18 always appends the command priority: 1 if the I/O ran in the real-time priority
  class else 0, or with ``log_prio=1`` (fio >= 3.28) the whole ioprio as hex ``0x4004``
  (class << 13 | level).
* fio >= 3.37 ``log_window_value=both`` writes the window's mean and max; fio >= 3.38
  ``log_issue_time=1`` appends the issue time since the job started.
* Windowed lines (``log_avg_msec``) write 0 for bs, offset and issue time: "not known", so these
  are NaN / <NA> here, never 0.

The layout is told from the number of fields (:data:`VALUE_LAYOUTS`); where two layouts have as
many fields, from the values: a data direction is 0..2 and a priority bit is 0 or 1. The one case
this cannot tell is an IOPS or bandwidth log written with ``log_window_value=both`` whose values
never exceed 2.

Latency values are nanoseconds since fio 3.0 (microseconds in fio 2.x): nothing in the file says
which, so the unit is an argument, ``unit='ns'`` by default. Bandwidth is KiB/s.

Histogram logs (``iolog.c:flush_hist_samples``) hold ``time [ms], ddir, bs [B]`` and the counts of
fio's completion-latency histogram *since the previous line of the same direction*, in
``FIO_IO_U_PLAT_GROUP_NR * 64`` bins, ``2**log_hist_coarseness`` bins added into one. fio >= 3.0
has 29 groups (1856 bins, ns), fio 2.x 19 groups (1216 bins, us): the bin count tells the unit and
the coarseness. Percentiles follow fio's own rule (``stat.c:calc_clat_percentiles``): the first
bin whose cumulative count reaches p % of the samples, valued at the bin's midpoint
(``stat.c:plat_idx_to_val``): exact below 128 ns, else within half a bin, 1/128 of the value.

File names tell the kind (``NAME_clat.N.log``: ``lat``, ``clat``, ``slat``, ``bw``, ``iops``,
``clat_hist``), the job index N (absent with ``per_job_logs=0``) and, in client/server mode where
fio appends the server's host name (``NAME_bw.1.log.HOST``, ``client.c``), the host.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import PurePath
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from anfperf.errors import ParseError, warn
from anfperf.ingest._source import GZIP_MAGIC, PathOrBuffer, read_bytes, source_name
from anfperf.ingest.fio_bins import PLAT_VAL, plat_idx_to_val
from anfperf.ingest.registry import Format
from anfperf.units import BYTES_PER_KIB, KIB_PER_MIB, MS_PER_S, NS_PER_MS, US_PER_MS
from anfperf.userfiles import open_regular

logger = logging.getLogger(__name__)

LogKind = Literal["lat", "clat", "slat", "bw", "iops", "clat_hist"]

#: Log kinds and the column their value goes to (None: histogram log, see HIST_COLUMNS).
LOG_KINDS: dict[str, str | None] = {
    "lat": "lat_ms",
    "clat": "clat_ms",
    "slat": "slat_ms",
    "bw": "bw_mib_s",
    "iops": "iops",
    "clat_hist": None,
}
_KIND_ALIASES = {"hist": "clat_hist"}
_LATENCY_KINDS = ("lat", "clat", "slat")
_DIVISORS = {"bw": KIB_PER_MIB, "iops": 1.0}  # log value / divisor = column value

#: Latency units of value logs: unit -> divisor to milliseconds.
LATENCY_UNITS: dict[str, float] = {"ns": NS_PER_MS, "us": US_PER_MS}

DIRECTIONS = ("read", "write", "trim")  # fio ddir 0, 1, 2

# fmt: off
#: Columns of a value log frame: (column, dtype, unit, meaning). The value column depends on the
#: kind of log; columns marked "if logged" are present only when the file has that field.
LOG_COLUMNS: list[tuple[str, str, str, str]] = [
    ("source_file", "category", "", "file the row came from"),
    ("host", "category", "", "fio server host from a NAME_x.N.log.HOST name; <NA> otherwise"),
    ("job_index", "Int64", "", "N of NAME_x.N.log (fio's 1-based job number); <NA> without it"),
    ("time_s", "float64", "s", "time since the job started: I/O completion, or window end"),
    ("direction", "category", "", "'read', 'write' or 'trim'"),
    ("lat_ms", "float64", "ms", "total latency (lat log); window mean with log_avg_msec"),
    ("clat_ms", "float64", "ms", "completion latency (clat log)"),
    ("slat_ms", "float64", "ms", "submission latency (slat log)"),
    ("bw_mib_s", "float64", "MiB/s", "throughput (bw log; fio writes KiB/s)"),
    ("iops", "float64", "1/s", "I/O rate (iops log; 1 per line without log_avg_msec)"),
    ("lat_max_ms", "float64", "ms", "window maximum (clat_max_ms, slat_max_ms, bw_max_mib_s, "
                                    "iops_max alike), if logged: log_window_value=both"),
    ("bs_kib", "float64", "KiB", "block size of the I/O; NaN on windowed lines"),
    ("offset_bytes", "Int64", "B", "offset of the I/O, if logged (log_offset=1); <NA> on "
                                   "windowed lines"),
    ("prio_rt", "boolean", "", "I/O ran in the real-time priority class, if logged (fio >= 3.18)"),
    ("prio_class", "Int64", "", "I/O priority class, if logged (log_prio=1)"),
    ("prio_level", "Int64", "", "I/O priority level within its class, if logged (log_prio=1)"),
    ("issue_time_s", "float64", "s", "issue time since the job started, if logged "
                                     "(log_issue_time=1); NaN on windowed lines"),
]

#: Percentile columns of a histogram log frame: column -> percentile [%].
HIST_PERCENTILES: dict[str, float] = {
    "clat_p50_ms": 50.0,
    "clat_p90_ms": 90.0,
    "clat_p95_ms": 95.0,
    "clat_p99_ms": 99.0,
    "clat_p999_ms": 99.9,
}

#: Columns of a histogram log frame: (column, dtype, unit, meaning).
HIST_COLUMNS: list[tuple[str, str, str, str]] = [
    ("source_file", "category", "", "file the row came from"),
    ("host", "category", "", "fio server host from a NAME_clat_hist.N.log.HOST name"),
    ("job_index", "Int64", "", "N of NAME_clat_hist.N.log; <NA> without it"),
    ("time_s", "float64", "s", "end of the histogram interval since the job started"),
    ("direction", "category", "", "'read', 'write' or 'trim'"),
    ("bs_kib", "float64", "KiB", "block size of the I/O that closed the interval"),
    ("samples", "Int64", "", "I/Os completed in the interval"),
    ("clat_mean_ms", "float64", "ms", "mean completion latency, from bin midpoints"),
    *[(name, "float64", "ms", f"{pct:g}th percentile of the completion latency")
      for name, pct in HIST_PERCENTILES.items()],
    ("clat_bins", "object", "ns", "the interval's histogram {'ns': [...], 'count': [...]} "
                                  "(non-empty bins), mergeable with combine.merge_bins"),
]
# fmt: on

#: Value-log layouts by field count. Where two layouts have as many fields, the first is taken
#: unless the data rule out its reading (see _pick_layout).
VALUE_LAYOUTS: dict[int, list[tuple[str, ...]]] = {
    4: [("time", "value", "ddir", "bs")],
    5: [("time", "value", "ddir", "bs", "prio"), ("time", "value", "ddir", "bs", "offset")],
    6: [
        ("time", "value", "ddir", "bs", "offset", "prio"),
        ("time", "value", "value_max", "ddir", "bs", "prio"),
    ],
    7: [
        ("time", "value", "ddir", "bs", "offset", "prio", "issue_time"),
        ("time", "value", "value_max", "ddir", "bs", "offset", "prio"),
    ],
    8: [("time", "value", "value_max", "ddir", "bs", "offset", "prio", "issue_time")],
}

#: Histogram group counts by fio era: number of groups -> latency unit of the bins.
HIST_GROUPS: dict[int, str] = {29: "ns", 19: "us"}  # fio >= 3.0 (2.99), fio 2.x
MAX_COARSENESS = 6  # log_hist_coarseness range 0..6
_HIST_FIXED = 3  # time, ddir, bs before the bins
#: Histogram lines counting more I/Os per second than this are damaged: no single fio job comes
#: near (the fastest reach about 10**7 IOPS per job).
MAX_PLAUSIBLE_IOPS = 1e8

# name_kind[.N].log[.host] (init.c:gen_log_name, client.c:fio_client_handle_iolog)
_NAME_RE = re.compile(
    r"^(?P<prefix>.*?)(?:^|_)(?P<kind>clat_hist|hist|clat|slat|lat|bw|iops)"
    r"(?:\.(?P<job>\d+))?\.log(?:\.(?P<host>.+))?$"
)
_HEAD_BYTES = 1 << 17  # enough for the longest histogram line (1856 bins x 20 digits)
_TAIL_BYTES = 1 << 17
_PARALLEL_ROWS = 1 << 20  # below this, threads cost more than they save
_HEX_PRIO = re.compile(r"0[xX][0-9a-fA-F]{1,4}")
_NUMERIC_LINE = re.compile(rb"^\s*\d+(?:\s*,\s*(?:-?\d+|0x[0-9a-fA-F]+))+\s*$")


def read_fio_log(
    path_or_buffer: PathOrBuffer,
    *,
    kind: LogKind | Literal["hist"] | None = None,
    unit: Literal["ns", "us"] | None = None,
) -> pd.DataFrame:
    """Read one fio latency, bandwidth, IOPS or histogram log into a time-series frame.

    Parameters
    ----------
    path_or_buffer : str, os.PathLike or file-like
        The log file, or an open binary or text buffer; gzip is un-packed by content.
    kind : {'lat', 'clat', 'slat', 'bw', 'iops', 'clat_hist'}, optional
        What the log holds. By default taken from the file name (``NAME_clat.1.log``); a
        histogram log is also recognised by its bins. ``'hist'`` is an alias of ``'clat_hist'``.
    unit : {'ns', 'us'}, optional
        Unit of the values of a latency log (lat, clat, slat): nanoseconds (fio >= 3.0, the
        default) or microseconds (fio 2.x). Not used for bw, iops and histogram logs (the bin
        count of a histogram log tells its unit).

    Returns
    -------
    pandas.DataFrame
        Value logs: one row per line of the file, in file order, with the columns of
        :data:`LOG_COLUMNS` that apply:

        ==============  ========  =====  ===========================================
        column          dtype     unit   meaning
        ==============  ========  =====  ===========================================
        source_file     category         file the row came from
        host            category         fio server host (``.log.HOST`` names) or NA
        job_index       Int64            N of ``NAME_kind.N.log``
        time_s          float64   s      completion time, or end of the window
        direction       category         'read', 'write', 'trim'
        lat_ms ...      float64   ms     the value: lat_ms, clat_ms, slat_ms,
                                         bw_mib_s [MiB/s] or iops [1/s]
        <value>_max     float64          window maximum (log_window_value=both)
        bs_kib          float64   KiB    block size; NaN on windowed lines
        offset_bytes    Int64     B      if logged (log_offset=1)
        prio_rt         boolean          real-time priority class (fio >= 3.18)
        prio_class      Int64            if logged (log_prio=1)
        prio_level      Int64            if logged (log_prio=1)
        issue_time_s    float64   s      if logged (log_issue_time=1)
        ==============  ========  =====  ===========================================

        Histogram logs: one row per line with I/O, in file order (:data:`HIST_COLUMNS`):
        source_file, host, job_index, time_s, direction, bs_kib, samples, clat_mean_ms,
        clat_p50_ms, clat_p90_ms, clat_p95_ms, clat_p99_ms, clat_p999_ms [ms] and clat_bins.

        ``frame.attrs`` holds ``kind`` and, for latency, the ``unit`` of the file.

    Raises
    ------
    anfperf.errors.ParseError
        The input is empty, not a fio log (JSON, HTML, text, binary), damaged, or its kind
        cannot be told from its name. A last line cut short (no newline, fewer fields than the
        others) is dropped with a warning when at least one whole line precedes it.

    Examples
    --------
    >>> df = read_fio_log("randread_clat.1.log")  # doctest: +SKIP
    >>> df.groupby("direction", observed=True)["clat_ms"].quantile(0.99)  # doctest: +SKIP
    """
    if kind is not None:
        kind = _KIND_ALIASES.get(kind, kind)
        if kind not in LOG_KINDS:
            raise ValueError(f"kind must be one of {sorted(LOG_KINDS)}, not {kind!r}")
    if unit is not None and unit not in LATENCY_UNITS:
        raise ValueError(f"unit must be one of {sorted(LATENCY_UNITS)}, not {unit!r}")

    raw = _Input(path_or_buffer)
    source = raw.source
    name_kind, job_index, host = parse_log_name(source)
    first = _first_line(raw)
    n_fields = first.count(b",") + 1
    looks_hist = n_fields > max(VALUE_LAYOUTS)

    kind = kind or name_kind
    if kind is None:
        if not looks_hist:
            raise ParseError(
                source,
                "cannot tell the kind of fio log from the file name (fio names them "
                "NAME_lat.N.log, _clat, _slat, _bw, _iops, _clat_hist): pass kind=",
            )
        kind = "clat_hist"
    if kind == "clat_hist" and not looks_hist:
        raise ParseError(
            source, f"{n_fields} fields per line: not a histogram log (a value log? pass kind=)", 1
        )
    if kind != "clat_hist" and looks_hist:
        raise ParseError(
            source, f"{n_fields} fields per line: a histogram log, not a {kind} log", 1
        )

    _drop_partial_last_line(raw, n_fields)
    if kind == "clat_hist":
        columns = _parse_hist(raw, n_fields)
    else:
        columns = _parse_values(raw, n_fields, first, kind, unit or "ns")
    n = len(columns["time_s"])
    # One constructor call, no insert(): pandas would copy every inserted extension array.
    frame = pd.DataFrame(
        {
            "source_file": _constant_category(source, n),
            "host": _constant_category(host, n),
            "job_index": _constant_int(job_index, n),
            **columns,
        },
        copy=False,
    )
    frame.attrs["kind"] = kind
    if kind in _LATENCY_KINDS:
        frame.attrs["unit"] = unit or "ns"
    logger.debug("%s: %d rows of a fio %s log", source, len(frame), kind)
    return frame


def parse_log_name(source: str) -> tuple[str | None, int | None, str | None]:
    """Kind, job index and host from a fio log file name.

    ``fio_clat.2.log`` -> ``('clat', 2, None)``; ``x_bw.1.log.perf36`` -> ``('bw', 1,
    'perf36')``; ``x_iops.log`` -> ``('iops', None, None)``; ``.gz`` is ignored. Anything else
    gives ``(None, None, None)``.
    """
    name = PurePath(source).name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    match = _NAME_RE.match(name)
    if match is None:
        return None, None, None
    kind = _KIND_ALIASES.get(match["kind"], match["kind"])
    job = int(match["job"]) if match["job"] is not None else None
    return kind, job, match["host"] or None


# --- input ------------------------------------------------------------------------------------


class _Input:
    """The bytes of a log: a plain file on disk is left to Arrow to read, like
    ``pyarrow.csv.read_csv(path)``; gzip and buffers are read into memory first."""

    def __init__(self, path_or_buffer: PathOrBuffer):
        self.path: str | None = None
        self.data: pa.Buffer | None = None
        if isinstance(path_or_buffer, str | os.PathLike):
            self.source = os.fspath(path_or_buffer)
            try:  # a regular file only: a named pipe would block open() for ever
                with open(open_regular(self.source, source_name(self.source)), "rb") as fh:
                    magic = fh.read(2)
                    size = os.fstat(fh.fileno()).st_size
                if magic and magic != GZIP_MAGIC:
                    self.path, self.size = self.source, size
                    return
            except OSError:
                pass  # read_bytes reads it again and names the problem
        data, self.source = read_bytes(path_or_buffer)
        self.data, self.size = pa.py_buffer(data), len(data)

    def read(self, offset: int, n: int) -> bytes:
        if self.data is not None:
            return self.data[offset : offset + n].to_pybytes()
        try:
            with open(open_regular(self.source, source_name(self.source)), "rb") as fh:
                fh.seek(offset)
                return fh.read(n)
        except OSError as exc:
            raise ParseError(self.source, f"cannot be read: {exc.strerror or exc}") from None

    def truncate(self, end: int) -> None:
        """Read only the first `end` bytes from now on (a damaged end was found)."""
        if end < self.size:
            if self.data is None:
                self.data = pa.py_buffer(self.read(0, end))
            self.data, self.size = self.data[:end], end

    def csv_source(self) -> str | pa.BufferReader:
        return self.path if self.data is None else pa.BufferReader(self.data)


def _first_line(raw: _Input) -> bytes:
    """The first non-blank line, checked to be a line of integers as fio writes them."""
    source = raw.source
    head = raw.read(0, _HEAD_BYTES).lstrip()
    if not head:
        raise ParseError(
            source,
            "empty file: no log lines (fio leaves the slat log of a synchronous ioengine and a "
            "histogram log without log_hist_msec empty)",
        )
    line = head.split(b"\n", 1)[0].rstrip(b"\r")
    if not _NUMERIC_LINE.match(line):
        raise ParseError(source, f"not a fio log: {_describe(head)}", 1)
    return line.strip()


def _describe(head: bytes) -> str:
    """What a non-log input looks like, for the error message."""
    start = head[:200].lstrip().lower()
    if re.match(rb"\[[^\]\n]+\]\s*\n", start):
        return "it looks like a fio job file ('[section]' lines), not a log"
    if start[:1] in (b"{", b"["):
        return "it looks like JSON (fio --output-format=json? use the fio JSON reader)"
    if start.startswith((b"<!doctype", b"<html", b"<?xml", b"<")):
        return "it looks like HTML or XML, e.g. an error page saved instead of the log"
    if b"\x00" in head[:4096]:
        return "binary data"
    try:
        text = head[:80].decode("utf-8")
    except UnicodeDecodeError:
        return "binary or non-UTF-8 data"
    first = text.splitlines()[0] if text.splitlines() else text
    return f"the first line {first!r} is not 'time, value, ddir, bs, ...' integers"


def _drop_partial_last_line(raw: _Input, n_fields: int) -> None:
    """Cut a last line that a crash or a copy cut short, with a warning.

    A last line without newline is kept when it has all its fields; a shorter one is dropped.
    NUL bytes at the end (left in a file by a crash) are dropped too. A file whose only line is
    cut short fails later, on its field count.
    """
    source = raw.source
    start = max(0, raw.size - _TAIL_BYTES)
    tail = raw.read(start, _TAIL_BYTES)
    body = tail.rstrip(b"\x00")
    if len(body) < len(tail):
        warn(f"{source}: dropped {len(tail) - len(body)} NUL bytes at the end (crashed writer?)")
    content = body.rstrip()
    if not content or b"\n" in body[len(content) :]:
        raw.truncate(start + len(body))  # ends with a whole line
        return
    cut = content.rfind(b"\n") + 1
    if cut == 0 and start > 0:
        raise ParseError(source, f"a line longer than {_TAIL_BYTES} bytes: not a fio log")
    last = content[cut:].strip()
    if last.count(b",") + 1 == n_fields and _NUMERIC_LINE.match(last):
        raw.truncate(start + len(body))  # a whole line, only the newline is missing
        return
    # A cut line is never the first one: that was read whole (it set n_fields and was checked).
    warn(f"{source}: dropped the last line, cut short ({last[:40]!r}): truncated file")
    raw.truncate(start + cut)


def _read_csv(raw: _Input, names: list[str], types: dict) -> pa.Table:
    source = raw.source
    try:
        return pacsv.read_csv(
            raw.csv_source(),
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(delimiter=",", quote_char=False),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[]),
        )
    except (pa.ArrowException, ValueError, OverflowError) as exc:
        # Arrow names the bad value or line ("Expected 5 columns, got 4: ...").
        raise ParseError(source, f"damaged fio log: {exc}") from None


# --- value logs -------------------------------------------------------------------------------


def _parse_values(
    raw: _Input, n_fields: int, first: bytes, kind: str, unit: str
) -> dict[str, object]:
    source = raw.source
    fields = [f.strip() for f in first.split(b",")]
    hex_at = {i for i, f in enumerate(fields) if f.lower().startswith(b"0x")}
    names = [f"f{i}" for i in range(n_fields)]
    # Priorities written as hex (log_prio=1) are read as dictionary strings: few distinct values.
    types = {n: (pa.dictionary(pa.int32(), pa.string()) if i in hex_at else pa.int64())
             for i, n in enumerate(names)}  # fmt: skip
    table = _read_csv(raw, names, types)
    layout = _pick_layout(table, source, n_fields, hex_at)
    col = dict(zip(layout, table.columns, strict=True))
    del table  # each column is freed once converted: peak memory stays near one table

    ddir = col.pop("ddir")
    low, high = _min_max(ddir)
    if low < 0 or high > len(DIRECTIONS) - 1:
        values = _int_column(ddir)
        bad = int(np.flatnonzero((values < 0) | (values > 2))[0])
        raise ParseError(source, f"data direction {values[bad]} is not 0, 1 or 2", bad + 1)
    value_name = LOG_KINDS[kind]
    divisor = _DIVISORS.get(kind) or LATENCY_UNITS[unit]
    out: dict[str, object] = {
        "time_s": _scaled(col.pop("time"), MS_PER_S),
        "direction": pd.Categorical.from_codes(_codes(ddir), categories=DIRECTIONS),
        value_name: _scaled(col.pop("value"), divisor),
    }
    del ddir
    if "value_max" in col:
        out[_max_name(value_name)] = _scaled(col.pop("value_max"), divisor)
    bs_kib = _scaled(col.pop("bs"), BYTES_PER_KIB)
    windowed = bs_kib == 0  # fio writes 0 for bs, offset and issue time on windowed lines
    bs_kib[windowed] = np.nan
    out["bs_kib"] = bs_kib
    if "offset" in col:
        out["offset_bytes"] = pd.arrays.IntegerArray(_int_column(col.pop("offset")), windowed)
    if "prio" in col:
        out.update(_prio_columns(col.pop("prio"), source))
    if "issue_time" in col:
        issue_s = _scaled(col.pop("issue_time"), 1e9)
        issue_s[windowed] = np.nan
        out["issue_time_s"] = issue_s
    return out


def _pick_layout(table: pa.Table, source: str, n_fields: int, hex_at: set[int]) -> tuple[str, ...]:
    """The field layout of a value log: see VALUE_LAYOUTS and the module notes."""
    candidates = VALUE_LAYOUTS.get(n_fields)
    if candidates is None:
        raise ParseError(source, f"{n_fields} fields per line: a fio value log has 4 to 8", 1)
    if len(candidates) == 1:
        layout = candidates[0]
    elif hex_at:
        matching = [c for c in candidates if "prio" in c and {c.index("prio")} == hex_at]
        if not matching:
            raise ParseError(
                source, f"hex values in field {sorted(hex_at)[0] + 1}: not a fio log", 1
            )
        layout = matching[0]
    elif n_fields == 5:
        # prio is 0/1; an offset (fio <= 3.17, log_offset=1) is a multiple of the block size.
        layout = candidates[0] if _max(table.column(4)) <= 1 else candidates[1]
    else:
        # value_max sits where the other reading has ddir (0..2).
        layout = candidates[0] if _max(table.column(2)) <= 2 else candidates[1]
    for i, name in enumerate(layout):
        if name != "prio" and i in hex_at:
            raise ParseError(source, f"hex value in field {i + 1} ({name}): not a fio log", 1)
    return layout


def _prio_columns(column: pa.ChunkedArray, source: str) -> dict[str, object]:
    if pa.types.is_dictionary(column.type):  # log_prio=1: hex ioprio, class << 13 | level
        parts = []
        for chunk in column.chunks:
            words = [w.strip() for w in chunk.dictionary.to_pylist()]
            wrong = [w for w in words if not _HEX_PRIO.fullmatch(w)]
            if wrong:  # fio writes the 16-bit ioprio as 0x%04x
                raise ParseError(source, f"priority {wrong[0]!r} is not a 16-bit hex number")
            lookup = np.array([int(w, 16) for w in words], dtype=np.int64)
            parts.append(lookup[chunk.indices.to_numpy(zero_copy_only=False)])
        values = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        no_mask = np.zeros(len(values), dtype=bool)
        prio_class = values >> 13
        return {
            "prio_rt": pd.arrays.BooleanArray(prio_class == 1, no_mask.copy()),
            "prio_class": pd.arrays.IntegerArray(prio_class, no_mask.copy()),
            "prio_level": pd.arrays.IntegerArray(values & 0x1FFF, no_mask),
        }
    low, high = _min_max(column)
    if low < 0 or high > 1:
        raise ParseError(source, "priority field is not 0 or 1: not a fio log layout")
    rt = _empty(len(column), np.bool_)
    _chunkwise(column, rt, lambda values, dest: np.equal(values, 1, out=dest))
    return {"prio_rt": pd.arrays.BooleanArray(rt, np.zeros(len(rt), dtype=bool))}


def _max_name(value_name: str) -> str:
    """lat_ms -> lat_max_ms, bw_mib_s -> bw_max_mib_s, iops -> iops_max."""
    stem, sep, unit = value_name.partition("_")
    return f"{stem}_max_{unit}" if sep else f"{value_name}_max"


# --- histogram logs ---------------------------------------------------------------------------


def _parse_hist(raw: _Input, n_fields: int) -> dict[str, object]:
    source = raw.source
    n_bins = n_fields - _HIST_FIXED
    bin_ns = _hist_bin_ns(n_bins, source)
    names = [f"f{i}" for i in range(n_fields)]
    table = _read_csv(raw, names, dict.fromkeys(names, pa.int64()))
    time_ms = _int_column(table.column(0))
    ddir = _int_column(table.column(1))
    if ddir.size and (ddir.min() < 0 or ddir.max() > 2):
        bad = int(np.flatnonzero((ddir < 0) | (ddir > 2))[0]) + 1
        raise ParseError(source, f"data direction {int(ddir[bad - 1])} is not 0, 1 or 2", bad)
    bs = _int_column(table.column(2))
    counts = np.empty((len(table), n_bins), dtype=np.int64)
    for j, column in enumerate(table.columns[_HIST_FIXED:]):
        counts[:, j] = _int_column(column)
    _check_counts(counts, time_ms, ddir, source)

    samples = counts.sum(axis=1)
    keep = samples > 0  # a line without I/O carries no measurement
    counts, samples = counts[keep], samples[keep]
    pct = _hist_percentiles(counts, samples, bin_ns, list(HIST_PERCENTILES.values()))
    out: dict[str, object] = {
        "time_s": time_ms[keep] / MS_PER_S,
        "direction": pd.Categorical.from_codes(ddir[keep].astype(np.int8), categories=DIRECTIONS),
        "bs_kib": np.where(bs[keep] == 0, np.nan, bs[keep] / BYTES_PER_KIB),
        "samples": pd.arrays.IntegerArray(samples, np.zeros(len(samples), dtype=bool)),
        "clat_mean_ms": (counts @ bin_ns) / samples / NS_PER_MS if len(samples) else np.zeros(0),
    }
    for i, name in enumerate(HIST_PERCENTILES):
        out[name] = pct[:, i]
    key_ns = np.rint(bin_ns).astype(np.int64)
    out["clat_bins"] = pd.array(
        [{"ns": key_ns[row > 0], "count": row[row > 0]} for row in counts], dtype=object
    )
    return out


def _check_counts(counts: np.ndarray, time_ms: np.ndarray, ddir: np.ndarray, source: str) -> None:
    """Reject lines whose counts no fio job can have produced (fio bug axboe/fio#827)."""
    bad = (counts < 0).any(axis=1)  # fio prints unsigned differences: never negative
    # Some fio 3.x runs log impossible counts (2**31 - 1, 2**58, ...) in histogram logs.
    prev = np.zeros_like(time_ms)
    for d in np.unique(ddir):  # each direction's interval starts at its previous line
        rows = np.flatnonzero(ddir == d)
        prev[rows[1:]] = time_ms[rows[:-1]]
    seconds = np.maximum(time_ms - prev, 1) / MS_PER_S
    bad |= counts.sum(axis=1, dtype=np.float64) / seconds > MAX_PLAUSIBLE_IOPS
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ParseError(
            source,
            f"damaged histogram: {counts[row].sum(dtype=np.float64):.3g} I/Os in "
            f"{seconds[row]:g} s, more than any fio job can do (some fio 3.x versions write "
            "corrupt histogram logs, see axboe/fio#827)",
            row + 1,
        )


def _hist_bin_ns(n_bins: int, source: str) -> np.ndarray:
    """Latency [ns] of each bin of a histogram log line with `n_bins` bins."""
    for groups, unit in HIST_GROUPS.items():
        full = groups * PLAT_VAL
        for coarseness in range(MAX_COARSENESS + 1):
            if full >> coarseness == n_bins:
                fine = plat_idx_to_val(np.arange(full))
                # A coarse bin adds 2**coarseness fine bins: value it at their mean.
                coarse = fine.reshape(n_bins, 1 << coarseness).mean(axis=1)
                return coarse * (1000.0 if unit == "us" else 1.0)
    expected = sorted({(g * PLAT_VAL) >> c for g in HIST_GROUPS for c in range(MAX_COARSENESS + 1)})
    raise ParseError(
        source,
        f"{n_bins} histogram bins per line; fio writes one of {expected} "
        "(fio >= 3.0: 1856 >> log_hist_coarseness, fio 2.x: 1216 >> log_hist_coarseness)",
        1,
    )


def _hist_percentiles(
    counts: np.ndarray, samples: np.ndarray, bin_ns: np.ndarray, percentiles: list[float]
) -> np.ndarray:
    """Percentiles [ms] per row: the first bin whose cumulative count reaches p % (fio's rule)."""
    out = np.full((len(counts), len(percentiles)), np.nan)
    for start in range(0, len(counts), 2048):  # bounded memory for long logs
        cum = np.cumsum(counts[start : start + 2048], axis=1)
        total = samples[start : start + 2048, None]
        for j, p in enumerate(percentiles):
            idx = np.argmax(cum >= p / 100.0 * total, axis=1)
            out[start : start + len(cum), j] = bin_ns[idx] / NS_PER_MS
    return out


# --- helpers ----------------------------------------------------------------------------------


def _int_column(column: pa.ChunkedArray) -> np.ndarray:
    return column.to_numpy()


def _scaled(column: pa.ChunkedArray, divisor: float) -> np.ndarray:
    """An integer column divided by `divisor` into one float64 array."""
    out = _empty(len(column), np.float64)
    _chunkwise(column, out, lambda values, dest: np.divide(values, divisor, out=dest))
    return out


def _chunkwise(
    column: pa.ChunkedArray, out: np.ndarray, op: Callable[[np.ndarray, np.ndarray], object]
) -> None:
    """Run ``op(chunk_values, out_slice)`` for each chunk of `column`.

    Arrow hands out each chunk without a copy, and the result goes straight into its slice of
    `out`: no concatenated int64 copy as ChunkedArray.to_numpy would make. Large columns are
    done in Arrow's number of threads (numpy lets go of the GIL), as Arrow parsed them.
    """
    jobs, pos = [], 0
    for chunk in column.chunks:
        jobs.append((chunk, out[pos : pos + len(chunk)]))
        pos += len(chunk)

    def run(job: tuple[pa.Array, np.ndarray]) -> None:
        op(job[0].to_numpy(zero_copy_only=False), job[1])

    threads = min(pa.cpu_count(), len(jobs))
    if len(out) < _PARALLEL_ROWS or threads < 2:
        for job in jobs:
            run(job)
        return
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, jobs))


def _empty(n: int, dtype: type[np.generic]) -> np.ndarray:
    """A writable array in Arrow's memory pool, which keeps freed pages for the next file:
    reading many large logs then does not pay the kernel's page faults for every column."""
    return np.frombuffer(pa.allocate_buffer(n * np.dtype(dtype).itemsize), dtype=dtype)


def _codes(column: pa.ChunkedArray) -> np.ndarray:
    """Data directions (checked to be 0..2) as int8 category codes."""
    out = np.empty(len(column), dtype=np.int8)
    _chunkwise(column, out, lambda values, dest: np.copyto(dest, values, casting="unsafe"))
    return out


def _min_max(column: pa.ChunkedArray) -> tuple[int, int]:
    result = pc.min_max(column).as_py()
    if result["min"] is None:
        return 0, 0
    return result["min"], result["max"]


def _max(column: pa.ChunkedArray) -> int:
    value = pc.max(column).as_py()
    return -1 if value is None else value


def _constant_category(value: str | None, n: int) -> pd.Categorical:
    # One category and int8 codes: 10 million rows cost 10 MB, not 10 million Python strings.
    if value is None:
        return pd.Categorical.from_codes(
            np.full(n, -1, dtype=np.int8), categories=pd.Index([], dtype="str")
        )
    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[value])


def _constant_int(value: int | None, n: int) -> pd.arrays.IntegerArray:
    if value is None:
        return pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool))
    values = _empty(n, np.int64)
    values.fill(value)
    return pd.arrays.IntegerArray(values, np.zeros(n, dtype=bool))


_FIO_LOG_LINE = re.compile(rb"^\s*\d+,\s*-?\d+,\s*\d+,\s*\d+")

FORMAT = Format(
    name="fio_log",
    title="a fio log",
    sniff=lambda head: _FIO_LOG_LINE.match(head.lstrip()) is not None,
    not_result="is a fio log, not a result: read it with read_fio_log()",
)
