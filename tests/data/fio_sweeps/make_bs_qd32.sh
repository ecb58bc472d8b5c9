#!/usr/bin/env bash
# Record the real fio block-size sweep at queue depth 32 in bs_qd32/ (fio 3.33, Debian package).
#
#   bash tests/data/fio_sweeps/make_bs_qd32.sh    # uses `fio` from PATH, or FIO=/path/to/fio
#
# Sequential writes of a 512 MiB file, libaio with O_DIRECT, iodepth 32, block size 4 KiB ..
# 1 MiB (4, 8, 16, 32, 64, 128, 256, 512, 1024), one pass upwards of one second each after a
# 0.3 s ramp. With 32 in flight this VM's disk peaks near 64-128 KiB and then loses MiB/s as
# the blocks grow (an over-driven byte path): the block-size forecast's lower bound past the
# sizes fitted must hold that fall (tests/models/test_forecast.py).
set -euo pipefail

FIO=${FIO:-fio}
OUT=$(cd "$(dirname "$0")" && pwd)/bs_qd32
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$FIO" --version
mkdir -p "$OUT"
rm -f "$OUT"/*.json
"$FIO" --name=layout --filename="$WORK/sweep.dat" --size=512m --rw=write --bs=1m \
    --direct=1 --output=/dev/null
for bs in 4 8 16 32 64 128 256 512 1024; do
    "$FIO" --name="bs${bs}k" --filename="$WORK/sweep.dat" --size=512m --runtime=1 \
        --ramp_time=300ms --time_based --ioengine=libaio --direct=1 --iodepth=32 \
        --rw=write --bs="${bs}k" --output-format=json --output="$OUT/write_bs${bs}k.json"
done
du -sh "$OUT"
