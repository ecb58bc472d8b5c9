"""The concurrency and latency forecasts on every real sweep of the repository (issue 34, items
2 and 4: honest everywhere, "make the models right in general").

Each sweep is fitted on its lower half and judged on the rest (``judge_forecast`` with
``forecast_throughput``): error, flat baseline, coverage, band width, and whether the forecast
gave a number at all. A forecast is honest on a sweep when it refuses a number or its band
holds 80 % of the later points. The sweeps: fio on this VM's disk (tests/data/fio_sweeps:
qd_randread's three passes and their median, qd_onepass, qd_dense/unlimited's three passes,
every read share of the mix_qd grids, and qd_grid.csv's six workloads, two passes each and
their median, recorded to judge this) and a Vdbench forthreads run of the seed's workload
(tests/data/vdbench/RndReadThreads, made on a local disk). The latency forecast
(``forecast_latency``, the load generator's count in flight bounding it by Little's law) on
every real load curve: fio's (tests/data/fio_sweeps/rate_curve.csv: three workloads, three
passes each and their median per step) and Vdbench's iorate=curve
(tests/data/vdbench/RndReadCurve). Both with no limit known, or one at a share of each sweep's
best rate (``limit_share``). The sweeps are read once a process (:func:`_frozen`).

Apart from those, :data:`PUBLIC_SWEEPS`: the iodepth sweeps (1 .. 64 at each numjobs) of two
public sets of fio results (tests/data/public_sweeps, PROVENANCE there), an NVMe SSD's
(:func:`nvme_sweeps`) and 37 setups of SATA SSDs, HDDs and RAID sets (:func:`fioplot_sweeps`),
judged the same way (:func:`throughput_checks`): all of them, and the ones that never fall 10 %
below their best so far (a consumer SSD's cache and garbage collection make the others jump
2 .. 10 x from one run to the next, which no curve foresees).
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from anfperf.analysis.sweep import sweep_points
from anfperf.errors import ModelError
from anfperf.ingest import read_many, read_vdbench
from anfperf.models import forecast_latency, forecast_throughput, judge_forecast
from anfperf.models.forecast import TARGETS, KnownLimits

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SWEEPS = DATA / "fio_sweeps"


def _per_count(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Median IOPS per count in flight of a frame's runs (repeated passes of a sweep)."""
    per = sweep_points(frame, "outstanding", "iops").groupby("outstanding")["iops"].median()
    return per.index.to_numpy(float), per.to_numpy(float)


def _frozen(read):
    """`read` once a process, its arrays read-only: the bench judges every sweep three times
    (no limit, two known ones) and the tests read them in each test."""

    @functools.cache
    @functools.wraps(read)
    def once():
        out = read()
        for values in out.values():
            for v in values:
                if isinstance(v, np.ndarray):
                    v.flags.writeable = False
        return out

    return once


@_frozen
def concurrency_sweeps() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every real concurrency sweep of the repository: name -> (count in flight, IOPS)."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for run in ("pass1", "pass2", "pass3", "pass*"):
            name = "median" if run == "pass*" else run
            files = sorted((SWEEPS / "qd_randread").glob(f"{run}_qd*.json"))
            out[f"fio qd_randread {name}"] = _per_count(read_many(files))
        out["fio qd_onepass"] = _per_count(read_many(sorted((SWEEPS / "qd_onepass").glob("*"))))
        for run in ("pass1", "pass2", "pass3"):
            files = sorted((SWEEPS / "qd_dense" / "unlimited").glob(f"{run}_qd*.json"))
            out[f"fio qd_dense {run}"] = _per_count(read_many(files))
        for grid in ("rand8k", "seq64k"):
            for share in (0, 25, 50, 75, 100):
                files = sorted((SWEEPS / "mix_qd" / grid).glob(f"qd*_r{share}.json"))
                out[f"fio mix_qd {grid} {share} % reads"] = _per_count(read_many(files))
        threads = read_vdbench(DATA / "vdbench" / "RndReadThreads")
        out["Vdbench RndReadThreads (seed workload)"] = _per_count(threads)
    table = pd.read_csv(SWEEPS / "qd_grid.csv")
    for workload, runs in table.groupby("workload"):
        for run, one in runs.groupby("pass"):
            out[f"fio qd_grid {workload} pass {run}"] = (
                one["outstanding"].to_numpy(float),
                one["iops"].to_numpy(float),
            )
        per = runs.groupby("outstanding")["iops"].median()
        out[f"fio qd_grid {workload} median"] = (per.index.to_numpy(float), per.to_numpy(float))
    return out


#: Share below the best rate so far that a public sweep never falls to, to be taken as smooth.
SMOOTH_SHARE = 0.9


@functools.cache
def nvme_runs() -> pd.DataFrame:
    """The public NVMe SSD's runs (tests/data/public_sweeps/samyaple_nvme_4k.csv), once a
    process, with the count in flight (iodepth x numjobs), the reads' and writes' IOPS summed
    and the sector size (0: the first drive, whose size is not recorded)."""
    table = pd.read_csv(DATA / "public_sweeps" / "samyaple_nvme_4k.csv")
    return table.assign(sector=table["sector_bytes"].fillna(0).astype(int),
                        outstanding=table["iodepth"] * table["numjobs"],
                        iops=table["read_iops"] + table["write_iops"])  # fmt: skip


@_frozen
def nvme_sweeps() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The public NVMe SSD's iodepth sweeps: name -> (count in flight, IOPS)."""
    out = {}
    for (sector, share, jobs), one in nvme_runs().groupby(["sector", "read_pct", "numjobs"]):
        one = one.sort_values("outstanding")
        drive = f"{sector} B sectors" if sector else "first drive"
        out[f"NVMe {drive}, {share} % reads, numjobs {jobs}"] = (
            one["outstanding"].to_numpy(float), one["iops"].to_numpy(float)
        )  # fmt: skip
    return out


#: Fewest iodepths a fio-plot sweep needs to be judged (a few of its grids are incomplete).
MIN_FIOPLOT_POINTS = 6


@_frozen
def fioplot_sweeps() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The 37 public disk setups' random read and write iodepth sweeps at each numjobs: name ->
    (count in flight, IOPS)."""
    table = pd.read_csv(DATA / "public_sweeps" / "louwrentius_fioplot.csv.gz")
    table["outstanding"] = table["iodepth"] * table["numjobs"]
    out = {}
    for (folder, rw, jobs), one in table.groupby(["folder", "rw", "numjobs"]):
        if len(one) >= MIN_FIOPLOT_POINTS:
            one = one.sort_values("outstanding")
            out[f"{folder} {rw} numjobs {jobs}"] = (
                one["outstanding"].to_numpy(float), one["iops"].to_numpy(float)
            )  # fmt: skip
    return out


#: The public sweeps by source.
PUBLIC_SWEEPS = {
    "a public NVMe SSD's iodepth sweeps, from SamYaple/fio-plot-results": nvme_sweeps,
    "37 public disk setups' iodepth sweeps, from louwrentius/fio-plot": fioplot_sweeps,
}


def smooth(iops: np.ndarray) -> bool:
    """Whether a sweep never falls :data:`SMOOTH_SHARE` below its best rate so far."""
    return bool(np.all(iops >= SMOOTH_SHARE * np.maximum.accumulate(iops)))


def sweep_checks(draws: int = 400, limit_share: float | None = None) -> dict[str, dict]:
    """The concurrency forecast judged on every sweep of :func:`concurrency_sweeps`: name ->
    :func:`~anfperf.models.judge_forecast`'s check (lower half fitted, the rest predicted).

    `limit_share`: a limit known at that share of the sweep's best rate, or none
    (:func:`_known_at`).
    """
    return throughput_checks(concurrency_sweeps(), draws, limit_share)


def throughput_checks(
    sweeps: dict[str, tuple[np.ndarray, np.ndarray]], draws: int, limit_share: float | None
) -> dict[str, dict]:
    """:func:`sweep_checks` of any `sweeps` (name -> (count in flight, IOPS)), e.g. one source
    of :data:`PUBLIC_SWEEPS`."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (n, x) in sweeps.items():
            known = _known_at(limit_share, x)

            def forecast(n_fit, x_fit, at, known=known):
                return forecast_throughput(n_fit, x_fit, at, known, draws=draws)

            out[name] = judge_forecast(n, x, forecast)
    return out


#: An SLO judged lies this far above the latencies of the points fitted, at least [x].
SLO_PAST = 1.2


def _lower_halves(sweeps: dict[str, tuple[np.ndarray, np.ndarray]]):
    """(name, count in flight, IOPS, points in the lower half) of each smooth sweep, with the
    fits' warnings silenced (their notes are the models' to print, not the bench's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (n, x) in sweeps.items():
            if smooth(x):
                yield name, n, x, (n.size + 1) // 2


def slo_checks(sweeps: dict[str, tuple[np.ndarray, np.ndarray]]) -> pd.DataFrame:
    """IOPS at latency objectives past each smooth sweep's lower half, as a report finds them.

    Each later point's latency (by Little's law, N / X) at least :data:`SLO_PAST` x the lower
    half's is an objective; the lower half is fitted. Per objective: the rate measured there,
    the fitted curve's (the USL, which a report stated before issue 34) and the concurrency
    forecast's with its band (:func:`~anfperf.models.forecast.iops_at_latency_in_flight`,
    :func:`~anfperf.models.forecast.slo.allowed_at_latency`), which a report states now.
    """
    from anfperf.analysis.findings import MIN_R2, concurrency_fit, curve_iops_at_latency
    from anfperf.models.forecast import iops_at_latency_in_flight
    from anfperf.models.forecast.slo import allowed_at_latency

    rows = []
    for name, n, x, k in _lower_halves(sweeps):
        lat_ms = n / x * 1000.0
        past = np.flatnonzero(lat_ms > SLO_PAST * lat_ms[:k].max())
        past = past[past >= k]
        if not past.size:
            continue
        fit = concurrency_fit(n[:k], x[:k])
        est, low, high, fc = iops_at_latency_in_flight(n[:k], x[:k], lat_ms[past])
        for i, j in enumerate(past):
            curve = curve_iops_at_latency(fit, lat_ms[j]) if fit.r2 >= MIN_R2 else np.nan
            least, most = (allowed_at_latency(low[i], high[i], fc) if fc.predictable
                           else (np.nan, np.nan))  # fmt: skip
            rows.append({"sweep": name, "measured": float(x[j]), "curve": curve,
                         "forecast": est[i], "low": least, "high": most})  # fmt: skip
    return pd.DataFrame(rows)


def rate_checks(sweeps: dict[str, tuple[np.ndarray, np.ndarray]]) -> pd.DataFrame:
    """Latency at rates past each smooth sweep's lower half, as a plan sizes threads on it.

    Each later point whose rate passes the lower half's best is a target; the lower half is
    fitted. Per target: the latency measured there (Little's law, N / X), the fitted curve's
    (:func:`~anfperf.models.curves.curve_reading.latency_at_rate_ms`, which a plan read before
    issue 34) and the concurrency forecast's with its band
    (:func:`~anfperf.models.forecast.slo.latency_at_rate_in_flight`), which it reads now.
    """
    from anfperf.models import fit_throughput_curve
    from anfperf.models.curves.curve_reading import latency_at_rate_ms
    from anfperf.models.forecast.slo import latency_at_rate_in_flight

    rows = []
    for name, n, x, k in _lower_halves(sweeps):
        past = np.flatnonzero(x > x[:k].max())
        past = past[past >= k]
        if not past.size:
            continue
        fit = fit_throughput_curve(n[:k], x[:k])
        for j in past:
            try:
                curve = latency_at_rate_ms(fit, x[j])[0]
            except ModelError:
                curve = np.nan
            est, fast, slow, _ = latency_at_rate_in_flight(n[:k], x[:k], x[j])
            rows.append({"sweep": name, "measured": float(n[j] / x[j] * 1000.0),
                         "curve": curve, "forecast": est, "low": fast, "high": slow})  # fmt: skip
    return pd.DataFrame(rows)


def load_slo_checks(draws: int = 100) -> pd.DataFrame:
    """IOPS at latency objectives past each real load curve's lower half, as a report finds
    them.

    Each later point (by load) whose latency is at least :data:`SLO_PAST` x the lower half's
    is an objective; the lower half is fitted, no limit known. Per objective: the rate
    measured there, the fitted queueing curve's (which a report stated before) and the
    forecast's with its band (:func:`~anfperf.models.forecast.past.latency_past`: at least
    its slower edge's rate; inf where the data set no most), which a report states now
    (`draws`: its band's, as a report's).
    """
    from anfperf.analysis.findings import MIN_R2, curve_iops_at_latency, latency_fit
    from anfperf.models.forecast.past import latency_past

    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (iops, lat_ms, _) in load_curves().items():
            order = np.argsort(iops, kind="stable")
            x, y = iops[order], lat_ms[order]
            k = (x.size + 1) // 2
            past = [j for j in range(k, x.size) if y[j] >= SLO_PAST * y[:k].max()]
            if not past:
                continue
            fit = latency_fit(x[:k], y[:k])
            forecast = latency_past(x[:k], y[:k], float(y[past[0]]), draws=draws)
            for j in past:
                curve = curve_iops_at_latency(fit, y[j]) if fit.r2 >= MIN_R2 else np.nan
                est, least, most = forecast.iops_at(float(y[j]))
                rows.append({"curve name": name, "measured": float(x[j]), "curve": curve,
                             "forecast": est, "low": least, "high": most})  # fmt: skip
    return pd.DataFrame(rows)


def _known_at(share: float | None, rates: np.ndarray) -> KnownLimits | None:
    """A limit at `share` x the best of `rates` (a volume whose limit the sweep nearly
    reaches, somewhere, at 1.05), or none."""
    if share is None:
        return None
    return KnownLimits.of_iops(share * float(np.max(rates)), f"{share:g} x the sweep's best")


#: Count in flight of every run of make_rate_curve.sh (fio --iodepth).
RATE_CURVE_IN_FLIGHT = 32.0


@_frozen
def load_curves() -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    """Every real load curve of the repository: name -> (IOPS, mean latency [ms], in flight)."""
    table = pd.read_csv(SWEEPS / "rate_curve.csv")
    out = {}
    for workload, runs in table.groupby("workload"):
        for run, one in runs.groupby("pass"):
            out[f"fio rate_curve {workload} pass {run}"] = (
                one["iops"].to_numpy(float), one["lat_mean_ms"].to_numpy(float),
                RATE_CURVE_IN_FLIGHT,
            )  # fmt: skip
        per = runs.groupby("step_pct")[["iops", "lat_mean_ms"]].median()
        out[f"fio rate_curve {workload} median"] = (
            per["iops"].to_numpy(float), per["lat_mean_ms"].to_numpy(float), RATE_CURVE_IN_FLIGHT,
        )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        curve = sweep_points(read_vdbench(DATA / "vdbench" / "RndReadCurve"), "iops",
                             "lat_mean_ms")  # fmt: skip
    out["Vdbench RndReadCurve"] = (curve["iops"].to_numpy(float),
                                   curve["lat_mean_ms"].to_numpy(float),
                                   float(curve["configured"].iloc[0]))  # fmt: skip
    return out


def latency_checks(draws: int = 400, limit_share: float | None = None) -> dict[str, dict]:
    """The latency forecast judged on every curve of :func:`load_curves`: name ->
    :func:`~anfperf.models.judge_forecast`'s check (lower half by load fitted, the rest
    predicted; the count in flight given; a limit known at `limit_share` x the curve's best
    rate, or none)."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (iops, lat_ms, flight) in load_curves().items():
            known = _known_at(limit_share, iops)

            def forecast(x, y, at, flight=flight, known=known):
                return forecast_latency(x, y, at, known, outstanding=flight, draws=draws)

            out[name] = judge_forecast(iops, lat_ms, forecast)
    return out


def honest(check: dict) -> bool:
    """No number, or a band holding the coverage target of the later points."""
    return not check["predictable"] or check["coverage"] >= TARGETS["coverage"]
