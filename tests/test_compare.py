"""Run A vs run B on real runs: the O_DIRECT / page-cache pair, two RndRead runs with different
thread counts, a two-host run, fio whole-run results, and runs derived from them.

Expected means come from Vdbench's own summary.html lines (parsed here with a regular
expression, not by anfperf) and expected intervals from scipy's Welch test on batch means.
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import anfperf
from anfperf.analysis import compare
from anfperf.errors import AnfperfError, ModelError
from tests.conftest import DATA, TESTS

SAMPLES = TESTS.parent / "data" / "samples"
AB = SAMPLES / "vdbench" / "ab"
RNDREAD = DATA / "vdbench" / "RndRead"  # rd=RndRead, 8 KiB random read, 25 threads, o_direct
MULTI = DATA / "vdbench" / "MultiHostSeqMix"
CLIENT_SERVER = SAMPLES / "fio" / "client_2servers_jsonplus.json"
SUMMARY_COLS = {"iops": 0, "bw_mib_s": 1, "lat_mean_ms": 4}  # after the interval number
#: summary.html prints latency to 3 decimals [ms]: means agree to half of that, intervals to 1
MEAN_TOL = {"iops": {"rel": 1e-4}, "bw_mib_s": {"rel": 1e-4}, "lat_mean_ms": {"abs": 5e-4}}
CI_TOL = {"iops": {"rel": 1e-3}, "bw_mib_s": {"rel": 1e-3}, "lat_mean_ms": {"abs": 1e-3}}


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many([AB, RNDREAD, MULTI, CLIENT_SERVER])


def run(frame, run_id):
    return frame[frame["run_id"] == run_id]


def vdbench_summary(folder, rd: str, metric: str = "iops", html: str = "summary.html"):
    """(measured intervals, avg_ value) of one rd from a Vdbench summary page.

    The measured intervals are those of the page's own ``avg_first-last`` line.
    """
    text = re.sub(r"<[^>]+>", "", (folder / html).read_text())
    block = text.split(f"Starting RD={rd};")[1]
    first, last = map(int, re.search(r"avg_(\d+)-(\d+)", block).groups())
    block = block.split("avg_")[0] + "avg_" + block.split("avg_")[1].split("\n")[0]
    col = SUMMARY_COLS[metric]
    rows = {int(m[0]): float(m[1].split()[col])
            for m in re.findall(r"^\S+\s+(\d+)\s+(.*)$", block, flags=re.M)}  # fmt: skip
    avg = float(re.search(r"avg_\S+\s+(.*)", block).group(1).split()[col])
    return np.array([rows[i] for i in range(first, last + 1)]), avg


def welch_on_batch_means(a: np.ndarray, b: np.ndarray, confidence: float, batches: int = 10):
    """Confidence interval of mean(b) - mean(a) by scipy, on contiguous batch means."""

    def means(x):
        k = min(batches, x.size // 2)
        return np.array([part.mean() for part in np.array_split(x, k)])

    res = stats.ttest_ind(means(b), means(a), equal_var=False)
    ci = res.confidence_interval(confidence)
    return ci.low, ci.high


def test_default_runs_are_the_first_two_by_start(frame):
    ab = frame[frame["run_id"].isin(["A-direct", "B-buffered"])]
    assert compare.pick_runs(ab) == ("A-direct", "B-buffered")
    assert compare.pick_runs(ab, run_a="B-buffered") == ("B-buffered", "A-direct")
    with pytest.raises(AnfperfError, match="run 'C' is not in the data"):
        compare.pick_runs(ab, "C")
    with pytest.raises(AnfperfError, match="are the same run"):
        compare.pick_runs(ab, "A-direct", "A-direct")
    with pytest.raises(AnfperfError, match="two runs are needed"):
        compare.pick_runs(run(frame, "A-direct"))


@pytest.mark.parametrize("metric", ["iops", "bw_mib_s", "lat_mean_ms"])
def test_page_cache_beats_o_direct_and_the_numbers_are_vdbench_s(frame, metric):
    table = compare.compare_runs(frame, "A-direct", "B-buffered", confidence=0.9)
    # SD_format (the pass that created A's files) is no result: not compared, not listed
    assert list(dict.fromkeys(table["workload"])) == ["RndRead", "RndMix", "SeqRead"]
    assert table.attrs["only_a"] == [] and table.attrs["only_b"] == []
    for workload, row in table[table["metric"] == metric].set_index("workload").iterrows():
        a, _ = vdbench_summary(AB / "A-direct", workload, metric)
        b, _ = vdbench_summary(AB / "B-buffered", workload, metric)
        assert (row["intervals_a"], row["intervals_b"], row["batches"]) == (16, 16, 8)
        assert (row["a_mean"], row["b_mean"]) == pytest.approx(
            (a.mean(), b.mean()), **MEAN_TOL[metric]
        )
        assert row["diff"] == pytest.approx(b.mean() - a.mean(), **MEAN_TOL[metric])
        assert row["diff_pct"] == pytest.approx(100 * row["diff"] / row["a_mean"])
        low, high = welch_on_batch_means(a, b, 0.9)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), **CI_TOL[metric])
        assert row["ci_low_pct"] == pytest.approx(100 * row["ci_low"] / row["a_mean"])
        assert row["basis"] == "intervals" and row["config_diff"] == ""
    # more IOPS and MiB/s, lower latency: better on every count
    assert set(table["verdict"]) == {"better"}


def test_two_real_rndread_runs_with_different_thread_counts(frame):
    """25 threads (RndRead) against 8 (A-direct): fewer I/Os, but each one faster."""
    table = compare.compare_runs(frame, "RndRead", "A-direct").set_index("metric")
    assert list(table["workload"]) == ["RndRead"] * 3
    assert table.attrs["only_b"] == ["RndMix", "SeqRead"]
    # Vdbench threads are per SD, two SDs each: 50 against 16 I/Os in flight
    assert set(table["config_diff"]) == {"outstanding 50 vs 16"}
    for metric in ("iops", "lat_mean_ms"):
        a, _ = vdbench_summary(RNDREAD, "RndRead", metric)
        b, _ = vdbench_summary(AB / "A-direct", "RndRead", metric)
        row = table.loc[metric]
        assert (row["intervals_a"], row["intervals_b"], row["batches"]) == (a.size, b.size, 4)
        assert (row["a_mean"], row["b_mean"]) == pytest.approx(
            (a.mean(), b.mean()), **MEAN_TOL[metric]
        )
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            welch_on_batch_means(a, b, 0.95), **CI_TOL[metric]
        )
    assert table.loc["iops", "ci_high"] < 0 and table.loc["iops", "verdict"] == "worse"
    assert table.loc["lat_mean_ms", "ci_high"] < 0
    assert table.loc["lat_mean_ms", "verdict"] == "better"  # lower latency is better


def test_a_run_against_itself_shows_no_difference(frame):
    a = run(frame, "A-direct")
    table = compare.compare_runs(pd.concat([a, a.assign(run_id="again")]), "A-direct", "again")
    measured = table[table["basis"] == "intervals"]
    assert list(dict.fromkeys(measured["workload"])) == ["RndRead", "RndMix", "SeqRead"]
    assert (measured["diff"] == 0).all()
    assert (measured["ci_low"] == -measured["ci_high"]).all() and (measured["ci_high"] > 0).all()
    assert set(measured["verdict"]) == {"no significant difference"}
    assert "SD_format" not in set(table["workload"])  # preparation, not a result


def test_a_change_beyond_the_noise_is_found_and_one_within_it_is_not(frame):
    a = run(frame, "A-direct")
    same = compare.compare_runs(pd.concat([a, a.assign(run_id="B")]), "A-direct", "B")
    noise_pct = same.set_index(["workload", "metric"]).loc[("RndRead", "iops"), "ci_high_pct"]
    assert 0 < noise_pct < 10

    def scaled(column, factor):
        b = a.assign(run_id="B")
        b[column] = np.where(b["job"] == "RndRead", b[column] * factor, b[column])
        table = compare.compare_runs(pd.concat([a, b]), "A-direct", "B", metrics=[column])
        return table.set_index("workload")

    big = 1 + 3 * noise_pct / 100  # three times the 95 % half-width of a run against itself
    table = scaled("iops", big)
    assert table.loc["RndRead", "diff_pct"] == pytest.approx(100 * (big - 1))
    assert table.loc["RndRead", "ci_low_pct"] > 0 and table.loc["RndRead", "verdict"] == "better"
    assert table.loc[["RndMix", "SeqRead"], "verdict"].eq("no significant difference").all()
    assert scaled("iops", 1 / big).loc["RndRead", "verdict"] == "worse"
    assert scaled("lat_mean_ms", big).loc["RndRead", "verdict"] == "worse"  # slower is worse
    assert scaled("lat_mean_ms", 1 / big).loc["RndRead", "verdict"] == "better"
    small = 1 + noise_pct / 4 / 100
    table = scaled("iops", small)
    assert table.loc["RndRead", "diff_pct"] == pytest.approx(100 * (small - 1))
    assert table.loc["RndRead", "verdict"] == "no significant difference"


def test_hosts_are_added_up_per_interval_where_there_is_no_all_row(frame):
    multi = run(frame, "MultiHostSeqMix")
    hosts_only = multi[multi["host"] != "all"].assign(run_id="hosts only")
    series = compare.interval_series(hosts_only, "hosts only", ["iops", "bw_mib_s"])
    assert list(dict.fromkeys(series["workload"])) == ["SeqMix-6", "SeqMix-7"]
    assert set(series["hosts"]) == {2}
    for rd in ("SeqMix-6", "SeqMix-7"):
        vm1, _ = vdbench_summary(MULTI, rd, html="vm1.html")
        vm2, _ = vdbench_summary(MULTI, rd, html="vm2.html")
        got = series.loc[series["workload"] == rd, "iops"].to_numpy()
        assert got == pytest.approx(vm1 + vm2)
    # the hosts added up are the run's own cross-host rows (to Vdbench's rounding)
    both = pd.concat([multi, hosts_only])
    table = compare.compare_runs(both, "MultiHostSeqMix", "hosts only")
    assert table["diff_pct"].abs().max() < 0.01
    assert set(table["verdict"]) == {"no significant difference"}
    # an interval one host did not report is left out, not half counted
    late = (hosts_only["host"] == "vm2") & (hosts_only["interval"] == 8)
    table = compare.compare_runs(
        pd.concat([multi, hosts_only[~late]]), "MultiHostSeqMix", "hosts only", metrics=["iops"]
    )
    assert set(table["intervals_b"]) == {5} and set(table["intervals_a"]) == {6}


def test_whole_run_values_without_intervals_give_no_verdict(frame):
    # A's intervals gone: both runs' whole-run (avg_) values are set side by side
    no_intervals = frame[~((frame["run_id"] == "A-direct") & frame["interval"].notna())]
    table = compare.compare_runs(no_intervals, "A-direct", "B-buffered", metrics=["iops"])
    for row in table.itertuples():
        _, a = vdbench_summary(AB / "A-direct", row.workload)
        _, b = vdbench_summary(AB / "B-buffered", row.workload)
        assert (row.a_mean, row.b_mean) == pytest.approx((a, b), rel=1e-4)
        assert (row.basis, row.intervals_a, row.intervals_b) == ("whole run", 0, 16)
    assert set(table["verdict"]) == {"insufficient data"}
    assert table[["ci_low", "ci_high", "ci_low_pct", "ci_high_pct"]].isna().all().all()
    # three measured intervals are too few for two batches of two
    short = frame[~((frame["run_id"] == "B-buffered") & (frame["interval"] > 7))]
    table = compare.compare_runs(short, "A-direct", "B-buffered", metrics=["iops"])
    assert set(table["intervals_b"]) == {3} and set(table["basis"]) == {"intervals"}
    assert set(table["verdict"]) == {"insufficient data"} and table["ci_low"].isna().all()


def test_fio_client_server_is_compared_on_its_all_clients_row(frame):
    cs = run(frame, "client_2servers_jsonplus")
    both = pd.concat([cs, cs.assign(run_id="again")])
    table = compare.compare_runs(
        both, "client_2servers_jsonplus", "again", metrics=["iops", "lat_mean_ms", "lat_p99_ms"]
    ).set_index("metric")
    text = CLIENT_SERVER.read_text()
    raw, _ = json.JSONDecoder().raw_decode(text[text.index("{") :])
    (all_clients,) = [c for c in raw["client_stats"] if c["jobname"] == "All clients"]
    assert list(table["workload"]) == ["cs-randread"] * 3  # the hosts' steps are one workload
    assert table.loc["iops", "a_mean"] == pytest.approx(all_clients["read"]["iops"])
    assert table.loc["lat_mean_ms", "a_mean"] == pytest.approx(
        all_clients["read"]["lat_ns"]["mean"] / 1e6
    )
    assert table.loc["lat_p99_ms", "a_mean"] > table.loc["lat_mean_ms", "a_mean"]
    assert (table["diff"] == 0).all() and set(table["verdict"]) == {"insufficient data"}


def test_the_table_is_deterministic_and_independent_of_row_order(frame):
    ab = frame[frame["run_id"].isin(["A-direct", "B-buffered"])]
    first = compare.compare_runs(ab, "A-direct", "B-buffered")
    pd.testing.assert_frame_equal(first, compare.compare_runs(ab, "A-direct", "B-buffered"))
    shuffled = ab.sample(frac=1.0, random_state=1)
    again = compare.compare_runs(shuffled, "A-direct", "B-buffered")
    key = ["workload", "metric"]
    pd.testing.assert_frame_equal(
        first.sort_values(key).reset_index(drop=True),
        again.sort_values(key).reset_index(drop=True),
    )
    assert list(first.columns) == compare.COLUMNS


def test_bad_requests_are_clear_errors(frame):
    with pytest.raises(AnfperfError, match="run 'nope' is not in the data"):
        compare.compare_runs(frame, "A-direct", "nope")
    with pytest.raises(AnfperfError, match="are the same run"):
        compare.compare_runs(frame, "A-direct", "A-direct")
    with pytest.raises(AnfperfError, match="share no workload"):
        compare.compare_runs(frame, "A-direct", "MultiHostSeqMix")
    with pytest.raises(ModelError, match="unknown metric"):
        compare.compare_runs(frame, "A-direct", "B-buffered", metrics=["speed"])
    for confidence in (0, 1, 95):
        with pytest.raises(ModelError, match="confidence must be between 0 and 1"):
            compare.compare_runs(frame, "A-direct", "B-buffered", confidence=confidence)
    with pytest.raises(ModelError, match="batches must be at least 2"):
        compare.compare_runs(frame, "A-direct", "B-buffered", batches=1)
    twice = pd.concat([frame, run(frame, "B-buffered")])  # the same output read twice
    with pytest.raises(AnfperfError, match="repeat a host, job and interval.*read twice"):
        compare.compare_runs(twice, "A-direct", "B-buffered")


def test_sentences_state_each_workload_s_differences(frame):
    table = compare.compare_runs(frame, "RndRead", "A-direct", metrics=["iops", "lat_mean_ms"])
    (sentence,) = compare.sentences(table, "RndRead", "A-direct")
    iops, lat = table["diff_pct"]
    assert sentence.startswith(f"RndRead, A-direct vs RndRead: IOPS {iops:+.1f} % (")
    assert f"mean latency [ms] {lat:+.1f} % (" in sentence and "): better" in sentence
    assert sentence.endswith("(configuration differs: outstanding 50 vs 16).")
    with pytest.raises(AnfperfError, match="nothing compared"):
        compare.sentences(table.iloc[0:0])
