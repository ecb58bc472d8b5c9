"""List prices from files of the Azure Retail Prices API (anfperf.models.limits.prices).

Two inputs:

- the corpus' real page ``p01`` (read in place from ../shared/corpus/azure/): Virtual Machines
  items only, no Azure NetApp Files item;
- tests/data/azure_recorded/anf_retail_prices_2026-01_eastus_eastus2_westeurope.json: real items of
  the API (every ANF meter of eastus and westeurope, as Microsoft's ANF calculator saved them,
  PROVENANCE.md);
- tests/data/azure/retail_prices_anf_vm.json, NOT A CAPTURE: the recorded meter names with
  decoys the recorded rows do not show (make_retail_prices.py beside it: Windows, Spot,
  DevTest, Reservation, a second tier, another region, an older price, an unknown meter).
"""

from __future__ import annotations

import json
import math

import pytest

from anfperf.errors import AnfperfError, ParseError
from anfperf.models.limits.prices import hours_per_month, read_retail_prices, retail_prices
from tests.conftest import CORPUS as SHARED
from tests.conftest import DATA, require_corpus

CORPUS = SHARED / "azure"
P01 = CORPUS / "p01_joelverhagen_retail_prices_2022-06-06_page0.json"
BUILT = DATA / "azure" / "retail_prices_anf_vm.json"
REAL = DATA / "azure_recorded" / "anf_retail_prices_2026-01_eastus_eastus2_westeurope.json"


@pytest.fixture(autouse=True)
def _corpus():
    require_corpus(CORPUS)  # skipped outside CI without ../shared/corpus, failed in CI


def test_hours_per_month_is_azures_figure():
    assert hours_per_month() == 730.0


def test_the_real_page_reads_every_item_with_its_own_values():
    items = read_retail_prices(P01)
    assert len(items) == json.loads(P01.read_text())["Count"] == 100
    assert set(items["currencyCode"]) == {"USD"}
    d16 = items[(items["armSkuName"] == "Standard_D16s_v5") & (items["type"] == "Consumption")]
    assert d16[["armRegionName", "productName", "retailPrice"]].values.tolist() == [
        ["eastus2", "Virtual Machines Dsv5 Series Windows", 1.504]
    ]


def test_a_linux_list_price_becomes_usd_per_vm_month_and_reservations_are_left_out():
    # usgovarizona D64s v4: Consumption 3.872 per hour; Reservation 20012 (1 Year) and 38667
    # (3 Years) are totals per term although unitOfMeasure says '1 Hour'
    prices = retail_prices(P01, "usgovarizona")
    assert prices.vms_usd_per_month == {"Standard_D64s_v4": pytest.approx(3.872 * 730)}
    assert prices.levels_usd_per_tib_month == {}  # the page has no ANF item
    assert math.isnan(prices.flexible_throughput_usd_per_mib_s_month)
    # westus2 D64ds v5: 3.616 per hour, Linux (no ' Windows' suffix), its Reservations out
    assert retail_prices(P01, "West US 2").vms_usd_per_month == {
        "Standard_D64ds_v5": pytest.approx(2639.68)
    }


def test_windows_spot_and_devtest_prices_are_not_a_linux_clients_price():
    # eastus2 has D16s v5 only as Windows Consumption 1.504 and DevTestConsumption 0.768
    assert retail_prices(P01, "eastus2").vms_usd_per_month == {}
    # southindia: D14 Spot only
    assert retail_prices(P01, "southindia").vms_usd_per_month == {}


def test_anf_capacity_throughput_cool_tier_and_vms_of_a_region():
    prices = retail_prices(BUILT, "eastus")
    # USD per GiB-hour x 1024 GiB x 730 h; Ultra's 2021 price (0.000600) gave way to 0.000538;
    # Premium's second tier, double encryption, Reservation and westus2 are left out
    assert prices.levels_usd_per_tib_month == {
        "Standard": pytest.approx(0.000202 * 1024 * 730),
        "Premium": pytest.approx(301.25056),
        "Ultra": pytest.approx(0.000538 * 1024 * 730),
        "Flexible": pytest.approx(0.000180 * 1024 * 730),
    }
    assert prices.flexible_throughput_usd_per_mib_s_month == pytest.approx(0.0014 * 730)
    assert prices.cool_usd_per_tib_month == pytest.approx(0.000082 * 1024 * 730)
    # Linux Consumption only: D16s v5 0.768 (not Spot 0.0768, DevTest 0.4, Windows, westus2)
    assert prices.vms_usd_per_month["Standard_D16s_v5"] == pytest.approx(560.64)
    assert len(prices.vms_usd_per_month) == 8
    # the planner's units: USD per GiB-hour and per VM-hour again
    assert prices.plan_prices()["Premium"] == pytest.approx(0.000403)
    assert prices.plan_prices()["Flexible throughput"] == pytest.approx(0.0014)
    assert prices.vm_prices()["Standard_D32s_v5"] == pytest.approx(1.536)


# ---- the API's own items (recorded) -------------------------------------------------------


@pytest.mark.parametrize(
    ("region", "per_gib_hour", "flexible_per_mib_s_hour"),
    [
        # retailPrice of each level's 'Capacity' item, '1 GiB/Hour'; Flexible throughput '1/Hour'
        ("eastus", {"Standard": 0.000202, "Premium": 0.000403, "Ultra": 0.000538,
                    "Flexible": 0.000151}, 0.003082),
        ("westeurope", {"Standard": 0.000202, "Premium": 0.000403, "Ultra": 0.000538,
                        "Flexible": 0.000216}, 0.004407),
    ],
)  # fmt: skip
def test_real_items_read_to_usd_per_tib_month_per_level(
    region, per_gib_hour, flexible_per_mib_s_hour
):
    prices = retail_prices(REAL, region)
    assert prices.levels_usd_per_tib_month == {
        level: pytest.approx(price * 1024 * 730) for level, price in per_gib_hour.items()
    }
    assert list(prices.levels_usd_per_tib_month) == ["Standard", "Premium", "Ultra", "Flexible"]
    # 'Flexible Service Level Throughput MiBps' is priced '1/Hour': one MiB/s for an hour
    assert prices.flexible_throughput_usd_per_mib_s_month == pytest.approx(
        flexible_per_mib_s_hour * 730
    )
    assert prices.plan_prices()["Flexible throughput"] == pytest.approx(flexible_per_mib_s_hour)
    assert prices.vms_usd_per_month == {}  # the calculator saved ANF items only


def test_every_real_anf_meter_is_understood_and_the_rest_read_not_planned():
    prices = retail_prices(REAL, "eastus")
    assert prices.cool_usd_per_tib_month == pytest.approx(0.000082 * 1024 * 730)
    assert prices.cool_transfer_usd_per_gib == pytest.approx(0.02)  # '1 GiB': once
    assert prices.backup_usd_per_gib_month == pytest.approx(0.05)  # '1 GiB/Month'
    assert prices.restore_usd_per_gib == pytest.approx(0.02)  # '1 GiB': once
    assert prices.double_encrypted_usd_per_tib_month == {
        "Standard": pytest.approx(0.00024 * 1024 * 730),
        "Premium": pytest.approx(0.00048 * 1024 * 730),
        "Ultra": pytest.approx(0.00065 * 1024 * 730),
    }
    # replication: the unit says '1 GiB/Hour' but the price is per GiB replicated (0.12, not
    # 0.12 x 730); both spellings ('Cross Region Replication - A to B', 'CRR - A to B') and
    # the region's own meter, per schedule
    replication = prices.replication_usd_per_gib
    assert replication["any region, hours"] == pytest.approx(0.12)
    assert replication["any region, minutes"] == pytest.approx(0.14)
    assert replication["US East to US West 3, days"] == pytest.approx(0.1265)
    assert replication["US East to US North Central, minutes"] == pytest.approx(0.16)  # CRR -
    assert len(replication) == 24
    # 36 items of eastus: none unknown, none a reservation or a tier: one note, of what was
    # read but is not part of a plan
    items = read_retail_prices(REAL)
    assert (items["armRegionName"] == "eastus").sum() == 36
    assert len(prices.items) == 36
    (note,) = prices.notes
    assert note.startswith("read, not part of a plan: double-encrypted capacity Standard 179.40")
    assert "cross-region replication 0.11 to 0.161 USD per GiB replicated (24 " in note
    assert "not read" not in prices.describe()


def test_a_real_item_renamed_is_named_in_a_note_not_guessed(tmp_path):
    page = json.loads(REAL.read_text())
    for item in page["Items"]:
        if item["meterName"] == "Premium Capacity":
            item["meterName"] = "Premium Capacity v2"
    renamed = tmp_path / "renamed.json"
    renamed.write_text(json.dumps(page))
    prices = retail_prices(renamed, "eastus")
    assert "Premium" not in prices.levels_usd_per_tib_month
    assert any("'Premium Capacity v2' (Premium, 1 GiB/Hour, Consumption) left out: a meter "
               "this reader does not know" in note for note in prices.notes)  # fmt: skip
    assert "1 Azure NetApp Files item not read" in prices.describe()


def test_the_regionless_reservation_item_of_the_real_file_is_no_regions_price():
    # 'Azure NetApp Files Reservation', armRegionName '', 0.0: in no region
    items = read_retail_prices(REAL)
    odd = items[items["productName"] == "Azure NetApp Files Reservation"]
    assert odd[["armRegionName", "meterName", "retailPrice"]].values.tolist() == [
        ["", "Standard Capacity", 0.0]
    ]
    assert retail_prices(REAL, "eastus").levels_usd_per_tib_month["Standard"] > 0


def test_several_files_and_a_list_of_pages(tmp_path):
    both = retail_prices([P01, BUILT], "eastus")
    assert both.files == (str(P01), str(BUILT))
    assert both.levels_usd_per_tib_month["Ultra"] == pytest.approx(402.16576)
    text = BUILT.read_text()
    decoder = json.JSONDecoder()
    first, end = decoder.raw_decode(text)
    second, _ = decoder.raw_decode(text, end + 1)
    listed = tmp_path / "pages.json"
    listed.write_text(json.dumps([first, second]))
    assert retail_prices(listed, "eastus").vms_usd_per_month == both.vms_usd_per_month


def test_a_truncated_file_is_named_with_its_line(tmp_path):
    cut = tmp_path / "cut.json"
    cut.write_bytes(P01.read_bytes()[:5000])
    with pytest.raises(ParseError, match=r"cut\.json:\d+: not JSON of the Azure Retail Prices"):
        read_retail_prices(cut)


def test_a_volume_json_is_not_a_prices_file():
    volume = CORPUS / "s01_anf_2025-06-01_Volumes_Get.json"
    with pytest.raises(ParseError, match=r"s01_anf_2025-06-01_Volumes_Get\.json: page 0 has no "
                       r"'Items' list \(parameters, responses"):  # fmt: skip
        read_retail_prices(volume)


def test_an_item_without_a_price_is_named(tmp_path):
    page = json.loads(P01.read_text())
    page["Items"][7]["retailPrice"] = "0.1"
    del page["Items"][9]["unitOfMeasure"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(page))
    with pytest.raises(ParseError, match=r"bad\.json: item 7 .*retailPrice '0.1' is not a number"):
        read_retail_prices(bad)
    page["Items"][7]["retailPrice"] = 0.1
    bad.write_text(json.dumps(page))
    with pytest.raises(ParseError, match=r"bad\.json: item 9 .*has no unitOfMeasure"):
        read_retail_prices(bad)


def test_another_currency_and_an_unknown_unit_are_refused(tmp_path):
    page = json.loads(P01.read_text())
    for item in page["Items"]:
        item["currencyCode"] = "EUR"
    eur = tmp_path / "eur.json"
    eur.write_text(json.dumps(page))
    with pytest.raises(ParseError, match=r"eur\.json: item \d+ .* is in EUR; anfperf plans in USD"):
        retail_prices(eur, "usgovarizona")
    text = BUILT.read_text().replace('"1/Hour"', '"1 GB"')
    odd = tmp_path / "odd.json"
    odd.write_text(text)
    with pytest.raises(ParseError, match=r"odd\.json: item 5 \('Flexible Service Level "
                       r"Throughput MiBps'\): unitOfMeasure '1 GB' is not per mib/s"):  # fmt: skip
        retail_prices(odd, "eastus")


def test_a_region_without_prices_lists_those_present():
    with pytest.raises(AnfperfError, match=r"no price in region 'mars' in .*p01.*; its regions: "
                       r"australiaeast, australiasoutheast"):  # fmt: skip
        retail_prices(P01, "mars")
