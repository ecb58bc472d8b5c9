"""A shell loop's single runs (one fio file per queue depth) recognised as one sweep, and the
way to read them as one said in the report (anfperf.analysis.loops)."""

from __future__ import annotations

import warnings

import anfperf
from anfperf._bundled import SAMPLES
from anfperf.analysis import findings
from anfperf.analysis.loops import loop_hint, loop_hints, loop_sweeps
from anfperf.report.benchmark import runs_caption
from tests.conftest import DATA

ONEPASS = DATA / "fio_sweeps" / "qd_onepass"
DEPTHS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)


def _sweeps(frame):
    analysis = findings.analyse(frame)
    return loop_sweeps(analysis.rows, analysis.kinds), analysis


def test_a_loop_of_fio_files_is_found_and_the_report_says_how_to_read_it_as_one_run():
    (sweep,), analysis = _sweeps(anfperf.read(ONEPASS))
    assert sweep.run_ids == tuple(f"qd{d}" for d in DEPTHS)
    assert sweep.varies == "outstanding" and sweep.levels == tuple(float(d) for d in DEPTHS)
    assert sweep.kind == findings.KIND_CONCURRENCY
    assert sweep.tool == "fio" and sweep.folder.endswith("fio_sweeps/qd_onepass")
    hint = loop_hint(sweep)
    assert hint.startswith("qd1 .. qd128: 14 single fio runs in ")
    assert "differ only in outstanding I/O (1 .. 128)" in hint
    assert f"anfperf ingest {sweep.folder} --run-id qd_onepass --out store/" in hint
    assert hint in runs_caption(analysis)
    # what the hint says to do: one run id for the files makes one concurrency sweep
    (one,) = findings.analyse(anfperf.read(ONEPASS, run_id="qd_onepass")).kinds.itertuples()
    assert one.kind == findings.KIND_CONCURRENCY and one.points == len(DEPTHS)
    assert _sweeps(anfperf.read(ONEPASS, run_id="qd_onepass"))[0] == []


def test_a_loop_over_block_sizes_is_found_too_and_read_as_one_run_is_a_block_size_sweep():
    # three passes of a loop over block sizes at one queue depth: 27 single runs
    folder = DATA / "fio_sweeps" / "bs_randread"
    (sweep,), analysis = _sweeps(anfperf.read(folder))
    assert sweep.varies == "bs_kib" and sweep.kind == findings.KIND_BLOCK
    assert len(sweep.run_ids) == 27 and sweep.run_ids[:3] == ("pass1_bs4k", "pass2_bs4k",
                                                                "pass3_bs4k")  # fmt: skip
    hint = loop_hint(sweep)
    assert "27 single fio runs in " in hint
    assert "differ only in block size (4 .. 1,024 KiB): read as one run they are a block-size " \
        "sweep" in hint  # fmt: skip
    assert "--run-id bs_randread --out store/" in hint and hint in runs_caption(analysis)
    (one,) = findings.analyse(anfperf.read(folder, run_id="bs_randread")).kinds.itertuples()
    assert one.kind == findings.KIND_BLOCK


def test_nested_loops_over_counts_in_flight_and_read_shares_are_said_once_as_their_grid():
    # for qd in 1 .. 64; for r in 0 25 50 75 100: 35 single runs, 12 loops (a line or column)
    folder = DATA / "fio_sweeps" / "mix_qd" / "rand8k"
    sweeps, analysis = _sweeps(anfperf.read(folder))
    assert sorted(s.varies for s in sweeps) == ["outstanding"] * 5 + ["read_pct"] * 7
    (hint,) = loop_hints(sweeps)
    assert hint.startswith("qd1_r0 .. qd64_r100: 35 single fio runs in ")
    assert "differ in outstanding I/O (1 .. 64) and read share (0 .. 100 %): read as one run " \
        "they are a mix x concurrency grid, one mix curve per count in flight" in hint  # fmt: skip
    assert "--run-id rand8k --out store/" in hint
    caption = runs_caption(analysis)
    assert hint in caption and caption.count("anfperf ingest") == 1
    (one,) = findings.analyse(anfperf.read(folder, run_id="rand8k")).kinds.itertuples()
    assert one.kind == findings.KIND_GRID and one.points == 35
    # one loop alone is said as before
    assert loop_hints(sweeps[:1]) == [loop_hint(sweeps[0])]


def test_runs_that_are_not_one_loop_get_no_hint():
    # two block sizes at one queue depth: single runs, but two levels are no sweep
    rows = findings.analyse(anfperf.read(DATA / "fio_sweeps" / "bs_qd32"))
    few = rows.rows[rows.rows["bs_kib"] <= 8]
    assert loop_sweeps(few, rows.kinds[rows.kinds["run_id"].isin(few["run_id"])]) == []
    # the bundled samples: sweeps and single runs of different workloads and folders
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sweeps, analysis = _sweeps(anfperf.read(SAMPLES))
    assert sweeps == [] and ".." not in runs_caption(analysis)
