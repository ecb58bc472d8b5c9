"""The packaging files agree with each other and with what the code needs."""

from __future__ import annotations

import ast
import hashlib
import importlib
import json
import os
import re
import shutil
import site
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

from anfperf.models.tables import DATA_FILES
from anfperf.report import REPORTS
from tests.conftest import TESTS

ROOT = TESTS.parent
_REQ = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\[[^\]]*\])?\s*(.*)$")  # extras left out


def _parse(spec: str) -> tuple[str, str]:
    name, bound = _REQ.match(spec).groups()
    return name.lower().replace("_", "-"), bound.replace(" ", "")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip_deps = dict(_parse(s) for s in project["dependencies"])
    for extra in ("test", "engines"):
        pip_deps.update(_parse(s) for s in project["optional-dependencies"][extra])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = dict(_parse(s) for s in env["dependencies"] if isinstance(s, str) and s != "pip")
    python_bound = conda.pop("python")
    assert python_bound == project["requires-python"]
    # conda-forge publishes these under other names; fio is not there at all (an OS package)
    renamed = {"python-duckdb": "duckdb", "playwright-python": "playwright"}
    assert {renamed.get(name, name): bound for name, bound in conda.items()} == pip_deps
    (pip_section,) = [s["pip"] for s in env["dependencies"] if isinstance(s, dict)]
    assert pip_section == ["--editable ."]  # anfperf itself


def test_makefile_offers_the_two_commands_and_ci_runs_make_test():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme


#: Where a shipped notebook nbval does not run (NBVAL_NOTEBOOKS in the Makefile) runs with its
#: defaults, no parameter given: the fixture or test that renders it.
DEFAULT_RUNS = {
    "capacity_planning.ipynb": "tests/report/test_capacity_notebook.py::default_report",
    "ingest_tour.ipynb": "tests/test_packaging.py::"
    "test_installed_wheel_makes_the_demo_and_reports_outside_the_tree",
}


def test_make_test_runs_every_notebook_once_with_its_defaults():
    """Each notebook of anfperf/notebooks runs with its defaults in `make test` exactly once: by
    nbval, or where DEFAULT_RUNS says; a new notebook is in neither list until it runs."""
    makefile = (ROOT / "Makefile").read_text()
    (listed,) = re.findall(r"^NBVAL_NOTEBOOKS := (.*)$", makefile, re.M)
    by_nbval = {Path(p) for p in listed.split()}
    assert {p.parent for p in by_nbval} == {Path("notebooks")}
    assert all((ROOT / p).is_file() for p in by_nbval)
    assert "$(NBVAL_NOTEBOOKS)" in makefile.split("\ntest:")[1].split("\n\n")[0]
    shipped = {p.name for p in (ROOT / "anfperf" / "notebooks").glob("*.ipynb")}
    nbval = {p.name for p in by_nbval}
    assert not nbval & DEFAULT_RUNS.keys(), "run twice"
    assert nbval | DEFAULT_RUNS.keys() == shipped, "a notebook no test runs with its defaults"
    for where in DEFAULT_RUNS.values():
        path, function = where.split("::")
        tree = ast.parse((ROOT / path).read_text())
        assert function in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, where
    # the inner loop: `make test-quick` leaves out what is marked slow, and the README says so
    assert re.search(r'^test-quick:.*\n\t.*-m "not slow"', makefile, re.M)
    assert "make test-quick" in (ROOT / "README.md").read_text()


def test_what_takes_seconds_is_marked_slow(request):
    """`make test-quick` (-m "not slow") runs no real fio, sshd, browser, wheel or README run."""
    from tests.conftest import SLOW_FIXTURES, SLOW_MARKERS

    for item in request.session.items:  # with -m "not slow": only what was kept
        drives = SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ()))  # nbval cells: none
        drives = drives or any(map(item.get_closest_marker, SLOW_MARKERS))
        whole = item.nodeid.startswith(("tests/test_readme.py", "tests/report/test_notebooks.py"))
        if drives or whole:
            assert item.get_closest_marker("slow"), f"{item.nodeid} is not marked slow"


def test_the_longest_modules_start_first(request):
    """`make test` hands out modules in collection order; those LONGEST_FIRST names exist and
    come first (a renamed one would silently start last again)."""
    from tests.conftest import LONGEST_FIRST

    assert all((ROOT / module).is_file() for module in LONGEST_FIRST)
    assert "--no-loadscope-reorder" in (ROOT / "Makefile").read_text()
    modules = list(dict.fromkeys(item.nodeid.split("::")[0] for item in request.session.items))
    first = [module for module in LONGEST_FIRST if module in modules]  # -m, -k: some left out
    assert modules[: len(first)] == first


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


# --------------------------------------------------------------------------------------------
# A regular (non-editable) install: the wheel, in a fresh venv, run outside the source tree

#: The plan the README shows: Ultra, 35.16 TiB (4,500 MiB/s / 128 MiB/s per TiB).
PLAN_ARGS = ["plan", "--bw-mib-s", "4500", "--bs-kib", "64", "--lat-slo-ms", "2"]
TABLES = set(DATA_FILES.values())  # the registered tables: the wheel carries them and no other


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory) -> tuple[Path, Path]:
    """(wheel, venv) with anfperf installed from its wheel; cwd of its runs is outside the tree.

    The wheel is built from a copy of what it is made of (pyproject.toml, README.md, anfperf/):
    no path into the checkout can make it work by accident. The venv is fresh and holds the
    wheel only; it finds the dependencies through a .pth line naming this venv's site-packages,
    and their data files (Jupyter's share/jupyter) through a link (no download, seconds instead
    of minutes). A plain path line does not run this venv's editable-install hook, so only the
    wheel's anfperf is importable there.
    """
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "anfperf", src / "anfperf", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    dist = root / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    build = subprocess.run(
        [*pip, "wheel", "--no-deps", "-q", "-w", str(dist), str(src)],
        capture_output=True, text=True, cwd=root,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    (wheel,) = dist.glob("anfperf-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [*pip, "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True, text=True, cwd=root,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    Path(purelib, "_anfperf_test_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # and their data files, as pip installs them into the venv (nbconvert's HTML templates)
    (venv / "share").mkdir()
    (venv / "share" / "jupyter").symlink_to(Path(sys.prefix, "share", "jupyter"))
    return wheel, venv


def _run_installed(venv: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    # cwd outside the checkout: `python -c` puts the cwd first on sys.path
    return subprocess.run(
        args, capture_output=True, text=True, cwd=cwd or venv,
        env={**env, "PYTHONNOUSERSITE": "1"},
    )  # fmt: skip


def test_wheel_carries_the_reference_tables_as_package_data(wheel_venv):
    wheel, _ = wheel_venv
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.removeprefix("anfperf/data/") for n in names if n.startswith("anfperf/data/")} == (
        TABLES
    )
    assert not [n for n in names if ".data/data/" in n]  # nothing outside the package
    assert "anfperf/py.typed" in names


def test_installed_wheel_imports_models_and_reads_its_tables(wheel_venv):
    _, venv = wheel_venv
    code = (
        "import anfperf, anfperf.models as m\n"
        "print(anfperf.__file__)\n"
        "print(m.data_dir())\n"
        "print(m.load_table('service_levels').set_index('level').loc['Ultra', 'mib_s_per_tib'])\n"
        "print(m.throughput_limit(10, 'Premium'))\n"
        "print(anfperf.__version__)\n"
    )
    out = _run_installed(venv, str(venv / "bin" / "python"), "-c", code)
    assert out.returncode == 0, out.stderr
    init, tables, ultra, premium_10tib, version = out.stdout.split("\n")[:5]
    assert Path(init).is_relative_to(venv) and Path(tables).is_relative_to(venv)
    assert not Path(init).is_relative_to(ROOT)
    assert {p.name for p in Path(tables).glob("*.csv")} == TABLES
    assert (float(ultra), float(premium_10tib)) == (128.0, 640.0)
    assert version == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_installed_wheel_plans(wheel_venv):
    _, venv = wheel_venv
    out = _run_installed(venv, str(venv / "bin" / "anfperf"), *PLAN_ARGS)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "What to buy"  # from the wheel's reference tables
    assert "\n  Service level     Ultra " in out.stdout
    assert "\n  Quota             35.16 TiB " in out.stdout
    # the same plan as from the checkout
    here = subprocess.run(
        [sys.executable, "-m", "anfperf.cli", *PLAN_ARGS], capture_output=True, text=True
    )
    assert here.returncode == 0 and here.stdout == out.stdout


def test_wheel_carries_the_report_notebooks_and_the_samples(wheel_venv):
    wheel, _ = wheel_venv
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("notebooks", "samples"):
        here = {
            p.relative_to(ROOT).as_posix()
            for p in (ROOT / "anfperf" / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and ".ipynb_checkpoints" not in p.parts
        }
        assert {n for n in names if n.startswith(f"anfperf/{folder}/")} == here
    assert {f"anfperf/notebooks/{nb}" for nb in REPORTS.values()} <= names
    assert "anfperf/samples/vdbench/RndReadThreads/flatfile.html" in names
    # one copy in git: the checkout's top-level folders are links into the package
    assert (ROOT / "notebooks").resolve() == (ROOT / "anfperf" / "notebooks").resolve()
    assert (ROOT / "data" / "samples").resolve() == (ROOT / "anfperf" / "samples").resolve()


def test_installed_wheel_draws_the_planners_sample_sweep(wheel_venv):
    _, venv = wheel_venv
    code = (
        "from anfperf.analysis.sweep import SAMPLE_SWEEP, load_sweep\n"
        "frame, source = load_sweep()\n"
        "print(SAMPLE_SWEEP, frame['threads'].nunique(), source, sep='\\n')\n"
    )
    out = _run_installed(venv, str(venv / "bin" / "python"), "-c", code)
    assert out.returncode == 0, out.stderr
    folder, threads, source = out.stdout.splitlines()
    assert Path(folder).is_relative_to(venv) and Path(folder, "flatfile.html").is_file()
    assert int(threads) > 5 and source == "RndReadThreads (bundled sample: a local disk, not ANF)"


def _text(html_path: Path) -> str:
    import html as html_lib

    page = html_path.read_text(encoding="utf-8")
    return html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_installed_wheel_makes_the_demo_and_reports_outside_the_tree(wheel_venv, tmp_path):
    # the notebooks and samples lived only in the checkout: from a wheel, `anfperf demo` and
    # `anfperf report` failed
    _, venv = wheel_venv
    anfperf = str(venv / "bin" / "anfperf")
    work = tmp_path / "elsewhere"  # the user's folder: nothing of the checkout in it
    (work / "runs").mkdir(parents=True)
    sample = ROOT / "anfperf" / "samples" / "fio" / "randread_qd4.json"
    shutil.copy(sample, work / "runs" / sample.name)

    demo = _run_installed(venv, anfperf, "demo", "--no-measure", "--out", "demo", cwd=work)
    assert demo.returncode == 0, demo.stderr
    text = _text(work / "demo" / "report.html")
    for run in ("qd_sweep_randread4k", "mix_sweep_randrw8k", "RndReadThreads", "A-direct"):
        assert run in text

    # by name, with a path relative to the cwd; the notebook run is the wheel's
    argv = ["report", "benchmark", "-p", "paths", "runs/randread_qd4.json", "--out", "out"]
    report = _run_installed(venv, anfperf, *argv, cwd=work)
    assert report.returncode == 0, report.stderr
    assert report.stdout.startswith(f"wrote {work / 'out' / 'benchmark_report.html'}")
    text = _text(work / "out" / "benchmark_report.html")
    assert "randread_qd4" in text and hashlib.sha256(sample.read_bytes()).hexdigest() in text
    meta = json.loads((work / "out" / "benchmark_report.ipynb").read_text())["metadata"]
    assert Path(meta["anfperf"]["notebook"]).is_relative_to(venv)
    assert meta["anfperf"]["inputs"][0]["path"] == str(work / "runs" / "randread_qd4.json")

    # no parameters: the kernel finds the samples in its own anfperf, the wheel's (it names
    # the file it skipped text of)
    tour = _run_installed(venv, anfperf, "report", "ingest", "--out", "out", cwd=work)
    assert tour.returncode == 0, tour.stderr
    (note,) = re.findall(
        r"(/\S+/client_2servers_jsonplus\.json): skipped", _text(work / "out" / "ingest_tour.html")
    )
    assert Path(note).is_relative_to(venv) and Path(note).is_file()
    assert not Path(note).is_relative_to(ROOT)
    assert sorted(p.name for p in work.iterdir()) == ["demo", "out", "runs"]


# --------------------------------------------------------------------------------------------
# What importing anfperf costs: the notebook, report and SSH stacks load where they are used

#: Top-level modules of the notebook/report stack and of the SSH fleet (fabric and what it
#: brings): none of them may load with the library's import.
HEAVY = ("plotly", "papermill", "nbconvert", "nbformat", "ipywidgets", "ipykernel", "IPython",
         "fabric", "paramiko", "invoke")  # fmt: skip
#: Lighter still: a bare `import anfperf` (and `anfperf --version`) loads no numerical stack.
NUMERIC = ("numpy", "pandas", "scipy", "pyarrow", "duckdb", "yaml")


def _loaded(statement: str, *, top: bool = True) -> set[str]:
    """Names in sys.modules of a fresh interpreter after `statement` (top-level only: `top`)."""
    names = "{m.split('.')[0] for m in sys.modules}" if top else "sys.modules"
    code = f"import sys\n{statement}\nprint(*sorted({names}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m in HEAVY or m.startswith("jupyter")}


@pytest.mark.parametrize(
    "statement",
    ["import anfperf.models", "import anfperf.ingest", "import anfperf.azure", "import anfperf.cli",
     "import anfperf.tools", "import anfperf.live",
     "from anfperf.cli import main; main(" + repr(PLAN_ARGS) + ")"],
)  # fmt: skip
def test_library_imports_leave_the_notebook_and_ssh_stacks_unloaded(statement):
    loaded = _loaded(statement)
    assert "anfperf" in loaded
    assert _heavy(loaded) == set()


def test_bare_import_loads_no_numerical_stack_and_the_heavy_parts_load_where_used():
    bare = _loaded("import anfperf")
    assert _heavy(bare) == set() and bare.isdisjoint(NUMERIC)
    # __version__ is read on first use: importlib.metadata was most of the import's time
    assert "importlib.metadata" not in _loaded("import anfperf", top=False)
    assert "importlib.metadata" in _loaded("import anfperf; anfperf.__version__", top=False)
    # not vacuous: where the heavy parts are used, they do load
    assert _heavy(_loaded("import anfperf.plots")) == {"plotly"}
    assert {"paramiko", "invoke"} <= _heavy(_loaded("import anfperf.runner"))


PUBLIC_MODULES = (
    "azure", "azure.resources", "azure.volume", "analysis.compare", "analysis.concurrency",
    "analysis.findings", "analysis.inputs", "analysis.provenance", "analysis.server_metrics",
    "analysis.summary", "analysis.sweep", "demo", "planning", "planning.planner", "planning.volume",
    "schema", "store", "ingest", "live", "live.record", "live.view", "live.launch", "models",
    "plots", "report", "runner", "tools", "workloads",
)  # fmt: skip


def test_tab_completion_and_help_offer_the_public_names():
    # anfperf.<TAB> offered only the error classes; help(anfperf) named neither read nor read_many
    code = (
        "import anfperf, pydoc, sys\n"
        "names = dir(anfperf)\n"
        "assert {'read', 'read_many', 'analysis', 'models', 'plots'} <= set(names), names\n"
        "assert 'anfperf.ingest' not in sys.modules  # dir() alone imports nothing heavy\n"
        "text = pydoc.render_doc(anfperf, renderer=pydoc.plaintext)\n"
        "assert 'read_many' in text and 'analysis' in text\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_modules_offer_their_own_names_only(name):
    module = importlib.import_module(f"anfperf.{name}")
    assert module.__all__, name
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert missing == []
    assert dir(module) == sorted(module.__all__)
    # every public function and class defined there is offered (a new one is not forgotten)
    source = Path(module.__file__).read_text()
    defined = {
        node.name
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")
    }
    assert defined <= set(module.__all__)
    assert not {"np", "pd", "math", "warnings", "os", "go"} & set(dir(module))


def test_a_module_of_the_analysis_layer_loads_only_what_it_uses():
    # `anfperf report` reads provenance before any kernel starts: through an eager
    # anfperf.analysis package it loaded the models and scipy too
    assert "scipy" not in _loaded("import anfperf.analysis.provenance")
    assert "scipy" not in _loaded("import anfperf.analysis; anfperf.analysis.summary_table")
    # not vacuous: the names the package offers still load their modules when used
    assert "scipy" in _loaded("from anfperf.analysis import check_concurrency")


def test_a_report_kernels_imports_leave_scipy_stats_unloaded():
    # scipy.stats takes about 0.6 s to import (its docstrings are parsed): every report kernel
    # and command that models paid it for one normal quantile in the mix band
    statement = "import anfperf.models, anfperf.analysis.findings, anfperf.plots, anfperf.report"
    loaded = _loaded(statement, top=False)
    assert "scipy.optimize" in loaded and "scipy.stats" not in loaded


def test_a_plain_run_loads_no_models():
    # every `anfperf run` loaded scipy and the models (about 0.5 s) through runner.sweeps:
    # only an adaptive sweep's chooser or a described volume's limit needs them
    assert "scipy" not in _loaded("import anfperf.runner")
    assert "scipy" in _loaded("import anfperf.adaptive")  # not vacuous: where they are used
