"""Which configuration of one :class:`~korean_eval.model.results.Results` agrees more with the humans
(docs/design.md §5): pairwise significance tables and WMT-style significance clusters.

Error-rate metrics (``Results.higher_is_better`` False: TER and the like) agree with humans when they correlate
*negatively*; whenever configurations are compared with each other their scores are multiplied by
:func:`korean_eval.model.vocabulary.direction_sign` (−1) first, so a larger signed correlation always means closer
agreement with the humans ("TER@char beats BLEU@char" means TER agrees more). The tables carry the signs used.
p-value convention: one-sided, "config_a agrees with the humans more than config_b".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations, permutations
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.comparisons import (
    PairCorrelations,
    PairCorrelator,
    cluster_order,
    rank_clusters,
    williams_test,
)
from korean_eval.metaeval.stats.correlation import correlation
from korean_eval.metaeval.stats.permutation import (
    PermutationDeltas,
    deltas_of_test,
    system_permutation_deltas,
)
from korean_eval.metaeval.stats.power import deltas_min_p
from korean_eval.metaeval.tables.configs import (
    check_config,
    comparison_data,
    display_label,
    has_human,
    selected_configs,
)
from korean_eval.metaeval.tables.threads import map_threads
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import (
    PERMUTATION_TESTS,
    SIGNIFICANCE_TESTS,
    WILLIAMS_DF_OFFSET,
    Config,
    check_choice,
    config_name,
    default_tests,
    direction_sign,
    grouping_used,
    is_grouped,
)

SIGNIFICANCE_COLUMNS = [
    "granularity",
    "grouping",
    "config_a",
    "config_b",
    "test",
    "statistic",
    "p_value",
    "method",
    "min_p",
    "r_a",
    "r_b",
    "n",
    "sign_a",
    "sign_b",
    "sign",
]
#: How many times :func:`significance_table` reports its progress (batches of pairs).
PROGRESS_BATCHES = 50
CLUSTER_COLUMNS = ["config", "label", "level", "metric", "value", "sign", "correlation", "cluster"]

Key = tuple[str, str]


class _PairTests(NamedTuple):
    """What one unordered pair (x, y) of configurations needs for both ordered rows: the correlations on the common
    points and, per requested permutation test, its deltas for (x, y)."""

    correlations: PairCorrelations
    permutation: dict[str, PermutationDeltas]


class _PermutationRun(NamedTuple):
    """The permutation tests of one :func:`significance_table` (``tests``: those of its tests that permute) with
    everything they share."""

    tests: list[str]
    scores: Mapping[Key, np.ndarray]
    human: np.ndarray
    statistic: str
    granularity: str
    grouping: str
    n_permutations: int
    seed: int

    def deltas(self, pairs: Sequence[tuple[Key, Key]], jobs: int | None) -> list[dict[str, PermutationDeltas]]:
        """Per pair, test → its :class:`~korean_eval.metaeval.stats.permutation.PermutationDeltas`. At the system level
        every pair in one :func:`~korean_eval.metaeval.stats.permutation.system_permutation_deltas` call (both tests swap
        whole systems there: the same deltas); else pair by pair on ``jobs`` threads."""
        if self.granularity == "system" and self.tests:
            found = system_permutation_deltas([(self.scores[x], self.scores[y]) for x, y in pairs], self.human,
                                              self.statistic, self.n_permutations, self.seed)
            return [dict.fromkeys(self.tests, one) for one in found]
        return map_threads(self._one_pair, pairs, jobs)

    def _one_pair(self, pair: tuple[Key, Key]) -> dict[str, PermutationDeltas]:
        a, b = self.scores[pair[0]], self.scores[pair[1]]
        return {
            test: deltas_of_test(test, a, b, self.human, self.statistic, self.granularity, self.grouping,
                                 self.n_permutations, self.seed)
            for test in self.tests
        }


def _fmt_sign(sign: float) -> str:
    return "+1" if sign > 0 else "-1"


def significance_table(
    results: Results,
    statistic: str = "pearson",
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
    tests: Sequence[str] | None = None,
    configs: Iterable[Config] | None = None,
    jobs: int | None = 1,
    pairs: Iterable[tuple[Config, Config]] | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """Pairwise significance of the difference in agreement with the humans, for every ordered pair of configs.

    One row per ordered pair ``(config_a, config_b)``, ``a != b``, and test: ``p_value`` is the one-sided p that
    ``config_a`` agrees with the humans *more* than ``config_b`` (small p: a significantly better). Scores of an
    error-rate metric are negated first (``sign_a``/``sign_b`` = −1; ``sign`` = ``"<sign_a>/<sign_b>"``, e.g.
    ``"-1/+1"``), so "TER beats BLEU" means TER's (negative) correlation is the stronger agreement. ``r_a``,
    ``r_b`` are the signed correlations on the ``n`` points the three share (segment level: (system, item) pairs;
    system level: systems — each configuration's reported system scores against the systems' mean human scores;
    :func:`korean_eval.metaeval.stats.comparisons.pair_correlations`).

    Tests (:data:`korean_eval.model.vocabulary.SIGNIFICANCE_TESTS`; default
    :func:`korean_eval.model.vocabulary.default_tests`: ``perm-inputs`` at the segment level, ``williams`` and
    ``perm-inputs`` at the system level):

    * ``"williams"`` (Williams 1959, df n−3, :func:`korean_eval.metaeval.stats.comparisons.williams_test`; also
      ``"williams_n2"``, df n−2) — ungrouped correlations only, NaN for ``item``/``system``-grouped segment
      correlations; an approximation for Spearman/Kendall. It treats the points as independent; at the segment level
      they are clustered by segment, so its p-values are too small there;
    * ``"perm-inputs"`` (Deutsch et al. 2021 paired permutation test, whole units swapped: an item with all its
      systems at the segment level, a system at the system level;
      :func:`korean_eval.metaeval.stats.permutation.permutation_deltas`);
    * ``"perm-wmt"`` (WMT's variant, mt-metrics-eval ``PermutationSigDiff``: each (system, segment) score swapped
      alone; :func:`korean_eval.metaeval.stats.permutation.permutation_deltas_wmt`; the same as ``perm-inputs`` at the
      system level).

    A permutation test is exact (every swap pattern) when there are at most 16 units, Monte-Carlo with
    ``n_permutations`` seeded patterns otherwise; it is computed once per unordered pair, the reverse direction from
    the same patterns, which equals running the test on (b, a) with the same seed. ``method`` says how each p was
    computed: ``"exact, 16 patterns"`` / ``"Monte-Carlo, 1000 permutations"``
    (:func:`korean_eval.metaeval.stats.permutation.permutation_method`) or ``"Student t, df = n − 3; assumes independent
    points"`` (Williams); ``min_p`` the smallest p-value that permutation test could give on these units
    (:func:`korean_eval.metaeval.stats.power.deltas_min_p`: 1/16 = 0.0625 for the exact test over 4 systems, so
    nothing can be significant at α = 0.05; NaN for Williams).

    ``configs``: a subset (``"level/metric"`` names or tuples; default all); ``pairs``: only these unordered pairs
    of configurations (both orders are reported; default every pair of ``configs``); ``progress(fraction,
    message)`` is called from the calling thread after each of about 50 batches of pairs. Rows are ordered by
    config_a, config_b (configuration order), then test. Empty (with the columns) without human scores. Cost of the
    segment-level permutation test, measured at 4 systems × 500 items and 1000 permutations: ~3 ms per pair for
    Pearson (0.8 s for 25 configurations = 300 pairs), ~25 ms for Spearman (~8 s) and ~50 ms for Kendall (~15 s);
    the system level is negligible. ``jobs``: worker threads (1 by default).
    """
    grouping = grouping_used(granularity, grouping)
    tests = default_tests(granularity) if tests is None else tuple(tests)
    for test in tests:
        check_choice("test", test, SIGNIFICANCE_TESTS)
    keys = selected_configs(results, configs)
    if not has_human(results) or len(keys) < 2:
        return pd.DataFrame(columns=SIGNIFICANCE_COLUMNS)
    data = {k: comparison_data(results, k, granularity) for k in keys}
    human = data[keys[0]][1]
    scores = {k: data[k][0] for k in keys}
    correlator = PairCorrelator(scores, human, statistic, granularity, grouping,
                                need_between=any(test in WILLIAMS_DF_OFFSET for test in tests))
    permuted = _PermutationRun([t for t in tests if t in PERMUTATION_TESTS], scores, human, statistic, granularity,
                               grouping, n_permutations, seed)
    tested = list(combinations(keys, 2)) if pairs is None else [(check_config(results, a), check_config(results, b))
                                                               for a, b in pairs]
    done: list[_PairTests] = []
    batch = max(1, len(tested) // PROGRESS_BATCHES) if progress is not None else max(1, len(tested))
    for start in range(0, len(tested), batch):
        chunk = tested[start:start + batch]
        done += map(_PairTests, correlator(chunk), permuted.deltas(chunk, jobs))
        if progress is not None:
            progress(len(done) / len(tested), f"{len(done):,} of {len(tested):,} pairs of configurations tested")
    per_pair = dict(zip(tested, done, strict=True))
    signs = {k: direction_sign(results.higher_is_better(k[1], k[0])) for k in keys}
    common = {"granularity": granularity, "grouping": grouping, "statistic": statistic}
    rows = [
        row
        for x, y in permutations(keys, 2)
        if (x, y) in per_pair or (y, x) in per_pair
        for row in _ordered_rows(x, y, per_pair, tests, signs, common, is_grouped(granularity, grouping))
    ]
    return pd.DataFrame(rows, columns=SIGNIFICANCE_COLUMNS)


def _ordered_rows(
    x: Key,
    y: Key,
    per_pair: Mapping[tuple[Key, Key], _PairTests],
    tests: Sequence[str],
    signs: Mapping[Key, float],
    common: Mapping[str, str],
    grouped: bool,
) -> list[dict[str, Any]]:
    """The rows of the ordered pair (x, y), one per test, from the results of its unordered pair."""
    forward = (x, y) in per_pair
    res = per_pair[(x, y)] if forward else per_pair[(y, x)]
    r_x, r_y, r_xy, n = res.correlations
    r_a, r_b = (r_x, r_y) if forward else (r_y, r_x)
    rows = []
    for test in tests:
        if test in PERMUTATION_TESTS:
            deltas = res.permutation[test] if forward else res.permutation[test].reversed()
            p, method, min_p = deltas.p_value(), deltas.method, deltas_min_p(deltas)
        else:
            p = float("nan") if grouped else williams_test(r_a, r_b, r_xy, n, WILLIAMS_DF_OFFSET[test])
            method = f"Student t, df = n − {WILLIAMS_DF_OFFSET[test]}; assumes independent points"
            min_p = float("nan")
        rows.append(
            {
                **common,
                "config_a": config_name(*x),
                "config_b": config_name(*y),
                "test": test,
                "p_value": p,
                "method": method,
                "min_p": min_p,
                "r_a": r_a,
                "r_b": r_b,
                "n": n,
                "sign_a": signs[x],
                "sign_b": signs[y],
                "sign": f"{_fmt_sign(signs[x])}/{_fmt_sign(signs[y])}",
            }
        )
    return rows


def _point_value(results: Results, key: Key, statistic: str, granularity: str, grouping: str) -> float:
    """The raw correlation of ``key`` as ``results.correlations`` reports it (computed if the table lacks it)."""
    corr = results.correlations
    rows = corr[
        (corr["level"] == key[0])
        & (corr["metric"] == key[1])
        & (corr["statistic"] == statistic)
        & (corr["granularity"] == granularity)
        & (corr["grouping"] == grouping_used(granularity, grouping))
    ]
    if len(rows):
        return float(rows["value"].iloc[0])
    scores, human = comparison_data(results, key, granularity)
    sign = direction_sign(results.higher_is_better(key[1], key[0]))
    return sign * correlation(scores, human, statistic, granularity, grouping)[0]


def _values_and_signs(
    results: Results, keys: Sequence[Key], statistic: str, granularity: str, grouping: str
) -> tuple[dict[str, float], dict[str, float]]:
    """Per configuration name: its raw correlation (:func:`_point_value`) and its direction sign (−1: error rate)."""
    names = [config_name(*k) for k in keys]
    raw = {name: _point_value(results, key, statistic, granularity, grouping) for name, key in zip(names, keys, strict=True)}
    signs = {name: direction_sign(results.higher_is_better(key[1], key[0])) for name, key in zip(names, keys, strict=True)}
    return raw, signs


def _pvalues(table: pd.DataFrame, test: str, names: Sequence[str]) -> dict[tuple[str, str], float]:
    """``(config_a, config_b)`` → p of ``test`` from a :func:`significance_table`, NaN for every missing pair."""
    sub = table[(table["test"] == test)] if len(table) else table
    pvalues = {(a, b): float("nan") for a in names for b in names if a != b}
    for a, b, p in zip(sub.get("config_a", []), sub.get("config_b", []), sub.get("p_value", []), strict=True):
        if (a, b) in pvalues:
            pvalues[(a, b)] = float(p)
    return pvalues


def rank_clusters_table(
    results: Results,
    statistic: str = "pearson",
    granularity: str = "segment",
    grouping: str = "none",
    test: str = "perm-inputs",
    alpha: float = ALPHA,
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
    configs: Iterable[Config] | None = None,
    table: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Significance clusters of the configurations (WMT style, :func:`korean_eval.metaeval.stats.comparisons.rank_clusters`).

    Configurations are sorted by ``correlation`` = ``sign · value`` (their agreement with the humans: ``value`` is
    the raw correlation of ``results.correlations``, ``sign`` −1 for error-rate metrics), best first; walking down,
    a configuration opens a new cluster when some member of the current cluster beats it with ``p < alpha`` under
    ``test`` (``"perm-inputs"`` by default, valid for every statistic and grouping; ``"williams"`` applies to
    ungrouped correlations only — with NaN p-values everything stays in one cluster). p-values come from ``table``
    (a :func:`significance_table` of the same statistic, granularity and grouping) or are computed. Columns
    ``config, label, level, metric, value, sign, correlation, cluster`` (1 = best).
    """
    check_choice("test", test, SIGNIFICANCE_TESTS)
    grouping = grouping_used(granularity, grouping)
    keys = selected_configs(results, configs)
    if not keys:
        return pd.DataFrame(columns=CLUSTER_COLUMNS)
    if table is None:
        table = significance_table(results, statistic, granularity, grouping, n_permutations, seed, (test,), keys)
    names = [config_name(*k) for k in keys]
    raw, signs = _values_and_signs(results, keys, statistic, granularity, grouping)
    agreement = {name: signs[name] * raw[name] for name in names}
    clusters = rank_clusters(agreement, _pvalues(table, test, names), alpha)
    rows = [
        {
            "config": name,
            "label": display_label(results, key),
            "level": key[0],
            "metric": key[1],
            "value": raw[name],
            "sign": signs[name],
            "correlation": agreement[name],
            "cluster": clusters[name],
        }
        for name, key in zip(names, keys, strict=True)
    ]
    position = {name: p for p, name in enumerate(clusters)}  # rank_clusters' order: best first
    rows.sort(key=lambda row: position[row["config"]])
    return pd.DataFrame(rows, columns=CLUSTER_COLUMNS)


def top_cluster_table(
    results: Results,
    statistic: str = "pearson",
    granularity: str = "segment",
    grouping: str = "none",
    test: str = "perm-inputs",
    alpha: float = ALPHA,
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
    jobs: int | None = 1,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The first significance cluster of :func:`rank_clusters_table`, found with only the tests it needs.

    :func:`korean_eval.metaeval.stats.comparisons.rank_clusters` walks the configurations best first and decides each one
    from the p-values of the current cluster's members against it, so cluster 1 depends only on the pairs (member,
    candidate) down to the first configuration outside it. This walk tests exactly those pairs (with ``test``,
    ``n_permutations`` and ``seed``: each pair's p-value is the one :func:`significance_table` gives it in the full
    table) and stops there, or after the last configuration with a defined correlation — undefined ones (NaN,
    sorted last) are not walked. Returns ``(table, clusters)``: the :func:`significance_table` rows of the tested
    pairs, and the :func:`rank_clusters_table` rows of the walked configurations — cluster 1 as in the full table,
    then (when the walk stopped early) the first configuration of cluster 2. ``progress(fraction, message)`` is
    called before each candidate. Cost: about k²/2 pair tests for a top cluster of k, instead of n(n − 1)/2.
    """
    check_choice("test", test, SIGNIFICANCE_TESTS)
    grouping = grouping_used(granularity, grouping)
    keys = selected_configs(results, None)
    if not has_human(results) or not keys:
        return pd.DataFrame(columns=SIGNIFICANCE_COLUMNS), pd.DataFrame(columns=CLUSTER_COLUMNS)
    raw, signs = _values_and_signs(results, keys, statistic, granularity, grouping)
    agreement = {name: signs[name] * raw[name] for name in raw}
    order = [name for name in cluster_order(agreement) if np.isfinite(agreement[name])]
    walked, tables = order[:1], []
    for done, candidate in enumerate(order[1:], 1):
        if progress is not None:
            progress(done / len(order), f"Testing {candidate} against the {len(walked)} at the top")
        pairs = [(member, candidate) for member in walked]
        tables.append(significance_table(results, statistic, granularity, grouping, n_permutations, seed, (test,),
                                         [*walked, candidate], jobs, pairs))
        walked.append(candidate)
        table = pd.concat(tables, ignore_index=True)
        if rank_clusters({n: agreement[n] for n in walked}, _pvalues(table, test, walked), alpha)[candidate] > 1:
            break
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=SIGNIFICANCE_COLUMNS)
    clusters = rank_clusters_table(results, statistic, granularity, grouping, test, alpha, configs=walked, table=table)
    return table, clusters
