"""Folding sections in the HTML export: outputs marked by :class:`anfperf.report.page.Section`.

A section's outputs carry ``metadata["anfperf_section"]``. In the HTML report the consecutive
outputs of one section become one ``<details>`` block: the first (the title) its
``<summary>``, the rest its body, so a run's charts or the "About this report" details fold
away. The section keyed ``about`` also receives the report's provenance block (parameters,
input checksums), so that all of it is in one place at the end of the page.

Runs in the export's preprocessor, after the figures were drawn (``text/html`` by then).
"""

from __future__ import annotations

import html
from typing import Any

from anfperf.report.display import SECTION_KEY

#: Resources key of the provenance HTML the "about" section takes in.
ABOUT_RESOURCE = "anfperf_about"
#: Set in the resources when the "about" section took the provenance block in.
ABOUT_USED = "anfperf_about_used"


def _output_html(output: dict) -> str:
    """The HTML of one output, whatever its type."""
    if output.get("output_type") == "stream":
        return f"<pre>{html.escape(''.join(output.get('text', '')))}</pre>"
    data = output.get("data") or {}
    if "text/html" in data:
        value = data["text/html"]
        return "".join(value) if isinstance(value, list) else str(value)
    if "text/markdown" in data:
        from nbconvert.filters.markdown_mistune import markdown2html_mistune

        value = data["text/markdown"]
        return markdown2html_mistune("".join(value) if isinstance(value, list) else value)
    if "image/png" in data:
        return f'<img src="data:image/png;base64,{data["image/png"]}">'
    if "text/plain" in data:
        value = data["text/plain"]
        return f"<pre>{html.escape(''.join(value) if isinstance(value, list) else value)}</pre>"
    return ""


def _section_of(output: dict) -> dict | None:
    meta = output.get("metadata") or {}
    section = meta.get(SECTION_KEY)
    return section if isinstance(section, dict) and section.get("id") else None


def fold_sections(cell: Any, resources: dict) -> None:
    """Replace the runs of section outputs of one code cell by one ``<details>`` output each."""
    outputs = cell.get("outputs") or []
    if not any(_section_of(o) for o in outputs):
        return
    merged: list = []
    i = 0
    while i < len(outputs):
        section = _section_of(outputs[i])
        if section is None:
            merged.append(outputs[i])
            i += 1
            continue
        j = i
        parts = []
        summary = ""
        while j < len(outputs) and (_section_of(outputs[j]) or {}).get("id") == section["id"]:
            meta = _section_of(outputs[j])
            if meta.get("summary") and not summary:
                summary = _output_html(outputs[j])
            else:
                parts.append(_output_html(outputs[j]))
            j += 1
        if section["id"] == "about" and resources.get(ABOUT_RESOURCE):
            parts.append(resources[ABOUT_RESOURCE])
            resources[ABOUT_USED] = True
        summary = summary or f"<h2>{html.escape(str(section.get('title', '')))}</h2>"
        open_attr = " open" if section.get("open") else ""
        body = "\n".join(parts)
        details = (
            f'<details class="anfperf-section" id="section-{html.escape(str(section["id"]))}"'
            f"{open_attr}><summary>{summary}</summary>"
            f'<div class="anfperf-section-body">{body}</div></details>'
        )
        merged.append(
            {
                "output_type": "display_data",
                "data": {"text/html": details},
                "metadata": {},
            }
        )
        i = j
    from nbformat import from_dict

    cell["outputs"] = [from_dict(o) if isinstance(o, dict) else o for o in merged]
