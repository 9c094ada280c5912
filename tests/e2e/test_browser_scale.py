"""The dashboard at scale in a real browser: 20 systems × :data:`~tests.support.large_evaluation.LAYOUT_SEGMENTS`
segments (``tests/support/large_evaluation.py``; 500 when writing the README's screenshot) uploaded as one long
table through the Data page, six token levels × BLEU, chrF++, TER and EED; every page (each tab of the Korean lens,
every expander open, the significance matrix computed) at 1280 and 1920 px wide, where no table, data grid, download
button or card may be wider than its box (in the page: ``scrollWidth <= clientWidth + 1``), and at 1280 px no
chart's label may be cut at its edge or overlap another.

A view with a problem is photographed whole into the test's temporary directory (for the reader of the failure).
``KOREAN_EVAL_WRITE_SCREENSHOT=<path>`` also writes the Correlations page at 1280 px wide to ``<path>`` (the
README's ``docs/screenshot-correlations.png``). Needs ``/usr/bin/chromium`` (see
``tests/e2e/test_browser_dashboard.py``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support.app_server import NO_EXCEPTION, chromium_page, idle, settle, upload
from tests.support.large_evaluation import LAYOUT_SEGMENTS, write_large_evaluation

pytestmark = pytest.mark.browser
#: The fixtures ``server`` and ``chromium``, shared by the e2e modules.
pytest_plugins = ("tests.support.browser_server",)

#: Segments per system: LAYOUT_SEGMENTS (the tables' widths depend on the systems, levels and metrics, not on the
#: segments), 500 for the README's screenshot (its numbers are those of 20 systems × 500 segments); any count through
#: KOREAN_EVAL_E2E_SEGMENTS.
SEGMENTS = int(os.environ.get("KOREAN_EVAL_E2E_SEGMENTS",
                              500 if os.environ.get("KOREAN_EVAL_WRITE_SCREENSHOT") else LAYOUT_SEGMENTS))
#: Widths checked, px, in a viewport :data:`HEIGHT` px tall. The checks read every element of the page, in view or
#: not (Streamlit draws the whole page: the checks find the same problems, none or the same ones, with the page in
#: view as in an 800 px window — compared on every view); Playwright's headless Chromium hides scrollbars
#: (``--hide-scrollbars``), so no box's width depends on the viewport's height. A viewport as tall as the page (up
#: to 16,000 px) made every frame Chromium drew — each redraw, resize and click — cost more: 44 CPU-s of Chromium
#: for this test against 34 at 800 px. Only a view with a problem is photographed whole (:func:`_photograph`, at most
#: :data:`MAX_HEIGHT` px).
WIDTHS = (1280, 1920)
HEIGHT = 800
MAX_HEIGHT = 16_000
#: Levels added to the default ones (word, mecab, kiwi, char, jamo) and metrics chosen in the sidebar: the widest
#: tables (one column per level) and long metric names, at a cost that keeps the test within a few minutes.
EXTRA_LEVELS = ("spm",)
METRICS = ("BLEU", "chrF++", "TER", "EED")
ALL_METRICS = ("BLEU", "chrF", "chrF+", "chrF++", "TER", "NLTK-BLEU", "GLEU", "NIST", "RIBES", "CharacTER", "EED")

#: In-page check: every table, data grid, download button and metric card whose content is wider than its box.
OVERFLOWS_JS = r"""() => {
  const boxes = [
    ['table', '[data-testid="stTable"]'], ['table', '[data-testid="stTable"] div'],
    ['dataframe', '[data-testid="stDataFrame"]'], ['dataframe', '[data-testid="stDataFrame"] .dvn-scroller'],
    ['download button', '[data-testid="stDownloadButton"] button'],
    ['download button', '[data-testid="stDownloadButton"] button *'],
    ['card', '[data-testid="stMetricValue"]'], ['card', '[data-testid="stMetricValue"] *'],
    ['card', '[data-testid="stMetricLabel"] *'],
  ];
  const out = [];
  for (const [what, selector] of boxes) {
    for (const el of document.querySelectorAll(selector)) {
      if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
        out.push(`${what}: ${el.scrollWidth} > ${el.clientWidth}: ${(el.innerText || '').replace(/\s+/g, ' ').slice(0, 80)}`);
      }
    }
  }
  const main = document.querySelector('[data-testid="stMain"]');
  if (main && main.scrollWidth > main.clientWidth + 1) out.push(`page: ${main.scrollWidth} > ${main.clientWidth}`);
  return out;
}"""
#: In-page check of every drawn Plotly chart: each title, axis title, tick label and annotation lies inside the
#: chart's own box (none cut at its edge), and no two tick labels of one axis overlap (skipped for labels at a slant,
#: whose bounding boxes overlap while their text does not).
PLOT_TEXT_JS = r"""() => {
  const out = [];
  const box = e => e.getBoundingClientRect();
  const text = e => (e.textContent || '').trim().slice(0, 40);
  const slanted = e => { const m = /rotate\((-?[\d.]+)/.exec(e.getAttribute('transform') || ''); return m && Math.abs(parseFloat(m[1])) % 90 > 1; };
  const labels = '.gtitle, .g-xtitle text, .g-ytitle text, .g-x2title text, .xtick text, .ytick text, .x2tick text, '
    + '.annotation-text, .cbtitle text';
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const svg = plot.querySelector('.main-svg');
    const frame = svg && box(svg);
    if (!frame || frame.width === 0) continue;
    const title = plot.querySelector('.gtitle');
    const where = title ? text(title) : '(untitled chart)';
    for (const t of plot.querySelectorAll(labels)) {
      const b = box(t);
      if (b.width === 0 || !text(t)) continue;
      if (b.left < frame.left - 1 || b.right > frame.right + 1 || b.top < frame.top - 1 || b.bottom > frame.bottom + 1) {
        out.push(`${where}: "${text(t)}" cut at the chart's edge`);
      }
    }
    for (const layer of plot.querySelectorAll('.xaxislayer-above, .yaxislayer-above')) {
      const ticks = [...layer.querySelectorAll('text')].filter(t => box(t).width > 0 && text(t) && !slanted(t));
      const boxes = ticks.map(box);
      for (let i = 0; i < ticks.length; i++) {
        for (let j = i + 1; j < ticks.length; j++) {
          const w = Math.min(boxes[i].right, boxes[j].right) - Math.max(boxes[i].left, boxes[j].left);
          const h = Math.min(boxes[i].bottom, boxes[j].bottom) - Math.max(boxes[i].top, boxes[j].top);
          if (w > 1 && h > 1) out.push(`${where}: tick labels "${text(ticks[i])}" and "${text(ticks[j])}" overlap`);
        }
      }
    }
  }
  return out;
}"""
#: In-page count of the shown elements the checks read (tables, data grids, download buttons, cards, charts): a view
#: without any would pass them for want of content.
CHECKED_ELEMENTS_JS = """() => [...document.querySelectorAll(
  '[data-testid="stMain"] :is([data-testid="stTable"], [data-testid="stDataFrame"], [data-testid="stDownloadButton"],'
  + ' [data-testid="stMetric"], .js-plotly-plot)')].filter(e => e.clientWidth > 0).length"""
CONTENT_HEIGHT_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const block = document.querySelector('[data-testid="stMainBlockContainer"]');
  return Math.ceil(block.getBoundingClientRect().bottom + main.scrollTop);
}"""


@pytest.fixture(scope="module")
def large_csv(tmp_path_factory) -> Path:
    return write_large_evaluation(tmp_path_factory.mktemp("large"), segments=SEGMENTS)


@pytest.fixture(scope="module")
def browser_page(server, chromium):
    with chromium_page(WIDTHS[0], HEIGHT, 240_000, chromium) as pg:
        yield pg


def _check_view(pg, view: str, folder: Path) -> dict[str, list[str]]:
    """The open view at each of :data:`WIDTHS`, the viewport's own width first (so that a view costs one change of
    width): the overflows found there (:data:`OVERFLOWS_JS`), at 1280 px also the charts' cut or overlapping labels
    (:data:`PLOT_TEXT_JS`); a view with a problem is photographed, ``folder / f"{view}-{width}.png"``. A new
    viewport runs no script: each size is read once the layout has settled (:func:`tests.support.app_server.settle`)."""
    problems: dict[str, list[str]] = {}
    for width in sorted(WIDTHS, key=lambda w: w != pg.viewport_size["width"]):
        if width != pg.viewport_size["width"]:
            pg.set_viewport_size({"width": width, "height": HEIGHT})
        settle(pg)
        found = pg.evaluate(OVERFLOWS_JS) + (pg.evaluate(PLOT_TEXT_JS) if width == 1280 else [])
        assert pg.evaluate(CHECKED_ELEMENTS_JS) > 0, (view, width)
        assert pg.locator(NO_EXCEPTION).count() == 0, (view, width)
        if found:
            problems[f"{view} at {width}"] = sorted(set(found))
            _photograph(pg, folder / f"{view}-{width}.png")
    return problems


def _photograph(pg, path: Path) -> None:
    """The whole page (at most :data:`MAX_HEIGHT` px) into ``path``: Streamlit scrolls inside its own container, not
    the document, so the viewport is made as tall as the page for the picture, then :data:`HEIGHT` again."""
    width = pg.viewport_size["width"]
    height = min(int(pg.evaluate(CONTENT_HEIGHT_JS)), MAX_HEIGHT)
    pg.set_viewport_size({"width": width, "height": max(height, HEIGHT)})
    settle(pg)
    pg.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": width, "height": height})
    pg.set_viewport_size({"width": width, "height": HEIGHT})
    settle(pg)


def _open_expanders(pg) -> None:
    """Open every collapsed expander in view (their tables must fit too; those in hidden tabs wait for their tab),
    each once the previous one is open (the layout is left to settle by :func:`_check_view`)."""
    closed = pg.locator('[data-testid="stExpander"] details:not([open]) > summary:visible')
    for _ in range(20):
        if not closed.count():
            break
        details = closed.first.locator("xpath=..").element_handle()
        closed.first.click()
        pg.wait_for_function("details => details.open", arg=details)


def _pressed(sidebar, name: str) -> bool:
    """Whether a sidebar pill (or multi-select segmented control) button is on."""
    return sidebar.get_by_role("button", name=name, exact=True).first.get_attribute("aria-pressed") == "true"


def _pill(sidebar, name: str, on: bool) -> None:
    """Switch a sidebar pill (or multi-select segmented control) button on or off, and wait for its run."""
    if _pressed(sidebar, name) != on:
        sidebar.get_by_role("button", name=name, exact=True).first.click()
        idle(sidebar.page)


def _choose_settings(pg) -> None:
    """Sidebar: the default levels plus :data:`EXTRA_LEVELS`; of the metrics only :data:`METRICS` (each pill
    clicked once the previous click's run has ended, so that every run starts from the state the test has seen)."""
    sidebar = pg.locator('[data-testid="stSidebar"]')
    for level in EXTRA_LEVELS:
        sidebar.locator("label").filter(has_text=re.compile(f"^{re.escape(level)}$")).click()
        idle(pg)
    sidebar.get_by_role("button", name=re.compile("Apply")).click()  # the ticked levels take effect together
    idle(pg)
    _pill(sidebar, "extended", True)
    for name in ALL_METRICS:
        _pill(sidebar, name, name in METRICS)
    assert [name for name in ALL_METRICS if _pressed(sidebar, name)] == list(METRICS)


def _load_large(pg, server_url: str, csv: Path) -> None:
    """The Data page: settings first (nothing is computed there), then the long table through its uploader."""
    pg.goto(f"{server_url}/data")
    pg.get_by_role("heading", name="Data", exact=True).wait_for()
    pg.get_by_text("Token levels").wait_for()
    idle(pg)
    _choose_settings(pg)
    pg.get_by_role("radio", name="One long table", exact=True).click()
    idle(pg)
    upload(pg, "One table with a row per", [csv])
    pg.get_by_role("button", name="Use this table").click()
    pg.get_by_text("Every page now shows these data").wait_for()
    idle(pg)


PAGES = {
    "correlations": ("Correlations", ".js-plotly-plot"),
    "scores": ("Scores & rankings", '[data-testid="stTable"]'),
    "segments": ("Segments", ".js-plotly-plot .scatterlayer .point"),
    "tokens": ("Tokens", '[data-testid="stTable"]'),
    "lens": ("Korean lens", ".js-plotly-plot"),
    "data": ("Data", '[data-testid="stMetric"]'),
    "downloads": ("Downloads", '[data-testid="stDownloadButton"]'),
}
#: Pages whose content sits in tabs: each tab is opened, checked and screenshotted on its own.
TABS = {"lens": ("Error profile", "Speech level & spacing", "Perturbation probe", "What the humans punish")}


def _prepare(pg, name: str) -> None:
    """What a reader would open on the page before reading it: every expander, and on the Correlations page the
    significance matrix with its rank clusters (at the system level: seconds, not minutes)."""
    if name == "correlations":
        pg.locator('[data-testid="stRadio"] label').filter(has_text=re.compile("^system$")).first.click()
        idle(pg)
        pg.get_by_text("Compute the significance matrix", exact=True).first.click()
        idle(pg)
        pg.get_by_text("Rank clusters", exact=True).first.wait_for()
    _open_expanders(pg)


def _readme_screenshot(pg, path: str) -> None:
    """The top of the Correlations page at 1280 × 1350 (the headline cards and the segment-level chart): the
    README's picture."""
    pg.set_viewport_size({"width": 1280, "height": 1350})
    pg.evaluate("() => document.querySelectorAll('[data-testid^=\"stSidebar\"]').forEach(e => e.scrollTo(0, 0))")
    settle(pg)
    pg.screenshot(path=path)


def test_every_page_fits_at_1280_and_1920(server, browser_page, large_csv, tmp_path):
    pg = browser_page
    _load_large(pg, server, large_csv)
    assert pg.get_by_text(f"20 systems × {SEGMENTS} segments").count() >= 1
    problems: dict[str, list[str]] = {}
    for name, (link, ready) in PAGES.items():
        pg.get_by_role("link", name=link, exact=True).click()
        pg.locator(ready).first.wait_for(timeout=600_000)
        idle(pg)
        if name == "correlations" and os.environ.get("KOREAN_EVAL_WRITE_SCREENSHOT"):
            _readme_screenshot(pg, os.environ["KOREAN_EVAL_WRITE_SCREENSHOT"])
        _prepare(pg, name)
        assert pg.locator(NO_EXCEPTION).count() == 0, name
        for tab in TABS.get(name, (None,)):
            view = name
            if tab is not None:
                pg.get_by_role("tab", name=tab, exact=True).click()
                pg.get_by_role("tab", name=tab, exact=True, selected=True).wait_for()  # its panel shown
                _open_expanders(pg)
                view = f"{name}-{re.sub(r'[^a-z]+', '-', tab.lower()).strip('-')}"
            problems.update(_check_view(pg, view, tmp_path))
    assert not problems, problems
