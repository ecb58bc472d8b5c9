"""Client rows of a real fio run joined with the volume's metrics on the server's grain.

The metrics files are built for the run's time window by the documented schema of Azure
Monitor's Metrics - List response (tests/data/azure/make_metrics.py): no real capture of a
NetApp volume's metrics exists (../shared/corpus/azure/PROVENANCE.md).
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

import anfperf
from anfperf.analysis.provenance import find_manifests, manifests_table
from anfperf.analysis.server_metrics import (
    client_window,
    grain_note,
    join_client_server,
    run_windows,
    split_sources,
)
from anfperf.errors import AnfperfError
from tests.data.azure.make_metrics import metrics_document, write

MIB = 2**20
SERVER_READ_LAT_MS = 0.02


def metrics_for(window, tmp_path, *, grain_s=60, **series_values) -> pd.DataFrame:
    """The volume's metrics file for a run's window (grains from the one holding its start)."""
    start = window[0].floor(f"{grain_s}s")
    n = math.ceil((window[1] - start).total_seconds() / grain_s)
    series = {name: [value] * n for name, value in series_values.items()}
    doc = metrics_document(series, start=start.to_pydatetime(), grain_s=grain_s)
    return anfperf.read(write(doc, tmp_path / "metrics.json"))


def fio_totals(run_dir):
    """Bytes and I/Os each direction did, and its mean latency, from fio's JSON itself."""
    out = {}
    for path in run_dir.glob("*/*.json"):
        for job in json.loads(path.read_text())["jobs"]:
            for d in ("read", "write"):
                if job[d]["io_bytes"]:
                    out[d] = (job[d]["io_bytes"], job[d]["total_ios"], job[d]["lat_ns"]["mean"])
    return out


@pytest.fixture(scope="module")
def run(local_fio_run):
    client = anfperf.read_many([local_fio_run])
    return client, run_window(client, local_fio_run)


def run_window(client: pd.DataFrame, run_dir) -> tuple[pd.Timestamp, pd.Timestamp]:
    """The run's window as the report takes it: from its manifest (run_windows)."""
    (window,) = run_windows(client, manifests_table(find_manifests([run_dir]))).itertuples()
    assert window.by == "manifest"
    return window.start, window.end


def test_the_run_window_is_its_manifests_and_holds_its_rows(run, local_fio_run):
    client, window = run
    (row,) = manifests_table(find_manifests([local_fio_run])).itertuples(index=False)
    assert window == (row.start, row.end)
    rows_start, rows_end = client_window(client)
    assert window[0] <= rows_start < rows_end <= window[1] + pd.Timedelta("1s")
    windows = run_windows(client, manifests_table(find_manifests([local_fio_run])))
    assert list(windows["by"]) == ["manifest"]


def test_join_keeps_every_byte_the_clients_moved_and_the_gap_is_client_minus_server(
    run, local_fio_run, tmp_path
):
    client, window = run
    server = metrics_for(
        window, tmp_path, ReadIops=500.0, WriteIops=200.0, ReadThroughput=10.0 * MIB,
        WriteThroughput=20.0 * MIB, AverageReadLatency=SERVER_READ_LAT_MS,
        AverageWriteLatency=0.05,
    )  # fmt: skip
    joined = join_client_server(client, server, window=window)
    assert set(joined["direction"]) == {"read", "write", "total"}
    assert (joined["grain_s"] == 60.0).all() and (joined["server_bw_mib_s"] >= 10.0).all()
    fio = fio_totals(local_fio_run)
    for direction, (io_bytes, ios, lat_ns) in fio.items():
        mine = joined[joined["direction"] == direction]
        # the client's rate over whole grains: its bytes and I/Os, all of them, once
        moved = (mine["client_bw_mib_s"] * mine["grain_s"]).sum() * MIB
        assert moved == pytest.approx(io_bytes, rel=0.01)
        assert (mine["client_iops"] * mine["grain_s"]).sum() == pytest.approx(ios, rel=0.01)
        busy = mine[mine["client_s"] > 0]
        assert busy["client_lat_ms"].to_numpy() == pytest.approx(lat_ns / 1e6, rel=0.01)
        assert (busy["gap_ms"] == busy["client_lat_ms"] - busy["server_lat_ms"]).all()
    read = joined[(joined["direction"] == "read") & (joined["client_s"] > 0)]
    assert (read["server_lat_ms"] == SERVER_READ_LAT_MS).all()


def test_a_run_of_seconds_against_minute_points_is_said_too_coarse(run, tmp_path):
    client, window = run
    server = metrics_for(window, tmp_path, grain_s=300, ReadIops=1.0, ReadThroughput=1.0)
    joined = join_client_server(client, server, window=window)
    note = grain_note(joined, window)
    assert note.startswith("The volume's metrics come in 5-minute points and the run lasted ")
    assert "too coarse" in note
    long_run = (window[0], window[0] + pd.Timedelta("15min"))
    assert grain_note(joined, long_run) is None


def test_metrics_of_another_time_are_refused_naming_both_spans(run, tmp_path):
    client, window = run
    earlier = (window[0] - pd.Timedelta("2h"), window[1] - pd.Timedelta("2h"))
    server = metrics_for(earlier, tmp_path, ReadIops=1.0)
    with pytest.raises(AnfperfError, match=r"do not overlap the run \(\d{4}-\d\d-\d\d \d\d:"):
        join_client_server(client, server, window=window)


def test_split_sources_parts_client_and_server_rows(run, tmp_path):
    client, window = run
    server = metrics_for(window, tmp_path, ReadIops=1.0)
    both = pd.concat([client, server], ignore_index=True)
    mine, theirs = split_sources(both)
    assert len(mine) == len(client) and len(theirs) == len(server)
    assert set(theirs["source"]) == {"server"} and set(mine["source"]) == {"client"}
