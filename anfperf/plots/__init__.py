"""Charts: plotly figures from the tidy frame, fits and plans.

Every function returns a :class:`plotly.graph_objects.Figure` (never shows or saves it), in one
look (:mod:`anfperf.plots._style`), with units in the axis titles and hover text that names the
run, host, job and step of each measured point.
"""

from anfperf.plots._style import TEMPLATE, figure, hover

__all__ = ["TEMPLATE", "figure", "hover"]
