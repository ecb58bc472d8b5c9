"""Volumes and pools as Azure really answered (``tests/data/azure_recorded``, PROVENANCE.md there).

``cli_*`` are real bodies the Azure CLI's test suite recorded against a live subscription
(api-version 2020-09-01, January 2021); ``specs_*`` REST API examples; ``edited_*`` copies of the
real volume with one setting changed. Expected values are read from the files themselves.
"""

from __future__ import annotations

import json
import warnings

import pytest

from anfperf.azure import read_pool, read_resources, read_volume
from anfperf.cli import main
from anfperf.errors import ParseError
from anfperf.models.limits.predict import predict_achievable
from anfperf.planning.volume import plan_volume
from tests.conftest import DATA

RECORDED = DATA / "azure_recorded"
VOLUME_2020 = RECORDED / "cli_2020-09-01_volume_show.json"
POOL_2020 = RECORDED / "cli_2020-09-01_pool_show.json"
VOLUME_6_4 = RECORDED / "edited_2020-09-01_volume_6.4.json"
ACTUAL_ZERO = RECORDED / "edited_2020-09-01_volume_actual_zero.json"
TIB = 2**40


def _plan_text(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["plan", "--volume", *args, "--bs-kib", "64"])
    captured = capsys.readouterr()
    return code, " ".join(captured.out.split()), captured.err


@pytest.mark.parametrize(("path", "field"), [(VOLUME_2020, "throughputMibps"),
                                             (ACTUAL_ZERO, "actualThroughputMibps")])  # fmt: skip
def test_a_2020_09_01_volume_reporting_0_mib_s_is_quota_x_rate(capsys, path, field):
    volume = read_volume(path)
    # the real body: 'cli-acc-000002/cli-pool-000003/cli-vol-000004' at the top and a short
    # 'cli-vol-000004' under properties; the ARM name is kept
    assert volume.resource_name == "cli-acc-000002/cli-pool-000003/cli-vol-000004"
    assert (volume.name, volume.pool_name, volume.region) == (
        "cli-vol-000004", "cli-pool-000003", "centralus",
    )  # fmt: skip
    assert (volume.service_level, volume.quota_tib) == ("Premium", 107374182400 / TIB)
    assert (volume.throughput_mib_s, volume.actual_throughput_mib_s) == (None, None)
    assert volume.throughput_limit_mib_s == 6.25  # 100 GiB x 64 MiB/s per TiB
    assert any(f"{field} 0.0 is read as not reported" in n for n in volume.notes)
    assert volume.model_args()["quota_tib"] == 107374182400 / TIB
    code, out, err = _plan_text(capsys, str(path))
    assert (code, err) == (0, "")
    assert "Azure's limit 6.25 MiB/s quota x level rate" in out
    assert "achievable 6.25 MiB/s = 100 IOPS" in out
    assert "binds volume quota" in out and "manual" not in out.split("Expected")[0]


def test_azures_own_pair_6_4_mib_s_on_its_262_144_mib_s_auto_pool_is_read():
    with pytest.warns(UserWarning, match="1,000 GiB to the TiB"):
        pool = read_pool(POOL_2020)
    assert (pool.qos_type, pool.size_tib, pool.total_throughput_mib_s) == ("auto", 4.0, 262.144)
    assert len(pool.notes) == 1 and "4,096 GiB / 1,000 x the Premium rate" in pool.notes[0]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        volume = read_volume(VOLUME_6_4, pool_path=POOL_2020)
    assert (volume.qos_type, volume.pool_size_tib, volume.pool_total_throughput_mib_s) == (
        "auto", 4.0, 262.144,
    )  # fmt: skip
    assert volume.throughput_limit_mib_s == 6.4  # the number Azure enforces
    (note,) = volume.notes
    assert ("6.4 MiB/s is 100 GiB / 1,000 x the Premium rate: Azure counted 1,000 GiB to the "
            "TiB (its rule in 2021-2022; 1,024 gives 6.25 MiB/s)") in note  # fmt: skip
    assert not any("manual-QoS" in str(w.message) for w in said)
    frame = predict_achievable(bs_kib=64, **volume.model_args())
    assert (frame.attrs["binding"], frame.attrs["bw_mib_s"]) == ("Azure's limit", 6.4)
    assert "auto QoS" in frame.set_index("constraint").loc["Azure's limit", "detail"]
    # without its pool: the same number, QoS not stated
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = read_volume(VOLUME_6_4)
    assert (alone.qos_type, alone.limit_qos, alone.throughput_limit_mib_s) == (None, None, 6.4)


def _edited(tmp_path, level: str, quota_tib: float, mib_s: float, **extra) -> str:
    body = json.loads(VOLUME_2020.read_text())
    body["properties"].update(serviceLevel=level, usageThreshold=int(quota_tib * TIB),
                              throughputMibps=mib_s, **extra)  # fmt: skip
    path = tmp_path / "volume.json"
    path.write_text(json.dumps(body))
    return str(path)


@pytest.mark.parametrize(
    ("level", "quota_tib", "mib_s", "extra"),
    [
        ("Premium", 100 / 1024, 6.25, {}),
        ("Premium", 2, 72.0, {"coolAccess": True}),  # 2 TiB x 36 with cool access
        ("Standard", 10, 160.0, {}),
        ("Premium", 56.25, 3600.0, {}),
        ("Premium", 100, 4500.0, {}),  # the regular volume's cap
        ("Premium", 100, 6400.0, {"isLargeVolume": True}),
        ("Ultra", 200, 12800.0, {"isLargeVolume": True}),
    ],
)  # fmt: skip
def test_a_volume_at_the_auto_rule_without_its_pool_is_azures_limit_not_manual_qos(
    tmp_path, capsys, level, quota_tib, mib_s, extra
):
    # edited copies of the real 2020-09-01 body: the numbers auto QoS gives
    path = _edited(tmp_path, level, quota_tib, mib_s, **extra)
    volume = read_volume(path)
    assert (volume.qos_type, volume.limit_qos, volume.notes) == (None, None, ())
    args = volume.model_args()
    assert (args["manual_bw_mib_s"], args["qos_type"]) == (mib_s, None)
    code = main(["plan", "--volume", path, "--bs-kib", "1024", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["volume_mib_s"] == mib_s
    names = [row["constraint"] for row in data["constraints"]]
    assert "Azure's limit" in names and "volume throughput (manual QoS)" not in names


def test_a_number_auto_qos_cannot_give_is_still_manual_qos(tmp_path):
    # 10 MiB/s on 100 GiB Premium: neither 6.25 nor the older 6.4
    with pytest.warns(UserWarning, match="only possible on a manual-QoS pool"):
        volume = read_volume(_edited(tmp_path, "Premium", 100 / 1024, 10.0))
    assert volume.limit_qos == "manual"
    frame = predict_achievable(bs_kib=64, **volume.model_args())
    assert frame.attrs["binding"] == "volume throughput (manual QoS)"


def test_plan_prints_6_25_and_6_4_mib_s_as_they_are(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = plan_volume(read_volume(VOLUME_6_4, pool_path=POOL_2020), bs_kib=64).text()
    flat = " ".join(text.split())
    assert "Azure's limit 6.4 MiB/s throughputMibps" in flat
    assert "achievable 6.4 MiB/s = 102 IOPS" in flat
    assert "binds Azure's limit 6.4 MiB/s as Azure reports it (auto QoS)" in flat
    assert "sized for 6.4 MiB/s" in flat and "at the 6.4 MiB/s limit" in flat
    assert " 6 MiB/s" not in flat
    code, out, _ = _plan_text(capsys, str(VOLUME_2020))
    assert code == 0 and "sized for 6.25 MiB/s" in out and " 6 MiB/s" not in out


@pytest.mark.parametrize(
    ("name", "resource_name", "mib_s"),
    [
        ("specs_2019-06-01_Volumes_Get.json", "accountName/poolName/volumeName", None),
        ("edited_2020-09-01_volume_no_type.json",
         "cli-acc-000002/cli-pool-000003/cli-vol-000004", None),
        ("edited_resource_graph_volume_row.json",
         "cli-acc-000002/cli-pool-000003/cli-vol-000004", 6.25),
    ],
)  # fmt: skip
def test_bodies_without_a_type_or_with_a_lower_case_type_are_read(name, resource_name, mib_s):
    path = RECORDED / name
    volume = read_volume(path)
    assert volume.resource_name == resource_name
    assert (volume.service_level, volume.quota_tib) == ("Premium", 107374182400 / TIB)
    assert (volume.throughput_mib_s, volume.throughput_limit_mib_s) == (mib_s, 6.25)


def test_a_typeless_body_without_a_volumes_fields_is_not_a_volume(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"name": "x", "properties": {"serviceLevel": "Premium"}}))
    with pytest.raises(ParseError, match=r"no NetApp volume in it \(it holds \(no type\)\)"):
        read_volume(path)
    assert read_resources(path)[0].type == ""


def test_an_elastic_volume_is_named_as_not_supported(capsys):
    path = RECORDED / "specs_2025-09-01-preview_ElasticVolumes_Get.json"
    message = (f"{path}: an elastic volume (account1/pool1/volume1, Microsoft.NetApp/"
               "elasticAccounts/elasticCapacityPools/elasticVolumes) is not supported")  # fmt: skip
    with pytest.raises(ParseError) as caught:
        read_volume(path)
    assert str(caught.value).startswith(message)
    assert main(["plan", "--volume", str(path), "--bs-kib", "64"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_planned_volumes_small_limit_is_printed_as_it_is(capsys):
    # the smallest volume the planner buys for 6.25 MiB/s: 50 GiB Ultra, 6.25 MiB/s (not "6")
    assert main(["plan", "--bw-mib-s", "6.25", "--bs-kib", "64"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Throughput limit 6.25 MiB/s" in out
    assert "Buy an Ultra regular volume of 50 GiB (6.25 MiB/s)" in out


def test_a_resource_graph_answer_is_read_from_its_data_rows(tmp_path):
    # the edited row wrapped as `az graph query` prints it
    rows = json.loads((RECORDED / "edited_resource_graph_volume_row.json").read_text())
    path = tmp_path / "graph.json"
    path.write_text(json.dumps({"count": 1, "data": rows, "skip_token": None,
                                "total_records": 1}))  # fmt: skip
    volume = read_volume(path)
    assert (volume.name, volume.throughput_limit_mib_s, volume.limit_qos) == (
        "cli-vol-000004", 6.25, None,
    )  # fmt: skip
