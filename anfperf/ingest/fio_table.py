"""Many fio JSON outputs into one tidy frame, built column by column.

Reading thousands of small fio files is the bulk case, and after decoding what costs is the
work per row. :class:`FioTable` keeps each file's rows as tuples (the job entries' values and
their direction rows', :class:`anfperf.ingest.fio_rows.Parsed`), then works per column: the
json+ histograms become arrays many at a time (numpy, in passes), every job's 'total' row is
combined in one vectorised pass (by :func:`anfperf.ingest.combine.combine_measures`, the rules
:func:`~anfperf.ingest.combine.add_totals` applies), each column gets its dtype once and the
values of a job entry or a file are converted once, not once per row. The intervals of a
``--status-interval`` series are entries too (``is_summary`` False), and get their 'total' rows
the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
from msgspec import Raw

from anfperf.ingest._frame import Origin, run_origin, warn_stopped
from anfperf.ingest.combine import Groups, combine_measures
from anfperf.ingest.fio_bins import NOT_DECIMAL, decimal_histograms, histogram
from anfperf.ingest.fio_rows import BLOCK_BINS, BLOCK_COLUMNS, ENTRY_COLUMNS, TOOL, parse_fio_json
from anfperf.schema import COLUMNS, conform, empty_frame, tool_dtype

#: Direction-row values that may differ between the rows of one job entry; all else in a row
#: is its entry's or its file's, the same for each of them.
_PER_DIRECTION = ("bs_kib", "rate_limit_iops", "runtime_s")
_FILE_COLUMNS = ("source_file", "run_id")
_NAN = float("nan")


class FioTable:
    """The rows of many fio JSON outputs, and their tidy frame.

    Examples
    --------
    >>> table = FioTable()
    >>> table.add(data, "host1/randread.json")  # doctest: +SKIP
    >>> frame = table.frame()  # doctest: +SKIP
    """

    def __init__(self) -> None:
        self._entries: list[tuple] = []
        self._blocks: list[tuple] = []  # each starts with its entry's position in its file
        self._files: list[tuple[str, str, str | None, bool]] = []  # source, run id, host, stopped
        self._sizes: list[tuple[int, int]] = []  # each file's number of entries and of blocks
        self._scanned = 0  # blocks before this one hold no histogram still in JSON text

    def add(
        self, data: bytes, source: str, *, run_id: str | None = None, origin: Origin | None = None
    ) -> None:
        """Parse one fio JSON output (un-gzipped bytes).

        Parameters
        ----------
        data : bytes
            The file's content.
        source : str
            Its name, for `source_file` and messages.
        run_id : str, optional
            Run id of its rows; by default the file's own (:func:`run_origin`).
        origin : Origin, optional
            The file's :func:`run_origin`, when the caller has looked it up.

        Raises
        ------
        anfperf.errors.ParseError
            The file is no fio result or is damaged; nothing of it is added.
        """
        parsed = parse_fio_json(data, source)
        origin = origin if origin is not None else run_origin(source)
        warn_stopped(source, origin.stopped)  # the rows are flagged in frame()
        stopped = parsed.interrupted or bool(origin.stopped)
        self._files.append((source, run_id or origin.run_id, origin.host, stopped))
        self._sizes.append((len(parsed.entries), len(parsed.blocks)))
        self._entries.extend(parsed.entries)
        self._blocks.extend(parsed.blocks)
        if len(self._blocks) - self._scanned >= _BLOCKS_PER_PASS:
            self._histograms_as_arrays()

    def _histograms_as_arrays(self) -> None:
        """Parse the histograms still in JSON text, many in one pass: numpy's cost per call is
        then small, and the memory of one pass is reused by the next. (Each is a msgspec Raw,
        which keeps its file's bytes until then: passes are made every few dozen rows.)"""
        blocks = self._blocks
        at = [i for i in range(self._scanned, len(blocks)) if type(blocks[i][BLOCK_BINS]) is Raw]
        self._scanned = len(blocks)
        if not at:
            return
        converted = decimal_histograms([blocks[i][BLOCK_BINS] for i in at])
        for i, hist in zip(at, converted, strict=True):
            block = blocks[i]
            if hist is NOT_DECIMAL:
                hist = histogram(block[BLOCK_BINS], 1)
            blocks[i] = (*block[:BLOCK_BINS], hist)

    def __len__(self) -> int:
        return len(self._blocks)

    def frame(self) -> pd.DataFrame:
        """The tidy frame: every file's rows in order, then a 'total' row per job without one."""
        if not self._blocks:
            return empty_frame()
        self._histograms_as_arrays()
        n_entries, n_blocks = (np.array(n, dtype=np.int64) for n in zip(*self._sizes, strict=True))
        entry_file = np.repeat(np.arange(len(self._files)), n_entries)
        at, *values = zip(*self._blocks, strict=True)
        # each block's entry: its position in its file, after the entries of the files before
        entry = np.array(at, dtype=np.int64) + np.repeat(np.cumsum(n_entries) - n_entries, n_blocks)
        blocks = {name: _typed(name, v) for name, v in zip(BLOCK_COLUMNS, values, strict=True)}
        entries = _entry_columns(self._entries, entry_file, self._files)
        totals = _totals(blocks, entries, entry)
        rows_entry = np.concatenate([entry, totals.pop("entry", entry[:0])])
        columns = {}
        for name, column in blocks.items():  # the direction rows' values, then the totals'
            columns[name] = _concat(column, _typed(name, totals[name])) if totals else column
        for name, column in entries.items():
            if name in totals:  # combined (CPU, concurrency): the rows' own, then the totals'
                columns[name] = _concat(column.take(entry), _typed(name, totals[name]))
            elif name != "_file":
                columns[name] = column.take(rows_entry)
        columns["workload"] = columns["job"].copy()  # fio's job name is its workload
        return _typed_frame(columns, len(rows_entry))


#: Direction rows whose histograms are parsed together (see FioTable._histograms_as_arrays).
_BLOCKS_PER_PASS = 64


def _entry_columns(entries: list[tuple], file_of: np.ndarray, files: list[tuple]) -> dict:
    """The entries' values as typed arrays (one per column), with their files' values; the host
    of entries fio labelled 'localhost' is the one the runner's folder names, if any."""
    values = dict(zip(ENTRY_COLUMNS, zip(*entries, strict=True), strict=True))
    if any(f[2] for f in files):
        named = [files[f][2] for f in file_of.tolist()]
        values["host"] = [
            name if name and host == "localhost" else host
            for host, name in zip(values["host"], named, strict=True)
        ]
    out = {name: _typed(name, column) for name, column in values.items()}
    for j, name in enumerate(_FILE_COLUMNS):
        out[name] = _typed(name, [f[j] for f in files]).take(file_of)
    out["interrupted"] = np.array([f[3] for f in files], dtype=bool)[file_of]
    out["_file"] = file_of
    return out


def _totals(blocks: dict, entries: dict, entry: np.ndarray) -> dict:
    """The 'total' row of every job entry that has per-direction rows only (its entry's rows
    are consecutive): column -> values, and ``entry``: the entry of each. {} when none."""
    is_total = np.asarray(blocks["direction"] == "total", dtype=bool)
    has_total = np.bincount(entry, weights=is_total) > 0
    rows = np.flatnonzero(~has_total[entry])
    if not len(rows):
        return {}
    new = np.ones(len(rows), dtype=bool)
    new[1:] = entry[rows][1:] != entry[rows][:-1]
    groups = Groups(np.cumsum(new) - 1)

    def values(name: str) -> np.ndarray:
        if name in blocks:
            return blocks[name][rows]
        if name in entries:
            return _floats(entries[name].take(entry[rows]))
        return np.full(len(rows), _NAN)

    bins = blocks["lat_bins"][rows].tolist()
    out = combine_measures(values, bins, groups, first_of_job=new)  # a group is one job
    for name in _PER_DIRECTION:
        per_row = values(name)
        codes, _ = pd.factorize(per_row, use_na_sentinel=False)
        out[name] = np.where(groups.uniform(codes), per_row[groups.first_row], _NAN)
    out["direction"] = ["total"] * groups.n
    out["entry"] = entry[rows[groups.first_row]]
    return out


def _floats(values: object) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return values.astype(float)
    return values.to_numpy(dtype=float, na_value=_NAN)  # type: ignore[attr-defined]


def _concat(first: object, second: object) -> object:
    """Two typed arrays (numpy or pandas) of the same dtype, one after the other."""
    if isinstance(first, np.ndarray):
        return np.concatenate([first, second])  # type: ignore[list-item]
    # the extension array interface's own concatenation: none of pd.concat's alignment
    return type(first)._concat_same_type([first, second])  # type: ignore[attr-defined]


_DTYPES = {name: dtype for name, dtype, _unit, _meaning in COLUMNS}


class _Codes(dict):
    """Category -> code of a categorical column; -1 (missing) for anything else."""

    def __missing__(self, key: object) -> int:
        return -1


_CODES = {
    name: _Codes((category, code) for code, category in enumerate(dtype.categories))
    for name, dtype in _DTYPES.items()
    if isinstance(dtype, pd.CategoricalDtype)
}


def _typed(name: str, values: Sequence) -> object:
    """`values` as the array of the schema's dtype for column `name`."""
    dtype = _DTYPES[name]
    if isinstance(dtype, pd.CategoricalDtype):  # by codes: Categorical() would look values up
        codes = _CODES[name]
        return pd.Categorical.from_codes(
            np.fromiter(map(codes.__getitem__, values), np.int8, len(values)), dtype=dtype
        )
    if dtype == "float64":
        if type(values) is tuple:  # a column of the rows: fromiter takes a quarter less time
            try:
                return np.fromiter(values, float, len(values))
            except TypeError:  # None among them (missing): np.array makes it NaN
                pass
        return np.array(values, dtype=float)
    if dtype == "Int64" and type(values) is tuple:
        # ints or None, as the reader makes them: all ints (the usual case) without pandas'
        # type inference
        try:
            data = np.fromiter(values, np.int64, len(values))
        except (TypeError, OverflowError):  # None (missing) among them
            pass
        else:
            return pd.arrays.IntegerArray(data, np.zeros(len(data), dtype=bool))
    if dtype == "string" and _ARROW_STRINGS:
        try:  # (pandas' own conversion checks each value first: three times the time)
            return pd.arrays.ArrowStringArray(pa.array(values, type=pa.large_string()))
        except (pa.ArrowException, UnicodeError):  # not all str: pandas converts them
            pass
    if dtype in ("Int64", "string", "boolean"):
        return pd.array(values, dtype=dtype)
    if dtype == "bool":
        return np.array(values, dtype=bool)
    if name == "lat_bins":
        column = np.empty(len(values), dtype=object)
        column[:] = values
        return column
    # ns since 1970 (fio_rows._timestamp), None where unknown
    ns = np.array([_NAT if v is None else v for v in values], dtype=np.int64)
    return pd.to_datetime(ns, unit="ns", utc=True).array


_NAT = np.iinfo(np.int64).min  # what datetime64 reads as NaT
#: The schema's "string" columns are pyarrow's large strings (pandas >= 3 by default): then made
#: from Python strings by pyarrow directly.
_ARROW_STRINGS = pd.StringDtype().storage == "pyarrow"


def _typed_frame(columns: dict[str, object], n: int) -> pd.DataFrame:
    """The conformed frame from typed columns (the constant and missing ones made here)."""
    out = {}
    for name, dtype, _unit, _meaning in COLUMNS:
        values = columns.get(name)
        if name == "tool":
            values = pd.Categorical.from_codes(
                np.full(n, tool_dtype().categories.get_loc(TOOL)), dtype=tool_dtype()
            )
        elif name == "source":  # fio measures on the client
            values = pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), dtype=dtype)
        elif values is None:
            values = _missing(dtype, n)
        out[name] = values
    return conform(pd.DataFrame(out, copy=False))  # conformed already: conform only checks


def _missing(dtype: object, n: int) -> object:
    """A column of `n` missing values of `dtype`."""
    if dtype == "float64":
        return np.full(n, _NAN)
    if dtype == "Int64":
        return pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool))
    if dtype == "bool":
        return np.zeros(n, dtype=bool)
    return pd.array([None] * n, dtype=dtype)
