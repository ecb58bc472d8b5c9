#!/usr/bin/env bash
# Record the real fio block-size sweep in this folder (fio 3.33, Debian package).
#
#   bash tests/data/fio_sweeps/make_bs_sweeps.sh    # uses `fio` from PATH, or FIO=/path/to/fio
#
# bs_randread/: random reads of a 512 MiB file, libaio with O_DIRECT, iodepth 16, block size
# 4 KiB .. 1 MiB (4, 8, 16, 32, 64, 128, 256, 512, 1024), three passes (up, down, up) of one
# second each after a 0.3 s ramp; bs_randwrite/: the same with random writes. The block-size
# model's tests and benchmarks/_models_mix.py fit a part of the sizes and predict the others
# (more than 4x away); the median per size over the passes is what they use, so a pass
# disturbed by other work on the machine counts less.
set -euo pipefail

FIO=${FIO:-fio}
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$FIO" --version
SIZES="4 8 16 32 64 128 256 512 1024"
COMMON=(--filename="$WORK/sweep.dat" --size=512m --runtime=1 --ramp_time=300ms --time_based
        --ioengine=libaio --direct=1 --iodepth=16 --output-format=json)

order() {  # pass 1 and 3 upwards, pass 2 downwards
    if [ "$1" = 2 ]; then echo "$2" | tr ' ' '\n' | tac | tr '\n' ' '; else echo "$2"; fi
}

# lay the file out once, so that the first reads do not read holes
"$FIO" --name=layout --filename="$WORK/sweep.dat" --size=512m --rw=write --bs=1m \
    --direct=1 --output=/dev/null
for rw in randread randwrite; do
    mkdir -p "$OUT/bs_$rw"
    rm -f "$OUT/bs_$rw"/*.json
    for pass in 1 2 3; do
        for bs in $(order "$pass" "$SIZES"); do
            "$FIO" --name="bs${bs}k" "${COMMON[@]}" --rw="$rw" --bs="${bs}k" \
                --output="$OUT/bs_$rw/pass${pass}_bs${bs}k.json"
        done
    done
done
du -sh "$OUT"/bs_*
