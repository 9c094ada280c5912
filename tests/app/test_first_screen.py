"""The dashboard's first screen is quick: ``korean-eval compile`` stores the bundled sample's result and the first
screen's statistics for the default settings, so a fresh dashboard evaluates, resamples and tests nothing before its
first chart (and needs neither ``scipy.stats`` nor numba's start); the first page sends no table before its charts;
Plotly's JavaScript is asked for while the backend loads (an empty chart, removed afterwards); and ``korean-eval app``
prepares the first screen in the background while the server starts, warming what later pages need only once the
first page has been sent."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.cli.sample_result import dashboard_default_config, store_sample_result
from korean_eval.engine.cache import open_cache
from korean_eval.engine.result_store import stored_evaluation
from korean_eval.inputs.sample import load_sample

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.usefixtures("streamlit_navigation")


@pytest.fixture(scope="module")
def stored_cache(tmp_path_factory):
    """A korean-eval cache directory holding the sample's stored result, as ``compile`` leaves it."""
    from ui import state

    directory = tmp_path_factory.mktemp("compiled-cache")
    store_sample_result(open_cache(directory))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(directory))
        state.disk_cache.clear()  # the dashboard's cache, opened once per process: here, in this directory
        state._store.clear()  # no result kept in memory by an earlier module  # noqa: SLF001
        yield directory
    state.disk_cache.clear()


def test_compile_stores_the_result_and_first_screen_the_dashboard_opens_with(stored_cache, monkeypatch):
    results, _ = stored_evaluation(load_sample(), dashboard_default_config(), open_cache(stored_cache))
    assert results is not None and set(results.system_scores["level"]) == set(dashboard_default_config().levels)
    from korean_eval.engine import pipeline, stored_views
    from ui import statistics_state

    def no_evaluation(*args, **kwargs):
        raise AssertionError("the first screen evaluated or resampled instead of reading what compile stored")

    monkeypatch.setattr(pipeline, "run_stages", no_evaluation)
    monkeypatch.setattr(stored_views, "intervals", no_evaluation)  # the intervals, on by default for the sample
    monkeypatch.setattr(stored_views, "top_cluster", no_evaluation)  # the headline's clusters
    monkeypatch.setattr(stored_views, "comparison", no_evaluation)  # the test of the level-spread card's two ends
    statistics_state._ci_store.clear()  # nothing from an earlier module in memory  # noqa: SLF001
    statistics_state._stats_store.clear()  # noqa: SLF001
    statistics_state._comparison_store.clear()  # noqa: SLF001
    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    assert any("Segment level" in c.proto.spec for c in at.get("plotly_chart"))
    assert len(at.table) == 0  # no table drawn (hidden or not) before or after the first charts
    assert not at.sidebar.get("plotly_chart")  # the warm-up chart was removed
    assert any("The two ends differ significantly" in c.value for c in at.caption)  # the stored test's verdict


def test_app_prepares_the_first_screen_in_the_background(stored_cache):
    from korean_eval.cli.app import streamlit_command
    from launcher import prepare_first_screen

    assert streamlit_command([])[1:3] == [str(Path(APP).parent / "launcher.py"), APP]
    assert prepare_first_screen()  # imports the first page's modules and the backend through them
    assert {"ui.sidebar", "ui.correlation_sections", "korean_eval.engine.result_store"} <= set(sys.modules)


def test_the_first_run_needs_neither_scipy_stats_nor_numbas_start_and_they_are_warmed_after_it(stored_cache):
    """In a fresh interpreter, as in a server just started: the background start, then the first run (its views
    stored by compile), leave ``scipy.stats`` unimported and numba's typing of a first kernel undone (its
    ``numba.core.typing.arraydecl`` registry loads with the first kernel); the later warming does both once a page
    was sent."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(APP).parent)!r})
        from streamlit.testing.v1 import AppTest
        import launcher

        assert launcher.prepare_first_screen()
        at = AppTest.from_file({APP!r}, default_timeout=600)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.get("plotly_chart"), "no chart drawn"
        first = {{m for m in ("scipy.stats", "numba.core.typing.arraydecl") if m in sys.modules}}
        assert not first, f"the first run used {{first}}"
        assert launcher.wait_for_first_page(0)
        launcher.BROWSER_DRAW_SECONDS = 0
        launcher.prepare_later_pages()
        assert {{"scipy.stats", "numba.core.typing.arraydecl"}} <= set(sys.modules)
        print("ok")
    """)
    env = {**os.environ, "KOREAN_EVAL_CACHE_DIR": str(stored_cache)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600,
                          cwd=Path(APP).parent)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


def test_the_dashboards_script_waits_for_the_background_start_which_starts_after_streamlit_is_imported():
    """A module another thread is still importing is half-initialised (:mod:`launcher`): the background
    start begins only once Streamlit, Plotly and the modules Plotly looks for (numpy, pandas, pyarrow) are imported,
    and the script's :func:`wait_for_first_screen` returns only once the background start has prepared the first
    screen (at once where there is none)."""
    script = textwrap.dedent("""
        import sys, threading, time
        import launcher

        start = time.monotonic()
        launcher.wait_for_first_screen()  # no background start: at once
        assert time.monotonic() - start < 5
        seen = {}
        MODULES = {"streamlit.web.cli", "plotly.tools", "numpy", "pandas", "pyarrow"}

        def slow_first_screen():
            seen["imported before"] = {m for m in MODULES if m in sys.modules}
            time.sleep(1.0)
            seen["done"] = time.monotonic()
            return False

        launcher.prepare_first_screen = slow_first_screen
        launcher.start_in_background()
        launcher.wait_for_first_screen()
        assert "done" in seen and time.monotonic() >= seen["done"], seen
        assert seen["imported before"] == MODULES, seen
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=Path(APP).parent)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]
