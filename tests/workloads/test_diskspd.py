"""DiskSpd command lines against the seed's."""

from __future__ import annotations

import shlex

import pytest

from anfperf.tools import render_diskspd_commands
from anfperf.workloads import CATALOGUE, WorkloadError

# The DiskSpd seed: MicrosoftDocs/azure-docs includes/virtual-machines-managed-disks-benchmarking.md
# ("Maximum write IOPS" / "Maximum read IOPS"), as published.
SEED = {
    "MaxWriteIops8k": "diskspd -c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh testfile.dat",
    "MaxReadIops4k": "diskspd -c200G -b4K -F4 -r -o128 -W7200 -d30 -Sh testfile.dat",
}


@pytest.mark.parametrize("name", list(SEED))
def test_seed_command_lines_are_reproduced_exactly(name):
    seed = shlex.split(SEED[name])
    (argv,) = render_diskspd_commands(CATALOGUE[name], ["T:"], latency=False, xml=False)
    assert argv[:-1] == seed[:-1]  # every option, in the seed's order
    assert argv[-1] == "T:\\file-1-1.dat"


def test_default_adds_latency_and_xml_and_one_target_per_volume():
    (argv,) = render_diskspd_commands(
        CATALOGUE["MaxWriteIops8k"], ["X:\\anf", "\\\\anf-smb\\vol2"], host="win1"
    )
    assert argv[-4:] == [
        "-L",
        "-Rxml",
        "X:\\anf\\file-win1-1.dat",
        "\\\\anf-smb\\vol2\\file-win1-2.dat",
    ]


def test_sweeps_give_one_command_per_load_point():
    w = CATALOGUE["SeqMix64kSweep"].replace(read_pct=(100, 70, 0), iodepth=(1, 8), numjobs=2)
    cmds = render_diskspd_commands(w, ["D:"], xml=False, latency=False)
    opts = [c[1:-1] for c in cmds]
    assert len(cmds) == 6
    # sequential with 2 threads: one interlocked stream (-si); reads: no -w; writes: -w100
    assert opts[0] == ["-c4G", "-b64K", "-F2", "-si", "-o1", "-W0", "-d600", "-Sh"]
    assert opts[1][1] == "-w30" and opts[2][1] == "-w100"
    assert opts[3][4] == "-o8"


def test_threads_workload_and_rate_cap():
    # 25 threads, 1 I/O each; 5000 IOPS over 2 hosts x 1 target x 25 threads = 100 IOPS per
    # thread and target = 100 x 8 KiB per second = 819.2 bytes/ms, rounded up
    w = CATALOGUE["RndRead"].replace(rate=5000)
    (argv,) = render_diskspd_commands(w, ["D:"], n_hosts=2)
    assert "-F25" in argv and "-o1" in argv and "-g820" in argv and "-w0" not in argv
    curve = render_diskspd_commands(CATALOGUE["RndReadCurve"], ["D:"], max_iops=16000)
    # 10 % of 16000 over 16 threads = 100 IOPS x 8 KiB = 819.2 -> 820 bytes/ms
    assert [a for a in curve[0] if a.startswith("-g")] == ["-g820"]
    assert len(curve) == 7


def test_refusals():
    with pytest.raises(WorkloadError, match="fill"):
        render_diskspd_commands(CATALOGUE["FillWrite"], ["D:"])
    with pytest.raises(WorkloadError, match="max_iops"):
        render_diskspd_commands(CATALOGUE["RndReadCurve"], ["D:"])
    for bad in ["D:\\my dir", "D:\\a&calc", "%TEMP%", "-c1G", "D:\\a;b", 'D:\\"x"']:
        with pytest.raises(WorkloadError, match="volumes"):
            render_diskspd_commands(CATALOGUE["RndRead"], [bad])
    with pytest.raises(WorkloadError, match="host"):
        render_diskspd_commands(CATALOGUE["RndRead"], ["D:"], host="a&b")
