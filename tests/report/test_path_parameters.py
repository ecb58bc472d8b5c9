"""Reports by name, and path parameters relative to the caller's folder, checked before a kernel.

The bundled notebooks mark the parameters that name files in their ``# help:`` (``[path]``,
``[glob]``); ``anfperf report`` makes those paths absolute against the folder it was started in
(the kernel runs elsewhere: the notebook's folder) and fails at once, exit 2, on one that does
not exist.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import papermill
import pytest

from anfperf.analysis import inputs
from anfperf.cli import main
from anfperf.errors import ReportError
from anfperf.report import (
    REPORTS,
    render_report,
    report_notebook,
    resolve_path_parameters,
)
from anfperf.report._params import PathParameter, path_parameters
from tests.conftest import TESTS
from tests.report.test_report import visible_text

ROOT = TESTS.parent
SAMPLE = ROOT / "anfperf" / "samples" / "fio" / "randread_qd4.json"
#: The parameters of each bundled report that name files, and how.
PATH_PARAMETERS = {
    "benchmark": {"paths": PathParameter("path"), "store": PathParameter("path"),
                  "volume": PathParameter("path"), "volume_pool": PathParameter("path"),
                  "fio_logs": PathParameter("glob"),
                  "metrics": PathParameter("path")},
    "compare": {"paths": PathParameter("path"), "store": PathParameter("path")},
    "capacity": {"prices": PathParameter("path"), "sweep": PathParameter("path", ("sample",))},
    "ingest": {"paths": PathParameter("path")},
}  # fmt: skip

pytestmark = pytest.mark.slow  # report kernels and the anfperf command in processes of their own


@pytest.fixture
def rel_cwd(tmp_path, monkeypatch):
    """A working folder holding ``rel/file.json`` (a real fio output)."""
    (tmp_path / "rel").mkdir()
    (tmp_path / "rel" / "file.json").write_bytes(SAMPLE.read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_bundled_reports_by_name_mark_their_path_parameters():
    assert list(REPORTS) == ["benchmark", "compare", "capacity", "ingest"]
    for name, expected in PATH_PARAMETERS.items():
        notebook = report_notebook(name)
        assert notebook.parent == ROOT / "anfperf" / "notebooks" and notebook.is_file()
        assert path_parameters(notebook) == expected, name
        # the marker is where papermill (and the report's parameter table) sees the help
        declared = papermill.inspect_notebook(str(notebook))
        marked = {
            n for n, d in declared.items() if d["help"].startswith(("help: [path", "help: [glob"))
        }
        assert marked == set(expected), name
        # no path default to go stale: None means the bundled samples (or none at all)
        assert all(declared[n]["default"] == "None" for n in expected), name


def test_a_path_is_a_path_and_not_a_name(rel_cwd):
    assert report_notebook("benchmark").name == "benchmark_report.ipynb"
    assert report_notebook("rel/file.json") == rel_cwd.joinpath("rel", "file.json").relative_to(
        rel_cwd
    )
    (rel_cwd / "mine").write_text("{}")
    assert str(report_notebook("mine")) == "mine"  # a file of that name, not a report
    with pytest.raises(ReportError, match="reports by name: benchmark, compare, capacity, ingest"):
        report_notebook("benchmrk")


def test_relative_paths_are_the_callers(rel_cwd):
    notebook = report_notebook("benchmark")
    file = str(rel_cwd / "rel" / "file.json")
    given = {"paths": "rel/file.json", "store": None, "lat_slo_ms": 0.5,
             "fio_logs": "rel/*.json"}  # fmt: skip
    assert resolve_path_parameters(notebook, given) == {
        "paths": file, "store": None, "lat_slo_ms": 0.5, "fio_logs": str(rel_cwd / "rel" / "*.json")
    }  # fmt: skip
    # a list stays a list, '..' is resolved, absolute paths stay, another cwd can be named
    listed = {"paths": ["rel/../rel/file.json", str(SAMPLE)]}
    assert resolve_path_parameters(notebook, listed) == {"paths": [file, str(SAMPLE)]}
    assert resolve_path_parameters(notebook, {"paths": ["file.json"]}, cwd="rel") == {
        "paths": [file]
    }
    # a parameter's own words are not paths; unmarked parameters are left alone
    capacity = report_notebook("capacity")
    assert resolve_path_parameters(capacity, {"sweep": "sample", "bs_kib": 8}) == {
        "sweep": "sample", "bs_kib": 8
    }  # fmt: skip
    assert resolve_path_parameters(capacity, {"sweep": "rel"}) == {"sweep": str(rel_cwd / "rel")}


@pytest.mark.parametrize(
    ("given", "said"),
    [({"paths": "nope/x.json"}, "paths: no such file or folder: {cwd}/nope/x.json"),
     ({"paths": ["rel/file.json", "gone"]}, "paths: no such file or folder: {cwd}/gone"),
     ({"store": "rel/store"}, "store: no such file or folder: {cwd}/rel/store"),
     ({"fio_logs": "rel/*.log"}, "fio_logs: no file matches {cwd}/rel/*.log"),
     ({"fio_logs": 3}, "fio_logs: expected a glob pattern, got 3"),
     ({"paths": ["rel/file.json", 5]}, "paths: int 5 is not a path (a file or folder name)")],
)  # fmt: skip
def test_what_is_missing_is_named(rel_cwd, given, said):
    with pytest.raises(ReportError) as caught:
        resolve_path_parameters(report_notebook("benchmark"), given)
    assert caught.value.reason == said.format(cwd=rel_cwd)


def test_none_means_the_bundled_samples():
    samples = ROOT / "anfperf" / "samples"
    assert inputs.paths_or_samples(None) == [str(samples)]
    assert inputs.paths_or_samples(None, sample="vdbench/ab") == [str(samples / "vdbench" / "ab")]
    assert inputs.paths_or_samples(None, "a/store") is None  # a store instead
    assert inputs.paths_or_samples("x.json") == "x.json"


def _cli(cwd, *argv: str) -> subprocess.CompletedProcess:
    """`anfperf` in a fresh process that reports what it imported."""
    code = (
        "import sys\n"
        "from anfperf.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "print(rc, *sorted({'papermill', 'jupyter_client'} & set(sys.modules)))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=cwd, env=env
    )


def test_a_missing_path_fails_before_any_kernel(tmp_path):
    run = _cli(tmp_path, "report", "benchmark", "-p", "paths", "/x/y", "--out", "out")
    assert run.stdout.split() == ["2"]  # exit 2; neither papermill nor a kernel client loaded
    assert run.stderr == "anfperf: error: report benchmark: paths: no such file or folder: /x/y\n"
    # relative to where the command was typed; with -f, every file's set is checked first
    (tmp_path / "a.yaml").write_text(f"paths: {SAMPLE}\n")
    (tmp_path / "b.yaml").write_text("paths: [runs/b]\n")
    argv = ["report", str(report_notebook("compare")), "-f", "a.yaml", "-f", "b.yaml"]
    run = _cli(tmp_path, *argv)
    assert run.stdout.split() == ["2"]
    assert run.stderr.endswith(f"paths: no such file or folder: {tmp_path}/runs/b\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml", "b.yaml"]  # no reports/


def test_an_empty_list_of_paths_fails_before_any_kernel(tmp_path):
    # before: a kernel ran the report of nothing and failed in a cell, exit 1
    run = _cli(tmp_path, "report", "benchmark", "-p", "paths", "[]", "--out", "out")
    assert run.stdout.split() == ["2"]  # neither papermill nor a kernel client loaded
    assert run.stderr == (
        "anfperf: error: report benchmark: paths: an empty list names no file or folder "
        "(leave paths out for its default)\n"
    )
    assert os.listdir(tmp_path) == []
    # every parameter that names files, of every bundled report
    for report, marked in PATH_PARAMETERS.items():
        for name, spec in marked.items():
            if spec.kind != "path":  # (a glob is one pattern, never a list)
                continue
            with pytest.raises(ReportError) as caught:
                resolve_path_parameters(report_notebook(report), {name: []})
            assert caught.value.reason.startswith(f"{name}: an empty list names no file"), report


def test_an_unknown_report_lists_the_names(tmp_path):
    run = _cli(tmp_path, "report", "benchmrk")
    assert run.stdout.split() == ["2"]
    assert run.stderr == (
        "anfperf: error: benchmrk: no such report or notebook; reports by name: benchmark, "
        "compare, capacity, ingest (or give a path to a notebook)\n"
    )


def test_report_by_name_with_a_path_relative_to_the_cwd(rel_cwd, capsys):
    # paths were relative to notebooks/, where the kernel runs: rel/file.json was not found
    assert main(["report", "benchmark", "-p", "paths", "rel/file.json", "--out", "out"]) == 0
    html = rel_cwd / "out" / "benchmark_report.html"
    assert capsys.readouterr().out.startswith(f"wrote {html} ")
    meta = json.loads((rel_cwd / "out" / "benchmark_report.ipynb").read_text())["metadata"]
    assert meta["anfperf"]["notebook"] == str(report_notebook("benchmark"))
    (read,) = meta["anfperf"]["inputs"]
    assert read["path"] == str(rel_cwd / "rel" / "file.json")
    assert read["sha256"] == hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    text = visible_text(html.read_text(encoding="utf-8"))
    assert "Peak IOPS" in text and read["sha256"] in text
    assert "bytes (SHA-256 of each below)." in text


def test_render_report_by_name(rel_cwd):
    result = render_report("ingest", parameters={"paths": ["rel"]}, out_dir="out")
    assert result.ok, result.error
    assert result.notebook == ROOT / "anfperf" / "notebooks" / "ingest_tour.ipynb"
    assert result.parameters == {"paths": [str(rel_cwd / "rel")]}
    assert result.html == rel_cwd / "out" / "ingest_tour.html"
    assert "1 runs, tools: ['fio']" in visible_text(result.html.read_text(encoding="utf-8"))
    with pytest.raises(ReportError, match="no such report or notebook"):
        render_report("ingst", out_dir="out")
