"""The headline table: one row per run x job step, the same rows the models and findings use."""

from __future__ import annotations

import warnings

import pytest

import anfperf
from anfperf import findings
from anfperf.cli import main
from anfperf.summary import SUMMARY_COLUMNS, summary_table
from tests.conftest import DATA, TESTS
from tests.models.realdata import summary_avg

SAMPLES = TESTS.parent / "data" / "samples"


@pytest.fixture(scope="module")
def frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read_many(
            [DATA / "vdbench" / "MultiHostSeqMix", DATA / "vdbench" / "SeqWrite"]
        )


def test_one_row_per_job_step_with_the_summary_numbers(frame):
    table = summary_table(frame)
    assert list(table.columns) == SUMMARY_COLUMNS
    multi = table[table["run_id"] == "MultiHostSeqMix"].set_index("job")
    raw = summary_avg("MultiHostSeqMix")
    for rd, iops in zip(raw["rd"], raw["iops"], strict=True):
        assert multi.loc[rd, "iops"] == pytest.approx(iops, abs=0.01)
        assert multi.loc[rd, "hosts"] == 2 and multi.loc[rd, "host"] == "all"
    assert len(table[table["run_id"] == "SeqWrite"]) == 3
    # the table and the conclusions read the same rows
    peak = findings.key_numbers(frame).set_index("run_id").loc["SeqWrite", "peak_iops"]
    assert table[table["run_id"] == "SeqWrite"]["iops"].max() == peak


def test_one_run_id_for_everything_keeps_every_job(capsys):
    # all samples under one run id: each job step still has its row (it used to print 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        separate = summary_table(anfperf.read_many([SAMPLES]))
    assert main(["ingest", str(SAMPLES), "--run-id", "X"]) == 0
    body = capsys.readouterr().out.split("\n\n")[0].splitlines()[1:]
    assert len(body) == len(separate) > 40
