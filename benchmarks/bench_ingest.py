"""Ingest speed against the raw decode of the same bytes, measured in the same run.

Targets: read_many of 1,000 and of 10,000 fio JSON files (a quarter with fio's text before the
JSON) <= 2 x orjson.loads of the same bytes (issue 11); a 100,000-row Vdbench flatfile <= 2 x
pandas.read_csv of the same table; a 10-million-line fio latency log <= 2 x pyarrow's CSV
reader (issue 2). Baseline and anfperf are timed in turns, round by round: each ratio is the
median of the per-round ratios (min and max printed beside it). Each case runs in its own
process so that peak memory (max RSS) is its own. Every case runs and is printed; the exit
status is 1 at the end when any ratio missed its target or any case failed.

Usage: python benchmarks/bench_ingest.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (name, module, keyword arguments for bench(), quick arguments, target ratio)
CASES = [
    ("fio JSON x1,000 vs orjson.loads", "benchmarks._bench_fio_json", {"n_files": 1000},
     {"n_files": 100, "rounds": 3}, 2.0),
    ("fio JSON x10,000 vs orjson.loads", "benchmarks._bench_fio_json",
     {"n_files": 10_000, "rounds": 5}, {"n_files": 1000, "rounds": 3}, 2.0),
    ("Vdbench flatfile 100k rows vs pandas.read_csv", "benchmarks._bench_vdbench",
     {"n_rows": 100_000}, {"n_rows": 10_000}, 2.0),
    ("fio log 10M lines vs pyarrow.csv", "benchmarks._bench_fio_log", {"n_lines": 10_000_000},
     {"n_lines": 500_000}, 2.0),
]  # fmt: skip

_CHILD = """
import json, resource, sys
from pathlib import Path
import importlib
mod = importlib.import_module(sys.argv[1])
result = mod.bench(Path(sys.argv[2]), **json.loads(sys.argv[3]))
result["max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(result))
"""


def run_case(module: str, kwargs: dict, workdir: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, module, str(workdir), json.dumps(kwargs)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if out.returncode != 0:
        raise RuntimeError(f"{module} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args(argv)
    missed: list[str] = []
    header = (
        f"{'case':48} {'MB':>8} {'base s':>8} {'anfperf s':>9} {'MB/s':>8} {'ratio':>6} "
        f"{'min-max':>11} {'target':>6} {'max RSS MiB':>11}"
    )
    print(header)
    print("-" * len(header))
    for name, module, full, quick, target in CASES:
        try:
            with tempfile.TemporaryDirectory(prefix="anfperf-bench-") as tmp:
                r = run_case(module, quick if args.quick else full, Path(tmp))
        except RuntimeError as exc:  # a failed case is a miss; the other cases still run
            print(f"{name:48} FAILED: {exc}")
            missed.append(name)
            continue
        ok = r["ratio"] <= target
        if not ok:
            missed.append(name)
        rate = r["mb"] / r["anfperf_s"] if r["anfperf_s"] else float("nan")
        spread = f"{r.get('ratio_min', r['ratio']):.2f}-{r.get('ratio_max', r['ratio']):.2f}"
        print(
            f"{name:48} {r['mb']:8.1f} {r['baseline_s']:8.3f} {r['anfperf_s']:9.3f} "
            f"{rate:8.1f} {r['ratio']:6.2f} {spread:>11} {target:6.1f} {r['max_rss_mib']:11.0f}"
            + ("" if ok else "  MISSED"),
            flush=True,
        )
    if missed and not args.quick:
        print(f"\nmissed: {'; '.join(missed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
