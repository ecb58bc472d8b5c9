"""Block-size sweeps read as each I/O's costs (anfperf.analysis.blocks): real fio loops read as
one run, a public Vdbench run of four sweeps; the report's steps in block-size order."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import anfperf
from anfperf.analysis import findings, summary_rows
from anfperf.analysis.blocks import block_notes, block_reading, block_sweeps
from anfperf.errors import ModelError
from anfperf.report.benchmark import steps_table
from tests.conftest import DATA, PUBLIC, require_corpus

SWEEPS = DATA / "fio_sweeps"


def public_v13():
    """The public Vdbench run of four block-size sweeps (../shared/corpus, read in place)."""
    path = require_corpus(PUBLIC / "vdbench" / "v13_flatfile.html")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read(path)


def _run(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read(SWEEPS / name, run_id=name)


def test_a_loop_over_block_sizes_read_as_one_run_is_a_block_size_sweep():
    # three passes of random reads at queue depth 16, 4 KiB .. 1 MiB (make_bs_sweeps.sh)
    analysis = findings.analyse(_run("bs_randread"))
    (kind,) = analysis.kinds.itertuples()
    assert kind.kind == findings.KIND_BLOCK and kind.points == 27
    reading = block_reading(analysis.rows)
    assert reading.bs_kib.tolist() == [4, 8, 16, 32, 64, 128, 256, 512, 1024]
    # the median of each size's three passes, straight from fio's JSON
    assert reading.iops[0] == pytest.approx(67_094, abs=1)
    assert reading.mib_s[4] == pytest.approx(985.9, abs=0.1)
    # the MiB/s peaked at 64 KiB and fell 14 % by 1 MiB: the costs are the line up to 64 KiB
    assert reading.peak_bs_kib == 64 and reading.fall == pytest.approx(0.1405, abs=1e-3)
    assert reading.fit["op_us"] == pytest.approx(11.62, abs=0.01)
    assert reading.fit["bw_mib_s"] == pytest.approx(1217.6, abs=0.1)
    assert reading.crossover_kib == pytest.approx(14.49, abs=0.01)
    notes = analysis.numbers["notes"].iloc[0]
    assert notes.startswith("each I/O costs 11.6 us plus 0.802 us per KiB (at most 86,022 IOPS")
    assert "operations take most of the time below 14.5 KiB and bytes above" in notes
    assert "peaked at 986 at 64 KiB and fell 14% by 1024 KiB" in notes


def test_the_costs_of_a_sweep_that_fell_are_those_of_its_sizes_up_to_the_peak():
    # random writes at queue depth 16: 2,513 MiB/s at 128 KiB, then 2,201 .. 1,616 .. 1,773
    rows = summary_rows(_run("bs_randwrite"))
    whole, rising = block_reading(rows), block_reading(rows[rows["bs_kib"] <= 128])
    assert whole.peak_bs_kib == 128 and whole.fall == pytest.approx(0.2945, abs=1e-3)
    assert rising.fall == 0 and not any("fell" in note for note in rising.notes)
    assert dict(whole.fit) == pytest.approx(dict(rising.fit))
    assert whole.fit["op_us"] == pytest.approx(15.44, abs=0.01)
    assert whole.fit["bw_mib_s"] == pytest.approx(3932.4, abs=0.1)
    # through the fallen sizes too, the line would say another byte rate
    from anfperf.models.curves.op_cost import fit_op_cost

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        every = fit_op_cost(whole.bs_kib, whole.iops)
    assert every["bw_mib_s"] < 0.8 * whole.fit["bw_mib_s"]


def test_a_run_of_four_block_size_sweeps_reads_each_apart():
    frame = public_v13()
    rows = summary_rows(frame)
    sweeps = block_sweeps(rows)
    assert [s.label for s in sweeps] == [
        "random, 0 % read", "random, 100 % read", "sequential, 0 % read", "sequential, 100 % read",
    ]  # fmt: skip
    # random writes: the 'various' step at 512 bytes joins them (same pattern, share, threads)
    assert sorted(sweeps[0].rows["bs_kib"]) == [0.5, 4, 8, 16, 32, 64, 128, 512, 1024, 2048]
    seq_read = block_reading(sweeps[3].rows)
    assert seq_read.peak_bs_kib == 1024 and seq_read.fall == pytest.approx(1 - 152.22 / 300.11,
                                                                           abs=1e-3)  # fmt: skip
    notes = block_notes(rows)
    assert sum(n.startswith("sequential, 100 % read: ") for n in notes) == 2
    assert findings.run_kinds(frame)["kind"].tolist() == [findings.KIND_BLOCK]


def test_no_sweep_no_reading():
    rows = summary_rows(_run("bs_qd32"))
    with pytest.raises(ModelError, match="two or more block sizes"):
        block_reading(rows[rows["bs_kib"] == 64])
    assert block_sweeps(rows[rows["bs_kib"] <= 8]) == []  # two sizes are no sweep
    # a concurrency sweep at one block size is not one either
    onepass = findings.analyse(_run("qd_onepass"))
    assert onepass.kinds["kind"].tolist() == [findings.KIND_CONCURRENCY]


def test_the_steps_of_a_loop_run_are_listed_by_block_size():
    # one file per size, each job named alike: as text the files sort bs1024k, bs128k, bs16k..
    rows = summary_rows(_run("bs_qd32"))
    shown = steps_table(rows, "bs_qd32").cells["Block size [KiB]"]
    assert shown.tolist() == ["4", "8", "16", "32", "64", "128", "256", "512", "1,024"]


@pytest.mark.vdbench
def test_a_real_vdbench_xfersize_sweep_is_a_block_size_sweep(tmp_path):
    from tests.conftest import run_vdbench_parm

    out = run_vdbench_parm(
        tmp_path,
        "wd=wd1,sd=sd1,rdpct=100,seekpct=100\n"
        "rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1,warmup=1,threads=4,"
        "forxfersize=(4k,16k,64k,256k)\n",
        timeout_s=180,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analysis = findings.analyse(anfperf.read(out))
    (kind,) = analysis.kinds.itertuples()
    assert kind.kind == findings.KIND_BLOCK and kind.points == 4
    reading = block_reading(analysis.rows)
    assert reading.bs_kib.tolist() == [4, 16, 64, 256]
    assert reading.fit is not None and reading.fit["bw_mib_s"] > 0
    assert analysis.numbers["notes"].iloc[0].startswith("each I/O costs ")


def test_a_sweep_whose_iops_rise_with_block_size_has_no_costs_and_says_why():
    # the public run's random reads: 55, 56, 70 and 172 IOPS at 4 .. 32 KiB (a cold device)
    frame = public_v13()
    rows = summary_rows(frame)
    reads = rows[rows["job"].str.fullmatch(r"ran_read_(4|8|16|32)k")]
    reading = block_reading(reads)
    assert reading.iops.round().tolist() == [55, 56, 70, 172]
    assert reading.fit is None and np.isnan(reading.crossover_kib) and reading.costs_text() == ""
    assert reading.notes == (
        "no per-operation cost fitted: the sweep does not slow down with block size: no byte "
        "rate to fit",
    )


def test_rows_alike_group_in_first_row_order_with_a_missing_value_as_one():
    from anfperf.analysis.sweep import alike

    rows = summary_rows(public_v13())
    groups = alike(rows, ["pattern", "read_pct", "no_such_column"])
    assert [key for key, _ in groups] == [
        ("random", 0.0), ("random", 100.0), ("sequential", 0.0), ("sequential", 100.0),
    ]  # fmt: skip
    assert sum(len(g) for _, g in groups) == len(rows) == 38
    blank = rows.assign(read_pct=np.where(rows["pattern"] == "random", np.nan, rows["read_pct"]))
    assert [key for key, _ in alike(blank, ["read_pct"])] == [("",), (0.0,), (100.0,)]
    assert alike(rows, ["no_such_column"])[0][0] == () and len(alike(rows, [])) == 1
