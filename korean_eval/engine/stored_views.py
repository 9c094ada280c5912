"""Views derived from one evaluation's result — its bootstrap intervals, the headline's top significance clusters,
any statistics table the dashboard shows — with the keys they are kept under, in memory and in the persistent cache.

A view is determined by the result (itself determined by the data and the settings: :func:`content_key`), what the
view is and its own settings, and the resampling (:data:`~korean_eval.model.defaults.RESAMPLES` resamples or
permutations, seed :data:`~korean_eval.model.defaults.SEED`): :func:`view_key`. So a view computed for one session
is found only by a session holding the same data and settings, never by name or order. In the persistent cache a
view is stored under that key and the package's source digest (:func:`stored_key`), so that a dashboard started
again — or ``korean-eval compile``, which stores the bundled sample's first screen (:func:`store_first_screen`) —
finds it instead of resampling again, and a code change makes it unusable.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from korean_eval.engine.cache import NullCache
from korean_eval.engine.result_store import digest, load_result, source_digest, store_result
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED

if TYPE_CHECKING:
    import pandas as pd

    from korean_eval.model.config import EvalConfig
    from korean_eval.model.evalset import EvalSet
    from korean_eval.model.results import Results

#: The test behind the headline's top cluster: valid for every correlation, granularity and grouping.
HEADLINE_TEST = "perm-inputs"
#: What a stored view is filed as in the cache.
VIEW_KIND = "view"


def content_key(evalset: EvalSet, config: EvalConfig) -> str:
    """SHA-256 (hex) of the data's content and every setting that changes the numbers."""
    h = hashlib.sha256(evalset.content_hash().encode())
    h.update(json.dumps(config.as_dict(), sort_keys=True).encode())  # includes the SentencePiece model's hash
    return h.hexdigest()


def view_key(content: str, kind: str, *settings: object) -> str:
    """``<content key>|<SHA-256 of kind, settings and the resampling>``: the key of one view of one result."""
    spec = json.dumps([kind, [str(x) for x in settings], RESAMPLES, SEED], ensure_ascii=False)
    return f"{content}|{hashlib.sha256(spec.encode()).hexdigest()}"


def intervals_key(content: str, n_resamples: int, statistics: Collection[str] | None = None) -> str:
    """The key of a result's correlations table with bootstrap intervals from ``n_resamples`` resamples, for the
    rows of ``statistics`` (None: every row)."""
    return f"{content}|{n_resamples}" + ("" if statistics is None else "|" + ",".join(sorted(statistics)))


def first_screen_statistics(statistic: str = "pearson") -> tuple[str, ...]:
    """The statistics whose intervals the dashboard's Correlations page draws when it charts ``statistic``: it at
    the segment level and its system-level counterpart (:func:`korean_eval.model.vocabulary.system_statistic`)."""
    from korean_eval.model.vocabulary import system_statistic

    return tuple(sorted({statistic, system_statistic(statistic)}))


def stored_key(key: str) -> str:
    """The persistent cache's key of a view: its key and the package's source digest."""
    return digest([key, source_digest()])


def _stores(cache: NullCache) -> bool:
    return bool(cache.enabled and getattr(cache, "store_results", False))


def load_view(cache: NullCache, key: str) -> object | None:
    """The view stored under ``key`` (:func:`view_key` or :func:`intervals_key`), or None."""
    if not _stores(cache):
        return None
    return load_result(cache, stored_key(key), kind=VIEW_KIND)


def store_view(cache: NullCache, key: str, value: object) -> None:
    """Keep ``value`` under ``key`` in the persistent cache (nothing when the cache is off or keeps no results)."""
    if _stores(cache):
        store_result(cache, stored_key(key), value, kind=VIEW_KIND)


def intervals(results: Results, n_resamples: int = RESAMPLES, statistics: Collection[str] | None = None) -> pd.DataFrame:
    """The correlations table with bootstrap 95 % intervals — the correlations' and the pairwise accuracies'
    (:func:`korean_eval.metaeval.tables.intervals.add_confidence_intervals`, seed :data:`SEED`), for the rows of
    ``statistics`` (None: every row)."""
    from korean_eval.metaeval.tables.intervals import add_confidence_intervals

    return add_confidence_intervals(results, n_resamples=n_resamples, statistics=statistics)


def top_cluster(results: Results, statistic: str, granularity: str, grouping: str,
                progress: Callable[[float, str], None] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The headline's rank clusters: cluster 1 in full, then at most the first configuration below it
    (:func:`korean_eval.metaeval.tables.significance.top_cluster_table`, test :data:`HEADLINE_TEST`)."""
    from korean_eval.metaeval.tables.significance import top_cluster_table

    return top_cluster_table(results, statistic, granularity, grouping, test=HEADLINE_TEST, alpha=ALPHA,
                             n_permutations=RESAMPLES, seed=SEED, jobs=None, progress=progress)


def top_cluster_key(content: str, statistic: str, granularity: str, grouping: str) -> str:
    """The key of :func:`top_cluster` of these settings (``grouping`` as the granularity uses it)."""
    return view_key(content, "top-cluster", statistic, granularity, grouping, HEADLINE_TEST)


def top_cluster_name(statistic: str, granularity: str, grouping: str) -> str:
    """The file name stem the dashboard's downloads give :func:`top_cluster`'s tables."""
    return f"significance_top_{statistic}_{granularity}_{grouping}_{HEADLINE_TEST}"


def comparison(results: Results, config_a: str, config_b: str, statistic: str, granularity: str, grouping: str,
               tests: tuple[str, ...] | None = None) -> dict[str, object]:
    """Two configurations compared with the dashboard's resampling settings
    (:func:`korean_eval.metaeval.tables.compare.compare_two`: :data:`RESAMPLES` permutations, seed :data:`SEED`,
    α = :data:`ALPHA`)."""
    from korean_eval.metaeval.tables.compare import compare_two

    return compare_two(results, config_a, config_b, statistic=statistic, granularity=granularity, grouping=grouping,
                       n_permutations=RESAMPLES, seed=SEED, alpha=ALPHA, tests=tests)


def comparison_key(content: str, config_a: str, config_b: str, statistic: str, granularity: str, grouping: str,
                   tests: tuple[str, ...] | None = None) -> str:
    """The key of :func:`comparison` of these settings."""
    return view_key(content, "compare", config_a, config_b, statistic, granularity, grouping, tests)


def spread_pair(results: Results, statistic: str, grouping: str) -> tuple[str, str] | None:
    """The configurations at the two ends of the headline's "token level matters most" card with agreement drawn
    (:func:`korean_eval.metaeval.tables.agreement.level_spread` of the segment-level ``statistic`` under
    ``grouping``): ``(highest, lowest)`` agreement; None with fewer than two levels."""
    from korean_eval.metaeval.tables.agreement import agreement_columns, level_spread
    from korean_eval.model.vocabulary import config_name

    corr = results.correlations
    rows = corr[(corr["granularity"] == "segment") & (corr["statistic"] == statistic) & (corr["grouping"] == grouping)]
    spread = level_spread(agreement_columns(rows, results.higher_is_better))
    if spread is None:
        return None
    high, low = spread["high"], spread["low"]
    return config_name(high["level"], high["metric"]), config_name(low["level"], low["metric"])


def store_first_screen(results: Results, content: str, cache: NullCache, statistic: str = "pearson",
                       grouping: str = "none") -> list[str]:
    """Compute and store the views the dashboard's first screen draws for ``results`` with its default settings
    (a correlation ``statistic``): the intervals of its statistics (:func:`first_screen_statistics`), both
    granularities' top clusters of ``statistic``, and the test of the two ends of the "token level matters most"
    card (:func:`spread_pair`, the permutation test :data:`HEADLINE_TEST`); the keys stored."""
    from korean_eval.model.vocabulary import GRANULARITIES, grouping_used

    shown = first_screen_statistics(statistic)
    stored = [intervals_key(content, RESAMPLES, shown)]
    store_view(cache, stored[0], intervals(results, RESAMPLES, shown))
    for granularity in GRANULARITIES:
        used = grouping_used(granularity, grouping)
        key = top_cluster_key(content, statistic, granularity, used)
        store_view(cache, key, (top_cluster_name(statistic, granularity, used),
                                top_cluster(results, statistic, granularity, used)))
        stored.append(key)
    ends = spread_pair(results, statistic, grouping)
    if ends is not None:
        key = comparison_key(content, *ends, statistic, "segment", grouping, (HEADLINE_TEST,))
        store_view(cache, key, comparison(results, *ends, statistic, "segment", grouping, (HEADLINE_TEST,)))
        stored.append(key)
    return stored
