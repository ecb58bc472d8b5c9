"""The live record (live.jsonl): written from real fio intervals and alarms, read back whole and
as it grows; a full disk or a line cut by a crash never breaks the run or the readers."""

from __future__ import annotations

import dataclasses
import errno
import itertools
import json
import logging
import math
import os
import shutil
import threading

import pytest

from anfperf.ingest import expand_paths, read_all, register_format
from anfperf.ingest.registry import Format, unregister_format
from anfperf.live import (
    LIVE_LOG_NAME,
    FleetFigures,
    LiveFollower,
    LiveLog,
    fio_intervals,
    read_live,
)
from anfperf.live.record import LIVE_COLUMNS
from tests.conftest import DATA, small_tmpfs

LIVE = DATA / "fio_live"
INTERVAL_FIELDS = [
    "host", "t_s", "span_s", "ios", "iops", "bw_mib_s", "lat_mean_ms", "read_iops",
    "write_iops", "read_bw_mib_s", "write_bw_mib_s",
]  # fmt: skip


def real_intervals():
    """Two hosts' intervals from real fio status outputs, one a 70/30 mix."""
    one = list(fio_intervals("vm01", [(LIVE / "randread_1job.json").read_bytes()]))
    two = list(fio_intervals("vm02", [(LIVE / "randrw_2clones.json").read_bytes()]))
    return one, two


def ticking(start: float = 1_800_000_000.0, step: float = 0.25):
    """A clock that moves `step` s a call: the walls of the lines are known."""
    counter = itertools.count()
    return lambda: start + step * next(counter)


def alarms_of(intervals) -> list:
    """Real alarms: the fleet's figures of the intervals, with a latency objective they pass."""
    fleet = FleetFigures(slo_ms=0.05, clock=ticking())
    raised = []
    for interval in intervals:
        fleet.add(interval)
        raised += fleet.alarms()
    assert raised
    return raised


def test_a_record_of_real_intervals_and_alarms_reads_back_as_written(tmp_path):
    one, two = real_intervals()
    # a latency fio could not measure (gtod_reduce) is NaN in the interval, null in the file
    two[0] = dataclasses.replace(two[0], lat_mean_ms=math.nan)
    alarms = alarms_of(one + two)
    with LiveLog(tmp_path, clock=ticking()) as record:
        record.step(0, "RndRead", "start")
        for interval in one:
            record.interval(0, interval)
        record.step(0, "RndRead", "end")
        record.step(1, "RndRW 70/30", "start")
        for interval in two:
            record.interval(1, interval)
        for alarm in alarms:
            record.alarm(1, alarm)
        record.step(1, "RndRW 70/30", "end")
        record.end("complete")
    path = tmp_path / LIVE_LOG_NAME
    lines = path.read_text().splitlines()
    assert record.lines == len(lines) == 2 + len(one) + 2 + len(two) + len(alarms) + 1
    assert "NaN" not in path.read_text()
    assert json.loads(lines[2 + len(one) + 1])["lat_mean_ms"] is None  # two[0]

    frame = read_live(tmp_path)
    assert list(frame.columns) == list(LIVE_COLUMNS)
    assert {c: str(t) for c, t in frame.dtypes.items()} == LIVE_COLUMNS
    assert list(frame["wall"]) == [1_800_000_000.0 + 0.25 * i for i in range(len(lines))]
    steps = frame[frame["kind"] == "step"]
    assert list(steps["event"]) == ["start", "end", "start", "end"]
    assert list(steps["step"]) == [0, 0, 1, 1]
    assert list(steps["name"]) == ["RndRead", "RndRead", "RndRW 70/30", "RndRW 70/30"]
    rows = frame[frame["kind"] == "interval"]
    assert list(rows["step"]) == [0] * len(one) + [1] * len(two)
    for row, interval in zip(rows.itertuples(), one + two, strict=True):
        for name in INTERVAL_FIELDS:
            got, want = getattr(row, name), getattr(interval, name)
            assert got == want or (math.isnan(want) and math.isnan(got)), name
    raised = frame[frame["kind"] == "alarm"]
    assert [a.as_dict() for a in alarms] == [
        {"kind": r.alarm, "host": r.host, "at_s": r.at_s, "value": r.value,
         "threshold": r.threshold, "text": r.text}
        for r in raised.itertuples()
    ]  # fmt: skip
    assert set(raised["alarm"]) == {"latency"} and raised["step"].eq(1).all()
    (end,) = frame[frame["kind"] == "run"].itertuples()
    assert (end.event, end.status) == ("end", "complete")


def test_the_kinds_of_line_are_those_documented(tmp_path):
    record = LiveLog(tmp_path)
    with pytest.raises(ValueError, match="'start' or 'end'"):
        record.step(0, "RndRead", "begin")
    assert not (tmp_path / LIVE_LOG_NAME).exists()  # nothing written for it


def test_hosts_threads_write_whole_lines_that_never_interleave(tmp_path):
    one, two = real_intervals()
    record = LiveLog(tmp_path)
    intervals = one + two

    def host(n: int) -> None:
        for i in range(100):
            record.interval(0, dataclasses.replace(intervals[i % len(intervals)], host=f"vm{n}"))

    threads = [threading.Thread(target=host, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    record.close()
    lines = (tmp_path / LIVE_LOG_NAME).read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 801
    assert all(json.loads(line)["kind"] == "interval" for line in lines[:-1])
    assert read_live(tmp_path)["host"].value_counts().to_dict() == {f"vm{n}": 100 for n in range(8)}


def test_a_last_line_being_written_or_cut_by_a_crash_is_left_out(tmp_path):
    shutil.copy(LIVE / LIVE_LOG_NAME, tmp_path / LIVE_LOG_NAME)
    whole = read_live(tmp_path)
    data = (tmp_path / LIVE_LOG_NAME).read_bytes()
    last = data.rstrip(b"\n").rsplit(b"\n", 1)[1]
    (tmp_path / LIVE_LOG_NAME).write_bytes(data[: len(data) - len(last) // 2 - 1])  # cut
    cut = read_live(tmp_path)
    assert len(cut) == len(whole) - 1
    assert cut.equals(whole.iloc[:-1])
    # a run resumed after the crash goes on appending: the cut line stays one bad line
    with LiveLog(tmp_path) as record:
        record.step(2, "RndRead QD16", "start")
    resumed = read_live(tmp_path)
    assert len(resumed) == len(whole)  # the cut line out, the new line in
    assert resumed.iloc[-1]["name"] == "RndRead QD16"
    assert resumed.iloc[:-1].equals(whole.iloc[:-1])


def test_a_missing_record_reads_as_no_rows_with_the_columns(tmp_path):
    frame = read_live(tmp_path / "not-yet")
    assert frame.empty and list(frame.columns) == list(LIVE_COLUMNS)
    assert read_live(tmp_path).empty  # a run folder without one


def test_a_full_disk_ends_the_record_with_one_warning_never_the_run(tmp_path, caplog):
    # /dev/full answers every write with ENOSPC, as a full disk does
    (tmp_path / LIVE_LOG_NAME).symlink_to("/dev/full")
    one, _ = real_intervals()
    record = LiveLog(tmp_path)
    with caplog.at_level(logging.WARNING, logger="anfperf.live.record"):
        record.step(0, "RndRead", "start")
        for interval in one:
            record.interval(0, interval)
        record.alarm(0, alarms_of(one)[0])
        record.end("complete")
        record.close()
    assert record.failed is not None and record.failed.errno == errno.ENOSPC
    assert record.lines == 0
    (warning,) = caplog.records
    assert "live figures no longer recorded (the disk is full)" in warning.getMessage()
    assert "the run goes on" in warning.getMessage()


def test_a_disk_that_fills_up_mid_record_leaves_whole_lines(tmp_path, caplog):
    one, two = real_intervals()
    with small_tmpfs(tmp_path / "small", "64k") as run_dir:
        record = LiveLog(run_dir)
        with caplog.at_level(logging.WARNING, logger="anfperf.live.record"):
            for i in range(2000):  # some 600 KB: more than the disk holds
                record.interval(0, (one + two)[i % (len(one) + len(two))])
        assert record.failed is not None and record.failed.errno == errno.ENOSPC
        assert len(caplog.records) == 1
        data = (run_dir / LIVE_LOG_NAME).read_bytes()
        assert data.endswith(b"\n")  # the line cut by the full disk taken back
        assert len(read_live(run_dir)) == record.lines == data.count(b"\n") > 0


def test_a_run_folder_the_record_cannot_be_made_in_warns_once(tmp_path, caplog):
    record = LiveLog(tmp_path / "gone")
    with caplog.at_level(logging.WARNING, logger="anfperf.live.record"):
        record.step(0, "RndRead", "start")
        record.end("complete")
    assert isinstance(record.failed, FileNotFoundError)
    assert len(caplog.records) == 1 and "(the disk is full)" not in caplog.text


def test_the_follower_returns_complete_lines_and_holds_a_line_until_its_newline(tmp_path):
    lines = (LIVE / LIVE_LOG_NAME).read_bytes().splitlines(keepends=True)
    path = tmp_path / LIVE_LOG_NAME
    follower = LiveFollower(tmp_path)  # the run's folder; no record yet
    assert follower.poll() == []
    path.write_bytes(b"".join(lines[:3]) + lines[3][:40])
    first = follower.poll()
    assert first == [json.loads(line) for line in lines[:3]]
    assert follower.pending_bytes == 40
    assert follower.poll() == []  # nothing new: the cut line still held
    with open(path, "ab") as file:
        file.write(lines[3][40:-1])  # all but its newline
    assert follower.poll() == [] and follower.pending_bytes == len(lines[3]) - 1
    with open(path, "ab") as file:
        file.write(b"\n" + b"".join(lines[4:]))
    rest = follower.poll()
    assert rest == [json.loads(line) for line in lines[3:]]
    assert follower.pending_bytes == 0 and follower.offset == path.stat().st_size
    # a new record in its place (shorter) is read from its start
    path.write_bytes(lines[0])
    assert follower.poll() == [json.loads(lines[0])]


TOY_JSONL = Format(
    name="toy_jsonl",
    title="a JSON-lines format",
    tool="toy",
    sniff=lambda head: head.startswith(b"{"),
    parse_rows=lambda data, source: [],
    suffixes=(".jsonl",),
)


@pytest.mark.parametrize("jsonl_format", [False, True])
def test_ingesting_a_run_folder_passes_its_live_record_by_silently(tmp_path, jsonl_format):
    run = tmp_path / "20261128T120000Z-RndRead"
    (run / "vm01").mkdir(parents=True)
    shutil.copy(DATA / "fio" / "randread_qd4.json", run / "vm01" / "RndRead.json")
    shutil.copy(LIVE / LIVE_LOG_NAME, run / LIVE_LOG_NAME)
    if jsonl_format:  # even where a format reads *.jsonl files
        register_format(TOY_JSONL)
    try:
        assert [os.path.relpath(p, run) for p in expand_paths(run)] == ["vm01/RndRead.json"]
        result = read_all(run)
    finally:
        if jsonl_format:
            unregister_format("toy_jsonl")
    assert result.skipped == [] and result.notes == []
    assert len(result.frame) and set(result.frame["tool"]) == {"fio"}


def test_no_host_may_be_called_as_the_record():
    from anfperf.errors import ParseError
    from anfperf.runner.inventory import local_inventory

    with pytest.raises(ParseError, match="host name 'Live.JSONL' is reserved"):
        local_inventory(["/tmp"], name="Live.JSONL")
