"""Report speed: reports vs a bare kernel start; a batch of four vs four in a row; HTML size.

All measured in the same run, on the same machine, each repeat measuring everything once
(paired: a ratio is taken within a repeat, the median over repeats is printed):

- a report of one run, the fio queue-depth sweep of the bundled samples
  (``-p paths anfperf/samples/fio/sweeps/qd_sweep_randread4k.json``), vs executing an empty
  notebook with plain papermill (kernel start and shutdown, the floor of any report):
  target <= 4x;
- the default report of NOTEBOOK (every sample: 11 runs, 22 charts) vs the same: target <= 8x;
- four default reports in one ``render_reports`` batch (worker processes) vs the same four one
  after the other: target <= 0.75x;
- size of the self-contained HTML (plotly.js inside): target <= 8 MB;
- (for information, ``--plain``) the same notebook run by plain papermill without HTML.

Prints a table; exits 1 when a target is missed.

Usage: python benchmarks/bench_report.py [NOTEBOOK] [--repeats N] [--jobs N] [--plain]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anfperf.report import render_report, render_reports  # noqa: E402

TARGET_ONE_RUN_VS_KERNEL = 4.0
TARGET_ONE_VS_KERNEL = 8.0
TARGET_BATCH_VS_SERIAL = 0.75
TARGET_HTML_MB = 8.0
BATCH = 4
#: The one-run report: the fio queue-depth sweep of the bundled samples.
ONE_RUN = {
    "paths": [str(ROOT / "anfperf" / "samples" / "fio" / "sweeps" / "qd_sweep_randread4k.json")]
}


def default_notebook() -> Path:
    real = ROOT / "anfperf" / "notebooks" / "benchmark_report.ipynb"
    return (
        real if real.exists() else ROOT / "tests" / "data" / "notebooks" / "interval_report.ipynb"
    )


def empty_run(tmp: Path) -> float:
    """Wall time of papermill executing a notebook with one empty cell: the kernel's cost."""
    import nbformat

    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("")],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )  # fmt: skip
    src = tmp / "empty.ipynb"
    nbformat.write(nb, src)
    return papermill_run(src, tmp / "empty-out.ipynb")


def papermill_run(src: Path, out: Path) -> float:
    """Wall time of plain papermill (no HTML), run in the notebook's folder like a report,
    its kernel started as a report's (encrypted sockets: no ipykernel warning about them)."""
    import papermill

    from anfperf.report._run import _kernel_manager_class

    start = time.perf_counter()
    papermill.execute_notebook(
        str(src), str(out), progress_bar=False, cwd=str(src.parent),
        kernel_manager_class=_kernel_manager_class(),
    )  # fmt: skip
    return time.perf_counter() - start


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return time.perf_counter() - start, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", nargs="?", type=Path, default=default_notebook())
    parser.add_argument("--repeats", type=int, default=3, help="repeats of each measure (median)")
    parser.add_argument("--jobs", type=int, help="processes of the batch (default: CPUs)")
    parser.add_argument("--plain", action="store_true", help="also time plain papermill")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    real = args.notebook.name == "benchmark_report.ipynb"
    m: dict[str, list[float]] = {
        k: [] for k in ("kernel", "plain", "one", "single", "serial", "batch")
    }
    html_bytes = 0
    with tempfile.TemporaryDirectory(prefix="anfperf-bench-report-") as tmp:
        tmp = Path(tmp)
        empty_run(tmp)  # warm-up: disk caches, byte-compiled modules
        render_report(args.notebook, out_dir=tmp / "warm-up")
        for r in range(args.repeats):
            m["kernel"].append(statistics.median(empty_run(tmp) for _ in range(3)))
            if args.plain:
                m["plain"].append(papermill_run(args.notebook.absolute(), tmp / f"plain-{r}.ipynb"))
            if real:
                wall, _ = timed(render_report, args.notebook, parameters=ONE_RUN,
                                out_dir=tmp / f"single-{r}")  # fmt: skip
                m["single"].append(wall)
            wall, result = timed(render_report, args.notebook, out_dir=tmp / f"one-{r}")
            m["one"].append(wall)
            html_bytes = result.html.stat().st_size
            sets = [{}] * BATCH
            wall, results = timed(
                render_reports, args.notebook, sets, out_dir=tmp / f"serial-{r}", processes=1,
                progress=False,
            )  # fmt: skip
            m["serial"].append(wall)
            wall, results_b = timed(
                render_reports, args.notebook, sets, out_dir=tmp / f"batch-{r}",
                processes=args.jobs, progress=False,
            )  # fmt: skip
            m["batch"].append(wall)
            failed = [x.error for x in [*results, *results_b] if not x.ok]
            if failed:
                raise SystemExit(f"bench_report: a report failed: {failed[0]}")

    def med(key: str) -> float:
        return statistics.median(m[key])

    def ratio(num: str, den: str) -> float:  # paired: within each repeat
        return statistics.median(a / b for a, b in zip(m[num], m[den], strict=True))

    mb = html_bytes / 1e6
    checks = []  # (name, value, target)
    rows = [
        ("notebook", args.notebook.name, ""),
        ("repeats (medians; ratios paired per repeat)", str(args.repeats), ""),
        ("empty notebook (kernel start) [s]", f"{med('kernel'):.2f}", ""),
    ]
    if real:
        rows.append(("report of one run (fio QD sweep) [s]", f"{med('single'):.2f}", ""))
        checks.append(("ratio one-run report / kernel start", ratio("single", "kernel"),
                       TARGET_ONE_RUN_VS_KERNEL))  # fmt: skip
    rows.append(("report of NOTEBOOK (defaults) [s]", f"{med('one'):.2f}", ""))
    checks.append(("ratio report / kernel start", ratio("one", "kernel"), TARGET_ONE_VS_KERNEL))
    if args.plain:
        rows.append(("same notebook, plain papermill, no HTML [s]", f"{med('plain'):.2f}", ""))
        rows.append(("ratio report / plain papermill", f"{ratio('one', 'plain'):.2f}",
                     "(report machinery)"))  # fmt: skip
    rows += [
        (f"{BATCH} reports one after the other [s]", f"{med('serial'):.2f}", ""),
        (f"{BATCH} reports in one batch [s]", f"{med('batch'):.2f}", ""),
    ]
    checks += [
        ("ratio batch / one after the other", ratio("batch", "serial"), TARGET_BATCH_VS_SERIAL),
        ("HTML size [MB]", mb, TARGET_HTML_MB),
    ]
    rows += [(name, f"{value:.2f}", f"<= {target}") for name, value, target in checks]
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name.ljust(width)}  {value:>7}  {target}")
    ok = all(value <= target for _, value, target in checks)
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
