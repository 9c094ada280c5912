"""The real app in a real browser: ``streamlit run app.py`` driven by Playwright on Debian's Chromium.

Uploads the sample's reference, system and human-score files through the Data page's file inputs, then checks that
the Correlations page draws its bars, and that every other page renders without an exception. The Correlations page
is photographed into the test's temporary directory (its picture must not be blank), or into
``$KOREAN_EVAL_ARTIFACTS`` when it is set, which also gets a picture of every other page (to look at them). Needs
``/usr/bin/chromium`` (``apt-get install -y chromium``): without it the tests skip locally and fail under
``CI=true``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from korean_eval.inputs.sample import sample_files
from tests.support.app_server import BARS, NO_EXCEPTION, chromium_page, idle, shot, upload

pytestmark = pytest.mark.browser
#: The fixtures ``server``, ``chromium`` and ``artifacts``, shared by the e2e modules.
pytest_plugins = ("tests.support.browser_server",)


@pytest.fixture(scope="module")
def page(server, chromium):
    with chromium_page(1500, 1100, 120_000, chromium) as pg:
        yield pg


def _shot_to_look_at(pg, name: str, height: int) -> None:
    """:func:`~tests.support.app_server.shot` into ``$KOREAN_EVAL_ARTIFACTS`` when it is set (a picture nothing
    in the test reads: only for a person to look at), else nothing."""
    if os.environ.get("KOREAN_EVAL_ARTIFACTS"):
        shot(pg, Path(os.environ["KOREAN_EVAL_ARTIFACTS"]), name, height)


def test_upload_sample_files_then_correlation_bars_are_drawn(server, page, artifacts):
    files = sample_files()
    # A link straight to a page arrives with the shared sidebar (on a fresh server too:
    # tests/support/browser_server.py).
    page.goto(f"{server}/data")
    page.get_by_role("heading", name="Data", exact=True).wait_for()
    page.get_by_text("Token levels").wait_for()
    idle(page)

    upload(page, "Reference file(s)", [files["ref"]])
    upload(page, "System outputs", files["systems"])
    page.get_by_text("System names (from the file names").wait_for()
    upload(page, "Human scores", [files["human"]])
    page.get_by_role("button", name="Use these files").click()
    page.get_by_text("Every page now shows these data").wait_for()
    idle(page)
    assert page.locator(NO_EXCEPTION).count() == 0
    _shot_to_look_at(page, "data-after-upload", 2600)

    page.get_by_role("link", name="Correlations").click()
    page.locator(BARS).first.wait_for(timeout=180_000)
    idle(page)
    bars = page.locator(BARS).count()
    assert bars >= 2 * 25, bars  # segment and system level, 5 levels × 5 metrics each
    assert page.locator(".js-plotly-plot").count() >= 2
    assert page.locator(NO_EXCEPTION).count() == 0
    # the uploaded human scores are the user's own: no "simulated" banner; the sidebar names the upload
    assert page.get_by_text("SIMULATED").count() == 0
    assert page.get_by_text("ref.txt + 5 system files").count() >= 1
    picture = shot(page, artifacts, "correlations")
    assert picture.stat().st_size > 50_000


@pytest.mark.parametrize(
    ("link", "ready"),
    [
        ("Scores & rankings", ".js-plotly-plot"),
        ("Segments", ".js-plotly-plot .scatterlayer .point"),
        ("Tokens", '[data-testid="stTable"]'),
        ("Downloads", '[data-testid="stDownloadButton"]'),
    ],
)
def test_every_page_renders(server, page, link, ready):
    if not page.url.startswith(server):
        page.goto(server)
    page.get_by_role("link", name=link).click()
    page.locator(ready).first.wait_for(timeout=120_000)
    idle(page)
    assert page.locator(NO_EXCEPTION).count() == 0
    _shot_to_look_at(page, link.split()[0].lower(), 2200)
