"""`anfperf report`: parameter files, one report each in parallel, exit codes."""

from __future__ import annotations

import hashlib

import pytest

from anfperf.cli import main
from tests.conftest import DATA

NOTEBOOKS = DATA / "notebooks"

pytestmark = pytest.mark.slow  # report kernels


def test_two_parameter_files_make_two_reports(tmp_path, capsys):
    (tmp_path / "rr.yaml").write_text("path: ../vdbench/RndRead\ntitle: one\n")
    (tmp_path / "thr.yaml").write_text("path: ../vdbench/RndReadThreads\ntitle: two\n")
    out = tmp_path / "out"
    argv = ["report", str(NOTEBOOKS / "interval_report.ipynb"), "--out", str(out), "--jobs", "2",
            "-f", str(tmp_path / "rr.yaml"), "-f", str(tmp_path / "thr.yaml"),
            "-p", "include_warmup", "true"]  # fmt: skip
    assert main(argv) == 0
    printed, said = capsys.readouterr()
    names = ["interval_report-rr", "interval_report-thr"]
    # not a terminal: a line per report as it is done (the batch was silent until its end)
    lines = said.splitlines()
    assert [line[: len("report 1/2 done in ")] for line in lines] == [
        "report 1/2 done in ", "report 2/2 done in "]  # fmt: skip
    assert sorted(line.split(": ")[1] for line in lines) == names
    for name in names:
        assert f"wrote {out / name}.html" in printed
    assert sorted(p.name for p in out.glob("*.html")) == [f"{n}.html" for n in names]
    page = (out / "interval_report-thr.html").read_text(encoding="utf-8")
    summary = DATA / "vdbench" / "RndReadThreads" / "summary.html"
    assert hashlib.sha256(summary.read_bytes()).hexdigest() in page
    assert "../vdbench/RndReadThreads/summary.html" in page
    assert "<code>'two'</code>" in page and "<code>True</code>" in page


def test_failing_report_exits_1_and_names_cell_and_exception(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["report", str(NOTEBOOKS / "failing.ipynb"), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "report failing failed" in err
    assert "cell 3" in err and "ZeroDivisionError: division by zero" in err
    assert f"partial report: {out / 'failing.html'}" in err
    assert (out / "failing.ipynb").is_file()


def test_unknown_parameter_exits_1_without_running(tmp_path, capsys):
    argv = ["report", str(NOTEBOOKS / "failing.ipynb"), "--out", str(tmp_path), "-p", "x", "1"]
    assert main(argv) == 1
    assert "unknown parameter x" in capsys.readouterr().err


def test_bad_parameter_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("- not\n- a mapping\n")
    argv = ["report", str(NOTEBOOKS / "failing.ipynb"), "-f", str(bad), "--out", str(tmp_path)]
    assert main(argv) == 2
    assert "must be a YAML mapping" in capsys.readouterr().err


def test_a_malformed_list_value_is_a_one_line_error(tmp_path, capsys):
    # it was taken as the path '[unclosed' and read as the characters '[', 'u', 'n', ...
    argv = ["report", str(NOTEBOOKS / "failing.ipynb"), "--out", str(tmp_path)]
    assert main([*argv, "-p", "paths", "[unclosed"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("anfperf: error: -p paths: '[unclosed' is not a valid YAML list")
    assert len(err.splitlines()) == 1
    assert not list(tmp_path.iterdir())  # no kernel started, nothing written


def test_one_path_as_text_is_one_input(tmp_path, capsys):
    # '-p paths FILE' was iterated character by character: 10 minutes until the cell timed out
    sample = DATA.parent.parent / "data" / "samples" / "fio" / "randread_qd4.json"
    notebook = DATA.parent.parent / "notebooks" / "benchmark_report.ipynb"
    argv = ["report", str(notebook), "--out", str(tmp_path), "-p", "paths", str(sample)]
    assert main(argv) == 0, capsys.readouterr().err
    page = (tmp_path / "benchmark_report.html").read_text(encoding="utf-8")
    assert "randread_qd4" in page
    assert hashlib.sha256(sample.read_bytes()).hexdigest() in page
