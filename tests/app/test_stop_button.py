"""A stopped evaluation waits for the user (ui/stopping.py, AppTest): the page says it was stopped and offers a
button instead of starting the same evaluation again; the button starts it; other settings compute as usual.

AppTest cannot click while a script runs, so a stop is made here as the click makes it: the Stop button's callback
(:func:`ui.stopping.stop`) marks the run's key and Streamlit reruns the script, which interrupts the evaluation. The
click itself, during a real run in a real browser, is tests/e2e/test_browser_stop.py's.
"""

from __future__ import annotations

import sqlite3

import pytest
import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from korean_eval.inputs.sample import load_sample
from tests.support.apptest import assert_clean, figure_titled, run_app
from ui import service, state, stopping

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


@pytest.fixture
def stopped_once(monkeypatch):
    """``ui.state.evaluate`` that stops the first evaluation as a click on Stop does and computes the later ones;
    the keys it was called with, in order."""
    calls: list[str] = []
    original = state.evaluate

    def evaluate(evalset, config, progress=None, cache=None, stop=None):
        key = state.results_key(evalset, config)
        calls.append(key)
        if len(calls) == 1:
            progress(0.1, "tokenising at level char")  # a report reached the bar, with its Stop button
            stopping.stop(key)  # the button's callback …
            st.rerun()  # … and the rerun the click requests, which interrupts this run
        return original(evalset, config, progress=progress, cache=cache, stop=stop)

    state._store.clear()  # no result kept from an earlier module of this process  # noqa: SLF001
    monkeypatch.setattr(state, "evaluate", evaluate)
    return calls


def _notice(at) -> list[str]:
    return [i.value for i in at.info if i.value.startswith("Stopped")]


def test_a_stopped_evaluation_waits_for_its_button_then_computes(stopped_once):
    at = run_app()
    assert len(stopped_once) == 1  # stopped, and not started again by the rerun the click caused
    assert _notice(at) == ["Stopped — no result for these settings; press **Evaluate** to go on from what it finished."]
    assert not at.get("plotly_chart")
    assert service.evaluation_queue().state()["running"] == 0  # the queue's slot given back
    assert not state._flights().running  # noqa: SLF001 - no computation left registered as under way
    at.run()  # another rerun (any widget): still waiting for the button
    assert_clean(at)
    assert len(stopped_once) == 1 and _notice(at)

    evaluate = next(b for b in at.button if b.label == state.EVALUATE_BUTTON)
    evaluate.click().run()
    assert_clean(at)
    assert stopped_once == [stopped_once[0]] * 2 and not _notice(at)
    assert at.get("plotly_chart")
    key = state.results_key(load_sample(), at.session_state[state.SETTINGS_KEY].config)
    assert state._store().get(key) is not None and key == stopped_once[0]  # noqa: SLF001


def test_other_settings_compute_without_the_button(stopped_once):
    at = run_app()
    assert len(stopped_once) == 1 and _notice(at)
    at.session_state["level|char"] = False  # another setting: another evaluation, computed as usual
    at.run()
    next(b for b in at.sidebar.button if b.label.startswith("Apply")).click().run()
    assert_clean(at)
    assert len(stopped_once) == 2 and stopped_once[1] != stopped_once[0] and not _notice(at)
    assert at.get("plotly_chart")


def test_a_stopped_lens_waits_for_its_button(monkeypatch):
    import korean_eval.lens.costs as costs
    from korean_eval.lens.costs import LensEstimate
    from ui import lens_state

    monkeypatch.setattr(costs, "lens_estimate", lambda evalset, config, kinds=None: LensEstimate(1.0, 2.0))  # auto
    monkeypatch.setattr(lens_state, "analyzers_in_workers", lambda: False)  # the lens in this process: runs counted
    runs: list[bool] = []
    original = lens_state.run_lens

    def run_lens(evalset, config, **kwargs):
        runs.append(kwargs["with_probe"])
        if len(runs) == 1:  # stopped as a click on its Stop button stops it
            kwargs["progress"](0.05, "analysing every distinct text with Kiwi")
            stopping.stop(lens_state.lens_key(evalset, config, kwargs["with_probe"]))
            st.rerun()
        return original(evalset, config, **kwargs)

    monkeypatch.setattr(lens_state, "run_lens", run_lens)
    lens_state._store.clear()  # noqa: SLF001
    at = run_app("pages/lens.py", **{"metrics|sacrebleu": ["chrf"], "level|kiwi": False})
    assert runs == [True] and _notice(at) == [
        "Stopped — no result for these settings; press **Run the Korean lens** to go on from what it finished."]
    assert service.evaluation_queue().state()["running"] == 0
    at.button(key="lens_run").click().run()
    assert_clean(at)
    assert runs == [True, True] and not _notice(at)
    assert figure_titled(at, "Which metric × level notices which error") is not None


def test_streamlits_own_stop_marks_the_evaluation_stopped_and_keeps_what_it_finished(monkeypatch, tmp_path):
    """Streamlit's header Stop raises its ``StopException`` at the script's next message — inside the engine's
    progress report. The run ends as a stopped run (the tokens it finished stay in the cache, no result), the script
    stops, and the next rerun says "Stopped" instead of starting it again."""
    monkeypatch.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path))  # empty: this module's earlier runs stored the result
    state.disk_cache.clear()
    state._store.clear()  # noqa: SLF001
    original = stopping.StoppableBar.progress
    raised: list[str] = []

    def progress(self, fraction: float, text: str) -> None:
        if not raised and text.startswith("scoring"):  # the first levels are tokenised: something to keep
            raised.append(text)
            raise StopException()
        original(self, fraction, text)

    monkeypatch.setattr(stopping.StoppableBar, "progress", progress)
    at = run_app()
    assert raised and not at.get("plotly_chart") and not at.exception
    cache = state.disk_cache()
    with sqlite3.connect(cache.path) as con:
        tokens = con.execute("SELECT COUNT(*) FROM tokens").fetchone()[0]
        results = con.execute("SELECT COUNT(*) FROM blobs WHERE kind = 'result'").fetchone()[0]
    assert tokens > 0 and results == 0
    assert service.evaluation_queue().state()["running"] == 0

    at.run()  # the next interaction: stopped, waiting for the button
    assert_clean(at)
    assert _notice(at) == ["Stopped — no result for these settings; press **Evaluate** to go on from what it finished."]
    state.disk_cache.clear()  # the module's own cache again for later tests
