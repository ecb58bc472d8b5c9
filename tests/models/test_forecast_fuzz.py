"""Every forecast's band holds its own estimate and stays above zero, whatever the points.

A fuzz of plausible sweeps (hypothesis, derandomized: the same examples in every run) against
the public forecasts; the failures it found are in the tests of each model with the real
data they happen on (tests/models/test_band.py, test_forecast_mix.py, test_mix_block.py).
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anfperf.errors import AnfperfError
from anfperf.models.forecast import (
    KnownLimits,
    forecast_block_size,
    forecast_latency,
    forecast_mix,
    forecast_throughput,
)
from anfperf.models.forecast.slo import (
    allowed_at_latency,
    iops_at_latency_in_flight,
    latency_at_rate_in_flight,
)

FUZZ = settings(max_examples=25, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
SCATTER = st.floats(0.0, 0.3)


def _holds(fc) -> None:
    est, low, high = (np.asarray(v, float) for v in (fc.estimate, fc.lower, fc.upper))
    given_ = np.isfinite(est)
    assert np.all(low[given_] <= est[given_] * (1 + 1e-9))
    assert np.all(est[given_] <= high[given_] * (1 + 1e-9))
    assert np.all(low[np.isfinite(low)] >= 0)


def _forecast(fn, *args, **kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    except AnfperfError:  # refused with a reason: not what this test judges
        return None


def _noisy(data, values: np.ndarray) -> np.ndarray:
    scatter = data.draw(SCATTER)
    seed = data.draw(st.integers(0, 2**16))
    return values * np.random.default_rng(seed).lognormal(0.0, scatter, values.size)


def _counts(data) -> np.ndarray:
    """4 to 7 counts in flight, doubling from 1 to 64."""
    return np.array(sorted(data.draw(st.sets(st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
                                             min_size=4, max_size=7))), float)  # fmt: skip


def _known(data, best: float) -> KnownLimits | None:
    """No limit, or one at 0.5 .. 3 x the best rate."""
    limit = data.draw(st.none() | st.floats(0.5, 3.0))
    return None if limit is None else KnownLimits.of_iops(limit * best, "fuzz")


@FUZZ
@given(data=st.data())
def test_throughput_against_concurrency(data):
    counts = _counts(data)
    half = data.draw(st.floats(1.0, 64.0))
    iops = _noisy(data, data.draw(st.floats(1e3, 1e6)) * counts / (counts + half))
    known = _known(data, iops.max())
    fc = _forecast(forecast_throughput, counts, iops, [96, 128, 512], known, draws=30)
    if fc is not None:
        _holds(fc)


@FUZZ
@given(data=st.data())
def test_the_rate_at_an_objective_and_the_latency_at_a_rate_lie_in_their_bands(data):
    # what a report states at an SLO past a sweep, and what a plan sizes threads on
    counts = _counts(data)
    half = data.draw(st.floats(1.0, 64.0))
    fall = data.draw(st.none() | st.floats(8.0, 64.0))  # over-driven: falls past a peak
    rates = data.draw(st.floats(1e3, 1e6)) * counts / (counts + half)
    iops = _noisy(data, rates if fall is None else rates * np.exp(-counts / fall))
    known = _known(data, iops.max())
    objectives = float(np.max(counts / iops)) * 1000.0 * np.array([1.1, 2.0, 5.0])
    got = _forecast(iops_at_latency_in_flight, counts, iops, objectives, known, draws=30)
    if got is not None:
        for est, low, high in zip(*got[:3], strict=True):
            least, most = allowed_at_latency(low, high, got[3])
            assert not np.isfinite(est) or least <= est * (1 + 1e-9) <= most * (1 + 2e-9)
    rate = float(iops.max()) * data.draw(st.floats(1.01, 1.5))
    got = _forecast(latency_at_rate_in_flight, counts, iops, rate, known, draws=30)
    if got is not None and np.isfinite(got[0]):
        est, fast, slow, _ = got
        assert fast <= est * (1 + 1e-9) and not est > slow * (1 + 1e-9)


@FUZZ
@given(data=st.data())
def test_latency_against_load(data):
    n = data.draw(st.integers(4, 8))
    load = np.sort(np.array(data.draw(st.lists(st.floats(1e3, 1e6), min_size=n, max_size=n))))
    lat = np.sort(_noisy(data, np.array(data.draw(st.lists(st.floats(0.1, 5.0), min_size=n,
                                                           max_size=n)))))  # fmt: skip
    fc = _forecast(forecast_latency, load, lat, np.r_[load, 2 * load[-1]], draws=30)
    if fc is not None:
        _holds(fc)


@FUZZ
@given(data=st.data())
def test_mixes_carried_to_another_count(data):
    shares = sorted(data.draw(st.sets(st.sampled_from([0, 25, 50, 75, 100]), min_size=2,
                                      max_size=4)))  # fmt: skip
    rates = np.array(data.draw(st.lists(st.floats(1e3, 1e5), min_size=len(shares),
                                        max_size=len(shares))))  # fmt: skip
    counts = data.draw(st.lists(st.sampled_from([1.0, 4.0, 16.0, 64.0]), min_size=len(shares),
                                max_size=len(shares)))  # fmt: skip
    at = data.draw(st.sampled_from([2.0, 8.0, 32.0, 256.0]))
    fc = _forecast(forecast_mix, shares, rates, [0, 33, 66, 100], outstanding=counts,
                   at_outstanding=at)  # fmt: skip
    if fc is not None:
        _holds(fc)


@FUZZ
@given(data=st.data())
def test_block_sizes_with_limits_given(data):
    sizes = np.array(sorted(data.draw(st.sets(st.sampled_from([4, 8, 16, 64, 256, 1024]),
                                              min_size=2, max_size=5))), float)  # fmt: skip
    op_us, kib_us = data.draw(st.floats(1.0, 100.0)), data.draw(st.floats(0.01, 10.0))
    iops = _noisy(data, 1e6 / (op_us + kib_us * sizes))
    caps = data.draw(
        st.fixed_dictionaries(
            {}, optional={"limit_mib_s": st.floats(1.0, 10_000.0), "max_iops": st.floats(1e3, 1e6)}
        )
    )
    fc = _forecast(forecast_block_size, sizes, iops, [1, 4, 64, 4096], **caps)
    if fc is not None:
        _holds(fc)


@FUZZ
@given(data=st.data())
def test_the_iops_at_an_objective_past_a_load_curve_lies_in_its_band(data):
    # what a report states, and its chart draws, past a load curve's latencies
    from anfperf.models.forecast.past import latency_past

    n = data.draw(st.integers(4, 8))
    top = data.draw(st.floats(1e3, 1e6))
    load = top * np.linspace(0.1, 1.0, n)
    light, reach = data.draw(st.floats(0.05, 2.0)), data.draw(st.floats(1.05, 4.0))
    lat = _noisy(data, light / (1.0 - (load / (reach * top)) ** data.draw(st.floats(1.0, 8.0))))
    limit = data.draw(st.none() | st.floats(1.1, 3.0))
    known = None if limit is None else KnownLimits.of_iops(limit * top, "fuzz")
    objective = float(lat.max()) * data.draw(st.floats(1.1, 5.0))
    past = _forecast(latency_past, load, lat, objective, known, draws=10)
    if past is None or not past.drawn:
        return
    est, least, most = past.iops_at_slo
    assert np.isnan(est) == bool(past.why)
    if np.isfinite(est):
        assert 0 <= least <= est * (1 + 1e-9) and est <= most * (1 + 1e-9)
        assert est >= load.max() * (1 - 1e-9)
    (x, y_est), (_, y_fast), (_, y_slow) = past.curves()
    both = np.isfinite(y_est) & np.isfinite(y_slow)
    assert np.all(y_fast[both] <= y_est[both] * (1 + 1e-9))
    assert np.all(y_est[both] <= y_slow[both] * (1 + 1e-9))
    assert np.all(y_slow[1:] >= y_slow[:-1])  # latency does not fall as load grows
