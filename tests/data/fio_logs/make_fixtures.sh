#!/bin/sh
# Regenerate the fio log fixtures of tests/ingest/test_fio_log.py with the real fio binary.
#
# Made with fio-3.33 (Debian bookworm package, /usr/bin/fio) on Linux x86_64; files live in /tmp,
# buffered I/O (direct=0), 1-2 s per job, so every log stays below 50 KB. Values differ on every
# run: the tests parse the raw files independently, they never hard-code numbers from them.
#
#   perio_*    per-I/O logs (no log_avg_msec) of a 50/50 randrw job (ddir 0 and 1) at 300 IOPS,
#              plus its completion-latency histogram log (log_hist_msec=500) from the same run,
#              gzip-compressed (the reader un-gzips by content). 5 columns: fio >= 3.18 always
#              writes the priority column.
#   coarse_*   the same at 100 IOPS with log_hist_coarseness=3 (232 bins), and its per-I/O clat log.
#   avg_*      windowed logs (log_avg_msec=250) of a 70/30 randrw job with numjobs=2 (.1. and .2.).
#   offset_*   per-I/O logs with log_offset=1: 6 columns (time, value, ddir, bs, offset, prio).
#   prio_*     per-I/O logs with log_prio=1, prioclass=2, prio=4: priority written as hex 0x4004.
#   client_*   windowed logs written by `fio --client` from a local `fio --server`: fio appends
#              the server's host name to the log name (client_clat.1.log.127.0.0.1).
set -eu

FIO=${FIO:-/usr/bin/fio}
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/anfperf-fio-logs.XXXXXX)
PORT=${PORT:-8799}
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

GLOBAL="[global]
filename=$WORK/data.bin
size=4m
bs=4k
direct=0
ioengine=libaio
iodepth=1"

# One job file per fixture group, so that job indexes (the N in name_clat.N.log) start at 1.
job() {  # job NAME BODY
    printf '%s\n\n[%s]\n%s\n' "$GLOBAL" "$1" "$2" > "$1.fio"
    "$FIO" --output="$1.txt" "$1.fio"
}

job perio "rw=randrw
rwmixread=50
rate_iops=300
runtime=2
time_based=1
write_lat_log=perio
write_bw_log=perio
write_iops_log=perio
write_hist_log=perio
log_hist_msec=500"

job coarse "rw=randrw
rwmixread=50
rate_iops=100
runtime=2
time_based=1
write_lat_log=coarse
write_hist_log=coarse
log_hist_msec=500
log_hist_coarseness=3"

job avg "rw=randrw
rwmixread=70
numjobs=2
rate_iops=200
runtime=2
time_based=1
write_lat_log=avg
write_bw_log=avg
write_iops_log=avg
log_avg_msec=250"

job offset "rw=randrw
rwmixread=50
number_ios=100
write_lat_log=offset
write_bw_log=offset
log_offset=1"

job prio "rw=randread
number_ios=100
prioclass=2
prio=4
write_lat_log=prio
log_prio=1"

printf '%s\nioengine=psync\n\n[client]\nrw=randread\nrate_iops=200\nruntime=1\ntime_based=1\nwrite_lat_log=client\nwrite_iops_log=client\nlog_avg_msec=250\n' \
    "$GLOBAL" > client.fio
"$FIO" --server=ip:127.0.0.1,"$PORT" --daemonize="$WORK/server.pid"
sleep 1
"$FIO" --client=ip:127.0.0.1,"$PORT" --output=client.txt client.fio
kill "$(cat "$WORK/server.pid")"

gzip -9 -n perio_clat_hist.1.log coarse_clat_hist.1.log
# Keep only what the tests read.
rm -f coarse_lat.1.log coarse_slat.1.log offset_slat.1.log prio_lat.1.log prio_slat.1.log
cp perio_*.log* coarse_*.log* avg_*.log offset_*.log prio_*.log client_*.log.* "$OUT"/
"$FIO" --version > "$OUT/FIO_VERSION"
ls -l "$OUT"
