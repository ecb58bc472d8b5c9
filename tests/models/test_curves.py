"""USL and queueing curves: known parameters recovered, real sweeps fitted, bad input refused."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from anfperf.analysis.sweep import sweep_xy
from anfperf.errors import ModelError
from anfperf.ingest import read_vdbench
from anfperf.models import (
    FewPointsWarning,
    SaturationWarning,
    fit_queueing_latency,
    fit_throughput_curve,
    fit_usl,
    kneedle,
    queueing_iops_at_latency,
    queueing_knee,
    queueing_latency,
    usl,
    usl_concurrency_at_latency,
    usl_knee,
    usl_latency_ms,
    usl_max,
    usl_peak,
    usl_throughput_at_latency,
)
from anfperf.models.curves.usl import usl_concurrency_at_rate, usl_latency_at_rate_ms
from tests.models.realdata import fio_qd_sweep, sd_count, summary_avg, vdbench_dir

TRUE_USL = {"lam": 20000.0, "sigma": 0.05, "kappa": 0.0005}
N = np.array([2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128], dtype=float)


def noisy(values, rel, seed):
    rng = np.random.default_rng(seed)
    return values * (1 + rng.normal(0, rel, size=np.size(values)))


# ------------------------------------------------------------------ USL, synthetic


def test_usl_recovers_known_parameters_without_an_n1_point():
    x = usl(N, **TRUE_USL)
    fit = fit_usl(N, x, kappa="fit")
    for name, value in TRUE_USL.items():
        assert fit[name] == pytest.approx(value, rel=1e-4)
    assert fit.r2 == pytest.approx(1.0)
    assert fit.mdape_pct < 1e-3
    # pvlib style: the fit's keys are the model's own parameter names
    np.testing.assert_allclose(usl(N, **fit), x, rtol=1e-4)


def test_usl_recovers_parameters_from_noisy_data_within_tolerance():
    x = noisy(usl(N, **TRUE_USL), 0.02, seed=1)
    fit = fit_usl(N, x, kappa="fit")
    assert fit["lam"] == pytest.approx(TRUE_USL["lam"], rel=0.1)
    assert fit["sigma"] == pytest.approx(TRUE_USL["sigma"], abs=0.02)
    assert fit["kappa"] == pytest.approx(TRUE_USL["kappa"], rel=0.3)
    assert fit.mdape_pct < 3
    lo, hi = fit.ci["kappa"]
    assert lo < TRUE_USL["kappa"] < hi


def test_usl_bootstrap_is_reproducible_with_a_seed():
    x = noisy(usl(N, **TRUE_USL), 0.02, seed=2)
    a = fit_usl(N, x, kappa="fit", bootstrap=40, seed=7)
    b = fit_usl(N, x, kappa="fit", bootstrap=40, seed=7)
    assert a.ci == b.ci
    assert a.ci["sigma"][0] < a["sigma"] < a.ci["sigma"][1]
    assert set(a.table()["parameter"]) == {"lam", "sigma", "kappa"}


def test_auto_keeps_amdahl_when_kappa_is_not_needed():
    amdahl = {"lam": 5000.0, "sigma": 0.08, "kappa": 0.0}
    n = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256], dtype=float)
    fit = fit_usl(n, noisy(usl(n, **amdahl), 0.01, seed=3))
    assert fit["kappa"] == 0.0
    assert "kept Amdahl" in fit.notes[0]
    assert set(fit.aicc) == {"usl", "amdahl"}
    assert fit["sigma"] == pytest.approx(0.08, abs=0.01)
    assert usl_max(**fit) == pytest.approx(fit["lam"] / fit["sigma"])


def test_four_points_cannot_judge_kappa_and_the_note_says_so():
    depth, iops = fio_qd_sweep()  # real: iodepth 1, 2, 3, 4
    fit = fit_usl(depth[:4], iops[:4])
    assert fit["kappa"] == 0.0 and not math.isfinite(fit.aicc["usl"])
    assert fit.notes[0] == (
        "kept Amdahl's law (kappa = 0): too few points to fit the USL's coherency term as well"
    )


def test_auto_keeps_the_usl_when_the_curve_turns_down():
    fit = fit_usl(N, noisy(usl(N, **TRUE_USL), 0.005, seed=4))
    assert fit["kappa"] > 0
    assert "kept the USL" in fit.notes[0]


def test_usl_peak_knee_and_latency():
    n_max, x_max = usl_peak(**TRUE_USL)
    assert n_max == math.floor(math.sqrt((1 - 0.05) / 0.0005)) == 43
    assert x_max == pytest.approx(usl(43, **TRUE_USL))
    assert usl_max(**TRUE_USL) == x_max
    knee_n, knee_x = usl_knee(**TRUE_USL)
    assert 1 < knee_n < n_max and knee_x < x_max
    # Little's law: R = N / X; the inverse recovers N
    lat = usl_latency_ms(16, **TRUE_USL)
    assert lat == pytest.approx(1000 * 16 / usl(16, **TRUE_USL))
    assert usl_concurrency_at_latency(lat, **TRUE_USL) == pytest.approx(16)
    assert usl_throughput_at_latency(lat, **TRUE_USL) == pytest.approx(usl(16, **TRUE_USL))
    # beyond the peak more concurrency only adds latency: capped at the peak
    assert usl_throughput_at_latency(100.0, **TRUE_USL) == pytest.approx(
        usl(math.sqrt(0.95 / 0.0005), **TRUE_USL)
    )
    # below the unloaded latency 1000 / lam nothing qualifies
    assert math.isnan(usl_throughput_at_latency(0.01, **TRUE_USL))


def test_usl_without_a_peak():
    with pytest.raises(ModelError, match="no finite peak"):
        usl_peak(1000, 0.1, 0.0)
    with pytest.raises(ModelError, match="n_max"):
        usl_knee(1000, 0.1, 0.0)
    assert usl_knee(1000, 0.1, 0.0, n_max=64)[0] > 1
    assert usl_max(1000, 0.0, 0.0) == math.inf
    assert usl_concurrency_at_latency(1.0, 1000, 0.0, 0.0) == math.inf


# ------------------------------------------------------------------ USL, real sweep


def test_usl_fits_the_real_vdbench_thread_sweep():
    """forthreads=(1..64) of 4 KiB random reads, two SDs: the frame and the raw file agree."""
    raw = summary_avg("RndReadThreads")
    concurrency = raw["threads"] * sd_count("RndReadThreads")
    from_raw = fit_usl(concurrency, raw["iops"])
    from_frame = fit_usl(*sweep_xy(read_vdbench(vdbench_dir("RndReadThreads"))))
    for name in ("lam", "sigma", "kappa"):
        assert from_frame[name] == pytest.approx(from_raw[name], rel=1e-3, abs=1e-9)
    assert from_frame.n_points == 7
    # the sweep flattens out at ~110,000-121,000 IOPS from 32 outstanding I/Os on
    assert from_frame.r2 > 0.95
    assert from_frame.mdape_pct < 10
    assert 110_000 < usl_max(**from_frame) < 160_000
    # "IOPS at 0.5 ms": between the measured 64-in-flight (0.541 ms, 110,842) and
    # 32-in-flight (0.264 ms, 113,551) points' range of throughput
    at_half_ms = usl_throughput_at_latency(0.5, **from_frame)
    assert 100_000 < at_half_ms < 125_000


# ------------------------------------------------------------------ queueing curve


def test_queueing_recovers_mm1_parameters():
    load = np.linspace(5000, 90000, 10)
    lat = queueing_latency(load, 0.2, 100000)
    fit = fit_queueing_latency(load, lat, servers=1)
    assert fit["lat_min_ms"] == pytest.approx(0.2, rel=1e-4)
    assert fit["iops_max"] == pytest.approx(100000, rel=1e-4)
    assert fit["servers"] == 1


def test_queueing_recovers_servers_from_noisy_data():
    load = np.linspace(5000, 95000, 12)
    lat = noisy(queueing_latency(load, 0.15, 100000, 4), 0.01, seed=5)
    fit = fit_queueing_latency(load, lat)
    assert fit["lat_min_ms"] == pytest.approx(0.15, rel=0.05)
    assert fit["iops_max"] == pytest.approx(100000, rel=0.05)
    assert fit["servers"] == pytest.approx(4, rel=0.3)


def test_queueing_knee_and_slo():
    # M/M/1: R = 2 S at half the maximum
    assert queueing_knee(0.2, 100000) == (pytest.approx(50000), pytest.approx(0.4))
    assert queueing_iops_at_latency(0.4, 0.2, 100000) == pytest.approx(50000)
    assert queueing_latency(50000, 0.2, 100000) == pytest.approx(0.4)
    assert math.isinf(queueing_latency(100000, 0.2, 100000))
    assert math.isnan(queueing_iops_at_latency(0.1, 0.2, 100000))
    with pytest.raises(ModelError):
        queueing_knee(0.2, 100000, factor=1)


def test_queueing_fits_the_real_vdbench_curve_run():
    """iorate=curve at 10..100 % of max, 8 KiB random reads: latency against measured load."""
    frame = read_vdbench(vdbench_dir("RndReadCurve"))
    raw = summary_avg("RndReadCurve")
    fit = fit_queueing_latency(*sweep_xy(frame, "iops", "lat_mean_ms"))
    raw_fit = fit_queueing_latency(raw["iops"], raw["lat_ms"])
    assert fit["iops_max"] == pytest.approx(raw_fit["iops_max"], rel=0.01)
    assert fit.n_points == 8  # the max run and its seven curve points
    # the service time is below the lightest-load latency (0.124 ms at 9,261 IOPS) ...
    assert 0.05 < fit["lat_min_ms"] < 0.2
    # ... and saturation lies above the highest load measured (92,689 IOPS)
    assert fit["iops_max"] > raw["iops"].max()
    assert fit.mdape_pct < 15
    knee, _ = queueing_knee(**fit)
    assert 0 < knee < fit["iops_max"]


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("fit", [fit_usl, fit_queueing_latency])
def test_degenerate_input_is_a_model_error(fit):
    with pytest.raises(ModelError, match="distinct"):
        fit([4.0], [1000.0])  # one point
    with pytest.raises(ModelError, match="constant"):
        fit([1, 2, 4, 8, 16, 32], [5.0] * 6)
    with pytest.raises(ModelError, match="NaN"):
        fit([1, 2, 4, 8, 16, np.nan], [1, 2, 3, 4, 5, 6])
    with pytest.raises(ModelError, match="NaN"):
        fit([1, 2, 4, 8, 16, 32], [1, 2, 3, np.inf, 5, 6])
    with pytest.raises(ModelError, match="> 0"):
        fit([1, 2, 4, 8, 16, 32], [1, 2, 3, -4, 5, 6])
    with pytest.raises(ModelError, match="length"):
        fit([1, 2, 4], [1, 2])
    with pytest.raises(ModelError, match="numbers"):
        fit(["a", "b", "c"], [1, 2, 3])


def test_usl_needs_three_concurrencies_and_warns_below_six():
    with pytest.raises(ModelError, match="3 distinct"):
        fit_usl([4, 8, 8, 4], [100, 180, 181, 99])
    with pytest.warns(FewPointsWarning, match="only 4 points"):
        with pytest.warns(SaturationWarning):  # and 600 is far from the fitted asymptote
            fit_usl([1, 2, 4, 8], [100, 190, 350, 600])


def test_linear_scaling_warns_no_saturation():
    n = np.array([1, 2, 4, 8, 16, 32], dtype=float)
    with pytest.warns(SaturationWarning, match="no saturation seen"):
        fit = fit_usl(n, 1000 * n)
    assert fit["sigma"] == pytest.approx(0, abs=1e-4) and fit["kappa"] == 0


def test_notes_write_rates_as_people_read_them():
    """Vdbench forthreads, its first 4 steps (2 .. 16 in flight): the notes a report prints
    under 'Fit notes' said 'usl 9.068e+04' and 'rises to 1.092e+05'."""
    raw = summary_avg("RndReadThreads")
    n, x = raw["threads"] * sd_count("RndReadThreads"), raw["iops"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        usl = fit_usl(n[:4], x[:4])
        stacked = fit_throughput_curve(n[:4], x[:4])
    assert "lam / sigma = 165,388, an extrapolation" in usl.notes[-1]
    assert "(usl 90,684, amdahl 125,065, mva 93,535)" in stacked.notes[1]
    assert "the curve still rises to 109,222 at N=32" in stacked.notes[2]
    notes = " ".join([*usl.notes, *stacked.notes])
    assert "e+0" not in notes


def test_light_load_latency_warns_no_saturation():
    load = np.linspace(1000, 20000, 8)
    lat = queueing_latency(load, 0.2, 100000)
    with pytest.warns(SaturationWarning, match="extrapolation"):
        fit_queueing_latency(load, lat, servers=1)


def test_real_sweep_fit_does_not_warn_about_saturation():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SaturationWarning)
        fit_usl(*sweep_xy(read_vdbench(vdbench_dir("RndReadThreads"))))


def test_a_frame_is_refused_with_the_adapter_named():
    frame = read_vdbench(vdbench_dir("RndReadThreads"))
    with pytest.raises(ModelError, match=r"fit_usl\(\*sweep_xy\(frame"):
        fit_usl(frame, [1, 2, 3])
    with pytest.raises(TypeError):
        fit_usl([1, 2, 3])
    with pytest.raises(ModelError, match="kappa"):
        fit_usl([1, 2, 4], [1, 2, 3], kappa="maybe")


def test_kneedle():
    x = np.linspace(0, 10, 101)
    knee_x, _ = kneedle(x, 1 - np.exp(-x), curve="concave")
    assert 1 < knee_x < 3
    knee_x, _ = kneedle(x, np.exp(x), curve="convex")
    assert 7 < knee_x < 10
    with pytest.raises(ModelError):
        kneedle(x, x, curve="sideways")


def test_fit_warnings_name_the_callers_line():
    n = np.array([1, 2, 4, 8, 16, 32], dtype=float)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit_usl(n, 1000 * n)
    assert caught and {w.filename for w in caught} == {__file__}


def test_usl_latency_against_throughput_inverts_the_usl():
    for lam, sigma, kappa in [(14_500.0, 0.08, 0.0), (10_000.0, 0.05, 1e-3), (5_000.0, 0.0, 0.0)]:
        n = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 30.0])
        if kappa:
            n = n[n <= np.sqrt((1 - sigma) / kappa)]  # before the peak
        rate = usl(n, lam, sigma, kappa)
        assert usl_concurrency_at_rate(rate, lam, sigma, kappa) == pytest.approx(n, rel=1e-9)
        lat = usl_latency_at_rate_ms(rate, lam, sigma, kappa)
        assert lat == pytest.approx(usl_latency_ms(n, lam, sigma, kappa), rel=1e-9)
    # below one I/O in flight and past the peak there is no such point
    assert np.isnan(usl_latency_at_rate_ms([5_000.0, 1e6], 10_000.0, 0.05, 1e-3)).all()
    assert math.isnan(usl_concurrency_at_rate(1e6, 10_000.0, 0.05, 1e-3))


def test_a_stacked_curve_keeps_its_record_past_each_prefix():
    from anfperf.models.curves.blend import CANDIDATES
    from anfperf.models.curves.selection import (
        mixed_predictions,
        prequential_errors,
        prequential_predictions,
    )

    depth, iops = fio_qd_sweep()
    n, x = depth[:8], iops[:8]  # QD 1..16 of the recorded sweep
    fit = fit_throughput_curve(n, x)
    own = {k: prequential_predictions(n, x, *CANDIDATES[k]) for k in fit.fits}
    mix = mixed_predictions(own, fit.weights)
    np.testing.assert_allclose(fit.prequential, mix)
    # where a candidate gave nothing, the others' weights carry the mix alone
    gap = {**own, "mva": np.full_like(own["mva"], np.nan)}
    only = {k: v for k, v in fit.weights.items() if k != "mva"}
    total = sum(only.values())
    expected = sum(w / total * own[k] for k, w in only.items())
    np.testing.assert_allclose(mixed_predictions(gap, fit.weights), expected)
    # row 0 is the fit to QD 1..3: every later point, at its depth over 3, and its log error
    ratio, err = prequential_errors(n, x, fit.prequential)
    np.testing.assert_allclose(ratio[: n.size - 3], n[3:] / 3.0)
    np.testing.assert_allclose(err[: n.size - 3], np.log(x[3:] / fit.prequential[0, 3:]))
    assert ratio.size == sum(range(1, n.size - 2))  # (n - 3) + (n - 4) + ... + 1


def _differenced(model, at, params):
    """Central differences of `model(at, *params)` in each parameter: (len(at), len(params))."""
    columns = []
    for i, p in enumerate(params):
        step = np.zeros(len(params))
        step[i] = 1e-6 * abs(p)
        up, down = (np.asarray(model(at, *(params + sign * step)), float) for sign in (1, -1))
        columns.append((up - down) / (2 * step[i]))
    return np.column_stack(columns)


def test_the_fits_jacobians_are_the_models_derivatives():
    """The USL, queueing and MVA fits hand the solver their Jacobians (no differencing): each
    agrees with differences of its model, also where Little's law caps the latency."""
    from anfperf.models.curves.mva import _mva_slopes, mva_throughput
    from anfperf.models.curves.queueing import _queueing_jacobian
    from anfperf.models.curves.usl import _usl_model

    for kappa in (None, 0.0):
        model, jac, _ = _usl_model(20000.0, kappa)
        params = np.array([0.9, 0.05, 5e-4][: 3 if kappa is None else 2])
        assert np.allclose(jac(N, *params), _differenced(model, N, params), rtol=1e-6)
    load = np.array([1e3, 2e4, 4e4, 5e4])
    for outstanding in (None, 8.0):

        def latency(x, s, m, k, cap=outstanding):
            return queueing_latency(x, s * 0.3, m * 5e4, k, cap)

        params = np.array([0.9, 1.3, 2.5])
        want = _differenced(latency, load, params)
        got = _queueing_jacobian(load, *params, 5e4, 0.3, outstanding)
        assert np.allclose(got, want, rtol=1e-6)
        assert (outstanding is None) == bool(np.all(got[-1] != 0))  # capped at 5e4: flat
    depths = np.array([1.0, 2.0, 3.5, 8.0, 16.0, 40.0])
    want = _differenced(mva_throughput, depths, np.array([0.05, 0.4]))
    assert np.allclose(_mva_slopes(depths, 0.05, 0.4), want, rtol=1e-6)
