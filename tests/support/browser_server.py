"""The dashboard server and the Chromium of the real-browser tests: a pytest plugin, named in ``pytest_plugins`` by
each module that uses them (tests/e2e/test_browser_dashboard.py, tests/e2e/test_browser_mqm.py,
tests/e2e/test_browser_scale.py; the Chromium also tests/e2e/test_browser_report.py). tests/conftest.py hands these
modules out together, to one pytest-xdist worker.

The fixture ``server`` is one session-scoped server however many of those modules a process runs. Starting a server
and its first run (importing the backend) cost about 4 CPU-s and 5 s each time. Sharing one changes nothing a test
reads: every browser page is a Streamlit session of its own (its own data, settings and widgets), and what the
sessions share are the server's caches keyed by the data's content (results, statistics, tokenisations), which only
spare recomputing identical numbers. Each of those modules first opens the Data page by a direct link, so whichever
runs first does so on a freshly started server, before any session ran app.py's ``st.navigation`` (the redirect of
``ui.state.enter_page``, docs/design.md §7).

The fixture ``chromium`` is one Chromium (:func:`tests.support.app_server.launch_chromium`) for consecutive tests
that ask for it; each module opens its pages in a browser context of its own (no cookies, storage or cache shared).
Starting Playwright's driver and Chromium costs ≈ 1.1 CPU-s each time. It is stopped after the last test of such a
run, before a test that does not ask for it: Playwright's synchronous API marks its event loop as running in the
calling thread for as long as it is started, which would break ``asyncio.run`` in the process's later tests.

The fixture ``artifacts`` is the folder of a module's screenshots (:func:`tests.support.app_server.shot`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.support.app_server import (
    BROWSER_TEST_OPTIONS,
    AppServer,
    launch_chromium,
    require_chromium,
)


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Iterator[str]:
    """The URL of ``streamlit run app.py`` (:data:`tests.support.app_server.BROWSER_TEST_OPTIONS`), started at the
    first test that asks for it and stopped at the end of the session."""
    require_chromium()
    with AppServer(tmp_path_factory.mktemp("e2e-server"), options=BROWSER_TEST_OPTIONS) as app:
        yield app.url


class SharedChromium:
    """A Chromium launched when first asked for (:meth:`get`) and kept until :meth:`close`."""

    def __init__(self) -> None:
        self._stack: ExitStack | None = None
        self._browser = None

    def get(self):
        """The running Playwright ``Browser``, launched now if there is none."""
        if self._stack is None:
            self._stack = ExitStack()
            self._browser = launch_chromium(self._stack)
        return self._browser

    def close(self) -> None:
        """Stop Chromium and Playwright's driver (nothing if none runs)."""
        stack, self._stack, self._browser = self._stack, None, None
        if stack is not None:
            stack.close()


_CHROMIUM = SharedChromium()


@pytest.fixture(scope="module")
def chromium():
    """The shared Chromium (a Playwright ``Browser``), launched by the first test of a run of consecutive tests that
    ask for it and stopped after the last one (:func:`pytest_runtest_teardown`)."""
    require_chromium()
    return _CHROMIUM.get()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test's teardown (its module's browser contexts closed when the next test is in another module): stop
    the shared Chromium unless the next test asks for it."""
    yield
    if nextitem is None or "chromium" not in nextitem.fixturenames:
        _CHROMIUM.close()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    """Where the screenshots go: ``$KOREAN_EVAL_ARTIFACTS`` if set, else a temporary directory."""
    chosen = os.environ.get("KOREAN_EVAL_ARTIFACTS")
    return Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
