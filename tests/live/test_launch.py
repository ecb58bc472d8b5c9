"""A run a notebook starts and watches without holding it: `anfperf run` through start_run, with
real fio on this machine (the local executor, no SSH)."""

from __future__ import annotations

import os
import signal
import time

import pytest

from anfperf.errors import AnfperfError
from anfperf.live import LIVE_LOG_NAME, RunHandle, start_run
from anfperf.schema import MANIFEST_NAME, read_manifest

SMALL = ["--set", "warmup_s=0", "--set", "file_size_gib=0.004", "--set", "threads=2"]


@pytest.fixture
def handles():
    """The runs a test starts: stopped (their own process groups) if a test left one running."""
    started: list[RunHandle] = []
    yield started
    for handle in started:
        if handle.running:
            os.killpg(handle.pid, signal.SIGKILL)
        handle.wait(timeout=30)


def test_a_run_started_from_a_notebook_completes_in_its_own_session(fio_bin, tmp_path, handles):
    (tmp_path / "vol").mkdir()
    handle = start_run(
        ["RndRead", "--volume", str(tmp_path / "vol"), "--set", "duration_s=1", *SMALL],
        out_dir="raw", cwd=tmp_path, log_dir=tmp_path / "console",
    )  # fmt: skip
    handles.append(handle)
    # its run id is given, so its folder is known before the run makes it
    assert handle.args[-2] == "--run-id" and handle.run_id.endswith("-RndRead")
    assert handle.run_dir == tmp_path / "raw" / handle.run_id
    assert os.getpgid(handle.pid) == os.getsid(handle.pid) == handle.pid  # a session of its own
    assert os.getsid(handle.pid) != os.getsid(0)
    view = handle.watch(every_s=0.2)
    assert handle.wait(timeout=120) == 0 and handle.returncode == 0 and not handle.running
    assert read_manifest(handle.run_dir / MANIFEST_NAME)["status"] == "complete"
    assert "complete: raw outputs and manifest.json in" in handle.output()
    assert (tmp_path / "console" / "stdout.txt").read_text() in handle.output()
    # the watching ends with the process, whether or not the run wrote a live record
    assert view.join(timeout=10)
    if not (handle.run_dir / LIVE_LOG_NAME).exists():
        assert "No live record (live.jsonl)" in view.figure.layout.title.text


def test_stop_interrupts_the_run_as_ctrl_c_would(fio_bin, tmp_path, handles):
    (tmp_path / "vol").mkdir()
    handle = start_run(
        ["RndRead", "--volume", str(tmp_path / "vol"), "--set", "duration_s=60", *SMALL,
         "--run-id", "stopped-run"],
        out_dir=tmp_path / "raw", log_dir=tmp_path / "console",
    )  # fmt: skip
    handles.append(handle)
    assert handle.run_id == "stopped-run" and handle.args.count("--run-id") == 1
    deadline = time.monotonic() + 60
    while not (handle.run_dir / MANIFEST_NAME).exists():  # written as the workloads start
        assert time.monotonic() < deadline and handle.running, handle.output()
        time.sleep(0.2)
    time.sleep(3)  # fio running
    assert handle.running
    handle.stop()
    assert handle.wait(timeout=60) != 0
    assert read_manifest(handle.run_dir / MANIFEST_NAME)["status"] == "interrupted"
    assert "anfperf run --resume stopped-run" in handle.output()
    handle.stop()  # once it ended: nothing


def test_what_start_run_refuses(tmp_path):
    with pytest.raises(AnfperfError, match="dry-run"):
        start_run(["RndRead", "--dry-run"], out_dir=tmp_path)
    with pytest.raises(AnfperfError, match="give out_dir alone"):
        start_run(["RndRead", "--out", str(tmp_path / "a")], out_dir=tmp_path / "b")
    with pytest.raises(AnfperfError, match="list of strings"):
        start_run("RndRead --set duration_s=1", out_dir=tmp_path)
