"""Reports that fail: the cell that raised, the partial notebook and HTML, the batch goes on."""

from __future__ import annotations

import pickle

import pytest

from anfperf.errors import AnfperfError, ReportError
from anfperf.report import render_report, render_reports
from tests.conftest import DATA

NOTEBOOKS = DATA / "notebooks"
FAILING = NOTEBOOKS / "failing.ipynb"  # cell 3 computes 1 / divisor; divisor = 0 by default

pytestmark = pytest.mark.slow  # report kernels


@pytest.fixture(scope="module")
def failure(tmp_path_factory) -> ReportError:
    out = tmp_path_factory.mktemp("failing")
    with pytest.raises(ReportError) as info:
        render_report(FAILING, out_dir=out)
    return info.value


def test_error_names_cell_and_exception(failure):
    assert isinstance(failure, AnfperfError)
    assert failure.cell_index == 3  # index in the notebook as written (0 is markdown)
    assert failure.execution_count == 3
    assert failure.ename == "ZeroDivisionError"
    assert failure.evalue == "division by zero"
    assert failure.name == "failing"
    assert failure.notebook == str(FAILING)
    assert "cell 3" in str(failure) and "ZeroDivisionError: division by zero" in str(failure)


def test_partial_notebook_and_html_are_kept(failure):
    import nbformat

    nb = nbformat.read(failure.ipynb, as_version=4)
    outputs = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
    )
    assert "cell 2 ran" in outputs and "cell 4 ran" not in outputs
    assert nb.metadata["anfperf"]["error"] == str(failure)
    page = open(failure.html, encoding="utf-8").read()
    assert "cell 2 ran" in page and "cell 4 ran" not in page
    assert "The notebook stopped with an error" in page
    assert "ZeroDivisionError" in page


def test_error_survives_pickling(failure):
    # batch reports send their errors back from worker processes
    back = pickle.loads(pickle.dumps(failure))
    assert type(back) is ReportError
    assert (back.cell_index, back.ename, back.evalue, back.html, str(back)) == (
        failure.cell_index, failure.ename, failure.evalue, failure.html, str(failure),
    )  # fmt: skip


def test_unknown_parameter_fails_before_any_kernel(tmp_path):
    with pytest.raises(ReportError, match="unknown parameter divisr; the notebook takes: divisor"):
        render_report(FAILING, parameters={"divisr": 1}, out_dir=tmp_path)
    assert not list(tmp_path.iterdir())


def test_missing_notebook(tmp_path):
    with pytest.raises(ReportError, match="no such notebook"):
        render_report(tmp_path / "nope.ipynb", out_dir=tmp_path)


def test_batch_goes_on_after_a_failure(tmp_path):
    results = render_reports(
        FAILING, [{"divisor": 0}, {"divisor": 4}], out_dir=tmp_path, processes=2, progress=False
    )
    assert [r.name for r in results] == ["failing-1", "failing-2"]
    bad, good = results
    assert not bad.ok and bad.error.cell_index == 3 and bad.error.ename == "ZeroDivisionError"
    assert bad.html.is_file() and bad.ipynb.is_file()  # the partial report
    assert good.ok and good.error is None and good.parameters == {"divisor": 4}
    assert "cell 4 ran" in good.html.read_text(encoding="utf-8")
