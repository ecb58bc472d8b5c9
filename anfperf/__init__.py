"""anfperf: run, ingest, model and report storage benchmarks for Azure NetApp Files.

``anfperf.read`` / ``anfperf.read_many`` read benchmark outputs into the tidy frame
(:mod:`anfperf.schema`); the subpackages :mod:`anfperf.ingest`, :mod:`anfperf.analysis`, :mod:`anfperf.models`,
:mod:`anfperf.workloads`, :mod:`anfperf.tools` and :mod:`anfperf.runner` hold the rest. They are imported on first
use, so that ``import anfperf`` (and ``anfperf --version``) stays quick.
"""

from importlib import import_module

from anfperf.errors import AnfperfError, ModelError, ParseError, RemoteError

_SUBPACKAGES = (
    "adaptive", "analysis", "azure", "demo", "ingest", "models", "planning", "plots", "report",
    "runner", "schema", "store", "tools", "workloads",
)  # fmt: skip
_FROM_INGEST = ("read", "read_many")

__all__ = [
    "AnfperfError", "ModelError", "ParseError", "RemoteError", "__version__",
    *_FROM_INGEST, *_SUBPACKAGES,
]  # fmt: skip


def _version() -> str:
    # importlib.metadata alone is most of a bare `import anfperf`: read on first use
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("anfperf")
    except PackageNotFoundError:  # running from a source tree without installation
        return "0.0.0+unknown"


def __dir__() -> list[str]:
    # tab completion and help(): the lazy names too, imported only when used
    return sorted(__all__)


def __getattr__(name: str) -> object:
    if name == "__version__":
        globals()["__version__"] = value = _version()
        return value
    if name in _FROM_INGEST:
        return getattr(import_module("anfperf.ingest"), name)
    if name in _SUBPACKAGES:
        return import_module(f"anfperf.{name}")
    raise AttributeError(f"module 'anfperf' has no attribute {name!r}")
