"""The README's code runs: every Python block and every command line, in the order a reader
meets them, in one fresh folder next to the repository's data (what a newcomer has after a
clone); the inventory example loads.

A command that cannot run here (it needs a fleet of client VMs, or is one of the two make
commands themselves) is listed in NOT_HERE with the reason and the test that covers it; any
other line that fails, or a new line that cannot run, fails this test.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from anfperf.runner import load_inventory
from tests.conftest import QUICK_JVM, TESTS

ROOT = TESTS.parent
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
#: Command lines run elsewhere, with why: (the words they start with, reason).
NOT_HERE = (
    (("make",), "the make targets themselves: CI runs `make test`; `make demo` is the demo"),
    (("anfperf", "demo"), "measures this machine for minutes: tests/report/test_demo.py"),
    (("--hosts", "inventory.yml"), "needs client VMs: tests/runner run it against sshd"),
)

pytestmark = pytest.mark.slow  # runs every README command and block: about 2 minutes


def readme_blocks(language: str) -> list[str]:
    """The README's fenced blocks of `language`, in order."""
    return [body for lang, body in FENCE.findall(README.read_text()) if lang == language]


def command_lines() -> list[str]:
    """Every command line of the README's bash blocks (comments and blanks left out)."""
    lines = []
    for block in readme_blocks("bash"):
        lines += [line for line in block.splitlines() if shlex.split(line, comments=True)]
    return lines


def _not_here(words: list[str]) -> str | None:
    if "--dry-run" in words:
        return None  # contacts no host: runs here
    for marker, reason in NOT_HERE:
        if words[: len(marker)] == list(marker) or _contains(words, marker):
            return reason
    return None


def _contains(words: list[str], marker: tuple[str, ...]) -> bool:
    n = len(marker)
    return len(marker) > 1 and any(tuple(words[i : i + n]) == marker for i in range(len(words)))


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory) -> Path:
    """A fresh folder holding the repository's data and notebooks, as a clone has them."""
    folder = tmp_path_factory.mktemp("readme")
    for name in ("data", "notebooks"):
        (folder / name).symlink_to(ROOT / name)
    return folder


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    # the newcomer's temporary files (start_run's console logs) stay in its folder, not in /tmp
    (cwd / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "TMPDIR": str(cwd / "tmp")}
    # the engines block's Spark as the suite's: 11 s less CPU; the README's code runs as written
    env["JAVA_TOOL_OPTIONS"] = f"{env.get('JAVA_TOOL_OPTIONS', '')} {QUICK_JVM}".strip()
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


def test_the_readme_has_code_to_run():
    assert len(readme_blocks("python")) >= 4 and len(command_lines()) >= 15


def test_every_command_and_python_block_runs_in_order(newcomer):
    anfperf = str(Path(sys.executable).with_name("anfperf"))
    ran, skipped = 0, []
    for lang, body in FENCE.findall(README.read_text()):
        if lang == "yaml":  # a file the commands after it use, named in its first line
            name = body.splitlines()[0].removeprefix("#").strip()
            assert re.fullmatch(r"[\w.-]+\.ya?ml", name), (
                f"README yaml block without a name:\n{body}"
            )
            (newcomer / name).write_text(body)
        elif lang == "python":
            proc = _run([sys.executable, "-c", body], newcomer)
            assert proc.returncode == 0, f"README block failed:\n{body}\n{proc.stderr[-3000:]}"
            ran += 1
        elif lang == "bash":
            for line in body.splitlines():
                words = shlex.split(line, comments=True)
                if not words:
                    continue
                if reason := _not_here(words):
                    skipped.append((line, reason))
                    continue
                assert words[0] == "anfperf", f"README command not an anfperf command: {line}"
                proc = _run([anfperf, *words[1:]], newcomer)
                assert proc.returncode == 0, f"README command failed: {line}\n{proc.stderr[-3000:]}"
                ran += 1
    assert ran >= 15
    assert all("--hosts" in line or line.split()[0] == "make" or " demo" in line
               for line, _ in skipped)  # fmt: skip


def test_the_inventory_example_loads(tmp_path):
    (block,) = [b for b in readme_blocks("yaml") if b.startswith("# inventory.yml")]
    path = tmp_path / "inventory.yml"
    path.write_text(block)
    inventory = load_inventory(path)
    assert inventory.names == ["vm1", "vm2", "vm3"]
    assert dict(inventory.hosts[0].volumes) == {"vol1": "/mnt/anf1", "vol2": "/mnt/anf2"}
