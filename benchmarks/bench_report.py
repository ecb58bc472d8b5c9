"""Report speed: one report vs a bare kernel start; a batch of four vs four in a row; HTML size.

All measured in the same run, on the same machine:

- one report of NOTEBOOK (papermill execution + HTML export) vs executing an empty notebook
  with papermill (kernel start and shutdown, the floor of any report): target <= 3x;
- four reports in one ``render_reports`` batch (worker processes) vs the same four one after
  the other: target <= 0.75x;
- (for information) the same notebook run by plain papermill without HTML: what the notebook's
  own work costs, apart from the report machinery;
- size of the self-contained HTML (plotly.js inside): target <= 8 MB;
- (for information) a report of one run, the fio queue-depth sweep of data/samples, next to the
  default report of every sample (11 runs, 22 charts).

Prints a table; exits 1 when a target is missed.

Usage: python benchmarks/bench_report.py [NOTEBOOK] [--repeats N] [--jobs N]
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

TARGET_ONE_VS_KERNEL = 3.0
TARGET_BATCH_VS_SERIAL = 0.75
TARGET_HTML_MB = 8.0
BATCH = 4


def default_notebook() -> Path:
    real = ROOT / "notebooks" / "benchmark_report.ipynb"
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
    """Wall time of plain papermill (no HTML), run in the notebook's folder like a report."""
    import papermill

    start = time.perf_counter()
    papermill.execute_notebook(str(src), str(out), progress_bar=False, cwd=str(src.parent))
    return time.perf_counter() - start


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return time.perf_counter() - start, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", nargs="?", type=Path, default=default_notebook())
    parser.add_argument("--repeats", type=int, default=1, help="repeats of each measure (median)")
    parser.add_argument("--jobs", type=int, help="processes of the batch (default: CPUs)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    kernel, plain, one, serial, batch, single = [], [], [], [], [], []
    one_run = {
        "paths": [str(ROOT / "data" / "samples" / "fio" / "sweeps" / "qd_sweep_randread4k.json")]
    }
    html_bytes = 0
    with tempfile.TemporaryDirectory(prefix="anfperf-bench-report-") as tmp:
        tmp = Path(tmp)
        empty_run(tmp)  # warm-up: disk caches, byte-compiled modules
        for r in range(args.repeats):
            kernel.append(empty_run(tmp))
            plain.append(papermill_run(args.notebook.absolute(), tmp / f"plain-{r}.ipynb"))
            wall, result = timed(render_report, args.notebook, out_dir=tmp / f"one-{r}")
            one.append(wall)
            html_bytes = result.html.stat().st_size
            if args.notebook.name == "benchmark_report.ipynb":
                wall, _ = timed(render_report, args.notebook, parameters=one_run,
                                out_dir=tmp / f"single-{r}")  # fmt: skip
                single.append(wall)
            sets = [{}] * BATCH
            wall, results = timed(
                render_reports, args.notebook, sets, out_dir=tmp / f"serial-{r}", processes=1,
                progress=False,
            )  # fmt: skip
            serial.append(wall)
            wall, results_b = timed(
                render_reports, args.notebook, sets, out_dir=tmp / f"batch-{r}",
                processes=args.jobs, progress=False,
            )  # fmt: skip
            batch.append(wall)
            failed = [x.error for x in [*results, *results_b] if not x.ok]
            if failed:
                raise SystemExit(f"bench_report: a report failed: {failed[0]}")
    k, p, o, s, b = (statistics.median(v) for v in (kernel, plain, one, serial, batch))
    mb = html_bytes / 1e6
    rows = [
        ("notebook", args.notebook.name, ""),
        ("empty notebook (kernel start) [s]", f"{k:.2f}", ""),
        ("same notebook, plain papermill, no HTML [s]", f"{p:.2f}", ""),
        ("one report [s]", f"{o:.2f}", ""),
        ("ratio one report / kernel start", f"{o / k:.2f}", f"<= {TARGET_ONE_VS_KERNEL}"),
        ("ratio one report / plain papermill", f"{o / p:.2f}", "(report machinery)"),
        *(
            [
                ("report of one run (fio QD sweep) [s]", f"{statistics.median(single):.2f}", ""),
                (
                    "ratio one-run report / kernel start",
                    f"{statistics.median(single) / k:.2f}",
                    "(information)",
                ),
            ]
            if single
            else []
        ),  # fmt: skip
        (f"{BATCH} reports one after the other [s]", f"{s:.2f}", ""),
        (f"{BATCH} reports in one batch [s]", f"{b:.2f}", ""),
        ("ratio batch / one after the other", f"{b / s:.2f}", f"<= {TARGET_BATCH_VS_SERIAL}"),
        ("HTML size [MB]", f"{mb:.2f}", f"<= {TARGET_HTML_MB}"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name.ljust(width)}  {value:>7}  {target}")
    ok = o / k <= TARGET_ONE_VS_KERNEL and b / s <= TARGET_BATCH_VS_SERIAL and mb <= TARGET_HTML_MB
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
