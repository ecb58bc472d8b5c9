"""A mixed run set against the pure runs beside it in a report (anfperf.analysis.mixes): the
seed workloads' real Vdbench runs of ../shared/corpus/vdbench, read in place."""

from __future__ import annotations

import warnings

import pytest

import anfperf
from anfperf._bundled import SAMPLES
from anfperf.analysis import findings
from anfperf.analysis.mixes import mix_check_text, mix_checks
from tests.models.realdata import vdbench_dir


def _analysis(*names: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return findings.analyse(anfperf.read_many([vdbench_dir(n) for n in names]))


@pytest.fixture(scope="module")
def seeds():
    return _analysis("RndRead", "RndWrite", "RndMix", "SeqRead", "SeqWrite", "SeqMix")


def test_each_mixed_step_is_predicted_from_the_pure_runs_at_its_own_count(seeds):
    checks = {(c["run_id"], c["job"]): c for _, c in mix_checks(seeds.rows, seeds.kinds).iterrows()}
    assert sorted(checks) == [("RndMix", "RndMix"), ("SeqMix", "SeqMix-6"), ("SeqMix", "SeqMix-7")]
    # 8 KiB random: reads at 50 in flight, writes at 40 carried to the mix's 50
    rnd = checks["RndMix", "RndMix"]
    assert rnd["iops"] == pytest.approx(106_725.3, abs=0.1)
    assert rnd["predicted_iops"] == pytest.approx(98_097, abs=1)
    assert rnd["off_pct"] == pytest.approx(8.8, abs=0.05) and rnd["inside"]
    assert rnd["pure_runs"] == "RndRead, RndWrite"
    # 64 KiB sequential at 12 in flight, in MiB/s as the charts draw it
    assert mix_check_text(checks["SeqMix", "SeqMix-6"]).endswith(
        "against the pure runs SeqRead, SeqWrite: predicted 1,254 MiB/s (401 .. 2,262), "
        "measured 1,422 (+13.5 %), inside the band"
    )


def test_the_report_section_of_a_mixed_run_opens_with_it(seeds):
    from anfperf.report.benchmark import run_sections

    sections = {s.key: s for s in run_sections(seeds, [], None)}
    first = sections["run-RndMix"].items[0].markup  # an HTML paragraph
    assert first.startswith("<p>RndMix (50 % reads, 50 in flight) against the pure runs RndRead,")
    assert "measured 106,725 (+8.8 %), inside the band.</p>" in first
    assert not any("against the pure runs" in str(getattr(i, "markup", ""))
                   for i in sections["run-RndRead"].items)  # fmt: skip


def test_runs_with_their_own_ends_or_no_pure_runs_beside_them_are_not_checked():
    # the fio sample sweeps its mixes from 0 to 100 % itself: its chart mixes its own ends
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sample = findings.analyse(anfperf.read(SAMPLES / "fio" / "sweeps"))
    assert mix_checks(sample.rows, sample.kinds).empty
    # a mix without both pure ends of its block size beside it
    alone = _analysis("RndRead", "RndMix")
    assert mix_checks(alone.rows, alone.kinds).empty
