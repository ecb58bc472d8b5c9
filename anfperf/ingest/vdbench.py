"""Vdbench output: ``flatfile.html`` (with its companion reports) into the tidy frame.

Vdbench writes one output folder per run. Its ``flatfile.html`` holds one whitespace-separated
row per run definition (rd=) instance and reporting interval, plus one ``avg_a-b`` row per
instance averaging intervals a..b, for raw block (sd/wd) and file-system (fsd/fwd) workloads;
the two kinds have different column sets and both changed across versions, so columns are read
by header name, never by position. The other reports of the folder are optional companions
(see :mod:`anfperf.ingest.vdbench_companions`); ``histogram.html`` is read separately by
:func:`read_vdbench_histogram`.
"""

from __future__ import annotations

import io
import logging
import os
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from anfperf.errors import ParseError, warn
from anfperf.ingest._frame import finalize
from anfperf.ingest._source import PathOrBuffer, read_bytes
from anfperf.ingest.registry import Format
from anfperf.ingest.vdbench_companions import Companions, load_companions, utc_offset_for
from anfperf.ingest.vdbench_frame import MEASURED, clean_int, explode, host_rows
from anfperf.ingest.vdbench_histogram import read_vdbench_histogram, vdbench_histogram_percentiles
from anfperf.ingest.vdbench_records import Instances, Measures, WideRows
from anfperf.schema import AGGREGATE_HOST, PATTERNS, host_label
from anfperf.units import BYTES_PER_KIB, NS_PER_S

__all__ = ["read_vdbench", "read_vdbench_histogram", "vdbench_histogram_percentiles"]

log = logging.getLogger(__name__)

#: The flatfile's header line is the one with these two adjacent column names.
HEADER_PATTERN = re.compile(rb"(?<!\S)Run[ \t]+Interval(?!\S)")
#: Values Vdbench prints for data it does not have.
NA_VALUES = ("n/a", "?")
#: reqrate values that mean "as fast as possible", not a requested rate: iorate=max is
#: 9999988 (999988 before 50401) and the uncontrolled first run of iorate=curve is 9999977.
MAX_RATE_SENTINELS = (999_977.0, 999_988.0, 9_999_977.0, 9_999_988.0)
#: Run definitions Vdbench adds to create files or fill SDs before a run (format=yes/restart).
FORMAT_JOB = re.compile(r"^(format_for_|SD_format$)")
#: The runs of an iorate=curve rd are named '<rd>_(<pct>%)'.
CURVE_JOB = re.compile(r"^(.+)_\((\d+(?:\.\d+)?)%\)$")
_AVG = re.compile(r"^avg_(?P<a>\d+)-(?P<b>\d+)$")

#: Flatfile columns read (lower-cased header name -> role). Raw-I/O (SD) files have read%,
#: read_resp... (50407 adds read_max, read_std ...); file-system (FWD) files have Read_rate,
#: MB_read ... instead; files before 50401 have no read_resp/write_resp and no timestamp.
MEASURES = {
    "rate": "iops", "mb/sec": "bw_mib_s", "resp": "lat_mean_ms", "resp_max": "lat_max_ms",
    "resp_std": "lat_std_ms", "read%": "read_obs_pct", "read_resp": "read_lat_mean_ms",
    "write_resp": "write_lat_mean_ms", "read_max": "read_lat_max_ms",
    "write_max": "write_lat_max_ms", "read_std": "read_lat_std_ms", "write_std": "write_lat_std_ms",
    "queue_depth": "queue_depth", "cpu_user": "cpu_user_pct", "cpu_kernel": "cpu_sys_pct",
    # file system (FWD): exact per-direction numbers
    "read_rate": "read_iops", "write_rate": "write_iops", "mb_read": "read_bw_mib_s",
    "mb_write": "write_bw_mib_s",
}  # fmt: skip
#: Requested settings: unreadable values become NaN instead of an error.
SETTINGS = ("reqrate", "xfersize", "threads", "rdpct", "seekpct")
# Read as text whatever they look like (other columns: pandas infers; forcing costs time).
_STRINGS = {"run": str, "interval": str}


def read_vdbench(
    folder_or_file: PathOrBuffer, *, run_id: str | None = None, hosts: bool = True
) -> pd.DataFrame:
    """Read a Vdbench run: its ``flatfile.html``, with its companion reports when present.

    Parameters
    ----------
    folder_or_file : str, os.PathLike or file-like
        A Vdbench output folder, a flatfile (plain or gzip) or an open buffer. Next to a file
        called ``<prefix>flatfile.html``, the companions ``<prefix>parmfile.html``,
        ``<prefix>summary.html``, ``<prefix>logfile.html`` and host reports are used when they
        exist: workload names, loop values, hosts, date/time zone, version, per-host rows.
        A buffer or a lone flatfile gives the same rows with those columns missing.
    run_id : str, optional
        Run identifier; by default the folder's name (see :func:`anfperf.ingest.read`).
    hosts : bool
        For multi-host runs, add one row per host, RD instance, interval and direction from
        the host reports (``<host>.html``) next to the all-host rows (``host='all'``).

    Returns
    -------
    pandas.DataFrame
        The tidy frame of :mod:`anfperf.schema` (``tool='vdbench'``). One row per host x run
        definition instance x interval (and ``avg_`` row) x direction:

        ================  =======  ==============================================================
        column            unit     from
        ================  =======  ==============================================================
        job                        ``Run`` (rd= name; ``format_for_x`` / ``SD_format`` for the
                                   format runs Vdbench inserts, kept as jobs of their own)
        step                       0-based instance of that rd name in the file (for-loops)
        loop                       'For loops:' values of the instance, e.g. ``threads=16``
        workload                   the rd's ``wd=`` / ``fwd=`` value ('format' for format runs)
        host                       hd= name of a single-host run; 'all' for the flatfile rows of
                                   a multi-host run (or when no companion names the host);
                                   the host's name on rows from its host report
        direction                  'total' (native), 'read', 'write' (derived, see below)
        interval                   ``Interval``; <NA> on ``avg_`` rows (``is_summary``)
        is_warmup                  interval before the ``avg_a-b`` range (interval < a); an
                                   instance without ``avg_`` row (truncated run) warns, and
                                   only its interval 1 counts as warm-up, as in Vdbench
        timestamp         UTC      ``timestamp`` (local zone converted with summary.html's UTC
                                   time or a known zone name), else ``tod`` + summary date
        tool_version               ``version``, else logfile 'Vdbench distribution'
        iops              1/s      ``rate``
        bw_mib_s          MiB/s    ``MB/sec`` (Vdbench MB = 2**20 bytes)
        lat_mean_ms       ms       ``resp`` / ``read_resp`` / ``write_resp``
        lat_max_ms        ms       ``resp_max`` (``read_max`` / ``write_max`` in 50407)
        lat_std_ms        ms       ``resp_std`` (``read_std`` / ``write_std`` in 50407)
        queue_depth                ``queue_depth`` (observed; 'total' rows only)
        cpu_user_pct      %        ``cpu_user``
        cpu_sys_pct       %        ``cpu_kernel``
        bs_kib            KiB      ``xfersize`` / 1024 (FWD: average ``Xfersize``)
        threads                    ``threads``; FWD: the loop's or parmfile's threads=
        outstanding                threads x SDs the rd drives (Vdbench threads are per SD;
                                   file system: per FWD); needs parmfile.html
        read_pct          %        ``rdpct`` (requested); FWD: parmfile rdpct= / operation=
        pattern                    ``seekpct``: 100 random, 0 sequential, else mixed (parmfile
                                   seekpct= / fileio= where the flatfile says n/a, e.g. eof)
        rate_limit_iops   1/s      ``reqrate``; NaN where it is the 'max' sentinel
        curve_pct         %        point of an iorate=curve run, from names like curve_(30%)
        direct_io                  parmfile openflags=o_direct / directio on the rd's SDs
                                   (FSDs), the rd or its workloads; False without; <NA>
                                   without a parmfile, or for Windows luns
        ================  =======  ==============================================================

        Raw-I/O flatfiles give totals only: read rows are ``rate x read% / 100`` I/O/s and
        ``MB/sec x read% / 100`` MiB/s and write rows the rest, which assumes reads and writes
        of equal transfer size (true for one xfersize); file-system flatfiles give exact
        ``Read_rate``/``MB_read``... columns. A direction is left out of an RD instance whose
        requested ``rdpct`` excludes it or that did no I/O in it. Values Vdbench prints as
        'n/a' or '?' are NaN.

    Raises
    ------
    anfperf.ParseError
        Not a Vdbench flatfile (no header line), a folder without one, no data rows,
        non-numeric measurements, or rows that do not fit the header.

    Warns
    -----
    UserWarning
        A truncated last row (dropped), instances without ``avg_`` row, time zones that cannot
        be converted (timestamps NaT), host reports that cannot be read (skipped).
    """
    path: Path | None = None
    if isinstance(folder_or_file, str | os.PathLike):
        path = Path(folder_or_file)
        if path.is_dir():
            folder = path
            path = next(
                (p for p in (folder / "flatfile.html", folder / "flatfile.html.gz") if p.is_file()),
                None,
            )
            if path is None:
                raise ParseError(folder, "no flatfile.html: not a Vdbench output folder")
        folder_or_file = path
    data, source = read_bytes(folder_or_file)
    raw = _parse_flatfile(data, source)
    log.debug("%s: %d flatfile rows, columns %s", source, len(raw), list(raw.columns))
    comp = load_companions(path) if path is not None else Companions()
    wide = _flatfile_rows(raw, comp, source)
    parts = [explode(wide)]
    if hosts and len(comp.hosts) > 1:
        parts.extend(host_rows(wide, comp))
    frame = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
    return finalize(frame, source=source, run_id=run_id, totals=False)


# --------------------------------------------------------------------------- flatfile table


def _parse_flatfile(data: bytes, source: str) -> pd.DataFrame:
    """The flatfile's table with lower-cased column names, as read by pandas' C parser."""
    if not data or data.isspace():
        raise ParseError(source, "empty file")
    if b"\x00" in data[:4096]:
        raise ParseError(source, "binary data, not a Vdbench flatfile")
    header_at, header_end, names = _header(data, source)
    header_no = data.count(b"\n", 0, header_at) + 1
    start = header_end + 1
    end = _end_of_rows(data, start, len(names), source)
    if end <= start:
        raise ParseError(source, "header line but no data rows", line=header_no)
    table = _read_rows(data, start, end, names, header_no, source)
    _check_row_lengths(table, names, header_no, source)
    table.attrs["header_line"] = header_no
    return table


def _header(data: bytes, source: str) -> tuple[int, int, list[str]]:
    """Where the header line starts and ends, and its lower-cased column names."""
    header_at = None
    for m in HEADER_PATTERN.finditer(data):
        line_start = data.rfind(b"\n", 0, m.start()) + 1
        if not data[line_start : m.start()].lstrip().startswith(b"*"):  # not the comment block
            header_at = line_start
            break
    if header_at is None:
        what = (
            "an HTML page" if re.search(rb"(?i)<(html|body|head)[\s>]", data[:4096]) else "a file"
        )
        raise ParseError(
            source, f"no header line with 'Run' and 'Interval' columns: {what}, not a Vdbench "
            "flatfile (or an aborted run that wrote none)"
        )  # fmt: skip
    header_end = data.find(b"\n", header_at)
    header_end = len(data) if header_end < 0 else header_end
    header_line = re.sub(rb"<[^>]*>", b" ", data[header_at:header_end])
    names = header_line.decode("utf-8", "replace").lower().split()
    if len(set(names)) != len(names):
        raise ParseError(source, "duplicate column names in the header line")
    missing = [c for c in ("run", "interval", "rate", "mb/sec", "resp") if c not in names]
    if missing:
        raise ParseError(source, f"header line lacks the column(s) {missing}")
    return header_at, header_end, names


def _end_of_rows(data: bytes, start: int, n_names: int, source: str) -> int:
    """End of the data rows: before trailing '</pre>' and the like, and before a last row cut
    short by an interrupted copy (dropped with a warning).

    Found by index arithmetic: slicing or stripping a large file costs a copy each.
    """
    end = len(data)
    while end > start:
        while end > start and data[end - 1 : end].isspace():
            end -= 1
        last_start = max(data.rfind(b"\n", start, end) + 1, start)
        last = data[last_start:end]
        if last.lstrip().startswith(b"<"):
            end = last_start
            continue
        if len(last.split()) < n_names:
            warn(
                f"{source}: last row has {len(last.split())} of {n_names} fields "
                "(truncated file?); dropped"
            )
            end = last_start
            while end > start and data[end - 1 : end].isspace():
                end -= 1
        break
    return end


def _read_rows(
    data: bytes, start: int, end: int, names: list[str], header_no: int, source: str
) -> pd.DataFrame:
    """The rows between `start` and `end` as a table, by pandas' C parser."""
    if end == len(data) or data[end:].isspace():
        payload, offset = data, start  # read in place: a slice would copy the whole table
    else:
        payload, offset = data[start:end], 0
    options = dict(
        sep=r"\s+", header=None, names=names, index_col=False, engine="c",
        dtype={k: v for k, v in _STRINGS.items() if k in names}, keep_default_na=False,
        na_values=[],
    )  # fmt: skip

    def parse(**extra: str) -> pd.DataFrame:
        buffer = io.BytesIO(payload)  # shares the bytes object, no copy
        buffer.seek(offset)
        return pd.read_csv(buffer, **options, **extra)

    try:
        try:
            return parse()
        except UnicodeDecodeError:  # not UTF-8: Latin-1, as decode_text does (Windows, Solaris)
            return parse(encoding="latin-1")
    except (ValueError, pd.errors.ParserError, OverflowError, MemoryError) as exc:
        at = re.search(r"line (\d+)", str(exc))
        line = header_no + int(at.group(1)) if at else None
        raise ParseError(
            source, f"row does not fit the header: {str(exc).strip()}", line=line
        ) from None


def _check_row_lengths(table: pd.DataFrame, names: list[str], header_no: int, source: str) -> None:
    # pandas fills missing trailing fields; with NA detection off only those are empty.
    tail = table[names[-1]]
    short = (
        tail.isna() | (tail.astype(str) == "")
        if tail.dtype == object or tail.dtype == "str"
        else tail.isna()
    )
    if short.any():
        row = int(np.flatnonzero(short.to_numpy())[0])
        raise ParseError(
            source, f"row has fewer fields than the header ({len(names)})", line=header_no + row + 1
        )


def _arrow(column: pd.Series) -> pa.Array:
    """A string column as one Arrow array (zero-copy for pandas' Arrow-backed strings)."""
    arr = pa.array(column, type=pa.large_string())
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def _floats(arr: pa.Array) -> np.ndarray:
    return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=np.float64)


def _bools(arr: pa.Array) -> np.ndarray:
    return np.asarray(arr.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


def _line(table: pd.DataFrame, row: int) -> int | None:
    """File line of a table row (blank lines between rows would shift it)."""
    header = table.attrs.get("header_line")
    return None if header is None else header + row + 1


def _numbers(table: pd.DataFrame, name: str, source: str, strict: bool) -> np.ndarray:
    """A column as float64 with 'n/a' / '?' as NaN; other text is an error if `strict`;
    Java's 'Infinity' (a rate over no time) is NaN with a note naming the column and line."""
    col = table[name]
    if col.dtype == np.float64:
        values = col.to_numpy()  # no copy
    elif pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        values = col.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        values = _text_numbers(table, name, source, strict)
    infinite = np.isinf(values)
    if infinite.any():
        i = int(np.flatnonzero(infinite)[0])
        where = "" if (line := _line(table, i)) is None else f", line {line} first"
        shown = col.iat[i] if isinstance(col.iat[i], str) else f"{float(col.iat[i]):g}"
        warn(
            f"{source}: {name!r} is not a finite number ({shown}) in {int(infinite.sum())} "
            f"row(s){where}; read as missing (NaN)"
        )
        values = np.where(infinite, np.nan, values)
    return values


def _text_numbers(table: pd.DataFrame, name: str, source: str, strict: bool) -> np.ndarray:
    """A column of text as float64 ('n/a', '?', Java's NaN: NaN); see :func:`_numbers`."""
    col = table[name]
    text = col.astype(str)
    na = text.isin(NA_VALUES) | text.str.lower().isin(("nan", "-nan"))  # Java prints NaN
    values = pd.to_numeric(text.where(~na), errors="coerce").to_numpy(dtype=np.float64)
    if strict:
        bad = np.isnan(values) & ~na.to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ParseError(
                source, f"non-numeric {name!r} value {text.iat[i]!r}", line=_line(table, i)
            )
    return values


# --------------------------------------------------------------------------- rows


def _flatfile_rows(table: pd.DataFrame, comp: Companions, source: str) -> WideRows:
    """One 'wide' row per flatfile row: settings plus total/read/write measurements."""
    is_sum, ival, avg_a = _intervals(table, source)
    inst, names, name_of, inst_step = _instances(table, is_sum, ival)
    first = _avg_first(inst, is_sum, avg_a, names, name_of, inst_step, source)
    rds = [_run_def_of(nm, comp) for nm in names]
    instances = Instances(
        names=names, name_of=name_of, step=inst_step,
        loops=_loops_by_instance(comp, names, name_of, inst_step),
        workload=[
            "format" if FORMAT_JOB.match(nm) else (rd.workload if rd else None)
            for nm, rd in zip(names, rds, strict=True)
        ],
        curve_pct=np.array(
            [float(c.group(2)) if (c := CURVE_JOB.match(nm)) else np.nan for nm in names]
        )[name_of],
        avg_first=first, host_targets=[rd.targets_by_host if rd else None for rd in rds],
        direct_io=[rd.direct_io if rd else None for rd in rds],
    )  # fmt: skip
    m = {role: _column(table, name, source) for name, role in MEASURES.items()}
    settings = _settings(table, source, instances, inst, rds, len(comp.hosts))
    read, write = _directions(m, set(table.columns))
    keep_read, keep_write = _kept(read, write, settings.read_pct, inst, len(name_of))
    return WideRows(
        instances=instances, inst=inst, interval=ival, is_summary=is_sum,
        is_warmup=~is_sum & (ival < first[inst]), timestamp=_timestamps(table, comp, source),
        threads=settings.threads, outstanding=settings.outstanding, pattern=settings.pattern,
        read_pct=settings.read_pct, bs_kib=settings.bs_kib,
        rate_limit_iops=settings.rate_limit_iops, cpu_user_pct=m["cpu_user_pct"],
        cpu_sys_pct=m["cpu_sys_pct"], queue_depth=m["queue_depth"],
        total=Measures(*(m[k] for k in MEASURED)), read=read, write=write, keep_read=keep_read,
        keep_write=keep_write, tool_version=_version(table, comp),
        host=host_label(comp.single_host) if comp.single_host else AGGREGATE_HOST, source_file=source,
    )  # fmt: skip


def _intervals(table: pd.DataFrame, source: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: whether it is an avg_ row, its interval number (NaN on avg_ rows); and per avg_
    row the first interval averaged (a of avg_a-b)."""
    interval_text = table["interval"].astype(str)
    # Arrow kernels on the parsed strings: a Python-level pass over 100,000 rows costs more.
    interval_arr = _arrow(interval_text)
    is_sum = _bools(pc.starts_with(interval_arr, "avg_"))
    digits = pc.match_substring_regex(interval_arr, r"^[0-9]{1,9}$")  # ASCII, < 1e9
    ival = _floats(
        pc.cast(pc.if_else(digits, interval_arr, pa.scalar(None, pa.large_string())), pa.float64())
    )
    bad = ~is_sum & np.isnan(ival)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ParseError(
            source, f"Interval {interval_text.iat[i]!r} is not a number", line=_line(table, i)
        )
    avg = pc.extract_regex(pc.filter(interval_arr, pa.array(is_sum)), _AVG.pattern)
    avg_a = _floats(pc.cast(pc.struct_field(avg, "a"), pa.float64()))
    if np.isnan(avg_a).any():
        i = int(np.flatnonzero(is_sum)[np.flatnonzero(np.isnan(avg_a))[0]])
        raise ParseError(
            source, f"Interval {interval_text.iat[i]!r} is not avg_a-b", line=_line(table, i)
        )
    return is_sum, ival, avg_a


def _instances(
    table: pd.DataFrame, is_sum: np.ndarray, ival: np.ndarray
) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
    """RD instances: each row's instance; the rd names; per instance its name and step.

    A new instance starts where the name changes, after an avg_ row, or where the interval
    number starts again (for-loop instances share their rd name).
    """
    n = len(table)
    run_enc = pc.dictionary_encode(_arrow(table["run"].astype(str)))
    run_codes = np.asarray(run_enc.indices, dtype=np.int64)
    names = [str(x) for x in run_enc.dictionary.to_pylist()]
    new = np.ones(n, dtype=bool)
    if n > 1:
        restart = ~is_sum[1:] & ~is_sum[:-1] & (ival[1:] <= ival[:-1])
        new[1:] = (run_codes[1:] != run_codes[:-1]) | is_sum[:-1] | restart
    inst = np.cumsum(new) - 1
    name_of = run_codes[new]  # per instance: index into `names`
    inst_step = pd.Series(name_of).groupby(name_of).cumcount().to_numpy()
    return inst, names, name_of, inst_step


def _avg_first(
    inst: np.ndarray,
    is_sum: np.ndarray,
    avg_a: np.ndarray,
    names: list[str],
    name_of: np.ndarray,
    inst_step: np.ndarray,
    source: str,
) -> np.ndarray:
    """Per instance, the first interval its avg_ row averages (2 without one, with a warning)."""
    avg_first = np.full(len(name_of), np.nan)
    avg_first[inst[is_sum]] = avg_a
    no_avg = np.isnan(avg_first)
    if no_avg.any():
        which = ", ".join(
            f"{names[name_of[k]]} (step {inst_step[k]})" for k in np.flatnonzero(no_avg)[:5]
        )
        warn(
            f"{source}: no avg_ row for rd={which}: run truncated or interrupted? "
            "its interval rows are kept"
        )
    return np.where(no_avg, 2.0, avg_first)  # Vdbench always leaves out interval 1


def _column(table: pd.DataFrame, name: str, source: str, strict: bool = True) -> np.ndarray:
    """A flatfile column as float64; all NaN when the file does not have it."""
    if name in table.columns:
        return _numbers(table, name, source, strict)
    return np.full(len(table), np.nan)


class _Settings(NamedTuple):
    """What each row's run was asked to do (arrays per row)."""

    threads: np.ndarray
    outstanding: np.ndarray
    pattern: np.ndarray
    read_pct: np.ndarray
    bs_kib: np.ndarray
    rate_limit_iops: np.ndarray


def _settings(
    table: pd.DataFrame,
    source: str,
    instances: Instances,
    inst: np.ndarray,
    rds: list,
    n_hosts: int,
) -> _Settings:
    """The requested settings of each row: the flatfile's, else the parameter file's."""
    setting = {name: _column(table, name, source, strict=False) for name in SETTINGS}
    filesystem = "read_rate" in table.columns
    name_of = instances.name_of

    def per_name(values: list) -> np.ndarray:
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)

    threads = clean_int(setting["threads"])
    if "threads" not in table.columns:  # file system: the loop's threads=, else the parmfile's
        rd_threads = per_name([rd.threads if rd else None for rd in rds])
        loop_threads = np.array(
            [_loop_int(lp, "threads") for lp in instances.loops], dtype=np.float64
        )
        threads = np.where(np.isnan(loop_threads), rd_threads[name_of], loop_threads)[inst]
    # Multi-host file-system runs: how FWDs spread over hosts is not in the parmfile.
    n_targets = per_name(
        [rd.n_targets if rd and not (rd.filesystem and n_hosts > 1) else None for rd in rds]
    )

    seek = setting["seekpct"]
    pattern = np.select([seek >= 100, seek <= 0, (seek > 0) & (seek < 100)], [0, 1, 2], -1)
    rd_pattern = np.array(
        [PATTERNS.index(rd.pattern) if rd and rd.pattern else -1 for rd in rds], dtype=np.int64
    )
    pattern = np.where(pattern < 0, rd_pattern[name_of][inst], pattern)
    if filesystem:
        read_pct = per_name([rd.read_pct if rd else None for rd in rds])[name_of][inst]
    else:
        read_pct = setting["rdpct"]
    bs_kib = setting["xfersize"] / BYTES_PER_KIB
    if filesystem:  # FWD Xfersize is the observed average: 0 when nothing was transferred
        bs_kib[bs_kib == 0] = np.nan
    reqrate = setting["reqrate"]
    return _Settings(
        threads=threads,
        outstanding=threads * n_targets[name_of][inst],
        pattern=pattern,
        read_pct=read_pct,
        bs_kib=bs_kib,
        rate_limit_iops=np.where(np.isin(reqrate, MAX_RATE_SENTINELS), np.nan, reqrate),
    )


def _directions(m: dict[str, np.ndarray], cols: set[str]) -> tuple[Measures, Measures]:
    """Read and write measurements: native per-direction numbers (file system) or the read%
    split of the totals (raw I/O)."""
    iops, bw = m["iops"], m["bw_mib_s"]
    if "read_rate" in cols:
        read_iops, write_iops = m["read_iops"], m["write_iops"]
        read_bw, write_bw = m["read_bw_mib_s"], m["write_bw_mib_s"]
    else:
        share = m["read_obs_pct"] / 100.0
        read_iops, read_bw = iops * share, bw * share
        write_iops, write_bw = iops - read_iops, bw - read_bw
    out = []
    for d, d_iops, d_bw, all_share in (
        ("read", read_iops, read_bw, 100.0),
        ("write", write_iops, write_bw, 0.0),
    ):
        only = m["read_obs_pct"] == all_share  # this direction carries all the I/O
        lat = {}
        for stat, native in (("mean", "resp"), ("max", "max"), ("std", "std")):
            own = m[f"{d}_lat_{stat}_ms"]
            if f"{d}_{native}" not in cols:  # pre-50401 (no read_resp) or pre-50407 (no read_max)
                own = np.where(only, m[f"lat_{stat}_ms"], np.nan)
            lat[stat] = own
        out.append(Measures(d_iops, d_bw, lat["mean"], lat["max"], lat["std"]))
    return out[0], out[1]


def _kept(
    read: Measures, write: Measures, read_pct: np.ndarray, inst: np.ndarray, n_inst: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per row, whether it gets a read / a write row: its instance did I/O in that direction
    and its requested read% does not rule the direction out."""
    requested = pd.Series(read_pct).groupby(inst).max().to_numpy()
    out = []
    for measures, impossible in ((read, 0.0), (write, 100.0)):
        did = np.nan_to_num(measures.iops) > 0
        did_io = np.bincount(inst, weights=did, minlength=n_inst) > 0
        out.append((did_io & (requested != impossible))[inst])
    return out[0], out[1]


def _run_def_of(name: str, comp: Companions):
    """The parameter file's rd for a flatfile Run name (curve points: their rd's)."""
    if FORMAT_JOB.match(name):
        return None
    if name in comp.run_defs:
        return comp.run_defs[name]
    curve = CURVE_JOB.match(name)
    return comp.run_defs.get(curve.group(1)) if curve else None


def _loop_int(loop: str | None, key: str) -> float:
    m = re.search(rf"\b{key}=(\d+)\b", loop or "")
    return float(m.group(1)) if m else np.nan


def _loops_by_instance(
    comp: Companions, names: list[str], name_of: np.ndarray, steps: np.ndarray
) -> list[str | None]:
    """The k-th 'For loops' entry of an rd name belongs to its k-th instance (step k)."""
    if not comp.loops:
        return [None] * len(name_of)
    by_key: dict[tuple[str, int], str | None] = {}
    seen: dict[str, int] = {}
    for name, loop in comp.loops:
        k = seen.get(name, 0)
        seen[name] = k + 1
        by_key[(name, k)] = loop
    return [by_key.get((names[c], int(st))) for c, st in zip(name_of, steps, strict=True)]


def _version(table: pd.DataFrame, comp: Companions) -> str | None:
    if "version" in table.columns:
        values = table["version"].astype(str)
        known = values[~values.isin(NA_VALUES)]
        if len(known):
            return str(known.iat[0])
    return comp.version


def _timestamps(table: pd.DataFrame, comp: Companions, source: str) -> np.ndarray:
    """Row times as UTC datetime64[ns]: the 'timestamp' column, else 'tod' on the summary's date."""
    n = len(table)
    nat = np.full(n, np.datetime64("NaT"), dtype="datetime64[ns]")
    if "timestamp" in table.columns:
        text = table["timestamp"].astype(str)
        # 'MM/DD/YYYY-HH:MM:SS-ZONE'. One zone per file in practice: parse with it as a literal
        # (fast), then the rows it did not fit, if any, zone by zone.
        zone0 = str(text.iat[0])[20:] if n else ""
        parsed = pc.strptime(
            _arrow(text), format="%m/%d/%Y-%H:%M:%S-" + zone0.replace("%", "%%"), unit="s",
            error_is_null=True,
        )  # fmt: skip
        local = parsed.to_numpy(zero_copy_only=False).astype("datetime64[s]")
        in_range = (local >= np.datetime64("1970-01-01")) & (local < np.datetime64("2200-01-01"))
        local = np.where(in_range, local, np.datetime64("NaT")).astype("datetime64[ns]")
        zone = np.full(n, zone0, dtype=object)
        other = np.isnat(local)
        if other.any():
            rest = text[other]
            local[other] = pd.to_datetime(
                rest.str.slice(0, 19), format="%m/%d/%Y-%H:%M:%S", errors="coerce"
            )
            zone[other] = rest.str.slice(20).to_numpy(dtype=object)
        zone_codes, zones = (
            pd.factorize(zone) if other.any() else (np.zeros(n, dtype=np.int64), [zone0])
        )
        offsets = np.full(len(zones) + 1, np.timedelta64("NaT"), dtype="timedelta64[ns]")
        for k, name in enumerate(zones):
            off = utc_offset_for(str(name), comp)
            if off is None:
                warn(
                    f"{source}: time zone {name!r} is ambiguous or unknown and summary.html does "
                    "not give the UTC time; timestamps left NaT"
                )
            else:
                offsets[k] = np.timedelta64(int(off.total_seconds()), "s")
        return local - offsets[zone_codes]  # code -1 (no zone): NaT
    if "tod" not in table.columns or comp.created_local is None or comp.utc_offset is None:
        return nat
    tod = pd.to_timedelta(table["tod"].astype(str), errors="coerce").to_numpy(
        dtype="timedelta64[ns]"
    )
    secs = np.where(np.isnat(tod), np.nan, tod.astype(np.int64) / NS_PER_S)
    # Rows are in time order: a clock that jumps back by more than 12 h passed midnight.
    jumps = np.zeros(n, dtype=np.int64)
    if n > 1:
        jumps[1:] = np.diff(pd.Series(secs).ffill().fillna(0.0).to_numpy()) < -43200
    created = comp.created_local
    start = created.hour * 3600 + created.minute * 60 + created.second
    known = secs[~np.isnan(secs)]
    day0 = int(len(known) > 0 and known[0] < start - 43200)  # started just before midnight
    days = (day0 + np.cumsum(jumps)).astype("timedelta64[D]").astype("timedelta64[ns]")
    base = np.datetime64(created.date(), "ns") - np.timedelta64(
        int(comp.utc_offset.total_seconds()), "s"
    )
    return np.where(np.isnat(tod), nat, base + days + tod)


#: What marks a file as Vdbench's own, not one that only names Vdbench (a README, a notes file):
#: its HTML outputs start with '<pre>' or '<title>Vdbench ...', its console output and logfile
#: say 'Vdbench distribution', the flatfile's comment block names itself.
_VDBENCH_MARK = re.compile(
    rb"\A\s*(<title>Vdbench\b|<pre>)|Vdbench distribution:|Vdbench summary report|"
    rb"'flatfile\.html' contains Vdbench"
)


def _sniff(head: bytes) -> bool:
    if head.lstrip().startswith((b"<?xml", b"<Results")):
        return False  # XML is never Vdbench's, though a DiskSpd target path may name it
    return (
        _VDBENCH_MARK.search(head) is not None
        or re.search(rb"\bRun\s+Interval\b", head) is not None
    )


def _sniff_folder(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "flatfile.html"))


FORMAT = Format(
    name="vdbench",
    title="Vdbench output",
    tool="vdbench",
    sniff=_sniff,
    read=read_vdbench,
    by_path=True,  # finds the run's companion reports next to the flatfile
    sniff_folder=_sniff_folder,
)
