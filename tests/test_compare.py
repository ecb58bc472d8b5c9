"""Run A vs run B on the real A/B pair (O_DIRECT vs page cache) and on runs made from it."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import anfperf
from anfperf import compare
from anfperf.errors import AnfperfError
from anfperf.plots.compare import VERDICT_COLORS, compare_chart
from tests.conftest import TESTS

AB = TESTS.parent / "data" / "samples" / "vdbench" / "ab"


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many([AB])


def flatfile_intervals(run: str, rd: str) -> np.ndarray:
    """Rate of the measured (non-warm-up) intervals of one rd, from the summary.html lines."""
    text = re.sub(r"<[^>]+>", "", (AB / run / "summary.html").read_text())
    block = text.split(f"Starting RD={rd};")[1].split("avg_")[0]
    rows = re.findall(r"^\S+\s+(\d+)\s+([\d.]+)", block, flags=re.M)
    return np.array([float(r) for i, r in rows if int(i) > 4])  # warmup=4


def test_default_runs_are_the_first_two_by_start(frame):
    assert compare.pick_runs(frame) == ("A-direct", "B-buffered")
    assert compare.pick_runs(frame, run_a="B-buffered") == ("B-buffered", "A-direct")
    with pytest.raises(AnfperfError, match="run 'C' is not in the data"):
        compare.pick_runs(frame, "C")
    with pytest.raises(AnfperfError, match="are the same run"):
        compare.pick_runs(frame, "A-direct", "A-direct")


def test_page_cache_beats_o_direct_on_every_shared_workload(frame):
    table = compare.compare_runs(frame, "A-direct", "B-buffered")
    assert sorted(set(table["workload"])) == ["RndMix", "RndRead", "SeqRead"]  # SD_format: A only
    rnd = table.set_index(["workload", "metric"]).loc[("RndRead", "iops")]
    a, b = flatfile_intervals("A-direct", "RndRead"), flatfile_intervals("B-buffered", "RndRead")
    assert (rnd["a_mean"], rnd["b_mean"]) == pytest.approx((a.mean(), b.mean()), rel=1e-6)
    assert rnd["diff_pct"] == pytest.approx(100 * (b.mean() - a.mean()) / a.mean(), rel=1e-6)
    assert rnd["intervals_a"] == a.size == 16
    assert rnd["ci_low_pct"] < rnd["diff_pct"] < rnd["ci_high_pct"]
    assert set(table["verdict"]) == {"better"}  # higher rates and lower latency alike


def test_same_run_under_two_names_shows_no_difference_and_a_real_change_shows(frame):
    a = frame[frame["run_id"] == "A-direct"]
    twin = a.assign(run_id="A-again")
    table = compare.compare_runs(pd.concat([a, twin]), "A-direct", "A-again")
    assert (table["diff"] == 0).all()
    assert set(table["verdict"]) == {"no significant difference"}
    # 8 % more IOPS on RndRead only: seen there, and only there
    faster = twin.assign(iops=np.where(twin["job"] == "RndRead", twin["iops"] * 1.08, twin["iops"]))
    table = compare.compare_runs(pd.concat([a, faster]), "A-direct", "A-again", metrics=["iops"])
    verdicts = table.set_index("workload")["verdict"].to_dict()
    assert verdicts == {"RndMix": "no significant difference", "RndRead": "better",
                        "SeqRead": "no significant difference"}  # fmt: skip
    assert table.set_index("workload").loc["RndRead", "diff_pct"] == pytest.approx(8.0)
    # a latency going up is worse
    slower = twin.assign(lat_mean_ms=twin["lat_mean_ms"] * 1.5)
    table = compare.compare_runs(
        pd.concat([a, slower]), "A-direct", "A-again", metrics=["lat_mean_ms"]
    )
    assert set(table["verdict"]) == {"worse"}


def test_runs_without_intervals_or_shared_workloads_are_clear_errors(frame):
    with pytest.raises(AnfperfError, match="share no workload"):
        compare.compare_runs(
            pd.concat([frame, frame.assign(run_id="X", job="other")]), "A-direct", "X"
        )
    with pytest.raises(AnfperfError, match="unknown metric"):
        compare.compare_runs(frame, "A-direct", "B-buffered", metrics=["speed"])
    short = frame[~((frame["run_id"] == "B-buffered") & (frame["interval"] > 7))]
    table = compare.compare_runs(short, "A-direct", "B-buffered", metrics=["iops"])
    assert set(table["verdict"]) == {"insufficient data"}  # 3 measured intervals left
    assert table["ci_low_pct"].isna().all()


def test_chart_has_one_panel_per_metric_with_the_intervals(frame):
    table = compare.compare_runs(frame, "A-direct", "B-buffered")
    fig = compare_chart(table, run_a="A-direct", run_b="B-buffered")
    assert [a.text for a in fig.layout.annotations][:3] == ["IOPS", "MiB/s", "mean latency [ms]"]
    assert fig.layout.xaxis.title.text == "B-buffered vs A-direct [%]"
    (trace, *_) = [t for t in fig.data if t.xaxis == "x"]
    assert trace.marker.color == VERDICT_COLORS["better"]
    rows = table[table["metric"] == "iops"].set_index("workload").loc[list(trace.y)]
    assert list(trace.x) == pytest.approx(rows["diff_pct"].tolist())
    assert list(np.asarray(trace.x) + trace.error_x.array) == pytest.approx(
        rows["ci_high_pct"].tolist()
    )
    assert compare.sentences(table, "A-direct", "B-buffered")[0].startswith(
        "RndMix, B-buffered vs A-direct: IOPS +"
    )
