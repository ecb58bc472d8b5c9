"""What the runner, preflight and ``anfperf workloads`` ask of a benchmark tool, and the registry.

A tool is a :class:`ToolAdapter`: it renders workloads into the files the tool reads, turns a
workload into the per-host tasks that launch it and name its outputs, probes a host for its
version and says what is missing, and names the format its outputs are read as by
:mod:`anfperf.ingest`. Callers ask the adapter (:func:`get_tool`) instead of branching on the
tool's name, so a new tool is one module and one :func:`register` call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anfperf.runner.steps import HostTask
    from anfperf.workloads.spec import Workload


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
    """

    name: str = ""
    output_format: str | None = None
    runnable: bool = True
    uniform_facts: tuple[str, ...] = ()

    # -- rendering (``anfperf workloads``) ----------------------------------------------------

    def render_files(
        self, workload: Workload, volumes: Sequence[str], hosts: Sequence[str] = (), **options: Any
    ) -> dict[str, str]:
        """File name -> text of what the tool runs for `workload` (raises WorkloadError).

        `options` are the renderers' keywords (``user``, ``vdbench_dir``, ``max_iops``); a tool
        ignores those it has no use for.
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
    ) -> dict[str, HostTask]:
        """Host name -> the task that runs `workload` there (argv, files, outputs).

        Parameters
        ----------
        workload : Workload
        hosts : sequence of anfperf.runner.Host
            The inventory's hosts, in order.
        duration_s : float
            From :meth:`expected_duration_s` [s].
        max_iops, timeout_s : float, optional
            As for :func:`anfperf.runner.plan_workloads`.
        """
        raise NotImplementedError(f"anfperf cannot launch {self.name}")

    def reaches(self, hosts: Sequence[Any]) -> tuple[str, ...]:
        """Hosts the tool drives itself, without a task of their own (none by default)."""
        return ()

    def failure_reason(self, output: str, folders: Iterable[Path] = ()) -> str | None:
        """What the tool said went wrong, from its stdout + stderr and collected folders; None
        leaves the last line it printed as the reason."""
        return None

    # -- preflight -------------------------------------------------------------------------------

    def launcher(self, host: Any) -> str | None:
        """The program configured for `host` (an inventory field named after the tool), if any."""
        return getattr(host, self.name, None)

    def probe(self, launcher: str | None = None) -> list[str]:
        """Lines of the preflight shell script that print what :meth:`parse_facts` reads.

        The script defines ``s NAME`` (starts section NAME) and ``have PROGRAM``; every value
        put into a line must be quoted (:func:`anfperf.runner.security.quote`).
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


#: Tool name -> adapter, in registration order. Filled by :mod:`anfperf.runner.tools`.
_REGISTRY: dict[str, ToolAdapter] = {}


def register(adapter: ToolAdapter, *, replace: bool = False) -> ToolAdapter:
    """Make `adapter` known by its name (to ``plan_workloads``, preflight, the CLI's choices).

    Raises
    ------
    ValueError
        The name is empty, or taken and `replace` is False.
    """
    if not adapter.name:
        raise ValueError("a tool adapter needs a name")
    if adapter.name in _REGISTRY and not replace:
        raise ValueError(f"tool {adapter.name!r} is registered already")
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
