"""What a report reads: raw outputs or a store, narrowed to some runs, and fio interval logs.

The notebooks take their inputs as parameters (paths, a store, run ids); these functions turn
them into the tidy frame and the list of fio logs, with clear errors when nothing matches.
"""

from __future__ import annotations

import glob
import html
import os
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from anfperf.errors import AnfperfError
from anfperf.paths import PathArg, path_list

__all__ = [
    "FIO_LOG_GLOBS",
    "paths_or_samples",
    "load_inputs",
    "Notes",
    "fio_log_paths",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer: not numpy, pandas, ...


#: File names fio gives its interval logs (write_*_log), gzipped or not.
FIO_LOG_GLOBS = ("*.log", "*.log.gz", "*.log.*")


def paths_or_samples(
    paths: PathArg | None,
    store: str | os.PathLike | None = None,
    *,
    sample: str = "",
) -> PathArg | None:
    """A report's `paths`, or the bundled real samples when neither paths nor a store is given.

    What a notebook's ``paths = None`` means: it runs as it is (JupyterLab, papermill, ``anfperf
    report NAME``), wherever anfperf is installed.

    Parameters
    ----------
    paths : path-like or sequence of path-like, optional
        The paths given; returned as they are unless None.
    store : path-like, optional
        A Parquet store given instead of paths: then None stays None.
    sample : str
        A file or folder among the samples (``"vdbench/ab"``); default: all of them.

    Returns
    -------
    list of str or the given `paths`
        ``[<the samples' folder>/<sample>]`` when `paths` and `store` are None.

    Raises
    ------
    anfperf.AnfperfError
        The samples are missing from this install.
    """
    if paths is not None or store is not None:
        return paths
    from anfperf._bundled import samples_path

    return [str(samples_path(*Path(sample).parts))]


def load_inputs(
    paths: PathArg | None = None,
    *,
    store: str | os.PathLike | None = None,
    run_ids: Sequence[str] | None = None,
    notes: list[str] | None = None,
) -> pd.DataFrame:
    """The tidy frame of a report's inputs.

    Parameters
    ----------
    paths : path-like or sequence of path-like, optional
        Raw outputs (files or folders; one string is one path) to read with :func:`anfperf.ingest.read_many`; files it
        cannot read are skipped with a warning.
    store : path-like, optional
        A Parquet store (``anfperf ingest --out DIR``) to read instead of `paths`.
    run_ids : sequence of str, optional
        Keep only these runs; each must be present. None or empty: every run.
    notes : list of str, optional
        When given, what reading the inputs has to say (files skipped and why, text outside
        fio's JSON, runs stopped early, a store's damaged part files, ...) is added to it
        instead of being warned: a report shows it as part of the page rather than as a stream
        of warnings.

    Returns
    -------
    pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`).

    Raises
    ------
    anfperf.AnfperfError
        Neither or both of `paths` and `store`, nothing readable, or a run id not found (the
        error lists the runs there are).
    """
    paths = path_list(paths)
    if (store is None) == (not paths):
        raise AnfperfError("give either paths (raw outputs) or a store, not both or neither")
    if isinstance(run_ids, str):
        run_ids = [run_ids]
    run_ids = list(run_ids or []) or None  # none given (None or []): every run
    if store is not None:
        from anfperf.store import load_store

        # DuckDB reads only the partitions of the runs asked for, and checks they are there
        if notes is None:
            return load_store(store, run_ids=run_ids)
        damaged: list = []  # damaged part files, their runs left out
        frame = load_store(store, run_ids=run_ids, damaged=damaged)
        notes.extend(str(part) for part in damaged)
        return frame
    frame = _read_paths(paths, notes)
    if frame.empty:
        from anfperf.store import is_store

        said = ["no benchmark results in " + ", ".join(map(str, paths))]
        # a store among the raw outputs reads as an empty folder of them: say what it is
        said += [f"{path}: a result store (anfperf ingest --out), not raw outputs: give it as "
                 "the store (-p store DIR)" for path in paths if is_store(path)]  # fmt: skip
        raise AnfperfError("; ".join(said))
    if run_ids:
        present = set(frame["run_id"].astype(str))
        missing = [r for r in run_ids if r not in present]
        if missing:
            raise AnfperfError(f"run id(s) {missing} not found; the inputs hold: {sorted(present)}")
        frame = frame[frame["run_id"].isin(list(run_ids))].reset_index(drop=True)
    return frame


class Notes:
    """A titled list of notes that a notebook shows as part of the page (HTML, escaped), and
    nothing at all when there are none.

    Parameters
    ----------
    title : str
        What the notes are, e.g. "Notes from reading the inputs".
    notes : sequence of str
        The notes, as :func:`load_inputs` gathers them.
    limit : int
        Notes shown at most; the rest are counted.
    """

    def __init__(self, title: str, notes: Sequence[str], limit: int = 20) -> None:
        self.title = title
        self.notes = list(notes)
        self.limit = limit

    def _lines(self) -> list[str]:
        """The notes shown, and a count of the rest."""
        more = len(self.notes) - self.limit
        return self.notes[: self.limit] + ([f"... and {more} more"] if more > 0 else [])

    def _repr_html_(self) -> str:
        if not self.notes:
            return ""
        items = "".join(f"<li>{html.escape(line)}</li>" for line in self._lines())
        return f"<p><strong>{html.escape(self.title)}</strong></p><ul>{items}</ul>"

    def __repr__(self) -> str:
        if not self.notes:
            return ""
        return "\n".join([f"{self.title}:", *(f"- {line}" for line in self._lines())])


def _read_paths(paths: list, notes: list[str] | None) -> pd.DataFrame:
    """read_many of `paths`, skipping what cannot be read; its warnings into `notes` if given."""
    from anfperf.ingest import read_all, read_many

    if notes is None:
        return read_many(paths, errors="warn")
    frame, skipped, said = read_all(paths)
    notes.extend(said)
    notes.extend(f"skipped {item}" for item in skipped)
    return frame


def fio_log_paths(paths: PathArg | None, pattern: str | None = None) -> list[Path]:
    """fio interval logs to chart: those matching `pattern`, else every log under `paths`.

    Parameters
    ----------
    paths : iterable of path-like, optional
        Files or folders searched (recursively) for fio logs when `pattern` is None.
    pattern : str, optional
        A glob (``**`` allowed), e.g. ``"../data/raw/*/*/*_clat*.log"``.

    Returns
    -------
    list of pathlib.Path
        Sorted, without duplicates.
    """
    found: set[Path] = set()
    if pattern is not None:
        found.update(Path(p) for p in glob.glob(pattern, recursive=True))
    else:
        for path in map(Path, path_list(paths)):
            if path.is_file():
                candidates = [path]
            else:
                candidates = [p for g in FIO_LOG_GLOBS for p in path.rglob(g)]
            found.update(p for p in candidates if _is_fio_log_name(p.name))
    return sorted(p for p in found if p.is_file())


def _is_fio_log_name(name: str) -> bool:
    from anfperf.ingest.fio_log import parse_log_name

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kind = parse_log_name(name)[0]
    return kind is not None
