"""DiskSpd's text output (the default, ``-Rtext``).

What ``diskspd`` prints without ``-Rxml``: an optional ``Command Line:``, ``Input parameters:``
(per time span and target: block size, mix, pattern, outstanding I/O, threads, caching),
``System information:`` (``computer name``) and per time span ``Results for timespan N:`` with
a CPU table, three I/O tables (``Total IO``, ``Read IO``, ``Write IO``: one line per thread and
target, then a ``total:`` line) and, with ``-L``, latency percentile tables (per target and
``total:``). It has no histogram and no tool version; per-thread lines are rounded (MiB/s and
I/O per s to 0.01, latencies to 0.001 ms), the ``total:`` lines are computed by DiskSpd from the
unrounded counts.
"""

from __future__ import annotations

import codecs
import logging
import os
import re
from typing import IO

import pandas as pd

from anfperf.errors import ParseError, warn
from anfperf.ingest._frame import finalize
from anfperf.ingest._source import read_bytes
from anfperf.ingest.diskspd_text_params import command_line_config, target_config
from anfperf.ingest.diskspd_text_tables import io_table, number, pct_table, pooled
from anfperf.ingest.registry import Format

log = logging.getLogger(__name__)

#: The three I/O tables, by their title line.
TABLES = {"Total IO": "total", "Read IO": "read", "Write IO": "write"}
_STARTS = ("Command Line:", "Input parameters:")
_UTF8_BOM = codecs.BOM_UTF8
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def read_diskspd_text(
    path_or_buffer: str | os.PathLike | IO[bytes], *, run_id: str | None = None
) -> pd.DataFrame:
    """Read DiskSpd's text output into the tidy frame, the rows :func:`read_diskspd_xml` gives.

    One row per time span x target x direction ('read', 'write', 'total'); directions without
    I/O are left out.

    ===============  ======  ==========================================================
    column           unit    source
    ===============  ======  ==========================================================
    host                     ``computer name``
    timestamp        UTC     ``start time`` (System information; older outputs have none):
                             the run's start, as the XML reader's ``RunTime``
    job, workload            target path (file size in brackets dropped)
    iops             1/s     ``I/O per s`` (one target: its ``total:`` line; several:
                             the sum of the target's thread lines)
    bw_mib_s         MiB/s   ``MiB/s``, likewise
    lat_mean_ms      ms      ``AvgLat`` (with ``-L``; several targets: I/O-weighted)
    lat_std_ms       ms      ``LatStdDev`` (several targets: pooled from thread lines)
    lat_min_ms ...   ms      percentile table (``min``, ``50th`` ... ``3-nines``, ``max``)
    bs_kib, read_pct,        ``Input parameters`` (else the ``Command Line``)
    pattern, iodepth,
    numjobs, outstanding
    direct_io                ``software cache disabled`` (``-Su``, ``-Sh``)
    runtime_s        s       ``actual test time``
    cpu_*_pct        %       the CPU table's ``avg.`` line
    interrupted              actual test time short of the requested duration by > 1 s
    tool_version             only where the command line's path names a ``diskspd.X.Y.Z``
                             package; the text itself does not say
    ===============  ======  ==========================================================

    Without ``-L`` DiskSpd measures no latency: the latency columns stay empty (NaN, never 0)
    and an INFO log line says so.

    Decimal commas (``13052,65``), CRLF, UTF-16 (PowerShell redirection), a BOM and non-UTF-8
    code pages are read, each with a warning naming the file (and line where it is one line).

    Parameters
    ----------
    path_or_buffer : str, os.PathLike or binary file
        The text file (optionally gzip-compressed).
    run_id : str, optional
        Run identifier; derived from the file name when not given.

    Raises
    ------
    anfperf.ParseError
        The file is not DiskSpd text, or a time span's results are cut short.
    """
    data, source = read_bytes(path_or_buffer)
    return finalize(parse_rows(data, source), source=source, run_id=run_id)


def parse_rows(data: bytes, source: str) -> list[dict]:
    """Rows of schema columns from DiskSpd text (see :func:`read_diskspd_text`)."""
    lines = _decode(data, source).splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith(_STARTS)), 0)
    if any(line.strip() for line in lines[:first]):
        warn(f"{source}:{first + 1}: DiskSpd's output starts here; the {first} lines before it "
             "(a console transcript, system notes) are not read")  # fmt: skip
    lines = lines[first:]
    head = _header(lines, source)
    starts = [i for i, line in enumerate(lines) if line.startswith("Results for timespan")]
    if not starts:
        raise ParseError(source, f"no 'Results for timespan' after line {len(lines)}: "
                                 "the run did not finish or the output is cut short")  # fmt: skip
    rows: list[dict] = []
    for step, start in enumerate(starts):
        end = starts[step + 1] if step + 1 < len(starts) else len(lines)
        rows.extend(_span_rows(lines, start, end, step, head, source))
    return rows


def _decode(data: bytes, source: str) -> str:
    if data.startswith(_UTF16_BOMS):
        warn(f"{source}: UTF-16 text (PowerShell redirection); read as such")
        return data.decode("utf-16")
    if data.startswith(_UTF8_BOM):
        return data[len(_UTF8_BOM) :].decode("utf-8", errors="replace")
    if b"\x00" in data[:4096]:
        raise ParseError(source, "binary data, not DiskSpd text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        warn(f"{source}:{line}: not UTF-8 (a Windows code page); read as cp1252")
        return data.decode("cp1252", errors="replace")


def _header(lines: list[str], source: str) -> dict:
    """Host, version and per-span target parameters from the lines before the results."""
    host, version, started, spans, cmd = None, None, None, [], {}
    for at, line in enumerate(lines, 1):
        text = line.strip()
        if text.startswith("Results for timespan"):
            break
        if text.startswith("Command Line:"):
            cmd = command_line_config(text)
            found = re.search(r"diskspd[.-](\d+\.\d+\.\d+\w*)", text, re.IGNORECASE)
            version = f"diskspd-{found.group(1)}" if found else None
        elif text.startswith("computer name:"):
            host = text.split(":", 1)[1].strip() or None
        elif text.startswith("start time:") and started is None:
            # "2026/08/17 15:05:06 UTC": the moment the XML's <RunTime> gives (the same value)
            stamp = text.split(":", 1)[1].strip().replace(" UTC", "")
            started = pd.to_datetime(stamp, utc=True, errors="coerce", format="%Y/%m/%d %H:%M:%S")
        elif text.startswith("timespan:"):
            spans.append({"targets": {}, "duration_s": None})
        elif spans and text.startswith("duration:"):
            spans[-1]["duration_s"] = _seconds(text.split(":", 1)[1])
        elif spans and text.startswith("path:"):
            path = text.split(":", 1)[1].strip().strip("'")
            spans[-1]["targets"][path] = target_config(lines, at, source)
    return {"host": host, "version": version, "started": started, "spans": spans, "cmd": cmd}


def _seconds(text: str) -> float | None:
    found = re.match(r"\s*(\d+(?:[.,]\d+)?)s", text)  # "30.01s", localized "30,01s"
    return float(found.group(1).replace(",", ".")) if found else None


def _span_rows(lines: list[str], start: int, end: int, step: int, head: dict, source: str):
    """Rows of one ``Results for timespan`` section (lines[start:end])."""
    seconds, threads, cpu = None, None, {}
    tables: dict[str, tuple[list[dict], dict]] = {}
    pct: dict[str, dict] = {}
    i = start
    while i < end:
        text = lines[i].strip()
        if text.startswith("actual test time:"):
            seconds = _seconds(text.split(":", 1)[1])
        elif text.startswith("thread count:"):
            threads = int(text.split(":", 1)[1])
        elif "avg.|" in text.replace(" ", ""):
            cells = [c.strip().rstrip("%") for c in text.split("|")]
            cpu = {
                "cpu_user_pct": number(cells[-3], source, i),
                "cpu_sys_pct": number(cells[-2], source, i),
            }
        elif text in TABLES:
            tables[TABLES[text]], i = io_table(lines, i + 1, end, source)
        elif text.startswith("%-ile"):
            label = lines[i - 1].strip()
            key = "" if label in ("total:", "Total latency distribution:") else label
            pct[key], i = pct_table(lines, i + 2, end, source)
            continue
        i += 1
    if seconds is None or "total" not in tables:
        raise ParseError(source, f"timespan {step + 1} (line {start + 1}): no 'actual test time' "
                                 "or 'Total IO' total line: the output is cut short")  # fmt: skip
    if "lat_mean_ms" not in tables["total"][1]:  # a run without -L: no latency was measured
        log.info("%s:%d: timespan %d has no AvgLat column (DiskSpd ran without -L): latency "
                 "left empty", source, start + 1, step + 1)  # fmt: skip
    spans = head["spans"]
    span = spans[step] if step < len(spans) else {"targets": {}, "duration_s": None}
    interrupted = bool(span["duration_s"] and seconds < span["duration_s"] - 1)
    if interrupted:
        warn(f"{source}:{start + 1}: timespan {step + 1} ran {seconds} s of the "
             f"{span['duration_s']} s requested: the run was cut short")  # fmt: skip
    base = {"tool": "diskspd", "tool_version": head["version"], "host": head["host"] or
            "localhost", "timestamp": head["started"], "step": step, "is_summary": True,
            "runtime_s": seconds, "interrupted": interrupted, **cpu}  # fmt: skip
    return _rows(tables, pct, threads, span["targets"], head["cmd"], base, source, start)


def _rows(tables, pct, threads, targets, cmd, base, source, start) -> list[dict]:
    """Per target and direction; from the ``total:`` lines when there is one target."""
    listed, total_line = tables["total"]
    files = list(dict.fromkeys(r["file"] for r in listed))
    complete = threads is None or len({r["thread"] for r in listed}) >= threads
    if len(files) > 1 and not complete:
        warn(f"{source}:{start + 1}: {len({r['thread'] for r in listed})} of {threads} thread "
             "lines listed: per-target numbers cannot be summed; one row for all targets from "
             "the 'total:' lines")  # fmt: skip
    single = len(files) <= 1 or not complete
    rows = []
    for path in [" + ".join(files)] if single else files:
        own = targets.get(path) or (targets.get(files[0]) if len(files) == 1 else None) or {}
        cfg = {**cmd, **own}
        if cfg.get("iodepth") and cfg.get("numjobs"):
            cfg["outstanding"] = cfg["iodepth"] * cfg["numjobs"]
        for direction in ("read", "write", "total"):
            if direction not in tables:
                continue
            per_thread, total = tables[direction]
            if single:
                numbers = {k: total.get(k) for k in ("iops", "bw_mib_s", "lat_mean_ms",
                                                     "lat_std_ms")}  # fmt: skip
                ios = total.get("ios")
            else:
                numbers, ios = pooled([r for r in per_thread if r["file"] == path])
            if not ios:
                continue
            latency = pct.get("" if single else path, {}).get(direction, {})
            rows.append({**base, **cfg, "job": path, "workload": path, "direction": direction,
                         **numbers, **latency})  # fmt: skip
    return rows


def _sniff(head: bytes) -> bool:
    """DiskSpd's first line, or its ``Command Line:`` and ``Input parameters:`` at the start of
    lines after a few lines of console transcript (``PS C:\\> diskspd ...``)."""
    if head.startswith(_UTF8_BOM):
        head = head[len(_UTF8_BOM) :]
    elif head.startswith(_UTF16_BOMS):  # the ASCII of the first lines, without their NULs
        head = head[2:].replace(b"\x00", b"")
    if head.lstrip().startswith(tuple(start.encode() for start in _STARTS)):
        return True
    start = head.find(b"\nCommand Line: ", 0, 4096)
    return start >= 0 and b"\nInput parameters:" in head[start : start + 4096]


FORMAT = Format(
    name="diskspd_text",
    title="DiskSpd text",
    tool="diskspd",
    sniff=_sniff,
    read=read_diskspd_text,
    suffixes=(".txt",),
)
