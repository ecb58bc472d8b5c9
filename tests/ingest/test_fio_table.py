"""Reading many fio JSON files column-wise gives what reading them row by row gave.

FioTable (anfperf.ingest.fio_table) types each column once and combines every job's 'total'
row in one vectorised pass; the typed decoder (anfperf.ingest.fio_doc) and the batched json+
histogram parser are fast paths. Each is checked here against the general path it replaces.
"""

from __future__ import annotations

import json
import math
import warnings

import msgspec
import numpy as np
import orjson
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anfperf.errors import ParseError
from anfperf.ingest import add_totals, fio_bins, fio_doc, fio_json, read_many
from anfperf.ingest.fio_table import FioTable
from tests.conftest import DATA, PUBLIC, require_corpus
from tests.ingest.frames import assert_same_frame


def _fio_files() -> list:
    files = sorted((DATA / "fio").glob("*.json")) + [DATA / "fio" / "normal_and_json.txt"]
    files += sorted((DATA / "fio_sweeps").rglob("*.json"))[:3]
    # the public outputs that hold fio results (f09, f11: fio failed before any job ran)
    public = sorted(
        p
        for p in (PUBLIC / "fio").glob("*")
        if not p.name.endswith((".log", ".job")) and not p.name.startswith(("f09", "f11"))
    )
    return files + [pytest.param(p, marks=pytest.mark.corpus) for p in public]


def _table(*named: tuple[str, bytes]) -> FioTable:
    table = FioTable()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, data in named:
            table.add(data, name, run_id="r")
    return table


@pytest.mark.parametrize("path", _fio_files(), ids=lambda p: p.name)
def test_totals_equal_add_totals_of_the_direction_rows(path):
    if "corpus" in str(path):
        require_corpus()
    table = _table((path.name, path.read_bytes()))
    frame = table.frame()
    direction_rows = frame.iloc[: len(table)]
    assert_same_frame(frame, add_totals(direction_rows))


@pytest.mark.parametrize("path", _fio_files(), ids=lambda p: p.name)
def test_typed_decoding_gives_what_plain_json_gives(path, monkeypatch):
    if "corpus" in str(path):
        require_corpus()
    data = path.read_bytes()
    fast = _table((path.name, data)).frame()

    def refuse(_data):
        raise fio_doc.DECODE_ERRORS[0]("forced onto the general path")

    monkeypatch.setattr(fio_doc, "decode", refuse)
    assert_same_frame(fast, _table((path.name, data)).frame())


def test_percentiles_in_another_spelling_take_the_general_path():
    doc = json.loads((DATA / "fio" / "randread_qd4.json").read_text())
    pct = doc["jobs"][0]["read"]["clat_ns"]["percentile"]
    doc["jobs"][0]["read"]["clat_ns"]["percentile"] = {f"{float(k):g}": v for k, v in pct.items()}
    typed = fio_doc.decode(json.dumps(doc).encode())
    assert typed.jobs[0].read.clat_ns.percentile.none_read()  # so the reader decodes it as JSON
    frame = _table(("x.json", json.dumps(doc).encode())).frame()
    assert frame["lat_p99_ms"].iloc[0] == pct["99.000000"] / 1e6


def _hist_json(keys: list[int], counts: list[int], spaces: str = "") -> bytes:
    items = [f'{spaces}"{k}"{spaces}:{spaces}{c}' for k, c in zip(keys, counts, strict=True)]
    return ("{" + ",".join(items) + "}").encode()


_TRICKY = [
    b'{"0": 3, "5": 1}',  # a key 0: no mark for where it starts
    b'{"5": 1, "3": 2}',  # decreasing keys
    b'{"5": 1, "5": 2}',  # a repeated key (a dict keeps the last)
    b'{"5": "1"}',  # a quoted value
    b'{"5": {"1": 2}}',  # nested
    b"{}",
    b'{"5": 0, "7": 0}',  # nothing counted
    b'{"99999999999999999999": 1}',  # beyond int64
    b'{"5": 1.5}',
    b'{"-5": 1}',
    b'{"1 2": 1}',  # whitespace inside a key: not bin 12
    b'{"12": 1 }',
    b'{ "12" :\n 1 , " 13":2}',  # whitespace around keys and values, and inside one's quotes
    b'{"+5": 1}',  # signs, exponents, hexadecimal, literals: not fio's decimal text
    b'{"5": +1}',
    b'{"5": -1}',
    b'{"5": 1e3}',
    b'{"0x5": 1}',
    b'{"5": true}',
    b'{"5": [1]}',
    b'{"\\u0035": 1}',  # an escaped digit
    b'{"5": 1}{"6": 2}',  # two objects in one
]


@pytest.mark.parametrize("tricky", _TRICKY)
def test_histograms_parsed_together_equal_each_parsed_as_a_dict(tricky):
    good = _hist_json([1000, 2000, 4096], [3, 0, 7], spaces="\n  ")
    batch = [good, tricky, good]
    many = fio_bins.decimal_histograms(batch)
    for data, got in zip(batch, many, strict=True):
        if got is fio_bins.NOT_DECIMAL:  # the caller then reads it as a dict
            got = fio_bins.histogram(msgspec.Raw(data), 1)
        try:
            want = fio_bins.histogram(orjson.loads(data), 1)
        except orjson.JSONDecodeError:
            want = None
        if want is None or got is None:
            assert want is None and got is None
            continue
        for key in ("ns", "count"):
            assert got[key].dtype == np.int64 and np.array_equal(got[key], want[key])


def test_a_file_that_fails_leaves_nothing_in_the_table():
    good = (DATA / "fio" / "randread_qd4.json").read_bytes()
    table = _table(("a.json", good))
    with pytest.raises(ParseError):
        table.add(good[: len(good) // 2], "b.json")  # truncated
    table.add(good, "c.json", run_id="r")
    assert table.frame()["source_file"].tolist() == ["a.json", "c.json", "a.json", "c.json"]


def test_read_many_is_every_file_read_alone(tmp_path):
    names = ["randrw70_numjobs2_gr.json", "client_2servers_jsonplus.json", "gtod_reduce.json"]
    paths = []
    for name in names:
        paths.append(tmp_path / name)
        paths[-1].write_bytes((DATA / "fio" / name).read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        many = read_many(paths)
        alone = [fio_json.read_fio_json(p) for p in paths]
    key = ["source_file", "step", "host", "direction"]
    for path, frame in zip(paths, alone, strict=True):
        part = many[many["source_file"] == str(path)].sort_values(key, kind="stable")
        assert_same_frame(
            part.reset_index(drop=True),
            frame.sort_values(key, kind="stable").reset_index(drop=True),
        )


_VALUE = st.one_of(st.just(0), st.integers(1, 10**9), st.floats(1e-3, 1e9, allow_nan=False))


@st.composite
def _fio_doc(draw) -> dict:
    """A fio JSON document of random jobs: directions with and without I/O, percentiles and
    json+ histograms or not, per-direction block sizes."""
    jobs = []
    for j in range(draw(st.integers(1, 3))):
        entry = {"jobname": f"job{j % 2}", "groupid": 0, "error": 0,
                 "job options": {"rw": draw(st.sampled_from(["randrw", "read", "randtrim"])),
                                 "bs": draw(st.sampled_from(["4k", "4k,64k", "8k,16k,4k"]))},
                 "usr_cpu": draw(_VALUE), "sys_cpu": 1.0 / 3}  # fmt: skip
        for direction in ("read", "write", "trim"):
            ios = draw(st.sampled_from([0, 0, 5, 1000]))
            lat = {"min": draw(_VALUE), "max": draw(_VALUE), "mean": draw(_VALUE),
                   "stddev": draw(_VALUE), "N": ios}  # fmt: skip
            if draw(st.booleans()):
                lat["percentile"] = {"50.000000": draw(_VALUE), "99.000000": draw(_VALUE)}
            if draw(st.booleans()):
                keys = sorted(draw(st.sets(st.integers(1, 10**8), min_size=1, max_size=5)))
                lat["bins"] = {str(k): draw(st.integers(0, 9)) for k in keys}
            entry[direction] = {
                "io_bytes": ios * 4096, "total_ios": ios, "iops": draw(_VALUE),
                "bw_bytes": draw(_VALUE), "runtime": draw(st.sampled_from([1000, 1001])),
                "clat_ns": lat, "lat_ns": {k: lat[k] for k in ("min", "max", "mean", "stddev")},
            }  # fmt: skip
        jobs.append(entry)
    return {"fio version": "fio-3.33", "timestamp": 1764000000, "jobs": jobs}


@settings(max_examples=60, deadline=None)
@given(st.lists(_fio_doc(), min_size=1, max_size=3))
def test_any_fio_documents_total_as_add_totals_does(docs):
    table = FioTable()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, doc in enumerate(docs):
            try:
                table.add(json.dumps(doc).encode(), f"f{i}.json", run_id="r")
            except ParseError:  # no direction did I/O
                assert all(
                    d[k]["total_ios"] == 0 for d in doc["jobs"] for k in ("read", "write", "trim")
                )
    frame = table.frame()
    assert_same_frame(frame, add_totals(frame.iloc[: len(table)]))
    assert not math.isnan(frame["iops"].sum()) or frame.empty


def test_whole_millisecond_timestamps_equal_the_float_rounding():
    # _timestamp returns fio's whole milliseconds as they are where the rounding through a
    # float second count gives the same (until 2038); a datetime holds microseconds
    from anfperf.ingest.fio_doc import Doc
    from anfperf.ingest.fio_rows import _TS_RANGE, _timestamp

    def through_float(ms: int) -> int:
        fraction, whole = math.modf(ms / 1000.0)
        return (int(whole) * 1_000_000 + round(fraction * 1e6)) * 1000

    rng = np.random.default_rng(7)
    low, high = int(_TS_RANGE[0] * 1000) + 1, 2**31 * 1000 - 1
    for ms in [low, high, 1_763_769_745_123, *rng.integers(low, high, 20_000).tolist()]:
        assert _timestamp(Doc(timestamp_ms=ms)) == through_float(ms) == ms * 1_000_000
    late = 2**31 * 1000 + 123  # beyond: the rounding itself decides
    assert _timestamp(Doc(timestamp_ms=late)) == through_float(late)


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("job", ("a", None, "b")),  # pyarrow makes the strings
        ("job", ("a", 5)),  # not all str: pandas converts them
        ("step", (1, 2, 3)),  # whole numbers: straight to an IntegerArray
        ("step", (1, None)),  # a missing one: pandas
        ("iops", (1.5, float("nan"))),
        ("iops", (1.5, None)),  # None is NaN, as np.array makes it
    ],
)
def test_typed_columns_equal_what_pandas_makes(name, values):
    from anfperf.ingest.fio_table import _DTYPES, _typed

    got = pd.Series(_typed(name, values))
    want = pd.Series(values, dtype=_DTYPES[name])
    pd.testing.assert_series_equal(got, want)
