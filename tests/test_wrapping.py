"""Prose wrapped for a terminal: lines break at spaces only, never inside a hyphenated word,
between a number and its unit, or inside a path, whatever the width and the path's length."""

from __future__ import annotations

import re
import shutil
import warnings

import pandas as pd
import pytest

from anfperf import wrapping
from anfperf.cli import main
from anfperf.planning import PlanInputs, plan_view
from anfperf.report import page
from tests.azure.test_volume import S01, corpus

#: A path deeper than any line: a checkout in a deep folder names files like this.
DEEP = "/tmp/" + "/".join(["d" * 40] * 6) + "/anfperf/data/volume.json"

#: What must stay on one line.
WHOLE = ["manual-QoS", "256 MiB/s", "4 TiB", "1.0 ms", "6.25 MiB/s", "4,096 IOPS", "100 %",
         "30-day", DEEP]  # fmt: skip

PROSE = (
    f"- {DEEP}:1: a Premium volume of 100 GiB with 256 MiB/s is only possible on a manual-QoS "
    "pool; it reads 4,096 IOPS at 1.0 ms in a 30-day window, 6.25 MiB/s per 4 TiB at 100 % "
    "reads"
)

#: A line that ends with a number (or a hyphen) although the text goes on with its unit (or
#: the rest of the word) on the next line.
_UNIT_START = re.compile(rf"^\s*(?:{'|'.join(map(re.escape, wrapping.UNITS))})(?![\w/])")


def broken_pairs(lines: list[str]) -> list[tuple[str, str]]:
    """Consecutive lines split after a hyphen or between a number and its unit."""
    return [
        (a, b)
        for a, b in zip(lines, lines[1:], strict=False)
        if a.rstrip().endswith("-") or (re.search(r"\d$", a.rstrip()) and _UNIT_START.match(b))
    ]


@pytest.mark.parametrize("width", [12, 20, 33, 47, 60, 78, 100])
def test_wrap_breaks_lines_at_spaces_only_and_cuts_no_word(width):
    lines = wrapping.wrap(PROSE, width, subsequent_indent="  ")
    assert " ".join(" ".join(lines).split()) == PROSE  # every word, in order, none cut
    for phrase in WHOLE:
        assert any(phrase in line for line in lines), (phrase, lines)
    assert broken_pairs(lines) == []
    # longer than the width only where one unbreakable piece is
    for line in lines:
        assert len(line) <= width or len(line.strip()) == wrapping.longest_unbreakable(line)
    assert wrapping.fill(PROSE, width, subsequent_indent="  ") == "\n".join(lines)


def test_a_number_is_glued_to_its_unit_only():
    assert wrapping.wrap("in 2 sizes 256 MiB/s", 6) == ["in 2", "sizes", "256 MiB/s"]
    assert wrapping.longest_unbreakable("at 6.25 MiB/s, 4 TiB") == len("6.25 MiB/s,")
    assert wrapping.wrap("", 10) == []


def test_a_table_column_is_never_narrower_than_a_word_or_a_number_with_its_unit():
    frame = pd.DataFrame({"level": ["Premium"], "why": [f"a manual-QoS pool at 256 MiB/s; {DEEP}"]})
    text = page.table(frame).to_text(40)
    lines = text.splitlines()
    assert any(DEEP in line for line in lines) and any("256 MiB/s" in line for line in lines)
    assert any("manual-QoS" in line for line in lines) and broken_pairs(lines) == []
    # the rows of the wrapped column start where its header does
    start = lines[0].index("Why")
    assert all(line[start - 2 : start] == "  " for line in lines[1:])


def test_plan_volume_notes_keep_a_long_path_whole(tmp_path, capsys):
    folder = tmp_path.joinpath(*DEEP.strip("/").split("/")[1:-1])
    folder.mkdir(parents=True)
    path = folder / corpus(S01).name
    shutil.copyfile(corpus(S01), path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["plan", "--volume", str(path), "--bs-kib", "64"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(f"{path}:1:" in line for line in lines)  # the path whole, on one line
    assert (f"- {path}:1: account1/pool1/volume1: a Premium volume of 100 GiB with 128 MiB/s is "
            "only possible on a manual-QoS pool") in " ".join(" ".join(lines).split())  # fmt: skip
    assert broken_pairs(lines) == []


@pytest.mark.parametrize("width", [40, 60, 100])
def test_the_plan_text_breaks_no_word_and_no_number_from_its_unit(width):
    view = plan_view(PlanInputs(target_mib_s=2000, prices_usd_per_tib_month={"Premium": 300.0}),
                     figures=False)  # fmt: skip
    text = view.text(all_options=True, width=width)
    assert broken_pairs(text.splitlines()) == []
    assert "2,000 MiB/s" in text  # the target, said whole
