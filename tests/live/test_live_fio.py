"""Live figures from real fio processes on this machine, read through pipes as they arrive.

Each fio is one host: ``--status-interval=1 --output-format=json``, jobs as threads (one process
to stop or kill), read in small chunks through its stdout pipe and fed to its stream as they come.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from anfperf.live.fio_stream import FioStream, Interval
from anfperf.live.fleet import LINE_WIDTH, FleetFigures, live_line
from tests.live._fio_docs import documents, total

pytestmark = pytest.mark.fio

CHUNK = 512  # bytes read at a time: documents arrive cut in many pieces


@dataclass
class Host:
    """One fio process read as a host's stream."""

    name: str
    process: subprocess.Popen
    file: Path
    stream: FioStream
    captured: bytearray = field(default_factory=bytearray)
    intervals: list[Interval] = field(default_factory=list)
    arrived: list[float] = field(default_factory=list)  # the clock when each interval came


def start(fio_bin: str, name: str, folder: Path, *options: str, size: str = "16M") -> Host:
    file = folder / f"{name}.dat"
    args = [fio_bin, "--thread", "--output-format=json", "--status-interval=1", f"--name={name}",
            f"--filename={file}", f"--size={size}", "--rw=randread", "--bs=4k",
            "--ioengine=libaio", "--direct=1", "--time_based=1", "--norandommap=1",
            *options]  # fmt: skip
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return Host(name, process, file, FioStream(name))


def pump(hosts: list[Host], fleet: FleetFigures, seconds: float, on_interval=None) -> list:
    """Read every host's pipe for up to `seconds` (or until all ended), feeding the fleet;
    return (seconds since start, alarm) for every alarm, checked after each read and every
    0.1 s."""
    selector = selectors.DefaultSelector()
    for host in hosts:
        os.set_blocking(host.process.stdout.fileno(), False)
        selector.register(host.process.stdout, selectors.EVENT_READ, host)
    alarms, t0 = [], time.monotonic()
    try:
        while selector.get_map() and time.monotonic() - t0 < seconds:
            for key, _ in selector.select(timeout=0.1):
                host = key.data
                chunk = os.read(key.fd, CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    fleet.finish(host.name)
                    continue
                host.captured += chunk
                for interval in host.stream.feed(chunk):
                    host.intervals.append(interval)
                    host.arrived.append(time.monotonic())
                    fleet.add(interval)
                    if on_interval:
                        on_interval(host, interval)
            now = time.monotonic()
            alarms += [(now - t0, a) for a in fleet.alarms(now)]
    finally:
        selector.close()
    return alarms


@pytest.fixture
def hosts(tmp_path):
    """The fio processes a test starts: killed (by their own ids) and their files removed."""
    started: list[Host] = []
    yield started
    for host in started:
        if host.process.poll() is None:
            host.process.kill()  # a stopped process dies of SIGKILL too
        host.process.wait(timeout=10)
        host.process.stdout.close()
        host.file.unlink(missing_ok=True)


def test_live_intervals_add_up_to_the_final_json(fio_bin, tmp_path, hosts):
    host = start(fio_bin, "vm01", tmp_path, "--iodepth=4", "--runtime=4", size="32M")
    hosts.append(host)
    fleet = FleetFigures([host.name])
    assert pump(hosts, fleet, seconds=9) == []
    ended = time.monotonic()
    assert host.process.wait(timeout=5) == 0
    final = documents(bytes(host.captured))[-1]
    intervals = host.intervals
    assert 4 <= len(intervals) <= 6  # one a second, and fio's final document
    # they came while fio ran, a second apart, not all at its end
    assert intervals[0].t_s < 1.5 and host.arrived[0] < ended - 2
    # the intervals' I/O is the final JSON's, within one interval's worth (exactly, here)
    ios = total(final, "total_ios")
    grain = max(i.iops for i in intervals) * 1.0
    assert abs(sum(i.iops * i.span_s for i in intervals) - ios) <= grain
    assert sum(i.ios for i in intervals) == ios
    # the mean rate over the intervals is the final job's IOPS
    final_iops = total(final, "iops")
    assert sum(i.ios for i in intervals) / sum(i.span_s for i in intervals) == pytest.approx(
        final_iops, rel=0.01
    )
    # a mean of the intervals' rates, weighted by their spans: within their range (a short last
    # interval's rate counts too: left out, a busy machine's runs fell outside the rest)
    rates = [i.ios / i.span_s for i in intervals if i.span_s > 0]
    assert min(rates) <= final_iops * 1.01 and max(rates) >= final_iops * 0.99


def test_a_host_rate_limited_below_the_others_is_flagged_within_three_intervals(
    fio_bin, tmp_path, hosts
):
    hosts += [
        start(fio_bin, "vm-fast", tmp_path, "--iodepth=2", "--runtime=5", "--rate_iops=1500"),
        start(fio_bin, "vm-slow", tmp_path, "--iodepth=2", "--runtime=5", "--rate_iops=500"),
    ]
    fleet = FleetFigures([h.name for h in hosts], limit_iops=2000, silent_after_s=5)
    lines = []
    alarms = pump(hosts, fleet, seconds=9, on_interval=lambda h, i: lines.append(live_line(fleet)))
    slow = [a for _, a in alarms if a.kind == "slow"]
    assert [a.host for a in slow] == ["vm-slow"]
    (alarm,) = slow
    # within three of its intervals: the count it had sent when the alarm came
    slow_host = hosts[1]
    sent = sum(1 for t in slow_host.arrived if t - fleet.start_s <= alarm.at_s)
    assert sent <= 3
    assert alarm.text.startswith("vm-slow: ") and "below the fleet median" in alarm.text
    # the figure is one of the slow host's own interval rates, held under its 500 by fio (a
    # loaded machine gives it less: 293 once)
    assert f"{alarm.value:,.0f} IOPS" in alarm.text and 0 < alarm.value < 600
    assert any(alarm.value == pytest.approx(i.iops) for i in slow_host.intervals)
    # the fleet's 2,000 IOPS is the limit given: pinned
    assert "pinned" in {a.kind for _, a in alarms}
    assert all(len(line) <= LINE_WIDTH and line.startswith("fleet ") for line in lines)
    assert any("slowest vm-slow" in line for line in lines)


def test_a_host_that_stops_sending_is_reported_hung(fio_bin, tmp_path, hosts):
    hosts += [
        start(fio_bin, "vm01", tmp_path, "--runtime=7", "--rate_iops=500"),
        start(fio_bin, "vm02", tmp_path, "--runtime=7", "--rate_iops=500"),
    ]
    stopped = {}

    def stop_after_two(host: Host, interval: Interval) -> None:
        if host.name == "vm02" and len(host.intervals) == 2:
            os.kill(host.process.pid, signal.SIGSTOP)  # a hung VM: its session stays open
            stopped["at"] = time.monotonic()

    fleet = FleetFigures([h.name for h in hosts], silent_after_s=2.0)
    alarms = pump(hosts, fleet, seconds=5.5, on_interval=stop_after_two)
    hung = [a for _, a in alarms if a.kind == "hung"]
    assert [a.host for a in hung] == ["vm02"]
    (alarm,) = hung
    assert alarm.text.startswith("vm02: no interval for ") and "(the host hung?)" in alarm.text
    # reported once its silence passed the allowance, within the pump's tenth of a second
    silence = alarm.at_s - (hosts[1].arrived[-1] - fleet.start_s)
    assert 2.0 < silence < 2.5
    # its value is that silence (the test and the fleet read the clock a few us apart)
    assert alarm.value == pytest.approx(silence, abs=0.01)
    assert len(hosts[1].intervals) == 2 and "at" in stopped
    totals = fleet.totals()
    assert totals.silent == ("vm02",) and totals.hosts == 1
