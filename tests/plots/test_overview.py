"""report_charts: which charts apply, in what order, and what it computes once."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from anfperf.analysis import findings, inputs
from anfperf.analysis.sweep import summary_rows
from anfperf.plots import overview
from tests.conftest import TESTS

SAMPLES = TESTS.parent / "data" / "samples"


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return inputs.load_inputs([SAMPLES], notes=[])


@pytest.fixture(scope="module")
def charts(frame):
    return overview.report_charts(frame, fio_logs=inputs.fio_log_paths([SAMPLES]))


def runs_in_order(charts) -> list[str]:
    return list(dict.fromkeys(c.run_id for c in charts))


def test_charts_come_run_by_run_sweeps_first_key_chart_first(frame, charts):
    kinds = findings.run_kinds(frame).set_index("run_id")["kind"]
    order = runs_in_order(charts)
    # grouped: each run's charts together
    assert [c.run_id for c in charts] == sorted((c.run_id for c in charts), key=order.index)
    ranks = [overview.RUN_ORDER.index(kinds[r]) for r in order]
    assert ranks == sorted(ranks) and ranks[0] == 0  # concurrency sweeps lead
    for run_id in order:
        kinds_drawn = [c.kind for c in charts if c.run_id == run_id]
        wanted = list(overview.CHART_KINDS)
        assert kinds_drawn == sorted(kinds_drawn, key=wanted.index)
    qd = [c for c in charts if c.run_id == "qd_sweep_randread4k"]
    assert [c.heading for c in qd] == [
        "Latency vs throughput", "Scaling with concurrency", "Latency distribution",
        "Latency over time (fio logs)",
    ]  # fmt: skip
    # every drawn chart names its run in the title; headings do not repeat it
    for c in charts:
        assert c.run_id not in c.heading
        if c.figure is not None:
            assert c.run_id in c.figure.layout.title.text, c


def test_a_chart_with_nothing_worth_drawing_is_one_line(charts):
    notes = {(c.run_id, c.kind): c.note for c in charts if c.figure is None}
    # SeqWrite: 3 concurrencies the USL fits with R² < 0: its points are on the scaling chart
    assert notes[("SeqWrite", "latency_curve")].startswith("no curve drawn: it fits poorly (R²")
    # the sweep's fio logs span 3 windows of 0.25 s each
    assert "too short" in notes[("qd_sweep_randread4k", "latency_over_time")]
    assert all("\n" not in n and n for n in notes.values())
    scaling = next(c for c in charts if c.run_id == "SeqWrite" and c.kind == "scaling")
    # points without a curve are still a chart: why the curve is missing is under the title
    assert "no fitted curve: 3 concurrencies (4 needed)" in scaling.figure.layout.title.text


def test_axes_read_well(charts):
    by = {(c.run_id, c.kind): c.figure for c in charts if c.figure is not None}
    # queue depths on a log2 axis labelled 1, 2, 4, ...
    x = by[("qd_sweep_randread4k", "scaling")].layout.xaxis
    assert x.type == "log" and list(x.ticktext[:4]) == ["1", "2", "4", "8"]
    assert list(x.tickvals[:4]) == [1, 2, 4, 8]
    # 64 KiB sequential runs in MiB/s
    assert by[("SeqWrite", "scaling")].layout.yaxis.title.text == "Throughput [MiB/s]"
    assert by[("SeqWrite", "intervals")].layout.yaxis.title.text == "Throughput [MiB/s]"
    assert by[("MultiHostSeqMix", "host_bars")].layout.yaxis.title.text == "Throughput [MiB/s]"
    assert by[("qd_sweep_randread4k", "scaling")].layout.yaxis.title.text == "Throughput [IOPS]"
    # distributions: the tail on a log axis, the run in the title
    for key in (("A-direct", "latency_cdf"), ("qd_sweep_randread4k", "latency_cdf")):
        fig = by[key]
        assert fig.layout.yaxis.type == fig.layout.xaxis.type == "log"
        assert "99.9" in fig.layout.yaxis.ticktext
    # legends fit: at most LEGEND_BESIDE entries beside the plot, more under it
    for fig in by.values():
        names = [t.name for t in fig.data if t.showlegend is not False and t.name]
        if len(names) > 6:
            assert fig.layout.legend.orientation == "h"
        assert fig.layout.showlegend is not False


def test_what_the_report_has_computed_is_not_computed_again(frame, charts, monkeypatch):
    rows = summary_rows(frame)
    kinds = findings.run_kinds(frame)
    numbers = findings.key_numbers(frame)
    # a run served from a client cache goes last, whatever its kind
    kinds = kinds.assign(cached=kinds["cached"] | kinds["run_id"].eq("qd_sweep_randread4k"))
    cached = set(kinds.loc[kinds["cached"], "run_id"])

    def refuse(*args, **kwargs):
        raise AssertionError("computed again")

    for module in (overview, overview.curves):
        monkeypatch.setattr(module, "summary_rows", refuse, raising=False)
    monkeypatch.setattr(findings, "run_kinds", refuse)
    monkeypatch.setattr(findings, "key_numbers", refuse)
    again = overview.report_charts(
        frame, fio_logs=inputs.fio_log_paths([SAMPLES]), rows=rows, kinds=kinds, numbers=numbers
    )
    order = runs_in_order(again)
    assert set(order[-len(cached) :]) == cached and "qd_sweep_randread4k" in cached
    assert order[: -len(cached)] == [r for r in runs_in_order(charts) if r not in cached]
    # the same charts as when report_charts worked everything out itself
    same = {(c.run_id, c.kind): c for c in charts}
    for c in again:
        before = same[(c.run_id, c.kind)]
        assert (c.figure is None) == (before.figure is None) and c.note == before.note
        if c.figure is not None:
            assert c.figure.layout.title.text == before.figure.layout.title.text
            assert [t.name for t in c.figure.data] == [t.name for t in before.figure.data]
    assert isinstance(again[0], overview.Chart) and again[0].kind == "latency_curve"
    assert isinstance(kinds, pd.DataFrame)
