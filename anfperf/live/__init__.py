"""Live figures of a running step: what each host's benchmark says while it runs.

:mod:`anfperf.live.fio_stream` reads fio's ``--status-interval`` JSON as it arrives (one
:class:`~anfperf.live.fio_stream.Interval` per document); :mod:`anfperf.live.fleet` gathers the hosts' latest intervals into the
fleet's figures, raises alarms (a slow host, a latency above the objective, a rate pinned at
the volume's limit, a host gone silent) and renders the console's one line. The raw outputs
stay the record: nothing here is ingested.
"""
