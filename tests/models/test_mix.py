"""Read/write mix: the ANF chart sweeps, a real mixed run predicted from pure runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anfperf.analysis.sweep import sweep_xy
from anfperf.errors import ModelError
from anfperf.ingest import read_vdbench
from anfperf.models import fit_mix, mix_sweep, mix_throughput
from tests.models.realdata import summary_avg, vdbench_dir


def test_sweeps_between_the_published_end_points():
    # performance-benchmarks-linux.md: ~1,600 MiB/s pure write .. ~4,500 pure read (64 KiB)
    seq = mix_sweep(4500, 1600)
    assert list(seq["read_pct"]) == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    assert seq["throughput"].iloc[0] == pytest.approx(1600)
    assert seq["throughput"].iloc[-1] == pytest.approx(4500)
    assert seq["throughput"].is_monotonic_increasing
    # ~130,000 .. ~460,000 IOPS (4 KiB random)
    rnd = mix_sweep(460_000, 130_000)
    assert rnd["throughput"].iloc[[0, -1]].tolist() == pytest.approx([130_000, 460_000])
    # harmonic: at 50 % each read and write takes its share of the bottleneck
    assert rnd.set_index("read_pct").loc[50, "throughput"] == pytest.approx(
        2 * 460_000 * 130_000 / (460_000 + 130_000)
    )


def test_exponents():
    assert mix_throughput(50, 4000, 2000, exponent=1) == pytest.approx(3000)
    assert mix_throughput(50, 4000, 1000, exponent=0) == pytest.approx(2000)
    assert mix_throughput(0, np.inf, 1500) == pytest.approx(1500)  # pure writes
    assert mix_throughput(50, np.inf, 1500) == pytest.approx(3000)  # reads are free
    with pytest.raises(ModelError):
        mix_throughput(120, 1, 1)
    with pytest.raises(ModelError):
        mix_throughput(50, 0, 1)
    with pytest.raises(ModelError):
        mix_sweep(1, 2, step_pct=0)


def test_fit_recovers_a_known_exponent():
    pct = np.arange(0, 101, 10, dtype=float)
    truth = mix_throughput(pct, 4500, 1600, exponent=-0.5)
    fit = fit_mix(pct, truth)
    assert fit["read_max"] == pytest.approx(4500, rel=1e-4)
    assert fit["write_max"] == pytest.approx(1600, rel=1e-4)
    assert fit["exponent"] == pytest.approx(-0.5, abs=1e-3)
    np.testing.assert_allclose(mix_throughput(pct, **fit), truth, rtol=1e-4)


def test_two_points_fix_the_harmonic_exponent():
    fit = fit_mix([0, 100], [1600, 4500])
    assert fit == pytest.approx({"read_max": 4500, "write_max": 1600, "exponent": -1})
    assert "harmonic" in fit.notes[0]


def test_real_mixed_run_predicted_from_pure_runs():
    """8 KiB random: RndRead (100 %), RndWrite (0 %) predict RndMix (50 %) within 12 %."""
    runs = {name: summary_avg(name) for name in ("RndRead", "RndWrite", "RndMix")}
    frame = pd.concat(
        [read_vdbench(vdbench_dir(name)) for name in ("RndRead", "RndWrite")], ignore_index=True
    )
    fit = fit_mix(*sweep_xy(frame, "read_pct", "iops"))
    assert fit["read_max"] == pytest.approx(runs["RndRead"]["iops"][0], rel=1e-4)  # 82,353.89
    assert fit["write_max"] == pytest.approx(runs["RndWrite"]["iops"][0], rel=1e-4)  # 113,428.67
    mixed = runs["RndMix"]
    predicted = mix_throughput(mixed["read_pct"][0], **fit)
    # measured 106,725 IOPS at 49.94 % reads; harmonic says ~95,400 (-10.6 %)
    assert abs(predicted / mixed["iops"][0] - 1) < 0.12


def test_degenerate_mix_input():
    with pytest.raises(ModelError, match="distinct"):
        fit_mix([100, 100], [5, 6])
    with pytest.raises(ModelError, match="NaN"):
        fit_mix([0, 100], [5, np.nan])
    with pytest.raises(ModelError, match="> 0"):
        fit_mix([0, 100], [0, 6])
    with pytest.raises(ModelError, match="constant"):
        fit_mix([0, 50, 100], [7, 7, 7])
