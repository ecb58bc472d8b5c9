"""The package is layered as ARCHITECTURE.md says: the page's layer table is read here, so the
page and the code cannot drift apart.

Every import of every module of anfperf counts: at module level or inside a function, under
``if TYPE_CHECKING:`` too (``farm-studio look`` counts those, and so does a reader), ``import x``,
``from x import y``, ``from anfperf import name`` and relative imports. A module imports only
modules of its own layer or of layers before it in the table (within a layer whose modules cell
has an order, ``a < b``, of its own group or one before it), and no modules import each other in
a circle, however long.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import TESTS

ROOT = TESTS.parent
PACKAGE = "anfperf"
PAGE = ROOT / "ARCHITECTURE.md"

_CELL_BREAK = re.compile(r"(?<!\\)\|")  # a cell's text may hold an escaped \|
_NAME = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Layer:
    """One row of the layer table: its modules in groups, each group after the one before."""

    name: str
    groups: tuple[tuple[str, ...], ...]
    line: int  # of the page


@dataclass(frozen=True)
class Import:
    """One module imported by one statement."""

    path: Path
    line: int
    text: str  # the statement
    target: str  # the module it names (a package stands for its __init__.py)


def layer_table(page: str) -> list[Layer]:
    """The rows of the first table under '## Layers': name, then modules cell.

    The modules cell holds module names in backticks, relative to the package (`schema`, `ingest`:
    a name stands for the module and every module under it; `models.__init__` for the package's
    own ``__init__.py`` alone, `__init__` for the top package's), separated by commas, or by '<'
    where the modules of a layer are themselves in order.
    """
    lines = page.splitlines()
    try:
        at = lines.index("## Layers")
    except ValueError:
        raise AssertionError(f"{PAGE.name}: no '## Layers' section") from None
    layers: list[Layer] = []
    header_seen = False
    for number, line in enumerate(lines[at + 1 :], start=at + 2):
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            if header_seen:
                break  # the table ended
            continue
        cells = [cell.strip() for cell in _CELL_BREAK.split(line.strip().strip("|"))]
        if not header_seen:
            assert cells[:2] == ["layer", "modules"], f"{PAGE.name}:{number}: {cells[:2]}"
            header_seen = True
            continue
        if set(cells[0]) <= set("-: "):
            continue  # the header's rule
        groups = []
        for group in cells[1].split("<"):
            names = tuple(_NAME.findall(group))
            rest = _NAME.sub("", group)
            assert names and set(rest) <= set(", "), (
                f"{PAGE.name}:{number}: layer {cells[0]!r}: the modules cell must be module names "
                f"in backticks separated by ',' or '<', not {cells[1]!r}"
            )
            groups.append(names)
        layers.append(Layer(cells[0], tuple(groups), number))
    assert layers, f"{PAGE.name}: no layer table under '## Layers'"
    return layers


def package_modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    modules = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def module_imports(module: str, path: Path, modules: dict[str, Path], package: str) -> list[Import]:
    """The package's modules that `module` imports, one per module a statement names, wherever
    the statement stands (a function, ``if TYPE_CHECKING:``); a name under the package that is
    no module of it is an Import whose target is not in `modules`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                start = ".".join(base + ([node.module] if node.module else []))
            else:
                start = node.module or ""
            named = []
            for alias in node.names:
                sub = f"{start}.{alias.name}"
                # `from p import m`: the module m when there is one, else what p's module defines
                named.append(sub if sub in modules else start)
        else:
            continue
        text = ast.unparse(node)
        for name in dict.fromkeys(named):  # `from m import a, b` imports m once
            if name == package or name.startswith(package + "."):
                found.append(Import(path, node.lineno, text, name))
    return found


def import_graph(root: Path, package: str) -> tuple[dict[str, Path], dict[str, list[Import]]]:
    modules = package_modules(root, package)
    return modules, {m: module_imports(m, p, modules, package) for m, p in modules.items()}


@dataclass(frozen=True)
class Place:
    layer: int
    group: int
    entry: str  # the table's name that holds the module
    label: str  # for messages


def placer(layers: list[Layer], package: str):
    """``place(module) -> Place | None``: where the table puts a module (the longest name that
    holds it), None when no layer names it."""
    entries: dict[str, Place] = {}
    for i, layer in enumerate(layers):
        for g, group in enumerate(layer.groups):
            for entry in group:
                label = layer.name if len(layer.groups) == 1 else f"{layer.name} [{entry}]"
                entries[entry] = Place(i, g, entry, label)

    def place(module: str) -> Place | None:
        rel = module[len(package) + 1 :] if module != package else ""
        if not rel:
            return entries.get("__init__")
        if f"{rel}.__init__" in entries:
            return entries[f"{rel}.__init__"]  # the package's own __init__.py
        parts = rel.split(".")
        for n in range(len(parts), 0, -1):
            found = entries.get(".".join(parts[:n]))
            if found is not None:
                return found
        return None

    return place


def table_problems(layers: list[Layer], modules: dict[str, Path], package: str) -> list[str]:
    """Names in the table that are no module, or that two rows give."""
    problems = []
    seen: dict[str, str] = {}
    for layer in layers:
        for entry in (e for group in layer.groups for e in group):
            where = f"{PAGE.name}:{layer.line}: layer {layer.name!r}"
            if entry in seen:
                problems.append(f"{where} names `{entry}`, which layer {seen[entry]!r} names too")
            seen[entry] = layer.name
            if entry == "__init__":
                exists = package in modules
            elif entry.endswith(".__init__"):
                full = f"{package}.{entry.removesuffix('.__init__')}"
                exists = full in modules and modules[full].name == "__init__.py"
            else:
                exists = f"{package}.{entry}" in modules
            if not exists:
                problems.append(f"{where} names `{entry}`, which is no module of {package}")
    return problems


def unlisted(layers: list[Layer], modules: dict[str, Path], package: str, root: Path) -> list[str]:
    place = placer(layers, package)
    return [
        f"{path.relative_to(root)}: module {module} is in no layer of {PAGE.name}"
        for module, path in modules.items()
        if place(module) is None
    ]


def upward_imports(
    layers: list[Layer], graph: dict[str, list[Import]], modules: dict[str, Path], package: str,
    root: Path,
) -> list[str]:  # fmt: skip
    """Imports of a later layer (or of a later group of the same layer), and of no module."""
    place = placer(layers, package)
    problems = []
    for module, imports in graph.items():
        mine = place(module)
        for imp in imports:
            where = f"{imp.path.relative_to(root)}:{imp.line}: `{imp.text}`"
            if imp.target not in modules:
                problems.append(f"{where}: {imp.target} is no module of {package}")
                continue
            theirs = place(imp.target)
            if mine is None or theirs is None:
                continue  # named by the unlisted test
            if (theirs.layer, theirs.group) > (mine.layer, mine.group):
                problems.append(
                    f"{where}: {module} ({mine.label}) imports {imp.target} ({theirs.label}), "
                    "a later layer"
                )
    return problems


def circles(graph: dict[str, list[Import]]) -> list[list[str]]:
    """Modules that import each other in a loop: the strongly connected components of more than
    one module (Tarjan's algorithm), each sorted, in order of their first module."""
    edges = {
        m: sorted({i.target for i in imports if i.target in graph}) for m, imports in graph.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def circle_text(members: list[str], graph: dict[str, list[Import]], root: Path) -> str:
    ties = [
        f"  {imp.path.relative_to(root)}:{imp.line}: `{imp.text}`"
        for m in members
        for imp in graph[m]
        if imp.target in members and imp.target != m
    ]
    return f"circle of {len(members)} modules: {', '.join(members)}\n" + "\n".join(ties)


# --------------------------------------------------------------------------- the package


@pytest.fixture(scope="module")
def layers() -> list[Layer]:
    return layer_table(PAGE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def graph() -> tuple[dict[str, Path], dict[str, list[Import]]]:
    return import_graph(ROOT, PACKAGE)


def test_every_name_in_the_layer_table_is_a_module(layers, graph):
    modules, _ = graph
    problems = table_problems(layers, modules, PACKAGE)
    assert not problems, "\n".join(problems)


def test_every_module_is_in_a_layer(layers, graph):
    modules, _ = graph
    problems = unlisted(layers, modules, PACKAGE, ROOT)
    assert not problems, "\n".join(problems)


def test_imports_run_down_the_layer_table(layers, graph):
    modules, imports = graph
    problems = upward_imports(layers, imports, modules, PACKAGE, ROOT)
    assert not problems, "\n".join(problems)


def test_no_import_circles(graph):
    _, imports = graph
    found = circles(imports)
    assert not found, "\n".join(circle_text(c, imports, ROOT) for c in found)


# --------------------------------------------------------------------------- the checks themselves

_TOY_PAGE = """# toy

## Layers

| layer | modules | what it knows |
|---|---|---|
| base | `__init__`, `base` | a \\| in its text |
| middle | `middle.low` < `middle.high` < `middle.__init__` | |
| top | `top` | |

## Next
"""

_TOY = {
    "__init__.py": "",
    "base.py": "import os\n",
    "middle/__init__.py": "from .high import h\n",
    "middle/low.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toy.middle.high import h\n",
    "middle/high.py": "from toy.middle import low\n\ndef h():\n    from toy import top\n",
    "top/__init__.py": "",
    "top/face.py": "from .. import base\nfrom toy import __version__\nimport toy.base as b\n",
    "stray.py": "import toy.gone\n",
}


@pytest.fixture
def toy(tmp_path):
    for name, text in _TOY.items():
        path = tmp_path / "toy" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_toy_table_is_read_with_its_order(toy):
    layers = layer_table(_TOY_PAGE)
    assert [(layer.name, layer.groups) for layer in layers] == [
        ("base", (("__init__", "base"),)),
        ("middle", (("middle.low",), ("middle.high",), ("middle.__init__",))),
        ("top", (("top",),)),
    ]
    assert layers[0].line == 7


def test_every_kind_of_import_is_walked_and_resolved(toy):
    modules, graph = import_graph(toy, "toy")
    got = {
        m: sorted((i.line, i.target) for i in imports) for m, imports in graph.items() if imports
    }
    assert got == {
        "toy.middle": [(1, "toy.middle.high")],  # relative
        "toy.middle.low": [(3, "toy.middle.high")],  # under TYPE_CHECKING
        "toy.middle.high": [(1, "toy.middle.low"), (4, "toy.top")],  # a module; in a function
        # relative two levels up, a name the package defines, `import ... as`
        "toy.top.face": [(1, "toy.base"), (2, "toy"), (3, "toy.base")],
        "toy.stray": [(1, "toy.gone")],
    }


def test_the_toy_breaks_each_rule_and_each_is_named(toy):
    layers = layer_table(_TOY_PAGE)
    modules, graph = import_graph(toy, "toy")
    assert unlisted(layers, modules, "toy", toy) == [
        "toy/stray.py: module toy.stray is in no layer of ARCHITECTURE.md"
    ]
    assert table_problems(
        layer_table(_TOY_PAGE.replace("`top`", "`top`, `gone`")), modules, "toy"
    ) == ["ARCHITECTURE.md:9: layer 'top' names `gone`, which is no module of toy"]
    assert sorted(upward_imports(layers, graph, modules, "toy", toy)) == [
        "toy/middle/high.py:4: `from toy import top`: toy.middle.high (middle [middle.high]) "
        "imports toy.top (top), a later layer",
        "toy/middle/low.py:3: `from toy.middle.high import h`: toy.middle.low (middle [middle.low]) "
        "imports toy.middle.high (middle [middle.high]), a later layer",
        "toy/stray.py:1: `import toy.gone`: toy.gone is no module of toy",
    ]
    assert circles(graph) == [["toy.middle.high", "toy.middle.low"]]
    assert circle_text(["toy.middle.high", "toy.middle.low"], graph, toy) == (
        "circle of 2 modules: toy.middle.high, toy.middle.low\n"
        "  toy/middle/high.py:1: `from toy.middle import low`\n"
        "  toy/middle/low.py:3: `from toy.middle.high import h`"
    )


# --------------------------------------------------------------------------------------------
# The page's walk of one file path names files and functions that exist

_WALK_STEP = re.compile(r"`((?:anfperf/)?[\w/]+\.py)` `(\w+(?:\.\w+)?)`")


def walk_references(page: str) -> list[tuple[str, str]]:
    """(file, name) pairs of the page's walk: a file in backticks followed by a name."""
    start = page.index("## A walk:")
    end = page.index("\n## ", start + 1)
    return _WALK_STEP.findall(page[start:end])


def _defined(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


def test_the_walk_names_functions_where_they_are():
    refs = walk_references(PAGE.read_text(encoding="utf-8"))
    assert len(refs) >= 10, refs  # the walk goes from the CLI to the HTML file
    wrong = []
    for file, name in refs:
        path = ROOT / file if file.startswith(f"{PACKAGE}/") else ROOT / PACKAGE / file
        if not path.is_file():
            wrong.append(f"{file}: no such file")
        elif not set(name.split(".")) <= _defined(path):  # `Class.method`: both there
            wrong.append(f"{file}: no function or class {name!r}")
    assert not wrong, "ARCHITECTURE.md's walk names what is not there:\n" + "\n".join(wrong)


def test_the_walk_check_finds_a_moved_function():
    page = "## A walk: x\n1. `ingest/fio_rows.py` `no_such_parser` and `store.py` `save_frame`\n## End\n"
    refs = walk_references(page)
    assert refs == [("ingest/fio_rows.py", "no_such_parser"), ("store.py", "save_frame")]
    assert "no_such_parser" not in _defined(ROOT / PACKAGE / "ingest" / "fio_rows.py")
