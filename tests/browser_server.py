"""The dashboard server of the real-browser tests, one per pytest process: a pytest plugin, named in
``pytest_plugins`` by each module that drives the dashboard in Chromium (tests/test_e2e_browser.py,
tests/test_e2e_mqm.py, tests/test_e2e_scale.py), so that their fixture ``server`` is one session-scoped server
however many of those modules a process runs (under pytest-xdist, one per worker that runs any of them).

Starting a server and its first run (importing the backend, loading Kiwi's model to list the token levels) cost
about 4 CPU-s and 5 s each time. Sharing one changes nothing a test reads: every browser page is a Streamlit session
of its own (its own data, settings and widgets), and what the sessions share are the server's caches keyed by the
data's content (results, statistics, tokenisations), which only spare recomputing identical numbers. Each of those
modules first opens the Data page by a direct link, so whichever runs first does so on a freshly started server,
before any session ran app.py's ``st.navigation`` (the redirect of ``ui.state.enter_page``, docs/design.md §7).

Chromium is not shared across modules: Playwright's synchronous API marks its event loop as running in the calling
thread for as long as it is started, which would break ``asyncio.run`` in every later test of the process.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.app_server import BROWSER_TEST_OPTIONS, AppServer, require_chromium


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Iterator[str]:
    """The URL of ``streamlit run app.py`` (:data:`tests.app_server.BROWSER_TEST_OPTIONS`), started at the first
    test that asks for it and stopped at the end of the session."""
    require_chromium()
    with AppServer(tmp_path_factory.mktemp("e2e-server"), options=BROWSER_TEST_OPTIONS) as app:
        yield app.url
