"""Where results came from: runs, hosts, mounts, tool versions and the SHA-256 of every input.

A report is only worth what its inputs are. This module gathers what ran, where and with what:
from the runner's ``manifest.json`` where there is one (hosts, kernel, VM size, NFS mounts with
their options, tool versions, workloads, start and end, the state of every task), and from the
tidy frame always (tool and version, hosts, workloads per run), so that every report has a
provenance section; plus a checksum of every input file, so that a reader can tell two reports
of "the same" run apart.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anfperf.paths import PathArg, path_list
from anfperf.schema import MANIFEST_NAME, read_manifest

__all__ = [
    "RUN_COLUMNS",
    "MANIFEST_COLUMNS",
    "HOST_COLUMNS",
    "TASK_COLUMNS",
    "WORKLOAD_COLUMNS",
    "CHECKSUM_COLUMNS",
    "VOLUME_COLUMNS",
    "ADAPTIVE_COLUMNS",
    "sha256_file",
    "files_under",
    "input_checksums",
    "find_manifests",
    "runs_table",
    "manifests_table",
    "hosts_table",
    "volumes_table",
    "tasks_table",
    "workloads_table",
    "adaptive_table",
    "run_provenance",
]


def __dir__() -> list[str]:
    return __all__  # what tab completion and help() offer: not numpy, pandas, ...


#: Read files in blocks this large when hashing (bounded memory for big flatfiles).
_BLOCK_BYTES = 1 << 20
#: Folders above a result file searched for its run's manifest: the runner writes
#: ``<run_id>/manifest.json`` and ``<run_id>/<host>/...`` (as :mod:`anfperf.ingest` looks).
_MANIFEST_DEPTH = 3

RUN_COLUMNS = [
    "run_id", "tool", "tool_version", "hosts", "workloads", "start", "end", "files", "rows",
]  # fmt: skip
MANIFEST_COLUMNS = [
    "run_id", "status", "tools", "hosts", "steps", "tasks_ok", "tasks_failed", "start", "end",
    "anfperf_version", "manifest",
]  # fmt: skip
HOST_COLUMNS = [
    "run_id", "host", "hostname", "vm_size", "os", "kernel", "cpus", "tool_versions",
    "volumes", "nfs_mounts", "tasks_ok", "tasks_failed",
]  # fmt: skip
TASK_COLUMNS = [
    "run_id", "step", "workload", "host", "status", "reason", "exit_code", "start", "end",
    "elapsed_s", "attempts", "tool_version",
]  # fmt: skip
WORKLOAD_COLUMNS = [
    "run_id", "step", "tool", "name", "pattern", "bs_kib", "read_pct", "threads", "duration_s",
    "warmup_s",
]  # fmt: skip
#: An adaptive sweep's steps: the load point chosen (its concurrency, or read share) and why.
ADAPTIVE_COLUMNS = ["run_id", "step", "sweep", "workload", "chosen", "reason", "stop"]
CHECKSUM_COLUMNS = ["path", "bytes", "sha256"]
VOLUME_COLUMNS = ["run_id", "host", "volume", "path", "nfs_mount", "nfs_source", "nfs_mounts"]


def sha256_file(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_BLOCK_BYTES):
            digest.update(block)
    return digest.hexdigest()


def files_under(paths: PathArg, *, root: str | os.PathLike | None = None) -> list[tuple[str, Path]]:
    """(name as given, path) of every file named or under a folder named, in sorted order.

    A folder's files are named ``folder/relative/path``; missing paths are left out, and so
    are hidden files inside folders (the runner's lock and reserve files, temporaries being
    written), as ingest leaves them out. Relative paths are relative to `root` (default: the
    current folder) but named as given.
    """
    out: list[tuple[str, Path]] = []
    for given in path_list(paths):
        text = os.fspath(given)
        path = Path(root) / text if root is not None else Path(text)
        if path.is_file():
            out.append((text, path))
        elif path.is_dir():
            for p in sorted(path.rglob("*")):
                inside = p.relative_to(path)
                if p.is_file() and not any(part.startswith(".") for part in inside.parts):
                    out.append((os.path.join(text, inside.as_posix()), p))
    return out


def input_checksums(paths: PathArg, *, root: str | os.PathLike | None = None) -> pd.DataFrame:
    """Size and SHA-256 of every input file (folders expanded to their files).

    Parameters
    ----------
    paths : path-like or iterable of path-like
        Files and folders (one string is one path); missing ones are left out.
    root : path-like, optional
        Folder relative paths are relative to (a report's: the notebook's folder); default the
        current folder.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CHECKSUM_COLUMNS`: path (as given, or under the folder given), bytes,
        sha256 (hex), files of a folder in sorted order.
    """
    rows = [
        {"path": shown, "bytes": p.stat().st_size, "sha256": sha256_file(p)}
        for shown, p in files_under(paths, root=root)
    ]
    return pd.DataFrame(rows, columns=CHECKSUM_COLUMNS).astype({"bytes": "int64"})


def find_manifests(paths: PathArg) -> list[Path]:
    """The runner manifests of `paths`: among them, under them, or up to 3 folders above a file.

    A run folder holds its manifest; a host's folder or a result file inside it has it above.
    """
    found: dict[Path, Path] = {}  # resolved -> as found: one run named two ways counts once
    looked: set[Path] = set()
    for _, path in files_under(paths):
        candidates = [path] if path.name == MANIFEST_NAME else []
        for parent in list(path.parents)[:_MANIFEST_DEPTH]:
            if parent not in looked:
                looked.add(parent)
                candidates.append(parent / MANIFEST_NAME)
        for manifest in candidates:
            if manifest.is_file():
                found.setdefault(manifest.resolve(), manifest)
    return sorted(found.values())


def runs_table(frame: pd.DataFrame, manifests: pd.DataFrame | None = None) -> pd.DataFrame:
    """What the results say about each run: tool and version, hosts, workloads, time, files.

    Parameters
    ----------
    frame : pandas.DataFrame
        The tidy frame.
    manifests : pandas.DataFrame, optional
        :func:`manifests_table` of the runs' manifests: a run the runner recorded takes its
        start and end from there (when its tasks started and ended).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`RUN_COLUMNS`; `tool`, `tool_version`, `hosts` and `workloads`
        comma-separated ('all', the cross-host aggregate, left out); `start` (the earliest row's
        timestamp less the time it covers: a row's timestamp is when its interval or job ended)
        and `end` (the last timestamp), UTC; `files` and `rows` counts.
    """

    def joined(values: pd.Series) -> str:
        return ", ".join(sorted({str(v) for v in values.dropna() if str(v) != "all"}))

    recorded = {}
    if manifests is not None and not manifests.empty:
        times = manifests.dropna(subset=["start", "end"])
        recorded = {r.run_id: (r.start, r.end) for r in times.itertuples(index=False)}
    covered_s = frame["time_s"].fillna(frame["runtime_s"]).fillna(0.0)
    began = frame["timestamp"] - pd.to_timedelta(covered_s, unit="s")
    out = []
    for run_id, run in frame.assign(_began=began).groupby("run_id", sort=True, observed=True):
        start, end = recorded.get(run_id, (run["_began"].min(), run["timestamp"].max()))
        out.append(
            {
                "run_id": run_id,
                "tool": joined(run["tool"].astype(object)),
                "tool_version": joined(run["tool_version"]),
                "hosts": joined(run["host"]),
                "workloads": joined(run["workload"]),
                "start": start,
                "end": end,
                "files": int(run["source_file"].nunique()),
                "rows": len(run),
            }
        )
    return pd.DataFrame(out, columns=RUN_COLUMNS)


def _read_manifest(path: str | os.PathLike) -> dict[str, Any] | str:
    """A manifest's content, or why it cannot be used (a report shows that, and goes on)."""
    data = read_manifest(path)
    return f"unreadable manifest: {data}" if isinstance(data, str) else data


#: Manifests as the tables take them: their paths, or path -> content (or why it cannot be
#: used) when already read, as :func:`run_provenance` reads each once for all its tables.
Manifests = Iterable[str | os.PathLike] | Mapping[str, dict[str, Any] | str]


def _contents(manifests: Manifests) -> list[tuple[str | os.PathLike, dict[str, Any] | str]]:
    """(path, content or why it cannot be used) of each manifest, read unless given read."""
    if isinstance(manifests, Mapping):
        return list(manifests.items())
    return [(path, _read_manifest(path)) for path in manifests]


def _tasks(data: dict[str, Any]) -> list[tuple[int, dict, str, dict]]:
    """(step index, step, host, task) of every task of a manifest, in run order."""
    return [
        (i, step, host, task if isinstance(task, dict) else {})
        for i, step in enumerate(data.get("steps") or [])
        if isinstance(step, dict)
        for host, task in (step.get("tasks") or {}).items()
    ]


def _time(value: object) -> pd.Timestamp:
    """An ISO time of a manifest as a UTC timestamp; NaT when absent or not a time."""
    return pd.to_datetime(value, utc=True, errors="coerce") if value else pd.NaT


def manifests_table(manifests: Manifests) -> pd.DataFrame:
    """One row per runner manifest: the run's state, what it ran, when, with which anfperf.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`MANIFEST_COLUMNS`: status ('complete', 'partial', 'interrupted',
        'running'), tools and hosts (comma-separated), steps (workloads run), tasks_ok and
        tasks_failed (step x host tasks not 'ok', pending ones included), start (first task
        start, else when the run was planned) and end (last task end, else the run's end), UTC;
        anfperf_version of the runner; manifest (its path). A manifest that cannot be read is a
        row with the reason in `status`.
    """
    rows = []
    for path, data in _contents(manifests):
        if isinstance(data, str):
            rows.append({"run_id": Path(path).parent.name, "status": data, "manifest": str(path)})
            continue
        tasks = [t for _, _, _, t in _tasks(data)]
        tools = data.get("tools") or sorted(
            {
                str(s["tool"])
                for s in data.get("steps") or []
                if isinstance(s, dict) and s.get("tool")
            }
        )
        starts = [_time(t.get("start")) for t in tasks]
        ends = [_time(t.get("end")) for t in tasks]
        start = min((s for s in starts if pd.notna(s)), default=_time(data.get("created")))
        end = max((e for e in ends if pd.notna(e)), default=_time(data.get("end")))
        rows.append(
            {
                "run_id": data.get("run_id"),
                "status": data.get("status"),
                "tools": ", ".join(map(str, tools)),
                "hosts": ", ".join(data["hosts"]),
                "steps": len(data.get("steps") or []),
                "tasks_ok": sum(t.get("status") == "ok" for t in tasks),
                "tasks_failed": sum(t.get("status") != "ok" for t in tasks),
                "start": start,
                "end": end,
                "anfperf_version": data.get("anfperf_version"),
                "manifest": str(path),
            }
        )
    out = pd.DataFrame(rows, columns=MANIFEST_COLUMNS)
    for col in ("start", "end"):
        out[col] = pd.to_datetime(out[col], utc=True)
    return out


def hosts_table(manifests: Manifests) -> pd.DataFrame:
    """Per run and host, from runner manifests: the machine, its tools, volumes and NFS mounts.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`HOST_COLUMNS`; `volumes` the volume paths the run used on the host;
        `nfs_mounts` lists ``mount point (source): options`` of each NFS mount the preflight
        found (``'none found'`` without); `tasks_ok` / `tasks_failed` count the host's tasks. A
        manifest that cannot be read is a row with the reason in `hostname`.
    """
    rows = []
    for path, data in _contents(manifests):
        if isinstance(data, str):
            rows.append({"run_id": Path(path).parent.name, "hostname": data})
            continue
        tasks = _tasks(data)
        for name, host in data["hosts"].items():
            host = host if isinstance(host, dict) else {}
            facts = host.get("facts") or {}
            mine = [t for _, _, h, t in tasks if h == name]
            versions = {str(t["tool_version"]) for t in mine if t.get("tool_version")}
            versions |= {str(facts[k]) for k in ("fio_version", "vdbench_version") if facts.get(k)}
            mounts = [
                f"{m.get('mount_point')} ({m.get('source')}): {m.get('options')}"
                for m in facts.get("mounts") or []
                if str(m.get("fstype", "")).startswith("nfs")
            ]
            rows.append(
                {
                    "run_id": data.get("run_id"),
                    "host": name,
                    "hostname": facts.get("hostname") or host.get("hostname"),
                    "vm_size": facts.get("azure_vm_size"),
                    "os": facts.get("os"),
                    "kernel": facts.get("kernel"),
                    "cpus": facts.get("cpus"),
                    "tool_versions": ", ".join(sorted(versions)),
                    "volumes": ", ".join(str(v) for v in (host.get("volumes") or {}).values()),
                    "nfs_mounts": "; ".join(mounts) or "none found",
                    "tasks_ok": sum(t.get("status") == "ok" for t in mine),
                    "tasks_failed": sum(t.get("status") != "ok" for t in mine),
                }
            )
    return pd.DataFrame(rows, columns=HOST_COLUMNS)


def volumes_table(manifests: Manifests) -> pd.DataFrame:
    """Per run, host and volume of runner manifests: the NFS mount the volume's path is on.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`VOLUME_COLUMNS`: `volume` (its name in the inventory) and `path`; the
        mount point and source (``server:/export``) of the NFS mount holding the path (the
        longest NFS mount point it is under; None when it is on none: a local file system);
        `nfs_mounts` the number of NFS mounts the host's preflight found. Manifests that cannot
        be read are left out.
    """
    rows = []
    for _, data in _contents(manifests):
        if isinstance(data, str):
            continue
        for name, host in data["hosts"].items():
            host = host if isinstance(host, dict) else {}
            mounts = [
                m
                for m in (host.get("facts") or {}).get("mounts") or []
                if isinstance(m, dict) and str(m.get("fstype", "")).startswith("nfs")
            ]
            for volume, path in (host.get("volumes") or {}).items():
                holding = [m for m in mounts if _under(str(path), str(m.get("mount_point", "")))]
                mount = max(holding, key=lambda m: len(str(m["mount_point"])), default=None)
                rows.append(
                    {
                        "run_id": data.get("run_id"),
                        "host": name,
                        "volume": volume,
                        "path": str(path),
                        "nfs_mount": mount["mount_point"] if mount else None,
                        "nfs_source": mount.get("source") if mount else None,
                        "nfs_mounts": len(mounts),
                    }
                )
    return pd.DataFrame(rows, columns=VOLUME_COLUMNS)


def _under(path: str, mount_point: str) -> bool:
    """Whether `path` is `mount_point` or below it."""
    if not mount_point:
        return False
    point = mount_point.rstrip("/") or "/"
    return path == point or path.startswith(point if point == "/" else point + "/")


def tasks_table(manifests: Manifests) -> pd.DataFrame:
    """Every task of the runner manifests (one workload on one host): its state and times.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TASK_COLUMNS`: step (0-based) and workload (its name), status (one of
        :data:`anfperf.runner.manifest.TASK_STATES`) and reason, exit_code, start and end
        (UTC), elapsed_s [s], attempts, tool_version.
    """
    rows = []
    for _, data in _contents(manifests):
        if isinstance(data, str):
            continue
        for i, step, host, task in _tasks(data):
            rows.append(
                {
                    "run_id": data.get("run_id"),
                    "step": i,
                    "workload": step.get("name"),
                    "host": host,
                    **{k: task.get(k) for k in ("status", "reason", "exit_code")},
                    "start": _time(task.get("start")),
                    "end": _time(task.get("end")),
                    **{k: task.get(k) for k in ("elapsed_s", "attempts", "tool_version")},
                }
            )
    out = pd.DataFrame(rows, columns=TASK_COLUMNS)
    for col in ("start", "end"):
        out[col] = pd.to_datetime(out[col], utc=True)
    return out


def workloads_table(manifests: Manifests) -> pd.DataFrame:
    """The workloads each manifest's run executed, one row per step (name, tool, spec).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`WORKLOAD_COLUMNS`: bs_kib [KiB], read_pct [%], duration_s and warmup_s
        [s] as the workload specified them.
    """
    rows = []
    for _, data in _contents(manifests):
        if isinstance(data, str):
            continue
        for i, step in enumerate(data.get("steps") or []):
            step = step if isinstance(step, dict) else {}
            spec = step.get("workload") or {}
            rows.append(
                {
                    "run_id": data.get("run_id"),
                    "step": i,
                    "tool": step.get("tool"),
                    **{k: spec.get(k) for k in WORKLOAD_COLUMNS[3:]},
                }
            )
    return pd.DataFrame(rows, columns=WORKLOAD_COLUMNS)


def adaptive_table(manifests: Manifests) -> pd.DataFrame:
    """Every step an adaptive sweep chose (``sweep: adaptive``): what and why, in run order.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`ADAPTIVE_COLUMNS`: step (0-based), sweep (the adaptive workload's name),
        workload (the step's), chosen (its concurrency, or read share [%]), reason (the
        chooser's line, as ``anfperf run`` printed it) and stop (on a sweep's last step: why it
        stopped; else None). Empty when no manifest holds an adaptive sweep.
    """
    rows = []
    for _, data in _contents(manifests):
        if isinstance(data, str):
            continue
        for i, step in enumerate(data.get("steps") or []):
            adaptive = step.get("adaptive") if isinstance(step, dict) else None
            if not isinstance(adaptive, dict):
                continue
            rows.append(
                {
                    "run_id": data.get("run_id"),
                    "step": i,
                    "sweep": (adaptive.get("sweep") or {}).get("name"),
                    "workload": step.get("name"),
                    "chosen": adaptive.get("concurrency", adaptive.get("read_pct")),
                    "reason": adaptive.get("reason"),
                    "stop": adaptive.get("stop"),
                }
            )
    return pd.DataFrame(rows, columns=ADAPTIVE_COLUMNS)


def run_provenance(frame: pd.DataFrame | None = None, paths: PathArg = ()) -> dict[str, Any]:
    """Everything a report states about its inputs.

    Parameters
    ----------
    frame : pandas.DataFrame, optional
        The tidy frame reported on; read from `paths` (:func:`anfperf.ingest.read_many`,
        unreadable files skipped with a warning) when not given.
    paths : iterable of path-like
        The raw inputs (run folders, host folders, files) the frame was read from; none when it
        came from a store. Runner manifests are looked for among, under and above them.

    Returns
    -------
    dict
        'anfperf_version' (this anfperf); 'runs' (:func:`runs_table`, from the results: always
        there); from the runner manifests found (empty frames when none): 'manifests'
        (:func:`manifests_table`), 'hosts' (:func:`hosts_table`), 'tasks'
        (:func:`tasks_table`), 'workloads' (:func:`workloads_table`), 'adaptive'
        (:func:`adaptive_table`); 'inputs' (:func:`input_checksums` of `paths`).

    Raises
    ------
    anfperf.AnfperfError
        Neither a frame nor paths with results.
    """
    from anfperf import __version__
    from anfperf.errors import AnfperfError

    paths = path_list(paths)
    if frame is None:
        from anfperf.ingest import read_many

        if not paths:
            raise AnfperfError("run_provenance needs a frame or the paths it was read from")
        frame = read_many(paths, errors="warn")
    manifests = {str(path): _read_manifest(path) for path in find_manifests(paths)}
    recorded = manifests_table(manifests)
    return {
        "anfperf_version": __version__,
        "runs": runs_table(frame, recorded),
        "manifests": recorded,
        "hosts": hosts_table(manifests),
        "tasks": tasks_table(manifests),
        "workloads": workloads_table(manifests),
        "adaptive": adaptive_table(manifests),
        "inputs": input_checksums(paths),
    }
