"""Benchmark workloads: the spec, the seeds' catalogue, and renderers for Vdbench, fio, DiskSpd.

>>> from anfperf.workloads import get_workload, render_vdbench
>>> print(render_vdbench(get_workload("RndRead"), ["/mnt/vdb1"], comments=False), end="")
sd=default,size=693g
sd=sd-1-1,lun=/mnt/vdb1/file-1-1,openflags=o_direct
wd=RndRead,sd=sd*,rdpct=100,seekpct=100,xfersize=8k
rd=default,warmup=60,elapsed=600,interval=1,iorate=max
rd=RndRead,wd=RndRead,sd=("sd*"),threads=25
"""

from anfperf.workloads.catalogue import CATALOGUE, catalogue, get_workload
from anfperf.workloads.diskspd import render_diskspd_commands
from anfperf.workloads.files import catalogue_table, render_files
from anfperf.workloads.fio import fio_sections, render_fio_command, render_fio_jobfile
from anfperf.workloads.spec import (
    Point,
    Workload,
    WorkloadError,
    check_host,
    check_name,
    check_path,
    dump_workloads,
    load_workloads,
)
from anfperf.workloads.vdbench import VdbenchHost, render_vdbench

__all__ = [
    "CATALOGUE",
    "Point",
    "Workload",
    "WorkloadError",
    "catalogue",
    "catalogue_table",
    "check_host",
    "check_name",
    "check_path",
    "dump_workloads",
    "fio_sections",
    "get_workload",
    "load_workloads",
    "render_diskspd_commands",
    "render_fio_command",
    "render_files",
    "render_fio_jobfile",
    "render_vdbench",
    "VdbenchHost",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer
