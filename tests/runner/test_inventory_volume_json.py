"""An inventory's ``volume_json``: the volume as Azure describes it, checked when the inventory
is read (a run recording it, and its report finding it: tests/report/test_volume_report.py).

The volume files are the real captures and REST examples of ../shared/corpus/azure, read in place.
"""

from __future__ import annotations

import pytest

from anfperf.azure import AnfVolume, read_volume
from anfperf.errors import ParseError
from anfperf.runner import load_inventory
from tests.azure.test_volume import R01, S01, corpus

ULTRA = "sjc-netapp-ultra-vol"


def _inventory(tmp_path, volume_json: str, volume: str = ULTRA, own: bool = False):
    (tmp_path / "vol").mkdir(exist_ok=True)
    described = f"  volume_json: {{{volume}: '{volume_json}'}}\n"
    text = (
        f"volumes:\n  {ULTRA}: {tmp_path / 'vol'}\n"
        + ("" if own else described.lstrip())
        + "hosts:\n  demo:\n    local: true\n"
        + (described.replace("  ", "    ", 1) if own else "")
    )
    path = tmp_path / "inv.yml"
    path.write_text(text)
    return path


def test_volume_json_is_read_with_the_inventory_relative_to_its_folder(tmp_path):
    (tmp_path / "azure").mkdir()
    (tmp_path / "azure" / "vols.txt").write_bytes(corpus(R01).read_bytes())
    host = load_inventory(_inventory(tmp_path, "azure/vols.txt"))["demo"]
    recorded = host.volume_json[ULTRA]
    # the one of three volumes in the file named as the inventory names its volume
    assert AnfVolume.from_dict(recorded) == read_volume(tmp_path / "azure" / "vols.txt", name=ULTRA)
    assert recorded["source"] == str(tmp_path / "azure" / "vols.txt")
    assert (recorded["service_level"], recorded["quota_tib"]) == ("Ultra", 2.0)
    assert host.describe()["volume_json"] == {ULTRA: recorded}


@pytest.mark.parametrize("own", [False, True])
def test_a_volume_json_of_another_resource_names_the_inventory_line(tmp_path, own):
    metrics = corpus("m01_monitor_2024-02-01_GetMetric.json")
    path = _inventory(tmp_path, str(metrics), own=own)
    with pytest.raises(ParseError) as caught:
        load_inventory(path)
    line = 6 if own else 3
    assert str(caught.value) == (
        f"{path}:{line}: host demo: volume_json {ULTRA}: {metrics}: no NetApp volume in it "
        "(it holds Microsoft.Insights/metrics)"
    )


def test_volume_json_of_an_unknown_volume_or_a_file_of_several_is_refused(tmp_path):
    with pytest.raises(ParseError, match=r"inv.yml:3: host demo: volume_json nope: not one of "
                       rf"its volumes \['{ULTRA}'\]"):  # fmt: skip
        load_inventory(_inventory(tmp_path, str(corpus(S01)), volume="nope"))
    sub = tmp_path / "other"
    sub.mkdir()
    path = _inventory(sub, str(corpus(R01)))
    path.write_text(path.read_text().replace(ULTRA, "ultra"))
    with pytest.raises(ParseError, match=r"volume_json ultra: .*r01_.* holds 3 volumes"):
        load_inventory(path)
    with pytest.raises(ParseError, match="volume_json must map volume names to JSON files"):
        (sub / "bad.yml").write_text("volume_json: [a]\nhosts: {demo: {local: true}}\n")
        load_inventory(sub / "bad.yml")
