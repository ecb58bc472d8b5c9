"""How anfperf writes a number for people (anfperf.values.format_number), the one rule of the
plan's text, its cards, the report tables and the planning charts' labels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anfperf.report import page
from anfperf.values import format_number, format_quota


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        # small throughputs keep their decimals: a 100 GiB Premium volume is 6.25 MiB/s (6.4
        # in Azure's 2021-2022 numbers), never "6"
        (6.25, "6.25"), (6.4, "6.4"), (5.9127, "5.91"), (0.0488, "0.0488"),
        # large ones stay grouped and whole digits are never cut
        (4500.0, "4,500"), (12800, "12,800"), (1891.7, "1,892"), (476.837158, "477"),
        (np.float64(6.25), "6.25"), (np.int64(64), "64"), (0, "0"), (-2.5, "-2.5"),
        (math.nan, ""), (math.inf, "no limit"),
    ],
)  # fmt: skip
def test_small_numbers_keep_their_decimals_large_ones_are_grouped(value, shown):
    assert format_number(value) == shown
    assert page.format_number(value) == shown  # the reports' tables use the same rule


def test_a_size_below_a_tib_is_written_in_gib_as_azure_shows_it():
    assert format_quota(100 / 1024) == "100 GiB"
    assert format_quota(0.5) == "512 GiB"
    assert format_quota(2) == "2 TiB" and format_quota(1) == "1 TiB"
    assert format_quota(12.5) == "12.5 TiB" and format_quota(1_000) == "1,000 TiB"
    # a size to buy is rounded up: 15.62 TiB x 64 MiB/s per TiB would fall short of 1,000 MiB/s
    assert format_quota(15.625) == "15.63 TiB" and format_quota(31.25) == "31.25 TiB"
    assert format_quota(0.0488281) == "50 GiB"


def test_a_size_in_a_formula_is_written_exactly():
    assert format_quota(100 / 1024, exact=True) == "100 GiB"
    assert format_quota(35.15625, exact=True) == "35.1562 TiB"
    assert format_quota(4, exact=True) == "4 TiB"
