"""Real numbers for the model tests, read independently of anfperf's readers.

The Vdbench runs of ../shared/corpus/vdbench are read in place; their whole-run ``avg_`` lines
in summary.html are parsed here with a plain regular expression, so tests can compare what the
models do with the reader's frame against the raw file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

# Vdbench summary.html: a 'Starting RD=...' banner, then interval lines; the whole-run line is
#   23:53:32.092   avg_2-6   25699.83   100.39    4096 100.00    0.069 ...
# columns: time, interval, i/o rate, MB/sec, bytes/io, read pct, resp time, ...
_START = re.compile(r"Starting RD=([^;]+);.*?For loops: threads=(\d+)")
_AVG = re.compile(
    r"^\S+\s+avg_\S+\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)", re.MULTILINE
)


def corpus_dir() -> Path:
    """../shared/corpus; skip when absent outside CI, fail when absent in CI."""
    path = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
    if not path.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: CI must provide ../shared/corpus")
        pytest.skip(f"{path} not present (outside CI)")
    return path


def vdbench_dir(name: str) -> Path:
    """A real Vdbench output folder of ../shared/corpus/vdbench."""
    return corpus_dir() / "vdbench" / name


def summary_avg(name: str) -> dict[str, np.ndarray]:
    """The avg_ rows of a run's summary.html, in file order.

    Returns
    -------
    dict
        rd (run definition names), threads (For loops value), iops [1/s], bw_mib_s [MiB/s],
        bs_bytes, read_pct [%], lat_ms [ms].
    """
    text = re.sub(r"<[^>]+>", "", (vdbench_dir(name) / "summary.html").read_text())
    starts = _START.findall(text)
    avgs = _AVG.findall(text)
    assert len(starts) == len(avgs), "one avg_ line per 'Starting RD'"
    return {
        "rd": np.array([s[0] for s in starts]),
        "threads": np.array([float(s[1]) for s in starts]),
        "iops": np.array([float(a[0]) for a in avgs]),
        "bw_mib_s": np.array([float(a[1]) for a in avgs]),
        "bs_bytes": np.array([float(a[2]) for a in avgs]),
        "read_pct": np.array([float(a[3]) for a in avgs]),
        "lat_ms": np.array([float(a[4]) for a in avgs]),
    }


def sd_count(name: str) -> int:
    """Storage definitions of a run's parmfile (Vdbench threads are per SD)."""
    text = (corpus_dir() / "vdbench" / "parm" / name).read_text()
    return len(re.findall(r"^sd=sd-", text, flags=re.MULTILINE))


# --------------------------------------------------------------------------------------------
# Real sweeps for tests of prediction past the data

DATA = Path(__file__).resolve().parents[1] / "data"

#: Published ANF load-latency curves: SPECstorage Solution 2020 eda_blended results for Azure
#: NetApp Files (spec.org storage2020 results 2025q4-00143, a large volume, and 2026q2-00147,
#: a large volume in breakthrough mode), as ../shared/anf_facts.md quotes them. Columns: load
#: (job sets), average latency [ms] (printed with one decimal), ops/s.
SPEC_LARGE = np.array([
    (110, 0.3, 49502), (220, 0.3, 99005), (330, 0.3, 148508), (440, 0.3, 198011),
    (550, 0.3, 247513), (660, 0.4, 297016), (770, 0.4, 346519), (880, 0.4, 396022),
    (990, 0.4, 445524), (1100, 0.4, 495022), (1210, 0.4, 544530), (1320, 0.4, 594033),
    (1430, 0.5, 643536), (1540, 0.7, 693038), (1650, 1.0, 742541), (1760, 2.3, 792046),
])  # fmt: skip
SPEC_BREAKTHROUGH = np.array([
    (192, 0.3, 86405), (384, 0.3, 172810), (576, 0.3, 259214), (768, 0.3, 345607),
    (960, 0.4, 432007), (1152, 0.4, 518429), (1344, 0.4, 604834), (1536, 0.4, 691238),
    (1728, 0.4, 777643), (1920, 0.5, 864048), (2112, 0.5, 950452), (2304, 0.7, 1036598),
    (2496, 0.6, 1123134), (2688, 1.1, 1209647), (2880, 1.6, 1296040),
])  # fmt: skip


def fio_qd_sweep() -> tuple[np.ndarray, np.ndarray]:
    """The real fio iodepth sweep of tests/data/fio_sweeps/qd_randread (make_sweeps.sh).

    Three passes of 4 KiB random reads at iodepth 1 .. 128; the JSON is read here with the
    standard library, and the median of the passes is taken per depth.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Depths and the median read IOPS at each.
    """
    import json

    by_depth: dict[int, list[float]] = {}
    for path in sorted((DATA / "fio_sweeps" / "qd_randread").glob("pass*_qd*.json")):
        job = json.loads(path.read_text())["jobs"][0]
        depth = int(job["job options"]["iodepth"])
        by_depth.setdefault(depth, []).append(float(job["read"]["iops"]))
    depths = np.array(sorted(by_depth), dtype=float)
    assert all(len(by_depth[int(d)]) == 3 for d in depths), "three passes per depth"
    return depths, np.array([np.median(by_depth[int(d)]) for d in depths])


def lower_upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Masks of the lower half of n points (the first ceil(n / 2)) and the upper half."""
    lower = np.arange(n) < (n + 1) // 2
    return lower, ~lower
