"""read_vdbench and read_vdbench_histogram on real Vdbench outputs.

tests/data/vdbench/ holds copies of the real 50405 runs of ../shared/corpus/vdbench (flatfile,
summary, parmfile, logfile; histograms and host reports where used). The public files of
../shared/corpus/public/vdbench are read in place. Expected values are either parsed here from
the raw files, independently of the reader, or looked up by hand and cited.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anfperf.errors import ParseError
from anfperf.ingest.vdbench import (
    read_vdbench,
    read_vdbench_histogram,
    vdbench_histogram_percentiles,
)
from anfperf.schema import COLUMN_NAMES, conform

DATA = Path(__file__).resolve().parents[1] / "data" / "vdbench"
RUNS = sorted(p.name for p in DATA.iterdir() if (p / "flatfile.html").is_file())
DATA_ROW = re.compile(r"^\d\d:\d\d:\d\d\.\d+\s")


def corpus_dir() -> Path:
    """../shared/corpus; skip when absent outside CI, fail when absent in CI."""
    path = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
    if not (path / "public" / "vdbench").is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: CI must provide ../shared/corpus")
        pytest.skip(f"{path} not present (outside CI)")
    return path


def public(name: str) -> Path:
    return corpus_dir() / "public" / "vdbench" / name


def read_quiet(path, **kwargs) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_vdbench(path, **kwargs)


# ----------------------------------------------------------------- independent raw parsing


def raw_flatfile_rows(path: Path) -> list[list[str]]:
    """Data rows of a flatfile, split on whitespace (header row first)."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    head = next(i for i, ln in enumerate(lines) if " Run " in ln and "Interval" in ln)
    rows = [ln.split() for ln in lines[head:] if ln.strip() and not ln.startswith("<")]
    return rows


def raw_instances(path: Path) -> list[dict]:
    """RD instances of a flatfile: name, avg_ range, interval numbers (raw text)."""
    rows = raw_flatfile_rows(path)
    hdr = rows[0]
    i_run, i_int = hdr.index("Run"), hdr.index("Interval")
    out: list[dict] = []
    prev = None
    for row in rows[1:]:
        run, interval = row[i_run], row[i_int]
        if (
            prev is None
            or run != prev["name"]
            or prev["avg"] is not None
            or (not interval.startswith("avg_") and int(interval) <= prev["intervals"][-1])
        ):
            prev = {"name": run, "avg": None, "intervals": [0], "rates": {}}
            out.append(prev)
        if interval.startswith("avg_"):
            a, b = map(int, interval[4:].split("-"))
            prev["avg"] = (a, b)
        else:
            prev["intervals"].append(int(interval))
    for inst in out:
        inst["intervals"] = inst["intervals"][1:]
    return out


def summary_avg_lines(path: Path) -> list[dict]:
    """The avg_ lines of a summary.html with their RD name, as printed (independent regexes)."""
    out = []
    job, fs = None, False
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = re.search(r"Starting RD=([^;<\s]+)", line)
        if m:
            job = m.group(1)
            continue
        if re.search(r"\.Interval\.", line):
            fs = True  # file-system layout: rate resp cpu cpu pct ... mb/sec total
        elif re.search(r"\binterval\s+i/o", line):
            fs = False
        m = re.match(r"^\d\d:\d\d:\d\d\.\d+\s+avg_\d+-\d+\s+(.*)$", line)
        if m:
            vals = m.group(1).split()
            rate, mb, resp = (vals[0], vals[11], vals[1]) if fs else (vals[0], vals[1], vals[4])
            out.append({"job": job, "iops": rate, "bw_mib_s": mb, "lat_mean_ms": resp})
    return out


def printed_tolerance(token: str) -> float:
    """One unit of the last printed digit (Vdbench rounds SD values, truncates FWD ones)."""
    decimals = len(token.split(".")[1]) if "." in token else 0
    return 10.0**-decimals + 1e-9


def totals(frame: pd.DataFrame, host: str | None = None) -> pd.DataFrame:
    sel = frame["direction"] == "total"
    if host is not None:
        sel &= frame["host"] == host
    return frame[sel]


# ----------------------------------------------------------------- the corpus runs


@pytest.mark.parametrize("run", RUNS)
def test_frame_rows_match_raw_flatfile(run):
    frame = read_vdbench(DATA / run)
    assert list(frame.columns) == COLUMN_NAMES
    pd.testing.assert_frame_equal(frame, conform(frame))
    rows = raw_flatfile_rows(DATA / run / "flatfile.html")
    hdr, body = rows[0], rows[1:]
    host = "all" if run == "MultiHostSeqMix" else "localhost"  # summary: HOST reports
    tot = totals(frame, host)
    assert len(tot) == len(body)
    # Row by row, in file order: rate, MB/sec, resp as written.
    for name, col in (("rate", "iops"), ("MB/sec", "bw_mib_s"), ("resp", "lat_mean_ms")):
        raw = np.array([float(r[hdr.index(name)]) for r in body])
        np.testing.assert_allclose(tot[col].to_numpy(), raw, rtol=0, atol=1e-9)
    assert (frame["tool"] == "vdbench").all()
    assert (frame["tool_version"] == "vdbench50405").all()  # logfile: 'Vdbench distribution'
    assert (frame["run_id"] == run).all()


@pytest.mark.parametrize("run", RUNS)
def test_avg_rows_equal_summary_avg_lines(run):
    frame = read_vdbench(DATA / run)
    host = "all" if run == "MultiHostSeqMix" else "localhost"
    avg = totals(frame, host)
    avg = avg[avg["interval"].isna()]  # every avg_ row; Vdbench's format passes are no result
    assert list(avg["is_summary"]) == list(avg["workload"] != "format")
    expected = summary_avg_lines(DATA / run / "summary.html")
    assert len(avg) == len(expected) > 0
    for (_, row), exp in zip(avg.iterrows(), expected, strict=True):
        assert row["job"] == exp["job"]
        assert pd.isna(row["interval"])
        for col in ("iops", "bw_mib_s", "lat_mean_ms"):
            assert abs(row[col] - float(exp[col])) <= printed_tolerance(exp[col]), (col, exp)


@pytest.mark.parametrize("run", RUNS)
def test_read_plus_write_is_total(run):
    frame = read_vdbench(DATA / run)
    keys = ["host", "job", "step", "interval", "is_summary"]
    wide = frame.pivot_table(
        index=keys, columns="direction", values="iops", observed=True, dropna=False
    )
    wide = wide.dropna(how="all")
    parts = wide.reindex(columns=["read", "write"]).fillna(0).sum(axis=1)
    np.testing.assert_allclose(parts.to_numpy(), wide["total"].to_numpy(), rtol=1e-9, atol=1e-6)
    bw = frame.pivot_table(index=keys, columns="direction", values="bw_mib_s", observed=True)
    parts = bw.reindex(columns=["read", "write"]).fillna(0).sum(axis=1)
    np.testing.assert_allclose(parts.to_numpy(), bw["total"].to_numpy(), rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize("run", RUNS)
def test_warmup_flags_match_avg_range(run):
    frame = read_vdbench(DATA / run)
    host = "all" if run == "MultiHostSeqMix" else "localhost"
    tot = totals(frame, host)
    instances = raw_instances(DATA / run / "flatfile.html")
    got = list(tot.groupby(["job", "step"], sort=False))
    assert len(got) == len(instances)
    for ((job, _step), rows), inst in zip(got, instances, strict=True):
        assert job == inst["name"]
        a, _b = inst["avg"]
        intervals = rows[rows["interval"].notna()]
        warm = set(intervals.loc[intervals["is_warmup"], "interval"].astype(int))
        if job.startswith(("format_for_", "SD_format")):  # preparation: no measured interval
            assert rows["is_warmup"].all() and not rows["is_summary"].any()
            continue
        assert warm == {i for i in inst["intervals"] if i < a}
        assert not rows.loc[rows["is_summary"], "is_warmup"].any()


def test_for_loop_threads_are_steps():
    frame = read_vdbench(DATA / "RndReadThreads")
    avg = totals(frame)[totals(frame)["is_summary"]]
    # parmfile: rd=threads,...,forthreads=(1,2,4,8,16,32,64); summary 'For loops: threads=N'.
    assert list(avg["job"]) == ["threads"] * 7
    assert list(avg["step"]) == list(range(7))
    assert list(avg["threads"]) == [1, 2, 4, 8, 16, 32, 64]
    assert list(avg["loop"]) == [f"threads={t}" for t in (1, 2, 4, 8, 16, 32, 64)]
    # Two SDs (sd-1-1, sd-1-2) with `threads` each: 2 x threads outstanding, which the
    # observed queue_depth confirms (threads=64: 120.78 in the avg_2-6 row).
    assert list(avg["outstanding"]) == [2, 4, 8, 16, 32, 64, 128]
    assert avg["queue_depth"].iloc[-1] == pytest.approx(120.781)
    assert (frame["workload"] == "RndRead").all()
    assert (frame["pattern"] == "random").all()  # seekpct=100
    assert (frame["bs_kib"] == 4.0).all()  # xfersize 4096
    assert frame["rate_limit_iops"].isna().all()  # reqrate 9999988 = max


def test_curve_points():
    frame = read_vdbench(DATA / "RndReadCurve")
    avg = totals(frame)[totals(frame)["is_summary"]]
    # The uncontrolled 'curve' run first (reqrate 9999977), then curve=(10,30,...,100).
    assert list(avg["job"])[:2] == ["curve", "curve_(10%)"]
    np.testing.assert_array_equal(
        avg["curve_pct"].to_numpy(), [np.nan, 10, 30, 50, 70, 80, 90, 100]
    )
    # summary.html 'Starting RD=curve_(10%); I/O rate: 9300' ... 92500 for 100 %.
    np.testing.assert_array_equal(
        avg["rate_limit_iops"].to_numpy(),
        [np.nan, 9300, 27800, 46300, 64700, 74000, 83200, 92500],
    )
    assert (avg["threads"] == 16).all()
    assert (avg["workload"] == "RndRead").all()  # curve points belong to rd=curve


def test_three_rds_of_seqwrite():
    frame = read_vdbench(DATA / "SeqWrite")
    avg = totals(frame)[totals(frame)["is_summary"]]
    assert list(avg["job"]) == ["SeqWrite-26", "SeqWrite-32", "SeqWrite-40"]
    assert list(avg["threads"]) == [26, 32, 40]
    assert list(avg["loop"]) == ["threads=26", "threads=32", "threads=40"]
    assert list(avg["step"]) == [0, 0, 0]
    assert set(frame["direction"]) == {"write", "total"}  # rdpct=0: no read rows
    assert (frame["pattern"] == "sequential").all()  # seekpct=0


@pytest.mark.parametrize(
    "run, directions",
    [("RndRead", {"read", "total"}), ("RndWrite", {"write", "total"}),
     ("RndMix", {"read", "write", "total"}), ("FillWrite", {"write", "total"})],
)  # fmt: skip
def test_directions_follow_rdpct(run, directions):
    assert set(read_vdbench(DATA / run)["direction"]) == directions


def test_mixed_split_by_observed_read_share():
    frame = read_vdbench(DATA / "RndMix")
    row = frame[(frame["interval"] == 1) & (frame["host"] == "localhost")]
    by = row.set_index("direction")
    # flatfile interval 1: rate 78614.0000, MB/sec 614.1719, read% 50.0141, read_resp 0.5437.
    raw = raw_flatfile_rows(DATA / "RndMix" / "flatfile.html")
    hdr, first = raw[0], raw[1]
    rate, mb, pct = (float(first[hdr.index(c)]) for c in ("rate", "MB/sec", "read%"))
    assert by.loc["read", "iops"] == pytest.approx(rate * pct / 100)
    assert by.loc["write", "iops"] == pytest.approx(rate * (1 - pct / 100))
    assert by.loc["read", "bw_mib_s"] == pytest.approx(mb * pct / 100)
    assert by.loc["read", "lat_mean_ms"] == float(first[hdr.index("read_resp")])
    assert by.loc["write", "lat_mean_ms"] == float(first[hdr.index("write_resp")])
    assert by.loc["total", "read_pct"] == 50.0  # rdpct requested
    assert np.isnan(by.loc["read", "queue_depth"])  # observed queue depth: total rows only


def test_fillwrite_seekpct_eof_is_sequential():
    frame = read_vdbench(DATA / "FillWrite")
    raw = raw_flatfile_rows(DATA / "FillWrite" / "flatfile.html")
    assert raw[1][raw[0].index("seekpct")] == "n/a"  # the flatfile does not say ...
    assert (frame["pattern"] == "sequential").all()  # ... parmfile: wd seekpct=eof
    assert (frame["outstanding"] == 2).all()  # forthreads=1 on two SDs


def test_file_system_run():
    frame = read_vdbench(DATA / "FileSysSeq")
    avg = totals(frame)[totals(frame)["interval"].isna()]
    # format runs are jobs of their own, marked as preparation (no whole-run result);
    # forthreads=(2,4) gives two instances of each.
    assert list(avg["job"]) == ["format_for_fsseq", "fsseq"] * 2
    assert (
        list(avg["is_summary"]) == [False, True] * 2 and list(avg["is_warmup"]) == [True, False] * 2
    )
    assert list(avg["step"]) == [0, 0, 1, 1]
    assert list(avg["threads"]) == [2, 2, 4, 4]  # 'For loops: threads=N' (no flatfile column)
    assert list(avg["workload"]) == ["format", "fwdr", "format", "fwdr"]
    fs = frame[frame["job"] == "fsseq"]
    assert set(fs["direction"]) == {"read", "total"}  # operation=read
    assert set(frame.loc[frame["job"] == "format_for_fsseq", "direction"]) == {"write", "total"}
    assert (fs["read_pct"] == 100).all() and (fs["pattern"] == "sequential").all()
    # Read rows come from Read_rate / MB_read / Read_resp: avg_2-6 of step 1 reads 194031.0000
    read_avg = fs[(fs["direction"] == "read") & fs["is_summary"] & (fs["step"] == 1)]
    assert read_avg["iops"].item() == 194031.0
    assert read_avg["bw_mib_s"].item() == 12126.9375
    assert read_avg["lat_mean_ms"].item() == 0.0139


def test_every_row_of_a_two_loop_sweep_carries_every_loop_value():
    folder = DATA / "TwoLoopSweep"
    # Vdbench lists only what changed from one run to the next
    assert ">rdpct=70</A>" in (folder / "summary.html").read_text()
    tot = totals(read_vdbench(folder))
    runs = tot[tot["is_summary"]]
    expected = ["threads=1 rdpct=100", "threads=1 rdpct=70", "threads=2 rdpct=100",
                "threads=2 rdpct=70"]  # fmt: skip
    assert list(runs["loop"]) == expected  # before: "rdpct=70" alone
    assert list(runs["threads"]) == [1, 1, 2, 2] and list(runs["read_pct"]) == [100, 70, 100, 70]
    for _, rows in tot[tot["job"] == "Mix"].groupby("step"):
        assert rows["loop"].nunique() == 1  # interval rows too
    fmt = tot[tot["job"] == "SD_format"]
    assert fmt["is_warmup"].all() and not fmt["is_summary"].any()
    assert fmt["loop"].iat[0] == "threads=2 iorate=max"


def test_per_host_rows_carry_their_outstanding_io():
    frame = read_vdbench(DATA / "MultiHostSeqMix")
    runs = totals(frame)[totals(frame)["is_summary"]].set_index(["host", "threads"])
    # threads are per SD; each host drives 2 of the 4 SDs (sd=...,host=vm1 / vm2)
    assert runs.loc[("all", 6), "outstanding"] == 24
    assert runs.loc[("vm1", 6), "outstanding"] == runs.loc[("vm2", 6), "outstanding"] == 12
    assert runs.loc[("vm1", 7), "outstanding"] == 14  # before: <NA>


def test_multi_host_rows_sum_to_all():
    frame = read_vdbench(DATA / "MultiHostSeqMix")
    assert set(frame["host"]) == {"all", "vm1", "vm2"}
    tot = totals(frame)
    keys = ["job", "step", "interval", "is_summary"]
    wide = tot.pivot_table(index=keys, columns="host", values="iops", dropna=False)
    wide = wide.dropna(how="all")
    assert len(wide) == 2 * 9  # two RDs x (8 intervals + avg_3-8)
    # Host reports print 2 decimals: the hosts' sum equals the all-host rate within rounding.
    np.testing.assert_allclose(wide["vm1"] + wide["vm2"], wide["all"], rtol=0, atol=0.011)
    # vm1.html interval 1 of SeqMix-6: 10621.00 i/o per s, 663.81 MB/s, read pct 49.22.
    one = frame[(frame["host"] == "vm1") & (frame["job"] == "SeqMix-6") & (frame["interval"] == 1)]
    by = one.set_index("direction")
    assert by.loc["total", "iops"] == 10621.0
    assert by.loc["total", "bw_mib_s"] == 663.81
    assert by.loc["read", "iops"] == pytest.approx(10621.0 * 0.4922)
    assert by.loc["read", "lat_mean_ms"] == 0.752
    assert by.loc["total", "cpu_sys_pct"] == 15.9
    assert by.loc["total", "cpu_user_pct"] == pytest.approx(37.0 - 15.9)
    # Host rows carry the all-host row's timestamp and the RD's settings.
    all_one = frame[
        (frame["host"] == "all") & (frame["job"] == "SeqMix-6") & (frame["interval"] == 1)
    ]
    assert (one["timestamp"].to_numpy() == all_one["timestamp"].iloc[0]).all()
    assert (one["threads"] == 6).all()
    assert set(one["direction"]) == {"read", "write", "total"}
    warm = frame[(frame["host"] == "vm2") & frame["is_warmup"]]
    assert set(warm["interval"]) == {1, 2}  # avg_3-8
    assert (totals(frame, "all")["outstanding"].dropna().unique() == [24, 28]).all()


def test_hosts_false_keeps_all_host_rows_only():
    frame = read_vdbench(DATA / "MultiHostSeqMix", hosts=False)
    assert set(frame["host"]) == {"all"}


def test_lone_flatfile_and_buffers(tmp_path):
    folder = read_vdbench(DATA / "SeqMix")
    shutil.copy(DATA / "SeqMix" / "flatfile.html", tmp_path / "flatfile.html")
    lone = read_vdbench(tmp_path / "flatfile.html")
    assert len(lone) == len(folder)
    np.testing.assert_array_equal(lone["iops"], folder["iops"])
    assert (lone["host"] == "all").all()  # no companion names the host
    assert lone["workload"].isna().all() and lone["loop"].isna().all()
    assert lone["tool_version"].isna().all()  # flatfile 'version' is n/a, no logfile
    assert lone["outstanding"].isna().all()  # SD count needs the parmfile
    assert list(lone["threads"].dropna().unique()) == [6, 7]
    assert (lone["timestamp"] == folder["timestamp"]).all()  # the timestamp column says UTC
    data = (DATA / "SeqMix" / "flatfile.html").read_bytes()
    for buffer in (io.BytesIO(data), io.StringIO(data.decode()), io.BytesIO(gzip.compress(data))):
        np.testing.assert_array_equal(read_vdbench(buffer)["iops"], folder["iops"])
    (tmp_path / "flatfile.html").write_bytes(gzip.compress(data))
    np.testing.assert_array_equal(read_vdbench(tmp_path)["iops"], folder["iops"])


# ----------------------------------------------------------------- public files, in place


@pytest.mark.corpus
def test_public_v01_old_multi_host_windows():
    frame = read_vdbench(public("v01_flatfile.html"))
    tot = totals(frame)
    assert list(tot.loc[tot["is_summary"], "job"]) == ["rd1", "rd2", "rd3"]
    assert (tot.groupby("job").size() == 61).all()  # 60 intervals + avg_2-60
    assert set(frame["host"]) == {"all"}  # hd1 + hd2 (their reports are not in the corpus)
    assert (frame["tool_version"] == "vdbench50401").all()  # v01_logfile.html
    assert (frame["workload"] == "wd*").all()
    assert sorted(tot["rate_limit_iops"].unique()) == [50.0, 500.0, 5000.0]  # iorate=
    assert (tot["outstanding"] == 2).all()  # threads=2 on one SD (sd1, host=hd*)
    # rd1 interval 1: tod 13:49:01.260, summary 'created ... Apr 08 2016 MDT' (UTC-6).
    first = tot.iloc[0]
    assert first["timestamp"] == pd.Timestamp("2016-04-08 19:49:01.260", tz="UTC")
    # cpu columns 'n/a' in rd1 interval 1 -> NaN, never 0; rd3 avg has cpu_user 0.4850.
    assert np.isnan(first["cpu_user_pct"]) and np.isnan(first["cpu_sys_pct"])
    assert tot[tot["is_summary"]].iloc[-1]["cpu_user_pct"] == 0.4850


@pytest.mark.corpus
def test_public_v03_file_system_without_timestamp():
    frame = read_vdbench(public("v03_flatfile.html"))
    tot = totals(frame)
    avg = tot[tot["interval"].isna()]
    assert list(avg["job"]) == ["format_for_rd1", "rd1"]
    assert list(avg["is_summary"]) == [False, True]
    assert [int(n) for n in tot.groupby("job", sort=False).size()] == [8, 31]  # avg_2-7, avg_2-30
    # tod 09:52:44.190 on summary's 'created 09:52:40 Apr 24 2017 UTC'
    assert tot.iloc[0]["timestamp"] == pd.Timestamp("2017-04-24 09:52:44.190", tz="UTC")
    # rd1 avg_2-30: rate 33623.8276 = Read_rate 16808.1724 + Write_rate 16815.6552
    rd1 = frame[(frame["job"] == "rd1") & frame["is_summary"]].set_index("direction")
    assert rd1.loc["total", "iops"] == 33623.8276
    assert rd1.loc["read", "iops"] == 16808.1724
    assert rd1.loc["write", "iops"] == 16815.6552
    assert rd1.loc["write", "lat_mean_ms"] == 0.1581
    assert rd1.loc["total", "read_pct"] == 50.0  # parmfile fwd rdpct=50
    assert rd1.loc["total", "threads"] == 4 and rd1.loc["total", "pattern"] == "random"
    assert np.isnan(rd1.loc["total", "rate_limit_iops"])  # reqrate 999988 = fwdrate=max


@pytest.mark.corpus
def test_public_v06_truncated_keeps_interval_rows():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_vdbench(public("v06_flatfile.html"))
    messages = " | ".join(str(w.message) for w in caught)
    assert "no avg_ row for rd=rd1" in messages and "time zone 'CST'" in messages
    rd1 = totals(frame)[totals(frame)["job"] == "rd1"]
    assert len(rd1) == 287 and not rd1["is_summary"].any()  # stops at interval 287
    assert list(rd1.loc[rd1["is_warmup"], "interval"]) == [1]
    assert (frame["host"] == "hd1").all()  # single host hd1
    # 'CST' (China or US Central) with no UTC time in the 50406 summary: NaT, not a guess.
    assert frame["timestamp"].isna().all()
    fmt = totals(frame)[totals(frame)["job"] == "format_for_rd1"]
    assert len(fmt) == 2 and set(frame.loc[frame["job"] == "format_for_rd1", "direction"]) == {
        "total"
    }  # the format run did no I/O: no read/write rows


@pytest.mark.corpus
def test_public_v08_macos_single_space():
    frame = read_vdbench(public("v08_flatfile.html"))
    tot = totals(frame)
    assert list(tot.loc[tot["interval"].isna(), "job"]) == ["SD_format", "rd1"]
    assert list(tot.loc[tot["is_summary"], "job"]) == ["rd1"]  # the format pass is no result
    assert tot.iloc[0]["loop"] == "threads=2 iorate=max"
    # 21:16:09 CST; summary: 'created 21:16:03 5月 10 2023 CST (13:16:03 5月 10 2023 UTC)'
    assert tot.iloc[0]["timestamp"] == pd.Timestamp("2023-05-10 13:16:09", tz="UTC")
    row = frame[(frame["job"] == "rd1") & (frame["interval"] == 1)].set_index("direction")
    # rd1 1: rate 87, read% 54.023, read_resp 0.0166, read_max 0.094, write_std 0.0309
    assert row.loc["read", "iops"] == pytest.approx(87 * 0.54023)
    assert row.loc["read", "lat_mean_ms"] == 0.0166
    assert row.loc["read", "lat_max_ms"] == 0.094
    assert row.loc["write", "lat_std_ms"] == 0.0309
    assert row.loc["total", "rate_limit_iops"] == 100.0  # iorate=100
    assert (frame["tool_version"] == "vdbench50407").all()


@pytest.mark.corpus
def test_public_v11_aborted_has_no_header():
    with pytest.raises(ParseError, match="no header") as err:
        read_vdbench(public("v11_flatfile.html"))
    assert err.value.source.endswith("v11_flatfile.html")


@pytest.mark.corpus
def test_public_v13_38_rds_8_hosts():
    frame = read_vdbench(public("v13_flatfile.html"))
    tot = totals(frame)
    # 418 data rows: 38 RDs x 10 one-second intervals + 38 avg_2-10 rows (PROVENANCE.md says
    # "418 interval rows + 38 avg_ rows"; the file has 418 rows in all).
    assert len(tot) == 418
    assert (~tot["is_summary"]).sum() == 380 and tot["is_summary"].sum() == 38
    assert tot["job"].nunique() == 38
    assert set(frame["host"]) == {"all"}  # n1..n8
    # 13:52:58 ICT; summary 'created 13:52:54 Apr 11 2019 ICT (06:52:54 Apr 11 2019 UTC)'
    assert tot.iloc[0]["timestamp"] == pd.Timestamp("2019-04-11 06:52:58", tz="UTC")
    assert frame["tool_version"].isna().all()  # 'version' n/a and no logfile in the corpus


@pytest.mark.corpus
def test_public_v15_old_solaris():
    frame = read_vdbench(public("v15_flatfile.html"))
    tot = totals(frame)
    avg = tot[tot["is_summary"]]
    assert len(avg) == 8
    assert tot["rate_limit_iops"].isna().all()  # reqrate 999988 (6 nines): max
    assert set(frame["host"]) == {"all"}
    # No read_resp column: a read-only RD's read latency is its resp; mixed would be NaN.
    rr = frame[(frame["job"] == "random_read_max_4k") & frame["is_summary"]]
    by = rr.set_index("direction")
    assert by.loc["read", "lat_mean_ms"] == by.loc["total", "lat_mean_ms"]
    assert set(rr["direction"]) == {"read", "total"}
    # sequential_read_max_8k avg_2-10: rate 13091.2222, resp 0.6088 (file's last row)
    last = avg.iloc[-1]
    assert (last["job"], last["iops"], last["lat_mean_ms"]) == (
        "sequential_read_max_8k", 13091.2222, 0.6088,
    )  # fmt: skip
    assert last["pattern"] == "sequential" and last["bs_kib"] == 8.0


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name, outcome",
    [("v01", 3), ("v03", 2), ("v06", 2), ("v08", 2), ("v11", ParseError), ("v13", 38),
     ("v15", 8)],
)  # fmt: skip
def test_every_public_flatfile(name, outcome):
    """PROVENANCE.md: each public flatfile gives its RDs, or a ParseError (v11, aborted)."""
    path = public(f"{name}_flatfile.html")
    if outcome is ParseError:
        with pytest.raises(ParseError):
            read_vdbench(path)
        return
    frame = read_quiet(path)
    tot = totals(frame, "all" if name in ("v01", "v13", "v15") else None)
    assert len(tot.groupby(["job", "step"])) == outcome
    assert len(tot) == len(raw_flatfile_rows(path)) - 1


# ----------------------------------------------------------------- histograms


def raw_histogram(path: Path) -> list[tuple[str, float, int]]:
    """(block title, min ms, count) of every bin line, straight from the text."""
    out, title = [], None
    for line in path.read_text().splitlines():
        if line.endswith(":") or line.endswith(": "):
            title = line.strip()
        m = re.match(r"^\s*([\d.]+) <\s+(\S+)\s+([\d,]+)\s", line)
        if m:
            out.append((title, float(m.group(1)), int(m.group(3).replace(",", ""))))
    return out


@pytest.mark.parametrize(
    "rel",
    ["RndMix/histogram.html", "RndReadThreads/histogram.html", "FileSysSeq/histogram.html",
     "MultiHostSeqMix/histogram.html", "MultiHostSeqMix/vm1.histogram.html"],
)  # fmt: skip
def test_histogram_counts_equal_raw(rel):
    hist = read_vdbench_histogram(DATA / rel)
    raw = raw_histogram(DATA / rel)
    assert list(hist.columns) == ["job", "step", "direction", "bin_min_ms", "bin_max_ms", "count"]
    assert list(hist["count"]) == [c for _t, _lo, c in raw]
    assert list(hist["bin_min_ms"]) == [lo for _t, lo, _c in raw]
    assert np.isinf(hist["bin_max_ms"]).sum() == hist.groupby(["job", "step", "direction"]).ngroups


def test_histogram_directions_and_steps():
    mix = read_vdbench_histogram(DATA / "RndMix" / "histogram.html")
    assert set(mix["direction"]) == {"read", "write", "total"}
    # 'Reads and writes' = 'Reads' + 'Writes', bin by bin
    by = {d: g["count"].to_numpy() for d, g in mix.groupby("direction", observed=True)}
    np.testing.assert_array_equal(by["read"] + by["write"], by["total"])
    # The histogram covers every interval, warm-up included: 1,039,142 = sum of the ten
    # one-second interval rates of the flatfile.
    flat = read_vdbench(DATA / "RndMix")
    rates = totals(flat)
    assert by["total"].sum() == 1_039_142 == rates.loc[~rates["is_summary"], "iops"].sum()
    threads = read_vdbench_histogram(DATA / "RndReadThreads" / "histogram.html")
    assert set(threads["direction"]) == {"read"}  # 'Only reads done for this workload'
    assert sorted(threads["step"].unique()) == list(range(7))
    fs = read_vdbench_histogram(DATA / "FileSysSeq" / "histogram.html")
    assert set(fs["direction"]) == {"total"}  # 'Total of all requested operations'
    assert list(fs.groupby(["job", "step"], sort=False).ngroup().unique()) == [0, 1, 2, 3]


def test_histogram_percentiles():
    hist = read_vdbench_histogram(DATA / "RndMix" / "histogram.html")
    pct = vdbench_histogram_percentiles(hist).set_index("direction")
    # 'Reads and writes': cum% 31.68 at 0.400, 87.03 at 0.600, 98.89 at 1.000, 99.74 at 2.000
    assert pct.loc["total", "lat_p50_ms"] == 0.6
    assert pct.loc["total", "lat_p90_ms"] == 0.8
    assert pct.loc["total", "lat_p99_ms"] == 2.0
    assert pct.loc["total", "count"] == 1_039_142


# ----------------------------------------------------------------- bad input


def test_bad_inputs(tmp_path):
    real = (DATA / "RndRead" / "flatfile.html").read_bytes()
    cases = {
        "empty.html": b"",
        "blank.html": b"   \n\n",
        "error.html": b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
        "binary.html": b"\x00\x01\x02" * 50,
        "noheader.html": re.sub(rb"(?m)^tod .*Interval.*\n", b"", real),
        "onlyheader.html": real[: real.index(b"\n", real.index(b"\ntod ") + 1) + 1],
        "extra_field.html": real.replace(b"RndRead          3 ", b"RndRead extra    3 ", 1),
        "text_in_rate.html": real.replace(b" 77721.0000 ", b" 77721.0x00 ", 1),
        "bad_interval.html": real.replace(b"RndRead          3 ", b"RndRead        3.5 ", 1),
        "short_row.html": real.replace(
            b"RndRead          3 9999988.0000", b"RndRead          3", 1
        ),
        "fio.json": b'{"fio version": "fio-3.33", "jobs": []}',
    }
    for name, data in cases.items():
        assert data != real, name
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ParseError) as err:
            read_vdbench(tmp_path / name)
        assert err.value.source == str(tmp_path / name), name
    with pytest.raises(ParseError, match="no header line .* an HTML page"):
        read_vdbench(tmp_path / "error.html")
    with pytest.raises(ParseError, match="fewer fields") as err:
        read_vdbench(tmp_path / "short_row.html")
    assert err.value.line == 44  # header on line 41, interval 3 on line 44
    with pytest.raises(ParseError, match="Expected 30 fields") as err:
        read_vdbench(tmp_path / "extra_field.html")
    assert err.value.line == 44
    with pytest.raises(ParseError, match="no data rows"):
        read_vdbench(tmp_path / "onlyheader.html")
    with pytest.raises(ParseError, match="no flatfile.html"):
        read_vdbench(tmp_path)  # a folder, but not a Vdbench output folder
    with pytest.raises(ParseError, match="no such file"):
        read_vdbench(tmp_path / "missing.html")


def test_truncated_last_row_is_dropped_with_warning(tmp_path):
    real = (DATA / "RndRead" / "flatfile.html").read_bytes().rstrip()
    cut = real[: len(real) - 120]  # the avg_3-10 row loses its last columns
    (tmp_path / "flatfile.html").write_bytes(cut)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_vdbench(tmp_path / "flatfile.html")
    messages = " | ".join(str(w.message) for w in caught)
    assert "last row has" in messages and "no avg_ row for rd=RndRead" in messages
    full = read_vdbench(DATA / "RndRead")
    assert len(totals(frame)) == len(totals(full, "localhost")) - 1
    assert not frame["is_summary"].any()


def test_na_and_question_mark_are_nan(tmp_path):
    real = (DATA / "RndMix" / "flatfile.html").read_text()
    hdr = real.splitlines()[40].split()
    # interval 1: write_resp '?' and cpu_user 'n/a' instead of their numbers
    lines = real.splitlines(keepends=True)
    tokens = lines[41].split()
    tokens[hdr.index("write_resp")] = "?"
    tokens[hdr.index("cpu_user")] = "n/a"
    lines[41] = " ".join(tokens) + "\n"
    (tmp_path / "flatfile.html").write_text("".join(lines))
    frame = read_vdbench(tmp_path / "flatfile.html")
    one = frame[frame["interval"] == 1].set_index("direction")
    assert np.isnan(one.loc["write", "lat_mean_ms"])
    assert one["cpu_user_pct"].isna().all()
    assert one.loc["total", "iops"] == float(tokens[hdr.index("rate")])


def test_bench_smoke(tmp_path):
    from benchmarks._bench_vdbench import bench

    result = bench(tmp_path, n_rows=2_000, repeat=1)
    assert set(result) == {
        "baseline_s", "anfperf_s", "ratio", "ratio_min", "ratio_max", "mb", "peak_mib",
    }  # fmt: skip
    assert result["ratio_min"] <= result["ratio"] <= result["ratio_max"]
    assert result["ratio"] > 0


def test_non_utf8_run_names_are_latin1(tmp_path):
    real = (DATA / "RndRead" / "flatfile.html").read_bytes()
    (tmp_path / "flatfile.html").write_bytes(real.replace(b"    RndRead ", b" Rnd\xe9Read "))
    frame = read_vdbench(tmp_path / "flatfile.html")
    assert set(frame["job"]) == {"Rnd\u00e9Read"}
    assert len(totals(frame)) == len(raw_flatfile_rows(DATA / "RndRead" / "flatfile.html")) - 1


def test_infinity_in_a_flatfile_is_nan_with_a_note(tmp_path):
    # issue 33 item 12: Java prints a rate over no time as 'Infinity'; read as inf before
    run = tmp_path / "RndRead"
    shutil.copytree(DATA / "RndRead", run)
    flat = run / "flatfile.html"
    lines = flat.read_text().split("\n")
    row = next(i for i, line in enumerate(lines) if re.match(r"\d\d:\d\d:\d\d\.\d+ ", line))
    lines[row] = lines[row].replace("29742.0000", "  Infinity", 1)
    assert "Infinity" in lines[row]
    flat.write_text("\n".join(lines))
    with pytest.warns(UserWarning, match="finite") as said:
        frame = read_vdbench(run)
    notes = [str(w.message) for w in said if "a finite number" in str(w.message)]
    assert notes == [
        f"{flat}: 'rate' is not a finite number (inf) in 1 row(s), line {row + 1} first; "
        "read as missing (NaN)"
    ]
    numbers = frame.select_dtypes("number").to_numpy(dtype=float)
    assert not np.isinf(numbers).any()
    assert frame["iops"].isna().sum() >= 1
