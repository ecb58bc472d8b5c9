"""Fleet orchestration speed: the same short fio job on 8 loopback hosts vs 1 host, over SSH.

Real sshd servers on 127.0.0.2 ... 127.0.0.9 (as in tests/runner) and real fio. Each run is a
whole ``run_inventory``: connect, upload the job file, synchronized start, fio, collect, manifest.
Targets (issue 3): wall time on 8 hosts <= 1.3 x wall time on 1 host; orchestration overhead
per run (wall time beyond the job's own runtime) <= 2 s. Prints both; exits 1 when a target is
missed. Needs root (sshd) and fio.

Usage: python benchmarks/bench_fleet.py [--runtime S] [--repeats N] [--hosts N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anfperf.runner import RunPlan, RunStep, fio_task, load_inventory, run_inventory  # noqa: E402
from tests.runner.sshd import SshFleet, sshd_missing  # noqa: E402

TARGET_RATIO = 1.3
TARGET_OVERHEAD_S = 2.0


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
    parser.add_argument("--runtime", type=int, default=3, help="fio runtime [s] (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per fleet size (median)")
    parser.add_argument("--hosts", type=int, default=8, help="size of the large fleet")
    args = parser.parse_args(argv)
    if reason := sshd_missing():
        print(f"bench_fleet: {reason}", file=sys.stderr)
        return 2
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
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name.ljust(width)}  {value:>7}  {target}")
    ok = (
        ratio <= TARGET_RATIO
        and overhead <= TARGET_OVERHEAD_S
        and w1 - args.runtime <= TARGET_OVERHEAD_S
    )
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
