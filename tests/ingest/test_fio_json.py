"""fio JSON reader against real fio outputs.

Fixtures: tests/data/fio (real fio 3.33 runs, see make_fixtures.sh) and the public corpus in
../shared/corpus/public/fio, read in place. Expected values come from the raw files, parsed here
independently with the json module, or are quoted from the file with the line they are on.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import re
import warnings
from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anfperf.errors import ParseError
from anfperf.ingest.combine import combine
from anfperf.ingest.fio_bins import histogram, plat_idx_to_val
from anfperf.ingest.fio_json import read_fio_json
from anfperf.ingest.fio_rows import ENTRY_COLUMNS, parse_fio_json
from tests.conftest import DATA, PUBLIC, fio_documents, require_corpus

FIO_DATA = DATA / "fio"
LOCAL = sorted(p.name for p in FIO_DATA.iterdir() if p.suffix in (".json", ".txt"))
# Public files that hold fio results (the others must give a ParseError).
PUBLIC_RESULTS = [
    "f01_pkb_fio214.json",
    "f04_fioplot_fio218.json",
    "f05_fioplot_fio31_randrw.json",
    "f06_fioplot_fio36_4jobs.json",
    "f12_pbench_fio37_client.txt",
    "f15_samyaple_fio333_8jobs.json",
    "f17_benson_fio333_jsonplus",
    "f21_arau_fio312_concat2docs",
    "f26_styliteag_fio343_client2.json",
]
PCT = {"lat_p50_ms": "50.000000", "lat_p90_ms": "90.000000", "lat_p95_ms": "95.000000",
       "lat_p99_ms": "99.000000", "lat_p999_ms": "99.900000"}  # fmt: skip
DIRS = {"read": "read", "write": "write", "trim": "trim", "mixed": "total"}


def corpus_dir() -> Path:
    """../shared/corpus/public/fio; skipped when absent outside CI, a failure in CI."""
    return require_corpus(PUBLIC / "fio")


def _path(name: str) -> Path:
    return FIO_DATA / name if name in LOCAL else corpus_dir() / name


@cache
def _read(path: Path) -> tuple[pd.DataFrame, tuple[str, ...]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_fio_json(path)
    return frame, tuple(str(w.message) for w in caught)


def frame_of(name: str) -> pd.DataFrame:
    return _read(_path(name))[0]


def warnings_of(name: str) -> tuple[str, ...]:
    return _read(_path(name))[1]


def raw_documents(path: Path) -> list[dict]:
    return fio_documents(path)


def raw_entries(path: Path) -> list[tuple[int, dict, dict]]:
    """(step, entry, document) for every job entry, steps counting on across documents."""
    out, step = [], 0
    for doc in raw_documents(path):
        for entry in doc.get("jobs", []) + doc.get("client_stats", []):
            out.append((step, entry, doc))
            step += 1
    return out


def did_io(block: dict) -> bool:
    return block.get("total_ios", 0) > 0 or block.get("io_bytes", 0) > 0


def lat_blocks(block: dict) -> tuple[dict, dict, float]:
    """(total latency, completion latency, ms per unit) of a direction block."""
    if "lat_ns" in block:
        return block["lat_ns"], block["clat_ns"], 1e-6
    return block["lat"], block["clat"], 1e-3


def expected_hosts(entries: list[tuple[int, dict, dict]]) -> dict[int, str]:
    ports: dict[str, set] = {}
    for _, e, _ in entries:
        if "hostname" in e and e["jobname"] != "All clients":
            ports.setdefault(e["hostname"], set()).add(e.get("port"))
    hosts = {}
    for step, e, _ in entries:
        if e.get("jobname") == "All clients":
            hosts[step] = "all"
        elif "hostname" in e:
            many = len(ports[e["hostname"]]) > 1
            hosts[step] = f"{e['hostname']}:{e['port']}" if many else e["hostname"]
        else:
            hosts[step] = "localhost"
    return hosts


def the_row(frame: pd.DataFrame, step: int, direction: str) -> pd.Series:
    rows = frame[(frame["step"] == step) & (frame["direction"] == direction)]
    assert len(rows) == 1, (step, direction, len(rows))
    return rows.iloc[0]


def p_from_bins(bins: dict[int, int], p: float) -> int:
    """fio's percentile rule: the first bin (ascending) whose cumulative count reaches p %."""
    total = sum(bins.values())
    cum = 0
    for value in sorted(bins):
        cum += bins[value]
        if cum >= p / 100.0 * total:
            return value
    raise AssertionError("empty histogram")


# --------------------------------------------------------------------------- every file


@pytest.mark.parametrize("name", LOCAL + PUBLIC_RESULTS)
def test_rows_match_the_raw_json(name):
    path = _path(name)
    frame = frame_of(name)
    entries = raw_entries(path)
    hosts = expected_hosts(entries)
    n_directions = 0
    for step, entry, doc in entries:
        if entry.get("error", 0) and not any(did_io(entry.get(k, {})) for k in DIRS):
            assert not (frame["step"] == step).any()  # failed job: dropped
            continue
        for key, direction in DIRS.items():
            block = entry.get(key)
            if block is None or not did_io(block):
                continue
            n_directions += direction != "total"
            row = the_row(frame, step, direction)
            assert row["tool"] == "fio"
            assert row["tool_version"] == doc["fio version"]
            assert row["host"] == hosts[step]
            if entry["jobname"] != "All clients":
                assert row["job"] == row["workload"] == entry["jobname"]
            assert row["is_summary"] and not row["is_warmup"] and pd.isna(row["interval"])
            assert row["iops"] == pytest.approx(block["iops"], rel=1e-12)
            # bw is KiB/s, truncated to an integer; bw_bytes (fio 3) is the precise rate.
            assert abs(row["bw_mib_s"] * 1024 - block["bw"]) < 1
            if "bw_bytes" in block:
                assert row["bw_mib_s"] == pytest.approx(block["bw_bytes"] / 2**20, rel=1e-12)
            else:
                assert row["bw_mib_s"] == pytest.approx(block["bw"] / 1024, rel=1e-12)
            assert row["runtime_s"] == pytest.approx(block["runtime"] / 1000, rel=1e-12)
            lat, clat, scale = lat_blocks(block)
            if lat.get("N", 1) and lat["mean"] > 0:
                assert row["lat_mean_ms"] == pytest.approx(lat["mean"] * scale, rel=1e-12)
                assert row["lat_min_ms"] == pytest.approx(lat["min"] * scale, rel=1e-12)
                assert row["lat_max_ms"] == pytest.approx(lat["max"] * scale, rel=1e-12)
                assert row["lat_std_ms"] == pytest.approx(lat["stddev"] * scale, rel=1e-12)
            src = lat if "percentile" in lat else clat
            if src.get("percentile"):
                for column, key in PCT.items():
                    assert row[column] == pytest.approx(src["percentile"][key] * scale), column
            assert row["cpu_user_pct"] == pytest.approx(entry["usr_cpu"])
            assert row["cpu_sys_pct"] == pytest.approx(entry["sys_cpu"])
            assert row["error"] == entry["error"]
            if "timestamp_ms" in doc:
                assert row["timestamp"] == pd.Timestamp(doc["timestamp_ms"], unit="ms", tz="UTC")
            elif "timestamp" in doc:
                assert row["timestamp"] == pd.Timestamp(doc["timestamp"], unit="s", tz="UTC")
            else:  # fio 2.1
                assert pd.isna(row["timestamp"])
    assert (frame["direction"] != "total").sum() == n_directions
    # one 'total' row per job entry that did I/O (fio's 'mixed' block, or added)
    assert (frame["direction"] == "total").sum() == frame["step"].nunique()


@pytest.mark.parametrize("name", LOCAL + PUBLIC_RESULTS)
def test_total_rows_combine_the_directions(name):
    frame = frame_of(name)
    for step, entry, _ in raw_entries(_path(name)):
        blocks = [entry[k] for k in ("read", "write", "trim") if did_io(entry.get(k, {}))]
        if not blocks or "mixed" in entry:
            continue
        total = the_row(frame, step, "total")
        iops = [b["iops"] for b in blocks]
        assert total["iops"] == pytest.approx(sum(iops), rel=1e-12)
        assert total["bw_mib_s"] == pytest.approx(
            sum(b.get("bw_bytes", b["bw"] * 1024) for b in blocks) / 2**20, rel=1e-12
        )
        lats = [lat_blocks(b) for b in blocks]
        if all(lat["mean"] > 0 for lat, _, _ in lats):
            weighted = sum(i * lat["mean"] * s for i, (lat, _, s) in zip(iops, lats, strict=True))
            assert total["lat_mean_ms"] == pytest.approx(weighted / sum(iops), rel=1e-12)


# --------------------------------------------------------------------------- fixtures by kind


def test_randrw_70_with_group_reporting():
    frame = frame_of("randrw70_numjobs2_gr.json")
    (entry,) = raw_documents(FIO_DATA / "randrw70_numjobs2_gr.json")[0]["jobs"]
    # one entry for both clones: its concurrency is iodepth 8 x numjobs 2
    assert set(frame["step"]) == {0}
    row = the_row(frame, 0, "read")
    assert row["pattern"] == "random" and row["read_pct"] == 70 and row["bs_kib"] == 8
    assert (row["iodepth"], row["numjobs"], row["outstanding"]) == (8, 2, 16)
    total = the_row(frame, 0, "total")
    r, w = entry["read"], entry["write"]
    assert total["iops"] == pytest.approx(r["iops"] + w["iops"])
    mean = (r["iops"] * r["lat_ns"]["mean"] + w["iops"] * w["lat_ns"]["mean"]) / (
        r["iops"] + w["iops"]
    )
    assert total["lat_mean_ms"] == pytest.approx(mean / 1e6, rel=1e-12)
    assert total["outstanding"] == 16
    assert math.isnan(total["lat_p99_ms"])  # no histograms: percentiles are not averaged


def test_numjobs_without_group_reporting_keeps_clones_apart():
    frame = frame_of("randread_numjobs2_nogr.json")
    entries = raw_documents(FIO_DATA / "randread_numjobs2_nogr.json")[0]["jobs"]
    assert [e["jobname"] for e in entries] == ["randread-nj2", "randread-nj2"]
    reads = frame[frame["direction"] == "read"].sort_values("step")
    assert list(reads["step"]) == [0, 1]
    assert list(reads["iops"]) == [e["read"]["iops"] for e in entries]
    assert list(reads["outstanding"]) == [2, 2]  # each entry is one clone at iodepth 2


def test_jsonplus_percentiles_of_merged_bins():
    name = "jsonplus_randrw_numjobs2.json"
    frame = frame_of(name)
    entries = raw_documents(FIO_DATA / name)[0]["jobs"]
    hists = [
        {int(ns): n for ns, n in e[d]["clat_ns"]["bins"].items()}
        for e in entries
        for d in ("read", "write")
    ]
    # per job: read + write merged
    for step in (0, 1):
        merged = Counter(hists[2 * step]) + Counter(hists[2 * step + 1])
        total = the_row(frame, step, "total")
        assert total["lat_p99_ms"] == p_from_bins(merged, 99) / 1e6
        assert total["lat_p50_ms"] == p_from_bins(merged, 50) / 1e6
        assert int(total["lat_bins"]["count"].sum()) == sum(merged.values())
    # both jobs: all four histograms merged
    both = combine(frame[frame["direction"] == "total"], ["source_file", "job"])
    merged = sum((Counter(h) for h in hists), Counter())
    assert both["lat_p99_ms"].iat[0] == p_from_bins(merged, 99) / 1e6
    assert both["lat_p999_ms"].iat[0] == p_from_bins(merged, 99.9) / 1e6
    assert both["iops"].iat[0] == pytest.approx(
        sum(e[d]["iops"] for e in entries for d in ("read", "write"))
    )


def test_jsonplus_bins_agree_with_fio_percentiles():
    # fio computes its percentiles from the same histogram: both must give the same values.
    frame = frame_of("jsonplus_randrw_numjobs2.json")
    for _, row in frame[frame["direction"] != "total"].iterrows():
        bins = dict(zip(row["lat_bins"]["ns"], row["lat_bins"]["count"], strict=True))
        for column, key in PCT.items():
            assert row[column] == p_from_bins(bins, float(key)) / 1e6


def test_lat_percentiles_preferred_over_clat():
    name = "jsonplus_lat_percentiles.json"
    (entry,) = raw_documents(FIO_DATA / name)[0]["jobs"]
    lat, clat = entry["read"]["lat_ns"], entry["read"]["clat_ns"]
    assert "percentile" in lat and "bins" in lat  # lat_percentiles=1
    row = the_row(frame_of(name), 0, "read")
    assert row["lat_p99_ms"] == lat["percentile"]["99.000000"] / 1e6
    assert row["lat_p99_ms"] != clat["percentile"]["99.000000"] / 1e6
    assert row["lat_bins"]["ns"].tolist() == [int(k) for k in lat["bins"]]
    assert row["lat_bins"]["count"].tolist() == list(lat["bins"].values())
    assert row["lat_bins"]["ns"].dtype == np.int64


def test_stonewalled_groups():
    name = "stonewall_2groups.json"
    frame = frame_of(name)
    entries = raw_documents(FIO_DATA / name)[0]["jobs"]
    assert [e["groupid"] for e in entries] == [0, 1]
    write, read = the_row(frame, 0, "write"), the_row(frame, 1, "read")
    assert (write["job"], read["job"]) == ("seq-write", "seq-read")
    assert write["pattern"] == read["pattern"] == "sequential"
    assert (write["read_pct"], read["read_pct"]) == (0, 100)
    assert write["bs_kib"] == read["bs_kib"] == 64
    assert read["iops"] == entries[1]["read"]["iops"]


def test_trim_on_a_file():
    name = "randtrim_falloc.json"
    (entry,) = raw_documents(FIO_DATA / name)[0]["jobs"]
    frame = frame_of(name)
    assert set(frame["direction"]) == {"trim", "total"}
    row = the_row(frame, 0, "trim")
    assert row["iops"] == entry["trim"]["iops"]
    assert (row["pattern"], row["read_pct"], row["bs_kib"]) == ("random", 0, 64)
    assert row["outstanding"] == 1  # falloc completes each I/O before the next


def test_rate_limited_job():
    row = the_row(frame_of("rate_iops_200.json"), 0, "read")
    assert row["rate_limit_iops"] == 200
    assert row["iops"] == pytest.approx(200, rel=0.05)
    assert pd.isna(the_row(frame_of("randread_qd4.json"), 0, "read")["rate_limit_iops"])


def test_options_given_per_direction():
    name = "per_direction_options.json"
    (entry,) = raw_documents(FIO_DATA / name)[0]["jobs"]
    options = entry["job options"]
    assert (options["bs"], options["rate_iops"], options["rwmixwrite"]) == (
        "4k,64k",
        "400,100",
        "30",
    )
    frame = frame_of(name)
    read, write, total = (the_row(frame, 0, d) for d in ("read", "write", "total"))
    assert (read["bs_kib"], write["bs_kib"]) == (4, 64)
    assert (read["rate_limit_iops"], write["rate_limit_iops"]) == (400, 100)
    assert read["read_pct"] == write["read_pct"] == 70  # 100 - rwmixwrite
    assert pd.isna(total["bs_kib"])  # the directions disagree
    # psync with iodepth=8: fio caps the depth at 1 and says so before the JSON
    assert read["iodepth"] == 8 and read["outstanding"] == 1
    assert any("queue depth will be capped at 1" in w for w in warnings_of(name))


def test_normal_and_json_output():
    name = "normal_and_json.txt"
    (entry,) = raw_documents(FIO_DATA / name)[0]["jobs"]
    row = the_row(frame_of(name), 0, "write")
    assert row["iops"] == entry["write"]["iops"] and row["bs_kib"] == 16
    assert any("skipped" in w and "normal-json: (g=0)" in w for w in warnings_of(name))


def test_gtod_reduce_latency_is_nan_not_zero():
    name = "gtod_reduce.json"
    (entry,) = raw_documents(FIO_DATA / name)[0]["jobs"]
    assert entry["read"]["lat_ns"]["N"] == 0 and entry["read"]["lat_ns"]["mean"] == 0
    row = the_row(frame_of(name), 0, "read")
    assert row["iops"] == entry["read"]["iops"] > 0
    latency = ["lat_mean_ms", "lat_min_ms", "lat_max_ms", "lat_std_ms", *PCT]
    assert row[latency].isna().all()
    assert row["lat_bins"] is None
    assert any("did not measure latency" in w for w in warnings_of(name))


def test_unified_rw_reporting_mixed_block_is_the_total():
    name = "unified_rw_both.json"
    (entry,) = raw_documents(FIO_DATA / name)[0]["jobs"]
    frame = frame_of(name)
    assert sorted(frame["direction"].astype(str)) == ["read", "total", "write"]
    total = the_row(frame, 0, "total")
    mixed = entry["mixed"]
    assert total["iops"] == mixed["iops"]
    assert total["lat_mean_ms"] == pytest.approx(mixed["lat_ns"]["mean"] / 1e6, rel=1e-12)
    # fio's own percentile of all I/O, which anfperf could not get without histograms
    assert total["lat_p99_ms"] == mixed["clat_ns"]["percentile"]["99.000000"] / 1e6


def test_failed_job_is_dropped_with_a_warning():
    name = "one_job_fails.json"
    frame = frame_of(name)
    assert set(frame["job"]) == {"good"}
    assert any("'bad' (error 22: Invalid argument)" in w for w in warnings_of(name))
    assert any("you need to specify size=" in w for w in warnings_of(name))


def test_client_server_rows_per_host_and_all_clients():
    name = "client_2servers.json"
    doc = raw_documents(FIO_DATA / name)[0]
    frame = frame_of(name)
    by_host = {e["jobname"] if e["jobname"] == "All clients" else e["port"]: e
               for e in doc["client_stats"]}  # fmt: skip
    assert len(by_host) == 3
    reads = frame[frame["direction"] == "read"].set_index("host")
    for port, entry in by_host.items():
        host = "all" if port == "All clients" else f"127.0.0.1:{port}"  # same host, two ports
        assert reads.loc[host, "iops"] == entry["read"]["iops"]
        assert reads.loc[host, "lat_mean_ms"] == pytest.approx(
            entry["read"]["lat_ns"]["mean"] / 1e6, rel=1e-12
        )
        assert reads.loc[host, "job"] == "cs-randread"
    assert reads.loc["all", "outstanding"] == 2  # two hosts x psync
    assert any("<vm>" in w for w in warnings_of(name))


def test_client_server_jsonplus_all_clients_percentiles_from_host_bins():
    name = "client_2servers_jsonplus.json"
    doc = raw_documents(FIO_DATA / name)[0]
    hosts = [e for e in doc["client_stats"] if e["jobname"] != "All clients"]
    everyone = next(e for e in doc["client_stats"] if e["jobname"] == "All clients")
    assert not everyone["read"]["clat_ns"].get("percentile")  # fio gives none for the aggregate
    merged = sum(
        (Counter({int(k): v for k, v in e["read"]["clat_ns"]["bins"].items()}) for e in hosts),
        Counter(),
    )
    row = the_row(frame_of(name), 2, "read")
    assert row["host"] == "all"
    assert row["lat_p99_ms"] == p_from_bins(merged, 99) / 1e6
    assert row["iops"] == everyone["read"]["iops"]


# --------------------------------------------------------------------------- public corpus


def test_f01_fio_2_1_usec_values():
    frame = frame_of("f01_pkb_fio214.json")
    row = the_row(frame, 0, "write")
    # f01 line 52: "lat" : { ... "mean" : 478737.47 }  (usec in fio 2.1)
    assert row["lat_mean_ms"] == pytest.approx(478.73747)
    assert row["iops"] == 133 and row["bw_mib_s"] == pytest.approx(68118 / 1024)
    entry = raw_documents(corpus_dir() / "f01_pkb_fio214.json")[0]["jobs"][0]["write"]
    # io_bytes is really KiB in fio 2.1: bw [KiB/s] x runtime [s] gives it back
    assert entry["bw"] * entry["runtime"] / 1000 == pytest.approx(entry["io_bytes"], rel=0.01)
    # fio 2.1 reports no options: the configuration is unknown, not guessed
    assert frame[["pattern", "bs_kib", "iodepth", "outstanding"]].isna().all().all()
    assert list(frame.loc[frame["direction"] != "total", "job"]) == [
        "sequential_write", "sequential_read", "random_write_test", "random_read_test",
        "random_read_test_parallel",
    ]  # fmt: skip


def test_f05_group_reporting_folds_four_clones():
    row = the_row(frame_of("f05_fioplot_fio31_randrw.json"), 0, "read")
    assert (row["iodepth"], row["numjobs"], row["outstanding"], row["read_pct"]) == (16, 4, 64, 50)


def test_f06_four_entries_with_the_same_name():
    frame = frame_of("f06_fioplot_fio36_4jobs.json")
    reads = frame[frame["direction"] == "read"]
    assert list(reads["step"]) == [0, 1, 2, 3] and set(reads["job"]) == {"random-io"}
    assert set(reads["outstanding"]) == {8}


def test_f09_failed_run_is_a_parse_error_quoting_fio():
    with pytest.raises(ParseError, match=r"err=22.*Invalid argument") as info:
        read_fio_json(corpus_dir() / "f09_fioplot_fio333_errprefix.json")
    assert "'1m' (error 22" in str(info.value)
    assert info.value.source.endswith("f09_fioplot_fio333_errprefix.json")


def test_f11_not_json_is_a_parse_error():
    with pytest.raises(ParseError, match="no fio JSON output found.*failed to setup shm"):
        read_fio_json(corpus_dir() / "f11_fioplot_fail_shm.json")


def test_f12_client_run_with_carriage_returns_before_the_json():
    name = "f12_pbench_fio37_client.txt"
    assert b"\r" in (corpus_dir() / name).read_bytes().split(b"\n{", 1)[0]
    frame = frame_of(name)
    reads = frame[frame["direction"] == "read"]
    assert (reads["host"] == "perf36").sum() == 5 and (reads["host"] == "perf84").sum() == 5
    everyone = reads[reads["host"] == "all"].iloc[0]
    assert everyone["job"] == "job-/tmp/fio"
    # 10 processes x iodepth 32 (numjobs=5 per host without group_reporting)
    assert set(reads.loc[reads["host"] != "all", "outstanding"]) == {32}
    assert everyone["outstanding"] == 320
    # fio gives "All clients" an empty percentile list and no histograms: NaN, not 0
    assert math.isnan(everyone["lat_p99_ms"])
    # fio's aggregate rate (all I/O over the longest runtime), not a sum of the hosts' rates
    assert everyone["iops"] == 93198.150858  # "All clients" read "iops" : 93198.150858
    assert any("hostname=perf84" in w for w in warnings_of(name))


def test_f17_jsonplus_after_a_signal_message():
    name = "f17_benson_fio333_jsonplus"
    row = the_row(frame_of(name), 0, "write")
    assert row["lat_bins"]["count"].sum() == 113070  # clat_ns "N" : 113070
    assert any("terminating on signal 2" in w for w in warnings_of(name))


def test_f17_bins_are_fio_bucket_values():
    # fio 3.x names each bin by plat_idx_to_val(index) in ns (FIO_IO_U_PLAT_GROUP_NR = 29)
    doc = raw_documents(corpus_dir() / "f17_benson_fio333_jsonplus")[0]
    keys = {int(k) for k in doc["jobs"][0]["write"]["clat_ns"]["bins"]}
    values = set(plat_idx_to_val(np.arange(29 * 64)).tolist())
    assert keys <= values


def test_f21_two_documents_both_read():
    frame = frame_of("f21_arau_fio312_concat2docs")
    writes = frame[frame["direction"] == "write"]
    assert list(writes["step"]) == [0, 1]
    assert writes["iops"].tolist() == [457.18591, 457.18591]  # "iops" : 457.185910 twice
    assert set(writes["read_pct"]) == {0} and set(writes["pattern"]) == {"mixed"}
    assert any("root@nginx-fio" in w for w in warnings_of("f21_arau_fio312_concat2docs"))


def test_f26_global_options_array_and_two_ports():
    frame = frame_of("f26_styliteag_fio343_client2.json")
    reads = frame[frame["direction"] == "read"].set_index("host")
    assert sorted(reads.index) == ["127.0.0.1:18801", "127.0.0.1:18802", "all"]
    assert reads.loc["all", "iops"] == 2224520.0  # "All clients" read "iops" : 2224520.000000
    assert reads.loc["127.0.0.1:18801", "bs_kib"] == 4
    assert reads.loc["127.0.0.1:18801", "pattern"] == "random"


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty file"),
        (b"  \n\n", "empty file"),
        (b"<html><body><h1>502 Bad Gateway</h1></body></html>\n", "no fio JSON output found"),
        (b"\x00\x01\x02\xff\xfe" * 100, "no fio JSON output found"),
        (b"[1, 2, 3]", "no fio JSON output found"),
        (b'{"fio version": "fio-3.33", "jobs": []}', "no jobs"),
        (b'{"hello": "world"}', "no jobs"),
        (b'{"jobs": {"a": 1}}', "not a list"),
        (b"{" * 5000, "invalid or truncated JSON"),
    ],
)
def test_bad_input_is_a_parse_error(data, message):
    with pytest.raises(ParseError, match=message) as info:
        read_fio_json(io.BytesIO(data))
    assert info.value.source == "<buffer>"


def test_odd_values_give_nan_not_an_exception():
    data = (
        b'{"fio version": "fio-3.33", "jobs": [{"jobname": "\\ud800", "error": "x",'
        b' "read": {"total_ios": 1, "iops": "n/a", "bw": null, "lat_ns": {"N": 1, "mean": "?"}},'
        b' "job options": {"bs": "1e999k", "iodepth": "1e30", "rw": "randrw:8"}}]}'
    )
    with pytest.warns(UserWarning, match="did not measure latency"):
        frame = read_fio_json(io.BytesIO(data))
    row = the_row(frame, 0, "read")
    assert row["job"] == "?"  # a lone surrogate cannot be stored as text
    assert row[["iops", "bw_mib_s", "lat_mean_ms", "bs_kib"]].isna().all()
    assert pd.isna(row["iodepth"]) and row["pattern"] == "random" and row["read_pct"] == 50


@pytest.mark.parametrize("fraction", [0.01, 0.3, 0.5, 0.9, 0.999])
def test_truncated_file_is_a_parse_error(tmp_path, fraction):
    data = (FIO_DATA / "jsonplus_randrw_numjobs2.json").read_bytes()
    target = tmp_path / "cut.json"
    target.write_bytes(data[: int(len(data) * fraction)])
    with pytest.raises(ParseError, match="invalid or truncated JSON") as info:
        read_fio_json(target)
    assert info.value.source == str(target) and info.value.line is not None


def test_gzip_and_text_buffers(tmp_path):
    data = (FIO_DATA / "randread_qd4.json").read_bytes()
    target = tmp_path / "randread_qd4.json.gz"
    target.write_bytes(gzip.compress(data))
    plain = frame_of("randread_qd4.json")
    for frame in (read_fio_json(target), read_fio_json(io.StringIO(data.decode()))):
        assert frame["iops"].tolist() == plain["iops"].tolist()


def test_run_id_and_plain_rows():
    frame = read_fio_json(FIO_DATA / "randread_qd4.json", run_id="r42")
    assert set(frame["run_id"]) == {"r42"}
    parsed = parse_fio_json((FIO_DATA / "randread_qd4.json").read_bytes(), "x.json")
    # one job entry, one direction row (the totals are added by FioTable, for many files)
    assert [e[ENTRY_COLUMNS.index("job")] for e in parsed.entries] == ["randread-qd4"]
    assert [b[1] for b in parsed.blocks] == ["read"] and not parsed.interrupted


def test_bench_smoke_is_paired_against_orjson_with_text_prefixed_files(tmp_path):
    from benchmarks._bench_fio_json import bench

    result = bench(tmp_path, n_files=8, prefixed_every=4, rounds=3)
    assert result["ratio_min"] <= result["ratio"] <= result["ratio_max"]
    prefixed = sorted(tmp_path.iterdir())[0].read_bytes()
    assert prefixed.startswith(b"normal-json: (g=0)") and b'"fio version"' in prefixed


@pytest.mark.parametrize(
    "raw",
    [{"5": 1}, {" 5": 1}, {"-5": 1}, {"05": 2, "7": 1}, {"1.5": 1}, {"9223372036854775807": 1},
     {"99999999999999999999": 1}, {"5": -1}, {"5": 0}, {"5": 1.5}, {"5": "3"}, {"\u0663": 1},
     {"": 1}, {"1 2": 1}, {"3": 2, "1": 5}],
)  # fmt: skip
def test_the_fast_path_for_decimal_bins_agrees_with_the_general_one(raw):
    # json+ histograms as the typed decoding leaves them (JSON bytes) and as a decoded dict
    fast = histogram(json.dumps(raw).encode(), 1)
    general = histogram(raw, 1)
    assert (fast is None) == (general is None)
    if fast is not None:
        assert fast["ns"].tolist() == general["ns"].tolist()
        assert fast["count"].tolist() == general["count"].tolist()


def test_bytes_that_are_not_utf8_in_the_job_options_are_replaced(tmp_path):
    # found by the fuzz test: the typed decoding skips the options' text unchecked, and
    # decoding them later raised a bare UnicodeDecodeError
    data = (FIO_DATA / "randread_qd4.json").read_bytes()
    at = data.index(b'"name" : "', data.index(b'"job options"')) + len(b'"name" : "')
    path = tmp_path / "bad_byte.json"
    path.write_bytes(data[:at] + b"\x80" + data[at:])
    frame = read_fio_json(path)
    want = read_fio_json(FIO_DATA / "randread_qd4.json")
    cols = ["job", "direction", "pattern", "iodepth", "bs_kib", "iops"]
    pd.testing.assert_frame_equal(frame[cols], want[cols])


def test_a_fio_server_named_all_is_not_all_clients(tmp_path):
    # issue 24: 'all' is the aggregate's host; a server of that name gets another label
    sample = (
        Path(__file__).parents[2] / "data" / "samples" / "fio" / "client_2servers_jsonplus.json"
    )
    path = tmp_path / "client_all.json"
    path.write_text(sample.read_text().replace('"hostname" : "127.0.0.1"', '"hostname" : "all"'))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the <vm> lines around the JSON
        frame = read_fio_json(path)
    whole = frame[frame["is_summary"] & frame["direction"].eq("total")]
    hosts = whole["host"].astype(str)
    assert hosts.str.startswith("all (host):").sum() == 2 and hosts.eq("all").sum() == 1
    each = whole.loc[hosts.ne("all"), "iops"].sum()
    assert whole.loc[hosts.eq("all"), "iops"].item() == pytest.approx(each, rel=1e-3)


def test_a_direction_of_unknown_iops_beside_another_leaves_the_mean_unknown(tmp_path):
    """A 70/30 mix whose read IOPS is not a finite number: the total's mean latency cannot be
    weighed (NaN), never the write's alone passed off as the job's."""
    text = (FIO_DATA / "randrw70_numjobs2_gr.json").read_text()
    edited = re.sub(r'"iops" : [0-9.]+', '"iops" : 1e999', text, count=1)
    target = tmp_path / "mix.json"
    target.write_text(edited)
    with pytest.warns(UserWarning, match="jobs\\[0\\].read.iops"):
        frame = read_fio_json(target)
    first = frame[frame["job"] == frame["job"].iloc[0]]
    by = first.set_index("direction")
    assert by.loc["read", "lat_mean_ms"] > 0 and by.loc["write", "lat_mean_ms"] > 0
    assert math.isnan(by.loc["total", "lat_mean_ms"]) and math.isnan(by.loc["total", "iops"])


@pytest.mark.parametrize("prefix", ["", "fio: some text fio printed first\n"])
def test_non_finite_figure_is_nan_with_a_note_naming_file_and_field(tmp_path, prefix):
    # issue 33 item 12: "iops": 1e999 was read as inf, silently, and the job's latency was
    # lost from its total row
    text = (FIO_DATA / "randread_qd4.json").read_text()
    edited = re.sub(r'"iops" : [0-9.]+', '"iops" : 1e999', text, count=1)
    assert edited != text
    target = tmp_path / "huge.json"
    target.write_text(prefix + edited)
    with pytest.warns(UserWarning) as said:
        frame = read_fio_json(target)
    notes = [str(w.message) for w in said if "a finite number" in str(w.message)]
    assert notes == [
        f"{target}: not a finite number: jobs[0].read.iops of job 'randread-qd4' (inf); "
        "read as missing (NaN)"
    ]
    read = frame[frame["direction"] == "read"].iloc[0]
    assert math.isnan(read["iops"])
    assert read["bw_mib_s"] == pytest.approx(frame_of("randread_qd4.json")["bw_mib_s"].iloc[0])
    numbers = frame.select_dtypes("number").to_numpy(dtype=float)
    assert not np.isinf(numbers).any()
    # the read direction did all the I/O: the job's total keeps its latency, whatever its IOPS
    total = frame[frame["direction"] == "total"].iloc[0]
    measured = frame_of("randread_qd4.json")
    known = measured[measured["direction"] == "total"].iloc[0]
    assert math.isnan(total["iops"])
    for column in ("lat_mean_ms", "lat_std_ms", "lat_p99_ms", "lat_max_ms"):
        assert total[column] == pytest.approx(known[column]), column
