"""anfperf: run, ingest, model and report storage benchmarks for Azure NetApp Files."""

from importlib.metadata import PackageNotFoundError, version

from anfperf.errors import AnfperfError, ModelError, ParseError, RemoteError

try:
    __version__ = version("anfperf")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = ["AnfperfError", "ModelError", "ParseError", "RemoteError", "__version__"]
