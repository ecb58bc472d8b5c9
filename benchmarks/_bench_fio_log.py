"""Speed of read_fio_log on a 10-million-line fio clat log against pyarrow's CSV reader.

Target (issue 2): ``read_fio_log`` <= 2 x ``pyarrow.csv.read_csv`` of the same file with
explicit column names and types, i.e. the bare parse into an Arrow table that the reader builds
on; on top of it the reader detects the layout, checks the data directions, converts units and
builds the pandas frame.

The file copies the shape of a per-I/O log written by fio 3.33 (tests/data/fio_logs/
perio_clat.1.log: ``time, clat_ns, ddir, 4096, prio``): a 70/30 random read/write job at
50,000 IOPS, so milliseconds grow to 200,000 over 10 million lines, log-normal latencies around
0.2 ms. Times are the best of `repeat` alternating runs with the file in the page cache.

``peak_mib`` is the peak resident memory (VmHWM) of a fresh Python process that imports
anfperf and reads the file once; ``baseline_peak_mib`` the same for pyarrow's reader. Both include
the interpreter and the imported libraries (about 150 MiB): they show what a user's process
needs, not the reader's allocations alone (tracemalloc does not see Arrow's memory pool).

Usage: python benchmarks/_bench_fio_log.py [N_LINES]
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a source tree
    sys.path.insert(0, str(ROOT))

from anfperf.ingest.fio_log import read_fio_log  # noqa: E402

NAMES = ["time", "value", "ddir", "bs", "prio"]
IOPS = 50_000
_CHUNK = 1_000_000


def baseline_read(path: Path):
    """pyarrow's CSV reader with the column names and types of the file: the reference."""
    return pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=NAMES),
        convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(NAMES, pa.int64())),
    )


def make_log(path: Path, n_lines: int, seed: int = 33) -> int:
    """Write an `n_lines` fio clat log like fio's own, fast (vectorised); return its size [B]."""
    rng = np.random.default_rng(seed)
    with open(path, "wb") as fh:
        for start in range(0, n_lines, _CHUNK):
            n = min(_CHUNK, n_lines - start)
            time_ms = (np.arange(start, start + n) * 1000) // IOPS
            clat_ns = np.rint(rng.lognormal(np.log(200_000), 0.6, n)).astype(np.int64)
            ddir = (rng.random(n) >= 0.7).astype(np.int64)
            bs = np.full(n, 4096, dtype=np.int64)
            prio = np.zeros(n, dtype=np.int64)
            fh.write(_ascii_lines([time_ms, clat_ns, ddir, bs, prio]))
    return path.stat().st_size


def _ascii_lines(columns: list[np.ndarray]) -> bytes:
    """Non-negative integer columns as 'a, b, c\\n' lines, formatted with numpy, no Python loop
    over rows: each column becomes a right-aligned digit matrix whose leading zeros are masked."""
    n = len(columns[0])
    blocks, keeps = [], []
    for i, col in enumerate(columns):
        col = np.asarray(col, dtype=np.int64)
        width = len(str(int(col.max()))) if n else 1
        digits = np.empty((n, width), dtype=np.uint8)
        rest = col.copy()
        for j in range(width - 1, -1, -1):
            digits[:, j] = 48 + rest % 10
            rest //= 10
        n_digits = np.ones(n, dtype=np.int64)
        for k in range(1, width):
            n_digits += col >= 10**k
        blocks.append(digits)
        keeps.append(np.arange(width) >= (width - n_digits)[:, None])
        sep = np.frombuffer(b", " if i < len(columns) - 1 else b"\n", dtype=np.uint8)
        blocks.append(np.broadcast_to(sep, (n, len(sep))))
        keeps.append(np.ones((n, len(sep)), dtype=bool))
    return np.hstack(blocks)[np.hstack(keeps)].tobytes()


_PEAK = """
import resource, sys
sys.path.insert(0, sys.argv[1])
if sys.argv[3] == "anfperf":
    from anfperf.ingest.fio_log import read_fio_log
    read_fio_log(sys.argv[2])
else:
    from benchmarks._bench_fio_log import baseline_read
    baseline_read(sys.argv[2])
try:  # VmHWM is this process's own peak; ru_maxrss would inherit the parent's peak on Linux
    with open("/proc/self/status") as fh:
        print(next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:")) / 1024)
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def _peak_mib(path: Path, which: str) -> float:
    out = subprocess.run(
        [sys.executable, "-c", _PEAK, str(ROOT), str(path), which],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return float(out.stdout.strip().splitlines()[-1])


def bench(workdir: Path, n_lines: int = 10_000_000, repeat: int = 5) -> dict:
    """Time read_fio_log against pyarrow.csv.read_csv on an `n_lines` clat log in `workdir`.

    Returns
    -------
    dict
        baseline_s, anfperf_s [s] (best of `repeat`), ratio (median of the per-round ratios
        anfperf / baseline, rounds alternating), ratio_best_of (of the best times), ratio_cpu (of the best CPU times,
        all threads: the steadiest when other work shares the cores), mb
        (file size [MB, 10**6 B]), rows, peak_mib and baseline_peak_mib (peak RSS [MiB] of a
        process that reads the file with either reader).
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "bench_clat.1.log"
    try:
        size = make_log(path, n_lines)
        # Warm the page cache and check both readers agree before timing.
        table = baseline_read(path)
        frame = read_fio_log(path)
        if len(frame) != table.num_rows or len(frame) != n_lines:
            raise RuntimeError(f"row counts differ: {len(frame)} vs {table.num_rows} vs {n_lines}")
        if not np.allclose(frame["clat_ms"].to_numpy(), table.column("value").to_numpy() / 1e6):
            raise RuntimeError("read_fio_log values differ from pyarrow's")
        del table, frame
        wall: dict[str, list[float]] = {"baseline": [], "anfperf": []}
        cpu: dict[str, list[float]] = {"baseline": [], "anfperf": []}
        for _ in range(repeat):  # alternate, so drift in machine load hits both alike
            for name, reader in (("baseline", baseline_read), ("anfperf", read_fio_log)):
                c0, t0 = time.process_time(), time.perf_counter()
                reader(path)
                wall[name].append(time.perf_counter() - t0)
                cpu[name].append(time.process_time() - c0)
        paired = sorted(a / b for a, b in zip(wall["anfperf"], wall["baseline"], strict=True))
        result = {
            "baseline_s": min(wall["baseline"]),
            "anfperf_s": min(wall["anfperf"]),
            # paired: the median of the per-round ratios (best-of times taken apart pass or
            # fail with the machine's load)
            "ratio": paired[len(paired) // 2],
            "ratio_min": paired[0],
            "ratio_max": paired[-1],
            "ratio_best_of": min(wall["anfperf"]) / min(wall["baseline"]),
            "ratio_cpu": min(cpu["anfperf"]) / min(cpu["baseline"]),
            "mb": size / 1e6,
            "rows": n_lines,
            "peak_mib": _peak_mib(path, "anfperf"),
            "baseline_peak_mib": _peak_mib(path, "baseline"),
        }
    finally:
        path.unlink(missing_ok=True)
    return result


if __name__ == "__main__":
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    print(json.dumps(bench(ROOT / "benchmarks" / ".work", lines), indent=2))
