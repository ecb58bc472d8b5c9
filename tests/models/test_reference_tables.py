"""Reference tables, dated (issue 10, section 3): breakthrough mode, Elastic, cool access,
minimum sizes by date, and plan() reading the Flexible rows."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from anfperf.errors import ModelError
from anfperf.models import data_dir, gib_to_tib, load_table, plan, tables
from anfperf.models.limits.predict import predict_achievable, published_ceiling
from anfperf.models.limits.quota import (
    cool_access,
    cool_access_rate,
    level_rate,
    manual_qos,
    manual_qos_range_mib_s,
    pool_throughput_limit,
    quota_needed,
    service_levels,
    throughput_limit,
    volume_limits,
    volume_size_range,
    volume_type_cap,
)
from anfperf.models.tables import table_value


@pytest.fixture
def edited_tables(tmp_path, monkeypatch):
    """A copy of anfperf/data/*.csv the test may edit; anfperf reads it instead."""
    for path in data_dir().glob("*.csv"):
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.setattr(tables, "_TABLES", tmp_path)
    tables._load.cache_clear()
    yield tmp_path
    tables._load.cache_clear()


def _edit(folder, name: str, match: dict, column: str, value: object) -> None:
    path = folder / f"{name}.csv"
    table = pd.read_csv(path, dtype={"date": "string", "source": "string"})
    hit = pd.Series(True, index=table.index)
    for key, want in match.items():
        hit &= table[key] == want
    assert hit.sum() == 1
    table.loc[hit, column] = value
    table.to_csv(path, index=False)
    tables._load.cache_clear()


def test_breakthrough_mode_ceiling_is_the_stated_50_gib_s():
    # large-volumes-requirements-considerations.md (2026-02-10): 2,400 GiB .. 2,400 TiB, "up to
    # 50 GiB/s"; large-volumes.md (2025-11-11): no predefined limit
    assert throughput_limit(1000, "Ultra", "breakthrough") == 51200
    assert throughput_limit(100, "Ultra", "breakthrough") == 12800  # quota x rate below it
    assert quota_needed(51200, "Ultra", "breakthrough") == 400
    assert volume_size_range("Premium", "breakthrough") == (gib_to_tib(2400), 2400)
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(2, "Ultra", "breakthrough")  # below 2,400 GiB
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(2401, "Ultra", "breakthrough")
    with pytest.raises(ModelError, match="cap"):
        quota_needed(51201, "Ultra", "breakthrough")
    row = (
        volume_limits()
        .set_index(["volume_type", "rule", "level"])
        .loc[("breakthrough", "current", "Flexible")]
    )
    assert row["date"] == "2026-02-10" and "no predefined throughput limit" in row["note"]
    # Flexible breakthrough volumes take manual QoS up to the stated ceiling
    frame = predict_achievable(
        bs_kib=256, level="Flexible", manual_bw_mib_s=30000, volume_type="breakthrough"
    )
    assert frame.attrs["bw_mib_s"] == 30000
    with pytest.raises(ModelError, match="51,200"):
        predict_achievable(
            bs_kib=256, level="Flexible", manual_bw_mib_s=60000, volume_type="breakthrough"
        )


def test_breakthrough_mode_benchmarks_are_observations():
    # performance-large-volume-breakthrough-mode-linux.md (2025-11-05): ~50,000 MiB/s read and
    # 21,202 MiB/s write at 256 KiB; ~1,800,000 read and 994,384 write IOPS at 8 KiB
    assert published_ceiling("breakthrough", "sequential", 100, 256).bw_mib_s == pytest.approx(
        50000
    )
    assert published_ceiling("breakthrough", "sequential", 0, 256).bw_mib_s == pytest.approx(21202)
    assert published_ceiling("breakthrough", "random", 100, 8).iops == pytest.approx(1_800_000)
    assert published_ceiling("breakthrough", "random", 0, 8).iops == pytest.approx(994_384)
    frame = predict_achievable(
        bs_kib=256, level="Ultra", quota_tib=1000, volume_type="breakthrough",
        pattern="sequential",
    )  # fmt: skip
    by = frame.set_index("constraint")
    assert by.loc["volume type cap", "bw_mib_s"] == 51200
    assert by.loc["published volume benchmark", "kind"] == "observed"
    assert frame.attrs["binding"] == "published volume benchmark"


def test_plan_considers_breakthrough_mode_only_when_asked():
    with pytest.raises(ModelError, match="no service level"):
        plan(bw_mib_s=20_000, bs_kib=64, levels=["Ultra"])
    result = plan(
        bw_mib_s=20_000, bs_kib=64, levels=["Ultra"],
        volume_types=("regular", "large", "breakthrough"),
    )  # fmt: skip
    assert (result.volume_type, result.quota_tib) == ("breakthrough", 156.25)


def test_elastic_level_shares_32_mib_s_per_pool_tib():
    # azure-netapp-files-service-levels.md (2026-01-29): 32 MiB/s per TiB, pools 1 .. 128 TiB,
    # 128 TiB -> 4,096 MiB/s; volumes 1 GiB .. 16 TiB (elastic-resource-limits.md)
    assert level_rate("Elastic") == 32
    assert pool_throughput_limit(1, "Elastic") == 32
    assert pool_throughput_limit(16, "Elastic") == 512
    assert pool_throughput_limit(128, "Elastic") == 4096
    for outside in (0.5, 129):
        with pytest.raises(ModelError, match="1 .. 128 TiB"):
            pool_throughput_limit(outside, "Elastic")
    assert volume_size_range("Elastic") == (gib_to_tib(1), 16)
    assert volume_type_cap("Elastic") == 4096
    with pytest.raises(ModelError, match="share their pool"):
        throughput_limit(1, "Elastic")
    with pytest.raises(ModelError, match="share their pool"):
        predict_achievable(bs_kib=64, level="Elastic", quota_tib=1)
    row = service_levels().set_index("level").loc["Elastic"]
    assert row["qos"] == "shared" and row["date"] == "2026-01-29"
    assert pool_throughput_limit(1, "Premium") == 64  # other levels keep no pool range


def test_cool_access_rates_and_sizes():
    # manage-cool-access.md (2025-10-28): Premium 36, Ultra 68 MiB/s per TiB (64, 128 without)
    assert [cool_access_rate(x) for x in ("Standard", "Premium", "Ultra")] == [16, 36, 68]
    with pytest.raises(ModelError, match="configured"):
        cool_access_rate("Flexible")
    assert throughput_limit(10, "Premium") == 640
    assert throughput_limit(10, "Premium", cool_access=True) == 360
    assert throughput_limit(10, "Ultra", cool_access=True) == 680
    assert quota_needed(360, "Premium", cool_access=True) == 10
    # large volumes with cool access: 2,400 GiB .. 7.2 PiB (requirements 2026-02-10)
    assert throughput_limit(gib_to_tib(2400), "Ultra", "large", cool_access=True) == 159.375
    assert throughput_limit(7.2 * 1024, "Standard", "large", cool_access=True) == 12800
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(7373, "Standard", "large", cool_access=True)
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(gib_to_tib(2400), "Ultra", "large")  # 50 TiB without cool access
    frame = predict_achievable(bs_kib=64, level="Premium", quota_tib=10, cool_access=True)
    quota = frame.set_index("constraint").loc["volume quota"]
    assert quota["bw_mib_s"] == 360
    assert quota["source"] == "manage-cool-access.md (2025-10-28)"
    plain = predict_achievable(bs_kib=64, level="Premium", quota_tib=10)
    assert plain.set_index("constraint").loc["volume quota", "source"] == (
        "azure-netapp-files-service-levels.md (2026-01-29)"
    )


def test_cool_tier_observations():
    # performance-considerations-cool-access.md (2024-10-24)
    seen = cool_access().set_index("key")["value"]
    assert seen["hot_seq_read_mib_s"] == 3330 and seen["cool_seq_read_mib_s"] == 1742
    assert seen["hot_rand_read_mib_s"] == 2479 and seen["cool_rand_read_mib_s"] == 280


def test_minimum_sizes_as_the_articles_state_them_at_each_date():
    rows = volume_limits().set_index(["volume_type", "rule", "level"])
    # regular: 100 GiB in resource limits up to 2024-08-09, 50 GiB from 2024-12-31
    old = rows.loc[("regular", "before-2025", "Ultra")]
    assert old["min_tib"] == gib_to_tib(100) and old["date"] == "2024-08-09"
    assert "2024-12-31" in old["note"]
    assert rows.loc[("regular", "current", "Ultra"), "min_tib"] == gib_to_tib(50)
    # large: 102,401 GiB .. 500 TiB (resource limits 2023-09-29), 50 TiB today
    assert volume_size_range("Ultra", "large", "2023-09") == (gib_to_tib(102_401), 500)
    assert throughput_limit(gib_to_tib(102_401), "Ultra", "large", "2023-09") == 10240
    with pytest.raises(ModelError, match="outside"):
        throughput_limit(100, "Ultra", "large", "2023-09")
    assert rows.loc[("large", "2023-09", "Standard"), "date"] == "2023-09-29"
    assert volume_size_range("Ultra", "large")[0] == 50


def test_plan_reads_the_flexible_rows(edited_tables):
    prices = {"Flexible": 0.0003, "Flexible throughput": 0.01}
    default = plan(bw_mib_s=1000, bs_kib=64, levels=["Flexible"], prices=prices)
    why = default.storage_options.set_index(["level", "volume_type"]).loc[
        ("Flexible", "regular"), "why"
    ]
    assert "a Flexible regular volume takes 50 GiB .. 100 TiB and up to 4,500 MiB/s" in why
    pool_tib = 2  # 1000 / 640 MiB/s per pool TiB at most = 1.5625 TiB, in whole TiB
    cost = default.storage_options.iloc[0]["cost_usd_month"]
    assert cost == pytest.approx((pool_tib * 1024 * 0.0003 + (1000 - 128) * 0.01) * 730)
    # the Flexible rows, not Ultra's: a 2,000 MiB/s Flexible cap makes 3,000 MiB/s infeasible
    _edit(
        edited_tables,
        "volume_limits",
        {"volume_type": "regular", "rule": "current", "level": "Flexible"},
        "max_mib_s",
        2000,
    )
    with pytest.raises(ModelError, match="2000 MiB/s cap"):
        plan(bw_mib_s=3000, bs_kib=64, levels=["Flexible"], prices=prices)
    # the baseline comes from the table too
    _edit(edited_tables, "service_levels", {"level": "Flexible"}, "pool_baseline_mib_s", 256)
    again = plan(bw_mib_s=1000, bs_kib=64, levels=["Flexible"], prices=prices)
    cost = again.storage_options.iloc[0]["cost_usd_month"]
    assert cost == pytest.approx((pool_tib * 1024 * 0.0003 + (1000 - 256) * 0.01) * 730)


def test_plan_pays_pools_and_months_as_the_planning_table_says(edited_tables):
    prices = {"Ultra": 0.0005}
    row = plan(bw_mib_s=1000, bs_kib=64, levels=["Ultra"], prices=prices).storage_options.iloc[0]
    # 1000 / 128 = 7.8125 TiB in an 8 TiB pool, 730 h a month (Azure's pricing)
    assert (row["pool_tib"], row["cost_usd_month"]) == (8, pytest.approx(8 * 1024 * 0.0005 * 730))
    table = load_table("planning").set_index("key")
    assert table.loc["hours_per_month", "source"] == "Azure pricing calculator (web)"
    assert "az netappfiles pool create --size" in table.loc["pool_step_tib", "note"]
    _edit(edited_tables, "planning", {"key": "hours_per_month"}, "value", 720)
    _edit(edited_tables, "planning", {"key": "pool_step_tib"}, "value", 4)
    row = plan(bw_mib_s=1000, bs_kib=64, levels=["Ultra"], prices=prices).storage_options.iloc[0]
    assert (row["pool_tib"], row["cost_usd_month"]) == (8, pytest.approx(8 * 1024 * 0.0005 * 720))
    row = plan(bw_mib_s=1100, bs_kib=64, levels=["Ultra"], prices=prices).storage_options.iloc[0]
    assert row["pool_tib"] == 12  # 8.59 TiB in steps of 4


def test_cool_access_table_cites_dated_articles():
    table = load_table("cool_access")
    assert table["source"].str.endswith(".md").all()
    assert table["date"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert (data_dir() / "cool_access.csv").is_file()


# Item 8 of issue 11: the NFS client defaults outside models/ come from nfs_client.csv


def test_nfs_client_values_are_the_tables():
    from anfperf.models import nfs_client_value

    assert nfs_client_value("nconnect_max") == 16
    assert nfs_client_value("nconnect_recommended") == 8
    assert nfs_client_value("nfsv3_inflight_per_connection") == 128
    with pytest.raises(ModelError, match="no 'nconnect' in nfs_client.csv"):
        nfs_client_value("nconnect")


def test_planner_and_cli_take_nconnect_defaults_from_the_table(edited_tables, capsys):
    from anfperf.cli import main
    from anfperf.planning import PlanInputs, controls
    from anfperf.plots.planning import clients_vs_throughput

    assert PlanInputs(target_mib_s=1000).nconnect == 8
    _edit(edited_tables, "nfs_client", {"key": "nconnect_recommended"}, "value", 4)
    _edit(edited_tables, "nfs_client", {"key": "nconnect_max"}, "value", 12)
    inputs = PlanInputs(target_mib_s=1000)
    assert inputs.nconnect == 4
    slider = controls(inputs)["nconnect"]
    assert (slider.value, slider.min, slider.max) == (4, 1, 12)
    with pytest.raises(ModelError, match=r"nconnect must be an integer 1 \.\. 12"):
        PlanInputs(target_mib_s=1000, nconnect=16)
    fig = clients_vs_throughput("D32s_v5", 1000, bs_kib=64)
    assert "nconnect=4)" in fig.layout.title.text
    assert main(["plan", "--bw-mib-s", "1000", "--bs-kib", "64", "--all"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the reasons wrap in their column
    assert "NFSv3 nconnect=4: 512 in flight per VM" in out


# Item 8 of issue 11: the manual-QoS range of a volume is the Flexible row of volume_limits.csv


def test_manual_qos_range_is_the_flexible_row(edited_tables):
    from anfperf.plots.quota import level_line

    assert manual_qos_range_mib_s() == (1, 4500)
    assert manual_qos(100, "Ultra", [4500]).loc[0, "ok"]
    flexible = {"volume_type": "regular", "rule": "current", "level": "Flexible"}
    _edit(edited_tables, "volume_limits", flexible, "max_mib_s", 3000)
    _edit(edited_tables, "volume_limits", flexible, "min_mib_s", 2)
    assert manual_qos_range_mib_s() == (2, 3000)
    checked = manual_qos(100, "Ultra", {"big": 4500, "small": 1.5, "fits": 3000})
    by = checked.set_index("name")
    assert not by.loc["big", "ok"] and not by.loc["small", "ok"] and by.loc["fits", "ok"]
    assert by.loc["big", "reason"] == "a volume takes 2 .. 3000 MiB/s"
    assert by.loc["fits", "limit_mib_s"] == 3000
    # the quota chart's Flexible line stops at the table's maximum too
    assert level_line([1.0, 10.0], "Flexible").tolist() == [640.0, 3000.0]
    # and the planner: 3,500 MiB/s is above a Flexible regular volume's 3,000
    prices = {"Flexible": 0.0003, "Flexible throughput": 0.01}
    with pytest.raises(ModelError, match="3000 MiB/s cap"):
        plan(bw_mib_s=3500, bs_kib=64, levels=["Flexible"], prices=prices)


def test_plan_reads_its_assumptions_from_the_planning_table(edited_tables):
    # the smallest pool a Flexible plan pays for, and the latency assumed without a curve
    prices = {"Flexible": 0.0003, "Flexible throughput": 0.01}
    small = plan(bw_mib_s=200, bs_kib=64, levels=["Flexible"], prices=prices)
    cost = small.storage_options.iloc[0]["cost_usd_month"]
    assert cost == pytest.approx((1 * 1024 * 0.0003 + (200 - 128) * 0.01) * 730)  # a 1 TiB pool
    assert (
        small.lat_ms == 1.0 and "assumed" in small.reasoning.set_index("step").loc["latency", "why"]
    )
    _edit(edited_tables, "planning", {"key": "min_pool_tib"}, "value", 4)
    _edit(edited_tables, "planning", {"key": "default_lat_ms"}, "value", 2)
    edited = plan(bw_mib_s=200, bs_kib=64, levels=["Flexible"], prices=prices)
    cost = edited.storage_options.iloc[0]["cost_usd_month"]
    assert cost == pytest.approx((4 * 1024 * 0.0003 + (200 - 128) * 0.01) * 730)
    assert edited.lat_ms == 2.0  # Little's law: 3,200 IOPS x 2 ms = 6.4 in flight, not 3.2
    assert (small.outstanding, edited.outstanding) == (4, 7)
    with pytest.raises(ModelError, match="no 'nope' in planning.csv"):
        table_value("planning", "nope")


def test_the_planned_levels_are_levels_of_the_table():
    from anfperf.models.limits.quota import PLANNED_LEVELS, service_levels

    table = service_levels().drop_duplicates("level").set_index("level")
    assert set(PLANNED_LEVELS) <= set(table.index)
