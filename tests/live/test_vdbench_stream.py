"""Vdbench's interval lines read live, on the real outputs of tests/data/vdbench/."""

from __future__ import annotations

import math

import pytest

from anfperf.live.vdbench_stream import VdbenchStream
from tests.conftest import DATA

VDBENCH = DATA / "vdbench"


def lines_of(data: bytes, size: int = 97) -> list:
    stream = VdbenchStream("vm1", interval_s=1.0)
    return [i for k in range(0, len(data), size) for i in stream.feed(data[k : k + size])]


@pytest.mark.parametrize("size", [1, 97, 10**9])
def test_each_interval_line_is_an_interval_and_the_averages_are_not(size):
    data = (VDBENCH / "RndRead" / "summary.html").read_bytes()
    intervals = lines_of(data, size)
    assert len(intervals) == 10  # intervals 1..10; 'avg_3-10' is skipped
    first, last = intervals[0], intervals[-1]
    # 23:50:26.178  1  29742.00  232.36  8192 100.00  1.084 ...
    assert (first.iops, first.bw_mib_s, first.lat_mean_ms) == (29742.0, 232.36, 1.084)
    assert (first.t_s, first.span_s, first.ios) == (1.0, 1.0, 29742)
    assert (first.read_iops, first.write_iops) == (29742.0, 0.0)
    # 23:50:35.075  10  95080.00  742.81 ... 0.527
    assert (last.iops, last.lat_mean_ms) == (95080.0, 0.527)
    assert last.t_s == pytest.approx(1.0 + (35.075 - 26.178))


def test_a_mix_is_split_by_its_read_percentage():
    for i in lines_of((VDBENCH / "RndMix" / "summary.html").read_bytes()):
        assert i.read_iops + i.write_iops == pytest.approx(i.iops)
        assert 0.4 < i.read_iops / i.iops < 0.6 and not math.isnan(i.lat_mean_ms)


def test_file_system_runs_and_messages_give_no_interval():
    assert lines_of((VDBENCH / "FileSysSeq" / "summary.html").read_bytes()) == []
    assert lines_of((VDBENCH / "console" / "lun_missing.log").read_bytes()) == []


def test_a_line_cut_across_chunks_waits_for_its_end():
    data = (VDBENCH / "RndRead" / "summary.html").read_bytes()
    cut = data.index(b"23:50:26.178") + 30
    stream = VdbenchStream("vm1")
    assert stream.feed(data[:cut]) == []
    assert stream.feed(data[cut:])[0].iops == 29742.0
