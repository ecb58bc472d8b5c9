"""Accuracy of the models past their data: fit the lower half of a real sweep, predict the rest.

Judged against targets (``anfperf.models.curves.validation.HOLDOUT_TARGETS``: median error <= 10 %,
largest error <= 25 %, >= 80 % of the held-out points inside the 95 % prediction band), for the
default throughput curve (``fit_throughput_curve``) on:

1. the real fio iodepth sweep in tests/data/fio_sweeps (4 KiB random reads, QD 1 .. 128, three
   passes, median per depth; it levels off at QD 12 and falls by a fifth at QD 96-128);
2. Vdbench forthreads=(1..64), 2 SDs (tests/data/vdbench/RndReadThreads);
3. the published SPECstorage Solution 2020 curves of ANF (a large volume; one in breakthrough
   mode): ops/s against load.

For each: the default model's median and largest error, the same for a flat line at the last
fitted value (the baseline to beat), the band's coverage and its median relative width
(``(upper - lower) / estimate``: a band can hold everything and still be too wide to plan with).

Printed for context, not judged: the same on a fio sweep measured now on this machine (noisy on
a shared machine), latency past the data (Vdbench iorate=curve with Little's-law cap; SPEC
latency, whose lower half is flat to the printed 0.1 ms), ops at 1 and 2 ms from a fit to the
whole SPEC curve, and the read/write mix.

Exits 1 when a judged case misses a target, after printing every case.

Run: ``.venv/bin/python benchmarks/bench_models.py [--no-live] [--draws N]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anfperf.analysis import findings  # noqa: E402
from anfperf.analysis.sweep import sweep_points, sweep_xy  # noqa: E402
from anfperf.ingest import read_many, read_vdbench  # noqa: E402
from anfperf.models import (  # noqa: E402
    fit_mix,
    fit_queueing_latency,
    holdout_check,
    mix_throughput,
    queueing_iops_at_latency,
)
from anfperf.models.curves.validation import HOLDOUT_TARGETS  # noqa: E402
from tests.models.realdata import SPEC_BREAKTHROUGH, SPEC_LARGE  # noqa: E402

DATA = ROOT / "tests" / "data"
VDBENCH = ROOT.parent / "shared" / "corpus" / "vdbench"
QUEUE_DEPTHS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]


def meets_targets(check: dict) -> bool:
    """True when a :func:`holdout_check` result meets :data:`HOLDOUT_TARGETS`."""
    return (
        check["median_err_pct"] <= HOLDOUT_TARGETS["median_err_pct"]
        and check["max_err_pct"] <= HOLDOUT_TARGETS["max_err_pct"]
        and check["coverage"] >= HOLDOUT_TARGETS["coverage"]
    )


def median_per_x(frame: pd.DataFrame, x: str = "outstanding", y: str = "iops") -> pd.DataFrame:
    """One point per x: the median of the runs there (repeated passes of a sweep)."""
    return sweep_points(frame, x, y).groupby(x, as_index=False)[y].median()


def live_fio_sweep(workdir: Path, runtime_s: float = 0.5) -> pd.DataFrame:
    """fio at each queue depth on this machine, one pass: the tidy frame."""
    fio = shutil.which("fio")
    if fio is None:
        raise SystemExit("fio is not installed (make sysdeps)")
    outputs = []
    for qd in QUEUE_DEPTHS:
        out = workdir / f"qd{qd}.json"
        subprocess.run(
            [fio, f"--name=qd{qd}", f"--filename={workdir / 'bench.dat'}", "--size=256m",
             "--rw=randread", "--bs=4k", "--ioengine=libaio", "--direct=1", f"--iodepth={qd}",
             f"--runtime={round(runtime_s * 1000)}ms", "--ramp_time=300ms", "--time_based",
             "--output-format=json", f"--output={out}"],
            check=True, capture_output=True,
        )  # fmt: skip
        json.loads(out.read_text())  # fail loudly on a broken run
        outputs.append(out)
    return read_many(outputs)


def judged_cases() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The real sweeps the targets are judged on: (concurrency or load, throughput)."""
    qd = median_per_x(read_many(sorted((DATA / "fio_sweeps" / "qd_randread").glob("*.json"))))
    threads = median_per_x(read_vdbench(DATA / "vdbench" / "RndReadThreads"))
    return {
        "fio iodepth 1..128 (tests/data)": (qd["outstanding"].to_numpy(), qd["iops"].to_numpy()),
        "Vdbench forthreads 2..128 in flight": (
            threads["outstanding"].to_numpy(),
            threads["iops"].to_numpy(),
        ),
        "SPEC ANF large volume, ops vs load": (SPEC_LARGE[:, 0], SPEC_LARGE[:, 2]),
        "SPEC ANF breakthrough, ops vs load": (SPEC_BREAKTHROUGH[:, 0], SPEC_BREAKTHROUGH[:, 2]),
    }


def row(name: str, check: dict) -> dict:
    return {
        "case": name,
        "fit/pred": f"{check['fit_points']}/{check['predicted_points']}",
        "median %": check["median_err_pct"],
        "max %": check["max_err_pct"],
        "flat median %": check["flat_median_err_pct"],
        "flat max %": check["flat_max_err_pct"],
        "coverage": check["coverage"],
        "band width": check["median_rel_width"],
    }


def print_check(name: str, check: dict) -> None:
    fit = check["fit"]
    print(f"\n{name}: fitted on x <= {check['band']['x'].iloc[0]:g} (exclusive)")
    print(f"  {fit!r}")
    for note in fit.notes:
        print(f"  note: {note}")
    band = check["band"].copy()
    band["error"] = band["estimate"] / band["measured"] - 1
    print(band.to_string(index=False, float_format=lambda v: f"{v:,.4g}"))


def context(args: argparse.Namespace) -> list[dict]:
    """Cases printed for context: not judged."""
    rows = []
    if not args.no_live:
        with tempfile.TemporaryDirectory(prefix="anfperf-bench-") as tmp:
            qd = median_per_x(live_fio_sweep(Path(tmp)))
        check = holdout_check(qd["outstanding"], qd["iops"], draws=args.draws)
        print_check("fio iodepth 1..128 on this machine now (one pass of 0.5 s)", check)
        rows.append(row("fio iodepth, this machine now", check))
    for name, data in (("large volume", SPEC_LARGE), ("breakthrough", SPEC_BREAKTHROUGH)):
        ops, lat = data[:, 2], data[:, 1]
        check = holdout_check(ops, lat, fit=fit_queueing_latency, draws=args.draws)
        print_check(f"SPEC {name}: latency vs ops (queueing)", check)
        rows.append(row(f"SPEC {name}, latency vs ops", check))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            whole = fit_queueing_latency(ops, lat)
        for slo in (1.0, 2.0):
            model = float(queueing_iops_at_latency(slo, **whole))
            measured = findings.iops_at_latency_measured(ops, lat, slo)
            print(f"  whole curve: ops at {slo:g} ms fitted {model:,.0f}, measured {measured:,.0f}")
    if VDBENCH.is_dir():
        curve = sweep_points(read_vdbench(VDBENCH / "RndReadCurve"), "iops", "lat_mean_ms")
        n_out = float(curve["configured"].iloc[0])

        def capped(x: np.ndarray, y: np.ndarray):
            return fit_queueing_latency(x, y, outstanding=n_out)

        check = holdout_check(curve["iops"], curve["lat_mean_ms"], fit=capped, draws=args.draws)
        print_check(f"Vdbench iorate=curve: latency vs load, capped at {n_out:g} in flight", check)
        rows.append(row("Vdbench iorate=curve, latency", check))
        pure = pd.concat([read_vdbench(VDBENCH / n) for n in ("RndRead", "RndWrite")])
        mixed = sweep_points(read_vdbench(VDBENCH / "RndMix"), "read_pct", "iops")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mfit = fit_mix(*sweep_xy(pure, "read_pct", "iops"))
        pred = float(mix_throughput(mixed["read_pct"].iloc[0], **mfit))
        meas = float(mixed["iops"].iloc[0])
        print(f"\nVdbench 8 KiB random, pure read + pure write -> 50 % mix: measured {meas:,.0f}, "
              f"predicted {pred:,.0f} ({pred / meas - 1:+.1%})")  # fmt: skip
    else:
        print(f"\n{VDBENCH} not found: its context cases skipped")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-live", action="store_true", help="skip the fio sweep run now")
    parser.add_argument("--draws", type=int, default=400, help="bootstrap draws per band")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # fits warn by design (few points, no saturation)
    judged = []
    for name, (x, y) in judged_cases().items():
        check = holdout_check(x, y, draws=args.draws)
        print_check(name, check)
        judged.append({**row(name, check), "met": meets_targets(check)})
    extra = context(args)
    pd.set_option("display.width", 200)
    fmt = {"median %": "{:.1f}", "max %": "{:.1f}", "flat median %": "{:.1f}",
           "flat max %": "{:.1f}", "coverage": "{:.0%}", "band width": "{:.0%}"}  # fmt: skip

    def show(rows: list[dict]) -> str:
        table = pd.DataFrame(rows)
        for col, f in fmt.items():
            table[col] = table[col].map(lambda v, f=f: f.format(v) if np.isfinite(v) else "inf")
        return table.to_string(index=False)

    t = HOLDOUT_TARGETS
    print(f"\nJudged (targets: median <= {t['median_err_pct']:g} %, max <= {t['max_err_pct']:g} %, "
          f"coverage >= {t['coverage']:.0%}; 'flat' = last fitted value held):")  # fmt: skip
    print(show(judged))
    print("\nContext (not judged):")
    print(show(extra) if extra else "  (none)")
    missed = [r["case"] for r in judged if not r["met"]]
    print(f"\n{len(judged) - len(missed)} of {len(judged)} judged cases meet every target")
    if missed:
        print("missed: " + "; ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
