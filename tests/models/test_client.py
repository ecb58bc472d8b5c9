"""Client limits: VM egress, NFS in-flight limits (the session-slot article's examples), nconnect."""

from __future__ import annotations

import math

import pytest

from anfperf.errors import ModelError
from anfperf.models import (
    client_constraints,
    mbps_to_mib_s,
    nconnect_ceiling,
    nfs_inflight_limit,
    vm_egress_mib_s,
    vm_network,
)


def test_vm_network_limits_in_mib_s():
    table = vm_network().set_index("vm_size")
    assert table.loc["Standard_D32s_v5", "network_mbps"] == 16000
    assert table.loc["Standard_D8ds_v4", "network_mbps"] == 4000
    assert table.loc["Standard_E104id_v5", "network_mbps"] == 100000
    assert vm_egress_mib_s("D32s_v3") == pytest.approx(1907.35, abs=0.01)
    assert vm_egress_mib_s("standard_d64s_v5") == mbps_to_mib_s(30000)
    with pytest.raises(ModelError, match="unknown VM size"):
        vm_egress_mib_s("D999")


def test_d32s_egress_is_consistent_with_the_observed_write_ceiling():
    # performance-benchmarks-linux.md saw ~1,500 MiB/s sequential writes from one D32s client,
    # "the instance egress limit"; the documented 16,000 Mbps (1,907 MiB/s) is above that
    assert 1500 < vm_egress_mib_s("D32s_v4") < 2000


@pytest.mark.parametrize(
    ("nconnect", "version", "kwargs", "expected"),
    [
        # NFSv3 examples: 128 per connection at ANF, whatever the client allows
        (1, "3", {}, 128),
        (1, "3", {"slot_table_entries": 128}, 128),
        (8, "3", {"slot_table_entries": 100}, 800),  # example 3: concurrency of 800
        (1, "3", {"slot_table_entries": 8}, 8),  # example 4: 250 clients x 8 = 2,000
        # NFSv4.1 examples: the session negotiates the lower of 64 (Linux) and 180 (ANF)
        (1, "4.1", {}, 64),  # example 1
        (2, "4.1", {}, 64),  # example 2
        (1, "4.1", {"session_slots": 180}, 128),  # example 3: one connection holds 128
        (2, "4.1", {"session_slots": 180}, 180),  # example 4
    ],
)
def test_nfs_in_flight_limits(nconnect, version, kwargs, expected):
    assert nfs_inflight_limit(nconnect, version, **kwargs) == expected


def test_nfs_in_flight_limit_rejects_bad_input():
    for bad in (0, 17, 2.5):
        with pytest.raises(ModelError, match="nconnect"):
            nfs_inflight_limit(bad)
    with pytest.raises(ModelError, match="nfs_version"):
        nfs_inflight_limit(1, "2")


def test_nconnect_ceilings_from_the_benchmark_article():
    # ~3,500 MiB/s sequential reads with nconnect, ~2.3x one connection
    assert nconnect_ceiling(8, "sequential", "read") == (3500, "MiB/s")
    assert nconnect_ceiling(1, "sequential", "read")[0] == pytest.approx(3500 / 2.3)
    # ~200,000 random read IOPS and ~135,000 write IOPS with nconnect, ~3x one connection
    assert nconnect_ceiling(1, "random", "read")[0] == pytest.approx(200000 / 3)
    assert nconnect_ceiling(16, "random", "write") == (135000, "1/s")
    # sequential writes do not gain: they are egress-bound
    assert math.isinf(nconnect_ceiling(8, "sequential", "write")[0])
    # a smaller VM gets the write observations scaled by its network (egress) limit, 4,000 of
    # the D32s's 16,000 Mbps; reads arrive as ingress, which Azure does not meter: unscaled
    # (before: 875 MiB/s of reads on a D8ds_v4)
    assert nconnect_ceiling(8, "sequential", "read", "D8ds_v4")[0] == 3500
    assert nconnect_ceiling(8, "random", "read", "D8ds_v4")[0] == 200000
    assert nconnect_ceiling(16, "random", "write", "D8ds_v4")[0] == pytest.approx(135000 / 4)
    with pytest.raises(ModelError):
        nconnect_ceiling(8, "strided", "read")


def test_client_constraints_pure_reads_are_not_egress_bound():
    rows = client_constraints("D32s_v5", 2, bs_kib=64, read_pct=100, pattern="sequential")
    rows = rows.set_index("constraint")
    assert math.isinf(rows.loc["client network egress", "bw_mib_s"])
    assert rows.loc["client NFS connections", "bw_mib_s"] == pytest.approx(2 * 3500 / 2.3)
    writes = client_constraints("D32s_v5", 3, bs_kib=64, read_pct=0).set_index("constraint")
    assert writes.loc["client network egress", "bw_mib_s"] == pytest.approx(3 * 1907.3486)
    half = client_constraints("D32s_v5", 1, bs_kib=64, read_pct=50).set_index("constraint")
    assert half.loc["client network egress", "bw_mib_s"] == pytest.approx(2 * 1907.3486)
    with pytest.raises(ModelError):
        client_constraints("D32s_v5", 0, bs_kib=64)
