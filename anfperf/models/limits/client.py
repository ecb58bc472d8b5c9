"""Client-side limits: VM network egress, NFS concurrency, and nconnect.

- Azure meters a VM's egress only (data_dir()/vm_network.csv, Mbps as documented, converted to
  MiB/s once: 16,000 Mbps = 1,907.35 MiB/s). NFS writes leave the VM; reads come in. So the
  network caps the write share of a workload: ``total <= egress / write_fraction``.
- ANF executes at most 128 NFSv3 requests in flight per TCP connection, 180 per NFSv4.1
  session (Linux negotiates its default of 64); nconnect (1 .. 16) opens more connections.
- Measured on one D32s client (performance-benchmarks-linux.md): nconnect lifts 64 KiB
  sequential reads to ~3,500 MiB/s (~2.3x one connection) and 4 KiB random reads / writes to
  ~200,000 / ~135,000 IOPS (~3x); sequential writes stay at the egress limit. These are
  observations of one VM size, not hard limits, and are labelled so.
"""

from __future__ import annotations

import logging
import math

import pandas as pd

from anfperf.errors import ModelError
from anfperf.models.curves.mix import mix_throughput
from anfperf.models.limits.quota import bw_to_iops, iops_to_bw, mbps_to_mib_s
from anfperf.models.limits.scenario import QuotaScenario
from anfperf.models.tables import load_table, table_value
from anfperf.values import is_whole_number

log = logging.getLogger(__name__)

NFS_VERSIONS = ("3", "4.1")
#: The client of the nconnect measurements (performance-benchmarks-linux.md, 2024-03-24).
REFERENCE_CLIENT = "Standard_D32s_v4"


def vm_network() -> pd.DataFrame:
    """VM sizes and their documented network limits (anfperf/data/vm_network.csv).

    Returns
    -------
    pandas.DataFrame
        ============  =====  ====================================================
        column        unit   meaning
        ============  =====  ====================================================
        vm_size              Azure size name, e.g. 'Standard_D32s_v5'
        vcpus                virtual CPUs
        network_mbps  Mbps   documented network (egress) limit, 10**6 bit/s
        egress_mib_s  MiB/s  the same limit in MiB/s (2**20 bytes/s)
        note, source, date   remark, azure-docs article, its ms.date
        ============  =====  ====================================================
    """
    table = load_table("vm_network")
    table.insert(3, "egress_mib_s", mbps_to_mib_s(table["network_mbps"].to_numpy(float)))
    return table


def vm_size_name(vm_size: str) -> str:
    """The table's spelling of a VM size ('d32s_v5' -> 'Standard_D32s_v5')."""
    names = {str(n).lower(): str(n) for n in vm_network()["vm_size"]}
    key = str(vm_size).strip().lower()
    for candidate in (key, "standard_" + key):
        if candidate in names:
            return names[candidate]
    raise ModelError(f"unknown VM size {vm_size!r}; known: {sorted(names.values())}")


def vm_egress_mib_s(vm_size: str) -> float:
    """Documented network egress limit of a VM size [MiB/s]."""
    table = vm_network().set_index("vm_size")
    return float(table.loc[vm_size_name(vm_size), "egress_mib_s"])


def nfs_client_value(key: str) -> float:
    """One fact of the NFS client table (anfperf/data/nfs_client.csv), by its key.

    Parameters
    ----------
    key : str
        A `key` of the table, e.g. 'nconnect_max' [connections], 'nconnect_recommended'
        [connections] or 'nfsv3_inflight_per_connection' [ops].

    Raises
    ------
    anfperf.ModelError
        No such key.
    """
    return table_value("nfs_client", key)


def _check_nconnect(nconnect: int) -> int:
    most = int(nfs_client_value("nconnect_max"))
    if not is_whole_number(nconnect) or not 1 <= nconnect <= most:
        raise ModelError(f"nconnect must be an integer 1 .. {most}, got {nconnect!r}")
    return int(nconnect)


def nfs_inflight_limit(
    nconnect: int = 1,
    nfs_version: str = "3",
    *,
    slot_table_entries: int | None = None,
    session_slots: int | None = None,
) -> int:
    """Most NFS requests one client mount can have in flight at ANF.

    Parameters
    ----------
    nconnect : int
        TCP connections of the mount (1 .. 16).
    nfs_version : {'3', '4.1'}
        NFS version.
    slot_table_entries : int, optional
        NFSv3: the client's sunrpc.max_tcp_slot_table_entries per connection (default: no
        client limit below ANF's 128).
    session_slots : int, optional
        NFSv4.1: the client's max_session_slots (default: the Linux default of 64).

    Returns
    -------
    int
        In-flight requests [-]: NFSv3 ``nconnect x min(128, slot_table_entries)``; NFSv4.1 the
        negotiated session slots (lower of client and ANF's 180), at most 128 per connection.
    """
    n = _check_nconnect(nconnect)
    per_conn = int(nfs_client_value("nfsv3_inflight_per_connection"))
    version = str(nfs_version).strip().lower().removeprefix("v")
    if version == "3":
        client = per_conn if slot_table_entries is None else int(slot_table_entries)
        if client < 1:
            raise ModelError("slot_table_entries must be >= 1")
        return n * min(per_conn, client)
    if version in ("4.1", "41", "4"):
        client = (
            int(nfs_client_value("nfsv41_session_slots_linux_default"))
            if session_slots is None
            else int(session_slots)
        )
        if client < 1:
            raise ModelError("session_slots must be >= 1")
        negotiated = min(client, int(nfs_client_value("nfsv41_session_slots_anf")))
        return min(negotiated, n * per_conn)
    raise ModelError(f"nfs_version must be one of {NFS_VERSIONS}, got {nfs_version!r}")


def nconnect_ceiling(
    nconnect: int, pattern: str, direction: str, vm_size: str | None = None
) -> tuple[float, str]:
    """Observed single-client ceiling for a number of NFS connections.

    One connection carries ``observed_with_nconnect / gain`` (the article's ~2.3x / ~3x); n
    connections carry n times that, up to what was observed with nconnect. The observations
    come from one D32s (16,000 Mbps) client; for a VM size with a lower network limit, writes
    (egress, which Azure meters) are scaled down in proportion (an assumption: the articles
    measured no other size), never up; reads arrive as ingress, which is not metered, and keep
    the D32s figure.

    Parameters
    ----------
    nconnect : int
        TCP connections of the mount (1 .. 16).
    pattern : {'sequential', 'random'}
        Access pattern (sequential was measured at 64 KiB, random at 4 KiB).
    direction : {'read', 'write'}
        I/O direction.
    vm_size : str, optional
        Client VM size (default: the measured D32s).

    Returns
    -------
    (float, str)
        The ceiling and its unit: MiB/s for sequential, 1/s (IOPS) for random. Sequential
        writes return inf: they are bound by the VM's egress instead.
    """
    n = _check_nconnect(nconnect)
    if pattern == "sequential":
        if direction == "write":
            return math.inf, "MiB/s"
        if direction != "read":
            raise ModelError(f"direction must be 'read' or 'write', got {direction!r}")
        most, gain, unit = (
            nfs_client_value("client_seq_read_nconnect_mib_s"),
            nfs_client_value("client_seq_read_nconnect_gain"),
            "MiB/s",
        )
    elif pattern == "random":
        if direction not in ("read", "write"):
            raise ModelError(f"direction must be 'read' or 'write', got {direction!r}")
        most = nfs_client_value(f"client_rand_{direction}_nconnect_iops")
        gain = nfs_client_value(f"client_rand_{direction}_nconnect_gain")
        unit = "1/s"
    else:
        raise ModelError(f"pattern must be 'sequential' or 'random', got {pattern!r}")
    scale = observed_scale(vm_size) if direction == "write" else 1.0
    return min(most / gain * n, most) * scale, unit


def observed_per_client(
    nconnect: int, pattern: str, read_pct: float, vm_size: str | None = None
) -> tuple[float, str, str]:
    """What one client of `vm_size` may do by the D32s observations, mixed at `read_pct`.

    Returns
    -------
    (float, str, str)
        The per-VM ceiling, its unit (MiB/s for sequential, 1/s for random) and a sentence
        with the observed figures it comes from (only the pure read and write runs were
        measured: the mix is the harmonic mix of the two, not an observation).
    """
    read_c, unit = nconnect_ceiling(nconnect, pattern, "read", vm_size)
    write_c, _ = nconnect_ceiling(nconnect, pattern, "write", vm_size)
    per_vm = float(mix_throughput(read_pct, read_c, write_c))
    scale = observed_scale(vm_size)
    seen_w = write_c / scale if math.isfinite(write_c) else write_c
    written = f"{seen_w:,.0f} {unit}" if math.isfinite(seen_w) else "egress-bound"
    detail = (
        f"nconnect={nconnect}: from one D32s client's runs, {read_c:,.0f} {unit} read, "
        f"{written} write ({pattern})"
        + (f"; writes x {scale:.2f} for this VM's network limit" if scale < 1 else "")
        + (
            f"; {read_pct:g} % read mixed harmonically: {per_vm:,.0f} {unit} per VM"
            if 0 < read_pct < 100
            else ""
        )
    )
    return per_vm, unit, detail


def observed_scale(vm_size: str | None) -> float:
    """Factor applied to the D32s client observations for another VM size (at most 1)."""
    if vm_size is None:
        return 1.0
    table = vm_network().set_index("vm_size")
    ref = float(table.loc[REFERENCE_CLIENT, "network_mbps"])
    return min(1.0, float(table.loc[vm_size_name(vm_size), "network_mbps"]) / ref)


def client_constraints(
    scenario: QuotaScenario | str, vm_count: int | None = None, **fields
) -> pd.DataFrame:
    """Throughput limits the clients put on a workload, one row per constraint.

    Parameters
    ----------
    scenario : QuotaScenario or str
        The scenario (:class:`~anfperf.models.limits.scenario.QuotaScenario`; its `vm_size`
        (see :func:`vm_network`), `vm_count`, `bs_kib`, `read_pct`, `pattern` and `nconnect`
        count here: the observed nconnect ceiling is added when `pattern` is given), or the
        client VM size, with the other fields as keywords.
    vm_count : int, optional
        Number of client VMs, when `scenario` is a VM size.
    **fields
        Fields of the scenario (``bs_kib=64, read_pct=70``), or what to change in `scenario`.

    Returns
    -------
    pandas.DataFrame
        Columns constraint, bw_mib_s [MiB/s], iops [1/s], kind ('limit' or 'observed'),
        detail, source.
    """
    if isinstance(scenario, str):
        fields["vm_size"] = scenario
        scenario = None
    if vm_count is not None:
        fields["vm_count"] = vm_count
    s = QuotaScenario.of(scenario, **fields)
    if s.vm_size is None:
        raise ModelError("client_constraints needs the clients' vm_size")
    vm_size, vm_count, bs_kib, read_pct = s.vm_size, s.vm_count, s.bs_kib, s.read_pct
    pattern, nconnect = s.pattern, s.nconnect
    name = vm_size_name(vm_size)
    row = vm_network().set_index("vm_size").loc[name]
    egress = float(row["egress_mib_s"])
    write_frac = 1.0 - read_pct / 100.0
    total = egress * vm_count / write_frac if write_frac > 0 else math.inf
    rows = [
        {
            "constraint": "client network egress",
            "bw_mib_s": total,
            "iops": bw_to_iops(total, bs_kib),
            "kind": "limit",
            "detail": (
                f"{vm_count} x {name}: {row['network_mbps']:g} Mbps = {egress:.1f} MiB/s egress "
                f"each; writes are {write_frac * 100:g} % of the I/O"
                + ("" if write_frac > 0 else " (reads are ingress, not metered)")
            ),
            "source": f"{row['source']} ({row['date']})",
        }
    ]
    if pattern is not None:
        per_vm, unit, detail = observed_per_client(nconnect, pattern, read_pct, name)
        if unit == "1/s":
            iops, bw = per_vm * vm_count, iops_to_bw(per_vm * vm_count, bs_kib)
        else:
            bw, iops = per_vm * vm_count, bw_to_iops(per_vm * vm_count, bs_kib)
        rows.append(
            {
                "constraint": "client NFS connections",
                "bw_mib_s": bw,
                "iops": iops,
                "kind": "observed",
                "detail": f"{detail}; x {vm_count} VMs",
                "source": "performance-benchmarks-linux.md (2024-03-24)",
            }
        )
    return pd.DataFrame(rows)
