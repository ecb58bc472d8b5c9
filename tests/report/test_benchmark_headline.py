"""The benchmark report's headline of the bundled samples: a rate far above the assumed volume's
limit says the data cannot come from that volume, not what of it binds."""

from __future__ import annotations

import json
import math
import warnings

import pytest

from anfperf._bundled import SAMPLES
from anfperf.analysis import findings, provenance
from anfperf.analysis.inputs import load_inputs
from anfperf.cli import ExitCode, main
from anfperf.report import benchmark
from tests.report.conftest import check_layout


@pytest.fixture(scope="module")
def samples():
    """The bundled samples as the report reads them by default: frame, analysis, provenance."""
    paths = [str(SAMPLES)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = load_inputs(paths)
    return findings.analyse(frame, lat_slo_ms=1.0), provenance.run_provenance(frame, paths)


def _verdict_card(head: dict):
    (card,) = [c for c in head["cards"] if c.key == "binding"]
    return card


def test_a_rate_far_above_the_assumed_volume_says_the_data_cannot_come_from_it(samples):
    analysis, prov = samples
    quota = benchmark.quota_verdict(analysis, prov)  # the default: Premium, 4 TiB, assumed
    assert quota["share_pct"] == pytest.approx(1003.08, abs=0.01)  # SeqWrite's 2,568 MiB/s
    head = benchmark.headline(analysis.numbers, quota)
    card = _verdict_card(head)
    assert (card.label, card.value, card.tone, card.number) == (
        "ANF verdict", "not this volume", "bad", None,
    )  # fmt: skip
    assert card.note == (
        "measured 1,003 % of the 256 MiB/s the volume quota allows on Premium, 4 TiB "
        "(assumed): the data cannot come from such a volume"
    )
    verdict = head["verdict"]
    assert (
        "SeqWrite's 2,568 MiB/s is 1,003 % of the 256 MiB/s the volume quota allows on "
        "Premium, 4 TiB (assumed): these data cannot come from such a volume, so no ANF "
        "verdict."
    ) in verdict
    assert " binds " not in verdict  # nothing of a volume the data are not from binds


def test_a_rate_within_the_volume_still_says_what_binds(samples):
    analysis, prov = samples
    quota = benchmark.quota_verdict(
        analysis, prov, level="Ultra", quota_tib=100.0, volume_type="large"
    )
    assert quota["share_pct"] <= findings.OVER_MODEL_PCT
    card = _verdict_card(benchmark.headline(analysis.numbers, quota))
    assert (card.label, card.value, card.number) == ("What binds", quota["binding"],
                                                      quota["binding"])  # fmt: skip
    assert card.note.startswith(f"{quota['predicted_bw_mib_s']:,.0f} MiB/s on Ultra, 100 TiB;")


@pytest.mark.slow  # a report kernel and chromium
def test_the_report_of_the_samples_and_its_json_headline_agree(
    samples, tmp_path, capsys, browser_page
):
    analysis, prov = samples
    expected = _verdict_card(benchmark.headline(analysis.numbers,
                                                benchmark.quota_verdict(analysis, prov)))  # fmt: skip
    assert main(["report", "benchmark", "--out", str(tmp_path), "--json"]) == ExitCode.OK
    (report,) = json.loads(capsys.readouterr().out)["reports"]
    headline = report["headline"]
    (card,) = [c for c in headline["cards"] if c["key"] == "binding"]
    assert (card["label"], card["value"], card["note"]) == (
        expected.label, expected.value, expected.note,
    )  # fmt: skip
    assert headline["numbers"]["binding"] is None
    assert "these data cannot come from such a volume" in headline["verdict"]
    check_layout(browser_page, report["html"], tmp_path / "samples",
                 first_screen=[".anfperf-verdict", ".anfperf-cards"])  # fmt: skip
    card_text = browser_page.locator(".anfperf-card.anfperf-bad").inner_text()
    assert card_text.split("\n")[:2] == ["ANF verdict", "not this volume"]


def test_an_iops_at_the_slo_past_the_data_is_stated_with_its_band():
    # RndReadThreads reaches 0.998 ms at 128 in flight: 1 ms lies just past its latencies,
    # where its concurrency forecast (a plateau) gives the number and the band
    from anfperf.ingest import read
    from tests.models.realdata import vdbench_dir

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numbers = findings.key_numbers(read(vdbench_dir("RndReadThreads")), lat_slo_ms=1.0)
    row = numbers.iloc[0]
    low, high = row["iops_at_slo_low"], row["iops_at_slo_high"]
    assert row["iops_at_slo_model"] == pytest.approx(121_008.67, abs=0.01)  # the best, held
    assert low < row["iops_at_slo_model"] < high
    (card,) = [c for c in benchmark.headline(numbers, None)["cards"] if c.key == "iops_at_slo"]
    assert (card.value, card.number) == ("121,009", row["iops_at_slo_model"])
    band = f"{low:,.0f} .. {high:,.0f}"
    assert card.note == f"RndReadThreads · forecast past the measured loads, 95 % band {band}"
    shown = benchmark.runs_table(numbers).cells
    assert shown["IOPS at 1 ms: 95 % band"].tolist() == [band]
    assert shown["IOPS at 1 ms (model)"].tolist() == ["121,009"]


def test_a_load_curves_iops_at_the_slo_past_its_data_is_at_least_its_bands_slower_edge():
    # RndReadCurve (Vdbench iorate=curve, 32 threads): 0.124 .. 0.352 ms up to 92,689 IOPS,
    # no limit known; 1 ms lies far past them. The queueing curve the points fit reaches it at
    # 133,996, but without a limit the data cannot say how far the curve bends: the band's
    # slower edge sets a least rate, nothing a most (the fitted curve alone was stated, bare;
    # on the 13 load curves' lower halves it was off by 22 % at the median, 61 % at most)
    from anfperf.ingest import read
    from tests.models.realdata import vdbench_dir

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numbers = findings.key_numbers(read(vdbench_dir("RndReadCurve")), lat_slo_ms=1.0)
    row = numbers.iloc[0]
    assert row["iops_at_slo_model"] == pytest.approx(133_996, rel=0.01)
    assert row["iops_at_slo_low"] == pytest.approx(103_764, rel=0.02)
    assert math.isinf(row["iops_at_slo_high"]) and row["peak_iops"] < row["iops_at_slo_low"]
    value, how, band = findings.stated_iops_at_slo(row)
    assert (value, how) == (row["iops_at_slo_model"], findings.SLO_FORECAST)
    least = f"{row['iops_at_slo_low']:,.0f}"
    assert (
        "IOPS at the 1 ms SLO from the queueing curve the points fit, past them: " in row["notes"]
    )
    (card,) = [c for c in benchmark.headline(numbers, None)["cards"] if c.key == "iops_at_slo"]
    assert card.note == ("RndReadCurve · forecast past the measured loads, 95 % band at least "
                         f"{least}, no most from these data")  # fmt: skip
    shown = benchmark.runs_table(numbers).cells
    assert shown["IOPS at 1 ms: 95 % band"].tolist() == [
        f"at least {least}, no most from these data"
    ]
    said = findings.sentences(numbers)[0]
    assert f"IOPS (at least {least}, no most from these data) at the 1 ms SLO" in said


def test_an_iops_at_the_slo_no_model_can_tell_is_stated_as_not_predictable():
    # the fio sweep's depths 1, 2, 4 (0.070 .. 0.104 ms): 1 ms lies far past them, and three
    # counts in flight do not show a curve's shape: no number, and the card says why
    from anfperf.ingest import read

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = read(SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json")
        numbers = findings.key_numbers(frame[frame["job"].isin(["qd1", "qd2", "qd4"])])
    row = numbers.iloc[0]
    assert math.isnan(row["iops_at_slo_model"]) and math.isnan(row["iops_at_slo_measured"])
    assert row["iops_at_slo_why"].startswith("not predictable from these data: 3 concurrencies")
    head = benchmark.headline(numbers, None)
    (card,) = [c for c in head["cards"] if c.key == "iops_at_slo"]
    assert (card.value, card.tone, card.number) == ("not predictable", "warn", None)
    assert card.note == ("qd_sweep_randread4k · 3 concurrencies measured, 4 needed to read a "
                         "curve's shape")  # fmt: skip
    assert (
        "the IOPS at the 1 ms objective is not predictable from these data (3 "
        "concurrencies measured, 4 needed to read a curve's shape)"
    ) in head["verdict"]


def test_an_slo_faster_than_any_load_measured_is_stated_as_not_met():
    # the fio sweep's lightest load, 1 in flight, took 0.0704 ms: 0.05 ms was never met, and
    # no model reads a rate below the lightest load
    from anfperf.ingest import read

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = read(SAMPLES / "fio" / "sweeps" / "qd_sweep_randread4k.json")
        numbers = findings.key_numbers(frame, lat_slo_ms=0.05)
    row = numbers.iloc[0]
    assert math.isnan(row["iops_at_slo_model"]) and math.isnan(row["iops_at_slo_measured"])
    assert row["iops_at_slo_why"] == (
        "below the lowest latency measured (0.0704 ms): no load measured met it"
    )
    head = benchmark.headline(numbers, None)
    (card,) = [c for c in head["cards"] if c.key == "iops_at_slo"]
    assert (card.value, card.tone) == ("not met", "bad")
    assert card.note == "qd_sweep_randread4k · the lowest latency measured is 0.0704 ms"
    assert (
        "the 0.05 ms objective was not met: the lowest latency measured is 0.0704 ms"
        in (head["verdict"])
    )
