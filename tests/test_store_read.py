"""Reading a store back: DuckDB over the hive-partitioned Parquet folder."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import anfperf
from anfperf.cli import main
from anfperf.errors import AnfperfError
from anfperf.store import list_runs, load_store, save_frame
from tests.conftest import DATA, TESTS

SAMPLES = TESTS.parent / "data" / "samples"
KEY = ["run_id", "source_file", "host", "job", "step", "direction", "interval"]


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many(
            [DATA / "vdbench" / "MultiHostSeqMix", SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json",
             SAMPLES / "fio" / "randread_qd4.json"]
        )  # fmt: skip


@pytest.fixture(scope="module")
def store(frame, tmp_path_factory):
    return save_frame(frame, tmp_path_factory.mktemp("s") / "store")


def ordered(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(KEY, kind="stable").reset_index(drop=True)


def test_save_then_load_gives_the_same_frame(frame, store):
    back = load_store(store)
    a, b = ordered(frame), ordered(back)
    pd.testing.assert_frame_equal(a.drop(columns="lat_bins"), b.drop(columns="lat_bins"))
    assert a["lat_bins"].notna().sum() == b["lat_bins"].notna().sum() > 0
    for x, y in zip(a["lat_bins"].dropna(), b["lat_bins"].dropna(), strict=True):
        np.testing.assert_array_equal(x["ns"], y["ns"])
        np.testing.assert_array_equal(x["count"], y["count"])
    # pandas still reads the folder as it is
    assert len(pd.read_parquet(store)) == len(frame)


def test_load_some_runs_or_a_filter(frame, store):
    one = load_store(store, run_ids="MultiHostSeqMix")
    assert set(one["run_id"]) == {"MultiHostSeqMix"}
    assert len(one) == (frame["run_id"] == "MultiHostSeqMix").sum()
    big = load_store(store, where="bs_kib >= 64 AND host <> 'all'")
    expected = frame[(frame["bs_kib"] >= 64) & (frame["host"] != "all")]
    assert len(big) == len(expected) > 0
    with pytest.raises(AnfperfError, match=r"no run\(s\) \['nope'\]; the store holds"):
        load_store(store, run_ids=["nope"])
    with pytest.raises(AnfperfError, match="query failed"):
        load_store(store, where="no_such_column > 1")


def test_list_runs_without_loading_rows(frame, store):
    runs = list_runs(store).set_index("run_id")
    assert runs.loc["MultiHostSeqMix", "hosts"] == 2
    assert runs.loc["MultiHostSeqMix", "tool"] == "vdbench"
    assert runs["rows"].to_dict() == frame.groupby("run_id").size().to_dict()
    assert runs.loc["qd_sweep_randread4k", "workloads"] == "qd1, qd16, qd2, qd32, qd4, qd64, qd8"
    first = frame[frame["run_id"] == "MultiHostSeqMix"]["timestamp"].min()
    assert runs.loc["MultiHostSeqMix", "start"] == first


def test_not_a_store_is_a_clear_error(tmp_path):
    with pytest.raises(AnfperfError, match="no such store"):
        list_runs(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AnfperfError, match="not an anfperf store"):
        load_store(tmp_path / "empty")


def test_cli_runs_lists_the_store(store, capsys):
    assert main(["runs", str(store)]) == 0
    out = capsys.readouterr().out
    assert "MultiHostSeqMix" in out and "3 runs" in out
    assert main(["runs", str(store.parent / "nothing")]) == 2
