"""Volume and pool settings read from every volume/pool file of ../shared/corpus/azure.

Expected values are read by hand from the files themselves (PROVENANCE.md there says what each
is): r01 and r02 are real captures, s01..s06 the REST API specification's own examples.
"""

from __future__ import annotations

import warnings

import pytest

from anfperf.azure import read_pool, read_pools, read_resources, read_volume, read_volumes
from anfperf.errors import ParseError
from anfperf.models.limits.predict import predict_achievable
from tests.conftest import CORPUS, require_corpus

AZURE = CORPUS / "azure"
TIB = 2**40


def corpus(name: str):
    return require_corpus(AZURE / name)


R01 = "r01_samcofer_az_resource_show_2024-03.txt"
R02 = "r02_samcofer_az_netappfiles_list_2023-08.md"
S01 = "s01_anf_2025-06-01_Volumes_Get.json"
S02 = "s02_anf_2025-06-01_Volumes_List.json"
S03 = "s03_anf_2025-06-01_Pools_Get.json"
S04 = "s04_anf_2025-06-01_Pools_Get_CustomThroughput.json"
S05 = "s05_anf_2025-07-01-preview_Pools_List.json"
S06 = "s06_anf_2025-06-01_VolumeGroups_Get_SapHana.json"


def test_resource_show_sections_2024_layout_throughput_null_and_actual():
    # 24 'Resource: NAME (TYPE)' sections, one without JSON; auto QoS in actualThroughputMibps
    path = corpus(R01)
    types = [r.type for r in read_resources(path)]
    assert len(types) == 23 and types.count("Microsoft.NetApp/netAppAccounts/capacityPools") == 3
    volumes = read_volumes(path)
    assert [v.name for v in volumes] == [
        "sjc-netapp-premium-vol", "sjc-netapp-standard-vol", "sjc-netapp-ultra-vol",
    ]  # fmt: skip
    assert [v.service_level for v in volumes] == ["Premium", "Standard", "Ultra"]
    assert [v.throughput_mib_s for v in volumes] == [None, None, None]
    assert [v.actual_throughput_mib_s for v in volumes] == [128.0, 32.0, 256.0]
    assert [v.throughput_limit_mib_s for v in volumes] == [128.0, 32.0, 256.0]
    assert [v.pool_total_throughput_mib_s for v in volumes] == [128.0, 32.0, 256.0]
    for v in volumes:
        assert v.quota_tib == 2199023255552 / TIB == 2.0
        assert (v.region, v.qos_type, v.pool_size_tib) == ("eastus2", "auto", 2.0)
        assert (v.is_large_volume, v.cool_access, v.notes) == (False, False, ())
    premium = read_volume(path, name="sjc-netapp-premium-vol")
    assert premium.pool_name == "sjc-netapp-premium-pool"
    assert premium.resource_name == (
        "sjc-perf-test-us-east-2/sjc-netapp-premium-pool/sjc-netapp-premium-vol"
    )


def test_markdown_transcript_crlf_2023_layout_throughput_in_throughputmibps():
    # PowerShell prompts before each az output, CRLF, a '[root@host ...]#' prompt line that is
    # not JSON; the 2023 CLI put auto-QoS throughput in throughputMibps (no actual...)
    path = corpus(R02)
    assert b"\r\n" in path.read_bytes()
    volumes = read_volumes(path)
    assert [v.name for v in volumes] == [
        "sjc-test-ultra-vol", "sjc-test-prem-vol", "sjc-test-standard-vol",
    ]  # fmt: skip
    assert [v.throughput_mib_s for v in volumes] == [256.0, 128.0, 32.0]
    assert [v.actual_throughput_mib_s for v in volumes] == [None, None, None]
    assert [v.throughput_limit_mib_s for v in volumes] == [256.0, 128.0, 32.0]
    for v in volumes:
        assert (v.quota_tib, v.region, v.qos_type, v.pool_size_tib) == (2.0, "eastus2", "auto", 2.0)
        assert (v.is_large_volume, v.cool_access) == (None, False)  # no isLargeVolume in 2023
    pools = read_pools(path)
    assert [(p.name, p.service_level, p.total_throughput_mib_s) for p in pools] == [
        ("sjc-test-prem", "Premium", 128.0),
        ("sjc-test-standard", "Standard", 32.0),
        ("sjc-test-ultra", "Ultra", 256.0),
    ]


@pytest.mark.parametrize("name", [S01, S02])
def test_rest_example_volume_needs_a_manual_qos_pool_and_says_so(name):
    path = corpus(name)
    with pytest.warns(UserWarning, match=r"s0[12]_.*100 GiB with 128 MiB/s is only possible on "
                      r"a manual-QoS pool \(auto QoS gives 6.25 MiB/s\)"):  # fmt: skip
        volume = read_volume(path)
    assert (volume.name, volume.pool_name, volume.region) == ("volume1", "pool1", "eastus")
    assert volume.quota_tib == 107374182400 / TIB
    assert (volume.service_level, volume.throughput_mib_s, volume.throughput_limit_mib_s) == (
        "Premium", 128.0, 128.0,
    )  # fmt: skip
    assert (volume.qos_type, volume.is_large_volume, volume.cool_access) == (None, None, None)
    assert len(volume.notes) == 1 and str(path) in volume.notes[0]


def test_volume_with_its_manual_pool_agrees_and_with_an_auto_pool_is_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # s03's own decimal-TB total (tested below)
        volume = read_volume(corpus(S01), pool_path=corpus(S03))
    assert (volume.qos_type, volume.pool_size_tib, volume.notes) == ("manual", 4.0, ())
    assert volume.pool_total_throughput_mib_s == 281.474
    # s05's pool1 is auto QoS: 128 MiB/s on 100 GiB Premium cannot be
    with pytest.raises(ParseError, match=r"s01_.*only possible on a manual-QoS pool.*pool1 is "
                       "auto QoS") as caught, warnings.catch_warnings():  # fmt: skip
        warnings.simplefilter("ignore")
        read_volume(corpus(S01), pool_path=corpus(S05))
    assert "\n" not in str(caught.value)


def test_pool_examples_manual_flexible_and_auto():
    with pytest.warns(UserWarning, match=r"s03_.*totalThroughputMibps 281.474 is not 4 TiB x "
                      "the Premium rate = 256 MiB/s"):  # fmt: skip
        pool = read_pool(corpus(S03))
    assert (pool.name, pool.service_level, pool.qos_type, pool.size_tib) == (
        "pool1", "Premium", "manual", 4398046511104 / TIB,
    )  # fmt: skip
    assert (pool.total_throughput_mib_s, pool.utilized_throughput_mib_s) == (281.474, 100.47)
    flexible = read_pool(corpus(S04))
    assert (flexible.name, flexible.service_level, flexible.qos_type) == (
        "customPool1", "Flexible", "manual",
    )  # fmt: skip
    assert (flexible.custom_throughput_mib_s, flexible.total_throughput_mib_s) == (128.0, 128.0)
    assert flexible.notes == ()
    with pytest.raises(ParseError, match=r"s05_.*2 pools in it \(pool1, customPool1\)"), \
            pytest.warns(UserWarning, match="s05_"):  # fmt: skip
        read_pool(corpus(S05))
    with pytest.warns(UserWarning, match="s05_"):
        auto = read_pool(corpus(S05), name="pool1")
    assert (auto.qos_type, auto.total_throughput_mib_s, auto.size_tib) == ("auto", 281.474, 4.0)
    with pytest.warns(UserWarning, match="s05_"):  # pool1 of the same file
        flexible = read_pool(corpus(S05), name="account1/customPool1")
    assert flexible.custom_throughput_mib_s == 128.0


def test_volume_group_volumes():
    with pytest.warns(UserWarning, match="100 GiB with 10 MiB/s is only possible"):
        volumes = read_volumes(corpus(S06))
    assert [v.name for v in volumes] == [
        "test-data-mnt00001", "test-log-mnt00001", "test-shared", "test-data-backup",
        "test-log-backup",
    ]  # fmt: skip
    for v in volumes:
        assert (v.service_level, v.quota_tib, v.throughput_limit_mib_s) == (
            "Premium", 100 / 1024, 10.0,
        )  # fmt: skip
        assert v.region == "eastus"  # the group's: nested volumes have no location


@pytest.mark.parametrize(
    ("name", "holds"),
    [
        ("m01_monitor_2024-02-01_GetMetric.json", "Microsoft.Insights/metrics"),
        ("p01_joelverhagen_retail_prices_2022-06-06_page0.json", "(no type)"),
        (S03, "Microsoft.NetApp/netAppAccounts/capacityPools"),
    ],
)
def test_a_file_of_other_resources_is_a_one_line_error_naming_it(name, holds):
    path = corpus(name)
    with pytest.raises(ParseError) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_volume(path)
    assert str(caught.value) == f"{path}: no NetApp volume in it (it holds {holds})"


def test_pool_reader_refuses_a_volume_file():
    with pytest.raises(ParseError, match=r"s01_.*no NetApp capacity pool in it \(it holds "
                       r"Microsoft.NetApp/netAppAccounts/capacityPools/volumes\)"):  # fmt: skip
        read_pool(corpus(S01))


def test_malformed_truncated_and_damaged_sections_name_file_and_line(tmp_path):
    text = corpus(S01).read_text()
    truncated = tmp_path / "truncated.json"
    truncated.write_text(text[: len(text) // 2])
    with pytest.raises(ParseError, match=r"truncated.json:\d+: truncated JSON") as caught:
        read_volume(truncated)
    assert "\n" not in str(caught.value)
    malformed = tmp_path / "malformed.json"
    malformed.write_text(text.replace('"serviceLevel": "Premium",', '"serviceLevel": "Premium"'))
    with pytest.raises(ParseError, match=r"malformed.json:24: malformed JSON: Expecting ','"):
        read_volume(malformed)
    # a Resource: section cut short in the middle of the real capture
    sections = corpus(R01).read_text()
    cut = sections.index('"throughputMibps": null')
    damaged = tmp_path / "sections.txt"
    damaged.write_text(sections[:cut] + "\nResource: next (Microsoft.Network/x)\n{}\n")
    with pytest.raises(ParseError, match=r"sections.txt:\d+: malformed JSON"):
        read_volumes(damaged)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ParseError, match="binary.json: not UTF-8"):
        read_volume(binary)
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(ParseError, match="empty.json: no JSON document in it"):
        read_volume(empty)


def test_a_volume_without_level_or_with_a_bad_quota_is_named(tmp_path):
    text = corpus(S01).read_text()
    nolevel = tmp_path / "nolevel.json"
    nolevel.write_text(text.replace('"serviceLevel": "Premium",', ""))
    with pytest.raises(ParseError, match="nolevel.json:1: account1/pool1/volume1: no serviceLevel"):
        read_volume(nolevel)
    badquota = tmp_path / "badquota.json"
    badquota.write_text(text.replace("107374182400", '"100 GiB"'))
    with pytest.raises(ParseError, match="usageThreshold '100 GiB' is not a number"):
        read_volume(badquota)


def test_model_args_feed_predict_achievable():
    # auto QoS: the model's own quota x rate (2 TiB x 64 = 128) binds
    premium = read_volume(corpus(R01), name="sjc-netapp-premium-vol")
    assert premium.model_args() == {
        "level": "Premium", "volume_type": "regular", "cool_access": False, "quota_tib": 2.0,
    }  # fmt: skip
    frame = predict_achievable(bs_kib=64, **premium.model_args())
    assert (frame.attrs["binding"], frame.attrs["bw_mib_s"]) == ("volume quota", 128.0)
    # QoS not given, 128 MiB/s as Azure reports it: the assigned throughput binds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        manual = read_volume(corpus(S01))
    frame = predict_achievable(bs_kib=64, **manual.model_args())
    assert frame.attrs["bw_mib_s"] == 128.0
    assert frame.attrs["binding"] == "volume throughput (manual QoS)"
    assert premium.label == "sjc-netapp-premium-vol (Premium, 2 TiB, 128 MiB/s)"


def test_a_large_volume_below_the_large_sizes_is_named(tmp_path):
    # no large volume in the corpus: s01 (100 GiB) with isLargeVolume true, as the documented
    # schema has it; large volumes start at 50 TiB
    path = tmp_path / "large.json"
    path.write_text(corpus(S01).read_text().replace('"serviceLevel"', '"isLargeVolume": true,\n'
                                                    '          "serviceLevel"'))  # fmt: skip
    with pytest.warns(UserWarning) as said:
        volume = read_volume(path)
    assert (volume.is_large_volume, volume.volume_type) == (True, "large")
    messages = [str(w.message) for w in said]
    assert any(m.startswith(f"{path}:1: account1/pool1/volume1: quota_tib 0.09765625 outside "
                            "the large volume range 50 .. 2048 TiB") for m in messages)  # fmt: skip
    assert volume.throughput_limit_mib_s == 128.0  # as Azure reports it, not guessed
