"""The scenario the ANF limits are worked out for: a volume, its clients and the workload's I/O.

One value, built once (from a report's parameters, an operating point, an
:class:`~anfperf.azure.AnfVolume`) and taken whole by every function that sets a workload against
the limits: :func:`anfperf.models.predict_achievable`, :func:`anfperf.models.client_constraints`,
:func:`anfperf.analysis.findings.quota_check` and :func:`anfperf.plots.quota_model`. Those
functions also take the fields as keywords (``predict_achievable(bs_kib=64, level="Premium",
quota_tib=4)``), which build the scenario the same way.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from anfperf.errors import ModelError


@dataclass(frozen=True)
class QuotaScenario:
    """A workload on an ANF volume driven by client VMs.

    Attributes
    ----------
    bs_kib : float
        Block size [KiB].
    read_pct : float
        Read share [%].
    level : str, optional
        Service level of the volume ('Standard', 'Premium', 'Ultra'; 'Flexible' with
        `manual_bw_mib_s`); None leaves the volume's own limits out.
    quota_tib : float, optional
        Volume quota [TiB] (auto QoS).
    manual_bw_mib_s : float, optional
        Throughput assigned to a manual-QoS volume [MiB/s] (instead of quota x rate), or the
        volume's limit as Azure reports it (see `qos_type`).
    qos_type : {'manual', 'auto'} or None
        What `manual_bw_mib_s` is: 'manual' (default) a manual-QoS throughput; 'auto' or None
        Azure's limit of an auto-QoS volume or of one whose QoS type is not known (named
        "Azure's limit", not manual QoS; :attr:`anfperf.azure.AnfVolume.limit_qos`).
    volume_type : {'regular', 'large', 'breakthrough'}
        Volume type ('breakthrough': a large volume in breakthrough mode).
    rule : str
        Volume-limit rules (see :func:`anfperf.models.limits.quota.throughput_limit`).
    cool_access : bool
        Cool access enabled: the quota limit uses the cool-access rate and size range.
    pattern : {'sequential', 'random'}, optional
        Access pattern; adds the published per-volume and per-client observations.
    vm_size : str, optional
        Client VM size; adds the clients' network and NFS connection constraints.
    vm_count : int
        Client VMs.
    nconnect : int
        NFS connections per client mount.
    nfs_version : {'3', '4.1'}
        NFS version of the mounts (in-flight limits).

    Raises
    ------
    anfperf.ModelError
        A block size not > 0, a read share outside 0 .. 100 or a VM count not a whole number
        >= 1 (checked once, here).
    """

    bs_kib: float
    read_pct: float = 100.0
    level: str | None = None
    quota_tib: float | None = None
    manual_bw_mib_s: float | None = None
    qos_type: str | None = "manual"
    volume_type: str = "regular"
    rule: str = "current"
    cool_access: bool = False
    pattern: str | None = None
    vm_size: str | None = None
    vm_count: int = 1
    nconnect: int = 1
    nfs_version: str = "3"

    def __post_init__(self) -> None:
        if self.qos_type not in ("manual", "auto", None):
            raise ModelError(f"qos_type must be 'manual', 'auto' or None, got {self.qos_type!r}")
        if not self.bs_kib > 0:
            raise ModelError("bs_kib must be > 0")
        if not 0 <= self.read_pct <= 100:
            raise ModelError("read_pct must be within 0 .. 100")
        if not isinstance(self.vm_count, int | np.integer) or self.vm_count < 1:
            raise ModelError(f"vm_count must be an integer >= 1, got {self.vm_count!r}")

    @classmethod
    def of(cls, scenario: QuotaScenario | None = None, **fields) -> QuotaScenario:
        """`scenario` with `fields` replaced, or a scenario of `fields` alone.

        How the functions that take a scenario also take its fields as keywords.

        Raises
        ------
        TypeError
            A field the scenario does not have (as a misspelt keyword argument would).
        """
        if scenario is None:
            return cls(**fields)
        if not isinstance(scenario, cls):
            raise TypeError(f"expected a QuotaScenario, got {type(scenario).__name__}")
        return dataclasses.replace(scenario, **fields) if fields else scenario
