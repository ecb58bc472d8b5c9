"""Vdbench's interval lines read as they arrive: one interval per line of a raw-I/O (SD) run.

Vdbench prints on its console (and in ``summary.html``) one line per reporting interval under a
two-line header::

    Nov 21, 2026  interval        i/o   MB/sec   bytes   read     resp     read    write     resp ...
                                 rate  1024**2     i/o    pct     time     resp     resp      max ...
    23:50:26.178         1   29742.00   232.36    8192 100.00    1.084    1.084    0.000   43.975 ...

Unlike fio's documents these figures are the interval's own, not cumulative: the rate is I/O per
second, MB/sec is MiB/s (``1024**2``), resp is the mean response time in ms; the read and write
parts come from the read percentage. An interval lasts `interval_s` (Vdbench's ``interval=``):
a line's time stamp is when it was printed, which jitters, and gives `t_s` alone. ``avg_a-b``
lines, messages and the lines of other layouts (file-system FSD runs print other columns: not
read live) are skipped.

anfperf renders SD runs only (:mod:`anfperf.tools.vdbench`: ``sd=`` lines on a file of each
mount), so every run it starts is read. The run Vdbench adds to make or extend a file that is
missing or short (``RD=SD_format``) prints the same lines and is read too: the volume's writes
while the files are made (ingest keeps them as warm-up, not as the workload's result). A
multi-host run's lines are the master's: the sum of its slaves.
"""

from __future__ import annotations

import logging
import math
import re

from anfperf.live.fio_stream import Interval

__all__ = ["VdbenchStream"]

log = logging.getLogger(__name__)

#: The first header line of a raw-I/O (SD) run's intervals.
_SD_HEADER = re.compile(r"interval\s+i/o\s+MB/sec\s+bytes\s+read\s+resp\s+read\s+write")
#: A header of another layout: its lines are not read until an SD header comes again.
_OTHER_HEADER = re.compile(r"\binterval\b.*\bReqstdOps\b|\binterval\b.*\bi/o\b", re.IGNORECASE)
_LINE = re.compile(
    r"^\s*(?P<h>\d\d):(?P<m>\d\d):(?P<s>\d\d(?:\.\d+)?)\s+(?P<interval>\d+)\s+"
    r"(?P<rate>[\d.]+)\s+(?P<mib>[\d.]+)\s+(?P<bytes>\d+)\s+(?P<read>[\d.]+)\s+(?P<resp>[\d.]+)\s"
)
_DAY_S = 86400.0


class VdbenchStream:
    """Reads one host's Vdbench console as it arrives, one :class:`Interval` per interval line.

    Parameters
    ----------
    host : str
        The host the stream comes from.
    interval_s : float
        Vdbench's reporting interval [s] (``interval=``), the first line's length.
    """

    def __init__(self, host: str, interval_s: float = 1.0) -> None:
        self.host = host
        self.interval_s = interval_s
        self._pending = b""
        self._sd = False
        self._first_s: float | None = None
        self._last_s: float | None = None

    def feed(self, chunk: bytes) -> list[Interval]:
        """Take the next bytes; return the intervals of the lines they completed."""
        lines = (self._pending + chunk).split(b"\n")
        self._pending = lines.pop()
        if len(self._pending) > 1 << 16:
            self._pending = b""  # no line is that long: not Vdbench's
        found = []
        for raw in lines:
            interval = self._line(raw.decode("utf-8", "replace"))
            if interval is not None:
                found.append(interval)
        return found

    def _line(self, text: str) -> Interval | None:
        if _SD_HEADER.search(text):
            self._sd = True
            return None
        if _OTHER_HEADER.search(text):
            self._sd = False
            return None
        match = _LINE.match(text) if self._sd else None
        if match is None:
            return None
        clock_s = int(match["h"]) * 3600 + int(match["m"]) * 60 + float(match["s"])
        if self._first_s is None:
            self._first_s = clock_s - self.interval_s
        if self._last_s is not None and clock_s < self._last_s - _DAY_S / 2:
            clock_s += _DAY_S  # past midnight
        self._last_s = clock_s
        span_s = self.interval_s  # the line's time stamp is when it was printed: it jitters
        rate, mib_s = float(match["rate"]), float(match["mib"])
        read = min(max(float(match["read"]) / 100, 0.0), 1.0)
        resp = float(match["resp"])
        return Interval(
            host=self.host,
            t_s=clock_s - self._first_s,
            span_s=span_s,
            ios=round(rate * span_s),
            iops=rate,
            bw_mib_s=mib_s,
            lat_mean_ms=resp if rate > 0 else math.nan,
            read_iops=rate * read,
            write_iops=rate * (1 - read),
            read_bw_mib_s=mib_s * read,
            write_bw_mib_s=mib_s * (1 - read),
        )
