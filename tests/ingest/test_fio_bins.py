"""One plat_idx_to_val for the fio JSON and log readers, matching fio's stat.c."""

from __future__ import annotations

import numpy as np

from anfperf.ingest import fio_bins, fio_log, fio_rows
from anfperf.ingest.fio_bins import PLAT_VAL, plat_idx_to_val


def test_one_definition_serves_both_readers():
    assert fio_bins.plat_idx_to_val is plat_idx_to_val  # fio JSON's histograms are read there
    assert fio_log.plat_idx_to_val is plat_idx_to_val
    assert not hasattr(fio_log, "_plat_idx_to_val") and not hasattr(fio_rows, "plat_idx_to_val")


def test_bucket_values_follow_fio():
    # below 2 * PLAT_VAL the index is the value; then the middle of each bucket, as an integer
    idx = np.array([0, 127, 128, 129, 191, 192, 1855])
    assert plat_idx_to_val(idx).tolist() == [0, 127, 129, 131, 255, 258, 17_112_760_320]
    # every value lies in its group's span and values increase with the index
    values = plat_idx_to_val(np.arange(29 * PLAT_VAL))
    assert (np.diff(values) > 0).all()
