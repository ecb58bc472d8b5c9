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
