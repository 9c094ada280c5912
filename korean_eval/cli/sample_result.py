"""The bundled sample's result for the dashboard's first screen, computed at ``korean-eval compile`` and stored in
the cache, so that a freshly started dashboard draws its first chart without evaluating anything.

The dashboard opens on the bundled sample with its default settings (:class:`korean_eval.model.config.EvalConfig`'s
defaults, the default levels that can run here). :func:`store_sample_result` runs that evaluation once through the
pipeline with the persistent cache, which stores the whole result
(:mod:`korean_eval.engine.result_store`: keyed by the data, the settings, every level's version and the package's
source), where the dashboard's first run finds it.
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
    cache, :func:`korean_eval.engine.cache.open_cache`), where it is stored; seconds taken (a stored result is
    found, not recomputed)."""
    from korean_eval.engine.cache import open_cache
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.sample import load_sample

    start = time.perf_counter()
    evaluate(load_sample(), dashboard_default_config(), progress=progress, cache=cache or open_cache())
    return time.perf_counter() - start
