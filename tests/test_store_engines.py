"""One store of mixed runs as the engines read it: pandas, DuckDB, Dask and Spark (local mode).

Each engine opens the folder as it is, with its own reader and no anfperf code, and must see
the rows of every run, the same timestamps and a histogram's content. Dask and Spark are the
``[engines]`` extra, Spark needs Java: `make test` installs them; with CI=true a missing engine
fails its test, elsewhere it is skipped with what to install.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import warnings
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

import anfperf
from anfperf.cli import main
from anfperf.store import save_frame
from tests.conftest import QUICK_JVM, TESTS, require

pytestmark = pytest.mark.fio  # the runner's run is real fio

SAMPLES = TESTS.parent / "data" / "samples"
EXTRA = "pip install 'anfperf[engines]'"


class Seen:
    """What an engine saw: rows per run, each run's timestamps [us since 1970, sorted], and the
    histogram of the row of `bins_key`."""

    def __init__(self, rows: dict, stamps_us: dict, bins: dict) -> None:
        self.rows = {str(k): int(v) for k, v in rows.items()}
        self.stamps_us = {str(k): sorted(int(t) for t in v) for k, v in stamps_us.items()}
        self.bins = {k: [int(x) for x in v] for k, v in bins.items()}


@pytest.fixture(scope="module")
def runner_run(fio_bin, tmp_path_factory) -> Path:
    """A real run through the runner: real fio on two hosts (this machine, without SSH)."""
    base = tmp_path_factory.mktemp("fleet")
    (base / "vol").mkdir()
    inventory = base / "inventory.yml"
    inventory.write_text(
        f"volumes: {{vol1: {base / 'vol'}}}\nhosts:\n"
        f"  vm1: {{local: true, workdir: {base / 'wd1'}}}\n"
        f"  vm2: {{local: true, workdir: {base / 'wd2'}}}\n"
    )
    args = ["run", "RndRead", "--hosts", str(inventory), "--tool", "fio", "--out",
            str(base / "raw"), "--set", "duration_s=1", "--set", "warmup_s=0",
            "--set", "file_size_gib=0.004", "--set", "threads=2"]  # fmt: skip
    assert main(args) == 0
    (run_dir,) = (base / "raw").iterdir()
    return run_dir


@pytest.fixture(scope="module")
def frame(runner_run) -> pd.DataFrame:
    """Vdbench from two hosts and their aggregate, fio json+ client/server with histograms,
    and the runner's run."""
    inputs = [
        SAMPLES / "vdbench" / "MultiHostSeqMix",
        SAMPLES / "fio" / "client_2servers_jsonplus.json",
        runner_run,
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fio client/server: text around the JSON is skipped
        frame = anfperf.read_many(inputs)
    assert set(frame["tool"]) == {"vdbench", "fio"} and frame["run_id"].nunique() == 3
    assert frame["timestamp"].notna().all()
    return frame


@pytest.fixture(scope="module")
def store(frame, tmp_path_factory) -> Path:
    return save_frame(frame, tmp_path_factory.mktemp("engines") / "store")


@pytest.fixture(scope="module")
def bins_key(frame, runner_run) -> dict:
    """The runner's run, host vm2, read, whole run: one row, with a histogram."""
    key = {"run_id": runner_run.name, "host": "vm2", "direction": "read", "is_summary": True}
    (at,) = np.flatnonzero(np.logical_and.reduce([frame[k] == v for k, v in key.items()]))
    assert frame["lat_bins"].iloc[at] is not None
    return key


def expected(frame: pd.DataFrame, key: dict) -> Seen:
    (bins,) = frame.loc[np.logical_and.reduce([frame[k] == v for k, v in key.items()]), "lat_bins"]
    return Seen(
        frame.groupby("run_id").size().to_dict(),
        {r: rows["timestamp"].astype("int64") // 1000 for r, rows in frame.groupby("run_id")},
        bins,
    )


def from_pandas_like(data: pd.DataFrame, key: dict) -> Seen:
    """What pandas and Dask hand over: a frame with the partition column, datetimes, dicts."""
    data = data.assign(run_id=data["run_id"].astype(str))  # a category of the folder names
    stamps = data["timestamp"].dt.as_unit("us").astype("int64")
    (bins,) = data.loc[np.logical_and.reduce([data[k] == v for k, v in key.items()]), "lat_bins"]
    return Seen(
        data["run_id"].value_counts().to_dict(),
        {r: stamps[data["run_id"] == r] for r in data["run_id"].unique()},
        bins,
    )


def read_pandas(store: Path, key: dict) -> Seen:
    return from_pandas_like(pd.read_parquet(store), key)


def read_duckdb(store: Path, key: dict) -> Seen:
    con = duckdb.connect()
    con.execute(
        f"CREATE VIEW runs AS SELECT * FROM read_parquet('{store}/*/*.parquet', "
        "hive_partitioning = true)"
    )
    rows = dict(con.sql("SELECT run_id, count(*) FROM runs GROUP BY run_id").fetchall())
    stamps: dict = {}
    for run_id, us in con.sql("SELECT run_id, epoch_us(timestamp) FROM runs").fetchall():
        stamps.setdefault(run_id, []).append(us)
    where = " AND ".join(f"{k} = ?" for k in key)
    ((bins,),) = con.execute(
        f"SELECT lat_bins FROM runs WHERE {where}", list(key.values())
    ).fetchall()
    return Seen(rows, stamps, bins)


def engine_missing(module: str, what: str) -> str | None:
    if importlib.util.find_spec(module) is None:
        return f"{what} is not installed: {EXTRA}"
    return None


def read_dask(store: Path, key: dict) -> Seen:
    require(engine_missing("dask", "Dask"))
    import dask.dataframe as dd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Dask's own use of pandas 3
        data = dd.read_parquet(str(store)).compute()
    return from_pandas_like(data, key)


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    """One local Spark session for the module: one core, one shuffle partition, no UI."""
    require(engine_missing("pyspark", "PySpark"))
    require(
        None
        if shutil.which("java") or os.environ.get("JAVA_HOME")
        else "Spark needs Java: apt-get install openjdk-17-jre-headless"
    )
    from pyspark.sql import SparkSession

    folder = tmp_path_factory.mktemp("spark")
    builder = (
        SparkSession.builder.master("local[1]")
        .appName("anfperf-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.local.dir", str(folder))
        .config("spark.sql.warehouse.dir", str(folder / "warehouse"))
        .config("spark.driver.extraJavaOptions", QUICK_JVM)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyspark on pandas 3: not used here
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def read_spark(store: Path, key: dict, spark) -> Seen:
    from pyspark.sql import functions as F

    runs = spark.read.parquet(str(store))
    types = dict(runs.dtypes)
    assert types["timestamp"] == "timestamp"  # not a bare bigint
    assert types["lat_bins"] == "struct<ns:array<bigint>,count:array<bigint>>"
    rows = {r["run_id"]: r["count"] for r in runs.groupBy("run_id").count().collect()}
    stamps: dict = {}
    for r in runs.select("run_id", F.unix_micros("timestamp").alias("us")).collect():
        stamps.setdefault(r["run_id"], []).append(r["us"])
    chosen = runs
    for k, v in key.items():
        chosen = chosen.where(F.col(k) == v)
    ((bins,),) = chosen.select("lat_bins").collect()
    return Seen(rows, stamps, bins.asDict())


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "dask", "spark"])
def test_every_engine_reads_the_store_as_it_is(engine, frame, store, bins_key, request):
    if engine == "spark":
        seen = read_spark(store, bins_key, request.getfixturevalue("spark"))
    else:
        seen = {"pandas": read_pandas, "duckdb": read_duckdb, "dask": read_dask}[engine](
            store, bins_key
        )
    want = expected(frame, bins_key)
    assert seen.rows == want.rows
    assert seen.stamps_us == want.stamps_us
    assert seen.bins == want.bins and len(want.bins["ns"]) > 10
