"""Every fitted curve places a workload (issue 10, section 4): plan() and predict_achievable()
take USL, MVA and blended fits as well as queueing ones; manual QoS is validated."""

from __future__ import annotations

import math
import warnings

import pytest

from anfperf.errors import ModelError
from anfperf.models import (
    fit_mva_throughput,
    fit_throughput_curve,
    fit_usl,
    mva_throughput,
    usl,
    usl_peak,
)
from anfperf.models.curves.curve_reading import curve_model, latency_at_rate_ms, rate_at
from anfperf.models.limits.plan import plan
from anfperf.models.limits.predict import predict_achievable
from tests.models.realdata import sd_count, summary_avg


@pytest.fixture(scope="module")
def sweep():
    """RndReadThreads: real Vdbench, threads 1..64 on two SDs (avg_ lines of its summary)."""
    raw = summary_avg("RndReadThreads")
    return raw["threads"] * sd_count("RndReadThreads"), raw["iops"]


@pytest.fixture(scope="module")
def fits(sweep):
    n, x = sweep
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "usl": dict(fit_usl(n, x)),
            "mva": dict(fit_mva_throughput(n, x)),
            "blend": dict(fit_throughput_curve(n, x)),
        }


@pytest.mark.parametrize("kind", ["usl", "mva", "blend"])
def test_the_latency_at_a_rate_is_littles_law_on_the_fitted_curve(fits, sweep, kind):
    params = fits[kind]
    # told apart by the parameter names their models declare in the registry
    names = {"usl": "usl", "mva": "mva_throughput", "blend": "throughput_curve"}
    assert curve_model(dict(params)).name == names[kind]
    n, x = sweep
    rate = 0.7 * float(max(x))  # a rate the sweep reached
    lat, how = latency_at_rate_ms(params, rate)
    # the concurrency behind it reaches exactly that rate on the curve: R = N / X
    n_at = lat / 1000.0 * rate
    assert rate_at(params, n_at)[0] == pytest.approx(rate, rel=1e-6)
    assert f"{kind.upper()} fit" in how and "Little's law" in how
    # and a measured point close to that rate had a latency of the same order
    assert 1 <= n_at <= float(max(n))


def test_a_rate_beyond_the_curve_is_refused_with_its_peak(fits):
    turning = {"lam": 20000.0, "sigma": 0.05, "kappa": 0.001}  # peaks at N = 30
    n_peak, peak = usl_peak(**turning)
    assert n_peak == 30
    with pytest.raises(ModelError, match=f"reaches at most {peak:,.0f} IOPS"):
        latency_at_rate_ms(turning, 1.01 * peak)
    lat, _ = latency_at_rate_ms(turning, 0.99 * peak)  # on the rising side, below the peak
    assert lat / 1000 * 0.99 * peak < n_peak
    u = fits["usl"]  # the real sweep's fit: kappa 0, an asymptote at lam / sigma
    with pytest.raises(ModelError, match="beyond the fitted curve"):
        latency_at_rate_ms(u, 1.01 * u["lam"] / u["sigma"])
    m = fits["mva"]
    ceiling = 1000.0 / m["demand_ms"]
    with pytest.raises(ModelError, match="beyond the fitted curve"):
        latency_at_rate_ms(m, 1.01 * ceiling)
    assert rate_at(m, 10)[0] == pytest.approx(float(mva_throughput(10, **m)))
    with pytest.raises(ModelError, match="parameters of a fit"):
        curve_model({"a": 1.0})


def test_plan_takes_every_fitted_curve(fits, sweep):
    _, x = sweep
    target = 0.5 * float(max(x))
    for kind, params in fits.items():
        # before: "curve must be a queueing fit" for all of these
        result = plan(bs_kib=4, iops=target, curve=params, pattern="random", levels=("Ultra",))
        expected, _ = latency_at_rate_ms(params, target)
        assert result.lat_ms == pytest.approx(expected), kind
        assert result.iops >= target


def test_predict_achievable_takes_throughput_fits(fits):
    u = fits["usl"]
    frame = predict_achievable(bs_kib=4, outstanding=16, curve=u)
    row = frame.set_index("constraint").loc["Little's law (configured concurrency)"]
    assert row["iops"] == pytest.approx(float(usl(16, u["lam"], u["sigma"], u["kappa"])))
    m = fits["mva"]
    frame = predict_achievable(bs_kib=4, outstanding=16, curve=m)
    row = frame.set_index("constraint").loc["Little's law (configured concurrency)"]
    assert row["iops"] == pytest.approx(float(mva_throughput(16, **m)))
    assert "MVA fit: X(16)" in row["detail"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-5, "must be a positive finite number, got -5"),
        (math.nan, "must be a positive finite number, got nan"),
        (math.inf, "must be a positive finite number"),
        (6000, "6,000 MiB/s is more than a regular Ultra volume can be given \\(4,500 MiB/s\\)"),
    ],
)
def test_manual_qos_is_validated(value, message):
    # before: -5 MiB/s came back as the answer, NaN was ignored, 6,000 was accepted
    with pytest.raises(ModelError, match=message):
        predict_achievable(bs_kib=64, level="Ultra", manual_bw_mib_s=value)
    ok = predict_achievable(bs_kib=64, level="Ultra", manual_bw_mib_s=4000)
    assert ok.attrs["bw_mib_s"] == 4000
