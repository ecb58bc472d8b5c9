"""One row per fio run of make_qd_grid.sh: python qd_grid_csv.py JSON_FOLDER OUT.csv."""

import re
import sys
from pathlib import Path

import pandas as pd

from anfperf.ingest import read_fio_json

rows = []
for path in sorted(Path(sys.argv[1]).glob("*.json")):
    workload, run, depth = re.fullmatch(r"(\w+?)_p(\d)_qd(\d+)", path.stem).groups()
    frame = read_fio_json(path)
    total = frame[frame["is_summary"] & (frame["direction"] == "total")]
    if len(total) != 1:
        sys.exit(f"{path}: {len(total)} summary rows of direction 'total', 1 expected")
    rows.append({"workload": workload, "pass": int(run), "concurrency": int(depth),
                 "outstanding": int(total["outstanding"].iloc[0]),
                 "iops": round(float(total["iops"].iloc[0]), 3),
                 "bw_mib_s": round(float(total["bw_mib_s"].iloc[0]), 4),
                 "lat_mean_ms": round(float(total["lat_mean_ms"].iloc[0]), 5)})  # fmt: skip
table = pd.DataFrame(rows).sort_values(["workload", "pass", "concurrency"])
table.to_csv(sys.argv[2], index=False)
print(f"{len(table)} runs -> {sys.argv[2]}")
