"""DiskSpd -Rxml: the public PerfKitBenchmarker result, read in place."""

from __future__ import annotations

import gzip
import io
import re

import pytest

from anfperf.errors import ParseError
from anfperf.ingest.diskspd import read_diskspd_xml
from tests.conftest import PUBLIC, require_corpus

XML = PUBLIC / "diskspd" / "d01_pkb_2.0.21a.xml"


def _sum(tag: str, text: str) -> int:
    # per-thread <Target> counts, summed independently of the reader
    return sum(int(v) for v in re.findall(rf"<{tag}>(\d+)</{tag}>", text.split("</Profile>")[1]))


def test_public_diskspd_result_numbers_match_the_xml():
    require_corpus()
    raw = XML.read_text()
    seconds = float(re.search(r"<TestTimeSeconds>([\d.]+)<", raw).group(1))
    frame = read_diskspd_xml(XML)
    assert set(frame["direction"]) == {"read", "total"}  # WriteCount is 0 on every thread
    read = frame.query("direction == 'read'").iloc[0]
    assert read["iops"] == pytest.approx(_sum("ReadCount", raw) / seconds)
    assert read["bw_mib_s"] == pytest.approx(_sum("ReadBytes", raw) / seconds / 2**20)
    assert read["host"] == "pkb-044ffc87-0" and read["job"] == r"C:\scratch\testfile.dat"
    assert (read["bs_kib"], read["read_pct"], read["pattern"]) == (64.0, 100.0, "sequential")
    assert (read["iodepth"], read["numjobs"], read["outstanding"]) == (2, 4, 8)
    assert read["tool_version"] == "diskspd-2.0.21a"
    assert read["cpu_sys_pct"] == 2.95
    total = frame.query("direction == 'total'").iloc[0]
    assert total["iops"] == pytest.approx(_sum("IOCount", raw) / seconds)
    # MeasureLatency=false: no latency at all, and it stays unknown rather than zero
    assert frame["lat_mean_ms"].isna().all()


def test_gzip_and_buffers_read_the_same():
    require_corpus()
    raw = XML.read_bytes()
    plain = read_diskspd_xml(XML)
    from_gz = read_diskspd_xml(io.BytesIO(gzip.compress(raw)))
    assert from_gz["iops"].tolist() == plain["iops"].tolist()


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty"),
        (b"<Results><System>", "not well-formed"),
        (b"<html><body>502 Bad Gateway</body></html>", "expected DiskSpd"),
        (b"<Results><System/></Results>", "no measured"),
    ],
)
def test_bad_xml_raises_parse_error_naming_the_file(content, message):
    buf = io.BytesIO(content)
    buf.name = "run42.xml"
    with pytest.raises(ParseError, match=message) as info:
        read_diskspd_xml(buf)
    assert info.value.source == "run42.xml"


def test_truncated_public_file_raises_parse_error():
    require_corpus()
    raw = XML.read_bytes()
    with pytest.raises(ParseError, match="truncated"):
        read_diskspd_xml(io.BytesIO(raw[: len(raw) // 2]))


def test_non_finite_number_is_nan_with_a_note(tmp_path):
    # issue 33 item 12: float('inf') took '1e999' / 'inf' as an infinite CPU load, silently
    require_corpus()
    text = XML.read_text()
    average = text.index("<Average>")
    user = text.index("<UserPercent>", average)
    end = text.index("</UserPercent>", user)
    target = tmp_path / "inf.xml"
    target.write_text(text[: user + len("<UserPercent>")] + "1e999" + text[end:])
    with pytest.warns(UserWarning) as said:
        frame = read_diskspd_xml(target)
    notes = [str(w.message) for w in said if "a finite number" in str(w.message)]
    assert notes == [
        f"{target}: <CpuUtilization/Average/UserPercent> is '1e999', not a finite number; "
        "read as missing (NaN)"
    ]
    assert frame["cpu_user_pct"].isna().all()
    assert frame["cpu_sys_pct"].tolist() == read_diskspd_xml(XML)["cpu_sys_pct"].tolist()
