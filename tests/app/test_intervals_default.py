"""The Correlations page's 95% intervals on the user's own data (ui/statistics_state.py, AppTest): on when the page
opens if their measured-cost estimate is at most two seconds, as on the bundled sample — here on 900 uploaded
segments × 2 systems (5,400 segment × configuration cells, more than a size rule of 5,000 allowed) — and off
otherwise, with the estimate said for the switch."""

from __future__ import annotations

import numpy as np
import pytest

from korean_eval.metaeval.tables.costs import intervals_seconds
from korean_eval.model.vocabulary import system_statistic
from tests.support.apptest import assert_clean, run_app
from ui import formats, state, statistics_state
from ui.inputs import Upload, build_from_texts, with_human_scores

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")

SEGMENTS = 900
SETTINGS = {"level|kiwi": False, "metrics|sacrebleu": ["bleu", "chrf", "ter"]}  # word, char × 3: 6 configurations


@pytest.fixture(scope="module")
def uploaded():
    """900 segments of two systems and their human scores, as the Data page builds them from uploaded files."""
    import pandas as pd

    from korean_eval.inputs.sample import load_sample

    sample = load_sample()
    refs = sample.refs[0]
    lines = {"ref": [], "a": [], "b": []}
    names = list(sample.systems)[:2]
    for i in range(SEGMENTS):
        j = i % len(refs)
        lines["ref"].append(f"{refs[j]} ({i})")
        for key, name in zip(("a", "b"), names, strict=True):
            lines[key].append(f"{sample.systems[name][j] or refs[j]} ({i})")
    files = {k: Upload(f"{k}.txt", ("\n".join(v) + "\n").encode()) for k, v in lines.items()}
    evalset = build_from_texts([files["ref"]], [files["a"], files["b"]])
    rng = np.random.default_rng(3)
    human = pd.DataFrame({"system": [s for s in ("a", "b") for _ in range(SEGMENTS)],
                          "seg_id": [str(i) for _ in range(2) for i in range(SEGMENTS)],
                          "score": rng.uniform(0, 100, 2 * SEGMENTS)})
    return with_human_scores(evalset, human, "human.csv")


def _page(evalset, **session):
    return run_app(**{state.EVALSET_KEY: evalset, state.SOURCE_KEY: "my upload", **SETTINGS, **session})


def _context(at, evalset, statistic: str = "pearson") -> state.Context:
    config = at.session_state[state.SETTINGS_KEY].config
    res = state._store().get(state.results_key(evalset, config))  # noqa: SLF001
    return state.Context(evalset, state.Settings(config, statistic), res, state.results_key(evalset, config))


def test_intervals_are_on_for_uploaded_data_they_take_under_two_seconds_for(uploaded):
    at = _page(uploaded)
    assert_clean(at)
    ctx = _context(at, uploaded)
    assert len(ctx.results.seg_ids) * len(ctx.results.segment_matrices) == 5_400
    assert statistics_state.interval_seconds(ctx, ("pearson",)) == pytest.approx(
        intervals_seconds(("pearson",), 6, 2 * SEGMENTS))
    assert statistics_state.interval_seconds(ctx, ("pearson",)) <= statistics_state.AUTO_INTERVAL_SECONDS
    assert at.toggle(key="corr_ci").value
    with_ci = statistics_state.cached_confidence_intervals(ctx, statistics=("pearson",))  # computed for the charts
    segment = "statistic == 'pearson' and granularity == 'segment'"
    assert with_ci is not None and with_ci.query(segment)["ci_low"].notna().all()
    assert statistics_state.intervals_note(ctx, ("pearson",)) == ""


def test_intervals_estimated_above_two_seconds_wait_for_the_switch(uploaded, monkeypatch):
    monkeypatch.setattr(statistics_state, "AUTO_INTERVAL_SECONDS", 0.01)
    at = _page(uploaded, statistic="spearman")
    assert_clean(at)
    assert not at.toggle(key="corr_ci").value
    ctx = _context(at, uploaded, "spearman")
    res = ctx.results
    statistics = tuple(sorted({"spearman", system_statistic("spearman")}))
    seconds = statistics_state.interval_seconds(ctx, statistics)
    assert seconds == pytest.approx(intervals_seconds(statistics, 6, 2 * SEGMENTS, spa_permutations=int(
        res.settings.get("spa_permutations", 0) or 0)))
    assert statistics_state.intervals_note(ctx, statistics) == (
        f"The 95% intervals take {formats.duration(seconds)} of computing for these data: switch them on to "
        "compute them (they are kept once computed).")
    at.toggle(key="corr_ci").set_value(True).run()  # asked for: computed, then on by default (cached)
    assert_clean(at)
    assert statistics_state.intervals_by_default(ctx, statistics)
    assert statistics_state.intervals_note(ctx, statistics) == ""
