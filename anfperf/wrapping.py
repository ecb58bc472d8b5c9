"""Prose wrapped for a terminal without breaking what reads as one thing.

:mod:`textwrap` breaks a line after any hyphen, at any space and inside any word longer than
the line: "manual-QoS" became "manual-" / "QoS", "256 MiB/s" became "256" / "MiB/s", and a
long path was cut into pieces a reader cannot copy back. Here a line breaks only at a space
that does not join a number to its unit, and a word longer than the line stands whole on a
line of its own (longer than the others: a path is never cut).
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["UNITS", "fill", "longest_unbreakable", "sentence", "wrap"]

#: Units that follow a number in anfperf's text: sizes, rates, times, shares, counts, money.
UNITS = (
    "B", "KiB", "MiB", "GiB", "TiB", "PiB", "KB", "MB", "GB", "TB",
    "KiB/s", "MiB/s", "GiB/s", "MB/s", "GB/s", "Mbps", "Gbps", "IOPS",
    "ns", "us", "µs", "ms", "s", "min", "h", "%", "USD", "vCPU", "vCPUs",
)  # fmt: skip

# a number (1, 4,096, 6.25, -3) not inside a word or another number, its spaces, and a unit
# that ends there (longest units first: "MiB/s" before "MiB", "ms" is not the "m" of "min")
_UNIT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
_NUMBER_UNIT = re.compile(rf"(?<![\w.,])(-?\d[\d,]*(?:\.\d+)?)( +)(?=(?:{_UNIT})(?![\w/]))")

# a space that must not break: a private-use character textwrap does not take for whitespace
_GLUE = "\ue000"


# a list item's bullet: it stays with the item's first word (a path too)
_BULLET = re.compile(r"^([-*]) ")


def _glued(text: str) -> str:
    text = _BULLET.sub(lambda m: m.group(1) + _GLUE, text)
    return _NUMBER_UNIT.sub(lambda m: m.group(1) + _GLUE * len(m.group(2)), text)


def wrap(
    text: str, width: int, *, initial_indent: str = "", subsequent_indent: str = ""
) -> list[str]:
    """`text` in lines of at most `width` characters where its words allow.

    Lines break at spaces only: never after a hyphen (``manual-QoS``), never between a number
    and its unit (``256 MiB/s``, ``1.0 ms``, ``100 %``; :data:`UNITS`) or a list item's bullet
    (``- ``) and its first word, never inside a word; a word longer than the line (a path)
    stands whole on a line of its own.

    Parameters
    ----------
    text : str
        Prose; runs of whitespace (newlines too) read as one space, as in :func:`textwrap.wrap`.
    width : int
        Characters per line, the indent included.
    initial_indent, subsequent_indent : str
        Put before the first line, and before each line after it.

    Returns
    -------
    list of str
        The lines, without newlines; empty for blank `text`.
    """
    lines = textwrap.wrap(
        _glued(text), width, initial_indent=initial_indent, subsequent_indent=subsequent_indent,
        break_on_hyphens=False, break_long_words=False,
    )  # fmt: skip
    return [line.replace(_GLUE, " ") for line in lines]


def fill(text: str, width: int, *, initial_indent: str = "", subsequent_indent: str = "") -> str:
    """:func:`wrap`'s lines joined by newlines."""
    return "\n".join(
        wrap(text, width, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    )


def longest_unbreakable(text: str) -> int:
    """The width of `text`'s longest piece :func:`wrap` keeps on one line [characters]."""
    return max((len(word) for word in _glued(text).split()), default=0)


def sentence(text: str) -> str:
    """`text` as a sentence: capitalised, with a full stop."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
