"""Adaptive sweeps in a run: after each of a sweep's steps, the next chosen from what the fleet
measured, recorded in the manifest with why.

A workload with ``sweep: adaptive`` (:class:`anfperf.workloads.Workload`) is planned as one step,
its light load (:func:`first_point`); ``sweep: adaptive_mix`` as its pure reads. Each step it
makes carries its sweep, its concurrency (or read share) and the reason it was chosen (:attr:`anfperf.runner.RunStep.adaptive`, the manifest step's
``adaptive``). When the last step of a sweep has run, :func:`next_step` reads the outputs
every host sent back (:func:`measured_point`), asks :class:`anfperf.adaptive.AdaptiveSweep` for
the next concurrency with every point of the sweep measured so far, and returns the step to run
next, or records on the last step why the sweep stops (``adaptive.stop``).

The chooser is deterministic: a resumed run re-plans the steps recorded, runs those not 'ok',
and chooses the same next points from the same measurements.

Rates are per job: a fleet of H hosts with V volumes each and ``numjobs`` J runs H x V x J
copies of the workload, each at the concurrency chosen, so the chooser's Little's law (rate x
latency = concurrency) holds for the fleet's rate divided by H x V x J; the volume's known
limit is divided the same way.
"""

from __future__ import annotations

import json
import logging
import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from anfperf.errors import AnfperfError
from anfperf.runner.manifest import Manifest
from anfperf.workloads.spec import ADAPTIVE_MIX, MAX_ADAPTIVE_STEPS

if TYPE_CHECKING:  # the choosers and the models load where a sweep or a volume needs them:
    # a plain run's process is spared scipy (about 0.5 s of every `anfperf run`'s start)
    from anfperf.adaptive import AdaptiveSweep, Choice, MixChoice, MixSweep
    from anfperf.models import KnownLimits

log = logging.getLogger(__name__)


def chooser(workload: Any, known: KnownLimits | None = None) -> AdaptiveSweep | MixSweep:
    """The chooser of an adaptive workload: of its concurrency (its light load, highest
    concurrency, objective) or, ``adaptive_mix``, of its read share."""
    from anfperf.adaptive import AdaptiveSweep, MixSweep

    if workload.sweep == ADAPTIVE_MIX:
        return MixSweep()
    return AdaptiveSweep(
        until_lat_ms=float(workload.until_lat_ms), max_outstanding=int(workload.max_outstanding),
        min_outstanding=int(workload.concurrency[0]), known=known,
        label="threads" if workload.threads is not None else "qd",
        max_steps=workload.max_steps,
    )  # fmt: skip


def first_point(workload: Any) -> tuple[Any, dict[str, Any]]:
    """The first step's workload of an adaptive sweep and its ``adaptive`` record."""
    choice = chooser(workload).decide([])
    assert not isinstance(choice, str)  # nothing measured: the light load, or pure reads
    return workload.adaptive_point(_value(choice)), _record(workload, choice)


def _value(choice: Choice | MixChoice) -> int:
    from anfperf.adaptive import MixChoice

    return choice.read_pct if isinstance(choice, MixChoice) else choice.outstanding


def _record(workload: Any, choice: Choice | MixChoice) -> dict[str, Any]:
    from anfperf.adaptive import MixChoice

    key = "read_pct" if isinstance(choice, MixChoice) else "concurrency"
    return {"sweep": workload.to_dict(), key: _value(choice), "reason": choice.reason}


def next_step(plan: Any, index: int, manifest: Manifest) -> Any:
    """The step to run after step `index` of `plan` (a :class:`~anfperf.runner.steps.RunPlan`),
    when it ends an adaptive sweep that goes on: a :class:`~anfperf.runner.steps.RunStep`.

    None when the step is not adaptive, when its sweep's next step is already planned (a
    resumed run), or when the sweep stops (its reason recorded as the step's
    ``adaptive.stop``, and logged).
    """
    step = plan.steps[index]
    if not step.adaptive:
        return None
    name = step.adaptive["sweep"]["name"]
    if index + 1 < len(plan.steps) and _sweep_of(plan.steps[index + 1]) == name:
        return None
    from anfperf.workloads import Workload

    sweep = Workload.from_dict(step.adaptive["sweep"])
    data = manifest.data
    indices = [i for i, s in enumerate(plan.steps[: index + 1]) if _sweep_of(s) == name]
    points, unmeasured = [], []
    for i in indices:
        point = measured_point(manifest.run_dir, data["steps"][i], data.get("hosts") or {})
        (points if point is not None else unmeasured).append(point or plan.steps[i].name)
    known = fleet_known_limits(data.get("hosts") or {}, data["steps"][index], sweep)
    decision = _decide(sweep, points, known, len(indices), unmeasured)
    if isinstance(decision, str):
        manifest.update_step(index, adaptive={**step.adaptive, "stop": decision})
        log.info("%s: the adaptive sweep stops: %s", name, decision)
        return None
    log.info("%s: next: %s", name, decision.reason)
    if "stop" in step.adaptive:  # it stopped there before a resume, and goes on now
        going_on = {k: v for k, v in step.adaptive.items() if k != "stop"}
        manifest.update_step(index, adaptive=going_on)
    return replace(
        plan.make_step(sweep.adaptive_point(_value(decision))), adaptive=_record(sweep, decision)
    )


def sweep_lines(data: Mapping[str, Any]) -> list[str]:
    """Each adaptive step of a manifest as one line, why it ran, and why its sweep stopped."""
    lines = []
    for step in data.get("steps") or []:
        adaptive = step.get("adaptive")
        if adaptive:
            lines.append(f"{adaptive['sweep']['name']}: {adaptive['reason']}")
            if adaptive.get("stop"):
                lines.append(f"{adaptive['sweep']['name']}: stopped: {adaptive['stop']}")
    return lines


def _decide(
    sweep: Any, points: list, known: KnownLimits | None, steps: int, unmeasured: list
) -> Choice | MixChoice | str:
    if unmeasured:
        return f"{unmeasured[-1]} gave no figures from any host: the sweep cannot choose on"
    # a guard: the chooser's budget stops a sweep far earlier
    if steps >= MAX_ADAPTIVE_STEPS:
        return f"{MAX_ADAPTIVE_STEPS} steps run, the most an adaptive sweep runs"
    if sweep.sweep == ADAPTIVE_MIX:
        from anfperf.adaptive import MixPoint

        points = [MixPoint(p.at, p.iops) for p in points]
    decision = chooser(sweep, known).decide(points)
    if isinstance(decision, str):
        return decision.removeprefix("stop: ")
    if _value(decision) in {p[0] for p in points}:
        return f"the chooser asked for {_value(decision)} again: {decision.reason}"
    return decision


def _sweep_of(step: Any) -> str | None:
    return step.adaptive["sweep"]["name"] if step.adaptive else None


def jobs_per_point(step: Mapping[str, Any], hosts: Mapping[str, Any]) -> int:
    """How many copies of the workload a step runs: hosts x their volumes x numjobs."""
    workload = step.get("workload") or {}
    numjobs = int(workload.get("numjobs") or 1)
    names = list(step.get("tasks") or {}) + list(step.get("reaches") or [])
    volumes = sum(max(1, len((hosts.get(h) or {}).get("volumes") or {})) for h in names)
    return max(1, volumes) * numjobs


class Measured(NamedTuple):
    """A step of an adaptive sweep as measured: its concurrency (or read share), its rate per
    job [1/s], its mean latency [ms]."""

    at: int
    iops: float
    lat_ms: float


def measured_point(
    run_dir: str | Path, step: Mapping[str, Any], hosts: Mapping[str, Any]
) -> Measured | None:
    """(concurrency or read share, IOPS per job, mean latency [ms]) of a recorded step, from
    the outputs its hosts sent back; None when no host's outputs give figures.

    The fleet's rate is the sum over the hosts of each step's whole-run rate, its latency the
    hosts' means weighted by their rates.
    """
    paths = [
        Path(run_dir) / p
        for t in (step.get("tasks") or {}).values()
        if t.get("status") == "ok"
        for p in t.get("collected") or []
    ]
    if not paths:
        return None
    # each step's outputs are read once, not again after every later step of its sweep: the
    # files as they are on disk are the key (a step run again on resume writes new ones)
    figures = _fleet_figures(tuple((str(p), *_stamp(p)) for p in paths), str(step.get("name")))
    if figures is None:
        return None
    iops, lat_ms = figures
    measured_hosts = {
        h: hosts.get(h) or {} for h, t in step["tasks"].items() if t["status"] == "ok"
    }
    jobs = jobs_per_point({**step, "tasks": measured_hosts}, hosts)
    adaptive = step.get("adaptive") or {}
    at = adaptive.get("read_pct", adaptive.get("concurrency", 0))
    return Measured(int(at), iops / jobs, lat_ms)


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = os.stat(path)
    except OSError:
        return (-1, -1)
    return (stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=256)
def _fleet_figures(outputs: tuple, name: str) -> tuple[float, float] | None:
    """The fleet's rate [1/s] and rate-weighted mean latency [ms] of a step's outputs
    ((path, mtime, size) each); None when they give no figures."""
    from anfperf.analysis.summary import summary_table
    from anfperf.ingest import read_many

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the report says what a file lacks; here: a number
        try:
            table = summary_table(read_many([Path(o[0]) for o in outputs], errors="warn"))
        except AnfperfError as exc:
            log.warning("%s: no figures: %s", name, exc)
            return None
    if table.empty:
        return None
    rows = table[table["host"] == "all"] if (table["host"] == "all").any() else table
    lat = rows["lat_mean_ms"].to_numpy(float)
    weights = rows["iops"].to_numpy(float)
    measured = (weights > 0) & (lat > 0)
    iops = float(rows["iops"].sum())  # NaN (a host without figures) counts as none
    if not iops > 0 or not measured.any():
        return None
    return iops, float((lat[measured] * weights[measured]).sum() / weights[measured].sum())


def fleet_known_limits(
    hosts: Mapping[str, Any], step: Mapping[str, Any], workload: Any
) -> KnownLimits | None:
    """The volumes' known limit per job at the workload's block size and read share, when the
    inventory describes every volume of the step's hosts (``volume_json``); else None."""
    known = fleet_limits(hosts, step, workload)
    if known is None:
        return None
    from anfperf.models import KnownLimits

    jobs = jobs_per_point(step, hosts)
    return KnownLimits.of_iops(known.iops_max / jobs, f"{known.limit} (per job: / {jobs})")


def fleet_limits(
    hosts: Mapping[str, Any], step: Mapping[str, Any], workload: Any
) -> KnownLimits | None:
    """The sum of the known limits of the distinct volumes the step's hosts mount (each volume
    counted once however many hosts share it); None unless every one is described."""
    names = list(step.get("tasks") or {}) + list(step.get("reaches") or [])
    described: dict[str, dict] = {}
    for host in names:
        info = hosts.get(host) or {}
        volumes = info.get("volumes") or {}
        json_of = info.get("volume_json") or {}
        for volume in volumes or [None]:
            fields = json_of.get(volume) if volume is not None else None
            if fields is None:
                return None
            described[json.dumps(fields, sort_keys=True, default=str)] = fields
    total_iops, total_mib_s, limits = 0.0, 0.0, []
    for key in described:
        known = _volume_limit(
            key, float(workload.bs_kib), float(workload.read_pct[0]), workload.pattern
        )
        if known is None:
            return None
        total_iops += known.iops_max
        total_mib_s += known.bw_mib_s if known.bw_mib_s is not None else math.nan
        limits.append(known.limit)
    if not limits:
        return None
    from anfperf.models import KnownLimits

    label = limits[0] if len(limits) == 1 else f"{len(limits)} volumes' limits"
    return KnownLimits(iops_max=total_iops, limit=label, bw_mib_s=total_mib_s)


@lru_cache(maxsize=256)
def _volume_limit(
    fields_json: str, bs_kib: float, read_pct: float, pattern: str
) -> KnownLimits | None:
    """One volume's known limit at a block size and read share (asked after every step, for
    its alarms and its chooser: worked out once)."""
    from anfperf.azure import AnfVolume
    from anfperf.models import QuotaScenario, known_limits

    fields = json.loads(fields_json)
    try:
        volume = AnfVolume.from_dict(fields)
        scenario = QuotaScenario(
            **volume.model_args(), bs_kib=bs_kib, read_pct=read_pct, pattern=pattern
        )
        known = known_limits(scenario)
    except AnfperfError as exc:
        log.info("no known limit of %s: %s", fields.get("name"), exc)
        return None
    return known if known.known else None
