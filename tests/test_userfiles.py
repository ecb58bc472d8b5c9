"""Files users name are read whole at a bounded cost, and only when regular (issue 33, items
2 and 3): ``/dev/zero``, a named pipe and a large sparse file, given as each kind of file
anfperf reads whole, are refused in one line naming the file.

Each is read in a child process with a timeout and a bounded address space: a regression fails
the test (a hang times out, an unbounded read runs out of memory) instead of blocking the suite
or eating the machine's memory.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from anfperf.errors import ReportError
from anfperf.report._params import resolve_path_parameters

FIO_DATA = Path(__file__).parent / "data" / "fio"
ANFPERF = [sys.executable, "-m", "anfperf.cli"]
#: Address space of a child [bytes]: enough for anfperf's imports, far less than /dev/zero.
CHILD_AS_BYTES = 3 * 2**30
TIMEOUT_S = 60  # a child starts in seconds; a hang on a FIFO fails here
SPARSE_BYTES = 300 * 2**20  # more than every bound but the manifest's (costs no disk)


class HungOnFifo(Exception):
    """Not an OSError (TimeoutError is one): no reader's ``except OSError`` swallows it."""


@pytest.fixture
def deadline():
    """In-process reads near a FIFO: a hang (a blocking open) fails after 30 s, by SIGALRM."""

    def hung(signum, frame):
        raise HungOnFifo("blocked on a named pipe for 30 s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_AS_BYTES, CHILD_AS_BYTES))


def run_child(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
        preexec_fn=_limited, check=False,
    )  # fmt: skip


def call(imports: str, expression: str, cwd: Path, path: str) -> subprocess.CompletedProcess:
    """`expression(path)` in a child: its AnfperfError as one line on stderr, exit 2."""
    code = textwrap.dedent(f"""
        import sys
        from anfperf.errors import AnfperfError
        {imports}
        try:
            {expression}(sys.argv[1])
        except AnfperfError as exc:
            print(f"anfperf: error: {{exc}}", file=sys.stderr)
            sys.exit(2)
    """)
    return run_child([sys.executable, "-c", code, path], cwd)


@pytest.fixture
def specials(tmp_path):
    """kind -> (path as given, what the one-line error says of it)."""
    os.mkfifo(tmp_path / "pipe.json")
    sparse = tmp_path / "sparse.json"
    sparse.touch()
    os.truncate(sparse, SPARSE_BYTES)
    return {
        "device": ("/dev/zero", "is a character device, not a regular file"),
        "fifo": ("pipe.json", "is a named pipe (FIFO), not a regular file"),
        "sparse": ("sparse.json", "300 MiB"),  # then "more than the <bound> MiB"
    }


def assert_refused(result: subprocess.CompletedProcess, path: str, says: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("anfperf: error: ")
    assert path in lines[0] and says in lines[0], lines[0]
    if says.endswith("MiB"):  # refused for its size, before it is read
        assert f"{says}, more than the" in lines[0] or f"{says}: more than the" in lines[0]


KINDS = ["device", "fifo", "sparse"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_plan_volume_refuses_what_is_no_volume_json(tmp_path, specials, kind):
    path, says = specials[kind]
    result = run_child([*ANFPERF, "plan", "--volume", path, "--bs-kib", "64"], tmp_path)
    assert_refused(result, path, says)
    if kind == "sparse":
        assert "64 MiB anfperf reads of an Azure resource's JSON" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_workload_file_refused(tmp_path, specials, kind):
    path, says = specials[kind]
    result = run_child([*ANFPERF, "workloads", "--file", path, "--tool", "fio"], tmp_path)
    assert_refused(result, path, says)


@pytest.mark.slow
@pytest.mark.parametrize(
    "function",
    [
        "anfperf.models.limits.prices.read_retail_prices",
        "anfperf.runner.inventory.load_inventory",
        "anfperf.ingest.azure_monitor.read_azure_metrics",
        "anfperf.report._params.read_parameters",
    ],
)
@pytest.mark.parametrize("kind", KINDS)
def test_description_files_refused(tmp_path, specials, function, kind):
    path, says = specials[kind]
    module, name = function.rsplit(".", 1)
    assert_refused(call(f"from {module} import {name}", name, tmp_path, path), path, says)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_inventory_volume_json_refused(tmp_path, specials, kind):
    path, says = specials[kind]
    where = path if path.startswith("/") else str(tmp_path / path)
    (tmp_path / "hosts.yml").write_text(
        f"volumes: {{data: /mnt/data}}\nvolume_json: {{data: {where}}}\nhosts:\n  vm1: {{}}\n"
    )
    imports = "from anfperf.runner.inventory import load_inventory"
    result = call(imports, "load_inventory", tmp_path, "hosts.yml")
    assert_refused(result, "volume_json data", says)
    assert where in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_manifest_refused(tmp_path, specials, kind):
    path, says = specials[kind]
    run = tmp_path / "run"
    run.mkdir()
    if kind == "sparse":  # manifests are bounded higher (a large fleet's): a larger file
        os.truncate(tmp_path / path, 1100 * 2**20)
        says = "1,100 MiB"
    os.symlink(tmp_path / path if kind != "device" else path, run / "manifest.json")
    result = call("from anfperf.runner.manifest import Manifest", "Manifest.load", tmp_path, "run")
    assert_refused(result, "manifest.json", says)
    assert "not a valid manifest" not in result.stderr


def test_journal_that_is_a_fifo_is_refused_not_waited_on(tmp_path, deadline):
    from anfperf.schema import MANIFEST_JOURNAL_NAME, read_manifest

    (tmp_path / "manifest.json").write_text('{"run_id": "r", "hosts": {}, "steps": []}')
    os.mkfifo(tmp_path / MANIFEST_JOURNAL_NAME)  # opened without blocking: no hang here
    said = read_manifest(tmp_path / "manifest.json")
    assert (
        said == f"cannot be read ({MANIFEST_JOURNAL_NAME}: is a named pipe (FIFO), not a "
        "regular file)"
    )


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_report_path_parameter_refuses_fifo_and_device(tmp_path, specials, kind):
    from anfperf._bundled import NOTEBOOKS, REPORTS

    path, says = specials[kind]
    where = path if path.startswith("/") else str(tmp_path / path)
    with pytest.raises(ReportError) as info:  # only stat(): nothing is opened here
        resolve_path_parameters(NOTEBOOKS / REPORTS["benchmark"], {"volume": where}, cwd=tmp_path)
    assert str(info.value).endswith(f"volume: {where} {says}")


@pytest.mark.slow
def test_report_volume_dev_zero_refused_before_a_kernel(tmp_path):
    result = run_child([*ANFPERF, "report", "benchmark", "-p", "volume", "/dev/zero",
                        "--out", str(tmp_path / "out")], tmp_path)  # fmt: skip
    assert_refused(result, "/dev/zero", "volume: /dev/zero is a character device")


# --------------------------------------------------------------------------- item 3: FIFOs


@pytest.fixture
def fio_folder(tmp_path):
    """d/a.json: real fio JSON; d/b.json: a named pipe nobody writes to."""
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "a.json").write_bytes((FIO_DATA / "randread_qd4.json").read_bytes())
    os.mkfifo(folder / "b.json")
    return folder


@pytest.mark.slow
def test_ingest_skips_a_fifo_in_a_folder_with_a_warning(fio_folder):
    result = run_child([*ANFPERF, "ingest", "d"], fio_folder.parent)
    assert result.returncode == 1, result.stderr  # done in part: a file skipped
    assert "anfperf: warning: skipped d/b.json: is a named pipe (FIFO), not a regular file" in (
        result.stderr.splitlines()
    )
    assert "randread-qd4" in result.stdout and "rows from 1 files" in result.stdout


@pytest.mark.slow
def test_ingest_refuses_a_fifo_given_by_name(fio_folder):
    result = run_child([*ANFPERF, "ingest", "d/a.json", "d/b.json"], fio_folder.parent)
    assert_refused(result, "d/b.json", "is a named pipe (FIFO), not a regular file")


def test_read_all_skips_a_fifo_without_waiting(fio_folder, deadline):
    from anfperf.ingest import read_all

    frame, skipped, _ = read_all([fio_folder])  # opened without blocking: no hang here
    assert [(s.path, s.reason) for s in skipped] == [
        (str(fio_folder / "b.json"), "is a named pipe (FIFO), not a regular file")
    ]
    assert set(frame["source_file"]) == {str(fio_folder / "a.json")}


def test_read_fio_log_refuses_a_fifo(tmp_path, deadline):
    from anfperf.errors import ParseError
    from anfperf.ingest import read_fio_log

    os.mkfifo(tmp_path / "job_lat.1.log")
    with pytest.raises(ParseError, match="is a named pipe"):
        read_fio_log(tmp_path / "job_lat.1.log")


@pytest.mark.slow
def test_report_paths_parameter_fifo_refused(fio_folder):
    result = run_child([*ANFPERF, "report", "benchmark", "-p", "paths", "d/b.json",
                        "--out", "out"], fio_folder.parent)  # fmt: skip
    assert_refused(result, "d/b.json", "is a named pipe (FIFO), not a regular file")


def test_store_and_vdbench_companions_pass_fifos_by(tmp_path, deadline):
    """Read-only checks: a FIFO where a part file or a Vdbench companion would be is never
    waited on: the store names it as a damaged part (its run left out, tests/test_store_damage.py
    for all its readers), a FIFO of a run folder's name is no run, a companion is not read."""
    from anfperf.errors import AnfperfError
    from anfperf.ingest import read
    from anfperf.ingest.vdbench_companions import load_companions
    from anfperf.store import load_store, save_frame

    store = tmp_path / "store"
    save_frame(read(FIO_DATA / "randread_qd4.json"), store)
    part = next(store.glob("run_id=*"))
    os.mkfifo(store / "run_id=fifo")
    assert len(load_store(store)) == 2
    os.mkfifo(part / "zz.parquet")
    with pytest.raises(
        AnfperfError, match=r"zz\.parquet \(is a named pipe \(FIFO\), not a regular"
    ):
        load_store(store)
    vdbench = tmp_path / "vd"
    vdbench.mkdir()
    flatfile = vdbench / "flatfile.html"
    flatfile.write_text("")
    for name in ("parmfile.html", "summary.html", "logfile.html"):
        os.mkfifo(vdbench / name)
    assert load_companions(flatfile).paths == {}


def test_a_fifo_in_place_of_the_stores_lock_is_refused_not_waited_on(tmp_path, deadline):
    """Saving opened the lock for appending, which waits for a reader of a FIFO forever."""
    from anfperf.errors import AnfperfError
    from anfperf.ingest import read
    from anfperf.store import LOCK_NAME, save_frame

    store = tmp_path / "store"
    store.mkdir()
    os.mkfifo(store / LOCK_NAME)
    with pytest.raises(AnfperfError, match=r"lock file is a named pipe \(FIFO\)"):
        save_frame(read(FIO_DATA / "randread_qd4.json"), store)
    assert [p.name for p in store.iterdir()] == [LOCK_NAME]  # nothing written
