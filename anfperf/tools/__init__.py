"""Benchmark tools as adapters, one module each; the list of tools is here.

Each adapter (:class:`ToolAdapter`) holds everything about its tool: its renderer and render
options (:class:`ToolOption`), how it is launched (:class:`HostTask` per host) and what it
leaves to collect, the inventory setting naming its program on a host, its version probe and
problems for preflight, why a run failed, and the :mod:`anfperf.ingest` format of its outputs.
A new tool is a module with a subclass and one :func:`register` call (a test may register its
own and :func:`unregister` it after). :func:`render_files` renders workloads for any of them
(``anfperf workloads``).

>>> from anfperf.tools import render_vdbench
>>> from anfperf.workloads import get_workload
>>> print(render_vdbench(get_workload("RndRead"), ["/mnt/vdb1"], comments=False), end="")
sd=default,size=693g
sd=sd-1-1,lun=/mnt/vdb1/file-1-1,openflags=o_direct
wd=RndRead,sd=sd*,rdpct=100,seekpct=100,xfersize=8k
rd=default,warmup=60,elapsed=600,interval=1,iorate=max
rd=RndRead,wd=RndRead,sd=("sd*"),threads=25
"""

from anfperf.tools.base import (
    HostTask,
    ToolAdapter,
    ToolOption,
    find_tool,
    get_tool,
    inventory_keys,
    register,
    slug,
    tool_names,
    tool_options,
    tool_version,
    tools,
    unregister,
)
from anfperf.tools.diskspd import DiskSpdTool, render_diskspd_commands
from anfperf.tools.files import formats, render_files, write_files
from anfperf.tools.fio import (
    FioTool,
    fio_sections,
    fio_task,
    render_fio_command,
    render_fio_jobfile,
)
from anfperf.tools.vdbench import VdbenchHost, VdbenchTool, render_vdbench

# The tools anfperf knows, in the order the CLI lists them.
for _adapter in (FioTool(), VdbenchTool(), DiskSpdTool()):
    register(_adapter)
del _adapter

__all__ = [
    "DiskSpdTool",
    "FioTool",
    "HostTask",
    "ToolAdapter",
    "ToolOption",
    "VdbenchHost",
    "VdbenchTool",
    "find_tool",
    "fio_sections",
    "fio_task",
    "formats",
    "get_tool",
    "inventory_keys",
    "register",
    "render_diskspd_commands",
    "render_files",
    "render_fio_command",
    "render_fio_jobfile",
    "render_vdbench",
    "slug",
    "tool_names",
    "tool_options",
    "tool_version",
    "tools",
    "unregister",
    "write_files",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer
