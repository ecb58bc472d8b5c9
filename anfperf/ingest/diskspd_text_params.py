"""The run parameters of DiskSpd's text output: its ``Input parameters`` and ``Command Line``."""

from __future__ import annotations

import re
import shlex

from anfperf.units import BYTES_PER_KIB

#: Size suffixes of DiskSpd (``-b4K``, ``block size: 4KiB``) in bytes.
UNITS = {"": 1, "B": 1, "K": 1024, "KIB": 1024, "M": 2**20, "MIB": 2**20, "G": 2**30, "GIB": 2**30}


def target_config(lines: list[str], number: int, source: str) -> dict:
    """Schema columns of the target whose ``path:`` is line `number` (1-based).

    Reads the indented lines below it: ``block size``, ``performing read/write/mix test``,
    ``using random/sequential I/O``, ``number of outstanding I/O operations [per thread]``,
    ``threads per file`` and ``software cache disabled`` (``-Su``/``-Sh``: direct I/O).
    """
    out: dict = {}
    indent = len(lines[number - 1]) - len(lines[number - 1].lstrip())
    for line in lines[number:]:
        text = line.strip()
        if not text or len(line) - len(line.lstrip()) <= indent:
            break
        if text.startswith("block size:"):
            size = _bytes(text.split(":", 1)[1])
            out["bs_kib"] = size / BYTES_PER_KIB if size else None
        elif text.startswith("performing"):
            mix = re.search(r"read/write ratio:\s*(\d+)/(\d+)", text)
            out["read_pct"] = (float(mix.group(1)) if mix else
                               100.0 if "read test" in text else 0.0)  # fmt: skip
        elif text.startswith("using random I/O"):
            out["pattern"] = "random"
        elif text.startswith(("using sequential I/O", "using interlocked sequential I/O")):
            out["pattern"] = "sequential"
        elif text.startswith("number of outstanding I/O operations"):
            out["iodepth"] = int(text.rsplit(":", 1)[1])
        elif text.startswith("threads per file:"):
            out["numjobs"] = int(text.rsplit(":", 1)[1])
        elif text == "software cache disabled":
            out["direct_io"] = True
        elif text.startswith("using software cache"):
            out["direct_io"] = False
    if out.get("iodepth") and out.get("numjobs"):
        out["outstanding"] = out["iodepth"] * out["numjobs"]
    return out


def command_line_config(line: str) -> dict:
    """Schema columns from a ``Command Line: diskspd.exe -b4K -t4 ...`` line, for what the
    ``Input parameters`` leave out (DiskSpd 2.2 may print none; with ``-F`` no threads per
    file): -b, -o, -t or -F, -w, -r/-s, -S (u, h: direct I/O)."""
    try:
        words = shlex.split(line.split(":", 1)[1], posix=False)
    except ValueError:
        words = line.split()
    out: dict = {}
    for word in words:
        flag, value = word[1:2], word[2:]
        if not word.startswith("-") or not flag:
            continue
        if flag == "b":
            size = _bytes(value)
            out["bs_kib"] = size / BYTES_PER_KIB if size else None
        elif flag == "o" and value.isdigit():
            out["iodepth"] = int(value)
        elif flag in "tF" and value.isdigit():  # -F: threads in all, each on every target
            out["numjobs"] = int(value)
        elif flag == "w" and value.isdigit():
            out["read_pct"] = 100.0 - int(value)
        elif flag == "r":
            out["pattern"] = "random"
        elif flag == "s" and "pattern" not in out:
            out["pattern"] = "sequential"
        elif flag == "S":
            out["direct_io"] = value == "" or any(c in value for c in "uh")
    out.setdefault("read_pct", 100.0)  # DiskSpd's default -w0
    if out.get("iodepth") and out.get("numjobs"):
        out["outstanding"] = out["iodepth"] * out["numjobs"]
    return out


def _bytes(text: str) -> float | None:
    found = re.match(r"\s*(\d+)\s*([A-Za-z]*)", text)
    if not found or found.group(2).upper() not in UNITS:
        return None
    return int(found.group(1)) * UNITS[found.group(2).upper()]
