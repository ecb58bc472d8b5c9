"""fio job files and command lines, checked against the seed and run by the real fio."""

from __future__ import annotations

import json
import resource
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from anfperf.tools import fio_sections, render_fio_command, render_fio_jobfile
from anfperf.workloads import CATALOGUE, WorkloadError

FIO = shutil.which("fio") or "/usr/bin/fio"

# The fio seed: MicrosoftDocs/azure-docs articles/azure-netapp-files/testing-methodology.md,
# "FIO examples for IOPS / for bandwidth" (the command lines as published).
SEED_COMMANDS = {
    "8krandomreads": "fio --name=8krandomreads --rw=randread --direct=1 --ioengine=libaio "
    "--bs=8k --numjobs=4 --iodepth=128 --size=4G --runtime=600 --group_reporting",
    "8krandomwrites": "fio --name=8krandomwrites --rw=randwrite --direct=1 --ioengine=libaio "
    "--bs=8k --numjobs=4 --iodepth=128  --size=4G --runtime=600 --group_reporting",
    "64kseqreads": "fio --name=64kseqreads --rw=read --direct=1 --ioengine=libaio --bs=64k "
    "--numjobs=4 --iodepth=128  --size=4G --runtime=600 --group_reporting",
    "64kseqwrites": "fio --name=64kseqwrites --rw=write --direct=1 --ioengine=libaio --bs=64k "
    "--numjobs=4 --iodepth=128  --size=4G --runtime=600 --group_reporting",
}
#: What anfperf adds to the seed: runs last their duration, a fresh random sequence each run
#: (the methodology article's randrepeat=0), per-client file names, per-volume folders, JSON.
ADDED = {"time_based", "filename_format", "directory", "output-format"}


def require_fio() -> str:
    if not shutil.which(FIO):
        pytest.fail("fio is not installed: `make sysdeps` installs it")
    return FIO


def _options(argv: list[str]) -> dict[str, str]:
    """fio command-line options as {name: value}; flags are '1'; sizes compared case-blind."""
    out = {}
    for arg in argv[1:]:
        key, _, value = arg.removeprefix("--").partition("=")
        out[key] = value.lower() if value else "1"
    return out


@pytest.mark.parametrize("name", list(SEED_COMMANDS))
def test_seed_fio_commands_are_reproduced(name):
    seed = _options(shlex.split(SEED_COMMANDS[name]))
    rendered = _options(render_fio_command(CATALOGUE[name], ["/mnt/vdb1"]))
    for key, value in seed.items():
        assert rendered[key] == value, key
    extra = set(rendered) - set(seed)
    assert extra == ADDED | ({"randrepeat"} if "random" in name else set())
    assert rendered["randrepeat" if "random" in name else "time_based"] in {"0", "1"}


def _limit_file_size(limit: int = 64 * 2**20):
    # a safety net: a job meant to be parsed (or tiny) can never fill the disk, even as root
    def set_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return set_limit


def _run(argv, tmp_path, timeout=60):
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        preexec_fn=_limit_file_size(),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _tiny(workload, **changes):
    # 1-second load points on 2 MiB files: the real fio, fast
    return workload.replace(
        file_size_gib=2 / 1024, duration_s=1, warmup_s=0, interval_s=1, **changes
    )


@pytest.fixture
def volumes(tmp_path):
    paths = [tmp_path / "vdb1", tmp_path / "vdb2"]
    for p in paths:
        p.mkdir()
    return [str(p) for p in paths]


RUNS = {
    # name: (workload, renderer options)
    "seed-random": (_tiny(CATALOGUE["8krandomreads"], numjobs=2, iodepth=8), {}),
    "vdbench-threads-sweep": (_tiny(CATALOGUE["SeqWrite"], threads=(2, 4)), {}),
    "read-sweep": (_tiny(CATALOGUE["RndMix4kSweep"], read_pct=(50, 0), iodepth=4), {}),
    "curve": (_tiny(CATALOGUE["RndReadCurve"], threads=2, rate=(50, 100)), {"max_iops": 400}),
    "fill": (_tiny(CATALOGUE["FillWrite"]), {}),
}


@pytest.mark.fio
@pytest.mark.parametrize("case", list(RUNS))
def test_real_fio_runs_the_rendered_job_file(case, tmp_path, volumes):
    require_fio()
    workload, options = RUNS[case]
    jobfile = tmp_path / f"{workload.name}.fio"
    jobfile.write_text(render_fio_jobfile(workload, volumes, host="vm1", **options))
    result = tmp_path / "out.json"
    argv = render_fio_command(workload, volumes, jobfile=str(jobfile), output=str(result), fio=FIO)
    _run(argv, tmp_path)
    doc = json.loads(result.read_text())
    jobs = doc["jobs"]
    points = workload.points()
    # one reporting group per load point, named after it, in order
    assert [j["jobname"] for j in jobs] == [workload.point_name(p) for p in points]
    assert [j["groupid"] for j in jobs] == list(range(len(points)))
    for job, point in zip(jobs, points, strict=True):
        did_read = job["read"]["total_ios"] > 0
        did_write = job["write"]["total_ios"] > 0
        assert (did_read, did_write) == (point.read_pct > 0, point.read_pct < 100)
    # both volumes got their files, named per client
    for v in volumes:
        names = sorted(p.name for p in Path(v).iterdir())
        assert names and all(n.startswith("file-vm1.") for n in names)
    if case == "curve":
        # rate_iops per clone = pct x max / (1 host x 2 volumes x 2 threads)
        caps = [
            int(dict(o)["rate_iops"]) for n, o in fio_sections(workload, volumes, **options)[1::2]
        ]
        assert caps == [50, 100]
        for job, cap in zip(jobs, caps, strict=True):
            # 2 volumes x 2 clones at `cap` IOPS each; fio's own accounting over ~1 s
            assert job["read"]["iops"] <= 4 * cap * 1.25
    if case == "fill":
        # a fill writes each 2 MiB file once and stops: 2 volumes x 2 MiB
        assert jobs[0]["write"]["io_bytes"] == 2 * 2 * 2**20


@pytest.mark.fio
def test_real_fio_runs_the_inline_command_line(tmp_path, volumes):
    require_fio()
    workload = _tiny(CATALOGUE["RndReadQD"], iodepth=(1, 4), numjobs=2)
    argv = render_fio_command(workload, volumes, output=str(tmp_path / "o.json"), fio=FIO)
    _run(argv, tmp_path)
    jobs = json.loads((tmp_path / "o.json").read_text())["jobs"]
    assert [j["jobname"] for j in jobs] == ["RndReadQD-qd1", "RndReadQD-qd4"]
    assert [j["job options"]["iodepth"] for j in jobs] == ["1", "4"]
    # json+ carries the latency histogram the ingest merges percentiles from
    assert jobs[0]["read"]["clat_ns"]["bins"]


def _catalogue_kw(w):
    return {"max_iops": 100000} if w.rate_kind == "curve" else {}


@pytest.mark.fio
def test_fio_parses_every_catalogue_job_file(tmp_path, volumes):
    require_fio()
    files = []
    for name, w in CATALOGUE.items():
        path = tmp_path / f"{name}.fio"
        path.write_text(
            render_fio_jobfile(
                w, volumes, host="vm1", n_hosts=2, log_prefix="logs/x", **_catalogue_kw(w)
            )
        )
        files.append(str(path))
    proc = _run([FIO, "--parse-only", *files], tmp_path)
    assert "Bad option" not in proc.stderr


@pytest.mark.fio
def test_fio_parses_every_catalogue_command_line(tmp_path, volumes):
    require_fio()
    for w in CATALOGUE.values():
        argv = render_fio_command(w, volumes, fio=FIO, host="vm1", **_catalogue_kw(w))
        # --parse-only must come before the first --name, or fio takes it for a job option
        # and runs the job
        _run([argv[0], "--parse-only", *argv[1:]], tmp_path, timeout=10)
    assert not any(list(Path(v).iterdir()) for v in volumes)  # nothing ran


def test_fio_rejects_something_wrong_so_parse_only_means_something(tmp_path):
    require_fio()
    bad = tmp_path / "bad.fio"
    bad.write_text(render_fio_jobfile(CATALOGUE["RndRead"], ["/mnt/a"]) + "bogus_option=1\n")
    proc = subprocess.run(
        [FIO, "--parse-only", str(bad)], capture_output=True, text=True, timeout=10
    )
    assert proc.returncode != 0


def test_fixed_rate_is_split_over_hosts_volumes_and_clones_by_direction():
    w = CATALOGUE["RndMix"].replace(rate=10000, threads=5)  # 50 % reads
    sections = fio_sections(w, ["/mnt/a", "/mnt/b"], n_hosts=4)
    opts = dict(sections[1][1])
    # 10000 / (4 hosts x 2 volumes x 5 threads) = 250 per clone, half reads, half writes
    assert opts["rate_iops"] == "125,125"
    w = CATALOGUE["RndRead"].replace(rate=1000, threads=3)
    assert dict(fio_sections(w, ["/mnt/a"])[1][1])["rate_iops"] == "334"  # rounded up


def test_curve_needs_the_measured_maximum():
    with pytest.raises(WorkloadError, match="max_iops"):
        render_fio_jobfile(CATALOGUE["RndReadCurve"], ["/mnt/a"])


def test_vdbench_threads_share_one_file_per_volume_in_slices():
    w = CATALOGUE["SeqWrite"].replace(file_size_gib=1)
    glob, first = fio_sections(w, ["/mnt/a"], host="vm3")[:2]
    g = dict(glob[1])
    assert g["filesize"] == "1g" and g["filename_format"] == "file-vm3.$filenum"
    # 26 threads: each its own 64 KiB-aligned slice of the 1 GiB file
    o = dict(first[1])
    # 1 GiB = 16384 blocks of 64 KiB; 16384 // 26 = 630 blocks = 40320 KiB per thread
    assert o["numjobs"] == "26" and o["size"] == o["offset_increment"] == "40320k"


@pytest.mark.parametrize(
    "volumes, kw",
    [
        (["/mnt/a:/mnt/b"], {}),
        (["/mnt/a b"], {}),
        (["/mnt/$(id)"], {}),
        (["/mnt/a"], {"host": "vm1;id"}),
        (["/mnt/a"], {"log_prefix": "/tmp/x y"}),
        (["/mnt/a"], {"n_hosts": 0}),
    ],
)
def test_unsafe_inputs_are_refused(volumes, kw):
    with pytest.raises(WorkloadError):
        render_fio_jobfile(CATALOGUE["RndRead"], volumes, **kw)


def test_command_line_survives_a_shell_round_trip():
    argv = render_fio_command(
        CATALOGUE["RndMix4kSweep"], ["/mnt/vdb1", "/mnt/vdb2"], host="vm-1.example"
    )
    # '$jobnum' would be expanded by a shell: the displayed form quotes it
    assert shlex.split(shlex.join(argv)) == argv
    assert "'--filename_format=file-vm-1.example.$jobnum.$filenum'" in shlex.join(argv)
