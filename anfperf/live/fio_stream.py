"""fio's ``--output-format=json --status-interval=S`` read as it arrives: one interval per document.

With ``--status-interval``, fio prints a whole JSON document every S seconds and one more at the
end, on the same stream, one after the other. Every document is *cumulative*: its ``total_ios``,
``io_bytes``, ``runtime`` and latency statistics count from the job's start. The figures of one
interval are therefore the difference of two consecutive documents:

- rates: Δ ``total_ios`` / Δ ``runtime`` and Δ ``io_bytes`` / Δ ``runtime``, per job and direction,
  summed over the host's jobs (``runtime`` is fio's own clock of the time a job did I/O, in ms;
  a job that did not run in the interval adds nothing);
- mean latency: Δ(``lat_ns.mean`` x ``lat_ns.N``) / Δ ``lat_ns.N`` over every job and direction
  (the total latency, submission + completion, as :mod:`anfperf.ingest.fio_json` reports; ``N``
  counts completed I/O, which lags ``total_ios`` by the I/O in flight). fio 2.x's ``lat`` (us) is
  read too; a job that measured no latency (``gtod_reduce``, ``disable_lat``) gives NaN, never 0.

A counter that goes back (fio resets its figures after ``ramp_time``) starts again from zero, so
the first interval after a reset is its figures since the reset. Summing an interval's ``ios``
over the stream gives the last document's ``total_ios``: what is shown live adds up to the raw
output, but the raw output stays the record (the live figures are never ingested). The
difference of two documents is :func:`anfperf.ingest.fio_series.difference`, the one the reader
of a saved series makes its interval rows with; the documents are decoded into
:mod:`anfperf.ingest.fio_doc`'s records, as that reader decodes them.

:class:`FioStream` takes bytes in any chunks (a pipe, an SSH channel): a document cut across
chunks waits for its end, several in one chunk are all read, and text around them (fio's warnings,
a shell's noise) is skipped. It never raises on what it is fed; a document that closes but is not
JSON is skipped with a warning in the log.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from anfperf.errors import ParseError
from anfperf.ingest import fio_doc
from anfperf.ingest.fio_series import Counters, block_counters, difference
from anfperf.units import MS_PER_S, NS_PER_MS

__all__ = ["Interval", "LiveStream", "FioStream", "fio_intervals"]

log = logging.getLogger(__name__)

#: Where a fio JSON document starts: an object whose first key is one fio writes first.
_DOC_START = re.compile(rb'\{\s*"(?:fio version|jobs|client_stats|global options)"')
#: The longest text that may be the start of a document cut by a chunk's end.
_START_TAIL = 64
#: The characters that matter inside a document: braces, and strings (whose braces do not count).
_TOKEN = re.compile(rb'[{}"]')
_STRING_END = re.compile(rb'["\\]')
#: A document longer than this is not a status document (a json+ one of many jobs is a few MB).
MAX_DOCUMENT_BYTES = 64 * 2**20
_DIRECTIONS = ("read", "write", "trim")


@dataclass(frozen=True)
class Interval:
    """One host's figures over one status interval (the difference of two fio documents).

    Attributes
    ----------
    host : str
        The host the stream came from.
    t_s : float
        End of the interval [s] since the start of the stream's first interval (fio's clock:
        the documents' ``timestamp_ms``).
    span_s : float
        Length of the interval [s]: the longest time a job of the host did I/O in it.
    ios : int
        I/O completed in the interval, all directions.
    iops : float
        I/O per second over the interval, all directions and jobs of the host [1/s].
    bw_mib_s : float
        Throughput over the interval [MiB/s].
    lat_mean_ms : float
        Mean total latency of the I/O completed in the interval [ms]; NaN when none was
        measured.
    read_iops, write_iops : float
        The read and write parts of `iops` [1/s] (trims count in the totals alone).
    read_bw_mib_s, write_bw_mib_s : float
        The read and write parts of `bw_mib_s` [MiB/s].
    """

    host: str
    t_s: float
    span_s: float
    ios: int
    iops: float
    bw_mib_s: float
    lat_mean_ms: float
    read_iops: float
    write_iops: float
    read_bw_mib_s: float
    write_bw_mib_s: float


class LiveStream(Protocol):
    """What reads one host's live output: bytes in any chunks in, the intervals complete so far
    out (:class:`FioStream`, :class:`~anfperf.live.vdbench_stream.VdbenchStream`)."""

    host: str

    def feed(self, chunk: bytes) -> list[Interval]: ...


class FioStream:
    """Reads one host's fio status-interval JSON as it arrives, one :class:`Interval` per document.

    Parameters
    ----------
    host : str
        The host the stream comes from; each interval carries it.

    Examples
    --------
    >>> stream = FioStream("vm07")
    >>> for chunk in channel:  # doctest: +SKIP
    ...     for interval in stream.feed(chunk):
    ...         fleet.add(interval)

    Attributes
    ----------
    documents : int
        Documents read so far.
    skipped : int
        Documents that closed but were not JSON, or were too long, and were skipped.
    """

    def __init__(self, host: str) -> None:
        self.host = host
        self.documents = 0
        self.skipped = 0
        self._buffer = bytearray()
        self._in_doc = False  # the buffer starts with a document not yet closed
        self._scan_at = 0  # where the brace scan of that document resumes
        self._depth = 0
        self._in_string = False
        self._previous: dict[tuple, Counters] = {}
        self._previous_ts_ms: float | None = None
        self._t_s = 0.0

    def feed(self, chunk: bytes) -> list[Interval]:
        """Take the next bytes of the stream; return the intervals of the documents they closed.

        A document not yet closed waits for the next chunk. Never raises on the bytes.
        """
        self._buffer += chunk
        intervals = []
        for doc in self._documents():
            interval = self._interval(doc)
            if interval is not None:
                intervals.append(interval)
        return intervals

    @property
    def pending_bytes(self) -> int:
        """Bytes held for a document not yet closed (or for a start cut by a chunk's end)."""
        return len(self._buffer)

    # ------------------------------------------------------------------ documents from bytes

    def _documents(self) -> Iterator[fio_doc.Doc]:
        while True:
            if not self._in_doc:
                match = _DOC_START.search(self._buffer)
                if match is None:
                    self._drop_noise(len(self._buffer))
                    return
                self._drop_noise(match.start())
                self._in_doc, self._scan_at, self._depth, self._in_string = True, 0, 0, False
            end = self._scan()
            if end is None:
                if len(self._buffer) > MAX_DOCUMENT_BYTES:
                    log.warning("%s: a fio document longer than %d bytes: skipped",
                                self.host, MAX_DOCUMENT_BYTES)  # fmt: skip
                    self.skipped += 1
                    self._buffer.clear()
                    self._in_doc = False
                return  # wait for the rest
            text = bytes(self._buffer[:end])
            del self._buffer[:end]
            self._in_doc = False
            try:
                doc = _decode(text, self.host)
            except (ValueError, RecursionError, ParseError) as exc:
                log.warning("%s: a fio status document is not JSON (%s): skipped", self.host, exc)
                self.skipped += 1
                continue
            self.documents += 1
            yield doc

    def _drop_noise(self, upto: int) -> None:
        """Drop the text before a document, keeping a tail that may be a cut-off start."""
        if not self._in_doc and upto == len(self._buffer):
            brace = self._buffer.rfind(b"{", max(0, upto - _START_TAIL))
            upto = brace if brace >= 0 else upto
        if upto:
            noise = bytes(self._buffer[:upto]).strip()
            if noise:
                log.debug("%s: text outside fio's JSON: %r", self.host, noise[:200])
            del self._buffer[:upto]

    def _scan(self) -> int | None:
        """The end of the document at the buffer's start (after its closing brace), or None
        when it has not arrived yet; resumes where the last call stopped."""
        buf, at = self._buffer, self._scan_at
        while True:
            if self._in_string:
                match = _STRING_END.search(buf, at)
                if match is None:
                    self._scan_at = len(buf)
                    return None
                if match.group() == b"\\":
                    if match.end() >= len(buf):
                        self._scan_at = match.start()  # the escaped byte is still to come
                        return None
                    at = match.end() + 1
                    continue
                self._in_string = False
                at = match.end()
                continue
            match = _TOKEN.search(buf, at)
            if match is None:
                self._scan_at = len(buf)
                return None
            at = match.end()
            token = match.group()
            if token == b'"':
                self._in_string = True
            elif token == b"{":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    return at

    # ------------------------------------------------------------------ intervals from documents

    def _interval(self, doc: fio_doc.Doc) -> Interval | None:
        counters = _counters(doc)
        ts_ms = _number(doc.timestamp_ms)
        if ts_ms is None:
            ts = _number(doc.timestamp)
            ts_ms = ts * MS_PER_S if ts is not None else None
        ios = io_bytes = lat_n = 0
        lat_sum = span_ms = 0.0
        iops = {d: 0.0 for d in _DIRECTIONS}
        bw = {d: 0.0 for d in _DIRECTIONS}
        for key, now in counters.items():
            # a new job counts from zero, and so does one fio started counting again
            delta = difference(now, self._previous.get(key))
            lat_n += delta.lat_n
            lat_sum += delta.lat_sum_ns
            ios += delta.ios
            io_bytes += delta.io_bytes
            if delta.runtime_ms > 0:
                span_ms = max(span_ms, delta.runtime_ms)
                iops[key[-1]] += delta.iops
                bw[key[-1]] += delta.bw_mib_s
        self._previous = counters
        previous_ts, self._previous_ts_ms = self._previous_ts_ms, ts_ms
        if span_ms <= 0 and ios == 0:
            return None  # nothing ran since the last document (fio's final one, just after)
        if previous_ts is None or ts_ms is None:
            self._t_s += span_ms / MS_PER_S
        else:
            self._t_s += max(0.0, ts_ms - previous_ts) / MS_PER_S
        return Interval(
            host=self.host,
            t_s=self._t_s,
            span_s=span_ms / MS_PER_S,
            ios=ios,
            iops=sum(iops.values()),
            bw_mib_s=sum(bw.values()),
            lat_mean_ms=lat_sum / lat_n / NS_PER_MS if lat_n > 0 else math.nan,
            read_iops=iops["read"],
            write_iops=iops["write"],
            read_bw_mib_s=bw["read"],
            write_bw_mib_s=bw["write"],
        )


def fio_intervals(host: str, chunks: Iterable[bytes]) -> Iterator[Interval]:
    """The intervals of a whole stream given in chunks (a file's bytes, a recorded output)."""
    stream = FioStream(host)
    for chunk in chunks:
        yield from stream.feed(chunk)


def _decode(text: bytes, host: str) -> fio_doc.Doc:
    """A closed document's records: decoded straight into them, else as JSON first (what the
    typed decoding refuses: other types, NaN literals).

    Raises
    ------
    ValueError, RecursionError, anfperf.errors.ParseError
        Not JSON, or no fio document.
    """
    try:
        return fio_doc.decode(text)
    except fio_doc.DECODE_ERRORS:
        pass
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    return fio_doc.from_json(doc, host)


def _counters(doc: fio_doc.Doc) -> dict[tuple, Counters]:
    """Each job direction's counters, keyed by (position, job name, direction)."""
    entries = doc.jobs
    if entries is None:
        # client/server mode: the hosts' own entries, not the "All clients" sum
        entries = [e for e in doc.client_stats or [] if e.jobname != "All clients"]
    found = {}
    for position, entry in enumerate(entries):
        name = fio_doc.text(entry.jobname)
        for direction in _DIRECTIONS:
            block = getattr(entry, direction)
            if block is not None:
                found[(position, name, direction)] = block_counters(block)
    return found


def _number(value: object) -> float | None:
    """A finite number of a document, else None (booleans and text are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None
