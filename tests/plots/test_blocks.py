"""The block-size chart (anfperf.plots.block_size) on real sweeps: the costs' curve up to the
peak, what larger blocks give up to a known limit, several sweeps of one run apart."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import anfperf
from anfperf.analysis import findings, summary_rows
from anfperf.errors import AnfperfError
from anfperf.models import KnownLimits
from anfperf.plots import block_size, overview
from tests.conftest import DATA
from tests.test_blocks import public_v13

SWEEPS = DATA / "fio_sweeps"


def _run(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anfperf.read(SWEEPS / name, run_id=name)


def _traces(fig) -> dict:
    return {t.name: t for t in fig.data}


def test_a_sweep_that_fell_past_its_peak_draws_its_costs_up_to_the_peak_and_no_forecast():
    fig = block_size(_run("bs_randread"), run_id="bs_randread")
    traces = _traces(fig)
    assert list(traces) == ["measured", "per-op + per-byte cost"]
    assert len(traces["measured"].x) == 27  # three passes of nine sizes
    curve = traces["per-op + per-byte cost"]
    assert min(curve.x) == pytest.approx(4) and max(curve.x) == pytest.approx(64)
    title = fig.layout.title.text
    assert "Block size: bs_randread" in title
    assert "each I/O 11.6 us + 0.802 us per KiB: operations bind below 14.5 KiB" in title
    assert "larger blocks not predicted: the MiB/s fell 14% past its peak at 64 KiB" in title
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.ticktext) == [
        "4", "8", "16", "32", "64", "128", "256", "512", "1,024",
    ]  # fmt: skip
    assert fig.layout.yaxis.title.text == "Throughput [MiB/s]"
    assert fig.layout.xaxis.title.text == "Block size [KiB]"


def test_a_rising_sweep_shows_what_larger_blocks_give_within_a_known_limit():
    frame = _run("bs_randwrite")
    rows = summary_rows(frame)
    rising = rows[rows["bs_kib"] <= 128]  # 2,513 MiB/s at 128 KiB, not yet past its peak
    free_fig = block_size(frame, run_id="bs_randwrite", rows=rising)
    free = _traces(free_fig)
    forecast, band = free["larger blocks (forecast)"], free["larger blocks: 95 % band"]
    assert min(forecast.x) == pytest.approx(128) and max(forecast.x) == pytest.approx(512)
    estimate = np.asarray(forecast.y)
    # no per-op + per-byte line passes 4 .. 128 KiB within 5 % (235 .. 2,513 MiB/s): the MiB/s
    # of 128 KiB is held past it (the least-squares line said 3,507 at 512 KiB, measured 1,616)
    assert estimate == pytest.approx(np.full(estimate.size, 2513.0), abs=1)  # from 128 on
    assert ("no per-operation + per-byte line passes the sizes measured within 5 %: larger "
            "blocks hold the 2,513 MiB/s of 128 KiB") in free_fig.layout.title.text  # fmt: skip
    edge = np.asarray(band.y)
    assert edge.min() < 1616 < edge.max()  # the band holds the measured fall
    known = KnownLimits(iops_max=2600 * 1024 / 128, limit="a 2,600 MiB/s volume",
                        bw_mib_s=2600.0)  # fmt: skip
    fig = block_size(frame, run_id="bs_randwrite", rows=rising, known=known)
    capped = _traces(fig)
    assert max(capped["larger blocks (forecast)"].y) <= 2600 + 1e-6
    assert capped["known limit"].y == (2600.0, 2600.0)
    assert fig.layout.yaxis.range[1] >= 1.15 * 2600  # the limit inside the plot, with room


def test_four_sweeps_of_one_run_each_have_their_own_traces():
    frame = public_v13()
    fig = block_size(frame, run_id="v13_flatfile")
    measured = [t.name for t in fig.data if t.name.endswith("measured")]
    assert measured == [
        "random, 0 % read: measured", "random, 100 % read: measured",
        "sequential, 0 % read: measured", "sequential, 100 % read: measured",
    ]  # fmt: skip
    assert ("larger blocks not predicted where the MiB/s fell past its peak: random, 0 % read; "
            "sequential, 0 % read; sequential, 100 % read") in fig.layout.title.text  # fmt: skip
    assert fig.layout.legend.orientation == "h"  # ten entries: under the plot


def test_the_report_draws_a_block_size_sweep_and_says_why_when_it_cannot():
    frame = _run("bs_qd32")
    (chart,) = [c for c in overview.report_charts(frame) if c.kind == "block_size"]
    assert chart.heading == "Block size" and chart.figure is not None
    with pytest.raises(AnfperfError, match="no 3 block sizes alike"):
        rows = summary_rows(frame)
        block_size(frame, run_id="bs_qd32", rows=rows[rows["bs_kib"] <= 8])
    assert findings.KIND_BLOCK in overview.RUN_ORDER


def test_a_block_size_sweep_is_bounded_by_its_volumes_mib_s_at_its_largest_size():
    from anfperf.models import QuotaScenario

    rows = summary_rows(_run("bs_qd32"))
    ultra = QuotaScenario(bs_kib=64.0, level="Ultra", quota_tib=10.0)  # the run sets bs_kib
    known = findings.run_known_limits(rows, ultra)
    assert known.known and known.bw_mib_s == pytest.approx(1280)  # 10 TiB x 128 MiB/s
    fig = block_size(_run("bs_qd32"), run_id="bs_qd32", rows=rows, known=known)
    line = _traces(fig)["known limit"]
    assert line.y == (1280.0, 1280.0)
    assert "volume quota 1,280 MiB/s" in [a.text for a in fig.layout.annotations]
    # a run of several sweeps (or of one workload at two sizes) has no one limit
    four = summary_rows(public_v13())
    assert not findings.run_known_limits(four, ultra).known
