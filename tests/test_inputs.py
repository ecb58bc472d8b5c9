"""What a report reads: raw outputs or a store, some runs of them, fio logs."""

from __future__ import annotations

import warnings

import pytest

import anfperf
from anfperf.errors import AnfperfError
from anfperf.inputs import fio_log_paths, load_inputs
from anfperf.store import save_frame
from tests.conftest import DATA, TESTS

SAMPLES = TESTS.parent / "data" / "samples"


def test_paths_or_a_store_give_the_same_runs(tmp_path):
    paths = [DATA / "vdbench" / "RndRead", DATA / "fio" / "randread_qd4.json"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = load_inputs(paths)
        save_frame(anfperf.read_many(paths), tmp_path / "store")
    stored = load_inputs(store=tmp_path / "store", run_ids=["RndRead"])
    assert set(stored["run_id"]) == {"RndRead"}
    assert len(stored) == (raw["run_id"] == "RndRead").sum()
    with pytest.raises(AnfperfError, match="either paths"):
        load_inputs(paths, store=tmp_path / "store")
    with pytest.raises(AnfperfError, match="either paths"):
        load_inputs()
    with pytest.raises(AnfperfError, match=r"run id\(s\) \['nope'\] not found"):
        load_inputs(paths, run_ids="nope")
    with pytest.warns(UserWarning, match="nothing-here: no such file"):
        with pytest.raises(AnfperfError, match="no benchmark results"):
            load_inputs([tmp_path / "store" / "nothing-here"])


def test_fio_logs_under_the_inputs_or_by_glob():
    logs = fio_log_paths([SAMPLES])
    assert len(logs) == 28 and all(p.name.endswith(".log.gz") for p in logs)
    assert fio_log_paths([SAMPLES / "vdbench"]) == []
    some = fio_log_paths(None, str(SAMPLES / "fio" / "sweeps" / "logs" / "qd1_*"))
    assert sorted(p.name for p in some) == [
        "qd1_bw.1.log.gz", "qd1_clat.1.log.gz", "qd1_clat_hist.1.log.gz", "qd1_iops.1.log.gz"
    ]  # fmt: skip
