"""Turning a reader's raw rows into the conformed tidy frame."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd

from anfperf.ingest.combine import add_totals
from anfperf.schema import conform

log = logging.getLogger(__name__)

# Vdbench writes fixed file names into its output folder; the folder names the run.
_GENERIC_NAMES = {
    "flatfile.html", "summary.html", "totals.html", "histogram.html", "logfile.html",
    "parmfile.html",
}  # fmt: skip
_SUFFIXES = (".gz", ".json", ".html", ".xml", ".txt", ".log", ".csv")


def derive_run_id(source: str, cache: dict[str, str | None] | None = None) -> str:
    """Run identifier for a file: the runner's manifest, else the folder or the file's stem.

    anfperf's runner writes ``data/raw/<run_id>/manifest.json`` and puts outputs below it; a
    manifest found up to three folders above the file gives the run id. Otherwise a Vdbench
    output folder (fixed file names inside) gives its folder name, and any other file its name
    without suffixes.

    Parameters
    ----------
    source : str
        The file.
    cache : dict, optional
        Remembers each folder's manifest run id (or its absence) across calls, so that reading
        many files of one folder looks for manifests once.
    """
    path = Path(source)
    folder = str(path.parent)
    if cache is not None and folder in cache:
        from_manifest = cache[folder]
    else:
        from_manifest = _manifest_run_id(path)
        if cache is not None:
            cache[folder] = from_manifest
    if from_manifest:
        return from_manifest
    name = path.name
    if name in _GENERIC_NAMES or name.endswith(".histogram.html"):
        return path.parent.name or name
    while name.endswith(_SUFFIXES) and "." in name:
        name = name.rsplit(".", 1)[0]
    return name or source


def _manifest_run_id(path: Path) -> str | None:
    for parent in list(path.parents)[:3]:
        manifest = parent / "manifest.json"
        if manifest.is_file():
            try:
                run_id = json.loads(manifest.read_text()).get("run_id")
            except (OSError, ValueError, AttributeError):
                run_id = None
            if isinstance(run_id, str) and run_id:
                return run_id
    return None


def finalize(
    rows: list[dict] | pd.DataFrame,
    *,
    source: str,
    run_id: str | None = None,
    totals: bool = True,
) -> pd.DataFrame:
    """Build the conformed frame from a reader's rows.

    Parameters
    ----------
    rows : list of dict or pandas.DataFrame
        Rows with any subset of the schema's columns.
    source : str
        The file the rows came from (fills `source_file` where a row has none).
    run_id : str, optional
        Run identifier; when not given, rows keep their own `run_id` if they carry one, else it
        is derived from `source` (:func:`derive_run_id`).
    totals : bool
        Add 'total' rows for jobs that only have per-direction rows.
    """
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame.from_records(rows)
    if "source_file" not in frame.columns:
        frame["source_file"] = source
    if run_id is not None:
        frame["run_id"] = run_id
    elif "run_id" not in frame.columns:
        frame["run_id"] = derive_run_id(source)
    frame = conform(frame)
    if totals:
        frame = add_totals(frame)
    return frame
