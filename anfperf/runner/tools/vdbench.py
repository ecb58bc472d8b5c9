"""Vdbench as a tool adapter: one parameter file on the first host, read as 'vdbench'.

The first host is the master and runs one parameter file with an ``hd=`` per host
(``shell=ssh``, as the seed does; the master must reach the others by SSH); results land in
``<master>/<workload>/``. A single host runs without ``hd=`` lines. Vdbench's failures are
explained in its own words (:mod:`anfperf.runner.tools.vdbench_failure`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from anfperf.errors import AnfperfError
from anfperf.runner.security import quote
from anfperf.runner.steps import HostTask, slug
from anfperf.runner.tools.base import ToolAdapter
from anfperf.runner.tools.vdbench_failure import failure_reason
from anfperf.workloads.spec import Workload, WorkloadError
from anfperf.workloads.vdbench import VdbenchHost, render_vdbench, vdbench_file_size_mib


class VdbenchTool(ToolAdapter):
    """Vdbench (the user's own install: Oracle's licence)."""

    name = "vdbench"
    output_format = "vdbench"
    uniform_facts = ("java_version",)

    def render_files(
        self, workload: Workload, volumes: Sequence[str], hosts: Sequence[str] = (), **options: Any
    ) -> dict[str, str]:
        parm = render_vdbench(
            workload, volumes, hosts, user=options.get("user"),
            vdbench_dir=options.get("vdbench_dir"),
        )  # fmt: skip
        return {f"{workload.name}.parm": parm}

    def data_files(self, workload: Workload) -> dict[str, int]:
        # one lun per host and volume (LUN_FILE), in whole MiB as Vdbench makes it
        return {"file": vdbench_file_size_mib(workload) * 2**20}

    def expected_duration_s(self, workload: Workload) -> float:
        """A load curve (``iorate=curve``) first runs at the maximum rate, once per thread count
        and read share: that run counts too."""
        runs = len(workload.points())
        if workload.rate_kind == "curve":
            runs += runs // len(workload.rate)
        return float(runs * (workload.warmup_s + workload.duration_s))

    def tasks(
        self,
        workload: Workload,
        hosts: Sequence[Any],
        *,
        duration_s: float,
        max_iops: float | None = None,
        timeout_s: float | None = None,
    ) -> dict[str, HostTask]:
        master = hosts[0]
        vdbench = master.vdbench or "vdbench"
        parm = render_vdbench(
            workload, list(master.volumes.values()), _clients(hosts),
            user=master.user if len(hosts) > 1 else None,
            vdbench_dir=posixpath.dirname(vdbench) or None if len(hosts) > 1 else None,
        )  # fmt: skip
        stem = slug(workload.name)
        return {
            master.name: HostTask(
                argv=(vdbench, "-f", f"{stem}.parm", "-o", stem),
                files={f"{stem}.parm": parm},
                outputs=(stem,),
                duration_s=duration_s,
                timeout_s=timeout_s,
            )
        }

    def reaches(self, hosts: Sequence[Any]) -> tuple[str, ...]:
        """The slaves: every host after the master (its Vdbench starts them over SSH)."""
        return tuple(h.name for h in hosts[1:])

    def failure_reason(self, output: str, folders: Iterable[Path] = ()) -> str | None:
        # Vdbench's own messages, not the last line of its Java stack trace
        return failure_reason(output, folders)

    def probe(self, launcher: str | None = None) -> list[str]:
        vdb = quote(launcher or "vdbench")
        return [
            "s java; have java && java -version 2>&1",
            # A path is checked as such (bash's `command -v` finds no folder, dash's any file):
            # 'found PATH' and the version, else why the path cannot be run.
            f"s vdbench; v={vdb}; p=; case $v in */*) "
            "if [ -d \"$v\" ]; then if [ -f \"${v%/}/vdbench\" ] && [ -x \"${v%/}/vdbench\" ]; "
            "then printf 'folder %s\\n' \"$v\"; else printf 'bare-folder %s\\n' \"$v\"; fi; "
            "elif [ -f \"$v\" ] && [ -x \"$v\" ]; then p=$v; "
            "elif [ -e \"$v\" ]; then printf 'not-executable %s\\n' \"$v\"; "
            "else printf 'missing %s\\n' \"$v\"; fi;; "
            "*) p=$(command -v \"$v\" 2>/dev/null) || printf 'not-on-path %s\\n' \"$v\";; esac; "
            # the version is in the jar (unzip) and the install's readme.txt, next to the launcher
            "if [ -n \"$p\" ]; then printf 'found %s\\n' \"$p\"; "
            "d=$(dirname -- \"$(readlink -f -- \"$p\" 2>/dev/null || printf '%s' \"$p\")\"); "
            "{ unzip -p \"$d/vdbench.jar\" Vdb/Dist.class 2>/dev/null; cat \"$d/readme.txt\" 2>/dev/null; } "
            "| grep -a -o -m1 'vdbench[0-9][0-9][0-9][0-9]*' | head -n1; fi",
        ]  # fmt: skip

    def parse_facts(self, sections: Mapping[str, str]) -> dict[str, Any]:
        java = re.search(r'version "([^"]+)"', sections.get("java", ""))
        lines = sections.get("vdbench", "").strip().splitlines()
        state, _, path = (lines[0] if lines else "").partition(" ")
        found = path if state == "found" else None
        # from the install (jar, readme), else from a versioned path such as /opt/vdbench50407
        version = re.search(r"vdbench\d{3,}\w*", " ".join(lines[1:2] or [path]))
        return {
            "java_version": java[1] if java else None,
            "vdbench_path": found,
            "vdbench_version": version[0] if version and found else ("present" if found else None),
            "vdbench_refused": None if found else _launcher_problem(state, path),
        }

    def problems(self, facts: Mapping[str, Any]) -> list[str]:
        problems = []
        if not facts.get("vdbench_path"):
            problems.append(facts.get("vdbench_refused") or _launcher_problem("", ""))
        if not facts.get("java_version"):
            problems.append("java is not installed (Vdbench needs it)")
        return problems

    def summary(self, facts: Mapping[str, Any]) -> str | None:
        return (
            f"vdbench {facts.get('vdbench_version') or '-'}, "
            f"java {facts.get('java_version') or '-'}"
        )


#: What the inventory's ``vdbench:`` should name.
_NAME_THE_SCRIPT = "set 'vdbench:' in the inventory to the vdbench script of the install"


def _launcher_problem(state: str, path: str) -> str:
    """Why the launcher the probe looked for cannot be run (`state`: its word for it)."""
    script = f"{path.rstrip('/')}/vdbench"
    return {
        "folder": f"{path} is a folder: name the vdbench script in it, {script}",
        "bare-folder": f"{path} is a folder without a vdbench script: {_NAME_THE_SCRIPT}",
        "not-executable": f"{path} is not an executable file: {_NAME_THE_SCRIPT}",
        "missing": f"{path} does not exist on the host: {_NAME_THE_SCRIPT}",
    }.get(
        state,
        f"{path or 'vdbench'} is not on the PATH: {_NAME_THE_SCRIPT} (e.g. /opt/vdbench/vdbench)",
    )


def _clients(hosts: Sequence[Any]) -> list[Any] | None:
    """hd= lines for a multi-host Vdbench run: inventory names, addresses, mount points."""
    if len(hosts) < 2:
        return None  # one host: Vdbench runs there without hd= lines
    out = []
    for h in hosts:
        try:
            out.append(VdbenchHost(
                name=h.name, system=h.hostname, volumes=tuple(h.volumes.values()), user=h.user,
                vdbench_dir=posixpath.dirname(h.vdbench) or None if h.vdbench else None,
            ).checked())  # fmt: skip
        except WorkloadError as exc:
            raise AnfperfError(f"host {h.name}: not usable in a Vdbench run: {exc}") from None
    return out
