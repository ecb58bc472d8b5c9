"""The read/write mix chooser driven against the bundled fio mix sweep (8 KiB random, read 0 ..
100 % in steps of 10), each chosen mix answered with the measured one."""

from __future__ import annotations

import numpy as np
import pytest

import anfperf
from anfperf._bundled import SAMPLES
from anfperf.adaptive import MixChoice, MixPoint, MixSweep
from anfperf.analysis.sweep import sweep_xy
from anfperf.errors import ModelError


@pytest.fixture(scope="module")
def mix() -> dict[int, float]:
    frame = anfperf.read_many([SAMPLES / "fio" / "sweeps" / "mix_sweep_randrw8k.json"])
    pct, iops = sweep_xy(frame, "read_pct", "iops")
    return {int(p): float(np.median(iops[pct == p])) for p in np.unique(pct)}


def drive(chooser: MixSweep, mix: dict[int, float]) -> tuple[list[MixChoice], str]:
    choices, points = [], []
    while (choice := chooser.next_point(points)) is not None:
        choices.append(choice)
        points.append(MixPoint(choice.read_pct, mix[choice.read_pct]))
        assert len(choices) < 20
    return choices, chooser.stop_reason(points)


def test_endpoints_first_then_where_the_band_is_widest(mix):
    choices, why = drive(MixSweep(), mix)
    assert [c.read_pct for c in choices] == [100, 0, 50, 40, 60]
    assert choices[0].reason == "read 100 %: pure reads, an endpoint of the mix model"
    assert choices[1].reason == "read 0 %: pure writes, an endpoint of the mix model"
    assert choices[2].reason.startswith(
        "read 50 %: where the mix model is least sure, its 95 % band 41 % wide"
    )
    assert why == "stop: max_points 5 mixes measured"


def test_stops_when_the_band_is_narrow_enough(mix):
    choices, why = drive(MixSweep(until_band=0.39, max_points=11), mix)
    assert [c.read_pct for c in choices] == [100, 0, 50]
    assert why.startswith("stop: the mix model's 95 % band is at most")


def test_stops_when_every_candidate_is_measured(mix):
    choices, why = drive(MixSweep(step_pct=50, max_points=11, until_band=0.01), mix)
    assert [c.read_pct for c in choices] == [100, 0, 50]
    assert why == "stop: every multiple of 50 % measured"


def test_same_points_same_choice_in_any_order(mix):
    points = [MixPoint(p, mix[p]) for p in (50, 0, 100)]
    assert MixSweep().next_point(points) == MixSweep().next_point(points[::-1])


def test_bad_arguments_are_refused():
    for bad in ({"step_pct": 7}, {"step_pct": True}, {"max_points": 1}, {"until_band": 0}):
        with pytest.raises(ModelError):
            MixSweep(**bad)
    with pytest.raises(ModelError, match="read %"):
        MixSweep().next_point([(120, 1000.0)])
