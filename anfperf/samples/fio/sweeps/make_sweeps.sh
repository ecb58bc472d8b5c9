#!/usr/bin/env bash
# Regenerate the real fio sweeps in this folder (fio 3.33, Debian package).
#
#   bash data/samples/fio/sweeps/make_sweeps.sh      # uses `fio` from PATH, or FIO=/path/to/fio
#
# Real fio runs on a small file (64 MiB) in a scratch folder of the local disk, O_DIRECT with
# libaio; each point runs 1.5 s after a 0.5 s ramp. What they measure is this machine's disk,
# not ANF: they are the shapes a report draws (a queue-depth sweep, a read/write mix in 10 %
# steps, per-interval logs), not reference numbers.
set -euo pipefail

FIO=${FIO:-fio}
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$FIO" --version
cd "$WORK"
COMMON="filename=$WORK/data
size=64M
ioengine=libaio
direct=1
time_based=1
ramp_time=0.5
runtime=1.5
randrepeat=0
norandommap=1
stonewall"

# 1. queue-depth sweep: 4 KiB random read at iodepth 1..64, json+ (latency bins for CDFs), and
#    per-interval logs (IOPS, bandwidth, completion latency averaged over 250 ms) and a
#    completion-latency histogram log of every point.
{
    printf '[global]\n%s\nrw=randread\nbs=4k\nlog_avg_msec=250\nlog_hist_msec=250\n' "$COMMON"
    for qd in 1 2 4 8 16 32 64; do
        printf '[qd%s]\niodepth=%s\nwrite_iops_log=logs/qd%s\nwrite_bw_log=logs/qd%s\n' \
            "$qd" "$qd" "$qd" "$qd"
        printf 'write_lat_log=logs/qd%s\nwrite_hist_log=logs/qd%s\n' "$qd" "$qd"
    done
} > qd.fio
mkdir -p logs
"$FIO" --output-format=json+ qd.fio > "$OUT/qd_sweep_randread4k.json"
rm -rf "$OUT/logs" && mkdir -p "$OUT/logs"
# keep the logs the charts use; slat/lat duplicate clat here
for f in logs/*_iops.*.log logs/*_bw.*.log logs/*_clat.*.log logs/*_clat_hist.*.log; do
    gzip -9 -c "$f" > "$OUT/logs/$(basename "$f").gz"
done

# 2. read/write mix: 8 KiB random at iodepth 16, read share 0 %..100 % in 10 % steps.
{
    printf '[global]\n%s\nrw=randrw\nbs=8k\niodepth=16\n' "$COMMON"
    for pct in 0 10 20 30 40 50 60 70 80 90 100; do
        printf '[mix%s]\nrwmixread=%s\n' "$pct" "$pct"
    done
} > mix.fio
"$FIO" --output-format=json mix.fio > "$OUT/mix_sweep_randrw8k.json"
ls -l "$OUT" "$OUT/logs"
