"""Run a parameterized notebook with papermill and write its report; many at once."""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anfperf._bundled import report_notebook
from anfperf.errors import AnfperfError, ReportError
from anfperf.folders import atomic_write_bytes, os_reason, output_folder
from anfperf.paths import is_utf8, printable_path
from anfperf.report import _html, _params, _warm
from anfperf.report._html import export_notebook

logger = logging.getLogger(__name__)

#: Environment of every report kernel. ``plotly_mimetype`` makes ``fig`` / ``fig.show()``
#: emit the JSON figure (the mimetype the HTML export draws) whatever the user's own
#: PLOTLY_RENDERER or a VS Code terminal would select.
#: ANFPERF_BATCH tells notebooks no one is there to use interactive controls (a report is
#: static HTML): :meth:`anfperf.planning.PlannerApp.widget` shows nothing then.
KERNEL_ENV = {"PLOTLY_RENDERER": "plotly_mimetype", "ANFPERF_BATCH": "1"}
#: Per-cell execution time limit [s].
DEFAULT_TIMEOUT_S = 600.0
#: Time allowed for a kernel to start [s].
DEFAULT_START_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ReportResult:
    """What one report run produced.

    Attributes
    ----------
    name : str
        Report name: the files are ``<out_dir>/<name>.ipynb`` and ``.html``.
    notebook : pathlib.Path
        The notebook that was run.
    ipynb, html : pathlib.Path or None
        The executed notebook and its HTML (also on failure: partial, up to the failing cell);
        None when it was not written (e.g. the kernel never started).
    parameters : dict
        The parameters given (defaults of the notebook not included).
    inputs : list of dict
        SHA-256 of every input file a parameter names:
        {'parameter', 'path', 'bytes', 'sha256'}.
    duration_s : float
        Wall time of the execution and the export [s].
    error : ReportError or None
        Why the report failed (cell index, exception name and value), None when it succeeded.
    """

    name: str
    notebook: Path
    ipynb: Path | None
    html: Path | None
    parameters: dict[str, Any] = field(default_factory=dict)
    inputs: list[dict] = field(default_factory=list)
    duration_s: float = 0.0
    error: ReportError | None = None

    @property
    def ok(self) -> bool:
        """True when the notebook ran to the end and the HTML was written."""
        return self.error is None


def _kernel_manager_class():
    """An AsyncKernelManager that starts kernels with :data:`KERNEL_ENV` added.

    Passing the environment to the kernel (not setting ``os.environ``) keeps the caller's
    process untouched, and is safe with several reports at once.

    ipykernel (>= 7) warns on stderr, in every report of a batch, that its TCP sockets are
    plain text: the kernel's sockets are encrypted (CurveZMQ keys provisioned by
    jupyter_client >= 8.8, for kernelspecs that declare ``supported_encryption: curve``, as
    ipykernel's own does). Where pyzmq has no CURVE support, the kernel talks over Unix
    sockets instead (the warning is about TCP only).
    """
    import zmq
    from jupyter_client.manager import AsyncKernelManager

    curve = zmq.has("curve") and hasattr(AsyncKernelManager, "transport_encryption")

    class ReportKernelManager(AsyncKernelManager):
        def __init__(self, **kw: Any) -> None:
            if not curve and os.name == "posix":
                kw.setdefault("transport", "ipc")
            super().__init__(**kw)

        async def start_kernel(self, **kw: Any) -> None:
            env = {**(kw.pop("env", None) or os.environ), **KERNEL_ENV}
            if curve:
                kw.setdefault("transport_encryption", "auto")
            await super().start_kernel(env=env, **kw)

    return ReportKernelManager


def _warm_argument(notebook_sources: Sequence[str]) -> str:
    """ipykernel option that makes the kernel import what the notebook imports as it starts."""
    modules = _warm.notebook_imports(notebook_sources)
    return (
        "--IPKernelApp.exec_lines="
        f'__import__("anfperf.report._warm", fromlist=["_"]).warm_kernel({modules!r})'
    )


class _Kernel:
    """A report's kernel, started before papermill runs (it boots while this process reads the
    notebook and hashes the inputs) and shut down while the HTML is written."""

    def __init__(self, kernel_name: str, workdir: Path, sources: Sequence[str]) -> None:
        from jupyter_core.utils import run_sync

        self._run_sync = run_sync
        self.km = _kernel_manager_class()(kernel_name=kernel_name)
        # only launches the process: the wait for it to be ready is papermill's (start_timeout)
        run_sync(self.km.start_kernel)(cwd=str(workdir), extra_arguments=[_warm_argument(sources)])

    def shutdown(self) -> None:
        """Stop the kernel; it has run every cell, so there is nothing to wait for."""
        try:
            self._run_sync(self.km.shutdown_kernel)(now=True)
        except Exception:  # a dead kernel: nothing left to stop
            logger.debug("kernel shutdown failed", exc_info=True)


def _failing_cell(nb) -> tuple[int | None, Any]:
    """Index in ``nb`` and cell where execution stopped (error output, else last started)."""
    last_started = (None, None)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        pm = cell.get("metadata", {}).get("papermill", {})
        if pm.get("exception") or any(o.get("output_type") == "error" for o in cell.outputs):
            return i, cell
        if pm.get("start_time"):
            last_started = (i, cell)
    return last_started


def _source_index(source_nb, executed_nb, cell) -> int | None:
    """Index of an executed cell in the notebook the user wrote.

    papermill adds cells (injected parameters, error markers), so positions differ: match by
    cell id, else count the executed cells that came from the source.
    """
    if cell is None:
        return None
    ids = {c.get("id"): i for i, c in enumerate(source_nb.cells) if c.get("id")}
    if cell.get("id") in ids:
        return ids[cell["id"]]
    added = {"injected-parameters", "papermill-error-cell-tag"}
    own = [c for c in executed_nb.cells if not added & set(c.get("metadata", {}).get("tags", []))]
    for i, c in enumerate(own):
        if c is cell:
            return i
    return None


def _check_setup(
    notebook: str | os.PathLike,
    out_dir: str | os.PathLike,
    cwd: str | os.PathLike | None,
    names: Sequence[str] = (),
) -> None:
    """Refuse a notebook that cannot be read, an output folder that cannot be written and a
    working folder that is not one before any kernel starts: each would fail every report of
    a batch alike, the first two after its run. So do names (of the notebook, the folders, the
    reports) that are not UTF-8: they go into the notebook, which papermill could not write.

    Raises
    ------
    ReportError
        The notebook is missing, unreadable or not a notebook.
    anfperf.AnfperfError
        `out_dir` cannot be made or written (read-only, a file, no such parent), or `cwd` is
        not a folder; a name is not UTF-8.
    """
    notebook = Path(notebook).absolute()
    _check_utf8(notebook, "{}")
    if notebook.is_dir():
        raise ReportError(notebook, "a folder, not a notebook")
    if not notebook.is_file():
        raise ReportError(notebook, "no such notebook")
    _params.code_sources(notebook)  # readable, JSON, with cells
    if cwd is not None:
        _check_utf8(Path(cwd).absolute(), "{}: cannot run the notebook there")
        if not Path(cwd).is_dir():
            raise AnfperfError(f"{cwd}: no such folder to run the notebook in")
    for name in names:
        _check_utf8(name, "report {}")
    out = Path(out_dir).absolute()
    _check_utf8(out, "{}: cannot write the report there")  # (all of it, before it is made)
    output_folder(out, what="the report")


def _check_utf8(name: str | os.PathLike, what: str) -> None:
    """Refuse `name` when it is not UTF-8; `what` says what it is (``{}``: where it goes)."""
    if not is_utf8(os.fspath(name)):
        said = what.format(printable_path(name))
        raise AnfperfError(f"{said}: its name is not UTF-8 text, and a notebook holds UTF-8 only")


def _unique_names(names: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}-{seen[n]}")
    return out


def _render(
    notebook: str | os.PathLike,
    parameters: Mapping[str, Any] | None,
    out_dir: str | os.PathLike,
    name: str | None,
    show_code: bool,
    cwd: str | os.PathLike | None,
    kernel_name: str,
    timeout_s: float | None,
    start_timeout_s: float,
) -> ReportResult:
    """One report; failures are returned in ``error``, not raised (the batch needs both)."""
    start = time.perf_counter()
    parameters = dict(parameters or {})
    try:
        notebook = report_notebook(notebook).absolute()
    except ReportError as exc:  # not a report's name, nor a notebook
        exc.name = name
        return ReportResult(name or str(notebook), Path(notebook), None, None, parameters,
                            error=exc)  # fmt: skip
    name = name or notebook.stem
    result = {"name": name, "notebook": notebook, "ipynb": None, "html": None}
    if not notebook.is_file():
        err = ReportError(notebook, "no such notebook", name=name)
        return ReportResult(**result, parameters=parameters, error=err)
    try:
        # the caller's relative paths, before the kernel (which runs elsewhere) starts; a
        # missing input fails here, in a fraction of a second, not in a cell
        parameters = _params.resolve_path_parameters(notebook, parameters)
    except ReportError as exc:
        exc.name = name
        return ReportResult(**result, parameters=parameters, error=exc)
    # absolute: papermill runs the kernel (and saves the output) inside `cwd`
    workdir = Path(cwd).absolute() if cwd is not None else notebook.parent
    out = Path(out_dir).absolute()
    ipynb, html = out / f"{name}.ipynb", out / f"{name}.html"
    try:
        _params.check_utf8_values(notebook, parameters)
        declared = _params.declared_parameters(notebook)
        _params.check_parameters(notebook, parameters, declared)
        sources = _params.code_sources(notebook)
    except ReportError as exc:
        exc.name = name
        return ReportResult(**result, parameters=parameters, error=exc)

    logger.info("report %s: running %s in %s", name, notebook, workdir)
    # the kernel boots (and imports what the notebook imports) while this process hashes the
    # inputs and papermill reads and parameterizes the notebook
    try:
        kernel = _Kernel(kernel_name, workdir, sources)
    except Exception as exc:  # no such kernel, cannot launch it
        err = ReportError(notebook, f"{type(exc).__name__}: {exc}", ename=type(exc).__name__,
                          evalue=str(exc), name=name)  # fmt: skip
        return ReportResult(**result, parameters=parameters, error=err)
    try:
        inputs = _params.input_checksums(_params.effective_values(parameters, declared), workdir)
    except ReportError as exc:
        kernel.shutdown()
        exc.name = name
        return ReportResult(**result, parameters=parameters, error=exc)

    def run_info() -> dict:
        return {"name": name, "cwd": str(workdir), "inputs": inputs,
                "parameters": _params.parameter_rows(parameters, declared),
                "duration_s": round(time.perf_counter() - start, 3)}  # fmt: skip

    # the exporter's imports overlap the kernel's run: this process only waits for it
    warm = threading.Thread(
        target=_import_exporter, args=(show_code,), name="anfperf-report-imports", daemon=True
    )
    warm.start()
    error, ran = _execute(
        notebook, ipynb, parameters, workdir, name, kernel, timeout_s, start_timeout_s
    )  # fmt: skip
    warm.join()
    nb = ran.nb
    if nb is not None:  # the notebook as the run ended, with its provenance: one write
        _record(notebook, nb, ipynb, html, error, run_info())
        error, written = _save(notebook, nb, ipynb, error, name, ran.wrote)
        if not written:
            nb = None  # no HTML of a notebook that is not there either
    if nb is not None:
        error, html = _export(notebook, nb, ipynb, html, error, name, show_code)
    else:
        ipynb = html = None
    if error is not None:
        logger.info("report %s failed: %s", name, error)
    return ReportResult(
        name=name, notebook=notebook, ipynb=ipynb, html=html, parameters=parameters,
        inputs=inputs, duration_s=time.perf_counter() - start, error=error,
    )  # fmt: skip


_ENGINE = "anfperf-report"


@functools.cache
def _register_engine() -> None:
    """papermill's nbclient engine, its notebook written whole and only where it is useful.

    papermill writes the whole output notebook (figures and all) twice per cell: 34 writes for
    the report of data/samples, 2.4 s of this process's CPU, competing with the kernels of a
    batch; and it writes in place (truncate, then write): a full disk left an empty or half
    notebook. Here papermill writes nothing (no output path); the manager writes the notebook
    to ``save_to`` whole (:func:`_write_notebook`) as the run starts (a full disk or a folder
    that takes no file stops it there, before any cell), and during a long run every
    ``autosave_cell_every`` seconds (papermill's own autosave), so a report that hangs still
    shows how far it got. The notebook as the run ended, also when the kernel died or a cell
    timed out, is left in ``ran`` for the caller, who writes it once with its provenance.
    """
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import NBClientEngine, NotebookExecutionManager, papermill_engines
    from papermill.log import logger as papermill_logger

    class _Manager(NotebookExecutionManager):
        _cell_save = False
        #: Where the notebook is written while it runs (None: nowhere).
        save_to: Path | None = None
        #: Written once (as the run started): a write failing later does not stop the run.
        wrote = False
        #: The run has ended: the final notebook is the caller's to write.
        ended = False

        def save(self, **kw: Any) -> None:
            if self._cell_save:
                self.autosave_cell()
                return
            self.last_save_time = self.now()
            if self.save_to is None or self.ended:
                return
            try:
                _write_notebook(self.nb, self.save_to)
            except AnfperfError as exc:
                if not self.wrote:  # the first write: nothing has run yet, stop here
                    raise
                # the run goes on: its end writes the notebook again (or says why it cannot)
                logger.warning("%s (while the notebook runs)", exc)
                return
            self.wrote = True

        def autosave_cell(self) -> None:
            self._cell_save = False
            try:
                super().autosave_cell()
            finally:
                self._cell_save = True

        def cell_start(self, cell, cell_index=None, **kw: Any) -> None:
            self._cell_save = True
            try:
                super().cell_start(cell, cell_index, **kw)
            finally:
                self._cell_save = False

        def cell_complete(self, cell, cell_index=None, **kw: Any) -> None:
            self._cell_save = True
            try:
                super().cell_complete(cell, cell_index, **kw)
            finally:
                self._cell_save = False

        def notebook_complete(self, **kw: Any) -> None:
            self.ended = True
            super().notebook_complete(**kw)

    class _ReportEngine(NBClientEngine):
        @classmethod
        def execute_notebook(
            cls, nb, kernel_name, output_path=None, progress_bar=True, log_output=False,
            autosave_cell_every=30, save_to=None, ran=None, **kwargs,
        ):  # fmt: skip
            # Engine.execute_notebook with the manager above; `ran` (a _Run) is told the
            # notebook and whether it was written, also when the run ends in an exception
            nb_man = _Manager(
                nb, output_path=None, progress_bar=progress_bar, log_output=log_output,
                autosave_cell_every=autosave_cell_every,
            )  # fmt: skip
            nb_man.save_to = save_to
            nb_man.notebook_start()  # (its first write failing: nothing ran, nothing to keep)
            if ran is not None:
                ran.nb, ran.manager = nb_man.nb, nb_man
            try:
                cls.execute_managed_notebook(nb_man, kernel_name, log_output=log_output, **kwargs)
            finally:
                nb_man.cleanup_pbar()
                nb_man.notebook_complete()
            return nb_man.nb

        @classmethod
        def execute_managed_notebook(
            cls, nb_man, kernel_name, log_output=False, stdout_file=None, stderr_file=None,
            start_timeout=60, execution_timeout=None, km=None, **kwargs,
        ):  # fmt: skip
            # NBClientEngine's, with the kernel started beforehand (`km`): nbclient shuts it down
            # and closes its channels as if it had started it (cleanup_kc), without waiting for
            # a kernel that has run every cell to end gracefully
            client = PapermillNotebookClient(
                nb_man, km=km, timeout=execution_timeout, startup_timeout=start_timeout,
                kernel_name=kernel_name, log=papermill_logger, log_output=log_output,
                stdout_file=stdout_file, stderr_file=stderr_file, shutdown_kernel="immediate",
                **{k: v for k, v in kwargs.items() if k not in ("input_path", "timeout")},
            )  # fmt: skip
            return client.execute(cleanup_kc=True)

    papermill_engines.register(_ENGINE, _ReportEngine)


@dataclass
class _Run:
    """What the engine leaves of a run: its notebook (None until papermill got that far), and
    its manager (whether it wrote the notebook while running)."""

    nb: Any = None
    manager: Any = None

    @property
    def wrote(self) -> bool:
        return self.manager is not None and self.manager.wrote


def _write_notebook(nb, path: Path) -> None:
    """`nb` into `path`, whole: a reader sees the old file or the new one, never a part, and
    a write that fails leaves no part behind.

    Raises
    ------
    anfperf.AnfperfError
        ``cannot write <path>: <why>`` (a full disk, text that is not UTF-8).
    """
    import nbformat

    try:
        data = (nbformat.writes(nb) + "\n").encode("utf-8")
    except UnicodeEncodeError as exc:  # refused earlier, where it comes from; not to be lost
        raise AnfperfError(f"cannot write {path}: {exc}") from None
    try:
        atomic_write_bytes(path, data)
    except OSError as exc:
        raise AnfperfError(f"cannot write {path}: {os_reason(exc, path)}") from None


def _execute(
    notebook: Path,
    ipynb: Path,
    parameters: dict,
    workdir: Path,
    name: str,
    kernel: _Kernel,
    timeout_s: float | None,
    start_timeout_s: float,
) -> tuple[ReportError | None, _Run]:
    """Run the notebook with papermill: (what went wrong or None, what the run left: the
    notebook as it ended, None when the run never got that far)."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    _register_engine()
    ran = _Run()
    try:
        # no output path: papermill writes nothing (the engine writes `ipynb` whole, and the
        # caller the final notebook); nor does it format the folder's name with the parameters
        papermill.execute_notebook(
            str(notebook),
            None,
            parameters=parameters,
            engine_name=_ENGINE,
            kernel_name=kernel.km.kernel_name,
            cwd=str(workdir),
            progress_bar=False,
            start_timeout=start_timeout_s,
            execution_timeout=timeout_s,
            km=kernel.km,
            save_to=ipynb,
            ran=ran,
        )
    except PapermillExecutionError as exc:
        # (`ran.nb` is the notebook papermill marked the failing cell in)
        return ReportError(
            notebook, f"{exc.ename}: {exc.evalue}", ename=exc.ename, evalue=exc.evalue,
            execution_count=exc.exec_count, name=name,
        ), ran  # fmt: skip
    except AnfperfError as exc:  # the notebook could not be written as the run started
        return ReportError(notebook, str(exc), name=name), ran
    except Exception as exc:  # kernel died or did not start, cell timeout, ...
        # anything the run raises must end in this report's result, not in the batch
        return ReportError(
            notebook, f"{type(exc).__name__}: {exc}", ename=type(exc).__name__,
            evalue=str(exc), name=name,
        ), ran  # fmt: skip
    except BaseException:  # Ctrl-C: what ran is kept, as far as it got
        if ran.nb is not None:
            with contextlib.suppress(AnfperfError):
                _write_notebook(ran.nb, ipynb)
        raise
    finally:
        kernel.shutdown()  # nbclient has, unless the run never reached the kernel
    return None, ran


def _record(notebook: Path, nb, ipynb: Path, html: Path, error: ReportError | None, run: dict):
    """Write the run's provenance (and where it failed) into the executed notebook `nb`."""
    if error is not None:
        index, cell = _failing_cell(nb)
        if cell is not None:
            import nbformat

            source = nbformat.read(notebook, as_version=4)
            error.cell_index = _source_index(source, nb, cell)
            error.execution_count = error.execution_count or cell.get("execution_count")
        error.ipynb, error.html = str(ipynb), str(html)
        error.args = (error._message(),)
    nb.metadata.setdefault("papermill", {})["output_path"] = str(ipynb)  # (papermill had none)
    _set_metadata(nb, notebook, error, run)


def _save(
    notebook: Path, nb, ipynb: Path, error: ReportError | None, name: str, wrote: bool
) -> tuple[ReportError | None, bool]:
    """Write the final notebook: (the report's error, whether the notebook was written). A
    failure to write becomes the report's error, or is added to the one it has.

    The notebook written as the run started (`wrote`) is removed when the final one cannot
    be written: a report that failed to end is not left looking like one still running.
    """
    try:
        _write_notebook(nb, ipynb)
    except AnfperfError as exc:
        if wrote:
            with contextlib.suppress(OSError):
                ipynb.unlink()
        if error is None:
            return ReportError(notebook, str(exc), name=name), False
        error.reason = f"{error.reason}; {exc}"
        error.ipynb = error.html = None
        error.args = (error._message(),)
        return error, False
    return error, True


def _set_metadata(nb, notebook: Path, error: ReportError | None, run: dict) -> None:
    pm = nb.metadata.get("papermill", {})
    nb.metadata["anfperf"] = {
        "version": _version(),
        "name": run["name"],
        "notebook": str(notebook),
        "cwd": run["cwd"],
        "started": pm.get("start_time"),
        "duration_s": run["duration_s"],
        "parameters": run["parameters"],
        "inputs": run["inputs"],
        "error": str(error) if error is not None else None,
    }


def _export(
    notebook: Path,
    nb,
    ipynb: Path,
    html: Path,
    error: ReportError | None,
    name: str,
    show_code: bool,
) -> tuple[ReportError | None, Path | None]:
    """The HTML export; a failure becomes the report's error unless it already has one."""
    try:
        export_notebook(nb, html, show_code=show_code, name=ipynb.stem)
    except Exception as exc:
        if error is None:
            reason = f"HTML export failed: {type(exc).__name__}: {exc}"
            if isinstance(exc, OSError):  # a full disk: the page is not there, nor a part
                reason = f"cannot write {html}: {os_reason(exc, html)}"
            error = ReportError(
                notebook, reason, ename=type(exc).__name__, evalue=str(exc), name=name,
                ipynb=ipynb,
            )  # fmt: skip
        return error, None
    return error, html


def _import_exporter(show_code: bool) -> None:
    # the exporter is built (nbconvert imported, templates compiled) and plotly.js read while
    # the kernel runs; done once per process
    try:
        with _html._EXPORTERS_LOCK:
            _html._warm_exporter(show_code)
        _html._plotly_js()
    except Exception:  # the export builds it again and reports what is wrong
        logger.debug("pre-import of nbconvert failed", exc_info=True)


def _version() -> str:
    from anfperf import __version__

    return __version__


def render_report(
    notebook: str | os.PathLike,
    *,
    parameters: Mapping[str, Any] | None = None,
    out_dir: str | os.PathLike = "reports",
    name: str | None = None,
    show_code: bool = False,
    cwd: str | os.PathLike | None = None,
    kernel_name: str = "python3",
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    start_timeout_s: float = DEFAULT_START_TIMEOUT_S,
) -> ReportResult:
    """Run a notebook with parameters and write its executed ``.ipynb`` and one HTML report.

    The HTML is self-contained: plotly.js is inside it once, nothing is loaded from the network,
    code cells are hidden (unless ``show_code``), and a block at the top names the anfperf
    version, every parameter and the SHA-256 of every input file a parameter names.

    Notebooks display figures as usual (``fig`` as a cell's last expression, or ``fig.show()``):
    the kernel runs with ``PLOTLY_RENDERER=plotly_mimetype``, and the export draws those
    outputs. Nothing needs to be called in the notebook.

    Parameters
    ----------
    notebook : str or os.PathLike
        A report's name (:data:`anfperf.report.REPORTS`: ``"benchmark"``, ``"compare"``,
        ``"capacity"``, ``"ingest"``) or a notebook; its cell tagged ``parameters`` declares
        the parameters.
    parameters : mapping, optional
        Name -> value, injected by papermill after the parameters cell. Names the notebook does
        not declare are an error (a typo would silently make a report with the default). The
        paths of parameters whose ``# help:`` starts with ``[path]`` or ``[glob]`` are relative
        to the current directory; they are made absolute and checked before the kernel starts
        (:func:`anfperf.report.resolve_path_parameters`).
    out_dir : str or os.PathLike, default "reports"
        Folder of ``<name>.ipynb`` and ``<name>.html`` (relative to the current directory).
    name : str, optional
        Report name; default: the notebook's file name without suffix.
    show_code : bool, default False
        Show code cells in the HTML.
    cwd : str or os.PathLike, optional
        Folder the kernel runs in; default: the notebook's folder, so that relative paths the
        notebook itself holds work wherever the report is started from.
    kernel_name : str, default "python3"
        Jupyter kernel.
    timeout_s : float or None, default 600
        Time limit per cell [s]; None: none.
    start_timeout_s : float, default 60
        Time limit for the kernel to start [s].

    Returns
    -------
    ReportResult

    Raises
    ------
    ReportError
        When a cell raises (``cell_index``, ``ename``, ``evalue``; the partial notebook and its
        HTML are written, see ``ipynb`` / ``html``), or the notebook cannot run at all: not a
        report's name nor a notebook, or a path parameter names no file (no kernel started);
        or its notebook could not be written (a full disk: no part of it is left).
    anfperf.AnfperfError
        `out_dir` cannot be written or `cwd` is not a folder, or a name is not UTF-8 (nothing
        ran).
    """
    _check_setup(report_notebook(notebook), out_dir, cwd, [name] if name is not None else [])
    result = _render(
        notebook, parameters, out_dir, name, show_code, cwd, kernel_name, timeout_s,
        start_timeout_s,
    )  # fmt: skip
    if result.error is not None:
        raise result.error
    return result


def render_reports(
    notebook: str | os.PathLike,
    parameter_sets: Sequence[Mapping[str, Any]],
    *,
    names: Sequence[str] | None = None,
    out_dir: str | os.PathLike = "reports",
    show_code: bool = False,
    cwd: str | os.PathLike | None = None,
    kernel_name: str = "python3",
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    start_timeout_s: float = DEFAULT_START_TIMEOUT_S,
    processes: int | None = None,
    progress: bool = True,
    on_done: Callable[[int, int, ReportResult], None] | None = None,
) -> list[ReportResult]:
    """One report per parameter set, several at once in worker processes.

    A report that fails does not stop the others: its :class:`ReportError` is in its result's
    ``error`` (nothing is raised for it).

    Parameters
    ----------
    notebook : str or os.PathLike
        A report's name or a notebook, as in :func:`render_report`.
    parameter_sets : sequence of mapping
        One mapping of parameters per report.
    names : sequence of str, optional
        One report name per set; default ``<notebook stem>-1``, ``-2``, ... (just the stem for a
        single set). Repeated names get ``-2``, ``-3`` appended.
    out_dir, show_code, cwd, kernel_name, timeout_s, start_timeout_s
        As in :func:`render_report`.
    processes : int, optional
        Reports run at once; default: the number of CPUs. 1 runs them one after the other in
        this process.
    progress : bool, default True
        Show a tqdm progress bar (on stderr).
    on_done : callable, optional
        Told ``(k, n, result)`` as the k-th of n reports is finished (a log's line per report,
        where no bar is drawn).

    Returns
    -------
    list of ReportResult
        In the order of ``parameter_sets``.

    Raises
    ------
    ReportError
        `notebook` is neither a report's name nor a path, or is missing or not a notebook (no
        report ran).
    anfperf.AnfperfError
        `out_dir` cannot be written or `cwd` is not a folder (no report ran).
    """
    from tqdm.auto import tqdm

    notebook = report_notebook(notebook)
    n = len(parameter_sets)
    if names is None:
        names = [notebook.stem] if n == 1 else [f"{notebook.stem}-{i + 1}" for i in range(n)]
    if len(names) != n:
        raise ValueError(f"{len(names)} names for {n} parameter sets")
    names = _unique_names(list(names))
    _check_setup(notebook, out_dir, cwd, names)
    jobs = [
        (notebook, dict(p), out_dir, nm, show_code, cwd, kernel_name, timeout_s, start_timeout_s)
        for p, nm in zip(parameter_sets, names, strict=True)
    ]
    workers = min(processes or os.cpu_count() or 1, n)
    results: list[ReportResult | None] = [None] * n
    bar = tqdm(total=n, desc="reports", unit="report", disable=not progress or n == 0)

    finished = []

    def done(i: int) -> None:
        bar.update(1)
        finished.append(i)
        if on_done is not None:
            on_done(len(finished), n, results[i])

    try:
        if workers <= 1:
            for i, job in enumerate(jobs):
                results[i] = _render(*job)
                done(i)
        else:
            # spawn, not fork: the parent may hold threads (tqdm's monitor, zmq) that a forked
            # child would inherit in an unknown state. Each report is one worker task; its
            # kernel is a further process of its own.
            ctx = multiprocessing.get_context("spawn")
            with concurrent.futures.ProcessPoolExecutor(workers, mp_context=ctx) as pool:
                futures = {pool.submit(_render, *job): i for i, job in enumerate(jobs)}
                for fut in concurrent.futures.as_completed(futures):
                    i = futures[fut]
                    try:
                        results[i] = fut.result()
                    except Exception as exc:  # the worker itself died (OOM kill, ...)
                        job = jobs[i]
                        err = ReportError(
                            job[0], f"worker process failed: {type(exc).__name__}: {exc}",
                            ename=type(exc).__name__, evalue=str(exc), name=job[3],
                        )  # fmt: skip
                        results[i] = ReportResult(
                            job[3], Path(job[0]).absolute(), None, None, job[1], error=err
                        )
                    done(i)
    finally:
        bar.close()
    return [r for r in results if r is not None]
