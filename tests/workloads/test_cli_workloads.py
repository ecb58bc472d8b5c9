"""`anfperf workloads`: list the catalogue, render it to files."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from anfperf.cli import main
from anfperf.workloads import CATALOGUE, dump_workloads, load_workloads


def test_list_shows_every_catalogue_workload(capsys):
    assert main(["workloads"]) == 0
    out = capsys.readouterr().out
    for name in CATALOGUE:
        assert f"\n{name} " in out
    assert "threads 26/32/40" in out and "qd 128 x 4 jobs" in out
    assert f"{len(CATALOGUE)} workloads" in out


def test_render_one_to_stdout_with_hosts_and_volumes(capsys):
    argv = ["workloads", "SeqMix", "--host", "10.0.0.4", "--host", "10.0.0.5", "--user", "root"]
    assert main([*argv, "--volume", "/mnt/vdb1", "--volume", "/mnt/vdb2"]) == 0
    out = capsys.readouterr().out
    assert "hd=vm2,system=10.0.0.5,user=root" in out
    assert "sd=sd-2-2,host=vm2,lun=/mnt/vdb2/file-2-2,openflags=o_direct" in out
    assert 'rd=SeqMix-7,wd=SeqMix,sd=("sd*"),threads=7' in out


def test_render_all_for_vdbench_into_a_folder(tmp_path, capsys):
    assert main(["workloads", "--out", str(tmp_path), "--volume", "/mnt/vdb1"]) == 0
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == sorted(f"{n}.parm" for n in CATALOGUE)
    assert (
        "wd=FillWrite,sd=sd*,rdpct=0,seekpct=eof,xfersize=64k"
        in (tmp_path / "FillWrite.parm").read_text()
    )
    assert capsys.readouterr().out.count("wrote ") == len(CATALOGUE)


@pytest.mark.fio
def test_render_all_for_fio_per_host_and_fio_parses_them(tmp_path, capsys):
    fio = shutil.which("fio")
    if fio is None:
        pytest.fail("fio is not installed: `make sysdeps` installs it")
    out = tmp_path / "jobs"
    code = main(["workloads", "--tool", "fio", "--out", str(out), "--host", "a", "--host", "b"])
    # the load curve needs --max-iops: skipped, reported, exit status 1; the rest is written
    assert code == 1
    assert "skipped RndReadCurve" in capsys.readouterr().err
    files = sorted(out.iterdir())
    assert len(files) == 2 * (len(CATALOGUE) - 1)
    proc = subprocess.run(
        [fio, "--parse-only", *map(str, files)], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    assert main(["workloads", "RndReadCurve", "--tool", "fio", "--max-iops", "50000"]) == 0
    assert "rate_iops=313" in capsys.readouterr().out  # 10 % of 50000 / 16 threads, rounded up


def test_render_diskspd_command_lines(capsys):
    assert main(["workloads", "MaxWriteIops8k", "--tool", "diskspd", "--volume", "T:"]) == 0
    out = capsys.readouterr().out
    assert out == "diskspd -c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh -L -Rxml T:\\file-1-1.dat\n"


def test_users_yaml_and_yaml_export(tmp_path, capsys):
    mine = tmp_path / "mine.yml"
    dump_workloads(CATALOGUE["RndRead"].replace(name="MyRead", threads=3), mine)
    assert main(["workloads", "MyRead", "--file", str(mine)]) == 0
    assert "rd=MyRead,wd=MyRead" in capsys.readouterr().out
    assert main(["workloads", "--tool", "yaml", "--out", str(tmp_path / "y")]) == 0
    capsys.readouterr()
    assert load_workloads(tmp_path / "y" / "workloads.yml") == list(CATALOGUE.values())


@pytest.mark.parametrize(
    "argv, words",
    [
        (["workloads", "RandRead"], "did you mean RndRead"),
        (["workloads", "RndRead", "--volume", "/mnt/$(reboot)"], "not a usable path"),
        (["workloads", "RndRead", "--volume", "/mnt/a;b"], "not a usable path"),
        (["workloads", "RndRead", "--host", "vm1 && reboot"], "not a valid host"),
        (["workloads", "FillWrite", "--tool", "diskspd"], "DiskSpd cannot stop"),
        (["workloads", "--file", "/nonexistent/mine.yml"], "no such file"),
    ],
)
def test_bad_requests_exit_2_with_a_clear_error(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("anfperf: error:") and words in err


@pytest.mark.parametrize("tool", ["fio", "vdbench"])
@pytest.mark.parametrize("names", [["RndRead"], []])
def test_a_relative_volume_is_refused_once_as_anfperf_run_refuses_it(tool, names, tmp_path,
                                                                      capsys):  # fmt: skip
    out = tmp_path / "out"
    argv = ["workloads", *names, "--tool", tool, "--volume", "/mnt/vdb1", "--volume", "data/x"]
    assert main([*argv, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "anfperf: error: --volume 'data/x': not an absolute path (the mount point on the "
        "clients, e.g. /mnt/vdb1, as anfperf run takes it)\n"
    )
    assert captured.out == "" and not out.exists()  # nothing rendered with directory=data/x


def test_tool_options_are_offered_in_place_and_the_tools_load_only_for_workloads():
    """Each tool's own options (Vdbench's --user, --vdbench-dir) come from its adapter when
    `anfperf workloads` is parsed, at their place in the help; other commands (and
    `anfperf --version`) do not load the tools."""
    code = (
        "import sys\n"
        "from anfperf.cli import build_parser\n"
        "parser = build_parser()\n"
        "parser.parse_args(['runs', 'store'])\n"
        "assert 'anfperf.tools' not in sys.modules, 'loaded without need'\n"
        "args = parser.parse_args(['workloads', '--user', 'bench', '--vdbench-dir', '/opt/v'])\n"
        "assert 'anfperf.tools' in sys.modules\n"
        "print(args.user, args.vdbench_dir, args.max_iops)\n"
        "parser.parse_args(['workloads', '--help'])\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    out = run.stdout
    first, usage = out.split("\n", 1)
    assert first == "bench /opt/v None"
    flags = [w for w in usage.split() if w.startswith("--")]
    assert flags[flags.index("--volume") + 1 :][:4] == [
        "--user", "--vdbench-dir", "--max-iops", "--verbose"
    ]  # fmt: skip


@pytest.mark.parametrize(("tool", "volume"), [("fio", "/mnt/a;b"), ("vdbench", "/mnt/$x"),
                                              ("diskspd", "T:;x")])  # fmt: skip
def test_an_unusable_volume_is_refused_once_before_any_workload(tool, volume, tmp_path, capsys):
    """Every workload was skipped with the same sentence (24 lines, exit 1): one line, exit 2."""
    out = tmp_path / "out"
    assert main(["workloads", "--tool", tool, "--volume", volume, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"anfperf: error: --volume: {volume!r} is not a usable path")
    assert err.count("\n") == 1 and not out.exists()
