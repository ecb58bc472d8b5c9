"""Benchmark workloads: the spec and the seeds' catalogue.

What a tool makes of a workload (Vdbench parameter files, fio job files, DiskSpd command lines)
is the tool's own, in :mod:`anfperf.tools`.

>>> from anfperf.workloads import get_workload
>>> w = get_workload("RndRead")
>>> w.pattern, w.bs_kib, w.read_pct, w.threads
('random', 8, (100,), (25,))
"""

from anfperf.workloads.catalogue import CATALOGUE, catalogue, catalogue_table, get_workload
from anfperf.workloads.spec import (
    Point,
    Workload,
    WorkloadError,
    check_host,
    check_name,
    check_path,
    dump_workloads,
    load_workloads,
)

__all__ = [
    "CATALOGUE",
    "Point",
    "Workload",
    "WorkloadError",
    "catalogue",
    "catalogue_table",
    "check_host",
    "check_name",
    "check_path",
    "dump_workloads",
    "get_workload",
    "load_workloads",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer
