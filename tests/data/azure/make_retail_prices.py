"""Write retail_prices_anf_vm.json: two pages of the Azure Retail Prices API, one after the other.

NOT A CAPTURE: a fixture with decoys around real names. The real ANF items are in
tests/data/azure_recorded/anf_retail_prices_2026-01_eastus_eastus2_westeurope.json (PROVENANCE.md);
this file adds what they do not show together with VM items: an older price, a second tier,
another region, a Reservation and a meter the reader does not know. It is built by the API's
item schema (the fields and envelope of the real page p01 of ../shared/corpus/azure:
currencyCode, tierMinimumUnits, retailPrice, unitPrice, armRegionName, location,
effectiveStartDate, meterId, meterName, productId, skuId, productName, skuName, serviceName,
serviceId, serviceFamily, unitOfMeasure, type, isPrimaryMeterRegion, armSkuName). The ANF
meter names, skuNames and units are the recorded ones ('Flexible Service Level Throughput
MiBps' per '1/Hour'); prices are eastus's, except Flexible's, which are illustrative. The
unknown meter, 'Elastic Zone Redundant Storage Capacity', is a name third-party docs list
that the recorded rows do not hold. The VM items follow p01's real ones (Linux has no suffix in
productName, Windows has ' Windows'; Spot and Low Priority in skuName; Reservation prices
are totals per term). Decoys a reader must leave out: Windows, Spot, DevTestConsumption,
Reservation, a second tier, another region, an older start date, double encryption.

Run from the repository root: python tests/data/azure/make_retail_prices.py
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

OUT = Path(__file__).with_name("retail_prices_anf_vm.json")


def _item(service, product, sku, meter, unit, price, region="eastus", kind="Consumption",
          arm_sku="", start="2024-08-01T00:00:00Z", tier=0.0, **extra):  # fmt: skip
    n = zlib.crc32(repr((service, product, sku, meter, region, kind, start, tier)).encode())
    return {
        "currencyCode": "USD",
        "tierMinimumUnits": tier,
        "retailPrice": price,
        "unitPrice": price,
        "armRegionName": region,
        "location": {"eastus": "US East", "westus2": "US West 2"}[region],
        "effectiveStartDate": start,
        "meterId": f"00000000-0000-0000-0000-{n:012d}",
        "meterName": meter,
        "productId": "DZH318Z0BQ3Z" if service == "Azure NetApp Files" else "DZH318Z0BQ4Z",
        "skuId": f"DZH318Z0BQ3Z/{n % 10**4:04d}",
        "productName": product,
        "skuName": sku,
        "serviceName": service,
        "serviceId": "DZH317WT4ZQR" if service == "Azure NetApp Files" else "DZH313Z7MMC8",
        "serviceFamily": "Storage" if service == "Azure NetApp Files" else "Compute",
        "unitOfMeasure": unit,
        "type": kind,
        "isPrimaryMeterRegion": True,
        "armSkuName": arm_sku,
        **extra,
    }


ANF = "Azure NetApp Files"
VM = "Virtual Machines"


def anf_items() -> list[dict]:
    return [
        _item(ANF, ANF, "Standard", "Standard Capacity", "1 GiB/Hour", 0.000202),
        _item(ANF, ANF, "Premium", "Premium Capacity", "1 GiB/Hour", 0.000403),
        _item(ANF, ANF, "Ultra", "Ultra Capacity", "1 GiB/Hour", 0.000538),
        # an older Ultra price: the latest start date applies
        _item(
            ANF,
            ANF,
            "Ultra",
            "Ultra Capacity",
            "1 GiB/Hour",
            0.000600,
            start="2021-03-01T00:00:00Z",
        ),
        _item(
            ANF,
            ANF,
            "Flexible Service Level",
            "Flexible Service Level Capacity",
            "1 GiB/Hour",
            0.000180,
        ),
        _item(
            ANF,
            ANF,
            "Flexible Service Level",
            "Flexible Service Level Throughput MiBps",
            "1/Hour",
            0.0014,
        ),
        _item(
            ANF,
            ANF,
            "Standard Storage with Cool Access",
            "Standard Storage with Cool Access Capacity",
            "1 GiB/Hour",
            0.000082,
        ),
        _item(
            ANF,
            ANF,
            "Standard Storage with Cool Access",
            "Standard Storage with Cool Access Data Transfer",
            "1 GiB",
            0.02,
        ),
        _item(
            ANF,
            ANF,
            "Premium Double Encrypted",
            "Premium Double Encrypted Capacity",
            "1 GiB/Hour",
            0.00048,
        ),
        _item(
            ANF,
            ANF,
            "Elastic Zone Redundant Storage",
            "Elastic Zone Redundant Storage Capacity",
            "1 GiB/Hour",
            0.0004,
        ),
        _item(ANF, ANF, "Premium", "Premium Capacity", "1 GiB/Hour", 0.000300, tier=102400.0),
        _item(ANF, ANF, "Premium", "Premium Capacity", "1 GiB/Hour", 0.000450, region="westus2"),
        _item(
            ANF,
            ANF,
            "Premium",
            "Premium Capacity",
            "1 GiB/Month",
            180.0,
            kind="Reservation",
            reservationTerm="1 Year",
        ),
    ]


def vm_items() -> list[dict]:
    linux = {  # size: (series, USD per hour)
        "Standard_D8ds_v4": ("Ddsv4", 0.452), "Standard_D16s_v5": ("Dsv5", 0.768),
        "Standard_D32s_v3": ("DSv3", 1.536), "Standard_D32s_v4": ("Dsv4", 1.536),
        "Standard_D32s_v5": ("Dsv5", 1.536), "Standard_E32s_v5": ("Esv5", 2.016),
        "Standard_D64s_v5": ("Dsv5", 3.072), "Standard_E104id_v5": ("Edv5", 7.62),
    }  # fmt: skip
    items = []
    for size, (series, price) in linux.items():
        short = size.removeprefix("Standard_").replace("_", " ")
        product = f"Virtual Machines {series} Series"
        items.append(_item(VM, product, size, short, "1 Hour", price, arm_sku=size))
        items.append(_item(VM, product + " Windows", size, short, "1 Hour", price * 1.84,
                           arm_sku=size))  # fmt: skip
    d16 = "Standard_D16s_v5"
    items += [
        _item(VM, "Virtual Machines Dsv5 Series", f"{d16} Spot", "D16s v5 Spot", "1 Hour",
              0.0768, arm_sku=d16),
        _item(VM, "Virtual Machines Dsv5 Series", d16, "D16s v5", "1 Hour", 0.4,
              kind="DevTestConsumption", arm_sku=d16),
        _item(VM, "Virtual Machines Dsv5 Series", d16, "D16s v5", "1 Hour", 4036,
              kind="Reservation", arm_sku=d16, reservationTerm="1 Year"),
        _item(VM, "Virtual Machines Dsv5 Series", d16, "D16s v5", "1 Hour", 0.8, region="westus2",
              arm_sku=d16),
    ]  # fmt: skip
    return items


def page(items: list[dict], next_link: str | None) -> dict:
    return {"BillingCurrency": "USD", "CustomerEntityId": "Default",
            "CustomerEntityType": "Retail", "Items": items, "NextPageLink": next_link,
            "Count": len(items)}  # fmt: skip


def main() -> None:
    first = page(anf_items(), "https://prices.azure.com:443/api/retail/prices?$skip=100")
    second = page(vm_items(), None)
    # two pages one after the other, as `curl ... >> file` for each page leaves them
    OUT.write_text(json.dumps(first, indent=2) + "\n" + json.dumps(second, indent=2) + "\n")


if __name__ == "__main__":
    main()
