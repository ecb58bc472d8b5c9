"""notebooks/capacity_planning.ipynb as a report (papermill, Chromium) and in a live kernel.

- As a report (``ANFPERF_BATCH``): the plan is a static page that leads with what to buy
  (cards and a verdict within the first screen at 1366x768 and 1920x1080), its tables are
  :func:`anfperf.report.page.table`'s, its three charts are drawn, and nothing overflows the
  page except inside a table's own scroll box.
- In a live kernel (jupyter_client, the venv's python3 kernel, no ANFPERF_BATCH): the widget
  replaces the static page; moving its controls from kernel code converts the target between
  units at the block size, clears the charts when there is no plan, and shows "any" for the
  VM size.
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import papermill
import pytest

from anfperf.planning import PlanInputs, plan_view
from anfperf.report import render_report
from tests.conftest import TESTS
from tests.report.conftest import check_layout, check_report

ROOT = TESTS.parent
NOTEBOOK = ROOT / "notebooks" / "capacity_planning.ipynb"
#: An IOPS target (the notebook's default is MiB/s), Ultra only, one client VM fewer than the
#: plan needs (a client limit binds instead of the default's volume quota), and prices.
PARAMETERS = {
    "target_iops": 200_000,
    "bs_kib": 8,
    "read_pct": 70,
    "lat_slo_ms": 1.0,
    "levels": ["Ultra"],
    "clients": 1,
    "prices_usd_per_tib_month": {"Ultra": 400},
}
#: Retail prices of eastus (built by the Retail Prices API's schema, not a capture: see
#: tests/data/azure/make_retail_prices.py) and the CLI's acceptance target.
RETAIL = {
    "target_mib_s": 2000.0,
    "bs_kib": 64,
    "prices": str(TESTS / "data" / "azure" / "retail_prices_anf_vm.json"),
    "region": "eastus",
}
PLOTLY = "application/vnd.plotly.v1+json"
WIDGET = "application/vnd.jupyter.widget-view+json"
#: Longest a kernel may take for one cell (each takes seconds).
CELL_TIMEOUT_S = 120

pytestmark = pytest.mark.slow  # report kernels, a live kernel and chromium


def _env() -> dict:
    """The environment of a kernel running this checkout's anfperf."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


@pytest.fixture(scope="module")
def default_report(tmp_path_factory):
    """The report as the CLI makes it, with the notebook's defaults."""
    out = tmp_path_factory.mktemp("cap")
    run = subprocess.run(
        [str(Path(sys.executable).with_name("anfperf")), "report", str(NOTEBOOK), "--out", str(out)],
        capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr + run.stdout
    return out / "capacity_planning.html", out / "capacity_planning.ipynb"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The report with PARAMETERS."""
    result = render_report(NOTEBOOK, parameters=PARAMETERS, out_dir=tmp_path_factory.mktemp("r"))
    assert result.ok, result.error
    return result


@pytest.fixture(scope="module")
def retail_report(tmp_path_factory):
    """The report with a prices file and its region."""
    result = render_report(NOTEBOOK, parameters=RETAIL, out_dir=tmp_path_factory.mktemp("rp"))
    assert result.ok, result.error
    return result


def outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def html_outputs(nb) -> list[str]:
    return ["".join(o.data["text/html"]) for o in outputs(nb) if "text/html" in o.get("data", {})]


# --------------------------------------------------------------------------------------------
# The report: what it says


def test_report_leads_with_what_to_buy_once(report):
    nb = nbformat.read(report.ipynb, as_version=4)
    assert not [o for o in outputs(nb) if o.output_type == "error"]
    expected = plan_view(PlanInputs.from_parameters(target_mib_s=2000.0, **PARAMETERS),
                         figures=False)  # fmt: skip
    # the parameters reached the library: one client is too few, a client limit binds
    assert expected.binding == "client NFS connections"
    assert expected.binding != plan_view(dataclasses.replace(expected.inputs, clients=None),
                                         figures=False).binding  # fmt: skip
    html = html_outputs(nb)
    # the plan once: the first output is the cards, then the verdict; no widget in a report
    assert sum("anfperf-cards" in h for h in html) == 1 and "anfperf-cards" in html[0]
    assert not [o for o in outputs(nb) if WIDGET in o.get("data", {})]
    for card in expected.cards():
        assert f'anfperf-card-value">{card.value}<' in html[0].replace("&#x27;", "'"), card
    assert "Monthly cost" in html[0]  # prices given: 15.6 TiB... at 400 USD per TiB-month
    assert f"{expected.cost_usd_month:,.0f} USD" in html[0]
    assert "short of the target" in html[0]  # the one client falls short: the card says so
    assert "<strong>Ultra regular volume" in html[1]
    assert expected.notes[-1].split(" (")[0] in html[2]  # the notes under the verdict
    figures = [o.data[PLOTLY] for o in outputs(nb) if PLOTLY in o.get("data", {})]
    titles = [f["layout"]["title"]["text"] for f in figures]
    assert len(figures) == 4, titles  # priced: the cost what-if too
    assert titles[0].startswith("Quota vs throughput per level: what meets 1,562 MiB/s")
    assert titles[1].startswith("Client VMs vs throughput (Standard_D8ds_v4, 8 KiB, 70 % read")
    assert titles[2].startswith("Outstanding I/O for 200,000 IOPS: the plan by Little's law")
    assert titles[3].startswith("Monthly cost vs throughput per level: the capacity pool")
    # Ultra at 400 USD per TiB-month, 1,562.5 MiB/s / 128 = 12.2 TiB in a 13 TiB pool
    assert "Ultra: 5,200 USD a month at the target" in [t.get("name") for t in figures[3]["data"]]


def test_report_tables_are_for_people(report):
    page = report.html.read_text(encoding="utf-8")
    assert page.count('class="anfperf-table"') == 4  # reasoning, limits, storage, clients
    # the whole prose, not cut at 50 characters: the client option's reasoning
    expected = plan_view(PlanInputs.from_parameters(target_mib_s=2000.0, **PARAMETERS),
                         figures=False)  # fmt: skip
    why = expected.client_options["why"].iloc[0]
    assert html.escape(why, quote=False) in page
    assert "Monthly cost [USD]" in page


def test_notebook_parameters_are_the_planners_inputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert nb.metadata.kernelspec.name == "python3"
    assert all(c.outputs == [] for c in nb.cells if c.cell_type == "code")
    declared = papermill.inspect_notebook(str(NOTEBOOK))
    fields = {f.name for f in dataclasses.fields(PlanInputs)}
    # every parameter but the sweep's path and the prices file (read with its region into
    # `retail`) is a PlanInputs field, documented with '# help:'
    assert set(declared) - {"sweep", "prices", "region"} == fields - {"retail"}
    assert declared["prices"]["help"].startswith("help: [path] ")
    assert all(p["help"].startswith("help: ") for p in declared.values())


# --------------------------------------------------------------------------------------------
# The report in Chromium


def test_report_in_chromium(default_report, browser_page, tmp_path):
    html, _ = default_report
    seen = check_report(browser_page, html, tmp_path / "capacity.png")
    assert seen["graphs"] == 3
    # what to buy (every card and the verdict) on the first screen at 1366x768 and 1920x1080;
    # nothing wider than the page, no NaN/inf/index in a table, every chart drawn
    check_layout(
        browser_page,
        html,
        tmp_path / "capacity",
        first_screen=[".anfperf-cards", ".anfperf-verdict"],
    )
    assert browser_page.locator(".anfperf-card").count() == 8  # no prices: no cost card
    for i in range(8):
        box = browser_page.locator(".anfperf-card").nth(i).bounding_box()
        assert box["y"] + box["height"] <= 1080
    # the expected latency of the planned volume at the target, on the first screen at 1366x768
    browser_page.set_viewport_size({"width": 1366, "height": 768})
    card = browser_page.locator(".anfperf-card", has_text="Expected latency")
    box = card.bounding_box()
    assert box["y"] + box["height"] <= 768
    # the default plan is sized to the target exactly: at its limit, what it carries within 2 ms
    assert "at the limit" in card.inner_text() and "within 2 ms up to 1,892 MiB/s" in (
        card.inner_text().replace("\n", " ")
    )
    traces = browser_page.evaluate(
        "() => [...document.querySelectorAll('.plotly-graph-div')].map("
        "d => d.querySelectorAll('g.trace').length)"
    )
    assert all(n >= 3 for n in traces), traces
    print(f"screenshots: {tmp_path}")


def test_report_with_prices_in_chromium(report, browser_page, tmp_path):
    check_report(browser_page, report.html, tmp_path / "capacity_prices.png")
    check_layout(
        browser_page, report.html, tmp_path / "prices",
        first_screen=[".anfperf-cards", ".anfperf-card:last-child"],
    )  # fmt: skip
    assert browser_page.locator(".anfperf-card").count() == 9  # with the monthly cost


def test_report_with_a_prices_file_shows_cost_per_option_and_a_cost_what_if(retail_report):
    nb = nbformat.read(retail_report.ipynb, as_version=4)
    assert not [o for o in outputs(nb) if o.output_type == "error"]
    html = "".join(html_outputs(nb)).replace("&#x27;", "'")
    # the cheapest option and its cost, as `anfperf plan` computes them by hand (test_cli):
    # a Flexible 4 TiB pool 2,451.40 USD + one D8ds_v4 329.96 USD = 2,781.36 USD a month
    assert 'anfperf-card-value">2,781 USD<' in html
    assert "4 TiB pool 2,451 + 1 x D8ds_v4 330 USD" in html
    assert "Prices: list prices of eastus from retail_prices_anf_vm.json" in html
    for label in ("Pool [TiB]", "Pool cost [USD/month]", "Monthly cost [USD]",
                  "VMs [USD/month]"):  # fmt: skip
        assert label in html, label
    figures = [o.data[PLOTLY] for o in outputs(nb) if PLOTLY in o.get("data", {})]
    cost = [f for f in figures if f["layout"]["title"]["text"].startswith("Monthly cost vs")]
    assert len(figures) == 4 and len(cost) == 1
    layout, names = cost[0]["layout"], [t.get("name") for t in cost[0]["data"]]
    assert "list prices of eastus" in layout["title"]["text"]
    assert layout["xaxis"]["title"]["text"] == "Throughput [MiB/s]"
    assert layout["yaxis"]["title"]["text"] == "Monthly cost of the capacity pool [USD]"
    assert names[:1] == ["Standard"] and "Flexible: 2,451 USD a month at the target" in names
    assert "Ultra: 6,435 USD a month at the target" in names  # 16 TiB x 1024 x 0.000538 x 730
    assert "Standard cannot meet the target" in layout["title"]["text"]  # 1,600 MiB/s cap


def test_report_with_a_prices_file_in_chromium(retail_report, browser_page, tmp_path):
    seen = check_report(browser_page, retail_report.html, tmp_path / "capacity_retail.png")
    assert seen["graphs"] == 4
    check_layout(
        browser_page, retail_report.html, tmp_path / "retail",
        first_screen=[".anfperf-cards", ".anfperf-verdict"],
    )  # fmt: skip
    assert browser_page.locator(".anfperf-card").count() == 9  # with the monthly cost
    legend = browser_page.evaluate(
        "() => [...document.querySelectorAll('.plotly-graph-div')].map("
        "d => [...d.querySelectorAll('.legendtext')].map(t => t.textContent))"
    )
    assert any("Flexible: 2,451 USD a month at the target" in names for names in legend)
    print(f"screenshots: {tmp_path}")


# --------------------------------------------------------------------------------------------
# A live kernel: the widget, its controls moved from kernel code

#: Kernel code reading back the app's state after each change, as JSON on stdout.
STATE = """
import json as _json
def _state(app):
    c = app.controls
    head = [o["data"].get("text/html", "") for o in app.outputs["headline"].outputs]
    det = app.outputs["details"].outputs
    return {
        "unit": c["unit"].value, "target": c["target"].value,
        "target_mib_s": app.inputs.target_mib_s, "target_iops": app.inputs.target_iops,
        "bs_kib": app.inputs.bs_kib, "vm_label": c["vm_size"].label,
        "cards": sum("anfperf-cards" in h for h in head),
        "no_plan": any("No plan:" in h for h in head),
        "figures": sum("application/vnd.plotly.v1+json" in o["data"] for o in det),
        "error": app.error,
    }
"""


@pytest.fixture(scope="module")
def kernel():
    """A python3 kernel of the venv, in notebooks/, as JupyterLab starts it (no batch)."""
    from jupyter_client.manager import KernelManager

    env = _env()
    env.pop("ANFPERF_BATCH", None)
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(NOTEBOOK.parent), env=env)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    yield kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def run(kc, code: str) -> list[dict]:
    """Run code in the kernel; its outputs (iopub messages' contents with their type)."""
    got: list[dict] = []

    def hook(msg):
        kind = msg["header"]["msg_type"]
        if kind in ("execute_result", "display_data", "stream", "error"):
            got.append({"type": kind, **msg["content"]})

    reply = kc.execute_interactive(code, timeout=CELL_TIMEOUT_S, output_hook=hook)
    errors = [o for o in got if o["type"] == "error"]
    assert reply["content"]["status"] == "ok" and not errors, errors or reply["content"]
    return got


def state(kc, change: str = "") -> dict:
    out = run(kc, textwrap.dedent(change) + "\nprint(_json.dumps(_state(app)))")
    text = "".join(o["text"] for o in out if o["type"] == "stream" and o["name"] == "stdout")
    return json.loads(text.strip().splitlines()[-1])


def test_live_kernel_widget(kernel):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    per_cell = [run(kernel, c.source) for c in cells]
    # the plan once: the app's cell shows the widget and nothing else (no static cards)
    app_cell = next(i for i, c in enumerate(cells) if "app.show()" in c.source)
    assert [WIDGET in o.get("data", {}) for o in per_cell[app_cell]] == [True]
    shown = [o for outs in per_cell for o in outs if "data" in o]
    assert not any("anfperf-cards" in o["data"].get("text/html", "") for o in shown)
    run(kernel, STATE)
    s = state(kernel)
    assert s["cards"] == 1 and s["figures"] == 3 and not s["no_plan"]
    assert (s["unit"], s["target"], s["target_mib_s"]) == ("MiB/s", 2000, 2000)
    # the VM size shows "any", not a blank
    assert s["vm_label"] == "any"
    # MiB/s -> IOPS converts at the block size: 2,000 MiB/s of 64 KiB = 32,000 IOPS
    s = state(kernel, 'app.controls["unit"].value = "IOPS"')
    assert (s["target"], s["target_iops"], s["target_mib_s"]) == (32_000, 32_000, None)
    # with IOPS shown, a block-size change keeps the IOPS; back to MiB/s at 8 KiB: 250 MiB/s
    s = state(kernel, 'app.controls["bs_kib"].value = 8')
    assert (s["target"], s["target_iops"], s["bs_kib"]) == (32_000, 32_000, 8)
    s = state(kernel, 'app.controls["unit"].value = "MiB/s"')
    assert (s["target"], s["target_mib_s"]) == (250, 250)
    # a target nothing meets: the reason, and no charts of the previous plan under it
    s = state(kernel, 'app.controls["target"].value = 50000.0')
    assert s["no_plan"] and s["figures"] == 0 and s["cards"] == 0 and "cap" in s["error"]
    s = state(kernel, 'app.controls["target"].value = 1000.0')
    assert s["cards"] == 1 and s["figures"] == 3 and s["error"] is None
