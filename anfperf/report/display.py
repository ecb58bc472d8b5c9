"""Figures into a notebook's output without plotly's renderer machinery.

``fig.show()`` imports nbformat (and with it jsonschema, about a second) to check its version
before the first figure; :func:`display_figure` emits the same
``application/vnd.plotly.v1+json`` bundle (what JupyterLab's plotly extension and the report's
HTML export draw) directly.
"""

from __future__ import annotations

import json
from typing import Any

PLOTLY_MIMETYPE = "application/vnd.plotly.v1+json"


def figure_bundle(fig: Any) -> dict:
    """The mimetype bundle of a plotly figure: its JSON, as ``fig.show()`` would emit it."""
    from plotly.io import to_json

    return {PLOTLY_MIMETYPE: json.loads(to_json(fig, validate=False, remove_uids=False))}


def display_figure(fig: Any, *, metadata: dict | None = None) -> None:
    """Display a plotly figure in the running kernel (interactive in JupyterLab, drawn in
    reports).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.
    metadata : dict, optional
        Output metadata (e.g. :class:`anfperf.report.page.Section`'s).
    """
    from IPython.display import display

    display(figure_bundle(fig), raw=True, metadata=metadata or {})
