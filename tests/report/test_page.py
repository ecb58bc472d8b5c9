"""Page elements: tables for people, cards, folding sections in the HTML export."""

from __future__ import annotations

import math
import warnings

import nbformat
import numpy as np
import pandas as pd
import pytest

import anfperf
from anfperf.analysis.sweep import summary_rows
from anfperf.report import export_html, page
from anfperf.report.benchmark import runs_table, steps_table
from tests.conftest import DATA, TESTS
from tests.report.test_report import visible_text

ROOT = TESTS.parent


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (59418.059, "59,418"), (476.837158, "477"), (47.68, "47.7"), (0.26471, "0.265"),
        (0.017, "0.017"), (1234567, "1,234,567"), (0, "0"), (-2.5, "-2.5"),
        (math.inf, "no limit"), (math.nan, ""), (None, ""), (pd.NA, ""), (True, "yes"),
        (np.float64(121008.6667), "121,009"), (np.int64(64), "64"),
    ],
)  # fmt: skip
def test_numbers_are_shown_as_a_person_reads_them(value, shown):
    assert page.format_number(value) == shown


def test_column_labels_carry_units():
    assert page.column_label("lat_p99_ms") == "p99 latency [ms]"
    assert page.column_label("bw_mib_s") == "Throughput [MiB/s]"
    assert page.column_label("monthly_cost_usd") == "Monthly cost [USD]"
    assert page.column_label("egress_gbps") == "Egress [Gbit/s]"
    assert page.column_label("iops", {"iops": "Rate [IOPS]"}) == "Rate [IOPS]"


@pytest.fixture(scope="module")
def sweep_rows():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([DATA / "vdbench" / "RndReadThreads"])
    return frame, summary_rows(frame)


def test_a_real_sweeps_steps_as_a_table_for_people(sweep_rows):
    _, rows = sweep_rows
    shown = steps_table(rows, "RndReadThreads")
    cells = shown.cells
    # human headers with units; columns without a value (p99 of a Vdbench flatfile, hosts of
    # a one-host run, the rate limit of a closed loop) left out
    assert list(cells.columns) == [
        "Job", "Pattern", "Block size [KiB]", "Reads [%]", "Outstanding I/O", "IOPS",
        "Throughput [MiB/s]", "Mean latency [ms]",
    ]  # fmt: skip
    top = cells.iloc[-1]
    assert (top["Job"], top["Outstanding I/O"], top["IOPS"]) == (
        "threads threads=64",
        "128",
        "121,009",
    )
    assert top["Mean latency [ms]"] == "0.998" and top["Throughput [MiB/s]"] == "473"
    html = shown.to_html()
    assert "<th" in html and "NaN" not in html and "<NA>" not in html
    assert 'class="anfperf-table"' in html  # the box that scrolls when the table is wide
    assert html.count('class="anfperf-num"') == 6 * len(cells)


def test_named_workloads_keep_their_run_order_and_a_sweep_goes_up():
    """A run of named workloads (RndRead, RndMix, SeqRead) is shown in the order it ran; a
    sweep's labels, which differ only in their numbers, by load (mix0, mix10, ..., mix100)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([ROOT / "data" / "samples"])
    rows = summary_rows(frame)
    named = steps_table(rows, "A-direct").cells["Job"].tolist()
    assert named == ["RndRead", "RndMix", "SeqRead"]
    mix = steps_table(rows, "mix_sweep_randrw8k").cells["Job"].tolist()
    assert mix == [f"mix{p}" for p in range(0, 101, 10)]


def test_a_load_curves_steps_go_up_by_requested_rate():
    """Vdbench's iorate=curve (the uncontrolled run first, then 10 .. 100 % of its rate) with
    its rows in any order (fio's rate steps come in file order, which is text: r10, r100,
    r20): shown as the curve ran, uncontrolled first, then by requested rate."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = anfperf.read_many([DATA / "vdbench" / "RndReadCurve"])
    rows = summary_rows(frame).iloc[::-1]
    cells = steps_table(rows, "RndReadCurve").cells
    rates = cells["Requested rate [IOPS]"].tolist()
    assert rates[0] == "" and cells["IOPS"].iloc[0] == "92,405"  # the uncontrolled run
    assert [float(r.replace(",", "")) for r in rates[1:]] == [
        9300, 27800, 46300, 64700, 74000, 83200, 92500,
    ]  # fmt: skip
    # steps of different workloads at their own rates are no curve: they keep their order
    rows = rows.assign(pattern=["sequential"] + ["random"] * (len(rows) - 1))
    kept = steps_table(rows, "RndReadCurve").cells["Requested rate [IOPS]"].tolist()
    assert kept == [format(r, ",.0f") if r == r else "" for r in rows["rate_limit_iops"]]


def test_prose_is_left_aligned_and_never_cut():
    why = "regular Premium volume, rule 'current': 50 GiB .. 100 TiB; 4,500 MiB/s, also the manual-QoS maximum"
    shown = page.table(pd.DataFrame({"constraint": ["volume type cap"], "bw_mib_s": [4500.0],
                                     "why": [why], "binding": [False]}))  # fmt: skip
    html = shown.to_html()
    assert f'<td class="anfperf-prose">{why.replace(chr(39), "&#x27;")}</td>' in html
    assert '<td class="anfperf-text">no</td>' in html
    assert list(shown.cells.columns) == ["Limit", "Throughput [MiB/s]", "Why", "Binds"]


def test_runs_table_marks_cached_runs_and_names_the_slo():
    numbers = pd.DataFrame(
        {"run_id": ["A-direct", "B-buffered"], "kind": ["single points"] * 2, "points": [3, 3],
         "peak_iops": [60073.1765, 772205.6471], "lat_slo_ms": [1.0, 1.0],
         "iops_at_slo_measured": [np.nan, np.nan], "cached": [False, True]}
    )  # fmt: skip
    cells = runs_table(numbers).cells
    assert cells["Run"].tolist() == ["A-direct", "B-buffered (cache)"]
    assert cells["Peak IOPS"].tolist() == ["60,073", "772,206"]
    assert "IOPS at 1 ms (measured)" not in cells  # no value at all: left out


def test_unknown_columns_are_an_anfperf_error():
    with pytest.raises(anfperf.AnfperfError, match="no column"):
        page.table(pd.DataFrame({"a": [1]}), ["b"])


def test_sections_fold_in_the_html_export(tmp_path):
    """A Section's outputs become one <details>; the "about" one takes the provenance in."""
    section = page.Section(
        "qd sweep: concurrency sweep", [page.text("<b>not bold</b>")], key="run-qd"
    )
    about = page.Section("About this report", [page.text("inputs")], key="about")
    outputs = []
    for s in (section, about):
        meta = s._metadata()
        outputs.append(nbformat.v4.new_output("display_data", {"text/html": f"<h2>{s.title}</h2>"},
                       metadata={page.SECTION_KEY: {**meta[page.SECTION_KEY], "summary": True}}))  # fmt: skip
        for item in s.items:
            outputs.append(nbformat.v4.new_output("display_data", {"text/html": item._repr_html_()},
                           metadata=meta))  # fmt: skip
    cell = nbformat.v4.new_code_cell("", outputs=outputs)
    nb = nbformat.v4.new_notebook(cells=[cell], metadata={"anfperf": {"name": "r", "version": "x",
                                  "parameters": [{"name": "lat_slo_ms", "value": "0.5"}]}})  # fmt: skip
    nbformat.write(nb, tmp_path / "r.ipynb")
    html = export_html(tmp_path / "r.ipynb").read_text(encoding="utf-8")
    assert html.count("<details") == 2
    assert '<details class="anfperf-section" id="section-run-qd"><summary><h2>qd sweep' in html
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html
    about_at = html.index('id="section-about"')
    assert html.index("lat_slo_ms", about_at) > about_at  # parameters inside "About"
    assert "inputs" in visible_text(html[about_at:])


def test_a_table_as_terminal_text_fits_its_width_and_cuts_no_prose():
    why = "4,500.0 MiB/s is above the 1600 MiB/s cap of this volume type; " * 3
    frame = pd.DataFrame({"level": ["Ultra", "Standard"], "quota_tib": [35.15625, np.nan],
                          "why": ["4,500.0 MiB/s / 128 MiB/s per TiB", why]})  # fmt: skip
    text = page.table(frame, caption="Storage options").to_text(60)
    lines = text.splitlines()
    assert lines[0] == "Storage options" and max(map(len, lines)) <= 60
    assert lines[1].split() == ["Level", "Quota", "[TiB]", "Why"]
    # text left-aligned, numbers right-aligned under "Quota [TiB]"
    assert lines[2].startswith("Ultra".ljust(8) + "  " + "35.2".rjust(11) + "  4,500.0 MiB/s")
    assert " ".join(text.split()).endswith(" ".join(why.split()))  # wrapped, not cut
    cards = page.Table(pd.DataFrame({"a": ["Quota"], "b": ["35.2 TiB"]}), [False, False])
    assert cards.to_text(header=False, indent=2) == "  Quota  35.2 TiB"


def test_an_indented_caption_takes_the_whole_width():
    """The caption was wrapped to the width less the indent, and indented again: narrower."""
    caption = "Each host writes 16 GiB to each of its volumes, 64 GiB on a volume 4 hosts share"
    table = page.Table(pd.DataFrame({"a": ["x"]}), [False], caption=caption)
    lines = table.to_text(40, header=False, indent=4).splitlines()[:-1]
    assert all(line.startswith("    ") and len(line) <= 40 for line in lines)
    assert lines[0] == "    Each host writes 16 GiB to each of"  # 36 of 40 (was 28)
    assert " ".join(" ".join(lines).split()) == caption


def test_the_headline_is_read_back_from_an_executed_notebook(tmp_path):
    from IPython.core.formatters import DisplayFormatter

    from anfperf.errors import ReportError

    cards = page.cards([page.Card("Peak IOPS", "86,983", "run1", key="peak_iops",
                                  number=np.float64(86983.2)),
                        page.Card("Knee", "", key="knee_iops", number=math.nan)])  # fmt: skip
    verdict = page.verdict("Peak **86,983 IOPS** (run1).")
    nb = nbformat.v4.new_notebook()
    for item in (verdict, cards):  # as a kernel shows them: HTML for people, data beside it
        data, _ = DisplayFormatter().format(item)
        assert data["text/html"].startswith(("<p", "<style>"))
        cell = nbformat.v4.new_code_cell()
        cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
        nb.cells.append(cell)
    path = tmp_path / "report.ipynb"
    nbformat.write(nb, path)
    headline = page.read_headline(path)
    assert headline["verdict"] == "Peak 86,983 IOPS (run1)."
    assert headline["numbers"] == {"peak_iops": 86983.2, "knee_iops": None}
    assert [c["label"] for c in headline["cards"]] == ["Peak IOPS", "Knee"]
    (tmp_path / "not.ipynb").write_text("{")
    with pytest.raises(ReportError, match="not a readable notebook"):
        page.read_headline(tmp_path / "not.ipynb")
