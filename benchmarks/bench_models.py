"""Accuracy of the models on real runs: fit on the lower half, predict the upper half.

1. fio queue-depth sweep on this machine (4 KiB random reads, iodepth 1 .. 128, libaio with
   O_DIRECT; psync with a numjobs sweep where O_DIRECT is refused): three passes (up, down, up)
   of 0.5 s per point, the median of the three per depth (an odd count: a true median, so one
   pass disturbed by other work on the machine does not move it). The throughput curve
   (USL and MVA, Akaike-weighted: ``fit_throughput_curve``) is fitted to the lower half of the
   depths and predicts the upper half's IOPS.
2. Vdbench forthreads=(1..64) run (../shared/corpus/vdbench/RndReadThreads): the same.
3. Vdbench iorate=curve run (RndReadCurve): the queueing curve, capped by Little's law at the
   run's configured outstanding I/O, fitted to the lighter half of the loads (10 .. 70 %)
   predicts the latency of the heavier half (80 .. 100 % and the uncontrolled max run). Also
   printed: the rate-controlled points alone (the max run's latency, N / X_max, is Little's
   law once N is known) and the open queue without the cap.
4. Vdbench 8 KiB random pure-read and pure-write runs predict the 50 % mixed run.

Prints the median absolute percentage error (MdAPE) of each; the target is <= 15 %. Also
prints, for context, leave-one-out MdAPE (interpolation, how the fits are used in practice).

Run: ``.venv/bin/python benchmarks/bench_models.py [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from anfperf.ingest import read_fio_json, read_vdbench
from anfperf.models import (
    check_concurrency,
    fit_mix,
    fit_queueing_latency,
    fit_throughput_curve,
    mdape_pct,
    mix_throughput,
    mva_throughput,
    queueing_latency,
    sweep_points,
    throughput_curve,
    usl,
)

ROOT = Path(__file__).resolve().parents[1]
VDBENCH = ROOT.parent / "shared" / "corpus" / "vdbench"
QUEUE_DEPTHS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]
TARGET_MDAPE_PCT = 15.0


def fio_sweep(workdir: Path, depths: list[int], runtime_s: float, repeats: int = 3) -> pd.DataFrame:
    """Run fio at each queue depth, `repeats` passes (up, down, ...); the tidy frame of all."""
    fio = shutil.which("fio")
    if fio is None:
        raise SystemExit("fio is not installed (make sysdeps)")
    target = workdir / "bench.dat"
    engine = ["--ioengine=libaio", "--direct=1"]
    probe = subprocess.run(
        [fio, "--name=probe", f"--filename={target}", "--size=256m", "--rw=randread",
         "--bs=4k", *engine, "--runtime=200ms", "--time_based", "--output-format=json"],
        capture_output=True, text=True,
    )  # fmt: skip
    numjobs_sweep = probe.returncode != 0
    if numjobs_sweep:
        print("  libaio + O_DIRECT refused here: psync, sweeping numjobs instead")
        engine = ["--ioengine=psync"]
    frames = []
    # alternate the order so a burst of load from elsewhere hits different depths each pass
    order = [qd for r in range(repeats) for qd in (depths if r % 2 == 0 else depths[::-1])]
    for i, qd in enumerate(order):
        conc = [f"--numjobs={qd}", "--group_reporting"] if numjobs_sweep else [f"--iodepth={qd}"]
        out = workdir / f"run{i}_qd{qd}.json"
        subprocess.run(
            [fio, f"--name=qd{qd}", f"--filename={target}", "--size=256m", "--rw=randread",
             "--bs=4k", *engine, *conc, f"--runtime={round(runtime_s * 1000)}ms", "--ramp_time=300ms",
             "--time_based", "--output-format=json", f"--output={out}"],
            check=True, capture_output=True,
        )  # fmt: skip
        json.loads(out.read_text())  # fail loudly on a broken run
        frames.append(read_fio_json(out))
    return pd.concat(frames, ignore_index=True)


def lower_upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Masks of the lower half (first ceil(n/2) points) and the upper half."""
    k = (n + 1) // 2
    lower = np.arange(n) < k
    return lower, ~lower


def loo_mdape(x: np.ndarray, y: np.ndarray) -> float:
    """Leave-one-out MdAPE of the throughput curve (interpolation and the end points)."""
    errs = []
    for i in range(len(x)):
        keep = np.arange(len(x)) != i
        fit = fit_throughput_curve(x[keep], y[keep])
        errs.append(abs(throughput_curve(x[i], **fit) / y[i] - 1) * 100)
    return float(np.median(errs))


def usl_case(name: str, x: np.ndarray, y: np.ndarray) -> dict:
    lower, upper = lower_upper(len(x))
    fit = fit_throughput_curve(x[lower], y[lower])
    pred = throughput_curve(x[upper], **fit)
    alone = {
        "USL": usl(x[upper], **fit.fits["usl"]),
        "MVA": mva_throughput(x[upper], **fit.fits["mva"]),
    }
    print(f"\n{name}: fit on concurrency {x[lower].astype(int).tolist()}")
    print(f"  {fit!r}\n  {fit.notes[0]}")
    for n, meas, p, pu, pm in zip(x[upper], y[upper], pred, *alone.values(), strict=True):
        print(
            f"  N={n:>5.0f}  measured {meas:>10,.0f}  predicted {p:>10,.0f}  {p / meas - 1:+.1%}"
            f"   (USL alone {pu / meas - 1:+.1%}, MVA alone {pm / meas - 1:+.1%})"
        )
    print(
        "  MdAPE of each model alone: "
        + ", ".join(f"{k} {mdape_pct(y[upper], v):.1f} %" for k, v in alone.items())
    )
    result = {
        "case": name,
        "model": "USL+MVA",
        "fit_points": int(lower.sum()),
        "predicted_points": int(upper.sum()),
        "mdape_pct": mdape_pct(y[upper], pred),
        "loo_mdape_pct": loo_mdape(x, y),
    }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one pass of 0.5 s per fio point")
    parser.add_argument("--repeats", type=int, default=3, help="fio passes per depth (odd)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # fits of 4 points warn by design; errors are printed
    results = []

    print("1. fio iodepth sweep on this machine (4 KiB random read)")
    load1 = os.getloadavg()[0]
    print(f"  load average {load1:.1f} on {os.cpu_count()} CPUs (other work adds noise)")
    with tempfile.TemporaryDirectory(prefix="anfperf-bench-") as tmp:
        frame = fio_sweep(Path(tmp), QUEUE_DEPTHS, 0.5, repeats=1 if args.quick else args.repeats)
    runs = sweep_points(frame, "outstanding", "iops")
    # the median of the passes at each depth
    points = runs.groupby("outstanding", as_index=False)["iops"].median()
    by_depth = runs.groupby("outstanding")["iops"]
    spread = (by_depth.max() / by_depth.min() - 1) * 100
    print(
        f"  spread of the passes per depth (max / min - 1): median {spread.median():.0f} %, "
        f"worst {spread.max():.0f} % at {spread.idxmax():g}"
    )
    print(
        "  "
        + "  ".join(
            f"{n:.0f}:{x / 1000:.1f}k"
            for n, x in zip(points["outstanding"], points["iops"], strict=True)
        )
    )
    check = check_concurrency(frame)
    print(
        "  Little's law check: measured / configured in-flight "
        f"{check['ratio'].min():.2f} .. {check['ratio'].max():.2f} "
        f"({(check['verdict'] == 'ok').sum()} of {len(check)} 'ok')"
    )
    results.append(
        usl_case("fio iodepth 1..128", points["outstanding"].to_numpy(), points["iops"].to_numpy())
    )

    if not VDBENCH.is_dir():
        print(f"\n{VDBENCH} not found: Vdbench cases skipped")
    else:
        print("\n2. Vdbench forthreads=(1..64), 4 KiB random read (RndReadThreads)")
        threads = sweep_points(read_vdbench(VDBENCH / "RndReadThreads"), "outstanding", "iops")
        results.append(
            usl_case(
                "Vdbench forthreads",
                threads["outstanding"].to_numpy(),
                threads["iops"].to_numpy(),
            )
        )

        print("\n3. Vdbench iorate=curve, 8 KiB random read (RndReadCurve)")
        curve = sweep_points(read_vdbench(VDBENCH / "RndReadCurve"), "iops", "lat_mean_ms")
        n_out = curve["configured"].unique()
        if n_out.size != 1:
            raise SystemExit(f"the curve's runs differ in outstanding I/O: {n_out}")
        n_out = float(n_out[0])
        load = curve["iops"].to_numpy()
        lat = curve["lat_mean_ms"].to_numpy()
        # the uncontrolled max run (no rate limit) sorts among the heaviest loads
        controlled = curve["rate_limit_iops"].notna().to_numpy()
        lower, upper = lower_upper(len(load))
        qfit = fit_queueing_latency(load[lower], lat[lower], outstanding=n_out)
        pred = np.asarray(queueing_latency(load[upper], **qfit))
        open_fit = fit_queueing_latency(load[lower], lat[lower])
        open_pred = np.asarray(queueing_latency(load[upper], **open_fit))
        print(f"  {qfit!r}  ({n_out:g} outstanding I/Os configured)")
        for x, meas, p, po, c in zip(
            load[upper], lat[upper], pred, open_pred, controlled[upper], strict=True
        ):
            print(
                f"  {x:>8,.0f} IOPS  measured {meas:.3f} ms  predicted {p:.3f} ms  "
                f"{p / meas - 1:+.1%}   (open queue, no cap: {po / meas - 1:+.1%})"
                + ("" if c else "  <- uncontrolled max run")
            )
        print(f"  MdAPE open queue, no cap: {mdape_pct(lat[upper], open_pred):.1f} %")
        ctl = controlled[upper]
        print(
            "  rate-controlled points only (the max run's latency N / X_max is Little's law): "
            f"{mdape_pct(lat[upper][ctl], pred[ctl]):.1f} % "
            f"(open queue, no cap: {mdape_pct(lat[upper][ctl], open_pred[ctl]):.1f} %)"
        )
        errs = []
        for i in range(len(load)):
            keep = np.arange(len(load)) != i
            f = fit_queueing_latency(load[keep], lat[keep], outstanding=n_out)
            errs.append(abs(queueing_latency(load[i], **f) / lat[i] - 1) * 100)
        results.append(
            {
                "case": "Vdbench iorate=curve",
                "model": "queueing+Little",
                "fit_points": int(lower.sum()),
                "predicted_points": int(upper.sum()),
                "mdape_pct": mdape_pct(lat[upper], pred),
                "loo_mdape_pct": float(np.median(errs)),
            }
        )

        print("\n4. Vdbench 8 KiB random: pure read + pure write -> 50 % mix")
        pure = pd.concat([read_vdbench(VDBENCH / n) for n in ("RndRead", "RndWrite")])
        mixed = sweep_points(read_vdbench(VDBENCH / "RndMix"), "read_pct", "iops")
        mfit = fit_mix(pure)
        p = float(mix_throughput(mixed["read_pct"].iloc[0], **mfit))
        meas = float(mixed["iops"].iloc[0])
        print(f"  {mfit!r}\n  measured {meas:,.0f}  predicted {p:,.0f}  {p / meas - 1:+.1%}")
        results.append(
            {
                "case": "Vdbench read/write mix",
                "model": "mix",
                "fit_points": 2,
                "predicted_points": 1,
                "mdape_pct": abs(p / meas - 1) * 100,
                "loo_mdape_pct": np.nan,
            }
        )

    table = pd.DataFrame(results)
    print("\nMdAPE of the held-out upper half (target <= 15 %):")
    print(table.round(1).to_string(index=False, na_rep="-"))
    met = table["mdape_pct"] <= TARGET_MDAPE_PCT
    print(f"\n{int(met.sum())} of {len(table)} cases meet the target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
