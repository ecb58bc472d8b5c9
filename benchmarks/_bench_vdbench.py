"""Speed of read_vdbench on a 100,000-row flatfile against pandas.read_csv of the same table.

The flatfile is built from the real RndReadThreads run (Vdbench 50405): its comment block and
header, then its 49 data rows (7 for-loop instances of rd=threads) repeated until `n_rows`.
The baseline is ``pandas.read_csv(sep=r'\\s+')`` of the header line and the data rows, the
same bytes read_vdbench parses after finding its header.
"""

from __future__ import annotations

import io
import tracemalloc
import warnings
from pathlib import Path

import pandas as pd

from anfperf.ingest.vdbench import read_vdbench
from benchmarks._paired import paired_ratio

SOURCE = Path(__file__).resolve().parents[1] / "tests" / "data" / "vdbench" / "RndReadThreads"


def build_flatfile(target: Path, n_rows: int) -> tuple[bytes, bytes]:
    """Write a flatfile of `n_rows` real data rows; return (whole file, header + rows)."""
    lines = (SOURCE / "flatfile.html").read_bytes().splitlines(keepends=True)
    header_no = next(i for i, ln in enumerate(lines) if b" Run " in ln and b"Interval" in ln)
    rows = [ln for ln in lines[header_no + 1 :] if ln.strip() and not ln.startswith(b"<")]
    body = b"".join((rows * (n_rows // len(rows) + 1))[:n_rows])
    whole = b"".join(lines[: header_no + 1]) + body
    target.write_bytes(whole)
    return whole, lines[header_no] + body


def bench(workdir: Path, n_rows: int = 100_000, repeat: int = 5) -> dict:
    """Time the baseline and read_vdbench, paired (`repeat` rounds, each timing both in turn;
    the median of the per-round ratios), on a flatfile of `n_rows` rows.

    Returns
    -------
    dict
        ``baseline_s``, ``anfperf_s`` [s] (medians), ``ratio`` (median of anfperf / baseline
        per round; ``ratio_min``, ``ratio_max``), ``mb`` (file size,
        10**6 bytes), ``peak_mib`` (peak Python-tracked memory of one read_vdbench call [MiB]).
    """
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "flatfile.html"  # alone in its folder: no companions, the lone-file case
    whole, table = build_flatfile(path, n_rows)

    def baseline() -> None:
        pd.read_csv(io.BytesIO(table), sep=r"\s+")

    def anfperf() -> None:
        read_vdbench(path)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        anfperf()  # warm imports and caches
        timed = paired_ratio(baseline, anfperf, repeat)
        tracemalloc.start()
        anfperf()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return {
        **timed,
        "mb": len(whole) / 1e6,
        "peak_mib": peak / 2**20,
    }


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(bench(Path(tmp)))
