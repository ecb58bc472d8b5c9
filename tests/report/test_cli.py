"""`anfperf report`: parameter files, one report each in parallel, exit codes."""

from __future__ import annotations

import hashlib

from anfperf.cli import main
from tests.conftest import DATA

NOTEBOOKS = DATA / "notebooks"


def test_two_parameter_files_make_two_reports(tmp_path, capsys):
    (tmp_path / "rr.yaml").write_text("path: ../vdbench/RndRead\ntitle: one\n")
    (tmp_path / "thr.yaml").write_text("path: ../vdbench/RndReadThreads\ntitle: two\n")
    out = tmp_path / "out"
    argv = ["report", str(NOTEBOOKS / "interval_report.ipynb"), "--out", str(out), "--jobs", "2",
            "-f", str(tmp_path / "rr.yaml"), "-f", str(tmp_path / "thr.yaml"),
            "-p", "include_warmup", "true"]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    names = ["interval_report-rr", "interval_report-thr"]
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
