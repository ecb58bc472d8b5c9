"""``anfperf plan --volume FILE`` with prices: the volume's monthly cost, its pool's share.

The prices are the API's own items of eastus, eastus2 and westeurope
(tests/data/azure_recorded/anf_retail_prices_2026-01_eastus_eastus2_westeurope.json) and
tests/data/azure/retail_prices_anf_vm.json (the recorded meter names with decoys, built by
make_retail_prices.py); the volumes are real recordings (r01 of the corpus,
cli_2020-09-01_volume_show.json), the REST API's examples and edited copies
(tests/data/azure_recorded/PROVENANCE.md).
"""

from __future__ import annotations

import json

import pytest

from anfperf.azure import read_volume
from anfperf.cli import main
from anfperf.models.limits.prices import per_hour, retail_prices
from anfperf.planning.volume_cost import volume_cost_usd_month
from tests.azure.test_volume import R01, S01, corpus
from tests.conftest import TESTS

PRICES = TESTS / "data" / "azure" / "retail_prices_anf_vm.json"
RECORDED = TESTS / "data" / "azure_recorded"
FLEX_ALONE = RECORDED / "anf_flexible_volume_200_edited.json"
FLEX_POOL = RECORDED / "anf_2025-07-01-preview_flexible_pool_and_volume_edited.json"


def test_plan_volume_with_prices_prints_its_pools_share(capsys):
    premium = retail_prices(PRICES, "eastus").levels_usd_per_tib_month["Premium"]
    args = ["plan", "--volume", str(corpus(S01)), "--bs-kib", "64"]
    assert main([*args, "--prices", str(PRICES), "--region", "eastus", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cost_usd_month"] == pytest.approx(premium * 100 / 1024)  # 100 GiB of Premium
    # every ANF item of the region not read is named, never dropped silently
    assert any("'Elastic Zone Redundant Storage Capacity'" in n for n in data["notes"])
    assert any("Reservation price" in n for n in data["notes"])
    assert any(n.startswith("read, not part of a plan: double-encrypted capacity Premium")
               for n in data["notes"])  # fmt: skip
    assert main([*args, "--prices", str(PRICES), "--region", "eastus"]) == 0
    out = capsys.readouterr().out
    assert f"{premium * 100 / 1024:,.2f} USD" in out and "its pool's share" in out


def test_a_price_with_no_effect_on_the_volume_is_said_to_have_none(capsys):
    args = ["plan", "--volume", str(corpus(S01)), "--bs-kib", "64", "--json"]
    assert main([*args, "--price", "Premium=0.0004", "--price", "Ultra=0.0005"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cost_usd_month"] == pytest.approx(0.0004 * 730 * 100)
    assert "the price of Ultra has no effect: this volume is Premium" in data["notes"]
    assert main([*args, "--price", "Ultra=0.0005"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cost_usd_month"] is None
    assert any("no price of Premium capacity" in n for n in data["notes"])


def test_a_flexible_volumes_cost_needs_its_pool_for_the_throughput_share():
    prices = per_hour({"Flexible": 100.0, "Flexible throughput": 5.0})
    alone = read_volume(FLEX_ALONE)
    cost, notes = volume_cost_usd_month(alone, prices)
    assert cost is None and any("does not hold this Flexible volume's pool" in n for n in notes)
    in_pool = read_volume(FLEX_POOL)  # pool customThroughputMibps 128: the baseline, none bought
    cost, notes = volume_cost_usd_month(in_pool, prices)
    assert cost == pytest.approx(100.0 * 100 / 1024)
    bigger = in_pool.__class__(**{**in_pool.__dict__, "custom_throughput_mib_s": 228.0})
    cost, _ = volume_cost_usd_month(bigger, prices)  # 100 bought; the volume has 100 of 228
    assert cost == pytest.approx(100.0 * 100 / 1024 + 100 * (100 / 228) * 5.0)


def test_the_prices_line_of_a_plan_counts_the_anf_items_not_read():
    prices = retail_prices(PRICES, "eastus")
    assert len(prices.notes) == 4  # an unknown meter, a tier, a reservation; what is not planned
    assert prices.describe().endswith("; 3 Azure NetApp Files items not read (RetailPrices.notes "
                                      "names them)")  # fmt: skip


# ---- the API's own price items (recorded) on real volume bodies ------------------------------

REAL_PRICES = RECORDED / "anf_retail_prices_2026-01_eastus_eastus2_westeurope.json"


@pytest.mark.parametrize(
    ("name", "usd_per_gib_hour"),
    [  # r01: three real 2 TiB auto-QoS volumes in eastus2; eastus2's 'Capacity' retailPrice
        ("sjc-netapp-standard-vol", 0.000202),
        ("sjc-netapp-premium-vol", 0.000403),
        ("sjc-netapp-ultra-vol", 0.000538),
    ],
)
def test_plan_volume_costs_a_real_volume_at_its_regions_real_price(capsys, name, usd_per_gib_hour):
    args = ["plan", "--volume", str(corpus(R01)), "--volume-name", name, "--bs-kib", "64",
            "--prices", str(REAL_PRICES), "--region", "eastus2"]  # fmt: skip
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cost_usd_month"] == pytest.approx(2048 * usd_per_gib_hour * 730)
    assert not any("differ by region" in n for n in data["notes"])  # the volume is in eastus2
    assert any(n.startswith("read, not part of a plan:") for n in data["notes"])
    assert main(args) == 0
    assert f"{2048 * usd_per_gib_hour * 730:,.2f} USD" in capsys.readouterr().out


def test_plan_volume_says_when_the_prices_are_another_regions(capsys):
    # cli_2020-09-01_volume_show.json: a real Premium 100 GiB volume in centralus
    args = ["plan", "--volume", str(RECORDED / "cli_2020-09-01_volume_show.json"), "--bs-kib",
            "64", "--prices", str(REAL_PRICES), "--region", "eastus", "--json"]  # fmt: skip
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cost_usd_month"] == pytest.approx(100 * 0.000403 * 730)
    assert ("the prices are eastus's, the volume is in centralus: list prices differ by region "
            "(--region)") in data["notes"]  # fmt: skip


def test_plan_volume_costs_a_flexible_volume_with_the_real_throughput_price():
    # the real eastus Flexible items: capacity 0.000151 per GiB-hour, throughput 0.003082 per
    # MiB/s-hour ('1/Hour'); the pool bought 100 MiB/s beyond the baseline, the volume has 100
    prices = retail_prices(REAL_PRICES, "eastus").plan_prices()
    in_pool = read_volume(FLEX_POOL)
    bigger = in_pool.__class__(**{**in_pool.__dict__, "custom_throughput_mib_s": 228.0})
    cost, _ = volume_cost_usd_month(bigger, prices)
    assert cost == pytest.approx((100 * 0.000151 + 100 * (100 / 228) * 0.003082) * 730)
