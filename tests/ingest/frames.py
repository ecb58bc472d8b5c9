"""Comparing tidy frames exactly, latency histograms (dicts of arrays) included."""

from __future__ import annotations

import numpy as np
import pandas as pd


def assert_same_frame(left: pd.DataFrame, right: pd.DataFrame) -> None:
    """Same columns, dtypes and values bit for bit; `lat_bins` compared array by array."""
    pd.testing.assert_frame_equal(
        left.drop(columns="lat_bins"), right.drop(columns="lat_bins"), check_exact=True
    )
    for i, (a, b) in enumerate(zip(left["lat_bins"], right["lat_bins"], strict=True)):
        if a is None or b is None:
            assert a is None and b is None, f"row {i}: lat_bins {a!r} vs {b!r}"
            continue
        for key in ("ns", "count"):
            assert a[key].dtype == b[key].dtype, f"row {i}: lat_bins[{key!r}] dtype"
            assert np.array_equal(a[key], b[key]), f"row {i}: lat_bins[{key!r}] differ"
