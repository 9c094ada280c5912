"""Slow work announced before it starts (ui/sidebar.py, ui/state.py, AppTest): token levels take effect together when
Apply is pressed, each level added is shown with its estimate first, and a stopped evaluation leaves the last
finished results on the page with a note naming the settings they are for.

A stop is made as tests/app/test_stop_button.py makes it: the Stop button's callback marks the run's key and
Streamlit's rerun interrupts the evaluation (the click itself, in a real browser: tests/e2e/test_browser_stop.py).
"""

from __future__ import annotations

import re

import pytest
import streamlit as st

from korean_eval.engine.estimates import level_estimates, run_seconds
from korean_eval.inputs.sample import load_sample
from korean_eval.levels.registry import level_availability
from tests.support.apptest import assert_clean, bar_points, figures, run_app
from ui import formats, state, stopping

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


@pytest.fixture
def evaluations(monkeypatch):
    """``ui.state.evaluate`` recording the levels of every evaluation it starts; one whose levels include jamo is
    stopped as a click on Stop stops it, every other one computes."""
    calls: list[tuple[str, ...]] = []
    original = state.evaluate

    def evaluate(evalset, config, progress=None, cache=None, stop=None):
        calls.append(config.levels)
        if "jamo" in config.levels and not stopping.stopped(state.results_key(evalset, config)) and \
                calls.count(config.levels) == 1:
            progress(0.1, "tokenising at level jamo")  # a report reached the bar, with its Stop button
            stopping.stop(state.results_key(evalset, config))  # the button's callback …
            st.rerun()  # … and the rerun the click requests, which interrupts this run
        return original(evalset, config, progress=progress, cache=cache, stop=stop)

    state._store.clear()  # no result kept from an earlier module of this process  # noqa: SLF001
    monkeypatch.setattr(state, "evaluate", evaluate)
    return calls


def _levels_drawn(at) -> set[str]:
    return {lv for _, lv in bar_points(figures(at)[0])}


def _apply(at):
    return next(b for b in at.sidebar.button if b.label.startswith("Apply"))


def test_ticked_levels_wait_for_apply_then_start_one_evaluation(evaluations):
    at = run_app()  # word, kiwi, char
    assert evaluations == [("word", "kiwi", "char")]
    assert not any(b.label.startswith("Apply") for b in at.sidebar.button)  # nothing pending
    at.checkbox(key="level|kiwi").uncheck().run()
    at.checkbox(key="level|mecab").check().run()
    assert_clean(at)
    assert evaluations == [("word", "kiwi", "char")]  # two ticks, no evaluation
    assert _levels_drawn(at) == {"word", "kiwi", "char"}  # the pages keep the applied levels
    pending = [c.value for c in at.sidebar.caption if c.value.startswith("Not applied yet")]
    assert pending == ["Not applied yet: + mecab, − kiwi. The pages show word, kiwi, char until you press Apply."]
    assert any(c.value.startswith("mecab: ") and "texts to tokenise" in c.value for c in at.sidebar.caption)

    _apply(at).click().run()
    assert_clean(at)
    assert evaluations == [("word", "kiwi", "char"), ("word", "mecab", "char")]  # one evaluation for both ticks
    assert _levels_drawn(at) == {"word", "mecab", "char"}
    assert not any(b.label.startswith("Apply") for b in at.sidebar.button)


def test_undo_ticks_the_applied_levels_again(evaluations):
    at = run_app()
    at.checkbox(key="level|char").uncheck().run()
    at.button(key="levels_undo").click().run()
    assert_clean(at)
    assert at.checkbox(key="level|char").value and evaluations == [("word", "kiwi", "char")]
    assert not any(b.label.startswith("Apply") for b in at.sidebar.button)


def test_a_slow_level_shows_its_estimate_before_it_starts(evaluations):
    if not level_availability("okt")[0]:
        pytest.skip("KoNLPy's Okt cannot run here")
    at = run_app()
    at.checkbox(key="level|okt").check().run()
    assert_clean(at)
    assert evaluations == [("word", "kiwi", "char")]  # nothing started
    sample = load_sample()
    expected = level_estimates(sample, ["okt"], state.disk_cache())["okt"]  # nothing of okt is cached here
    assert expected.texts > 0 and expected.start > 1
    line = next(c.value for c in at.sidebar.caption if c.value.startswith("okt: "))
    assert line == (f"okt: {formats.duration(expected.seconds)}, slow (its analyzer starts in "
                    f"{formats.duration(expected.start)}; {expected.texts:,} texts to tokenise)")
    metrics = at.session_state[state.SETTINGS_KEY].config.metrics
    assert _apply(at).label == f"Apply ({formats.duration(run_seconds(sample, {'okt': expected}, metrics))})"


def test_stop_keeps_the_last_finished_results_on_the_page(evaluations):
    at = run_app()
    assert _levels_drawn(at) == {"word", "kiwi", "char"}
    at.checkbox(key="level|jamo").check().run()
    _apply(at).click().run()  # its evaluation is stopped
    assert_clean(at)
    assert evaluations == [("word", "kiwi", "char"), ("word", "kiwi", "char", "jamo")]
    notes = [i.value for i in at.info if i.value.startswith("Stopped")]
    assert notes == ["Stopped — no result yet for the new settings (levels word, kiwi, char, jamo · metrics BLEU, "
                     "chrF, chrF+, chrF++, TER); the page shows the last finished results, for levels word, kiwi, "
                     "char · metrics BLEU, chrF, chrF+, chrF++, TER. Press **Evaluate** to go on with the new "
                     "settings from what their run finished."]
    assert _levels_drawn(at) == {"word", "kiwi", "char"}  # the charts already computed stay
    assert len(figures(at)) >= 2

    at.run()  # any rerun: still stopped, the same results shown, nothing started
    assert len(evaluations) == 2 and _levels_drawn(at) == {"word", "kiwi", "char"}

    back = next(b for b in at.button if b.label == "Back to levels word, kiwi, char")
    back.click().run()
    assert_clean(at)
    assert len(evaluations) == 2 and not [i for i in at.info if i.value.startswith("Stopped")]
    assert not at.checkbox(key="level|jamo").value and _levels_drawn(at) == {"word", "kiwi", "char"}

    at.checkbox(key="level|jamo").check().run()
    _apply(at).click().run()  # the same settings again: still stopped, waiting for Evaluate
    assert len(evaluations) == 2 and _levels_drawn(at) == {"word", "kiwi", "char"}
    next(b for b in at.button if b.label == state.EVALUATE_BUTTON).click().run()
    assert_clean(at)
    assert evaluations[-1] == ("word", "kiwi", "char", "jamo")
    assert _levels_drawn(at) == {"word", "kiwi", "char", "jamo"}
    assert not [i for i in at.info if re.match("Stopped", i.value)]


def test_a_stopped_first_evaluation_has_nothing_to_keep(evaluations):
    at = run_app(**{"level|jamo": True})  # the session's first evaluation is stopped: nothing earlier to show
    assert [i.value for i in at.info if i.value.startswith("Stopped")] == [
        stopping.STOPPED_TEXT.format(button=state.EVALUATE_BUTTON)]
    assert not figures(at)
