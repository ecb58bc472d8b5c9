"""Saving the tidy frame: CSV, Parquet, or a Parquet dataset that grows run by run."""

from __future__ import annotations

import contextlib
import json
import os
import re
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from anfperf.errors import AnfperfError, StoreWriteError, warn
from anfperf.folders import atomic_write

__all__ = [
    "save_frame",
    "DamagedPartWarning",
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
        lock = open(path / LOCK_NAME, "a")
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


def _write_part(table: pa.Table, folder: Path) -> None:
    """`table` as the partition file of `folder`, atomically; nothing of it left on failure."""
    created = not folder.is_dir()
    try:
        folder.mkdir(exist_ok=True)
        atomic_write(
            folder / PART_NAME,
            lambda f: pq.write_table(table, f),
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
    is opened, so choosing runs costs nothing however large the store.
    """
    from urllib.parse import unquote

    path = Path(store)
    if not path.exists():
        raise AnfperfError(f"{path}: no such store (a folder written by anfperf ingest --out)")
    if not path.is_dir():
        raise AnfperfError(f"{path}: is a file, not a store (a folder of run_id=<id>/ folders)")
    parts = {}
    for folder in sorted(path.glob("run_id=*")):
        files = sorted(str(f) for f in folder.glob("*.parquet") if f.is_file())
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
    """A part file of a store cannot be read (truncated, overwritten): its run was left out."""


def _query(
    store: str | os.PathLike, sql: str, parts: dict[str, list[str]], *, leave_out: bool = True
):
    """Run `sql` over the partitions `parts` of the store (the view ``runs``); an Arrow table.

    Only these files are opened, and of them DuckDB reads only the columns and row groups the
    query needs. A run whose part file cannot be read is left out with a
    :class:`DamagedPartWarning` naming the file (`leave_out`), or is an error naming it.
    """
    import duckdb

    con = duckdb.connect()
    try:
        try:
            return _execute(con, sql, parts)
        except duckdb.Error as exc:
            # names and syntax: the query's own fault, found before any data is read
            if isinstance(exc, duckdb.BinderException | duckdb.ParserException):
                raise AnfperfError(f"{store}: query failed: {exc}") from exc
            failure = exc
        # truncated, overwritten: told by their footers, cheaply; damaged pages by querying
        damaged = _bad_footers(parts)
        table = None
        try:
            if len(damaged) < len(parts):
                table = _execute(con, sql, _leaving(parts, damaged))
        except duckdb.Error:
            damaged |= _damaged_parts(store, con, sql, _leaving(parts, damaged))
        if not damaged:  # every run reads alone (a failure of DuckDB's at large)
            raise AnfperfError(f"{store}: query failed: {failure}") from failure
        run_id, (file, reason) = next(iter(damaged.items()))
        if not leave_out:
            raise AnfperfError(
                f"{file}: damaged part file, run {run_id!r} cannot be read ({reason})"
            )
        readable = _leaving(parts, damaged)
        if not readable:
            raise AnfperfError(
                f"{store}: no readable run: {len(damaged)} damaged part files, "
                f"e.g. {file} ({reason})"
            )
        for run_id, (file, reason) in damaged.items():
            warn(
                f"{file}: damaged part file, run {run_id!r} left out ({reason})", DamagedPartWarning
            )
        if table is not None:
            return table
        try:
            return _execute(con, sql, readable)
        except duckdb.Error as exc:
            raise AnfperfError(f"{store}: query failed: {exc}") from exc
    finally:
        con.close()


def _execute(con, sql: str, parts: dict[str, list[str]]):
    """`sql` over the files of `parts` on the DuckDB connection `con`; DuckDB's errors raised."""
    # union_by_name: a store written by an older anfperf may lack newer columns
    source = (
        "WITH runs AS (SELECT * FROM read_parquet(?, hive_partitioning = true, "
        "union_by_name = true, hive_types = {'run_id': VARCHAR})) "
    )
    files = [f for run_files in parts.values() for f in run_files]
    return con.sql(source + sql, params=[files]).to_arrow_table()


def _leaving(parts: dict[str, list[str]], runs: dict) -> dict[str, list[str]]:
    """`parts` without `runs`."""
    return {r: files for r, files in parts.items() if r not in runs}


def _bad_footers(parts: dict[str, list[str]]) -> dict[str, tuple[str, str]]:
    """Run id -> (its part file whose footer cannot be read, why): a file cut short or
    overwritten. Only the footers are read."""
    bad = {}
    for run_id, files in parts.items():
        for file in files:
            try:
                pq.read_metadata(file)
            except (OSError, pa.ArrowException) as exc:
                bad[run_id] = (file, str(exc).splitlines()[0])
                break
    return bad


def _damaged_parts(
    store: str | os.PathLike, con, sql: str, parts: dict[str, list[str]]
) -> dict[str, tuple[str, str]]:
    """Run id -> (its part file that cannot be read, why), found after `sql` failed.

    Each run is queried alone, and the files of a run that fails are read whole: when they
    read, the failure is the query's (a bad column or cast in `sql`), raised as such. Only on
    the error path: each run costs a query.
    """
    import duckdb

    damaged = {}
    for run_id, files in parts.items():
        try:
            _execute(con, sql, {run_id: files})
            continue
        except duckdb.Error as exc:
            failure = exc
        for file in files:
            try:
                _execute(con, "SELECT * FROM runs", {run_id: [file]})
            except duckdb.Error as exc:
                # DuckDB names the file again: said once, first
                reason = str(exc).splitlines()[0].replace(f" '{file}'", "")
                damaged[run_id] = (file, reason)
                break
        else:  # the run's files read whole: the query is at fault, not them
            raise AnfperfError(f"{store}: query failed: {failure}") from failure
    return damaged


def list_runs(store: str | os.PathLike) -> pd.DataFrame:
    """The runs in a store, one row each, without loading their rows.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`RUN_COLUMNS`: run_id, tool, workloads (comma-separated), hosts (client
        hosts, the 'all' aggregate left out), start (the earliest row's timestamp less the time
        it covers: fio stamps a job's row when it ends), end (the last timestamp), UTC; rows.

    Warns
    -----
    DamagedPartWarning
        A run's part file cannot be read (truncated, overwritten): the run is left out, the
        file named; the other runs are listed.

    Raises
    ------
    anfperf.AnfperfError
        `store` is missing or not a store, or none of its part files can be read.
    """
    table = _query(
        store,
        "SELECT run_id, string_agg(DISTINCT CAST(tool AS VARCHAR), ', ') AS tool, "
        "string_agg(DISTINCT workload, ', ' ORDER BY workload) AS workloads, "
        "count(DISTINCT host) FILTER (WHERE host <> 'all') AS hosts, "
        # a row's timestamp is when its interval or job ended: the run began that much earlier
        "min(timestamp - to_microseconds(CAST(1e6 * coalesce(time_s, runtime_s, 0) AS BIGINT))) "
        "AS start, max(timestamp) AS end, count(*) AS rows FROM runs "
        "GROUP BY run_id ORDER BY start, run_id",
        _partitions(store),
    )
    out = table.to_pandas()
    out["hosts"] = out["hosts"].astype("int64").clip(lower=1)
    for col in ("start", "end"):  # the tidy frame's unit, whatever the part files hold
        out[col] = pd.to_datetime(out[col], utc=True).dt.as_unit("ns")
    return out[RUN_COLUMNS]


def load_store(
    store: str | os.PathLike,
    *,
    run_ids: str | list[str] | None = None,
    where: str | None = None,
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
        evaluated by DuckDB while it reads (trusted text: it is run as SQL).

    Returns
    -------
    pandas.DataFrame
        The tidy frame (:func:`anfperf.schema.conform`), latency histograms as dicts.

    Warns
    -----
    DamagedPartWarning
        A run's part file cannot be read (truncated, overwritten): without `run_ids`, the run
        is left out, the file named, and the other runs are loaded.

    Raises
    ------
    anfperf.AnfperfError
        Missing or not a store, an unknown run id (the error lists the runs there are), a run
        of `run_ids` whose part file cannot be read (named), no readable part file at all, or
        a bad `where`.
    """
    from anfperf.schema import conform, empty_frame

    parts = _partitions(store)
    if run_ids is not None:
        wanted = [run_ids] if isinstance(run_ids, str) else list(dict.fromkeys(run_ids))
        missing = [r for r in wanted if r not in parts]
        if missing:
            raise AnfperfError(f"{store}: no run(s) {missing}; the store holds {sorted(parts)}")
        if not wanted:
            return empty_frame()
        # only the partitions asked for: the other runs' files are never opened
        parts = {r: parts[r] for r in wanted}
    sql = "SELECT * FROM runs" + (f" WHERE ({where})" if where else "")
    # runs asked for by name are never left out quietly: a damaged one is an error
    frame = _query(store, sql, parts, leave_out=run_ids is None).to_pandas()
    if "lat_bins" in frame:
        frame["lat_bins"] = [_bins_dict(b) for b in frame["lat_bins"]]
    return conform(frame)


def _bins_dict(bins: object) -> dict | None:
    """A histogram as the readers make it: {'ns': [...], 'count': [...]}; None when absent."""
    if isinstance(bins, dict) and bins.get("ns") is not None:
        return {k: np.asarray(v) for k, v in bins.items()}
    return None
