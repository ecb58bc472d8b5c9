"""fio as a tool adapter: job files per host, ``fio --output-format=json+``, read as 'fio_json'.

Every host runs its own job file (``directory=`` its volumes, file names with its name); all
hosts start together and each writes ``<workload>.json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anfperf.runner.steps import HostTask, slug
from anfperf.runner.tools.base import ToolAdapter
from anfperf.workloads.fio import render_fio_jobfile
from anfperf.workloads.spec import Workload


def fio_task(
    jobfile: str,
    *,
    name: str,
    duration_s: float,
    timeout_s: float | None = None,
    extra_args: Sequence[str] = (),
) -> HostTask:
    """A task running one fio job file, its JSON+ results collected as ``<name>.json``.

    Parameters
    ----------
    jobfile : str
        The job file's text (uploaded as ``<name>.fio``).
    name : str
        File stem (a slug is taken).
    duration_s : float
        Expected run time [s].
    """
    stem = slug(name)
    return HostTask(
        argv=("fio", "--output-format=json+", f"--output={stem}.json", *extra_args, f"{stem}.fio"),
        files={f"{stem}.fio": jobfile},
        outputs=(f"{stem}.json",),
        duration_s=duration_s,
        timeout_s=timeout_s,
    )


class FioTool(ToolAdapter):
    """fio (https://github.com/axboe/fio)."""

    name = "fio"
    output_format = "fio_json"
    uniform_facts = ("fio_version",)

    def data_files(self, workload: Workload) -> dict[str, int]:
        # filename_format of the job file: a file per job clone (iodepth x numjobs), or one file
        # the threads share (the Vdbench seed's threads)
        size = round(workload.file_size_gib * 2**30)
        if workload.threads is not None:
            return {"file.0": size}
        clones = max(point.numjobs for point in workload.points())
        return {f"file.{job}.0": size for job in range(clones)}

    def render_files(
        self, workload: Workload, volumes: Sequence[str], hosts: Sequence[str] = (), **options: Any
    ) -> dict[str, str]:
        return {
            f"{stem}.fio": render_fio_jobfile(
                workload, volumes, host=host, n_hosts=n_hosts, max_iops=options.get("max_iops")
            )
            for stem, host, n_hosts in self.per_host(workload, hosts)
        }

    def tasks(
        self,
        workload: Workload,
        hosts: Sequence[Any],
        *,
        duration_s: float,
        max_iops: float | None = None,
        timeout_s: float | None = None,
    ) -> dict[str, HostTask]:
        tasks = {}
        for host in hosts:
            jobfile = render_fio_jobfile(
                workload, list(host.volumes.values()), host=host.name, n_hosts=len(hosts),
                max_iops=max_iops,
            )  # fmt: skip
            tasks[host.name] = fio_task(
                jobfile, name=workload.name, duration_s=duration_s, timeout_s=timeout_s
            )
        return tasks

    def probe(self, launcher: str | None = None) -> list[str]:
        return ["s fio; have fio && fio --version 2>&1"]

    def parse_facts(self, sections: Mapping[str, str]) -> dict[str, Any]:
        fio = sections.get("fio", "").strip()
        return {"fio_version": fio.splitlines()[0] if fio.startswith("fio") else None}

    def summary(self, facts: Mapping[str, Any]) -> str | None:
        return facts.get("fio_version") or "no fio"
