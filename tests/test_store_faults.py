"""The store under faults: one schema for every run, atomic partitions, a lock, hostile run ids.

Real processes are killed with SIGKILL in the middle of writes, and a real tmpfs fills up; after
each, pandas and DuckDB must read the store and every run that was saved before must be whole.
"""

from __future__ import annotations

import ast
import contextlib
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import pandas as pd
import pytest

import anfperf
from anfperf.cli import main
from anfperf.errors import AnfperfError
from anfperf.store import (
    MAX_RUN_ID_BYTES,
    PART_NAME,
    TMP_PREFIX,
    list_runs,
    load_store,
    save_frame,
)
from tests.conftest import DATA, PUBLIC, TESTS, small_tmpfs

SAMPLES = TESTS.parent / "data" / "samples"

pytestmark = pytest.mark.slow  # processes killed with SIGKILL, writers racing, a full tmpfs


def read(paths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many(paths)


def test_a_store_grown_run_by_run_from_every_kind_reads_back(tmp_path):
    store = tmp_path / "store"
    inputs = [
        DATA / "vdbench" / "RndRead",  # no histograms: lat_bins all empty
        SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json",  # json+ histograms
        DATA / "fio" / "randread_qd4.json",
        DATA / "vdbench" / "MultiHostSeqMix",
    ]
    diskspd = PUBLIC / "diskspd" / "d01_pkb_2.0.21a.xml"
    if diskspd.exists():
        inputs.append(diskspd)
    expected = 0
    for path in inputs:
        frame = read([path])
        save_frame(frame, store)
        expected += len(frame)
        # after every save, every reader reads all of it
        assert len(pd.read_parquet(store)) == expected
        assert list_runs(store)["rows"].sum() == expected
    back = load_store(store)
    assert len(back) == expected and back["lat_bins"].notna().sum() > 0


def test_the_issue_case_two_plain_ingests_into_one_store(tmp_path, capsys):
    store = str(tmp_path / "S")
    assert main(["ingest", str(SAMPLES / "vdbench"), "--run-id", "A", "--out", store]) == 0
    assert main(["ingest", str(SAMPLES), "--run-id", "B", "--out", store]) == 0
    capsys.readouterr()
    runs = pd.read_parquet(store).groupby("run_id", observed=True).size()
    assert set(runs.index) == {"A", "B"} and runs["B"] > runs["A"]


WRITER = textwrap.dedent(
    """
    import sys, warnings
    warnings.simplefilter("ignore")
    import pandas as pd, anfperf
    from anfperf.store import save_frame
    frame = anfperf.read_many([sys.argv[2]])
    big = pd.concat([frame] * int(sys.argv[3]), ignore_index=True).assign(run_id="R")
    print("ready", flush=True)
    while True:
        save_frame(big, sys.argv[1])
    """
)


def writer(store, copies: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(store), str(SAMPLES / "vdbench"), str(copies)],
        stdout=subprocess.PIPE, text=True, cwd=TESTS.parent,
    )  # fmt: skip
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_sigkill_during_a_rewrite_leaves_the_old_or_the_new_run_whole(tmp_path):
    store = tmp_path / "store"
    keep = read([DATA / "vdbench" / "RndRead"])
    save_frame(keep, store)
    samples = read([SAMPLES / "vdbench"])
    rows_per_copy = len(samples)
    save_frame(pd.concat([samples] * 40, ignore_index=True).assign(run_id="R"), store)
    for trial, wait_s in enumerate((0.05, 0.2, 0.45, 0.8, 1.3)):
        proc = writer(store, 40)
        time.sleep(wait_s)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        frame = pd.read_parquet(store)  # never unreadable
        sizes = frame.groupby("run_id", observed=True).size().to_dict()
        assert sizes.get("RndRead") == len(keep), trial
        assert sizes.get("R") == 40 * rows_per_copy, trial  # the old or the new R, whole
        assert [p.name for p in store.glob("run_id=*/*.parquet")] == [PART_NAME] * len(sizes)
    save_frame(keep, store)  # the next save clears what a killed writer left
    assert not list(store.glob("run_id=*/.tmp-*"))


def test_concurrent_saves_of_one_run_never_duplicate_rows(tmp_path):
    store = tmp_path / "store"
    procs = [writer(store, 5) for _ in range(2)]
    # both rewrite the run over and over: kill them once it is there and they have raced a
    # while (not at a fixed second, which a loaded machine's first save can take up)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(store.glob("run_id=R/*.parquet")):
        time.sleep(0.05)
    time.sleep(1.0)
    for proc in procs:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    rows_per_copy = len(read([SAMPLES / "vdbench"]))
    assert len(load_store(store, run_ids="R")) == 5 * rows_per_copy


def test_disk_full_is_a_clear_error_and_loses_nothing(tmp_path):
    with small_tmpfs(tmp_path / "small", "600k") as small:
        store = small / "store"
        keep = read([DATA / "vdbench" / "RndRead"])
        save_frame(keep, store)
        frame = read([SAMPLES / "vdbench"])
        big = pd.concat([frame] * 1000, ignore_index=True).assign(run_id="big")  # ~1 MB
        with pytest.raises(AnfperfError, match=r"could not write run 'big'.*No space left"):
            save_frame(big, store)
        assert len(pd.read_parquet(store)) == len(keep)
        assert not list(store.glob("run_id=*/.tmp-*"))  # the half-written file is gone
        with pytest.raises(AnfperfError, match="could not write"):
            save_frame(big, small / "frame.parquet")  # one file: no truncated file left
        assert not (small / "frame.parquet").exists()
        assert not [p for p in small.iterdir() if p.name.startswith(".tmp-")]


@pytest.mark.parametrize(
    "run_id, message",
    [("__HIVE_DEFAULT_PARTITION__", "cannot name a store partition"),
     ("x" * 300, "too long for a store partition"),
     ("   ", "cannot name a store partition")],
    ids=["hive-null", "300-chars", "blank"],
)  # fmt: skip
def test_hostile_run_ids_are_refused_before_anything_is_written(tmp_path, run_id, message):
    store = tmp_path / "store"
    save_frame(read([DATA / "fio" / "randread_qd4.json"]), store)
    before = sorted(p.name for p in store.rglob("*"))
    bad = read([DATA / "fio" / "randread_qd4.json"]).assign(run_id=run_id)
    with pytest.raises(AnfperfError, match=message):
        save_frame(bad, store)
    assert sorted(p.name for p in store.rglob("*")) == before
    assert len("x" * 300) > MAX_RUN_ID_BYTES


# --------------------------------------------------------------------------------------------
# `anfperf ingest` killed while writing, and a disk that fills in the middle of many runs


def ingest_command(out, *paths) -> list[str]:
    return [
        sys.executable, "-m", "anfperf.cli", "ingest", *map(str, paths), "--out", str(out),
        "--max-rows", "1",
    ]  # fmt: skip


def temporaries(folder) -> list[str]:
    """Names of the files being written (or left by a killed writer) under `folder`."""
    return sorted(p.name for p in folder.rglob(f"{TMP_PREFIX}*"))


def temporary_sizes(folder) -> list[tuple[str, int]]:
    """(name, bytes) of the temporary files under `folder` (renamed meanwhile: left out)."""
    sizes = []
    for path in folder.rglob(f"{TMP_PREFIX}*"):
        with contextlib.suppress(FileNotFoundError):
            sizes.append((path.name, path.stat().st_size))
    return sizes


def many_runs(folder, count: int):
    """`count` runs of fio json+ (14 rows each): writing their frame takes a while."""
    folder.mkdir()
    for i in range(count):
        shutil.copy(SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json", folder / f"r{i}.json")
    return folder


def stopped_while_writing(out, inputs, *, besides=()) -> subprocess.Popen:
    """An `anfperf ingest --out out` process stopped (SIGSTOP) in the middle of writing a
    temporary file (one holding data, other than `besides`; into a store, after a first run
    was saved): alive, its writing unfinished."""
    folder = out.parent
    for _ in range(10):
        proc = subprocess.Popen(
            ingest_command(out, inputs), cwd=TESTS.parent,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

        def writing() -> bool:
            if not out.suffix and not any(out.glob(f"run_id=*/{PART_NAME}")):
                return False
            return any(name not in besides and size > 0 for name, size in temporary_sizes(folder))

        while proc.poll() is None and not writing():
            time.sleep(0.002)
        if proc.poll() is None:
            proc.send_signal(signal.SIGSTOP)
            if writing():
                return proc
            proc.send_signal(signal.SIGCONT)
        proc.wait(timeout=120)  # finished before it could be stopped: again
        if out.is_dir():
            shutil.rmtree(out)
        else:
            out.unlink(missing_ok=True)
    raise AssertionError(f"anfperf ingest --out {out} was never caught writing")


def read_out(out) -> pd.DataFrame:
    return pd.read_csv(out) if out.suffix == ".csv" else load_store(out)


@pytest.mark.parametrize("name", ["frame.csv", "store"])
def test_an_ingest_killed_while_writing_leaves_nothing_after_the_next(tmp_path, name):
    inputs = many_runs(tmp_path / "in", 100)
    out = tmp_path / "out" / name
    proc = stopped_while_writing(out, inputs)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert temporaries(out.parent)  # what the killed ingest was writing is still there
    if out.suffix != ".csv":  # the store reads as it is: the runs saved before the kill, whole
        saved = [p.parent.name for p in out.glob(f"run_id=*/{PART_NAME}")]
        runs = subprocess.run(
            [sys.executable, "-m", "anfperf.cli", "runs", str(out), "--max-rows", "1000"],
            cwd=TESTS.parent, capture_output=True, text=True,
        )  # fmt: skip
        assert runs.returncode == 0, runs.stderr
        assert f"{len(saved)} runs, {14 * len(saved)} rows in {out}" in runs.stdout
        assert TMP_PREFIX not in runs.stdout + runs.stderr
    again = subprocess.run(ingest_command(out, inputs), cwd=TESTS.parent, capture_output=True)
    assert again.returncode == 0, again.stderr
    assert temporaries(out.parent) == []
    back = read_out(out)
    assert len(back) == 100 * 14 and back["run_id"].nunique() == 100


def test_the_temporary_file_of_a_running_ingest_is_left_alone(tmp_path):
    inputs = many_runs(tmp_path / "in", 100)
    out = tmp_path / "out" / "frame.csv"
    dead = stopped_while_writing(out, inputs)
    dead.send_signal(signal.SIGKILL)
    dead.wait(timeout=30)
    [stale] = temporaries(out.parent)
    alive = stopped_while_writing(out, inputs, besides={stale})  # still running
    [running] = set(temporaries(out.parent)) - {stale}
    try:
        one = DATA / "fio" / "randread_qd4.json"
        other = subprocess.run(ingest_command(out, one), cwd=TESTS.parent, capture_output=True)
        assert other.returncode == 0, other.stderr
        # the killed writer's file is removed, the running writer's is not
        assert temporaries(out.parent) == [running]
        assert len(pd.read_csv(out)) == len(read([one]))
    finally:
        alive.send_signal(signal.SIGCONT)
    assert alive.wait(timeout=120) == 0  # and it finishes its own write
    assert temporaries(out.parent) == []
    assert len(pd.read_csv(out)) == 100 * 14


def test_a_disk_filled_by_a_multi_run_ingest_names_the_saved_and_the_unsaved_runs(tmp_path, capsys):
    expected = read([SAMPLES])
    every = set(expected["run_id"])
    with small_tmpfs(tmp_path / "small", "160k") as small:
        store = small / "store"
        assert main(["ingest", str(SAMPLES), "--out", str(store), "--max-rows", "1"]) == 1
        err = capsys.readouterr().err.splitlines()
        error = [line for line in err if line.startswith("anfperf: error:")]
        assert len(error) == 1 and str(store) in error[0] and "No space left" in error[0]
        lists = {}
        for line in err:
            label, _, ids = line.strip().partition(": ")
            if label in ("saved", "not saved"):
                lists[label] = ast.literal_eval(f"[{ids}]")
        saved, unsaved = lists["saved"], lists["not saved"]
        assert saved and unsaved  # the disk filled in the middle
        assert set(saved) | set(unsaved) == every and not set(saved) & set(unsaved)
        assert f"{len(saved)} of {len(every)} runs saved" in error[0]
        # the store holds exactly the runs said saved, each whole
        assert sorted(list_runs(store)["run_id"]) == sorted(saved)
        back = load_store(store)
        want = expected[expected["run_id"].isin(saved)]
        key = ["run_id", "source_file", "host", "job", "workload", "step", "direction", "interval"]
        pd.testing.assert_frame_equal(
            back.sort_values(key).reset_index(drop=True),
            want.sort_values(key).reset_index(drop=True),
        )
        assert temporaries(store) == []
        assert [p for p in store.glob("run_id=*") if not (p / PART_NAME).exists()] == []
