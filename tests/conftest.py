"""Shared test helpers: where the real data lives, and a real local fio run."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from anfperf.report._warm import defer_rfc3987_syntax

# Test modules import nbformat (jsonschema compiles rfc3987_syntax's grammar at import: about 1 s
# in every worker); the real module loads on first use, as in a report process.
defer_rfc3987_syntax()

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
#: ../shared/corpus next to the repository (present in CI).
CORPUS = TESTS.parent.parent / "shared" / "corpus"
PUBLIC = CORPUS / "public"


def require_corpus(path: Path = PUBLIC) -> Path:
    """`path` inside ../shared/corpus, or skip when it is absent outside CI (fail in CI)."""
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: CI must provide ../shared/corpus")
        pytest.skip(f"{path} not present (outside CI)")
    return path


#: JVM options for the suite's Spark sessions: a query of a few hundred rows needs no optimising
#: compiler (C1 only) nor a parallel collector; about half of a Spark start's CPU.
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
#: Runs a command as this user without any capability: what an unprivileged process may do, in
#: the same files (switching to another user instead fails where the checkout is private).
DROP_CAPS = ["setpriv", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all"]


def require(reason: str | None) -> None:
    """Skip with `reason` outside CI; in CI (CI=true) what a test needs must be there: fail."""
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test: {reason}")
        pytest.skip(reason)


def vdbench_launcher(value: str | None = None) -> Path:
    """The Vdbench launcher ANFPERF_VDBENCH names: an install folder or its ``vdbench`` file.

    Skips when the variable is unset (Vdbench is in no registry: CI has none); fails with what
    is wrong when it names neither.
    """
    value = os.environ.get("ANFPERF_VDBENCH") if value is None else value
    if not value:
        pytest.skip("set ANFPERF_VDBENCH to a Vdbench install (its folder or launcher)")
    path = Path(value)
    launcher = path / "vdbench" if path.is_dir() else path
    if not (launcher.is_file() and os.access(launcher, os.X_OK)):
        pytest.fail(
            f"ANFPERF_VDBENCH={value}: neither a Vdbench folder holding an executable 'vdbench' "
            "nor that launcher itself"
        )
    return launcher


def run_vdbench_parm(tmp_path: Path, run_lines: str, *, timeout_s: float = 300) -> Path:
    """Run real Vdbench (:func:`vdbench_launcher`) on a 64 MiB file with `run_lines` (its wd=
    and rd= lines) and return its output folder; fails with Vdbench's words when it fails."""
    launcher = vdbench_launcher()
    data = tmp_path / "data"
    data.mkdir()
    parm = tmp_path / "parm"
    parm.write_text(f"sd=sd1,lun={data / 'file1'},size=64m\n{run_lines}")
    out = tmp_path / "out"
    proc = subprocess.run([str(launcher), "-f", str(parm), "-o", str(out)], capture_output=True,
                          text=True, timeout=timeout_s)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out


#: An interval line of a raw-I/O (SD) Vdbench run: time, interval, rate, MB/sec, bytes, read
#: pct, resp (``avg_a-b`` lines and messages have no interval number there).
_VDBENCH_INTERVAL = re.compile(
    r"^\d\d:\d\d:\d\d\.\d+\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+\d+\s+([\d.]+)\s+([\d.]+)\s", re.M
)


def vdbench_interval_lines(text: str) -> list[tuple[int, float, float, float, float]]:
    """(interval, rate, MB/sec, read pct, resp ms) of every interval line in a Vdbench console
    or ``summary.html`` of an SD run, in order, read without anfperf."""
    return [
        (int(m[1]), float(m[2]), float(m[3]), float(m[4]), float(m[5]))
        for m in _VDBENCH_INTERVAL.finditer(text)
    ]


def fio_documents(source: Path | str) -> list[dict]:
    """Every complete JSON document of a fio output (a file, or its text), in order, read with
    json alone: each starts with '{' at the start of a line or with its "fio version" (fio's
    text may come before; a live run's status documents come before its result, the last); one
    cut short ends the list."""
    text = source if isinstance(source, str) else source.read_bytes().decode("utf-8", "replace")
    decoder, docs, at = json.JSONDecoder(), [], 0
    # a document starts a line, or follows fio's own text on it ("...signal 15{")
    for match in re.finditer(r'(?m)^\{|\{(?=\s*"fio version")', text):
        if match.start() < at:
            continue
        try:
            doc, at = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            break
        docs.append(doc)
    return docs


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A real tmpfs of `size` (e.g. '3m') mounted on `folder` meanwhile (root only: skip)."""
    mount = shutil.which("mount")
    require(None if os.geteuid() == 0 and mount else "mounting a tmpfs needs root")
    folder.mkdir()
    subprocess.run([mount, "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.fixture(scope="session")
def fio_bin() -> str:
    require(None if shutil.which("fio") else "fio is not installed (Debian package fio)")
    return shutil.which("fio")


@pytest.fixture(scope="session")
def local_fio_run(fio_bin, tmp_path_factory) -> Path:
    """A real run through the runner on this machine: two tiny fio workloads, with manifest.

    Returns the run folder (manifest.json and the host's fio JSON outputs).
    """
    from anfperf.cli import main

    base = tmp_path_factory.mktemp("localrun")
    (base / "vol").mkdir()
    args = ["run", "RndRead", "SeqWrite", "--tool", "fio", "--volume", str(base / "vol"),
            "--out", str(base / "raw"), "--set", "duration_s=1", "--set", "warmup_s=0",
            "--set", "file_size_gib=0.004", "--set", "threads=2"]  # fmt: skip
    assert main(args) == 0
    (run_dir,) = (base / "raw").iterdir()
    return run_dir


#: A test is slow (seconds, not milliseconds) when it drives a real fio, sshd or Vdbench (these
#: markers) or uses one of these fixtures (a real fio run, sshd fleets, the wheel installed in a
#: venv, chromium); report kernels and the README test are marked by their modules (pytestmark).
SLOW_MARKERS = ("fio", "ssh", "vdbench")
SLOW_FIXTURES = frozenset(
    {"fio_bin", "local_fio_run", "ssh_fleet", "own_fleet", "netns_fleet", "wheel_venv", "browser"}
)


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C as a terminal delivers it, in every worker and the processes the tests start.

    A shell without job control starts a background command (``make test &``, ``nohup``) with
    SIGINT ignored, and that is inherited: the tests that press Ctrl-C on a run would then
    test nothing. A handler of Python's own is reset to the default in a child at exec.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: The modules that take longest, longest first (seconds of one worker, all their tests, on 2
#: cores: `pytest --durations=0`, 2026-11-29). They start first: `make test` hands out whole
#: modules (--dist loadfile) in collection order (--no-loadscope-reorder), so the workers end
#: together instead of one starting the README's 105 s when the others are done.
LONGEST_FIRST = (
    "tests/test_readme.py",  # 105 s
    "tests/runner/test_faults.py",  # 86
    "tests/report/test_notebooks.py",  # 81
    "tests/report/test_demo.py",  # 78
    "tests/test_packaging.py",  # 74
    "tests/report/test_capacity_notebook.py",  # 61
    "tests/runner/test_netns.py",  # 59
    "tests/test_cli_errors.py",  # 53
    "tests/test_store_faults.py",  # 43
    "tests/report/test_volume_report.py",  # 42
    "tests/runner/test_scale.py",  # 41
)


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `slow` what drives a real fio, sshd or browser (`make test-quick` leaves it out),
    and put the longest modules first (:data:`LONGEST_FIRST`; the rest keep their order)."""
    for item in items:
        uses = SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        if uses or any(item.get_closest_marker(name) for name in SLOW_MARKERS):
            item.add_marker(pytest.mark.slow)
    rank = {module: i for i, module in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
