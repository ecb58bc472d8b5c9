"""Combining rows: IOPS add, latency means are IOPS-weighted, percentiles never averaged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anfperf.ingest.combine import add_totals, combine, merge_bins, percentiles_from_bins
from anfperf.schema import conform


def _rows(**cols):
    n = len(next(iter(cols.values())))
    base = {"run_id": ["r"] * n, "tool": ["fio"] * n, "source_file": ["f"] * n, "host": ["h"] * n,
            "job": ["j"] * n, "step": [0] * n, "is_summary": [True] * n}  # fmt: skip
    base.update(cols)
    return conform(pd.DataFrame(base))


def test_total_of_read_and_write_weights_latency_by_iops():
    frame = _rows(direction=["read", "write"], iops=[3000.0, 1000.0], bw_mib_s=[23.4, 7.8],
                  lat_mean_ms=[0.5, 2.5], lat_std_ms=[0.1, 0.3], lat_max_ms=[4.0, 9.0],
                  lat_p99_ms=[1.0, 6.0], outstanding=[16, 16])  # fmt: skip
    total = add_totals(frame).query("direction == 'total'").iloc[0]
    assert total["iops"] == 4000.0
    assert total["bw_mib_s"] == pytest.approx(31.2)
    assert total["lat_mean_ms"] == pytest.approx((3000 * 0.5 + 1000 * 2.5) / 4000)
    # pooled: E[x^2] - mean^2 over both populations
    ex2 = (3000 * (0.1**2 + 0.5**2) + 1000 * (0.3**2 + 2.5**2)) / 4000
    assert total["lat_std_ms"] == pytest.approx(np.sqrt(ex2 - 1.0**2))
    assert total["lat_max_ms"] == 9.0
    assert np.isnan(total["lat_p99_ms"])  # two directions, no histograms: unknown, not averaged
    assert total["outstanding"] == 16  # the same job's concurrency, not doubled


def test_single_active_direction_keeps_its_percentiles():
    frame = _rows(direction=["read"], iops=[500.0], lat_mean_ms=[1.2], lat_p99_ms=[3.3])
    total = add_totals(frame).query("direction == 'total'").iloc[0]
    assert total["lat_p99_ms"] == 3.3 and total["lat_mean_ms"] == 1.2


def test_unknown_latency_makes_the_mean_unknown_not_biased():
    frame = _rows(direction=["read", "write"], iops=[100.0, 100.0], lat_mean_ms=[1.0, np.nan])
    total = add_totals(frame).query("direction == 'total'").iloc[0]
    assert np.isnan(total["lat_mean_ms"])


def test_percentiles_come_from_merged_histograms():
    rng = np.random.default_rng(7)
    a = rng.lognormal(13.0, 0.4, 20_000).astype(np.int64)  # ns
    b = rng.lognormal(14.0, 0.2, 5_000).astype(np.int64)

    def hist(x):
        ns, count = np.unique(x, return_counts=True)
        return {"ns": ns, "count": count}

    frame = _rows(
        direction=["read", "write"],
        iops=[20_000.0, 5_000.0],
        lat_mean_ms=[a.mean() / 1e6, b.mean() / 1e6],
        lat_bins=[hist(a), hist(b)],
    )
    total = add_totals(frame).query("direction == 'total'").iloc[0]
    both = np.sort(np.concatenate([a, b]))
    # fio's definition: the first value whose cumulative count reaches p% of all samples
    expected = both[int(np.ceil(0.99 * len(both))) - 1] / 1e6
    assert total["lat_p99_ms"] == pytest.approx(expected)
    assert total["lat_bins"]["count"].sum() == 25_000


def test_combine_hosts_adds_concurrency_across_hosts():
    frame = _rows(
        host=["vm1", "vm2"],
        direction=["total", "total"],
        iops=[100.0, 300.0],
        lat_mean_ms=[2.0, 1.0],
        outstanding=[8, 8],
        cpu_user_pct=[10.0, 30.0],
    )
    out = combine(frame, ["run_id", "job"], host="all")
    assert len(out) == 1
    row = out.iloc[0]
    assert (row["host"], row["iops"], row["outstanding"]) == ("all", 400.0, 16)
    assert row["lat_mean_ms"] == pytest.approx(1.25)
    assert row["cpu_user_pct"] == 20.0


def test_existing_totals_are_left_alone():
    frame = _rows(direction=["read", "total"], iops=[100.0, 123.0])
    assert add_totals(frame)["direction"].tolist() == ["read", "total"]


def test_percentiles_from_bins_handles_empty_histogram():
    assert np.isnan(percentiles_from_bins({"ns": [1000], "count": [0]})).all()
    merged = merge_bins([{"ns": [1000, 2000], "count": [1, 2]}, {"ns": [2000], "count": [5]}])
    assert merged["ns"].tolist() == [1000, 2000] and merged["count"].tolist() == [1, 7]


def test_group_ids_number_groups_like_pandas_groupby_with_missing_keys():
    from anfperf.ingest.combine import group_ids

    frame = _rows(host=["b", "a", "b", None, "a", None], job=["x", "y", "x", "x", "y", "x"],
                  step=[1, 0, 1, None, 2, None], direction=["read"] * 6)  # fmt: skip
    for by in (["host"], ["host", "job"], ["job", "step"], ["run_id", "host", "step"]):
        expected = frame.groupby(by, sort=False, dropna=False, observed=True).ngroup()
        assert group_ids(frame, by).tolist() == expected.tolist(), by


def test_merging_every_group_at_once_equals_merging_each():
    from anfperf.ingest.combine import merge_bins_by_group
    from anfperf.ingest.fio_json import read_fio_json
    from tests.conftest import DATA

    # the json+ histograms of a real run, grouped as combine groups them (and one group twice)
    frame = read_fio_json(DATA / "fio" / "jsonplus_randrw_numjobs2.json")
    hists = [b for b in frame.query("direction != 'total'")["lat_bins"] if b is not None]
    # and bins beyond 2**36 ns, which take the general sort
    far = [{"ns": h["ns"] + 2**40, "count": h["count"]} for h in hists]
    groups = [hists[:2], hists[2:], hists, hists[:1] * 2, far]
    groups = groups * 20  # over 8192 bins: merged in several passes
    assert sum(len(h["ns"]) for group in groups for h in group) > 3 * 8192
    for group, merged in zip(groups, merge_bins_by_group(groups), strict=True):
        expected = merge_bins(group)
        assert merged["ns"].tolist() == expected["ns"].tolist()
        assert merged["count"].tolist() == expected["count"].tolist()
    assert merge_bins_by_group([]) == []


@pytest.mark.parametrize("seed", range(5))
def test_percentiles_of_many_histograms_at_once_equal_one_by_one(seed):
    from anfperf.ingest.combine import percentiles_by_histogram

    rng = np.random.default_rng(seed)
    hists = []
    for i in range(60):
        ns = np.unique(rng.integers(0, 10 ** int(rng.integers(1, 12)), int(rng.integers(1, 40))))
        count = rng.integers(0, int(rng.choice([2, 1000, 10**12])), len(ns))
        if i % 17 == 0:
            count[:] = 0  # no I/O: NaN
        hists.append({"ns": ns, "count": count})
    wanted = [0.0, 50.0, 99.9, 100.0, *rng.uniform(0, 100, 5)]
    unsorted = {"ns": np.array([5, 5, 1]), "count": np.array([1, 2, 3])}  # the slow way
    for batch in (hists, [*hists, unsorted]):
        one_by_one = np.array([percentiles_from_bins(h, wanted) for h in batch])
        np.testing.assert_array_equal(percentiles_by_histogram(batch, wanted), one_by_one)
    assert percentiles_by_histogram([], wanted).shape == (0, len(wanted))
