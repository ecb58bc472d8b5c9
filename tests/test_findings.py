"""Conclusions from real runs, checked against the raw files read without anfperf's readers."""

from __future__ import annotations

import json
import math
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

import anfperf
from anfperf import models
from anfperf.analysis import findings, summary_rows
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


# --------------------------------------------------------------------------- issue 23, item 4

QD_PASS1 = sorted((DATA / "fio_sweeps" / "qd_randread").glob("pass1_qd*.json"))
AB = SAMPLES / "vdbench" / "ab"


def _raw_depth_points(paths):
    """(iodepth, read IOPS, mean read latency [ms]) of one-job fio files, by depth."""
    jobs = [json.loads(p.read_text())["jobs"][0] for p in paths]
    pts = sorted(
        (int(j["job options"]["iodepth"]), j["read"]["iops"], j["read"]["lat_ns"]["mean"] / 1e6)
        for j in jobs
    )
    return tuple(np.array(c, float) for c in zip(*pts, strict=True))


def test_iops_at_the_slo_follows_the_load_axis_of_a_sweep_past_its_peak():
    # the real QD sweep of make_sweeps.sh, first pass: QD64 120,744 IOPS at 0.53 ms, then
    # QD96 92,143 IOPS at 1.05 ms. Taken in order of IOPS (the old code) the 1 ms SLO was
    # "crossed" between QD8 (91,873 IOPS, 0.09 ms) and QD96: about 92,100 IOPS
    depth, iops, lat = _raw_depth_points(QD_PASS1)
    assert iops[depth == 96][0] < iops[depth == 64][0] and lat[depth == 96][0] > 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many(QD_PASS1, run_id="qd_randread_pass1")
        at_1ms = findings.key_numbers(frame, lat_slo_ms=1.0).iloc[0]
        at_04ms = findings.key_numbers(frame, lat_slo_ms=0.4).iloc[0]
    assert at_1ms["kind"] == findings.KIND_CONCURRENCY
    # 1 ms: the crossing (QD64 -> QD96) lies below the best measured within the SLO: QD64's
    assert at_1ms["iops_at_slo_measured"] == pytest.approx(iops[lat <= 1.0].max(), rel=1e-9)
    assert at_1ms["iops_at_slo_measured"] == pytest.approx(iops[depth == 64][0], rel=1e-9)
    # 0.4 ms: crossed between QD32 and QD48 going up the depths, above every point within it
    i = int(np.nonzero(lat >= 0.4)[0][0])
    crossing = iops[i - 1] + (0.4 - lat[i - 1]) * (iops[i] - iops[i - 1]) / (lat[i] - lat[i - 1])
    assert (depth[i - 1], depth[i]) == (32, 48) and crossing > iops[lat <= 0.4].max()
    assert at_04ms["iops_at_slo_measured"] == pytest.approx(crossing, rel=1e-9)


def test_iops_at_the_slo_is_never_below_what_was_measured_within_it():
    depth, iops, lat = _raw_depth_points(QD_PASS1)
    for slo in (0.2, 0.5, 1.0, 1.2):
        got = findings.iops_at_latency_measured(iops, lat, slo, load=depth)
        assert got >= iops[lat <= slo].max()
    # outside the measured latencies: no measured answer
    assert math.isnan(findings.iops_at_latency_measured(iops, lat, 5.0, load=depth))
    assert math.isnan(findings.iops_at_latency_measured(iops, lat, 0.01, load=depth))


@pytest.fixture(scope="module")
def ab_frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many([AB / "A-direct", AB / "B-buffered"])


def test_a_run_without_o_direct_is_told_apart_as_served_from_a_cache(ab_frame):
    for run in ("A-direct", "B-buffered"):  # what each parameter file says
        parm = (AB / run / "parmfile.html").read_text()
        assert ("openflags=o_direct" in parm) == (run == "A-direct")
    kinds = findings.run_kinds(ab_frame).set_index("run_id")
    assert list(kinds.columns) == findings.KIND_COLUMNS[1:]
    assert not kinds.loc["A-direct", "cached"] and kinds.loc["A-direct", "cache_reason"] == ""
    assert kinds.loc["B-buffered", "cached"]
    reason = kinds.loc["B-buffered", "cache_reason"]
    assert "no openflags=o_direct" in reason and "0.017 ms, below the 0.05 ms" in reason
    numbers = findings.key_numbers(ab_frame).set_index("run_id")
    assert numbers["cached"].to_dict() == {"A-direct": False, "B-buffered": True}
    b = numbers.loc["B-buffered"]  # its summary.html: 772,205.6 I/O/s, 11,947.31 MB/s, 0.017
    assert b["peak_iops"] == pytest.approx(772205.6, abs=0.1)
    assert b["peak_bw_mib_s"] == pytest.approx(11947.31, abs=0.01)
    assert b["lat_at_peak_ms"] == pytest.approx(0.017, abs=5e-4)
    assert b["cache_reason"] == reason


def test_the_peak_and_the_operating_point_skip_cached_runs(ab_frame):
    numbers = findings.key_numbers(ab_frame)
    peak = findings.peak_run(numbers)
    assert peak["run_id"] == "A-direct"  # 60,073 IOPS, not B's 772,206
    assert peak["peak_iops"] == pytest.approx(numbers["peak_iops"][~numbers["cached"]].max())
    assert findings.peak_run(numbers[numbers["cached"]]) is None
    point = findings.operating_point(ab_frame)
    assert point["run_id"] == "A-direct" and not point["cached"]
    assert "left out, served from a client cache: B-buffered" in point["chosen"]
    asked = findings.operating_point(ab_frame, run_id="B-buffered")
    assert asked["cached"] and asked["bw_mib_s"] == pytest.approx(11947.31, abs=0.01)
    only_b = ab_frame[ab_frame["run_id"] == "B-buffered"]
    with pytest.raises(AnfperfError, match="served from a client cache"):
        findings.operating_point(only_b)
    text = findings.sentences(numbers)
    assert text[0].startswith("A-direct (single points")
    assert text[1].startswith("B-buffered was served from a client cache")
    assert "772,206 IOPS" in text[1]


@pytest.mark.fio
def test_fio_direct_and_buffered_jobs_are_told_apart(fio_bin, tmp_path):
    # two real 1 s psync runs on a file of this machine's disk, buffered and direct
    outputs = {}
    for direct in (0, 1):
        out = tmp_path / f"direct{direct}.json"
        subprocess.run(
            [fio_bin, f"--name=d{direct}", f"--filename={tmp_path / 'f.dat'}", "--size=16m",
             "--rw=randread", "--bs=4k", "--ioengine=psync", f"--direct={direct}",
             "--runtime=1", "--time_based", "--output-format=json", f"--output={out}"],
            check=True, capture_output=True,
        )  # fmt: skip
        outputs[direct] = out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many(outputs.values())
    assert frame.groupby("run_id")["direct_io"].unique().map(list).to_dict() == {
        "direct0": [False],
        "direct1": [True],
    }
    kinds = findings.run_kinds(frame).set_index("run_id")
    assert kinds.loc["direct0", "cached"] and "direct=0" in kinds.loc["direct0", "cache_reason"]
    assert not kinds.loc["direct1", "cached"]  # direct I/O is never the cache's, however fast


def test_direct_io_is_kept_in_the_store(ab_frame, tmp_path):
    anfperf.store.save_frame(ab_frame, tmp_path / "store")
    back = anfperf.store.load_store(tmp_path / "store")
    summary = back[back["is_summary"]].groupby("run_id")["direct_io"].unique().map(list)
    assert summary.to_dict() == {"A-direct": [True], "B-buffered": [False]}


def test_no_anf_verdict_for_a_run_on_the_local_disk(local_fio_run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([local_fio_run])
    volume = json.loads((local_fio_run / "manifest.json").read_text())["hosts"]
    (paths,) = [h["volumes"].values() for h in volume.values()]
    applies, reason = findings.anf_verdict_applies(frame)
    assert not applies
    assert reason == (
        f"run on a local file system ({', '.join(paths)} is on no NFS mount), not an NFS mount "
        "of ANF: no ANF quota verdict"
    )
    # the same from the provenance dict a report has
    prov = anfperf.analysis.provenance.run_provenance(frame, [local_fio_run])
    assert findings.anf_verdict_applies(prov) == (applies, reason)
    # given explicitly: compared as asked, with the caveat
    applies, given = findings.anf_verdict_applies(frame, "Premium", 4)
    assert applies and given.startswith("Premium at 4 TiB as given, although")
    numbers = findings.key_numbers(frame)
    point = findings.operating_point(frame)
    check = findings.quota_check(point["bw_mib_s"], bs_kib=point["bs_kib"], level="Premium",
                                 quota_tib=4)  # fmt: skip
    text = findings.sentences(numbers, check, verdict=(False, reason))
    assert text[-1] == f"No ANF verdict: {reason}."
    assert not any("Against the ANF model" in t for t in text)


def test_plain_result_files_are_compared_with_an_assumed_volume():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read(QD_SWEEP)
    applies, reason = findings.anf_verdict_applies(frame)
    assert applies and "no runner manifest" in reason and "assumed" in reason
    assert findings.anf_verdict_applies(frame, "Ultra", 2) == (True, "Ultra at 2 TiB as given")


def test_analyse_computes_the_summary_rows_once(frame, monkeypatch):
    calls = []
    real = findings.summary_rows

    def counted(f):
        calls.append(1)
        return real(f)

    monkeypatch.setattr(findings, "summary_rows", counted)
    analysis = findings.analyse(frame, lat_slo_ms=0.5)
    assert len(calls) == 1
    point = analysis.operating_point()
    assert len(calls) == 1  # the rows analyse made
    monkeypatch.setattr(findings, "summary_rows", real)
    expected = findings.key_numbers(frame, lat_slo_ms=0.5)
    assert analysis.numbers.equals(expected)
    assert analysis.kinds.equals(findings.run_kinds(frame))
    assert point == findings.operating_point(frame)
    assert analysis.lat_slo_ms == 0.5 and analysis.rows.equals(summary_rows(frame))


def test_the_iops_at_an_slo_past_the_data_is_bounded_by_the_volume_measured():
    from anfperf.ingest import read_vdbench
    from tests.models.realdata import vdbench_dir

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = read_vdbench(vdbench_dir("RndReadCurve"))  # 8 KiB reads, 0.12 .. 0.35 ms
    analysis = findings.analyse(frame, lat_slo_ms=1.0)
    free = analysis.numbers.iloc[0]
    assert math.isnan(free["iops_at_slo_measured"])  # 1 ms lies past the measured latencies
    # a Premium volume of 12 TiB: 768 MiB/s = 98,304 IOPS of 8 KiB, just above the 92,689
    # measured: the queueing curve of that limit, not the unbounded fit's 134,000
    bounded = analysis.bounded_by(models.QuotaScenario(bs_kib=8, level="Premium", quota_tib=12))
    row = bounded.numbers.iloc[0]
    assert free["iops_at_slo_model"] > 98_304 > row["iops_at_slo_model"] > free["peak_iops"]
    assert "from the queueing curve of the known limit" in row["notes"]
    assert "volume quota: 12 TiB x 64 MiB/s per TiB (Premium)" in row["notes"]
    assert analysis.bounded_by(None) is analysis


def test_the_iops_at_an_slo_past_a_concurrency_sweep_is_its_forecasts_with_a_band():
    # RndReadThreads' lower half, 2 .. 16 in flight (0.069 .. 0.154 ms): at 1 ms the USL of
    # those points reads 155,071; the concurrency forecast by Little's law 111,864 with its
    # band, which holds the 121,009 the whole sweep measured at 0.998 ms (128 in flight)
    from tests.models.realdata import vdbench_dir

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read(vdbench_dir("RndReadThreads"))
        whole = findings.key_numbers(frame, lat_slo_ms=1.0).iloc[0]
        row = findings.key_numbers(frame[frame["outstanding"] <= 16], lat_slo_ms=1.0).iloc[0]
    assert math.isnan(row["iops_at_slo_measured"])
    assert row["iops_at_slo_model"] == pytest.approx(111_864, rel=1e-3)
    assert row["iops_at_slo_low"] < whole["peak_iops"] < row["iops_at_slo_high"]
    assert whole["peak_iops"] == pytest.approx(121_008.67, abs=0.01)
    assert "the fitted curve alone reads 155,071" in row["notes"]
    value, how, band = findings.stated_iops_at_slo(row)
    assert (value, how) == (row["iops_at_slo_model"], findings.SLO_FORECAST)
    assert band == (row["iops_at_slo_low"], row["iops_at_slo_high"])
    # the band's upper edge is 14 x its lower: the reader is told it bounds the rate below only
    text = findings.sentences(pd.DataFrame([row]))[0]
    assert (f"{value:,.0f} IOPS (at least {band[0]:,.0f}, up to {band[1]:,.0f}: the data hardly "
            "bound it above) at the 1 ms SLO (forecast past the measured loads)") in text  # fmt: skip
    assert band[1] / band[0] == pytest.approx(14.2, abs=0.1)
    # a band within 4 x reads as a range (RndReadThreads whole: 1 ms just past its 0.998 ms)
    low, high = whole["iops_at_slo_low"], whole["iops_at_slo_high"]
    assert high < 4 * low and findings.band_words(low, high) == f"{low:,.0f} .. {high:,.0f}"


def test_a_concurrency_sweep_too_short_to_forecast_takes_the_known_limits_queueing_curve():
    # the fio sweep's depths 1, 2, 4 (0.070 .. 0.104 ms): three counts in flight do not show a
    # curve's shape; on an Ultra volume of 10 TiB (327,680 IOPS of 4 KiB) the queueing curve of
    # that limit says where latency reaches 1 ms
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read(QD_SWEEP)
        flat = frame[frame["job"].isin(["qd1", "qd2", "qd4"])]
        free = findings.key_numbers(flat, lat_slo_ms=1.0).iloc[0]
        analysis = findings.analyse(flat, lat_slo_ms=1.0)
        scenario = models.QuotaScenario(bs_kib=4, level="Ultra", quota_tib=10)
        row = analysis.bounded_by(scenario).numbers.iloc[0]
    assert math.isnan(free["iops_at_slo_model"])
    assert "3 concurrencies measured, 4 needed" in free["notes"]
    assert free["peak_iops"] < row["iops_at_slo_low"] < row["iops_at_slo_model"]
    assert row["iops_at_slo_model"] < row["iops_at_slo_high"] < 327_680
    assert "from the queueing curve of the known limit" in row["notes"]


def test_runs_of_a_loop_named_by_a_number_come_in_the_number_order():
    # a bash loop's fio outputs, one file per queue depth (qd1.json .. qd128.json)
    frame = anfperf.read(DATA / "fio_sweeps" / "qd_onepass")
    runs = findings.key_numbers(frame)["run_id"].tolist()
    depths = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]
    assert runs == [f"qd{d}" for d in depths]  # as strings: qd1, qd12, qd128, qd16, qd2 ...


def test_a_stalled_step_of_a_concurrency_sweep_is_left_out_of_its_fit_and_named():
    # pass 2 of the dense sweep read as one run: QD 5 stalled (4,441 IOPS between 39,183 and
    # 43,607); through it the USL fitted R^2 -0.27 and the report gave no knee, no model SLO
    files = sorted((DATA / "fio_sweeps" / "qd_dense" / "unlimited").glob("pass2_*.json"))
    frame = anfperf.read_many(files, run_id="pass2")
    row = findings.key_numbers(frame).iloc[0]
    assert row["kind"] == findings.KIND_CONCURRENCY and row["points"] == 28
    assert row["notes"].startswith(
        "N=5: 4,441 IOPS, less than 50% of both neighbours' (39,183 at N=4, 43,607 at N=6): "
        "a stalled run, left out of the fit"
    )
    assert row["fit_r2"] > 0.8 and np.isfinite(row["knee_iops"])
    assert row["peak_iops"] == pytest.approx(89_995, abs=1)  # the measured numbers keep it all
    # the report's chart fits the same points: its curve is drawn, not "fits poorly"
    from anfperf.analysis import summary_rows

    rows = summary_rows(frame)
    conc = rows["configured"].to_numpy(float)
    keep, notes = findings.unstalled_steps(conc, rows["iops"].to_numpy(float))
    assert (~keep).sum() == (conc == 5).sum() == 1 and len(notes) == 1
