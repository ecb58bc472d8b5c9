"""The benchmark report's "What the volume saw": a real fio run of this machine against the
volume's metrics, checked in Chromium.

The metrics file is built for the run's time window by the documented schema of Azure
Monitor's Metrics - List response (tests/data/azure/make_metrics.py): no real capture of a
NetApp volume's metrics exists (../shared/corpus/azure/PROVENANCE.md). Its 5-minute points
against a run of seconds are what the report must call too coarse.
"""

from __future__ import annotations

import hashlib
import math

import pytest

import anfperf
from anfperf.analysis.server_metrics import join_client_server
from anfperf.report import GRAPH_CLASS, render_report
from anfperf.report.page import format_number
from tests.conftest import TESTS
from tests.data.azure.make_metrics import metrics_document, write
from tests.report.conftest import check_layout, check_report
from tests.report.test_report import visible_text
from tests.test_server_metrics import run_window

NOTEBOOK = TESTS.parent / "anfperf" / "notebooks" / "benchmark_report.ipynb"
MIB = 2**20
GRAIN_S = 300
SERVER = {"ReadIops": 900.0, "WriteIops": 300.0, "ReadThroughput": 3.5 * MIB,
          "WriteThroughput": 1.25 * MIB, "AverageReadLatency": 0.011,
          "AverageWriteLatency": 0.042}  # fmt: skip

pytestmark = pytest.mark.slow  # report kernels and chromium


@pytest.fixture(scope="module")
def volume_report(local_fio_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("volume")
    window = run_window(anfperf.read_many([local_fio_run]), local_fio_run)
    start = window[0].floor(f"{GRAIN_S}s")
    n = math.ceil((window[1] - start).total_seconds() / GRAIN_S)
    doc = metrics_document(
        {name: [v] * n for name, v in SERVER.items()}, start=start.to_pydatetime(), grain_s=GRAIN_S
    )
    metrics = write(doc, out / "volume1-metrics.json")
    result = render_report(
        NOTEBOOK,
        parameters={"paths": [str(local_fio_run)], "metrics": str(metrics), "seed": 1},
        out_dir=out,
    )
    assert result.ok, result.error
    return result, local_fio_run, metrics, window


def test_the_section_shows_the_gap_table_and_says_the_grain_is_too_coarse(volume_report):
    result, run_dir, metrics, window = volume_report
    client = anfperf.read_many([run_dir])
    joined = join_client_server(client, anfperf.read(metrics), window=window)
    text = visible_text(result.html.read_text(encoding="utf-8"))
    # after the first screen's verdict and the ANF section, before "About this report"
    assert text.index("Runs") < text.index("What the volume saw") < text.index("About this")
    assert "The volume's metrics come in 5-minute points and the run lasted " in text
    assert "too coarse for this run" in text
    # the metrics file is an input of the report: its checksum is on the page
    assert hashlib.sha256(metrics.read_bytes()).hexdigest() in text
    for header in ("Client [MiB/s]", "Volume [MiB/s]", "Client latency [ms]",
                   "Volume latency [ms]", "Gap: client + network [ms]"):  # fmt: skip
        assert header in text
    # each grain's client and server numbers as the table rounds them, in order
    for row in joined[joined["client_s"] > 0].itertuples():
        cells = [format_number(v) for v in (row.client_bw_mib_s, row.server_bw_mib_s,
                 row.client_lat_ms, row.server_lat_ms, row.gap_ms)]  # fmt: skip
        assert f"{row.direction} {format_number(row.client_s)} {' '.join(cells)}" in text
    read = joined[(joined["direction"] == "read") & (joined["client_s"] > 0)].iloc[0]
    assert read["server_lat_ms"] == 0.011 and read["gap_ms"] == read["client_lat_ms"] - 0.011
    assert read["server_bw_mib_s"] == 3.5


def test_the_section_in_chromium_holds_the_chart_with_both_sides(
    volume_report, browser_page, tmp_path
):
    result, run_dir, _metrics, _window = volume_report
    seen = check_report(browser_page, result.html, tmp_path / "volume.png")
    run_id = anfperf.read_many([run_dir])["run_id"].iloc[0]
    (title,) = [t for t in seen["chart_titles"] if t.startswith("Client vs volume")]
    assert title.startswith(f"Client vs volume, total: {run_id}") and "too coarse" in title
    chart = browser_page.locator(f".{GRAPH_CLASS}").filter(has_text="Client vs volume")
    assert chart.locator(".g-ytitle text, .g-y2title text").all_text_contents() == [
        "Throughput [MiB/s]", "Latency [ms]",
    ]  # fmt: skip
    legend = chart.locator(".legendtext").all_text_contents()
    assert legend == ["client (benchmark)", "server (volume metrics)"]
    assert "What the volume saw" in seen["text"]
    check_layout(
        browser_page, result.html, tmp_path / "volume",
        first_screen=[".anfperf-verdict", ".anfperf-cards", ".plotly-graph-div"],
    )  # fmt: skip


def test_a_report_without_metrics_has_no_volume_section(local_fio_run, tmp_path):
    result = render_report(
        NOTEBOOK, parameters={"paths": [str(local_fio_run)], "seed": 1}, out_dir=tmp_path
    )
    assert result.ok, result.error
    text = visible_text(result.html.read_text(encoding="utf-8"))
    # (the parameter's help in "About this report" names the section: not its table)
    assert "Gap: client + network" not in text and "Client vs volume" not in text
