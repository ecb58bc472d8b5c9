"""Paired timing: baseline and anfperf measured in turns, compared round by round.

Best-of-N times of two functions taken apart pass or fail with the machine's load; the median
of per-round ratios, each round timing both back to back (in alternating order), does not.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable


def paired_ratio(
    baseline: Callable[[], object], anfperf: Callable[[], object], rounds: int
) -> dict[str, float]:
    """Time both functions in every round; the median times and the median of the ratios.

    Returns
    -------
    dict
        ``baseline_s`` and ``anfperf_s`` (median seconds), ``ratio`` (median over rounds of
        anfperf / baseline), ``ratio_min`` and ``ratio_max`` (the spread of those ratios).
    """
    times: dict[str, list[float]] = {"baseline": [], "anfperf": []}
    ratios = []
    for r in range(rounds):
        order = (("baseline", baseline), ("anfperf", anfperf))
        took = {}
        for name, func in order if r % 2 == 0 else order[::-1]:
            gc.collect()
            start = time.perf_counter()
            func()
            took[name] = time.perf_counter() - start
            times[name].append(took[name])
        ratios.append(took["anfperf"] / took["baseline"])
    return {
        "baseline_s": statistics.median(times["baseline"]),
        "anfperf_s": statistics.median(times["anfperf"]),
        "ratio": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
    }
