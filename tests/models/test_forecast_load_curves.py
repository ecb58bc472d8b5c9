"""The latency forecast on every real load curve of the repository (issue 34, item 2: honest
everywhere): fitted on each curve's lower half by load, with no limit known, it refuses a
number or its band holds 80 % of the later points on all but one of 13 (a module of its own:
the suite's workers take it beside the concurrency sweeps')."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks._models_sweeps import honest, latency_checks, load_curves


@pytest.fixture(scope="module")
def latency() -> dict[str, dict]:
    return latency_checks(draws=50)


def test_the_latency_forecast_is_honest_on_12_of_the_13_real_load_curves(latency):
    """fio's load curves of this VM's disk (flat out, then 10 .. 100 % of that rate, 32 in
    flight) and Vdbench's iorate=curve, each fitted on its lower half by load, no limit known:
    a number on 11, and only the median of the 4 KiB read passes has its band miss more than
    a fifth of the later points (0.300 ms measured at 79,783 IOPS, where 0.401 ms is the loop's
    bound and the fit puts the bound's reach at 68,930)."""
    assert len(latency) == 13
    missed = sorted(name for name, check in latency.items() if not honest(check))
    assert missed == ["fio rate_curve rr4k median"]
    assert sum(bool(c["predictable"]) for c in latency.values()) == 11
    assert latency["Vdbench RndReadCurve"]["coverage"] == 1.0


def test_a_rise_on_one_point_leaves_the_band_room_below(latency):
    """4 KiB writes, pass 2: 0.105 .. 0.153 ms up to 38,774 IOPS, then 0.225 ms at 48,267 (the
    only point 1.5 x the least); later, 0.155 ms at 56,590. The fitted curve alone put its band
    at 0.248 ms and up there (2 of 6 later points inside); the band now also holds the curve
    that has not risen, down to 0.120 ms (the least of the upper loads below the rise)."""
    iops, lat_ms, _ = load_curves()["fio rate_curve rw4k pass 2"]
    order = np.argsort(iops)
    assert lat_ms[order][5] == pytest.approx(0.225, abs=1e-3)
    assert lat_ms[order][6] == pytest.approx(0.155, abs=1e-3)
    check = latency["fio rate_curve rw4k pass 2"]
    fc = check["forecast"]
    assert any(note.startswith("the rise rests on one point (0.225 ms") for note in fc.notes)
    assert np.all(fc.lower == pytest.approx(0.1202, abs=1e-4))
    assert check["coverage"] == 1.0
    # a rise that more points show keeps the fitted curve's own band (4 KiB reads, pass 3:
    # 0.180 and 0.204 ms against the least 0.087)
    other = latency["fio rate_curve rr4k pass 3"]["forecast"]
    assert not any("rests on one point" in note for note in other.notes)
    assert other.lower[-1] > 0.15
