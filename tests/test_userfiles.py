"""Files users name are read whole at a bounded cost, and only when regular (issue 33, items
2 and 3): ``/dev/zero``, a named pipe and a large sparse file, given as each kind of file
anfperf reads whole, are refused in one line naming the file.

Each is read in a child process with a timeout and a bounded address space (one child for every
command line, one for all the library readers): a regression fails the test (a hang times out,
an unbounded read runs out of memory) instead of blocking the suite or eating the machine's
memory.
"""

from __future__ import annotations

import json
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


#: One child reads every special file with each library reader (a child each cost 18 Python
#: starts, a minute of the suite): case id -> (import, callable, path as given).
LIBRARY_CHILD = textwrap.dedent("""
    import importlib, json, sys
    from anfperf.errors import AnfperfError
    said = {}
    for case, (module, name, path) in json.loads(sys.argv[1]).items():
        reader = importlib.import_module(module)
        for part in name.split("."):
            reader = getattr(reader, part)
        try:
            reader(path)
            said[case] = [0, "read without an error"]
        except AnfperfError as exc:
            said[case] = [2, f"anfperf: error: {exc}"]
        except Exception as exc:  # a bare error (or MemoryError: read without a bound)
            said[case] = [1, f"{type(exc).__name__}: {exc}"]
    print(json.dumps(said))
""")


def special_files() -> dict[str, tuple[str, str]]:
    """kind -> (path as given, relative to the folder it is made in; what the one-line error
    says of it)."""
    return {
        "device": ("/dev/zero", "is a character device, not a regular file"),
        "fifo": ("pipe.json", "is a named pipe (FIFO), not a regular file"),
        "sparse": ("sparse.json", "300 MiB"),  # then "more than the <bound> MiB"
    }


@pytest.fixture
def specials(tmp_path):
    """The special files of :func:`special_files`, made in `tmp_path`."""
    os.mkfifo(tmp_path / "pipe.json")
    sparse = tmp_path / "sparse.json"
    sparse.touch()
    os.truncate(sparse, SPARSE_BYTES)
    return special_files()


def assert_refused(result: subprocess.CompletedProcess, path: str, says: str) -> None:
    assert result.returncode == 2, result.stderr[-2000:]
    assert_says(result.stderr, path, says)


def assert_says(stderr: str, path: str, says: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("anfperf: error: "), stderr[-2000:]
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


DESCRIPTION_READERS = (
    "anfperf.models.limits.prices.read_retail_prices",
    "anfperf.runner.inventory.load_inventory",
    "anfperf.ingest.azure_monitor.read_azure_metrics",
    "anfperf.report._params.read_parameters",
)


@pytest.fixture(scope="module")
def library_refusals(tmp_path_factory) -> tuple[Path, dict[str, list]]:
    """Every library reader given each special file, in one child: case -> [status, line].

    The cases: each reader of DESCRIPTION_READERS given the file; an inventory whose
    volume_json names it (inventory-KIND); a run folder whose manifest.json links to it
    (manifest-KIND; manifests are bounded higher, a large fleet's: a larger sparse file).
    """
    base = tmp_path_factory.mktemp("special")
    os.mkfifo(base / "pipe.json")
    for name, size in (("sparse.json", SPARSE_BYTES), ("big.json", 1100 * 2**20)):
        (base / name).touch()
        os.truncate(base / name, size)
    cases = {}
    for kind, (path, _) in special_files().items():
        for function in DESCRIPTION_READERS:
            cases[f"{function}-{kind}"] = (*function.rsplit(".", 1), path)
        where = path if path.startswith("/") else str(base / path)
        (base / f"hosts-{kind}.yml").write_text(
            f"volumes: {{data: /mnt/data}}\nvolume_json: {{data: {where}}}\nhosts:\n  vm1: {{}}\n"
        )
        cases[f"inventory-{kind}"] = ("anfperf.runner.inventory", "load_inventory",
                                      f"hosts-{kind}.yml")  # fmt: skip
        run = base / f"run-{kind}"
        run.mkdir()
        linked = {"device": path, "fifo": base / path, "sparse": base / "big.json"}[kind]
        os.symlink(linked, run / "manifest.json")
        cases[f"manifest-{kind}"] = ("anfperf.runner.manifest", "Manifest.load", run.name)
    result = run_child([sys.executable, "-c", LIBRARY_CHILD, json.dumps(cases)], base)
    assert result.returncode == 0, result.stderr[-3000:]
    return base, json.loads(result.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("function", DESCRIPTION_READERS)
@pytest.mark.parametrize("kind", KINDS)
def test_description_files_refused(library_refusals, function, kind):
    path, says = special_files()[kind]
    status, line = library_refusals[1][f"{function}-{kind}"]
    assert status == 2, line
    assert_says(line, path, says)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_inventory_volume_json_refused(library_refusals, kind):
    base, said = library_refusals
    path, says = special_files()[kind]
    status, line = said[f"inventory-{kind}"]
    assert status == 2, line
    assert_says(line, "volume_json data", says)
    assert (path if path.startswith("/") else str(base / path)) in line


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_manifest_refused(library_refusals, kind):
    path, says = special_files()[kind]
    status, line = library_refusals[1][f"manifest-{kind}"]
    assert status == 2, line
    assert_says(line, "manifest.json", "1,100 MiB" if kind == "sparse" else says)
    assert "not a valid manifest" not in line


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
