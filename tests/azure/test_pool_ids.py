"""Pools belong to volumes by resource id, not by account and pool name.

The REST API's own examples (../shared/corpus/azure s02, s03) and edited copies of them in
tests/data/azure_recorded (PROVENANCE.md there says what was changed).
"""

from __future__ import annotations

import pytest

from anfperf.azure import read_volume
from anfperf.azure.ids import pool_of_volume, resource_id, volume_pool_id
from anfperf.cli import main
from anfperf.errors import ParseError
from tests.azure.test_volume import S02, S03, corpus
from tests.conftest import TESTS

RECORDED = TESTS / "data" / "azure_recorded"
OTHER_RG_POOL = RECORDED / "anf_2025-06-01_manual_pool1_otherRG_edited.json"
TWO_GROUPS = RECORDED / "anf_2025-06-01_volume1_in_two_groups_edited.json"


def test_a_volumes_own_pool_is_attached_by_its_id():
    volume = read_volume(corpus(S02), pool_path=corpus(S03))
    assert volume.qos_type == "manual" and volume.pool_size_tib == 4.0
    assert volume.resource_id.endswith("/resourcegroups/myrg/providers/microsoft.netapp/"
                                       "netappaccounts/account1/capacitypools/pool1/volumes/volume1")  # fmt: skip


def test_a_pool_of_another_resource_group_with_the_same_names_is_not_attached():
    volume = read_volume(corpus(S02), pool_path=OTHER_RG_POOL)
    assert volume.qos_type is None and volume.pool_size_tib is None


def test_names_are_used_only_without_ids_and_only_when_one_pool_has_them():
    class Pool:
        def __init__(self, rid: str, name: str) -> None:
            self.resource_id, self.resource_name = rid, name

    vid = resource_id(
        {"id": "/subscriptions/s/resourceGroups/A/providers/x/a1/capacityPools/p1/volumes/v"}
    )
    assert volume_pool_id(vid).endswith("/resourcegroups/a/providers/x/a1/capacitypools/p1")
    unnamed = Pool("", "a1/p1")
    assert pool_of_volume(vid, "a1/p1/v", {"name:a1/p1": unnamed}) is unnamed
    other = Pool("/subscriptions/s/resourcegroups/b/providers/x/a1/capacitypools/p1", "a1/p1")
    assert pool_of_volume(vid, "a1/p1/v", {other.resource_id: other}) is None
    twins = {"/x/1": Pool("/x/1", "a1/p1"), "/x/2": Pool("/x/2", "a1/p1")}
    assert pool_of_volume("", "a1/p1/v", twins) is None  # two pools of that name: neither


def test_an_ambiguous_volume_name_is_refused_listing_the_full_ids(capsys):
    with pytest.raises(
        ParseError, match=r"2 volumes are named 'volume1' \(.*/myrg/.*, .*/otherrg/"
    ):
        read_volume(TWO_GROUPS, name="volume1")
    code = main(["plan", "--volume", str(TWO_GROUPS), "--volume-name", "volume1", "--bs-kib", "64"])
    err = capsys.readouterr().err
    assert code == 2 and "resourcegroups/otherrg" in err and "resourcegroups/myrg" in err
    full = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/otherRG/providers/" \
        "Microsoft.NetApp/netAppAccounts/account1/capacityPools/pool1/volumes/volume1"  # fmt: skip
    assert "otherrg" in read_volume(TWO_GROUPS, name=full).resource_id
