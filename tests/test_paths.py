"""One path is one path: a str or PathLike given where paths are taken names one file or folder."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import anfperf
from anfperf.analysis.inputs import fio_log_paths, load_inputs
from anfperf.analysis.provenance import input_checksums, run_provenance
from anfperf.analysis.sweep import load_sweep
from anfperf.errors import AnfperfError
from anfperf.paths import path_list
from tests.conftest import DATA

FIO_FILE = DATA / "fio" / "randread_qd4.json"
SWEEP_LOGS = DATA / "fio_logs"


def test_one_string_reads_one_file_like_a_list_of_it():
    # read_many('/x/run.json') walked the file system from '/' and failed on /dev/fd/3
    one = anfperf.read_many(str(FIO_FILE))
    assert one.equals(anfperf.read_many([FIO_FILE]))
    assert set(one["source_file"]) == {str(FIO_FILE)}
    assert one.query("is_summary and direction == 'read'")["iops"].iloc[0] > 0
    frame, skipped, _ = anfperf.ingest.read_all(FIO_FILE)
    assert skipped == [] and len(frame) == len(one)


def test_readers_and_reports_take_one_path():
    assert load_inputs(str(FIO_FILE)).equals(load_inputs([str(FIO_FILE)]))
    sums = input_checksums(str(FIO_FILE))
    assert (
        list(sums["path"]) == [str(FIO_FILE)] and sums["bytes"].iloc[0] == FIO_FILE.stat().st_size
    )
    assert run_provenance(paths=str(FIO_FILE))["inputs"]["path"].tolist() == [str(FIO_FILE)]
    logs = fio_log_paths(str(SWEEP_LOGS))
    assert logs and logs == fio_log_paths([SWEEP_LOGS])
    frame, _ = load_sweep(str(DATA / "fio_sweeps"))
    assert frame["run_id"].nunique() >= 1


@pytest.mark.parametrize(
    ("paths", "said"),
    [([FIO_FILE, 5], "int 5 is not a path"), ([None], "NoneType None is not a path"),
     (b"/tmp", "expected a path or a list of paths, got bytes"), (7, "got int 7"),
     ({"a": 1}, "got a mapping"), ([""], "an empty path")],
)  # fmt: skip
def test_what_is_not_a_path_is_named(paths, said):
    with pytest.raises(AnfperfError, match=said):
        anfperf.read_many(paths)


def test_path_list_keeps_paths_as_given():
    assert path_list(None) == []
    assert path_list("a b") == ["a b"]
    assert path_list(Path("x")) == [Path("x")]
    assert path_list(("a", Path("b"))) == ["a", Path("b")]
    assert path_list(p for p in ["g"]) == ["g"]
    assert isinstance(load_inputs(FIO_FILE), pd.DataFrame)
