"""DiskSpd ``-Rxml`` results.

DiskSpd writes one ``<Results>`` document: ``<System>`` (host, tool version, run time), ``<Profile>``
(the requested time spans and targets) and one measured ``<TimeSpan>`` per requested one, with
per-thread, per-target byte and I/O counts and, when run with ``-L``, latency averages and a
percentile table. Byte counts are bytes (converted here to MiB/s); latencies are milliseconds.
"""

from __future__ import annotations

import logging
import math
import os
import xml.etree.ElementTree as ET
from typing import IO

import pandas as pd

from anfperf.errors import ParseError, warn
from anfperf.ingest._frame import finalize
from anfperf.ingest._source import read_bytes
from anfperf.ingest.registry import Format
from anfperf.schema import PERCENTILE_COLUMNS
from anfperf.units import BYTES_PER_KIB, BYTES_PER_MIB

log = logging.getLogger(__name__)

#: Percentile rows of DiskSpd's latency table that map onto schema columns.
PERCENTILES = {v: k for k, v in PERCENTILE_COLUMNS.items()}
#: (direction, count element, bytes element, mean-latency element, stdev element, bucket element)
DIRECTIONS = (
    ("read", "ReadCount", "ReadBytes", "AverageReadMilliseconds", "ReadLatencyStdev",
     "ReadMilliseconds"),
    ("write", "WriteCount", "WriteBytes", "AverageWriteMilliseconds", "WriteLatencyStdev",
     "WriteMilliseconds"),
    ("total", "IOCount", "BytesCount", "AverageTotalMilliseconds", "LatencyStdev",
     "TotalMilliseconds"),
)  # fmt: skip


def read_diskspd_xml(
    path_or_buffer: str | os.PathLike | IO[bytes], *, run_id: str | None = None
) -> pd.DataFrame:
    """Read a DiskSpd ``-Rxml`` result into the tidy frame.

    One row per time span x target x direction ('read', 'write', 'total'), summed over threads;
    directions without I/O are left out.

    ===============  ======  ==========================================================
    column           unit    source
    ===============  ======  ==========================================================
    host                     ``System/ComputerName``
    job, workload            target path
    iops             1/s     I/O count / ``TestTimeSeconds``
    bw_mib_s         MiB/s   bytes / ``TestTimeSeconds`` / 2**20
    lat_mean_ms      ms      ``Latency/Average*Milliseconds`` (with ``-L`` only)
    lat_p50_ms ...   ms      ``Latency/Bucket`` percentile rows (one target only)
    bs_kib           KiB     ``Target/BlockSize`` / 1024
    read_pct         %       100 - ``Target/WriteRatio``
    iodepth                  ``Target/RequestCount`` (``-o``); numjobs: threads per target
    outstanding              iodepth x threads per target
    direct_io                ``Target/DisableOSCache`` or ``DisableAllCache`` (``-Su``, ``-Sh``)
    ===============  ======  ==========================================================

    Parameters
    ----------
    path_or_buffer : str, os.PathLike or binary file
        The XML file (optionally gzip-compressed).
    run_id : str, optional
        Run identifier; derived from the file name when not given.

    Raises
    ------
    anfperf.ParseError
        The file is not DiskSpd XML, is truncated, or holds no measured time span.
    """
    data, source = read_bytes(path_or_buffer)
    return finalize(_parse_diskspd_xml(data, source), source=source, run_id=run_id)


def _parse_diskspd_xml(data: bytes, source: str) -> list[dict]:
    root = _results_root(data, source)
    spans = root.findall("TimeSpan")
    if not spans:
        raise ParseError(source, "no measured <TimeSpan>: the run did not finish")
    profiles = root.findall("Profile/TimeSpans/TimeSpan")
    system = _system_columns(root)
    rows: list[dict] = []
    for step, span in enumerate(spans):
        rows.extend(_span_rows(span, step, profiles[step] if step < len(profiles) else None,
                               system, source))  # fmt: skip
    return rows


def _results_root(data: bytes, source: str) -> ET.Element:
    """The <Results> element of a DiskSpd XML document."""
    if not data.strip():
        raise ParseError(source, "empty file, expected DiskSpd -Rxml output")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ParseError(source, f"not well-formed XML (truncated run?): {exc}") from None
    if root.tag != "Results":
        raise ParseError(source, f"root element is <{root.tag}>, expected DiskSpd <Results>")
    return root


def _system_columns(root: ET.Element) -> dict:
    """Columns every row shares: tool, version, host and the time of the run."""
    version = _text(root, "System/Tool/Version")
    run_time = _text(root, "System/RunTime")
    return {
        "tool": "diskspd",
        "tool_version": f"diskspd-{version}" if version else None,
        "host": _text(root, "System/ComputerName") or "localhost",
        "timestamp": (
            pd.to_datetime(run_time.replace(" UTC", ""), utc=True, errors="coerce")
            if run_time
            else None
        ),
    }


def _span_rows(
    span: ET.Element, step: int, profile: ET.Element | None, system: dict, source: str
) -> list[dict]:
    """Rows of one measured time span: per target, one per direction that did I/O."""
    seconds = _number(span, "TestTimeSeconds", source)
    if not seconds or seconds <= 0:
        raise ParseError(source, f"time span {step}: TestTimeSeconds missing or zero")
    config = _target_config(profile)
    counts = _sum_targets(span, source)
    if not counts:
        raise ParseError(source, f"time span {step}: no per-thread <Target> results")
    latency = span.find("Latency")
    base = {
        **system,
        "step": step,
        "is_summary": True,
        "runtime_s": seconds,
        "cpu_user_pct": _number(span, "CpuUtilization/Average/UserPercent", source),
        "cpu_sys_pct": _number(span, "CpuUtilization/Average/KernelPercent", source),
    }
    rows = []
    for path, totals in counts.items():
        cfg = config.get(path, {})
        for direction, count_tag, bytes_tag, mean_tag, std_tag, bucket_tag in DIRECTIONS:
            ios = totals[count_tag]
            if ios <= 0:
                continue
            row = {
                **base, **cfg, "job": path, "workload": path, "direction": direction,
                "iops": ios / seconds, "bw_mib_s": totals[bytes_tag] / seconds / BYTES_PER_MIB,
            }  # fmt: skip
            # The span-level latency table covers all targets: it is this target's own
            # only when there is a single target.
            if latency is not None and len(counts) == 1:
                row["lat_mean_ms"] = _number(latency, mean_tag, source)
                row["lat_std_ms"] = _number(latency, std_tag, source)
                row.update(_percentiles(latency, bucket_tag, source))
            elif latency is not None and direction != "total":
                row["lat_mean_ms"] = totals.get(f"lat_{direction}")
            rows.append(row)
    return rows


def _target_config(profile: ET.Element | None) -> dict[str, dict]:
    """Requested block size, mix, pattern and concurrency per target path."""
    config: dict[str, dict] = {}
    if profile is None:
        return config
    for target in profile.findall("Targets/Target"):
        path = _text(target, "Path")
        block = _int(target, "BlockSize")
        depth = _int(target, "RequestCount")
        threads = _int(target, "ThreadsPerFile")
        write_ratio = _int(target, "WriteRatio")
        random = _text(target, "RandomAccess") == "true"
        # DiskSpd writes these only when -S turned a cache off (-Su: OS cache; -Sh: both)
        uncached = any(
            _text(target, tag) == "true" for tag in ("DisableOSCache", "DisableAllCache")
        )
        config[path] = {
            "bs_kib": block / BYTES_PER_KIB if block else None,
            "read_pct": 100.0 - write_ratio if write_ratio is not None else None,
            "pattern": "random" if random else "sequential",
            "iodepth": depth,
            "numjobs": threads,
            "outstanding": depth * threads if depth and threads else None,
            "direct_io": uncached,
        }
    return config


def _sum_targets(span: ET.Element, source: str) -> dict[str, dict]:
    """Per target path: I/O and byte counts summed over threads, count-weighted latency."""
    out: dict[str, dict] = {}
    for target in span.findall("Thread/Target"):
        path = _text(target, "Path")
        acc = out.setdefault(path, dict.fromkeys(
            ("IOCount", "BytesCount", "ReadCount", "ReadBytes", "WriteCount", "WriteBytes"), 0
        ))  # fmt: skip
        for key in list(acc):
            acc[key] += _number(target, key, source) or 0
        for direction, tag in (("read", "AverageReadLatencyMilliseconds"),
                               ("write", "AverageWriteLatencyMilliseconds")):  # fmt: skip
            mean = _number(target, tag, source)
            if mean is not None:
                n = _number(target, f"{direction.title()}Count", source) or 0
                acc[f"_w_{direction}"] = acc.get(f"_w_{direction}", 0.0) + n * mean
    for acc in out.values():
        for direction in ("read", "write"):
            weighted = acc.pop(f"_w_{direction}", None)
            count = acc[f"{direction.title()}Count"]
            if weighted is not None and count:
                acc[f"lat_{direction}"] = weighted / count
    return out


def _percentiles(latency: ET.Element, bucket_tag: str, source: str) -> dict[str, float]:
    out = {}
    for bucket in latency.findall("Bucket"):
        pct = _number(bucket, "Percentile", source)
        column = PERCENTILES.get(pct)
        if column is not None:
            out[column] = _number(bucket, bucket_tag, source)
    return out


def _text(node: ET.Element, path: str) -> str | None:
    found = node.find(path)
    return found.text.strip() if found is not None and found.text else None


def _number(node: ET.Element, path: str, source: str) -> float | None:
    text = _text(node, path)
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ParseError(source, f"<{path}> is not a number: {text[:40]!r}") from None
    if not math.isfinite(value):  # 'inf', 'nan', 1e999: missing, and said, never an inf
        warn(f"{source}: <{path}> is {text[:40]!r}, not a finite number; read as missing (NaN)")
        return math.nan
    return value


def _int(node: ET.Element, path: str) -> int | None:
    text = _text(node, path)
    return int(text) if text and text.isdigit() else None


def _sniff(head: bytes) -> bool:
    text = head.lstrip()
    return text.startswith((b"<?xml", b"<Results"))


FORMAT = Format(
    name="diskspd",
    title="DiskSpd XML",
    tool="diskspd",
    sniff=_sniff,
    read=read_diskspd_xml,
    suffixes=(".xml", ".txt"),
)
