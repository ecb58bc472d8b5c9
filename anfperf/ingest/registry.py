"""The formats anfperf reads: one :class:`Format` per format module, registered in one list.

Each format module (``fio_json``, ``diskspd``, ``vdbench``, ``fio_log``) exports ``FORMAT``: how
to recognise its input from the first bytes or from a folder (``sniff``, ``sniff_folder``) and
how to parse it (``parse_rows`` or ``read``). :func:`anfperf.ingest.detect_format`,
:func:`~anfperf.ingest.read`, :func:`~anfperf.ingest.read_many`, the file suffixes searched in
folders and the `tool` column's categories (:func:`anfperf.schema.tool_dtype`) all come from
this registry, so a new format is its module plus one :func:`register_format` call.

This module imports no reader: the built-in formats are loaded on first use, so that the format
modules can import :class:`Format` from here. It keeps the contract's `tool` categories
(:func:`anfperf.schema.set_tools`) to the tools of the registered formats.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from anfperf import schema

#: Modules of the built-in formats, each exporting ``FORMAT``, in the order their `sniff` is
#: tried (fio JSON first: many small fio JSON files are the bulk case) and their tools are the
#: `tool` column's categories (this order is stored in Parquet: keep it).
BUILTIN_FORMATS: tuple[str, ...] = (
    "anfperf.ingest.fio_json",
    "anfperf.ingest.vdbench",
    "anfperf.ingest.diskspd",
    "anfperf.ingest.diskspd_text",
    "anfperf.ingest.fio_log",
    "anfperf.ingest.azure_monitor",
)


@dataclass(frozen=True)
class Format:
    """How anfperf recognises and parses one input format.

    Parameters
    ----------
    name : str
        Format name returned by :func:`anfperf.ingest.detect_format`, e.g. 'fio_json'.
    title : str
        What it is, for messages: 'fio JSON', 'DiskSpd XML'.
    sniff : callable
        ``sniff(head) -> bool``: whether `head`, the first 64 KiB of a file (un-gzipped), is this
        format. Tried in registration order; the first that says yes wins.
    tool : str, optional
        The tidy frame's `tool` value of its rows (one of :func:`anfperf.schema.tool_dtype`'s categories). None for a
        format that is not a result (`not_result`).
    parse_rows : callable, optional
        ``parse_rows(data, source) -> list[dict]``: rows of schema columns from the whole
        (un-gzipped) bytes, without `run_id`, `source_file` or 'total' rows. :func:`read_many`
        gathers the rows of many files and builds one frame: the fast path for many small files.
    table : callable, optional
        ``table() -> collector``: gathers many inputs column by column, the fastest path for
        thousands of small files (fio JSON: :class:`anfperf.ingest.fio_table.FioTable`):
        ``collector.add(data, source, run_id=, origin=)`` parses one input (a ParseError adds
        nothing of it), ``collector.frame()`` gives the tidy frame of all, totals included.
        :func:`read_many` prefers it to `parse_rows`.
    read : callable, optional
        ``read(path_or_buffer, *, run_id=None) -> DataFrame``: the tidy frame of one input. By
        default built from `parse_rows`.
    by_path : bool
        `read` needs the path itself (to find companion files next to it), not the bytes.
    sniff_folder : callable, optional
        ``sniff_folder(path) -> bool``: whether a folder is one output of this format (read as a
        whole, e.g. a Vdbench output folder).
    suffixes : tuple of str
        File name endings of this format that :func:`anfperf.ingest.expand_paths` picks up when
        searching folders (files without a suffix are always tried).
    not_result : str, optional
        Why the format is recognised but is not read into the tidy frame, naming its own reader
        (e.g. fio logs: :func:`anfperf.ingest.read_fio_log`).
    """

    name: str
    title: str
    sniff: Callable[[bytes], bool]
    tool: str | None = None
    parse_rows: Callable[[bytes, str], list[dict]] | None = None
    table: Callable[[], Any] | None = None
    read: Callable[..., Any] | None = None
    by_path: bool = False
    sniff_folder: Callable[[str], bool] | None = None
    suffixes: tuple[str, ...] = ()
    not_result: str | None = None

    def __post_init__(self) -> None:
        if self.not_result is None and not (self.parse_rows or self.read or self.table):
            raise ValueError(
                f"format {self.name!r}: give parse_rows, table or read (or not_result)"
            )
        if self.not_result is None and not self.tool:
            raise ValueError(f"format {self.name!r}: a result format needs its tool name")


_formats: list[Format] = []
_loaded = False
_lock = threading.RLock()
_derived: dict[str, tuple] = {}  # tools and suffix lists, made once per change of the list


def _load_builtins() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        _loaded = True  # before importing: a format module may ask for the list meanwhile
        builtins = [importlib.import_module(m).FORMAT for m in BUILTIN_FORMATS]
        _formats[:0] = builtins
        _changed()


def _changed() -> None:
    """Forget what was derived from the formats, and give the contract their tools."""
    _derived.clear()
    schema.set_tools(tools())


def formats() -> tuple[Format, ...]:
    """The registered formats, in the order their `sniff` is tried."""
    if not _loaded:
        _load_builtins()
    found = _derived.get("formats")  # asked once per file read: made once per change
    if found is None:
        found = _derived["formats"] = tuple(_formats)
    return found


def get_format(name: str) -> Format:
    """The registered format called `name` (KeyError when there is none)."""
    for fmt in formats():
        if fmt.name == name:
            return fmt
    raise KeyError(f"no format {name!r}; registered: {', '.join(f.name for f in formats())}")


def register_format(fmt: Format, *, first: bool = False) -> Format:
    """Add a format to the ones :func:`anfperf.ingest.read` and ``read_many`` recognise.

    Parameters
    ----------
    fmt : Format
        The format; its `name` must be new.
    first : bool
        Try its `sniff` before the others (default: after them).

    Returns
    -------
    Format
        `fmt`, so that a module can write ``FORMAT = register_format(Format(...))``.
    """
    with _lock:
        if any(f.name == fmt.name for f in formats()):
            raise ValueError(f"a format named {fmt.name!r} is registered already")
        _formats.insert(0 if first else len(_formats), fmt)
        _changed()
    return fmt


def unregister_format(name: str) -> None:
    """Remove a format added with :func:`register_format` (built-in ones stay)."""
    with _lock:
        fmt = get_format(name)
        if fmt in (importlib.import_module(m).FORMAT for m in BUILTIN_FORMATS):
            raise ValueError(f"{name!r} is a built-in format")
        _formats.remove(fmt)
        _changed()


def derived(key: str, make: Callable[[tuple[Format, ...]], tuple]) -> tuple:
    """``make(formats())``, made once per change of the registered formats and kept as `key`
    (what other modules derive from the formats, e.g. the endings a run's file name loses)."""
    found = _derived.get(key)
    if found is None:
        found = _derived[key] = make(formats())
    return found


def tools() -> tuple[str, ...]:
    """Tools of the registered result formats, each once (the `tool` column's categories)."""
    return derived("tools", lambda fs: tuple(dict.fromkeys(f.tool for f in fs if f.tool)))


def result_suffixes() -> tuple[str, ...]:
    """File name endings that may hold a result, for searching folders."""
    return derived(
        "results",
        lambda fs: tuple(dict.fromkeys(s for f in fs if f.not_result is None for s in f.suffixes)),
    )


def all_suffixes() -> tuple[str, ...]:
    """File name endings of every registered format (results or not)."""
    return derived("all", lambda fs: tuple(dict.fromkeys(s for f in fs for s in f.suffixes)))


def folder_format(path: str | os.PathLike) -> Format | None:
    """The format of a folder that is one output (e.g. a Vdbench run), else None."""
    for fmt in formats():
        if fmt.sniff_folder is not None and fmt.sniff_folder(os.fspath(path)):
            return fmt
    return None
