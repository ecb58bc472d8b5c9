"""What a report reads: raw outputs or a store, some runs of them, fio logs."""

from __future__ import annotations

import warnings

import pytest

import anfperf
from anfperf.analysis.inputs import Notes, fio_log_paths, load_inputs
from anfperf.errors import AnfperfError
from anfperf.store import PART_NAME, save_frame
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


def test_a_store_among_the_paths_is_named_as_one(tmp_path):
    # a store given where raw outputs go: its Parquet parts are no benchmark output, and the
    # error said only "no benchmark results in <store>"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        store = save_frame(anfperf.read_many([DATA / "fio" / "randread_qd4.json"]), tmp_path / "s")
    notes: list[str] = []
    with pytest.raises(AnfperfError) as caught:
        load_inputs([store], notes=notes)
    assert str(caught.value) == (
        f"no benchmark results in {store}; {store}: a result store (anfperf ingest --out), not "
        "raw outputs: give it as the store (-p store DIR)"
    )
    assert len(load_inputs(store=store)) > 0


def test_a_damaged_run_of_a_store_is_a_note(tmp_path):
    paths = [DATA / "vdbench" / "RndRead", DATA / "fio" / "randread_qd4.json"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        store = save_frame(anfperf.read_many(paths), tmp_path / "store")
    bad = store / "run_id=randread_qd4" / PART_NAME
    bad.write_bytes(b"junk")
    notes: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none escapes: the report shows it on its page
        frame = load_inputs(store=store, notes=notes)
    assert set(frame["run_id"]) == {"RndRead"}
    [note] = notes
    assert note.startswith(f"{bad}: damaged part file, run 'randread_qd4' left out")


def test_fio_logs_under_the_inputs_or_by_glob():
    logs = fio_log_paths([SAMPLES])
    assert len(logs) == 28 and all(p.name.endswith(".log.gz") for p in logs)
    assert fio_log_paths([SAMPLES / "vdbench"]) == []
    some = fio_log_paths(None, str(SAMPLES / "fio" / "sweeps" / "logs" / "qd1_*"))
    assert sorted(p.name for p in some) == [
        "qd1_bw.1.log.gz", "qd1_clat.1.log.gz", "qd1_clat_hist.1.log.gz", "qd1_iops.1.log.gz"
    ]  # fmt: skip


def test_notes_of_reading_are_data_not_warnings(tmp_path):
    # what a report shows on its page: fio's text outside its JSON, a file that is no result
    (tmp_path / "notes.txt").write_text("not a benchmark result\n")
    paths = [DATA / "fio" / "normal_and_json.txt", DATA / "fio" / "randread_qd4.json",
             tmp_path / "notes.txt"]  # fmt: skip
    notes: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none escapes
        frame = load_inputs(paths, notes=notes)
    assert set(frame["source_file"]) == {str(p) for p in paths[:2]}
    assert len(notes) == 2
    assert "normal_and_json.txt: skipped" in notes[0] and "outside the fio JSON" in notes[0]
    assert notes[1].startswith(f"skipped {tmp_path / 'notes.txt'}: ")
    with pytest.warns(UserWarning, match="outside the fio JSON"):  # without notes: warned
        load_inputs(paths[:2])


def test_notes_show_escaped_and_nothing_when_empty():
    shown = Notes("Notes", ["a <vm> note", "b & c"], limit=1)._repr_html_()
    assert "&lt;vm&gt;" in shown and "<vm>" not in shown and "... and 1 more" in shown
    assert "b &amp; c" not in shown
    assert Notes("Notes", [])._repr_html_() == "" and repr(Notes("Notes", [])) == ""
