"""A run's live figures in a notebook: IOPS and mean latency against time, per host and fleet.

:class:`LiveView` reads a run's live record (:mod:`anfperf.live.record`, ``live.jsonl`` in the
run folder) and draws it against the seconds since the run started: the fleet's IOPS (top; on
the hosts' axis the sum would flatten them), each host's IOPS (middle) and the mean latency [ms]
of each and of the fleet (bottom), with a line where each step starts and a mark at each alarm. :meth:`LiveView.poll` reads the lines written since it
last looked and updates the figure in place; :func:`watch` polls every few seconds from a thread
of its own until the record says the run ended. The view only reads the file: the run may be
another process's, and interrupting the kernel or closing the browser never touches it.

:func:`live_figure` is the same figure of a whole record, for reports and screenshots.

The fleet line is the hosts' sum of each round of intervals (a host's n-th interval of a step
with every other host's n-th), its latency the hosts' mean latencies weighted by their IOPS. A
round is drawn once every host of the step has sent its interval, or one has sent two more, or
the step has ended: a host that went silent leaves the sum, as it left the volume. Intervals
shorter than :data:`MIN_SPAN_S` (fio's final document, a few ms after its last status one) are
not drawn. Of many hosts the slowest and the fastest are drawn (`hosts_shown`), the others are in
the fleet line alone.

Examples
--------
In a notebook cell, a run started elsewhere (``anfperf run ...`` in a terminal)::

    from anfperf.live import watch
    watch("data/raw/20260301T101500Z-RndReadQD")   # the figure, updated every 2 s

or one started from the notebook (:func:`anfperf.live.start_run`)::

    run = start_run(["RndReadQD", "--hosts", "fleet.yml"], out_dir="data/raw")
    run.watch()
"""

from __future__ import annotations

import logging
import math
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from anfperf.errors import AnfperfError
from anfperf.live.record import LIVE_LOG_NAME, LiveFollower, live_path

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = ["LiveView", "watch", "live_figure", "MIN_SPAN_S", "HOSTS_SHOWN"]

log = logging.getLogger(__name__)


def __dir__() -> list[str]:
    return sorted(__all__)


#: Intervals shorter than this [s] are not drawn (fio's final document follows its last status
#: document by a few ms, and a rate over a few ms says little), as the fleet's alarms ignore them.
MIN_SPAN_S = 0.5
#: Hosts drawn by default; the others are in the fleet line alone.
HOSTS_SHOWN = 12
_FLEET = "fleet"


# ---------------------------------------------------------------------- what the record says


@dataclass
class _Point:
    wall: float
    step: int
    iops: float
    lat_ms: float


@dataclass
class _Step:
    index: int
    name: str
    start: float | None = None
    end: float | None = None


@dataclass
class _Record:
    """What a live record said so far: steps, each host's intervals by step, alarms, the end."""

    t0: float | None = None
    steps: dict[int, _Step] = field(default_factory=dict)
    points: dict[str, list[_Point]] = field(default_factory=dict)  # host -> its intervals
    by_step: dict[int, dict[str, list[_Point]]] = field(default_factory=dict)
    alarms: list[dict] = field(default_factory=list)
    ended: dict | None = None
    last_wall: float | None = None

    def add(self, record: dict) -> None:
        wall = _number(record.get("wall"))
        if not math.isfinite(wall):
            return
        self.t0 = wall if self.t0 is None else min(self.t0, wall)
        self.last_wall = wall if self.last_wall is None else max(self.last_wall, wall)
        kind, step = record.get("kind"), record.get("step")
        if kind == "step" and isinstance(step, int):
            known = self.steps.setdefault(step, _Step(step, str(record.get("name", step))))
            if record.get("event") == "start":
                known.start, known.end = wall, None  # a resumed step starts again
            elif record.get("event") == "end":
                known.end = wall
        elif kind == "interval" and isinstance(step, int) and isinstance(record.get("host"), str):
            if _number(record.get("span_s")) < MIN_SPAN_S:
                return
            iops = _number(record.get("iops"))
            if not math.isfinite(iops):
                return
            point = _Point(wall, step, iops, _number(record.get("lat_mean_ms")))
            self.points.setdefault(record["host"], []).append(point)
            self.by_step.setdefault(step, {}).setdefault(record["host"], []).append(point)
            if step not in self.steps:
                self.steps[step] = _Step(step, f"step {step}")
        elif kind == "alarm":
            self.alarms.append(record)
        elif kind == "run" and record.get("event") == "end":
            self.ended = record

    def step_ended(self, index: int) -> bool:
        step = self.steps.get(index)
        later = any(i > index and s.start is not None for i, s in self.steps.items())
        return self.ended is not None or later or (step is not None and step.end is not None)

    def rate(self, host: str) -> float:
        """The host's mean IOPS over its intervals drawn."""
        points = self.points[host]
        return sum(p.iops for p in points) / len(points)

    def fleet(self, final: bool) -> list[_Point]:
        """One point per round of every step (see the module's text), in time order."""
        rounds = []
        for index in sorted(self.by_step):
            hosts = self.by_step[index]
            counts = [len(points) for points in hosts.values()]
            done = final or self.step_ended(index)
            for k in range(max(counts)):
                if not (done or k < min(counts) or any(c > k + 1 for c in counts)):
                    break
                members = [points[k] for points in hosts.values() if len(points) > k]
                weighted = [(p.iops, p.lat_ms) for p in members if math.isfinite(p.lat_ms)]
                weight = sum(w for w, _ in weighted)
                lat = sum(w * v for w, v in weighted) / weight if weight > 0 else math.nan
                wall = max(p.wall for p in members)
                rounds.append(_Point(wall, index, sum(p.iops for p in members), lat))
        return rounds


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    return float(value)


# ---------------------------------------------------------------------- what is drawn


@dataclass
class _Mark:
    """An alarm where it is drawn: its row (0 fleet, 1 hosts, 2 latency), x [s], y, texts."""

    row: int
    x: float
    y: float
    label: str
    text: str


@dataclass
class _Drawing:
    title: str
    lines: list[str]
    hosts: list[str]  # drawn, slowest first
    series: dict[str, list[_Point]]  # host or 'fleet' -> its points
    steps: list[_Step]
    marks: list[_Mark]
    empty: str | None  # the sentence drawn when there is no figure


def _drawing(
    record: _Record, run_id: str, hosts_shown: int, final: bool, missing: bool = False
) -> _Drawing:
    ranked = sorted(record.points, key=lambda h: (record.rate(h), h))
    n = len(ranked)
    if n > hosts_shown:
        slow = (hosts_shown + 1) // 2
        fast = hosts_shown - slow
        shown = ranked[:slow] + (ranked[n - fast :] if fast else [])
    else:
        slow, fast, shown = n, 0, ranked
    fleet = record.fleet(final)
    series = {_FLEET: fleet, **{h: record.points[h] for h in shown}}
    t0 = record.t0 or 0.0
    steps = sorted((s for s in record.steps.values() if s.start is not None), key=lambda s: s.start)
    marks = []
    for alarm in record.alarms:
        wall = _number(alarm.get("wall"))
        host = str(alarm.get("host", ""))
        kind = str(alarm.get("alarm", "alarm"))
        label, text = f"{kind} {_short(host)}", str(alarm.get("text", ""))
        if kind == "latency":
            marks.append(_Mark(2, wall - t0, _number(alarm.get("value")), label, text))
        elif host == _FLEET:
            marks.append(_Mark(0, wall - t0, _at(fleet, wall), label, text))
        else:
            marks.append(_Mark(1, wall - t0, _at(record.points.get(host, []), wall), label, text))
    lines = [f"No live record ({LIVE_LOG_NAME}) in the run's folder" if missing and final
             else _status(record, final)]  # fmt: skip
    if n:
        lines += _hosts_lines(n, shown, slow, fast, len(record.alarms))
    empty = None
    if not n:
        empty = "No interval figures in this record" if final else (
            "No interval figures yet: no step has started, or its hosts have not reported")  # fmt: skip
    return _Drawing(
        title=f"Run {run_id}: IOPS and mean latency, the fleet and each host",
        lines=lines, hosts=shown, series=series, steps=steps, marks=marks, empty=empty,
    )  # fmt: skip


def _short(host: str, most: int = 20) -> str:
    return host if len(host) <= most else host[: most - 1] + "…"


def _at(points: list[_Point], wall: float) -> float:
    """The IOPS of the last point at or before `wall` (else the first): where an alarm sits."""
    before = [p for p in points if p.wall <= wall + 1e-6]
    point = before[-1] if before else (points[0] if points else None)
    return point.iops if point is not None else 0.0


def _status(record: _Record, final: bool) -> str:
    if record.t0 is None:
        return "An empty record" if final else "Waiting for the run's first figures"
    span = (record.last_wall or record.t0) - record.t0
    if record.ended is not None:
        return f"Ended {record.ended.get('status', '')} after {span:,.0f} s".replace("  ", " ")
    started = [s for s in record.steps.values() if s.start is not None]
    current = max(started, key=lambda s: s.start) if started else None
    where = f"{current.name} (step {current.index + 1})" if current else "before its first step"
    if final:
        return f"No end recorded (still running, or stopped before it could say): {where}"
    return f"Running {where}; figures up to {span:,.0f} s"


def _hosts_lines(n: int, shown: list[str], slow: int, fast: int, alarms: int) -> list[str]:
    hosts = f"{n} host{'s' if n != 1 else ''}"
    lines = [f"The fleet: {hosts}, its IOPS their sum, its latency theirs weighted by IOPS"]
    more = []
    if len(shown) < n:
        more.append(f"{len(shown)} hosts drawn, the {slow} slowest and {fast} fastest by mean IOPS")
    if alarms:
        more.append(f"{alarms} alarm{'s' if alarms != 1 else ''} marked (hover for the figures)")
    if more:
        lines.append("; ".join(more))
    return lines


# ---------------------------------------------------------------------- the figure

#: The figure's rows, top to bottom: the y axis's title and the share of the height.
_ROWS = (("Fleet [IOPS]", 0.27), ("Per host [IOPS]", 0.38), ("Mean latency [ms]", 0.35))
_X_TITLE = "Time since the run started [s]"
_HEIGHT = 700
_HOST_DASHES = ("solid", "dot", "dash")
#: Alarms labelled on the figure, the first ones (every alarm has its mark and hover text).
MAX_ALARM_LABELS = 8


def _base_figure(hosts_shown: int) -> go.Figure:
    """The figure with every trace it will hold, empty: a widget's traces are only updated.

    The traces: for each host slot its IOPS (row 2) and latency (row 3), then the fleet's
    (rows 1 and 3), then the alarms' marks (rows 1, 2, 3). The fleet's sum has a row of its
    own: on the hosts' axis it would flatten them.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from anfperf.plots._style import COLORWAY, SLO_COLOR, TEMPLATE

    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.05,
                        row_heights=[share for _, share in _ROWS])  # fmt: skip
    colors = [c for c in COLORWAY if c != "#000000"]
    for slot in range(hosts_shown):
        color = colors[slot % len(colors)]
        dash = _HOST_DASHES[(slot // len(colors)) % len(_HOST_DASHES)]
        for row in (2, 3):
            fig.add_trace(
                go.Scatter(
                    x=[], y=[], mode="lines+markers", legendgroup=f"host{slot}",
                    showlegend=False, legendrank=10 + slot, connectgaps=False,
                    line={"color": color, "width": 1.5, "dash": dash}, marker={"size": 4},
                ),
                row=row, col=1,
            )  # fmt: skip
    for row in (1, 3):
        fig.add_trace(
            go.Scatter(
                x=[], y=[], mode="lines+markers", name=_FLEET, legendgroup=_FLEET,
                showlegend=False, legendrank=1, connectgaps=False,
                line={"color": "#000000", "width": 3}, marker={"size": 5},
            ),
            row=row, col=1,
        )  # fmt: skip
    for row in (1, 2, 3):
        fig.add_trace(
            go.Scatter(
                x=[], y=[], mode="markers", name="alarms", legendgroup="alarms",
                showlegend=False, legendrank=1000,
                marker={"symbol": "x-thin", "size": 12, "color": SLO_COLOR,
                        "line": {"width": 2.5, "color": SLO_COLOR}},
                hovertemplate="%{hovertext}<extra></extra>",
            ),
            row=row, col=1,
        )  # fmt: skip
    fig.update_layout(
        template=TEMPLATE, height=_HEIGHT, hovermode="closest",
        legend={"tracegroupgap": 2, "title": {"text": "slowest host first"}},
    )  # fmt: skip
    for row, (title, _) in enumerate(_ROWS, start=1):
        fig.update_yaxes(title_text=title, rangemode="tozero", row=row, col=1)
    fig.update_xaxes(title_text=_X_TITLE, row=3, col=1)
    fig.update_xaxes(rangemode="tozero")
    return fig


def _xy(points: list[_Point], t0: float, what: str) -> tuple[list, list, list]:
    """x, y and the step of `points`, a gap (None) wherever the step changes."""
    xs: list = []
    ys: list = []
    steps: list = []
    previous = None
    for p in points:
        if previous is not None and p.step != previous:
            xs.append(None)
            ys.append(None)
            steps.append(None)
        previous = p.step
        xs.append(round(p.wall - t0, 3))
        value = p.iops if what == "iops" else p.lat_ms
        ys.append(value if math.isfinite(value) else None)
        steps.append(p.step)
    return xs, ys, steps


def _apply(fig: go.Figure, drawing: _Drawing, record: _Record, hosts_shown: int) -> None:
    """Set every trace (:func:`_base_figure`'s) and the layout to `drawing`, in one update."""
    from anfperf.plots._style import LIMIT_COLOR, SLO_COLOR, plot_text

    t0 = record.t0 or 0.0
    names = {i: plot_text(s.name) for i, s in record.steps.items()}
    slowest = drawing.hosts[0] if len(drawing.hosts) > 1 else None
    hosts = len(record.points)

    def label(host: str) -> str:
        if host == _FLEET:
            return f"fleet ({hosts} host{'s' if hosts != 1 else ''})"
        return plot_text(host) + (" (slowest)" if host == slowest else "")

    slots = [*(drawing.hosts[i] if i < len(drawing.hosts) else None for i in range(hosts_shown)),
             _FLEET if drawing.hosts else None]  # fmt: skip
    with fig.batch_update():
        for slot, host in enumerate(slots):
            for row, what in enumerate(("iops", "lat")):
                trace = fig.data[2 * slot + row]
                if host is None:
                    trace.update(x=[], y=[], customdata=[], showlegend=False)
                    continue
                xs, ys, steps = _xy(drawing.series[host], t0, what)
                unit = "IOPS: %{y:,.0f}" if what == "iops" else "mean latency: %{y:.3f} ms"
                trace.update(
                    x=xs, y=ys, name=label(host), showlegend=row == 0,
                    customdata=["" if s is None else names.get(s, "") for s in steps],
                    hovertemplate=f"{label(host)}<br>step %{{customdata}}<br>%{{x:,.1f}} s<br>"
                    f"{unit}<extra></extra>",
                )  # fmt: skip
        first_marked = min((m.row for m in drawing.marks), default=None)
        for row in range(3):
            marks = [m for m in drawing.marks if m.row == row]
            fig.data[2 * len(slots) + row].update(
                x=[round(m.x, 3) for m in marks], y=[m.y for m in marks],
                hovertext=[plot_text(m.text) for m in marks], showlegend=row == first_marked,
            )  # fmt: skip
        shapes, annotations = [], []
        for step in drawing.steps:
            x = round(step.start - t0, 3)
            shapes.append({
                "type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "paper",
                "line": {"color": LIMIT_COLOR, "dash": "dash", "width": 1},
            })  # fmt: skip
            annotations.append({
                "x": x, "xref": "x", "y": 1, "yref": "paper", "yanchor": "bottom",
                "xanchor": "left", "text": names[step.index], "showarrow": False, "xshift": 2,
                "font": {"size": 11, "color": "#555"},
            })  # fmt: skip
        for mark in drawing.marks[:MAX_ALARM_LABELS]:
            axis = "y" if mark.row == 0 else f"y{mark.row + 1}"
            annotations.append({
                "x": round(mark.x, 3), "xref": "x", "y": mark.y, "yref": axis, "ax": 0, "ay": -26,
                "text": plot_text(mark.label), "showarrow": True, "arrowcolor": SLO_COLOR,
                "font": {"size": 10, "color": SLO_COLOR}, "bgcolor": "rgba(255,255,255,0.8)",
            })  # fmt: skip
        if drawing.empty:
            annotations.append({
                "x": 0.5, "y": 0.5, "xref": "paper", "yref": "paper", "showarrow": False,
                "text": plot_text(drawing.empty), "font": {"size": 14, "color": "#555"},
            })  # fmt: skip
        fig.layout.title.text = plot_text(drawing.title) + "".join(
            f"<br><sup>{plot_text(line)}</sup>" for line in drawing.lines
        )
        # the title's lines from the top down, the steps' names between them and the plot
        fig.layout.title.update(yref="container", y=1, yanchor="top", pad={"t": 14})
        fig.layout.margin.t = 44 + 21 * len(drawing.lines)
        fig.layout.shapes = shapes
        fig.layout.annotations = annotations


# ---------------------------------------------------------------------- the view


class LiveView:
    """A run's live figures, updated in place as its record grows.

    Parameters
    ----------
    run_dir : str or os.PathLike
        The run's folder ``<out>/<run_id>/`` (it need not exist yet), or its ``live.jsonl``.
    hosts_shown : int
        Most hosts drawn: the slowest half and the fastest half by mean IOPS; the others are in
        the fleet line alone (the title says so).

    Attributes
    ----------
    figure : plotly.graph_objects.FigureWidget
        The figure, updated in place by :meth:`poll` (a ``go.Figure`` re-drawn in its output
        where ``anywidget``, which plotly's widget needs, is not installed).
    path : pathlib.Path
        The record read.
    """

    def __init__(self, run_dir: str | os.PathLike, *, hosts_shown: int = HOSTS_SHOWN) -> None:
        if isinstance(hosts_shown, bool) or not isinstance(hosts_shown, int) or hosts_shown < 1:
            raise AnfperfError(f"hosts_shown must be a whole number >= 1, got {hosts_shown!r}")
        self.path = live_path(run_dir)
        self.run_id = self.path.parent.name
        self.hosts_shown = hosts_shown
        self._follower = LiveFollower(self.path)
        self._record = _Record()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._display = None  # the output a plain figure is re-drawn in
        self._drawn = False
        self.figure = _widget(_base_figure(hosts_shown))
        self.poll()

    # ------------------------------------------------------------------ reading

    def poll(self) -> int:
        """Read the lines written since the last poll and update the figure; the number read."""
        return self._poll(final=False)

    def _poll(self, final: bool) -> int:
        with self._lock:
            records = self._follower.poll()
            for record in records:
                self._record.add(record)
            if records or final or not self._drawn:
                self._draw(final)
                self._drawn = True
                if self._display is not None:
                    self._display.update(self.figure)
            return len(records)

    def _draw(self, final: bool) -> None:
        missing = final and not self.path.is_file()  # the run wrote none (or not yet)
        drawing = _drawing(self._record, self.run_id, self.hosts_shown, final, missing)
        _apply(self.figure, drawing, self._record, self.hosts_shown)

    @property
    def ended(self) -> str | None:
        """The run's status once its record says it ended, else None."""
        end = self._record.ended
        return None if end is None else str(end.get("status", ""))

    # ------------------------------------------------------------------ watching

    def watch(self, every_s: float = 2.0, *, until: Callable[[], bool] | None = None) -> LiveView:
        """Poll every `every_s` seconds from a daemon thread until the run ends or :meth:`stop`.

        Parameters
        ----------
        every_s : float
            Seconds between polls.
        until : callable, optional
            Also stop once it returns True (after one last poll): e.g. the run's process ended.
        """
        if not every_s > 0:
            raise AnfperfError(f"every_s must be > 0 seconds, got {every_s!r}")
        if self.watching:
            return self
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._watch, args=(every_s, until), name=f"anfperf-live-{self.run_id}",
            daemon=True,  # never keeps the kernel alive
        )  # fmt: skip
        self._thread.start()
        return self

    def _watch(self, every_s: float, until: Callable[[], bool] | None) -> None:
        failed = False
        while not self._stop.is_set():
            done = until is not None and until()
            try:
                # the last poll once the run's process ended: what it wrote is all there is
                self._poll(final=done)
            except Exception:  # a view that stops drawing must say why, once
                if not failed:
                    log.exception("%s: the live view could not update", self.path)
                failed = True
            if self.ended is not None or done:
                break
            self._stop.wait(every_s)

    def stop(self) -> None:
        """Stop watching (the run is not touched)."""
        self._stop.set()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the watching thread to end; whether it did."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.watching

    @property
    def watching(self) -> bool:
        """Whether a thread is polling."""
        return self._thread is not None and self._thread.is_alive()

    # ------------------------------------------------------------------ display

    def _ipython_display_(self) -> None:
        from IPython.display import display

        if _is_widget(self.figure):
            display(self.figure)
        else:
            self._display = display(self.figure, display_id=True)

    def __repr__(self) -> str:
        state = self.ended or ("watching" if self.watching else "not watching")
        return f"LiveView({str(self.path)!r}, {state})"


def watch(
    run_dir: str | os.PathLike,
    every_s: float = 2.0,
    *,
    until: Callable[[], bool] | None = None,
    hosts_shown: int = HOSTS_SHOWN,
) -> LiveView:
    """A :class:`LiveView` of the run, polled every `every_s` s until its record says it ended.

    The run may be another process's (``anfperf run`` in a terminal, :func:`start_run`): the
    view only reads ``<run_dir>/live.jsonl``. Show it as a cell's last expression; ``.stop()``
    ends the watching, never the run.
    """
    view = LiveView(run_dir, hosts_shown=hosts_shown)
    return view.watch(every_s, until=until)


def live_figure(run_dir: str | os.PathLike, *, hosts_shown: int = HOSTS_SHOWN) -> go.Figure:
    """The live view's figure of a whole record, static (for reports and screenshots).

    Raises
    ------
    anfperf.AnfperfError
        No record at `run_dir` (a run the runner recorded no live figures of, or another path).
    """
    import plotly.graph_objects as go

    path = live_path(run_dir)
    if not path.is_file():
        raise AnfperfError(f"{path}: no live record there (a run folder holds it as {path.name})")
    record = _Record()
    for line in LiveFollower(path).poll():
        record.add(line)
    fig = _base_figure(hosts_shown)
    _apply(fig, _drawing(record, path.parent.name, hosts_shown, final=True), record, hosts_shown)
    fig.data = tuple(t for t in fig.data if t.x)  # the slots no host took
    return go.Figure(fig)


_warned_widget = False


def _widget(fig: go.Figure) -> go.Figure:
    """`fig` as a FigureWidget, or itself where plotly's widget cannot be made."""
    import plotly.graph_objects as go

    global _warned_widget
    try:
        return go.FigureWidget(fig)
    except ImportError as exc:  # plotly >= 6 makes its widget with anywidget
        if not _warned_widget:
            log.warning("no plotly FigureWidget (%s): the live view is re-drawn in its output "
                        "instead", exc)  # fmt: skip
            _warned_widget = True
        return fig


def _is_widget(fig: Any) -> bool:
    return type(fig).__name__ == "FigureWidget"
