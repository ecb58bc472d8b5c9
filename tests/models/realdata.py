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


def spec_limit(data: np.ndarray, mb_s: float, limit_mib_s: float, what: str):
    """A SPEC result's volume limit in its own ops/s: SPEC's MB/s are decimal, so the op size
    is the last point's MB/s over its ops/s, and the limit [MiB/s] becomes ops/s by it."""
    from anfperf.models import KnownLimits

    op_mb = mb_s / float(data[-1, 2])
    return KnownLimits.of_iops(limit_mib_s * 2**20 / 1e6 / op_mb, f"{what}: {limit_mib_s:,} MiB/s")


#: The limits the SPEC curves above are judged with: the large-volume cap, and breakthrough
#: mode's published write throughput (it has no QoS cap; anfperf/data/anf_latency.csv says so).
SPEC_LARGE_LIMIT = spec_limit(SPEC_LARGE, 12780, 12800, "large-volume cap")
SPEC_BREAKTHROUGH_LIMIT = spec_limit(
    SPEC_BREAKTHROUGH, 20910, 21202, "breakthrough published write"
)


#: Held-out ANF load-latency curves: SPECstorage Solution 2020 eda_blended results that
#: anfperf/data/anf_latency.csv was *not* fitted to (its shape comes from 00143 and 00147
#: alone). Columns: load (job sets), average latency [ms], ops/s, MB/s (decimal MB).
#: storage2020-20250929-00142 'Azure NetApp Files large volume scale' (spec.org, tested August
#: 2025): six large volumes, one per availability zone; latency printed with one decimal.
SPEC_LARGE_SCALE = np.array([
    (704, 0.3, 316817, 5111), (1408, 0.3, 633634, 10223), (2112, 0.3, 950453, 15336),
    (2816, 0.3, 1267250, 20448), (3520, 0.4, 1584076, 25558), (4224, 0.4, 1900875, 30672),
    (4928, 0.4, 2217683, 35784), (5632, 0.4, 2534490, 40893), (6336, 0.4, 2851300, 46005),
    (7040, 0.5, 3168158, 51118), (7744, 0.5, 3484890, 56230), (8448, 0.6, 3801696, 61344),
    (9152, 0.8, 4118539, 66453), (9856, 1.5, 4435382, 71570), (10560, 3.8, 4745453, 76487),
])  # fmt: skip
#: storage2020-20260227-00148 'Azure NetApp Files large volume breakthrough mode scale'
#: (spec.org, tested January 2026): six large volumes in breakthrough mode; the HTML page
#: prints latency with three decimals. Its curve never reaches 2 ms (1.699 ms at the top).
SPEC_BREAKTHROUGH_SCALE = np.array([
    (1152, 0.299, 518429, 8365), (2304, 0.346, 1036851, 16729), (3456, 0.396, 1555278, 25097),
    (4608, 0.425, 2073716, 33464), (5760, 0.450, 2592130, 41827), (6912, 0.472, 3110496, 50194),
    (8064, 0.430, 3628989, 58557), (9216, 0.435, 4147431, 66927), (10368, 0.483, 4665806, 75282),
    (11520, 0.578, 5184205, 83653), (12672, 0.753, 5702678, 92013),
    (13824, 0.796, 6221125, 100379), (14976, 0.753, 6738728, 108728),
    (16128, 1.026, 7257993, 117113), (17280, 1.699, 7776147, 125474),
])  # fmt: skip
#: The EDA article's regular volumes (solutions-benefits-azure-netapp-files-electronic-design-
#: automation.md, ms.date 2025-10-13): ops/s and MiB/s at 2 ms and at the performance edge,
#: no curve. One regular volume: 39,601 ops/s and 692 MiB/s at 2 ms, 49,502 and 866 at the
#: edge; six: 255,613 and 4,577 at 2 ms, 317,000 and 5,688 at the edge.
EDA_REGULAR = {
    1: {"ops_2ms": 39601, "mib_s_2ms": 692, "ops_edge": 49502, "mib_s_edge": 866},
    6: {"ops_2ms": 255613, "mib_s_2ms": 4577, "ops_edge": 317000, "mib_s_edge": 5688},
}


def ops_at_latency(curve: np.ndarray, lat_ms: float) -> float:
    """Ops/s where a published curve reaches `lat_ms`, interpolated between its load points
    (the first crossing; linear in ops between the two points either side)."""
    lat, ops = curve[:, 1], curve[:, 2]
    above = np.flatnonzero(lat >= lat_ms)
    assert above.size and above[0] > 0, f"the curve does not cross {lat_ms} ms"
    i = int(above[0])
    return float(np.interp(lat_ms, lat[i - 1 : i + 1], ops[i - 1 : i + 1]))


def _fio_read_iops(pattern: str) -> dict[int, list[float]]:
    """Read IOPS per iodepth of the fio JSON files matching `pattern` under
    tests/data/fio_sweeps, read here with the standard library."""
    import json

    by_depth: dict[int, list[float]] = {}
    for path in sorted((DATA / "fio_sweeps").glob(pattern)):
        job = json.loads(path.read_text())["jobs"][0]
        depth = int(job["job options"]["iodepth"])
        by_depth.setdefault(depth, []).append(float(job["read"]["iops"]))
    return by_depth


def fio_qd_sweep() -> tuple[np.ndarray, np.ndarray]:
    """The real fio iodepth sweep of tests/data/fio_sweeps/qd_randread (make_sweeps.sh).

    Three passes of 4 KiB random reads at iodepth 1 .. 128; the median of the passes is taken
    per depth.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Depths and the median read IOPS at each.
    """
    return fio_median_sweep("qd_randread/pass*_qd*.json")


def fio_median_sweep(pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """The depths of a recorded sweep of three passes (`pattern` under tests/data/fio_sweeps)
    and the median read IOPS at each."""
    by_depth = _fio_read_iops(pattern)
    depths = np.array(sorted(by_depth), dtype=float)
    assert all(len(by_depth[int(d)]) == 3 for d in depths), "three passes per depth"
    return depths, np.array([np.median(by_depth[int(d)]) for d in depths])


def fio_one_pass(pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """One pass of a recorded fio iodepth sweep (e.g. ``"qd_dense/limited/pass1_qd*.json"``):
    its depths and read IOPS, as a single pass scatters on a shared machine."""
    by_depth = _fio_read_iops(pattern)
    assert all(len(v) == 1 for v in by_depth.values()), f"one run per depth in {pattern}"
    depths = np.array(sorted(by_depth), dtype=float)
    return depths, np.array([by_depth[int(d)][0] for d in depths])


def lower_upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Masks of the lower half of n points (the first ceil(n / 2)) and the upper half."""
    lower = np.arange(n) < (n + 1) // 2
    return lower, ~lower
