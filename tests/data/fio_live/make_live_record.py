"""Record live.jsonl of this folder: a run's live record made of real fio output.

    python tests/data/fio_live/make_live_record.py      # uses `fio` from PATH, or FIO=/path/to/fio

Three fio processes on this machine play three hosts (vm01, vm02, vm03) through two steps of
7 s (4 KiB random reads at queue depth 1, then 8), each with ``--status-interval=1
--output-format=json``; vm03 is held to 2,000 IOPS (``--rate_iops``) to play a slow host. Their
stdout pipes are read as they arrive, as the runner reads its hosts' channels: each document
becomes an Interval (:class:`anfperf.live.FioStream`), the fleet's figures raise their alarms
(:class:`anfperf.live.FleetFigures`: vm03 slow, in each step), and :class:`anfperf.live.LiveLog`
writes the steps, intervals, alarms and the run's end, as the controller does. The tests of
the live view read it (tests/live/test_view.py) and the screenshot of docs/live_view.png is
made from it, so its numbers may change from one recording to the next; its layout must not.
Files are 32 MiB each, in a scratch folder removed at the end; the record stays under 100 KB.
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from anfperf.live import FioStream, FleetFigures, LiveLog
from anfperf.schema import LIVE_LOG_NAME

HERE = Path(__file__).resolve().parent
HOSTS = ("vm01", "vm02", "vm03")
SLOW_HOST, SLOW_IOPS = "vm03", 2000
STEPS = (("RndRead QD1", 1), ("RndRead QD8", 8))
RUNTIME_S = 7


def fio(program: str, host: str, folder: Path, iodepth: int) -> subprocess.Popen:
    args = [program, "--thread", "--output-format=json", "--status-interval=1", f"--name={host}",
            f"--filename={folder / host}.dat", "--size=32M", "--rw=randread", "--bs=4k",
            "--ioengine=libaio", "--direct=1", "--time_based=1", "--norandommap=1",
            f"--runtime={RUNTIME_S}", f"--iodepth={iodepth}"]  # fmt: skip
    if host == SLOW_HOST:
        args.append(f"--rate_iops={SLOW_IOPS}")
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def run_step(record: LiveLog, index: int, iodepth: int, program: str, folder: Path) -> None:
    processes = {host: fio(program, host, folder, iodepth) for host in HOSTS}
    streams = {host: FioStream(host) for host in HOSTS}
    fleet = FleetFigures(HOSTS)
    selector = selectors.DefaultSelector()
    for host, process in processes.items():
        os.set_blocking(process.stdout.fileno(), False)
        selector.register(process.stdout, selectors.EVENT_READ, host)
    while selector.get_map():
        for key, _ in selector.select(timeout=0.2):
            host = key.data
            chunk = os.read(key.fd, 4096)
            if not chunk:
                selector.unregister(key.fileobj)
                fleet.finish(host)
                continue
            for interval in streams[host].feed(chunk):
                record.interval(index, interval)
                fleet.add(interval)
        for alarm in fleet.alarms():
            record.alarm(index, alarm)
    selector.close()
    for host, process in processes.items():
        if process.wait(timeout=30) != 0:
            sys.exit(f"fio of {host} exited {process.returncode}")
        process.stdout.close()


def main() -> None:
    program = os.environ.get("FIO") or shutil.which("fio") or sys.exit("no fio on PATH")
    (HERE / LIVE_LOG_NAME).unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as scratch, LiveLog(HERE) as record:
        for index, (name, iodepth) in enumerate(STEPS):
            record.step(index, name, "start")
            run_step(record, index, iodepth, program, Path(scratch))
            record.step(index, name, "end")
            time.sleep(1)  # the runner's gap between steps: collection, the next start
        record.end("complete")
    size = (HERE / LIVE_LOG_NAME).stat().st_size
    print(f"{HERE / LIVE_LOG_NAME}: {record.lines} lines, {size:,} bytes")
    if size > 100_000:
        sys.exit(f"over 100 KB: {size:,} bytes")


if __name__ == "__main__":
    main()
