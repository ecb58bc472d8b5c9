"""The anfperf command on real outputs: summary, saved frames, bad files reported."""

from __future__ import annotations

import os
import re
import shutil

import pandas as pd
import pyarrow.dataset as ds
import pytest

from anfperf.cli import main
from anfperf.ingest import read_many
from tests.conftest import CORPUS, DATA, PUBLIC, require_corpus

DISKSPD = PUBLIC / "diskspd" / "d01_pkb_2.0.21a.xml"


@pytest.fixture
def two_runs(tmp_path):
    require_corpus()
    a = tmp_path / "in" / "runA.xml"
    b = tmp_path / "in" / "runB.xml"
    a.parent.mkdir()
    shutil.copy(DISKSPD, a)
    shutil.copy(DISKSPD, b)
    return a, b


def test_ingest_prints_summary_and_saves_csv(two_runs, tmp_path, capsys):
    out = tmp_path / "frame.csv"
    assert main(["ingest", str(two_runs[0]), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "pkb-044ffc87-0" in printed and "3030" in printed  # 90970 I/Os / 30.02 s
    saved = pd.read_csv(out)
    assert set(saved["direction"]) == {"read", "total"}
    assert saved["iops"].iloc[0] == pytest.approx(read_many([two_runs[0]])["iops"].iloc[0])


def test_parquet_file_round_trips_dtypes(two_runs, tmp_path):
    out = tmp_path / "frame.parquet"
    assert main(["ingest", str(two_runs[0]), "--out", str(out)]) == 0
    back = pd.read_parquet(out)
    direct = read_many([two_runs[0]])
    assert back.dtypes.equals(direct.dtypes)
    pd.testing.assert_frame_equal(back.drop(columns="lat_bins"), direct.drop(columns="lat_bins"))


def test_dataset_folder_grows_run_by_run_and_replaces_a_rerun(two_runs, tmp_path):
    store = tmp_path / "store"
    a, b = two_runs
    assert main(["ingest", str(a), "--out", str(store)]) == 0
    assert main(["ingest", str(b), "--out", str(store)]) == 0
    assert main(["ingest", str(a), "--out", str(store)]) == 0  # run A again: replaced, not doubled
    assert sorted(p.name for p in store.glob("run_id=*")) == ["run_id=runA", "run_id=runB"]
    frame = pd.read_parquet(store)  # pandas reads the hive layout as it is
    assert frame.groupby("run_id", observed=True).size().to_dict() == {"runA": 2, "runB": 2}
    table = ds.dataset(store, partitioning="hive").to_table()
    assert table.num_rows == 4


def test_bad_file_is_reported_and_the_rest_kept(two_runs, tmp_path, capsys):
    bad = two_runs[0].parent / "broken.xml"
    bad.write_text("<Results><System>")
    out = tmp_path / "frame.csv"
    assert main(["ingest", str(two_runs[0].parent), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "broken.xml" in err and "not well-formed" in err
    assert set(pd.read_csv(out)["run_id"]) == {"runA", "runB"}


def test_unknown_output_type_is_a_clear_error(two_runs, tmp_path, capsys):
    assert main(["ingest", str(two_runs[0]), "--out", str(tmp_path / "x.xlsx")]) == 2
    assert "unknown output type" in capsys.readouterr().err


def test_summary_shows_the_cross_host_aggregate_of_a_multi_host_run(capsys):
    from tests.conftest import DATA

    assert main(["ingest", str(DATA / "vdbench" / "MultiHostSeqMix")]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "SeqMix-" in ln]
    assert len(lines) == 2 and all(" all " in ln for ln in lines)  # not vm1/vm2 as well


def test_hostile_file_name_round_trips_through_the_dataset(tmp_path):
    from tests.conftest import DATA

    name = "a b=c;$(touch pwned)%2F'q\""
    (tmp_path / "in").mkdir()
    shutil.copy(DATA / "fio" / "randread_qd4.json", tmp_path / "in" / f"{name}.json")
    assert main(["ingest", str(tmp_path / "in"), "--out", str(tmp_path / "store")]) == 0
    assert [p.name for p in (tmp_path / "store").glob("run_id=*")] == [
        "run_id=a%20b%3Dc%3B%24%28touch%20pwned%29%252F%27q%22"
    ]
    assert list(pd.read_parquet(tmp_path / "store")["run_id"].unique()) == [name]
    from anfperf.store import list_runs, load_store

    assert list(list_runs(tmp_path / "store")["run_id"]) == [name]  # DuckDB decodes it too
    assert set(load_store(tmp_path / "store", run_ids=[name])["run_id"]) == {name}
    assert not (tmp_path / "pwned").exists() and not os.path.exists("pwned")


# --- a newcomer's path: help, options, errors in the words typed (issue 25, items 4 and 7) ---

COMMANDS = ["ingest", "demo", "runs", "preflight", "run", "workloads", "plan", "report"]
PLAN = ["plan", "--bw-mib-s", "4500", "--bs-kib", "64", "--lat-slo-ms", "2"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_percent_signs_once(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "%%" not in out
    if command in ("plan", "demo"):
        assert " %" in out  # read %, 10 % steps: the sign itself is there


@pytest.fixture
def three_runs(tmp_path, capsys):
    from tests.conftest import DATA

    (tmp_path / "in").mkdir()
    for name in ("r1", "r2", "r3"):
        shutil.copy(DATA / "fio" / "randread_qd4.json", tmp_path / "in" / f"{name}.json")
    store = str(tmp_path / "store")
    assert main(["ingest", str(tmp_path / "in"), "--out", store]) == 0
    capsys.readouterr()
    return store


def test_runs_max_rows(three_runs, capsys):
    assert main(["runs", three_runs, "--max-rows", "1"]) == 0
    out = capsys.readouterr().out
    assert "r1" in out and "r2" not in out and "... 2 more rows" in out
    assert main(["runs", three_runs, "--max-rows", "0"]) == 0  # the totals line alone
    out = capsys.readouterr().out
    assert "Empty DataFrame" not in out and "r1" not in out
    assert out.strip().startswith("3 runs, ")
    with pytest.raises(SystemExit) as done:
        main(["runs", three_runs, "--max-rows", "-1"])
    assert done.value.code == 2
    assert (
        "argument --max-rows: not a whole number within 0 .. 1e+09: '-1'" in capsys.readouterr().err
    )


def test_format_table_refuses_a_negative_row_count():
    from anfperf.analysis.summary import format_table
    from anfperf.errors import AnfperfError

    table = pd.DataFrame({"run_id": ["a", "b"], "iops": [1.0, 2.0]})
    with pytest.raises(AnfperfError, match="max_rows must be a whole number >= 0"):
        format_table(table, max_rows=-1)
    assert format_table(table, max_rows=0) == ""


def test_verbose_after_the_command(three_runs, capsys):
    assert main(["runs", three_runs, "-v"]) == 0
    assert "3 runs" in capsys.readouterr().out
    assert main(["-v", "runs", three_runs]) == 0  # before it, as it always worked


@pytest.mark.parametrize(
    ("argv", "option", "typed", "internal"),
    [
        (["demo", "--file-size-mib", "-1"], "--file-size-mib", "-1", "file_size_gib"),
        (["demo", "--point-s", "-2"], "--point-s", "-2", "duration_s"),
        (["plan", "--bw-mib-s", "0", "--bs-kib", "64"], "--bw-mib-s", "0", "bw_mib_s"),
        (["plan", "--iops", "1e12", "--bs-kib", "4"], "--iops", "1e12", "iops must"),
        (["plan", "--bw-mib-s", "100", "--bs-kib", "0.1"], "--bs-kib", "0.1", "bs_kib"),
        ([*PLAN, "--read-pct", "120"], "--read-pct", "120", "read_pct"),
        ([*PLAN, "--capacity-tib", "-1"], "--capacity-tib", "-1", "capacity_tib"),
        ([*PLAN, "--nconnect", "0"], "--nconnect", "0", "nconnect must"),
        ([*PLAN, "--lat-ms", "nan"], "--lat-ms", "nan", "lat_ms"),
    ],
)
def test_errors_name_the_option_and_the_value_typed(argv, option, typed, internal, capsys):
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    err = capsys.readouterr().err
    *usage, error = err.splitlines()  # argparse: the usage, then one line naming the option
    assert error.startswith(f"anfperf {argv[0]}: error: argument {option}: ")
    assert error.endswith(repr(typed)) and internal not in error and "Traceback" not in err


#: Every option of every command that takes a count, a duration or a size, with a value out of
#: its range, and the range its error names. Each command would do nothing if it ran (a dry
#: run, an output folder no process can make, files that are not there).
NOWHERE = ["--out", "/proc/anfperf-nowhere"]
OUT_OF_RANGE = [
    (["run", "RndRead", "--dry-run", "--parallel", "99999999999999999999"],
     "a whole number within 1 .. 4096"),
    (["run", "RndRead", "--dry-run", "--parallel", "0"], "a whole number within 1 .. 4096"),
    (["run", "RndRead", "--dry-run", "--max-iops", "nan"], "a number within 1 .. 1e+10"),
    (["workloads", "--max-iops", "-5"], "a number within 1 .. 1e+10"),
    (["report", "benchmark", *NOWHERE, "--jobs", "0"], "a whole number within 1 .. 256"),
    (["report", "benchmark", *NOWHERE, "--jobs", "-5"], "a whole number within 1 .. 256"),
    (["report", "benchmark", *NOWHERE, "--jobs", "1e9"], "a whole number within 1 .. 256"),
    (["demo", "--no-measure", *NOWHERE, "--point-s", "1e308"], "a whole number within 1 .. 3600"),
    (["demo", "--no-measure", *NOWHERE, "--point-s", "2.5"], "a whole number within 1 .. 3600"),
    (["demo", "--no-measure", *NOWHERE, "--file-size-mib", "1e9"],
     "a whole number within 1 .. 65536"),
    (["ingest", "nothing.json", "--max-file-mib", "1e308"], "a positive number up to 1048576"),
    (["ingest", "nothing.json", "--max-rows", "1e10"], "a whole number within 0 .. 1e+09"),
    (["runs", "nothing", "--max-rows", "99999999999999999999"], "a whole number within 0 .. 1e+09"),
    ([*PLAN, "--nconnect", "8.5"], "a whole number within 1 .. 16"),
    # before: 1e300 TiB printed as 301 digits, six times; inf the library's 'capacity_tib'
    ([*PLAN, "--capacity-tib", "1e300"], "a number within 0 .. 1048576"),
    ([*PLAN, "--capacity-tib", "inf"], "a number within 0 .. 1048576"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "wanted"), OUT_OF_RANGE, ids=lambda v: "-".join(v)[:40])
def test_counts_and_durations_outside_their_range_name_the_option_and_the_range(
    argv, wanted, capsys
):
    # before: --parallel 1e20, --jobs 0 / -5, --max-iops nan / -5 were taken; --max-file-mib
    # 1e308 an OverflowError (exit 3); --point-s 1e308 'not a whole number above zero'
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2  # before anything ran
    option, typed = argv[-2:]
    *usage, error = capsys.readouterr().err.splitlines()
    assert error == f"anfperf {argv[0]}: error: argument {option}: not {wanted}: {typed!r}"


def test_counts_and_durations_take_their_range_and_whole_numbers_as_written():
    from anfperf.cli import build_parser

    parse = build_parser().parse_args
    assert parse(["demo", "--point-s", "1e1", "--file-size-mib", "65536"]).point_s == 10
    assert parse(["report", "x", "--jobs", "256"]).jobs == 256
    assert parse(["run", "--parallel", "4096.0"]).parallel == 4096
    assert type(parse(["run", "--parallel", "4e3"]).parallel) is int
    assert parse(["runs", "s", "--max-rows", "0"]).max_rows == 0
    assert parse(["ingest", "x", "--max-file-mib", "0.0001"]).max_file_mib == 0.0001
    assert parse(["workloads", "--max-iops", "1e10"]).max_iops == 1e10
    assert parse([*PLAN, "--capacity-tib", "2048"]).capacity_tib == 2048


def test_a_tiny_file_limit_says_the_sizes(tmp_path, capsys):
    from tests.conftest import DATA

    path = DATA / "fio" / "randread_qd4.json"
    assert main(["ingest", str(path), "--max-file-mib", "0.0001"]) == 1
    err = capsys.readouterr().err
    size = f"{path.stat().st_size / 2**20:.3g} MiB"
    assert f"skipped {path}: {size}: more than the limit of 0.0001 MiB given" in err
    assert " 0 MiB" not in err and "by default" not in err


def test_a_file_no_format_claims_is_called_none_of_them(tmp_path, capsys):
    notes = tmp_path / "NOTES.md"
    notes.write_text("# Our runs\n\nWe ran Vdbench and fio on four VMs; see the flatfile.\n")
    assert main(["ingest", str(notes)]) == 1
    err = capsys.readouterr().err
    assert (
        "not fio JSON, Vdbench output, DiskSpd XML, DiskSpd text, a fio log or Azure Monitor "
        "metrics JSON; "
        "it starts '# Our runs'"
    ) in err
    assert "Vdbench flatfile" not in err


def test_readme_counts_the_notebooks():
    from tests.conftest import TESTS

    words = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
    text = (TESTS.parent / "README.md").read_text()
    (word,) = re.findall(r"^(Two|Three|Four|Five|Six) (?:notebooks|reports)\b", text, re.M)
    notebooks = sorted((TESTS.parent / "notebooks").glob("*.ipynb"))
    assert words[word.lower()] == len(notebooks)
    for nb in notebooks:
        assert f"`{nb.name}`" in text


def test_plan_prints_what_to_buy_first_in_100_columns(capsys):
    from anfperf.models import plan

    assert main(PLAN) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "What to buy" and max(map(len, lines)) <= 100
    p = plan(bw_mib_s=4500, bs_kib=64, lat_slo_ms=2)
    block = "\n".join(lines[: lines.index("")])
    for label, value in [("Service level", p.level), ("Volume type", p.volume_type),
                         ("Quota", "35.16 TiB"), ("Throughput limit", "4,500 MiB/s"),
                         ("Client VMs", f"{p.vm_count} x D8ds_v4"),
                         ("Threads per VM", str(p.threads_per_vm)), ("Binds", "volume quota")]:  # fmt: skip
        assert re.search(rf"^  {label} +{re.escape(value)} ", block, re.M), label
    assert "Monthly cost" not in out  # no prices, no cost
    assert "Storage options (first: the plan)" in out
    assert re.search(r"^Service level +Volume type +Quota +Throughput limit \[MiB/s\] +Expected",
                     out, re.M)  # fmt: skip
    for internal in ("pass pattern", "pass lat_ms", "bw_mib_s", "quota_tib", "by within"):
        assert internal not in out


def test_plan_sizes_threads_on_a_sweeps_fitted_curve_and_says_so(capsys):
    import json

    from anfperf._bundled import samples_path

    sweep = samples_path("vdbench", "RndReadThreads")
    args = ["plan", "--iops", "50000", "--bs-kib", "8", "--lat-slo-ms", "1"]
    assert main([*args, "--sweep", str(sweep), "--json"]) == 0
    buy = json.loads(capsys.readouterr().out)["buy"]
    # the measured system runs 50,000 IOPS at 0.089 ms: 5 in flight, not the SLO's 50
    assert buy["threads_per_vm"] == 5 and buy["lat_ms"] == pytest.approx(0.0887, abs=0.002)
    assert buy["threads_basis"].startswith("threads per VM from the fitted curve of the sweep")
    assert main(args) == 0
    assert "Threads per VM by Little's law: 1 ms at the target" in capsys.readouterr().out.replace(
        "\n", " "
    )


def test_plan_prints_the_monthly_cost_with_prices(capsys):
    from anfperf.models import plan

    prices = {"Premium": 0.000202, "Ultra": 0.000269}  # USD per GiB-hour
    assert main([*PLAN, *(f"--price={k}={v}" for k, v in prices.items())]) == 0
    out = capsys.readouterr().out
    cost = plan(bw_mib_s=4500, bs_kib=64, lat_slo_ms=2, prices=prices).storage_options
    cost = cost["cost_usd_month"].iloc[0]
    assert re.search(rf"^  Monthly cost +{cost:,.0f} USD ", out, re.M)
    assert f"for {cost:,.0f} USD a month" in out
    assert re.search(r"^Service +Volume +Quota +Throughput +Pool +Pool cost +Monthly ", out, re.M)


#: The recorded meter names with decoys and VM items (tests/data/azure/make_retail_prices.py).
RETAIL = DATA / "azure" / "retail_prices_anf_vm.json"


def test_plan_ranks_by_the_monthly_cost_of_pool_and_clients_from_retail_prices(capsys):
    import json

    args = ["plan", "--bw-mib-s", "2000", "--bs-kib", "64", "--prices", str(RETAIL),
            "--region", "eastus"]  # fmt: skip
    assert main([*args, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    # by hand, 730 h a month. Flexible: 2,000 MiB/s at most 640 per pool TiB -> 3.125 TiB,
    # a 4 TiB pool: 4 x 1024 GiB x 0.000180 x 730 = 538.2144, plus the throughput beyond the
    # 128 MiB/s baseline: 1,872 x 0.0014 x 730 = 1,913.184 -> 2,451.40 USD. Clients: one
    # D8ds_v4, the cheapest size that carries it, 0.452 x 730 = 329.96 USD -> 2,781.36 USD.
    buy = got["buy"]
    assert (buy["level"], buy["volume_type"], buy["pool_tib"]) == ("Flexible", "regular", 4)
    assert round(buy["pool_cost_usd_month"], 2) == 2451.40
    assert (buy["vm_count"], buy["vm_size"]) == (1, "Standard_D8ds_v4")
    assert round(buy["clients_cost_usd_month"], 2) == 329.96
    assert round(buy["cost_usd_month"], 2) == 2781.36
    # the next option: Ultra, 2,000 / 128 = 15.625 TiB quota in a 16 TiB pool:
    # 16 x 1024 x 0.000538 x 730 = 6,434.65 USD, with the same clients 6,764.61 USD
    options = [o for o in got["storage_options"] if o["feasible"]]
    ultra = options[1]
    assert (ultra["level"], ultra["quota_tib"], ultra["pool_tib"]) == ("Ultra", 15.625, 16)
    assert round(ultra["cost_usd_month"], 2) == 6434.65
    assert round(ultra["total_usd_month"], 2) == 6764.61
    totals = [o["total_usd_month"] for o in options]
    assert totals == sorted(totals)  # the cheapest that meets the target first
    assert "list prices of eastus from retail_prices_anf_vm.json" in got["prices"]
    # the throughput bought is the Flexible volume's limit, and it binds (not the clients)
    bound = {c["constraint"]: (c["bw_mib_s"], c["binding"]) for c in got["constraints"]}
    assert bound["volume throughput (manual QoS)"] == (2000, True)
    assert not any(binds for name, (_, binds) in bound.items() if name.startswith("client"))

    assert main(args) == 0
    out = capsys.readouterr().out
    assert "\nPrices: list prices of eastus from retail_prices_anf_vm.json" in out
    assert re.search(r"^  Monthly cost +2,781 USD +4 TiB pool 2,451 \+ 1 x D8ds_v4 330 USD", out,
                     re.M)  # fmt: skip
    # each option's expected mean latency at the target before "yes" (both at their limit)
    assert re.search(r"^Flexible +regular +50 GiB .* 4 +2,451 +2,781 +at the limit; +yes$",
                     out, re.M)  # fmt: skip
    assert re.search(r"^Ultra +regular +15\.63 TiB .* 16 +6,435 +6,765 +at the limit; +yes$",
                     out, re.M)  # fmt: skip
    assert re.search(r"^Premium +large +50 TiB .* 50 +15,063 +15,392 +0\.41 ms \(0\.38 \.\. +yes$",
                     out, re.M)  # fmt: skip
    assert re.search(r"^Standard_D8ds_v4 .* 330$", out, re.M)


def test_plan_says_it_ranked_without_prices_and_prints_what_ifs(capsys):
    assert main(["plan", "--bw-mib-s", "2000", "--bs-kib", "64"]) == 0
    assert (
        "\nRanked without prices (smallest quota, then the lower level)" in capsys.readouterr().out
    )
    # --price over the file's: Ultra at 0.0002 USD per GiB-hour wins, and is printed
    assert main(["plan", "--bw-mib-s", "2000", "--bs-kib", "64", "--prices", str(RETAIL),
                 "--region", "eastus", "--price", "Ultra=0.0002"]) == 0  # fmt: skip
    out = " ".join(capsys.readouterr().out.split())
    assert "What-if prices: Ultra 149.50 USD per TiB-month." in out  # 0.0002 x 1024 x 730
    assert "Service level Ultra" in out
    assert main(["plan", "--bw-mib-s", "2000", "--bs-kib", "64", "--prices", str(RETAIL)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("anfperf: error: --prices FILE and --region REGION go together")


def test_plan_names_a_prices_file_it_cannot_use_in_one_line(capsys, tmp_path):
    volume = require_corpus(CORPUS / "azure") / "s01_anf_2025-06-01_Volumes_Get.json"
    cut = tmp_path / "cut.json"
    cut.write_text(RETAIL.read_text()[:3000])
    for path, why in [(volume, "page 0 has no 'Items' list"),
                      (cut, "not JSON of the Azure Retail Prices API")]:  # fmt: skip
        args = ["plan", "--bw-mib-s", "2000", "--bs-kib", "64", "--prices", str(path)]
        assert main([*args, "--region", "eastus"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"anfperf: error: {path}") and why in err, err
        assert err.count("\n") == 1  # one line, no traceback
    assert main([*args[:-1], str(RETAIL), "--region", "mars"]) == 2
    assert "no price in region 'mars' in" in capsys.readouterr().err


def test_plan_all_gives_the_reasoning_in_words(capsys):
    assert main([*PLAN, "--all"]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 100
    out = " ".join(out.split())  # prose wraps in its column
    assert "Each decision in the order the planner made it." in out
    assert "the best of 5 feasible options: those within published observations first" in out
    assert "assumed from the block size; give the pattern if it is not" in out
    for internal in ("pass pattern", "by within", "ranked first of"):
        assert internal not in out


def test_plan_reasoning_counts_one_vm():
    from anfperf.models import plan

    p = plan(bw_mib_s=100, bs_kib=64)
    why = p.reasoning.set_index("step")["why"]
    assert p.vm_count == 1
    assert why["threads per VM"].startswith(f"{p.outstanding} outstanding I/O over 1 VM (")
    assert "pass lat_ms" not in why["latency"] and "SLO" in why["latency"]


def test_plan_with_prices_of_vms_only_says_storage_was_ranked_without(capsys):
    # the real page p01 has no ANF item; in westus2 it prices a D64ds_v5 the planner has no
    # network row for, so nothing of the plan is priced, and the plan says so
    page = require_corpus(CORPUS / "azure") / "p01_joelverhagen_retail_prices_2022-06-06_page0.json"
    args = ["plan", "--bw-mib-s", "2000", "--bs-kib", "64", "--prices", str(page)]
    assert main([*args, "--region", "westus2"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Prices: list prices of westus2 from p01_joelverhagen_retail_prices" in out
    assert "capacity [USD per TiB-month] none; 1 VM size priced" in out
    assert "no Azure NetApp Files capacity price among them: the storage options are ranked " in out
    assert "Monthly cost" not in out


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        # a 100 GiB Premium volume's 6.25 MiB/s, Azure's 2021-2022 6.4, targets of that size
        (["--volume", str(DATA / "azure_recorded" / "cli_2020-09-01_volume_show.json")],
         ["6.25 MiB/s = 100 IOPS", "sized for 6.25 MiB/s"]),
        (["--volume", str(DATA / "azure_recorded" / "edited_2020-09-01_volume_6.4.json")],
         ["6.4 MiB/s = 102 IOPS", "sized for 6.4 MiB/s"]),
        (["--bw-mib-s", "6.25"],
         ["sized for 6.25 MiB/s", "target 6.25 MiB/s = 100 IOPS", "5.91 MiB/s",
          "6.61 MiB/s limit", "6.25 MiB/s: just the target", "per VM: 6.25 MiB/s = 100 IOPS"]),
        (["--iops", "100", "--capacity-tib", "0.1"],
         ["Throughput limit  6.4 MiB/s", "at 6.25 MiB/s (queueing", "6.4 MiB/s: 2 % above"]),
    ],
)  # fmt: skip
def test_plan_prints_small_throughputs_as_they_are(capsys, args, shown):
    assert main(["plan", *args, "--bs-kib", "64", "--all"]) == 0
    out = capsys.readouterr().out
    for text in shown:
        assert text in out
    # never rounded to a whole MiB/s: 6.25 as 6, 6.61 as 7
    assert not re.search(r"(?<![\d.,])[67] MiB/s", out)
