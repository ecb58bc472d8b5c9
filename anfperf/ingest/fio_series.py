"""fio ``--status-interval`` series: which documents are one run, and what each interval did.

With ``--status-interval=S`` fio writes a whole JSON document every S seconds and one more at the
end, one after the other, into ``--output`` (or onto stdout). Every document is *cumulative*: its
``total_ios``, ``io_bytes``, ``runtime`` [ms] and latency statistics count from the job's start,
and from zero again when ``ramp_time`` ends (fio resets its figures then). So:

- the last document of a series is the run's result, what fio writes without
  ``--status-interval``;
- an interval's figures are the difference of two consecutive documents, per job entry and
  direction (:func:`difference`): I/O Δ ``total_ios``, bytes Δ ``io_bytes``, time Δ ``runtime``
  (fio's clock of the time the job did I/O), mean latency Δ(``lat_ns.mean`` x ``lat_ns.N``) /
  Δ ``lat_ns.N`` (the total latency of the I/O completed in the interval; fio 2.x's ``lat`` [us]
  too; NaN when fio timed none: ``gtod_reduce``, ``disable_lat``, the ramp). A counter that goes
  back starts again from zero: the first interval after a reset holds its figures since the
  reset. Percentiles, extremes and the standard deviation are no such differences: intervals have
  none.

Which documents are one run (:func:`runs`): consecutive documents

- of the same jobs: fio version, global options and each entry's name, group, host, port and job
  options, in the same order;
- whose ``timestamp_ms`` (else ``timestamp``) increases;
- written by one fio process: its start, ``timestamp_ms`` - 1000 x ``elapsed`` (fio's whole
  seconds since it started, rounded up), within :data:`SAME_START_MS` of the one before;
- whose counters do not go back, but once per job entry, where its ramp ends: then fio had timed
  no I/O of it before (``lat_ns.N`` 0), as during a ramp.

Anything else starts a new run: outputs of separate runs concatenated (other jobs, or the same
jobs from another fio process), two copies of one document. Back-to-back runs of the same jobs
shorter than about a second each can still look like one series (``elapsed`` counts whole
seconds): their counters must then also not go back.

This module is the one implementation of the difference: :mod:`anfperf.ingest.fio_rows` makes
the interval rows of a file with it, :mod:`anfperf.live.fio_stream` the live figures of a stream.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from anfperf.ingest.fio_config import options_key
from anfperf.ingest.fio_doc import UNSET, Block, Doc, Entry, Latency, num
from anfperf.units import BYTES_PER_MIB, MS_PER_S, NS_PER_MS, US_PER_MS

__all__ = [
    "DIRECTIONS", "SAME_START_MS", "Counters", "ZERO", "Delta", "Run", "block_counters",
    "entry_counters", "went_back", "difference", "runs",
]  # fmt: skip

_NAN = math.nan
#: The direction blocks of a job entry (``mixed``: every direction, ``unified_rw_reporting``).
DIRECTIONS = ("read", "write", "trim", "mixed")
#: How far apart the starts of one fio process may seem in two of its documents [ms]: fio rounds
#: ``elapsed`` up to the second, and times it a little after ``timestamp_ms``.
SAME_START_MS = 1250.0


class Counters(NamedTuple):
    """One job direction's cumulative counters in one document."""

    ios: int
    io_bytes: int
    runtime_ms: int
    lat_sum_ns: float  # lat_ns.mean x lat_ns.N
    lat_n: int


#: Counters before the first I/O (and after a reset).
ZERO = Counters(0, 0, 0, 0.0, 0)


class Delta(NamedTuple):
    """What one job direction did between two documents (:func:`difference`)."""

    ios: int
    io_bytes: int
    runtime_ms: int
    lat_sum_ns: float
    lat_n: int
    reset: bool  # the counters went back: these are the figures since fio's reset

    @property
    def iops(self) -> float:
        """I/O per second over the interval [1/s]; NaN when the job did not run in it."""
        return self.ios * MS_PER_S / self.runtime_ms if self.runtime_ms > 0 else _NAN

    @property
    def bw_mib_s(self) -> float:
        """Throughput over the interval [MiB/s]; NaN when the job did not run in it."""
        ms = self.runtime_ms
        return self.io_bytes * MS_PER_S / ms / BYTES_PER_MIB if ms > 0 else _NAN

    @property
    def lat_mean_ms(self) -> float:
        """Mean total latency of the I/O completed in the interval [ms]; NaN when none was
        timed (never 0)."""
        return self.lat_sum_ns / self.lat_n / NS_PER_MS if self.lat_n > 0 else _NAN

    @property
    def ran(self) -> bool:
        """Whether the job did I/O, or ran, in the interval (a stall runs without I/O)."""
        return self.ios > 0 or self.io_bytes > 0 or self.runtime_ms > 0


def block_counters(block: Block) -> Counters:
    """The cumulative counters of a direction block (missing ones are 0; fio 2.x's ``lat`` [us]
    read as ns; without ``total_ios``, the completed I/O ``lat_ns.N``)."""
    lat, scale = block.lat_ns, 1.0
    if type(lat) is not Latency:
        lat, scale = block.lat, NS_PER_MS / US_PER_MS
    n = mean = _NAN
    if type(lat) is Latency:
        n, mean = (num(lat.N) if lat.N is not UNSET else _NAN), lat.mean
    if not (0 < n < math.inf and math.isfinite(mean)):
        n, mean = 0, 0.0
    ios = block.total_ios
    if not math.isfinite(ios):  # no count of issued I/O: the completed ones
        ios = n
    io_bytes, runtime = block.io_bytes, block.runtime
    return Counters(
        ios=int(ios),
        io_bytes=int(io_bytes) if math.isfinite(io_bytes) else 0,
        runtime_ms=int(runtime) if math.isfinite(runtime) else 0,
        lat_sum_ns=mean * scale * n,
        lat_n=int(n),
    )


def entry_counters(entry: Entry) -> dict[str, Counters]:
    """Direction (``read``, ``write``, ``trim``, ``mixed``) -> counters of a job entry."""
    out = {}
    for direction in DIRECTIONS:
        block = getattr(entry, direction)
        if block is not None:
            out[direction] = block_counters(block)
    return out


def went_back(now: Counters, before: Counters) -> bool:
    """Whether fio started counting again between two documents (the end of a ramp)."""
    return now.ios < before.ios or now.runtime_ms < before.runtime_ms


def difference(now: Counters, before: Counters | None) -> Delta:
    """What a job direction did between the document of `before` (None: the start) and that of
    `now`. Counters that went back count from zero (fio's reset after ``ramp_time``)."""
    reset = before is not None and went_back(now, before)
    if before is None or reset:
        before = ZERO
    if now.lat_n >= before.lat_n:
        lat_n, lat_sum = now.lat_n - before.lat_n, now.lat_sum_ns - before.lat_sum_ns
    else:  # timed I/O went back alone: nothing to say of this interval's latency
        lat_n, lat_sum = 0, 0.0
    return Delta(
        now.ios - before.ios, now.io_bytes - before.io_bytes, now.runtime_ms - before.runtime_ms,
        lat_sum, lat_n, reset,
    )  # fmt: skip


# --------------------------------------------------------------------------- one run


class Run(NamedTuple):
    """The documents of one fio run in a file (:func:`runs`).

    ``documents``: their positions in the file, in order (the last one is the run's result);
    ``counters``: per document (None for a run of one), each job entry's
    :func:`entry_counters`; ``times_ms``: per document (None for a run of one), its
    ``timestamp_ms`` [ms since 1970]; ``resets``: job entry -> position in ``documents`` of the
    document whose counters went back (its ramp ended before it).
    """

    documents: list[int]
    counters: list[list[dict[str, Counters]]] | None
    times_ms: list[float] | None
    resets: dict[int, int]


class _Snapshot(NamedTuple):
    identity: tuple
    timestamp_ms: float
    start_ms: float  # the fio process's start, as the document tells it
    counters: list[dict[str, Counters]]


def runs(docs: Sequence[Doc]) -> list[Run]:
    """The documents of a file grouped into runs: a status-interval series is one (see the
    module's docstring), any other document a run of its own."""
    if len(docs) == 1:  # the usual file: nothing to compare
        return [Run([0], None, None, {})]
    out: list[Run] = []
    before: _Snapshot | None = None
    for i, doc in enumerate(docs):
        now = _snapshot(doc)
        resets = _continues(before, now, out[-1].resets) if before is not None else None
        if resets is None:
            out.append(Run([i], [now.counters], [now.timestamp_ms], {}))
        else:
            run = out[-1]
            run.documents.append(i)
            run.counters.append(now.counters)  # type: ignore[union-attr]
            run.times_ms.append(now.timestamp_ms)  # type: ignore[union-attr]
            run.resets.update(dict.fromkeys(resets, len(run.documents) - 1))
        before = now
    return [run if len(run.documents) > 1 else Run(run.documents, None, None, {}) for run in out]


def _entries(doc: Doc) -> list[Entry]:
    return (doc.jobs or []) + (doc.client_stats or [])


def _snapshot(doc: Doc) -> _Snapshot:
    entries = _entries(doc)
    identity = (
        doc.version,
        options_key(doc.options),
        [(e.jobname, e.groupid, e.hostname, e.port, options_key(e.job_options)) for e in entries],
    )
    ts_ms = num(doc.timestamp_ms)
    if not math.isfinite(ts_ms):
        ts_ms = num(doc.timestamp) * MS_PER_S
    elapsed_s = num(entries[0].elapsed) if entries else _NAN
    return _Snapshot(
        identity, ts_ms, ts_ms - elapsed_s * MS_PER_S, [entry_counters(e) for e in entries]
    )


def _continues(before: _Snapshot, now: _Snapshot, reset: dict[int, int]) -> set[int] | None:
    """The job entries whose counters went back if `now` continues the run of `before` (whose
    entries in `reset` went back already); None when it starts another run."""
    # (compared, never hashed: JSON decoded as such may hold lists)
    if now.identity != before.identity or not now.timestamp_ms > before.timestamp_ms:
        return None
    if abs(now.start_ms - before.start_ms) > SAME_START_MS:  # (NaN: not known, not compared)
        return None
    went = set()
    for e, (was, counters) in enumerate(zip(before.counters, now.counters, strict=True)):
        back = [d for d, c in counters.items() if d in was and went_back(c, was[d])]
        if back:
            if e in reset or any(was[d].lat_n for d in back):
                return None  # a second reset, or one after timed I/O: not a ramp's end
            went.add(e)
    return went
