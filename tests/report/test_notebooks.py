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
from anfperf.analysis import compare, findings, provenance
from anfperf.report import benchmark, comparison, render_report
from tests.conftest import DATA, TESTS
from tests.report.conftest import check_layout, check_report
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

pytestmark = pytest.mark.slow  # report kernels and chromium


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


def _analysis(paths, lat_slo_ms=1.0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many(paths)
    return frame, findings.analyse(frame, lat_slo_ms=lat_slo_ms)


def test_benchmark_report_leads_with_the_conclusions_computed_from_the_data(sweep_report):
    assert sweep_report.ok, sweep_report.error
    frame, analysis = _analysis(SWEEPS, lat_slo_ms=0.5)
    prov = provenance.run_provenance(frame, SWEEPS)
    quota = benchmark.quota_verdict(analysis, prov, level="Ultra", quota_tib=10.0)
    head = benchmark.headline(analysis.numbers, quota)
    text = visible_text(sweep_report.html.read_text(encoding="utf-8"))
    # the verdict comes first, before any table or the details
    verdict = " ".join(head["verdict"].replace("**", "").split())
    assert verdict in text
    assert text.index(verdict) < text.index("Runs") < text.index("About this report")
    assert "Ultra, 10 TiB" in verdict and "(assumed)" not in verdict
    for card in head["cards"]:
        assert f"{card.label} {card.value}" in text
    # the main sweep is the one with the highest peak among those with a knee
    assert head["main_run"] == "RndReadThreads"
    for heading in ("RndReadThreads: concurrency sweep of 7 points",
                    "qd_sweep_randread4k: concurrency sweep of 7 points",
                    "MultiHostSeqMix: 2 job steps", "Measured against the ANF bandwidth model"):  # fmt: skip
        assert heading in text
    # parameters and input checksums are in the folded "About this report" at the end
    about = text.index("About this report")
    assert text.index("SHA-256", about) > about and text.index("lat_slo_ms") > about


def test_benchmark_report_in_chromium(sweep_report, browser_page, tmp_path):
    seen = check_report(browser_page, sweep_report.html, tmp_path / "benchmark_report.png")
    # the key chart; RndReadThreads: scaling, CDF, intervals; the fio sweep: curve, scaling,
    # CDF (no intervals in fio JSON); MultiHostSeqMix: hosts, CDF, intervals; the quota model
    assert seen["graphs"] == 11
    layout = check_layout(
        browser_page, sweep_report.html, tmp_path / "benchmark",
        first_screen=[".anfperf-verdict", ".anfperf-cards", ".plotly-graph-div"],
    )  # fmt: skip
    # folded, the page is a few screens, not twenty
    assert layout[1366]["height"] > 768


@pytest.mark.fio
def test_benchmark_report_of_a_real_local_fio_run(local_fio_run, tmp_path, browser_page):
    result = render_report(
        NOTEBOOKS / "benchmark_report.ipynb", parameters={"paths": [str(local_fio_run)]},
        out_dir=tmp_path,
    )  # fmt: skip
    assert result.ok, result.error
    seen = check_report(browser_page, result.html, tmp_path / "local.png")
    manifest = json.loads((local_fio_run / "manifest.json").read_text())
    facts = next(iter(manifest["hosts"].values()))["facts"]
    assert manifest["run_id"] in seen["text"] and facts["kernel"] in seen["text"]
    assert any(t.startswith("Latency distribution") for t in seen["chart_titles"])
    # a run on the local disk is not judged against an ANF volume it never touched
    text = " ".join(seen["text"].split())
    assert "No verdict against the ANF bandwidth model: run on a local file system" in text
    assert "volume quota" not in text and "% of the predicted" not in text
    # with the volume described explicitly, the verdict is given (and says where it ran)
    given = render_report(
        NOTEBOOKS / "benchmark_report.ipynb",
        parameters={"paths": [str(local_fio_run)], "level": "Standard", "quota_tib": 1.0},
        out_dir=tmp_path / "given",
    )  # fmt: skip
    assert given.ok, given.error
    given_text = " ".join(visible_text(given.html.read_text(encoding="utf-8")).split())
    # which verdict depends on this machine's disk: within 1.5 x of Standard 1 TiB's 16 MiB/s
    # the quota binds; far above it (a local disk usually is) the data cannot be that volume's
    assert (
        "On Standard, 1 TiB the" in given_text
        or "allows on Standard, 1 TiB: these data cannot come from such a volume" in given_text
    )


def test_samples_report_sets_the_page_cache_run_apart(tmp_path, browser_page):
    """The real A/B pair: B-buffered (772,206 IOPS from the page cache) is neither the peak nor
    the run set against the ANF model."""
    paths = [str(SAMPLES / "vdbench" / "ab"), str(DATA / "vdbench" / "RndReadThreads")]
    result = render_report(
        NOTEBOOKS / "benchmark_report.ipynb", parameters={"paths": paths}, out_dir=tmp_path
    )
    assert result.ok, result.error
    text = visible_text(result.html.read_text(encoding="utf-8"))
    assert "Peak IOPS 121,009 RndReadThreads" in text
    assert "Set apart as served from a client cache: B-buffered." in text
    assert "B-buffered: 3 job steps — client cache" in text
    assert "772,206" not in text.split("Runs")[0]  # not in the verdict or the cards
    # the ANF model is set against the direct run's 1,424 MiB/s, on an assumed volume
    assert "A-direct's 1,424 MiB/s" in text and "Premium, 4 TiB (assumed)" in text
    check_layout(
        browser_page, result.html, tmp_path / "ab",
        first_screen=[".anfperf-verdict", ".anfperf-cards", ".plotly-graph-div"],
    )  # fmt: skip


def test_compare_report_with_the_runs_swapped(tmp_path, browser_page):
    # by name, on its default inputs (paths None): the bundled A/B pair
    params = {"run_a": "B-buffered", "run_b": "A-direct", "metrics": ["iops", "lat_mean_ms"],
              "confidence": 0.9}  # fmt: skip
    result = render_report("compare", parameters=params, out_dir=tmp_path)
    assert result.ok, result.error
    assert result.notebook == NOTEBOOKS.resolve() / "compare_runs.ipynb"
    # the inputs read by default are anfperf's own: named by its version, not listed
    page_text = visible_text(result.html.read_text(encoding="utf-8"))
    assert f"bytes (the samples bundled with anfperf {anfperf.__version__})." in page_text
    assert "files, SHA-256" not in page_text  # the provenance block lists no input
    seen = check_report(browser_page, result.html, tmp_path / "compare.png")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([SAMPLES / "vdbench" / "ab"])
    table = compare.compare_runs(
        frame, "B-buffered", "A-direct", metrics=["iops", "lat_mean_ms"], confidence=0.9
    )
    assert set(table["verdict"]) == {"worse"}  # O_DIRECT is slower than the page cache
    text = " ".join(seen["text"].split())
    head = comparison.headline(table, "B-buffered", "A-direct", 0.9)
    verdict = " ".join(head["verdict"].replace("**", "").split())
    assert verdict.startswith("A-direct against B-buffered: 6 comparisons") and "6 worse" in verdict
    # the verdicts come first, the table after them, the details last
    sentences = compare.sentences(table, "B-buffered", "A-direct")
    assert text.index(verdict) < text.index(sentences[0]) < text.index("Per workload and metric")
    assert text.index("Per workload and metric") < text.index("About this report")
    for sentence in sentences:
        assert sentence in text
    assert "Worse 6" in text
    # the page-cache run is named: the difference measures the cache, not the storage
    assert "B-buffered was served from a client cache (buffered I/O in every step" in text
    assert seen["graphs"] == 1
    check_layout(
        browser_page, result.html, tmp_path / "compare",
        first_screen=[".anfperf-verdict", ".anfperf-cards", ".plotly-graph-div"],
    )  # fmt: skip


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


def test_benchmark_report_draws_forecasts_up_to_the_volume_limit(
    sweep_report, browser_page, tmp_path
):
    # Ultra, 10 TiB at 4 KiB: the limit the 4 KiB sweeps' charts draw, as a labelled line
    html = sweep_report.html.read_text(encoding="utf-8")
    assert "volume quota 1,280 MiB/s = 327,680 IOPS at 4 KiB" in html
    # the sweeps level far below it (the clients or the device bind): both charts of each
    # concurrency sweep draw its plateau, the latency chart by Little's law
    assert html.count('"name":"forecast: plateau"') == 4
    assert html.count('"name":"95 % forecast band"') == 4
    check_layout(browser_page, sweep_report.html, tmp_path / "bounded",
                 first_screen=[".anfperf-verdict", ".anfperf-cards", ".plotly-graph-div"])  # fmt: skip


def test_known_limits_of_runs_are_at_each_runs_block_size():
    frame, analysis = _analysis(SWEEPS)
    prov = provenance.run_provenance(frame, SWEEPS)
    quota = benchmark.quota_verdict(analysis, prov, level="Ultra", quota_tib=10.0)
    known = benchmark.known_limits_of_runs(quota, analysis.rows)
    # 1,280 MiB/s: 327,680 IOPS of 4 KiB
    assert known["RndReadThreads"].iops_max == known["qd_sweep_randread4k"].iops_max == 327_680
    assert known["RndReadThreads"].bw_mib_s == 1280
    # an assumed volume is no limit known
    assumed = benchmark.quota_verdict(analysis, {"hosts": {}})
    assert assumed["assumed"] and not assumed.get("skipped")
    assert benchmark.known_limits_of_runs(assumed, analysis.rows) == {}
