"""The first page a fresh server shows (docs/design.md §7): the real navigation, never Streamlit's own list of the
``pages/*.py`` file names, which it shows until app.py's first run reaches ``st.navigation``.

A fresh server (its first run imports the whole backend, which takes seconds) opened in Chromium; the page is
polled from its first paint until the sidebar's settings have arrived. The navigation must be there before the
settings (while app.py is still importing the backend), and Streamlit's file list never. Needs ``/usr/bin/chromium``: without it the
test skips locally and fails under ``CI=true``.
"""

from __future__ import annotations

import pytest

from tests.support.app_server import (
    BROWSER_TEST_OPTIONS,
    AppServer,
    chromium_page,
    require_chromium,
    watch_first_paint,
)

pytestmark = pytest.mark.browser

TITLES = ["Correlations", "Scores & rankings", "Segments", "Tokens", "Korean lens", "Data", "Downloads"]


def test_a_fresh_server_shows_the_real_navigation_from_the_first_paint(tmp_path):
    require_chromium()
    with AppServer(tmp_path, options=BROWSER_TEST_OPTIONS) as server, chromium_page(1280, 800, 120_000) as page:
        seen = [state for _, state in watch_first_paint(page, server.url, "Token levels")]
    assert seen[-1]["done"], "the sidebar's settings never arrived"
    assert not [s["fileList"] for s in seen if s["fileList"]], "Streamlit's list of page files was shown"
    navs = [s["topNav"] for s in seen if s["topNav"]]
    assert navs and all(nav == TITLES for nav in navs), navs[:1]
    # the navigation is there before the sidebar's settings, which come once the backend is imported (app.py's
    # "Loading the evaluation library…" shows only when that takes over half a second)
    assert any(s["topNav"] and not s["done"] for s in seen), "the navigation came only after the backend was loaded"
