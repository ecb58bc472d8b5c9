"""Saving the tidy frame: CSV, Parquet, or a Parquet dataset that grows run by run."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

from anfperf.errors import AnfperfError


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
        read the folder as it is.

    Returns
    -------
    pathlib.Path
        The file or folder written.
    """
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        path.parent.mkdir(parents=True, exist_ok=True)
        csv = frame.copy()
        csv["lat_bins"] = [_bins_json(b) for b in csv["lat_bins"]]
        csv.to_csv(path, index=False)
    elif suffix in (".parquet", ".pq"):
        path.parent.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(path, index=False)
    elif suffix:
        raise AnfperfError(
            f"{path}: unknown output type {suffix!r}; use .csv, .parquet or a folder"
        )
    else:
        if path.exists() and not path.is_dir():
            raise AnfperfError(f"{path}: exists and is not a folder")
        path.mkdir(parents=True, exist_ok=True)
        ds.write_dataset(
            _to_table(frame),
            path,
            format="parquet",
            partitioning=["run_id"],
            partitioning_flavor="hive",
            # A unique name per save, so saves of other runs never overwrite each other...
            basename_template=f"part-{uuid.uuid4().hex}-{{i}}.parquet",
            # ...and a run saved again replaces its own partition instead of doubling it.
            existing_data_behavior="delete_matching",
        )
    return path


def _to_table(frame: pd.DataFrame) -> pa.Table:
    return pa.Table.from_pandas(frame, preserve_index=False)


def _bins_json(bins: object) -> str | None:
    if not isinstance(bins, dict):
        return None
    return json.dumps({k: np.asarray(v).tolist() for k, v in bins.items()})


# --------------------------------------------------------------------------------------------
# Reading a store back


#: Columns of :func:`list_runs`.
RUN_COLUMNS = ["run_id", "tool", "workloads", "hosts", "start", "rows"]


def _store_glob(store: str | os.PathLike) -> str:
    """The Parquet files of a store, or a clear error when the folder is not one."""
    path = Path(store)
    if not path.is_dir():
        raise AnfperfError(f"{path}: no such store (a folder written by anfperf ingest --out)")
    if not any(path.glob("run_id=*/*.parquet")):
        raise AnfperfError(f"{path}: not an anfperf store: no run_id=<id>/*.parquet inside")
    return str(path / "run_id=*" / "*.parquet")


def _query(store: str | os.PathLike, sql: str, params: list | None = None):
    """Run `sql` with the store as the view ``runs``; DuckDB reads only what it needs."""
    import duckdb

    con = duckdb.connect()
    try:
        source = (
            "WITH runs AS (SELECT * FROM read_parquet(?, hive_partitioning = true, "
            "union_by_name = true, hive_types = {'run_id': VARCHAR})) "
        )
        return con.sql(source + sql, params=[_store_glob(store), *(params or [])]).to_arrow_table()
    except duckdb.Error as exc:
        raise AnfperfError(f"{store}: query failed: {exc}") from exc
    finally:
        con.close()


def list_runs(store: str | os.PathLike) -> pd.DataFrame:
    """The runs in a store, one row each, without loading their rows.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`RUN_COLUMNS`: run_id, tool, workloads (comma-separated), hosts (client
        hosts, the 'all' aggregate left out), start (first timestamp, UTC), rows.

    Raises
    ------
    anfperf.AnfperfError
        `store` is missing or not a store.
    """
    table = _query(
        store,
        "SELECT run_id, string_agg(DISTINCT CAST(tool AS VARCHAR), ', ') AS tool, "
        "string_agg(DISTINCT workload, ', ' ORDER BY workload) AS workloads, "
        "count(DISTINCT host) FILTER (WHERE host <> 'all') AS hosts, "
        "min(timestamp) AS start, count(*) AS rows FROM runs GROUP BY run_id ORDER BY start, run_id",
    )
    out = table.to_pandas()
    out["hosts"] = out["hosts"].astype("int64").clip(lower=1)
    out["start"] = pd.to_datetime(out["start"], utc=True)
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
        A DuckDB SQL condition on the columns, e.g. ``"bs_kib >= 64 AND host <> 'all'"``.

    Returns
    -------
    pandas.DataFrame
        The tidy frame (:func:`anfperf.schema.conform`), latency histograms as dicts.

    Raises
    ------
    anfperf.AnfperfError
        Missing or not a store, an unknown run id (the error lists the runs there are), or a
        bad `where`.
    """
    from anfperf.schema import conform

    conditions, params = [], []
    if run_ids is not None:
        wanted = [run_ids] if isinstance(run_ids, str) else list(run_ids)
        present = set(list_runs(store)["run_id"])
        missing = [r for r in wanted if r not in present]
        if missing:
            raise AnfperfError(f"{store}: no run(s) {missing}; the store holds {sorted(present)}")
        conditions.append(f"run_id IN ({', '.join('?' * len(wanted))})")
        params.extend(wanted)
    if where:
        conditions.append(f"({where})")
    sql = "SELECT * FROM runs" + (" WHERE " + " AND ".join(conditions) if conditions else "")
    frame = _query(store, sql, params).to_pandas()
    if "lat_bins" in frame:
        frame["lat_bins"] = [_bins_dict(b) for b in frame["lat_bins"]]
    return conform(frame)


def _bins_dict(bins: object) -> dict | None:
    """A histogram as the readers make it: {'ns': [...], 'count': [...]}; None when absent."""
    if isinstance(bins, dict) and bins.get("ns") is not None:
        return {k: np.asarray(v) for k, v in bins.items()}
    return None
