"""The anfperf command on real outputs: summary, saved frames, bad files reported."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pyarrow.dataset as ds
import pytest

from anfperf.cli import main
from anfperf.ingest import read_many
from tests.conftest import PUBLIC, require_corpus

DISKSPD = PUBLIC / "diskspd" / "d01_pkb_2.0.21a.xml"


@pytest.fixture
def two_runs(tmp_path):
    require_corpus()
    a = tmp_path / "in" / "runA.xml"
    b = tmp_path / "in" / "runB.xml"
    a.parent.mkdir()
    shutil.copy(DISKSPD, a)
    shutil.copy(DISKSPD, b)
    return a, b


def test_ingest_prints_summary_and_saves_csv(two_runs, tmp_path, capsys):
    out = tmp_path / "frame.csv"
    assert main(["ingest", str(two_runs[0]), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "pkb-044ffc87-0" in printed and "3030" in printed  # 90970 I/Os / 30.02 s
    saved = pd.read_csv(out)
    assert set(saved["direction"]) == {"read", "total"}
    assert saved["iops"].iloc[0] == pytest.approx(read_many([two_runs[0]])["iops"].iloc[0])


def test_parquet_file_round_trips_dtypes(two_runs, tmp_path):
    out = tmp_path / "frame.parquet"
    assert main(["ingest", str(two_runs[0]), "--out", str(out)]) == 0
    back = pd.read_parquet(out)
    direct = read_many([two_runs[0]])
    assert back.dtypes.equals(direct.dtypes)
    pd.testing.assert_frame_equal(back.drop(columns="lat_bins"), direct.drop(columns="lat_bins"))


def test_dataset_folder_grows_run_by_run_and_replaces_a_rerun(two_runs, tmp_path):
    store = tmp_path / "store"
    a, b = two_runs
    assert main(["ingest", str(a), "--out", str(store)]) == 0
    assert main(["ingest", str(b), "--out", str(store)]) == 0
    assert main(["ingest", str(a), "--out", str(store)]) == 0  # run A again: replaced, not doubled
    assert sorted(p.name for p in store.glob("run_id=*")) == ["run_id=runA", "run_id=runB"]
    frame = pd.read_parquet(store)  # pandas reads the hive layout as it is
    assert frame.groupby("run_id", observed=True).size().to_dict() == {"runA": 2, "runB": 2}
    table = ds.dataset(store, partitioning="hive").to_table()
    assert table.num_rows == 4


def test_bad_file_is_reported_and_the_rest_kept(two_runs, tmp_path, capsys):
    bad = two_runs[0].parent / "broken.xml"
    bad.write_text("<Results><System>")
    out = tmp_path / "frame.csv"
    assert main(["ingest", str(two_runs[0].parent), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "broken.xml" in err and "not well-formed" in err
    assert set(pd.read_csv(out)["run_id"]) == {"runA", "runB"}


def test_unknown_output_type_is_a_clear_error(two_runs, tmp_path, capsys):
    assert main(["ingest", str(two_runs[0]), "--out", str(tmp_path / "x.xlsx")]) == 2
    assert "unknown output type" in capsys.readouterr().err


def test_summary_shows_the_cross_host_aggregate_of_a_multi_host_run(capsys):
    from tests.conftest import DATA

    assert main(["ingest", str(DATA / "vdbench" / "MultiHostSeqMix")]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "SeqMix-" in ln]
    assert len(lines) == 2 and all(" all " in ln for ln in lines)  # not vm1/vm2 as well


def test_hostile_file_name_round_trips_through_the_dataset(tmp_path):
    from tests.conftest import DATA

    name = "a b=c;$(touch pwned)%2F'q\""
    (tmp_path / "in").mkdir()
    shutil.copy(DATA / "fio" / "randread_qd4.json", tmp_path / "in" / f"{name}.json")
    assert main(["ingest", str(tmp_path / "in"), "--out", str(tmp_path / "store")]) == 0
    assert [p.name for p in (tmp_path / "store").glob("run_id=*")] == [
        "run_id=a%20b%3Dc%3B%24%28touch%20pwned%29%252F%27q%22"
    ]
    assert list(pd.read_parquet(tmp_path / "store")["run_id"].unique()) == [name]
    from anfperf.store import list_runs, load_store

    assert list(list_runs(tmp_path / "store")["run_id"]) == [name]  # DuckDB decodes it too
    assert set(load_store(tmp_path / "store", run_ids=[name])["run_id"]) == {name}
    assert not (tmp_path / "pwned").exists() and not os.path.exists("pwned")
