#!/usr/bin/env bash
# Record the real fio grids of I/Os in flight x read share in mix_qd/ (fio 3.33, Debian package).
#
#   bash tests/data/fio_sweeps/make_mix_qd.sh    # uses `fio` from PATH, or FIO=/path/to/fio
#
# Two grids on a 1 GiB file, libaio with O_DIRECT, one pass of two seconds each after a 0.3 s
# ramp: iodepth 1, 2, 4, 8, 16, 32, 64 x rwmixread 0, 25, 50, 75, 100 (qd<N>_r<R>.json):
#   rand8k/  8 KiB random (randrw)
#   seq64k/  64 KiB sequential (rw)
# What an engineer runs to see a volume's mixes at every load: the report reads such a run as a
# grid, one mix curve per count in flight; the mix forecast carries pure runs measured at other
# counts to the mix's (anfperf.models.forecast.mix, benchmarks/_models_mix.py).
set -euo pipefail

FIO=${FIO:-fio}
HERE=$(cd "$(dirname "$0")" && pwd)/mix_qd
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$FIO" --version
for grid in rand8k seq64k; do
    if [ "$grid" = rand8k ]; then rw=randrw bs=8k; else rw=rw bs=64k; fi
    OUT=$HERE/$grid
    mkdir -p "$OUT"
    rm -f "$OUT"/*.json
    "$FIO" --name=layout --filename="$WORK/m.dat" --size=1g --rw=write --bs=1m --direct=1 \
        --output=/dev/null
    for qd in 1 2 4 8 16 32 64; do
        for r in 0 25 50 75 100; do
            "$FIO" --name="qd${qd}_r${r}" --filename="$WORK/m.dat" --size=1g --runtime=2 \
                --ramp_time=300ms --time_based --ioengine=libaio --direct=1 --iodepth="$qd" \
                --rw="$rw" --rwmixread="$r" --bs="$bs" --output-format=json \
                --output="$OUT/qd${qd}_r${r}.json"
        done
    done
    rm -f "$WORK/m.dat"
done
du -sh "$HERE"
