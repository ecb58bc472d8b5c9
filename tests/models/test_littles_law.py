"""Little's law: the seeds' worked numbers, and the consistency check on real runs."""

from __future__ import annotations

import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

from anfperf.analysis.concurrency import check_concurrency
from anfperf.errors import ModelError
from anfperf.ingest import read_fio_json, read_many, read_vdbench
from anfperf.models import (
    bandwidth_delay_kib,
    bw_for_window,
    bw_to_iops,
    iops_at_concurrency,
    latency_at_concurrency,
    outstanding_io,
    threads_needed,
)
from tests.models.realdata import corpus_dir, sd_count, summary_avg, vdbench_dir


def test_vdbench_guidance_3500_iops_at_1_14_ms_needs_4_threads():
    # the seed's Vdbench script: threads = latency (s) x desired rate
    assert outstanding_io(3500, 1.14) == pytest.approx(3.99)
    assert threads_needed(3500, 1.14) == 4


@pytest.mark.parametrize(
    ("iops", "lat_ms", "in_flight"),
    [
        # performance-linux-concurrency-session-slots.md, "sample study of concurrency"
        (110_000, 0.5, 55),  # 8 KiB, 859 MiB/s
        (400_000, 2.0, 800),  # 8 KiB, 3,125 MiB/s
        (16_000, 2.0, 32),  # 256 KiB, 4,000 MiB/s
        (32_000, 4.0, 128),  # 256 KiB, 8,000 MiB/s
        (16_000, 10.0, 160),  # the EDA farm example: 160 = 16,000 x 0.010
    ],
)
def test_session_slot_article_examples(iops, lat_ms, in_flight):
    assert outstanding_io(iops, lat_ms) == pytest.approx(in_flight)
    assert threads_needed(iops, lat_ms) == in_flight


def test_session_slot_example_from_mib_s():
    # 256 KiB at 2 ms and 4,000 MiB/s -> 16,000 IOPS -> 32 in flight
    assert bw_to_iops(4000, 256) == 16_000
    assert outstanding_io(bw_to_iops(4000, 256), 2.0) == pytest.approx(32)


def test_threads_needed_ignores_float_noise_and_is_vectorised():
    assert threads_needed(4000, 1.0) == 4  # exactly 4.0, not 5
    assert list(threads_needed(np.array([3500, 110_000]), np.array([1.14, 0.5]))) == [4, 55]
    with pytest.raises(ModelError):
        threads_needed(-1, 1.0)
    with pytest.raises(ModelError):
        threads_needed(np.nan, 1.0)


def test_rate_and_latency_are_inverse():
    assert iops_at_concurrency(55, 0.5) == pytest.approx(110_000)
    assert latency_at_concurrency(55, 110_000) == pytest.approx(0.5)
    with pytest.raises(ModelError):
        iops_at_concurrency(4, 0)
    with pytest.raises(ModelError):
        latency_at_concurrency(4, 0)


def test_bandwidth_delay_product():
    # 1,000 MiB/s over a 1 ms round trip keeps 1 MiB = 1,024 KiB in flight
    assert bandwidth_delay_kib(1000, 1.0) == pytest.approx(1024)
    assert bw_for_window(1024, 1.0) == pytest.approx(1000)
    with pytest.raises(ModelError):
        bw_for_window(1024, 0)


def test_littles_law_matches_vdbench_own_queue_depth():
    """Vdbench reports the mean queue depth it saw: rate x latency must reproduce it."""
    frame = read_vdbench(vdbench_dir("RndReadThreads"))
    raw = summary_avg("RndReadThreads")
    check = check_concurrency(frame)
    assert len(check) == len(raw["iops"]) == 7
    np.testing.assert_allclose(check["iops"], raw["iops"], rtol=1e-6)
    # summary.html rounds latency to 3 decimals: compare at that precision
    np.testing.assert_allclose(check["lat_mean_ms"], raw["lat_ms"], atol=6e-4)
    np.testing.assert_allclose(check["measured"], check["queue_depth"], rtol=0.005)
    # Vdbench threads are per SD: two SDs double the configured concurrency
    np.testing.assert_array_equal(check["configured"], raw["threads"] * sd_count("RndReadThreads"))
    assert (check["verdict"] == "ok").all()


def test_rate_limited_curve_points_are_not_called_client_limited():
    frame = read_vdbench(vdbench_dir("RndReadCurve"))
    check = check_concurrency(frame).set_index("job")
    # the uncontrolled max run keeps its 32 I/Os in flight: 92,404.57 IOPS x 0.3437 ms = 31.76
    assert check.loc["curve", "verdict"] == "ok"
    assert check.loc["curve", "measured"] == pytest.approx(31.76, abs=0.01)
    # 10 % of max: 9,261 IOPS x 0.124 ms ~ 1.1 in flight of 32, because the rate was capped
    assert check.loc["curve_(10%)", "verdict"] == "rate-limited"
    assert check.loc["curve_(10%)", "ratio"] < 0.05


def test_multi_host_vdbench_run_is_checked_on_its_cross_host_rows():
    """Two hosts x two SDs: the 'all' rows count, not the per-host reports as extra runs."""
    frame = read_vdbench(vdbench_dir("MultiHostSeqMix"))
    check = check_concurrency(frame)
    raw = summary_avg("MultiHostSeqMix")  # the summary holds the all-host totals
    assert list(check["job"]) == list(raw["rd"]) == ["SeqMix-6", "SeqMix-7"]
    np.testing.assert_allclose(check["iops"], raw["iops"], rtol=1e-6)
    # threads=6 and 7 per SD, four SDs over the two hosts
    np.testing.assert_array_equal(check["configured"], raw["threads"] * sd_count("MultiHostSeqMix"))
    np.testing.assert_allclose(check["measured"], check["queue_depth"], rtol=0.005)
    assert (check["verdict"] == "ok").all()


def test_fio_client_server_run_is_checked_on_all_clients():
    """pbench's fio --client run: 2 servers x 5 jobs x iodepth 32 = 320 in flight."""
    path = corpus_dir() / "public" / "fio" / "f12_pbench_fio37_client.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reader notes the text around the JSON
        frame = read_many([path])
    check = check_concurrency(frame)
    assert len(check) == 1
    row = check.iloc[0]
    assert row["configured"] == 320
    # 'All clients': 93,198 IOPS at 3.428 ms mean latency = 319.5 in flight
    assert row["measured"] == pytest.approx(319.49, abs=0.01)
    assert row["verdict"] == "ok"


@pytest.mark.fio
def test_think_time_run_is_flagged_client_limited(tmp_path):
    """A real fio run whose jobs think 20 ms between I/Os: the client, not storage, limits."""
    fio = shutil.which("fio")
    if fio is None:
        pytest.fail("fio is not installed (make sysdeps)")
    out = tmp_path / "think.json"
    subprocess.run(
        [
            fio, "--name=think", f"--filename={tmp_path / 'f'}", "--size=4m", "--rw=randread",
            "--bs=4k", "--ioengine=psync", "--numjobs=4", "--group_reporting",
            "--thinktime=20000", "--runtime=1", "--time_based", "--output-format=json",
            f"--output={out}",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    frame = read_fio_json(out)
    check = check_concurrency(frame)
    assert len(check) == 1
    row = check.iloc[0]
    assert row["configured"] == 4  # iodepth 1 x numjobs 4
    assert row["measured"] == pytest.approx(row["iops"] * row["lat_mean_ms"] / 1000)
    assert row["verdict"] == "client-limited"
    assert row["ratio"] < 0.5


def test_check_concurrency_rejects_non_frames_and_bad_tolerance():
    with pytest.raises(ModelError):
        check_concurrency([1, 2, 3])
    with pytest.raises(ModelError):
        check_concurrency(pd.DataFrame({"x": [1]}))
    frame = read_vdbench(vdbench_dir("RndReadThreads"))
    with pytest.raises(ModelError):
        check_concurrency(frame, tolerance=0)
