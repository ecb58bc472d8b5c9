"""`--json` for scripts and CI gates: one JSON document on stdout, keys with units, the values
the library computes; and the exit statuses, defined once and documented alike."""

from __future__ import annotations

import json
import re
import shutil

import pandas as pd
import pytest

from anfperf.analysis.summary import summary_table
from anfperf.cli import EXIT_MEANINGS, ExitCode, main
from anfperf.ingest import read_many
from tests.conftest import DATA, TESTS

README = TESTS.parent / "README.md"
SAMPLES = TESTS.parent / "data" / "samples"
FIO = DATA / "fio" / "randread_qd4.json"


def _json(capsys) -> tuple[dict, str]:
    """stdout parsed whole (nothing else may be there), and stderr."""
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


@pytest.fixture
def store(tmp_path, capsys) -> str:
    """A Parquet store of two real fio runs."""
    (tmp_path / "in").mkdir()
    for name in ("runA", "runB"):
        shutil.copy(FIO, tmp_path / "in" / f"{name}.json")
    out = str(tmp_path / "store")
    assert main(["ingest", str(tmp_path / "in"), "--out", out]) == 0
    capsys.readouterr()
    return out


def test_exit_statuses_are_documented_as_defined():
    # the README's table
    text = README.read_text()
    (table,) = re.findall(r"^\| status \| meaning \|\n\|---\|---\|\n((?:\|.*\|\n)+)", text, re.M)
    documented = {}
    for row in table.splitlines():
        code, meaning = (cell.strip() for cell in row.strip("|").split("|"))
        documented[int(code)] = meaning
    assert documented == {int(c): m for c, m in EXIT_MEANINGS.items()}
    assert set(EXIT_MEANINGS) == set(ExitCode)


def test_help_lists_every_exit_status(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # the epilog wraps its lines
    assert "exit status: 0 done" in out
    for code, meaning in EXIT_MEANINGS.items():
        assert f"{int(code)} {meaning}" in out


def test_runs_json(store, capsys):
    from anfperf.store import list_runs

    assert main(["runs", store, "--json"]) == ExitCode.OK
    doc, err = _json(capsys)
    assert err == ""
    expected = list_runs(store)
    assert [r["run_id"] for r in doc["runs"]] == ["runA", "runB"]
    assert set(doc["runs"][0]) == {"run_id", "tool", "workloads", "hosts", "start_utc",
                                   "end_utc", "rows"}  # fmt: skip
    assert [r["rows"] for r in doc["runs"]] == expected["rows"].tolist()
    assert doc["rows"] == int(expected["rows"].sum()) and doc["warnings"] == []
    start = pd.Timestamp(doc["runs"][0]["start_utc"])
    assert doc["runs"][0]["start_utc"].endswith("Z") and start == expected["start"].iloc[0]


def test_ingest_json_keeps_stdout_for_json_and_names_what_was_skipped(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    shutil.copy(FIO, tmp_path / "in" / "run1.json")
    bad = tmp_path / "in" / "broken.json"
    bad.write_text('{"fio version": "fio-3.33", "jobs": [')
    out = tmp_path / "store"
    status = main(["ingest", str(tmp_path / "in"), "--out", str(out), "--json"])
    assert status == ExitCode.PARTIAL  # a file skipped: done in part
    doc, err = _json(capsys)
    assert f"skipped {bad}" in err  # warnings stay on stderr
    assert [s["path"] for s in doc["skipped"]] == [str(bad)] and doc["skipped"][0]["reason"]
    frame = read_many([tmp_path / "in" / "run1.json"])
    table = summary_table(frame)
    assert doc["rows"] == len(frame) and doc["files"] == 1 and doc["runs"] == ["run1"]
    assert doc["job_steps"] == len(table) == len(doc["summary"])
    assert [r["iops"] for r in doc["summary"]] == pytest.approx(table["iops"].tolist())
    assert doc["summary"][0]["bw_mib_s"] == pytest.approx(table["bw_mib_s"].iloc[0])
    assert doc["out"] == {"path": str(out), "runs_saved": ["run1"], "runs_not_saved": [],
                          "error": None, "damaged_parts": []}  # fmt: skip


def test_ingest_json_of_nothing_readable(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("nothing here\n")
    assert main(["ingest", str(tmp_path / "notes.txt"), "--json"]) == ExitCode.PARTIAL
    doc, _ = _json(capsys)
    assert doc["rows"] == 0 and doc["summary"] == [] and len(doc["skipped"]) == 1


def test_plan_json_is_the_plan(capsys):
    from anfperf.models import plan

    args = ["plan", "--bw-mib-s", "4500", "--bs-kib", "64", "--lat-slo-ms", "2"]
    assert main([*args, "--json"]) == ExitCode.OK
    doc, _ = _json(capsys)
    p = plan(bw_mib_s=4500, bs_kib=64, lat_slo_ms=2)
    buy = doc["buy"]
    assert (buy["level"], buy["volume_type"], buy["vm_size"]) == (p.level, p.volume_type,
                                                                  p.vm_size)  # fmt: skip
    assert buy["quota_tib"] == pytest.approx(p.quota_tib)
    assert buy["throughput_limit_mib_s"] == pytest.approx(p.throughput_limit_mib_s)
    assert (buy["vm_count"], buy["threads_per_vm"]) == (p.vm_count, p.threads_per_vm)
    assert buy["cost_usd_month"] is None  # no prices: no cost, and JSON's null, not NaN
    assert doc["target"] == {"bw_mib_s": 4500.0, "iops": 72000.0, "bs_kib": 64.0,
                             "read_pct": 100.0, "lat_slo_ms": 2.0, "capacity_tib": 0.0}  # fmt: skip
    assert [r["step"] for r in doc["reasoning"]] == p.reasoning["step"].tolist()
    assert len(doc["storage_options"]) == len(p.storage_options)

    prices = {"Premium": 0.000202, "Ultra": 0.000269}  # USD per GiB-hour
    priced = [f"--price={k}={v}" for k, v in prices.items()]
    assert main([*args, *priced, "--json"]) == ExitCode.OK
    doc, _ = _json(capsys)
    p = plan(bw_mib_s=4500, bs_kib=64, lat_slo_ms=2, prices=prices)
    cost = p.storage_options["cost_usd_month"].iloc[0]
    assert doc["buy"]["cost_usd_month"] == pytest.approx(cost) and cost > 0


@pytest.mark.slow  # a report kernel
def test_demo_json_gives_the_headline_numbers(tmp_path, capsys):
    from anfperf.analysis.findings import key_numbers
    from anfperf.store import load_store

    assert main(["demo", "--no-measure", "--out", str(tmp_path / "demo"), "--json"]) == 0
    doc, _ = _json(capsys)  # the phases went to stderr: stdout parses whole
    assert doc["report"].endswith("report.html") and (tmp_path / "demo" / "report.html").exists()
    expected = key_numbers(load_store(doc["store"]), lat_slo_ms=1.0).set_index("run_id")
    runs = {r["run_id"]: r for r in doc["runs"]}
    assert set(runs) == set(expected.index)
    sweep = "qd_sweep_randread4k"
    assert runs[sweep]["peak_iops"] == pytest.approx(expected.loc[sweep, "peak_iops"])
    assert runs[sweep]["knee_iops"] == pytest.approx(expected.loc[sweep, "knee_iops"])
    assert doc["headline"][0].startswith("peak:")


@pytest.mark.slow  # a report kernel
def test_report_json_reads_the_headline_the_page_shows(tmp_path, capsys):
    from anfperf.analysis.findings import key_numbers, peak_run

    sample = str(SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json")
    args = ["report", str(TESTS.parent / "notebooks" / "benchmark_report.ipynb"),
            "-p", "paths", json.dumps([sample]), "--out", str(tmp_path), "--json"]  # fmt: skip
    assert main(args) == ExitCode.OK
    doc, _ = _json(capsys)
    (report,) = doc["reports"]
    assert report["ok"] and report["error"] is None
    assert report["html"] == str(tmp_path / "benchmark_report.html")
    assert report["inputs"][0]["path"] == sample and len(report["inputs"][0]["sha256"]) == 64
    headline = report["headline"]
    peak = peak_run(key_numbers(read_many([sample])))
    assert headline["numbers"]["peak_iops"] == pytest.approx(peak["peak_iops"])
    assert headline["numbers"]["knee_iops"] > 0
    labels = [c["label"] for c in headline["cards"]]
    assert labels[:2] == ["Peak IOPS", "Peak throughput"]
    assert headline["verdict"].startswith("Peak ") and "**" not in headline["verdict"]


def test_a_bug_is_an_internal_error_not_a_partial_result(tmp_path, capsys):
    from anfperf.ingest import register_format
    from anfperf.ingest.registry import Format, unregister_format

    def buggy_rows(data: bytes, source: str) -> list[dict]:
        return [{"job": data.split()[5]}]  # a reader with a bug: an IndexError

    register_format(Format(name="buggy", title="buggy output", tool="buggy",
                           sniff=lambda head: head.startswith(b"BUGGY "),
                           parse_rows=buggy_rows, suffixes=(".bug",)))  # fmt: skip
    try:
        (tmp_path / "a.bug").write_text("BUGGY 1\n")
        assert main(["ingest", str(tmp_path / "a.bug")]) == ExitCode.INTERNAL
    finally:
        unregister_format("buggy")
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in buggy_rows" in err
    assert err.splitlines()[-1].startswith("anfperf: internal error: IndexError: ")
