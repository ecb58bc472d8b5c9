"""fio ``--output-format=json`` and ``json+`` results.

fio writes one JSON document per run: ``{"fio version": ..., "timestamp": ..., "global options":
{...}, "jobs": [...]}``, or with ``--client`` a ``"client_stats"`` list (one entry per host and job,
plus an ``"All clients"`` aggregate when there are several hosts). Each job entry has one block per
direction (``read``, ``write``, ``trim``; ``mixed`` with ``unified_rw_reporting``) holding the rates
and the latency statistics:

- fio >= 3.0 (and 2.99 git builds): ``lat_ns``, ``clat_ns``, ``slat_ns`` in nanoseconds; fio 2.x:
  ``lat``, ``clat``, ``slat`` in microseconds. ``lat`` is the total latency (submission +
  completion), which is what anfperf reports.
- Percentiles (``"99.000000": value``) are of ``clat`` unless the job set ``lat_percentiles=1``.
- ``json+`` adds ``"bins"``: a latency histogram ``{"<ns>": count}`` (fio 3.x) or, in fio 2.x,
  bucket indexes ``{"<index>": count}`` with ``FIO_IO_U_PLAT_*`` constants (usec buckets).
- ``bw`` is KiB/s (``bw_bytes``, bytes/s, since fio 3.x); ``runtime`` is ms. In fio 2.1 ``io_bytes``
  is really KiB.
- ``job options`` lists only what the job set; ``global options`` is an object, or in fio >= 3.40
  client mode a list of per-client objects carrying ``hostname`` and ``port``.

Text around the JSON (fio warnings and errors on stderr, ``--output-format=normal,json``, progress
lines, a pasted shell prompt) is skipped with a warning. Several documents in one file are all
read: a ``--status-interval`` series (fio's cumulative snapshots of one run, every S seconds and at
the end; :mod:`anfperf.ingest.fio_series` tells which documents are one) is one run, whose last
document gives its result and whose documents give one row per interval; other documents
(outputs of separate runs appended to one file) are runs of their own, their jobs counting on in
``step``. A file that ends inside a document (cut short) is read up to it, with a warning.

Mapping rules (see :func:`read_fio_json` for the columns):

- one row per job entry x direction that did I/O (``total_ios`` or ``io_bytes`` > 0); the reader
  adds the 'total' rows (``mixed`` already is one);
- ``step`` is the 0-based position of the job entry in the file, so clones of the same name
  (``numjobs`` without ``group_reporting``) stay apart;
- host: ``hostname`` of a client entry (``hostname:port`` when one hostname shows up with several
  ports), ``'all'`` for "All clients", else ``'localhost'``. The "All clients" row takes the job
  name its hosts share (else "All clients"), and, when fio gave it no percentiles, those of its
  hosts' merged json+ histograms;
- a ``--status-interval`` series gives its last document's rows, exactly as that document alone
  would (``is_summary``), and interval rows (``is_summary`` False): per job entry x direction,
  what it did between two consecutive documents (IOPS, MiB/s and mean latency of the
  difference, the first interval from the start, one after ``ramp_time``'s reset from the reset,
  those before it ``is_warmup``), numbered in ``interval`` from 1, at the document's time; no
  percentiles, extremes, standard deviation, histogram or CPU (none is a difference of cumulative
  figures); the 'total' rows are added as for results. The latency of an interval is from
  ``lat_ns`` alone (NaN with ``disable_lat``, where a result falls back on ``clat + slat``). Only
  the last document's json+ histograms are read;
- a file cut short inside its last document: the complete documents before it are read, the last
  of them the result, and every row is flagged ``interrupted`` (a warning names the file);
- ``bs`` and ``rate_iops`` are per direction (``bs=4k,64k``: read 4k, write 64k);
- configuration: ``job options`` over ``global options`` over fio's defaults (when fio reported its
  options at all; fio 2.1 did not, leaving the configuration missing). ``outstanding`` is the
  concurrency the row's I/O came from: ``iodepth`` per clone (1 for synchronous engines such as
  psync, which ignore iodepth), times ``numjobs`` when ``group_reporting`` folded the clones into one
  entry (set in the options, or a lone entry of a numjobs > 1 job: fio does not list a
  command-line ``--group_reporting``); "All clients" sums its hosts;
- latencies fio did not measure (``gtod_reduce``, ``disable_lat``: reported as 0 with N=0) are NaN,
  never 0, with a warning; without ``lat`` the mean is ``clat + slat``;
- a job with a non-zero ``error`` and no I/O is dropped with a warning (a ParseError quoting fio's
  error text when no job is left); a job with an error that still did I/O is kept with ``error``
  set.

This module is the format (:data:`FORMAT`, :func:`read_fio_json`); :mod:`anfperf.ingest.fio_rows`
applies the rules to one file (row tuples) and :mod:`anfperf.ingest.fio_table` makes the tidy frame
of many.
"""

from __future__ import annotations

import pandas as pd

from anfperf.ingest._source import PathOrBuffer, read_bytes
from anfperf.ingest.fio_rows import TOOL
from anfperf.ingest.fio_table import FioTable
from anfperf.ingest.registry import Format

__all__ = ["FORMAT", "read_fio_json"]


def read_fio_json(path_or_buffer: PathOrBuffer, *, run_id: str | None = None) -> pd.DataFrame:
    """Read fio's ``--output-format=json`` or ``json+`` output.

    Parameters
    ----------
    path_or_buffer : str, os.PathLike or file-like
        The output file (gzip is recognised by content), or an open binary or text buffer.
    run_id : str, optional
        Run identifier; derived from the file name when not given.

    Returns
    -------
    pandas.DataFrame
        The tidy frame (:mod:`anfperf.schema`): one row per job entry x direction that did I/O,
        and per interval of a ``--status-interval`` series; then a 'total' row per job entry (and
        interval). A run's result rows are whole-run rows (``is_summary=True``, ``interval`` and
        ``time_s`` missing).

        ===================  ======  =====================================================
        column               unit    from fio
        ===================  ======  =====================================================
        tool, tool_version           'fio', the "fio version" string (e.g. 'fio-3.33')
        host                         client hostname, 'all' for "All clients", else
                                     'localhost'
        job, workload                ``jobname``
        step                         0-based job entry in the file (several runs keep
                                     counting; a series' intervals share their job's)
        direction                    'read', 'write', 'trim'; 'total' (added, or fio's
                                     ``mixed`` block)
        timestamp            UTC     the document's ``timestamp_ms`` (end of the run; of
                                     the interval)
        interval                     1-based interval of a series (its document); <NA> on
                                     results
        time_s               s       end of the interval since the run's first I/O: the
                                     first document's longest ``runtime``, then fio's
                                     clock (``timestamp_ms``)
        is_summary                   a result row (False: an interval)
        is_warmup                    an interval before fio's reset after ``ramp_time``
        pattern                      'random' / 'sequential' from ``rw``; 'mixed' when
                                     ``percentage_random`` is between 0 and 100
        bs_kib               KiB     ``bs`` of the row's direction
        read_pct             %       100 / 0 from ``rw``, else ``rwmixread`` (default 50)
        iodepth, numjobs             as configured
        outstanding                  iodepth (1 for sync engines) per clone, x numjobs with
                                     ``group_reporting``
        direct_io                    ``direct`` (or not ``buffered``) of an engine that goes
                                     through the page cache; <NA> for other engines
        rate_limit_iops      1/s     ``rate_iops`` of the row's direction
        runtime_s            s       ``runtime`` / 1000 (an interval: Δ ``runtime``)
        iops                 1/s     ``iops`` (an interval: Δ ``total_ios`` / Δ ``runtime``)
        bw_mib_s             MiB/s   ``bw_bytes`` / 2**20, else ``bw`` [KiB/s] / 1024 (an
                                     interval: Δ ``io_bytes`` / Δ ``runtime``)
        lat_mean_ms ...      ms      ``lat_ns`` / ``lat``: mean, min, max, stddev (an
                                     interval: Δ(mean x N) / Δ N, the mean alone)
        lat_p50_ms ...       ms      percentiles of ``lat_ns`` when fio computed them
                                     (``lat_percentiles=1``), else of ``clat_ns``
        lat_bins             ns      json+ histogram of the same latency
        cpu_user_pct, _sys   %       ``usr_cpu``, ``sys_cpu`` of the job
        error                        the job's ``error`` (0 = none)
        ===================  ======  =====================================================

    Raises
    ------
    anfperf.errors.ParseError
        The file holds no fio JSON (empty, another format, an error message only), the JSON is
        damaged or truncated (before any whole document), it has no jobs, or no job did any I/O
        (fio's error text quoted).

    Warns
    -----
    UserWarning
        Text around the JSON was skipped; jobs that failed were dropped; fio did not measure the
        latency (NaN); the file ends inside a document (cut short).
    """
    data, source = read_bytes(path_or_buffer)
    table = FioTable()
    table.add(data, source, run_id=run_id)
    return table.frame()


def _sniff(head: bytes) -> bool:
    return b'"fio version"' in head or b'"client_stats"' in head or b'"jobs"' in head


FORMAT = Format(
    name="fio_json",
    title="fio JSON",
    tool=TOOL,
    sniff=_sniff,
    table=FioTable,
    read=read_fio_json,
    suffixes=(".json", ".txt"),
)
