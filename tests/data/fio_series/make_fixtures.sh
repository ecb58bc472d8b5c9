#!/usr/bin/env bash
# Record the real fio --status-interval series of this folder (fio 3.33, Debian package).
#
#   bash tests/data/fio_series/make_fixtures.sh    # uses `fio` from PATH, or FIO=/path/to/fio
#
# A series is what `fio --status-interval=1 --output=FILE` leaves in FILE: a cumulative JSON
# document every second and the final one, one after the other. tests/ingest/test_fio_series.py
# compares the reader's summary and interval rows with these documents, so the numbers may change
# from one recording to the next; the layouts must not. Runs of two or three seconds on 8 MiB
# files in a scratch folder removed at the end; each output stays under 100 KB.
set -euo pipefail

FIO=${FIO:-fio}
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$FIO" --version > "$OUT/FIO_VERSION"
COMMON=(--status-interval=1 --size=8M --bs=4k --time_based=1 --randrepeat=0 --norandommap=1
        --percentile_list=50:99)

# 1. json, one job (psync): two status documents and the final one
"$FIO" "${COMMON[@]}" --output-format=json --output="$OUT/randread_json.json" --name=randread \
    --filename="$WORK/f1" --rw=randread --ioengine=psync --runtime=2

# 2. json+, a 70/30 random mix (libaio, O_DIRECT): latency bins in every document
"$FIO" "${COMMON[@]}" --output-format=json+ --output="$OUT/randrw_jsonplus.json" --name=randrw \
    --filename="$WORK/f2" --rw=randrw --rwmixread=70 --ioengine=libaio --direct=1 --iodepth=4 \
    --runtime=2

# 3. ramp_time=2: fio counts I/O but times none during the ramp, then resets its counters
"$FIO" "${COMMON[@]}" --output-format=json --output="$OUT/ramp_reset.json" --name=ramp \
    --filename="$WORK/f3" --rw=randread --ioengine=psync --ramp_time=2 --runtime=2

# 4. numjobs=2 without group_reporting: two entries of the same name in every document
"$FIO" "${COMMON[@]}" --output-format=json --output="$OUT/numjobs2_nogr.json" --name=nj2 \
    --filename="$WORK/f4" --rw=randread --ioengine=psync --numjobs=2 --runtime=2

# 5. numjobs=2 with group_reporting: one entry for both clones
"$FIO" "${COMMON[@]}" --output-format=json --output="$OUT/numjobs2_gr.json" --name=nj2gr \
    --filename="$WORK/f5" --rw=randrw --rwmixread=50 --ioengine=psync --numjobs=2 \
    --group_reporting --runtime=2

# 6. a series cut short inside its last document (a copy stopped midway, a full disk): the
#    first recording, ending halfway through its final document
size=$(stat -c %s "$OUT/randread_json.json")
last=$(grep -b '^{' "$OUT/randread_json.json" | tail -1 | cut -d: -f1)
head -c $((last + (size - last) / 2)) "$OUT/randread_json.json" > "$OUT/cut_short.json"

# 7. two different runs (different jobs, no status interval) into one file: two results
"$FIO" --output-format=json --name=first-seqread --filename="$WORK/f7" --size=8M --bs=64k \
    --rw=read --ioengine=psync --runtime=1 --time_based=1 > "$OUT/two_runs.json"
"$FIO" --output-format=json --name=second-randwrite --filename="$WORK/f7" --size=8M --bs=4k \
    --rw=randwrite --ioengine=psync --runtime=1 --time_based=1 >> "$OUT/two_runs.json"

# 8. the same job with --status-interval run twice into one file: two series of the same jobs,
#    told apart because a second fio process wrote the second
: > "$OUT/same_job_twice.json"
for _ in 1 2; do
    "$FIO" "${COMMON[@]}" --output-format=json --name=again --filename="$WORK/f8" \
        --rw=randread --ioengine=psync --runtime=2 >> "$OUT/same_job_twice.json"
done

status=0
for f in "$OUT"/*.json; do
    size=$(stat -c %s "$f")
    printf '%7d %s\n' "$size" "$(basename "$f")"
    if [ "$size" -gt 102400 ]; then
        echo "$f: $size bytes, over 100 KB" >&2
        status=1
    fi
done
exit $status
