"""A store names all its damage: each part that is not a readable part of the store is named,
and only its run is left out, by `anfperf runs`, `load_store`, `anfperf ingest` (a store read,
a store written into) and the reports alike.

Parts written by save_frame from real outputs, then damaged for real: bytes overwritten in the
middle (footer intact), a link to nothing, a folder, a FIFO, a Parquet file of another schema.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import struct
import warnings

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import anfperf
from anfperf.analysis.inputs import load_inputs
from anfperf.cli import main
from anfperf.store import (
    PART_NAME,
    DamagedPart,
    DamagedPartWarning,
    check_parts,
    list_runs,
    load_store,
    save_frame,
)
from tests.conftest import DATA

INPUTS = [DATA / "vdbench" / "MultiHostSeqMix", DATA / "vdbench" / "RndRead",
          DATA / "fio" / "randread_qd4.json"]  # fmt: skip
DAMAGED_RUN = "MultiHostSeqMix"
OTHER_INPUT = DATA / "fio" / "rate_iops_200.json"  # a run ingested into the damaged store
KINDS = ["middle", "link", "folder", "fifo", "schema"]
REASONS = {
    "link": "is a link to nothing",
    "folder": "is a folder, not a file",
    "fifo": "is a named pipe (FIFO), not a regular file",
    "schema": "not a part of an anfperf store: columns outside its schema ['a', 'b']",
}


def read(paths) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many(paths)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return read(INPUTS)


def damage(part, how: str) -> None:
    """Damage a part file for real, as a stray write, a bad copy or a careless hand would."""
    if how == "middle":  # 16 bytes in the middle of the column chunks: the footer intact
        data = bytearray(part.read_bytes())
        footer = struct.unpack("<i", data[-8:-4])[0] + 8
        middle = (4 + len(data) - footer) // 2
        data[middle : middle + 16] = b"\xa5" * 16
        part.write_bytes(bytes(data))
    elif how == "link":
        part.unlink()
        part.symlink_to(part.parent / "gone.parquet")
    elif how == "folder":
        part.unlink()
        part.mkdir()
    elif how == "fifo":
        part.unlink()
        os.mkfifo(part)
    else:  # a valid Parquet file, of another schema
        pq.write_table(pa.table({"a": [1, 2], "b": ["x", "y"]}), part)


@contextlib.contextmanager
def within(seconds: int):
    """Fail instead of hanging (a FIFO opened for reading waits for a writer forever)."""

    def hung(*_):
        raise TimeoutError(f"still waiting after {seconds} s")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(params=KINDS)
def damaged(request, frame, tmp_path):
    """(store, its damaged part, what the other runs hold) for one kind of damage."""
    store = save_frame(frame, tmp_path / "store")
    part = store / f"run_id={DAMAGED_RUN}" / PART_NAME
    damage(part, request.param)
    return store, part, frame[frame["run_id"] != DAMAGED_RUN], request.param


def named(part, kind: str) -> str:
    """The one line naming a damaged part, as every reader says it."""
    said = re.escape(f"{part}: damaged part file, run {DAMAGED_RUN!r} left out (")
    return said + (re.escape(REASONS[kind]) if kind in REASONS else ".+") + r"\)$"


def test_check_parts_names_the_part_and_its_reason(damaged):
    store, part, others, kind = damaged
    with within(20):
        good, bad = check_parts(store)
    assert sorted(good) == sorted(others["run_id"].unique())
    [found] = bad
    assert isinstance(found, DamagedPart)
    assert (found.run_id, found.path) == (DAMAGED_RUN, str(part))
    assert re.match(named(part, kind), str(found))


def test_anfperf_runs_names_the_part_and_lists_the_others(damaged, capsys):
    store, part, others, kind = damaged
    with within(20):
        status = main(["runs", str(store)])
    out, err = capsys.readouterr()
    assert status == 1  # done in part: a damaged part left out, said
    [line] = err.splitlines()
    assert re.match("anfperf: warning: " + named(part, kind), line)
    listed = [row.split()[0] for row in out.splitlines()[1:] if row.strip()][:-1]
    assert sorted(listed) == sorted(others["run_id"].unique())
    assert f"{others['run_id'].nunique()} runs, {len(others)} rows in {store}" in out
    with within(20), pytest.warns(DamagedPartWarning, match=named(part, kind)):
        runs = list_runs(store)
    assert runs.set_index("run_id")["rows"].to_dict() == others.groupby("run_id").size().to_dict()


def test_load_store_and_the_reports_leave_out_that_run_alone(damaged):
    store, part, others, kind = damaged
    with within(20), pytest.warns(DamagedPartWarning, match=named(part, kind)):
        back = load_store(store)
    assert sorted(back["run_id"].unique()) == sorted(others["run_id"].unique())
    assert len(back) == len(others)
    notes: list[str] = []
    with within(20), warnings.catch_warnings():
        warnings.simplefilter("error")  # a report shows it on its page, not as a warning
        report = load_inputs(store=store, notes=notes)
    assert len(report) == len(others)
    [note] = notes
    assert re.match(named(part, kind), note)


def test_ingest_of_the_store_names_the_part_and_keeps_the_other_runs(damaged, tmp_path, capsys):
    store, part, others, kind = damaged
    with within(20):
        status = main(["ingest", str(store), "--out", str(tmp_path / "copy")])
    out, err = capsys.readouterr()
    assert status == 1  # not 3 (a traceback): the part is named, its run left out
    [line] = err.splitlines()
    assert re.match("anfperf: warning: skipped " + named(part, kind), line)
    assert f"{len(others)} rows from" in out
    copied = load_store(tmp_path / "copy")
    assert sorted(copied["run_id"].unique()) == sorted(others["run_id"].unique())


def test_ingest_into_the_store_names_its_damaged_part(damaged, capsys):
    store, part, others, kind = damaged
    with within(20):
        status = main(["ingest", str(OTHER_INPUT), "--out", str(store)])
    out, err = capsys.readouterr()
    assert status == 1  # saved; the store it went into has a run that cannot be read
    assert f"saved to {store}" in out
    [line] = err.splitlines()
    assert re.match("anfperf: warning: " + named(part, kind), line)
    with within(20), pytest.warns(DamagedPartWarning, match=named(part, kind)):
        back = load_store(store)
    new = read([OTHER_INPUT])
    assert sorted(back["run_id"].unique()) == sorted(
        {*others["run_id"].unique(), *new["run_id"].unique()}
    )
