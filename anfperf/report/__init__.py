"""Reports: papermill-parameterized notebooks -> self-contained HTML.

:func:`render_report` runs one notebook (a path, or a bundled report by name:
:data:`REPORTS`) with parameters (papermill) and writes the executed
``.ipynb`` and one HTML file that works offline: plotly.js embedded once, code hidden unless
asked for, and a block naming the anfperf version, the parameters and the SHA-256 of every input.
:func:`render_reports` makes several at once in worker processes; one failing report does not
stop the others.

How notebooks show figures: :func:`display_figure` (``anfperf.report.display``: imports no
papermill, nbconvert or nbformat), or as usual ``fig`` as the last expression of a cell or
``fig.show()``. Report kernels run with ``PLOTLY_RENDERER=plotly_mimetype``; that output is
interactive in JupyterLab (plotly's extension) and drawn by the report's embedded plotly.js.
``display_figure`` emits the same output without plotly's nbformat import (~1.4 s per kernel).

papermill, nbconvert and plotly are imported on first use, so ``import anfperf.report`` is quick.
"""

from anfperf._bundled import REPORTS, report_notebook
from anfperf.errors import ReportError
from anfperf.report._html import GRAPH_CLASS, export_html, provenance_html
from anfperf.report._params import (
    declared_parameters,
    merge_parameters,
    parse_value,
    read_parameters,
    resolve_path_parameters,
)
from anfperf.report._run import KERNEL_ENV, ReportResult, render_report, render_reports
from anfperf.report.display import display_figure

__all__ = [
    "GRAPH_CLASS",
    "KERNEL_ENV",
    "REPORTS",
    "ReportError",
    "ReportResult",
    "declared_parameters",
    "display_figure",
    "export_html",
    "merge_parameters",
    "parse_value",
    "provenance_html",
    "read_parameters",
    "render_report",
    "render_reports",
    "report_notebook",
    "resolve_path_parameters",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer
