"""Whole-run rows of a tidy frame and the (x, y) points of a sweep: the one adapter from frames to the fits."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd

from anfperf._bundled import SAMPLES, samples_path
from anfperf.analysis.summary import summary_table
from anfperf.errors import AnfperfError, ModelError, warn
from anfperf.paths import PathArg, path_list

__all__ = [
    "RATE_COLUMNS", "SAMPLE_SWEEP", "alike", "load_sweep", "summary_rows", "sweep_points",
    "sweep_xy",
]  # fmt: skip


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer


def alike(rows: pd.DataFrame, columns) -> list[tuple[tuple, pd.DataFrame]]:
    """The groups of `rows` alike in `columns` (those `rows` has), in the order of their first
    row; a missing value is a value of its own (``""``), so rows that lack one group together.

    Parameters
    ----------
    rows : pandas.DataFrame
        Whole-run rows (:func:`summary_rows`) or any frame.
    columns : iterable of str
        The columns the rows of a group share.

    Returns
    -------
    list of (tuple, pandas.DataFrame)
        Each group's values of the columns present (``()`` when none is: one group of all).
    """
    keys = [c for c in columns if c in rows]
    if not keys:
        return [((), rows)]
    by = [rows[c].astype(object).where(rows[c].notna(), "") for c in keys]
    return [
        (key if isinstance(key, tuple) else (key,), group)
        for key, group in rows.groupby(by, sort=False, dropna=False)
    ]


def summary_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Whole-run rows of a tidy frame, one per run x job step, all hosts and directions together.

    The rows of :func:`anfperf.analysis.summary.summary_table` with every column (the headline table and
    the models read the same numbers), plus `configured`: the configured concurrency over all
    hosts as a float (the table's `outstanding`: outstanding, else threads, else iodepth x
    numjobs, added up over hosts). Missing identity values (run_id, source_file, job, workload,
    step, loop) are ``""`` and `direction` is text, so that rows group and compare alike.

    Raises
    ------
    ModelError
        `frame` is not a tidy frame, or has no whole-run (``is_summary``) rows.
    """
    from anfperf.errors import AnfperfError

    try:
        rows = summary_table(frame, all_columns=True)
    except ModelError:
        raise
    except AnfperfError as exc:  # the models' callers catch ModelError
        raise ModelError(str(exc)) from exc
    if rows.empty:
        raise ModelError("the frame has no whole-run (is_summary) rows")
    rows["configured"] = rows["outstanding"].astype(float)
    rows["direction"] = rows["direction"].astype(str)
    for col in ("run_id", "source_file", "job", "workload", "step", "loop"):
        rows[col] = rows[col].astype(object).where(rows[col].notna(), "")
    return rows


def sweep_points(
    frame: pd.DataFrame,
    x: str = "outstanding",
    y: str = "iops",
) -> pd.DataFrame:
    """(x, y) points of a sweep from a tidy frame, one per run x job step.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame (:mod:`anfperf.schema`) with whole-run rows.
    x : str
        Load column: 'outstanding' (configured concurrency over all hosts: outstanding, else
        threads, else iodepth x numjobs), any schema column such as 'iops' or 'read_pct'.
    y : str
        Response column, e.g. 'iops', 'bw_mib_s' or 'lat_mean_ms'.

    Returns
    -------
    pandas.DataFrame
        Columns `x` and `y` (the names asked for) and the rest of the summary row, sorted by
        `x`. Rows without a value in `x` or `y` are left out with a warning.
    """
    rows = summary_rows(frame)
    xcol = "configured" if x == "outstanding" else x
    for col in (xcol, y):
        if col not in rows:
            raise ModelError(f"frame has no column {col!r}")
    xs = pd.to_numeric(rows[xcol], errors="coerce").astype(float)
    ys = pd.to_numeric(rows[y], errors="coerce").astype(float)
    ok = np.isfinite(xs) & np.isfinite(ys)
    if not ok.all():
        warn(f"left out {int((~ok).sum())} of {len(rows)} runs without {x} or {y}")
    rows = rows[ok].copy()
    if rows.empty:
        raise ModelError(f"no runs with both {x} and {y} in the frame")
    rows = rows.drop(columns=[c for c in (x,) if c in rows and c != xcol])
    rows[x] = xs[ok]
    rows[y] = ys[ok]
    return rows.sort_values(x, kind="stable").reset_index(drop=True)


#: Columns that hold a measured rate: a rate-limited run's value there is the rate asked for.
RATE_COLUMNS = ("iops", "bw_mib_s")


def sweep_xy(
    frame: pd.DataFrame, x: str = "outstanding", y: str = "iops"
) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) arrays of a sweep from a tidy frame: the one adapter from frames to the fits.

    ``fit_usl(*sweep_xy(frame))``, ``fit_queueing_latency(*sweep_xy(frame, "iops",
    "lat_mean_ms"))``, ``fit_mix(*sweep_xy(frame, "read_pct", "iops"))``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy frame with whole-run rows (see :func:`sweep_points`).
    x, y : str
        Columns, as in :func:`sweep_points`.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        One point per run x job step, sorted by x. When `y` is a rate (iops, bw_mib_s),
        rate-limited runs are left out: their rate is the one asked for, not what the load
        could reach. Latency points of rate-limited runs stay (a load curve is made of them).

    Raises
    ------
    anfperf.ModelError
        Not a tidy frame, a missing column, or no point left.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ModelError(f"sweep_xy takes a tidy frame, got {type(frame).__name__}")
    if y in RATE_COLUMNS and "rate_limit_iops" in frame:
        limited = pd.to_numeric(frame["rate_limit_iops"], errors="coerce").notna()
        if limited.all():
            raise ModelError(
                f"every run is rate-limited: their {y} is the rate asked for, not a capacity"
            )
        frame = frame[~limited]
    points = sweep_points(frame, x, y)
    return points[x].to_numpy(float), points[y].to_numpy(float)


#: The concurrency sweep the threads-vs-latency chart uses when the user gives none: a real
#: Vdbench thread sweep among the bundled samples (a local disk, so its shape, not ANF's
#: numbers; package data, :mod:`anfperf._bundled`).
SAMPLE_SWEEP = SAMPLES / "vdbench" / "RndReadThreads"


def load_sweep(
    paths: PathArg | None = None,
) -> tuple[pd.DataFrame, str]:
    """Tidy frame of a concurrency sweep, and a name of its source for chart titles.

    Parameters
    ----------
    paths : path-like or sequence of path-like, optional
        Raw outputs of a concurrency sweep (files or folders :func:`anfperf.ingest.read_many`
        reads); default :data:`SAMPLE_SWEEP`, named as the bundled sample.

    Raises
    ------
    anfperf.AnfperfError
        Nothing readable in `paths`; or no `paths` and no bundled sample (a broken install).
    """
    from anfperf.ingest import read_many  # ingest is heavy: only when a sweep is read

    paths = path_list(paths, "sweep") or [samples_path("vdbench", "RndReadThreads")]
    missing = [str(p) for p in paths if not os.path.exists(p)]
    if missing:
        raise AnfperfError(f"sweep: no such file or folder: {', '.join(missing)}")
    with warnings.catch_warnings():
        # unreadable companions of a run folder are reported by errors="warn"; a sweep with
        # nothing readable is the error below
        warnings.simplefilter("ignore")
        frame = read_many(paths, errors="warn")
    if frame.empty:
        raise AnfperfError("no results in " + ", ".join(map(str, paths)))
    names = ", ".join(sorted(frame["run_id"].astype(str).unique()))
    bundled = paths == [SAMPLE_SWEEP]
    source = f"{names} (bundled sample: a local disk, not ANF)" if bundled else names
    return frame, source
