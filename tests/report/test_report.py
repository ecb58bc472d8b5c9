"""One real report of tests/data/notebooks/interval_report.ipynb, checked in text and in chromium.

The notebook runs once per module (a kernel start costs seconds); every test reads the same
executed notebook and HTML.
"""

from __future__ import annotations

import hashlib
import html
import json
import re

import pytest

import anfperf
from anfperf.report import (
    GRAPH_CLASS,
    ReportResult,
    export_html,
    merge_parameters,
    parse_value,
    read_parameters,
    render_report,
)
from anfperf.report._html import PLOTLY_MIMETYPE
from tests.conftest import DATA
from tests.report.conftest import check_report

NOTEBOOKS = DATA / "notebooks"
NOTEBOOK = NOTEBOOKS / "interval_report.ipynb"
RNDREAD = DATA / "vdbench" / "RndRead"  # the notebook's default `path`
PARAMETERS = {"title": "Random read <4 KiB> & co", "include_warmup": True}
#: First line of the plotly.js bundle: counts how often the library is in a page.
PLOTLY_SIGNATURE = "* plotly.js v"

pytestmark = pytest.mark.slow  # report kernels and chromium


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> ReportResult:
    out = tmp_path_factory.mktemp("reports")
    return render_report(NOTEBOOK, parameters=PARAMETERS, out_dir=out)


@pytest.fixture(scope="module")
def page_html(report) -> str:
    return report.html.read_text(encoding="utf-8")


def visible_text(page: str, sep: str = " ") -> str:
    """Text of an HTML page without scripts, styles and tags, whitespace collapsed.

    ``sep`` replaces each tag: a space keeps table cells apart; "" joins highlighted code
    tokens (``<span>anfperf</span><span>.</span>``) back into source text.
    """
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", sep, page)).split())


def decode(array) -> list:
    """A plotly figure array: a list, or plotly's base64 typed array {'dtype', 'bdata'}."""
    import base64

    import numpy as np

    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def test_result_names_files_parameters_and_inputs(report):
    assert report.ok and report.error is None
    assert report.name == "interval_report"
    assert report.ipynb.name == "interval_report.ipynb" and report.ipynb.is_file()
    assert report.html.name == "interval_report.html" and report.html.is_file()
    assert report.parameters == PARAMETERS
    assert report.duration_s > 0
    files = sorted(p for p in RNDREAD.iterdir() if p.is_file())
    assert [(i["parameter"], i["path"]) for i in report.inputs] == [
        ("path", f"../vdbench/RndRead/{p.name}") for p in files
    ]
    for row, p in zip(report.inputs, files, strict=True):
        assert row["sha256"] == hashlib.sha256(p.read_bytes()).hexdigest()
        assert row["bytes"] == p.stat().st_size


def test_figures_hold_the_measured_numbers(report):
    import nbformat

    nb = nbformat.read(report.ipynb, as_version=4)
    figures = [
        o["data"][PLOTLY_MIMETYPE]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if PLOTLY_MIMETYPE in o.get("data", {})
    ]
    assert len(figures) == 2  # `fig` as last expression and `fig.show()` both give the mimetype
    frame = anfperf.read(RNDREAD)
    rows = frame.query("direction == 'total' and not is_summary").sort_values("interval")
    # include_warmup=True reached the notebook: all 10 intervals, warm-up ones too
    assert len(rows) == 10
    iops, lat = figures[0]["data"][0], figures[1]["data"][0]
    assert decode(iops["x"]) == rows["interval"].tolist()
    assert decode(iops["y"]) == pytest.approx(rows["iops"].tolist())
    assert decode(lat["y"]) == pytest.approx(rows["lat_mean_ms"].tolist())
    assert figures[0]["layout"]["title"]["text"] == "Random read <4 KiB> & co: I/O rate"


def test_plotly_js_embedded_exactly_once(page_html):
    import plotly.offline

    assert page_html.count(PLOTLY_SIGNATURE) == 1
    assert f"plotly.js v{plotly.offline.get_plotlyjs_version()}" in page_html
    assert page_html.count(f'class="{GRAPH_CLASS}"') == 2
    assert page_html.count("Plotly.newPlot(") == 2


def test_nothing_is_loaded_from_outside_the_file(page_html):
    import plotly.offline

    # plotly.js itself names its CDN (topojson for maps, which reports do not draw): look at
    # the page without the bundle
    page = page_html.replace(plotly.offline.get_plotlyjs(), "")
    assert len(page) < len(page_html) / 4
    assert "cdn.plot.ly" not in page
    assert "https://cdnjs" not in page and "unpkg.com" not in page
    assert not re.search(r"<script[^>]*\bsrc=", page), "a script is loaded from a URL"
    assert not re.search(r"<link[^>]*\bhref=[\"']?https?:", page)
    assert not re.search(r"@import\s+url\([\"']?https?:", page)


def test_titles_with_markup_cannot_break_the_page(page_html):
    # the chart title holds "<4 KiB> & co": inside the figure JSON it must not open a tag, and
    # no "</" may end a script early
    for script in re.findall(r"Plotly\.newPlot\((.*?)\);</script>", page_html, flags=re.S):
        assert "</" not in script
    assert "Random read &lt;4 KiB&gt; &amp; co" in page_html  # the parameters table


def test_code_is_hidden_by_default(page_html):
    text = visible_text(page_html, sep="")
    assert "Random read <4 KiB> & co: 10 intervals, mean 77093 IOPS" in text  # printed output
    assert "anfperf.read(path)" not in text
    assert "import plotly" not in text
    assert 'class="jp-CodeMirrorEditor' not in page_html


def test_show_code_shows_the_code(report, tmp_path):
    # the same executed notebook exported again: no second kernel run
    shown = export_html(report.ipynb, tmp_path / "code.html", show_code=True)
    page = shown.read_text(encoding="utf-8")
    assert 'class="jp-CodeMirrorEditor' in page
    text = visible_text(page, sep="")
    assert "frame = anfperf.read(path)" in text
    assert "fig_lat.show()" in text
    # papermill's injected-parameters cell is visible with the code
    assert 'title = "Random read <4 KiB> & co"' in text


def test_export_is_deterministic(report, tmp_path):
    a = export_html(report.ipynb, tmp_path / "a.html")
    b = export_html(report.ipynb, tmp_path / "b.html")
    assert a.read_bytes() == b.read_bytes()


def test_provenance_block_names_version_parameters_and_hashes(page_html):
    block = re.search(r'<section class="anfperf-provenance".*?</section>', page_html, re.S)
    assert block, "no provenance block"
    text = visible_text(block.group(0))
    assert f"anfperf {anfperf.__version__}" in text
    assert "interval_report.ipynb" in text
    # every parameter: given ones with their value, defaults marked, help from `# help:`
    assert "title 'Random read <4 KiB> & co' title above the charts" in text
    assert "include_warmup True also draw the warm-up intervals" in text
    assert '"../vdbench/RndRead" (default)' in text
    assert "Vdbench output folder, relative to this notebook" in text
    for p in sorted(RNDREAD.iterdir()):
        digest = hashlib.sha256(p.read_bytes()).hexdigest()
        assert f"../vdbench/RndRead/{p.name}" in text
        assert digest in text


def test_metadata_keeps_provenance_in_the_notebook(report):
    nb = json.loads(report.ipynb.read_text())
    meta = nb["metadata"]["anfperf"]
    assert meta["version"] == anfperf.__version__
    assert meta["error"] is None
    assert [i["sha256"] for i in meta["inputs"]] == [i["sha256"] for i in report.inputs]


def test_report_in_chromium(report, browser_page, tmp_path):
    seen = check_report(browser_page, report.html, tmp_path / "report.png")
    assert seen["graphs"] == 2
    assert seen["requests"] == [report.html.resolve().as_uri()]
    assert seen["console_errors"] == []
    assert seen["screenshot"].stat().st_size > 10_000
    assert "SHA-256" in seen["text"] and "Parameters" in seen["text"]
    assert "anfperf.read(path)" not in seen["text"]
    axis_titles = browser_page.locator(f".{GRAPH_CLASS} .g-ytitle text").all_text_contents()
    assert axis_titles == ["I/O rate [1/s]", "latency [ms]"]


@pytest.mark.parametrize(
    ("text", "value"),
    [("8", 8), ("0.5", 0.5), ("[a, b]", ["a", "b"]), ("null", None), ("data/raw", "data/raw"),
     ("true", True), ("{x: 1}", {"x": 1}), ("a: b: c", "a: b: c")],
)  # fmt: skip
def test_parse_value_is_yaml(text, value):
    assert parse_value(text) == value


def test_read_parameters_and_merge(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("path: ../x\ntitle: from file\nthreads: [1, 2]\n")
    merged = merge_parameters(read_parameters(f), {"title": "from -p"})
    assert merged == {"path": "../x", "title": "from -p", "threads": [1, 2]}
    (tmp_path / "empty.yaml").write_text("")
    assert read_parameters(tmp_path / "empty.yaml") == {}


@pytest.mark.parametrize("content", ["- a\n- b\n", "just text\n", "1: x\n", "a: [\n"])
def test_read_parameters_rejects_non_mappings(tmp_path, content):
    f = tmp_path / "bad.yaml"
    f.write_text(content)
    with pytest.raises(anfperf.report.ReportError) as info:
        read_parameters(f)
    assert info.value.notebook == str(f)


def test_no_plain_text_tcp_warning(report):
    # ipykernel warns on stderr about unencrypted TCP unless the manager provisions CURVE keys
    nb = json.loads(report.ipynb.read_text())
    stderr = "".join(
        "".join(o.get("text", ""))
        for c in nb["cells"]
        for o in c.get("outputs", [])
        if o.get("name") == "stderr"
    )
    assert "without encryption" not in stderr


def test_display_figure_emits_what_fig_show_emits():
    import numpy as np
    import pandas as pd
    import plotly.graph_objects as go
    import plotly.io as pio
    from plotly.io._utils import validate_coerce_fig_to_dict

    from anfperf.report.display import figure_bundle

    fig = go.Figure(
        go.Scatter(
            x=pd.date_range("2024-01-01", periods=4),
            y=np.array([1.5, np.nan, 4e-9, 1e20]),
            name="a <b> & </script>",
        )
    )
    fig.add_bar(x=["x", "é"], y=np.array([1, 2], dtype=np.int64))
    fig.update_layout(title="t", height=300)
    # what fig.show() displays with PLOTLY_RENDERER=plotly_mimetype (the report kernels')
    shown = pio.renderers._build_mime_bundle(
        validate_coerce_fig_to_dict(fig, True), renderers_string="plotly_mimetype"
    )
    ours = figure_bundle(fig)
    assert ours == shown
    # the notebook stores it through json: the same bytes in the .ipynb and so in the HTML
    assert json.dumps(ours, sort_keys=True, indent=1) == json.dumps(shown, sort_keys=True, indent=1)


def test_display_figure_imports_no_nbformat():
    import subprocess
    import sys

    code = (
        "import sys, plotly.graph_objects as go\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "from anfperf.report import display_figure\n"
        "display_figure(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])))\n"
        "heavy = [m for m in ('nbformat', 'jsonschema', 'papermill', 'nbconvert') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_rfc3987_syntax_deferred_but_working():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from anfperf.report._warm import defer_rfc3987_syntax\n"
        "defer_rfc3987_syntax()\n"
        "import jsonschema, nbformat\n"
        "assert 'rfc3987_syntax.syntax_helpers' not in sys.modules\n"
        "v = jsonschema.Draft7Validator({'format': 'iri'}, "
        "format_checker=jsonschema.FormatChecker())\n"
        "assert v.is_valid('http://x/a') and not v.is_valid('not an iri ::')\n"
    )
    pytest.importorskip("rfc3987_syntax")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_notebook_imports():
    from anfperf.report._warm import notebook_imports

    sources = [
        "import pandas as pd\nfrom IPython.display import Markdown, display\n",
        "%matplotlib inline",  # not Python: skipped
        "from anfperf.analysis import findings\nimport os.path\nfrom . import x\nimport pandas\n",
        "def f():\n    import scipy  # not at the top level: not warmed\n",
    ]
    assert notebook_imports(sources) == [
        "pandas", "IPython.display", "IPython.display.Markdown", "IPython.display.display",
        "anfperf.analysis", "anfperf.analysis.findings", "os.path",
    ]  # fmt: skip


def test_notebook_written_once_per_run(tmp_path, monkeypatch):
    # papermill writes the whole notebook at every cell's start and end, in place; reports write
    # it whole as the run starts and when it ends, and papermill writes nothing
    import papermill.engines
    import papermill.execute
    import papermill.iorw

    from anfperf.report import _run

    papermill_writes, writes = [], []
    real, ours = papermill.iorw.write_ipynb, _run._write_notebook
    for module in (papermill.iorw, papermill.execute, papermill.engines):
        monkeypatch.setattr(
            module, "write_ipynb", lambda nb, path: (papermill_writes.append(path), real(nb, path))
        )
    monkeypatch.setattr(
        _run, "_write_notebook", lambda nb, path: (writes.append(path), ours(nb, path))
    )
    result = render_report(NOTEBOOK, parameters=PARAMETERS, out_dir=tmp_path)
    assert result.ok
    # the empty notebook as the run starts, the executed one at the end
    assert writes == [result.ipynb, result.ipynb]
    assert all(path is None for path in papermill_writes), papermill_writes
    nb = json.loads(result.ipynb.read_text())
    assert nb["metadata"]["anfperf"]["parameters"]
    assert all(
        c["metadata"]["papermill"]["status"] == "completed"
        for c in nb["cells"]
        if c["cell_type"] == "code"
    )
