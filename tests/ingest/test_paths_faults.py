"""Walking input folders (issue 9, items 19-20): links followed once, unreadable folders named,
file names that are not UTF-8 read and stored."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings

import pandas as pd
import pytest

import anfperf
from anfperf.cli import main
from anfperf.store import load_store
from tests.conftest import DATA, DROP_CAPS, TESTS

VDBENCH = DATA / "vdbench"


def runs_in(paths) -> set[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return set(anfperf.read_many(paths)["run_id"])


def test_linked_run_folders_are_read_and_a_link_loop_ends(tmp_path):
    linked = {p.name for p in VDBENCH.iterdir() if p.is_symlink()}
    assert linked  # tests/data/vdbench links four runs of data/samples
    every = {p.name for p in VDBENCH.iterdir() if (p / "flatfile.html").exists()}
    assert runs_in([VDBENCH]) == every
    (tmp_path / "in").mkdir()
    shutil.copy(DATA / "fio" / "randread_qd4.json", tmp_path / "in" / "a.json")
    (tmp_path / "in" / "loop").symlink_to(tmp_path / "in")  # a folder linking to itself
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([tmp_path / "in"])
    assert frame["source_file"].nunique() == 1  # read once, not once per trip round the loop


def test_an_unreadable_folder_is_named_and_the_rest_is_read(tmp_path):
    (tmp_path / "in" / "locked").mkdir(parents=True)
    shutil.copy(DATA / "fio" / "randread_qd4.json", tmp_path / "in" / "a.json")
    shutil.copy(DATA / "fio" / "randread_qd4.json", tmp_path / "in" / "locked" / "b.json")
    (tmp_path / "in" / "locked").chmod(0)
    # root reads everything: without capabilities it is an ordinary user for this folder
    prefix = DROP_CAPS if os.geteuid() == 0 and shutil.which("setpriv") else []
    try:
        proc = subprocess.run(
            [*prefix, sys.executable, "-m", "anfperf.cli", "ingest", str(tmp_path / "in")],
            capture_output=True, text=True, timeout=60, cwd=TESTS.parent,
        )  # fmt: skip
    finally:
        (tmp_path / "in" / "locked").chmod(0o755)
    assert proc.returncode == 1, proc.stderr
    assert (
        f"skipped {tmp_path / 'in' / 'locked'}: cannot be read (Permission denied)" in proc.stderr
    )
    assert "1 runs" in proc.stdout and "randread-qd4" in proc.stdout


def test_file_names_that_are_not_utf8_are_read_and_stored(tmp_path, capsys):
    folder = os.fsencode(tmp_path / "in")
    os.mkdir(folder)
    shutil.copy(DATA / "fio" / "randread_qd4.json", os.path.join(folder, b"run\xff.json"))
    shutil.copytree(os.fsencode(VDBENCH / "RndMix"), os.path.join(folder, b"vd\xfe"))
    store = tmp_path / "store"
    assert main(["ingest", str(tmp_path / "in"), "--out", str(store)]) == 0
    out = capsys.readouterr().out
    assert "run\\xff" in out and "vd\\xfe" in out
    back = load_store(store)
    assert set(back["run_id"]) == {"run\\xff", "vd\\xfe"}
    assert set(pd.read_parquet(store)["run_id"]) == {"run\\xff", "vd\\xfe"}


@pytest.mark.parametrize("name", [b"\xff\xfe.json"], ids=["only-bad-bytes"])
def test_a_name_of_bad_bytes_alone_is_still_a_run(tmp_path, name):
    folder = os.fsencode(tmp_path)
    shutil.copy(DATA / "fio" / "randread_qd4.json", os.path.join(folder, name))
    assert runs_in([tmp_path]) == {"\\xff\\xfe"}


def test_fio_json_glued_to_stray_text_on_its_line_is_found(tmp_path):
    # `fio ... >out.json` typed as `fio ... >>{` leaves '>' in front of the document
    raw = (DATA / "fio" / "randread_qd4.json").read_bytes()
    glued = tmp_path / "glued.json"
    glued.write_bytes(b"fio: some warning >" + raw.lstrip())
    with pytest.warns(UserWarning, match="text outside the fio JSON, first: 'fio: some warning >'"):
        frame = anfperf.read(glued)
    direct = anfperf.read(DATA / "fio" / "randread_qd4.json")
    assert frame["iops"].tolist() == direct["iops"].tolist()


def test_many_truncated_objects_are_given_up_on_after_a_bounded_number_of_decodes(
    tmp_path, monkeypatch
):
    # each failed decode reads to the end of the file: 100,000 of them took minutes. Counted,
    # not timed (speed lives in benchmarks)
    import json

    from anfperf.errors import ParseError
    from anfperf.ingest.fio_rows import MAX_FAILED_DECODES

    calls = []
    real = json.JSONDecoder.raw_decode
    monkeypatch.setattr(
        json.JSONDecoder,
        "raw_decode",
        lambda self, s, idx=0: (calls.append(idx), real(self, s, idx))[1],
    )
    hostile = tmp_path / "hostile.json"
    hostile.write_text('{"jobs": [\n' * 100_000)  # 1.2 MB of objects that never close
    with pytest.raises(ParseError, match="hostile.json: invalid"):
        anfperf.read(hostile)
    assert len(calls) <= MAX_FAILED_DECODES + 2  # the scan, and one decode for the message
