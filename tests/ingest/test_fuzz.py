"""Mutated real outputs give a frame or a ParseError, never another exception."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anfperf.errors import ParseError
from anfperf.ingest import read_diskspd_xml, read_fio_json, read_fio_log, read_vdbench
from tests.conftest import DATA, PUBLIC, require_corpus


def _fixtures() -> list[tuple[str, object, str]]:
    """(id, reader, path) for a few real files of each format."""
    cases = []
    for path in sorted((DATA / "fio").glob("*.json"))[:4]:
        cases.append((path.name, read_fio_json, path))
    for path in sorted((DATA / "fio_logs").glob("*.log"))[:2]:
        cases.append((path.name, read_fio_log, path))
    for path in sorted((DATA / "vdbench").glob("*/flatfile.html"))[:2]:
        cases.append((f"{path.parent.name}/flatfile", read_vdbench, path))
    public = [
        ("fio/f12_pbench_fio37_client.txt", read_fio_json),
        ("fio/f17_benson_fio333_jsonplus", read_fio_json),
        ("vdbench/v08_flatfile.html", read_vdbench),
        ("vdbench/v15_flatfile.html", read_vdbench),
        ("diskspd/d01_pkb_2.0.21a.xml", read_diskspd_xml),
        ("fio/f15_randwrite-iodepth-16-numjobs-8_clat.1.log", read_fio_log),
    ]
    for rel, reader in public:
        cases.append((rel, reader, PUBLIC / rel))
    return cases


CASES = _fixtures()

mutation = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("flip"), st.floats(0, 1), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("delete"), st.floats(0, 1), st.integers(1, 400)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.sampled_from(
        [b"n/a", b"?", b"\x00\xff", b"}", b"{", b"\n", b",", b"avg_", b"-1", b"1e999", b"NaN",
         b"<pre>", b"\"jobs\" : []", b"Interval", "\u00e9".encode()]
    )),
)  # fmt: skip


def _mutate(data: bytes, ops: list) -> bytes:
    for op in ops:
        at = int(op[1] * len(data))
        if op[0] == "truncate":
            data = data[:at]
        elif op[0] == "flip":
            data = data[:at] + op[2] + data[at + len(op[2]) :]
        elif op[0] == "delete":
            data = data[:at] + data[at + op[2] :]
        else:
            data = data[:at] + op[2] + data[at:]
    return data


@pytest.mark.parametrize("name, reader, path", CASES, ids=[c[0] for c in CASES])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(mutation, min_size=1, max_size=3))
def test_mutated_real_file_gives_frame_or_parse_error(name, reader, path, ops):
    if str(path).startswith(str(PUBLIC)):
        require_corpus()
    data = _mutate(path.read_bytes(), ops)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / path.name  # same name: readers may detect the kind from it
        target.write_bytes(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                frame = reader(target)
            except ParseError as exc:
                assert exc.source.endswith(path.name)
                return
    assert isinstance(frame, pd.DataFrame)
