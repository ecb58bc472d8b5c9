"""Browser check of reports: Playwright driving Debian's chromium (no browser download).

``browser_page`` is a fresh page of one chromium per test module; :func:`check_report` opens a
report from ``file://`` and checks what a reader would see: every figure drawn, no console
errors, no request leaving the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Report views are wide pages (tables, charts): a laptop-sized window.
VIEWPORT = {"width": 1280, "height": 900}


def _unavailable(reason: str):
    # In CI the browser check is part of the product: a missing chromium is a failure there.
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser check cannot run in CI: {reason}")
    pytest.skip(f"browser check skipped: {reason}")


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        _unavailable(f"playwright is not installed ({exc}); pip install -e '.[test]'")
    if not os.access(CHROMIUM, os.X_OK):
        _unavailable(f"{CHROMIUM} is missing: apt-get install chromium (make sysdeps)")
    with sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except Exception as exc:  # playwright raises its own Error types
            _unavailable(f"chromium did not start: {exc}")
        yield b
        b.close()


@pytest.fixture
def browser_page(browser):
    """A new page (own context: no cache or storage shared between tests)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    yield page
    context.close()


def check_report(page, html_path: str | os.PathLike, screenshot_path: str | os.PathLike) -> dict:
    """Open a report from file:// and check it the way a reader sees it.

    Unfolds every ``<details>`` section, then asserts that plotly.js is loaded, every graph div
    holds a drawn SVG, the console has no errors, and every request is the file itself or a
    ``data:`` URL (nothing outside the file). Saves a full-page screenshot.

    Returns
    -------
    dict
        {'graphs': number of graph divs, 'chart_titles': their titles as drawn, 'requests':
        URLs requested, 'console_errors': [...],
        'title': page title, 'text': the page's visible text, 'screenshot': path}
    """
    from anfperf.report import GRAPH_CLASS

    url = Path(html_path).resolve().as_uri()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    page.goto(url, wait_until="load")
    # a reader can unfold every section: check (and read) all of the page, folded parts too
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    n = page.locator(f".{GRAPH_CLASS}").count()
    if n:
        page.wait_for_function("() => typeof window.Plotly === 'object'", timeout=15_000)
        # Plotly.newPlot draws asynchronously; wait until every div has its main SVG
        page.wait_for_function(
            "([cls, n]) => document.querySelectorAll(`.${cls} .main-svg`).length >= n",
            arg=[GRAPH_CLASS, n],
            timeout=15_000,
        )
    undrawn = page.evaluate(
        "(cls) => [...document.querySelectorAll('.' + cls)]"
        ".filter(d => !d.querySelector('svg.main-svg')).map(d => d.id)",
        GRAPH_CLASS,
    )
    assert not undrawn, f"graphs without an SVG: {undrawn}"
    outside = [u for u in requests if u != url and urlparse(u).scheme != "data"]
    assert not outside, f"the report requested something outside the file: {outside}"
    assert not errors, f"console errors: {errors}"
    page.screenshot(path=str(screenshot_path), full_page=True)
    titles = page.evaluate(
        "(cls) => [...document.querySelectorAll('.' + cls + ' .gtitle')].map((t) => t.textContent)",
        GRAPH_CLASS,
    )
    return {
        "graphs": n,
        "chart_titles": titles,
        "requests": requests,
        "console_errors": errors,
        "title": page.title(),
        "text": page.inner_text("body"),
        "screenshot": Path(screenshot_path),
    }


#: The two screens a report is read on.
SCREENS = ({"width": 1366, "height": 768}, {"width": 1920, "height": 1080})

# Every element whose right edge passes the viewport and that is not inside a box that
# scrolls sideways (a wide table's own box), as "tag.class: text".
_OVERFLOWING_JS = """
() => {
  const w = document.documentElement.clientWidth;
  const scrolls = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p).overflowX;
      if ((s === 'auto' || s === 'scroll') && p.getBoundingClientRect().right <= w + 1) return true;
    }
    return false;
  };
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.right > w + 1 && !scrolls(el)) {
      out.push(`${el.tagName.toLowerCase()}.${el.className}: ${(el.innerText || '').slice(0, 40)}`);
    }
  }
  return out.slice(0, 10);
}
"""

# Table cells that show a value no reader should see, and tables with a pandas index.
_BAD_CELLS_JS = """
() => {
  const bad = [];
  for (const td of document.querySelectorAll('td')) {
    const t = td.innerText.trim();
    if (/^(nan|NaN|<NA>|NaT|None|inf|-inf|True|False)$/.test(t)) bad.push(t);
  }
  const indexed = [...document.querySelectorAll('table')].filter(
    (t) => t.querySelector('tbody th') || (t.querySelector('thead th') && !t.querySelector('thead th').innerText.trim())
  ).length;
  // prose and names read from the left, numbers line up on the right (JupyterLab's own CSS
  // right-aligns every cell)
  const misaligned = [...document.querySelectorAll(
    'td.anfperf-prose, td.anfperf-text, td.anfperf-num, #anfperf-provenance td'
  )].filter((td) => getComputedStyle(td).textAlign !== (
    td.classList.contains('anfperf-num') ? 'right' : 'left'
  )).map((td) => td.innerText.slice(0, 30));
  return {bad: bad.slice(0, 10), indexed, misaligned: misaligned.slice(0, 10)};
}
"""

# Graph divs without a drawn trace.
_EMPTY_GRAPHS_JS = """
(cls) => [...document.querySelectorAll('.' + cls)].filter(
  (g) => !(g.data && g.data.length && g.querySelector('g.trace, g.barlayer g.point, g.heatmaplayer'))
).map((g) => g.id)
"""


def check_layout(page, html_path, screenshot_stem, first_screen: list[str]) -> dict:
    """A report as read at 1366x768 and 1920x1080, its folded sections opened.

    Asserts, on each screen: every selector of `first_screen` (the headline cards, the key
    chart, ...) lies within the first viewport; nothing runs past the right edge except inside
    its own scroll box; no table cell shows NaN, <NA>, inf, True/False, no table has an
    index column, text is left-aligned and numbers right-aligned; every plotly chart has drawn traces. Saves ``<stem>-<width>.png`` (the first
    screen) and ``<stem>-<width>-full.png`` (the whole page, sections open).

    Returns
    -------
    dict
        Per width: {'height': page height [px], 'boxes': {selector: bounding box}}.
    """
    from anfperf.report import GRAPH_CLASS

    out = {}
    url = Path(html_path).resolve().as_uri()
    for screen in SCREENS:
        page.set_viewport_size(screen)
        page.goto(url, wait_until="load")
        if page.locator(f".{GRAPH_CLASS}").count():
            page.wait_for_function("() => typeof window.Plotly === 'object'", timeout=15_000)
        boxes = {}
        for selector in first_screen:
            box = page.locator(selector).first.bounding_box()
            assert box is not None, f"{selector} is not on the page"
            assert box["y"] + box["height"] <= screen["height"], (
                f"{selector} ends at {box['y'] + box['height']:.0f} px, below the first "
                f"screen ({screen['width']}x{screen['height']})"
            )
            assert box["x"] + box["width"] <= screen["width"], f"{selector} is cut at the right"
            boxes[selector] = box
        page.screenshot(path=f"{screenshot_stem}-{screen['width']}.png")
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        page.wait_for_timeout(300)
        overflowing = page.evaluate(_OVERFLOWING_JS)
        assert not overflowing, f"wider than the {screen['width']} px page: {overflowing}"
        cells = page.evaluate(_BAD_CELLS_JS)
        assert not cells["bad"], f"table cells a reader should not see: {cells['bad']}"
        assert not cells["indexed"], f"{cells['indexed']} table(s) with an index column"
        assert not cells["misaligned"], f"cells aligned the wrong way: {cells['misaligned']}"
        empty = page.evaluate(_EMPTY_GRAPHS_JS, GRAPH_CLASS)
        assert not empty, f"charts without a drawn trace: {empty}"
        page.screenshot(path=f"{screenshot_stem}-{screen['width']}-full.png", full_page=True)
        out[screen["width"]] = {
            "height": page.evaluate("document.body.scrollHeight"),
            "boxes": boxes,
        }
    return out
