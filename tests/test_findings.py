"""Conclusions from real runs, checked against the raw files read without anfperf's readers."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import anfperf
from anfperf import findings, models
from anfperf.errors import AnfperfError
from tests.conftest import DATA, TESTS
from tests.models.realdata import summary_avg

SAMPLES = TESTS.parent / "data" / "samples"
QD_SWEEP = SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json"
MIX_SWEEP = SAMPLES / "fio" / "sweeps" / "mix_sweep_randrw8k.json"


def _raw_fio_points(path):
    """(iops, mean latency [ms]) of each job of a fio JSON file, straight from the JSON."""
    jobs = json.loads(path.read_text())["jobs"]
    iops = np.array([j["read"]["iops"] + j["write"]["iops"] for j in jobs])
    lat = np.array(
        [
            (j["read"]["lat_ns"]["mean"] * j["read"]["iops"] + j["write"]["lat_ns"]["mean"]
             * j["write"]["iops"]) / (j["read"]["iops"] + j["write"]["iops"]) / 1e6
            for j in jobs
        ]
    )  # fmt: skip
    return iops, lat


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many(
            [QD_SWEEP, MIX_SWEEP, DATA / "vdbench" / "RndReadThreads", DATA / "vdbench" / "SeqWrite",
             DATA / "vdbench" / "RndReadCurve", DATA / "vdbench" / "RndRead"]
        )  # fmt: skip


def test_run_kinds_tell_sweeps_curves_and_single_runs(frame):
    kinds = findings.run_kinds(frame).set_index("run_id")["kind"].to_dict()
    assert kinds == {
        "qd_sweep_randread4k": findings.KIND_CONCURRENCY,
        "mix_sweep_randrw8k": findings.KIND_MIX,
        "RndReadThreads": findings.KIND_CONCURRENCY,
        "SeqWrite": findings.KIND_CONCURRENCY,
        "RndReadCurve": findings.KIND_RATE,
        "RndRead": findings.KIND_SINGLE,
    }


def test_peak_is_the_highest_whole_run_rate_of_the_raw_summary(frame):
    numbers = findings.key_numbers(frame).set_index("run_id")
    raw = summary_avg("RndReadThreads")
    peak = int(np.argmax(raw["iops"]))
    assert numbers.loc["RndReadThreads", "peak_iops"] == pytest.approx(raw["iops"][peak])
    # summary.html prints 3 decimals, the flatfile 4
    assert numbers.loc["RndReadThreads", "lat_at_peak_ms"] == pytest.approx(
        raw["lat_ms"][peak], abs=5e-4
    )
    assert numbers.loc["RndReadThreads", "points"] == len(raw["iops"])


def test_iops_at_the_slo_is_interpolated_between_the_measured_points():
    iops, lat = _raw_fio_points(QD_SWEEP)
    slo = float(np.median(lat))  # a latency inside the sweep
    order = np.argsort(iops)
    x, y = iops[order], lat[order]
    i = int(np.nonzero(y >= slo)[0][0])
    expected = x[i - 1] + (slo - y[i - 1]) * (x[i] - x[i - 1]) / (y[i] - y[i - 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = findings.key_numbers(anfperf.read(QD_SWEEP), lat_slo_ms=slo).iloc[0]
    assert got["iops_at_slo_measured"] == pytest.approx(expected, rel=1e-9)
    assert x[0] < got["iops_at_slo_measured"] <= x[-1]


def test_knee_and_model_slo_of_a_concurrency_sweep_come_from_the_usl_of_its_points():
    iops, _ = _raw_fio_points(QD_SWEEP)
    depth = [j["job options"]["iodepth"] for j in json.loads(QD_SWEEP.read_text())["jobs"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = models.fit_usl(np.array(depth, float), iops)
        got = findings.key_numbers(anfperf.read(QD_SWEEP), lat_slo_ms=0.5).iloc[0]
    # the knee: where latency (Little's law on the USL) doubles the one-I/O latency 1000 / lam
    n_knee = models.usl_concurrency_at_latency(2 * 1000 / fit["lam"], **fit)
    assert got["knee_iops"] == pytest.approx(models.usl(n_knee, **fit), rel=1e-6)
    assert got["knee_lat_ms"] == pytest.approx(2 * 1000 / fit["lam"], rel=1e-6)
    assert got["iops_at_slo_model"] == pytest.approx(
        models.usl_throughput_at_latency(0.5, **fit), rel=1e-6
    )
    assert got["fit_r2"] == pytest.approx(fit.r2)


def test_knee_of_a_load_curve_comes_from_the_queueing_fit(frame):
    raw = summary_avg("RndReadCurve")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = models.fit_queueing_latency(raw["iops"], raw["lat_ms"])
    got = findings.key_numbers(frame).set_index("run_id").loc["RndReadCurve"]
    assert got["fit_r2"] == pytest.approx(fit.r2, abs=0.005)  # summary.html rounds latency
    assert got["knee_iops"] == pytest.approx(models.queueing_knee(**fit)[0], rel=1e-2)


def test_no_knee_is_named_where_the_data_do_not_show_one(frame):
    # SeqWrite: three thread counts with flat latency; the fitted knee lies far beyond the data
    row = findings.key_numbers(frame).set_index("run_id").loc["SeqWrite"]
    assert math.isnan(row["knee_iops"])
    assert "knee" in row["notes"]
    text = " ".join(findings.sentences(findings.key_numbers(frame)))
    assert "SeqWrite (concurrency sweep, 3 points)" in text
    assert "knee at" not in text.split("SeqWrite")[1].split(".")[0]


def test_single_runs_and_mix_sweeps_get_no_curve_numbers(frame):
    numbers = findings.key_numbers(frame).set_index("run_id")
    for run in ("RndRead", "mix_sweep_randrw8k"):
        assert math.isnan(numbers.loc[run, "knee_iops"])
        assert math.isnan(numbers.loc[run, "iops_at_slo_model"])
    iops, _ = _raw_fio_points(MIX_SWEEP)
    assert numbers.loc["mix_sweep_randrw8k", "peak_iops"] == pytest.approx(iops.max())


def test_quota_check_names_the_binding_constraint_and_the_share():
    check = findings.quota_check(128.0, bs_kib=8, level="Premium", quota_tib=4)
    assert check["binding"] == "volume quota"
    assert check["predicted_bw_mib_s"] == pytest.approx(4 * 64)
    assert check["share_pct"] == pytest.approx(50.0)
    text = findings.sentences(
        findings.key_numbers(anfperf.read(DATA / "vdbench" / "RndRead")), check
    )[-1]
    assert "50 % of the predicted 256.0 MiB/s" in text and "volume quota" in text


def test_bad_input_gets_a_clear_error():
    with pytest.raises(AnfperfError, match="lat_slo_ms"):
        findings.key_numbers(anfperf.read(QD_SWEEP), lat_slo_ms=0)
    with pytest.raises(AnfperfError, match="no runs"):
        findings.sentences(findings.key_numbers(anfperf.read(QD_SWEEP)).iloc[:0])


def test_operating_point_is_the_highest_whole_run_throughput(frame):
    # QD sweep: the highest MiB/s straight from the JSON, over every job.
    jobs = json.loads(QD_SWEEP.read_text())["jobs"]
    best = max(jobs, key=lambda j: j["read"]["bw_bytes"])
    point = findings.operating_point(frame, run_id="qd_sweep_randread4k")
    assert point["job"] == best["jobname"]
    assert point["bw_mib_s"] == pytest.approx(best["read"]["bw_bytes"] / 2**20, rel=1e-9)
    assert (point["bs_kib"], point["read_pct"], point["pattern"]) == (4.0, 100.0, "random")
    # Over every run: SeqWrite's 26-thread point, as in its summary.html.
    overall = findings.operating_point(frame)
    assert overall["run_id"] == "SeqWrite"
    seq = summary_avg("SeqWrite")
    assert overall["bw_mib_s"] == pytest.approx(seq["bw_mib_s"].max(), abs=5e-3)
    assert overall["job"] == seq["rd"][int(np.argmax(seq["bw_mib_s"]))]
    with pytest.raises(AnfperfError, match="no whole-run throughput in run 'nope'"):
        findings.operating_point(frame, run_id="nope")


def test_what_was_measured_within_the_slo_is_never_undercut_by_the_curve():
    # the QD sweep with its last point 10 % faster: the fitted curve reaches 1 ms below it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read(QD_SWEEP)
        last = frame["job"] == "qd64"
        frame.loc[last, ["iops", "bw_mib_s"]] *= 1.1
        got = findings.key_numbers(frame, lat_slo_ms=1.0).iloc[0]
    best = frame.loc[last & frame["is_summary"] & (frame["direction"] == "total"), "iops"].max()
    assert got["iops_at_slo_model"] < best  # the curve alone would undercut the measurement
    assert got["iops_at_slo_measured"] == pytest.approx(best)
    assert "at least that is achievable" in got["notes"]
