#!/usr/bin/env bash
# Record one quick pass of the fio concurrency sweep in qd_onepass/ (fio 3.33, Debian package).
#
#   bash tests/data/fio_sweeps/make_onepass.sh     # uses `fio` from PATH, or FIO=/path/to/fio
#
# The sweep benchmarks/bench_models.py runs live: 4 KiB random reads of a 256 MiB file, libaio
# with O_DIRECT, iodepth 1 .. 128, one pass of 0.5 s after a 0.3 s ramp. Such a pass scatters
# (a shared 2-core VM) and, on this machine's disk, keeps rising slowly to QD 128 where the
# throughput models fitted to QD 1..12 level off early. The recorded pass (2026-11-28:
# 17,752 IOPS at QD 1, 54,930 at QD 12, 79,168 at QD 64, 67,741 at QD 128) is the first of
# several runs where the stacked curve's bootstrap band alone held fewer than 80 % of QD 16..128
# (1 of 7; about one pass in four does so): the case its prequential record
# (anfperf.models.forecast.throughput._record_reach) widens the band for.
set -euo pipefail

FIO=${FIO:-fio}
OUT=$(cd "$(dirname "$0")" && pwd)/qd_onepass
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$FIO" --version
mkdir -p "$OUT"
rm -f "$OUT"/*.json
for qd in 1 2 3 4 6 8 12 16 24 32 48 64 96 128; do
    "$FIO" --name="qd$qd" --filename="$WORK/sweep.dat" --size=256m --rw=randread --bs=4k \
        --ioengine=libaio --direct=1 --iodepth="$qd" --runtime=500ms --ramp_time=300ms \
        --time_based --output-format=json --output="$OUT/qd$qd.json"
done
du -sh "$OUT"
