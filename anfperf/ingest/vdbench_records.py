"""The records passed between the Vdbench modules: flatfile (or host report) rows in 'wide' form.

:func:`anfperf.ingest.vdbench.read_vdbench` turns the flatfile into :class:`WideRows` (one entry
per flatfile row: settings plus total, read and write :class:`Measures`), the host reports of a
multi-host run give more of them, and :func:`anfperf.ingest.vdbench_frame.explode` turns each
into tidy rows. Arrays, not Python objects per row: a flatfile may hold 100,000 rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Measures:
    """One direction's measurements, one value per wide row (NaN: not measured)."""

    iops: np.ndarray
    bw_mib_s: np.ndarray
    lat_mean_ms: np.ndarray
    lat_max_ms: np.ndarray
    lat_std_ms: np.ndarray


@dataclass(frozen=True)
class Instances:
    """The run definition (rd=) instances of one flatfile, shared by its host reports' rows.

    An instance is one run of an rd name (for-loops run one name several times). Arrays indexed
    by instance unless said otherwise.
    """

    names: list[str]  #: distinct rd names of the flatfile, in order of appearance
    name_of: np.ndarray  #: index into `names`
    step: np.ndarray  #: 0-based instance of its rd name
    loops: list[str | None]  #: 'For loops' values, e.g. 'threads=16'
    workload: list[str | None]  #: per rd name: wd= / fwd= ('format' for format runs)
    curve_pct: np.ndarray  #: iorate=curve point [%], NaN for other runs
    avg_first: np.ndarray  #: first interval of the avg_ range (warm-up ends before it)
    host_targets: list[dict[str, int] | None]  #: per rd name: SDs/FWDs it drives per host
    #: per rd name: openflags=o_direct on its targets (True), on none (False), unknown (None)
    direct_io: list[bool | None] | None = None


@dataclass(frozen=True)
class WideRows:
    """Rows in 'wide' form: one entry per flatfile (or host report) row, arrays throughout."""

    instances: Instances
    inst: np.ndarray  #: the row's instance (index into `instances`)
    interval: np.ndarray  #: interval number (NaN on avg_ rows)
    is_summary: np.ndarray
    is_warmup: np.ndarray
    timestamp: np.ndarray  #: UTC, datetime64[ns]
    threads: np.ndarray
    outstanding: np.ndarray
    pattern: np.ndarray  #: code into anfperf.schema.PATTERNS, -1 unknown
    read_pct: np.ndarray  #: requested [%]
    bs_kib: np.ndarray
    rate_limit_iops: np.ndarray
    cpu_user_pct: np.ndarray
    cpu_sys_pct: np.ndarray
    queue_depth: np.ndarray
    total: Measures
    read: Measures
    write: Measures
    keep_read: np.ndarray  #: the row has a 'read' row (the instance read something)
    keep_write: np.ndarray
    tool_version: str | None
    host: str
    source_file: str

    @property
    def n(self) -> int:
        """Number of wide rows."""
        return len(self.inst)

    def direction(self, name: str) -> Measures:
        """The measurements of direction 'total', 'read' or 'write'."""
        return {"total": self.total, "read": self.read, "write": self.write}[name]
