"""Extract one row per fio run from SamYaple/fio-plot-results (a published set of fio 3.33 JSON
results: 4 KiB random I/O on one NVMe SSD, iodepth 1 .. 64 x numjobs 1 .. 64).

Usage: python extract_samyaple.py CLONE > samyaple_nvme_4k.csv, where CLONE is a git clone of
https://github.com/SamYaple/fio-plot-results (read at COMMIT with `git show`, not the work tree).

Each JSON holds one entry per job (no group_reporting). Per run and direction: the IOPS and
MiB/s summed over the jobs, the mean completion-to-submission latency ('lat_ns') weighted by
each job's I/O count, and the shortest and longest job runtime (fio's steadystate option ends
each job on its own). Nothing else is computed; no value is invented.
"""

import csv
import json
import re
import subprocess
import sys

from extract_fioplot import direction  # the folder of this script is on sys.path

COMMIT = "7a6f8e953b7da1e048f1cf09b83382aa00e781c6"
NAME = re.compile(
    r"(?:benchmarks/(\d+)_sector/1x/(?:randrw(\d+)/)?)?4k/(rand\w+?)-(\d+)-(\d+)\.json$"
)


def git(clone: str, *args: str) -> str:
    return subprocess.run(["git", "-C", clone, *args], check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


def main(clone: str) -> None:
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["path", "sector_bytes", "rw", "read_pct", "iodepth", "numjobs", "jobs",
                  "read_iops", "write_iops", "read_mib_s", "write_mib_s", "read_lat_mean_ms",
                  "write_lat_mean_ms", "runtime_min_s", "runtime_max_s"])  # fmt: skip
    for path in sorted(git(clone, "ls-tree", "-r", "--name-only", COMMIT).split()):
        m = NAME.fullmatch(path)
        if not m:
            continue
        sector, mix, rw, iodepth, numjobs = m.groups()
        doc = json.loads(git(clone, "show", f"{COMMIT}:{path}"))
        jobs = doc["jobs"]
        opts = jobs[0]["job options"]
        assert (opts["rw"], opts["iodepth"], opts["numjobs"]) == (rw, iodepth, numjobs), path
        read_pct = {"randread": 100, "randwrite": 0}.get(rw, mix and int(mix))
        assert read_pct is not None and (rw != "randrw" or opts["rwmixread"] == mix), path
        r, w = direction(jobs, "read"), direction(jobs, "write")
        runtimes = [j["job_runtime"] / 1000 for j in jobs]
        out.writerow([path, sector or "", rw, read_pct, int(iodepth), int(numjobs), len(jobs),
                      f"{r[0]:.1f}", f"{w[0]:.1f}", f"{r[1]:.3f}", f"{w[1]:.3f}",
                      f"{r[2]:.5f}", f"{w[2]:.5f}", f"{min(runtimes):.3f}",
                      f"{max(runtimes):.3f}"])  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1])
