"""Saving the tidy frame: CSV, Parquet, or a Parquet dataset that grows run by run."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from anfperf.errors import AnfperfError, ParseError, StoreWriteError, warn
from anfperf.folders import atomic_write
from anfperf.schema import KEY_COLUMNS
from anfperf.userfiles import not_regular_reason, open_regular
from anfperf.values import natural_key

__all__ = [
    "save_frame",
    "DamagedPartWarning",
    "DamagedPart",
    "PartCheck",
    "check_parts",
    "LOCK_NAME",
    "PART_NAME",
    "TMP_PREFIX",
    "MAX_RUN_ID_BYTES",
    "arrow_schema",
    "RUN_COLUMNS",
    "list_runs",
    "load_store",
    "is_store",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer: not numpy, pandas, ...


def save_frame(frame: pd.DataFrame, out: str | os.PathLike) -> Path:
    """Save a tidy frame; the form follows `out`.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).
    out : str or os.PathLike
        ``*.csv``: one CSV file (latency histograms as JSON text). ``*.parquet``: one Parquet
        file. Anything else is a folder holding a Parquet dataset partitioned by `run_id`
        (hive layout, ``run_id=<id>/``): each save replaces the partitions of the runs it holds
        and keeps the others, so the dataset grows run by run; pandas, DuckDB, Dask and Spark
        read the folder as it is (:func:`arrow_schema`: timestamps to the microsecond).

    Returns
    -------
    pathlib.Path
        The file or folder written.
    """
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        csv = frame.copy()
        csv["lat_bins"] = [_bins_json(b) for b in csv["lat_bins"]]
        _replace_file(path, lambda f: csv.to_csv(f, index=False))
    elif suffix in (".parquet", ".pq"):
        _replace_file(path, lambda f: frame.to_parquet(f, index=False))
    elif suffix:
        raise AnfperfError(
            f"{path}: unknown output type {suffix!r}; use .csv, .parquet or a folder"
        )
    else:
        _save_dataset(frame, path)
    return path


def _replace_file(path: Path, write) -> None:
    """Write through `write(file)` to a temporary name, then rename over `path` (atomic).

    Temporaries that killed writers left for `path` are removed first; those of writers still
    running are not (:func:`_remove_stale`).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(_temporaries_of(path))
        atomic_write(path, write, temporary=lambda p: _locked_temporary(p.parent, f"-{p.name}"))
    except OSError as exc:
        raise AnfperfError(f"{path}: could not write: {exc}") from exc


def _locked_temporary(folder: Path, suffix: str = "") -> tuple[Path, BinaryIO]:
    """A new temporary file in `folder` (``.tmp-<uuid><suffix>``), open for writing and locked
    for as long as it is open: the lock tells a live writer's file from a killed one's.

    A cleaner may take the file in the instant between its creation and its lock; it then
    unlinks it while holding the lock, so the file found gone after locking is given up for
    another.
    """
    import fcntl  # here: reading a store needs no fcntl (not on Windows)

    while True:
        tmp = folder / f"{TMP_PREFIX}{uuid.uuid4().hex}{suffix}"
        f = open(tmp, "xb")
        try:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                ours = os.path.samestat(os.stat(tmp), os.fstat(f.fileno()))
            except FileNotFoundError:
                ours = False
        except BaseException:
            f.close()
            raise
        if ours:
            return tmp, f
        f.close()


def _temporaries_of(path: Path) -> list[Path]:
    """The temporary files of :func:`_replace_file` for `path`, and nothing else of the folder."""
    pattern = re.compile(re.escape(TMP_PREFIX) + r"[0-9a-f]{32}-" + re.escape(path.name))
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    return [path.parent / name for name in names if pattern.fullmatch(name)]


def _remove_stale(temporaries: Iterable[Path]) -> None:
    """Remove the temporary files whose writer is gone (killed, crashed): those nobody locks.

    The lock of a live writer (:func:`_locked_temporary`) keeps its file; the kernel releases
    the lock of a process however it ends. Unlinked while locked here, so that a writer that
    locks a file in the meantime finds it gone and takes another.
    """
    import fcntl

    for tmp in temporaries:
        try:  # read-write: an exclusive lock over NFS needs a writable descriptor
            fd = os.open(tmp, os.O_RDWR)
        except OSError:
            continue  # renamed or removed meanwhile
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            tmp.unlink(missing_ok=True)
        except OSError:
            pass  # locked: its writer is still at work
        finally:
            os.close(fd)


#: Lock file of a store: one writer at a time (readers need no lock: they see whole files).
LOCK_NAME = ".anfperf-store.lock"
#: The one data file of a run's partition, replaced whole (atomically) on every save.
PART_NAME = "data.parquet"
#: Prefix of files being written: readers skip names starting with '.', and the next save
#: removes those a killed writer left (each writer locks its own: a running one's is kept).
TMP_PREFIX = ".tmp-"
#: Longest run id a partition folder can carry (file names are at most 255 bytes).
MAX_RUN_ID_BYTES = 200
#: pyarrow's name for a missing partition value: as a run id it would make runs disappear.
_HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def arrow_schema() -> pa.Schema:
    """The Parquet schema of every store partition, whatever a run holds.

    One schema for all runs: a run without latency histograms would otherwise write
    ``lat_bins`` as a null column, which no reader can merge with another run's struct column.
    Its types are those every engine reads as they are (pandas, DuckDB, Dask, Spark):
    timestamps in microseconds, UTC (Spark refuses nanoseconds; the tidy frame's
    ``datetime64[ns]`` comes back from :func:`load_store`), signed integers only, histograms
    as a struct of two lists of int64.
    """
    from anfperf.schema import empty_frame

    schema = pa.Schema.from_pandas(empty_frame(), preserve_index=False)
    bins = pa.struct([("ns", pa.list_(pa.int64())), ("count", pa.list_(pa.int64()))])
    schema = schema.set(schema.get_field_index("lat_bins"), pa.field("lat_bins", bins))
    for i, field in enumerate(schema):
        if pa.types.is_timestamp(field.type):
            schema = schema.set(i, field.with_type(pa.timestamp("us", tz=field.type.tz)))
    return schema.remove(schema.get_field_index("run_id"))  # the partition folder says it


def _part_table(rows: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """A run's rows as its part file holds them (`schema`, :func:`arrow_schema`)."""
    # to the microsecond, as the readers make them (fio's and Vdbench's clocks say no more):
    # floored here, since an Arrow cast refuses to drop digits
    stamps = {
        c: rows[c].dt.floor("us") for c in rows if isinstance(rows[c].dtype, pd.DatetimeTZDtype)
    }
    return pa.Table.from_pandas(
        rows.drop(columns="run_id").assign(**stamps), schema=schema, preserve_index=False
    )


def _partition_name(run_id: object) -> str:
    """``run_id=<id>``, the id URI-encoded as hive readers expect; hostile ids are refused."""
    from urllib.parse import quote

    text = "" if run_id is None or pd.isna(run_id) else str(run_id)
    if not text.strip() or text == _HIVE_NULL:
        raise AnfperfError(f"run id {text!r} cannot name a store partition: give --run-id")
    encoded = quote(text, safe="")
    if len(encoded.encode()) > MAX_RUN_ID_BYTES:
        raise AnfperfError(
            f"run id {text[:40]!r}... is too long for a store partition "
            f"({len(encoded.encode())} bytes encoded, at most {MAX_RUN_ID_BYTES}): give --run-id"
        )
    return f"run_id={encoded}"


def _save_dataset(frame: pd.DataFrame, path: Path) -> None:
    """Replace the partitions of the runs in `frame`, one file each, atomically.

    Each run's rows go to a temporary file in its partition folder, flushed to disk, then
    renamed over ``data.parquet``: a reader (or a writer killed at any point) sees the old run
    or the new one, never a mix or a half-written file. A lock keeps concurrent saves apart.
    Runs are saved in turn; when one cannot be (a full disk), the error names the runs saved
    before it and those not saved (:class:`anfperf.errors.StoreWriteError`).
    """
    import fcntl

    if path.exists() and not path.is_dir():
        raise AnfperfError(f"{path}: exists and is not a folder")
    names = {r: _partition_name(r) for r in frame["run_id"].unique()}  # refuse before writing
    schema = arrow_schema()
    try:
        path.mkdir(parents=True, exist_ok=True)
        lock = _open_lock(path / LOCK_NAME)
    except OSError as exc:
        raise AnfperfError(f"{path}: cannot write to the store: {exc}") from exc
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _remove_stale(path.glob(f"run_id=*/{TMP_PREFIX}*"))  # left by writers that were killed
        saved: dict[str, None] = {}  # in the order saved
        for run_id, rows in frame.groupby("run_id", sort=False, observed=True):
            folder = path / names[run_id]
            table = _part_table(rows, schema)
            try:
                _write_part(table, folder)
            except OSError as exc:
                unsaved = [str(r) for r in names if str(r) not in saved]
                raise StoreWriteError(
                    path, f"could not write run {run_id!r}: {exc}", saved=list(saved),
                    unsaved=unsaved,
                ) from exc  # fmt: skip
            saved[str(run_id)] = None


def _open_lock(path: Path) -> BinaryIO:
    """The store's lock file, opened for appending without waiting: a FIFO in its place (which
    an open for writing would wait on for a reader, forever) or any other file that is not
    regular is refused."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o644)
    except OSError as exc:  # a FIFO without a reader, a socket: ENXIO
        if exc.errno == errno.ENXIO and (reason := not_regular_reason(os.stat(path).st_mode)):
            raise AnfperfError(f"{path}: the store's lock file {reason}") from None
        raise
    try:
        if (reason := not_regular_reason(os.fstat(fd).st_mode)) is not None:
            raise AnfperfError(f"{path}: the store's lock file {reason}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "ab")
    except BaseException:
        os.close(fd)
        raise


def _write_part(table: pa.Table, folder: Path) -> None:
    """`table` as the partition file of `folder`, atomically; nothing of it left on failure."""
    created = not folder.is_dir()
    try:
        folder.mkdir(exist_ok=True)
        atomic_write(
            folder / PART_NAME,
            lambda f: pq.write_table(table, f, write_page_checksum=True),
            temporary=lambda p: _locked_temporary(p.parent),
        )
    except OSError:
        if created:  # a folder without a part file is no run: do not leave it behind
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    # parts of the layout before one-file partitions: the new file replaces them
    for old in folder.glob("*.parquet"):
        if old.name != PART_NAME:
            old.unlink()


def _bins_json(bins: object) -> str | None:
    if not isinstance(bins, dict):
        return None
    return json.dumps({k: np.asarray(v).tolist() for k, v in bins.items()})


# --------------------------------------------------------------------------------------------
# Reading a store back


#: Columns of :func:`list_runs`.
RUN_COLUMNS = ["run_id", "tool", "workloads", "hosts", "start", "end", "rows"]


def _partitions(store: str | os.PathLike) -> dict[str, list[str]]:
    """Run id -> the Parquet files of its partition, or a clear error when `store` is not one.

    From the folder names alone (URI-decoded as pandas, pyarrow and DuckDB decode them): no file
    is opened here. Every entry named ``*.parquet`` counts, whatever it is (a folder, a link to
    nothing, a FIFO): :func:`check_parts` names those, instead of their runs vanishing.
    """
    from urllib.parse import unquote

    path = Path(store)
    if not path.exists():
        raise AnfperfError(f"{path}: no such store (a folder written by anfperf ingest --out)")
    if not path.is_dir():
        raise AnfperfError(f"{path}: is a file, not a store (a folder of run_id=<id>/ folders)")
    parts = {}
    for folder in sorted(path.glob("run_id=*")):
        # names starting with '.' are writers' temporaries
        files = sorted(str(f) for f in folder.glob("*.parquet") if not f.name.startswith("."))
        if files:
            parts[unquote(folder.name.removeprefix("run_id="))] = files
    if not parts and (path / LOCK_NAME).exists():
        raise AnfperfError(f"{path}: the store holds no run yet (no run was saved whole)")
    if not parts:
        raise AnfperfError(f"{path}: not an anfperf store: no run_id=<id>/*.parquet inside")
    return parts


def is_store(path: str | os.PathLike) -> bool:
    """Whether `path` is a store's folder (``run_id=<id>/*.parquet`` inside, or its lock file).

    Only its entries and its ``run_id=`` folders' are looked at: cheap on raw outputs too.
    """
    path = Path(path)
    if not path.is_dir():
        return False
    return (path / LOCK_NAME).exists() or any(path.glob("run_id=*/*.parquet"))


class DamagedPartWarning(UserWarning):
    """A part file of a store cannot be read (truncated, overwritten, not a file, another
    schema): its run was left out (:class:`DamagedPart` says which and why)."""


@dataclass(frozen=True)
class DamagedPart:
    """A part file of a store that cannot be read as one: its run is left out.

    Attributes
    ----------
    run_id : str
        The run whose partition holds it.
    path : str
        The part file.
    reason : str
        Why it cannot be read: cut short, a page that does not decode or fails its checksum,
        a folder, a link to nothing, a FIFO, a Parquet file of another schema, ...
    """

    run_id: str
    path: str
    reason: str

    @property
    def left_out(self) -> str:
        """What became of it, in words: ``damaged part file, run '<id>' left out (<why>)``."""
        return f"damaged part file, run {self.run_id!r} left out ({self.reason})"

    def __str__(self) -> str:
        return f"{self.path}: {self.left_out}"


class PartCheck(NamedTuple):
    """What :func:`check_parts` found: the runs whose parts read whole, and the damaged parts."""

    good: dict[str, list[str]]  # run id -> its part files, each read whole
    damaged: list[DamagedPart]  # in the order of the store's runs


class _Damaged(Exception):
    """A part file that cannot be read as one (the reason)."""


#: Columns every part holds, whatever anfperf wrote it: the tidy frame's key without the run
#: id (the partition folder says it) and `source` (stores written before it lack it).
_PART_KEY_COLUMNS = [c for c in KEY_COLUMNS if c not in ("run_id", "source")]


def check_parts(store: str | os.PathLike, run_ids: Iterable[str] | None = None) -> PartCheck:
    """Check the part files of a store (or of some of its runs): the good ones and the damaged.

    Each part is read whole, every page decoded (and its checksum verified, where the writer
    put one: :func:`save_frame` does), for a part overwritten in the middle keeps its footer
    intact; nothing is cached between calls. A part is damaged when it is not a regular file
    (a folder, a link to nothing, a FIFO: opened without waiting), does not read whole, or is
    a Parquet file of another schema (a column outside :func:`arrow_schema`, one of another
    type, or none of the tidy frame's key columns). :func:`list_runs` and :func:`load_store`
    make the same check as they read.

    Parameters
    ----------
    store : str or os.PathLike
        Folder written by :func:`save_frame`.
    run_ids : iterable of str, optional
        Only these runs (each must be in the store); every run when None.

    Returns
    -------
    PartCheck
        ``good``: run id -> its part files, all readable; ``damaged``: one
        :class:`DamagedPart` per part that is not (a run with one is not in ``good``).

    Raises
    ------
    anfperf.AnfperfError
        `store` is missing or not a store, or a run of `run_ids` is not in it.
    """
    parts = _chosen(store, _partitions(store), run_ids)
    good: dict[str, list[str]] = {}
    damaged: list[DamagedPart] = []
    for run_id, result in _read_parts(parts, arrow_schema(), columns=[]):
        if isinstance(result, DamagedPart):
            damaged.append(result)
        else:
            good[run_id] = parts[run_id]
    return PartCheck(good, damaged)


def _chosen(
    store: str | os.PathLike, parts: dict[str, list[str]], run_ids: Iterable[str] | None
) -> dict[str, list[str]]:
    """The partitions of `run_ids` (all when None); an unknown run id is an error."""
    if run_ids is None:
        return parts
    wanted = list(dict.fromkeys(run_ids))
    missing = [r for r in wanted if r not in parts]
    if missing:
        raise AnfperfError(f"{store}: no run(s) {missing}; the store holds {sorted(parts)}")
    return {r: parts[r] for r in wanted}


def _read_parts(parts: dict[str, list[str]], schema: pa.Schema, columns: list[str] | None = None):
    """(run id, its rows as an Arrow table with a `run_id` column) for each run of `parts`, in
    their order, or (run id, :class:`DamagedPart`) for a run one of whose part files cannot be
    read.

    Each file is read whole (the check); of it, only `columns` are kept (all when None), so
    that listing a store holds no more than the columns it lists. One run at a time: a pool
    of threads gained nothing measurable on two cores.
    """
    for run_id, files in parts.items():
        yield run_id, _read_run(run_id, files, schema, columns)


def _read_run(
    run_id: str, files: list[str], schema: pa.Schema, columns: list[str] | None
) -> pa.Table | DamagedPart:
    """The rows of one run's part files (`columns` of them), or its first damaged part."""
    tables = []
    for file in files:
        try:
            table = _read_part(file, schema)
        except _Damaged as exc:
            return DamagedPart(run_id, file, str(exc))
        if columns is not None:
            table = table.select([c for c in columns if c in table.column_names])
        tables.append(table)
    table = tables[0] if len(tables) == 1 else _concat(tables)
    run = pa.repeat(pa.scalar(run_id, pa.string()), table.num_rows)
    return table.append_column("run_id", run)


def _read_part(file: str, schema: pa.Schema) -> pa.Table:
    """The whole of one part file, every page decoded; :class:`_Damaged` says why not."""
    try:  # without waiting: a FIFO in place of a part opens at once, and is refused
        fd = open_regular(file)
    except ParseError as exc:
        link = os.path.islink(file) and not os.path.exists(file)
        raise _Damaged("is a link to nothing" if link else exc.reason) from None
    try:
        with open(fd, "rb") as f:  # one read: the check decodes every byte of it anyway
            data = f.read()
    except OSError as exc:
        raise _Damaged(f"cannot be read: {exc.strerror or exc}") from None
    try:
        parquet = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True)
        if (foreign := _foreign_schema(parquet.schema_arrow, schema)) is not None:
            raise _Damaged(f"not a part of an anfperf store: {foreign}")
        return parquet.read(use_threads=False)  # the file's columns: small, many files
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise _Damaged(str(exc).splitlines()[0] or type(exc).__name__) from None


def _foreign_schema(schema: pa.Schema, store: pa.Schema) -> str | None:
    """Why a part of schema `schema` is not one of a store of schema `store` (None: it is).

    Columns may be missing (stores written before them: the tidy frame's defaults fill them),
    except the key columns; timestamps may be of any unit (stores of nanoseconds).
    """
    extra = [name for name in schema.names if store.get_field_index(name) < 0]
    if extra:
        return f"columns outside its schema {extra}"
    missing = [name for name in _PART_KEY_COLUMNS if name not in schema.names]
    if missing:
        return f"no column(s) {missing}"
    for field in schema:
        expected = store.field(field.name).type
        if not _same_kind(field.type, expected):
            return f"column {field.name!r} is {field.type}, not {expected}"
    return None


def _same_kind(actual: pa.DataType, expected: pa.DataType) -> bool:
    """Whether a column of type `actual` reads as one of type `expected` (an all-null column
    reads as any; a dictionary as its values; text, integers, timestamps of any width)."""
    if pa.types.is_dictionary(actual):
        actual = actual.value_type
    if pa.types.is_dictionary(expected):
        expected = expected.value_type
    if pa.types.is_null(actual):
        return True
    if pa.types.is_struct(expected):
        names = [expected.field(i).name for i in range(expected.num_fields)]
        return (
            pa.types.is_struct(actual)
            and [actual.field(i).name for i in range(actual.num_fields)] == names
            and all(_same_kind(actual.field(n).type, expected.field(n).type) for n in names)
        )
    if pa.types.is_list(expected) or pa.types.is_large_list(expected):
        lists = pa.types.is_list(actual) or pa.types.is_large_list(actual)
        return lists and _same_kind(actual.value_type, expected.value_type)
    kinds = (
        pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view,
    )  # fmt: skip
    if any(is_kind(expected) for is_kind in kinds):
        return any(is_kind(actual) for is_kind in kinds)
    for is_kind in (pa.types.is_integer, pa.types.is_timestamp, pa.types.is_boolean):
        if is_kind(expected):
            return is_kind(actual)
    if pa.types.is_floating(expected):  # a number column some engine wrote as integers
        return pa.types.is_floating(actual) or pa.types.is_integer(actual)
    return actual == expected


def _concat(tables: list[pa.Table]) -> pa.Table:
    """Tables of parts written by different anfperf versions as one: columns some lack are
    null there, timestamps of one unit."""
    return pa.concat_tables(tables, promote_options="permissive")


def _read_store(
    store: str | os.PathLike,
    parts: dict[str, list[str]],
    damaged: list[DamagedPart] | None,
    *,
    leave_out: bool = True,
    columns: list[str] | None = None,
) -> pa.Table:
    """The rows of the runs of `parts`, every part checked (:func:`check_parts`).

    A damaged part leaves its run out (`leave_out`): added to `damaged` when it is a list,
    else warned (:class:`DamagedPartWarning`); or is an error naming it.
    """
    tables = []
    found: list[DamagedPart] = []
    for run_id, result in _read_parts(parts, arrow_schema(), columns):
        if not isinstance(result, DamagedPart):
            tables.append(result)
        elif not leave_out:
            raise AnfperfError(
                f"{result.path}: damaged part file, run {run_id!r} cannot be read ({result.reason})"
            )
        else:
            found.append(result)
    if found and not tables:
        raise AnfperfError(
            f"{store}: no readable run: {len(found)} damaged part files, e.g. {found[0].path} "
            f"({found[0].reason})"
        )
    if damaged is not None:
        damaged.extend(found)
    else:
        for part in found:
            warn(str(part), DamagedPartWarning)
    if not tables:  # no run asked for
        return arrow_schema().append(pa.field("run_id", pa.string())).empty_table()
    return _concat(tables)


def _query(store: str | os.PathLike, sql: str, table: pa.Table) -> pa.Table:
    """Run `sql` over `table` (the view ``runs``) in DuckDB; an Arrow table."""
    import duckdb

    con = duckdb.connect()
    try:
        con.register("runs", table)
        return con.sql(sql).to_arrow_table()
    except duckdb.Error as exc:  # the query's own fault: the rows were read and checked
        raise AnfperfError(f"{store}: query failed: {exc}") from exc
    finally:
        con.close()


#: What :func:`list_runs` reads of each run, once its part is checked.
_RUN_SOURCE_COLUMNS = ["tool", "workload", "host", "timestamp", "time_s", "runtime_s"]


def list_runs(
    store: str | os.PathLike, *, damaged: list[DamagedPart] | None = None
) -> pd.DataFrame:
    """The runs in a store, one row each.

    Every part file is checked as it is read (:func:`check_parts`); of its rows, only what the
    listing shows is kept.

    Parameters
    ----------
    store : str or os.PathLike
        Folder written by :func:`save_frame`.
    damaged : list, optional
        When given, the damaged part files found (:class:`DamagedPart`) are added to it instead
        of being warned.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`RUN_COLUMNS`: run_id, tool, workloads (comma-separated), hosts (client
        hosts, the 'all' aggregate left out), start (the earliest row's timestamp less the time
        it covers: fio stamps a job's row when it ends), end (the last timestamp), UTC; rows.

    Warns
    -----
    DamagedPartWarning
        A run's part file cannot be read (cut short, overwritten, not a file, another schema):
        the run is left out, the file named; the other runs are listed.

    Raises
    ------
    anfperf.AnfperfError
        `store` is missing or not a store, or none of its part files can be read.
    """
    rows = _read_store(store, _partitions(store), damaged, columns=_RUN_SOURCE_COLUMNS)
    table = _query(
        store,
        "SELECT run_id, string_agg(DISTINCT CAST(tool AS VARCHAR), ', ') AS tool, "
        "list(DISTINCT workload) AS workloads, "
        "count(DISTINCT host) FILTER (WHERE host <> 'all') AS hosts, "
        # a row's timestamp is when its interval or job ended: the run began that much earlier
        "min(timestamp - to_microseconds(CAST(1e6 * coalesce(time_s, runtime_s, 0) AS BIGINT))) "
        "AS start, max(timestamp) AS end, count(*) AS rows FROM runs "
        "GROUP BY run_id ORDER BY start, run_id",
        rows,
    )
    out = table.to_pandas()
    # a loop's workloads (bs4k .. bs1024k, qd1 .. qd128) in their numbers' order, not as text
    out["workloads"] = [
        ", ".join(sorted((str(w) for w in names if w is not None), key=natural_key))
        for names in out["workloads"]
    ]
    out["hosts"] = out["hosts"].astype("int64").clip(lower=1)
    for col in ("start", "end"):  # the tidy frame's unit, whatever the part files hold
        out[col] = pd.to_datetime(out[col], utc=True).dt.as_unit("ns")
    return out[RUN_COLUMNS]


def load_store(
    store: str | os.PathLike,
    *,
    run_ids: str | list[str] | None = None,
    where: str | None = None,
    damaged: list[DamagedPart] | None = None,
) -> pd.DataFrame:
    """A store (or some of its runs) back as the tidy frame, with the schema's dtypes.

    Parameters
    ----------
    store : str or os.PathLike
        Folder written by :func:`save_frame` (``anfperf ingest --out DIR``).
    run_ids : str or list of str, optional
        Only these runs; each must be in the store. Other runs' files are not read.
    where : str, optional
        A DuckDB SQL condition on the columns, e.g. ``"bs_kib >= 64 AND host <> 'all'"``,
        evaluated by DuckDB over the rows read (trusted text: it is run as SQL).
    damaged : list, optional
        When given, the damaged part files found (:class:`DamagedPart`) are added to it instead
        of being warned.

    Returns
    -------
    pandas.DataFrame
        The tidy frame (:func:`anfperf.schema.conform`), latency histograms as dicts.

    Warns
    -----
    DamagedPartWarning
        A run's part file cannot be read (cut short, overwritten, not a file, another schema:
        :func:`check_parts`): without `run_ids`, the run is left out, the file named, and the
        other runs are loaded.

    Raises
    ------
    anfperf.AnfperfError
        Missing or not a store, an unknown run id (the error lists the runs there are), a run
        of `run_ids` whose part file cannot be read (named), no readable part file at all, or
        a bad `where`.
    """
    from anfperf.schema import conform

    if isinstance(run_ids, str):
        run_ids = [run_ids]
    # only the partitions asked for: the other runs' files are never opened
    parts = _chosen(store, _partitions(store), run_ids)
    # runs asked for by name are never left out quietly: a damaged one is an error
    table = _read_store(store, parts, damaged, leave_out=run_ids is None)
    if where:
        table = _query(store, f"SELECT * FROM runs WHERE ({where})", table)
    frame = table.to_pandas()
    if "lat_bins" in frame:
        frame["lat_bins"] = [_bins_dict(b) for b in frame["lat_bins"]]
    return conform(frame)


def _bins_dict(bins: object) -> dict | None:
    """A histogram as the readers make it: {'ns': [...], 'count': [...]}; None when absent."""
    if isinstance(bins, dict) and bins.get("ns") is not None:
        return {k: np.asarray(v) for k, v in bins.items()}
    return None
