"""The Stop button in a real browser (ui/stopping.py): clicked while the first page evaluates the bundled sample on
the worker pool, it stops the evaluation — the page says so, nothing restarts it, the server and its workers go
quiet (no task of the run left queued), and the server's only evaluation slot is free — and the page's Evaluate
button starts it again, to its charts.

``streamlit run app.py`` of its own (tests/support/app_server.py: a fresh cache, so the first page computes; the
worker pool from 100 pairs; one evaluation at a time) and Debian's Chromium through Playwright. Linux only (the
process table is read from /proc). Marked slow.
"""

from __future__ import annotations

import re
import sqlite3
import sys
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.app_server import (
    BARS,
    BROWSER_TEST_OPTIONS,
    NO_EXCEPTION,
    AppServer,
    chromium_page,
    cpu_seconds,
    descendants,
    idle,
    require_chromium,
    wait_until,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc"),
]

ENV = {"KOREAN_EVAL_PARALLEL_MIN_PAIRS": "100", "KOREAN_EVAL_MAX_RUNNING": "1"}
STOPPED = "Stopped — no result for these settings; press Evaluate to go on from what it finished."
PROGRESS = '[data-testid="stProgress"]'


def _quiet(server: AppServer, seconds: float = 2.0) -> bool:
    """Whether the server and everything it started used less than 0.3 CPU-s in ``seconds``."""
    group = [server.pid, *descendants(server.pid)]
    before = cpu_seconds(group)
    time.sleep(seconds)
    return cpu_seconds(group) - before < 0.3


def _wait_for_charts(page, server: AppServer, seconds: float) -> None:
    """Wait for the first chart's bars; failing, say what the page shows and what the server wrote."""
    try:
        page.locator(BARS).first.wait_for(timeout=seconds * 1000)
    except PlaywrightTimeout:
        main = page.get_by_test_id("stMainBlockContainer").inner_text()[:1500]
        pytest.fail(f"no chart after {seconds} s; the page shows:\n{main}\nthe server wrote:\n{server.stderr()[-3000:]}")


def test_stop_ends_the_evaluation_and_evaluate_starts_it_again(tmp_path):
    require_chromium()
    with AppServer(tmp_path, env=ENV, options=BROWSER_TEST_OPTIONS) as server, \
            chromium_page(1280, 900, 240_000) as page:
        page.goto(server.url)
        stop = page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop")  # not the header's
        stop.wait_for()
        page.get_by_text(re.compile("tokenising at level|scoring")).first.wait_for()  # the engine at work
        assert server.workers(), f"the evaluation ran without worker processes\n{server.stderr()[-3000:]}"
        clicked = time.monotonic()
        stop.click()
        page.get_by_text(STOPPED).wait_for(timeout=30_000)
        assert time.monotonic() - clicked < 15
        idle(page)
        assert page.locator(PROGRESS).count() == 0 and stop.count() == 0
        assert page.locator(BARS).count() == 0
        # nothing restarts it, and nothing of it goes on: the workers finish the chunks they had begun, no more
        assert wait_until(lambda: _quiet(server), 60, 0.0), "the server still computes after the stop"
        assert page.get_by_text(STOPPED).count() == 1 and page.locator(PROGRESS).count() == 0

        page.get_by_role("button", name="Evaluate").click()  # the server's one slot is free: it computes at once
        _wait_for_charts(page, server, 180)
        idle(page)
        assert page.get_by_text(STOPPED).count() == 0
        assert page.locator(NO_EXCEPTION).count() == 0
        assert "Traceback" not in server.stderr(), server.stderr()[-3000:]


def test_streamlits_own_stop_marks_the_evaluation_stopped(tmp_path):
    """The Stop of Streamlit's header (not ours) during the evaluation: the script stops, the server goes quiet, no
    result is stored, and the next rerun says "Stopped" instead of starting the evaluation again. (That a stopped
    run keeps the levels it finished: tests/app/test_stop_button.py and tests/unit/engine/test_progress_and_stop.py.)"""
    require_chromium()
    with AppServer(tmp_path, env=ENV, options=BROWSER_TEST_OPTIONS) as server, \
            chromium_page(1280, 900, 240_000) as page:
        page.goto(server.url)
        page.locator(PROGRESS).get_by_text(re.compile("tokenising at level")).first.wait_for()  # the engine at work
        page.get_by_test_id("stStatusWidget").get_by_role("button", name="Stop").click()
        assert wait_until(lambda: _quiet(server), 60, 0.0), "the server still computes after the stop"
        with sqlite3.connect(tmp_path / "cache" / "cache-v1.sqlite") as con:
            results = con.execute("SELECT COUNT(*) FROM blobs WHERE kind = 'result'").fetchone()[0]
        assert results == 0 and page.locator(BARS).count() == 0, server.stderr()[-3000:]
        page.keyboard.press("r")  # Streamlit's shortcut: rerun the page
        page.get_by_text(STOPPED).wait_for(timeout=30_000)
        idle(page)
        assert page.locator(BARS).count() == 0 and page.locator(NO_EXCEPTION).count() == 0
        assert "Traceback" not in server.stderr(), server.stderr()[-3000:]
