#!/usr/bin/env bash
# Record the real fio status-interval outputs of this folder (fio 3.33, Debian package).
#
#   bash tests/data/fio_live/make_fixtures.sh      # uses `fio` from PATH, or FIO=/path/to/fio
#
# Each is one real run of a few seconds with --output-format=json --status-interval=1, stdout
# as fio wrote it: a cumulative JSON document every second and the final one. The tests of
# anfperf.live (tests/live/test_fio_stream.py) compare the stream's intervals with the final
# document, so the numbers may change from one recording to the next; the layouts must not.
# Files are 8 MiB, in a scratch folder removed at the end; each output stays under 60 KB.
set -euo pipefail

FIO=${FIO:-fio}
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$FIO" --version > "$OUT/FIO_VERSION"
COMMON=(--output-format=json --status-interval=1 --size=8M --bs=4k --ioengine=libaio --direct=1
        --time_based=1 --norandommap=1 --percentile_list=50:99)

# 1. one job, random reads, three seconds: three status documents and the final one
"$FIO" "${COMMON[@]}" --name=randread --filename="$WORK/f1" --rw=randread --iodepth=4 \
    --runtime=3 > "$OUT/randread_1job.json"

# 2. two clones of a 70/30 random mix (numjobs=2, no group_reporting): two entries, both directions
"$FIO" "${COMMON[@]}" --name=randrw --filename="$WORK/f2" --rw=randrw --rwmixread=70 \
    --iodepth=2 --numjobs=2 --runtime=2 > "$OUT/randrw_2clones.json"

# 3. ramp_time=2: fio resets its counters when the ramp ends, so a later document counts less
"$FIO" "${COMMON[@]}" --name=ramp --filename="$WORK/f3" --rw=randread --iodepth=1 \
    --ramp_time=2 --runtime=2 > "$OUT/ramp_reset.json"

status=0
for f in "$OUT"/*.json; do
    size=$(stat -c %s "$f")
    if [ "$size" -gt 61440 ]; then
        echo "$f: $size bytes, over 60 KB" >&2
        status=1
    fi
done
exit $status
