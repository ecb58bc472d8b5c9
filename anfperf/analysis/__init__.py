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

from anfperf.analysis.concurrency import check_concurrency
from anfperf.analysis.summary import summary_table
from anfperf.analysis.sweep import summary_rows, sweep_points, sweep_xy

__all__ = ["check_concurrency", "summary_rows", "summary_table", "sweep_points", "sweep_xy"]


def __dir__() -> list[str]:
    return sorted([*__all__, "compare", "concurrency", "findings", "inputs", "provenance",
                   "server_metrics", "summary", "sweep"])  # fmt: skip
