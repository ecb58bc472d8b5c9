"""The built-in workloads: the public Azure NetApp Files benchmark seeds.

Sources (all in the MicrosoftDocs/azure-docs repository):

- ``VDBENCH_SEED``: articles/azure-netapp-files/azure-netapp-files-performance-benchmarks.md, the
  example Vdbench script (24 VMs x 6 volumes, ``sd=default,size=693g``): FillWrite, SeqRead,
  SeqWrite, RndRead, RndWrite, SeqMix, RndMix with its thread counts, ``warmup=60,elapsed=600``.
  Its notes suggest finding the thread count with Little's law from a 1-thread run: hence the
  thread sweep.
- ``FIO_SEED``: articles/azure-netapp-files/testing-methodology.md (and
  azure-netapp-files-performance-metrics-volumes.md): 8 KiB random and 64 KiB sequential reads
  and writes, ``--numjobs=4 --iodepth=128 --size=4G --runtime=600``, libaio, direct; newer runs
  add ``randrepeat=0``.
- ``LINUX_BENCH``: articles/azure-netapp-files/performance-benchmarks-linux.md: 4 KiB random and
  64 KiB sequential workloads from 100 % read to 100 % write in 10 % steps, 1 TiB working set.
- ``LARGE_VOLUME``: articles/azure-netapp-files/performance-large-volumes-linux.md: 256 KiB
  sequential and 8 KiB random workloads in 10 % steps.
- ``DISKSPD_SEED``: includes/virtual-machines-managed-disks-benchmarking.md (the Azure disk
  benchmarking article): ``diskspd -c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh`` (maximum write
  IOPS) and ``-c200G -b4K -F4 -r -o128 -W7200 -d30 -Sh`` (maximum read IOPS).

The sweeps' concurrency where the articles do not state it follows the fio seed (4 jobs x
queue depth 128 per client).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anfperf.workloads.spec import Workload, WorkloadError

if TYPE_CHECKING:
    import pandas as pd

VDBENCH_SEED = (
    "MicrosoftDocs/azure-docs articles/azure-netapp-files/"
    "azure-netapp-files-performance-benchmarks.md (example Vdbench script)"
)
FIO_SEED = "MicrosoftDocs/azure-docs articles/azure-netapp-files/testing-methodology.md"
LINUX_BENCH = "MicrosoftDocs/azure-docs articles/azure-netapp-files/performance-benchmarks-linux.md"
LARGE_VOLUME = (
    "MicrosoftDocs/azure-docs articles/azure-netapp-files/performance-large-volumes-linux.md"
)
DISKSPD_SEED = (
    "MicrosoftDocs/azure-docs includes/virtual-machines-managed-disks-benchmarking.md (DiskSpd)"
)
#: Read shares of the 10 % step sweeps: pure read to pure write.
READ_SWEEP = tuple(range(100, -1, -10))
#: The seed's Vdbench timing and per-sd file size.
_VDB = {"warmup_s": 60, "duration_s": 600, "interval_s": 1, "file_size_gib": 693}
#: The fio seed's concurrency and file size.
_FIO = {"iodepth": 128, "numjobs": 4, "file_size_gib": 4}

_WORKLOADS = (
    # -- the Vdbench seed: the seven patterns with the seed's thread counts ------------------
    Workload(
        "FillWrite", "sequential", 64, read_pct=0, threads=1, fill=True,
        warmup_s=0, duration_s=259200, interval_s=1, file_size_gib=693,
        run_name="Initialize-LUNs-Full",
        description="write every file once, to its end (seekpct=eof), before the other runs",
        source=VDBENCH_SEED,
    ),
    Workload("RndRead", "random", 8, read_pct=100, threads=25, **_VDB,
             description="8 KiB random reads", source=VDBENCH_SEED),
    Workload("RndWrite", "random", 8, read_pct=0, threads=20, **_VDB,
             description="8 KiB random writes", source=VDBENCH_SEED),
    # the seed names this run SeqRead-4 although it uses 20 threads; kept for fidelity
    Workload("SeqRead", "sequential", 64, read_pct=100, threads=20, run_name="SeqRead-4", **_VDB,
             description="64 KiB sequential reads", source=VDBENCH_SEED),
    Workload("SeqWrite", "sequential", 64, read_pct=0, threads=(26, 32, 40), **_VDB,
             description="64 KiB sequential writes at 26, 32 and 40 threads", source=VDBENCH_SEED),
    Workload("SeqMix", "sequential", 64, read_pct=50, threads=(6, 7), **_VDB,
             description="64 KiB sequential, 50 % reads, at 6 and 7 threads", source=VDBENCH_SEED),
    Workload("RndMix", "random", 8, read_pct=50, threads=25, **_VDB,
             description="8 KiB random, 50 % reads", source=VDBENCH_SEED),
    # -- thread sweep and load curve (the seed's Little's-law advice; Vdbench iorate=curve) --
    Workload("RndReadThreads", "random", 4, read_pct=100, threads=(1, 2, 4, 8, 16, 32, 64),
             run_name="threads", **_VDB,
             description="4 KiB random reads from 1 to 64 threads: latency vs concurrency "
             "for Little's law and USL fits", source=VDBENCH_SEED),
    Workload("RndReadCurve", "random", 8, read_pct=100, threads=16,
             rate=(10, 30, 50, 70, 80, 90, 100), run_name="curve", **_VDB,
             description="8 KiB random reads at 10..100 % of the maximum rate: latency vs load "
             "(Vdbench iorate=curve; fio rate_iops steps)", source=VDBENCH_SEED),
    # -- the fio seed --------------------------------------------------------------------------
    Workload("8krandomreads", "random", 8, read_pct=100, duration_s=600, **_FIO,
             description="8 KiB random reads, 4 jobs x queue depth 128", source=FIO_SEED),
    Workload("8krandomwrites", "random", 8, read_pct=0, duration_s=600, **_FIO,
             description="8 KiB random writes, 4 jobs x queue depth 128", source=FIO_SEED),
    Workload("64kseqreads", "sequential", 64, read_pct=100, duration_s=600, **_FIO,
             description="64 KiB sequential reads, 4 jobs x queue depth 128", source=FIO_SEED),
    Workload("64kseqwrites", "sequential", 64, read_pct=0, duration_s=600, **_FIO,
             description="64 KiB sequential writes, 4 jobs x queue depth 128", source=FIO_SEED),
    Workload("RndReadQD", "random", 8, read_pct=100, iodepth=(1, 2, 4, 8, 16, 32, 64, 128),
             numjobs=4, duration_s=600, file_size_gib=4,
             description="8 KiB random reads, queue depth 1..128 x 4 jobs", source=FIO_SEED),
    # -- 4 KiB random, 64/256 KiB sequential, read/write sweeps in 10 % steps -----------------
    Workload("RndRead4k", "random", 4, read_pct=100, duration_s=600, **_FIO,
             description="4 KiB random reads", source=LINUX_BENCH),
    Workload("RndWrite4k", "random", 4, read_pct=0, duration_s=600, **_FIO,
             description="4 KiB random writes", source=LINUX_BENCH),
    Workload("RndMix4kSweep", "random", 4, read_pct=READ_SWEEP, duration_s=600, **_FIO,
             description="4 KiB random, 100 % to 0 % reads in 10 % steps", source=LINUX_BENCH),
    Workload("SeqMix64kSweep", "sequential", 64, read_pct=READ_SWEEP, duration_s=600, **_FIO,
             description="64 KiB sequential, 100 % to 0 % reads in 10 % steps",
             source=LINUX_BENCH),
    Workload("SeqRead256k", "sequential", 256, read_pct=100, duration_s=600, **_FIO,
             description="256 KiB sequential reads", source=LARGE_VOLUME),
    Workload("SeqWrite256k", "sequential", 256, read_pct=0, duration_s=600, **_FIO,
             description="256 KiB sequential writes", source=LARGE_VOLUME),
    Workload("SeqMix256kSweep", "sequential", 256, read_pct=READ_SWEEP, duration_s=600, **_FIO,
             description="256 KiB sequential, 100 % to 0 % reads in 10 % steps",
             source=LARGE_VOLUME),
    Workload("RndMix8kSweep", "random", 8, read_pct=READ_SWEEP, duration_s=600, **_FIO,
             description="8 KiB random, 100 % to 0 % reads in 10 % steps", source=LARGE_VOLUME),
    # -- the DiskSpd seed ----------------------------------------------------------------------
    Workload("MaxWriteIops8k", "random", 8, read_pct=0, iodepth=128, numjobs=4,
             warmup_s=30, duration_s=30, file_size_gib=200,
             description="DiskSpd maximum write IOPS: 8 KiB random writes, 4 threads x 128",
             source=DISKSPD_SEED),
    Workload("MaxReadIops4k", "random", 4, read_pct=100, iodepth=128, numjobs=4,
             warmup_s=7200, duration_s=30, file_size_gib=200,
             description="DiskSpd maximum read IOPS: 4 KiB random reads, 4 threads x 128, "
             "2 h warm-up (cache)", source=DISKSPD_SEED),
)  # fmt: skip

#: The catalogue by name, in the order above.
CATALOGUE: dict[str, Workload] = {w.name: w for w in _WORKLOADS}


def catalogue() -> dict[str, Workload]:
    """The built-in workloads by name (a copy: changing it changes nothing here)."""
    return dict(CATALOGUE)


def get_workload(name: str, extra: dict[str, Workload] | None = None) -> Workload:
    """The workload called `name`, from `extra` (e.g. loaded from YAML) or the catalogue.

    Raises
    ------
    WorkloadError
        For an unknown name, with the closest known names.
    """
    pool = {**CATALOGUE, **(extra or {})}
    if name in pool:
        return pool[name]
    hint = difflib.get_close_matches(name, list(pool), n=3)
    raise WorkloadError(
        "no such workload" + (f"; did you mean {', '.join(hint)}?" if hint else ""),
        workload=name,
    )


def catalogue_table(workloads: Sequence[Workload]) -> pd.DataFrame:
    """One line per workload: pattern, block size, read %, concurrency, timing and rate."""
    import pandas as pd  # here: the specs themselves need no pandas

    rows = []
    for w in workloads:
        if w.threads is not None:
            concurrency = f"threads {'/'.join(map(str, w.threads))}"
        else:
            concurrency = f"qd {'/'.join(map(str, w.iodepth))} x {w.numjobs} jobs"
        reads = "/".join(map(str, w.read_pct))
        if len(w.read_pct) > 3:
            reads = f"{w.read_pct[0]}..{w.read_pct[-1]}"
        rate = w.rate if w.rate_kind != "curve" else "curve " + "/".join(map(str, w.rate))
        rows.append({
            "name": w.name, "pattern": w.pattern + (" fill" if w.fill else ""),
            "bs": f"{w.bs_kib:g}k", "read %": reads, "concurrency": concurrency,
            "warm-up/run s": f"{w.warmup_s}/{w.duration_s}", "rate": str(rate),
        })  # fmt: skip
    return pd.DataFrame(rows)
