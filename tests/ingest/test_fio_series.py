"""fio --status-interval series read as one run: the last document its result, the others'
differences its intervals.

Fixtures: tests/data/fio_series (real fio 3.33 runs, see make_fixtures.sh). Expected values come
from the raw documents, parsed and differenced here with the json module alone.
"""

from __future__ import annotations

import codecs
import math
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

from anfperf.ingest.fio_json import read_fio_json
from anfperf.schema import PERCENTILE_COLUMNS
from tests.conftest import DATA, fio_documents
from tests.ingest.frames import assert_same_frame
from tests.ingest.test_fio_json import _read

SERIES = DATA / "fio_series"
#: Files of one run each, and what they show.
ONE_RUN = {
    "randread_json.json": "json, one job",
    "randrw_jsonplus.json": "json+, read and write",
    "ramp_reset.json": "ramp_time: a reset",
    "numjobs2_nogr.json": "two clones",
    "numjobs2_gr.json": "group_reporting",
}
DIRECTIONS = ("read", "write", "trim")
_START = re.compile(r"(?m)^\{")


def documents(path: Path) -> list[dict]:
    """The complete JSON documents of a file, in order (one cut short ends the list)."""
    return fio_documents(path)


def document_texts(path: Path) -> list[bytes]:
    """Each document's own bytes (what fio writes without --status-interval)."""
    data = path.read_bytes()
    starts = [m.start() for m in re.finditer(rb"(?m)^\{", data)]
    return [data[a:b] for a, b in zip(starts, [*starts[1:], len(data)], strict=True)]


def frame_of(name: str) -> pd.DataFrame:
    return _read(SERIES / name)[0]


def result_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The whole-run rows, without the columns that name the file."""
    rows = frame[frame["is_summary"]].drop(columns=["source_file", "run_id"])
    return rows.reset_index(drop=True)


def read_alone(text: bytes, tmp_path: Path) -> pd.DataFrame:
    path = tmp_path / "alone.json"
    path.write_bytes(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_fio_json(path)


def expected_intervals(docs: list[dict]) -> dict[tuple[int, str, int], dict]:
    """(job entry, direction, interval) -> what fio did in it, by the difference of two
    consecutive documents (counters that go back count from zero)."""
    out = {}
    for k, doc in enumerate(docs):
        for e, entry in enumerate(doc["jobs"]):
            for d in DIRECTIONS:
                now = entry[d]
                was = docs[k - 1]["jobs"][e][d] if k else None
                reset = was is not None and (
                    now["total_ios"] < was["total_ios"] or now["runtime"] < was["runtime"]
                )
                if was is None or reset:
                    was = {"total_ios": 0, "io_bytes": 0, "runtime": 0, "lat_ns": {"N": 0}}
                ios = now["total_ios"] - was["total_ios"]
                io_bytes = now["io_bytes"] - was["io_bytes"]
                ms = now["runtime"] - was["runtime"]
                if not (ios > 0 or io_bytes > 0 or ms > 0):
                    continue
                n = now["lat_ns"]["N"] - was["lat_ns"]["N"]
                lat_sum = now["lat_ns"]["mean"] * now["lat_ns"]["N"] - (
                    was["lat_ns"]["mean"] * was["lat_ns"]["N"] if was["lat_ns"]["N"] else 0.0
                )
                out[(e, d, k + 1)] = {
                    "ios": ios,
                    "iops": ios * 1000 / ms,
                    "bw_mib_s": io_bytes * 1000 / ms / 2**20,
                    "runtime_s": ms / 1000,
                    "lat_mean_ms": lat_sum / n / 1e6 if n > 0 else math.nan,
                    "reset": reset,
                    "timestamp_ms": doc["timestamp_ms"],
                }
    return out


def interval_rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[~frame["is_summary"]]


def direction_row(rows: pd.DataFrame, step: int, direction: str, interval: int) -> pd.Series:
    found = rows[
        (rows["step"] == step) & (rows["direction"] == direction) & (rows["interval"] == interval)
    ]
    assert len(found) == 1, (step, direction, interval, len(found))
    return found.iloc[0]


# --------------------------------------------------------------------------- one run


@pytest.mark.parametrize("name", ONE_RUN)
def test_the_result_is_the_last_document_read_alone(name, tmp_path):
    path = SERIES / name
    assert len(documents(path)) >= 3  # a series: status documents and the final one
    alone = read_alone(document_texts(path)[-1], tmp_path)
    assert_same_frame(result_rows(frame_of(name)), result_rows(alone))
    # one step per job entry of a document, as fio writes without --status-interval
    assert frame_of(name)["step"].nunique() == len(documents(path)[-1]["jobs"])


@pytest.mark.parametrize("name", ONE_RUN)
def test_interval_rows_are_the_differences_of_consecutive_documents(name):
    docs = documents(SERIES / name)
    expected = expected_intervals(docs)
    rows = interval_rows(frame_of(name))
    assert len(rows[rows["direction"] != "total"]) == len(expected)
    first_ms = docs[0]["timestamp_ms"]
    t0_s = max(entry[d]["runtime"] for entry in docs[0]["jobs"] for d in DIRECTIONS) / 1000
    for (step, direction, interval), want in expected.items():
        row = direction_row(rows, step, direction, interval)
        assert row["iops"] == pytest.approx(want["iops"], rel=1e-12)
        assert row["bw_mib_s"] == pytest.approx(want["bw_mib_s"], rel=1e-12)
        assert row["runtime_s"] == pytest.approx(want["runtime_s"], rel=1e-12)
        if math.isnan(want["lat_mean_ms"]):
            assert math.isnan(row["lat_mean_ms"])  # never 0
        else:
            assert row["lat_mean_ms"] == pytest.approx(want["lat_mean_ms"], rel=1e-9)
        assert row["timestamp"] == pd.Timestamp(want["timestamp_ms"], unit="ms", tz="UTC")
        assert row["time_s"] == pytest.approx(t0_s + (want["timestamp_ms"] - first_ms) / 1000)
        # not differences of cumulative figures: none on an interval
        assert row[["lat_min_ms", "lat_max_ms", "lat_std_ms", *PERCENTILE_COLUMNS]].isna().all()
        assert row["lat_bins"] is None and pd.isna(row["cpu_user_pct"])
    result = frame_of(name)[frame_of(name)["is_summary"]]
    assert result["interval"].isna().all() and result["time_s"].isna().all()


@pytest.mark.parametrize("name", ONE_RUN)
def test_the_intervals_add_up_to_the_result(name):
    docs = documents(SERIES / name)
    rows = interval_rows(frame_of(name))
    after_ramp = rows[~rows["is_warmup"]]
    for step, entry in enumerate(docs[-1]["jobs"]):
        for d in DIRECTIONS:
            if not entry[d]["total_ios"]:
                assert not ((rows["step"] == step) & (rows["direction"] == d)).any()
                continue
            mine = after_ramp[(after_ramp["step"] == step) & (after_ramp["direction"] == d)]
            ios = (mine["iops"] * mine["runtime_s"]).sum()
            assert ios == pytest.approx(entry[d]["total_ios"], rel=1e-9)
            io_bytes = (mine["bw_mib_s"] * mine["runtime_s"]).sum() * 2**20
            assert io_bytes == pytest.approx(entry[d]["io_bytes"], rel=1e-9)


@pytest.mark.parametrize("name", ONE_RUN)
def test_interval_totals_combine_their_directions(name):
    rows = interval_rows(frame_of(name))
    keys = ["step", "interval"]
    parts = rows[rows["direction"] != "total"].groupby(keys)["iops"].sum()
    totals = rows[rows["direction"] == "total"].set_index(keys)["iops"]
    assert len(totals) == len(parts) and totals.index.is_unique
    assert totals.sort_index().to_numpy() == pytest.approx(parts.sort_index().to_numpy())
    assert rows["interval"].min() == 1


def test_the_ramp_is_warm_up_and_the_reset_counts_from_zero():
    docs = documents(SERIES / "ramp_reset.json")
    reads = [doc["jobs"][0]["read"] for doc in docs]
    reset = next(k for k in range(1, len(docs)) if reads[k]["runtime"] < reads[k - 1]["runtime"])
    rows = interval_rows(frame_of("ramp_reset.json"))
    rows = rows[rows["direction"] == "read"].set_index("interval")
    # during the ramp fio counts I/O but times none: warm-up intervals, latency NaN, never 0
    assert rows.loc[1:reset, "is_warmup"].all() and rows.loc[1:reset, "lat_mean_ms"].isna().all()
    assert (rows.loc[1:reset, "iops"] > 0).all()
    assert not rows.loc[reset + 1 :, "is_warmup"].any()
    first = rows.loc[reset + 1]  # from the reset to the document after it
    assert first["iops"] == pytest.approx(reads[reset]["total_ios"] / reads[reset]["runtime"] * 1e3)
    assert first["lat_mean_ms"] == pytest.approx(reads[reset]["lat_ns"]["mean"] / 1e6)


def test_two_clones_keep_their_steps_in_every_interval():
    docs = documents(SERIES / "numjobs2_nogr.json")
    rows = interval_rows(frame_of("numjobs2_nogr.json"))
    assert [e["jobname"] for e in docs[-1]["jobs"]] == ["nj2", "nj2"]
    reads = rows[rows["direction"] == "read"]
    assert sorted(reads.groupby("step")["interval"].count().index) == [0, 1]
    assert set(reads["outstanding"]) == {1} and set(reads["numjobs"]) == {2}


def test_group_reporting_is_one_entry_of_both_directions():
    rows = interval_rows(frame_of("numjobs2_gr.json"))
    assert set(rows["step"]) == {0} and set(rows["outstanding"]) == {2}
    assert set(rows["direction"]) == {"read", "write", "total"}


def test_jsonplus_bins_and_percentiles_are_the_results_alone():
    docs = documents(SERIES / "randrw_jsonplus.json")
    frame = frame_of("randrw_jsonplus.json")
    read = frame[frame["is_summary"] & (frame["direction"] == "read")].iloc[0]
    clat = docs[-1]["jobs"][0]["read"]["clat_ns"]
    assert read["lat_p99_ms"] == clat["percentile"]["99.000000"] / 1e6
    assert int(read["lat_bins"]["count"].sum()) == sum(clat["bins"].values())
    assert interval_rows(frame)["lat_bins"].isna().all()
    assert all("bins" in doc["jobs"][0]["read"]["clat_ns"] for doc in docs)  # in every one


def test_the_fast_and_the_generic_decoding_agree(tmp_path):
    path = SERIES / "randrw_jsonplus.json"
    target = tmp_path / path.name
    target.write_bytes(codecs.BOM_UTF8 + path.read_bytes())  # the typed decoding refuses a BOM
    generic = read_fio_json(target, run_id="x").drop(columns="source_file")
    fast = read_fio_json(path, run_id="x").drop(columns="source_file")
    assert_same_frame(generic, fast)


# --------------------------------------------------------------------------- not one run


def test_a_file_cut_short_reads_its_complete_documents_with_a_warning(tmp_path):
    name = "cut_short.json"
    docs = documents(SERIES / name)
    assert len(docs) == len(document_texts(SERIES / name)) - 1  # the last one is cut
    frame, said = _read(SERIES / name)
    assert any(str(SERIES / name) in w and "cut short" in w for w in said), said
    # the result: the last complete document, flagged as covering less than the run
    alone = read_alone(document_texts(SERIES / name)[-2], tmp_path)
    mine = result_rows(frame)
    assert mine["interrupted"].all()
    assert_same_frame(
        mine.drop(columns="interrupted"), result_rows(alone).drop(columns="interrupted")
    )
    intervals = interval_rows(frame)
    assert sorted(set(intervals["interval"])) == list(range(1, len(docs) + 1))
    assert intervals["interrupted"].all()


def test_different_runs_appended_to_one_file_keep_counting_steps():
    docs = documents(SERIES / "two_runs.json")
    frame = frame_of("two_runs.json")
    assert frame["is_summary"].all() and frame["interval"].isna().all()
    totals = frame[frame["direction"] == "total"].set_index("step")
    assert list(totals.index) == [0, 1]
    for step, doc in enumerate(docs):
        (entry,) = doc["jobs"]
        assert totals.loc[step, "job"] == entry["jobname"]
        ios = sum(entry[d]["total_ios"] for d in DIRECTIONS)
        assert totals.loc[step, "iops"] * totals.loc[step, "runtime_s"] == pytest.approx(
            ios, rel=1e-3
        )


def test_the_same_job_run_twice_is_two_series():
    docs = documents(SERIES / "same_job_twice.json")
    frame = frame_of("same_job_twice.json")
    # another fio process wrote the second: its start (timestamp - elapsed) is later
    starts = [doc["timestamp_ms"] - 1000 * doc["jobs"][0]["elapsed"] for doc in docs]
    second = next(k for k in range(1, len(docs)) if starts[k] - starts[k - 1] > 1500)
    results = frame[frame["is_summary"] & (frame["direction"] == "read")].set_index("step")
    assert list(results.index) == [0, 1]
    for step, last in ((0, docs[second - 1]), (1, docs[-1])):
        assert results.loc[step, "iops"] == last["jobs"][0]["read"]["iops"]
    rows = interval_rows(frame)
    for step, run in ((0, docs[:second]), (1, docs[second:])):
        reads = rows[(rows["step"] == step) & (rows["direction"] == "read")]
        assert list(reads["interval"]) == list(range(1, len(run) + 1))
        ios = (reads["iops"] * reads["runtime_s"]).sum()
        assert ios == pytest.approx(run[-1]["jobs"][0]["read"]["total_ios"], rel=1e-9)
