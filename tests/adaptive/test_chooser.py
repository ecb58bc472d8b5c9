"""The adaptive sweep's chooser driven against real recorded sweeps as an oracle: the fio
iodepth sweep of tests/data/fio_sweeps/qd_randread (QD 1..128, 3 passes, falling by a fifth
past QD 64) and the bundled Vdbench RndReadThreads (2..128 threads); each chosen concurrency
is answered with the recorded point nearest it (tests/adaptive/recorded.py)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from anfperf.adaptive import AdaptiveSweep, Choice, Point, answers
from anfperf.analysis.findings import iops_at_latency_measured
from anfperf.analysis.sweep import load_sweep, summary_rows
from anfperf.errors import ModelError
from anfperf.models import KnownLimits
from tests.adaptive.recorded import QD_RANDREAD, drive, fio_sweep, lookup


@pytest.fixture(scope="module")
def fio() -> dict[int, Point]:
    return fio_sweep(QD_RANDREAD)


@pytest.fixture(scope="module")
def vdbench() -> dict[int, Point]:
    rows = summary_rows(load_sweep(None)[0])  # the bundled RndReadThreads
    return {
        int(n): Point(int(n), iops, lat)
        for n, iops, lat in zip(rows["configured"], rows["iops"], rows["lat_mean_ms"], strict=True)
    }


def test_order_light_heavy_the_crossing_then_the_knee(fio):
    choices, points, why = drive(AdaptiveSweep(until_lat_ms=1.0, max_outstanding=128), fio)
    assert [c.outstanding for c in choices] == [1, 128, 99, 3]
    assert [c.reason for c in choices] == [
        "qd 1: light load, for the lowest latency",
        "qd 128: heavy load, the max_outstanding 128, for the highest rate",
        "qd 99: bisects the 1 ms crossing between qd 1 (0.0273 ms) and qd 128 (1.29 ms) "
        "(Little's law: 98,995 IOPS x 1 ms = 99.0)",
        # the rate rises from qd 99 to qd 128: nothing past the crossing hides a higher one
        "qd 3: near the knee N* = 98,995 IOPS x 0.0273 ms = 2.7 (Little's law)",
    ]
    assert why == (
        "stop: the 1 ms crossing is pinned: qd 99 (1.05 ms) is within 15 % of it; "
        "max_outstanding 128 reached"
    )


def test_the_crossing_is_split_again_with_the_higher_rate_of_the_bracket(fio):
    choices, _, why = drive(AdaptiveSweep(until_lat_ms=0.5, max_outstanding=128), fio)
    assert [c.outstanding for c in choices] == [1, 128, 49, 61]
    # qd 128 has fallen past the peak: qd 49's 121,408 IOPS places the crossing
    assert choices[-1].reason == (
        "qd 61: bisects the 0.5 ms crossing between qd 49 (0.395 ms) and qd 128 (1.29 ms) "
        "(Little's law: 121,408 IOPS x 0.5 ms = 60.7)"
    )
    # the rate falls from qd 61 to qd 128: one point past the crossing would come next, but
    # four steps are half of a dense sweep 1..128
    assert why == (
        "stop: the 0.5 ms crossing is pinned: qd 61 (0.529 ms) is within 15 % of it; the budget "
        "of 4 steps is spent (half of the 8 a dense sweep qd 1..128 in powers of two runs)"
    )
    more = AdaptiveSweep(until_lat_ms=0.5, max_outstanding=128, max_steps=5)
    choices, _, why = drive(more, fio)
    assert [c.outstanding for c in choices] == [1, 128, 49, 61, 88]
    assert choices[-1].reason == (
        "qd 88: past the 0.5 ms crossing, between qd 61 (0.529 ms) and qd 128 "
        "(1.29 ms) (geometric mean): the rate does not rise 3 % from 121,408 to 98,995 IOPS, "
        "the peak may lie between"
    )
    assert why.endswith("the budget of 5 steps is spent")


def test_a_peak_past_the_crossing_is_looked_for_before_the_knee():
    # the two loopback sshd hosts of benchmarks/bench_adaptive.py: the disk's rate peaks
    # past the 1 ms crossing (qd 64: 50.2k IOPS) and falls by qd 256
    sweep = AdaptiveSweep(1.0, 256)
    ends = [Point(1, 13_500, 0.074), Point(256, 44_600, 5.7)]
    first = sweep.next_point(ends)
    assert first.outstanding == 45  # Little's law: 44,600 IOPS x 1 ms
    flat = ends + [Point(45, 46_000, 0.98)]
    beyond = sweep.next_point(flat)
    assert beyond.outstanding == 107  # sqrt(45 x 256)
    assert "past the 1 ms crossing, between qd 45 (0.98 ms) and qd 256" in beyond.reason
    assert sweep.stop_reason(flat + [Point(107, 47_000, 2.3)]).endswith(
        "the budget of 4 steps is spent (half of the 9 a dense sweep qd 1..256 in powers of two "
        "runs)"
    )
    # a rate still rising to the heavy load hides nothing past the crossing: the knee instead
    rising = ends[:1] + [Point(256, 52_000, 4.9), Point(52, 46_000, 1.1)]
    assert "near the knee" in sweep.next_point(rising).reason
    # no more than the budget, whatever is left to look at
    assert len(drive(AdaptiveSweep(1.0, 256, max_steps=2), {1: ends[0], 256: ends[1]})[0]) == 2


def test_vdbench_threads_from_their_lowest(vdbench):
    sweep = AdaptiveSweep(until_lat_ms=0.5, max_outstanding=128, min_outstanding=2)
    choices, _, why = drive(sweep, vdbench)
    assert [c.outstanding for c in choices] == [2, 128, 61, 8]
    assert (
        choices[3].reason == "qd 8: near the knee N* = 121,009 IOPS x 0.069 ms = 8.3 (Little's law)"
    )
    assert why.startswith("stop: the 0.5 ms crossing is pinned: qd 61 (0.541 ms)")


# -- each stop rule ---------------------------------------------------------------------------


def test_stops_past_the_slo_by_its_margin(vdbench):
    known = KnownLimits.of_iops(200_000, "a limit not reached")
    sweep = AdaptiveSweep(until_lat_ms=0.2, max_outstanding=1024, min_outstanding=2, known=known)
    choices, _, why = drive(sweep, vdbench)
    assert [c.outstanding for c in choices] == [2, 28, 23, 21, 8]
    assert choices[1].reason == (
        "qd 28: heavy load, 2 x the 14 the known limit 200,000 IOPS needs at the light-load "
        "0.069 ms (Little's law)"
    )
    assert why.endswith("latency past the 0.2 ms SLO by 20 % or more at qd 23 (0.264 ms)")
    assert "bracketed within x1.25: qd 21 (0.154 ms) .. qd 23 (0.264 ms)" in why


def test_stops_within_3_pct_of_the_known_limit(fio):
    known = KnownLimits.of_iops(118_000, "QoS")
    choices, _, why = drive(AdaptiveSweep(1.0, 1024, known=known), fio)
    assert [c.outstanding for c in choices] == [1, 8, 3, 16]
    assert choices[-1].reason == (
        "qd 16: one point past the highest step, the 1 ms SLO not yet crossed "
        "(qd 8 (0.0819 ms), 97,191 IOPS)"
    )
    assert why == (
        "stop: the 1 ms SLO is not crossed up to qd 16; rate within 3 % of the known limit "
        "118,000 IOPS: 119,632 at qd 16"
    )


def test_stops_when_the_rate_is_flat_over_two_steps(fio):
    known = KnownLimits.of_iops(1e6, "far above")
    choices, _, why = drive(AdaptiveSweep(5.0, 4096, known=known), fio)
    assert [c.outstanding for c in choices] == [1, 56, 3, 112, 224]
    assert why.endswith(
        "rate flat over two steps: qd 56 120,744, qd 112 98,995, qd 224 98,995 IOPS "
        "(each less than 3 % more)"
    )


def test_stops_at_max_outstanding_and_never_past_it(fio):
    choices, _, why = drive(AdaptiveSweep(5.0, 64), fio)  # 5 ms: never crossed
    assert max(c.outstanding for c in choices) == 64
    assert why == "stop: the 5 ms SLO is not crossed up to qd 64; max_outstanding 64 reached"


def test_stops_when_the_crossing_is_bracketed_within_its_factor(fio):
    choices, _, why = drive(AdaptiveSweep(0.75, 128, max_steps=5), fio)
    assert [c.outstanding for c in choices] == [1, 128, 74, 91, 3]
    assert why == (
        "stop: the 0.75 ms crossing is bracketed within x1.25: qd 74 (0.529 ms) .. qd 91 "
        "(1.05 ms); max_outstanding 128 reached"
    )


def test_stops_when_the_rates_either_side_of_the_crossing_agree():
    sweep = AdaptiveSweep(1.0, 256, max_steps=8)
    flat = [Point(1, 30_000, 0.03), Point(3, 70_000, 0.04), Point(40, 100_000, 0.4)]
    flat.append(Point(256, 101_000, 2.5))
    assert "bisects" in sweep.next_point(flat[:3] + [Point(256, 90_000, 2.5)]).reason
    # the rate at the objective is known; the peak may still lie between qd 40 and qd 256
    assert "past the 1 ms crossing, between qd 40" in sweep.next_point(flat).reason
    done = flat + [Point(101, 100_500, 1.0)]
    assert sweep.next_point(done).outstanding == 161  # down to a dense sweep's grain, x2
    done.append(Point(161, 101_000, 1.6))
    assert sweep.next_point(done) is None
    assert "pinned: qd 101 (1 ms)" in sweep.stop_reason(done)
    # in the default budget (4 steps) the sweep stops where the rates agree
    assert "bracketed in rate: qd 40 (0.4 ms) 100,000 IOPS" in AdaptiveSweep(1.0, 256).stop_reason(
        flat
    )


def test_a_light_load_past_the_slo_has_no_crossing_to_find(fio):
    choices, _, why = drive(AdaptiveSweep(0.02, 128), fio)
    assert [c.outstanding for c in choices] == [1, 128, 3]
    assert why.startswith("stop: the light load qd 1 (0.0273 ms) is already past the 0.02 ms SLO")


# -- what a resume needs ----------------------------------------------------------------------

CASES = [(slo, top) for slo in (0.05, 0.1, 0.2, 0.5, 1.0, 2.0) for top in (16, 64, 128, 1000)]


@pytest.mark.parametrize(("slo", "top"), CASES)
def test_whole_new_concurrencies_within_bounds(fio, slo, top):
    choices, points, why = drive(AdaptiveSweep(slo, top), fio)
    ns = [c.outstanding for c in choices]
    assert all(isinstance(n, int) and 1 <= n <= top for n in ns)
    assert len(set(ns)) == len(ns), ns
    assert why.startswith("stop: ")
    assert all(c.reason.startswith(f"qd {c.outstanding}: ") for c in choices)


@pytest.mark.parametrize(("slo", "top"), CASES[::3])
def test_the_same_points_give_the_same_choice_in_any_order(fio, slo, top):
    choices, points, _ = drive(AdaptiveSweep(slo, top), fio)
    rng = random.Random(35)
    for k, choice in enumerate(choices):
        done = points[:k]
        shuffled = rng.sample(done, len(done))
        # a fresh chooser (a resumed run) with the points in another order
        assert AdaptiveSweep(slo, top).next_point(shuffled) == choice
        assert AdaptiveSweep(slo, top).decide(done) == choice


def test_a_step_measured_twice_counts_once_at_its_median(fio):
    sweep = AdaptiveSweep(1.0, 128)
    once = [lookup(fio, 1), lookup(fio, 128)]
    twice = once + [Point(128, once[1].iops * 1.1, once[1].lat_ms), Point(128, 1, 9)]
    assert sweep.next_point(twice) == sweep.next_point(once + [once[1]])
    assert sweep.next_point(twice).outstanding not in (1, 128)


def test_bad_arguments_are_refused():
    for bad in (
        {"until_lat_ms": 0, "max_outstanding": 8},
        {"until_lat_ms": 1, "max_outstanding": True},
        {"until_lat_ms": 1, "max_outstanding": 8.0},
        {"until_lat_ms": 1, "max_outstanding": 4, "min_outstanding": 8},
        {"until_lat_ms": 1, "max_outstanding": 8, "max_steps": 1},
        {"until_lat_ms": 1, "max_outstanding": 8, "max_steps": 4.0},
    ):
        with pytest.raises(ModelError):
            AdaptiveSweep(**bad)
    with pytest.raises(ModelError, match="whole number"):
        AdaptiveSweep(1, 8).next_point([(1.5, 1000, 0.1)])
    with pytest.raises(ModelError, match="positive"):
        AdaptiveSweep(1, 8).next_point([(1, math.nan, 0.1)])


# -- answers ----------------------------------------------------------------------------------


def test_answers_read_as_the_report_reads_a_sweep(fio):
    points = list(fio.values())
    got = answers(points, 1.0)
    n, x, r = (np.array(v, float) for v in zip(*points, strict=True))
    assert got["peak_iops"] == pytest.approx(x.max())
    assert got["iops_at_slo"] == pytest.approx(iops_at_latency_measured(x, r, 1.0, load=n))
    assert got["knee_outstanding"] == pytest.approx(x.max() * r.min() / 1000)
    assert got["fit_knee_iops"] < got["peak_iops"]
    assert got["steps"] == len(points)


def test_choice_is_a_plain_pair():
    assert Choice(4, "why") == (4, "why")


def test_at_the_known_limit_within_the_slo_its_rate_is_the_rate_at_the_slo(fio):
    known = KnownLimits.of_iops(118_000, "QoS")
    _, points, _ = drive(AdaptiveSweep(1.0, 1024, known=known), fio)  # stops at the limit
    assert math.isnan(answers(points, 1.0)["iops_at_slo"])  # the data stop before the SLO
    assert answers(points, 1.0, known)["iops_at_slo"] == pytest.approx(fio[16].iops)
    below = KnownLimits.of_iops(200_000, "not reached")
    assert math.isnan(answers(points, 1.0, below)["iops_at_slo"])
