"""Live figures of a running step: what each host's benchmark says while it runs.

:mod:`anfperf.live.fio_stream` reads fio's ``--status-interval`` JSON as it arrives (one
:class:`~anfperf.live.fio_stream.Interval` per document), :mod:`anfperf.live.vdbench_stream`
Vdbench's interval lines; :mod:`anfperf.live.fleet` gathers the hosts' latest intervals into the
fleet's figures, raises alarms (a slow host, a latency above the objective, a rate pinned at the
volume's limit, a host gone silent) and renders the console's one line. The raw outputs
stay the record: nothing here is ingested.
"""

from anfperf.live.fio_stream import FioStream, Interval, fio_intervals
from anfperf.live.fleet import ALARM_KINDS, Alarm, FleetFigures, FleetTotals, live_line
from anfperf.live.vdbench_stream import VdbenchStream

__all__ = [
    "Interval", "FioStream", "fio_intervals", "VdbenchStream", "FleetFigures", "FleetTotals",
    "Alarm", "ALARM_KINDS", "live_line",
]  # fmt: skip


def __dir__() -> list[str]:
    return sorted(__all__)
