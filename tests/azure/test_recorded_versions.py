"""Real volume and pool bodies of API versions 2021-10-01 to 2023-05-01-preview.

Recorded by the Azure CLI's and the Python SDK's test suites against live subscriptions
(``tests/data/azure_recorded``, PROVENANCE.md there). Each expected limit is Azure's rule worked
out by hand from the body in the comment beside it: auto QoS is quota x level rate (Premium
64 MiB/s per TiB), manual QoS is the volume's ``throughputMibps``.
"""

from __future__ import annotations

import json
import warnings

import pytest

from anfperf.azure import read_pool, read_volume, read_volumes
from anfperf.cli import main
from anfperf.models.limits.predict import predict_achievable
from tests.conftest import DATA

RECORDED = DATA / "azure_recorded"
CLI_2021_VOLUME = RECORDED / "cli_2021-10-01_volume_show.json"
CLI_2021_POOL = RECORDED / "cli_2021-10-01_pool_show.json"
PY_2022_VOLUME = RECORDED / "py_2022-01-01_volume_get.json"
PY_2022_POOL = RECORDED / "py_2022-01-01_pool_get.json"
PY_2023_VOLUME = RECORDED / "py_2023-05-01-preview_volume_get.json"
PY_2023_MANUAL_POOL = RECORDED / "py_2023-05-01-preview_manual_pool_get.json"
CLI_2021_STANDARD = RECORDED / "cli_2021-10-01_standard_volume_show.json"
VOLUME_GROUP = RECORDED / "cli_2021-10-01_volume_group_show.json"
GIB = 2**30
TIB = 2**40


def _read(path, **kwargs):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        volume = read_volume(path, **kwargs)
    return volume, [str(w.message) for w in said]


def _plan_json(capsys, path, *args: str) -> dict:
    code = main(["plan", "--volume", str(path), *args, "--bs-kib", "64", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


@pytest.mark.parametrize(
    ("path", "name", "level", "quota_gib", "limit", "given", "actual"),
    [
        # 2021-10-01, March 2022: 100 GiB Premium, throughputMibps 6.4 = 100 / 1,000 x 64
        # (the service counted 1,000 GiB to the TiB then); Azure enforces 6.4
        (CLI_2021_VOLUME, "cli-vol-000004", "Premium", 100, 6.4, 6.4, None),
        # 2021-10-01, March 2022: 200 GiB Standard, throughputMibps 3.2 = 200 / 1,000 x 16
        (CLI_2021_STANDARD, "cli-vol-000004", "Standard", 200, 3.2, 3.2, None),
        # 2022-01-01, May 2022: 100 GiB Premium, throughputMibps 6.25 = 100 / 1,024 x 64
        (PY_2022_VOLUME, "sdk-py-tests-vol-1", "Premium", 100, 6.25, 6.25, None),
        # 2023-05-01-preview, December 2023: no throughputMibps at all, actualThroughputMibps
        # 6.25 = 100 / 1,024 x 64; isLargeVolume false
        (PY_2023_VOLUME, "sdk-py-tests-vol-3-84d7262b", "Premium", 100, 6.25, None, 6.25),
    ],
)  # fmt: skip
def test_a_real_auto_qos_body_gives_azures_limit(
    capsys, path, name, level, quota_gib, limit, given, actual
):
    volume, said = _read(path)
    assert (volume.name, volume.service_level, volume.quota_tib) == (name, level, quota_gib / 1024)
    assert (volume.throughput_mib_s, volume.actual_throughput_mib_s) == (given, actual)
    assert volume.throughput_limit_mib_s == limit
    assert volume.limit_qos is None  # auto QoS gives the number; the file holds no pool
    assert not any("manual-QoS" in s for s in said)
    rule_1000 = limit in (6.4, 3.2)
    assert (len(said) == 1 and "1,000 GiB to the TiB" in said[0]) if rule_1000 else not said
    data = _plan_json(capsys, path)
    assert data["volume_mib_s"] == limit
    assert "volume throughput (manual QoS)" not in [r["constraint"] for r in data["constraints"]]


def test_the_2023_body_without_throughput_mibps_is_a_regular_volume():
    volume, _ = _read(PY_2023_VOLUME)
    assert (volume.is_large_volume, volume.cool_access, volume.volume_type) == (
        False, False, "regular",
    )  # fmt: skip
    assert volume.region == "westus2"


@pytest.mark.parametrize(
    ("volume_path", "pool_path", "total", "limit", "rule_1000"),
    [
        # 4 TiB Premium auto pool: 4,096 GiB / 1,000 x 64 = 262.144; its volume 6.4
        (CLI_2021_VOLUME, CLI_2021_POOL, 262.144, 6.4, True),
        # 4 TiB Premium auto pool: 4 x 64 = 256; its volume 100 / 1,024 x 64 = 6.25
        (PY_2022_VOLUME, PY_2022_POOL, 256.0, 6.25, False),
    ],
)  # fmt: skip
def test_a_real_volume_with_its_real_auto_pool(volume_path, pool_path, total, limit, rule_1000):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        pool = read_pool(pool_path)
    assert (pool.qos_type, pool.size_tib, pool.total_throughput_mib_s) == ("auto", 4.0, total)
    assert bool(pool.notes) == rule_1000
    volume, said = _read(volume_path, pool_path=pool_path)
    assert (volume.qos_type, volume.pool_size_tib, volume.pool_total_throughput_mib_s) == (
        "auto", 4.0, total,
    )  # fmt: skip
    assert volume.throughput_limit_mib_s == limit
    assert not any("manual-QoS" in s for s in said)
    frame = predict_achievable(bs_kib=64, **volume.model_args())
    assert frame.attrs["bw_mib_s"] == pytest.approx(limit)


def test_a_real_manual_pool_of_another_account_is_not_the_volumes_pool():
    # 2023-05-01-preview: the pool 'sdk-py-tests-pool-1' made Manual QoS, 4 TiB Premium, its
    # totalThroughputMibps 256 = 4 x 64; account 'sdk-py-tests-acc-1-8b424c8', not the
    # 2022 volume's 'sdk-py-tests-acc-1' (the same pool name)
    pool = read_pool(PY_2023_MANUAL_POOL)
    assert (pool.qos_type, pool.size_tib, pool.total_throughput_mib_s, pool.notes) == (
        "manual", 4.0, 256.0, (),
    )  # fmt: skip
    assert pool.utilized_throughput_mib_s == 0.0
    volume, said = _read(PY_2022_VOLUME, pool_path=PY_2023_MANUAL_POOL)
    assert (volume.qos_type, volume.pool_size_tib, volume.throughput_limit_mib_s) == (
        None, None, 6.25,
    )  # fmt: skip
    assert not said


# A SAP HANA volume group (api-version 2021-10-01, March 2022): five Premium volumes of one
# manual-QoS pool, each with the throughput the group assigned. Auto QoS would give
# quota / 1,024 x 64: 1,024 GiB -> 64, 250 -> 15.625, 512 -> 32, 150 -> 9.375, 100 -> 6.25.
GROUP_VOLUMES = [
    ("CLI-shared", 1024, 64.0, None),  # 1 TiB x 64 = 64: auto QoS gives it too
    ("CLI-data-backup", 250, 128.0, "manual"),
    ("CLI-log-backup", 512, 250.0, "manual"),
    ("CLI-data-mnt00001", 150, 400.0, "manual"),
    ("CLI-log-mnt00001", 100, 250.0, "manual"),
]


def test_a_real_volume_groups_volumes_are_read_with_their_assigned_throughput():
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        volumes = read_volumes(VOLUME_GROUP)
    assert [(v.name, v.quota_tib * 1024, v.throughput_limit_mib_s, v.limit_qos)
            for v in volumes] == [(n, q, mib_s, qos) for n, q, mib_s, qos in GROUP_VOLUMES]  # fmt: skip
    assert {(v.region, v.pool_name, v.service_level) for v in volumes} == {
        ("northeurope", "cli-pool-000002", "Premium"),
    }  # fmt: skip
    messages = [str(w.message) for w in said]
    assert len(messages) == 4  # one per volume auto QoS cannot give; CLI-shared is silent
    assert any("a Premium volume of 150 GiB with 400 MiB/s is only possible on a manual-QoS "
               "pool (auto QoS gives 9.375 MiB/s)" in m for m in messages)  # fmt: skip


@pytest.mark.parametrize(("name", "quota_gib", "mib_s", "qos"), GROUP_VOLUMES)
def test_plan_gives_a_group_volume_its_assigned_throughput(capsys, name, quota_gib, mib_s, qos):
    data = _plan_json(capsys, VOLUME_GROUP, "--volume-name", name)
    assert data["volume_mib_s"] == mib_s
    names = [r["constraint"] for r in data["constraints"]]
    assert ("volume throughput (manual QoS)" in names) == (qos == "manual")
