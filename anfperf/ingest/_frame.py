"""Turning a reader's raw rows into the conformed tidy frame."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from anfperf.errors import warn
from anfperf.ingest.combine import add_totals
from anfperf.ingest.registry import all_suffixes, derived
from anfperf.schema import AGGREGATE_HOST, MANIFEST_NAME, conform, host_label, read_manifest

log = logging.getLogger(__name__)

# Vdbench writes fixed file names into its output folder; the folder names the run.
_GENERIC_NAMES = {
    "flatfile.html", "summary.html", "totals.html", "histogram.html", "logfile.html",
    "parmfile.html",
}  # fmt: skip
# Endings a file name loses to name its run: the registered formats' (anfperf.ingest.registry)
# and these kinds of file any tool may write.
_GENERIC_SUFFIXES = (".gz", ".html", ".log", ".csv")


class Origin(NamedTuple):
    """Where a file's rows come from: run id, host (None: unknown), and why the run stopped
    early (None: it did not, or nothing says so)."""

    run_id: str
    host: str | None = None
    stopped: str | None = None


#: Task states of the runner that mean the tool was stopped before its planned end.
_STOPPED = ("interrupted", "timeout")


def run_origin(source: str, cache: dict | None = None) -> Origin:
    """The run id of a file and, in the runner's layout, the host whose folder holds it.

    anfperf's runner writes ``data/raw/<run_id>/manifest.json`` and collects each host's
    outputs into ``<run_id>/<host>/``: a manifest found up to three folders above the file gives
    the run id, the folder right below it the host (only if the manifest lists that host), and
    the state of the task that collected the file (interrupted or timed out: ``stopped``). A
    manifest that cannot be read, or is JSON of another shape
    (:func:`anfperf.schema.read_manifest`), leaves the folder layout to go by, with a warning. Otherwise
    a Vdbench output folder (fixed file names inside) gives its folder name, and any other file
    its name without suffixes; the host is then unknown (None).

    Parameters
    ----------
    source : str
        The file.
    cache : dict, optional
        Remembers each folder's manifest (or its absence) across calls, so that reading many
        files of one folder looks for manifests once.
    """
    # Plain strings until a manifest or a Vdbench name needs Path: thousands of files of one
    # folder are the bulk case, and a Path per file costs more than the rest of this.
    if os.altsep is None:  # (the folder is only a key of `cache`: a partition does)
        folder, _, name = source.rpartition(os.sep)
    else:  # pragma: no cover - Windows
        folder, name = os.path.split(source)
    if cache is None:
        found = _find_manifest(Path(source))
    else:
        found = cache.get(folder, _UNSEEN)
        if found is _UNSEEN:
            found = cache[folder] = _find_manifest(Path(source))
    if found is not None:
        return _manifest_origin(Path(source), *found)
    if name in ("", ".") or name in _GENERIC_NAMES or name.endswith(".histogram.html"):
        path = Path(source)
        name = path.name
        if name in _GENERIC_NAMES or name.endswith(".histogram.html"):
            return Origin(path.parent.name or name)
    suffixes = derived("run_name_suffixes", _name_suffixes)
    while name.endswith(suffixes) and "." in name:
        name = name.rsplit(".", 1)[0]
    return Origin(name or source)


_UNSEEN = object()


def _name_suffixes(formats: tuple) -> tuple[str, ...]:
    """Endings a file name loses to name its run: ours, and the registered formats'."""
    return (*_GENERIC_SUFFIXES, *all_suffixes())


def _find_manifest(path: Path) -> tuple[int, dict | None] | None:
    """(depth of the manifest above `path`, its content or None when unusable), or None."""
    for depth, parent in enumerate(list(path.parents)[:3]):
        manifest = parent / MANIFEST_NAME
        if not manifest.is_file():
            continue
        doc = read_manifest(manifest)
        if isinstance(doc, str):  # unreadable, or JSON of another shape
            warn(
                f"{manifest}: {doc}: run id and hosts of {parent} taken from its folder layout "
                "(<run_id>/<host>/...)"
            )
            return depth, None
        return depth, doc
    return None


def _manifest_origin(path: Path, depth: int, doc: dict | None) -> Origin:
    # path = <manifest folder>/<host>/.../<file>: the component right below the manifest
    host = path.parents[depth - 1].name if depth > 0 else None
    if doc is None:  # unusable: the runner's layout is all there is
        return Origin(path.parents[depth].name, _host_folder(path.parents[depth - 1], host))
    if host not in doc["hosts"]:  # read_manifest checked that hosts is an object
        return Origin(doc["run_id"])
    rel = path.relative_to(path.parents[depth]).as_posix()
    return Origin(doc["run_id"], _host_folder(path.parents[depth - 1], host), _stopped(doc, rel))


def _host_folder(folder: Path, host: str | None) -> str | None:
    """The frame's host of a runner host folder: a host named 'all' (an old run's, a hand-made
    folder) is no aggregate of the others, so it gets another name, with a warning."""
    if host is None or host_label(host) == host:
        return host
    # the same text for every file of the folder: Python shows it once
    warn(
        f"{folder}: a host folder named {host!r} is read as host {host_label(host)!r} "
        f"('{AGGREGATE_HOST}' is the aggregate across hosts)"
    )
    return host_label(host)


def _stopped(doc: dict, rel: str) -> str | None:
    """Why the task that collected `rel` stopped early, if it did."""
    for step in doc.get("steps") or []:  # (read_manifest: a list of objects)
        for task in (step.get("tasks") or {}).values():
            collected = task.get("collected") or [] if isinstance(task, dict) else []
            if any(rel == c or rel.startswith(f"{c}/") for c in collected if isinstance(c, str)):
                if task.get("status") in _STOPPED:
                    return f"{task['status']}: {task.get('reason') or 'no reason recorded'}"
                return None
    return None


def flag_stopped(rows: list[dict] | pd.DataFrame, source: str, stopped: str | None) -> None:
    """Mark rows of a run stopped before its planned end (in place), with a warning."""
    if not stopped:
        return
    warn_stopped(source, stopped)
    if isinstance(rows, pd.DataFrame):
        rows["interrupted"] = True
        return
    for row in rows:
        row["interrupted"] = True


def warn_stopped(source: str, stopped: str | None) -> None:
    """Warn that `source` comes from a run stopped before its planned end (its rows are then
    flagged 'interrupted'); nothing when it was not."""
    if stopped:
        warn(
            f"{source}: the run was stopped before its planned end ({stopped}): its rows are "
            "flagged 'interrupted'"
        )


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
        origin = run_origin(source)
        frame["run_id"] = run_id if run_id is not None else origin.run_id
        label_local_host(frame, origin.host)
        flag_stopped(frame, source, origin.stopped)
    frame = conform(frame)
    if totals:
        frame = add_totals(frame)
    return frame
