"""The A/B chart: one panel per metric, the % difference with its interval, verdict colours."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import anfperf
from anfperf.analysis import compare
from anfperf.errors import AnfperfError
from anfperf.plots import compare_chart
from anfperf.plots._style import BETTER_COLOR, SAME_COLOR, WORSE_COLOR
from anfperf.plots.compare import VERDICT_COLORS
from tests.conftest import TESTS

AB = TESTS.parent / "data" / "samples" / "vdbench" / "ab"


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many([AB])


@pytest.fixture(scope="module")
def mixed(frame):
    """A against a copy of itself with RndRead 20 % faster and SeqRead 20 % slower."""
    a = frame[frame["run_id"] == "A-direct"]
    # and a workload with whole-run values only (no intervals to compare)
    whole = a[(a["job"] == "RndMix") & a["interval"].isna()]
    a = pd.concat([a, whole.assign(job="Summed", workload="Summed")], ignore_index=True)
    factor = np.select([a["job"] == "RndRead", a["job"] == "SeqRead"], [1.2, 1 / 1.2], 1.0)
    b = a.assign(run_id="B", iops=a["iops"] * factor, bw_mib_s=a["bw_mib_s"] * factor)
    return compare.compare_runs(pd.concat([a, b]), "A-direct", "B", metrics=["iops", "bw_mib_s"])


def traces(fig, axis="x"):
    return {t.name: t for t in fig.data if t.xaxis == axis}


def test_one_panel_per_metric_with_the_differences_and_their_intervals(frame):
    table = compare.compare_runs(frame, "A-direct", "B-buffered")
    fig = compare_chart(table, run_a="A-direct", run_b="B-buffered")
    titles = [a.text for a in fig.layout.annotations]
    assert titles[:3] == ["IOPS", "MiB/s", "mean latency [ms]"]
    for axis in ("xaxis", "xaxis2", "xaxis3"):
        assert fig.layout[axis].title.text == "B-buffered vs A-direct [%]"
    assert fig.layout.yaxis.title.text == "Workload"
    for axis, metric in (("x", "iops"), ("x2", "bw_mib_s"), ("x3", "lat_mean_ms")):
        (trace,) = traces(fig, axis).values()  # one verdict: better everywhere
        assert trace.name == "better" and trace.marker.color == BETTER_COLOR
        rows = table[table["metric"] == metric].set_index("workload").loc[list(trace.y)]
        assert list(trace.x) == pytest.approx(rows["diff_pct"].tolist())
        assert list(np.add(trace.x, trace.error_x.array)) == pytest.approx(
            rows["ci_high_pct"].tolist()
        )
        assert list(np.subtract(trace.x, trace.error_x.arrayminus)) == pytest.approx(
            rows["ci_low_pct"].tolist()
        )
    # the workloads top to bottom in the table's order
    assert list(fig.layout.yaxis.categoryarray) == ["SeqRead", "RndMix", "RndRead"]


def test_points_are_coloured_by_verdict(mixed):
    fig = compare_chart(mixed)
    assert fig.layout.xaxis.title.text == "B vs A [%]"
    for axis in ("x", "x2"):
        by_verdict = traces(fig, axis)
        assert set(by_verdict) == set(VERDICT_COLORS)
        assert list(by_verdict["insufficient data"].y) == ["Summed"]
        assert list(by_verdict["better"].y) == ["RndRead"]
        assert list(by_verdict["worse"].y) == ["SeqRead"]
        assert list(by_verdict["no significant difference"].y) == ["RndMix"]
        assert by_verdict["better"].x[0] == pytest.approx(20.0)
        assert by_verdict["worse"].x[0] == pytest.approx(100 * (1 / 1.2 - 1))
        assert by_verdict["worse"].marker.color == WORSE_COLOR
        assert by_verdict["no significant difference"].marker.color == SAME_COLOR
    # one legend entry per verdict, not one per panel
    assert sum(bool(t.showlegend) for t in fig.data) == len(VERDICT_COLORS)


def test_whole_run_values_are_drawn_without_an_interval(frame):
    no_intervals = frame[~((frame["run_id"] == "A-direct") & frame["interval"].notna())]
    table = compare.compare_runs(no_intervals, "A-direct", "B-buffered", metrics=["iops"])
    (trace,) = compare_chart(table).data
    assert trace.name == "insufficient data"
    assert trace.marker.color == VERDICT_COLORS["insufficient data"]
    assert trace.marker.symbol == "circle-open"
    assert list(trace.x) == pytest.approx(table["diff_pct"].tolist())
    assert not np.any(trace.error_x.array) and not np.any(trace.error_x.arrayminus)


def test_the_same_table_gives_the_same_chart(mixed):
    assert compare_chart(mixed).to_json() == compare_chart(mixed).to_json()


def test_an_empty_or_foreign_table_is_an_error(mixed):
    with pytest.raises(AnfperfError, match="nothing to plot: no workload compared"):
        compare_chart(mixed.iloc[0:0])
    with pytest.raises(AnfperfError, match=r"not a compare_runs table.*'verdict'"):
        compare_chart(mixed.drop(columns="verdict"))


def test_workload_names_are_shown_as_written():
    """Job names come from the tool's output: plotly would act on <a>, <i>, <b> in tick
    labels; they are entities, which it draws as the characters."""
    table = pd.DataFrame({
        "workload": ['<a href="javascript:alert(1)">rd</a>', "RndRead"], "metric": ["iops"] * 2,
        "diff_pct": [1.0, 2.0], "ci_low_pct": [0.5, 1.0], "ci_high_pct": [1.5, 3.0],
        "verdict": ["better", "worse"],
    })  # fmt: skip
    fig = compare_chart(table, run_a="A", run_b="B")
    ticks = list(fig.layout.yaxis.categoryarray)
    assert ticks == ["RndRead", '&lt;a href="javascript:alert(1)"&gt;rd&lt;/a&gt;']
    assert all("<" not in str(y) for trace in fig.data for y in trace.y)
