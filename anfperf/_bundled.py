"""What anfperf carries besides its code: the report notebooks and the real sample outputs.

Both are package data (``anfperf/notebooks``, ``anfperf/samples``; see pyproject.toml), found
through :mod:`importlib.resources` wherever anfperf is installed: a wheel in site-packages, an
editable checkout. In a checkout the top-level ``notebooks/`` and ``data/samples/`` (what users
open in JupyterLab) are links to these folders: one copy in git.
"""

from __future__ import annotations

import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from anfperf.errors import AnfperfError, ReportError

_PACKAGE: Traversable = resources.files("anfperf")
#: The real sample outputs: Vdbench and fio runs, a thread sweep, a two-host run, an A/B pair.
SAMPLES = _PACKAGE / "samples"
#: The report notebooks.
NOTEBOOKS = _PACKAGE / "notebooks"

#: The report notebooks by name: ``anfperf report NAME``, ``render_report(NAME)``.
REPORTS = {
    "benchmark": "benchmark_report.ipynb",
    "compare": "compare_runs.ipynb",
    "capacity": "capacity_planning.ipynb",
    "ingest": "ingest_tour.ipynb",
}


def bundled_path(*parts: str, what: str) -> Path:
    """A file or folder anfperf carries (under ``anfperf/``), on disk.

    Parameters
    ----------
    *parts : str
        Path under the package's folder, e.g. ``"samples", "vdbench", "ab"``.
    what : str
        What it is, for the error message.

    Raises
    ------
    anfperf.AnfperfError
        It is not on disk: an install that lacks it, or one whose files are not files (a zip).
    """
    path = _PACKAGE.joinpath(*parts)
    # notebooks are run and samples read by tools that need real files, not a Traversable
    if not isinstance(path, Path) or not path.exists():
        raise AnfperfError(
            f"{what} ({'/'.join(('anfperf', *parts))}) is missing from this anfperf install "
            f"({_PACKAGE}): reinstall anfperf"
        )
    return path


def samples_path(*parts: str) -> Path:
    """The bundled real sample outputs (``anfperf/samples``), or a file or folder among them."""
    return bundled_path("samples", *parts, what="the bundled samples")


def report_notebook(notebook: str | os.PathLike) -> Path:
    """The notebook of a report: a name of :data:`REPORTS` or a path to a notebook.

    A name wins over a file of the same name in the current folder (``./benchmark`` is that
    file). A path is returned as it is, whether it exists or not (running it says so).

    Raises
    ------
    ReportError
        A bare word (no folder, no ``.ipynb``) that is neither a report's name nor a file; the
        message lists the names.
    """
    text = os.fspath(notebook)
    if text in REPORTS:
        return bundled_path("notebooks", REPORTS[text], what=f"the {text} report's notebook")
    path = Path(text)
    looks_like_a_name = path.name == text and not path.suffix
    if looks_like_a_name and not path.exists():
        raise ReportError(
            text,
            f"no such report or notebook; reports by name: {', '.join(REPORTS)} "
            "(or give a path to a notebook)",
        )
    return path
