#!/usr/bin/env bash
# Record real fio concurrency sweeps of this VM's disk into qd_grid.csv (fio 3.33, Debian).
#
#   bash tests/data/fio_sweeps/make_qd_grid.sh    # fio from PATH (or FIO=...), anfperf's .venv
#
# Six workloads, two passes each, at iodepth (numjobs for psync) 1, 2, 3, 4, 6, 8, 12, 16, 24,
# 32, 48, 64, 96, 128: 4 KiB random writes, 64 KiB and 16 KiB random reads, 128 KiB sequential
# reads, an 8 KiB random 70/30 read/write mix (libaio with O_DIRECT), and 4 KiB random reads from
# as many psync jobs (O_DIRECT, group_reporting); one second after a 0.3 s ramp, on a 512 MiB
# file. Kept as one row per run (workload, pass, concurrency, iops, bw_mib_s, lat_mean_ms): 168
# fio JSON files are 1.4 MB. Recorded 2026-11-29 to judge the concurrency forecast
# (anfperf.models.forecast.throughput) on sweeps it was not conceived on
# (benchmarks/_models_sweeps.py, tests/models/test_forecast_sweeps.py).
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
DEPTHS="1 2 3 4 6 8 12 16 24 32 48 64 96 128"
COMMON=(--filename="$WORK/f.dat" --size=512m --runtime=1 --ramp_time=300ms --time_based
        --direct=1 --output-format=json)

sweep() {  # workload name, then its fio options
    local name=$1
    shift
    for pass in 1 2; do
        for qd in $DEPTHS; do
            "$FIO" --name="${name}_qd${qd}" "${COMMON[@]}" --ioengine=libaio --iodepth="$qd" \
                --output="$WORK/out/${name}_p${pass}_qd${qd}.json" "$@"
        done
    done
}
sweep rw4k --rw=randwrite --bs=4k
sweep rr64k --rw=randread --bs=64k
sweep sr128k --rw=read --bs=128k
sweep mix8k --rw=randrw --rwmixread=70 --bs=8k
sweep rr16k --rw=randread --bs=16k
for pass in 1 2; do
    for jobs in $DEPTHS; do
        "$FIO" --name="psync_nj${jobs}" "${COMMON[@]}" --ioengine=psync --numjobs="$jobs" \
            --group_reporting --rw=randread --bs=4k \
            --output="$WORK/out/psync_p${pass}_qd${jobs}.json"
    done
done
"$PYTHON" "$HERE/qd_grid_csv.py" "$WORK/out" "$HERE/qd_grid.csv"
