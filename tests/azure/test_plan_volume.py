"""``anfperf plan --volume FILE``: what a volume Azure describes would do (real corpus files)."""

from __future__ import annotations

import json
import warnings

import pytest

from anfperf.azure import read_volume
from anfperf.cli import main
from anfperf.planning.volume import plan_volume
from tests.azure.test_volume import R01, S01, S03, S04, corpus


def test_plan_volume_prints_its_limit_what_binds_and_the_clients(capsys):
    path = corpus(R01)
    code = main(["plan", "--volume", str(path), "--volume-name", "sjc-netapp-ultra-vol",
                 "--bs-kib", "64"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith(
        "What this volume would do (from r01_samcofer_az_resource_show_2024-03.txt)\n"
    )
    lines = [" ".join(line.split()) for line in out.splitlines()]
    assert "volume sjc-netapp-ultra-vol in pool sjc-netapp-ultra-pool" in lines
    assert "settings Ultra, 2 TiB, auto QoS regular volume in eastus2" in lines
    assert "Azure's limit 256 MiB/s actualThroughputMibps" in lines
    # 2 TiB x 128 MiB/s per TiB = 256 MiB/s = 4,096 IOPS of 64 KiB
    assert "achievable 256 MiB/s = 4,096 IOPS 64 KiB at 100 % reads" in lines
    assert "binds volume quota 2 TiB x 128 MiB/s per TiB (Ultra)" in lines
    assert max(len(line) for line in out.splitlines()) <= 100


def test_plan_volume_json_and_a_target_above_the_volume(capsys):
    path = corpus(R01)
    code = main(["plan", "--volume", str(path), "--volume-name", "sjc-netapp-standard-vol",
                 "--bs-kib", "64", "--bw-mib-s", "2000", "--json"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["volume"]["service_level"] == "Standard"
    assert data["volume"]["quota_tib"] == 2.0
    assert data["volume_mib_s"] == 32.0 and data["target_mib_s"] == 32.0
    assert data["achievable"] == {"bw_mib_s": 32.0, "iops": 512.0, "binding": "volume quota"}
    assert data["clients"]["vm_count"] >= 1
    assert any("target of 2,000 MiB/s is above what this volume allows (32 MiB/s" in n
               for n in data["notes"])  # fmt: skip


def test_plan_volume_of_a_manual_qos_volume_uses_its_assigned_throughput():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        volume = read_volume(corpus(S01))
    answer = plan_volume(volume, bs_kib=64, bw_mib_s=100)
    assert (answer.volume_mib_s, answer.target_mib_s) == (128.0, 100.0)
    assert answer.binding == "volume throughput (manual QoS)"
    # the file's own inconsistency travels with the answer
    assert any("only possible on a manual-QoS pool" in n for n in answer.notes)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--volume", "{r01}", "--bs-kib", "64"],
         "3 volumes in it (sjc-netapp-premium-vol, sjc-netapp-standard-vol, "
         "sjc-netapp-ultra-vol): name the one to read (--volume-name NAME"),
        (["--volume", "{r01}", "--volume-name", "nope", "--bs-kib", "64"],
         "no volume named 'nope' in it"),
        (["--bs-kib", "64"], "anfperf plan needs a target (--bw-mib-s or --iops) or --volume FILE"),
        (["--bw-mib-s", "100", "--bs-kib", "64", "--volume-pool", "{r01}"],
         "--volume-pool goes with --volume FILE"),
        (["--bw-mib-s", "100", "--bs-kib", "64", "--volume-name", "x"],
         "--volume-name goes with --volume FILE"),
    ],
)  # fmt: skip
def test_plan_volume_errors_are_one_line(capsys, args, message):
    args = [a.format(r01=corpus(R01)) for a in args]
    assert main(["plan", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_plan_volume_says_what_does_not_add_up_once_in_its_notes(capsys):
    path = corpus(S01)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not a warning on stderr besides the note
        assert main(["plan", "--volume", str(path), "--bs-kib", "64"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    text = " ".join(captured.out.split())
    assert (f"- {path}:1: account1/pool1/volume1: a Premium volume of 100 GiB with 128 MiB/s is "
            "only possible on a manual-QoS pool") in text  # fmt: skip
    assert "binds volume throughput (manual QoS) assigned 128 MiB/s" in text


def test_plan_volume_reads_its_pool_from_another_file(capsys):
    """The REST example volume (128 MiB/s on 100 GiB Premium) and, from its own file, its pool
    (pool1 of the same account and resource group, qosType Manual): manual QoS, no note."""
    assert main(["plan", "--volume", str(corpus(S01)), "--volume-pool", str(corpus(S03)),
                 "--bs-kib", "64"]) == 0  # fmt: skip
    text = " ".join(capsys.readouterr().out.split())
    assert "settings Premium, 100 GiB, manual QoS regular volume in eastus" in text
    assert "only possible on a manual-QoS pool" not in text
    # another pool of the account (customPool1) is not its pool: the file still does not say
    assert main(["plan", "--volume", str(corpus(S01)), "--volume-pool", str(corpus(S04)),
                 "--bs-kib", "64"]) == 0  # fmt: skip
    text = " ".join(capsys.readouterr().out.split())
    assert "QoS not in the file" in text and "anfperf plan --volume-pool FILE" in text


def test_plan_volume_states_the_expected_latency_at_the_target(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        volume = read_volume(corpus(S01))
    # 100 of its 128 MiB/s: 78 % of the limit on ANF's published curve, light load 0.33 ms
    answer = plan_volume(volume, bs_kib=64, bw_mib_s=100)
    lat = answer.latency
    assert lat.predictable and not lat.at_limit
    assert lat.lat_low_ms < lat.lat_ms < lat.lat_high_ms
    assert lat.lat_ms == pytest.approx(0.33 / (1 - (100 / 128) ** 3.215), rel=0.03)
    assert "Expected mean latency at 100 MiB/s: 0.60 ms (0.51 .. 0.76 ms)." in answer.text()
    # the whole limit asked: no finite mean there, and what the objective needs
    code = main(["plan", "--volume", str(corpus(S01)), "--bs-kib", "64", "--lat-slo-ms", "2",
                 "--json"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["latency"]["lat_expected_ms"] is None
    assert "2 ms at the target needs a limit of 135 MiB/s" in data["latency"]["text"]


def test_a_volume_azure_describes_is_a_known_limit_of_the_forecasts():
    from anfperf.models import known_limits

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        volume = read_volume(corpus(S01))
    known = known_limits(bs_kib=64, **volume.model_args())
    # its manual-QoS 128 MiB/s at 64 KiB: 2,048 IOPS
    assert known.iops_max == 2048 and known.bw_mib_s == 128
    assert known.limit == "volume throughput (manual QoS): assigned 128 MiB/s"
