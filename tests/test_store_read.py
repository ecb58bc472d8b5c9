"""Reading a store back: DuckDB over the hive-partitioned Parquet folder, on real outputs."""

from __future__ import annotations

import json
import re
import struct
import warnings
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import anfperf
from anfperf.analysis import provenance
from anfperf.cli import main
from anfperf.errors import AnfperfError
from anfperf.store import (
    PART_NAME,
    RUN_COLUMNS,
    DamagedPartWarning,
    arrow_schema,
    list_runs,
    load_store,
    save_frame,
)
from tests.conftest import TESTS

SAMPLES = TESTS.parent / "data" / "samples"
# Vdbench with host reports and a cross-host aggregate, fio json+ with latency histograms
# (lat_bins), fio client/server, a plain fio run
INPUTS = [
    SAMPLES / "vdbench" / "MultiHostSeqMix",
    SAMPLES / "vdbench" / "RndReadThreads",
    SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json",
    SAMPLES / "fio" / "client_2servers_jsonplus.json",
    SAMPLES / "fio" / "randread_qd4.json",
]
KEY = ["run_id", "source_file", "host", "job", "workload", "step", "direction", "interval"]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fio client/server: text around the JSON is skipped
        return anfperf.read_many(INPUTS)


@pytest.fixture(scope="module")
def store(frame, tmp_path_factory):
    return save_frame(frame, tmp_path_factory.mktemp("s") / "store")


def ordered(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(KEY, kind="stable").reset_index(drop=True)


def test_save_then_load_gives_the_same_frame(frame, store):
    assert not frame.duplicated(KEY).any()  # the sort key orders both frames alike
    assert frame["lat_bins"].notna().sum() > 0 and frame["host"].eq("all").any()
    back = load_store(store)
    # every column, histograms included, with the schema's dtypes
    pd.testing.assert_frame_equal(ordered(back), ordered(frame))


def test_pandas_still_reads_the_folder(frame, store):
    plain = pd.read_parquet(store)
    assert len(plain) == len(frame)
    assert sorted(plain["run_id"].astype(str).unique()) == sorted(frame["run_id"].unique())


def test_some_runs_only_and_other_partitions_are_not_read(frame, store, tmp_path):
    one = load_store(store, run_ids="MultiHostSeqMix")
    expected = frame[frame["run_id"] == "MultiHostSeqMix"]
    pd.testing.assert_frame_equal(ordered(one), ordered(expected))
    two = load_store(store, run_ids=["randread_qd4", "RndReadThreads"])
    assert set(two["run_id"]) == {"randread_qd4", "RndReadThreads"}
    assert len(load_store(store, run_ids=[])) == 0
    # a damaged partition of another run is never opened
    copy = save_frame(frame, tmp_path / "copy")
    (copy / "run_id=qd_sweep_randread4k" / PART_NAME).write_bytes(b"not parquet")
    assert (
        len(load_store(copy, run_ids=["randread_qd4"])) == (frame["run_id"] == "randread_qd4").sum()
    )
    with pytest.warns(DamagedPartWarning, match="run 'qd_sweep_randread4k' left out"):
        assert len(load_store(copy)) == (frame["run_id"] != "qd_sweep_randread4k").sum()


def test_where_is_evaluated_by_duckdb(frame, store):
    big = load_store(store, where="bs_kib >= 64 AND host <> 'all'")
    expected = frame[(frame["bs_kib"] >= 64) & (frame["host"] != "all")]
    pd.testing.assert_frame_equal(ordered(big), ordered(expected))
    whole = load_store(store, run_ids="qd_sweep_randread4k", where="is_summary")
    assert len(whole) == (frame["is_summary"] & (frame["run_id"] == "qd_sweep_randread4k")).sum()
    assert whole["lat_bins"].notna().all()  # json+: every whole-run row has its histogram


def test_unknown_runs_and_bad_conditions_are_clear_errors(store):
    with pytest.raises(AnfperfError, match=r"no run\(s\) \['nope'\]; the store holds \["):
        load_store(store, run_ids=["MultiHostSeqMix", "nope"])
    with pytest.raises(AnfperfError, match="query failed"):
        load_store(store, where="no_such_column > 1")


def test_list_runs_aggregates_in_duckdb(frame, store):
    runs = list_runs(store)
    assert list(runs.columns) == RUN_COLUMNS
    # the tidy frame's unit, though part files hold microseconds
    assert str(runs["start"].dtype) == str(runs["end"].dtype) == "datetime64[ns, UTC]"
    runs = runs.set_index("run_id")
    assert runs["rows"].to_dict() == frame.groupby("run_id").size().to_dict()
    assert runs.loc["MultiHostSeqMix", "hosts"] == 2  # vm1, vm2; not the 'all' aggregate
    assert runs.loc["client_2servers_jsonplus", "hosts"] == 2
    assert runs.loc["MultiHostSeqMix", "tool"] == "vdbench"
    assert runs.loc["qd_sweep_randread4k", "tool"] == "fio"
    # in their numbers' order, not as text (qd1, qd16, qd2, ...)
    assert runs.loc["qd_sweep_randread4k", "workloads"] == "qd1, qd2, qd4, qd8, qd16, qd32, qd64"
    # start and end as a report's runs table has them (fio stamps each row when its job ends:
    # `anfperf runs` showed that end as the start)
    from_results = provenance.runs_table(frame).set_index("run_id")
    for col in ("start", "end"):
        assert (runs[col] == from_results.loc[runs.index, col]).all(), col
    sweep = runs.loc["qd_sweep_randread4k"]
    assert sweep["end"] == frame.loc[frame["run_id"] == "qd_sweep_randread4k", "timestamp"].max()
    assert sweep["start"] < sweep["end"]


def parquet_types(store: Path) -> dict[str, set[str]]:
    """Each leaf column of a store's part files -> its Parquet logical types, as JSON text."""
    types: dict[str, set[str]] = {}
    for part in store.glob(f"run_id=*/{PART_NAME}"):
        for column in pq.ParquetFile(part).schema:
            types.setdefault(column.path, set()).add(column.logical_type.to_json())
    return types


MICROS_UTC = {"Type": "Timestamp", "isAdjustedToUTC": True, "timeUnit": "microseconds"}


def test_part_files_hold_types_every_engine_reads(store):
    # Spark 4 refuses INT64 TIMESTAMP(NANOS) outright (PARQUET_TYPE_ILLEGAL), and reads
    # unsigned integers wider than 32 bits as decimals: neither is in a part file
    types = parquet_types(store)
    (timestamp,) = types["timestamp"]
    assert json.loads(timestamp).items() >= MICROS_UTC.items()
    for column, logical in types.items():
        for text in logical:
            kind = json.loads(text)
            assert kind.get("timeUnit") != "nanoseconds", column
            assert kind.get("isSigned", True), column
    # histograms: a struct of two lists of int64, which Spark, DuckDB, pandas and Dask all read
    assert types["lat_bins.ns.list.element"] == types["lat_bins.count.list.element"]
    assert pq.read_schema(next(store.glob(f"run_id=*/{PART_NAME}"))).field("lat_bins").type == (
        pa.struct([("ns", pa.list_(pa.int64())), ("count", pa.list_(pa.int64()))])
    )


def test_a_frame_finer_than_microseconds_is_saved_to_the_microsecond(frame, tmp_path):
    run = frame[frame["run_id"] == "randread_qd4"]
    finer = run.assign(timestamp=run["timestamp"] + pd.Timedelta(789, "ns"))  # made by hand
    back = load_store(save_frame(finer, tmp_path / "store"))
    assert str(back["timestamp"].dtype) == "datetime64[ns, UTC]"
    assert list(back["timestamp"]) == list(run["timestamp"])  # readers' stamps: whole µs


def save_nanosecond_store(frame: pd.DataFrame, store: Path) -> Path:
    """A store as anfperf wrote it before its part files held microseconds."""
    schema = arrow_schema()
    at = schema.get_field_index("timestamp")
    schema = schema.set(at, pa.field("timestamp", pa.timestamp("ns", tz="UTC")))
    for run_id, rows in frame.groupby("run_id"):
        part = store / f"run_id={run_id}" / PART_NAME
        part.parent.mkdir(parents=True)
        table = pa.Table.from_pandas(
            rows.drop(columns="run_id"), schema=schema, preserve_index=False
        )
        pq.write_table(table, part)
    return store


def test_a_nanosecond_store_still_reads_and_ingest_rewrites_it(frame, tmp_path, capsys):
    old = save_nanosecond_store(frame[frame["run_id"] != "randread_qd4"], tmp_path / "old")
    assert '"timeUnit":"nanoseconds"' in next(iter(parquet_types(old)["timestamp"]))
    save_frame(frame[frame["run_id"] == "randread_qd4"], old)  # a new run beside the old ones
    assert len(parquet_types(old)["timestamp"]) == 2  # both kinds of part in one store

    # anfperf reads the mixed store whole, with the frame's own timestamps
    pd.testing.assert_frame_equal(ordered(load_store(old)), ordered(frame))
    expected_runs = list_runs(old)
    assert str(expected_runs["start"].dtype) == "datetime64[ns, UTC]"
    assert expected_runs["rows"].sum() == len(frame)

    # `anfperf ingest STORE --out STORE` rewrites every run in microseconds, in place
    assert main(["ingest", str(old), "--out", str(old)]) == 0
    assert f"{len(frame)} rows" in capsys.readouterr().out
    (timestamp,) = parquet_types(old)["timestamp"]
    assert json.loads(timestamp).items() >= MICROS_UTC.items()
    pd.testing.assert_frame_equal(ordered(load_store(old)), ordered(frame))
    pd.testing.assert_frame_equal(list_runs(old), expected_runs)

    # a store's damaged part file leaves its run out of what is ingested, named (exit 1)
    damage(old / "run_id=randread_qd4" / PART_NAME, "truncated")
    assert main(["ingest", str(old), "--out", str(tmp_path / "new")]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"anfperf: warning: skipped {old / 'run_id=randread_qd4' / PART_NAME}: ")
    assert "damaged part file, run 'randread_qd4' left out" in line
    kept = frame[frame["run_id"] != "randread_qd4"]
    pd.testing.assert_frame_equal(ordered(load_store(tmp_path / "new")), ordered(kept))


def test_not_a_store_is_a_clear_error(tmp_path, store):
    with pytest.raises(AnfperfError, match="no such store"):
        list_runs(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AnfperfError, match="not an anfperf store"):
        load_store(tmp_path / "empty")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.parquet").write_bytes(b"")  # not in a run_id= folder
    with pytest.raises(AnfperfError, match="not an anfperf store"):
        list_runs(tmp_path / "other")
    with pytest.raises(AnfperfError, match="is a file, not a store"):
        load_store(store / "run_id=randread_qd4" / PART_NAME)


def test_cli_runs_lists_the_store(frame, store, capsys):
    assert main(["runs", str(store)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == RUN_COLUMNS
    assert any(ln.split()[0] == "MultiHostSeqMix" for ln in lines[1:])
    assert f"5 runs, {len(frame)} rows in {store}" in out
    assert main(["runs", str(store.parent / "nothing")]) == 2
    assert "no such store" in capsys.readouterr().err


def damage(part, how: str) -> None:
    """Damage a Parquet file as a crash, a bad disk or a stray write would."""
    data = part.read_bytes()
    if how == "truncated":
        part.write_bytes(data[: len(data) // 2])
    elif how == "overwritten":
        part.write_bytes(b"junk" * (len(data) // 4))
    else:  # "pages": every data page junk, the footer (schema, row groups) intact
        footer = struct.unpack("<i", data[-8:-4])[0] + 8
        part.write_bytes(
            data[:4] + (b"junk" * len(data))[: len(data) - 4 - footer] + data[-footer:]
        )


@pytest.mark.parametrize("how", ["truncated", "overwritten", "pages"])
def test_a_damaged_part_file_leaves_the_other_runs_readable(frame, tmp_path, capsys, how):
    runs = ["MultiHostSeqMix", "randread_qd4", "qd_sweep_randread4k"]
    store = save_frame(frame[frame["run_id"].isin(runs)], tmp_path / "store")
    bad = store / "run_id=randread_qd4" / PART_NAME
    damage(bad, how)
    good = frame[frame["run_id"].isin(["MultiHostSeqMix", "qd_sweep_randread4k"])]
    said = f"{bad}: damaged part file, run 'randread_qd4'"
    named = re.escape(f"{said} left out")

    # the CLI lists the two others, names the damaged file in one line, exit status 1 (partial)
    assert main(["runs", str(store)]) == 1
    out, err = capsys.readouterr()
    listed = [line.split()[0] for line in out.splitlines()[1:] if line.strip()][:-1]
    assert sorted(listed) == sorted(good["run_id"].unique())
    assert f"2 runs, {len(good)} rows in {store}" in out
    [line] = err.splitlines()
    assert re.match(f"anfperf: warning: {named}", line)

    with pytest.warns(DamagedPartWarning, match=named):
        assert sorted(list_runs(store)["run_id"]) == sorted(good["run_id"].unique())
    with pytest.warns(DamagedPartWarning, match=named):
        back = load_store(store)
    pd.testing.assert_frame_equal(ordered(back), ordered(good))
    with pytest.warns(DamagedPartWarning, match=named):
        some = load_store(store, where="host <> 'all' AND direction = 'read'")
    want = good[(good["host"] != "all") & (good["direction"] == "read")]
    pd.testing.assert_frame_equal(ordered(some), ordered(want))
    # DuckDB over the frame loaded
    sizes = duckdb.sql("SELECT run_id, count(*) AS n FROM back GROUP BY run_id").df()
    assert (
        dict(zip(sizes["run_id"], sizes["n"], strict=True))
        == good.groupby("run_id", observed=True).size().to_dict()
    )

    # a run asked for by name is not left out quietly; a bad condition is the query's fault
    with pytest.raises(AnfperfError, match=re.escape(f"{said} cannot be read")):
        load_store(store, run_ids=["MultiHostSeqMix", "randread_qd4"])
    # (the damaged part is named before the query's own error)
    with (
        pytest.warns(DamagedPartWarning),
        pytest.raises(AnfperfError, match="query failed.*no_such_column"),
    ):
        load_store(store, where="no_such_column > 1")
    with pytest.warns(DamagedPartWarning), pytest.raises(AnfperfError, match="query failed"):
        load_store(store, where="CAST(host AS INTEGER) > 1")
    damage(store / "run_id=MultiHostSeqMix" / PART_NAME, how)
    damage(store / "run_id=qd_sweep_randread4k" / PART_NAME, how)
    with pytest.raises(AnfperfError, match="no readable run: 3 damaged part files"):
        list_runs(store)


def test_a_store_written_before_the_source_column_loads_as_client_rows(frame, tmp_path):
    run = frame[frame["run_id"] == "randread_qd4"]
    store = save_frame(run.assign(source="server"), tmp_path / "store")
    assert set(load_store(store)["source"]) == {"server"}  # the column is stored and read back
    (part,) = store.glob(f"run_id=*/{PART_NAME}")
    pq.write_table(pq.read_table(part).drop_columns(["source"]), part)  # as before the column
    back = load_store(store)
    assert len(back) == len(run) and set(back["source"]) == {"client"}
