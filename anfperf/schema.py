"""The tidy result frame: the contract between ingest, models, plots and reports.

One row per run x host x job x direction x interval. Every reader returns a frame passed through
:func:`conform`, so frames from different tools concatenate without losing dtypes. Units are in
the column names and are binary: MiB = 2**20 bytes, KiB = 1024 bytes.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import pandas as pd

from anfperf.errors import ParseError
from anfperf.userfiles import read_user_file

__all__ = [
    "MANIFEST_NAME",
    "MANIFEST_JOURNAL_NAME",
    "LIVE_LOG_NAME",
    "MAX_MANIFEST_MIB",
    "read_journal",
    "apply_journal",
    "AGGREGATE_HOST",
    "RESERVED_HOST_NAMES",
    "host_label",
    "read_manifest",
    "DIRECTIONS",
    "PATTERNS",
    "SOURCES",
    "PERCENTILE_COLUMNS",
    "COLUMNS",
    "COLUMN_NAMES",
    "DTYPES",
    "KEY_COLUMNS",
    "BUILTIN_TOOLS",
    "tool_dtype",
    "set_tools",
    "schema_table",
    "empty_frame",
    "conform",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer: not numpy, pandas, ...


#: File name of a run's manifest in the raw-output layout ``<run_id>/manifest.json`` (beside
#: ``<run_id>/<host>/...``): the runner writes it, ingest and provenance read it.
MANIFEST_NAME = "manifest.json"
#: Beside it while a run goes on: the changes made since the manifest was last written whole,
#: one JSON object a line (``{"seq": n, "at": [key, ...], "set": {field: value}}``), each
#: appended and flushed to disk as a host reports; :func:`read_manifest` applies the entries
#: numbered after the manifest's ``journal_seq``, in order.
MANIFEST_JOURNAL_NAME = ".manifest.journal"
#: Beside it too: the live figures the controller received while the run went on (steps,
#: every host's intervals, alarms), one JSON object a line (:mod:`anfperf.live.record`), for a
#: notebook to watch; never ingested (the raw outputs are the record).
LIVE_LOG_NAME = "live.jsonl"
#: Largest manifest, and journal, read [MiB], for the size of a large fleet's: a 1,000-host
#: manifest is about 1.5 MB, so one of 30,000 hosts is some 45 MB and more with every step of
#: a sweep (the journal is folded into the manifest when it grows as large as it).
MAX_MANIFEST_MIB = 1024

#: Host of the rows the tool wrote as an aggregate across hosts (fio's "All clients", the
#: flatfile of a multi-host Vdbench run). A real host of that name is read as
#: :func:`host_label` names it, so that no host's own rows are ever taken for the aggregate.
AGGREGATE_HOST = "all"
#: Host names an inventory refuses (compared case-insensitively, as a case-insensitive file
#: system would): the aggregate's, and the manifest's file beside the ``<run_id>/<host>/`` folders.
RESERVED_HOST_NAMES = (AGGREGATE_HOST, MANIFEST_NAME)


def host_label(name: str) -> str:
    """The frame's `host` for a real client host the runner or a tool called `name`.

    `name` itself, but a host named like the aggregate (``'all'``, in any case: from an old
    run's folder, a hand-made one, or a fio server of that name) is ``'all (host)'``.
    """
    return f"{name} (host)" if name.lower() == AGGREGATE_HOST else name


def read_manifest(path: str | os.PathLike) -> dict | str:
    """A run manifest's content, or why it cannot be used: what ingest and provenance read.

    Returns
    -------
    dict or str
        The manifest (an object with a non-empty string ``run_id``, an object ``hosts`` and,
        if present, ``steps`` a list of objects whose ``tasks`` are objects), else why not:
        ``'cannot be read (...)'`` or ``'not an anfperf run manifest (...)'``. JSON of
        another shape would otherwise pass for a run without hosts, and every host's rows
        for one host's.
    """
    path = Path(path)
    try:
        journal = read_journal(path.with_name(MANIFEST_JOURNAL_NAME))
    except ParseError as exc:
        return f"cannot be read ({MANIFEST_JOURNAL_NAME}: {_why(exc)})"
    try:
        doc = json.loads(read_user_file(path, what="a manifest", max_mib=MAX_MANIFEST_MIB))
    except ParseError as exc:  # missing, a FIFO, a device, too large
        return f"cannot be read ({_why(exc)})"
    except ValueError as exc:  # (UnicodeDecodeError is a ValueError)
        return f"cannot be read ({exc})"
    problem = _manifest_problem(doc)
    return f"not an anfperf run manifest ({problem})" if problem else apply_journal(doc, journal)


def _why(exc: ParseError) -> str:
    """A reading error's reason inside "cannot be read (...)": not said twice."""
    return exc.reason.removeprefix("cannot be read: ")


def read_journal(path: str | os.PathLike) -> bytes:
    """A run's journal (b'' when there is none). Read it before its manifest: a run that
    writes its manifest whole meanwhile then leaves a manifest holding every entry read.

    Raises
    ------
    anfperf.ParseError
        The journal exists but cannot be read: unreadable, not a regular file (a FIFO, a
        device), or larger than :data:`MAX_MANIFEST_MIB`.
    """
    try:
        return read_user_file(path, what="a run's journal", max_mib=MAX_MANIFEST_MIB)
    except ParseError:
        if os.path.lexists(path):
            raise
        return b""  # none: the manifest was written whole (or never had one)


def apply_journal(doc: dict, text: bytes) -> dict:
    """`doc` with the changes of a run's journal `text` applied (``journal_seq`` set to the
    last one applied).

    Entries the manifest holds already (numbered up to its ``journal_seq``) are skipped. The
    journal ends at its first entry that is not whole (the run was killed while writing it) or
    does not follow the one before: what comes after would change a state that never was.
    """
    if not text:
        return doc
    seq = doc.get("journal_seq")
    seq = seq if isinstance(seq, int) else 0
    for line in text.split(b"\n"):
        try:
            entry = json.loads(line)
        except ValueError:
            break
        if not isinstance(entry, dict) or not isinstance(entry.get("set"), dict):
            break
        number = entry.get("seq")
        if isinstance(number, int) and number <= seq:
            continue  # already in the manifest (written whole after this entry)
        target = _journal_target(doc, entry.get("at"))
        if number != seq + 1 or target is None:
            break
        target.update(entry["set"])
        seq = number
    doc["journal_seq"] = seq
    return doc


def _journal_target(doc: dict, at: object) -> dict | None:
    """The object a journal entry's path ``at`` leads to (objects made on the way), or None."""
    if not isinstance(at, list):
        return None
    node: object = doc
    for key in at:
        if isinstance(node, dict) and isinstance(key, str):
            node = node.setdefault(key, {})
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            return None
    return node if isinstance(node, dict) else None


def _manifest_problem(doc: object) -> str | None:
    """What in a manifest's parsed JSON is not the runner's shape (None: nothing)."""
    if not isinstance(doc, dict):
        return f"the document is {_json_kind(doc)}, not an object"
    run_id = doc.get("run_id")
    if not isinstance(run_id, str) or not run_id:
        return "no 'run_id'" if run_id in (None, "") else f"'run_id' is {_json_kind(run_id)}"
    if not isinstance(doc.get("hosts"), dict):
        return "no 'hosts'" if "hosts" not in doc else f"'hosts' is {_json_kind(doc['hosts'])}"
    steps = doc.get("steps", [])
    if not isinstance(steps, list):
        return f"'steps' is {_json_kind(steps)}, not a list"
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            return f"step {i} is {_json_kind(step)}, not an object"
        if not isinstance(step.get("tasks", {}), dict):
            return f"'tasks' of step {i} is {_json_kind(step['tasks'])}, not an object"
    return None


def _json_kind(value: object) -> str:
    """How JSON names the kind of `value`: 'null', 'a list', 'a string', ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


DIRECTIONS = ("read", "write", "trim", "total")
PATTERNS = ("random", "sequential", "mixed")
#: Who measured a row: the benchmark tool on a client, or the storage service itself
#: (Azure Monitor's metrics of the volume, :mod:`anfperf.ingest.azure_monitor`).
SOURCES = ("client", "server")

#: Latency percentiles carried as columns: column name -> percentile [%].
PERCENTILE_COLUMNS: dict[str, float] = {
    "lat_p50_ms": 50.0,
    "lat_p90_ms": 90.0,
    "lat_p95_ms": 95.0,
    "lat_p99_ms": 99.0,
    "lat_p999_ms": 99.9,
}

# fmt: off
#: The contract as one table: (column, dtype, unit, meaning).
COLUMNS: list[tuple[str, str | pd.CategoricalDtype, str, str]] = [
    ("run_id", "string", "", "run identifier (runner's id, else derived from the folder or file)"),
    # its categories are the registered formats' tools: see tool_dtype()
    ("tool", "category", "", "'fio', 'vdbench', 'diskspd' or the tool of a registered format"),
    ("tool_version", "string", "", "tool and version, e.g. 'fio-3.33', 'vdbench50405'"),
    ("source_file", "string", "", "file the row came from"),
    ("source", pd.CategoricalDtype(SOURCES), "", "who measured the row: 'client' (the "
                                                 "benchmark tool) or 'server' (the volume's "
                                                 "own metrics, e.g. Azure Monitor)"),
    ("host", "string", "", "client host; 'all' for an aggregate across hosts (and only for it: "
                           "a host named 'all' is 'all (host)', see host_label)"),
    ("job", "string", "", "fio job name / Vdbench run definition (rd=) / DiskSpd target"),
    ("workload", "string", "", "fio job / Vdbench wd= or fwd= name"),
    ("step", "Int64", "", "0-based instance of the job in its file (tells apart repeated names: "
                          "Vdbench for-loops, fio jobs of the same name)"),
    ("loop", "string", "", "Vdbench 'For loops' values of this run definition, e.g. 'threads=16'"),
    ("direction", pd.CategoricalDtype(DIRECTIONS), "", "'read', 'write', 'trim' or 'total'"),
    ("interval", "Int64", "", "reporting interval number; <NA> for whole-run rows"),
    ("time_s", "float64", "s", "end of the interval since the start of the job"),
    ("timestamp", "datetime64[ns, UTC]", "", "wall-clock time of the row (interval end, or job end)"),
    ("is_summary", "bool", "", "whole-run row (fio job totals, Vdbench avg_ rows)"),
    ("is_warmup", "bool", "", "interval inside the warm-up / ramp time"),
    ("pattern", pd.CategoricalDtype(PATTERNS), "", "'random', 'sequential' or 'mixed'"),
    ("bs_kib", "float64", "KiB", "block (transfer) size"),
    ("read_pct", "float64", "%", "requested read percentage"),
    ("iodepth", "Int64", "", "queue depth per job as configured (fio iodepth, DiskSpd -o)"),
    ("numjobs", "Int64", "", "jobs (processes/threads) as configured (fio numjobs, DiskSpd -t)"),
    ("threads", "Int64", "", "Vdbench threads as configured"),
    ("outstanding", "Int64", "", "configured concurrency: iodepth x numjobs (fio), threads x "
                                 "SDs driven (Vdbench threads are per SD), -o x -t (DiskSpd)"),
    ("direct_io", "boolean", "", "the tool was told to bypass the client's page cache: fio "
                                 "direct=1 (or buffered=0), Vdbench openflags=o_direct / "
                                 "directio; False = buffered I/O, which the client's cache may "
                                 "serve; <NA> = not said (or an engine without a page cache)"),
    ("rate_limit_iops", "float64", "1/s", "requested rate (Vdbench reqrate / curve point, fio "
                                          "rate_iops); NaN = as fast as possible"),
    ("curve_pct", "float64", "%", "Vdbench iorate=curve point as a percentage of the max rate"),
    ("runtime_s", "float64", "s", "measured duration the row covers"),
    ("iops", "float64", "1/s", "observed I/O rate"),
    ("bw_mib_s", "float64", "MiB/s", "observed throughput"),
    ("lat_mean_ms", "float64", "ms", "mean response (total) latency"),
    ("lat_min_ms", "float64", "ms", "minimum response latency"),
    ("lat_max_ms", "float64", "ms", "maximum response latency"),
    ("lat_std_ms", "float64", "ms", "standard deviation of the response latency"),
    ("lat_p50_ms", "float64", "ms", "50th percentile of the response latency"),
    ("lat_p90_ms", "float64", "ms", "90th percentile"),
    ("lat_p95_ms", "float64", "ms", "95th percentile"),
    ("lat_p99_ms", "float64", "ms", "99th percentile"),
    ("lat_p999_ms", "float64", "ms", "99.9th percentile"),
    ("queue_depth", "float64", "", "observed mean outstanding I/O where the tool reports it"),
    ("cpu_user_pct", "float64", "%", "client CPU in user mode"),
    ("cpu_sys_pct", "float64", "%", "client CPU in the kernel"),
    ("error", "Int64", "", "tool's error code for the job (fio 'error'); 0 = none"),
    ("interrupted", "bool", "", "the run was stopped before its planned end (its runner task "
                                "interrupted or timed out; fio 'terminating on signal'): the "
                                "numbers cover less than planned"),
    ("lat_bins", "object", "ns", "latency histogram {'ns': [...], 'count': [...]} (fio json+), "
                                 "merged, never averaged, when rows are combined"),
]
# fmt: on

COLUMN_NAMES: list[str] = [c[0] for c in COLUMNS]
DTYPES: dict[str, str | pd.CategoricalDtype] = {c[0]: c[1] for c in COLUMNS}

#: Columns that identify a row (everything but the measurements).
KEY_COLUMNS = [
    "run_id", "tool", "source", "source_file", "host", "job", "workload", "step", "direction", "interval",
]  # fmt: skip


#: Tools of the built-in formats: the `tool` column's categories until a format of another tool
#: is registered (their order is stored in Parquet: keep it).
BUILTIN_TOOLS: tuple[str, ...] = ("fio", "vdbench", "diskspd", "azure_monitor")
_tools: tuple[str, ...] = BUILTIN_TOOLS


def set_tools(tools: tuple[str, ...]) -> None:
    """Make `tools` the `tool` column's categories.

    The format registry (:mod:`anfperf.ingest.registry`) calls it whenever its formats change,
    with the tools of its result formats, so that the contract knows them without importing
    the readers.
    """
    global _tools
    _tools = tuple(tools)


def tool_dtype() -> pd.CategoricalDtype:
    """The `tool` column's dtype: one category per tool of the registered formats
    (:data:`BUILTIN_TOOLS` and those of formats added with
    :func:`anfperf.ingest.registry.register_format`)."""
    return _categorical(_tools)


@lru_cache(maxsize=8)
def _categorical(categories: tuple[str, ...]) -> pd.CategoricalDtype:
    return pd.CategoricalDtype(categories)


def schema_table() -> pd.DataFrame:
    """The contract as a frame: column, dtype, unit, meaning."""
    return pd.DataFrame(
        [(name, str(dtype), unit, meaning) for name, dtype, unit, meaning in COLUMNS],
        columns=["column", "dtype", "unit", "meaning"],
    )


def empty_frame() -> pd.DataFrame:
    """A frame with every contract column and no rows."""
    return conform(pd.DataFrame(index=pd.RangeIndex(0)))


def conform(frame: pd.DataFrame) -> pd.DataFrame:
    """Return `frame` with exactly the contract's columns, in order, with their dtypes.

    Missing columns are added as missing values (``False`` for the flag columns, ``'client'``
    for `source`: every reader but the server metrics' measures on the client, and a store
    written before the column existed holds client rows only). Extra columns
    are an error: a reader that wants to add one must add it to :data:`COLUMNS` first.
    """
    tool = tool_dtype()
    if list(frame.columns) == COLUMN_NAMES and _expected_dtypes(tool).equals(frame.dtypes):
        if isinstance(frame.index, pd.RangeIndex) and (frame.index.start, frame.index.step) == (
            0,
            1,
        ):
            return frame  # already conformed: nothing to do
    extra = set(frame.columns) - set(COLUMN_NAMES)
    if extra:
        raise ValueError(f"columns outside the anfperf schema: {sorted(extra)}")
    n = len(frame)
    frame = frame.reset_index(drop=True)  # the result's RangeIndex must not realign the rows
    out = {}
    for name, dtype, _unit, _meaning in COLUMNS:
        if name == "tool":
            dtype = tool
        if name in frame.columns:
            col = frame[name]
        elif dtype == "bool":
            col = pd.Series(False, index=frame.index)
        elif name == "lat_bins":
            col = pd.Series([None] * n, index=frame.index, dtype=object)
        elif name == "source":
            col = pd.Series("client", index=frame.index, dtype=object)
        else:
            col = pd.Series(pd.NA, index=frame.index, dtype=object)
        if str(dtype).startswith("datetime64"):
            col = pd.to_datetime(col, utc=True)
            if col.dtype != dtype:
                col = col.astype(dtype)
        elif dtype == "float64":
            if col.dtype != "float64":  # already float: skip a full pass over the column
                col = pd.to_numeric(col, errors="raise").astype("float64")
        elif dtype == "Int64" and col.dtype == object:
            col = pd.to_numeric(col, errors="raise").astype("Int64")
        elif name == "source" and (col.dtype != dtype or col.isna().any()):
            col = _sources(col)
        elif dtype == "bool" and col.dtype != bool:
            # a flag some rows lack (NaN, None) is unset, not True as astype(bool) would make it
            col = col.astype("boolean").fillna(False).astype(bool)
        else:
            col = col.astype(dtype)
        out[name] = col
    # copy=False: no second copy of every column; the result may share memory with `frame`.
    return pd.DataFrame(out, index=pd.RangeIndex(n), copy=False)


def _sources(col: pd.Series) -> pd.Series:
    """The `source` column from its values: missing ones (rows of a store written before the
    column existed) are 'client'; one that is neither kind is an error, not a missing value."""
    wrong = col[col.notna() & ~col.isin(SOURCES)]
    if len(wrong):
        raise ValueError(f"'source' must be one of {SOURCES}, not {wrong.iloc[0]!r}")
    return col.fillna("client").astype(DTYPES["source"])


@lru_cache(maxsize=8)
def _expected_dtypes(tool: pd.CategoricalDtype) -> pd.Series:
    """What a conformed frame's dtypes look like (to recognise one cheaply)."""
    return pd.Series(
        {
            name: pd.Series([], dtype=tool if name == "tool" else dtype).dtype
            for name, dtype, _u, _m in COLUMNS
        },
        dtype=object,
    )
