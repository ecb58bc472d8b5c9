"""A grid of counts in flight x read shares (fio iodepth x rwmixread, read as one run) is a run
kind of its own: one mix curve per count, not one curve through every point. Real fio runs
recorded in tests/data/fio_sweeps/mix_qd (make_mix_qd.sh)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from anfperf.analysis import findings, summary_rows
from anfperf.analysis.grids import grid_numbers
from anfperf.ingest import read_many
from anfperf.plots import curves
from anfperf.plots.overview import report_charts

GRIDS = Path(__file__).resolve().parent / "data" / "fio_sweeps" / "mix_qd"


@pytest.fixture(scope="module")
def grid():
    return read_many(GRIDS / "rand8k", run_id="rand8k")


def test_a_grid_is_its_own_kind_and_its_parts_stay_what_they_were(grid):
    kinds = findings.run_kinds(grid)
    assert kinds["kind"].tolist() == [findings.KIND_GRID]
    assert kinds["points"].tolist() == [35]
    one_count = grid[grid["outstanding"] == 16]  # five read shares at 16 in flight
    assert findings.run_kinds(one_count)["kind"].tolist() == [findings.KIND_MIX]
    one_share = grid[grid["read_pct"] == 50]  # seven counts in flight at 50 % reads
    assert findings.run_kinds(one_share)["kind"].tolist() == [findings.KIND_CONCURRENCY]


def test_the_mix_chart_draws_one_curve_per_count_in_flight(grid):
    fig = curves.mix(grid, run_id="rand8k")
    shown = [t for t in fig.data if t.showlegend is not False]
    names = [t.name for t in shown]
    # one legend entry per count, in the counts' order, naming its model's error
    assert [n.split(" in flight")[0].split()[-1] for n in names] == [
        "1", "2", "4", "8", "16", "32", "64"
    ]  # fmt: skip
    assert names[5].endswith("32 in flight (MdAPE 0.3 %)")
    assert all(t.mode == "markers" and len(t.x) == 5 for t in shown)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert len(lines) == 7 and all(t.showlegend is False for t in lines)
    # each count's model runs through its own points: 16 in flight, pure writes 82,856 IOPS
    at16 = lines[4]
    assert at16.y[0] == pytest.approx(82_856, rel=0.05)
    assert at16.line.color == shown[4].marker.color
    assert "one mix model" not in fig.layout.title.text
    assert "lines: the mix model fitted to each sweep" in fig.layout.title.text


def test_a_count_with_one_read_share_is_said_not_drawn_and_not_fitted_with_the_others(grid):
    # the grid without 25 .. 100 % reads at 1 in flight: the lone 0 % point stays out of the
    # other counts' curves, and the chart says so
    frame = grid[~grid["job"].isin(["qd1_r25", "qd1_r50", "qd1_r75", "qd1_r100"])]
    fig = curves.mix(frame, run_id="rand8k")
    shown = [t for t in fig.data if t.showlegend is not False]
    assert [len(t.x) for t in shown] == [5] * 6 and "1 in flight" not in shown[0].name
    assert "1 point not drawn: the only read share measured at its count in flight" in (
        fig.layout.title.text
    )


def test_the_report_shows_the_grid_as_mixes_per_count_not_as_a_scaling_chart(grid):
    charts = report_charts(grid)
    kinds = [c.kind for c in charts]
    assert kinds[0] == "mix" and "scaling" not in kinds
    mix = charts[0].figure
    assert sum(t.mode == "lines" for t in mix.data) == 7
    means = [np.median(t.y) for t in mix.data if t.mode == "markers"]
    assert means[0] < means[3] < means[6]  # more in flight, more IOPS at every mix


def test_each_read_share_of_a_grid_is_read_as_the_concurrency_sweep_it_is(grid):
    rows = summary_rows(grid)
    per_mix = grid_numbers(rows, lat_slo_ms=0.3)
    assert per_mix["read_pct"].tolist() == [0, 25, 50, 75, 100]
    assert per_mix["points"].tolist() == [7] * 5
    # the measured peaks: pure writes 127,345 IOPS at 64 in flight, the 50 % mix 82,846 at 32
    assert per_mix["peak_iops"].round().tolist() == [127345, 97313, 82846, 74580, 68454]
    assert per_mix["outstanding_at_peak"].tolist() == [64, 32, 32, 32, 64]
    # as a concurrency sweep of its own: the 50 % mix's points alone give the same numbers
    alone = findings.key_numbers(rows[rows["read_pct"] == 50], lat_slo_ms=0.3).iloc[0]
    assert alone["kind"] == findings.KIND_CONCURRENCY
    for col in ("knee_iops", "iops_at_slo_measured", "iops_at_slo_model"):
        assert per_mix.loc[2, col] == pytest.approx(alone[col])
    # 0.3 ms lies within every mix's measured latencies: a measured answer for each
    assert per_mix["iops_at_slo_measured"].notna().all()
    assert (per_mix["iops_at_slo_measured"] < per_mix["peak_iops"]).all()


def test_the_report_lists_each_read_share_of_a_grid(grid):
    from anfperf.report.benchmark import grid_table

    shown = grid_table(summary_rows(grid), "rand8k", lat_slo_ms=0.3)
    cells = shown.cells
    assert list(cells.columns)[:3] == ["Reads [%]", "Block size [KiB]", "Peak IOPS"]
    assert cells["Peak IOPS"].tolist()[2] == "82,846"
    assert cells["In flight at peak"].tolist() == ["64", "32", "32", "32", "64"]
    assert "IOPS at 0.3 ms (measured)" in cells.columns


@pytest.mark.vdbench
def test_a_real_vdbench_forthreads_x_forrdpct_run_is_a_grid(tmp_path):
    import warnings

    import anfperf
    from tests.conftest import run_vdbench_parm

    out = run_vdbench_parm(
        tmp_path,
        "wd=wd1,sd=sd1,xfersize=8k,seekpct=100\n"
        "rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1,warmup=1,"
        "forthreads=(1,2,4),forrdpct=(0,50,100)\n",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read(out)
    (kind,) = findings.run_kinds(frame).itertuples()
    assert kind.kind == findings.KIND_GRID and kind.points == 9
    fig = curves.mix(frame, run_id=kind.run_id)
    shown = [t.name for t in fig.data if t.showlegend is not False]
    # one workload (wd1) at three thread counts: each named by its count, in the counts' order
    assert [n.split(" (MdAPE")[0] for n in shown] == [
        f"{kind.run_id} / 8 KiB random {n} in flight" for n in (1, 2, 4)
    ]
