"""Vdbench response-time histograms: ``histogram.html`` and its per-host / per-SD variants.

Each run definition instance ('Starting RD=' line) has one block per direction, titled
'Reads and writes:', 'Reads:', 'Writes:', 'Only reads done for this workload:', 'Only writes
done for this workload:' or (file system) 'Total of all requested operations:', followed by bin
lines ``min(ms) < max(ms) count % cum%``; the last bin's upper bound is 'max'. Counts cover the
whole run of the instance, warm-up intervals included (RndMix: 1,039,142 I/Os = the sum of its
ten one-second interval rates).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from anfperf.errors import ParseError, warn
from anfperf.ingest._source import PathOrBuffer, decode_text, read_bytes
from anfperf.ingest.vdbench_companions import rd_instance

#: Block titles -> direction.
HISTOGRAM_BLOCKS = {
    "reads and writes:": "total",
    "total of all requested operations:": "total",
    "reads:": "read",
    "writes:": "write",
    "only reads done for this workload:": "read",
    "only writes done for this workload:": "write",
}
HISTOGRAM_COLUMNS = ["job", "step", "direction", "bin_min_ms", "bin_max_ms", "count"]

_BIN = re.compile(r"^\s*([\d.,]+)\s*<\s*([\d.,]+|max)\s+([\d.,' \u00a0]*\d)\s+[\d.,]+\s+[\d.,]+")


def _ms(token: str) -> float:
    """A bin bound: '0.020', or '0,020' in a decimal-comma locale."""
    if "," in token and "." not in token:
        token = token.replace(",", ".")
    return float(token.replace(",", ""))


def read_vdbench_histogram(path: PathOrBuffer) -> pd.DataFrame:
    """Read a Vdbench response-time histogram report.

    Parameters
    ----------
    path : str, os.PathLike or file-like
        ``histogram.html``, ``<host>.histogram.html``, ``<sd>.histogram.html`` ... (or gzip).

    Returns
    -------
    pandas.DataFrame
        One row per RD instance x direction x bin:

        ==========  ======  ========================================================
        column      unit    meaning
        ==========  ======  ========================================================
        job                 run definition (rd=) name
        step                0-based instance of that name (for-loops), as in
                            :func:`anfperf.ingest.vdbench.read_vdbench`
        direction           'total', 'read' or 'write' (from the block title)
        bin_min_ms  ms      lower bound of the bin
        bin_max_ms  ms      upper bound (``inf`` for the last, 'max', bin)
        count               responses in the bin (whole run, warm-up included)
        ==========  ======  ========================================================

    Raises
    ------
    anfperf.ParseError
        No histogram bins in the file, or a bin line that cannot be read.

    Warns
    -----
    UserWarning
        Bins before the first 'Starting RD=' line or under a block title not listed in
        :data:`HISTOGRAM_BLOCKS` are skipped.
    """
    data, source = read_bytes(path)
    if not data.strip():
        raise ParseError(source, "empty file")
    bins, skipped, unknown = _bins(decode_text(data, source), source)
    if skipped:
        warn(
            f"{source}: {skipped} bins outside a known run definition block skipped"
            + (f" (unknown blocks: {sorted(unknown)})" if unknown else "")
        )
    jobs, steps, dirs, lo, hi, counts = zip(*bins, strict=True) if bins else ([],) * 6
    if not counts:
        raise ParseError(source, "no histogram bins: not a Vdbench histogram report")
    return pd.DataFrame(
        {
            "job": pd.array(jobs, dtype="string"),
            "step": pd.array(steps, dtype="Int64"),
            "direction": pd.Categorical(dirs, categories=["read", "write", "total"]),
            "bin_min_ms": np.asarray(lo, dtype=np.float64),
            "bin_max_ms": np.asarray(hi, dtype=np.float64),
            "count": np.asarray(counts, dtype=np.int64),
        }
    )


def vdbench_histogram_percentiles(
    histogram: pd.DataFrame, percentiles: tuple[float, ...] = (50.0, 90.0, 95.0, 99.0, 99.9)
) -> pd.DataFrame:
    """Latency percentiles from a Vdbench histogram (:func:`read_vdbench_histogram`).

    A percentile is the upper bound of the first bin whose cumulative count reaches it: an
    upper estimate, as exact as Vdbench's bins (``inf`` when it falls in the last, open bin).

    Parameters
    ----------
    histogram : pandas.DataFrame
        Output of :func:`read_vdbench_histogram`.
    percentiles : tuple of float
        Percentiles [%].

    Returns
    -------
    pandas.DataFrame
        One row per job x step x direction with ``count`` (responses) and a column
        ``lat_p<p>_ms`` [ms] per percentile (``lat_p99_ms``, ``lat_p999_ms`` for 99.9).
    """
    rows = []
    for (job, step, direction), block in histogram.groupby(
        ["job", "step", "direction"], sort=False, observed=True
    ):
        counts = block["count"].to_numpy(dtype=np.float64)
        total = counts.sum()
        row = {"job": job, "step": step, "direction": direction, "count": int(total)}
        cum = np.cumsum(counts)
        for p in percentiles:
            name = "lat_p" + f"{p:g}".replace(".", "") + "_ms"
            if total <= 0:
                row[name] = np.nan
                continue
            i = min(int(np.searchsorted(cum, p / 100.0 * total, side="left")), len(cum) - 1)
            row[name] = float(block["bin_max_ms"].iat[i])
        rows.append(row)
    return pd.DataFrame(rows)


def _bins(text: str, source: str) -> tuple[list[tuple], int, set[str]]:
    """(job, step, direction, bin_min_ms, bin_max_ms, count) of every bin under a known run
    definition block; the number of bins outside one, and the unknown block titles."""
    bins: list[tuple] = []
    job: str | None = None
    step = -1
    seen: dict[str, int] = {}
    direction: str | None = None
    unknown: set[str] = set()
    skipped = 0
    for no, line in enumerate(text.splitlines(), 1):
        if "Starting RD=" in line:
            started = rd_instance(line, seen)
            if started:
                job, step = started
                direction = None
            continue
        stripped = line.strip()
        if stripped.endswith(":") and not stripped.startswith("Link to"):
            direction = HISTOGRAM_BLOCKS.get(stripped.lower())  # None: a block we do not know
            if direction is None:
                unknown.add(stripped)
            continue
        m = _BIN.match(line)
        if m is None:
            continue
        if job is None or direction is None:
            skipped += 1
            continue
        bins.append((job, step, direction, *_bin(m, line, no, source)))
    return bins, skipped, unknown


def _bin(m: re.Match, line: str, no: int, source: str) -> tuple[float, float, int]:
    """Bounds [ms] and count of one bin line."""
    try:
        low = _ms(m.group(1))
        high = np.inf if m.group(2) == "max" else _ms(m.group(2))
        count = int(re.sub(r"\D", "", m.group(3)))
        if count >= 2**63:
            raise ValueError("count too large")
    except ValueError:
        raise ParseError(source, f"unreadable histogram bin {line.strip()!r}", line=no) from None
    return low, high, count
