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


def run_origin(source: str, cache: dict | None = None) -> tuple[str, str | None]:
    """The run id of a file and, in the runner's layout, the host whose folder holds it.

    anfperf's runner writes ``data/raw/<run_id>/manifest.json`` and collects each host's
    outputs into ``<run_id>/<host>/``: a manifest found up to three folders above the file gives
    the run id, and the folder right below it the host (only if the manifest lists that host).
    Otherwise a Vdbench output folder (fixed file names inside) gives its folder name, and any
    other file its name without suffixes; the host is then unknown (None).

    Parameters
    ----------
    source : str
        The file.
    cache : dict, optional
        Remembers each folder's manifest (or its absence) across calls, so that reading many
        files of one folder looks for manifests once.
    """
    path = Path(source)
    folder = str(path.parent)
    if cache is not None and folder in cache:
        origin = cache[folder]
    else:
        origin = _manifest_origin(path)
        if cache is not None:
            cache[folder] = origin
    if origin is not None:
        return origin
    name = path.name
    if name in _GENERIC_NAMES or name.endswith(".histogram.html"):
        return path.parent.name or name, None
    while name.endswith(_SUFFIXES) and "." in name:
        name = name.rsplit(".", 1)[0]
    return name or source, None


def _manifest_origin(path: Path) -> tuple[str, str | None] | None:
    for depth, parent in enumerate(list(path.parents)[:3]):
        manifest = parent / "manifest.json"
        if not manifest.is_file():
            continue
        try:
            doc = json.loads(manifest.read_text())
            run_id, hosts = doc.get("run_id"), doc.get("hosts") or {}
        except (OSError, ValueError, AttributeError):
            continue
        if not isinstance(run_id, str) or not run_id:
            continue
        # path = <manifest folder>/<host>/.../<file>: the component right below the manifest
        host = path.parents[depth - 1].name if depth > 0 else None
        return run_id, host if isinstance(hosts, dict) and host in hosts else None
    return None


def label_local_host(rows: list[dict] | pd.DataFrame, host: str | None) -> None:
    """Name the host of rows a tool labelled 'localhost' (fio without client mode), in place."""
    if not host:
        return
    if isinstance(rows, pd.DataFrame):
        if "host" in rows.columns:
            rows.loc[rows["host"] == "localhost", "host"] = host
        return
    for row in rows:
        if row.get("host") == "localhost":
            row["host"] = host


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
        is derived from `source` (:func:`run_origin`, which also names the host of rows
        labelled 'localhost' when `source` lies in the runner's ``<run_id>/<host>/`` layout).
    totals : bool
        Add 'total' rows for jobs that only have per-direction rows.
    """
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame.from_records(rows)
    if "source_file" not in frame.columns:
        frame["source_file"] = source
    if run_id is not None or "run_id" not in frame.columns:
        own_run_id, host = run_origin(source)
        frame["run_id"] = run_id if run_id is not None else own_run_id
        label_local_host(frame, host)
    frame = conform(frame)
    if totals:
        frame = add_totals(frame)
    return frame
