"""The Vdbench modules pass frozen records, not string-keyed dicts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anfperf.ingest.vdbench import _flatfile_rows, _parse_flatfile
from anfperf.ingest.vdbench_companions import load_companions
from anfperf.ingest.vdbench_records import Measures, WideRows

RNDMIX = Path(__file__).resolve().parents[1] / "data" / "vdbench" / "RndMix" / "flatfile.html"


def test_flatfile_rows_are_a_frozen_record_of_the_file():
    data = RNDMIX.read_bytes()
    table = _parse_flatfile(data, str(RNDMIX))
    wide = _flatfile_rows(table, load_companions(RNDMIX), str(RNDMIX))
    assert isinstance(wide, WideRows) and isinstance(wide.read, Measures)
    with pytest.raises(dataclasses.FrozenInstanceError):
        wide.host = "other"  # type: ignore[misc]
    assert wide.n == len(table)
    np.testing.assert_array_equal(wide.total.iops, table["rate"].to_numpy(dtype=float))
    # raw I/O: the read share of the total is the observed read%
    expect = table["rate"].to_numpy(dtype=float) * table["read%"].to_numpy(dtype=float) / 100
    np.testing.assert_allclose(wide.read.iops, expect)
    summary = pd.Series(wide.is_summary)
    assert summary.sum() == table["interval"].astype(str).str.startswith("avg_").sum()
    assert wide.instances.names == list(dict.fromkeys(table["run"].astype(str)))
