"""What whole runs say, from the tidy frame: the layer between the readers and the pages.

- :mod:`~anfperf.analysis.summary` -- headline rows, one per run x job step, hosts together;
- :mod:`~anfperf.analysis.sweep` -- whole-run rows with the configured concurrency and the
  (x, y) points of a sweep, the one adapter from frames to the fits (:func:`sweep_xy`);
- :mod:`~anfperf.analysis.concurrency` -- runs checked against Little's law;
- :mod:`~anfperf.analysis.findings` -- what a run says: kinds, key numbers, verdicts;
- :mod:`~anfperf.analysis.compare` -- A/B comparisons of runs;
- :mod:`~anfperf.analysis.provenance` -- manifests, hosts and tasks of runs;
- :mod:`~anfperf.analysis.inputs` -- the inputs of a report and what reading them said;
- :mod:`~anfperf.analysis.server_metrics` -- the volume's own metrics beside the clients'.
"""

from importlib import import_module

# name -> its module: imported on first use, so that a light module of the layer (provenance,
# which `anfperf report` reads before any kernel starts) does not load the models and scipy
_LAZY = {
    "check_concurrency": "concurrency",
    "summary_rows": "sweep",
    "summary_table": "summary",
    "sweep_points": "sweep",
    "sweep_xy": "sweep",
}
_MODULES = (
    "compare", "concurrency", "findings", "inputs", "provenance", "server_metrics", "summary",
    "sweep",
)  # fmt: skip

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(import_module(f"anfperf.analysis.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    if name in _MODULES:
        return import_module(f"anfperf.analysis.{name}")
    raise AttributeError(f"module 'anfperf.analysis' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, *_MODULES])
