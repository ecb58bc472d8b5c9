"""Azure's own descriptions of what was measured: a volume's and its pool's settings.

:func:`read_volume` / :func:`read_pool` read what ``az netappfiles volume show`` / ``pool
show`` (or ``list``), ``az resource show`` or the ARM REST API print, into :class:`AnfVolume`
and :class:`AnfPool` (units in the field names), which the models, the planner and the reports
take instead of a level, a quota and a throughput typed by hand (``AnfVolume.model_args``).
"""

from anfperf.azure.resources import AzureResource, read_resources
from anfperf.azure.volume import (
    AnfPool,
    AnfVolume,
    read_pool,
    read_pools,
    read_volume,
    read_volumes,
)

__all__ = [
    "AnfPool", "AnfVolume", "AzureResource", "read_pool", "read_pools", "read_resources",
    "read_volume", "read_volumes",
]  # fmt: skip


def __dir__() -> list[str]:
    return sorted(__all__)
