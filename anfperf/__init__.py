"""anfperf: run, ingest, model and report storage benchmarks for Azure NetApp Files.

``anfperf.read`` / ``anfperf.read_many`` read benchmark outputs into the tidy frame
(:mod:`anfperf.schema`); the subpackages :mod:`anfperf.ingest`, :mod:`anfperf.models`,
:mod:`anfperf.workloads` and :mod:`anfperf.runner` hold the rest. They are imported on first
use, so that ``import anfperf`` (and ``anfperf --version``) stays quick.
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version

from anfperf.errors import AnfperfError, ModelError, ParseError, RemoteError

try:
    __version__ = version("anfperf")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

_SUBPACKAGES = (
    "compare", "demo", "findings", "ingest", "inputs", "models", "planning", "plots",
    "provenance", "report", "runner", "schema", "store", "summary", "workloads",
)  # fmt: skip
_FROM_INGEST = ("read", "read_many")

__all__ = [
    "AnfperfError", "ModelError", "ParseError", "RemoteError", "__version__",
    *_FROM_INGEST, *_SUBPACKAGES,
]  # fmt: skip


def __getattr__(name: str) -> object:
    if name in _FROM_INGEST:
        return getattr(import_module("anfperf.ingest"), name)
    if name in _SUBPACKAGES:
        return import_module(f"anfperf.{name}")
    raise AttributeError(f"module 'anfperf' has no attribute {name!r}")
