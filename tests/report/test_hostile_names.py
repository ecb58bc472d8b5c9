"""Run ids and file names that look like markup are shown as written, never run or drawn.

Names reach a report's HTML (tables, cards, headings, Markdown) and its charts (plotly.js
reads titles, legend names and hover text as its own HTML subset: <i>, <b>, <a href>). One
benchmark report over a folder of hostile names (a fio file, a Vdbench folder, a Markdown link
as a file name, a runner manifest's run_id) and one compare report of two runs stored under
hostile --run-ids are opened in Chromium.
"""

from __future__ import annotations

import json
import shutil

import pytest

from anfperf.cli import main
from anfperf.report import GRAPH_CLASS, render_report
from tests.conftest import TESTS
from tests.report.conftest import check_report

SAMPLES = TESTS.parent / "data" / "samples"
NOTEBOOKS = TESTS.parent / "notebooks"

FIO_FILE = "<img src=x onerror=alert(1)>"
VDBENCH_FOLDER = "<img src=x onerror=alert(2)>"
MARKDOWN_FILE = "[click](javascript:alert(1))"
MANIFEST_RUN = "<script>alert(3)</script>"
RUN_A = "<img src=x onerror=alert(5)>"
RUN_B = '<a href="javascript:alert(6)">B</a> & <i>b</i>'

# What a name could have made of the page: images, scripts, event handlers, javascript: links
# (HTML or SVG), elements plotly.js draws from its markup inside charts.
_PLANTED_JS = """
(cls) => ({
  img: document.querySelectorAll('img[src="x"]').length,
  scripts: [...document.querySelectorAll('script')]
    .filter((s) => /^\\s*alert\\(/.test(s.textContent)).length,
  handlers: [...document.querySelectorAll('*')].filter(
    (e) => [...e.attributes].some((a) => a.name.startsWith('on'))
  ).map((e) => e.outerHTML.slice(0, 80)),
  links: [...document.querySelectorAll('[href], a')].map(
    (a) => a.getAttribute('href') || a.getAttribute('xlink:href') || ''
  ).filter((h) => /^\\s*javascript:/i.test(h)),
  chart_markup: [...document.querySelectorAll(
    `.${cls} svg a, .${cls} svg tspan[style*="italic"]`
  )].map((e) => e.textContent),
  chart_text: [...document.querySelectorAll(`.${cls} .gtitle, .${cls} .legendtext, `
    + `.${cls} .legendtitletext, .${cls} .g-xtitle, .${cls} .g-x2title`)]
    .map((t) => t.textContent),
})
"""

pytestmark = pytest.mark.slow  # report kernels and chromium


def _open(page, html, tmp_path) -> dict:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    seen = check_report(page, html, tmp_path / f"{html.stem}.png")
    planted = page.evaluate(_PLANTED_JS, GRAPH_CLASS)
    assert not dialogs, f"a name ran script: {dialogs}"
    assert planted["img"] == 0 and planted["scripts"] == 0, planted
    assert not planted["handlers"], planted["handlers"]
    assert not planted["links"], planted["links"]
    assert not planted["chart_markup"], f"chart markup from names: {planted['chart_markup']}"
    return {**seen, **planted}


@pytest.fixture(scope="module")
def hostile_folder(local_fio_run, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile") / "inputs"
    folder.mkdir()
    shutil.copy(SAMPLES / "fio" / "randread_qd4.json", folder / f"{FIO_FILE}.json")
    shutil.copy(SAMPLES / "fio" / "randrw70_numjobs2_gr.json", folder / f"{MARKDOWN_FILE}.json")
    shutil.copytree(SAMPLES / "vdbench" / "RndRead", folder / VDBENCH_FOLDER)
    run = shutil.copytree(local_fio_run, folder / "runner")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["run_id"] = MANIFEST_RUN
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return folder


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory):
    store = tmp_path_factory.mktemp("hostile") / "store"
    for folder, run_id in (("A-direct", RUN_A), ("B-buffered", RUN_B)):
        path = SAMPLES / "vdbench" / "ab" / folder
        assert main(["ingest", str(path), "--run-id", run_id, "--out", str(store)]) == 0
    return store


def test_benchmark_report_shows_hostile_names_as_written(hostile_folder, browser_page, tmp_path):
    report = render_report(
        NOTEBOOKS / "benchmark_report.ipynb",
        parameters={"paths": [str(hostile_folder)]},
        out_dir=tmp_path,
    )
    assert report.ok, report.error
    seen = _open(browser_page, report.html, tmp_path)
    for name in (FIO_FILE, VDBENCH_FOLDER, MARKDOWN_FILE, MANIFEST_RUN):
        assert name in seen["text"], f"{name!r} is not shown as written"
    # charts name their runs too (titles, legends), as written
    charts = " | ".join(seen["chart_text"])
    assert VDBENCH_FOLDER in charts and MANIFEST_RUN in charts, charts


def test_compare_report_shows_hostile_run_ids_as_written(hostile_store, browser_page, tmp_path):
    report = render_report(
        NOTEBOOKS / "compare_runs.ipynb",
        # a store without "paths": null (issue 24, item 12: the default paths were read too)
        parameters={"store": str(hostile_store), "run_a": RUN_A, "run_b": RUN_B},
        out_dir=tmp_path,
    )
    assert report.ok, report.error
    seen = _open(browser_page, report.html, tmp_path)
    assert RUN_A in seen["text"] and RUN_B in seen["text"]
    title = f"{RUN_B} vs {RUN_A}: difference per workload, with confidence intervals"
    assert title in seen["chart_titles"], seen["chart_titles"]
    assert f"{RUN_B} is" in seen["chart_text"], seen["chart_text"]
