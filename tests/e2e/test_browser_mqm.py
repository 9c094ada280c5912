"""MQM ratings in a real browser (``streamlit run app.py``, Playwright, Debian's Chromium): text files and two raters'
``.seg.rating`` files uploaded on the Data page → the Correlations page draws the human ceiling as a dashed line
on its bar charts, and the Korean lens's "Error spans (MQM)" tab draws its category table and tracking grid.
Screenshots ``correlations-mqm-ceiling.png`` and ``lens-mqm-spans.png`` in the test's temporary directory, or in
``$KOREAN_EVAL_ARTIFACTS`` when set."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.app_server import BARS, NO_EXCEPTION, chromium_page, idle, shot, upload
from tests.support.make_mtme_fixture import LP, texts
from tests.support.make_spans_fixture import RATERS, rating_lines

pytestmark = pytest.mark.browser
#: The fixtures ``server``, ``chromium`` and ``artifacts``, shared by the e2e modules.
pytest_plugins = ("tests.support.browser_server",)


def _files(folder: Path) -> dict[str, list[Path]]:
    refs = texts()[1]
    (folder / "ref.txt").write_text("\n".join(refs["refA"]) + "\n", encoding="utf-8")
    systems = []
    for name, lines in texts()[2].items():  # the MT systems (the ratings of the reference copies are excluded)
        systems.append(folder / f"{name}.txt")
        systems[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    ratings = []
    for rater in RATERS:
        ratings.append(folder / f"{LP}.mqm.{rater}.seg.rating")
        ratings[-1].write_text(rating_lines(rater), encoding="utf-8")
    return {"ref": [folder / "ref.txt"], "systems": systems, "ratings": ratings}


def test_the_ceiling_line_is_drawn_in_the_browser(server, chromium, tmp_path_factory, artifacts):
    files = _files(tmp_path_factory.mktemp("mqm-files"))
    with chromium_page(1500, 1100, 180_000, chromium) as page:
        page.goto(f"{server}/data")
        page.get_by_role("heading", name="Data", exact=True).wait_for()
        idle(page)
        upload(page, "Reference file(s)", files["ref"])
        upload(page, "System outputs", files["systems"])
        ratings = page.locator('[data-testid="stFileUploader"]').filter(has_text="Or error-span ratings")
        ratings.locator('input[type="file"]').set_input_files([str(f) for f in files["ratings"]])
        ratings.locator('[data-testid="stFileChip"]').nth(len(files["ratings"]) - 1).wait_for()  # names shortened
        ratings.locator('[data-testid="stFileChipIconSpinner"]').first.wait_for(state="detached")  # all uploaded
        idle(page)
        page.get_by_role("button", name="Use these files").click()
        page.get_by_text("Every page now shows these data").wait_for()
        idle(page)
        assert page.get_by_text("2 rater group(s)").count() >= 1
        page.get_by_role("link", name="Correlations").click()
        page.locator(BARS).first.wait_for(timeout=300_000)
        idle(page, 300)
        assert page.locator(NO_EXCEPTION).count() == 0
        assert page.locator(".js-plotly-plot .annotation-text", has_text="human ceiling").count() == 2
        assert page.get_by_text("Dashed line: the human ceiling").count() == 1
        picture = shot(page, artifacts, "correlations-mqm-ceiling", 2000)
        assert picture.stat().st_size > 50_000
        # The Korean lens: which Korean category each MQM span falls in, and which configuration tracks each category
        page.get_by_role("link", name="Korean lens").click()
        page.get_by_role("tab", name="Error spans (MQM)").click()
        page.get_by_text("MQM category × Korean category").first.wait_for(timeout=300_000)
        idle(page, 300)
        assert page.locator(NO_EXCEPTION).count() == 0
        heatmaps = page.locator(".js-plotly-plot .heatmaplayer >> visible=true")  # this tab's, not the hidden tabs'
        heatmaps.nth(1).wait_for(timeout=120_000)  # the category table and the tracking grid, both drawn
        assert heatmaps.count() >= 2
        picture = shot(page, artifacts, "lens-mqm-spans", 2600)
        assert picture.stat().st_size > 50_000
