"""One row per fio run of make_bs_grid.sh: python bs_grid_csv.py JSON_FOLDER OUT.csv."""

import re
import sys
from pathlib import Path

import pandas as pd

from anfperf.ingest import read_fio_json

rows = []
for path in sorted(Path(sys.argv[1]).glob("*.json")):
    rw, depth, bs = re.fullmatch(r"(\w+?)_qd(\d+)_bs(\d+)k", path.stem).groups()
    frame = read_fio_json(path)
    run = frame[frame["is_summary"] & (frame["direction"] == ("read" if "read" in rw else "write"))]
    rows.append({"rw": rw, "iodepth": int(depth), "bs_kib": int(bs),
                 "iops": round(float(run["iops"].iloc[0]), 3),
                 "bw_mib_s": round(float(run["bw_mib_s"].iloc[0]), 4),
                 "lat_mean_ms": round(float(run["lat_mean_ms"].iloc[0]), 5)})  # fmt: skip
table = pd.DataFrame(rows).sort_values(["rw", "iodepth", "bs_kib"])
table.to_csv(sys.argv[2], index=False)
print(f"{len(table)} runs -> {sys.argv[2]}")
