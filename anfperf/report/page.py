"""What a report page is made of: tables for people, headline cards, a verdict, folding sections.

Every report notebook builds its page from these, so that all reports read alike:

- :func:`table` turns a frame into a table a person reads: units in the headers, human column
  names, thousands separators, numbers rounded to what they can say, blanks for missing values,
  no index, prose left-aligned and never cut, in a box of its own that scrolls when wide.
- :func:`cards` is the row of headline numbers at the top, each naming where it comes from.
- :func:`verdict` is the one paragraph that says what the data mean.
- :class:`Section` groups what belongs together (a run's charts, the "About this report"
  details): in JupyterLab it is a heading and its outputs; in the HTML report it folds
  (``<details>``), see :mod:`anfperf.report._sections`.

Objects here display themselves (``_repr_html_`` / ``_ipython_display_``); nothing imports
papermill or nbconvert, so a live kernel loads them quickly.
"""

from __future__ import annotations

import html
import math
import numbers
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from anfperf import values
from anfperf.report.display import SECTION_KEY

#: Human names of the tidy frame's and the reports' column names (units in brackets). Columns
#: not listed get a name made from their own (:func:`column_label`).
COLUMN_LABELS = {
    "run_id": "Run",
    "tool": "Tool",
    "tool_version": "Tool version",
    "job": "Job",
    "workload": "Workload",
    "step": "Step",
    "loop": "Loop values",
    "pattern": "Pattern",
    "bs_kib": "Block size [KiB]",
    "read_pct": "Reads [%]",
    "outstanding": "Outstanding I/O",
    "configured": "Outstanding I/O",
    "threads": "Threads",
    "iodepth": "Queue depth",
    "numjobs": "Jobs",
    "host": "Host",
    "hosts": "Hosts",
    "iops": "IOPS",
    "bw_mib_s": "Throughput [MiB/s]",
    "lat_mean_ms": "Mean latency [ms]",
    "lat_p50_ms": "p50 latency [ms]",
    "lat_p90_ms": "p90 latency [ms]",
    "lat_p95_ms": "p95 latency [ms]",
    "lat_p99_ms": "p99 latency [ms]",
    "lat_p999_ms": "p99.9 latency [ms]",
    "lat_max_ms": "Max latency [ms]",
    "kind": "Kind",
    "points": "Points",
    "peak_iops": "Peak IOPS",
    "peak_bw_mib_s": "Peak throughput [MiB/s]",
    "lat_at_peak_ms": "Latency at peak [ms]",
    "lat_min_ms": "Lowest latency [ms]",
    "knee_iops": "Knee [IOPS]",
    "knee_lat_ms": "Latency at knee [ms]",
    "lat_slo_ms": "Latency SLO [ms]",
    "iops_at_slo_measured": "IOPS at SLO (measured)",
    "iops_at_slo_model": "IOPS at SLO (model)",
    "iops_at_slo_low": "IOPS at SLO: band low",
    "iops_at_slo_high": "IOPS at SLO: band high",
    "fit_r2": "Fit R²",
    "notes": "Notes",
    "constraint": "Limit",
    "binding": "Binds",
    "detail": "How it is worked out",
    "source": "Source",
    "why": "Why",
    "metric": "Metric",
    "verdict": "Verdict",
    "a_mean": "A",
    "b_mean": "B",
    "diff": "B − A",
    "diff_pct": "B − A [%]",
    "config_diff": "Configuration differs",
    "basis": "Basis",
    "batches": "Batches",
    "intervals_a": "Intervals A",
    "intervals_b": "Intervals B",
}

#: Unit suffixes of column names -> the unit shown in brackets.
_UNIT_SUFFIXES = (
    ("_mib_s", "MiB/s"), ("_gib_s", "GiB/s"), ("_ms", "ms"), ("_us", "µs"), ("_s", "s"),
    ("_pct", "%"), ("_tib", "TiB"), ("_gib", "GiB"), ("_mib", "MiB"), ("_kib", "KiB"),
    ("_usd", "USD"), ("_gbps", "Gbit/s"),
)  # fmt: skip

#: What a table shows for a value that is missing, and for an unbounded one.
BLANK = values.BLANK
UNBOUNDED = values.UNBOUNDED

#: Significant digits numbers are rounded to (a whole number is never cut).
SIGNIFICANT_DIGITS = values.SIGNIFICANT_DIGITS

#: Text longer than this is prose: left-aligned and wrapped in a readable width.
_PROSE_CHARS = 24


def column_label(name: str, labels: Mapping[str, str] | None = None) -> str:
    """The header of a column: its human name with the unit in brackets.

    Parameters
    ----------
    name : str
        Column name, e.g. ``"lat_p99_ms"``.
    labels : mapping, optional
        Names that override :data:`COLUMN_LABELS`.

    Returns
    -------
    str
        E.g. ``"p99 latency [ms]"``; an unknown ``"cost_usd"`` becomes ``"Cost [USD]"``.
    """
    if labels and name in labels:
        return labels[name]
    if name in COLUMN_LABELS:
        return COLUMN_LABELS[name]
    text, unit = str(name), ""
    for suffix, shown in _UNIT_SUFFIXES:
        if text.endswith(suffix) and len(text) > len(suffix):
            text, unit = text[: -len(suffix)], shown
            break
    text = text.replace("_", " ").strip()
    text = text[:1].upper() + text[1:]
    return f"{text} [{unit}]" if unit else text


def is_blank(value: Any) -> bool:
    """True for None, NaN, pandas' NA/NaT and empty strings."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, str) and not value.strip():
        return True
    try:
        return bool(pd.isna(value)) if not isinstance(value, (str, bytes)) else False
    except (TypeError, ValueError):  # arrays and other containers are not blank
        return False


def format_number(value: Any, digits: int = SIGNIFICANT_DIGITS) -> str:
    """A number as a person reads it: thousands separators, `digits` significant digits.

    Whole digits are never cut (59,418 stays 59,418, not 59,400); 476.837158 becomes 477,
    0.26471 0.265 (:func:`anfperf.values.format_number`, the one rule). Missing values are
    :data:`BLANK`, infinities :data:`UNBOUNDED`, booleans "yes"/"no".
    """
    if is_blank(value):
        return BLANK
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, numbers.Number):
        return str(value)
    return values.format_number(value, digits)


def _format_cell(value: Any, digits: int) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_format_cell(v, digits) for v in value)
    if isinstance(value, numbers.Number):  # bool, numpy scalars included
        return format_number(value, digits)
    return BLANK if is_blank(value) else str(value)


@dataclass
class Table:
    """A table for people: what :func:`table` returns; shows itself in notebooks and reports.

    Attributes
    ----------
    cells : pandas.DataFrame
        The formatted cells (strings), headers already human; no index.
    numeric : list of bool
        Per column: right-aligned numbers (True) or left-aligned text.
    caption : str
        Shown above the table, may be empty.
    """

    cells: pd.DataFrame
    numeric: list[bool]
    caption: str = ""

    def to_html(self) -> str:
        """The table's HTML: escaped, in a box that scrolls sideways when wider than the page."""
        esc = html.escape
        head = "".join(
            f'<th style="text-align:{"right" if num else "left"}">{esc(str(h))}</th>'
            for h, num in zip(self.cells.columns, self.numeric, strict=True)
        )
        body = []
        for row in self.cells.itertuples(index=False):
            tds = []
            for value, num in zip(row, self.numeric, strict=True):
                text = esc(str(value))
                if num:
                    tds.append(f'<td class="anfperf-num">{text}</td>')
                elif len(text) > _PROSE_CHARS:
                    tds.append(f'<td class="anfperf-prose">{text}</td>')
                else:
                    tds.append(f'<td class="anfperf-text">{text}</td>')
            body.append("<tr>" + "".join(tds) + "</tr>")
        caption = f'<p class="anfperf-caption">{esc(self.caption)}</p>' if self.caption else ""
        return (
            f'{caption}<div class="anfperf-table">'
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f"</div><style>{TABLE_CSS}</style>"
        )

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_text(self, width: int = 100, *, header: bool = True, indent: int = 0) -> str:
        """The table for a terminal: no line wider than `width` where it can be helped.

        Numbers are right-aligned, text left-aligned; when the table is too wide, its widest
        text columns are wrapped (at 16 characters at least, and never narrower than a word,
        a path or a number with its unit: :func:`anfperf.wrapping.wrap`), so prose is never
        cut.

        Parameters
        ----------
        width : int
            Characters per line, `indent` included.
        header : bool
            Show the human headers (False: a list of label / value rows).
        indent : int
            Spaces before every line.
        """
        from anfperf.wrapping import longest_unbreakable, wrap

        rows = [list(map(str, r)) for r in self.cells.itertuples(index=False)]
        heads = [str(h) for h in self.cells.columns]
        cols = len(heads)
        if cols == 0:
            return ""
        widths = [
            max([len(heads[i]) if header else 0, *(len(r[i]) for r in rows)]) for i in range(cols)
        ]
        gap = 2
        room = width - indent - gap * (cols - 1)
        text = [i for i in range(cols) if not self.numeric[i]]
        if sum(widths) > room and text:
            # the widest text columns share what the others leave: one width caps them all
            fixed = sum(w for i, w in enumerate(widths) if i not in text)
            # a column is never narrower than its longest word: wrap never cuts one
            shown = ([heads] if header else []) + rows
            least = {i: max(longest_unbreakable(r[i]) for r in shown) for i in text}
            cap = max(widths[i] for i in text)
            while cap > 16 and fixed + sum(min(widths[i], max(cap, least[i])) for i in text) > room:
                cap -= 1
            widths = [min(w, max(cap, least[i])) if i in text else w for i, w in enumerate(widths)]
        if sum(widths) > room and header:
            # still too wide: a header wider than its column's values wraps to them (never
            # below a word: "Throughput / limit / [MiB/s]" over "4,500")
            for i in range(cols):
                values = max((len(r[i]) for r in rows), default=0)
                widths[i] = min(widths[i], max(values, longest_unbreakable(heads[i])))
        lines = []
        for cells in ([heads] if header else []) + rows:
            wrapped = [wrap(c, widths[i]) or [""] for i, c in enumerate(cells)]
            for k in range(max(map(len, wrapped))):
                parts = []
                for i, lines_i in enumerate(wrapped):
                    part = lines_i[k] if k < len(lines_i) else ""
                    parts.append(
                        part.rjust(widths[i]) if self.numeric[i] else part.ljust(widths[i])
                    )
                lines.append(" " * indent + (" " * gap).join(parts).rstrip())
        pad = " " * indent
        # (the width counts the indent already)
        caption = wrap(self.caption, width, initial_indent=pad,
                       subsequent_indent=pad) if self.caption else []  # fmt: skip
        return "\n".join(caption + lines)

    def __repr__(self) -> str:
        text = self.cells.to_string(index=False) if len(self.cells) else "(no rows)"
        return f"{self.caption}\n{text}" if self.caption else text


#: Styles of :class:`Table` (also inlined with each table, so a table reads the same in
#: JupyterLab, which right-aligns and centres tables by default, as in the HTML report).
TABLE_CSS = (
    ".anfperf-table{overflow-x:auto;max-width:100%;margin:4px 0 12px 0}"
    ".anfperf-table table{border-collapse:collapse;margin:0;font-size:13px;"
    "font-variant-numeric:tabular-nums;table-layout:auto}"
    ".anfperf-table table th{font-weight:600;border-bottom:1px solid #9ca3af;padding:4px 10px;"
    "white-space:nowrap;vertical-align:bottom;background:#f6f8fa}"
    ".anfperf-table table td{border-bottom:1px solid #e5e7eb;padding:3px 10px;vertical-align:top}"
    ".anfperf-table table td.anfperf-num{text-align:right;white-space:nowrap}"
    ".anfperf-table table td.anfperf-text{text-align:left;white-space:nowrap}"
    ".anfperf-table table td.anfperf-prose{text-align:left;white-space:normal;min-width:18em;"
    "max-width:44em}"
    ".anfperf-caption{font-size:13px;color:#4b5563;margin:2px 0}"
)


def table(
    frame: pd.DataFrame,
    columns: Sequence[str] | Mapping[str, str] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
    digits: Mapping[str, int] | int = SIGNIFICANT_DIGITS,
    caption: str = "",
    drop_empty: bool = True,
) -> Table:
    """A frame as a table for people; the one formatting every report uses.

    Parameters
    ----------
    frame : pandas.DataFrame
        Any frame; its index is not shown.
    columns : sequence of str or mapping, optional
        Columns shown, in order (a mapping also names them: column -> header). Default: all.
    labels : mapping, optional
        Headers for some columns (column -> header); others come from :func:`column_label`.
    digits : int or mapping
        Significant digits of numbers (per column with a mapping; default 3).
    caption : str
        One line above the table.
    drop_empty : bool
        Leave out columns without a single value.

    Returns
    -------
    Table
    """
    if isinstance(columns, Mapping):
        labels = {**(labels or {}), **columns}
        columns = list(columns)
    if columns is not None:
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            from anfperf.errors import AnfperfError

            raise AnfperfError(f"table: no column(s) {missing}; there are {list(frame.columns)}")
        frame = frame[list(columns)]
    cells, numeric = {}, []
    for col in frame.columns:
        series = frame[col]
        n_digits = digits.get(col, SIGNIFICANT_DIGITS) if isinstance(digits, Mapping) else digits
        shown = [_format_cell(v, n_digits) for v in series.tolist()]
        if drop_empty and all(s == BLANK for s in shown):
            continue
        header = column_label(str(col), labels)
        if header in cells:  # two columns with one human name: keep both apart
            header = f"{header} ({col})"
        cells[header] = shown
        numeric.append(_is_numeric(series))
    out = pd.DataFrame(cells, columns=list(cells))
    return Table(out, numeric, caption)


def _is_numeric(series: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(series.dtype):
        return False
    if pd.api.types.is_numeric_dtype(series.dtype):
        return True
    values = [v for v in series.tolist() if not is_blank(v)]
    return bool(values) and all(
        isinstance(v, numbers.Number) and not isinstance(v, bool) for v in values
    )


# --- headline cards and the verdict ---------------------------------------------------------


@dataclass(frozen=True)
class Card:
    """One headline number: what it is, its value with unit, and where it comes from.

    `key` and `number` are the card for machine readers (``anfperf report --json``): a stable
    name with the unit in it (``peak_iops``, ``quota_tib``) and the value unrounded; a card
    without a number (a level, what binds) has the text of `value` as its number's stand-in.
    """

    label: str
    value: str
    note: str = ""
    tone: str = ""  # "" | "good" | "warn" | "bad"
    key: str = ""
    number: float | str | None = None


CARDS_CSS = (
    ".anfperf-cards{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0 10px 0}"
    ".anfperf-card{flex:1 1 150px;max-width:260px;border:1px solid #d0d7de;border-radius:6px;"
    "padding:6px 12px;background:#fff;font-family:Arial,Helvetica,sans-serif}"
    ".anfperf-card .anfperf-card-label{font-size:12px;color:#4b5563;text-transform:none}"
    ".anfperf-card .anfperf-card-value{font-size:22px;font-weight:700;color:#111827;"
    "line-height:1.25;white-space:nowrap}"
    ".anfperf-card .anfperf-card-note{font-size:12px;color:#4b5563;overflow-wrap:anywhere}"
    ".anfperf-card.anfperf-warn{border-color:#E69F00;background:#fffaf0}"
    ".anfperf-card.anfperf-bad{border-color:#D55E00;background:#fff5f0}"
    ".anfperf-card.anfperf-good{border-color:#009E73}"
    ".anfperf-verdict{font-size:15px;line-height:1.45;margin:4px 0 6px 0;max-width:75em}"
)


class HTML:
    """A piece of HTML that shows itself (and its text without tags in a terminal)."""

    def __init__(self, markup: str) -> None:
        self.markup = markup

    def _repr_html_(self) -> str:
        return self.markup

    def __repr__(self) -> str:
        return re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", self.markup)).strip()


#: Mimetype of the headline's data beside its HTML in a notebook's outputs (cards and verdict):
#: what ``anfperf report --json`` reads back from the executed notebook (:func:`read_headline`).
HEADLINE_MIMETYPE = "application/vnd.anfperf.headline+json"


class _Headline(HTML):
    """HTML that carries its headline as data too (:data:`HEADLINE_MIMETYPE`); an HTML export
    shows the HTML, a machine reads the data."""

    def __init__(self, markup: str, data: dict) -> None:
        super().__init__(markup)
        self.data = data

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {"text/html": self.markup, HEADLINE_MIMETYPE: self.data}


def cards(items: Iterable[Card]) -> HTML:
    """The row of headline cards; values and notes are escaped."""
    esc = html.escape
    items = list(items)
    parts = []
    for card in items:
        tone = f" anfperf-{card.tone}" if card.tone else ""
        note = f'<div class="anfperf-card-note">{esc(card.note)}</div>' if card.note else ""
        parts.append(
            f'<div class="anfperf-card{tone}"><div class="anfperf-card-label">{esc(card.label)}'
            f'</div><div class="anfperf-card-value">{esc(card.value)}</div>{note}</div>'
        )
    data = {"cards": [{"label": c.label, "value": c.value, "note": c.note, "key": c.key,
                       "number": _json_number(c.number)} for c in items]}  # fmt: skip
    return _Headline(
        f'<style>{CARDS_CSS}</style><div class="anfperf-cards">{"".join(parts)}</div>', data
    )


def _json_number(value: float | str | None) -> float | str | None:
    """A card's number as JSON has it: NaN and infinities are null, numpy scalars Python's."""
    if value is None or isinstance(value, str):
        return value
    value = float(value)
    return value if math.isfinite(value) else None


def verdict(text: str) -> HTML:
    """The paragraph that says what the data mean (escaped; ``**bold**`` kept as bold)."""
    body = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html.escape(text))
    return _Headline(f'<p class="anfperf-verdict">{body}</p>', {"verdict": text.replace("**", "")})


def read_headline(ipynb: str | os.PathLike) -> dict:
    """The headline an executed report notebook showed: its verdict and cards, as data.

    Parameters
    ----------
    ipynb : str or os.PathLike
        An executed notebook (``anfperf report`` writes one beside each HTML).

    Returns
    -------
    dict
        ``verdict`` (str or None: the first one shown), ``cards`` (list of dict: label,
        value, note, key, number, in the order shown) and ``numbers`` (key -> number of the
        cards that have a key).

    Raises
    ------
    anfperf.errors.ReportError
        `ipynb` cannot be read or is not a notebook.
    """
    import json

    from anfperf.errors import ReportError

    try:
        with open(ipynb, encoding="utf-8") as fh:
            nb = json.load(fh)
        cells = nb["cells"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReportError(ipynb, f"not a readable notebook: {exc}") from None
    verdicts, found = [], []
    for cell in cells:
        for output in cell.get("outputs") or []:
            data = (output.get("data") or {}).get(HEADLINE_MIMETYPE)
            if isinstance(data, dict):
                verdicts += [data["verdict"]] if data.get("verdict") else []
                found += data.get("cards") or []
    return {
        "verdict": verdicts[0] if verdicts else None,
        "cards": found,
        "numbers": {c["key"]: c["number"] for c in found if c.get("key")},
    }


def heading(text: str, level: int = 2) -> HTML:
    """A heading whose text is escaped (run ids and file names are not Markdown)."""
    return HTML(f"<h{level}>{html.escape(text)}</h{level}>")


def bullets(lines: Iterable[str]) -> HTML:
    """A list of sentences, escaped."""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return HTML(f"<ul>{items}</ul>" if items else "")


def text(line: str) -> HTML:
    """A paragraph of plain text, escaped."""
    return HTML(f"<p>{html.escape(line)}</p>")


# --- sections --------------------------------------------------------------------------------


@dataclass
class Section:
    """Outputs that belong together under one title; folds in the HTML report.

    In JupyterLab a section shows as its title and its items, one output each. Each output
    carries ``metadata["anfperf_section"]`` (``id``, ``title``, ``open``), from which the HTML
    export wraps the section in ``<details>`` (open when `open`). The section with key
    ``"about"`` also receives the report's parameters and input checksums.

    Parameters
    ----------
    title : str
        Shown as the section's heading (escaped).
    items : list
        What it shows, in order: plotly figures, :class:`Table`, :class:`HTML`, strings (plain
        text), or anything IPython can display.
    open : bool
        Unfolded in the HTML report.
    key : str, optional
        Identity of the section (default: from the title); ``"about"`` is the report's
        "About this report" section.
    """

    title: str
    items: list = field(default_factory=list)
    open: bool = False
    key: str | None = None

    def _metadata(self) -> dict:
        key = self.key or re.sub(r"\W+", "-", self.title.lower()).strip("-")
        return {SECTION_KEY: {"id": key, "title": self.title, "open": self.open}}

    def _ipython_display_(self) -> None:
        from IPython.display import display

        meta = self._metadata()
        display(
            heading(self.title, 2), metadata={SECTION_KEY: {**meta[SECTION_KEY], "summary": True}}
        )
        for item in self.items:
            show(item, metadata=meta)


def show(item: Any, *, metadata: dict | None = None) -> None:
    """Display one item of a page: a plotly figure as its JSON bundle, text escaped, the rest
    as IPython shows it."""
    from IPython.display import display

    if isinstance(item, str):
        item = text(item)
    if _is_figure(item):
        from anfperf.report.display import display_figure

        display_figure(item, metadata=metadata)
        return
    display(item, metadata=metadata or {})


def _is_figure(item: Any) -> bool:
    return type(item).__name__ == "Figure" and type(item).__module__.startswith("plotly")
