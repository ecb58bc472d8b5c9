"""predict_achievable: every constraint listed, the least binds."""

from __future__ import annotations

import pytest

from anfperf.analysis.sweep import sweep_xy
from anfperf.errors import ModelError
from anfperf.ingest import read_vdbench
from anfperf.models import (
    fit_queueing_latency,
    fit_usl,
    mbps_to_mib_s,
    predict_achievable,
    queueing_latency,
    usl,
)
from anfperf.models.limits.predict import CONSTRAINT_COLUMNS, littles_law_iops
from tests.models.realdata import vdbench_dir


def test_quota_binds_a_50_tib_premium_volume():
    frame = predict_achievable(
        bs_kib=64, level="Premium", quota_tib=50, pattern="sequential",
        vm_size="D32s_v5", vm_count=2, nconnect=8, outstanding=64, lat_ms=2.0,
    )  # fmt: skip
    assert list(frame.columns) == CONSTRAINT_COLUMNS
    by = frame.set_index("constraint")
    assert by.loc["volume quota", "bw_mib_s"] == 3200  # 50 TiB x 64 MiB/s
    assert by.loc["volume type cap", "bw_mib_s"] == 4500
    assert by.loc["published volume benchmark", "bw_mib_s"] == 4500
    assert by.loc["Little's law (configured concurrency)", "iops"] == pytest.approx(64_000)
    assert frame["binding"].sum() == 1
    assert frame.attrs["binding"] == "volume quota"
    assert frame.attrs["bw_mib_s"] == 3200 and frame.attrs["iops"] == 51200


def test_vm_egress_binds_writes_from_one_d32s():
    # the benchmark article's D32s client topped out at ~1,500 MiB/s of writes: egress-bound
    frame = predict_achievable(
        bs_kib=64, read_pct=0, level="Ultra", quota_tib=50, vm_size="D32s_v3"
    )
    assert frame.attrs["binding"] == "client network egress"
    assert frame.attrs["bw_mib_s"] == pytest.approx(mbps_to_mib_s(16000))


def test_published_sweep_binds_sequential_writes_of_a_regular_volume():
    # ~1,600 MiB/s pure sequential writes is all one regular volume was seen to do
    frame = predict_achievable(
        bs_kib=64, read_pct=0, level="Ultra", quota_tib=50, vm_size="D32s_v3", vm_count=2,
        pattern="sequential",
    )  # fmt: skip
    assert frame.attrs["binding"] == "published volume benchmark"
    assert frame.attrs["bw_mib_s"] == pytest.approx(1600)
    assert frame.set_index("constraint").loc["published volume benchmark", "kind"] == "observed"


def test_littles_law_binds_low_concurrency():
    frame = predict_achievable(bs_kib=4, level="Ultra", quota_tib=100, outstanding=8, lat_ms=0.5)
    assert frame.attrs["binding"] == "Little's law (configured concurrency)"
    assert frame.attrs["iops"] == pytest.approx(16_000)


def test_nfs_in_flight_limit_caps_the_configured_concurrency():
    frame = predict_achievable(bs_kib=4, outstanding=500, lat_ms=1.0, nconnect=1)
    row = frame.set_index("constraint").loc["Little's law (configured concurrency)"]
    assert row["iops"] == pytest.approx(128_000)  # 128 per NFSv3 connection
    assert "allows 128" in row["detail"]


def test_little_law_through_a_usl_fitted_to_a_real_sweep():
    fit = fit_usl(*sweep_xy(read_vdbench(vdbench_dir("RndReadThreads"))))
    frame = predict_achievable(bs_kib=4, outstanding=48, curve=fit, nconnect=1)
    assert frame.attrs["iops"] == pytest.approx(usl(48, **fit))


def test_little_law_through_a_queueing_curve_fitted_to_a_real_run():
    fit = fit_queueing_latency(
        *sweep_xy(read_vdbench(vdbench_dir("RndReadCurve")), "iops", "lat_mean_ms")
    )
    iops, how = littles_law_iops(16, curve=fit)
    # the rate whose latency keeps exactly 16 I/Os in flight
    assert iops * queueing_latency(iops, **fit) / 1000 == pytest.approx(16)
    assert "queueing fit" in how


def test_bad_prediction_input():
    with pytest.raises(ModelError, match="nothing to predict"):
        predict_achievable(bs_kib=4)
    with pytest.raises(ModelError):
        predict_achievable(bs_kib=0, level="Ultra", quota_tib=1)
    with pytest.raises(ModelError, match="outside"):
        predict_achievable(bs_kib=4, level="Ultra", quota_tib=500)
    with pytest.raises(ModelError, match="curve"):
        littles_law_iops(4, curve={"a": 1})
    with pytest.raises(ModelError):
        littles_law_iops(4)


def test_one_quota_scenario_for_the_prediction_the_clients_the_check_and_the_chart():
    import dataclasses

    from anfperf.analysis.findings import quota_check
    from anfperf.models import QuotaScenario, client_constraints
    from anfperf.plots import quota_model

    scenario = QuotaScenario(bs_kib=64, read_pct=0, level="Premium", quota_tib=50,
                             pattern="sequential", vm_size="D8ds_v4", vm_count=2)  # fmt: skip
    with pytest.raises(dataclasses.FrozenInstanceError):
        scenario.quota_tib = 4  # a value: built once, passed whole
    # taken whole, or as its fields: the same numbers
    fields = dataclasses.asdict(scenario)
    whole, spelt = predict_achievable(scenario), predict_achievable(**fields)
    assert whole.equals(spelt) and whole.attrs == spelt.attrs
    assert whole.attrs["binding"] == "client network egress"
    egress = whole.set_index("constraint").loc["client network egress", "bw_mib_s"]
    clients = client_constraints(scenario).set_index("constraint")
    assert clients.loc["client network egress", "bw_mib_s"] == egress
    assert client_constraints("D8ds_v4", 2, bs_kib=64, read_pct=0).equals(
        client_constraints(scenario, pattern=None)
    )
    check = quota_check(100.0, scenario)
    assert (check["binding"], check["predicted_bw_mib_s"]) == ("client network egress", egress)
    assert check["share_pct"] == pytest.approx(100.0 * 100.0 / egress)
    title = quota_model(scenario, measured_bw_mib_s=100.0).layout.title.text
    assert "binding: client network egress" in title and f"({check['detail']})" in title
    # a field changed for one call only; the scenario stays as it was
    more = predict_achievable(scenario, vm_count=8)
    assert more.set_index("constraint").loc["client network egress", "bw_mib_s"] == 4 * egress
    assert scenario.vm_count == 2


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"bs_kib": 0}, "bs_kib must be > 0"),
        ({"bs_kib": 4, "read_pct": 101}, "read_pct must be within 0 .. 100"),
        ({"bs_kib": 4, "vm_count": 0}, "vm_count must be an integer >= 1, got 0"),
        ({"bs_kib": 4, "vm_count": 1.5}, "vm_count must be an integer >= 1, got 1.5"),
    ],
)
def test_a_quota_scenario_is_checked_once_when_built(fields, match):
    from anfperf.models import QuotaScenario

    with pytest.raises(ModelError, match=match):
        QuotaScenario(**fields)
    with pytest.raises(ModelError, match=match):
        predict_achievable(**fields, level="Ultra", quota_tib=1)
