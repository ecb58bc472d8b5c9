"""Issue 9, items 21-23: runs stopped early are flagged, a run folder without a readable
manifest keeps its hosts, and hostile files cost bounded time and memory."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import warnings
import zlib
from pathlib import Path

import pytest

import anfperf
from anfperf.cli import main
from anfperf.errors import ParseError
from tests.conftest import DATA, DROP_CAPS, TESTS

FIO = DATA / "fio"


def quietly(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# -- item 21: stopped early ------------------------------------------------------------------


def test_fio_stopped_by_a_signal_is_flagged_with_a_warning():
    path = FIO / "terminated_sigterm.json"  # real: SIGTERM 2 s into a 30 s run
    raw = json.loads(path.read_text()[path.read_text().index("{") :])
    assert raw["jobs"][0]["job options"]["runtime"] == "30"
    assert raw["jobs"][0]["read"]["runtime"] < 3000  # ms: it ran about 2 s
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = anfperf.read_many([path])
    said = [str(w.message) for w in caught]
    assert len(said) == 2, said  # fio's message before its JSON, and what it means
    assert "skipped 1 line(s) of text outside the fio JSON" in said[0]
    assert "fio was stopped (terminating on signal 15)" in said[1]
    assert frame["interrupted"].all() and len(frame) > 0  # before: a normal result
    normal = quietly(anfperf.read_many, [FIO / "randread_qd4.json"])
    assert not normal["interrupted"].any()


def test_tasks_the_manifest_records_as_stopped_are_flagged(local_fio_run, tmp_path):
    run = tmp_path / local_fio_run.name
    shutil.copytree(local_fio_run, run)
    doc = json.loads((run / "manifest.json").read_text())
    first = doc["steps"][0]
    (host,) = first["tasks"]
    task = first["tasks"][host]
    task.update(status="interrupted", reason="stopped by SIGTERM")
    (run / "manifest.json").write_text(json.dumps(doc))
    with pytest.warns(UserWarning, match=r"stopped before its planned end \(interrupted: stopped"):
        frame = anfperf.read_many([run])
    stopped = frame["source_file"] == str(run / task["collected"][0])
    assert stopped.any() and frame.loc[stopped, "interrupted"].all()
    assert not frame.loc[~stopped, "interrupted"].any()  # the other step ran to its end
    untouched = quietly(anfperf.read_many, [local_fio_run])
    assert not untouched["interrupted"].any()


# -- item 22: no readable manifest -----------------------------------------------------------


def test_a_damaged_manifest_leaves_the_folder_layout_to_name_run_and_host(local_fio_run, tmp_path):
    run = tmp_path / local_fio_run.name
    shutil.copytree(local_fio_run, run)
    hosts = [p.name for p in run.iterdir() if p.is_dir()]
    (run / "manifest.json").write_text('{"run_id": "trunc')
    with pytest.warns(UserWarning, match="taken from its folder layout"):
        frame = anfperf.read_many([run])
    # before: run_id = each file's stem, host = 'localhost'
    assert set(frame["run_id"]) == {run.name}
    assert set(frame["host"]) == set(hosts)


def test_a_manifest_this_user_cannot_read_says_so(local_fio_run, tmp_path):
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("root reads every file; setpriv is needed to read as an ordinary user")
    run = tmp_path / local_fio_run.name
    shutil.copytree(local_fio_run, run)
    tmp_path.chmod(0o755)
    (run / "manifest.json").chmod(0)
    prefix = DROP_CAPS if os.geteuid() == 0 else []
    code = (
        "import sys, warnings\nimport anfperf\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    f = anfperf.read_many([sys.argv[1]])\n"
        "print(sorted(set(f['run_id'])), sorted(set(f['host'])))\n"
        "print(' | '.join(str(x.message) for x in w))\n"
    )
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", code, str(run)], capture_output=True, text=True,
        timeout=60, cwd=TESTS.parent,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    ids, warned = proc.stdout.splitlines()
    hosts = sorted(p.name for p in run.iterdir() if p.is_dir())
    assert ids == f"{[run.name]} {hosts}"
    assert "manifest.json: cannot be read (Permission denied)" in warned


# -- item 23: bounded cost -------------------------------------------------------------------


def run_python(code: str, *args: str, timeout_s: float = 60) -> tuple[list[str], float]:
    """Run `code` in a fresh interpreter: (its output lines, wall time [s])."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout_s,
        cwd=TESTS.parent,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines(), time.monotonic() - start


MEASURE = (
    "import sys, warnings\nimport anfperf\n"
    "with warnings.catch_warnings(record=True) as w:\n"
    "    warnings.simplefilter('always')\n"
    "    f = anfperf.read_many(sys.argv[1:], errors='warn')\n"
    "print(len(f))\n"
    "print(' | '.join(str(x.message) for x in w))\n"
    # the peak of this program's own memory (ru_maxrss would count the forking parent's)
    "print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])\n"
)


def test_a_huge_sparse_file_is_refused_without_being_read(tmp_path):
    zeros = tmp_path / "zeros.json"
    with open(zeros, "wb") as fh:
        fh.truncate(2 * 2**30)  # 2 GiB, no blocks on disk
    fio_like = tmp_path / "big.json"
    with open(fio_like, "wb") as fh:
        fh.write(b'{"fio version": "fio-3.33", "jobs": [')
        fh.truncate(2 * 2**30)
    out, elapsed = run_python(MEASURE, str(zeros), str(fio_like))
    rows, warned, maxrss_kib = int(out[0]), out[1], int(out[2])
    assert rows == 0
    assert f"skipped {zeros}: not fio JSON" in warned
    assert f"skipped {fio_like}: 2,048 MiB: more than the 256 MiB" in warned
    # before: read whole before sniffing, 2.3 GB RSS
    assert maxrss_kib < 400_000 and elapsed < 30


def _write_gzip_bomb(path: Path, head: bytes, zeros_mib: int) -> None:
    """One gzip member: `head`, then `zeros_mib` MiB of b"0", from a few KiB of deflate data.

    Compressing the zeros took 20-40 s (a quarter of the quick tests). After a full flush the
    compressor keeps no history, so every MiB of zeros deflates to the same bytes: make them
    once and repeat them; the CRC-32 and size of the trailer make it a valid gzip file.
    """
    zeros = b"0" * 2**20
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)  # raw deflate, framed here
    block = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(head)
    for _ in range(zeros_mib):
        crc = zlib.crc32(zeros, crc)
    with open(path, "wb") as fh:
        # RFC 1952 header: magic, deflate, no flags, no mtime, no extra flags, OS unknown
        fh.write(b"\x1f\x8b\x08\x00" + b"\x00" * 4 + b"\x00\xff")
        opener = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        fh.write(opener.compress(head) + opener.flush(zlib.Z_FULL_FLUSH))
        fh.write(block * zeros_mib)
        fh.write(packer.flush())  # the final (empty) block
        fh.write(struct.pack("<II", crc, (len(head) + zeros_mib * 2**20) % 2**32))


def test_the_gzip_bomb_is_a_valid_gzip_file_of_its_size(tmp_path):
    path = tmp_path / "small.gz"
    head = b'{"fio version": "fio-3.33", "jobs": ['
    _write_gzip_bomb(path, head, 3)
    assert gzip.decompress(path.read_bytes()) == head + b"0" * 3 * 2**20  # checks CRC and size


def test_a_gzip_bomb_is_refused_at_the_limit(tmp_path):
    bomb = tmp_path / "bomb.json.gz"
    # 2 GiB once decompressed
    _write_gzip_bomb(bomb, b'{"fio version": "fio-3.33", "jobs": [' + b" " * 100, 2048)
    assert bomb.stat().st_size < 5 * 2**20
    out, elapsed = run_python(MEASURE, str(bomb))
    rows, warned, maxrss_kib = int(out[0]), out[1], int(out[2])
    assert rows == 0
    assert f"skipped {bomb}: it decompresses to more than the 256 MiB" in warned
    assert "--max-file-mib" in warned
    # before: 6.5 GB for a 14 MB bomb
    assert maxrss_kib < 900_000 and elapsed < 40


def test_the_limit_can_be_raised(tmp_path, capsys):
    src = (FIO / "jsonplus_randrw_numjobs2.json").read_bytes()
    packed = tmp_path / "plus.json.gz"
    packed.write_bytes(gzip.compress(src))
    limit_mib = len(src) / 2 / 2**20  # half the file
    with pytest.raises(ParseError, match="decompresses to more than"):
        anfperf.read_many([packed], max_mib=limit_mib)
    with pytest.raises(ParseError, match="more than"):
        anfperf.read(FIO / "jsonplus_randrw_numjobs2.json", max_mib=limit_mib)
    assert len(quietly(anfperf.read_many, [packed], max_mib=1)) > 0
    assert len(quietly(anfperf.read_many, [packed])) > 0  # the default limit is far above
    assert main(["ingest", str(packed), "--max-file-mib", str(limit_mib)]) == 1
    assert "decompresses to more than" in capsys.readouterr().err
    assert main(["ingest", str(packed), "--max-file-mib", "1"]) == 0
    with pytest.raises(SystemExit):
        main(["ingest", str(packed), "--max-file-mib", "-1"])
    assert "not a positive number" in capsys.readouterr().err
