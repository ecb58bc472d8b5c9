"""Live figures of a running step: what each host's benchmark says while it runs.

:mod:`anfperf.live.fio_stream` reads fio's ``--status-interval`` JSON as it arrives (one
:class:`~anfperf.live.fio_stream.Interval` per document), :mod:`anfperf.live.vdbench_stream`
Vdbench's interval lines; :mod:`anfperf.live.fleet` gathers the hosts' latest intervals into the
fleet's figures, raises alarms (a slow host, a latency above the objective, a rate pinned at the
volume's limit, a host gone silent) and renders the console's one line;
:mod:`anfperf.live.record` writes them as they arrive to the run folder's ``live.jsonl`` and
reads it back. The raw outputs stay the record: nothing here is ingested.

A notebook watches a run through :mod:`anfperf.live.view` (:func:`watch`, :class:`LiveView`,
:func:`live_figure`: plotly) and starts one it can watch through :mod:`anfperf.live.launch`
(:func:`start_run`); those names are imported on first use, so that ``import anfperf.live``
(the runner's) loads no plotly.
"""

from importlib import import_module

from anfperf.live.fio_stream import FioStream, Interval, LiveStream, fio_intervals
from anfperf.live.fleet import ALARM_KINDS, Alarm, FleetFigures, FleetTotals, live_line
from anfperf.live.record import LIVE_LOG_NAME, LiveFollower, LiveLog, read_live
from anfperf.live.vdbench_stream import VdbenchStream

#: Names of the notebook's modules, imported on first use: name -> its module.
_ON_FIRST_USE = {
    "LiveView": "anfperf.live.view", "watch": "anfperf.live.view",
    "live_figure": "anfperf.live.view", "start_run": "anfperf.live.launch",
    "RunHandle": "anfperf.live.launch",
}  # fmt: skip

__all__ = [
    "Interval", "LiveStream", "FioStream", "fio_intervals", "VdbenchStream", "FleetFigures", "FleetTotals",
    "Alarm", "ALARM_KINDS", "live_line", "LIVE_LOG_NAME", "LiveLog", "read_live", "LiveFollower",
    *_ON_FIRST_USE,
]  # fmt: skip


def __dir__() -> list[str]:
    return sorted(__all__)


def __getattr__(name: str) -> object:
    if name in _ON_FIRST_USE:
        value = getattr(import_module(_ON_FIRST_USE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'anfperf.live' has no attribute {name!r}")
