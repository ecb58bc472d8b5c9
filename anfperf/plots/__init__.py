"""Charts: plotly figures from the tidy frame, fits and plans.

Every function returns a :class:`plotly.graph_objects.Figure` (never shows or saves it), in one
look (:mod:`anfperf.plots._style`), with units in the axis titles and hover text that names the
run, host, job and step of each measured point. :func:`report_charts` picks those that apply.
"""

from anfperf.plots._style import TEMPLATE, figure, hover
from anfperf.plots.blocks import block_size
from anfperf.plots.compare import compare_chart
from anfperf.plots.curves import latency_curve, mix, scaling
from anfperf.plots.overview import Chart, report_charts
from anfperf.plots.quota import quota_model
from anfperf.plots.server import client_server_chart
from anfperf.plots.timeseries import host_bars, intervals, latency_cdf, latency_over_time

__all__ = [
    "TEMPLATE", "Chart", "block_size", "client_server_chart", "compare_chart", "figure", "host_bars", "hover", "intervals",
    "latency_cdf", "latency_curve", "latency_over_time", "mix", "quota_model", "report_charts",
    "scaling",
]  # fmt: skip


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer
