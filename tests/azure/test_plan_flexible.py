"""``anfperf plan --volume`` of a volume in a Flexible pool: the volume is planned as it is.

Edited copies of the REST API's own examples (tests/data/azure_recorded/PROVENANCE.md): a
2025-06-01 volume moved into the Flexible pool of the 2025-07-01-preview pools list.
"""

from __future__ import annotations

import json

import pytest

from anfperf.azure import read_volume
from anfperf.cli import main
from tests.conftest import TESTS

RECORDED = TESTS / "data" / "azure_recorded"
ALONE = RECORDED / "anf_flexible_volume_200_edited.json"
WITH_POOL = RECORDED / "anf_2025-07-01-preview_flexible_pool_and_volume_edited.json"


@pytest.mark.parametrize("price", [[], ["--price", "Flexible=0.0002"]])
def test_a_flexible_volume_is_planned_at_its_own_throughput(capsys, price):
    assert read_volume(ALONE).throughput_limit_mib_s == 200.0
    assert main(["plan", "--volume", str(ALONE), "--bs-kib", "64", "--json", *price]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["volume_mib_s"] == 200.0 and data["achievable"]["bw_mib_s"] == 200.0
    assert data["volume"]["service_level"] == "Flexible"


def test_a_flexible_volume_in_its_real_pool_is_manual_qos_and_planned(capsys):
    volume = read_volume(WITH_POOL)
    assert (volume.qos_type, volume.custom_throughput_mib_s) == ("manual", 128.0)
    assert main(["plan", "--volume", str(WITH_POOL), "--bs-kib", "64"]) == 0
    out = capsys.readouterr().out
    assert "Flexible" in out and "100 MiB/s" in out and "ranked only with prices" not in out
