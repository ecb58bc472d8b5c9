#!/usr/bin/env bash
# Record real fio block-size sweeps of this VM's disk into bs_grid.csv (fio 3.33, Debian).
#
#   bash tests/data/fio_sweeps/make_bs_grid.sh    # fio from PATH (or FIO=...), anfperf's .venv
#
# 16 sweeps: randread, randwrite, read, write x iodepth 1, 4, 16, 64, each at 4 .. 1024 KiB
# (4, 8, 16, 32, 64, 128, 256, 512, 1024), one pass of one second after a 0.2 s ramp, libaio
# with O_DIRECT on a 1 GiB file. The JSON outputs are read with anfperf and kept as one row per
# run (rw, iodepth, bs_kib, iops, bw_mib_s, lat_mean_ms): 144 files of fio JSON are 1.2 MB.
# Recorded to judge the block-size forecast's slowest-line estimate (models.forecast.block) on
# sweeps it was not conceived on (benchmarks/bench_models.py, context rows).
set -euo pipefail

FIO=${FIO:-fio}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-$HERE/../../../.venv/bin/python}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$FIO" --version
mkdir -p "$WORK/out"
"$FIO" --name=layout --filename="$WORK/b.dat" --size=1g --rw=write --bs=1m --direct=1 \
    --output=/dev/null
for rw in randread randwrite read write; do
    for qd in 1 4 16 64; do
        for bs in 4 8 16 32 64 128 256 512 1024; do
            "$FIO" --name="${rw}_qd${qd}_bs${bs}k" --filename="$WORK/b.dat" --size=1g \
                --runtime=1 --ramp_time=200ms --time_based --ioengine=libaio --direct=1 \
                --iodepth="$qd" --rw="$rw" --bs="${bs}k" --output-format=json \
                --output="$WORK/out/${rw}_qd${qd}_bs${bs}k.json"
        done
    done
done
"$PYTHON" "$HERE/bs_grid_csv.py" "$WORK/out" "$HERE/bs_grid.csv"
