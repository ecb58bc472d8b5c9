#!/usr/bin/env bash
# Record the dense fio concurrency sweeps in qd_dense/ (fio 3.33, Debian package): the truth the
# adaptive sweep is judged against (benchmarks/bench_adaptive.py, tests/adaptive/).
#
#   bash tests/data/fio_sweeps/make_dense_sweeps.sh   # uses `fio` from PATH, or FIO=/path/to/fio
#
# 4 KiB random reads of a 64 MiB file, libaio with O_DIRECT, one second each after a 0.3 s ramp,
# at iodepth 1 .. 256 in quarter-octave steps (every power of two: the dense sweep the adaptive
# one is compared with; the depths between: what an adaptive choice is looked up at), three
# passes (up, down, up; the median per depth is what the benchmark and tests use):
#
# - qd_dense/unlimited/: the disk as it is;
# - qd_dense/limited/: the same with --rate_iops at 60 % of the unlimited sweep's peak (the
#   median per depth), a stand-in for a volume's QoS limit; rate.txt holds the rate.
set -euo pipefail

FIO=${FIO:-fio}
PY=${PYTHON:-python3}
OUT=$(cd "$(dirname "$0")" && pwd)/qd_dense
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$FIO" --version
DEPTHS="1 2 3 4 5 6 7 8 10 11 13 16 19 23 27 32 38 45 54 64 76 91 108 128 152 181 215 256"
COMMON=(--filename="$WORK/sweep.dat" --size=64m --rw=randread --bs=4k --ioengine=libaio
        --direct=1 --runtime=1 --ramp_time=300ms --time_based --output-format=json)

order() {  # pass 1 and 3 upwards, pass 2 downwards
    if [ "$1" = 2 ]; then echo "$2" | tr ' ' '\n' | tac | tr '\n' ' '; else echo "$2"; fi
}

sweep() {  # folder, extra fio options...
    local dir="$OUT/$1"; shift
    mkdir -p "$dir"
    rm -f "$dir"/*.json
    for pass in 1 2 3; do
        for qd in $(order "$pass" "$DEPTHS"); do
            "$FIO" --name="qd$qd" "${COMMON[@]}" --iodepth="$qd" "$@" \
                --output="$dir/pass${pass}_qd${qd}.json"
        done
    done
}

# lay the file out once, so that the first reads do not read holes
"$FIO" --name=layout --filename="$WORK/sweep.dat" --size=64m --rw=write --bs=1m --direct=1 \
    --output=/dev/null
sweep unlimited
RATE=$("$PY" - "$OUT/unlimited" <<'PYEOF'
import json, pathlib, re, statistics, sys
by_qd = {}
for path in pathlib.Path(sys.argv[1]).glob("pass*_qd*.json"):
    qd = int(re.search(r"_qd(\d+)", path.name).group(1))
    by_qd.setdefault(qd, []).append(json.loads(path.read_text())["jobs"][0]["read"]["iops"])
print(round(0.6 * max(statistics.median(v) for v in by_qd.values()), -2))
PYEOF
)
RATE=${RATE%.*}
echo "$RATE" > "$OUT/rate.txt"
sweep limited --rate_iops="$RATE"
du -sh "$OUT"
