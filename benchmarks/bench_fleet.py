"""Fleet orchestration: speed on real sshd, and bounds on a thousand hosts that never greet.

``sync``: the same short fio job on 8 loopback hosts vs 1 host, over SSH. Real sshd servers on
127.0.0.2 ... 127.0.0.9 (as in tests/runner) and real fio. Each run is a whole
``run_inventory``: connect, upload the job file, synchronized start, fio, collect, manifest.
Targets (issue 3): wall time on 8 hosts <= 1.3 x wall time on 1 host; orchestration overhead
per run (wall time beyond the job's own runtime) <= 2 s.

``silent``: 1,000 loopback hosts (127.77.x.y) that accept TCP connections but never send an SSH
banner (a listening socket each, in a child process), run with a 1 s connect timeout. Targets
(issue 24, item 4): every host recorded 'unreachable: no SSH banner'; wall time <= 1.5 x the
connect rounds (hosts / max_parallel_hosts x 1 s) + 10 s; peak threads <= 2 x
max_parallel_hosts + 16 and open files <= max_parallel_hosts + 24 more than before the run
(before: 2,004 threads, 1,005 files, 149 s); manifest bytes written <= 4 x its final size
(before: the 1.56 MB manifest rewritten and flushed at every host event).

``--force-run``: the same silent hosts through what ``anfperf run --force`` does (preflight,
then the run, :func:`~anfperf.runner.workflow.run_workloads`), with preflight's share of the
wall time; the same targets (issue 33, item 7: a host preflight found unreachable is not
connected to again; before: 67 s for 1,000 hosts, 33.9 s of it in preflight).

``plan``: ``anfperf run RndRead --dry-run`` of generated inventories of 3,000 and 30,000 hosts
(read, planned, selected, rendered), and ``Inventory.select`` alone. Target (issue 33, item 8):
30,000 hosts take <= 15 x the time of 3,000 (linear is 10; before, quadratic steps made the
dry run of 30,000 hosts 110 s, 25 s of it in ``Inventory.select``). No sshd or fio needed.

Prints the figures; exits 1 when a target is missed. Needs root (sshd) and fio (sync, silent).

Usage: python benchmarks/bench_fleet.py [--mode sync|silent|plan|both|all] [--runtime S]
       [--repeats N] [--hosts N] [--silent N] [--parallel N] [--plan-hosts N]
       [--force-run]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anfperf.runner import (  # noqa: E402
    HostTask,
    RunPlan,
    RunStep,
    fio_task,
    load_inventory,
    run_inventory,
)
from anfperf.runner.hostrun import MAX_PARALLEL_HOSTS  # noqa: E402
from tests.runner.sshd import SilentHosts, SshFleet, sshd_missing  # noqa: E402

TARGET_RATIO = 1.3
TARGET_OVERHEAD_S = 2.0
#: Silent hosts: connect timeout [s], and the targets' factors (see the module docstring).
SILENT_CONNECT_TIMEOUT_S = 1
TARGET_SILENT_TIME_FACTOR = 1.5
TARGET_SILENT_TIME_EXTRA_S = 10.0
TARGET_EXTRA_THREADS = 16
TARGET_EXTRA_FILES = 24
TARGET_MANIFEST_WRITE_FACTOR = 4
#: Plan: the large inventory's time over the small one's (10 x the hosts: linear is 10).
TARGET_PLAN_RATIO = 15


def fio_job(data: Path, host: str, runtime_s: int) -> str:
    # rate-limited so that eight fio processes do not compete for the two CPUs of a CI runner:
    # the benchmark measures orchestration, not the machine
    return (
        f"[global]\nioengine=psync\nsize=4M\nruntime={runtime_s}\ntime_based\nrate_iops=200\n"
        f"filename={data}/data-{host}.bin\n[rr]\nrw=randread\nbs=4k\n"
    )


def one_run(inventory, data: Path, out: Path, runtime_s: int, label: str) -> float:
    tasks = {
        h: fio_task(fio_job(data, h, runtime_s), name="bench", duration_s=runtime_s)
        for h in inventory.names
    }
    plan = RunPlan(steps=(RunStep("bench", tasks),), run_id=label)
    start = time.perf_counter()
    manifest = run_inventory(plan, inventory, out)
    wall = time.perf_counter() - start
    if manifest.status != "complete":
        raise SystemExit(f"run {label} failed: {manifest.failures()}")
    return wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mode", choices=("sync", "silent", "plan", "both", "all"), default="all",
        help="both: sync and silent; all: every mode (default)",
    )  # fmt: skip
    parser.add_argument("--runtime", type=int, default=3, help="fio runtime [s] (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per fleet size (median)")
    parser.add_argument("--hosts", type=int, default=8, help="size of the large fleet")
    parser.add_argument("--silent", type=int, default=1000, help="hosts that never greet")
    parser.add_argument(
        "--parallel", type=int, default=MAX_PARALLEL_HOSTS, help="max_parallel_hosts (silent)"
    )
    parser.add_argument(
        "--force-run", action="store_true",
        help="silent hosts through preflight and the run, as `anfperf run --force`",
    )  # fmt: skip
    parser.add_argument(
        "--plan-hosts", type=int, default=30_000, help="large inventory of the plan mode"
    )
    args = parser.parse_args(argv)
    ok = True
    if args.mode in ("plan", "all"):
        ok = bench_plan(args.plan_hosts) and ok
    if args.mode != "plan" and (reason := sshd_missing()):
        print(f"bench_fleet: {reason}", file=sys.stderr)
        return 2
    if args.mode in ("sync", "both", "all"):
        ok = bench_sync(args) and ok
    if args.mode in ("silent", "both", "all"):
        ok = bench_silent(args.silent, args.parallel, args.force_run) and ok
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


def print_rows(rows: list[tuple[str, str, str]]) -> None:
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name.ljust(width)}  {value:>9}  {target}")


def bench_sync(args: argparse.Namespace) -> bool:
    """8 hosts vs 1 over real sshd: True when the targets are met."""
    with tempfile.TemporaryDirectory(prefix="anfperf-bench-fleet-") as tmp:
        tmp = Path(tmp)
        with SshFleet(tmp / "sshd", args.hosts) as fleet:
            inv_path = fleet.inventory(tmp / "inv.yml", workdir=str(tmp / "wd"))
            big = load_inventory(inv_path)
            small = big.select(big.names[:1])
            data = tmp / "data"
            data.mkdir()
            one_run(big, data, tmp / "raw", args.runtime, "warmup")  # lays out the data files
            walls: dict[int, list[float]] = {1: [], args.hosts: []}
            for r in range(args.repeats):
                for inv in (small, big):
                    n = len(inv.hosts)
                    walls[n].append(one_run(inv, data, tmp / "raw", args.runtime, f"n{n}-r{r}"))
    w1 = statistics.median(walls[1])
    wn = statistics.median(walls[args.hosts])
    ratio = wn / w1
    overhead = wn - args.runtime
    rows = [
        ("fio runtime per run [s]", f"{args.runtime}", ""),
        ("wall time, 1 host [s] (median)", f"{w1:.2f}", ""),
        (f"wall time, {args.hosts} hosts [s] (median)", f"{wn:.2f}", ""),
        (f"ratio {args.hosts} hosts / 1 host", f"{ratio:.2f}", f"<= {TARGET_RATIO}"),
        ("orchestration overhead, 1 host [s]", f"{w1 - args.runtime:.2f}", f"<= {TARGET_OVERHEAD_S}"),
        (f"orchestration overhead, {args.hosts} hosts [s]", f"{overhead:.2f}", f"<= {TARGET_OVERHEAD_S}"),
    ]  # fmt: skip
    print_rows(rows)
    return (
        ratio <= TARGET_RATIO
        and overhead <= TARGET_OVERHEAD_S
        and w1 - args.runtime <= TARGET_OVERHEAD_S
    )


class Peaks:
    """The most threads and open files this process had while sampling (every 2 ms)."""

    def __init__(self) -> None:
        self.threads = self.files = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    @staticmethod
    def now() -> tuple[int, int]:
        return len(os.listdir("/proc/self/task")), len(os.listdir("/proc/self/fd"))

    def _sample(self) -> None:
        while not self._done.is_set():
            threads, files = self.now()
            self.threads, self.files = max(self.threads, threads), max(self.files, files)
            time.sleep(0.002)

    def __enter__(self) -> Peaks:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()


def bench_silent(n: int, parallel: int, force_run: bool = False) -> bool:
    """`n` hosts that never greet: True when the targets are met (`force_run`: through
    preflight and ``--force``, :func:`forced_run`)."""
    with tempfile.TemporaryDirectory(prefix="anfperf-bench-silent-") as tmp:
        tmp = Path(tmp)
        with SilentHosts(SilentHosts.loopback(n)) as silent:
            fleet = SshFleet(tmp / "keys", 0)  # a client key and known_hosts, no server
            inventory = load_inventory(
                fleet.start().inventory(
                    tmp / "inv.yml", workdir=str(tmp / "wd"), extra_hosts=silent.hosts(),
                    connect_timeout_s=SILENT_CONNECT_TIMEOUT_S,
                    volumes={"data": str(tmp / "data")},
                )
            )  # fmt: skip
            preflight_s: list[float] = []
            task = HostTask(argv=("echo", "hello"))
            step = RunStep("hello", dict.fromkeys(inventory.names, task), tool="echo")
            threads0, files0 = Peaks.now()
            start = time.perf_counter()
            with Peaks() as peaks:
                if force_run:
                    manifest = forced_run(inventory, tmp / "raw", parallel, preflight_s)
                else:
                    manifest = run_inventory(
                        RunPlan(steps=(step,), run_id="silent"), inventory, tmp / "raw",
                        max_parallel_hosts=parallel,
                    )  # fmt: skip
            wall = time.perf_counter() - start
            size = manifest.path.stat().st_size
    silent_ok = all(
        t["status"] == "unreachable" and t["reason"].startswith("no SSH banner")
        for _, _, t in manifest.tasks()
    )
    rounds = math.ceil(n / parallel)
    target_s = TARGET_SILENT_TIME_FACTOR * rounds * SILENT_CONNECT_TIMEOUT_S
    target_s += TARGET_SILENT_TIME_EXTRA_S
    target_threads = 2 * parallel + TARGET_EXTRA_THREADS
    target_files = parallel + TARGET_EXTRA_FILES
    target_bytes = TARGET_MANIFEST_WRITE_FACTOR * size
    rows = [
        (f"hosts that never greet (max_parallel_hosts {parallel})", f"{n}", ""),
        ("recorded 'unreachable: no SSH banner'", f"{silent_ok}", "True"),
        ("wall time [s]", f"{wall:.1f}", f"<= {target_s:.0f}"),
        *([("  of it in preflight [s]", f"{preflight_s[0] - start:.1f}", "")] if preflight_s else []),
        ("peak threads, more than before", f"{peaks.threads - threads0}", f"<= {target_threads}"),
        ("peak open files, more than before", f"{peaks.files - files0}", f"<= {target_files}"),
        ("manifest: whole writes", f"{manifest.checkpoints}", ""),
        ("manifest: journal entries", f"{manifest.journal_entries}", ""),
        ("manifest: final size [bytes]", f"{size}", ""),
        ("manifest: bytes written", f"{manifest.bytes_written}", f"<= {target_bytes}"),
    ]  # fmt: skip
    print_rows(rows)
    return (
        silent_ok
        and wall <= target_s
        and peaks.threads - threads0 <= target_threads
        and peaks.files - files0 <= target_files
        and manifest.bytes_written <= target_bytes
    )


def forced_run(inventory, out: Path, parallel: int, preflight_s: list[float]):
    """``anfperf run RndRead --force`` on `inventory` (its hosts never greet: nothing runs);
    appends to `preflight_s` the moment preflight ended."""
    from anfperf.runner.workflow import run_workloads

    return run_workloads(
        ["RndRead"], inventory, out, run_id="silent", force=True, max_parallel_hosts=parallel,
        changes={"duration_s": 1, "warmup_s": 0, "file_size_gib": 4 / 1024, "threads": 2},
        on_preflight=lambda plan, reports: preflight_s.append(time.perf_counter()),
    )  # fmt: skip


def write_inventory(path: Path, n_hosts: int) -> Path:
    """An inventory of `n_hosts` addresses sharing one volume (nothing is contacted)."""
    with path.open("w") as fh:
        fh.write("user: azureuser\nvolumes: {vol1: /mnt/vol1}\nhosts:\n")
        fh.writelines(
            f"  vm{i}: 10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}\n" for i in range(n_hosts)
        )
    return path


def time_plan(inventory: Path, out: Path) -> tuple[float, float]:
    """Seconds of ``anfperf run RndRead --dry-run`` on `inventory` (its text discarded), and
    of ``Inventory.select`` of every host."""
    import contextlib
    import io

    from anfperf.cli import main as cli

    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli(["run", "RndRead", "--hosts", str(inventory), "--dry-run", "--out", str(out)])
    whole_s = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"bench_fleet: the dry run of {inventory} exited {code}")
    inv = load_inventory(inventory)
    names = list(reversed(inv.names))
    start = time.perf_counter()
    inv.select(names)
    return whole_s, time.perf_counter() - start


def bench_plan(n_large: int) -> bool:
    n_small = max(1, n_large // 10)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        small = time_plan(write_inventory(base / "small.yml", n_small), base)
        large = time_plan(write_inventory(base / "large.yml", n_large), base)
    ratio = large[0] / small[0]
    print_rows([
        (f"dry run, {n_small:,} hosts", f"{small[0]:.2f} s", ""),
        (f"dry run, {n_large:,} hosts", f"{large[0]:.2f} s", ""),
        ("ratio", f"{ratio:.1f}", f"<= {TARGET_PLAN_RATIO} (linear: 10)"),
        (f"Inventory.select, {n_small:,} hosts", f"{small[1] * 1e3:.1f} ms", ""),
        (f"Inventory.select, {n_large:,} hosts", f"{large[1] * 1e3:.1f} ms", ""),
    ])  # fmt: skip
    return ratio <= TARGET_PLAN_RATIO


if __name__ == "__main__":
    sys.exit(main())
