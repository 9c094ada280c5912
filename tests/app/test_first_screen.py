"""The dashboard's first screen is quick: ``korean-eval compile`` stores the bundled sample's result for the default
settings, so a fresh dashboard evaluates nothing before its first chart; the first page sends no table before its
charts; Plotly's JavaScript is asked for while the backend loads (an empty chart, removed afterwards); and
``korean-eval app`` prepares the first screen in the background while the server starts."""

from __future__ import annotations

import sys
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
    statistics_state._ci_store.clear()  # nothing from an earlier module in memory  # noqa: SLF001
    statistics_state._stats_store.clear()  # noqa: SLF001
    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    assert any("Segment level" in c.proto.spec for c in at.get("plotly_chart"))
    assert len(at.table) == 0  # no table drawn (hidden or not) before or after the first charts
    assert not at.sidebar.get("plotly_chart")  # the warm-up chart was removed


def test_app_prepares_the_first_screen_in_the_background(stored_cache):
    from korean_eval.cli.app import streamlit_command
    from korean_eval.cli.serve import prepare_first_screen

    assert streamlit_command([])[1:3] == ["-m", "korean_eval.cli.serve"]
    prepare_first_screen()  # never raises; imports the first page's modules and the backend through them
    assert {"ui.sidebar", "ui.correlation_sections", "korean_eval.engine.result_store"} <= set(sys.modules)
