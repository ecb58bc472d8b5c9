"""Show a plotly figure in a notebook: the output ``fig.show()`` gives, without its cost.

``fig.show()`` with ``PLOTLY_RENDERER=plotly_mimetype`` (what report kernels use) emits one
``application/vnd.plotly.v1+json`` output. On the way, ``plotly.io._renderers`` imports
nbformat at its import (``optional_imports.get_module("nbformat")``) and ``plotly.io.show``
checks its version; nbformat imports jsonschema, which imports rfc3987_syntax, which compiles a
Lark grammar: ~1.4 s on the first figure of every kernel, for a check. :func:`display_figure`
emits the same bundle (the same JSON: a report's notebook and HTML are byte for byte the same)
straight through ``IPython.display.display(..., raw=True)``.

This module imports neither papermill, nbconvert nor nbformat, so notebooks can use it freely:
``from anfperf.report import display_figure``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

PLOTLY_MIMETYPE = "application/vnd.plotly.v1+json"
#: Key of the output metadata that marks an output as part of a
#: :class:`anfperf.report.page.Section` (the HTML export folds those outputs together).
SECTION_KEY = "anfperf_section"


def _loads() -> Any:
    try:
        import orjson
    except ImportError:
        return json.loads
    return orjson.loads


def figure_bundle(fig: Any) -> dict[str, Any]:
    """The mime bundle ``fig.show()`` emits with the ``plotly_mimetype`` renderer.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure or dict
        A figure, or a figure dict (``fig.to_dict()``).

    Returns
    -------
    dict
        ``{'application/vnd.plotly.v1+json': <figure as JSON-compatible dict>}``: numpy arrays
        as plotly's base64 typed arrays, dates as ISO text, exactly as plotly's renderer makes
        them (``plotly.io.json.to_json_plotly``, orjson when installed, as plotly itself picks).
    """
    from plotly.io.json import to_json_plotly

    # a Figure is already validated when built (what fig.show()'s validate=True amounts to
    # for a Figure); to_dict() is the deep copy plotly's renderer serializes
    fig_dict = fig.to_dict() if hasattr(fig, "to_dict") else dict(fig)
    return {PLOTLY_MIMETYPE: _loads()(to_json_plotly(fig_dict))}


def display_figure(fig: Any, *, metadata: Mapping[str, Any] | None = None) -> None:
    """Show a plotly figure as the ``application/vnd.plotly.v1+json`` output.

    The same output as ``fig.show()`` in a report kernel (interactive in JupyterLab, drawn by
    the report's embedded plotly.js), without importing nbformat and jsonschema in the kernel.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure or dict
        The figure.
    metadata : mapping, optional
        Output metadata (``{'application/vnd.plotly.v1+json': {...}}``), as
        ``IPython.display.display`` takes it.
    """
    from IPython.display import display

    display(figure_bundle(fig), raw=True, metadata=dict(metadata) if metadata else None)
