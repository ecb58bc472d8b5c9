"""The Workload spec: validation, YAML round trip, clear errors for bad workload files."""

from __future__ import annotations

import gzip
import io

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anfperf.errors import AnfperfError
from anfperf.workloads import (
    CATALOGUE,
    Workload,
    WorkloadError,
    dump_workloads,
    get_workload,
    load_workloads,
)

USER_YAML = """\
# my own workloads
workloads:
  - name: OltpLike
    pattern: random
    bs_kib: 8
    read_pct: 70
    iodepth: [1, 4, 16, 64]
    numjobs: 8
    warmup_s: 30
    duration_s: 300
    file_size_gib: 16
    description: 8 KiB 70/30 queue-depth sweep
  - name: Backup
    pattern: sequential
    bs_kib: 1024
    read_pct: 100
    threads: 4
    rate: 2000
    direct: false
  - name: ReadCurve
    pattern: random
    bs_kib: 4
    threads: 32
    rate: [0.25, 0.5, 0.75, 1.0]
"""


def test_users_yaml_loads_with_units_in_field_names(tmp_path):
    path = tmp_path / "mine.yml"
    path.write_text(USER_YAML)
    oltp, backup, curve = load_workloads(path)
    assert oltp.iodepth == (1, 4, 16, 64) and oltp.numjobs == 8 and oltp.read_pct == (70,)
    assert oltp.outstanding == (8, 32, 128, 512)
    assert [p.iodepth for p in oltp.points()] == [1, 4, 16, 64]
    assert backup.rate == 2000 and backup.rate_kind == "fixed" and backup.direct is False
    assert backup.bs_kib == 1024 and backup.threads == (4,)
    # fractions of max become percentages
    assert curve.rate == (25, 50, 75, 100) and curve.rate_kind == "curve"
    assert [p.rate_pct for p in curve.points()] == [25, 50, 75, 100]
    assert curve.point_name(curve.points()[0]) == "ReadCurve-c25"


def test_catalogue_round_trips_through_yaml(tmp_path):
    workloads = list(CATALOGUE.values())
    text = dump_workloads(workloads, tmp_path / "all.yml")
    assert load_workloads(tmp_path / "all.yml") == workloads
    assert load_workloads(io.StringIO(text)) == workloads
    assert load_workloads(io.BytesIO(gzip.compress(text.encode()))) == workloads
    # single-value fields are written as scalars, sweeps as lists
    doc = yaml.safe_load(text)["workloads"]
    seqwrite = next(d for d in doc if d["name"] == "SeqWrite")
    assert seqwrite["threads"] == [26, 32, 40] and seqwrite["read_pct"] == 0


def test_a_single_mapping_or_a_bare_list_also_loads():
    (one,) = load_workloads(io.StringIO("name: A\npattern: random\nbs_kib: 4\nthreads: 1\n"))
    assert one.name == "A"
    two = load_workloads(io.StringIO(dump_workloads(CATALOGUE["RndRead"]).split("\n", 1)[1]))
    assert two == [CATALOGUE["RndRead"]]


def _load_text(tmp_path, text: str | bytes, name="bad.yml"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(WorkloadError) as info:
        load_workloads(path)
    assert str(path) in str(info.value)
    return info.value


GOOD = "- name: A\n  pattern: random\n  bs_kib: 8\n  threads: 4\n"


@pytest.mark.parametrize(
    "text, field, words",
    [
        ("", None, "empty"),
        (b"\xff\xfe\x00\x01garbage", None, "UTF-8"),
        ("<html><body>502 Bad Gateway</body></html>", None, "list of workloads"),
        ("- name: A\n  pattern: [random\n", None, "YAML"),
        ("workloads: []\n", None, "no workloads"),
        ("42\n", None, "list of workloads"),
        ("- just a string\n", None, "mapping"),
        (GOOD.replace("bs_kib: 8", "bs_kib: eight"), "bs_kib", "number"),
        (GOOD.replace("bs_kib: 8", "bs_kb: 8"), "bs_kb", "did you mean 'bs_kib'"),
        (GOOD.replace("  bs_kib: 8\n", ""), "bs_kib", "required"),
        (GOOD.replace("threads: 4", "threads: 0"), "threads", "1..65536"),
        (GOOD.replace("threads: 4", "threads: true"), "threads", "whole number"),
        (GOOD.replace("threads: 4", "threads: 2.5"), "threads", "whole number"),
        (GOOD.replace("threads: 4", "iodepth: 4\n  threads: 4"), "threads", "either"),
        (GOOD.replace("threads: 4", "threads: 4\n  numjobs: 2"), "numjobs", "iodepth"),
        (GOOD.replace("pattern: random", "pattern: zigzag"), "pattern", "one of"),
        (GOOD + "  read_pct: 120\n", "read_pct", "0..100"),
        (GOOD + "  rate: fast\n", "rate", "'max'"),
        (GOOD + "  rate: [50, 150]\n", "rate", "percentages"),
        (GOOD + "  rate: .nan\n", "rate", "> 0"),
        (GOOD + "  bs_kib: 0.3\n", None, "bs_kib"),  # duplicate key: YAML keeps the last
        (GOOD + "  fill: true\n", "fill", "sequential"),
        (GOOD + "  duration_s: 10\n  interval_s: 20\n", "interval_s", "longer"),
        (GOOD + "  run_name: '{name}-{bogus}'\n", "run_name", "{threads}"),
        (GOOD + "  run_name: 'x; rm -rf /'\n", "run_name", "not a valid name"),
        (GOOD.replace("name: A", "name: 'A; rm -rf ~'"), "name", "not a valid name"),
        (GOOD.replace("name: A", "name: '$(reboot)'"), "name", "not a valid name"),
        (GOOD.replace("name: A", 'name: "a b"'), "name", "not a valid name"),
        (GOOD + GOOD, None, "used twice"),
        ("- name: A\n  pattern: random\n  bs_kib: 8\n  threads: 4\n  1: x\n", "1", "unknown"),
        ("[" * 5000, None, "YAML"),
    ],
)
def test_bad_workload_files_name_the_file_and_the_field(tmp_path, text, field, words):
    err = _load_text(tmp_path, text)
    assert words in str(err)
    if field is not None:
        assert err.field == field
        assert f"field {field!r}" in str(err)


def test_errors_name_the_workload_by_name_or_position(tmp_path):
    err = _load_text(tmp_path, GOOD + "- name: B\n  pattern: random\n  bs_kib: -1\n  threads: 1\n")
    assert err.workload == "B" and "workload 'B'" in str(err)
    err = _load_text(tmp_path, GOOD + "- pattern: random\n")
    assert err.workload == "workloads[1]"
    assert isinstance(err, AnfperfError) and isinstance(err, ValueError)


def test_missing_file_and_folder_are_workload_errors(tmp_path):
    with pytest.raises(WorkloadError, match="no such file"):
        load_workloads(tmp_path / "nope.yml")
    with pytest.raises(WorkloadError, match="folder"):
        load_workloads(tmp_path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_give_workloads_or_a_workload_error(data):
    try:
        result = load_workloads(io.BytesIO(data))
    except WorkloadError:
        return
    assert all(isinstance(w, Workload) for w in result)


def test_validation_in_python_too():
    with pytest.raises(WorkloadError, match="512-byte"):
        Workload("A", "random", 3.3, threads=1)
    with pytest.raises(WorkloadError, match="smaller than one block"):
        Workload("A", "random", 1024, threads=1, file_size_gib=0.0001)
    with pytest.raises(WorkloadError, match="load curve"):
        CATALOGUE["RndReadCurve"].replace(threads=(1, 2))
    with pytest.raises(WorkloadError, match="twice"):
        Workload("A", "random", 8, threads=(4, 4))
    w = Workload("A", "random", 8, threads=4, description="two\nlines")
    assert w.description == "two lines"


def test_get_workload_suggests_close_names():
    assert get_workload("RndRead") is CATALOGUE["RndRead"]
    with pytest.raises(WorkloadError, match="did you mean RndRead"):
        get_workload("RandRead")
    mine = Workload("RndRead", "random", 4, threads=1)
    assert get_workload("RndRead", {"RndRead": mine}) is mine


def test_sweeps_and_points():
    w = CATALOGUE["RndMix4kSweep"]
    assert w.read_pct == tuple(range(100, -1, -10)) and w.swept == ("read_pct",)
    assert [w.point_name(p) for p in w.points()][:2] == ["RndMix4kSweep-r100", "RndMix4kSweep-r90"]
    qd = CATALOGUE["RndReadQD"]
    assert [p.outstanding for p in qd.points()] == [4, 8, 16, 32, 64, 128, 256, 512]
    both = qd.replace(iodepth=(1, 2), read_pct=(100, 0))
    assert [both.point_name(p) for p in both.points()] == [
        "RndReadQD-qd1-r100",
        "RndReadQD-qd1-r0",
        "RndReadQD-qd2-r100",
        "RndReadQD-qd2-r0",
    ]


# -- issue 24, item 16: booleans are not numbers; numpy's numbers are ---------------------------

NUMBER_FIELDS = ["bs_kib", "read_pct", "threads", "iodepth", "numjobs", "warmup_s", "duration_s",
                 "interval_s", "rate", "file_size_gib"]  # fmt: skip


@pytest.mark.parametrize("as_list", [False, True], ids=["scalar", "in-a-sweep"])
@pytest.mark.parametrize("field", NUMBER_FIELDS)
def test_true_is_no_number_in_any_field(field, as_list):
    # (the spec refused these already; this keeps every numeric field covered)
    spec = {"name": "A", "pattern": "random", "bs_kib": 8, "iodepth": 4, "numjobs": 2}
    if field == "threads":
        spec = {"name": "A", "pattern": "random", "bs_kib": 8, "threads": 4}
    spec[field] = (
        [True] if as_list and field in ("read_pct", "threads", "iodepth", "rate") else True
    )
    with pytest.raises(WorkloadError, match=r"must be a (whole )?number, got True") as info:
        Workload.from_dict(spec)
    assert info.value.field == field


def test_numpy_numbers_are_numbers():
    import numpy as np

    # a sweep built in a notebook from an array; before: 'must be a whole number, got
    # np.int64(1)'
    w = Workload(name="A", pattern="random", bs_kib=np.float64(8), threads=list(np.array([1, 4])),
                 file_size_gib=np.float32(0.5), read_pct=np.int64(70))  # fmt: skip
    assert (w.threads, w.read_pct, w.bs_kib, w.file_size_gib) == ((1, 4), (70,), 8, 0.5)
    assert all(type(t) is int for t in w.threads)
    assert load_workloads(io.StringIO(dump_workloads(w))) == [w]  # plain YAML numbers
