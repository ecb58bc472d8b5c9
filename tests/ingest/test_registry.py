"""The format registry: every format comes through it, and a new one needs nothing else."""

from __future__ import annotations

import json
import shutil

import pytest

import anfperf.schema
from anfperf.errors import ParseError
from anfperf.ingest import detect_format, expand_paths, read, read_many, register_format
from anfperf.ingest.registry import Format, formats, get_format, tools, unregister_format
from tests.conftest import DATA

# A toy format, defined here alone: "TOY v1" then one 'job,iops,bw_mib_s' line per job.


def _toy_rows(data: bytes, source: str) -> list[dict]:
    lines = data.decode().splitlines()
    version = lines[0].split()[1]
    rows = []
    for line in lines[1:]:
        try:
            job, iops, bw = line.split(",")
            rows.append({
                "tool": "toy", "tool_version": f"toy-{version}", "host": "localhost",
                "job": job, "workload": job, "step": len(rows), "direction": "read",
                "is_summary": True, "iops": float(iops), "bw_mib_s": float(bw),
            })  # fmt: skip
        except ValueError:
            raise ParseError(source, f"bad toy line {line!r}") from None
    return rows


TOY = Format(
    name="toy",
    title="toy output",
    tool="toy",
    sniff=lambda head: head.startswith(b"TOY "),
    parse_rows=_toy_rows,
    suffixes=(".toy",),
)


@pytest.fixture
def toy():
    register_format(TOY)
    try:
        yield TOY
    finally:
        unregister_format("toy")


def test_a_format_added_in_a_test_is_read_by_read_many_next_to_fio(toy, tmp_path):
    (tmp_path / "a.toy").write_text("TOY 1.2\nseq,100.5,12.25\nrand,2000,7.8125\n")
    shutil.copy(DATA / "fio" / "randread_qd4.json", tmp_path / "b.json")
    frame = read_many([tmp_path])
    toy_rows = frame.query("tool == 'toy'")
    assert set(frame["tool"]) == {"toy", "fio"}
    assert "toy" in anfperf.schema.tool_dtype().categories
    reads = toy_rows.query("direction == 'read'").set_index("job")
    assert reads.loc["seq", "iops"] == 100.5 and reads.loc["rand", "bw_mib_s"] == 7.8125
    assert toy_rows["run_id"].eq("a").all() and toy_rows["tool_version"].eq("toy-1.2").all()
    # the reader adds the 'total' rows, as for the built-in formats
    assert set(toy_rows["direction"]) == {"read", "total"}
    fio = json.loads((DATA / "fio" / "randread_qd4.json").read_bytes())
    got = frame.query("tool == 'fio' and direction == 'read'")["iops"].iloc[0]
    assert got == fio["jobs"][0]["read"]["iops"]
    assert detect_format(tmp_path / "a.toy") == "toy"
    assert read(tmp_path / "a.toy").equals(read_many([tmp_path / "a.toy"]))


def test_a_bad_toy_file_is_an_error_naming_it(toy, tmp_path):
    (tmp_path / "bad.toy").write_text("TOY 1\nseq,fast,1\n")
    with pytest.raises(ParseError, match="bad.toy.*bad toy line"):
        read_many([tmp_path])


def test_without_the_registration_the_toy_is_unknown(tmp_path):
    (tmp_path / "a.toy").write_text("TOY 1\nseq,1,1\n")
    with pytest.raises(ParseError, match="not fio JSON"):
        read(tmp_path / "a.toy")
    assert expand_paths([tmp_path]) == []  # .toy is nobody's suffix
    assert "toy" not in anfperf.schema.tool_dtype().categories


def test_schema_tools_and_suffixes_come_from_the_registry():
    # (azure_monitor last: the categories' order is stored in Parquet)
    assert (
        tuple(anfperf.schema.tool_dtype().categories)
        == tools()
        == ("fio", "vdbench", "diskspd", "azure_monitor")
    )
    assert anfperf.schema.BUILTIN_TOOLS == tools()
    assert [f.name for f in formats()] == [
        "fio_json", "vdbench", "diskspd", "diskspd_text", "fio_log", "azure_monitor",
    ]  # fmt: skip
    assert get_format("fio_log").not_result and get_format("fio_log").tool is None
    with pytest.raises(ValueError, match="registered already"):
        register_format(get_format("fio_json"))
    with pytest.raises(ValueError, match="built-in"):
        unregister_format("vdbench")


def test_read_many_imports_no_private_parser():
    import inspect

    import anfperf.ingest

    source = inspect.getsource(anfperf.ingest)
    assert "parse_fio_json" not in source and "import _" not in source
