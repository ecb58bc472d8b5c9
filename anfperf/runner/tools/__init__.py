"""Benchmark tools as adapters, one module each; the list of tools is here.

Each adapter (:class:`ToolAdapter`) holds its tool's renderer, how it is launched and what it
leaves to collect, its version probe and problems for preflight, and the
:mod:`anfperf.ingest` format of its outputs. A new tool is a module with a subclass and one
:func:`register` call (a test may register its own and :func:`unregister` it after).
"""

from anfperf.runner.tools.base import (
    ToolAdapter,
    find_tool,
    get_tool,
    register,
    tool_names,
    tool_version,
    tools,
    unregister,
)
from anfperf.runner.tools.diskspd import DiskSpdTool
from anfperf.runner.tools.fio import FioTool, fio_task
from anfperf.runner.tools.vdbench import VdbenchTool

# The tools anfperf knows, in the order the CLI lists them.
for _adapter in (FioTool(), VdbenchTool(), DiskSpdTool()):
    register(_adapter)
del _adapter

__all__ = [
    "DiskSpdTool",
    "FioTool",
    "ToolAdapter",
    "VdbenchTool",
    "find_tool",
    "fio_task",
    "get_tool",
    "register",
    "tool_names",
    "tool_version",
    "tools",
    "unregister",
]
