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

    Asserts that plotly.js is loaded, every graph div holds a drawn SVG, the console has no
    errors, and every request is the file itself or a ``data:`` URL (nothing outside the file).
    Saves a full-page screenshot.

    Returns
    -------
    dict
        {'graphs': number of graph divs, 'requests': URLs requested, 'console_errors': [...],
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
    return {
        "graphs": n,
        "requests": requests,
        "console_errors": errors,
        "title": page.title(),
        "text": page.inner_text("body"),
        "screenshot": Path(screenshot_path),
    }
