"""Vdbench parameter files: golden tests against the seed's text and real Vdbench inputs.

Two references:

- the seed, the example script of MicrosoftDocs/azure-docs
  articles/azure-netapp-files/azure-netapp-files-performance-benchmarks.md: its ``echo`` lines
  are copied below as facts (parameter lines, not code) and expanded for its 24 VMs x 6 volumes
  exactly as its loops do;
- ../shared/corpus/vdbench/parm/*, parameter files that real Vdbench 5.04.05 runs accepted
  (read in place): a rendering equivalent to one of them is known-good Vdbench input.

Equivalence is Vdbench's own: comments and blank lines do not count, ``include=`` is textual,
``xx=default`` lines set defaults for the definitions after them, the order of ``key=value``
pairs within a definition does not matter, ``forthreads`` with one value is ``threads``, an
absent ``interval`` is Vdbench's default of 1 second, and an rd's ``sd=`` that repeats its wd's
``sd=`` changes nothing.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from anfperf.tools import render_vdbench
from anfperf.workloads import CATALOGUE, WorkloadError
from tests.conftest import CORPUS, require_corpus, vdbench_launcher

PARM = CORPUS / "vdbench" / "parm"

# -- the seed (azure-netapp-files-performance-benchmarks.md, "Example scripts") --------------
SEED_VMS, SEED_VOLUMES = 24, 6  # "for vm in {1..24}", "for vol in {1..6}"
SEED_HD_DEFAULT = "hd=default,jvms=1,shell=ssh"
SEED_HD = "hd=vm{vm},system=vdbench-vnet1-{vm},user=root"
SEED_SD_DEFAULT = "sd=default,size=693g"
SEED_SD = "sd=sd-{vm}-{vol},host=vm{vm},lun=/mnt/vdb{vol}/file-{vm}-{vol},openflags=o_direct"
SEED_RUN_DEFAULTS = ["* Run Defaults", "rd=default,warmup=60,elapsed=600,iorate=max"]
SEED_WORKLOADS = {
    "FillWrite": [
        "wd=FillWrite,sd=sd*,rdpct=0,seekpct=eof,xfersize=64k",
        "* Run Defaults",
        'rd=Initialize-LUNs-Full,wd=FillWrite,sd=("sd*"),iorate=max,interval=1,forthreads=1,'
        "elapsed=259200",
    ],
    "SeqWrite": [
        "wd=SeqWrite,sd=sd*,rdpct=0,seekpct=0,xfersize=64k",
        *SEED_RUN_DEFAULTS,
        "* Run Definitions",
        'rd=SeqWrite-26,wd=SeqWrite,sd=("sd*"),threads=26',
        'rd=SeqWrite-32,wd=SeqWrite,sd=("sd*"),threads=32',
        'rd=SeqWrite-40,wd=SeqWrite,sd=("sd*"),threads=40',
    ],
    "SeqRead": [
        "wd=SeqRead,sd=sd*,rdpct=100,seekpct=0,xfersize=64k",
        *SEED_RUN_DEFAULTS,
        "* Run Definitions",
        'rd=SeqRead-4,wd=SeqRead,sd=("sd*"),threads=20',
    ],
    "RndRead": [
        "wd=RndRead,sd=sd*,rdpct=100,seekpct=100,xfersize=8k",
        *SEED_RUN_DEFAULTS,
        "* Run Definitions",
        'rd=RndRead,wd=RndRead,sd=("sd*"),threads=25',
    ],
    "RndWrite": [
        "wd=RndWrite,sd=sd*,rdpct=0,seekpct=100,xfersize=8k",
        *SEED_RUN_DEFAULTS,
        "* Run Definitions",
        'rd=RndWrite,wd=RndWrite,sd=("sd*"),threads=20',
    ],
    "SeqMix": [
        "wd=SeqMix,sd=sd*,rdpct=50,seekpct=0,xfersize=64k",
        *SEED_RUN_DEFAULTS,
        "* Run Definitions",
        'rd=SeqMix-6,wd=SeqMix,sd=("sd*"),threads=6',
        'rd=SeqMix-7,wd=SeqMix,sd=("sd*"),threads=7',
    ],
    "RndMix": [
        "wd=RndMix,sd=sd*,rdpct=50,seekpct=100,xfersize=8k",
        *SEED_RUN_DEFAULTS,
        "* Run Definitions",
        'rd=RndMix,wd=RndMix,sd=("sd*"),threads=25',
    ],
}
SEED_HOSTS = [f"vdbench-vnet1-{vm}" for vm in range(1, SEED_VMS + 1)]
SEED_MOUNTS = [f"/mnt/vdb{vol}" for vol in range(1, SEED_VOLUMES + 1)]


def seed_files(pattern: str) -> dict[str, str]:
    """The seed's three files for one pattern, as its loops write them."""
    hosts = [SEED_HD_DEFAULT] + [SEED_HD.format(vm=vm) for vm in range(1, SEED_VMS + 1)]
    luns = [SEED_SD_DEFAULT] + [
        SEED_SD.format(vm=vm, vol=vol)
        for vm in range(1, SEED_VMS + 1)
        for vol in range(1, SEED_VOLUMES + 1)
    ]
    workload = ["include=vnet1-hosts-nfs", "include=vnet1-luns-nfs", *SEED_WORKLOADS[pattern]]
    return {
        "vnet1-hosts-nfs": "\n".join(hosts) + "\n",
        "vnet1-luns-nfs": "\n".join(luns) + "\n",
        f"vnet1-{pattern}-workload": "\n".join(workload) + "\n",
    }


# -- Vdbench's notion of "the same parameters" -------------------------------------------------
def _pairs(line: str) -> list[tuple[str, str]]:
    """key=value pairs of one definition, split on commas outside (...) and quotes."""
    parts, depth, quote, cur = [], 0, False, ""
    for ch in line:
        if ch == '"':
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth -= 1
        if ch == "," and depth == 0 and not quote:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out = []
    for part in parts:
        key, _, value = part.strip().partition("=")
        out.append((key.strip().lower(), value.strip()))
    return out


def _value(value: str) -> str | tuple[str, ...]:
    value = value.strip()
    if value.startswith("(") and value.endswith(")"):
        items = tuple(v.strip().strip('"') for v in value[1:-1].split(","))
        return items[0] if len(items) == 1 else items
    return value.strip('"')


def normalize(text: str, files: dict[str, str] | None = None) -> list[tuple[str, str, dict]]:
    """Definitions in order, defaults applied: [(kind, name, {key: value}), ...]."""
    lines: list[str] = []

    def add(chunk: str) -> None:
        for raw in chunk.splitlines():
            line = raw.strip()
            if not line or line.startswith(("*", "#")):
                continue
            if line.startswith("include="):
                add(files[line.split("=", 1)[1]])
                continue
            lines.append(line)

    add(text)
    defaults: dict[str, dict] = {}
    defs: list[tuple[str, str, dict]] = []
    for line in lines:
        (kind, name), *rest = _pairs(line)
        params = {k: _value(v) for k, v in rest}
        if name == "default":
            defaults.setdefault(kind, {}).update(params)
            continue
        merged = {**defaults.get(kind, {}), **params}
        if kind == "rd":
            if "forthreads" in merged and isinstance(merged["forthreads"], str):
                merged["threads"] = merged.pop("forthreads")
            merged.setdefault("interval", "1")
            wd_sd = next((d["sd"] for k, n, d in defs if k == "wd" and n == merged["wd"]), None)
            if merged.get("sd") == wd_sd:
                del merged["sd"]
        defs.append((kind, name, merged))
    return defs


# -- the seed ------------------------------------------------------------------------------------
@pytest.mark.parametrize("pattern", list(SEED_WORKLOADS))
def test_seed_workloads_render_to_the_seed_parameters(pattern):
    files = seed_files(pattern)
    rendered = render_vdbench(CATALOGUE[pattern], SEED_MOUNTS, SEED_HOSTS, user="root")
    seed = normalize(files[f"vnet1-{pattern}-workload"], files)
    assert normalize(rendered) == seed
    # 1 + 24 hd, 1 + 144 sd, 1 wd: the fleet layout is the seed's, line for line
    seed_lines = set("".join(files.values()).splitlines()) | set(SEED_WORKLOADS[pattern])
    for line in rendered.splitlines():
        if line.startswith(("hd=", "sd=", "wd=")):
            assert line in seed_lines, line
    assert sum(line.startswith("sd=sd-") for line in rendered.splitlines()) == 24 * 6


def test_seed_thread_counts_and_timing():
    # the summary of the seed, checked against the catalogue
    threads = {n: CATALOGUE[n].threads for n in SEED_WORKLOADS}
    assert threads == {
        "FillWrite": (1,),
        "SeqWrite": (26, 32, 40),
        "SeqRead": (20,),
        "RndRead": (25,),
        "RndWrite": (20,),
        "SeqMix": (6, 7),
        "RndMix": (25,),
    }
    for name in set(SEED_WORKLOADS) - {"FillWrite"}:
        assert (CATALOGUE[name].warmup_s, CATALOGUE[name].duration_s) == (60, 600)


def test_normalize_notices_a_difference():
    # the comparison is not vacuous: one changed value or one missing run is caught
    files = seed_files("SeqWrite")
    good = render_vdbench(CATALOGUE["SeqWrite"], SEED_MOUNTS, SEED_HOSTS, user="root")
    seed = normalize(files["vnet1-SeqWrite-workload"], files)
    assert normalize(good.replace("threads=40", "threads=41")) != seed
    assert normalize(good.replace("xfersize=64k", "xfersize=8k")) != seed
    assert normalize("\n".join(good.splitlines()[:-1])) != seed
    other = render_vdbench(CATALOGUE["SeqWrite"].replace(warmup_s=30), SEED_MOUNTS, SEED_HOSTS)
    assert normalize(other) != seed


# -- real Vdbench inputs (../shared/corpus/vdbench/parm) -----------------------------------------
CORPUS_MOUNTS = ["/mnt/vdb1", "/mnt/vdb2"]
#: The corpus runs are the seed's workloads scaled down: size=256m per sd, and the short
#: warmup/elapsed read off each parm file; the curve and thread-sweep runs use wd=RndRead.
SMALL = {"file_size_gib": 0.25}
CORPUS_CASES = {
    "FillWrite": (CATALOGUE["FillWrite"].replace(duration_s=600, **SMALL), {}),
    "RndRead": (CATALOGUE["RndRead"].replace(warmup_s=2, duration_s=8, **SMALL), {}),
    "RndWrite": (CATALOGUE["RndWrite"].replace(warmup_s=2, duration_s=8, **SMALL), {}),
    "RndMix": (CATALOGUE["RndMix"].replace(warmup_s=2, duration_s=8, **SMALL), {}),
    "SeqRead": (CATALOGUE["SeqRead"].replace(warmup_s=2, duration_s=8, **SMALL), {}),
    "SeqWrite": (CATALOGUE["SeqWrite"].replace(warmup_s=2, duration_s=6, **SMALL), {}),
    "SeqMix": (CATALOGUE["SeqMix"].replace(warmup_s=2, duration_s=6, **SMALL), {}),
    "RndReadCurve": (
        CATALOGUE["RndReadCurve"].replace(name="RndRead", warmup_s=2, duration_s=6, **SMALL),
        {},
    ),
    "RndReadThreads": (
        CATALOGUE["RndReadThreads"].replace(name="RndRead", warmup_s=1, duration_s=5, **SMALL),
        {},
    ),
    "MultiHostSeqMix": (
        CATALOGUE["SeqMix"].replace(warmup_s=2, duration_s=6, **SMALL),
        {"hosts": ["10.250.0.2", "10.250.0.3"], "user": "root", "vdbench_dir": "/opt/vdbench"},
    ),
}
#: File-system workloads (fsd=/fwd=) are not part of the seed and not rendered by anfperf.
NOT_RENDERED = {"FileSysSeq"}


def test_every_corpus_parm_file_is_covered():
    require_corpus(PARM)
    assert {p.name for p in PARM.iterdir()} == set(CORPUS_CASES) | NOT_RENDERED


@pytest.mark.parametrize("case", list(CORPUS_CASES))
def test_rendering_matches_parameters_real_vdbench_accepted(case):
    require_corpus(PARM)
    workload, options = CORPUS_CASES[case]
    real = (PARM / case).read_text()
    rendered = render_vdbench(workload, CORPUS_MOUNTS, options.get("hosts"), **{
        k: v for k, v in options.items() if k != "hosts"
    })  # fmt: skip
    assert normalize(rendered) == normalize(real)
    # the storage definitions are the corpus's, verbatim
    real_sd = [ln for ln in real.splitlines() if ln.startswith(("hd=", "sd="))]
    assert [ln for ln in rendered.splitlines() if ln.startswith(("hd=", "sd="))] == real_sd


# -- sweeps, rates, options ----------------------------------------------------------------------
def test_read_sweep_renders_forrdpct_and_fixed_rate_renders_iorate():
    w = CATALOGUE["RndMix4kSweep"]
    text = render_vdbench(w, ["/mnt/vdb1"])
    (wd,) = [d for d in normalize(text) if d[0] == "wd"]
    assert "rdpct" not in wd[2] and wd[2]["xfersize"] == "4k"
    (rd,) = [d for d in normalize(text) if d[0] == "rd"]
    assert rd[2]["forrdpct"] == tuple(str(p) for p in range(100, -1, -10))
    # iodepth x numjobs becomes Vdbench threads: 128 x 4
    assert rd[2]["threads"] == "512"
    fixed = render_vdbench(CATALOGUE["RndRead"].replace(rate=5000), ["/mnt/vdb1"])
    assert normalize(fixed)[-1][2]["iorate"] == "5000"


def test_buffered_workload_has_no_o_direct_and_sizes_are_binary():
    w = CATALOGUE["RndRead"].replace(direct=False, bs_kib=0.5, file_size_gib=1.5)
    text = render_vdbench(w, ["/mnt/vdb1"])
    assert "openflags" not in text
    (wd,) = [line for line in text.splitlines() if line.startswith("wd=")]
    assert wd.endswith(",xfersize=512")  # 0.5 KiB: bytes, as Vdbench reads a bare number
    assert "sd=default,size=1536m" in text


@pytest.mark.parametrize(
    "volumes, hosts, field",
    [
        (["/mnt/vdb1,size=1t"], None, "volumes"),
        (["/mnt/my vol"], None, "volumes"),
        (["/mnt/$(reboot)"], None, "volumes"),
        (["-rf"], None, "volumes"),
        ([], None, "volumes"),
        (["/mnt/vdb1"], ["vm1;reboot"], "hosts"),
        (["/mnt/vdb1"], ["vm 1"], "hosts"),
        (["/mnt/vdb1", "/mnt/vdb1"], None, "volumes"),
    ],
)
def test_unsafe_volumes_and_hosts_are_refused(volumes, hosts, field):
    with pytest.raises(WorkloadError) as info:
        render_vdbench(CATALOGUE["RndRead"], volumes, hosts)
    assert info.value.field == field


def test_unsafe_user_and_install_folder_are_refused():
    with pytest.raises(WorkloadError, match="user"):
        render_vdbench(CATALOGUE["RndRead"], ["/mnt/a"], ["h1"], user="root,system=evil")
    with pytest.raises(WorkloadError, match="vdbench_dir"):
        render_vdbench(CATALOGUE["RndRead"], ["/mnt/a"], ["h1"], vdbench_dir="/opt/v d")


def test_description_cannot_break_out_of_a_comment():
    w = CATALOGUE["RndRead"].replace(description="line one\nrd=evil,wd=x")
    text = render_vdbench(w, ["/mnt/a"])
    assert not any(line.startswith("rd=evil") for line in text.splitlines())


# -- real Vdbench, when the user has one ---------------------------------------------------------
@pytest.mark.vdbench
def test_rendered_file_runs_in_real_vdbench(tmp_path):
    launcher = vdbench_launcher()
    mounts = [tmp_path / "vdb1", tmp_path / "vdb2"]
    for m in mounts:
        m.mkdir()
    w = CATALOGUE["RndMix"].replace(
        threads=2, warmup_s=1, duration_s=3, file_size_gib=16 / 1024, direct=False
    )
    parm = tmp_path / "RndMix.parm"
    parm.write_text(render_vdbench(w, [str(m) for m in mounts]))
    out = tmp_path / "out"
    proc = subprocess.run(
        [str(launcher), "-f", str(parm), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert re.search(r"avg_\d", (out / "summary.html").read_text())


def test_file_sizes_are_whole_mib_as_vdbench_makes_them():
    # 0.004 GiB = 4.096 MiB rendered as 4294967 bytes made Vdbench create 4 MiB, and the next
    # run on that file failed with "lun ... does not exist or is too small"
    text = render_vdbench(CATALOGUE["RndRead"].replace(file_size_gib=0.004), ["/mnt/a"])
    assert "sd=default,size=4m" in text
    assert "rounded to whole MiB" in text
    one_block = CATALOGUE["SeqWrite"].replace(bs_kib=2560, file_size_gib=2.5 / 1024)
    assert "sd=default,size=3m" in render_vdbench(one_block, ["/mnt/a"])  # not 2m < 2.5 MiB
    exact = render_vdbench(CATALOGUE["RndRead"].replace(file_size_gib=693), ["/mnt/a"])
    assert "size=693g" in exact and "rounded" not in exact


@pytest.mark.vdbench
def test_a_file_size_of_no_whole_mib_runs_again_on_the_same_file(tmp_path):
    launcher = vdbench_launcher()
    mount = tmp_path / "vdb1"
    mount.mkdir()
    w = CATALOGUE["RndRead"].replace(
        threads=1, warmup_s=0, duration_s=2, interval_s=1, file_size_gib=0.004, direct=False
    )
    parm = tmp_path / "RndRead.parm"
    parm.write_text(render_vdbench(w, [str(mount)]))
    for attempt in ("first", "again"):  # again: what --resume or the next run on the volume does
        proc = subprocess.run(
            [str(launcher), "-f", str(parm), "-o", str(tmp_path / attempt)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (lun,) = mount.iterdir()
    assert lun.stat().st_size == 4 * 2**20
