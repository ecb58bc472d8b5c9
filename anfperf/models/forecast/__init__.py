"""Predictions past the data that use what is known about the volume and say what they cannot
know.

- :mod:`~anfperf.models.forecast.known`: the volume's and clients' limit (:func:`known_limits`
  of a :class:`~anfperf.models.QuotaScenario`) and ANF's published load-latency shape;
- :mod:`~anfperf.models.forecast.latency`: latency against load (:func:`forecast_latency`),
  a planned volume's latency (:func:`planned_latency`), the load at a latency objective;
- :mod:`~anfperf.models.forecast.throughput`: throughput against concurrency
  (:func:`forecast_throughput`): bounded by the limit and Little's law, held past a plateau
  with the fall an over-driven system shows, or no number when the data cannot tell;
- :mod:`~anfperf.models.forecast.slo`: the rate a concurrency sweep reaches at a latency
  objective past its measured latencies, along that forecast by Little's law
  (:func:`iops_at_latency_in_flight`);
- :mod:`~anfperf.models.forecast.past`: a sweep's latency past its data, the one forecast a
  report states its IOPS at an objective from and draws (:func:`latency_past`);
- :mod:`~anfperf.models.forecast.option`: the latency of a planned option at the target, with
  its band, from its own limit (:func:`option_latency`, :func:`options_latency`);
- :mod:`~anfperf.models.forecast.block`: IOPS at other block sizes (:func:`forecast_block_size`)
  within the bounds of the sizes measured, none far into a regime the data do not show;
- :mod:`~anfperf.models.forecast.mix`: read/write mixes not measured (:func:`forecast_mix`),
  the band reaching down by Little's law for mixes run with fewer I/Os in flight;
- :mod:`~anfperf.models.forecast.judge`: the hold-out judgement (fit the lower half, predict
  the rest, against holding the last value flat).

Every function returns a :class:`~anfperf.models.forecast.result.Forecast`: estimate, band,
basis and notes; ``predictable`` False and an estimate of NaN where the data cannot tell.
"""

from anfperf.models.forecast.block import forecast_block_size
from anfperf.models.forecast.judge import TARGETS, judge_forecast
from anfperf.models.forecast.known import KnownLimits, LatencyShape, known_limits, published_shape
from anfperf.models.forecast.latency import forecast_latency, iops_at_latency, planned_latency
from anfperf.models.forecast.mix import forecast_mix
from anfperf.models.forecast.option import OptionLatency, option_latency, options_latency
from anfperf.models.forecast.past import LatencyPast, latency_past
from anfperf.models.forecast.result import NOT_PREDICTABLE, Forecast
from anfperf.models.forecast.slo import iops_at_latency_in_flight
from anfperf.models.forecast.throughput import forecast_throughput

__all__ = [
    "NOT_PREDICTABLE",
    "TARGETS",
    "Forecast",
    "KnownLimits",
    "LatencyPast",
    "LatencyShape",
    "OptionLatency",
    "forecast_block_size",
    "forecast_latency",
    "forecast_mix",
    "forecast_throughput",
    "iops_at_latency",
    "iops_at_latency_in_flight",
    "judge_forecast",
    "known_limits",
    "latency_past",
    "option_latency",
    "options_latency",
    "planned_latency",
    "published_shape",
]
