"""read_fio_log against real fio logs: fio 3.33 runs made for anfperf (tests/data/fio_logs,
see make_fixtures.sh there) and public pbench (fio 3.7) and fio-plot-results (fio 3.33) logs.

Expected values come from the raw text, parsed here independently with the csv module; a few
are looked up by hand in the files and cited.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anfperf.errors import ParseError
from anfperf.ingest.combine import merge_bins, percentiles_from_bins
from anfperf.ingest.fio_log import (
    HIST_COLUMNS,
    HIST_PERCENTILES,
    LOG_COLUMNS,
    parse_log_name,
    read_fio_log,
)
from tests.conftest import DATA, require_corpus

LOGS = DATA / "fio_logs"
DIRS = {0: "read", 1: "write", 2: "trim"}
NS_PER_MS = 1e6


def raw_rows(path: Path) -> list[list[str]]:
    """The lines of a fio log as lists of fields, read with the csv module."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", newline="") as fh:
        return [[field.strip() for field in row] for row in csv.reader(fh) if row]


def fio_bin(ns: int) -> int:
    """fio 3.x stat.c plat_val_to_idx: histogram bin of a latency [ns] (64 bins a group)."""
    msb = ns.bit_length() - 1 if ns else 0
    if msb <= 6:
        return ns
    error_bits = msb - 6
    return min((error_bits + 1) * 64 + ((ns >> error_bits) & 63), 29 * 64 - 1)


def order_statistic(values: np.ndarray, pct: float) -> float:
    """The value fio's percentile rule lands on: the ceil(p % x n)-th smallest."""
    rank = max(math.ceil(pct / 100.0 * len(values)), 1)
    return float(np.sort(values)[rank - 1])


# --- value logs ---------------------------------------------------------------------------------

PER_IO = [
    ("perio_lat.1.log", "lat_ms", NS_PER_MS),
    ("perio_clat.1.log", "clat_ms", NS_PER_MS),
    ("perio_slat.1.log", "slat_ms", NS_PER_MS),
    ("perio_bw.1.log", "bw_mib_s", 1024.0),  # fio logs KiB/s
    ("perio_iops.1.log", "iops", 1.0),
]


@pytest.mark.parametrize("name, column, divisor", PER_IO)
def test_per_io_log_matches_raw_lines(name, column, divisor):
    path = LOGS / name
    rows = raw_rows(path)
    df = read_fio_log(path)
    assert len(df) == len(rows) == len(path.read_bytes().splitlines())
    assert [len(r) for r in rows] == [5] * len(rows)  # fio 3.33: time, value, ddir, bs, prio
    np.testing.assert_array_equal(df["time_s"], [int(r[0]) / 1000 for r in rows])
    np.testing.assert_array_equal(df[column], [int(r[1]) / divisor for r in rows])
    assert df["direction"].tolist() == [DIRS[int(r[2])] for r in rows]
    np.testing.assert_array_equal(df["bs_kib"], [int(r[3]) / 1024 for r in rows])
    assert df["prio_rt"].tolist() == [r[4] == "1" for r in rows]
    assert set(df["direction"]) == {"read", "write"}  # rw=randrw
    assert (df["source_file"] == str(path)).all()
    assert df["host"].isna().all()
    assert (df["job_index"] == 1).all()
    assert df.attrs["kind"] == name.split("_")[1].split(".")[0]
    if column == "iops":  # per-I/O iops logs hold 1 per I/O
        assert (df["iops"] == 1).all()


def test_columns_follow_the_table():
    df = read_fio_log(LOGS / "offset_clat.1.log")
    table = {c: dtype for c, dtype, _, _ in LOG_COLUMNS}
    order = [c for c, *_ in LOG_COLUMNS]
    assert list(df.columns) == sorted(df.columns, key=order.index)
    for column in df.columns:
        assert str(df[column].dtype) == table[column], column


@pytest.mark.parametrize("job", [1, 2])
@pytest.mark.parametrize("kind", ["lat", "clat", "slat", "bw", "iops"])
def test_windowed_logs_of_two_jobs(kind, job):
    # log_avg_msec=250, numjobs=2: one line per window and direction, bs and offset written as 0.
    path = LOGS / f"avg_{kind}.{job}.log"
    rows = raw_rows(path)
    df = read_fio_log(path)
    value = {"bw": "bw_mib_s", "iops": "iops"}.get(kind, f"{kind}_ms")
    divisor = {"bw": 1024.0, "iops": 1.0}.get(kind, NS_PER_MS)
    assert len(df) == len(rows)
    assert (df["job_index"] == job).all()
    np.testing.assert_array_equal(df[value], [int(r[1]) / divisor for r in rows])
    assert {r[3] for r in rows} == {"0"}
    assert df["bs_kib"].isna().all()  # 0 means "not known" in windowed logs, never 0 KiB
    assert set(df["direction"]) == {"read", "write"}


def test_offset_log_has_offsets_and_priority():
    # log_offset=1 on fio 3.33: time, value, ddir, bs, offset, prio.
    path = LOGS / "offset_clat.1.log"
    rows = raw_rows(path)
    df = read_fio_log(path)
    assert [len(r) for r in rows] == [6] * len(rows) == [6] * 100  # number_ios=100
    assert df["offset_bytes"].dtype == "Int64"
    assert df["offset_bytes"].tolist() == [int(r[4]) for r in rows]
    assert (df["offset_bytes"] % 4096 == 0).all()
    assert df["prio_rt"].tolist() == [r[5] == "1" for r in rows]
    np.testing.assert_array_equal(df["clat_ms"], [int(r[1]) / NS_PER_MS for r in rows])


def test_old_fio_offset_layout_without_priority():
    # fio <= 3.17 with log_offset=1 writes the same fields as fio 3.33 minus the priority: made
    # here from the real fio 3.33 log by dropping its last field. Offsets are > 1, so the 5th
    # field is read as an offset, not as a priority bit.
    rows = raw_rows(LOGS / "offset_bw.1.log")
    text = "".join(", ".join(r[:5]) + "\n" for r in rows)
    df = read_fio_log(io.StringIO(text), kind="bw")
    assert df["offset_bytes"].tolist() == [int(r[4]) for r in rows]
    assert "prio_rt" not in df
    np.testing.assert_array_equal(df["bw_mib_s"], [int(r[1]) / 1024 for r in rows])


def test_log_prio_hex_priority():
    # log_prio=1, prioclass=2, prio=4: fio writes the ioprio as 0x4004 (class << 13 | level).
    path = LOGS / "prio_clat.1.log"
    rows = raw_rows(path)
    assert {r[4] for r in rows} == {"0x4004"}
    df = read_fio_log(path)
    assert df["prio_class"].tolist() == [int(r[4], 16) >> 13 for r in rows] == [2] * len(rows)
    assert df["prio_level"].tolist() == [int(r[4], 16) & 0x1FFF for r in rows] == [4] * len(rows)
    assert not df["prio_rt"].any()  # class 2 is best-effort, not real-time
    assert set(df["direction"]) == {"read"}


def test_client_server_log_names_the_host():
    # fio --client appends the server's host name to the log name (client.c).
    path = LOGS / "client_clat.1.log.127.0.0.1"
    rows = raw_rows(path)
    df = read_fio_log(path)
    assert df.attrs["kind"] == "clat"
    assert (df["host"] == "127.0.0.1").all()
    assert (df["job_index"] == 1).all()
    np.testing.assert_array_equal(df["clat_ms"], [int(r[1]) / NS_PER_MS for r in rows])
    iops = read_fio_log(LOGS / "client_iops.1.log.127.0.0.1")
    assert iops["iops"].tolist() == [float(r[1]) for r in raw_rows(path.with_name(
        "client_iops.1.log.127.0.0.1"))]  # fmt: skip


@pytest.mark.corpus
@pytest.mark.parametrize("kind", ["bw", "clat", "iops", "lat", "slat"])
def test_pbench_fio37_four_column_logs(kind):
    path = require_corpus() / "fio" / f"f12_perf36_fio_{kind}.1.log"
    rows = raw_rows(path)
    df = read_fio_log(path)
    assert [len(r) for r in rows] == [4] * len(rows)  # fio 3.7: no priority field
    assert len(df) == len(rows)
    assert "prio_rt" not in df and "offset_bytes" not in df
    assert set(df["direction"]) == {"read"}  # rw=read
    assert df["bs_kib"].isna().all()
    assert (df["job_index"] == 1).all() and df["host"].isna().all()
    assert df["time_s"].tolist() == [int(r[0]) / 1000 for r in rows]


@pytest.mark.corpus
def test_pbench_values_by_hand():
    fio = require_corpus() / "fio"
    # f12_perf36_fio_clat.1.log line 1: "1000, 1273222, 0, 0" -> 1.273222 ms at 1 s.
    clat = read_fio_log(fio / "f12_perf36_fio_clat.1.log")
    assert clat.loc[0, "time_s"] == 1.0
    assert clat.loc[0, "clat_ms"] == pytest.approx(1.273222, rel=1e-12)
    # f12_perf36_fio_bw.1.log line 1: "1000, 99556, 0, 0" KiB/s -> 97.22265625 MiB/s.
    bw = read_fio_log(fio / "f12_perf36_fio_bw.1.log")
    assert bw.loc[0, "bw_mib_s"] == 99556 / 1024 == 97.22265625


@pytest.mark.corpus
@pytest.mark.parametrize("kind", ["bw", "clat", "iops", "lat", "slat"])
def test_fio333_five_column_logs_with_priority(kind):
    path = require_corpus() / "fio" / f"f15_randwrite-iodepth-16-numjobs-8_{kind}.1.log"
    rows = raw_rows(path)
    df = read_fio_log(path)
    assert [len(r) for r in rows] == [5] * len(rows)
    assert len(df) == len(rows)
    assert set(df["direction"]) == {"write"}
    assert not df["prio_rt"].any()
    value = {"bw": "bw_mib_s", "iops": "iops"}.get(kind, f"{kind}_ms")
    divisor = {"bw": 1024.0, "iops": 1.0}.get(kind, NS_PER_MS)
    np.testing.assert_array_equal(df[value], [int(r[1]) / divisor for r in rows])


@pytest.mark.corpus
def test_fio333_bw_value_by_hand():
    # f15_randwrite-iodepth-16-numjobs-8_bw.1.log line 1: "1000, 157656, 1, 0, 0".
    path = require_corpus() / "fio" / "f15_randwrite-iodepth-16-numjobs-8_bw.1.log"
    row = read_fio_log(path).iloc[0]
    assert (row["time_s"], row["direction"], row["bw_mib_s"]) == (1.0, "write", 157656 / 1024)


def test_unit_us_for_fio2_latency_logs():
    ns = read_fio_log(LOGS / "perio_clat.1.log")
    us = read_fio_log(LOGS / "perio_clat.1.log", unit="us")
    np.testing.assert_allclose(us["clat_ms"], ns["clat_ms"] * 1000, rtol=1e-12)
    assert us.attrs["unit"] == "us"
    bw = read_fio_log(LOGS / "perio_bw.1.log", unit="us")  # unit does not touch bandwidth
    assert bw["bw_mib_s"].equals(read_fio_log(LOGS / "perio_bw.1.log")["bw_mib_s"])


def test_buffers_gzip_and_crlf_read_like_the_file():
    path = LOGS / "perio_lat.1.log"
    data = path.read_bytes()
    expected = read_fio_log(path).drop(columns=["source_file", "job_index"])
    for buffer in (
        io.BytesIO(data),
        io.StringIO(data.decode()),
        io.BytesIO(gzip.compress(data)),
        io.BytesIO(data.replace(b"\n", b"\r\n")),
    ):
        got = read_fio_log(buffer, kind="lat")
        assert (got["source_file"] == "<buffer>").all() and got["job_index"].isna().all()
        pd.testing.assert_frame_equal(got.drop(columns=["source_file", "job_index"]), expected)


def test_kind_argument_overrides_the_name():
    df = read_fio_log(LOGS / "perio_clat.1.log", kind="lat")
    assert "lat_ms" in df and "clat_ms" not in df
    assert read_fio_log(LOGS / "perio_clat_hist.1.log.gz", kind="hist").attrs["kind"] == "clat_hist"


def test_histogram_log_is_recognised_without_a_name():
    data = gzip.decompress((LOGS / "perio_clat_hist.1.log.gz").read_bytes())
    df = read_fio_log(io.BytesIO(data))
    assert df.attrs["kind"] == "clat_hist" and len(df) == 6


@pytest.mark.parametrize(
    "name, expected",
    [
        ("fio_clat.2.log", ("clat", 2, None)),
        ("randread_bw.1.log.perf36", ("bw", 1, "perf36")),
        ("client_clat.1.log.127.0.0.1", ("clat", 1, "127.0.0.1")),
        ("x_iops.log", ("iops", None, None)),
        ("/runs/a/f12_perf36_fio_clat_hist.1.log", ("clat_hist", 1, None)),
        ("job_hist.3.log", ("clat_hist", 3, None)),
        ("my_lat_test_slat.4.log.gz", ("slat", 4, None)),
        ("job.v2_lat.1.log", ("lat", 1, None)),
        ("results.log", (None, None, None)),
        ("fio.json", (None, None, None)),
    ],
)
def test_parse_log_name(name, expected):
    assert parse_log_name(name) == expected


# --- histogram logs -----------------------------------------------------------------------------


def windows(hist_rows: list[list[str]], clat_rows: list[list[str]]):
    """Per histogram line, the per-I/O clat values [ns] of its interval: the I/Os of its
    direction completed after that direction's previous line, up to its own time."""
    previous = {}
    for row in hist_rows:
        t, d = int(row[0]), row[1]
        start = previous.get(d, -1)
        previous[d] = t
        yield (
            row,
            np.array(
                [int(c[1]) for c in clat_rows if c[2] == d and start < int(c[0]) <= t],
                dtype=np.int64,
            ),
        )


def test_histogram_log_matches_raw_bins():
    path = LOGS / "perio_clat_hist.1.log.gz"
    rows = raw_rows(path)
    df = read_fio_log(path)
    assert [len(r) for r in rows] == [3 + 1856] * len(rows)  # fio 3.x: 29 groups x 64 bins
    assert list(df.columns) == [c for c, *_ in HIST_COLUMNS]
    assert len(df) == len(rows) == 6  # log_hist_msec=500 over 2 s, read and write
    assert df["time_s"].tolist() == [int(r[0]) / 1000 for r in rows]
    assert df["direction"].tolist() == [DIRS[int(r[1])] for r in rows]
    assert df["samples"].tolist() == [sum(int(v) for v in r[3:]) for r in rows]
    assert (df["bs_kib"] == 4.0).all() and (df["job_index"] == 1).all()
    for column, dtype, *_ in HIST_COLUMNS:
        assert str(df[column].dtype) == dtype, column


def test_histogram_bins_count_the_per_io_log_of_the_same_run():
    # Same fio run: each hist line holds the counts since that direction's previous line, in ns
    # bins (fio >= 3.0). Binning the per-I/O clat values of each interval the way fio does must
    # give exactly the logged counts.
    hist = raw_rows(LOGS / "perio_clat_hist.1.log.gz")
    clat = raw_rows(LOGS / "perio_clat.1.log")
    for row, values in windows(hist, clat):
        expected = np.bincount([fio_bin(int(v)) for v in values], minlength=1856)
        np.testing.assert_array_equal(np.array(row[3:], dtype=np.int64), expected)


@pytest.mark.parametrize("stem, bins_per_bin", [("perio", 1), ("coarse", 8)])
def test_histogram_percentiles_agree_with_per_io_values(stem, bins_per_bin):
    # fio's percentile is the midpoint of the bin holding the ceil(p% x n)-th value: within half
    # a bin of it, a bin being 1/64 of its group's base (x 8 with log_hist_coarseness=3).
    hist_path = LOGS / f"{stem}_clat_hist.1.log.gz"
    df = read_fio_log(hist_path)
    clat = raw_rows(LOGS / f"{stem}_clat.1.log")
    tolerance = bins_per_bin / 64  # relative: one (coarse) bin width at most
    for i, (_, values) in enumerate(windows(raw_rows(hist_path), clat)):
        assert df.loc[i, "samples"] == len(values)
        for column, pct in HIST_PERCENTILES.items():
            exact = order_statistic(values, pct) / NS_PER_MS
            assert df.loc[i, column] == pytest.approx(exact, rel=tolerance), (i, column)
        assert df.loc[i, "clat_mean_ms"] == pytest.approx(values.mean() / NS_PER_MS, rel=tolerance)


def test_coarse_histogram_adds_eight_fine_bins():
    hist = raw_rows(LOGS / "coarse_clat_hist.1.log.gz")
    assert [len(r) - 3 for r in hist] == [1856 // 8] * len(hist)  # log_hist_coarseness=3
    for row, values in windows(hist, raw_rows(LOGS / "coarse_clat.1.log")):
        fine = np.bincount([fio_bin(int(v)) for v in values], minlength=1856)
        np.testing.assert_array_equal(np.array(row[3:], dtype=np.int64), fine.reshape(-1, 8).sum(1))


def test_histogram_bins_merge_into_whole_run_percentiles():
    # clat_bins of all intervals merged (combine.merge_bins) give the run's percentiles.
    df = read_fio_log(LOGS / "perio_clat_hist.1.log.gz")
    clat = raw_rows(LOGS / "perio_clat.1.log")
    last = df["time_s"].max() * 1000
    for direction, code in (("read", "0"), ("write", "1")):
        merged = merge_bins(df.loc[df["direction"] == direction, "clat_bins"].tolist())
        values = np.array([int(c[1]) for c in clat if c[2] == code and int(c[0]) <= last])
        assert merged["count"].sum() == len(values)
        p50, p99 = percentiles_from_bins(merged, [50.0, 99.0])
        assert p50 == pytest.approx(order_statistic(values, 50) / NS_PER_MS, rel=1 / 64)
        assert p99 == pytest.approx(order_statistic(values, 99) / NS_PER_MS, rel=1 / 64)


@pytest.mark.corpus
def test_damaged_pbench_histogram_log_is_refused():
    # f12_perf36_fio_clat_hist.1.log (fio 3.7 client mode) holds impossible counts: bin 1594 has
    # 2147483647, bin 1598 288230376923725848 -> about 1.3e20 I/Os in 10 s (cf. axboe/fio#827).
    path = require_corpus() / "fio" / "f12_perf36_fio_clat_hist.1.log"
    with pytest.raises(ParseError, match="damaged histogram") as info:
        read_fio_log(path)
    assert info.value.line == 1 and info.value.source == str(path)


# --- bad input ----------------------------------------------------------------------------------


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_empty_slat_log_of_a_sync_engine():
    # Real: fio --client with ioengine=psync leaves the slat log empty.
    path = LOGS / "client_slat.1.log.127.0.0.1"
    assert path.stat().st_size == 0
    with pytest.raises(ParseError, match="empty") as info:
        read_fio_log(path)
    assert info.value.source == str(path)


@pytest.mark.parametrize(
    "data, match",
    [
        (b"", "empty"),
        (b"\n\n  \n", "empty"),
        (b"\x00\x01\x02garbage\xff\xfe", "binary"),
        (b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>", "HTML"),
        (b"time, value, ddir, bs\n1, 2, 0, 4096\n", "not a fio log"),
        (b"1000; 5120; 0; 4096\n", "not a fio log"),
        (b"\xe9\xe8\xe0 \xff\n", "not a fio log"),
    ],
)
def test_garbage_is_a_parse_error(tmp_path, data, match):
    path = write(tmp_path, "job_clat.1.log", data)
    with pytest.raises(ParseError, match=match) as info:
        read_fio_log(path)
    assert info.value.source == str(path)


@pytest.mark.corpus
def test_fio_json_output_is_not_a_log():
    path = require_corpus() / "fio" / "f05_fioplot_fio31_randrw.json"
    with pytest.raises(ParseError, match="JSON"):
        read_fio_log(path, kind="clat")


@pytest.mark.corpus
def test_fio_job_file_is_not_a_log():
    with pytest.raises(ParseError, match="job file"):
        read_fio_log(require_corpus() / "fio" / "f12_pbench_fio37_client.job", kind="bw")


def test_truncated_last_line_is_dropped_with_a_warning(tmp_path):
    data = (LOGS / "perio_clat.1.log").read_bytes()
    rows = raw_rows(LOGS / "perio_clat.1.log")
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    for cut in (last_start + 3, len(data) - 4, len(data) - 2):  # mid-number, after a comma, ...
        path = write(tmp_path, "cut_clat.1.log", data[:cut])
        with pytest.warns(UserWarning, match="dropped the last line"):
            df = read_fio_log(path)
        assert len(df) == len(rows) - 1
        assert df["clat_ms"].iloc[-1] == int(rows[-2][1]) / NS_PER_MS


def test_missing_final_newline_keeps_a_whole_last_line(tmp_path):
    data = (LOGS / "perio_clat.1.log").read_bytes()
    path = write(tmp_path, "nonl_clat.1.log", data.rstrip(b"\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(read_fio_log(path)) == len(raw_rows(LOGS / "perio_clat.1.log"))


def test_nul_bytes_after_a_crash_are_dropped_with_a_warning(tmp_path):
    data = (LOGS / "avg_clat.1.log").read_bytes()
    path = write(tmp_path, "crash_clat.1.log", data + b"\x00" * 4096)
    with pytest.warns(UserWarning, match="NUL bytes"):
        assert len(read_fio_log(path)) == len(raw_rows(LOGS / "avg_clat.1.log"))


def test_a_single_truncated_line_is_an_error(tmp_path):
    # With no whole line before it, a cut line cannot be told from a short layout: an error.
    with pytest.raises(ParseError, match="3 fields per line"):
        read_fio_log(write(tmp_path, "one_clat.1.log", b"250, 1578, 1"))
    with pytest.raises(ParseError, match="not a fio log"):
        read_fio_log(write(tmp_path, "one_clat.1.log", b"250, 1578, 1, "))


def test_truncated_histogram_line(tmp_path):
    data = gzip.decompress((LOGS / "perio_clat_hist.1.log.gz").read_bytes())
    with pytest.warns(UserWarning, match="dropped the last line"):
        df = read_fio_log(write(tmp_path, "h_clat_hist.1.log", data[: len(data) - 500]))
    assert len(df) == 5
    first = data[: data.index(b"\n")]
    with pytest.raises(ParseError, match="histogram bins"):
        read_fio_log(write(tmp_path, "h_clat_hist.1.log", first[:-500].rstrip(b", ")))


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda line: line.replace(b", 0, 4096", b", 7, 4096", 1), "data direction 7"),
        (lambda line: line.rsplit(b",", 1)[0], "Expected 5 columns"),
        (lambda line: line.replace(b", 4096", b", n/a", 1), "damaged"),
        (lambda line: line + b", 12", "Expected 5 columns"),
    ],
)
def test_a_damaged_line_inside_is_an_error(tmp_path, edit, match):
    lines = (LOGS / "perio_clat.1.log").read_bytes().splitlines(keepends=False)
    i = next(i for i, line in enumerate(lines) if b", 0, 4096" in line and i > 10)
    lines[i] = edit(lines[i])
    path = write(tmp_path, "bad_clat.1.log", b"\n".join(lines) + b"\n")
    with pytest.raises(ParseError, match=match) as info:
        read_fio_log(path)
    assert info.value.source == str(path)


def test_kind_that_does_not_fit_the_content(tmp_path):
    with pytest.raises(ParseError, match="a histogram log, not a clat log"):
        read_fio_log(LOGS / "perio_clat_hist.1.log.gz", kind="clat")
    with pytest.raises(ParseError, match="not a histogram log"):
        read_fio_log(LOGS / "perio_clat.1.log", kind="clat_hist")


def test_unknown_kind_asks_for_kind(tmp_path):
    path = write(tmp_path, "results.log", (LOGS / "perio_clat.1.log").read_bytes())
    with pytest.raises(ParseError, match="pass kind="):
        read_fio_log(path)
    assert len(read_fio_log(path, kind="clat")) == len(raw_rows(LOGS / "perio_clat.1.log"))


def test_bad_arguments_and_paths(tmp_path):
    with pytest.raises(ValueError, match="kind must be"):
        read_fio_log(LOGS / "perio_clat.1.log", kind="latency")
    with pytest.raises(ValueError, match="unit must be"):
        read_fio_log(LOGS / "perio_clat.1.log", unit="ms")
    with pytest.raises(ParseError, match="no such file"):
        read_fio_log(tmp_path / "missing_clat.1.log")
    with pytest.raises(ParseError, match="folder"):
        read_fio_log(tmp_path)
