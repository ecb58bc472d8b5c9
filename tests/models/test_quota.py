"""ANF throughput limits: the articles' worked numbers, caps by rule, QoS, and the tables."""

from __future__ import annotations

import pandas as pd
import pytest

from anfperf.errors import ModelError
from anfperf.models import (
    bw_to_iops,
    data_dir,
    flexible_pool_throughput,
    gib_to_tib,
    iops_to_bw,
    level_rate,
    load_table,
    manual_qos,
    mbps_to_mib_s,
    pool_throughput_limit,
    quota_needed,
    service_levels,
    throughput_limit,
    volume_limits,
    volume_type_cap,
)


def test_rates_of_the_service_levels():
    # azure-netapp-files-service-levels.md: 16 / 64 / 128 MiB/s per TiB
    assert [level_rate(x) for x in ("Standard", "Premium", "Ultra")] == [16, 64, 128]
    assert level_rate("premium") == 64  # any case
    with pytest.raises(ModelError, match="manual-QoS"):
        level_rate("Flexible")
    with pytest.raises(ModelError, match="unknown service level"):
        level_rate("Gold")


def test_100_gib_premium_is_6_25_mib_s():
    # the service-levels article: 0.09765625 TiB x 64 MiB/s = 6.25 MiB/s
    assert gib_to_tib(100) == 0.09765625
    assert throughput_limit(gib_to_tib(100), "Premium") == 6.25
    assert throughput_limit(2, "Premium") == 128  # its Example 1


def test_premium_4500_mib_s_needs_70_31_tib():
    # azure-netapp-files-performance-considerations.md: 70.31 TiB Premium reaches 4,500 MiB/s
    assert quota_needed(4500, "Premium") == 70.3125
    assert round(quota_needed(4500, "Premium"), 2) == 70.31
    assert throughput_limit(70.3125, "Premium") == 4500
    # more quota stores more but is no faster
    assert throughput_limit(100, "Premium") == 4500


def test_regular_volume_caps():
    assert volume_type_cap("Standard") == 1600
    assert volume_type_cap("Premium") == volume_type_cap("Ultra") == 4500
    assert throughput_limit(100, "Standard") == 1600
    assert throughput_limit(50, "Ultra") == 4500  # 6,400 by quota, capped
    assert quota_needed(1600, "Standard") == 100
    with pytest.raises(ModelError, match="cap"):
        quota_needed(1601, "Standard")
    with pytest.raises(ModelError, match="cap"):
        quota_needed(4501, "Ultra")


def test_large_volume_rules_are_selectable():
    # since Jul 2024: quota x rate up to 12,800 MiB/s for every level
    assert throughput_limit(100, "Ultra", "large") == 12800
    assert throughput_limit(50, "Standard", "large") == 800
    assert throughput_limit(1024, "Standard", "large") == 12800
    # Nov 2023: per-level ceilings 1,600 / 6,400 / 10,240 MiB/s, 50 .. 500 TiB
    assert throughput_limit(500, "Standard", "large", "2023-11") == 1600
    assert throughput_limit(200, "Premium", "large", "2023-11") == 6400
    assert throughput_limit(100, "Ultra", "large", "2023-11") == 10240
    # the public calculator kept 10,240 for Ultra up to 100 TiB
    assert throughput_limit(100, "Ultra", "large", "calculator") == 10240
    assert quota_needed(12800, "Ultra", "large") == 100
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(600, "Ultra", "large", "2023-11")
    with pytest.raises(ModelError, match="no large volume limits"):
        throughput_limit(100, "Ultra", "large", "before-2025")


def test_volume_size_ranges():
    assert throughput_limit(gib_to_tib(50), "Premium") == 3.125  # 50 GiB minimum today
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(gib_to_tib(50), "Premium", rule="before-2025")  # 100 GiB before 2025
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(101, "Premium")
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(40, "Premium", "large")
    with pytest.raises(ModelError, match="volume_type"):
        throughput_limit(1, "Premium", "huge")
    assert quota_needed(1, "Ultra") == gib_to_tib(50)  # never below the smallest volume


def test_manual_qos_pool_shares_size_times_rate():
    # the service-levels article: a 10 TiB Ultra pool has 1,280 MiB/s for its volumes; the
    # SAP HANA example assigns data 704 + log 256 + shared 64 + backup 256 = 1,280
    hana = {"data": 704, "log": 256, "shared": 64, "backup": 256}
    table = manual_qos(10, "Ultra", hana)
    pool = table.set_index("name").loc["pool"]
    assert pool["limit_mib_s"] == 1280 and pool["bw_mib_s"] == 1280 and pool["ok"]
    over = manual_qos(10, "Ultra", {**hana, "extra": 1})
    assert not over.set_index("name").loc["pool", "ok"]
    too_big = manual_qos(100, "Ultra", [5000])
    assert not too_big.loc[0, "ok"]  # a volume takes at most 4,500 MiB/s


def test_flexible_pools():
    # 128 MiB/s baseline per pool, up to 640 (5 x 128) MiB/s per pool TiB
    assert pool_throughput_limit(1, "Flexible") == 640
    assert pool_throughput_limit(0.1, "Flexible") == 128
    assert flexible_pool_throughput(2) == 128
    assert flexible_pool_throughput(2, purchased_mib_s=500) == 628
    with pytest.raises(ModelError, match="at most"):
        flexible_pool_throughput(1, purchased_mib_s=600)
    assert pool_throughput_limit(4, "Premium") == 256


def test_units():
    # Mbps are decimal bits, MiB binary bytes: 16,000 Mbps = 1,907.35 MiB/s
    assert mbps_to_mib_s(16000) == pytest.approx(1907.3486, abs=1e-4)
    assert round(mbps_to_mib_s(16000)) == 1907
    assert iops_to_bw(72000, 64) == 4500
    assert bw_to_iops(4500, 64) == 72000
    with pytest.raises(ModelError):
        bw_to_iops(1, 0)


@pytest.mark.parametrize(
    "name",
    [
        "service_levels",
        "volume_limits",
        "vm_network",
        "nfs_client",
        "anf_benchmarks",
        "cool_access",
    ],
)
def test_every_table_row_cites_an_article(name):
    table = load_table(name)
    assert not table.empty
    assert table["source"].notna().all()
    articles = table["source"].str.endswith(".md")
    # only the public calculator is a web tool without an article (and without a date)
    assert (articles | table["source"].str.contains("calculator")).all()
    dated = table.loc[articles, "date"]
    assert dated.notna().all()
    assert dated.str.fullmatch(r"\d{4}-\d{2}(-\d{2})?").all()
    assert (data_dir() / f"{name}.csv").is_file()


def test_tables_are_fresh_copies():
    a = service_levels()
    a.loc[0, "mib_s_per_tib"] = 0
    assert service_levels().loc[0, "mib_s_per_tib"] == 16
    assert isinstance(volume_limits(), pd.DataFrame)
    with pytest.raises(ModelError):
        load_table("nope")


def test_current_rules_as_the_dated_articles_state_them():
    # resource limits (2025-06-10): large volumes 50 TiB .. 1 PiB, 2 PiB on request
    assert throughput_limit(1638.4, "Ultra", "large") == 12800  # before: an error
    assert throughput_limit(2048, "Standard", "large") == 12800
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(2049, "Standard", "large")
    rows = volume_limits().set_index(["volume_type", "rule", "level"])
    assert rows.loc[("large", "current", "Ultra"), "date"] == "2025-06-10"
    assert "2 PiB on request" in rows.loc[("large", "current", "Ultra"), "note"]
    # 50 GiB minimum from the 2025 article; 100 GiB before
    assert rows.loc[("regular", "current", "Premium"), "min_tib"] == gib_to_tib(50)
    assert rows.loc[("regular", "before-2025", "Premium"), "min_tib"] == gib_to_tib(100)
    # Flexible volumes: manual QoS, up to the regular volume's 4,500 MiB/s
    assert rows.loc[("regular", "current", "Flexible"), "max_mib_s"] == 4500
    # ... and usable in predict_achievable (before: no limits row for Flexible)
    from anfperf.models.limits.predict import predict_achievable

    frame = predict_achievable(bs_kib=64, level="Flexible", manual_bw_mib_s=1000)
    assert frame.attrs["bw_mib_s"] == 1000
    with pytest.raises(ModelError, match="more than a regular Flexible volume can be given"):
        predict_achievable(bs_kib=64, level="Flexible", manual_bw_mib_s=5000)
    with pytest.raises(ModelError, match="manual-QoS level"):
        predict_achievable(bs_kib=64, level="Flexible", quota_tib=10)
