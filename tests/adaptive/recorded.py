"""Recorded concurrency sweeps as an oracle for the adaptive chooser: the measured point at any
outstanding I/O it asks for (the nearest recorded one on a log scale).

fio JSON is read with the json module alone (the rate and mean latency of the job's reads),
independently of anfperf's readers; the median per depth over the passes is what counts.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from pathlib import Path

from anfperf.adaptive import Point

SWEEPS = Path(__file__).resolve().parents[1] / "data" / "fio_sweeps"
QD_RANDREAD = SWEEPS / "qd_randread"
QD_DENSE = SWEEPS / "qd_dense"
_QD = re.compile(r"_qd(\d+)\.json$")


def fio_sweep(folder: Path, pick: str = "median") -> dict[int, Point]:
    """Rate [1/s] and mean latency [ms] per iodepth of the fio JSON files in `folder`.

    `pick` 'median': the median rate and the median latency over the passes; 'best': the pass
    of the highest rate (of the lowest latency among equal rates), the least disturbed one: on
    a machine other work shares, a step is only ever slowed down, never sped up.
    """
    by_qd: dict[int, list[tuple[float, float]]] = {}
    for path in folder.glob("*.json"):
        read = json.loads(path.read_text())["jobs"][0]["read"]
        qd = int(_QD.search(path.name).group(1))
        by_qd.setdefault(qd, []).append((read["iops"], read["lat_ns"]["mean"] / 1e6))
    if pick == "best":
        return {
            qd: Point(qd, *max(vals, key=lambda v: (v[0], -v[1])))
            for qd, vals in sorted(by_qd.items())
        }
    return {
        qd: Point(qd, statistics.median(v[0] for v in vals), statistics.median(v[1] for v in vals))
        for qd, vals in sorted(by_qd.items())
    }


def dense_rate_iops() -> float:
    """The --rate_iops of qd_dense/limited (60 % of the unlimited sweep's peak)."""
    return float((QD_DENSE / "rate.txt").read_text().strip())


def lookup(sweep: dict[int, Point], outstanding: int) -> Point:
    """The recorded point nearest `outstanding` on a log scale, at the concurrency asked for."""
    nearest = min(sweep, key=lambda qd: (abs(math.log(qd / outstanding)), qd))
    p = sweep[nearest]
    return Point(outstanding, p.iops, p.lat_ms)


def drive(chooser, sweep: dict[int, Point], limit: int = 50) -> tuple[list, list[Point], str]:
    """Run `chooser` against a recorded sweep: its choices, the points it got, its stop reason."""
    choices, points = [], []
    for _ in range(limit):
        choice = chooser.next_point(points)
        if choice is None:
            return choices, points, chooser.stop_reason(points)
        choices.append(choice)
        points.append(lookup(sweep, choice.outstanding))
    raise AssertionError(f"no stop after {limit} steps: {choices}")
