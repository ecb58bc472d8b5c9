#!/usr/bin/env bash
# Regenerate the real fio outputs in this folder (fio 3.33, Debian package).
#
#   bash tests/data/fio/make_fixtures.sh            # uses `fio` from PATH, or FIO=/path/to/fio
#
# Every run is a real fio run of about one second on small files (size=8M) in a scratch folder.
# tests/ingest/test_fio_json.py compares the reader with the raw JSON of these files, so the
# numbers may change from one regeneration to the next; the layouts must not. Each file must stay
# under 60 KB (checked at the end). O_DIRECT is used with libaio where the file system allows it;
# trim runs on a file through the falloc engine (hole punching), since block trims need a device.
set -euo pipefail

FIO=${FIO:-fio}
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
PORT1=${FIO_PORT1:-28761}
PORT2=${FIO_PORT2:-28762}
SERVER_PIDS=()

cleanup() {
    # A fio server forks a child per client run: stop the children, then the server itself.
    for pidfile in "${SERVER_PIDS[@]}"; do
        [ -s "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        pkill -TERM -P "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

"$FIO" --version
cd "$WORK"
DATA="$WORK/data"
mkdir -p "$DATA"
# Common options: one second, small files, no random map so short runs stay cheap.
COMMON=(--size=8M --runtime=1 --time_based=1 --randrepeat=0 --norandommap=1)

# 1. plain json: one 4k random-read job, libaio QD4, O_DIRECT.
"$FIO" --output-format=json --name=randread-qd4 --filename="$DATA/f1" "${COMMON[@]}" \
    --rw=randread --bs=4k --ioengine=libaio --direct=1 --iodepth=4 \
    > "$OUT/randread_qd4.json"

# 2. randrw 70/30, numjobs=2 WITH group_reporting -> one job entry aggregating both clones.
"$FIO" --output-format=json --name=randrw70 --filename="$DATA/f2" "${COMMON[@]}" \
    --rw=randrw --rwmixread=70 --bs=8k --ioengine=libaio --direct=1 --iodepth=8 \
    --numjobs=2 --group_reporting \
    > "$OUT/randrw70_numjobs2_gr.json"

# 3. the same shape WITHOUT group_reporting -> two job entries with the same name.
"$FIO" --output-format=json --name=randread-nj2 --filename="$DATA/f3" "${COMMON[@]}" \
    --rw=randread --bs=4k --ioengine=libaio --direct=1 --iodepth=2 --numjobs=2 \
    > "$OUT/randread_numjobs2_nogr.json"

# 4. json+ (latency bins), randrw 50/50, two clones without group_reporting: the merged bins of
#    two jobs and of two directions give the percentiles of the totals.
"$FIO" --output-format=json+ --name=jp-randrw --filename="$DATA/f4" "${COMMON[@]}" \
    --rw=randrw --bs=4k --ioengine=libaio --direct=1 --iodepth=4 --numjobs=2 \
    > "$OUT/jsonplus_randrw_numjobs2.json"

# 5. json+ with lat_percentiles=1: lat_ns carries its own percentiles and bins (preferred).
"$FIO" --output-format=json+ --name=jp-latpct --filename="$DATA/f5" "${COMMON[@]}" \
    --rw=randread --bs=4k --ioengine=libaio --direct=1 --iodepth=2 --lat_percentiles=1 \
    > "$OUT/jsonplus_lat_percentiles.json"

# 6. a job file with two stonewalled groups: sequential write, then sequential read.
cat > stonewall.fio <<EOF
[global]
filename=$DATA/f6
size=8M
runtime=1
time_based=1
ioengine=libaio
direct=1
bs=64k
iodepth=4

[seq-write]
rw=write

[seq-read]
stonewall
rw=read
EOF
"$FIO" --output-format=json stonewall.fio > "$OUT/stonewall_2groups.json"

# 7. trim on a file: the falloc engine punches holes.
"$FIO" --output-format=json --name=trim-falloc --filename="$DATA/f7" "${COMMON[@]}" \
    --rw=randtrim --bs=64k --ioengine=falloc \
    > "$OUT/randtrim_falloc.json"

# 8. --output-format=normal,json: the human report comes first, then the JSON.
"$FIO" --output-format=normal,json --name=normal-json --filename="$DATA/f8" "${COMMON[@]}" \
    --rw=randwrite --bs=16k --ioengine=libaio --direct=1 --iodepth=4 \
    > "$OUT/normal_and_json.txt"

# 9. a rate-limited job (rate_iops).
"$FIO" --output-format=json --name=rate-200 --filename="$DATA/f9" "${COMMON[@]}" \
    --rw=randread --bs=4k --ioengine=libaio --direct=1 --iodepth=1 --rate_iops=200 \
    > "$OUT/rate_iops_200.json"

# 10. gtod_reduce=1: fio does not time the I/O; its latencies are reported as 0 (N=0).
"$FIO" --output-format=json --name=gtod-reduce --filename="$DATA/f10" "${COMMON[@]}" \
    --rw=randread --bs=4k --ioengine=psync --gtod_reduce=1 \
    > "$OUT/gtod_reduce.json"

# 11. unified_rw_reporting=both: fio adds a 'mixed' (all directions) block to read/write.
"$FIO" --output-format=json --name=unified-both --filename="$DATA/f11" "${COMMON[@]}" \
    --rw=randrw --bs=4k --ioengine=libaio --direct=1 --iodepth=4 --unified_rw_reporting=both \
    > "$OUT/unified_rw_both.json"

# 12. --status-interval series (several cumulative documents of one run in one file) are
#     recorded by tests/data/fio_series/make_fixtures.sh.

# 13. one job fails (no size for a new file), one runs: stderr and stdout in one file, as
#     `fio ... > out.json 2>&1` leaves them. fio exits 1.
cat > onefails.fio <<EOF
[global]
ioengine=psync
bs=4k
runtime=1
time_based=1

[good]
rw=randread
size=8M
filename=$DATA/f13

[bad]
rw=randread
filename=$DATA/does-not-exist
EOF
"$FIO" --output-format=json onefails.fio > "$OUT/one_job_fails.json" 2>&1 || true

# 14. per-direction options: bs and rate_iops given as read,write; rwmixwrite instead of
#     rwmixread; iodepth=8 on psync, a synchronous engine that ignores it.
"$FIO" --output-format=json --name=per-direction --filename="$DATA/f14" "${COMMON[@]}" \
    --rw=randrw --rwmixwrite=30 --bs=4k,64k --rate_iops=400,100 --ioengine=psync --iodepth=8 \
    > "$OUT/per_direction_options.json"

# 15/16. client/server: two fio servers on loopback (different ports, so the same hostname),
#        each in its own folder; the client prints '<host>' lines before the JSON.
cat > client.fio <<EOF
[global]
ioengine=psync
size=8M
bs=4k
runtime=1
time_based=1

[cs-randread]
rw=randread
filename=csfile
EOF
for n in 1 2; do
    mkdir -p "server$n"
    port_var=PORT$n
    (cd "server$n" && "$FIO" --server="ip:127.0.0.1,${!port_var}" --daemonize="$WORK/server$n.pid")
    SERVER_PIDS+=("$WORK/server$n.pid")
done
sleep 1
CLIENTS=(--client="ip:127.0.0.1,$PORT1" client.fio --client="ip:127.0.0.1,$PORT2" client.fio)
"$FIO" --output-format=json "${CLIENTS[@]}" > "$OUT/client_2servers.json"
"$FIO" --output-format=json+ "${CLIENTS[@]}" > "$OUT/client_2servers_jsonplus.json"

# fio stopped by SIGTERM two seconds into a 30 s run (as the runner, `timeout` or a cancelled CI
# job stop it): "fio: terminating on signal 15" in the output, then what it had measured.
"$FIO" --output-format=json --output="$OUT/terminated_sigterm.json" --name=stopped \
    --filename="$DATA/f9" --size=8M --runtime=30 --time_based=1 --randrepeat=0 \
    --norandommap=1 --rw=randread --bs=4k &
FIO_PID=$!
sleep 2
kill -TERM "$FIO_PID"
wait "$FIO_PID" || true

# Size guard: fixtures are committed.
status=0
for f in "$OUT"/*.json "$OUT"/*.txt; do
    size=$(wc -c < "$f")
    printf '%7d %s\n' "$size" "$(basename "$f")"
    if [ "$size" -ge 61440 ]; then
        echo "too big (>= 60 KB): $f" >&2
        status=1
    fi
done
exit $status
