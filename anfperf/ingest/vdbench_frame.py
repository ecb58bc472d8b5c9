"""Vdbench rows -> the tidy frame: directions, host reports, schema dtypes.

:func:`anfperf.ingest.vdbench.read_vdbench` first turns the flatfile into 'wide' rows
(:class:`anfperf.ingest.vdbench_records.WideRows`: settings plus total, read and write
measurements); this module expands them into one tidy row per direction, and adds the rows of host reports. Columns
are built with the schema's final dtypes and no Python object per row: for a 100,000-row
flatfile this costs less than pandas' own copies would.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from anfperf.errors import ParseError, warn
from anfperf.ingest._source import read_bytes
from anfperf.ingest.vdbench_companions import Companions, parse_host_report
from anfperf.ingest.vdbench_records import Instances, Measures, WideRows
from anfperf.schema import COLUMNS, DIRECTIONS, DTYPES, host_label, tool_dtype

#: Measurements that exist per direction.
MEASURED = ("iops", "bw_mib_s", "lat_mean_ms", "lat_max_ms", "lat_std_ms")


def clean_int(values: np.ndarray) -> np.ndarray:
    """Whole, finite, plausible numbers; anything else NaN (so Int64 casting cannot fail)."""
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(values) & (np.abs(values) < 2**53) & (values == np.round(values))
    return np.where(ok, values, np.nan)


def _strings(codes: np.ndarray, categories: list) -> pd.arrays.ArrowStringArray:
    """A string column from category codes (-1: missing), decoded by Arrow, no Python objects."""
    dictionary = pa.array([str(c) for c in categories], type=pa.large_string())
    indices = pa.array(codes.astype(np.int32), mask=codes < 0)
    return pd.arrays.ArrowStringArray(pc.take(dictionary, indices))


def _constant(value: str | None, n: int) -> pd.arrays.ArrowStringArray:
    return _strings(
        np.full(n, 0 if value is not None else -1), [value] if value is not None else []
    )


def _int64(values: np.ndarray) -> pd.arrays.IntegerArray:
    values = clean_int(np.asarray(values, dtype=np.float64))
    missing = np.isnan(values)
    return pd.arrays.IntegerArray(np.where(missing, 0, values).astype(np.int64), missing)


def _per_instance(values: list, inst: np.ndarray) -> pd.arrays.ArrowStringArray:
    codes, uniques = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    codes = np.asarray(codes)
    return _strings(codes[inst] if len(codes) else np.full(len(inst), -1), list(uniques))


def explode(w: WideRows) -> pd.DataFrame:
    """Wide rows -> tidy rows with the schema's dtypes: 'total' for every row, 'read'/'write'
    where kept. Built column by column without copies (pandas would otherwise copy the frame
    twice, which costs more than parsing it)."""
    idx, codes, pos = _layout(w)
    m = len(idx)
    inst = w.inst[idx]
    rd = w.instances
    out = _missing_columns(m)
    tool = tool_dtype()
    formatting = np.array([wl == "format" for wl in rd.workload], dtype=bool)[rd.name_of[inst]]
    out.update({
        "tool": pd.Categorical.from_codes(
            np.full(m, tool.categories.get_loc("vdbench")), dtype=tool
        ),
        "tool_version": _constant(w.tool_version, m),
        "source_file": _constant(w.source_file, m),
        "host": _constant(w.host, m),
        "job": _strings(rd.name_of[inst], rd.names),
        "workload": _per_instance(rd.workload, rd.name_of[inst]),
        "step": _int64(rd.step[inst]),
        "loop": _per_instance(rd.loops, inst),
        "direction": pd.Categorical.from_codes(codes, dtype=DTYPES["direction"]),
        "interval": _int64(np.where(w.is_summary, np.nan, w.interval)[idx]),
        "timestamp": pd.DatetimeIndex(w.timestamp[idx]).tz_localize("UTC").array,
        # a format pass Vdbench adds prepares files: no result, like a warm-up
        "is_summary": w.is_summary[idx] & ~formatting,
        "is_warmup": w.is_warmup[idx] | formatting,
        "pattern": pd.Categorical.from_codes(w.pattern[idx], dtype=DTYPES["pattern"]),
        "threads": _int64(w.threads[idx]),
        "outstanding": _int64(w.outstanding[idx]),
        "curve_pct": rd.curve_pct[inst],
        "direct_io": _direct_io(rd, inst),
    })  # fmt: skip
    for name in ("read_pct", "bs_kib", "rate_limit_iops", "cpu_user_pct", "cpu_sys_pct"):
        out[name] = np.asarray(getattr(w, name), dtype=np.float64)[idx]
    for k in MEASURED:  # per-direction measurements into their output rows
        col = np.empty(m)
        for d, (at, rows) in pos.items():
            col[at] = getattr(w.direction(d), k)[rows]
        out[k] = col
    out["queue_depth"] = np.where(codes == DIRECTIONS.index("total"), w.queue_depth[idx], np.nan)
    return pd.DataFrame(out, copy=False)


def _layout(w: WideRows) -> tuple[np.ndarray, np.ndarray, dict[str, tuple]]:
    """Where each wide row's tidy rows go: [read] [write] total, placed by offsets (no sort).

    Returns the wide row of each output row, its direction code, and per direction (output
    positions, wide rows).
    """
    kr = np.asarray(w.keep_read, dtype=np.int64)
    kw = np.asarray(w.keep_write, dtype=np.int64)
    start = np.cumsum(1 + kr + kw) - (1 + kr + kw)
    read_rows, write_rows = np.flatnonzero(kr), np.flatnonzero(kw)
    pos = {
        "total": (start + kr + kw, np.arange(w.n)),
        "read": (start[read_rows], read_rows),
        "write": (start[write_rows] + kr[write_rows], write_rows),
    }
    m = w.n + len(read_rows) + len(write_rows)
    idx = np.empty(m, dtype=np.int64)
    codes = np.empty(m, dtype=np.int64)
    for d, (at, rows) in pos.items():
        idx[at] = rows
        codes[at] = DIRECTIONS.index(d)
    return idx, codes, pos


def _direct_io(rd: Instances, inst: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """openflags=o_direct of each row's rd (from the parameter file; <NA> without one)."""
    per_name = rd.direct_io or [None] * len(rd.names)
    return pd.array([per_name[n] for n in rd.name_of[inst].tolist()], dtype="boolean")


def _missing_columns(m: int) -> dict[str, object]:
    """`m` missing values of every schema column Vdbench may leave empty, in its final dtype."""
    out: dict[str, object] = {}
    nan = np.full(m, np.nan)  # shared by the columns Vdbench has no data for
    nan.flags.writeable = False
    null_strings = pd.arrays.ArrowStringArray(pa.nulls(m, pa.large_string()))
    null_ints = _int64(nan)
    for name, dtype, _unit, _meaning in COLUMNS:
        if name == "run_id":
            continue
        if dtype == "string":
            out[name] = null_strings
        elif dtype == "Int64":
            out[name] = null_ints
        elif dtype == "float64":
            out[name] = nan
        elif dtype == "bool":
            out[name] = np.zeros(m, dtype=bool)
        elif name == "lat_bins":
            out[name] = np.full(m, None, dtype=object)
    return out


def host_rows(w: WideRows, comp: Companions) -> list[pd.DataFrame]:
    """Tidy rows from the host reports of a multi-host run; settings come from the flatfile."""
    frames: list[pd.DataFrame] = []
    if comp.prefix is None:
        return frames
    for host in comp.hosts:
        candidates = (Path(f"{comp.prefix}{host}.html"), Path(f"{comp.prefix}{host}.html.gz"))
        path = next((p for p in candidates if p.is_file()), None)
        if path is None:
            continue
        try:
            data, src = read_bytes(path)
            report = parse_host_report(data.decode("utf-8", "replace"), src)
        except ParseError:
            report = None
        if report is None:
            warn(f"{path}: host report cannot be read; its rows are left out")
            continue
        hw = _host_wide(report, w, host, src)
        if hw is not None:
            frames.append(explode(hw))
    return frames


def _host_wide(report: pd.DataFrame, w: WideRows, host: str, source: str) -> WideRows | None:
    """Wide rows of one host report, matched to the flatfile's RD instances by (job, step)."""
    rd = w.instances
    instances = {
        (rd.names[c], int(st)): k for k, (c, st) in enumerate(zip(rd.name_of, rd.step, strict=True))
    }
    inst = np.array(
        [instances.get((j, int(s)), -1) for j, s in zip(report["job"], report["step"], strict=True)]
    )
    report = report[inst >= 0].reset_index(drop=True)
    inst = inst[inst >= 0]
    if report.empty:
        return None

    def col(name: str) -> np.ndarray:
        if name in report:
            return report[name].to_numpy(dtype=np.float64)
        return np.full(len(report), np.nan)

    is_sum = report["is_summary"].to_numpy(dtype=bool)
    ival = col("interval")
    first_row = np.unique(w.inst, return_index=True)[1][inst]
    total = Measures(*(col(k) for k in MEASURED))
    read, write = _host_directions(report, col, total)
    threads = w.threads[first_row]
    # this host's SDs (threads are per SD), where the parameter file ties each SD to a host
    targets = np.array([(t or {}).get(host, np.nan) for t in rd.host_targets], dtype=np.float64)
    return WideRows(
        instances=rd, inst=inst, interval=ival, is_summary=is_sum,
        is_warmup=~is_sum & (ival < rd.avg_first[inst]),
        timestamp=_host_timestamps(w, inst, is_sum, ival), threads=threads,
        outstanding=threads * targets[rd.name_of[inst]], pattern=w.pattern[first_row],
        read_pct=w.read_pct[first_row], bs_kib=w.bs_kib[first_row],
        rate_limit_iops=w.rate_limit_iops[first_row],
        cpu_user_pct=col("cpu_total_pct") - col("cpu_sys_pct"), cpu_sys_pct=col("cpu_sys_pct"),
        queue_depth=col("queue_depth"), total=total, read=read, write=write,
        keep_read=w.keep_read[first_row], keep_write=w.keep_write[first_row],
        tool_version=w.tool_version, host=host_label(host), source_file=source,
    )  # fmt: skip


def _host_timestamps(
    w: WideRows, inst: np.ndarray, is_sum: np.ndarray, ival: np.ndarray
) -> np.ndarray:
    """Times of host report rows: the flatfile row of the same instance and interval's."""
    # avg_ rows: interval key -1
    flat = pd.Series(np.arange(w.n), index=pd.MultiIndex.from_arrays(
        [w.inst, np.where(w.is_summary, -1, np.nan_to_num(w.interval))]))  # fmt: skip
    flat = flat[~flat.index.duplicated()]
    at = flat.reindex(pd.MultiIndex.from_arrays([inst, np.where(is_sum, -1, np.nan_to_num(ival))]))
    at = at.to_numpy(dtype=np.float64)
    stamps = np.where(
        np.isnan(at), np.datetime64("NaT"), w.timestamp[np.nan_to_num(at).astype(np.int64)]
    )
    return stamps.astype("datetime64[ns]")


def _host_directions(
    report: pd.DataFrame, col: Callable[[str], np.ndarray], total: Measures
) -> tuple[Measures, Measures]:
    """Read and write measurements of a host report: native (file system) or the read% split."""
    share = col("read_obs_pct") / 100.0
    if "read_iops" in report:  # file-system layout: exact per-direction numbers
        r_iops, w_iops = col("read_iops"), col("write_iops")
        r_bw, w_bw = col("read_bw_mib_s"), col("write_bw_mib_s")
    else:
        r_iops, r_bw = total.iops * share, total.bw_mib_s * share
        w_iops, w_bw = total.iops - r_iops, total.bw_mib_s - r_bw

    def own(name: str, stat: str, all_share: float) -> np.ndarray:
        """The direction's own column, else the total where this direction did all the I/O."""
        if name in report:
            return col(name)
        return np.where(share == all_share, getattr(total, stat), np.nan)

    read = Measures(
        r_iops, r_bw, own("read_lat_ms", "lat_mean_ms", 1.0),
        own("read_max_ms", "lat_max_ms", 1.0), own("read_std_ms", "lat_std_ms", 1.0),
    )  # fmt: skip
    write = Measures(
        w_iops, w_bw, own("write_lat_ms", "lat_mean_ms", 0.0),
        own("write_max_ms", "lat_max_ms", 0.0), own("write_std_ms", "lat_std_ms", 0.0),
    )  # fmt: skip
    return read, write
