"""forecast_mix (issue 34, item 2): a mix run with fewer I/Os in flight than its pure runs is
held by the band through Little's law; real Vdbench runs of ../shared/corpus."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from anfperf.errors import ModelError
from anfperf.ingest import read_vdbench
from anfperf.models.forecast import forecast_mix
from tests.models.realdata import vdbench_dir


def _points(*names: str):
    pts = []
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = read_vdbench(vdbench_dir(name))
        runs = frame[frame["is_summary"] & (frame["direction"] == "total")]
        pts += list(zip(runs["read_pct"], runs["bw_mib_s"], runs["outstanding"], strict=True))
    return (np.array([p[k] for p in pts], float) for k in range(3))


def test_a_mix_run_with_fewer_in_flight_than_its_pure_runs_is_inside_the_band():
    # 64 KiB sequential: reads at 40 in flight (1,448 MiB/s), writes at 52, 64 and 80
    # (2,568, 2,225, 2,391); the 50 % mix at 12 and 14 in flight: 1,422 and 1,626 MiB/s
    x, y, n = _points("SeqRead", "SeqWrite", "SeqMix")
    pure = (x == 0) | (x == 100)
    assert n[pure].tolist() == [40, 52, 64, 80] and n[~pure].tolist() == [12, 14]
    mixes = y[~pure]
    alone = forecast_mix(x[pure], y[pure], x[~pure])
    assert alone.estimate == pytest.approx([1803.9, 1803.9], abs=0.1)  # harmonic, as before
    assert alone.basis == "harmonic mix of the measured read shares"
    assert np.sum((alone.lower <= mixes) & (mixes <= alone.upper)) == 1  # 1,422 below it
    told = forecast_mix(x[pure], y[pure], x[~pure], outstanding=n[pure], at_outstanding=n[~pure])
    assert np.all((told.lower <= mixes) & (mixes <= told.upper))
    assert told.lower == pytest.approx(alone.lower * n[~pure] / 80)  # X(n) >= X(80) n / 80
    assert told.estimate == pytest.approx(alone.estimate) and told.upper == pytest.approx(
        alone.upper
    )
    assert (
        "2 of the mixes ran with 12 in flight, fewer than the 80 of the measured ones"
        in (told.notes[-1])
    )


def test_as_many_in_flight_changes_nothing_and_bad_counts_are_refused():
    x, y, n = _points("RndRead", "RndWrite", "RndMix")  # 8 KiB random: 50, 40 and 50 in flight
    pure = (x == 0) | (x == 100)
    alone = forecast_mix(x[pure], y[pure], x[~pure])
    same = forecast_mix(x[pure], y[pure], x[~pure], outstanding=n[pure], at_outstanding=50)
    assert same.lower == pytest.approx(alone.lower) and same.notes == alone.notes
    with pytest.raises(ModelError, match="one positive count per measured point"):
        forecast_mix(x[pure], y[pure], x[~pure], outstanding=[50], at_outstanding=10)
