"""The packaging files agree with each other and with what the code needs."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import yaml

from tests.conftest import TESTS

ROOT = TESTS.parent
_REQ = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$")


def _parse(spec: str) -> tuple[str, str]:
    name, bound = _REQ.match(spec).groups()
    return name.lower().replace("_", "-"), bound.replace(" ", "")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip_deps = dict(_parse(s) for s in project["dependencies"])
    pip_deps.update(_parse(s) for s in project["optional-dependencies"]["test"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = dict(_parse(s) for s in env["dependencies"] if isinstance(s, str))
    python_bound = conda.pop("python")
    assert python_bound == project["requires-python"]
    conda.pop("fio")  # a system tool: apt-get on Debian, conda-forge for conda users
    assert conda == pip_deps


def test_makefile_offers_the_two_commands_and_ci_runs_make_test():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme


def test_version_command():
    out = subprocess.run(
        [sys.executable, "-m", "anfperf.cli", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert re.fullmatch(r"anfperf \d+\.\d+\.\d+\S*\n", out.stdout)


def test_top_level_api_reads_real_output():
    import anfperf
    from tests.conftest import DATA

    frame = anfperf.read(DATA / "vdbench" / "RndRead")
    assert anfperf.read_many([DATA / "vdbench" / "RndRead"]).equals(frame)
    assert anfperf.models.threads_needed(3500, 1.14) == 4
    assert "iops" in set(anfperf.schema.COLUMN_NAMES)
