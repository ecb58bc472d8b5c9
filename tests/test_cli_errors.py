"""Paths anfperf cannot use are one-line errors naming them (issue 24, item 6).

Each command runs as a real ``anfperf`` process against a real read-only mount, a real full
tmpfs, a path under /proc or a file that is not what it should be; the answer must be exit
status 2 (input the user can fix) and one line ``anfperf: error: <path>: <what is wrong>`` on
stderr, never a traceback.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DATA, TESTS, small_tmpfs

NOTEBOOK = DATA / "notebooks" / "failing.ipynb"
FIO_JSON = DATA / "fio" / "randread_qd4.json"
#: A path no process can create: /proc takes no new folders.
NOWHERE = "/proc/anfperf-nowhere"
#: A tiny fio workload for runs on this machine.
TINY = ["--set", "duration_s=1", "--set", "warmup_s=0", "--set", "file_size_gib=0.004",
        "--set", "threads=1", "--no-progress"]  # fmt: skip

pytestmark = pytest.mark.slow  # every test runs the anfperf command in a process of its own


def anfperf(*args: str | Path, timeout_s: float = 120) -> subprocess.CompletedProcess:
    """The ``anfperf`` command of this checkout, run as its own process."""
    return subprocess.run(
        [sys.executable, "-m", "anfperf.cli", *map(str, args)],
        capture_output=True, text=True, timeout=timeout_s, cwd=TESTS.parent,
    )  # fmt: skip


def assert_one_line_error(proc: subprocess.CompletedProcess, path: str | Path, reason: str):
    """Exit status 2 and a last stderr line ``anfperf: error: <path>...<reason>``, no traceback."""
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"anfperf: error: {path}"), proc.stderr
    assert reason in last, proc.stderr


@contextlib.contextmanager
def read_only_folder(folder: Path) -> Iterator[Path]:
    """A real read-only mount at `folder` (root ignores permission bits, not a mount's ro)."""
    with small_tmpfs(folder, "1m") as mount:
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        yield mount


@contextlib.contextmanager
def full_folder(folder: Path) -> Iterator[Path]:
    """A real tmpfs at `folder` with every block taken by one file."""
    with small_tmpfs(folder, "512k") as mount:
        with open(mount / "filler", "wb") as fh:
            try:
                while True:
                    fh.write(b"\0" * 65536)
                    fh.flush()
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        yield mount


@pytest.fixture
def read_only(tmp_path) -> Iterator[Path]:
    with read_only_folder(tmp_path / "ro") as mount:
        yield mount


READ_ONLY = "Read-only file system"
MISSING = "No such file or directory"


@pytest.mark.parametrize(
    "command, where",
    [(["demo", "--no-measure", "--out"], "demo's outputs"),
     (["workloads", "RndRead", "--out"], "rendered files"),
     (["report", NOTEBOOK, "--out"], "report"),
     (["ingest", FIO_JSON, "--out"], "frame")],
    ids=["demo", "workloads", "report", "ingest"],
)  # fmt: skip
def test_an_out_folder_that_cannot_be_made_is_named(command, where, read_only):
    # before: FileNotFoundError / OSError tracebacks (demo, workloads, ingest), or a kernel run
    # and then 'report failing failed' with exit status 1 (report)
    for out, reason in ((Path(NOWHERE), MISSING), (read_only / "x", READ_ONLY)):
        proc = anfperf(*command, out)
        assert_one_line_error(proc, out, f"cannot write the {where} there: {reason}")


@pytest.mark.parametrize(
    "command, out",
    [(["demo", "--no-measure"], "."), (["report", NOTEBOOK], "."), (["ingest", FIO_JSON], "."),
     (["ingest", FIO_JSON], "frame.parquet")],
    ids=["demo", "report", "ingest-store", "ingest-file"],
)  # fmt: skip
def test_a_read_only_out_folder_that_exists_is_named(command, out, read_only):
    # the folder is there (mkdir succeeds): only a write shows that it is read-only
    proc = anfperf(*command, "--out", read_only / out)
    assert_one_line_error(proc, read_only, READ_ONLY)
    assert proc.stderr.strip().endswith(READ_ONLY)  # not the name of a temporary file tried


@pytest.mark.fio
def test_demo_in_a_read_only_folder_is_named(fio_bin, read_only, tmp_path):
    proc = anfperf("demo", "--dir", read_only, "--out", tmp_path / "demo")
    # before: OSError from tempfile.mkdtemp, a traceback
    assert_one_line_error(proc, read_only, f"cannot measure in this folder: {READ_ONLY}")


def test_report_of_a_file_that_is_not_a_notebook_is_named(tmp_path):
    readme = TESTS.parent / "README.md"
    proc = anfperf("report", readme, "--out", tmp_path / "out")
    # before: nbformat.reader.NotJSONError, a traceback
    assert_one_line_error(proc, f"report {readme}", "not a Jupyter notebook (not JSON")
    assert not (tmp_path / "out").exists()
    folder = anfperf("report", TESTS, "--out", tmp_path / "out")
    assert_one_line_error(folder, TESTS, "a folder, not a notebook")


def test_report_with_a_missing_working_folder_is_named(tmp_path):
    cwd = tmp_path / "nowhere"
    proc = anfperf("report", NOTEBOOK, "--out", tmp_path / "out", "--cwd", cwd)
    # before: the kernel's FileNotFoundError traceback, then 'report failing failed' (exit 1)
    assert_one_line_error(proc, cwd, "no such folder to run the notebook in")


def test_run_into_a_read_only_folder_is_named_before_the_hosts_are_checked(read_only, tmp_path):
    (tmp_path / "vol").mkdir()
    proc = anfperf("run", "RndRead", "--volume", tmp_path / "vol", "--out", read_only / "raw")
    assert_one_line_error(proc, read_only / "raw", f"cannot write the run there: {READ_ONLY}")
    assert proc.stdout == ""  # no preflight report: nothing was checked or run


@pytest.mark.fio
def test_run_onto_a_full_disk_is_named(fio_bin, tmp_path):
    (tmp_path / "vol").mkdir()
    with full_folder(tmp_path / "full") as full:
        proc = anfperf("run", "RndRead", "--volume", tmp_path / "vol", "--out", full / "raw",
                       "--run-id", "onfull", *TINY)  # fmt: skip
        # before: OSError [Errno 28] from RunLock.__enter__ writing its pid, a traceback
        assert_one_line_error(proc, full / "raw" / "onfull", "No space left on device")


@pytest.mark.parametrize(
    "value, shown", [(-1, "got -1"), ("abc", "got 'abc'"), (True, "got True"), (0, "got 0")]
)
def test_resume_refuses_recorded_plan_options_that_are_not_numbers(
    local_fio_run, tmp_path, value, shown
):
    run_dir = shutil.copytree(local_fio_run, tmp_path / "raw" / local_fio_run.name)
    manifest = run_dir / "manifest.json"
    data = json.loads(manifest.read_text())
    data["plan_options"]["timeout_s"] = value
    manifest.write_text(json.dumps(data))
    (tmp_path / "vol").mkdir()
    proc = anfperf("run", "--resume", run_dir.name, "--out", tmp_path / "raw",
                   "--volume", tmp_path / "vol", "--no-progress")  # fmt: skip
    # before: ValueError 'timeout_s must be positive' / TypeError tracebacks; True ran with a
    # one-second timeout
    assert_one_line_error(
        proc, manifest, f"plan_options.timeout_s must be a number of seconds > 0, {shown}"
    )


def test_an_unexpected_os_error_is_still_one_line_naming_the_file(tmp_path):
    store = tmp_path / "store"
    (store / ".anfperf-store.lock").mkdir(parents=True)  # a folder where the lock file goes
    proc = anfperf("ingest", FIO_JSON, "--out", store)
    # before: IsADirectoryError, a traceback
    assert_one_line_error(proc, store, "Is a directory")
    assert str(store / ".anfperf-store.lock") in proc.stderr


@pytest.mark.fio
def test_demo_on_a_full_disk_says_so_naming_the_folder(fio_bin, tmp_path):
    with full_folder(tmp_path / "full") as mount:
        proc = anfperf("demo", "--dir", mount, "--out", tmp_path / "demo")
        left = sorted(p.name for p in mount.iterdir())
    # before: 'demo step QDSweep4k on <host> failed: upload to <mount>/anfperf-demo-.../work/...
    # failed: network error: No space left on device'
    assert_one_line_error(proc, mount, "cannot measure in this folder: the disk is full, and "
                          "the demo's data files take 64 MiB")  # fmt: skip
    assert left == ["filler"]  # its temporary folder is gone, and nothing ran
    with small_tmpfs(tmp_path / "small", "4m") as mount:
        proc = anfperf("demo", "--dir", mount, "--out", tmp_path / "demo", "--file-size-mib", "8")
    assert_one_line_error(proc, mount, "only 4.0 MiB free, and the demo's data files take 8 MiB")


def test_a_file_that_cannot_be_written_is_no_network_error(tmp_path):
    from anfperf.runner.local import LocalConnection
    from anfperf.runner.security import describe_error

    with full_folder(tmp_path / "full") as mount, pytest.raises(OSError) as caught:
        LocalConnection().put(io.BytesIO(b"x" * 65536), str(mount / "work" / "job.fio"))
    # before: 'network error: No space left on device', for a folder on this machine
    assert caught.value.errno == errno.ENOSPC
    assert describe_error(caught.value) == "No space left on device"
