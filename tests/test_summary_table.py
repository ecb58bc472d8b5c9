"""The headline table: one row per run x job step, hosts together; what the models read too."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import anfperf
from anfperf.analysis import findings
from anfperf.analysis.summary import SUMMARY_COLUMNS, format_table, summary_table
from anfperf.analysis.sweep import summary_rows
from anfperf.cli import main
from anfperf.errors import AnfperfError, ModelError
from anfperf.ingest.combine import merge_bins, percentiles_from_bins
from tests.conftest import TESTS

SAMPLES = TESTS.parent / "data" / "samples"
VDBENCH = SAMPLES / "vdbench"


def read(*paths: Path, **kwargs) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fio client/server: text around the JSON is skipped
        return anfperf.read_many(list(paths), **kwargs)


def avg_lines(run: Path) -> pd.DataFrame:
    """The whole-run ``avg_`` lines of a Vdbench summary.html, read with a plain regex.

    rd, loop ('threads=N'), iops [1/s], bw_mib_s (Vdbench's MB/sec is MiB/s), lat_ms.
    """
    text = re.sub(r"<[^>]+>", "", (run / "summary.html").read_text())
    starts = re.findall(r"Starting RD=([^;]+);.*?For loops: (\S+)", text)
    avgs = re.findall(r"^\S+\s+avg_\S+\s+([\d.]+)\s+([\d.]+)\s+\d+\s+[\d.]+\s+([\d.]+)", text, re.M)
    assert len(starts) == len(avgs) > 0
    return pd.DataFrame(
        [(rd, loop, float(i), float(b), float(lat)) for (rd, loop), (i, b, lat) in zip(starts, avgs, strict=True)],
        columns=["rd", "loop", "iops", "bw_mib_s", "lat_ms"],
    )  # fmt: skip


@pytest.fixture(scope="module")
def two_host_run(fio_bin, tmp_path_factory) -> Path:
    """A real fio run of anfperf's runner on two hosts (both local): one output per host and no
    cross-host aggregate, as over SSH."""
    base = tmp_path_factory.mktemp("twohosts")
    (base / "inventory.yaml").write_text(
        f"workdir: {base / 'work'}\nhosts:\n"
        + "".join(f"  {h}: {{local: true, volumes: {{vol: {base / h}}}}}\n" for h in ("vm1", "vm2"))
    )
    for h in ("vm1", "vm2"):
        (base / h).mkdir()
    args = ["run", "RndRead", "--hosts", str(base / "inventory.yaml"), "--tool", "fio",
            "--out", str(base / "raw"), "--set", "duration_s=1", "--set", "warmup_s=0",
            "--set", "file_size_gib=0.004", "--set", "threads=2"]  # fmt: skip
    assert main(args) == 0
    (run_dir,) = (base / "raw").iterdir()
    return run_dir


def test_columns_and_one_row_per_job_step_with_summary_html_numbers():
    table = summary_table(read(VDBENCH / "RndReadThreads"))
    assert list(table.columns) == SUMMARY_COLUMNS
    for col in ("run_id", "tool", "job", "workload", "step", "loop", "pattern", "bs_kib",
                "read_pct", "outstanding", "hosts", "iops", "bw_mib_s", "lat_mean_ms",
                "lat_p99_ms"):  # fmt: skip
        assert col in table
    raw = avg_lines(VDBENCH / "RndReadThreads")
    assert len(table) == len(raw) == 7
    assert list(table["step"]) == list(range(7)) and list(table["loop"]) == list(raw["loop"])
    np.testing.assert_allclose(table["iops"], raw["iops"], atol=0.01)  # e.g. 25699.83 at 1 thread
    np.testing.assert_allclose(table["bw_mib_s"], raw["bw_mib_s"], atol=0.01)
    np.testing.assert_allclose(table["lat_mean_ms"], raw["lat_ms"], atol=0.0005)
    # threads are per storage definition: 2 SDs in the parmfile
    assert list(table["outstanding"]) == [2 * t for t in (1, 2, 4, 8, 16, 32, 64)]
    assert set(table["hosts"]) == {1} and set(table["host"]) == {"localhost"}
    assert table.loc[0, "iops"] == pytest.approx(25699.83, abs=0.01)


def test_a_multi_host_vdbench_run_is_its_cross_host_aggregate():
    table = summary_table(read(VDBENCH / "MultiHostSeqMix")).set_index("job")
    raw = avg_lines(VDBENCH / "MultiHostSeqMix").set_index("rd")
    assert list(table.index) == list(raw.index) == ["SeqMix-6", "SeqMix-7"]  # not vm1, vm2 too
    assert table.loc["SeqMix-6", "iops"] == pytest.approx(30965.43, abs=0.01)
    np.testing.assert_allclose(table["iops"], raw["iops"], atol=0.01)
    np.testing.assert_allclose(table["bw_mib_s"], raw["bw_mib_s"], atol=0.01)
    np.testing.assert_allclose(table["lat_mean_ms"], raw["lat_ms"], atol=0.0005)
    assert list(table["host"]) == ["all", "all"] and list(table["hosts"]) == [2, 2]
    assert list(table["outstanding"]) == [6 * 4, 7 * 4]  # threads x 4 SDs over both hosts


def test_fio_client_server_uses_fios_all_clients_numbers():
    frame = read(SAMPLES / "fio" / "client_2servers_jsonplus.json")
    (row,) = summary_table(frame).itertuples()
    fio_all = frame[frame["host"].eq("all") & frame["is_summary"] & frame["direction"].eq("total")]
    assert (row.host, row.hosts, row.outstanding) == ("all", 2, 2)
    assert row.iops == fio_all["iops"].iloc[0] == pytest.approx(11925.07, abs=0.01)
    assert row.lat_p99_ms == fio_all["lat_p99_ms"].iloc[0]  # fio's own percentile


def test_hosts_without_an_aggregate_are_combined(two_host_run):
    frame = read(two_host_run)
    hosts = frame[frame["is_summary"] & frame["direction"].eq("total")]
    assert sorted(hosts["host"]) == ["vm1", "vm2"] and hosts["lat_bins"].notna().all()
    (row,) = summary_table(frame).itertuples()
    assert (row.host, row.hosts, row.job) == ("all", 2, "RndRead")
    assert row.outstanding == hosts["outstanding"].sum() == 4  # 2 threads on each host
    assert row.iops == pytest.approx(hosts["iops"].sum())
    assert row.bw_mib_s == pytest.approx(hosts["bw_mib_s"].sum())
    weighted = (hosts["iops"] * hosts["lat_mean_ms"]).sum() / hosts["iops"].sum()
    assert row.lat_mean_ms == pytest.approx(weighted)
    # the percentile of the merged histograms, never an average of the hosts' percentiles
    merged = merge_bins(list(hosts["lat_bins"]))
    assert row.lat_p99_ms == pytest.approx(percentiles_from_bins(merged, [99.0])[0])
    assert hosts["lat_p99_ms"].min() <= row.lat_p99_ms <= hosts["lat_p99_ms"].max()


def test_one_run_id_for_everything_keeps_every_job_step(capsys):
    # `anfperf ingest data/samples --run-id X` printed 3 rows: the host-aggregate rule was
    # decided per run, so one run id made the 3 cross-host rows (fio client/server's "All
    # clients", MultiHostSeqMix's 2 steps) hide every other job. Now it is per job step.
    separate = summary_table(read(SAMPLES))
    one = summary_table(read(SAMPLES, run_id="X"))
    assert len(one) == len(separate) == 40  # A-direct's SD_format pass is no result
    assert not one["job"].str.contains("format").any()
    assert one["host"].eq("all").sum() == 3
    cols = ["tool", "job", "step", "loop", "iops"]
    key = ["tool", "job", "step", "iops"]
    pd.testing.assert_frame_equal(
        one[cols].sort_values(key).reset_index(drop=True),
        separate[cols].sort_values(key).reset_index(drop=True),
    )
    assert main(["ingest", str(SAMPLES), "--run-id", "X"]) == 0
    out = capsys.readouterr().out
    body = out.split("\n\n")[0].splitlines()[1:]
    assert len(body) == 40 and all(line.split()[0] == "X" for line in body)
    assert "1 runs, 40 job steps" in out


def test_the_table_and_the_models_read_the_same_rows():
    frame = read(VDBENCH / "MultiHostSeqMix", VDBENCH / "SeqWrite", SAMPLES / "fio")
    table = summary_table(frame)
    rows = summary_rows(frame)
    assert len(rows) == len(table)
    np.testing.assert_array_equal(rows["iops"], table["iops"])
    np.testing.assert_array_equal(rows["configured"], table["outstanding"].astype(float))
    assert set(SUMMARY_COLUMNS) | {"configured", "source_file", "lat_bins"} <= set(rows.columns)
    peak = findings.key_numbers(frame).set_index("run_id").loc["SeqWrite", "peak_iops"]
    assert table.loc[table["run_id"] == "SeqWrite", "iops"].max() == peak


def test_a_frame_without_total_rows_gets_them_from_combine():
    frame = read(VDBENCH / "MultiHostSeqMix")
    directions = frame[frame["direction"] != "total"]  # read and write rows of a 50 % mix
    got = summary_table(directions)
    want = summary_table(frame)
    np.testing.assert_allclose(got["iops"], want["iops"], rtol=1e-9)
    np.testing.assert_allclose(got["lat_mean_ms"], want["lat_mean_ms"], rtol=1e-3)


def test_no_whole_run_rows_is_an_empty_table_and_bad_input_an_error():
    frame = read(VDBENCH / "RndReadThreads")
    empty = summary_table(frame[~frame["is_summary"]])
    assert empty.empty and list(empty.columns) == SUMMARY_COLUMNS
    with pytest.raises(ModelError, match="no whole-run"):
        summary_rows(frame[~frame["is_summary"]])
    with pytest.raises(AnfperfError, match="expected a tidy frame"):
        summary_table([1, 2, 3])
    with pytest.raises(ModelError, match="lacks the column"):
        summary_rows(pd.DataFrame({"x": [1]}))


def test_format_table_shows_missing_values_as_a_dash():
    fio = SAMPLES / "fio"
    table = summary_table(read(fio / "randrw70_numjobs2_gr.json", fio / "randread_qd4.json",
                               VDBENCH / "RndRead"))  # fmt: skip
    text = format_table(table, max_rows=None)
    assert "<NA>" not in text and "nan" not in text.lower()
    lines = {ln.split()[0]: ln.split() for ln in text.splitlines()}
    header = lines["run_id"]
    # fio has no loop values; randrw70 is a read/write mix without json+ histograms: its total
    # has no 99th percentile (the directions' percentiles are never averaged)
    assert lines["randrw70_numjobs2_gr"][header.index("loop")] == "-"
    assert lines["randrw70_numjobs2_gr"][header.index("lat_p99_ms")] == "-"
    assert lines["randread_qd4"][header.index("lat_p99_ms")] == "1.729"
    assert lines["RndRead"][header.index("loop")] == "threads=25"
    assert format_table(table, max_rows=1).endswith("... 2 more rows")


@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "unreadable-manifest"])
def test_a_runner_host_folder_named_all_is_a_host_not_the_aggregate(tmp_path, manifest):
    # issue 24: inventory hosts 'all' and 'vm2' each wrote their own fio output; 'all' was taken
    # for the cross-host aggregate and the summary showed half the fleet's IOPS
    source = SAMPLES / "fio" / "randread_qd4.json"
    run = tmp_path / "run-24"
    for host in ("all", "vm2"):
        (run / host).mkdir(parents=True)
        (run / host / source.name).write_bytes(source.read_bytes())
    doc = {"run_id": "run-24", "hosts": {"all": {}, "vm2": {}}}
    (run / "manifest.json").write_text(json.dumps(doc) if manifest else "{not json")
    one = json.loads(source.read_text())["jobs"][0]["read"]["iops"]

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        frame = anfperf.read_many(sorted(run.glob("*/*.json")))
    said = [str(w.message) for w in said]
    assert any("is read as host 'all (host)'" in m for m in said), said
    # an unreadable manifest is named too, and the folder layout used
    assert any("manifest.json: cannot be read" in m for m in said) == (not manifest), said
    assert set(frame["host"]) == {"all (host)", "vm2"}
    (row,) = summary_table(frame).itertuples()
    assert row.hosts == 2 and row.host == "all"
    assert row.iops == pytest.approx(2 * one)
    assert findings.run_kinds(frame)["hosts"].tolist() == [2]


def test_job_labels_tell_repeated_steps_apart_and_are_the_names_runs_are_compared_by():
    from anfperf.analysis.compare import whole_run_values
    from anfperf.analysis.summary import job_labels
    from tests.conftest import DATA

    frame = read(DATA / "vdbench" / "RndReadThreads")
    rows = summary_rows(frame)
    named = job_labels(rows)
    assert named.is_unique and len(named) == len(rows) > 1
    assert all(n == f"{j} {lp}" for n, j, lp in zip(named, rows["job"], rows["loop"], strict=True))
    # one home: compare matches two runs' job steps by the report's names
    (run_id,) = set(rows["run_id"])
    assert list(whole_run_values(frame, run_id, ["iops"])["workload"]) == list(named)
    # a frame whose loop values are empty strings (written by hand, or a tool without loops):
    # no loop values, so the step tells the instances apart (before: 'RndReadThreads ' each)
    blank = rows.assign(loop=pd.Series("", index=rows.index, dtype="string"))
    assert list(job_labels(blank)) == [
        f"{j} #{s}" for j, s in zip(rows["job"], rows["step"], strict=True)
    ]
