"""DiskSpd as a tool adapter: command files per host, read as 'diskspd' (its XML results).

DiskSpd runs on Windows clients, which the runner (POSIX shell over SSH) does not drive: it is
rendered only (``anfperf workloads --tool diskspd``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from anfperf.runner.tools.base import ToolAdapter
from anfperf.workloads.diskspd import render_diskspd_commands
from anfperf.workloads.spec import Workload


class DiskSpdTool(ToolAdapter):
    """DiskSpd (https://github.com/microsoft/diskspd)."""

    name = "diskspd"
    output_format = "diskspd"
    runnable = False

    def render_files(
        self, workload: Workload, volumes: Sequence[str], hosts: Sequence[str] = (), **options: Any
    ) -> dict[str, str]:
        files = {}
        for stem, host, n_hosts in self.per_host(workload, hosts):
            cmds = render_diskspd_commands(
                workload, volumes, host=host, n_hosts=n_hosts, max_iops=options.get("max_iops")
            )
            # every argument is from a checked, quote-free character set, so the plain join
            # is also what cmd.exe / PowerShell need (shlex quotes '\\')
            files[f"{stem}.diskspd.txt"] = "".join(" ".join(c) + "\n" for c in cmds)
        return files
