"""Executed notebook -> one self-contained HTML file (plotly.js inside, once; nothing online).

nbconvert's ``lab`` template is used with a small template of our own on top
(:data:`_TEMPLATE`) that

- removes everything the stock template loads from a CDN (require.js, MathJax, mermaid), so the
  page requests nothing outside itself and works offline;
- puts plotly.js, taken from the installed ``plotly`` package, once into ``<head>``;
- adds the provenance block (anfperf version, parameters, SHA-256 of every input) at the top.

Figures reach the HTML as ``application/vnd.plotly.v1+json`` outputs (plotly's
``plotly_mimetype`` renderer, which the report runner selects in the kernel): the
preprocessor :class:`_PlotlyPreprocessor` turns each into a ``<div>`` and a ``Plotly.newPlot``
call. The same outputs are interactive in JupyterLab (its plotly extension renders the mimetype).
"""

from __future__ import annotations

import functools
import html
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from anfperf.folders import atomic_write_bytes
from anfperf.report._sections import fold_sections
from anfperf.report.display import PLOTLY_MIMETYPE

logger = logging.getLogger(__name__)

#: Class of every figure's ``<div>`` (plotly's own ``to_html`` uses the same one).
GRAPH_CLASS = "plotly-graph-div"
#: Height of a figure whose layout sets none [px] (plotly's own default).
_DEFAULT_HEIGHT_PX = 450

# The stock lab template with every network load removed, plotly.js in the head and the
# provenance block on top. Blocks emptied: html_head_js (require.js from a CDN: nothing in a
# report needs it), jupyter_widgets (widget manager from unpkg; widgets are not static output),
# html_head_js_mathjax and html_head_js_mermaidjs (loaded from cdnjs).
_TEMPLATE = """\
{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_css -%}
<style type="text/css">{{ resources.anfperf_css }}</style>
{%- if resources.anfperf_plotlyjs %}
<script type="text/javascript">window.PlotlyConfig = {MathJaxConfig: 'local'};</script>
<script type="text/javascript">{{ resources.anfperf_plotlyjs }}</script>
{%- endif %}
{%- endblock html_head_css -%}
{%- block body_header -%}
{{ super() }}
{{ resources.anfperf_status }}
{%- endblock body_header -%}
{% block body_footer %}
{%- if not resources.anfperf_about_used %}
<details class="anfperf-section anfperf-about" id="section-about"><summary><h2>About this report</h2></summary>
{{ resources.anfperf_about }}
</details>
{%- endif %}
{{ resources.anfperf_footer }}
<script type="text/javascript">{{ resources.anfperf_js }}</script>
{{ super() }}
{% endblock body_footer %}
"""

# A figure drawn inside a folded section has no width yet: draw it again when it unfolds.
_JS = """
document.querySelectorAll('details.anfperf-section').forEach(function (d) {
  d.addEventListener('toggle', function () {
    if (!d.open || !window.Plotly) return;
    d.querySelectorAll('.plotly-graph-div').forEach(function (g) { Plotly.Plots.resize(g); });
  });
});
"""

_CSS = """
.anfperf-provenance { font-family: var(--jp-ui-font-family, sans-serif); font-size: 13px;
  border: 1px solid #d0d7de; border-radius: 6px; background: #f6f8fa; padding: 8px 14px;
  margin: 8px 0 16px 0; }
.anfperf-provenance h2 { font-size: 15px; margin: 4px 0 6px 0; }
.anfperf-provenance table { border-collapse: collapse; margin: 4px 0 8px 0; }
#anfperf-provenance table th, #anfperf-provenance table td { text-align: left; padding: 2px 10px 2px 0;
  vertical-align: top; border-bottom: 1px solid #e5e7eb; }
.anfperf-provenance code { font-size: 12px; word-break: break-all; }
.anfperf-provenance .anfperf-default { color: #6b7280; }
.anfperf-status { font-family: var(--jp-ui-font-family, sans-serif); font-size: 14px;
  border: 1px solid #D55E00; border-radius: 6px; background: #fff5f0; padding: 8px 14px;
  margin: 8px 0 12px 0; color: #b42318; font-weight: bold; }
details.anfperf-section { border-top: 1px solid #d0d7de; margin: 6px 0; padding: 2px 0; }
details.anfperf-section > summary { cursor: pointer; list-style-position: outside;
  margin-left: 1.2em; }
details.anfperf-section > summary h2, details.anfperf-section > summary h3 {
  display: inline; font-size: 18px; margin: 0; }
details.anfperf-section > summary::marker { color: #6b7280; }
.anfperf-section-body { padding: 4px 0 8px 0; }
.anfperf-footer { font-family: var(--jp-ui-font-family, sans-serif); font-size: 12px; color: #6b7280; margin: 24px 0 8px 0; }
"""


@functools.cache
def _plotly_js() -> str:
    # 4.5 MB read once per process, not once per report
    import plotly.offline

    return plotly.offline.get_plotlyjs()


def _script_json(obj: Any) -> str:
    """JSON that is safe inside ``<script>``: no ``</script>`` or ``<!--`` can end it early."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def _figure_html(spec: dict, div_id: str) -> str:
    layout = spec.get("layout") or {}
    config = {"responsive": True, **(spec.get("config") or {})}
    height = layout.get("height") or _DEFAULT_HEIGHT_PX
    width = f"{layout['width']}px" if layout.get("width") else "100%"
    return (
        f'<div id="{div_id}" class="{GRAPH_CLASS}" style="height:{height}px; width:{width};">'
        "</div>\n"
        '<script type="text/javascript">'
        f'Plotly.newPlot("{div_id}", {_script_json(spec.get("data") or [])}, '
        f"{_script_json(layout)}, {_script_json(config)});</script>"
    )


def _make_preprocessor(show_code: bool):
    from nbconvert.preprocessors import Preprocessor

    class _PlotlyPreprocessor(Preprocessor):
        """Plotly mimetype outputs -> ``<div>`` + ``Plotly.newPlot``; empty code cells out."""

        def preprocess(self, nb, resources):
            nb, resources = super().preprocess(nb, resources)
            if not show_code:
                # with inputs hidden, a code cell without output (imports, the injected
                # parameters: those are in the provenance table) would be an empty box
                nb.cells = [c for c in nb.cells if c.cell_type != "code" or c.get("outputs")]
            return nb, resources

        def preprocess_cell(self, cell, resources, index):
            # figures are drawn already (_with_figures_drawn): a section's outputs fold here
            if cell.cell_type == "code":
                fold_sections(cell, resources)
            return cell, resources

    return _PlotlyPreprocessor()


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def provenance_html(meta: dict) -> str:
    """The provenance block of a report: version, parameters, input checksums.

    Parameters
    ----------
    meta : dict
        ``nb.metadata["anfperf"]`` of an executed notebook, as written by
        :func:`anfperf.report.render_report`.

    Returns
    -------
    str
        An HTML ``<section>``; values are escaped.
    """
    esc = html.escape
    lines = [
        f"anfperf <b>{esc(str(meta.get('version', '?')))}</b>",
        f"notebook <code>{esc(str(meta.get('notebook', '?')))}</code>",
    ]
    if meta.get("started"):
        lines.append(f"executed {esc(str(meta['started']))}")
    if meta.get("duration_s") is not None:
        lines.append(f"in {meta['duration_s']:.1f} s")
    params = meta.get("parameters") or []
    param_rows = [
        [
            f"<code>{esc(p['name'])}</code>",
            f"<code>{esc(p['value'])}</code>"
            + (' <span class="anfperf-default">(default)</span>' if p.get("default") else ""),
            esc(p.get("help") or ""),
        ]
        for p in params
    ]
    inputs = meta.get("inputs") or []
    input_rows = [
        [
            f"<code>{esc(i['parameter'])}</code>",
            f"<code>{esc(i['path'])}</code>",
            f"{i['bytes']:,}",
            f"<code>{esc(i['sha256'])}</code>",
        ]
        for i in inputs
    ]
    parts = [
        '<section class="anfperf-provenance" id="anfperf-provenance">',
        f"<h2>{esc(str(meta.get('name', 'Report')))}</h2>",
        "<div>" + " &middot; ".join(lines) + "</div>",
    ]
    if param_rows:
        parts += ["<h2>Parameters</h2>", _table(["name", "value", "meaning"], param_rows)]
    if input_rows:
        # a folder of raw outputs can hold hundreds of files: keep long lists folded
        open_attr = " open" if len(input_rows) <= 12 else ""
        parts += [
            f"<details{open_attr}><summary><b>Inputs</b>: {len(input_rows)} files, SHA-256"
            "</summary>",
            _table(["parameter", "file", "bytes", "SHA-256"], input_rows),
            "</details>",
        ]
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def _status_html(meta: dict) -> str:
    """A failed report says so at the top of the page, before anything else."""
    if not meta.get("error"):
        return ""
    return (
        '<div class="anfperf-status">The notebook stopped with an error: '
        f"{html.escape(str(meta['error']))}. The output below ends where it stopped.</div>"
    )


def _footer_html(meta: dict) -> str:
    version = html.escape(str(meta.get("version", "?")))
    return (
        f'<div class="anfperf-footer">Made with anfperf {version}; self-contained: figures '
        "drawn by the plotly.js embedded in this file, nothing loaded from the network.</div>"
    )


def export_html(
    ipynb: str | os.PathLike, html_path: str | os.PathLike | None = None, *, show_code: bool = False
) -> Path:
    """Write the self-contained HTML of an executed notebook.

    Use it to re-make a report's HTML (e.g. with code shown) without running the notebook again.

    Parameters
    ----------
    ipynb : str or os.PathLike
        An executed notebook, typically the ``.ipynb`` of a :class:`ReportResult`.
    html_path : str or os.PathLike, optional
        Where to write; default: ``ipynb`` with the suffix ``.html``.
    show_code : bool, default False
        Show the code cells (inputs and prompts); by default only their outputs are shown.

    Returns
    -------
    pathlib.Path
        The HTML file written.
    """
    from anfperf.report._warm import defer_rfc3987_syntax

    defer_rfc3987_syntax()
    import nbformat

    ipynb = Path(ipynb)
    out = Path(html_path) if html_path is not None else ipynb.with_suffix(".html")
    nb = nbformat.read(ipynb, as_version=4)
    return export_notebook(nb, out, show_code=show_code, name=ipynb.stem)


#: One exporter per process and show_code: building one compiles the lab templates.
_EXPORTERS: dict[bool, Any] = {}
_EXPORTERS_LOCK = threading.Lock()
#: Stands for plotly.js in the page until nbconvert is done with it: nbconvert parses its whole
#: output with BeautifulSoup (alt texts, tabindex), and 4.5 MB of script is most of that work.
_PLOTLYJS_MARK = "/* anfperf: plotly.js */"


def _exporter(show_code: bool):
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    exporter = _EXPORTERS.get(show_code)
    if exporter is None:
        exporter = HTMLExporter(
            template_name="lab",
            extra_loaders=[DictLoader({"anfperf_report.html.j2": _TEMPLATE})],
            template_file="anfperf_report.html.j2",
            exclude_input=not show_code,
            exclude_input_prompt=not show_code,
            exclude_output_prompt=not show_code,
        )
        exporter.register_preprocessor(_make_preprocessor(show_code), enabled=True)
        _EXPORTERS[show_code] = exporter
    return exporter


def _warm_exporter(show_code: bool) -> None:
    """Build the exporter and run it once on a tiny notebook (its first run loads pygments
    lexers, the markdown renderer, the lab theme: ~0.3 s); the caller holds the lock."""
    if show_code in _EXPORTERS:
        return
    from nbformat import v4

    nb = v4.new_notebook(
        cells=[
            v4.new_markdown_cell("# warm-up"),
            v4.new_code_cell("1", outputs=[v4.new_output("execute_result", {"text/plain": "1"})]),
        ],
        metadata={"language_info": {"name": "python", "pygments_lexer": "ipython3"}},
    )
    _exporter(show_code).from_notebook_node(nb, resources={"metadata": {"name": "warm-up"}})


def _with_figures_drawn(nb) -> tuple:
    """``nb`` with every plotly output already turned into its ``<div>`` and script, and
    whether it had any.

    nbconvert deep-copies the notebook it converts: a copy of the figures' JSON (thousands of
    nodes) costs more than drawing them. Cells without figures are shared with ``nb``, not
    copied; ``nb`` itself is not changed.
    """
    from nbformat import NotebookNode

    cells = []
    for index, cell in enumerate(nb.cells):
        outputs = cell.get("outputs") if cell.get("cell_type") == "code" else None
        if not outputs or not any(PLOTLY_MIMETYPE in (o.get("data") or {}) for o in outputs):
            cells.append(cell)
            continue
        drawn = []
        for k, output in enumerate(outputs):
            data = output.get("data") or {}
            if PLOTLY_MIMETYPE in data:
                output = NotebookNode({**output, "data": {"text/html": _drawn(data, index, k)}})
            drawn.append(output)
        cells.append(NotebookNode({**cell, "outputs": drawn}))
    drew = any(c is not o for c, o in zip(cells, nb.cells, strict=True))
    return NotebookNode({**nb, "cells": cells}), drew


def _drawn(data: dict, index: int, k: int) -> str:
    spec = data[PLOTLY_MIMETYPE]
    if isinstance(spec, str):  # some writers store JSON mimetypes as text
        spec = json.loads(spec)
    # ids from the position, not random: the same notebook gives the same HTML
    return _figure_html(spec, f"anfperf-fig-{index}-{k}")


def export_notebook(nb, html_path: str | os.PathLike, *, show_code: bool = False, name: str):
    """:func:`export_html` of a notebook already read (``nbformat.NotebookNode``)."""
    out = Path(html_path)
    meta = dict(nb.metadata.get("anfperf") or {})
    meta.setdefault("name", name)
    resources = {
        "metadata": {"name": meta["name"]},
        "anfperf_css": _CSS,
        "anfperf_status": _status_html(meta),
        "anfperf_about": provenance_html(meta),
        "anfperf_js": _JS,
        "anfperf_footer": _footer_html(meta),
    }
    drawn, has_figures = _with_figures_drawn(nb)
    # plotly.js (4-5 MB) only goes into pages that draw a figure
    resources["anfperf_plotlyjs"] = _PLOTLYJS_MARK if has_figures else ""
    with _EXPORTERS_LOCK:
        body, _ = _exporter(show_code).from_notebook_node(drawn, resources=resources)
    if has_figures:
        body = body.replace(_PLOTLYJS_MARK, _plotly_js(), 1)
    atomic_write_bytes(out, body.encode("utf-8"))  # a reader never sees half a report
    logger.info("wrote %s (%d bytes)", out, len(body))
    return out
