"""Run a parameterized notebook with papermill and write its report; many at once."""

from __future__ import annotations

import concurrent.futures
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anfperf.errors import ReportError
from anfperf.report import _params
from anfperf.report._html import export_html

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
    """
    import zmq
    from jupyter_client.manager import AsyncKernelManager

    class ReportKernelManager(AsyncKernelManager):
        async def start_kernel(self, **kw: Any) -> None:
            env = {**(kw.pop("env", None) or os.environ), **KERNEL_ENV}
            if zmq.has("curve") and hasattr(AsyncKernelManager, "transport_encryption"):
                # encrypted when the kernelspec supports it (recent jupyter_client): ipykernel
                # warns on stderr, in every report of a batch, about plain-text TCP otherwise
                kw.setdefault("transport_encryption", "auto")
            await super().start_kernel(env=env, **kw)

    return ReportKernelManager


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
    notebook = Path(notebook).absolute()
    name = name or notebook.stem
    parameters = dict(parameters or {})
    result = {"name": name, "notebook": notebook, "ipynb": None, "html": None}
    if not notebook.is_file():
        err = ReportError(notebook, "no such notebook", name=name)
        return ReportResult(**result, parameters=parameters, error=err)
    # absolute: papermill runs the kernel (and saves the output) inside `cwd`
    workdir = Path(cwd).absolute() if cwd is not None else notebook.parent
    out = Path(out_dir).absolute()
    ipynb, html = out / f"{name}.ipynb", out / f"{name}.html"
    try:
        declared = _params.declared_parameters(notebook)
        _params.check_parameters(notebook, parameters, declared)
        inputs = _params.input_checksums(_params.effective_values(parameters, declared), workdir)
        out.mkdir(parents=True, exist_ok=True)
    except ReportError as exc:
        exc.name = name
        return ReportResult(**result, parameters=parameters, error=exc)

    logger.info("report %s: running %s in %s", name, notebook, workdir)
    # the exporter's imports (~0.5 s) overlap the kernel's run: this process only waits for it
    warm = threading.Thread(target=_import_exporter, name="anfperf-report-imports", daemon=True)
    warm.start()
    error = _execute(notebook, ipynb, parameters, workdir, name, kernel_name, timeout_s,
                     start_timeout_s)  # fmt: skip
    warm.join()
    if ipynb.is_file():
        run = {"name": name, "cwd": str(workdir), "inputs": inputs,
               "parameters": _params.parameter_rows(parameters, declared),
               "duration_s": round(time.perf_counter() - start, 3)}  # fmt: skip
        _record(notebook, ipynb, html, error, run)
        error, html = _export(notebook, ipynb, html, error, name, show_code)
    else:
        ipynb = html = None
    if error is not None:
        logger.info("report %s failed: %s", name, error)
    return ReportResult(
        name=name, notebook=notebook, ipynb=ipynb, html=html, parameters=parameters,
        inputs=inputs, duration_s=time.perf_counter() - start, error=error,
    )  # fmt: skip


def _execute(
    notebook: Path,
    ipynb: Path,
    parameters: dict,
    workdir: Path,
    name: str,
    kernel_name: str,
    timeout_s: float | None,
    start_timeout_s: float,
) -> ReportError | None:
    """Run the notebook with papermill into `ipynb`; what went wrong, or None."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    try:
        papermill.execute_notebook(
            str(notebook),
            str(ipynb),
            parameters=parameters,
            kernel_name=kernel_name,
            cwd=str(workdir),
            progress_bar=False,
            start_timeout=start_timeout_s,
            execution_timeout=timeout_s,
            kernel_manager_class=_kernel_manager_class(),
        )
    except PapermillExecutionError as exc:
        return ReportError(
            notebook, f"{exc.ename}: {exc.evalue}", ename=exc.ename, evalue=exc.evalue,
            execution_count=exc.exec_count, name=name,
        )  # fmt: skip
    except Exception as exc:  # kernel died or did not start, cell timeout, ...
        # anything the run raises must end in this report's result, not in the batch
        return ReportError(
            notebook, f"{type(exc).__name__}: {exc}", ename=type(exc).__name__,
            evalue=str(exc), name=name,
        )  # fmt: skip
    return None


def _record(notebook: Path, ipynb: Path, html: Path, error: ReportError | None, run: dict) -> None:
    """Write the run's provenance (and where it failed) into the executed notebook."""
    import nbformat

    nb = nbformat.read(ipynb, as_version=4)
    if error is not None:
        index, cell = _failing_cell(nb)
        if cell is not None:
            source = nbformat.read(notebook, as_version=4)
            error.cell_index = _source_index(source, nb, cell)
            error.execution_count = error.execution_count or cell.get("execution_count")
        error.ipynb, error.html = str(ipynb), str(html)
        error.args = (error._message(),)
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
    nbformat.write(nb, ipynb)


def _export(
    notebook: Path,
    ipynb: Path,
    html: Path,
    error: ReportError | None,
    name: str,
    show_code: bool,
) -> tuple[ReportError | None, Path | None]:
    """The HTML export; a failure becomes the report's error unless it already has one."""
    try:
        export_html(ipynb, html, show_code=show_code)
    except Exception as exc:
        if error is None:
            error = ReportError(
                notebook, f"HTML export failed: {type(exc).__name__}: {exc}",
                ename=type(exc).__name__, evalue=str(exc), name=name, ipynb=ipynb,
            )  # fmt: skip
        return error, None
    return error, html


def _import_exporter() -> None:
    try:
        import nbconvert.exporters.html  # noqa: F401
        import plotly.offline  # noqa: F401
    except Exception:  # export_html imports them again and reports what is wrong
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
        The notebook; its cell tagged ``parameters`` declares the parameters.
    parameters : mapping, optional
        Name -> value, injected by papermill after the parameters cell. Names the notebook does
        not declare are an error (a typo would silently make a report with the default).
    out_dir : str or os.PathLike, default "reports"
        Folder of ``<name>.ipynb`` and ``<name>.html`` (relative to the current directory).
    name : str, optional
        Report name; default: the notebook's file name without suffix.
    show_code : bool, default False
        Show code cells in the HTML.
    cwd : str or os.PathLike, optional
        Folder the kernel runs in; default: the notebook's folder, so that relative paths in
        the notebook (and in path parameters) work wherever the report is started from.
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
        HTML are written, see ``ipynb`` / ``html``), or the notebook cannot run at all.
    """
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
) -> list[ReportResult]:
    """One report per parameter set, several at once in worker processes.

    A report that fails does not stop the others: its :class:`ReportError` is in its result's
    ``error`` (nothing is raised for it).

    Parameters
    ----------
    notebook : str or os.PathLike
        The notebook, as in :func:`render_report`.
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

    Returns
    -------
    list of ReportResult
        In the order of ``parameter_sets``.
    """
    from tqdm.auto import tqdm

    notebook = Path(notebook)
    n = len(parameter_sets)
    if names is None:
        names = [notebook.stem] if n == 1 else [f"{notebook.stem}-{i + 1}" for i in range(n)]
    if len(names) != n:
        raise ValueError(f"{len(names)} names for {n} parameter sets")
    names = _unique_names(list(names))
    jobs = [
        (notebook, dict(p), out_dir, nm, show_code, cwd, kernel_name, timeout_s, start_timeout_s)
        for p, nm in zip(parameter_sets, names, strict=True)
    ]
    workers = min(processes or os.cpu_count() or 1, n)
    results: list[ReportResult | None] = [None] * n
    bar = tqdm(total=n, desc="reports", unit="report", disable=not progress or n == 0)
    try:
        if workers <= 1:
            for i, job in enumerate(jobs):
                results[i] = _render(*job)
                bar.update(1)
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
                    bar.update(1)
    finally:
        bar.close()
    return [r for r in results if r is not None]
