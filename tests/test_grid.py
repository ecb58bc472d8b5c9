"""A grid of counts in flight x read shares (fio iodepth x rwmixread, read as one run) is a run
kind of its own: one mix curve per count, not one curve through every point. Real fio runs
recorded in tests/data/fio_sweeps/mix_qd (make_mix_qd.sh)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from anfperf.analysis import findings
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


def test_the_report_shows_the_grid_as_mixes_per_count_not_as_a_scaling_chart(grid):
    charts = report_charts(grid)
    kinds = [c.kind for c in charts]
    assert kinds[0] == "mix" and "scaling" not in kinds
    mix = charts[0].figure
    assert sum(t.mode == "lines" for t in mix.data) == 7
    means = [np.median(t.y) for t in mix.data if t.mode == "markers"]
    assert means[0] < means[3] < means[6]  # more in flight, more IOPS at every mix


@pytest.mark.vdbench
def test_a_real_vdbench_forthreads_x_forrdpct_run_is_a_grid(tmp_path):
    import subprocess
    import warnings

    import anfperf
    from tests.conftest import vdbench_launcher

    launcher = vdbench_launcher()
    data = tmp_path / "data"
    data.mkdir()
    parm = tmp_path / "parm"
    parm.write_text(
        f"sd=sd1,lun={data / 'file1'},size=64m\n"
        "wd=wd1,sd=sd1,xfersize=8k,seekpct=100\n"
        "rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1,warmup=1,"
        "forthreads=(1,2,4),forrdpct=(0,50,100)\n"
    )
    out = tmp_path / "out"
    proc = subprocess.run([str(launcher), "-f", str(parm), "-o", str(out)], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
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
