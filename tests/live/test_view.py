"""The notebook's live view of a record made from real fio output (tests/data/fio_live/live.jsonl,
recorded by its make_live_record.py: three fio processes as three hosts, one held to 2,000 IOPS,
two steps, its slow alarms): traces equal to the record's intervals, updated in place as it grows;
the static figure with its titles, units, legend, steps and alarms."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
import shutil
import time

import pytest

from anfperf.errors import AnfperfError
from anfperf.live import LIVE_LOG_NAME, LiveLog, LiveView, fio_intervals, live_figure, watch
from anfperf.live.view import MIN_SPAN_S
from tests.conftest import DATA, require

LIVE = DATA / "fio_live"
RUN_ID = "20261128T124300Z-RndRead"
RECORD = [json.loads(line) for line in (LIVE / LIVE_LOG_NAME).read_text().splitlines()]


@pytest.fixture
def run_dir(tmp_path):
    """A run folder, no record in it yet."""
    folder = tmp_path / RUN_ID
    folder.mkdir()
    return folder


def append(run_dir, records) -> None:
    with open(run_dir / LIVE_LOG_NAME, "a") as file:
        file.writelines(json.dumps(r) + "\n" for r in records)


def drawn(records, host: str) -> list[dict]:
    """The host's intervals a view draws: those of a full interval, in order."""
    return [
        r for r in records
        if r["kind"] == "interval" and r["host"] == host and r["span_s"] >= MIN_SPAN_S
    ]  # fmt: skip


def traces(fig) -> dict[str, list]:
    """Name -> its traces with data, in order (a host's IOPS then its latency)."""
    out: dict[str, list] = {}
    for trace in fig.data:
        if trace.x:
            out.setdefault(trace.name, []).append(trace)
    return out


def values(trace) -> list[float]:
    return [y for y in trace.y if y is not None]


def test_the_record_is_real_fio_output_with_a_slow_host_and_its_alarms():
    kinds = [r["kind"] for r in RECORD]
    assert kinds[0] == "step" and RECORD[-1] == {**RECORD[-1], "kind": "run", "status": "complete"}
    assert {r["host"] for r in RECORD if r["kind"] == "interval"} == {"vm01", "vm02", "vm03"}
    alarms = [r for r in RECORD if r["kind"] == "alarm"]
    assert {(a["alarm"], a["host"]) for a in alarms} == {("slow", "vm03")}
    assert all(1900 < r["iops"] < 2100 for r in drawn(RECORD, "vm03"))  # its --rate_iops


def test_poll_updates_the_traces_in_place_with_the_intervals_iops(run_dir):
    half = RECORD.index(next(r for r in RECORD if r["kind"] == "step" and r["step"] == 1))
    view = LiveView(run_dir)
    figure = view.figure
    assert "Waiting for the run's first figures" in figure.layout.title.text
    assert traces(figure) == {}
    append(run_dir, RECORD[:half])
    assert view.poll() == half
    assert view.figure is figure  # in place
    for host in ("vm01", "vm02", "vm03"):
        (iops, lat) = next(t for name, t in traces(figure).items() if name.startswith(host))
        assert list(iops.y) == [r["iops"] for r in drawn(RECORD[:half], host)]
        assert list(lat.y) == [r["lat_mean_ms"] for r in drawn(RECORD[:half], host)]
    assert "Running RndRead QD1 (step 1)" in figure.layout.title.text
    assert view.ended is None
    append(run_dir, RECORD[half:])
    assert view.poll() == len(RECORD) - half and view.poll() == 0
    assert view.figure is figure and view.ended == "complete"
    t0 = RECORD[0]["wall"]
    for host in ("vm01", "vm02", "vm03"):
        (iops, _) = next(t for name, t in traces(figure).items() if name.startswith(host))
        assert values(iops) == [r["iops"] for r in drawn(RECORD, host)]
        xs = [x for x in iops.x if x is not None]
        assert xs == [round(r["wall"] - t0, 3) for r in drawn(RECORD, host)]
        assert iops.x.count(None) == 1  # the gap between the two steps
    assert "Ended complete after" in figure.layout.title.text


def test_the_fleet_line_sums_each_round_and_weights_the_latency_by_iops(run_dir):
    append(run_dir, RECORD)
    view = LiveView(run_dir)
    fleet_iops, fleet_lat = traces(view.figure)["fleet (3 hosts)"]
    rounds_iops, rounds_lat = [], []
    for step in (0, 1):
        per_host = [drawn([r for r in RECORD if r.get("step") == step], h)
                    for h in ("vm01", "vm02", "vm03")]  # fmt: skip
        for members in zip(*per_host, strict=True):  # the hosts report together
            rounds_iops.append(sum(m["iops"] for m in members))
            weight = sum(m["iops"] for m in members)
            rounds_lat.append(sum(m["iops"] * m["lat_mean_ms"] for m in members) / weight)
    assert values(fleet_iops) == pytest.approx(rounds_iops)
    assert values(fleet_lat) == pytest.approx(rounds_lat)


def test_a_round_is_drawn_once_every_host_sent_it(run_dir):
    start, *rest = (r for r in RECORD if r.get("step") == 0)
    first = [r for r in rest if r["kind"] == "interval"][:3]  # each host's first interval
    assert {r["host"] for r in first} == {"vm01", "vm02", "vm03"}
    append(run_dir, [start, *first[:2]])
    view = LiveView(run_dir)
    assert "fleet (3 hosts)" not in traces(view.figure)  # the third host not heard yet
    append(run_dir, first[2:])
    view.poll()
    (fleet, _) = traces(view.figure)["fleet (3 hosts)"]
    assert list(fleet.y) == [pytest.approx(sum(r["iops"] for r in first))]
    assert list(fleet.x) == [round(max(r["wall"] for r in first) - start["wall"], 3)]


def test_live_figure_of_a_real_record(run_dir):
    shutil.copy(LIVE / LIVE_LOG_NAME, run_dir)
    fig = live_figure(run_dir)
    title = fig.layout.title.text
    assert title.startswith(f"Run {RUN_ID}: IOPS and mean latency, the fleet and each host")
    assert "Ended complete after 17 s" in title or "Ended complete after 18 s" in title
    assert "The fleet: 3 hosts, its IOPS their sum, its latency theirs weighted by IOPS<" in title
    assert "2 alarms marked" in title
    assert fig.layout.yaxis.title.text == "Fleet [IOPS]"
    assert fig.layout.yaxis2.title.text == "Per host [IOPS]"
    assert fig.layout.yaxis3.title.text == "Mean latency [ms]"
    assert fig.layout.xaxis3.title.text == "Time since the run started [s]"
    legend = [t.name for t in fig.data if t.showlegend]
    assert legend == ["vm03 (slowest)", "vm01", "vm02", "fleet (3 hosts)", "alarms"] or (
        legend == ["vm03 (slowest)", "vm02", "vm01", "fleet (3 hosts)", "alarms"]
    )
    assert all(t.x for t in fig.data)  # no empty slot left
    # a dashed line and the name at each step's start
    t0 = RECORD[0]["wall"]
    starts = {r["name"]: round(r["wall"] - t0, 3) for r in RECORD
              if r["kind"] == "step" and r["event"] == "start"}  # fmt: skip
    assert [(s.x0, s.line.dash) for s in fig.layout.shapes] == [
        (x, "dash") for x in starts.values()
    ]
    names = {a.text: a.x for a in fig.layout.annotations if a.yref == "paper"}
    assert names == starts
    # the alarms: marks on the hosts' row, where vm03 was, labelled
    (marks,) = [t for t in fig.data if t.name == "alarms"]
    assert marks.yaxis == "y2" and len(marks.x) == 2
    assert all(1900 < y < 2100 for y in marks.y)
    assert all("vm03: " in text and "below the fleet median" in text for text in marks.hovertext)
    labels = [a.text for a in fig.layout.annotations if a.yref == "y2"]
    assert labels == ["slow vm03", "slow vm03"]


def test_many_hosts_fold_into_the_fleet_line_the_title_says_so(run_dir):
    intervals = list(fio_intervals("vm", [(LIVE / "randread_1job.json").read_bytes()]))
    with LiveLog(run_dir) as record:
        record.step(0, "RndRead", "start")
        for interval in intervals:
            for n in range(1, 8):  # vm1 slowest ... vm7 fastest
                record.interval(0, dataclasses.replace(interval, host=f"vm{n}",
                                                       iops=interval.iops * n))  # fmt: skip
        record.end("complete")
    fig = live_figure(run_dir, hosts_shown=3)
    names = [t.name for t in fig.data if t.showlegend]
    assert names == ["vm1 (slowest)", "vm2", "vm7", "fleet (7 hosts)"]
    assert "The fleet: 7 hosts" in fig.layout.title.text
    assert "3 hosts drawn, the 2 slowest and 1 fastest by mean IOPS" in fig.layout.title.text
    (fleet, _) = traces(fig)["fleet (7 hosts)"]
    full = [i for i in intervals if i.span_s >= MIN_SPAN_S]
    assert values(fleet) == pytest.approx([i.iops * 28 for i in full])  # 1 + 2 + ... + 7


def test_names_from_the_record_are_shown_as_written(run_dir):
    append(run_dir, [
        {**RECORD[0], "name": "<b>bold</b> & co"},
        *({**r, "host": "<i>vm</i>"} for r in RECORD[1:4] if r["kind"] == "interval"),
    ])  # fmt: skip
    fig = live_figure(run_dir)
    assert "<i>" not in json.dumps(fig.to_plotly_json()["data"])
    assert any(a.text == "&lt;b&gt;bold&lt;/b&gt; &amp; co" for a in fig.layout.annotations)
    assert "No end recorded" in fig.layout.title.text


def test_no_record_is_a_sentence_not_an_empty_frame(tmp_path):
    view = LiveView(tmp_path / "not-started")
    assert [a.text for a in view.figure.layout.annotations] == [
        "No interval figures yet: no step has started, or its hosts have not reported"
    ]
    with pytest.raises(AnfperfError, match="no live record there"):
        live_figure(tmp_path / "not-started")
    with pytest.raises(AnfperfError, match="hosts_shown"):
        LiveView(tmp_path, hosts_shown=0)


def test_watch_polls_until_the_record_says_the_run_ended(run_dir):
    view = watch(run_dir, every_s=0.05)
    assert view.watching
    append(run_dir, RECORD[:-1])
    deadline = time.monotonic() + 10
    while "Running RndRead QD8" not in view.figure.layout.title.text:
        assert time.monotonic() < deadline, view.figure.layout.title.text
        time.sleep(0.05)
    time.sleep(0.2)
    assert view.watching and view.ended is None  # the last step is over, not the run
    append(run_dir, RECORD[-1:])
    assert view.join(timeout=10) and view.ended == "complete"
    assert "Ended complete" in view.figure.layout.title.text


def test_stop_and_until_end_the_watching_never_the_run(run_dir):
    view = watch(run_dir, every_s=0.05)
    view.stop()
    assert view.join(timeout=5)
    done = []
    view = watch(run_dir, every_s=0.05, until=lambda: bool(done))
    append(run_dir, RECORD[:-1])  # the run's process ended without saying so
    done.append(True)
    assert view.join(timeout=5) and view.ended is None
    # its last poll read everything, and says the record has no end
    assert len(view._record.points["vm01"]) == len(drawn(RECORD, "vm01"))
    assert "No end recorded" in view.figure.layout.title.text


def test_the_view_is_a_figure_widget_where_plotly_can_make_one(run_dir):
    require(None if importlib.util.find_spec("anywidget") else
            "anywidget (plotly's FigureWidget) is not installed")  # fmt: skip
    import plotly.graph_objects as go

    append(run_dir, RECORD)
    view = LiveView(run_dir)
    assert isinstance(view.figure, go.FigureWidget)
    assert math.isclose(
        traces(view.figure)["vm03 (slowest)"][0].y[0], drawn(RECORD, "vm03")[0]["iops"]
    )
