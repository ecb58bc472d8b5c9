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
