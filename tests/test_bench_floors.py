"""The floors benchmarks/bench_models.py prints under its missed cases (issue 34, item 5): what
no model of the kind the issue names can reach on the real data of the cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks._models_mix import (
    REGULAR_LIMIT_MIB_S,
    REGULAR_MAX_IOPS,
    _calc_sweeps,
    _fio_bs_sweep,
    _learn_sweep,
    convex_floor_pct,
    cost_floor_pct,
)


def test_no_convex_mix_through_the_calculators_endpoints_is_within_3_pct_everywhere():
    x, y, _ = _calc_sweeps()["calculator 64 KiB sequential [MiB/s]"]
    median, largest = convex_floor_pct(x, y)
    assert largest == pytest.approx(3.8, abs=0.05) and largest > 3.0
    assert median < 3.0  # the median alone is not out of reach


def test_the_learn_read_sizes_admit_a_cost_model_the_forecast_does_not_choose():
    # 388,000 and 293,000 IOPS at 4 and 8 KiB (rounded) -> 3,600 and 3,500 MiB/s at 64, 256
    bs, iops = _learn_sweep("read")
    small = bs <= 8
    median, largest = cost_floor_pct(bs[small], iops[small], bs[~small], iops[~small],
                                     limit_mib_s=REGULAR_LIMIT_MIB_S,
                                     max_iops=REGULAR_MAX_IOPS["read"])  # fmt: skip
    assert largest == pytest.approx(6.2, abs=0.2) and largest < 15.0
    assert median <= largest


def test_a_sweep_whose_mib_s_falls_admits_no_cost_model():
    # the VM disk's random writes: 2,513 MiB/s at 128 KiB, 1,616 at 512 KiB
    bs, iops = _fio_bs_sweep("randwrite")
    large = bs >= 64
    assert np.max(iops * bs) > 1.5 * (iops * bs)[bs == 512][0]
    assert cost_floor_pct(bs[large], iops[large], bs[~large], iops[~large]) == (math.inf,
                                                                                math.inf)  # fmt: skip
