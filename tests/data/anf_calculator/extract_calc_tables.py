"""Extract the read-mix tables embedded in the ANF performance calculator's advanced page.

Input: the text of calc/advanced/index.html (from `git show <commit>:<path>`), on stdin.
Output: three CSVs in the current directory. Values are the literal constants of the page;
derived columns reproduce exactly what the page's own JavaScript computes
((x / 1024).toFixed(0), times 1 or 2; IOPS shown = MiB/s * 1024 / iosize).
"""

import re
import sys
from decimal import ROUND_HALF_UP, Decimal

src = sys.stdin.read()


def block(name):
    m = re.search(rf"var {name} = \{{(.*?)\}};", src, re.S)
    return m.group(1)


def js_tofixed0(x):
    # Number.prototype.toFixed(0): exact decimal value of the double, ties away from zero
    return int(Decimal(x).quantize(Decimal(1), rounding=ROUND_HALF_UP))


seq = [(int(k), int(v)) for k, v in re.findall(r"(\d+):\s*(\d+)\s*,?", block("max_tput64kseq"))]
r4 = [
    (int(k), int(m), int(raw))
    for k, m, raw in re.findall(
        r"(\d+):\s*(\d+)\s*\*\s*\((\d+)\s*/\s*1024\)", block("max_tput4kran")
    )
]
r8 = [
    (int(k), int(m), int(raw))
    for k, m, raw in re.findall(
        r"(\d+):\s*(\d+)\s*\*\s*\((\d+)\s*/\s*1024\)", block("max_tput8kran")
    )
]
assert len(seq) == len(r4) == len(r8) == 11

with open("anfcalc_64k_seq_readmix.csv", "w") as f:
    f.write("read_pct,bs_kib,bw_mib_s,iops_shown_by_calc\n")
    for p, v in sorted(seq):
        f.write(f"{p},64,{v},{js_tofixed0(v * 1024 / 64)}\n")

for name, rows, bs in (
    ("anfcalc_4k_random_readmix.csv", r4, 4),
    ("anfcalc_8k_random_readmix.csv", r8, 8),
):
    with open(name, "w") as f:
        f.write("read_pct,bs_kib,raw_constant_kib_s,multiplier,bw_mib_s_calc,iops_shown_by_calc\n")
        for p, mult, raw in sorted(rows):
            mib = mult * js_tofixed0(raw / 1024)
            f.write(f"{p},{bs},{raw},{mult},{mib},{js_tofixed0(mib * 1024 / bs)}\n")
