"""The concurrency forecast on every real concurrency sweep of the repository (issue 34, items
2 and 4: honest everywhere, "make the models right in general").

Each sweep is fitted on its lower half and judged on the rest (``judge_forecast`` with
``forecast_throughput``): error, flat baseline, coverage, band width, and whether the forecast
gave a number at all. A forecast is honest on a sweep when it refuses a number or its band
holds 80 % of the later points. The sweeps: fio on this VM's disk (tests/data/fio_sweeps:
qd_randread's three passes and their median, qd_onepass, qd_dense/unlimited's three passes,
every read share of the mix_qd grids, and qd_grid.csv's six workloads, two passes each and
their median, recorded to judge this) and ANF's Vdbench forthreads run
(tests/data/vdbench/RndReadThreads).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from anfperf.analysis.sweep import sweep_points
from anfperf.ingest import read_many, read_vdbench
from anfperf.models import forecast_throughput, judge_forecast
from anfperf.models.forecast import TARGETS

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SWEEPS = DATA / "fio_sweeps"


def _per_count(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Median IOPS per count in flight of a frame's runs (repeated passes of a sweep)."""
    per = sweep_points(frame, "outstanding", "iops").groupby("outstanding")["iops"].median()
    return per.index.to_numpy(float), per.to_numpy(float)


def concurrency_sweeps() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every real concurrency sweep of the repository: name -> (count in flight, IOPS)."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for run in ("pass1", "pass2", "pass3", "pass*"):
            name = "median" if run == "pass*" else run
            files = sorted((SWEEPS / "qd_randread").glob(f"{run}_qd*.json"))
            out[f"fio qd_randread {name}"] = _per_count(read_many(files))
        out["fio qd_onepass"] = _per_count(read_many(sorted((SWEEPS / "qd_onepass").glob("*"))))
        for run in ("pass1", "pass2", "pass3"):
            files = sorted((SWEEPS / "qd_dense" / "unlimited").glob(f"{run}_qd*.json"))
            out[f"fio qd_dense {run}"] = _per_count(read_many(files))
        for grid in ("rand8k", "seq64k"):
            for share in (0, 25, 50, 75, 100):
                files = sorted((SWEEPS / "mix_qd" / grid).glob(f"qd*_r{share}.json"))
                out[f"fio mix_qd {grid} {share} % reads"] = _per_count(read_many(files))
        out["Vdbench RndReadThreads (ANF)"] = _per_count(read_vdbench(DATA / "vdbench" /
                                                                      "RndReadThreads"))  # fmt: skip
    table = pd.read_csv(SWEEPS / "qd_grid.csv")
    for workload, runs in table.groupby("workload"):
        for run, one in runs.groupby("pass"):
            out[f"fio qd_grid {workload} pass {run}"] = (
                one["outstanding"].to_numpy(float),
                one["iops"].to_numpy(float),
            )
        per = runs.groupby("outstanding")["iops"].median()
        out[f"fio qd_grid {workload} median"] = (per.index.to_numpy(float), per.to_numpy(float))
    return out


def sweep_checks(draws: int = 400) -> dict[str, dict]:
    """The concurrency forecast judged on every sweep of :func:`concurrency_sweeps`: name ->
    :func:`~anfperf.models.judge_forecast`'s check (lower half fitted, the rest predicted)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            name: judge_forecast(n, x, lambda *a, **k: forecast_throughput(*a, **k, draws=draws))
            for name, (n, x) in concurrency_sweeps().items()
        }


def honest(check: dict) -> bool:
    """No number, or a band holding the coverage target of the later points."""
    return not check["predictable"] or check["coverage"] >= TARGETS["coverage"]
