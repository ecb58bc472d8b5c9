#!/usr/bin/env bash
# Record real fio load curves of this VM's disk into rate_curve.csv (fio 3.33, Debian): fio's
# counterpart of Vdbench's iorate=curve, to judge the latency forecast
# (anfperf.models.forecast.latency) on curves it was not conceived on
# (benchmarks/_models_sweeps.py, tests/models/test_forecast_sweeps.py).
#
#   bash tests/data/fio_sweeps/make_rate_curve.sh    # fio from PATH (or FIO=...), anfperf's .venv
#
# Three workloads (4 KiB random reads, 4 KiB random writes, 64 KiB random reads; libaio with
# O_DIRECT, iodepth 32, a 512 MiB file), three passes each. A pass runs the workload flat out
# ("max", as Vdbench's curve does first), then at 10, 20, .. 90, 95 and 100 % of that rate
# with --rate_iops and Poisson arrivals (--rate_process=poisson: requests come as from many
# independent users, not in lockstep); one second after a 0.3 s ramp each. Kept as one row per
# run (workload, pass, step, requested rate, iops, bw_mib_s, lat_mean_ms).
set -euo pipefail

FIO=${FIO:-fio}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-$HERE/../../../.venv/bin/python}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$FIO" --version
mkdir -p "$WORK/out"
"$FIO" --name=layout --filename="$WORK/f.dat" --size=512m --rw=write --bs=1m --direct=1 \
    --output=/dev/null
STEPS="10 20 30 40 50 60 70 80 90 95 100"
COMMON=(--filename="$WORK/f.dat" --size=512m --runtime=1 --ramp_time=300ms --time_based
        --direct=1 --ioengine=libaio --iodepth=32 --output-format=json)

curve() {  # workload name, then its fio options
    local name=$1 top
    shift
    for pass in 1 2 3; do
        "$FIO" --name="${name}_max" "${COMMON[@]}" --output="$WORK/out/${name}_p${pass}_max.json" "$@"
        top=$("$PYTHON" -c 'import json, sys; j = json.load(open(sys.argv[1]))["jobs"][0]
print(int(j["read"]["iops"] + j["write"]["iops"]))' "$WORK/out/${name}_p${pass}_max.json")
        for pct in $STEPS; do
            "$FIO" --name="${name}_r${pct}" "${COMMON[@]}" --rate_iops=$((top * pct / 100)) \
                --rate_process=poisson --output="$WORK/out/${name}_p${pass}_r${pct}.json" "$@"
        done
    done
}
curve rr4k --rw=randread --bs=4k
curve rw4k --rw=randwrite --bs=4k
curve rr64k --rw=randread --bs=64k
"$PYTHON" "$HERE/rate_curve_csv.py" "$WORK/out" "$HERE/rate_curve.csv"
