"""Ingest: benchmark outputs of fio, Vdbench and DiskSpd into one tidy frame.

:func:`read` detects the format of a file or folder; :func:`read_many` reads many and
concatenates them, each row keeping its `run_id` and `source_file`; :func:`read_all` does the
same and returns the inputs it could not read as data. Formats come from
:mod:`anfperf.ingest.registry`. The per-format readers are
exported too. The frame's columns are documented in :mod:`anfperf.schema`.
"""

from __future__ import annotations

import contextlib
import gc
import io
import logging
import os
import re
from collections.abc import Iterable, Iterator
from typing import Any, Literal, NamedTuple

import pandas as pd

from anfperf.errors import ParseError, collected_warnings, warn
from anfperf.ingest._frame import finalize, flag_stopped, label_local_host, run_origin
from anfperf.ingest._source import (
    GZIP_MAGIC,
    gunzip,
    input_limit,
    input_limit_bytes,
    printable_path,
    read_bytes,
)
from anfperf.ingest.azure_monitor import read_azure_metrics
from anfperf.ingest.combine import add_totals, combine, percentiles_from_bins
from anfperf.ingest.diskspd import read_diskspd_xml
from anfperf.ingest.diskspd_text import read_diskspd_text
from anfperf.ingest.fio_json import read_fio_json
from anfperf.ingest.fio_log import read_fio_log
from anfperf.ingest.registry import Format, folder_format, formats, register_format, result_suffixes
from anfperf.ingest.vdbench import read_vdbench, read_vdbench_histogram
from anfperf.paths import PathArg, path_list
from anfperf.schema import LIVE_LOG_NAME, MANIFEST_NAME, conform, empty_frame
from anfperf.userfiles import open_regular

__all__ = [
    "Format",
    "add_totals",
    "combine",
    "detect_format",
    "percentiles_from_bins",
    "MAX_WARNINGS",
    "ReadResult",
    "Skipped",
    "read",
    "read_all",
    "expand_paths",
    "read_azure_metrics",
    "read_diskspd_text",
    "read_diskspd_xml",
    "read_fio_json",
    "read_fio_log",
    "read_many",
    "read_vdbench",
    "read_vdbench_histogram",
    "register_format",
]

log = logging.getLogger(__name__)

_SNIFF_BYTES = 64 * 1024
# Files in a folder that are never results: runner ledgers, logs, the live figures a run
# showed while it went on (the raw outputs are its record), Vdbench's companion reports (read
# through the folder's flatfile.html instead).
_NOT_RESULTS = re.compile(
    rf"(^{re.escape(MANIFEST_NAME)}$|^{re.escape(LIVE_LOG_NAME)}$|\.log(\.[^.]+)?$|\.stdout\.html$)"
)
# Tried in folders whatever the format: compressed files (the content tells the format) and
# captured tool output.
_GENERIC_SUFFIXES = (".gz", ".out")


def detect_format(path_or_bytes: str | os.PathLike | bytes, *, source: str | None = None) -> str:
    """Tell the format of one output from its content (not its name).

    The registered formats (:func:`anfperf.ingest.registry.formats`) are asked in turn.

    Parameters
    ----------
    path_or_bytes : str, os.PathLike or bytes
        A file or an output folder (a Vdbench run), or the (decompressed) content of a file.
    source : str, optional
        Name for error messages when `path_or_bytes` is content.

    Returns
    -------
    str
        The format's name: 'fio_json', 'diskspd', 'vdbench', 'fio_log' or a registered one.

    Raises
    ------
    anfperf.ParseError
        The content is none of the formats anfperf reads.
    """
    return _format_of(path_or_bytes, source).name


def _format_of(path_or_bytes: str | os.PathLike | bytes, source: str | None = None) -> Format:
    """The registered format of one output (:func:`detect_format` gives its name)."""
    return _format_with_content(path_or_bytes, source)[0]


def _format_with_content(
    path_or_bytes: str | os.PathLike | bytes, source: str | None = None
) -> tuple[Format, bytes | None, str]:
    """The format, the whole content when detection read it all (a small plain file), and the
    input's name for `source_file` and messages."""
    whole = None
    if isinstance(path_or_bytes, str | os.PathLike):
        path = os.fspath(path_or_bytes)
        source = printable_path(path)
        try:  # a file, first: no stat per file of the thousands read
            head, whole = _head(path)
        except ParseError:
            if not os.path.isdir(path):
                raise
            fmt = folder_format(path)
            if fmt is not None:
                return fmt, None, source
            raise _NotARunFolder(source, "folder without a Vdbench flatfile.html") from None
    else:
        head = path_or_bytes[:_SNIFF_BYTES]
    source = source or "<bytes>"
    return _sniff(head, source), whole, source


class _NotARunFolder(ParseError):
    """A folder that is not one output (read_many searches it for inputs)."""


def _sniff(head: bytes, source: str) -> Format:
    if head[:2] == GZIP_MAGIC:
        raise ParseError(source, "gzip data: decompress before detect_format(bytes)")
    for fmt in formats():
        if fmt.sniff(head):
            return fmt
    text = head.lstrip()
    if not text:
        raise ParseError(source, "empty file")
    first = text.split(b"\n", 1)[0][:80].decode("utf-8", errors="replace")
    titles = [f.title for f in formats()]
    raise ParseError(source, f"not {', '.join(titles[:-1])} or {titles[-1]}; it starts {first!r}")


def _head(path: str) -> tuple[bytes, bytes | None]:
    """The first bytes of a file, decompressed when it is gzip (whatever its name); and the
    whole file when that was all of it (plain, and within the input limit): one read serves
    both detection and parsing of the small files that are the bulk case."""
    whole = None
    try:
        # os-level reads: a file object per file would cost more than reading the small file;
        # a regular file only (a named pipe would block open() for ever, a device never ends)
        fd = open_regular(path, printable_path(path))
        try:
            head = _read_up_to(fd, _SNIFF_BYTES + 1)
            if head[:2] == GZIP_MAGIC:  # decompress the beginning only (a bomb stays small)
                with open(fd, "rb", closefd=False) as fh:
                    fh.seek(0)
                    head = gunzip(fh, printable_path(path), _SNIFF_BYTES)
            elif len(head) <= _SNIFF_BYTES and len(head) <= input_limit_bytes():
                whole = head
            else:
                head = head[:_SNIFF_BYTES]
        finally:
            os.close(fd)
    except IsADirectoryError:
        raise ParseError(printable_path(path), "is a folder, not a file") from None
    except FileNotFoundError:
        raise ParseError(printable_path(path), "no such file") from None
    except OSError as exc:
        raise ParseError(printable_path(path), f"cannot be read: {exc.strerror or exc}") from None
    return head, whole


def _read_up_to(fd: int, size: int) -> bytes:
    """Up to `size` bytes from the start of `fd`, fewer only at its end."""
    data = os.read(fd, size)
    while 0 < len(data) < size:  # pipes and special files may give less per read
        more = os.read(fd, size - len(data))
        if not more:
            break
        data += more
    return data


def read(
    path: str | os.PathLike, *, run_id: str | None = None, max_mib: float | None = None
) -> pd.DataFrame:
    """Read one benchmark result, whatever its format, into the tidy frame.

    A folder that is one output (a Vdbench output folder, holding flatfile.html) is read as one
    run; any other folder is read with :func:`read_many` over the results inside it. The result
    is always the tidy frame of :mod:`anfperf.schema`: fio time-series logs are not results and
    have their own reader, :func:`read_fio_log`.

    Parameters
    ----------
    path : str or os.PathLike
        File (plain or gzip-compressed) or folder.
    run_id : str, optional
        Run identifier for every row; derived from the path when not given.
    max_mib : float, optional
        Largest file read [MiB], stored or decompressed; default
        :data:`anfperf.ingest._source.MAX_INPUT_MIB`.

    Raises
    ------
    anfperf.ParseError
        The file is no result anfperf reads (a fio log: the message names read_fio_log), or it
        is damaged.
    """
    path = os.fspath(path)
    if os.path.isdir(path) and folder_format(path) is None:
        return read_many([path], run_id=run_id, max_mib=max_mib)
    with input_limit(max_mib):
        return _read_one(_format_of(path), path, run_id)


def _read_one(fmt: Format, path: str, run_id: str | None) -> pd.DataFrame:
    """The tidy frame of one input of format `fmt`."""
    if fmt.not_result is not None:
        raise ParseError(printable_path(path), fmt.not_result)
    if fmt.read is not None:
        return fmt.read(path, run_id=run_id)
    data, source = read_bytes(path)
    return finalize(fmt.parse_rows(data, source), source=source, run_id=run_id)


def expand_paths(
    paths: PathArg,
    problems: list[tuple[str, str]] | None = None,
    seen: set[str] | None = None,
) -> list[str]:
    """Result files and output folders (Vdbench runs) named by `paths`, folders searched
    recursively.

    Inside folders, files are picked by name: the suffixes of the registered formats
    (:func:`anfperf.ingest.registry.result_suffixes`), ``.gz``, ``.out`` and no suffix at all.
    Symbolic links to folders are followed (each real folder once, so a link loop ends);
    folders that cannot be listed are added to `problems` as (folder, reason) when given.
    `seen` holds the real paths of folders walked already (by earlier calls), skipped here.
    """
    out: list[str] = []
    seen = set() if seen is None else seen
    suffixes = (*result_suffixes(), *_GENERIC_SUFFIXES)

    def unreadable(exc: OSError) -> None:
        if problems is not None:
            problems.append((exc.filename or "?", exc.strerror or str(exc)))

    for item in path_list(paths):
        item = os.fspath(item)
        if not os.path.isdir(item) or folder_format(item) is not None:
            out.append(item)
            continue
        for dirpath, dirnames, filenames in os.walk(item, onerror=unreadable, followlinks=True):
            real = os.path.realpath(dirpath)
            if real in seen:
                dirnames.clear()  # a link back into a folder already walked
                continue
            seen.add(real)
            dirnames.sort()
            if folder_format(dirpath) is not None:
                out.append(dirpath)
                dirnames.clear()  # an output folder is read as a whole
                continue
            for name in sorted(filenames):
                if name.startswith(".") or _NOT_RESULTS.search(name):
                    continue
                if name.endswith(suffixes) or "." not in name:
                    out.append(os.path.join(dirpath, name))
    return out


class Skipped(NamedTuple):
    """An input :func:`read_all` left out: the file or folder, and why."""

    path: str
    reason: str
    line: int | None = None  # 1-based line of the problem, when known

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.reason}"


class ReadResult(NamedTuple):
    """What :func:`read_all` read: the tidy frame, the inputs it could not read, and what
    reading had to say about the others (the warnings :func:`read_many` gives)."""

    frame: pd.DataFrame
    skipped: list[Skipped]
    notes: list[str]  # each once, in the order met: text outside fio's JSON, runs stopped, ...


#: Notes :func:`read_many` gives as warnings one by one; the rest are counted in one more (a
#: batch of thousands of files written with fio's normal output too would flood the screen).
MAX_WARNINGS = 20


def read_many(
    paths: PathArg,
    *,
    run_id: str | None = None,
    errors: Literal["raise", "warn"] = "raise",
    max_mib: float | None = None,
) -> pd.DataFrame:
    """Read many outputs into one tidy frame.

    Parameters
    ----------
    paths : str, os.PathLike or an iterable of them
        Files and folders (searched recursively; a Vdbench output folder counts as one run);
        one string is one path.
        fio logs inside folders are not results and are left out.
    run_id : str, optional
        Run identifier for every row; by default each file's own (see
        :func:`anfperf.ingest._frame.run_origin`).
    errors : {'raise', 'warn'}
        What to do with a file that cannot be read: raise its :class:`anfperf.ParseError`, or
        warn ("skipped <file>: <reason>") and go on with the others (the frame then holds every
        file that could be read). :func:`read_all` returns the skipped files as data instead.
    max_mib : float, optional
        Largest file read [MiB], stored or decompressed (a larger one is an error of that
        file); default :data:`anfperf.ingest._source.MAX_INPUT_MIB`.

    Returns
    -------
    pandas.DataFrame
        The tidy frame; `run_id` and `source_file` tell the rows' origins.

    Warns
    -----
    UserWarning
        What reading had to say (text outside fio's JSON, latencies fio did not measure, runs
        stopped early, ...), once each, after reading: at most :data:`MAX_WARNINGS` of them and
        a count of the rest (:func:`read_all` returns them all as data).
    """
    if errors not in ("raise", "warn"):
        raise ValueError(f"errors must be 'raise' or 'warn', not {errors!r}")
    caught: list[tuple[str, type[Warning]]] = []
    try:
        with input_limit(max_mib):
            frame, skipped, _ = _read_many(
                paths, run_id, raise_errors=errors == "raise", caught=caught
            )
    finally:  # what was said before a file stopped the reading is said too
        _warn_notes(caught)
    for item in skipped:
        warn(f"skipped {item}")
    return frame


def _warn_notes(caught: list[tuple[str, type[Warning]]]) -> None:
    """Give the warnings gathered while reading (each once already): at most MAX_WARNINGS."""
    for message, category in caught[:MAX_WARNINGS]:
        warn(message, category)
    if len(caught) > MAX_WARNINGS:
        warn(
            f"... and {len(caught) - MAX_WARNINGS} more notes from reading these inputs "
            "(anfperf.ingest.read_all returns them all as data)"
        )


def read_all(
    paths: PathArg, *, run_id: str | None = None, max_mib: float | None = None
) -> ReadResult:
    """Read many outputs into one tidy frame, going on past the ones that cannot be read.

    Parameters are those of :func:`read_many`.

    Returns
    -------
    ReadResult
        ``frame``: the tidy frame of every input that could be read; ``skipped``: one
        :class:`Skipped` (path, reason) per file or folder left out, in the order met;
        ``notes``: what reading the others had to say, which :func:`read_many` gives as
        warnings (text outside fio's JSON, latencies fio did not measure, runs stopped early,
        ...), each once, in the order met. Nothing is warned.
    """
    with input_limit(max_mib):
        return _read_many(paths, run_id, raise_errors=False)


@contextlib.contextmanager
def _collection_paused() -> Iterator[None]:
    """Cyclic garbage collection paused while many files are read, then as it was.

    The rows kept until the frame is built are tens of thousands of containers: the collector
    would go over them again and again, and over the whole heap once per some thousand files,
    for nothing: reading makes no reference cycles.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _read_many(
    paths: PathArg,
    run_id: str | None,
    *,
    raise_errors: bool,
    caught: list[tuple[str, type[Warning]]] | None = None,
) -> ReadResult:
    """Read `paths`; the readers' warnings, each once, become the result's notes and are added
    to `caught` (also when a file stops the reading: read_many still gives them)."""
    paths = path_list(paths)
    with _collection_paused(), collected_warnings() as sink:
        try:
            frame, skipped = _read_paths(paths, run_id, raise_errors=raise_errors)
        finally:
            unique = list(dict.fromkeys(sink))
            if caught is not None:
                caught.extend(unique)
    return ReadResult(frame, skipped, [message for message, _ in unique])


def _read_paths(
    paths: Iterable[str | os.PathLike], run_id: str | None, *, raise_errors: bool
) -> tuple[pd.DataFrame, list[Skipped]]:
    reader = _Reader(run_id, raise_errors)
    reader.read_each(os.fspath(item) for item in paths)
    return reader.result()


#: Files read ahead of parsing them: reading a few dozen files, then parsing them, keeps the
#: system calls' code and data, and the parser's, each in the processor's caches for longer
#: than reading and parsing each in turn.
_READ_AHEAD = 32


class _Reader:
    """What :func:`read_many` gathers: a collector per format that has one, rows per format
    that parses rows, frames of the others; and the inputs skipped."""

    def __init__(self, run_id: str | None, raise_errors: bool) -> None:
        self.run_id = run_id
        self.raise_errors = raise_errors
        # by format name (a Format hashes all its fields: once per file adds up)
        self.tables: dict[str, Any] = {}  # format -> its collector of many files
        self.batches: dict[str, list[dict]] = {}  # format -> rows of its files
        self.frames: list[pd.DataFrame] = []
        self.origins: dict = {}  # folder -> (run id, host) from a runner manifest, looked up once
        self.skipped: list[Skipped] = []
        self.walked: set[str] = set()  # real paths of the folders searched

    def skip(self, exc: ParseError) -> None:
        if self.raise_errors:
            raise exc
        self.skipped.append(Skipped(exc.source, exc.reason, exc.line))

    def read_each(self, paths: Iterable[str]) -> None:
        """Read files and output folders in order, searching folders of inputs where met."""
        batch: list[str] = []
        for path in paths:
            batch.append(path)
            if len(batch) == _READ_AHEAD:
                self._read_batch(batch)
                batch = []
        self._read_batch(batch)

    def _read_batch(self, batch: list[str]) -> None:
        # the format from the first bytes: a file that is no result is never read whole
        detected = [_format_with_content_or_error(path) for path in batch]
        for path, found in zip(batch, detected, strict=True):
            if isinstance(found, _NotARunFolder):  # a folder of inputs: search it here
                problems: list[tuple[str, str]] = []
                inputs = expand_paths([path], problems, self.walked)
                for folder, reason in problems:
                    self.skip(ParseError(folder, f"cannot be read ({reason})"))
                self.read_each(inputs)
            elif isinstance(found, ParseError):
                self.skip(found)
            else:
                fmt, data, source = found
                try:
                    self._gather(fmt, path, data, source)
                except ParseError as exc:
                    self.skip(exc)

    def _gather(self, fmt: Format, path: str, data: bytes | None, source: str) -> None:
        run_id = self.run_id
        if fmt.table is not None or fmt.parse_rows is not None:
            if data is None:
                data, source = read_bytes(path)
            origin = run_origin(source, self.origins)
            if fmt.table is not None:  # many small files: one collector gathers them
                table = self.tables.get(fmt.name)
                if table is None:
                    table = self.tables[fmt.name] = fmt.table()
                table.add(data, source, run_id=run_id, origin=origin)
            else:  # gather plain rows and build one frame per format
                rows = fmt.parse_rows(data, source)
                _stamp(rows, source, run_id, origin)
                self.batches.setdefault(fmt.name, []).extend(rows)
        elif fmt.read is not None and not fmt.by_path:
            # read once: hand the bytes over rather than reading the file again
            data, source = read_bytes(path)
            buffer = io.BytesIO(data)
            buffer.name = source
            self.frames.append(fmt.read(buffer, run_id=run_id))
        else:  # by path (Vdbench finds its companion reports next to it), or not a result
            self.frames.append(_read_one(fmt, path, run_id))

    def result(self) -> tuple[pd.DataFrame, list[Skipped]]:
        frames = [
            *(table.frame() for table in self.tables.values()),
            *(finalize(rows, source="<many>") for rows in self.batches.values()),
            *self.frames,
        ]
        if not frames:
            return empty_frame(), self.skipped
        if len(frames) == 1:
            return frames[0], self.skipped
        return conform(pd.concat(frames, ignore_index=True)), self.skipped


def _format_with_content_or_error(path: str) -> tuple[Format, bytes | None, str] | ParseError:
    """:func:`_format_with_content` of `path`, or the error it raised (a folder of inputs:
    :class:`_NotARunFolder`)."""
    try:
        return _format_with_content(path)
    except ParseError as exc:
        return exc


def _stamp(rows: list[dict], source: str, run_id: str | None, origin) -> None:
    """Give parsed rows their file, run id and host as :func:`finalize` would for one file."""
    label_local_host(rows, origin.host)
    flag_stopped(rows, source, origin.stopped)
    for row in rows:
        row["source_file"] = source
        row["run_id"] = run_id or origin.run_id


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer
