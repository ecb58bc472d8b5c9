"""Closed-loop models: MVA throughput, the stacked throughput curve, Little's-law cap."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from anfperf.analysis.sweep import sweep_points
from anfperf.errors import ModelError
from anfperf.ingest import read_vdbench
from anfperf.models import (
    FewPointsWarning,
    SaturationWarning,
    fit_mva_throughput,
    fit_queueing_latency,
    fit_throughput_curve,
    fit_usl,
    mva_throughput,
    queueing_closed_max,
    queueing_iops_at_latency,
    queueing_knee,
    queueing_latency,
    throughput_curve,
    usl,
)
from tests.models.realdata import sd_count, summary_avg, vdbench_dir

TRUE_MVA = {"demand_ms": 0.008, "delay_ms": 0.09}  # ceiling 125,000 IOPS, N* = 12.25
N = np.array([1, 2, 4, 8, 12, 16, 24, 32, 48, 64], dtype=float)


def noisy(values, rel, seed):
    rng = np.random.default_rng(seed)
    return values * (1 + rng.normal(0, rel, size=np.size(values)))


# ------------------------------------------------------------------ MVA, by hand and synthetic


def test_mva_recursion_by_hand():
    d, z = 0.01, 0.05  # ms
    x1 = 1 / (z + d)  # per ms: one I/O never queues
    q1 = x1 * d
    x2 = 2 / (z + d * (1 + q1))
    out = mva_throughput([1, 2, 1.5], d, z)
    np.testing.assert_allclose(out, [1000 * x1, 1000 * x2, 500 * (x1 + x2)])
    assert isinstance(mva_throughput(1, d, z), float)


def test_mva_bounds():
    x = mva_throughput(np.arange(1, 2001), **TRUE_MVA)
    assert np.all(np.diff(x) > -1e-9 * x[1:])  # non-decreasing, to rounding
    # asymptotic bounds (Lazowska et al. ch. 5): X <= min(N / (D + Z), 1 / D)
    n = np.arange(1, 2001)
    assert np.all(x <= np.minimum(1000 * n / 0.098, 1000 / 0.008) * (1 + 1e-12))
    assert x[-1] == pytest.approx(125_000, rel=1e-3)


def test_mva_fit_recovers_known_parameters():
    fit = fit_mva_throughput(N, mva_throughput(N, **TRUE_MVA))
    for name, value in TRUE_MVA.items():
        assert fit[name] == pytest.approx(value, rel=1e-5)
    assert fit.mdape_pct < 1e-4
    noisy_fit = fit_mva_throughput(N, noisy(mva_throughput(N, **TRUE_MVA), 0.02, seed=1))
    assert noisy_fit["demand_ms"] == pytest.approx(0.008, rel=0.05)
    assert noisy_fit["delay_ms"] == pytest.approx(0.09, rel=0.1)
    assert noisy_fit.stderr["demand_ms"] > 0


def test_mva_fit_warns_when_the_ceiling_is_far():
    n = np.array([1, 2, 3, 4], dtype=float)
    with pytest.warns(SaturationWarning, match="ceiling"), pytest.warns(FewPointsWarning):
        fit_mva_throughput(n, mva_throughput(n, **TRUE_MVA))


@pytest.mark.parametrize("fit", [fit_mva_throughput, fit_throughput_curve])
def test_degenerate_input_is_a_model_error(fit):
    with pytest.raises(ModelError, match="distinct"):
        fit([4.0], [1000.0])
    with pytest.raises(ModelError, match="constant"):
        fit([1, 2, 4, 8, 16, 32], [5.0] * 6)
    with pytest.raises(ModelError, match="NaN"):
        fit([1, 2, 4, 8, 16, np.nan], [1, 2, 3, 4, 5, 6])
    with pytest.raises(ModelError, match="> 0"):
        fit([1, 2, 4, 8, 16, 32], [1, 2, 3, -4, 5, 6])


def test_mva_refuses_bad_parameters_and_concurrency():
    with pytest.raises(ModelError, match="1 .. "), pytest.warns(FewPointsWarning):
        fit_mva_throughput([0.5, 2, 4], [1, 2, 3])
    with pytest.raises(ModelError, match=">= 1"):
        mva_throughput([0.5], 0.01, 0.05)
    with pytest.raises(ModelError, match="demand_ms"):
        mva_throughput([1], 0.0, 0.05)
    with pytest.raises(ModelError, match="beyond"):
        mva_throughput([1e7], 0.01, 0.05)


# ------------------------------------------------------------------ stacked throughput curve


def test_throughput_curve_weights_are_the_three_models():
    usl_p = {"lam": 12000.0, "sigma": 0.05, "kappa": 1e-4}
    amdahl_p = {"amdahl_lam": 10000.0, "amdahl_sigma": 0.06}
    three = {**usl_p, **TRUE_MVA, **amdahl_p}
    np.testing.assert_allclose(throughput_curve(N, **three, usl_weight=1.0), usl(N, **usl_p))
    np.testing.assert_allclose(
        throughput_curve(N, **three, usl_weight=0.0), mva_throughput(N, **TRUE_MVA)
    )
    amdahl = usl(N, 10000.0, 0.06, 0.0)
    np.testing.assert_allclose(
        throughput_curve(N, **three, usl_weight=0.0, amdahl_weight=1.0), amdahl
    )
    thirds = throughput_curve(N, **three, usl_weight=1 / 3, amdahl_weight=1 / 3)
    np.testing.assert_allclose(
        thirds, (usl(N, **usl_p) + mva_throughput(N, **TRUE_MVA) + amdahl) / 3
    )
    with pytest.raises(ModelError, match="usl_weight"):
        throughput_curve(N, **three, usl_weight=1.5)
    with pytest.raises(ModelError, match="at most 1"):
        throughput_curve(N, **three, usl_weight=0.7, amdahl_weight=0.6)


def test_the_model_that_generated_the_data_gets_the_weight():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SaturationWarning)
        from_mva = fit_throughput_curve(N, noisy(mva_throughput(N, **TRUE_MVA), 0.005, seed=2))
    assert from_mva.selected == "mva" and from_mva.weights["mva"] > 0.6
    # past the data it follows the plateau the data show
    beyond = np.array([96.0, 128.0])
    pred = throughput_curve(beyond, **from_mva)
    assert np.all(np.abs(pred / mva_throughput(beyond, **TRUE_MVA) - 1) < 0.12)
    amdahl = {"lam": 10000.0, "sigma": 0.06, "kappa": 0.0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SaturationWarning)
        from_usl = fit_throughput_curve(N, noisy(usl(N, **amdahl), 0.005, seed=3))
    # the USL fitted with kappa is Amdahl's law here: the two share the weight
    assert from_usl["usl_weight"] + from_usl["amdahl_weight"] > 0.95
    assert from_usl["amdahl_sigma"] == pytest.approx(0.06, abs=0.01)
    assert from_usl["kappa"] < 1e-4


def test_throughput_curve_on_the_real_thread_sweep_lower_half():
    """RndReadThreads, 2..16 in flight (threads 1..8 x 2 SDs) predict 32..128.

    summary.html is parsed independently here. The data still rise at 16: Amdahl's law keeps
    rising past them (+10 .. +27 %), the MVA plateau stays below (-16 .. -23 %), the USL turns
    down; the stacked curve lies between them and within 10 % of what was measured.
    """
    raw = summary_avg("RndReadThreads")
    n = raw["threads"] * sd_count("RndReadThreads")
    assert n.tolist() == [2, 4, 8, 16, 32, 64, 128]
    lower = n <= 16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_throughput_curve(n[lower], raw["iops"][lower])
        alone_mva = fit_mva_throughput(n[lower], raw["iops"][lower])
        alone_amdahl = fit_usl(n[lower], raw["iops"][lower], kappa=0.0)
    assert fit["demand_ms"] == pytest.approx(alone_mva["demand_ms"])
    assert fit["amdahl_lam"] == pytest.approx(alone_amdahl["lam"])
    assert set(fit.fits) == {"usl", "amdahl", "mva"}
    assert sum(fit.weights.values()) == pytest.approx(1.0)
    assert all(0.1 < w < 0.8 for w in fit.weights.values())  # one point predicted: near equal
    pred = throughput_curve(n[~lower], **fit)
    assert np.all(np.abs(pred / raw["iops"][~lower] - 1) < 0.10)
    amdahl = usl(n[~lower], **alone_amdahl)
    plateau = mva_throughput(n[~lower], **alone_mva)
    assert np.all((plateau < pred) & (pred < amdahl))
    assert any("do not show where throughput stops growing" in note for note in fit.notes)
    # the frame gives the same fit as the raw file
    frame = read_vdbench(vdbench_dir("RndReadThreads"))
    points = sweep_points(frame, "outstanding", "iops")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = points[points["outstanding"] <= 16]
        from_frame = fit_throughput_curve(low["outstanding"], low["iops"])
    assert from_frame.weights == pytest.approx(fit.weights, rel=1e-3)


def test_three_points_weigh_the_models_equally():
    n = np.array([2.0, 4.0, 8.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_throughput_curve(n, mva_throughput(n, **TRUE_MVA) * [1.0, 1.01, 0.99])
    assert fit.weights == pytest.approx({"usl": 1 / 3, "amdahl": 1 / 3, "mva": 1 / 3})
    assert "equal, too few points" in fit.notes[0]


def test_mva_ceiling_stays_near_the_best_rate_measured():
    # a sweep still rising at its end: least squares alone put the plateau below its last point
    n = np.array([2.0, 4.0, 8.0, 16.0])
    x = np.array([25_700.0, 48_700.0, 74_400.0, 97_700.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_mva_throughput(n, x)
    ceiling = 1000.0 / fit["demand_ms"]
    assert ceiling >= 0.95 * x.max() * (1 - 1e-9)
    assert fit.bounds["demand_ms"][1] == pytest.approx(1000.0 / (0.95 * x.max()))


# ------------------------------------------------------------------ Little's-law cap


def test_cap_is_littles_law_where_it_binds():
    # open M/M/1: S = 0.1 ms, 100,000 IOPS; with 32 in flight the loop tops out where
    # X * 0.1 / (1 - X / 1e5) / 1000 = 32, i.e. 0.1 X + 0.32 X = 32,000: X = 76,190 IOPS
    x_c = queueing_closed_max(0.1, 100_000, 1.0, 32)
    assert x_c == pytest.approx(32_000 / 0.42)
    assert queueing_latency(x_c, 0.1, 100_000, outstanding=32) == pytest.approx(1000 * 32 / x_c)
    # below the crossing the open queue is untouched; beyond it latency is N / X, never inf
    assert queueing_latency(50_000, 0.1, 100_000, outstanding=32) == pytest.approx(0.2)
    assert queueing_latency(100_000, 0.1, 100_000, outstanding=32) == pytest.approx(0.32)
    assert math.isinf(queueing_latency(100_000, 0.1, 100_000))
    assert queueing_closed_max(0.1, 100_000) == 100_000
    # SLOs: the loop cannot go beyond its maximum
    assert queueing_iops_at_latency(0.2, 0.1, 100_000, outstanding=32) == pytest.approx(50_000)
    assert queueing_iops_at_latency(5.0, 0.1, 100_000, outstanding=32) == pytest.approx(x_c)
    assert queueing_knee(0.1, 100_000, outstanding=32) == (
        pytest.approx(50_000),
        pytest.approx(0.2),
    )
    with pytest.raises(ModelError, match="outstanding"):
        queueing_closed_max(0.1, 100_000, 1.0, -1)


def test_capped_fit_recovers_known_parameters():
    load = np.linspace(5_000, 95_000, 10)
    lat = queueing_latency(load, 0.1, 100_000, outstanding=8)
    fit = fit_queueing_latency(load, lat, servers=1, outstanding=8)
    assert fit["lat_min_ms"] == pytest.approx(0.1, rel=1e-4)
    assert fit["iops_max"] == pytest.approx(100_000, rel=1e-4)
    assert fit["outstanding"] == 8
    np.testing.assert_allclose(queueing_latency(load, **fit), lat, rtol=1e-4)
    assert fit.table()["parameter"].tolist()[-1] == "outstanding"
    with pytest.raises(ModelError, match="outstanding"):
        fit_queueing_latency(load, lat, outstanding=0)
    with pytest.raises(ModelError, match="outstanding"):
        fit_queueing_latency(load, lat, outstanding="many")


def test_capped_fit_on_the_real_curve_run():
    """RndReadCurve: 16 threads x 2 SDs; fit on the 10 .. 70 % runs, predict the heavier ones.

    Values parsed from summary.html here: the uncontrolled max run, 92,404.57 IOPS at 0.344 ms,
    is Little's law at 32 in flight (32 / 92,404.57 = 0.3463 ms), which the open queue fitted to
    the light loads puts at 0.498 ms (+45 %).
    """
    raw = summary_avg("RndReadCurve")
    n_out = 16 * sd_count("RndReadCurve")
    assert raw["threads"].tolist() == [16] * 8 and n_out == 32
    light = np.array(["10%" in r or "30%" in r or "50%" in r or "70%" in r for r in raw["rd"]])
    heavy = ~light
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        capped = fit_queueing_latency(raw["iops"][light], raw["lat_ms"][light], outstanding=n_out)
        open_q = fit_queueing_latency(raw["iops"][light], raw["lat_ms"][light])
    err_capped = np.abs(queueing_latency(raw["iops"][heavy], **capped) / raw["lat_ms"][heavy] - 1)
    err_open = np.abs(queueing_latency(raw["iops"][heavy], **open_q) / raw["lat_ms"][heavy] - 1)
    assert np.median(err_capped) < 0.15 < np.median(err_open)
    top = raw["rd"] == "curve"
    assert queueing_latency(raw["iops"][top][0], **capped) == pytest.approx(
        1000 * 32 / 92404.57, rel=1e-6
    )
    assert raw["lat_ms"][top][0] == pytest.approx(0.344)
    # the frame's configured outstanding I/O is the same 32
    points = sweep_points(read_vdbench(vdbench_dir("RndReadCurve")), "iops", "lat_mean_ms")
    assert points["configured"].unique().tolist() == [32]
