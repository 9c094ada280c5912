"""The bundled sample's result and first screen for the dashboard, computed at ``korean-eval compile`` and stored
in the cache, so that a freshly started dashboard draws its first chart without evaluating or resampling anything.

The dashboard opens on the bundled sample with its default settings (:class:`korean_eval.model.config.EvalConfig`'s
defaults, the default levels that can run here). :func:`store_sample_result` runs that evaluation once through the
pipeline with the persistent cache, which stores the whole result
(:mod:`korean_eval.engine.result_store`: keyed by the data, the settings, every level's version and the package's
source), where the dashboard's first run finds it; then the views its first screen draws — the bootstrap intervals
and the headline's top clusters (:func:`korean_eval.engine.stored_views.store_first_screen`).
"""

from __future__ import annotations

import dataclasses
import time

from korean_eval.model.config import EvalConfig


def dashboard_default_config() -> EvalConfig:
    """The settings the dashboard opens with: the default levels that can run here, every other default."""
    from korean_eval.levels.registry import level_availability

    defaults = EvalConfig()
    return dataclasses.replace(defaults, levels=tuple(lv for lv in defaults.levels if level_availability(lv)[0]))


def store_sample_result(cache=None, progress=None) -> float:
    """Evaluate the bundled sample with :func:`dashboard_default_config` into ``cache`` (default: the persistent
    cache, :func:`korean_eval.engine.cache.open_cache`), where it is stored with the views of the dashboard's first
    screen; seconds taken (a stored result or view is found, not recomputed)."""
    from korean_eval.engine import stored_views
    from korean_eval.engine.cache import open_cache
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.sample import load_sample
    from korean_eval.model.defaults import RESAMPLES

    start = time.perf_counter()
    cache = cache or open_cache()
    evalset, config = load_sample(), dashboard_default_config()
    results = evaluate(evalset, config, progress=progress, cache=cache)
    content = stored_views.content_key(evalset, config)
    shown = stored_views.first_screen_statistics()
    if stored_views.load_view(cache, stored_views.intervals_key(content, RESAMPLES, shown)) is None:
        stored_views.store_first_screen(results, content, cache)
    return time.perf_counter() - start
