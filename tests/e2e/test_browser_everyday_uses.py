"""The dashboard's everyday uses in a real browser on real data (the WMT24 chat en→ko release: 4 systems × 550
segments), uploaded twice on the Data page — without human scores, then with them — and walked through every page.

Without human scores: the Scores & rankings page is a ranking check (the rank-movement chart, each configuration's
clusters, every pair's paired tests, no Human column and no text about humans); the pages that need human scores
say so in one line; the Downloads offer the ranking tables and no table of empty human rows. With human scores: the
comparison with the humans comes back beside the ranking check. Pictures of every page at 1280 px go to the
module's artifacts folder (``$KOREAN_EVAL_ARTIFACTS`` to keep them). Needs ``/usr/bin/chromium``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.app_server import NO_EXCEPTION, chromium_page, idle, shot, upload
from tests.support.helpers import SHARED, require

pytestmark = pytest.mark.browser
pytest_plugins = ("tests.support.browser_server",)

WMT24 = SHARED / "heldout" / "wmt24_chat_enko"
WIDTH = 1280


@pytest.fixture(scope="module")
def page(server, chromium):
    with chromium_page(WIDTH, 1000, 300_000, chromium) as pg:
        yield pg


def _upload(page, server: str, human: bool) -> None:
    folder = require(WMT24)
    page.goto(f"{server}/data")
    page.get_by_role("heading", name="Data", exact=True).wait_for()
    idle(page)
    upload(page, "Reference file(s)", [folder / "ref.txt"])
    upload(page, "System outputs", sorted((folder / "systems").glob("*.txt")))
    if human:
        upload(page, "Human scores", [folder / "human.tsv"])
    page.get_by_role("button", name="Use these files").click()
    page.get_by_text("Every page now shows these data").wait_for()
    idle(page)
    assert page.locator(NO_EXCEPTION).count() == 0


def _open(page, link: str) -> None:
    page.get_by_role("link", name=link).first.click()
    idle(page, 300)
    assert page.locator(NO_EXCEPTION).count() == 0, link


def _shot(page, folder: Path, name: str) -> None:
    path = shot(page, folder, name, 3000)
    assert path.stat().st_size > 20_000


def _table_headers(page) -> list[list[str]]:
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid="stTable"] table')].map(
        t => [...t.querySelectorAll('thead th')].map(th => th.innerText.trim()))""")


def test_without_human_scores_every_page(server, page, artifacts):
    _upload(page, server, human=False)

    _open(page, "Scores & rankings")
    page.get_by_text("How each system's rank moves", exact=False).first.wait_for(timeout=300_000)
    idle(page, 300)
    headers = _table_headers(page)
    assert headers and headers[0][0] == "system" and "Human" not in headers[0]
    assert any("p (paired bootstrap)" in h and "p (approx. randomization)" in h for h in headers)
    assert any("cluster" in h and "95% interval" in h for h in headers)
    text = page.inner_text("body")
    assert "Red cells" not in text and "No human scores" in text
    assert "approximate randomization: 10,000 trials" in text
    assert page.locator(".js-plotly-plot").count() >= 1
    _shot(page, artifacts, "no-human-scores")

    _open(page, "Correlations")
    page.get_by_text("no human scores", exact=False).first.wait_for()
    _shot(page, artifacts, "no-human-correlations")
    _open(page, "Segments")
    page.get_by_text("no human scores", exact=False).first.wait_for()
    _open(page, "Tokens")
    page.locator('[data-testid="stTable"]').first.wait_for(timeout=120_000)
    page.get_by_text("Scores of this pair at each token level", exact=False).first.wait_for(timeout=120_000)
    text = page.inner_text("body")
    assert "Reference" in text and "Hypothesis (system" in text
    assert "TER" in text and "chrF++" in text
    _shot(page, artifacts, "no-human-tokens")
    _open(page, "Downloads")
    page.locator('[data-testid="stDownloadButton"]').first.wait_for()
    buttons = page.locator('[data-testid="stDownloadButton"]').all_inner_texts()
    assert any("system_ranking.csv" in b for b in buttons)
    assert not any("correlations.csv" in b or "human_systems.csv" in b for b in buttons), buttons


def test_with_human_scores_every_page(server, page, artifacts):
    _upload(page, server, human=True)

    _open(page, "Correlations")
    page.locator(".js-plotly-plot").first.wait_for(timeout=300_000)
    idle(page, 300)
    _shot(page, artifacts, "human-correlations")
    # every number a headline card states is a value drawn in the charts (the card reads the chart's rows)
    plotted = page.evaluate("""() => {
        const numbers = v => typeof v === 'number' ? [v]  // plain arrays, typed arrays, Plotly's {bdata} arrays
            : (v && typeof v === 'object' && v._inputArray) ? numbers(v._inputArray)
            : (v && typeof v === 'object' && 'length' in v) ? Array.from(v).flatMap(numbers)
            : (v && typeof v === 'object') ? Object.values(v).flatMap(numbers) : [];
        return [...document.querySelectorAll('.js-plotly-plot')].flatMap(
            div => (div.data || []).flatMap(t => [...numbers(t.y), ...numbers(t.z)])).filter(isFinite);
    }""")
    bold = page.locator('[data-testid="stMarkdownContainer"] strong').all_inner_texts()
    statements = [t for t in bold if re.search(r"tie at the top|agrees most|Highest|cannot separate|No significant", t)]
    numbers = [n for text in statements for n in re.findall(r"[−-]?\d\.\d{2,4}", text)]
    assert statements and numbers, statements
    for number in numbers:
        value, digits = float(number.replace("−", "-")), len(number.split(".")[1])
        assert any(round(v, digits) == value for v in plotted), (number, statements)

    _open(page, "Scores & rankings")
    page.get_by_text("System ranking: humans vs", exact=False).first.wait_for(timeout=300_000)
    page.get_by_text("How each system's rank moves", exact=False).first.wait_for(timeout=300_000)
    idle(page, 300)
    headers = _table_headers(page)
    assert headers[0][:2] == ["system", "Human"]
    _shot(page, artifacts, "human-scores")
    for link in ("Segments", "Tokens", "Downloads"):
        _open(page, link)
    buttons = page.locator('[data-testid="stDownloadButton"]').all_inner_texts()
    assert any("correlations.csv" in b for b in buttons)
