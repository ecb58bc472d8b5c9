"""read() detects formats; read_many() concatenates; every public output is handled."""

from __future__ import annotations

import gzip
import json
import shutil
import warnings

import pandas as pd
import pytest

from anfperf.errors import ParseError
from anfperf.ingest import (
    MAX_WARNINGS,
    Skipped,
    detect_format,
    expand_paths,
    read,
    read_all,
    read_fio_log,
    read_many,
)
from anfperf.schema import COLUMN_NAMES
from tests.conftest import DATA, PUBLIC, require_corpus

# What each public file is (PROVENANCE.md): a result, a log, or not a result at all.
NOT_RESULTS = {
    "fio/f11_fioplot_fail_shm.json": "failed to setup shm",  # one error line, 35 bytes
    "fio/f09_fioplot_fio333_errprefix.json": "err=22",  # the job failed before any I/O
    "fio/f12_pbench_fio37_client.job": "not fio JSON",  # a job file, not an output
    "fio/f12_perf36_fio_clat_hist.1.log": "damaged",  # counts of 1e20 I/Os in 10 s (fio#827)
    "vdbench/v11_flatfile.html": "header",  # aborted run: only the title line
    "vdbench/v01_paramfile.txt": "not fio JSON",  # an input parameter file
}


def _public_files():
    if not PUBLIC.exists():
        return []
    return sorted(
        p.relative_to(PUBLIC).as_posix()
        for p in PUBLIC.rglob("*")
        if p.is_file() and p.name != "PROVENANCE.md"
    )


@pytest.mark.parametrize("rel", _public_files() or ["<corpus missing>"])
def test_every_public_output_gives_a_frame_or_a_parse_error(rel):
    require_corpus()
    path = PUBLIC / rel
    companion = path.name.split("_", 1)[-1] in {
        "logfile.html", "parmfile.html", "summary.html", "totals.html",
    }  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if path.suffix == ".log":
            # a time series, not a result: read() refuses it, read_fio_log() reads it
            with pytest.raises(ParseError, match="read_fio_log"):
                read(path)
            if rel in NOT_RESULTS:
                with pytest.raises(ParseError, match=NOT_RESULTS[rel]):
                    read_fio_log(path)
            else:
                assert len(read_fio_log(path)) > 0
            return
        if rel in NOT_RESULTS or companion:
            # companions are read through their flatfile; alone they are not a result
            with pytest.raises(ParseError) as info:
                read(path)
            assert str(path) in str(info.value)
            if rel in NOT_RESULTS:
                assert NOT_RESULTS[rel] in str(info.value)
            return
        frame = read(path)
    assert len(frame) > 0
    assert list(frame.columns) == COLUMN_NAMES
    assert (frame["iops"].dropna() >= 0).all()
    assert frame["source_file"].eq(str(path)).all()


def test_read_detects_each_format(tmp_path):
    assert detect_format(DATA / "vdbench" / "RndRead") == "vdbench"
    assert detect_format(DATA / "fio" / "randread_qd4.json") == "fio_json"
    assert detect_format(DATA / "vdbench" / "RndRead" / "flatfile.html") == "vdbench"
    log = next((DATA / "fio_logs").glob("*clat.1.log"))
    assert detect_format(log) == "fio_log"
    # read() gives the tidy frame only: a log is a time series with its own reader
    with pytest.raises(ParseError, match=f"{log.name}.*read it with read_fio_log"):
        read(log)
    clat = read_fio_log(log)
    assert "clat_ms" in clat.columns and "run_id" not in clat.columns
    # nor does read_many mix it into results: named, it is an error of that file
    with pytest.raises(ParseError, match=f"{log.name}.*read_fio_log"):
        read_many([log, DATA / "fio" / "randread_qd4.json"])
    folder = read(DATA / "vdbench" / "RndRead")
    assert set(folder["tool"]) == {"vdbench"} and folder["run_id"].eq("RndRead").all()


def test_gzip_is_detected_by_content(tmp_path):
    raw = (DATA / "fio" / "randread_qd4.json").read_bytes()
    gz = tmp_path / "randread_qd4.json.gz"
    gz.write_bytes(gzip.compress(raw))
    frame = read(gz)
    job = json.loads(raw)["jobs"][0]
    assert frame.query("direction == 'read'")["iops"].iloc[0] == job["read"]["iops"]
    assert frame["run_id"].eq("randread_qd4").all()


def test_read_many_mixes_tools_and_keeps_origins(tmp_path):
    paths = [DATA / "vdbench" / "SeqWrite", DATA / "fio" / "randread_qd4.json"]
    frame = read_many(paths)
    by_tool = frame.groupby("tool", observed=True)["run_id"].unique()
    assert list(by_tool["vdbench"]) == ["SeqWrite"]
    assert list(by_tool["fio"]) == ["randread_qd4"]
    assert frame["source_file"].str.endswith(("flatfile.html", "randread_qd4.json")).any()
    assert frame.dtypes.equals(pd.concat([read(p) for p in paths]).dtypes)


def test_folders_are_searched_and_manifest_names_the_run(tmp_path):
    run = tmp_path / "raw" / "20261122-0102-abc"
    (run / "vm1").mkdir(parents=True)
    manifest = {"run_id": "20261122-0102-abc", "hosts": {"vm1": {}, "vdbench": {}}}
    (run / "manifest.json").write_text(json.dumps(manifest))
    shutil.copy(DATA / "fio" / "randread_qd4.json", run / "vm1" / "fio.json")
    log = next((DATA / "fio_logs").glob("*clat.1.log"))
    shutil.copy(log, run / "vm1" / log.name)  # logs are not results: left out
    shutil.copytree(DATA / "vdbench" / "RndRead", run / "vdbench")
    assert [p.rsplit("/", 1)[-1] for p in expand_paths([tmp_path])] == ["vdbench", "fio.json"]
    frame = read_many([tmp_path])
    assert frame["run_id"].eq("20261122-0102-abc").all()
    assert set(frame["tool"]) == {"fio", "vdbench"}
    # fio outside client mode says 'localhost': the runner's <run_id>/<host>/ folder names it
    assert set(frame.query("tool == 'fio'")["host"]) == {"vm1"}
    assert set(frame.query("tool == 'vdbench'")["host"]) == {"vdbench"}
    assert set(read(run / "vm1" / "fio.json")["host"]) == {"vm1"}


def test_read_many_reports_or_skips_a_bad_file(tmp_path):
    shutil.copy(DATA / "fio" / "randread_qd4.json", tmp_path / "good.json")
    (tmp_path / "bad.json").write_text('{"fio version": "fio-3.33", "jobs": [')
    with pytest.raises(ParseError, match="bad.json"):
        read_many([tmp_path])
    with pytest.warns(UserWarning, match="bad.json"):
        frame = read_many([tmp_path], errors="warn")
    assert frame["run_id"].eq("good").all() and len(frame) > 0


def test_read_all_returns_the_skipped_files_as_data(tmp_path):
    shutil.copy(DATA / "fio" / "randread_qd4.json", tmp_path / "good.json")
    (tmp_path / "bad.json").write_text('{"fio version": "fio-3.33", "jobs": [')
    (tmp_path / "notes.txt").write_text("hello\n")
    log = next((DATA / "fio_logs").glob("*clat.1.log"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # data, not warnings
        frame, skipped, notes = read_all([tmp_path, log])
    assert notes == []  # nothing to say about the one file read
    assert frame["run_id"].eq("good").all()
    assert (
        frame.query("direction == 'read'")["iops"].iloc[0]
        == (
            json.loads((DATA / "fio" / "randread_qd4.json").read_bytes())["jobs"][0]["read"]["iops"]
        )
    )
    assert [s.path for s in skipped] == [str(tmp_path / "bad.json"), str(tmp_path / "notes.txt"),
                                         str(log)]  # fmt: skip
    assert skipped[0].reason.startswith("invalid or truncated JSON")
    assert skipped[1].reason.startswith("not fio JSON")
    assert skipped[2] == Skipped(
        str(log), "is a fio log, not a result: read it with read_fio_log()"
    )
    assert str(skipped[2]) == f"{log}: is a fio log, not a result: read it with read_fio_log()"


@pytest.mark.parametrize("read_ahead", [1, 2, 32])
def test_files_read_ahead_keep_their_order_and_their_errors(tmp_path, monkeypatch, read_ahead):
    import anfperf.ingest as ingest

    monkeypatch.setattr(ingest, "_READ_AHEAD", read_ahead)
    good = (DATA / "fio" / "randread_qd4.json").read_bytes()
    (tmp_path / "runs" / "x").mkdir(parents=True)
    for name in ("a.json", "runs/x/b.json", "runs/c.json", "d.json"):
        (tmp_path / name).write_bytes(good)
    (tmp_path / "truncated.json").write_bytes(good[:100])  # detected, then fails to parse
    (tmp_path / "hello.txt").write_text("hello\n")  # fails detection
    paths = [tmp_path / n for n in ("a.json", "truncated.json", "runs", "hello.txt", "d.json")]
    frame, skipped, _ = read_all(paths)
    reads = frame.query("direction == 'read'")
    # the folder's files in its place (its own files, then its subfolders')
    assert reads["run_id"].tolist() == ["a", "c", "b", "d"]
    assert [s.path for s in skipped] == [str(tmp_path / "truncated.json"),
                                         str(tmp_path / "hello.txt")]  # fmt: skip
    # the first bad file in order stops read_many, though a later one was detected bad first
    with pytest.raises(ParseError, match="truncated.json"):
        read_many(paths)


def test_unknown_content_is_a_parse_error(tmp_path):
    odd = tmp_path / "notes.txt"
    odd.write_text("hello\n")
    with pytest.raises(ParseError, match="not fio JSON"):
        read(odd)
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    with pytest.raises(ParseError, match="empty"):
        read(empty)
    with pytest.raises(ParseError, match="no such file"):
        read(tmp_path / "missing.json")
    with pytest.raises(ParseError, match="without a Vdbench flatfile"):
        detect_format(tmp_path)


def test_prose_that_names_vdbench_is_none_of_the_formats(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# anfperf\n\nRuns Vdbench and fio on a fleet; reads a Vdbench flatfile.\n")
    with pytest.raises(ParseError) as info:
        read(readme)
    assert str(info.value) == (
        f"{readme}: not fio JSON, Vdbench output, DiskSpd XML, DiskSpd text, a fio log or Azure "
        "Monitor metrics JSON; it starts '# anfperf'"
    )
    # what Vdbench writes itself still is Vdbench's, whatever it holds: an aborted run's flatfile
    assert detect_format(b"<title>Vdbench run1/flatfile.html</title><pre>\n") == "vdbench"
    assert detect_format(b"<pre>\nRun totals\n") == "vdbench"
    assert detect_format(b"12:00:01.123 Vdbench distribution: vdbench50407\n") == "vdbench"


def test_read_many_leaves_garbage_collection_as_it_found_it(tmp_path):
    # read_many pauses the cyclic collector while it reads (see _collection_paused)
    import gc

    good = DATA / "fio" / "randread_qd4.json"
    bad = tmp_path / "bad.json"
    bad.write_text('{"fio version": "fio-3.33", "jobs": [')
    assert gc.isenabled()
    assert len(read_many([good])) == 2
    assert gc.isenabled()
    with pytest.raises(ParseError, match="bad.json"):
        read_many([good, bad])
    assert gc.isenabled()  # after an error too
    gc.disable()
    try:
        read_many([good])
        assert not gc.isenabled()  # the caller's choice stands
    finally:
        gc.enable()


def _warned_here(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert caught, "expected a warning"
    return caught


@pytest.mark.parametrize("reader", [read, read_many], ids=lambda f: f.__name__)
def test_reader_warnings_name_the_callers_line_not_anfperfs(reader):
    # fio's text before its JSON is reported; the warning points at the line that asked to read
    # (a notebook cell, a script), not at a line inside anfperf/ingest
    path = DATA / "fio" / "normal_and_json.txt"
    caught = _warned_here(lambda: reader([path] if reader is not read else path))
    assert [w.filename for w in caught] == [__file__] * len(caught)
    assert any("outside the fio JSON" in str(w.message) for w in caught)


def test_read_all_returns_what_reading_had_to_say_as_notes():
    paths = [DATA / "fio" / "normal_and_json.txt", DATA / "fio" / "gtod_reduce.json"] * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # data, not warnings
        result = read_all(paths)
    assert result.skipped == [] and len(result.frame) > 0
    assert len(result.notes) == 2  # each once
    assert "normal_and_json.txt: skipped" in result.notes[0]
    assert "gtod_reduce.json: fio did not measure latency" in result.notes[1]
    with pytest.warns(UserWarning) as given:  # read_many says the same as warnings
        read_many(paths)
    assert [str(w.message) for w in given] == result.notes


def test_read_many_gives_a_batch_of_warnings_once_not_a_flood(tmp_path):
    text = (DATA / "fio" / "normal_and_json.txt").read_bytes()
    n = MAX_WARNINGS + 7
    for i in range(n):  # fio's normal output before the JSON in every file: a note each
        (tmp_path / f"host{i:02d}.txt").write_bytes(text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_many([tmp_path])
    assert frame["source_file"].nunique() == n
    assert len(caught) == MAX_WARNINGS + 1
    assert all("outside the fio JSON" in str(w.message) for w in caught[:MAX_WARNINGS])
    assert str(caught[-1].message).startswith("... and 7 more notes from reading these inputs")
    assert len(read_all([tmp_path]).notes) == n  # all of them, as data


def test_read_many_says_what_it_read_before_a_bad_file_stopped_it(tmp_path):
    shutil.copy(DATA / "fio" / "normal_and_json.txt", tmp_path / "a.txt")
    (tmp_path / "b.json").write_text('{"fio version": "fio-3.33", "jobs": [')
    with (
        pytest.warns(UserWarning, match="a.txt: skipped"),
        pytest.raises(ParseError, match="b.json"),
    ):
        read_many([tmp_path])
