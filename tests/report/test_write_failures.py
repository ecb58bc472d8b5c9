"""Reports whose files cannot be written: a full disk (a real tmpfs), names that are not UTF-8.

Each ends in one line on stderr, never a traceback: exit status 1 when the disk is full (the
report failed), 2 for a folder name or a value anfperf cannot use (refused before any kernel
starts). Nothing half written is left: no empty ``.ipynb``, no part of an HTML file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.conftest import DATA, TESTS, small_tmpfs
from tests.test_cli_errors import full_folder

NOTEBOOK = DATA / "notebooks" / "failing.ipynb"  # divisor = 1: it runs to the end
#: A file name that is not UTF-8 (a file system allows any bytes but / and NUL).
NOT_UTF8 = b"r\xe9sum\xe9"

pytestmark = pytest.mark.slow  # report kernels, the anfperf command in processes of its own


def anfperf(*args: str | bytes | os.PathLike) -> subprocess.CompletedProcess:
    """The ``anfperf`` command of this checkout in its own process; arguments may be bytes."""
    return subprocess.run(
        [sys.executable, "-m", "anfperf.cli", *args],
        capture_output=True, text=True, timeout=300, cwd=TESTS.parent,
    )  # fmt: skip


def one_line(proc: subprocess.CompletedProcess, status: int) -> str:
    """The one line of stderr of a command that ended with `status`."""
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == status, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def filling_notebook(folder: Path) -> Path:
    """A notebook whose one cell fills the disk of the file ``ballast`` names (as another
    program could while a report runs), then prints 200 kB: more than the notebook written as
    the run started frees when it is overwritten."""
    fill = (
        "with open(ballast, 'wb', buffering=0) as fh:\n"
        "    try:\n"
        "        while True:\n"
        "            fh.write(bytes(65536))\n"
        "    except OSError as exc:\n"
        "        print(exc)\n"
        "print('x' * 200_000)\n"
    )
    params = nbformat.v4.new_code_cell("ballast = None  # help: a file to fill its disk with")
    params.metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(cells=[params, nbformat.v4.new_code_cell(fill)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    path = folder / "filling.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_report_onto_a_full_disk_is_one_line_and_leaves_nothing(tmp_path):
    # before: NotJSONError's traceback, exit 3, and a 0-byte failing.ipynb (papermill truncated
    # the file, the write failed, and the empty notebook was read back)
    with full_folder(tmp_path / "full") as full:
        proc = anfperf("report", NOTEBOOK, "--out", full / "out", "-p", "divisor", "1")
        line = one_line(proc, 1)
        assert line.startswith("anfperf: report failing failed: "), line
        assert f"cannot write {full / 'out' / 'failing.ipynb'}: No space left on device" in line
        assert os.listdir(full / "out") == []


def test_a_disk_filled_while_the_report_runs_leaves_nothing(tmp_path):
    # before: papermill truncated the notebook and wrote part of it, which was read back:
    # NotJSONError's traceback, exit 3, half a notebook left
    notebook = filling_notebook(tmp_path)
    with full_folder(tmp_path / "full") as full:
        (full / "filler").unlink()  # room for the notebook as the run starts
        out = full / "out"
        proc = anfperf("report", notebook, "--out", out, "-p", "ballast", full / "ballast")
        line = one_line(proc, 1)
        assert f"cannot write {out / 'filling.ipynb'}: No space left on device" in line
        # the notebook written as the run started is gone with the run that failed to end
        assert os.listdir(out) == []


def test_a_disk_too_small_for_the_html_keeps_the_notebook_and_no_part_of_the_page(tmp_path):
    # the notebook (a few kB) fits, the page (the lab theme's CSS: hundreds of kB) does not
    with small_tmpfs(tmp_path / "small", "64k") as small:
        proc = anfperf("report", NOTEBOOK, "--out", small, "-p", "divisor", "1")
        line = one_line(proc, 1)
        # before: 'HTML export failed: OSError: [Errno 28] No space left on device'
        assert line.endswith(f"cannot write {small / 'failing.html'}: No space left on device")
        assert os.listdir(small) == ["failing.ipynb"]
        assert nbformat.read(small / "failing.ipynb", as_version=4).cells[-1].outputs


def test_an_out_folder_not_in_utf8_is_refused_before_the_kernel(tmp_path):
    # before: a kernel ran, then NotJSONError's traceback, exit 3, a 0-byte notebook in it
    out = os.fsencode(tmp_path) + b"/" + NOT_UTF8
    proc = anfperf("report", NOTEBOOK, "--out", out, "-p", "divisor", "1")
    line = one_line(proc, 2)
    assert line == (
        f"anfperf: error: {tmp_path}/r\\xe9sum\\xe9: cannot write the report there: its name is "
        "not UTF-8 text, and a notebook holds UTF-8 only"
    )
    assert os.listdir(tmp_path) == []  # not made


def test_a_parameter_not_in_utf8_is_refused_before_the_kernel(tmp_path):
    proc = anfperf("report", NOTEBOOK, "--out", tmp_path / "out", "-p", "divisor", NOT_UTF8)
    line = one_line(proc, 2)
    assert line == (
        "anfperf: error: -p divisor: 'r\\xe9sum\\xe9' is not UTF-8 text, and a notebook holds "
        "UTF-8 only"
    )
    assert os.listdir(tmp_path) == []


def test_a_parameter_file_whose_name_is_not_utf8_is_refused_before_the_kernel(tmp_path):
    # the report is named after the file: failing-r\xe9sum\xe9.ipynb could not be written
    params = os.fsencode(tmp_path) + b"/" + NOT_UTF8 + b".yaml"
    Path(os.fsdecode(params)).write_text("divisor: 1\n")
    proc = anfperf("report", NOTEBOOK, "--out", tmp_path / "out", "-f", params)
    line = one_line(proc, 2)
    assert line == (
        "anfperf: error: report failing-r\\xe9sum\\xe9: its name is not UTF-8 text, and a "
        "notebook holds UTF-8 only"
    )
    assert sorted(os.listdir(tmp_path)) == [os.fsdecode(NOT_UTF8 + b".yaml")]
