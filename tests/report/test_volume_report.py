"""The benchmark report given the volume measured as Azure describes it (``-p volume FILE``).

The volume files are the real captures and REST examples of ../shared/corpus/azure, read in place.
"""

from __future__ import annotations

import json
import warnings

import pytest

import anfperf
from anfperf.analysis import findings, provenance
from anfperf.cli import main
from anfperf.errors import ReportError
from anfperf.report import benchmark, render_report
from tests.azure.test_volume import R01, S01, S03, corpus
from tests.conftest import DATA, TESTS
from tests.report.conftest import check_layout, check_report
from tests.runner.test_inventory_volume_json import ULTRA, _inventory

NOTEBOOK = TESTS.parent / "notebooks" / "benchmark_report.ipynb"
RUN = DATA / "vdbench" / "RndReadThreads"

pytestmark = pytest.mark.slow  # report kernels and chromium


def _analysis():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([RUN])
    return frame, findings.analyse(frame, lat_slo_ms=1.0)


def test_quota_verdict_takes_the_volume_and_names_it():
    frame, analysis = _analysis()
    prov = provenance.run_provenance(frame, [RUN])
    ultra = benchmark.measured_volume(corpus(R01), "sjc-netapp-ultra-vol")
    quota = benchmark.quota_verdict(analysis, prov, volume=ultra)
    scenario = quota["scenario"]
    assert (scenario.level, scenario.quota_tib, scenario.volume_type) == ("Ultra", 2.0, "regular")
    assert quota["volume"] == "sjc-netapp-ultra-vol (Ultra, 2 TiB, 256 MiB/s)"
    assert quota["binding"] == "volume quota" and quota["predicted_bw_mib_s"] == 256.0
    assert quota["assumed"] is False
    # a volume whose throughput only manual QoS allows: its assigned 128 MiB/s is the model's,
    # and what did not add up goes to the report's notes, not to stderr
    notes: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        manual = benchmark.measured_volume(corpus(S01), notes=notes)
    assert len(notes) == 1 and "only possible on a manual-QoS pool" in notes[0]
    quota = benchmark.quota_verdict(analysis, prov, volume=manual)
    assert quota["binding"] == "volume throughput (manual QoS)"
    assert quota["predicted_bw_mib_s"] == 128.0 and quota["scenario"].manual_bw_mib_s == 128.0
    head = benchmark.headline(analysis.numbers, quota)
    # the sample's 473 MiB/s is 370 % of it: not what binds, but that the data are from elsewhere
    assert ("MiB/s the volume throughput (manual QoS) allows on volume1 (Premium, 100 GiB, "
            "128 MiB/s): these data cannot come from such a volume") in head["verdict"]  # fmt: skip


@pytest.fixture(scope="module")
def volume_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("volume")
    return render_report(
        NOTEBOOK,
        parameters={"paths": [str(RUN)], "volume": str(corpus(R01)),
                    "volume_name": "sjc-netapp-ultra-vol"},
        out_dir=out,
    )  # fmt: skip


def test_benchmark_report_names_the_volume_in_headline_and_quota_chart(
    volume_report, browser_page, tmp_path
):
    assert volume_report.ok, volume_report.error
    seen = check_report(browser_page, volume_report.html, tmp_path / "volume.png")
    text = " ".join(seen["text"].split())
    # 473 MiB/s measured, 185 % of the volume's 256: named, and said to be no data of it
    assert ("256 MiB/s the volume quota allows on sjc-netapp-ultra-vol (Ultra, 2 TiB, 256 MiB/s): "
            "these data cannot come from such a volume") in text  # fmt: skip
    assert "(assumed)" not in text
    titles = [t for t in seen["chart_titles"] if t.startswith("Throughput vs quota")]
    assert titles and titles[0].startswith("Throughput vs quota (sjc-netapp-ultra-vol: regular")
    assert "sjc-netapp-ultra-vol: quota 2 TiB" in text
    # the volume file is an input: its checksum is in "About this report"
    assert "r01_samcofer_az_resource_show_2024-03.txt" in text
    check_layout(
        browser_page, volume_report.html, tmp_path / "volume",
        first_screen=[".anfperf-verdict", ".anfperf-cards", ".plotly-graph-div"],
    )  # fmt: skip


def test_a_volume_file_of_another_resource_is_a_one_line_report_error(tmp_path):
    metrics = corpus("m01_monitor_2024-02-01_GetMetric.json")
    with pytest.raises(ReportError) as caught:
        render_report(NOTEBOOK, parameters={"paths": [str(RUN)], "volume": str(metrics)},
                      out_dir=tmp_path)  # fmt: skip
    message = str(caught.value)
    assert (
        f"ParseError: {metrics}: no NetApp volume in it (it holds Microsoft.Insights/metrics)"
        in (message)
    )
    assert "\n" not in message
    # the same for the volume's pool (-p volume_pool), given a file that holds none
    with pytest.raises(ReportError) as caught:
        render_report(NOTEBOOK, parameters={"paths": [str(RUN)], "volume": str(corpus(S01)),
                                            "volume_pool": str(metrics)},
                      out_dir=tmp_path / "pool")  # fmt: skip
    message = str(caught.value)
    assert (
        f"ParseError: {metrics}: no capacity pool in it (it holds Microsoft.Insights/metrics)"
        in (message)
    )
    assert "\n" not in message


def test_the_volumes_pool_from_a_file_of_its_own_says_its_qos():
    """The REST example volume alone leaves its pool's QoS type open (a note); with its pool
    (-p volume_pool: pool1 of the same account, qosType Manual) it is manual QoS, and the
    notes speak of the pool's own figures only."""
    alone, with_pool = [], []
    assert benchmark.measured_volume(corpus(S01), notes=alone).qos_type is None
    assert any("does not give its pool's QoS type" in n for n in alone)
    volume = benchmark.measured_volume(corpus(S01), notes=with_pool, pool_path=corpus(S03))
    assert volume.qos_type == "manual"
    assert not any("QoS type" in n for n in with_pool)
    assert any("account1/pool1: totalThroughputMibps 281.474" in n for n in with_pool)


@pytest.mark.fio
def test_a_run_records_the_volume_and_its_report_names_it(fio_bin, tmp_path, browser_page):
    inventory = _inventory(tmp_path, str(corpus(R01)))
    args = ["run", "RndRead", "--tool", "fio", "--hosts", str(inventory),
            "--out", str(tmp_path / "raw"), "--set", "duration_s=1", "--set", "warmup_s=0",
            "--set", "file_size_gib=0.004", "--set", "threads=2"]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(args) == 0
    (run_dir,) = (tmp_path / "raw").iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    recorded = manifest["hosts"]["demo"]["volume_json"][ULTRA]
    assert (recorded["name"], recorded["throughput_limit_mib_s"]) == (ULTRA, 256.0)
    # the report of that run, without -p volume, finds the volume in its manifest
    result = render_report(NOTEBOOK, parameters={"paths": [str(run_dir)]},
                           out_dir=tmp_path / "report")  # fmt: skip
    assert result.ok, result.error
    seen = check_report(browser_page, result.html, tmp_path / "report.png")
    text = " ".join(seen["text"].split())
    assert f"On {ULTRA} (Ultra, 2 TiB, 256 MiB/s) the" in text
    assert (
        f"the volume measured, {ULTRA} (Ultra, 2 TiB, 256 MiB/s), is from the runs' manifests"
        in text
    )
    assert any(t.startswith(f"Throughput vs quota ({ULTRA}: regular") for t in seen["chart_titles"])


def test_a_flexible_volume_gets_its_limits_without_a_quota_chart(tmp_path):
    # no Flexible volume in the corpus: the REST example s01 with its serviceLevel made
    # Flexible, as the documented schema allows (a Flexible pool's volume, throughput assigned)
    path = tmp_path / "flexible.json"
    path.write_text(corpus(S01).read_text().replace('"Premium"', '"Flexible"'))
    volume = benchmark.measured_volume(path, notes=[])
    assert (volume.service_level, volume.throughput_limit_mib_s) == ("Flexible", 128.0)
    frame, analysis = _analysis()
    prov = provenance.run_provenance(frame, [RUN])
    quota = benchmark.quota_verdict(analysis, prov, volume=volume)
    assert quota["binding"] == "volume throughput (manual QoS)"
    from anfperf.plots import quota_model
    from anfperf.report.page import Section

    section = benchmark.quota_section(quota, quota_model)
    assert isinstance(section, Section)
    note, limits = section.items  # a sentence and the limits, no chart
    assert "against volume1 (Flexible, 100 GiB, 128 MiB/s)." in repr(note)
    assert "throughput is assigned, not set by its quota: no throughput-vs-quota chart" in (
        repr(note)
    )
    assert "volume throughput (manual QoS)" in set(limits.cells.iloc[:, 0])


def test_the_quota_chart_sets_the_run_against_the_scenario_of_the_limits_table():
    # one QuotaScenario for the verdict, the limits table and the chart: a cool-access volume's
    # chart puts the model where the table does (before, the chart was given the fields one by
    # one, without cool access, and drew the model at the hot rate, 2 TiB x 128 = 256 MiB/s)
    import dataclasses

    from anfperf.plots import quota_model

    frame, analysis = _analysis()
    prov = provenance.run_provenance(frame, [RUN])
    ultra = benchmark.measured_volume(corpus(R01), "sjc-netapp-ultra-vol")
    cool = dataclasses.replace(ultra, cool_access=True)
    quota = benchmark.quota_verdict(analysis, prov, volume=cool)
    assert quota["scenario"].cool_access is True
    assert quota["binding"] == "volume quota" and quota["predicted_bw_mib_s"] == 2.0 * 68
    section = benchmark.quota_section(quota, quota_model)
    figure = section.items[1]
    (model,) = [t for t in figure.data if (t.name or "").startswith("model: ")]
    assert model.y[0] == quota["predicted_bw_mib_s"]
    assert quota["detail"] in figure.layout.title.text and "with cool access" in quota["detail"]


def test_a_recorded_2020_09_01_volume_reporting_0_mib_s_makes_the_report(tmp_path):
    # Azure CLI's real recording (tests/data/azure_recorded): throughputMibps 0.0 on 100 GiB
    # Premium is nothing reported; the report runs and takes 6.25 MiB/s (quota x rate)
    import re

    from tests.azure.test_recorded import VOLUME_2020

    result = render_report(NOTEBOOK, parameters={"paths": [str(RUN)], "volume": str(VOLUME_2020)},
                           out_dir=tmp_path)  # fmt: skip
    assert result.ok, result.error
    text = " ".join(re.sub(r"<[^>]+>", " ", result.html.read_text()).split())
    assert ("6.25 MiB/s the volume quota allows on cli-vol-000004 (Premium, 100 GiB, "
            "6.25 MiB/s)") in text  # fmt: skip
    assert "volume throughput (manual QoS)" not in text


def test_the_verdict_names_azures_limit_when_the_file_does_not_prove_manual_qos():
    # the recorded body edited as a Resource Graph row with 6.25 MiB/s and no pool: the auto
    # rule's number, so "Azure's limit", not "manual QoS"
    from tests.azure.test_recorded import RECORDED

    frame, analysis = _analysis()
    prov = provenance.run_provenance(frame, [RUN])
    volume = benchmark.measured_volume(RECORDED / "edited_resource_graph_volume_row.json",
                                       notes=[])  # fmt: skip
    quota = benchmark.quota_verdict(analysis, prov, volume=volume)
    assert (quota["binding"], quota["predicted_bw_mib_s"]) == ("Azure's limit", 6.25)
    head = benchmark.headline(analysis.numbers, quota)
    assert "6.25 MiB/s Azure's limit allows on cli-vol-000004" in head["verdict"]
    assert "manual QoS" not in head["verdict"]
