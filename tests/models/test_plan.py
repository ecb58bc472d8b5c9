"""plan(): cheapest level and quota, clients and threads, with reasons; `anfperf plan`."""

from __future__ import annotations

import pytest

from anfperf.cli import main
from anfperf.errors import ModelError
from anfperf.models import plan, threads_needed


def test_4500_mib_s_sequential_reads():
    result = plan(bw_mib_s=4500, bs_kib=64, lat_slo_ms=2, pattern="sequential")
    # the least quota reaching 4,500 MiB/s: Ultra 35.16 TiB (Premium needs 70.31 TiB)
    assert (result.level, result.volume_type) == ("Ultra", "regular")
    assert result.quota_tib == 35.15625
    assert result.iops == 72_000
    assert result.outstanding == threads_needed(72_000, 2.0) == 144
    assert result.vm_count * result.threads_per_vm >= result.outstanding
    steps = list(result.reasoning["step"])
    assert steps == ["target", "storage", "latency", "outstanding I/O", "clients", "threads per VM"]
    options = result.storage_options.set_index(["level", "volume_type"])
    assert options.loc[("Premium", "regular"), "quota_tib"] == 70.3125
    assert not options.loc[("Standard", "regular"), "feasible"]  # above its 1,600 cap


def test_capacity_makes_the_lowest_level_cheapest_without_prices():
    result = plan(bw_mib_s=1000, bs_kib=64, capacity_tib=100)
    assert (result.level, result.quota_tib) == ("Standard", 100)


def test_prices_rank_by_monthly_cost():
    prices = {"Standard": 0.000202, "Premium": 0.000403, "Ultra": 0.000538}
    result = plan(bw_mib_s=1000, bs_kib=64, prices=prices, levels=["Standard", "Premium", "Ultra"])
    costs = result.storage_options.dropna(subset=["cost_usd_month"])
    assert result.level == "Ultra"  # 7.8 TiB Ultra costs less than 15.6 Premium / 62.5 Standard
    assert costs["cost_usd_month"].is_monotonic_increasing
    # 1000 / 128 = 7.8125 TiB of quota, paid as an 8 TiB pool (whole TiB steps)
    assert costs.iloc[0]["pool_tib"] == 8
    assert costs.iloc[0]["cost_usd_month"] == pytest.approx(8 * 1024 * 0.000538 * 730)


def test_a_pool_is_whole_steps_and_at_least_the_smallest():
    from anfperf.models.limits.plan import pool_size_tib

    assert [pool_size_tib(t) for t in (0.05, 1, 1.0000000001, 3.125, 15.625, 16)] == [
        1, 1, 1, 4, 16, 16]  # fmt: skip


def test_random_writes_need_the_egress_and_nfs_limits_respected():
    result = plan(iops=400_000, bs_kib=8, read_pct=0, lat_ms=2.0, pattern="random", nconnect=1)
    assert result.outstanding == 800
    # one NFSv3 connection per VM carries 128 in flight: 800 need 7 VMs at least
    assert result.vm_count >= 7
    assert result.threads_per_vm <= 128
    # 400,000 8 KiB writes are above what one regular volume was seen to do (~130,000 IOPS)
    assert result.volume_type == "large"


def test_unreachable_targets_and_bad_input():
    with pytest.raises(ModelError, match="no service level"):
        plan(bw_mib_s=20_000, bs_kib=64)
    with pytest.raises(ModelError, match="one of them"):
        plan(bw_mib_s=1, iops=1, bs_kib=4)
    with pytest.raises(ModelError, match="one of them"):
        plan(bs_kib=4)
    with pytest.raises(ModelError, match="SLO"):
        plan(iops=90_000, bs_kib=8, lat_slo_ms=0.5, curve={"lat_min_ms": 0.2, "iops_max": 1e5})


def test_cli_plan_prints_the_reasoning(capsys):
    code = main(["plan", "--bw-mib-s", "4500", "--bs-kib", "64", "--lat-slo-ms", "2", "--all"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Ultra regular volume, 35.16 TiB" in out
    assert "Storage options (first: the plan)" in out and "Client VM sizes" in out


def test_cli_plan_reports_errors(capsys):
    assert main(["plan", "--bw-mib-s", "99999", "--bs-kib", "64"]) == 2
    assert "no service level" in capsys.readouterr().err
    assert main(["plan", "--iops", "10", "--bs-kib", "4", "--price", "Ultra"]) == 2


def test_pattern_defaults_from_block_size_so_client_ceilings_apply():
    # 4,500 MiB/s of 64 KiB reads: one D32s did ~3,500 MiB/s over nconnect (anf_facts.md), so
    # no plan may rest on a single client, stated pattern or not.
    implicit = plan(bw_mib_s=4500, bs_kib=64)
    explicit = plan(bw_mib_s=4500, bs_kib=64, pattern="sequential")
    assert (implicit.vm_size, implicit.vm_count) == (explicit.vm_size, explicit.vm_count)
    assert implicit.vm_count >= 2
    target_why = implicit.reasoning.set_index("step").loc["target", "why"]
    assert "sequential (assumed from the block size" in target_why
    small = plan(iops=100_000, bs_kib=4).reasoning.set_index("step").loc["target", "why"]
    assert "random (assumed" in small
