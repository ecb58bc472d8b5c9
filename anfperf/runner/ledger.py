"""The manifest of a run as the fleet starts it: a new run's, or a resumed run's checked against
its plan (tasks to re-run set to the plan's commands)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anfperf import __version__
from anfperf.errors import AnfperfError
from anfperf.runner.inventory import DEFAULT_WORKDIR
from anfperf.runner.local import LocalConnection
from anfperf.runner.manifest import MANIFEST_VERSION, Manifest, now_iso
from anfperf.runner.security import (
    join,
)
from anfperf.runner.steps import RunPlan, RunStep, step_files
from anfperf.tools import tool_version

log = logging.getLogger(__name__)


def new_manifest(
    plan: RunPlan,
    conns: Mapping[str, Any],
    workdir: str | Mapping[str, str],
    hosts_info: Mapping[str, Mapping[str, Any]] | None,
    facts: Mapping[str, Mapping[str, Any]] | None,
    extra: Mapping[str, Any] | None,
) -> dict[str, Any]:
    hosts = {}
    for name in plan.hosts:
        info = dict((hosts_info or {}).get(name) or _describe_connection(conns[name]))
        info["workdir"] = host_workdir(workdir, name)
        info["facts"] = dict((facts or {}).get(name) or {})
        hosts[name] = info
    steps = [step_record(step, index, hosts) for index, step in enumerate(plan.steps)]
    return {
        "manifest_version": MANIFEST_VERSION,
        "run_id": plan.run_id,
        "status": "running",
        "created": now_iso(),
        "updated": None,
        "end": None,
        "anfperf_version": __version__,
        "tools": sorted({s.tool for s in plan.steps}),
        "plan_options": dict(plan.options),
        **dict(extra or {}),
        "hosts": hosts,
        "steps": steps,
    }


def step_record(step: RunStep, index: int, hosts: Mapping[str, Any]) -> dict[str, Any]:
    """A step as the manifest records it before it runs (its tasks 'pending')."""
    names = step_files(step, index)
    tasks = {}
    for host, task in step.tasks.items():
        facts = (hosts.get(host) or {}).get("facts") or {}
        tasks[host] = {
            **task.to_dict(),
            "command": join(task.argv),
            "stdout": f"{host}/{names['stdout']}",
            "stderr": f"{host}/{names['stderr']}",
            "tool_version": tool_version(step.tool, facts),
            "status": "pending", "reason": None, "exit_code": None, "start": None,
            "end": None, "elapsed_s": None, "collected": [], "attempts": 0,
        }  # fmt: skip
    return {
        "name": step.name, "tool": step.tool, "workload": step.workload,
        "duration_s": step.duration_s, "start_skew_s": None, "tasks": tasks,
        "reaches": list(step.reaches),
        **({"adaptive": dict(step.adaptive)} if step.adaptive else {}),
    }  # fmt: skip


def _describe_connection(conn: Any) -> dict[str, Any]:
    gateway = getattr(conn, "gateway", None)
    return {
        "hostname": getattr(conn, "host", None),
        "port": getattr(conn, "port", None),
        "user": getattr(conn, "user", None),
        "jump": getattr(gateway, "host", None) if gateway is not None else None,
        "local": isinstance(conn, LocalConnection),
    }


def host_workdir(workdir: str | Mapping[str, str], host: str) -> str:
    """The base remote folder of `host`: one for all hosts, or its entry (default if none)."""
    if isinstance(workdir, Mapping):
        return workdir.get(host) or DEFAULT_WORKDIR
    return workdir


def resume_manifest(
    plan: RunPlan, run_dir: Path, facts: Mapping[str, Mapping[str, Any]] | None
) -> Manifest:
    """The recorded run, checked against `plan`, its tasks to re-run set to `plan`'s commands."""
    manifest = Manifest.load(run_dir)
    if manifest.run_id != plan.run_id:
        raise AnfperfError(f"{manifest.path} belongs to run {manifest.run_id}, not {plan.run_id}")
    recorded = [(s["name"], sorted(s["tasks"])) for s in manifest.data["steps"]]
    planned = [(s.name, sorted(s.tasks)) for s in plan.steps]
    if recorded != planned:
        raise AnfperfError(
            f"{manifest.path}: the plan given does not match the run (steps and hosts recorded: "
            f"{recorded}; given: {planned})"
        )
    manifest.update(status="running", resumed=[*manifest.data.get("resumed", []), now_iso()])
    for index, host, task in manifest.tasks():
        if task["status"] != "ok":
            new = plan.steps[index].tasks[host]
            manifest.update_task(index, host, **new.to_dict(), command=join(new.argv))
    # hosts with something to re-run: record their facts as they are now
    rerun = {h for _, h, t in manifest.tasks() if t["status"] != "ok"}
    for host in rerun & set(facts or {}):
        manifest.update_host(host, facts=dict(facts[host]))
    return manifest
