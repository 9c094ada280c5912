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
