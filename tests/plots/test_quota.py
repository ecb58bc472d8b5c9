"""The bandwidth-quota chart: model lines from anfperf.models.quota, the verdict from findings."""

from __future__ import annotations

import numpy as np
import pytest

from anfperf import findings
from anfperf.errors import AnfperfError
from anfperf.models import quota as q
from anfperf.plots.quota import quota_model


def test_lines_caps_and_operating_point_follow_the_model():
    fig = quota_model(
        quota_tib=4, level="Premium", bs_kib=64, read_pct=0, measured_bw_mib_s=200.0,
        measured_label="run / job",
    )  # fmt: skip
    lines = {t.name.split(" (")[0]: t for t in fig.data}
    for level in ("Standard", "Premium", "Ultra"):
        x = np.asarray(lines[level].x)
        assert list(lines[level].y) == pytest.approx(list(q.throughput_limit(x, level)))
    flexible = lines["Flexible"]
    assert list(flexible.y) == pytest.approx(list(q.pool_throughput_limit(flexible.x, "Flexible")))
    caps = sorted(s.y0 for s in fig.layout.shapes if s.y0 == s.y1)
    assert caps == [q.volume_type_cap("Standard"), q.volume_type_cap("Premium")]
    point = lines["run / job"]
    assert (point.x[0], point.y[0]) == (4, 200.0)
    check = findings.quota_check(200.0, bs_kib=64, level="Premium", quota_tib=4, read_pct=0)
    assert check["binding"] == "volume quota" and check["predicted_bw_mib_s"] == 256.0
    assert f"binding: {check['binding']}" in fig.layout.title.text
    assert "measured 78 % of it" in fig.layout.title.text
    assert fig.layout.xaxis.title.text == "Volume quota [TiB]"
    assert fig.layout.yaxis.title.text == "Throughput [MiB/s]"


def test_the_cap_binds_on_a_large_quota():
    fig = quota_model(quota_tib=90, level="Premium", bs_kib=64, measured_bw_mib_s=4000.0)
    assert "binding: volume type cap" in fig.layout.title.text


def test_a_quota_outside_the_volume_range_is_an_error():
    with pytest.raises(AnfperfError, match="outside the regular range"):
        quota_model(quota_tib=500, level="Premium", bs_kib=64)
