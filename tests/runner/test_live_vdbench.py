"""Live figures of a real Vdbench run: its master's console read as it arrives, one interval
per line Vdbench printed, and the run ingested as without them.

Vdbench (the user's own install) runs when ANFPERF_VDBENCH names it; the two-host run between
network namespaces is in tests/runner/test_netns.py.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from anfperf.ingest import read_many
from anfperf.runner import local_inventory, run_workloads
from anfperf.workloads import get_workload
from tests.conftest import vdbench_interval_lines, vdbench_launcher

pytestmark = pytest.mark.vdbench

#: Four 1-second intervals of 8 KiB random reads of a 4 MiB file (which Vdbench makes first).
WORKLOAD = get_workload("RndRead").replace(
    duration_s=4, warmup_s=0, file_size_gib=4 / 1024, threads=2, interval_s=1
)


def live_intervals(run_dir) -> list[dict]:
    lines = (run_dir / "live.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == "interval"]


def assert_shown_as_printed(shown: list[dict], printed: list[tuple]) -> None:
    """Each live interval is the line Vdbench printed: its numbers as printed."""
    assert len(shown) == len(printed) and printed
    for r, (_, rate, mib_s, read_pct, resp_ms) in zip(shown, printed, strict=True):
        assert (r["iops"], r["bw_mib_s"]) == (rate, mib_s)
        assert r["lat_mean_ms"] == (resp_ms if rate > 0 else None)
        assert r["read_iops"] == pytest.approx(rate * read_pct / 100)
        assert r["write_iops"] == pytest.approx(rate * (1 - read_pct / 100))


def test_vdbench_figures_shown_live_are_the_lines_it_printed(tmp_path):
    launcher = vdbench_launcher()
    (tmp_path / "data").mkdir()
    inv = local_inventory([str(tmp_path / "data")], name="demo", workdir=str(tmp_path / "wd"))
    inv = replace(inv, hosts=(replace(inv["demo"], launchers={"vdbench": str(launcher)}),))
    lines = []
    manifest = run_workloads(
        [WORKLOAD], inv, tmp_path / "raw", tool="vdbench", run_id="live", live_interval_s=1,
        on_live_line=lines.append,
    )  # fmt: skip
    assert manifest.status == "complete", manifest.failures()
    run_dir = manifest.run_dir
    shown = live_intervals(run_dir)
    assert {(r["host"], r["step"]) for r in shown} == {("demo", 0)}  # the master's console
    # what was shown is every interval line of the run's own report and of its console: the
    # format run Vdbench adds to make the file, then the workload's four seconds
    summary = (run_dir / "demo" / "RndRead" / "summary.html").read_text()
    printed = vdbench_interval_lines(summary)
    assert [n for n, *_ in printed][-4:] == [1, 2, 3, 4]
    assert_shown_as_printed(shown, printed)
    console = (run_dir / "demo" / "RndRead.stdout.log").read_text()  # saved, as without live
    assert vdbench_interval_lines(console) == printed
    assert "Starting RD=SD_format" in console and lines and lines[-1].startswith("fleet ")
    # ingested as before: the collected outputs, one row per interval line
    frame = read_many([run_dir])
    assert set(frame["source_file"]) == {str(run_dir / "demo" / "RndRead" / "flatfile.html")}
    rows = frame[frame["interval"].notna() & (frame["direction"] == "total")]
    assert list(rows["iops"]) == pytest.approx([rate for _, rate, *_ in printed])
    ran = frame[frame["is_summary"] & (frame["direction"] == "read")]
    assert list(ran["job"]) == ["RndRead"] and ran["iops"].iloc[0] > 0
    shutil.rmtree(tmp_path / "wd", ignore_errors=True)


def test_an_adaptive_vdbench_sweep_chooses_its_threads_from_the_flatfiles(tmp_path):
    from anfperf.runner.sweeps import measured_point

    launcher = vdbench_launcher()
    (tmp_path / "data").mkdir()
    inv = local_inventory([str(tmp_path / "data")], name="demo", workdir=str(tmp_path / "wd"))
    inv = replace(inv, hosts=(replace(inv["demo"], launchers={"vdbench": str(launcher)}),))
    sweep = WORKLOAD.replace(duration_s=2).as_adaptive(0.3, max_outstanding=16)
    assert (sweep.threads, sweep.max_outstanding) == ((1,), 16)  # one load point: from 1
    manifest = run_workloads([sweep], inv, tmp_path / "raw", tool="vdbench", run_id="ad",
                             live_interval_s=None)  # fmt: skip
    steps = manifest.data["steps"]
    assert manifest.status == "complete" and len(steps) >= 3
    first, heavy = steps[0]["adaptive"], steps[1]["adaptive"]
    assert first["reason"] == "threads 1: light load, for the lowest latency"
    assert heavy["reason"].startswith("threads 16: heavy load")
    assert [s["workload"]["threads"] for s in steps] == [s["adaptive"]["concurrency"]
                                                          for s in steps]  # fmt: skip
    assert "stop" in steps[-1]["adaptive"]
    # each point is what the step's flatfile says, all its hosts (one here) together
    frame = read_many([manifest.run_dir])
    ran = frame[frame["is_summary"] & (frame["direction"] == "total")].set_index("job")
    for step in steps:
        point = measured_point(manifest.run_dir, step, manifest.data["hosts"])
        assert point.iops == pytest.approx(ran.loc[step["name"], "iops"])
        assert point.lat_ms == pytest.approx(ran.loc[step["name"], "lat_mean_ms"])
    shutil.rmtree(tmp_path / "wd", ignore_errors=True)
