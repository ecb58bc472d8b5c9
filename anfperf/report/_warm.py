"""Imports a report pays for: made lazy where nothing is lost, made early where they overlap.

- :func:`defer_rfc3987_syntax`: nbformat (papermill, nbconvert, and plotly's ``fig.show()``)
  imports jsonschema, which imports rfc3987_syntax when it is installed (jsonschema's
  ``format-nongpl`` extra, pulled in by jupyter_server), which compiles a Lark grammar at import:
  1.3 s in every process, for the ``iri`` format checks no notebook schema uses. A stand-in
  module loads the real one on first use, so those checks still work.
- :func:`notebook_imports` / :func:`warm_kernel`: a report kernel imports what the notebook
  imports (pandas, plotly, anfperf, ...) as it starts, while this process still reads the
  notebook and hashes the inputs, instead of in the notebook's first cell.

This module imports nothing heavy: a kernel runs it at start-up.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import logging
import sys
import types
from collections.abc import Iterable

logger = logging.getLogger(__name__)

_RFC3987 = "rfc3987_syntax"


def defer_rfc3987_syntax() -> None:
    """Make ``import rfc3987_syntax`` instant; the real module loads on first use.

    Does nothing when it is already imported (or jsonschema is, which imported it), or not
    installed.
    """
    if _RFC3987 in sys.modules or "jsonschema" in sys.modules:
        return
    try:
        if importlib.util.find_spec(_RFC3987) is None:
            return
    except (ImportError, ValueError):
        return
    stub = types.ModuleType(_RFC3987, "stand-in: imports rfc3987_syntax on first use")

    def real() -> types.ModuleType:
        if sys.modules.get(_RFC3987) is stub:
            del sys.modules[_RFC3987]
        return importlib.import_module(_RFC3987)

    def is_valid_syntax(term: str, value: str) -> bool:
        return real().is_valid_syntax(term, value)

    def __getattr__(name: str):
        if name.startswith("__"):  # the import system probing (__path__, ...): a plain module
            raise AttributeError(name)
        return getattr(real(), name)

    stub.is_valid_syntax = is_valid_syntax
    stub.__getattr__ = __getattr__
    sys.modules[_RFC3987] = stub


def notebook_imports(sources: Iterable[str]) -> list[str]:
    """Modules imported at the top level of code cells, in order, each once.

    ``import a.b`` gives ``a.b``; ``from a import b, c`` gives ``a``, ``a.b``, ``a.c`` (``a.b``
    may be a name, not a module: :func:`warm_kernel` skips what does not import). Cells that
    are not Python (magics) are skipped; relative imports are left out.
    """
    names: list[str] = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                names += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.append(node.module)
                names += [f"{node.module}.{a.name}" for a in node.names if a.name != "*"]
    return list(dict.fromkeys(names))


def warm_kernel(modules: Iterable[str]) -> None:
    """Run in a report kernel as it starts: defer rfc3987_syntax, import ``modules``.

    Binds no name in the user's namespace and shows nothing; a module that cannot be imported
    is left for the notebook's own import to report.
    """
    defer_rfc3987_syntax()
    for name in modules:
        if name in sys.modules:
            continue
        if "." in name and name.rpartition(".")[0] not in sys.modules:
            continue  # the parent did not import: this is no module
        try:
            importlib.import_module(name)
        except Exception:  # the notebook's own import says what is wrong
            logger.debug("warm-up import of %s failed", name, exc_info=True)
