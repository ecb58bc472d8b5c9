#!/usr/bin/env bash
# Regenerate the A/B pair in this folder with real Vdbench (5.04.05; see
# ../shared/tools/vdbench/README.md for a development install):
#
#   VDBENCH=/opt/vdbench/vdbench bash data/samples/vdbench/ab/make_ab.sh
#
# The same three workloads twice on two 256 MiB files of the local disk: run A opens them with
# O_DIRECT (every I/O goes to the disk, as on an NFS mount without client caching), run B
# without (the page cache serves re-reads and absorbs writes). What notebooks/compare_runs.ipynb
# compares by default: one-second intervals, the first four of each workload are warm-up.
# A local disk, not ANF: the shape of an A/B comparison, not reference numbers.
set -euo pipefail

VDBENCH=${VDBENCH:-vdbench}
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

run() {  # run NAME OPENFLAGS
    local name=$1 flags=$2
    cat > "$WORK/$name.parm" <<PARM
sd=default,size=256m$flags
sd=sd-1,lun=$WORK/file-1
sd=sd-2,lun=$WORK/file-2
wd=RndRead,sd=sd*,rdpct=100,seekpct=100,xfersize=8k
wd=RndMix,sd=sd*,rdpct=70,seekpct=100,xfersize=8k
wd=SeqRead,sd=sd*,rdpct=100,seekpct=0,xfersize=64k
rd=default,warmup=4,elapsed=16,interval=1,iorate=max
rd=RndRead,wd=RndRead,sd=("sd*"),threads=8
rd=RndMix,wd=RndMix,sd=("sd*"),threads=8
rd=SeqRead,wd=SeqRead,sd=("sd*"),threads=4
PARM
    "$VDBENCH" -f "$WORK/$name.parm" -o "$WORK/$name" > /dev/null
    rm -rf "${OUT:?}/$name" && mkdir -p "$OUT/$name"
    # the files the readers use; the rest (per-SD and per-slave pages) repeats them
    for f in parmfile.html flatfile.html logfile.html summary.html histogram.html; do
        cp "$WORK/$name/$f" "$OUT/$name/"
    done
}

run A-direct ",openflags=o_direct"
run B-buffered ""
ls -l "$OUT"/*/
