"""The stream parser on real fio --status-interval outputs (tests/data/fio_live/, recorded by its
make_fixtures.sh): intervals are differences of the cumulative documents, whatever the chunks."""

from __future__ import annotations

import logging
import math

import pytest

from anfperf.ingest.fio_json import read_fio_json
from anfperf.live.fio_stream import FioStream, Interval, fio_intervals
from anfperf.units import BYTES_PER_MIB, NS_PER_MS
from tests.conftest import DATA
from tests.live._fio_docs import documents, lat_totals, total

LIVE = DATA / "fio_live"
RECORDED = ["randread_1job.json", "randrw_2clones.json"]


def chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def read(name: str) -> bytes:
    return (LIVE / name).read_bytes()


@pytest.mark.parametrize("name", RECORDED)
@pytest.mark.parametrize("size", [1, 7, 512, 4096, 10**9])
def test_the_intervals_add_up_to_the_final_document_in_any_chunks(name, size):
    data = read(name)
    final = documents(data)[-1]
    intervals = list(fio_intervals("vm01", chunks(data, size)))
    assert len(intervals) == len(documents(data))  # one per document
    assert {i.host for i in intervals} == {"vm01"}
    assert sum(i.ios for i in intervals) == total(final, "total_ios")
    # rate x span: the bytes of each interval, which add up to the final document's
    io_bytes = sum(i.bw_mib_s * i.span_s * BYTES_PER_MIB for i in intervals)
    assert io_bytes == pytest.approx(total(final, "io_bytes"), rel=1e-9)
    # the I/O-weighted mean of the intervals' latencies is the final mean (N lags total_ios by
    # the I/O in flight at each document, a few of thousands)
    lat_sum, lat_n = lat_totals(final)
    weighted = sum(i.lat_mean_ms * i.ios for i in intervals) / sum(i.ios for i in intervals)
    assert weighted == pytest.approx(lat_sum / lat_n / NS_PER_MS, rel=0.01)
    assert intervals == sorted(intervals, key=lambda i: i.t_s)
    assert intervals[-1].t_s == pytest.approx(
        (final["timestamp_ms"] - documents(data)[0]["timestamp_ms"]) / 1000 + intervals[0].span_s
    )


@pytest.mark.parametrize("name", [*RECORDED, "ramp_reset.json"])
def test_the_stream_and_the_reader_of_the_saved_output_agree(name):
    # one difference for both: what was shown live is what the saved output's interval rows say
    frame = read_fio_json(LIVE / name)
    rows = frame[~frame["is_summary"] & (frame["direction"] == "total")]
    per_interval = rows.groupby("interval")[["iops", "bw_mib_s"]].sum()
    intervals = list(fio_intervals("vm01", [read(name)]))
    assert len(intervals) == len(per_interval)
    assert [i.iops for i in intervals] == pytest.approx(per_interval["iops"].tolist(), rel=1e-12)
    assert [i.bw_mib_s for i in intervals] == pytest.approx(
        per_interval["bw_mib_s"].tolist(), rel=1e-12
    )


def test_an_interval_is_the_difference_of_two_documents():
    data = read("randread_1job.json")
    first, second = (doc["jobs"][0]["read"] for doc in documents(data)[:2])
    interval = list(fio_intervals("vm01", [data]))[1]
    span_ms = second["runtime"] - first["runtime"]
    assert interval.span_s == span_ms / 1000
    assert interval.ios == second["total_ios"] - first["total_ios"]
    assert interval.iops == pytest.approx(interval.ios / interval.span_s)
    assert interval.read_iops == interval.iops and interval.write_iops == 0
    d_sum = second["lat_ns"]["mean"] * second["lat_ns"]["N"] - (
        first["lat_ns"]["mean"] * first["lat_ns"]["N"]
    )
    d_n = second["lat_ns"]["N"] - first["lat_ns"]["N"]
    assert interval.lat_mean_ms == pytest.approx(d_sum / d_n / 1e6)


def test_two_clones_of_a_mix_are_summed_with_their_directions():
    intervals = list(fio_intervals("vm01", [read("randrw_2clones.json")]))
    for i in intervals:
        assert i.read_iops > 0 and i.write_iops > 0
        assert i.read_iops + i.write_iops == pytest.approx(i.iops)
        assert i.read_bw_mib_s + i.write_bw_mib_s == pytest.approx(i.bw_mib_s)
        assert 0.6 < i.read_iops / i.iops < 0.8  # rwmixread=70


def test_the_counters_fio_resets_after_the_ramp_start_again():
    data = read("ramp_reset.json")
    docs = documents(data)
    intervals = list(fio_intervals("vm01", [data]))
    runtimes = [d["jobs"][0]["read"]["runtime"] for d in docs]
    reset = next(k for k in range(1, len(docs)) if runtimes[k] < runtimes[k - 1])
    # during the ramp fio counts I/O but measures no latency: NaN, never 0
    assert all(math.isnan(i.lat_mean_ms) for i in intervals[:reset])
    assert all(i.ios > 0 and i.iops > 0 for i in intervals[:reset])
    # from the reset on, the intervals add up to the final document
    after = intervals[reset:]
    assert sum(i.ios for i in after) == total(docs[-1], "total_ios")
    assert after[0].ios == total(docs[reset], "total_ios")
    assert not math.isnan(after[0].lat_mean_ms)


def test_noise_around_the_documents_is_skipped(caplog):
    data = read("randread_1job.json")
    clean = list(fio_intervals("vm01", [data]))
    noise = b"fio: file hash not empty on exit\n{not a doc}\n"
    docs = data.split(b'{\n  "fio version"')
    noisy = noise.join(docs[:1] + [b'{\n  "fio version"' + d for d in docs[1:]]) + noise
    with caplog.at_level(logging.DEBUG, logger="anfperf.live.fio_stream"):
        assert list(fio_intervals("vm01", chunks(b"Welcome!\n" + noisy, 333))) == clean
    assert "file hash not empty" in caplog.text


def test_a_torn_last_document_waits_for_its_end():
    data = read("randread_1job.json")
    stream = FioStream("vm01")
    head, tail = data[:-100], data[-100:]
    got = stream.feed(head)
    assert len(got) == len(documents(data)) - 1
    assert stream.pending_bytes > 0
    assert stream.feed(b"") == []
    (last,) = stream.feed(tail)
    assert isinstance(last, Interval)
    assert stream.pending_bytes <= 1  # the newline after it


def test_a_stream_cut_inside_a_string_or_an_escape_resumes():
    data = read("randread_1job.json").replace(
        b'"jobname" : "randread"', b'"jobname" : "rand}{read \\" \\\\"'
    )
    whole = list(fio_intervals("vm01", [data]))
    assert len(whole) == len(documents(data))
    cut = data.index(b"\\\\") + 1  # between the two bytes of an escape
    stream = FioStream("vm01")
    assert stream.feed(data[:cut]) == []
    assert stream.feed(data[cut:]) == whole


def test_a_document_that_is_not_json_is_skipped_and_the_next_read(caplog):
    data = read("randread_1job.json")
    at = data.index(b'"error" : 0', data.index(b'"fio version"', 10))  # the second document's
    broken = data[:at] + b'"error" : oops' + data[at + len(b'"error" : 0') :]
    stream = FioStream("vm01")
    with caplog.at_level(logging.WARNING, logger="anfperf.live.fio_stream"):
        got = stream.feed(broken)
    assert stream.skipped == 1 and "not JSON" in caplog.text
    assert len(got) == len(documents(data)) - 1
    # the third document's interval is taken from the first: two documents' worth of I/O
    assert sum(i.ios for i in got) == total(documents(data)[-1], "total_ios")


def test_noise_alone_leaves_little_behind():
    stream = FioStream("vm01")
    for _ in range(1000):
        assert stream.feed(b"fio: some warning line without a document\n") == []
    assert stream.pending_bytes < 100
    assert stream.feed(b'{ "fio') == []  # may be a start
    assert stream.pending_bytes >= 6
