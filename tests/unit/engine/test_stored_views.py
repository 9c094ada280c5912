"""Views of a result kept in the persistent cache (korean_eval.engine.stored_views): found again by the same content,
settings and source; not by other settings, another source digest, or a cache that keeps no results."""

from __future__ import annotations

import pandas as pd

from korean_eval.engine import stored_views
from korean_eval.engine.cache import NullCache, open_cache
from korean_eval.inputs.sample import load_sample
from korean_eval.model.config import EvalConfig


def test_a_view_is_found_by_its_content_settings_and_source(tmp_path, monkeypatch):
    cache = open_cache(tmp_path)
    content = stored_views.content_key(load_sample(), EvalConfig(levels=("word",)))
    key = stored_views.top_cluster_key(content, "pearson", "segment", "none")
    value = ("name", (pd.DataFrame({"a": [1.5]}), pd.DataFrame({"b": ["x"]})))
    stored_views.store_view(cache, key, value)
    found = stored_views.load_view(open_cache(tmp_path), key)
    pd.testing.assert_frame_equal(found[1][0], value[1][0])
    assert found[0] == "name"
    assert stored_views.load_view(cache, stored_views.top_cluster_key(content, "kendall", "segment", "none")) is None
    other = stored_views.content_key(load_sample(), EvalConfig(levels=("char",)))
    assert other != content and stored_views.load_view(cache, stored_views.top_cluster_key(
        other, "pearson", "segment", "none")) is None
    monkeypatch.setattr(stored_views, "source_digest", lambda: "another version of the code")
    assert stored_views.load_view(cache, key) is None


def test_nothing_is_kept_without_a_cache_that_keeps_results(tmp_path):
    stored_views.store_view(NullCache(), "k|1", 1)
    assert stored_views.load_view(NullCache(), "k|1") is None
    off = open_cache(tmp_path, enabled=False)
    stored_views.store_view(off, "k|1", 1)
    assert stored_views.load_view(open_cache(tmp_path), "k|1") is None


def test_the_first_screen_stores_the_test_of_the_level_spread_card(tmp_path):
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.model.vocabulary import config_name

    evalset, config = load_sample(), EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf"))
    results = evaluate(evalset, config)
    content = stored_views.content_key(evalset, config)
    high, low = stored_views.spread_pair(results, "pearson", "none")
    seg = results.correlations[(results.correlations["granularity"] == "segment")
                               & (results.correlations["statistic"] == "pearson")
                               & (results.correlations["grouping"] == "none")]
    spans = seg.groupby("metric")["value"].agg(lambda v: v.max() - v.min())
    best = seg[seg["metric"] == spans.idxmax()].set_index("level")["value"]
    assert (high, low) == (config_name(best.idxmax(), spans.idxmax()), config_name(best.idxmin(), spans.idxmax()))
    cache = open_cache(tmp_path)
    stored = stored_views.store_first_screen(results, content, cache)
    key = stored_views.comparison_key(content, high, low, "pearson", "segment", "none", (stored_views.HEADLINE_TEST,))
    assert key in stored
    assert stored_views.load_view(cache, key) == stored_views.comparison(
        results, high, low, "pearson", "segment", "none", (stored_views.HEADLINE_TEST,))
