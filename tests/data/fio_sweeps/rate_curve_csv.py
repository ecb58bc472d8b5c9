"""One row per fio run of make_rate_curve.sh: python rate_curve_csv.py JSON_FOLDER OUT.csv."""

import math
import re
import sys
from pathlib import Path

import pandas as pd

from anfperf.ingest import read_fio_json

rows = []
for path in sorted(Path(sys.argv[1]).glob("*.json")):
    workload, run, step = re.fullmatch(r"(\w+?)_p(\d)_(max|r\d+)", path.stem).groups()
    frame = read_fio_json(path)
    total = frame[frame["is_summary"] & (frame["direction"] == "total")]
    one = frame[frame["is_summary"] & (frame["direction"] != "total") & (frame["iops"] > 0)]
    if len(total) != 1 or len(one) != 1:
        sys.exit(f"{path}: {len(total)} total and {len(one)} busy direction rows, 1 each expected")
    rate = float(one["rate_limit_iops"].iloc[0])
    rows.append({"workload": workload, "pass": int(run),
                 "step_pct": 0 if step == "max" else int(step[1:]),
                 "rate_iops": "" if math.isnan(rate) else int(rate),
                 "iops": round(float(total["iops"].iloc[0]), 3),
                 "bw_mib_s": round(float(total["bw_mib_s"].iloc[0]), 4),
                 "lat_mean_ms": round(float(total["lat_mean_ms"].iloc[0]), 5)})  # fmt: skip
table = pd.DataFrame(rows).sort_values(["workload", "pass", "step_pct"])
table.to_csv(sys.argv[2], index=False)
print(f"{len(table)} runs -> {sys.argv[2]}")
