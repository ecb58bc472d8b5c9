"""Azure Monitor metrics of a NetApp volume: the server's side of a run.

No real capture of a NetApp volume's metrics exists in ../shared/corpus/azure (PROVENANCE.md):
the volume files in tests/data/azure/ are built by the documented schema (make_metrics.py
says how), NOT captured. The corpus's m01 is the REST API's own example of the response
shape, for a storage account: it must be refused naming what it holds.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pandas as pd
import pytest

import anfperf
from anfperf.cli import main
from anfperf.errors import ParseError
from anfperf.ingest import detect_format, read_azure_metrics
from anfperf.store import load_store
from tests.conftest import CORPUS, TESTS, require_corpus
from tests.data.azure.make_metrics import AZ_SERIES, REST_SERIES, metrics_document, write

DATA = TESTS / "data" / "azure"
REST = DATA / "volume_rest_pt5m.json"
AZ = DATA / "volume_az_pt1m.json"
M01 = CORPUS / "azure" / "m01_monitor_2024-02-01_GetMetric.json"


def test_rest_response_rows_carry_the_volumes_values_in_tidy_units():
    doc = json.loads(REST.read_text())
    frame = read_azure_metrics(REST)
    assert set(frame["source"]) == {"server"} and set(frame["tool"]) == {"azure_monitor"}
    assert set(frame["host"]) == {"volume1"}
    read = frame.query("direction == 'read'").reset_index(drop=True)
    assert len(read) == 12 and list(read["interval"]) == list(range(1, 13))
    by_name = {m["name"]["value"]: m for m in doc["value"]}
    first = by_name["ReadThroughput"]["timeseries"][0]["data"][0]
    assert read.at[0, "bw_mib_s"] == first["average"] / 2**20 == 100.0  # bytes/s -> MiB/s
    assert read.at[0, "iops"] == REST_SERIES["ReadIops"][0] == 1600.0
    assert read.at[0, "lat_mean_ms"] == 1.25
    # timeStamp is the grain's start: a row's timestamp is its end, runtime the grain
    assert read.at[0, "timestamp"] == pd.Timestamp(first["timeStamp"]) + pd.Timedelta("5min")
    assert (read["runtime_s"] == 300.0).all() and read.at[11, "time_s"] == 3600.0
    write_ = frame.query("direction == 'write' and interval == 7").iloc[0]
    assert (write_["iops"], write_["bw_mib_s"], write_["lat_mean_ms"]) == (800.0, 50.0, 2.5)
    # a size metric is not a rate: nothing of VolumeLogicalSize's 1e11 anywhere
    assert frame[["iops", "bw_mib_s", "lat_mean_ms"]].max().max() < 1e4


def test_az_cli_output_totals_weigh_latency_by_iops_and_skip_empty_grains():
    frame = read_azure_metrics(AZ)
    total = frame.query("direction == 'total'").set_index("interval")
    assert list(total.index) == [1, 2, 4, 5]  # grain 3 has no data: no row, not zeros
    # read + write, not TotalIops (410 counts 10 metadata operations a benchmark never does)
    assert total.at[1, "iops"] == 400.0 and total.at[1, "bw_mib_s"] == 100.0
    assert total.at[1, "lat_mean_ms"] == pytest.approx((300 * 0.8 + 100 * 2.0) / 400)
    assert (frame["runtime_s"] == 60.0).all()
    assert AZ_SERIES["TotalIops"][0] == 410.0


def test_ingest_recognises_metrics_json_and_read_many_keeps_them_server_rows(tmp_path):
    assert detect_format(REST) == "azure_monitor" and detect_format(AZ) == "azure_monitor"
    fio = TESTS.parent / "data" / "samples" / "fio" / "randread_qd4.json"
    both = anfperf.read_many([fio, AZ])
    assert set(both.groupby("source", observed=True)["tool"].first()) == {"fio", "azure_monitor"}
    assert set(both.loc[both["tool"] == "fio", "source"]) == {"client"}
    assert main(["ingest", str(AZ), "--out", str(tmp_path / "store")]) == 0
    back = load_store(tmp_path / "store")
    assert set(back["source"]) == {"server"} and len(back) == len(read_azure_metrics(AZ))


def test_another_resources_metrics_are_refused_naming_what_the_file_holds():
    require_corpus(M01)
    with pytest.raises(ParseError, match=r"m01_monitor.*no Azure NetApp Files volume metrics.*"
                       r"BlobCount, BlobCapacity"):  # fmt: skip
        read_azure_metrics(M01)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda text: text[: len(text) // 2], r":\d+: truncated JSON"),
        (lambda text: "[1, 2]", "not an Azure Monitor metrics response"),
        (
            lambda text: text.replace('"BytesPerSecond"', '"Bytes"'),
            "ReadThroughput has unit 'Bytes'",
        ),
        (lambda text: text.replace('"interval": "PT5M"', '"interval": "often"'), "'often'"),
    ],
)
def test_damaged_metrics_files_get_one_line_naming_the_file(tmp_path, mutate, message):
    bad = tmp_path / "metrics.json"
    bad.write_text(mutate(REST.read_text()))
    with pytest.raises(ParseError, match=message) as info:
        read_azure_metrics(bad)
    assert str(info.value).startswith(str(bad)) and "\n" not in str(info.value)


def test_a_metric_split_by_a_dimension_is_refused_not_summed(tmp_path):
    doc = metrics_document({"ReadIops": [1.0]}, start=datetime(2024, 1, 1, tzinfo=UTC), grain_s=60)
    series = doc["value"][0]["timeseries"]
    series.append(series[0])
    with pytest.raises(ParseError, match="split into 2 series"):
        read_azure_metrics(write(doc, tmp_path / "split.json"))


def test_a_metric_asked_for_its_maximum_only_is_read_with_a_warning(tmp_path):
    doc = metrics_document(
        {"AverageReadLatency": [0.5, 0.7]}, start=datetime(2024, 1, 1, tzinfo=UTC), grain_s=300
    )
    for point, peak in zip(doc["value"][0]["timeseries"][0]["data"], (3.0, 4.5), strict=True):
        point["maximum"] = peak  # as `az monitor metrics list --aggregation Maximum` prints
        del point["average"]
    with pytest.warns(UserWarning, match="AverageReadLatency has no average, its maximum"):
        frame = read_azure_metrics(write(doc, tmp_path / "peaks.json"))
    assert list(frame.query("direction == 'read'")["lat_mean_ms"]) == [3.0, 4.5]


RECORDED = TESTS / "data" / "azure_recorded"


def test_a_subscriptions_metric_split_by_resource_id_gives_one_host_per_volume():
    # edited copy of the REST API's PostMultiResourceMetricBody example (PROVENANCE.md)
    frame = read_azure_metrics(
        RECORDED / "monitor_anf_subscription_split_by_resourceid_edited.json"
    )
    assert sorted(frame["host"].unique()) == ["vol1", "vol2"]
    read = frame.query("direction == 'read'").set_index(["host", "interval"])["iops"]
    assert read[("vol1", 2)] == 72.0 and read[("vol2", 2)] == 133.0  # each its own numbers
    total = frame.query("direction == 'total'").set_index(["host", "interval"])["iops"]
    assert total[("vol1", 1)] == 82.0 and total[("vol2", 1)] == 92.0
    assert (frame["runtime_s"] == 6 * 3600.0).all()


def test_two_resource_ids_give_two_hosts_not_the_first_ones_name():
    frame = read_azure_metrics(RECORDED / "monitor_anf_two_resource_ids_edited.json")
    read = frame.query("direction == 'read'")
    assert read.groupby("host")["iops"].max().to_dict() == {"vol1": 72.0, "vol2": 133.0}


def test_the_recorded_vm_split_is_refused_naming_its_metric():
    with pytest.raises(ParseError, match="metrics found: Data Disk Max Burst IOPS"):
        read_azure_metrics(RECORDED / "monitor_2024-02-01_PostMultiResourceMetricBody_trimmed.json")


def test_two_volumes_of_one_name_are_refused_listing_their_ids(tmp_path):
    doc = json.loads((RECORDED / "monitor_anf_two_resource_ids_edited.json").read_text())
    doc["value"][1]["id"] = doc["value"][1]["id"].replace("/volumes/vol2/", "/volumes/vol1/")
    with pytest.raises(ParseError, match=r"two volumes are named 'vol1'.*sas1.*sas2"):
        read_azure_metrics(write(doc, tmp_path / "clash.json"))


def test_a_subscriptions_metric_not_split_by_volume_is_refused(tmp_path):
    doc = json.loads(
        (RECORDED / "monitor_anf_subscription_split_by_resourceid_edited.json").read_text()
    )
    for metric in doc["value"]:
        metric["timeseries"] = metric["timeseries"][:1]
        metric["timeseries"][0]["metadatavalues"] = []
    with pytest.raises(ParseError, match="ReadIops is not one volume's"):
        read_azure_metrics(write(doc, tmp_path / "sub.json"))


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("monitor_anf_empty_value_edited.json", "an Azure Monitor response with no metrics"),
        (
            "monitor_2024-02-01_error_BadRequest.json",
            "error, not metrics: 'BadRequest': 'Missing required region params'",
        ),
    ],
)
def test_empty_and_error_responses_say_what_azure_answered(name, message):
    path = RECORDED / name
    for read in (read_azure_metrics, anfperf.ingest.read):
        with pytest.raises(ParseError, match=message) as info:
            read(path)
        assert str(info.value).startswith(str(path))
