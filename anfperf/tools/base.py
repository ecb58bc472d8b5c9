"""What the runner, preflight and ``anfperf workloads`` ask of a benchmark tool, and the registry.

A tool is a :class:`ToolAdapter`: it renders workloads into the files the tool reads (with its
own render options, :class:`ToolOption`), turns a workload into the per-host tasks
(:class:`HostTask`) that launch it and name its outputs, says which inventory setting names its
program on a host, probes a host for its version and says what is missing, and names the format
its outputs are read as by :mod:`anfperf.ingest`. Callers ask the adapter (:func:`get_tool`)
instead of branching on the tool's name, so a new tool is one module and one :func:`register`
call.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anfperf.paths import check_relative
from anfperf.values import is_number, is_positive_number

if TYPE_CHECKING:
    from anfperf.live import LiveStream
    from anfperf.workloads.spec import Workload

#: Extra time a task gets beyond its expected duration before it counts as hung: fio lays out
#: its files and Vdbench starts its JVMs before the measured time begins [s].
TIMEOUT_MARGIN_S = 120.0
#: ... and in proportion to the duration (a formatting pass can take as long as the run).
TIMEOUT_FACTOR = 1.5


@dataclass(frozen=True)
class HostTask:
    """One command on one host.

    Parameters
    ----------
    argv : sequence of str
        Program and arguments, run in the task's folder on the host. Each argument reaches the
        program literally, whatever characters it holds.
    files : mapping of str to str
        File name (relative to the task's folder) -> text, uploaded before the run.
    outputs : sequence of str
        Files or folders (relative to the task's folder) to collect after the run.
    duration_s : float
        Expected run time [s] (progress bar, default timeout).
    timeout_s : float, optional
        Longest the command may run before it is stopped [s]; default
        ``duration_s * TIMEOUT_FACTOR + TIMEOUT_MARGIN_S``.
    live : bool
        Its stdout carries the tool's interval figures as they come, read by the adapter's
        :meth:`ToolAdapter.live_stream` while it runs.
    keep_stdout : bool
        Save its stdout with the run (False: it repeats an output file, collected anyway).
    """

    argv: tuple[str, ...]
    files: Mapping[str, str] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()
    duration_s: float = 0.0
    timeout_s: float | None = None
    live: bool = False
    keep_stdout: bool = True

    def __post_init__(self) -> None:
        argv = tuple(self.argv)
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("argv must be a non-empty list of strings")
        object.__setattr__(self, "argv", argv)
        object.__setattr__(
            self, "outputs", tuple(check_relative(o, "output") for o in self.outputs)
        )
        object.__setattr__(
            self, "files", {check_relative(k, "file name"): str(v) for k, v in self.files.items()}
        )
        if not is_number(self.duration_s) or not 0 <= self.duration_s < math.inf:
            raise ValueError(
                f"duration_s must be a number of seconds >= 0, got {self.duration_s!r}"
            )
        if self.timeout_s is not None and not is_positive_number(self.timeout_s):
            raise ValueError(f"timeout_s must be a number of seconds > 0, got {self.timeout_s!r}")

    @property
    def effective_timeout_s(self) -> float:
        if self.timeout_s is not None:
            return float(self.timeout_s)
        return self.duration_s * TIMEOUT_FACTOR + TIMEOUT_MARGIN_S

    def to_dict(self) -> dict[str, Any]:
        return {
            "argv": list(self.argv),
            "files": dict(self.files),
            "outputs": list(self.outputs),
            "duration_s": self.duration_s,
            "timeout_s": self.effective_timeout_s,
            **({"live": True} if self.live else {}),
        }


def slug(text: str, limit: int = 40) -> str:
    """`text` reduced to letters, digits and ``._-`` (for run ids and file names)."""
    out = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._-")[:limit]
    return out or "run"


@dataclass(frozen=True)
class ToolOption:
    """A render option of a tool: a keyword of :func:`anfperf.tools.render_files` and of the
    adapter's :meth:`ToolAdapter.render_files`, and ``anfperf workloads --<name>`` (``_`` as
    ``-``).

    Attributes
    ----------
    name : str
        The keyword (a Python identifier).
    help : str
        What ``anfperf workloads --help`` says of it.
    metavar : str, optional
        Its value's name in the help (default: the name in capitals).
    type : callable
        Turns the command line's text into the value (default str).
    """

    name: str
    help: str
    metavar: str | None = None
    type: Callable[[str], Any] = str

    @property
    def flag(self) -> str:
        """The command line's option: ``--vdbench-dir`` for ``vdbench_dir``."""
        return "--" + self.name.replace("_", "-")


class ToolAdapter:
    """One benchmark tool. Subclasses set :attr:`name` and override what their tool needs.

    Attributes
    ----------
    name : str
        The tool's name: ``--tool`` value, ``RunStep.tool``, manifest ``tool``, and the prefix of
        its version fact (``<name>_version``).
    output_format : str or None
        The :mod:`anfperf.ingest` format its outputs are read as ('fio_json', 'vdbench', ...).
    runnable : bool
        Whether the runner can launch it on the (POSIX) hosts; DiskSpd (Windows) is only
        rendered.
    uniform_facts : tuple of str
        Preflight facts that should be the same on every host (a warning when they differ).
    options : tuple of ToolOption
        Its own render options (keywords of :meth:`render_files`, ``anfperf workloads``
        options), such as Vdbench's ``user`` of its ``hd=`` lines.
    inventory_key : str or None
        The inventory setting that names the tool's program on a host (Vdbench's
        ``vdbench: /opt/vdbench/vdbench``), read into ``Host.launchers[name]``; None: the tool
        is found on the PATH.
    """

    name: str = ""
    output_format: str | None = None
    runnable: bool = True
    uniform_facts: tuple[str, ...] = ()
    options: tuple[ToolOption, ...] = ()
    inventory_key: str | None = None

    # -- rendering (``anfperf workloads``) ----------------------------------------------------

    def render_files(
        self,
        workload: Workload,
        volumes: Sequence[str],
        hosts: Sequence[str] = (),
        *,
        max_iops: float | None = None,
        **options: Any,
    ) -> dict[str, str]:
        """File name -> text of what the tool runs for `workload` (raises WorkloadError).

        Parameters
        ----------
        workload : Workload
        volumes, hosts : sequence of str
            Mount points, and client host names (none: one local client).
        max_iops : float, optional
            The measured maximum [IOPS] that a load curve's rates are fractions of.
        **options
            The tool's own :attr:`options`, by name (None when not given).
        """
        raise NotImplementedError(f"{self.name} renders no files")

    @staticmethod
    def per_host(workload: Workload, hosts: Sequence[str]) -> list[tuple[str, str | None, int]]:
        """(file stem, host, number of hosts) for each host's share of `workload`; one share
        for all when no hosts are named (stem: the workload's name, host None)."""
        n_hosts = max(len(hosts), 1)
        if not hosts:
            return [(workload.name, None, n_hosts)]
        return [(f"{workload.name}-{host}", host, n_hosts) for host in hosts]

    # -- launching (the runner) ----------------------------------------------------------------

    def expected_duration_s(self, workload: Workload) -> float:
        """Planned run time: every load point's warm-up and measured time [s]."""
        return float(len(workload.points()) * (workload.warmup_s + workload.duration_s))

    def data_files(self, workload: Workload) -> dict[str, int]:
        """The data files one host makes on each volume for `workload`: name -> bytes.

        Names are as the tool makes them (relative to the volume, the host's name left out),
        so that workloads sharing a file count it once (``anfperf run --dry-run`` says how much
        space a run takes). Empty when the tool does not say.
        """
        return {}

    def tasks(
        self,
        workload: Workload,
        hosts: Sequence[Any],
        *,
        duration_s: float,
        max_iops: float | None = None,
        timeout_s: float | None = None,
        live_interval_s: float | None = None,
    ) -> dict[str, HostTask]:
        """Host name -> the task that runs `workload` there (argv, files, outputs).

        Parameters
        ----------
        workload : Workload
        hosts : sequence of anfperf.runner.Host
            The inventory's hosts, in order (``name``, ``hostname``, ``user``, ``volumes``,
            ``launchers``).
        duration_s : float
            From :meth:`expected_duration_s` [s].
        max_iops, timeout_s : float, optional
            As for :func:`anfperf.runner.plan_workloads`.
        live_interval_s : float, optional
            Have the tool report its figures every so many seconds on stdout while it runs
            (tasks marked ``live``), where it can; None: only its results at the end.
        """
        raise NotImplementedError(f"anfperf cannot launch {self.name}")

    def live_stream(self, host: str, interval_s: float = 1.0) -> LiveStream | None:
        """A reader of a ``live`` task's stdout on `host` (the workload reporting every
        `interval_s`): ``feed(bytes)`` returns the :class:`anfperf.live.Interval` figures complete
        so far (None: the tool has none)."""
        return None

    def reaches(self, hosts: Sequence[Any]) -> tuple[str, ...]:
        """Hosts the tool drives itself, without a task of their own (none by default)."""
        return ()

    def failure_reason(self, output: str, folders: Iterable[Path] = ()) -> str | None:
        """What the tool said went wrong, from its stdout + stderr and collected folders; None
        leaves the last line it printed as the reason."""
        return None

    # -- preflight -------------------------------------------------------------------------------

    def launcher(self, host: Any) -> str | None:
        """The program `host` names for the tool (its inventory's :attr:`inventory_key`), if any."""
        return host.launchers.get(self.name)

    def probe(self, launcher: str | None = None) -> list[str]:
        """Lines of the preflight shell script that print what :meth:`parse_facts` reads.

        The script defines ``s NAME`` (starts section NAME) and ``have PROGRAM``; every value
        put into a line must be quoted (:func:`shlex.quote`).
        """
        return []

    def parse_facts(self, sections: Mapping[str, str]) -> dict[str, Any]:
        """Facts from the script's sections (at least ``<name>_version``, None when missing)."""
        return {}

    def problems(self, facts: Mapping[str, Any]) -> list[str]:
        """What keeps the tool from running on a host with `facts`."""
        if facts.get(f"{self.name}_version"):
            return []
        return [f"{self.name} is not installed (or not on PATH)"]

    def version(self, facts: Mapping[str, Any]) -> str | None:
        """The tool's version among a host's facts (recorded with each task)."""
        return facts.get(f"{self.name}_version")

    def summary(self, facts: Mapping[str, Any]) -> str | None:
        """What the preflight summary line says about the tool (None: nothing)."""
        return None


#: Tool name -> adapter, in registration order. Filled by :mod:`anfperf.tools`.
_REGISTRY: dict[str, ToolAdapter] = {}


def register(adapter: ToolAdapter, *, replace: bool = False) -> ToolAdapter:
    """Make `adapter` known by its name (to ``plan_workloads``, preflight, the CLI's choices).

    Raises
    ------
    ValueError
        The name is empty, or taken and `replace` is False; its inventory key is another
        tool's; an option's name is not a Python keyword.
    """
    if not adapter.name:
        raise ValueError("a tool adapter needs a name")
    if adapter.name in _REGISTRY and not replace:
        raise ValueError(f"tool {adapter.name!r} is registered already")
    owner = inventory_keys().get(adapter.inventory_key or "")
    if owner not in (None, adapter.name):
        raise ValueError(f"inventory key {adapter.inventory_key!r} is tool {owner!r}'s already")
    for option in adapter.options:
        if not option.name.isidentifier():
            raise ValueError(f"tool {adapter.name!r}: option {option.name!r} is not a keyword")
    _REGISTRY[adapter.name] = adapter
    return adapter


def unregister(name: str) -> None:
    """Forget the tool `name` (no error when unknown)."""
    _REGISTRY.pop(name, None)


def tool_names(*, runnable: bool = False) -> tuple[str, ...]:
    """Names of the registered tools (only those the runner can launch when `runnable`)."""
    return tuple(n for n, a in _REGISTRY.items() if a.runnable or not runnable)


def tools() -> tuple[ToolAdapter, ...]:
    """Every registered adapter, in registration order."""
    return tuple(_REGISTRY.values())


def get_tool(name: str, *, runnable: bool = False) -> ToolAdapter:
    """The adapter of tool `name`.

    Raises
    ------
    ValueError
        No such tool (or it cannot be launched, when `runnable`).
    """
    adapter = _REGISTRY.get(name)
    if adapter is None or (runnable and not adapter.runnable):
        names = tool_names(runnable=runnable)
        raise ValueError(f"tool must be one of {', '.join(map(repr, names))}, not {name!r}")
    return adapter


def find_tool(name: str) -> ToolAdapter | None:
    """The adapter of tool `name`, or None (hand-made plans may run any program)."""
    return _REGISTRY.get(name)


def tool_version(name: str, facts: Mapping[str, Any]) -> str | None:
    """The version of tool `name` among a host's facts (``<name>_version`` for unknown tools)."""
    adapter = _REGISTRY.get(name)
    return adapter.version(facts) if adapter else facts.get(f"{name}_version")


def tool_options() -> tuple[ToolOption, ...]:
    """The registered tools' render options, one per name (the first tool's declaration), in
    registration order: what ``anfperf workloads`` offers."""
    seen: dict[str, ToolOption] = {}
    for adapter in _REGISTRY.values():
        for option in adapter.options:
            seen.setdefault(option.name, option)
    return tuple(seen.values())


def inventory_keys() -> dict[str, str]:
    """Inventory setting -> the tool whose program it names on a host (``vdbench``)."""
    return {a.inventory_key: a.name for a in _REGISTRY.values() if a.inventory_key}
