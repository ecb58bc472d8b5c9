"""The tables of DiskSpd's text output: the I/O tables (``Total IO``, ``Read IO``, ``Write IO``)
and the ``-L`` latency percentile tables, and the numbers in them."""

from __future__ import annotations

import math
import re

from anfperf.errors import ParseError, warn
from anfperf.schema import PERCENTILE_COLUMNS

#: Header cells of an I/O table -> our names (AvgLat and LatStdDev only with -L, IopsStdDev
#: only with -D).
CELLS = {
    "bytes": "bytes", "I/Os": "ios", "MiB/s": "bw_mib_s", "I/O per s": "iops",
    "MB/s": "bw_mib_s",  # DiskSpd before 2.0.20 said MB/s of 2**20 bytes: MiB/s

    "AvgLat": "lat_mean_ms", "IopsStdDev": "iops_std", "LatStdDev": "lat_std_ms",
}  # fmt: skip
#: Percentile columns by percentile, and the two ends of DiskSpd's table.
PERCENTILES = {v: k for k, v in PERCENTILE_COLUMNS.items()}
ENDS = {"min": "lat_min_ms", "max": "lat_max_ms"}
#: Percentile table columns: Read (ms), Write (ms), Total (ms).
PCT_DIRECTIONS = ("read", "write", "total")
SIZE = re.compile(r"\s+\([\d.,]+\s*[KMGTPE]?i?B\)$")  # "file.dat (1024MiB)"
COMMA = re.compile(r"^-?\d+,\d+$")  # "13052,65": a localized decimal comma


def io_table(lines: list[str], i: int, end: int, source: str) -> tuple[tuple, int]:
    """(thread lines, total line) of an I/O table whose header is lines[i]; next index."""
    names = [CELLS.get(c.strip(), c.strip()) for c in lines[i].split("|")]
    rows, total = [], None
    for j in range(i + 1, end):
        text = lines[j].strip()
        if text.startswith("total:"):
            values = [c.strip() for c in text[len("total:") :].split("|")]
            if len(values) != len(names) - 2:
                raise ParseError(source, f"line {j + 1}: {len(values)} numbers, the header has "
                                         f"{len(names) - 2}: cut short")  # fmt: skip
            total = {n: number(v, source, j) for n, v in zip(names[1:-1], values, strict=True)}
            return (rows, total), j + 1
        if not text or set(text) == {"-"}:
            continue
        cells = [c.strip() for c in lines[j].split("|")]
        if len(cells) != len(names):
            break
        row = {n: number(v, source, j) for n, v in zip(names[1:-1], cells[1:-1], strict=True)}
        row["thread"], row["file"] = int(cells[0]), SIZE.sub("", cells[-1])
        rows.append(row)
    raise ParseError(source, f"line {i + 1}: I/O table without its 'total:' line: cut short")


def pct_table(lines: list[str], i: int, end: int, source: str) -> tuple[dict, int]:
    """{direction: {column: ms}} of a percentile table starting at lines[i]; next index."""
    out: dict[str, dict] = {d: {} for d in PCT_DIRECTIONS}
    while i < end and "|" in lines[i]:
        label, *values = (c.strip() for c in lines[i].split("|"))
        column = ENDS.get(label) or PERCENTILES.get(percentile(label))
        if column:
            for direction, value in zip(PCT_DIRECTIONS, values, strict=False):
                out[direction][column] = number(value, source, i)
        i += 1
    return out, i


def percentile(label: str) -> float | None:
    """'25th' -> 25.0, '3-nines' -> 99.9."""
    if label.endswith("th") and label[:-2].isdigit():
        return float(label[:-2])
    if label.endswith("-nines") and label[0].isdigit():
        return round(100 - 10 ** (2 - int(label[0])), 9)
    return None


def number(text: str, source: str, index: int) -> float | None:
    if text in ("N/A", ""):
        return None
    if COMMA.match(text):
        warn(f"{source}:{index + 1}: decimal comma in {text!r} (a localized DiskSpd); read as "
             "a decimal point")  # fmt: skip
        text = text.replace(",", ".")
    try:
        return float(text)
    except ValueError:
        raise ParseError(source, f"line {index + 1}: {text[:40]!r} is not a number") from None


def pooled(rows: list[dict]) -> tuple[dict, float]:
    """Sum of thread lines; I/O-weighted mean latency and pooled standard deviation."""
    ios = sum(r["ios"] or 0 for r in rows)
    out = {"iops": sum(r["iops"] or 0 for r in rows),
           "bw_mib_s": sum(r["bw_mib_s"] or 0 for r in rows)}  # fmt: skip
    if ios and all(r.get("lat_mean_ms") is not None for r in rows if r["ios"]):
        mean = sum(r["ios"] * r["lat_mean_ms"] for r in rows if r["ios"]) / ios
        out["lat_mean_ms"] = mean
        if all(r.get("lat_std_ms") is not None for r in rows if r["ios"]):
            second = sum(r["ios"] * (r["lat_std_ms"] ** 2 + r["lat_mean_ms"] ** 2)
                         for r in rows if r["ios"]) / ios  # fmt: skip
            out["lat_std_ms"] = math.sqrt(max(second - mean**2, 0.0))
    return out, ios
