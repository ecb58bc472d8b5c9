"""The shipped notebooks: stripped in git, documented parameters, real reports in chromium.

Each report runs once per module with non-default parameters on real data (a Vdbench thread
sweep, a fio queue-depth sweep, a two-host Vdbench run, a real local fio run through the runner,
the real A/B pair) and is opened in chromium like a reader would.
"""

from __future__ import annotations

import json
import warnings

import nbformat
import papermill
import pytest

import anfperf
from anfperf import compare, findings
from anfperf.report import render_report
from tests.conftest import DATA, TESTS
from tests.report.conftest import check_report
from tests.report.test_report import visible_text

NOTEBOOKS = TESTS.parent / "notebooks"
SAMPLES = TESTS.parent / "data" / "samples"
SWEEPS = [
    DATA / "vdbench" / "RndReadThreads",
    SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json",
    DATA / "vdbench" / "MultiHostSeqMix",
]
REPORT_PARAMS = {
    "paths": [str(p) for p in SWEEPS],
    "lat_slo_ms": 0.5,
    "level": "Ultra",
    "quota_tib": 10.0,
    "seed": 1,
}


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_notebook_is_stripped_and_its_parameters_documented(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, "outputs not stripped"
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "one cell tagged 'parameters'"
    assigned = [ln.split("=")[0].strip() for ln in tagged[0].source.splitlines() if "=" in ln]
    declared = papermill.inspect_notebook(str(path))
    # every assignment must be parsed (papermill drops lines with '=' in the comment)
    assert list(declared) == assigned
    for name, info in declared.items():
        assert info["help"].startswith("help: "), f"{name} lacks '# help:'"


@pytest.fixture(scope="module")
def sweep_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    return render_report(
        NOTEBOOKS / "benchmark_report.ipynb", parameters=REPORT_PARAMS, out_dir=out
    )


def test_benchmark_report_states_the_conclusions_computed_from_the_data(sweep_report):
    assert sweep_report.ok, sweep_report.error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many(SWEEPS)
    numbers = findings.key_numbers(frame, lat_slo_ms=0.5)
    point = findings.operating_point(frame)
    quota = findings.quota_check(
        point["bw_mib_s"], bs_kib=point["bs_kib"], read_pct=point["read_pct"], level="Ultra",
        quota_tib=10.0, pattern=point["pattern"],
    )  # fmt: skip
    text = visible_text(sweep_report.html.read_text(encoding="utf-8"))
    for sentence in findings.sentences(numbers, quota):
        assert " ".join(sentence.split()) in text
    assert "knee at" in text and "Ultra" in text
    for heading in ("RndReadThreads: latency vs throughput", "qd_sweep_randread4k: scaling",
                    "MultiHostSeqMix: per host", "RndReadThreads: latency distribution"):  # fmt: skip
        assert heading in text


def test_benchmark_report_in_chromium(sweep_report, browser_page, tmp_path):
    seen = check_report(browser_page, sweep_report.html, tmp_path / "benchmark_report.png")
    # RndReadThreads: curve, scaling, intervals, CDF; the fio sweep: curve, scaling, CDF (no
    # intervals in fio JSON); MultiHostSeqMix: hosts, intervals, CDF; the quota model
    assert seen["graphs"] == 11
    assert "Measured vs the ANF bandwidth model" in seen["text"]


@pytest.mark.fio
def test_benchmark_report_of_a_real_local_fio_run(local_fio_run, tmp_path, browser_page):
    result = render_report(
        NOTEBOOKS / "benchmark_report.ipynb",
        parameters={"paths": [str(local_fio_run)], "level": "Standard", "quota_tib": 1.0},
        out_dir=tmp_path,
    )
    assert result.ok, result.error
    seen = check_report(browser_page, result.html, tmp_path / "local.png")
    manifest = json.loads((local_fio_run / "manifest.json").read_text())
    facts = next(iter(manifest["hosts"].values()))["facts"]
    assert manifest["run_id"] in seen["text"] and facts["kernel"] in seen["text"]
    assert "latency distribution" in seen["text"] and seen["graphs"] >= 2


def test_compare_report_with_the_runs_swapped(tmp_path, browser_page):
    params = {"paths": [str(SAMPLES / "vdbench" / "ab")], "run_a": "B-buffered",
              "run_b": "A-direct", "metrics": ["iops", "lat_mean_ms"], "confidence": 0.9}  # fmt: skip
    result = render_report(NOTEBOOKS / "compare_runs.ipynb", parameters=params, out_dir=tmp_path)
    assert result.ok, result.error
    seen = check_report(browser_page, result.html, tmp_path / "compare.png")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([SAMPLES / "vdbench" / "ab"])
    table = compare.compare_runs(
        frame, "B-buffered", "A-direct", metrics=["iops", "lat_mean_ms"], confidence=0.9
    )
    assert set(table["verdict"]) == {"worse"}  # O_DIRECT is slower than the page cache
    text = " ".join(seen["text"].split())
    for sentence in compare.sentences(table, "B-buffered", "A-direct"):
        assert sentence in text
    assert seen["graphs"] == 1


def test_capacity_planning_report_from_parameters(tmp_path, browser_page):
    from anfperf.planning import PlanInputs, plan_view

    params = {"target_mib_s": None, "target_iops": 200_000, "bs_kib": 8, "read_pct": 70,
              "levels": ["Premium", "Ultra"], "lat_slo_ms": 1.0}  # fmt: skip
    result = render_report(
        NOTEBOOKS / "capacity_planning.ipynb", parameters=params, out_dir=tmp_path
    )
    assert result.ok, result.error
    seen = check_report(browser_page, result.html, tmp_path / "capacity.png")
    view = plan_view(
        PlanInputs(target_mib_s=None, target_iops=200_000, bs_kib=8, read_pct=70,
                   levels=("Premium", "Ultra"), lat_slo_ms=1.0),
        figures=False,
    )  # fmt: skip
    text = " ".join(seen["text"].split())
    verdict = " ".join(view.verdict_text().replace("**", "").split())
    assert verdict in text
    assert view.plan.reasoning["why"].iloc[1][:40] in text
    assert seen["graphs"] == 3  # quota, clients, threads; no widget in a static report
