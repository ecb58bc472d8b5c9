"""Extract one row per fio run from a folder tree of fio-plot's bench-fio results, the layout
of louwrentius/fio-plot's benchmark_data (fio 3.x JSON, one file per run, named
<rw>-<iodepth>-<numjobs>.json in a folder per device and test).

Usage: python extract_fioplot.py CLONE COMMIT PREFIX | gzip -n > FILE.csv.gz, where CLONE is
a git clone (read at COMMIT with `git show`, not the work tree) and PREFIX the folder to read.

Per run and direction: the IOPS summed over the job entries, the mean total latency weighted
by each entry's I/O count ('lat_ns', or 'lat' in microseconds before fio 3), and the longest
entry's runtime. Random reads and writes only (the sweeps judged); a file that is not one
run's JSON is named on stderr and left out. Nothing else is computed; no value is invented.
"""

import csv
import json
import re
import subprocess
import sys

NAME = re.compile(
    r"(?P<folder>.+)/(?P<rw>randread|randwrite)-(?P<iodepth>\d+)-(?P<numjobs>\d+)\.json"
)


def git(clone: str, *args: str) -> str:
    return subprocess.run(["git", "-C", clone, *args], check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


def direction(jobs: list[dict], key: str) -> tuple[float, float, float]:
    """IOPS and MiB/s summed over `jobs`, and their mean latency [ms] weighted by I/O count."""
    ios = [j[key]["total_ios"] for j in jobs]
    iops = sum(j[key]["iops"] for j in jobs)
    mib_s = sum(
        j[key]["bw_bytes"] / 2**20 if "bw_bytes" in j[key] else j[key]["bw"] / 1024 for j in jobs
    )  # fmt: skip ('bw' in KiB/s before fio 3.2)
    means = [j[key]["lat_ns"]["mean"] / 1e6 if "lat_ns" in j[key] else j[key]["lat"]["mean"] / 1e3
             for j in jobs]  # fmt: skip
    lat_ms = (sum(m * n for m, n in zip(means, ios, strict=True)) / sum(ios)
              if sum(ios) else float("nan"))  # fmt: skip
    return iops, mib_s, lat_ms


def main(clone: str, commit: str, prefix: str) -> None:
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["folder", "rw", "iodepth", "numjobs", "jobs", "iops", "lat_mean_ms",
                  "runtime_max_s"])  # fmt: skip
    paths = git(clone, "ls-tree", "-r", "--name-only", commit, "--", prefix).split("\n")
    for path in sorted(p for p in paths if p):
        m = NAME.fullmatch(path)
        if not m:
            continue
        try:
            jobs = json.loads(git(clone, "show", f"{commit}:{path}"))["jobs"]
            key = "read" if m["rw"] == "randread" else "write"
            iops, _, lat_ms = direction(jobs, key)
            runtime_s = max(j[key]["runtime"] for j in jobs) / 1000
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            print(f"{path}: left out ({type(exc).__name__}: {exc})", file=sys.stderr)
            continue
        out.writerow([m["folder"][len(prefix):].strip("/"), m["rw"], int(m["iodepth"]),
                      int(m["numjobs"]), len(jobs), f"{iops:.1f}", f"{lat_ms:.5f}",
                      f"{runtime_s:.3f}"])  # fmt: skip


if __name__ == "__main__":
    main(*sys.argv[1:4])
