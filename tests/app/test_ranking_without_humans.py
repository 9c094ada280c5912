"""The dashboard with a reference and systems but no human scores: the Scores & rankings page is a ranking check
(systems best first with intervals and clusters, the rank-movement chart, every pair's paired tests, the pairs the
configurations split over with their segments), with no empty Human column, and its numbers are the backend's."""

from __future__ import annotations

import pytest

import korean_eval
from korean_eval.inputs.sample import sample_files
from korean_eval.metaeval.tables.system_ranking import metric_pairs_table
from tests.support.apptest import figure_titled, tables
from tests.support.data_page import data_page, page_text
from ui import ranking_state
from ui.ranking_views import p_text

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


def _upload_sample_without_humans():
    at = data_page()
    files = sample_files()
    at.file_uploader(key="up_refs").set_value([(files["ref"].name, files["ref"].read_bytes(), "text/plain")])
    at.file_uploader(key="up_systems").set_value([(p.name, p.read_bytes(), "text/plain") for p in files["systems"]])
    at.run()
    at.button(key="use_texts").click().run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    return at


def test_scores_page_without_humans_is_a_ranking_check():
    at = _upload_sample_without_humans()
    at.switch_page("pages/scores.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    shown = page_text(at)
    assert "red cells" not in shown.lower()
    assert any("No human scores" in i.value for i in at.info)
    drawn = tables(at)
    score_table = drawn[0]
    assert "Human" not in score_table.columns and score_table.columns[0] == "system"
    assert len(score_table) == 5
    fig = figure_titled(at, "How each system's rank moves")
    assert fig is not None and len(fig["data"]) == 5  # one line per system
    assert fig["layout"]["xaxis"]["title"]["text"] == "metric @ token level"
    assert figure_titled(at, "System ranking: humans vs") is None  # nothing against humans without them
    ranking = next(t for t in drawn if "cluster" in t.columns and "95% interval" in t.columns)
    assert list(ranking["rank"]) == ["1", "2", "3", "4", "5"]
    pairs = next(t for t in drawn if "p (paired bootstrap)" in t.columns)
    assert len(pairs) == 10  # every pair of 5 systems
    assert "p (approx. randomization)" in pairs.columns
    assert "approximate randomization: 10,000 trials" in shown and "seed 12345" in shown

    # the page's numbers are the backend's, computed here on the same files (the page shows BLEU at word first)
    files = sample_files()
    results = korean_eval.evaluate(files["ref"], {p.stem: p for p in files["systems"]}, levels=["word"],
                                   metrics=["bleu"], resamples=0)
    expected = metric_pairs_table(results, ranking_state.SETTINGS)
    assert list(pairs["p (paired bootstrap)"]) == [p_text(p) for p in expected["bs_p"]]
    assert list(pairs["p (approx. randomization)"]) == [p_text(p) for p in expected["ar_p"]]
    assert list(pairs["system a"]) == list(expected["system_a"])
