"""Exception hierarchy of anfperf.

Every error anfperf raises on purpose derives from :class:`AnfperfError`, so callers can catch
one class. Errors carry structured fields (the file, the host, the reason) besides the message.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence

#: This package's folder: frames of files below it are anfperf's own.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn on behalf of the code that called anfperf (a notebook cell, a script, a test).

    A warning raised deep inside a reader or a fit would otherwise name a line of anfperf's
    own, whatever depth it was called from; this one names the first caller outside anfperf.
    Inside :func:`collected_warnings` it is gathered instead.

    Parameters
    ----------
    message : str
        The warning, naming the file, host or argument it is about.
    category : type of Warning
        Its class.
    """
    sink = _collecting.get()
    if sink is not None:
        sink.append((message, category))
        return
    frame = sys._getframe(1)
    level = 2  # warnings.warn's stacklevel of our caller
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


#: Where :func:`warn` gathers warnings instead of giving them (see :func:`collected_warnings`).
_collecting: contextvars.ContextVar[list | None] = contextvars.ContextVar(
    "anfperf_collected_warnings", default=None
)


@contextlib.contextmanager
def collected_warnings() -> Iterator[list[tuple[str, type[Warning]]]]:
    """Gather the warnings anfperf gives meanwhile as data, (message, category), instead of
    giving them: a reader of thousands of files reports what it had to say once, at the end.
    Local to the thread (and task) that entered it."""
    sink: list[tuple[str, type[Warning]]] = []
    token = _collecting.set(sink)
    try:
        yield sink
    finally:
        _collecting.reset(token)


class AnfperfError(Exception):
    """Base class of all anfperf errors."""


class ParseError(AnfperfError, ValueError):
    """A file is not the benchmark output it claims to be, or is damaged.

    Parameters
    ----------
    source : str or os.PathLike
        The file (or a description of the buffer) that could not be read.
    reason : str
        What is wrong, in words a user can act on.
    line : int, optional
        1-based line number where the problem was found.
    """

    def __init__(self, source: str | os.PathLike | None, reason: str, line: int | None = None):
        self.source = os.fspath(source) if source is not None else "<buffer>"
        self.reason = reason
        self.line = line
        where = f"{self.source}:{line}" if line is not None else self.source
        super().__init__(f"{where}: {reason}")


class RemoteError(AnfperfError):
    """Remote hosts failed (unreachable, authentication, a missing tool or volume).

    Raised where a failure stops the work (preflight found problems, so nothing ran); failures
    during a run are recorded per task in its manifest instead, the other hosts going on.

    Parameters
    ----------
    reason : str
        What happened, in words a user can act on.
    problems : mapping of str to list of str
        Host -> what is wrong there.
    """

    def __init__(self, reason: str, problems: Mapping[str, Sequence[str]]):
        self.reason = reason
        self.problems = {host: list(p) for host, p in problems.items()}
        super().__init__(reason)

    def __reduce__(self):
        return (type(self), (self.reason, self.problems))


class WorkloadError(AnfperfError, ValueError):
    """A workload spec (or a workload file) is invalid.

    Parameters
    ----------
    reason : str
        What is wrong, in words a user can act on.
    field : str, optional
        The spec field at fault (``bs_kib``, ``threads``, ...).
    workload : str, optional
        The workload's name (or its position in a file, ``workloads[3]``).
    source : str, optional
        The YAML file the spec came from.
    line : int, optional
        1-based line in `source`, for YAML syntax errors.
    """

    def __init__(
        self,
        reason: str,
        *,
        field: str | None = None,
        workload: str | None = None,
        source: str | None = None,
        line: int | None = None,
    ):
        self.reason = reason
        self.field = field
        self.workload = workload
        self.source = source
        self.line = line
        where = []
        if source is not None:
            where.append(f"{source}:{line}" if line is not None else source)
        if workload is not None:
            where.append(f"workload {workload!r}")
        if field is not None:
            where.append(f"field {field!r}")
        super().__init__(": ".join([*where, reason]))


class StoreWriteError(AnfperfError):
    """Some runs could not be saved to a store (a full disk, say); the others were.

    Parameters
    ----------
    store : str or os.PathLike
        The store (folder) written to.
    reason : str
        What failed, naming the run it failed on.
    saved : sequence of str
        Run ids saved (whole) before the failure, in the order saved.
    unsaved : sequence of str
        Run ids not saved: the one that failed and those after it. Their earlier version in the
        store, if any, is kept as it was.
    """

    def __init__(
        self,
        store: str | os.PathLike,
        reason: str,
        *,
        saved: Sequence[str] = (),
        unsaved: Sequence[str] = (),
    ):
        self.store = os.fspath(store)
        self.reason = reason
        self.saved = list(saved)
        self.unsaved = list(unsaved)
        total = len(self.saved) + len(self.unsaved)
        super().__init__(f"{self.store}: {reason}; {len(self.saved)} of {total} runs saved")

    def __reduce__(self):
        return (
            _rebuild_store_write_error,
            (self.store, self.reason, self.saved, self.unsaved),
        )


def _rebuild_store_write_error(store, reason, saved, unsaved) -> StoreWriteError:
    return StoreWriteError(store, reason, saved=saved, unsaved=unsaved)


class ModelError(AnfperfError, ValueError):
    """A model cannot be fitted or evaluated with the data given."""


class ReportError(AnfperfError):
    """A report could not be made: a notebook cell raised, or the notebook could not run.

    When a cell raised, the partial executed notebook and its HTML are kept, so that the user
    sees where the run stopped; their paths are in ``ipynb`` and ``html``.

    Parameters
    ----------
    notebook : str or os.PathLike
        The notebook the report was made from.
    reason : str
        What went wrong, in words a user can act on.
    cell_index : int, optional
        0-based index of the failing cell in ``notebook`` (markdown cells count; papermill's
        injected-parameters cell does not).
    ename, evalue : str, optional
        Name and value of the exception the cell raised (``'ZeroDivisionError'``,
        ``'division by zero'``).
    execution_count : int, optional
        The failing cell's ``In [n]`` number in the executed notebook.
    name : str, optional
        The report's name.
    ipynb, html : str or os.PathLike, optional
        The partial executed notebook and its HTML, when they were written.
    """

    def __init__(
        self,
        notebook: str | os.PathLike,
        reason: str,
        *,
        cell_index: int | None = None,
        ename: str | None = None,
        evalue: str | None = None,
        execution_count: int | None = None,
        name: str | None = None,
        ipynb: str | os.PathLike | None = None,
        html: str | os.PathLike | None = None,
    ):
        self.notebook = os.fspath(notebook)
        self.reason = reason
        self.cell_index = cell_index
        self.ename = ename
        self.evalue = evalue
        self.execution_count = execution_count
        self.name = name
        self.ipynb = os.fspath(ipynb) if ipynb is not None else None
        self.html = os.fspath(html) if html is not None else None
        super().__init__(self._message())

    def _message(self) -> str:
        where = (
            self.notebook if self.cell_index is None else f"{self.notebook}, cell {self.cell_index}"
        )
        if self.execution_count is not None:
            where += f" (In [{self.execution_count}])"
        return f"{where}: {self.reason}"

    def __reduce__(self):
        # keyword-only fields do not survive the default Exception pickling (which replays
        # self.args); reports made in worker processes send their errors back pickled
        fields = ("cell_index", "ename", "evalue", "execution_count", "name", "ipynb", "html")
        return (
            _rebuild_report_error,
            (self.notebook, self.reason, {f: getattr(self, f) for f in fields}),
        )


def _rebuild_report_error(notebook: str, reason: str, fields: dict) -> ReportError:
    return ReportError(notebook, reason, **fields)
