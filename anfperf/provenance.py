"""Where results came from: runs, hosts, mounts, tool versions and the SHA-256 of every input.

A report is only worth what its inputs are: this module gathers what ran, where and with what,
from the runner's ``manifest.json`` where there is one (hosts, kernel, VM size, NFS mount
options, tool versions, workloads, task outcomes) and from the tidy frame otherwise, plus a
checksum of every input file, so a reader can tell two reports of "the same" run apart.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from anfperf.runner.manifest import MANIFEST_NAME

#: Read files in blocks this large when hashing (bounded memory for big flatfiles).
_BLOCK_BYTES = 1 << 20

RUN_COLUMNS = ["run_id", "tool", "tool_version", "hosts", "workloads", "start", "files", "rows"]
HOST_COLUMNS = [
    "run_id", "host", "hostname", "vm_size", "os", "kernel", "cpus", "tool_versions",
    "nfs_mounts", "tasks_ok", "tasks_failed",
]  # fmt: skip
CHECKSUM_COLUMNS = ["path", "bytes", "sha256"]


def sha256_file(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_BLOCK_BYTES):
            digest.update(block)
    return digest.hexdigest()


def files_under(paths: Iterable[str | os.PathLike]) -> list[tuple[str, Path]]:
    """(name as given, path) of every file named or under a folder named, in sorted order.

    A folder's files are named ``folder/relative/path``; missing paths are left out.
    """
    out: list[tuple[str, Path]] = []
    for given in paths:
        text = os.fspath(given)
        path = Path(text)
        if path.is_file():
            out.append((text, path))
        elif path.is_dir():
            for p in sorted(path.rglob("*")):
                if p.is_file():
                    out.append((os.path.join(text, p.relative_to(path).as_posix()), p))
    return out


def input_checksums(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Size and SHA-256 of every input file (folders expanded).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CHECKSUM_COLUMNS`: path (as given / under the folder given), bytes,
        sha256 (hex).
    """
    rows = [
        {"path": shown, "bytes": p.stat().st_size, "sha256": sha256_file(p)}
        for shown, p in files_under(paths)
    ]
    return pd.DataFrame(rows, columns=CHECKSUM_COLUMNS)


def find_manifests(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """The runner manifests among or under `paths` (a run folder holds one)."""
    found = {p for _, p in files_under(paths) if p.name == MANIFEST_NAME}
    return sorted(found)


def runs_table(frame: pd.DataFrame) -> pd.DataFrame:
    """What the results say about each run: tool and version, hosts, workloads, start, files.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`RUN_COLUMNS`; `hosts` and `workloads` comma-separated ('all', the
        cross-host aggregate, left out), `start` the first timestamp (UTC).
    """

    def joined(values: pd.Series) -> str:
        return ", ".join(sorted({str(v) for v in values.dropna() if str(v) != "all"}))

    out = []
    for run_id, run in frame.groupby("run_id", sort=True, observed=True):
        out.append(
            {
                "run_id": run_id,
                "tool": joined(run["tool"].astype(object)),
                "tool_version": joined(run["tool_version"]),
                "hosts": joined(run["host"]),
                "workloads": joined(run["workload"]),
                "start": run["timestamp"].min(),
                "files": int(run["source_file"].nunique()),
                "rows": len(run),
            }
        )
    return pd.DataFrame(out, columns=RUN_COLUMNS)


def hosts_table(manifests: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Per run and host, from runner manifests: the machine, its tools and its NFS mounts.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`HOST_COLUMNS`; `nfs_mounts` lists ``mount point (source): options`` of
        each NFS mount the preflight found; `tasks_ok` / `tasks_failed` count the host's tasks.
        A manifest that cannot be read is a row with the reason in `hostname`.
    """
    rows = []
    for path in manifests:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            hosts = data["hosts"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            rows.append({"run_id": str(path), "hostname": f"unreadable manifest: {exc}"})
            continue
        for name, host in hosts.items():
            facts = host.get("facts") or {}
            tasks = [s.get("tasks", {}).get(name, {}) for s in data.get("steps", [])]
            versions = {t.get("tool_version") for t in tasks if t.get("tool_version")}
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
                    "nfs_mounts": "; ".join(mounts) or "none found",
                    "tasks_ok": sum(t.get("status") == "ok" for t in tasks),
                    "tasks_failed": sum(t.get("status") not in (None, "ok") for t in tasks),
                }
            )
    return pd.DataFrame(rows, columns=HOST_COLUMNS)


def workloads_table(manifests: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """The workloads each manifest's run executed, one row per step (name, tool, spec)."""
    rows = []
    for path in manifests:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for i, step in enumerate(data.get("steps", [])):
            spec = step.get("workload") or {}
            rows.append(
                {
                    "run_id": data.get("run_id"),
                    "step": i,
                    "tool": step.get("tool"),
                    **{k: spec.get(k) for k in ("name", "pattern", "bs_kib", "read_pct",
                                                "threads", "duration_s", "warmup_s")},
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


def run_provenance(frame: pd.DataFrame, paths: Iterable[str | os.PathLike] = ()) -> dict:
    """Everything a report states about its inputs.

    Parameters
    ----------
    frame : pandas.DataFrame
        The tidy frame reported on.
    paths : iterable of path-like
        The raw inputs (files or folders) it was read from; none when it came from a store.

    Returns
    -------
    dict
        'anfperf_version'; 'runs' (:func:`runs_table`); 'hosts' and 'workloads' from the
        runner manifests found under `paths` (empty frames when none); 'inputs'
        (:func:`input_checksums` of `paths`).
    """
    from anfperf import __version__

    paths = list(paths)
    manifests = find_manifests(paths)
    return {
        "anfperf_version": __version__,
        "runs": runs_table(frame),
        "hosts": hosts_table(manifests),
        "workloads": workloads_table(manifests),
        "inputs": input_checksums(paths),
    }
