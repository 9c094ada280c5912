"""Which configuration of one :class:`~korean_eval.model.results.Results` agrees more with the humans by WMT's
pairwise accuracies (docs/design.md §5): the significance table of every pair of configurations and the rank
clusters, by ``acc_eq`` (segment level, over items) and by SPA (system level).

The tests are mt-metrics-eval's (WMT23–25's), one per statistic (:data:`ACCURACY_TESTS`): ``perm-pairs`` for
``acc_eq`` — each system pair of each item compared by one configuration or the other, each at its own ε
(:mod:`korean_eval.metaeval.stats.accuracy_permutation`, ``PairwisePermutationSigDiff``) — and ``perm-wmt`` for SPA —
every (system, item) z-score swapped alone (``PermutationSigDiff`` with ``PairwiseConfidenceError``). Both statistics
already measure agreement on scores whose error rates were negated, so every ``sign`` is +1 and a larger value is
closer agreement. p-value convention as :mod:`korean_eval.metaeval.tables.significance`: one-sided, "config_a agrees
with the humans more than config_b"; the rows and columns are that module's :data:`SIGNIFICANCE_COLUMNS` and
:data:`CLUSTER_COLUMNS`, with ``r_a``/``r_b`` and ``correlation`` holding the accuracies.

The permutations run in blocks (:func:`acc_eq_deltas_block`, :func:`spa_deltas_block`): a pure function of the
prepared arrays and a block number, whose values do not depend on the other blocks — the unit a task executor can
dispatch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.accuracy_permutation import (
    PAIRS_STREAM,
    SCORES_STREAM,
    all_patterns,
    n_blocks,
    pair_agreements,
    pair_swap_deltas,
    pair_swap_values,
    spa_swap_block,
    standardise_scores,
    swap_coins,
)
from korean_eval.metaeval.stats.comparisons import rank_clusters
from korean_eval.metaeval.stats.permutation import MAX_EXACT_UNITS, PermutationDeltas
from korean_eval.metaeval.stats.power import deltas_min_p
from korean_eval.metaeval.stats.soft_pairwise import (
    human_pairwise,
    pairwise_permutation_p_values,
    sign_patterns,
)
from korean_eval.metaeval.stats.tie_calibrated import acc_eq
from korean_eval.metaeval.tables.configs import check_config, display_label, has_human, selected_configs
from korean_eval.metaeval.tables.significance import CLUSTER_COLUMNS, SIGNIFICANCE_COLUMNS
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import Config, check_choice, config_name, direction_sign

#: The statistic → (granularity, grouping, test) of its significance table.
ACCURACY_TESTS: dict[str, tuple[str, str, str]] = {
    "acc_eq": ("segment", "item", "perm-pairs"),
    "spa": ("system", "none", "perm-wmt"),
}
#: What each test swaps, for the tables and pages.
ACCURACY_TEST_NOTES: dict[str, str] = {
    "perm-pairs": "paired permutation test, each system pair of each item compared by one configuration or the other "
                  "at its own ε (WMT23–25, mt-metrics-eval PairwisePermutationSigDiff)",
    "perm-wmt": "paired permutation test, each z-scored (system, segment) score swapped alone, SPA recomputed "
                "(WMT24–25, mt-metrics-eval PermutationSigDiff)",
}
Key = tuple[str, str]


def _sums(sums: np.ndarray) -> np.ndarray:
    return sums[..., 0]  # plain scores: a system's score is its sum over the shared items (ordered as the mean)


def _signed(results: Results, key: Key) -> np.ndarray:
    return direction_sign(results.higher_is_better(key[1], key[0])) * np.asarray(results.segment_matrices[key],
                                                                                  dtype=np.float64)


_MISSING = (float("nan"), float("nan"))


def _table_values(results: Results, statistic: str) -> dict[Key, tuple[float, float]]:
    """``(value, epsilon)`` of every configuration's row of ``statistic`` in ``results.correlations`` (``acc_eq``:
    grouping ``item``; the first row of a configuration that has several), read in one pass over the table; a
    configuration without a row is missing (:data:`_MISSING` stands for it)."""
    corr = results.correlations
    granularity, grouping, _ = ACCURACY_TESTS[statistic]
    rows = corr[(corr["statistic"] == statistic) & (corr["granularity"] == granularity)
                & (corr["grouping"] == grouping)]
    out: dict[Key, tuple[float, float]] = {}
    for level, metric, value, epsilon in zip(rows["level"], rows["metric"], rows["value"], rows["epsilon"],
                                             strict=True):
        out.setdefault((level, metric), (float(value), float(epsilon)))
    return out


# ---- acc_eq ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairSwapData:
    """What the ``perm-pairs`` tests of a table share: ``values`` ``(n_units, n_pairs)`` — each configuration pair's
    :func:`~korean_eval.metaeval.stats.accuracy_permutation.pair_swap_values` over the comparison units (every system pair
    of every item) — its ``n_items``, ``r_a``/``r_b`` (each side's acc_eq on the units both compared) and the
    columns that are tested exactly (at most 16 units differ)."""

    values: np.ndarray
    n_items: np.ndarray
    r_a: np.ndarray
    r_b: np.ndarray
    exact: np.ndarray


def prepare_acc_eq(results: Results, keys: Sequence[Key], pairs: Sequence[tuple[Key, Key]]) -> PairSwapData:
    """:class:`PairSwapData` of ``pairs`` of configurations, each at its own ε (the table's, or acc_eq's search)."""
    human = np.asarray(results.human_matrix, dtype=np.float64)
    agreements = {}
    table = _table_values(results, "acc_eq")
    for key in keys:
        epsilon = table.get(key, _MISSING)[1]
        if not np.isfinite(epsilon):
            epsilon = acc_eq(_signed(results, key), human, "item").epsilon
        agreements[key] = pair_agreements(_signed(results, key), human, epsilon) if np.isfinite(epsilon) else None
    n_units = human.shape[1] * (human.shape[0] * (human.shape[0] - 1) // 2)
    values = np.zeros((n_units, len(pairs)))
    n_items, r_a, r_b = (np.zeros(len(pairs)) for _ in range(3))
    for col, (x, y) in enumerate(pairs):
        a, b = agreements[x], agreements[y]
        if a is None or b is None:
            r_a[col] = r_b[col] = np.nan
            continue
        values[:, col], n_items[col] = pair_swap_values(a, b)
        zero = np.zeros_like(b)
        r_a[col] = pair_swap_values(a, np.where(np.isfinite(b), zero, np.nan))[0].sum()
        r_b[col] = pair_swap_values(b, np.where(np.isfinite(a), zero, np.nan))[0].sum()
    exact = (values != 0).sum(axis=0) <= MAX_EXACT_UNITS
    return PairSwapData(values, n_items, r_a, r_b, exact)


def acc_eq_deltas_block(data: PairSwapData, block: int, n_permutations: int, seed: int) -> np.ndarray:
    """Permuted differences of every Monte-Carlo column of ``data`` in permutation block ``block``:
    ``(n_pairs, rows of the block)`` (exact columns: NaN), with the block's coins
    (:func:`~korean_eval.metaeval.stats.accuracy_permutation.swap_coins`, stream ``PAIRS_STREAM``)."""
    coins = swap_coins(seed, PAIRS_STREAM, block, n_permutations, data.values.shape[0])
    out = np.full((data.values.shape[1], len(coins)), np.nan)
    random = np.flatnonzero(~data.exact)
    for start in range(0, random.size, 64):
        cols = random[start:start + 64]
        out[cols] = pair_swap_deltas(data.values[:, cols], coins)
    return out


def _acc_eq_tests(data: PairSwapData, n_permutations: int, seed: int) -> list[PermutationDeltas]:
    blocks = [acc_eq_deltas_block(data, j, n_permutations, seed) for j in range(n_blocks(n_permutations))]
    random = np.concatenate(blocks, axis=1) if blocks else np.empty((data.values.shape[1], 0))
    tests = []
    for col in range(data.values.shape[1]):
        v = data.values[:, col]
        if not np.isfinite(data.r_a[col]) or not np.isfinite(data.r_b[col]):
            tests.append(PermutationDeltas(float("nan"), np.empty(0), False))
        elif data.exact[col]:
            live = np.flatnonzero(v != 0)
            tests.append(PermutationDeltas(float(v.sum()), pair_swap_deltas(v[live, None], all_patterns(live.size))[0],
                                           True))
        else:
            tests.append(PermutationDeltas(float(v.sum()), random[col], False))
    return tests


# ---- SPA ------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreSwapData:
    """What the SPA ``perm-wmt`` tests of a table share: every configuration's z-scores ``z`` ``(n_configs, S, n)``
    on the ``n`` items every configuration and the humans scored for every system, the configuration pairs as
    indices, the sign patterns and the humans' p-values ``p_human`` of the system pairs (``triu`` order), and each
    configuration's SPA with them (``spa``: the reported SPA when every configuration scored the humans' items)."""

    z: np.ndarray
    pairs: np.ndarray
    signs: np.ndarray
    p_human: np.ndarray
    spa: np.ndarray


def prepare_spa(results: Results, keys: Sequence[Key], pairs: Sequence[tuple[Key, Key]], n_permutations: int,
                seed: int) -> ScoreSwapData | None:
    """:class:`ScoreSwapData`, with SPA's permutations and seed (``n_permutations``, ``seed``: the run's
    ``spa_permutations`` and seed, so that ``spa`` equals the table's when every configuration scored the humans'
    items); None without a common item or below 2 systems."""
    human = np.asarray(results.human_matrix, dtype=np.float64)
    if human.shape[0] < 2 or n_permutations < 1:
        return None
    humans = human_pairwise(human, n_permutations, seed)
    usable = humans.items.copy()
    for key in keys:
        usable &= np.isfinite(results.segment_matrices[key]).all(axis=0)
    if not usable.any():
        return None
    first, second = np.triu_indices(human.shape[0], 1)
    if np.array_equal(usable, humans.items):
        signs, p_human = humans.signs, humans.p_human
    else:  # as spa_of_segment_scores: both sides on the common items, fresh patterns
        signs = sign_patterns(n_permutations, int(usable.sum()), seed)
        p_human = pairwise_permutation_p_values(human[:, usable, None], _sums, signs)
    z = np.stack([standardise_scores(_signed(results, key)[:, usable]) for key in keys])
    index = {key: i for i, key in enumerate(keys)}
    pair_index = np.array([[index[x], index[y]] for x, y in pairs], dtype=np.int64).reshape(-1, 2)
    p_h = p_human[first, second]
    p_metric = np.stack([pairwise_permutation_p_values(z[i][..., None], _sums, signs)[first, second]
                         for i in range(len(keys))])
    return ScoreSwapData(z, pair_index, signs, p_h, 1.0 - np.mean(np.abs(p_h[None] - p_metric), axis=1))


def spa_deltas_block(data: ScoreSwapData, block: int, n_permutations: int, seed: int) -> np.ndarray:
    """Permuted differences of every pair of ``data`` in permutation block ``block``: ``(n_pairs, rows of the block)``,
    with the block's coins (:func:`~korean_eval.metaeval.stats.accuracy_permutation.swap_coins`, stream
    ``SCORES_STREAM``)."""
    coins = swap_coins(seed, SCORES_STREAM, block, n_permutations, data.z[0].size)
    return spa_swap_block(data.z, data.pairs, data.signs, data.p_human, coins)


#: Permutation blocks per call of :func:`spa_deltas_blocks` when the blocks are mapped over an executor.
SPA_BLOCKS_PER_TASK = 2

#: ``map_blocks(fn, argument_tuples) -> [fn(*arguments) for each]``, in order: how the SPA test's permutation blocks
#: run (default: here, one after another; the engine passes one that runs them as tasks on its executor).
MapBlocks = Callable[[Callable[..., np.ndarray], list[tuple]], list[np.ndarray]]


def spa_deltas_blocks(data: ScoreSwapData, blocks: Sequence[int], n_permutations: int, seed: int) -> np.ndarray:
    """:func:`spa_deltas_block` of consecutive ``blocks``, side by side: ``(n_pairs, their rows)``."""
    return np.concatenate([spa_deltas_block(data, j, n_permutations, seed) for j in blocks], axis=1)


def _map_here(fn: Callable[..., np.ndarray], arguments: list[tuple]) -> list[np.ndarray]:
    return [fn(*a) for a in arguments]


def _spa_tests(data: ScoreSwapData, n_permutations: int, seed: int, map_blocks: MapBlocks | None = None
               ) -> list[PermutationDeltas]:
    size = data.z[0].size
    observed = spa_swap_block(data.z, data.pairs, data.signs, data.p_human, np.zeros((1, size), dtype=bool))[:, 0]
    if size <= MAX_EXACT_UNITS:
        deltas = spa_swap_block(data.z, data.pairs, data.signs, data.p_human, all_patterns(size))
        exact = True
    else:
        blocks = list(range(n_blocks(n_permutations)))
        groups = [blocks[i:i + SPA_BLOCKS_PER_TASK] for i in range(0, len(blocks), SPA_BLOCKS_PER_TASK)]
        parts = (map_blocks or _map_here)(spa_deltas_blocks, [(data, g, n_permutations, seed) for g in groups])
        deltas = np.concatenate(parts, axis=1)
        exact = False
    return [PermutationDeltas(float(o), d, exact) for o, d in zip(observed, deltas, strict=True)]


# ---- tables ---------------------------------------------------------------------------------------------------------


def accuracy_significance_table(
    results: Results,
    statistic: str = "acc_eq",
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
    configs: Iterable[Config] | None = None,
    pairs: Iterable[tuple[Config, Config]] | None = None,
    map_blocks: MapBlocks | None = None,
) -> pd.DataFrame:
    """Pairwise significance of the difference in ``acc_eq`` (over items) or SPA between configurations.

    One row per ordered pair ``(config_a, config_b)``, ``a ≠ b``, of ``configs`` (default all; ``pairs``: only these
    unordered pairs, both orders reported): ``p_value`` is the one-sided p that ``config_a`` agrees with the humans
    more (:data:`ACCURACY_TESTS` names the test; module docstring), ``r_a``/``r_b`` the two accuracies on the data
    both share (acc_eq: the system pairs both compared, each at its own ε; SPA: the items every configuration scored
    for every system — the reported values when nothing is missing), ``n`` the items. Monte-Carlo with
    ``n_permutations`` permutations (SPA's own p-values: the run's ``spa_permutations``, so that ``r_a`` is the
    reported SPA), exact when at most 16 units can change the result (``method``; ``min_p``: the smallest p-value
    that test could give, :func:`korean_eval.metaeval.stats.power.deltas_min_p`). Empty (with the columns) without
    human scores, without SPA (``spa_permutations`` 0) or below two configurations. ``map_blocks``: how SPA's
    permutation blocks run (:data:`MapBlocks`; the values do not depend on it).
    """
    granularity, grouping, test = ACCURACY_TESTS[check_choice("statistic", statistic, tuple(ACCURACY_TESTS))]
    keys = selected_configs(results, configs)
    if not has_human(results) or len(keys) < 2:
        return pd.DataFrame(columns=SIGNIFICANCE_COLUMNS)
    tested = list(combinations(keys, 2)) if pairs is None else [(check_config(results, a), check_config(results, b))
                                                               for a, b in pairs]
    if statistic == "acc_eq":
        data = prepare_acc_eq(results, keys, tested)
        tests = _acc_eq_tests(data, n_permutations, seed)
        values = [(float(a), float(b), int(n)) for a, b, n in zip(data.r_a, data.r_b, data.n_items, strict=True)]
    else:
        spa_permutations = int(results.settings.get("spa_permutations", 0) or 0)
        spa_seed = int(results.settings.get("seed", seed))
        spa = prepare_spa(results, keys, tested, spa_permutations, spa_seed)
        if spa is None:
            return pd.DataFrame(columns=SIGNIFICANCE_COLUMNS)
        tests = _spa_tests(spa, n_permutations, seed, map_blocks)
        index = {key: i for i, key in enumerate(keys)}
        n_items = spa.z.shape[2]
        values = [(float(spa.spa[index[x]]), float(spa.spa[index[y]]), n_items) for x, y in tested]
    found = {pair: (test_result, value) for pair, test_result, value in zip(tested, tests, values, strict=True)}
    rows = []
    for x, y in permutations(keys, 2):
        forward = (x, y) in found
        if not forward and (y, x) not in found:
            continue
        deltas, (r_x, r_y, n) = found[(x, y)] if forward else found[(y, x)]
        deltas = deltas if forward else deltas.reversed()
        r_a, r_b = (r_x, r_y) if forward else (r_y, r_x)
        rows.append({
            "granularity": granularity, "grouping": grouping, "config_a": config_name(*x), "config_b": config_name(*y),
            "test": test, "statistic": statistic, "p_value": deltas.p_value(),
            "method": deltas.method if len(deltas.deltas) else "",
            "min_p": deltas_min_p(deltas) if len(deltas.deltas) else float("nan"), "r_a": r_a, "r_b": r_b, "n": n,
            "sign_a": 1.0, "sign_b": 1.0, "sign": "+1/+1",
        })
    return pd.DataFrame(rows, columns=SIGNIFICANCE_COLUMNS)


def accuracy_clusters_table(
    results: Results, statistic: str, table: pd.DataFrame, alpha: float = ALPHA,
    configs: Iterable[Config] | None = None,
) -> pd.DataFrame:
    """Rank clusters of the configurations by ``statistic`` (``acc_eq`` or ``spa``) from its
    :func:`accuracy_significance_table` (WMT style: :func:`korean_eval.metaeval.stats.comparisons.rank_clusters` —
    best first, a configuration opens a new cluster when a member of the current one beats it with ``p < alpha``).
    ``value`` = ``correlation`` = the reported accuracy (``results.correlations``), ``sign`` +1. Columns
    :data:`~korean_eval.metaeval.tables.significance.CLUSTER_COLUMNS`, best first."""
    granularity, grouping, test = ACCURACY_TESTS[check_choice("statistic", statistic, tuple(ACCURACY_TESTS))]
    keys = selected_configs(results, configs)
    if not keys:
        return pd.DataFrame(columns=CLUSTER_COLUMNS)
    names = [config_name(*k) for k in keys]
    table_values = _table_values(results, statistic)
    value = {name: table_values.get(key, _MISSING)[0] for name, key in zip(names, keys, strict=True)}
    pvalues = {(a, b): float("nan") for a in names for b in names if a != b}
    sub = table[table["test"] == test] if len(table) else table
    for a, b, p in zip(sub.get("config_a", []), sub.get("config_b", []), sub.get("p_value", []), strict=True):
        if (a, b) in pvalues:
            pvalues[(a, b)] = float(p)
    clusters = rank_clusters(value, pvalues, alpha)
    rows = [{"config": name, "label": display_label(results, key), "level": key[0], "metric": key[1],
             "value": value[name], "sign": 1.0, "correlation": value[name], "cluster": clusters[name]}
            for name, key in zip(names, keys, strict=True)]
    position = {name: p for p, name in enumerate(clusters)}
    rows.sort(key=lambda row: position[row["config"]])
    return pd.DataFrame(rows, columns=CLUSTER_COLUMNS)


def accuracy_tables(
    results: Results, n_permutations: int = RESAMPLES, seed: int = SEED, alpha: float = ALPHA,
    progress: Callable[[float, str], None] | None = None, statistics: Sequence[str] = tuple(ACCURACY_TESTS),
    map_blocks: MapBlocks | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(significance, clusters)`` by the accuracies ``statistics`` (default both, acc_eq then SPA) over every
    configuration: the rows :mod:`korean_eval.engine.statistics` appends to ``significance.csv`` and ``clusters.csv``
    (clusters with their ``granularity`` and ``statistic``); ``map_blocks`` as :func:`accuracy_significance_table`."""
    tables, clusters = [], []
    for done, statistic in enumerate(statistics):
        if progress is not None:
            progress(done / len(statistics), f"significance by {statistic}")
        table = accuracy_significance_table(results, statistic, n_permutations, seed, map_blocks=map_blocks)
        if table.empty:
            continue
        tables.append(table)
        granularity = ACCURACY_TESTS[statistic][0]
        clusters.append(accuracy_clusters_table(results, statistic, table, alpha).assign(granularity=granularity,
                                                                                       statistic=statistic))
    significance = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=SIGNIFICANCE_COLUMNS)
    cluster_table = pd.concat(clusters, ignore_index=True) if clusters else pd.DataFrame(
        columns=[*CLUSTER_COLUMNS, "granularity", "statistic"])
    return significance, cluster_table


#: The top-cluster walk by SPA tests its candidates in batches: the first ends at this many configurations (the
#: best first), each next at this many times as many (:func:`_walk_batches`).
WALK_FIRST_BATCH = 4
WALK_BATCH_GROWTH = 4


def accuracy_top_cluster(
    results: Results, statistic: str, n_permutations: int = RESAMPLES, seed: int = SEED, alpha: float = ALPHA,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The first rank cluster by ``statistic`` (``acc_eq`` or ``spa``) found with only the tests it needs, as
    :func:`korean_eval.metaeval.tables.significance.top_cluster_table` finds it for correlations: configurations
    best first, each candidate tested against the current members (the pairs :func:`accuracy_clusters_table`'s walk
    reads), stopping at the first one outside cluster 1. Each pair's p-value is the one
    :func:`accuracy_significance_table` gives it in the full table. Returns ``(table, clusters)``: the tested rows and
    the clusters of the walked configurations (cluster 1, then the first one below it when there is one).

    By SPA, when every configuration scored every item the humans scored for every system (so that every subset of
    configurations is tested on the same items), the candidates' tests run in batches (:func:`_walk_batches`): one
    call of :func:`accuracy_significance_table` tests every candidate of a batch against every configuration above
    it, z-scoring and projecting each configuration's scores once per batch rather than once per candidate; its rows
    are those each candidate's own call gives."""
    check_choice("statistic", statistic, tuple(ACCURACY_TESTS))
    keys = selected_configs(results, None)
    if not has_human(results) or not keys:
        return pd.DataFrame(columns=SIGNIFICANCE_COLUMNS), pd.DataFrame(columns=CLUSTER_COLUMNS)
    table_values = _table_values(results, statistic)
    value = {config_name(*k): table_values.get(k, _MISSING)[0] for k in keys}
    order = [n for n in sorted(value, key=lambda n: (-value[n], n)) if np.isfinite(value[n])]
    batched = statistic == "spa" and _same_items_for_all(results, keys)
    walked, tables = order[:1], []
    tested: dict[str, pd.DataFrame] = {}
    for done, candidate in enumerate(order[1:], 1):
        if progress is not None:
            progress(done / len(order), f"Testing {candidate} against the {len(walked)} at the top")
        if candidate not in tested:
            end = _walk_batches(done, len(order)) if batched else done + 1
            tested = _candidate_tests(results, statistic, order, done, end, n_permutations, seed)
        tables.append(tested.pop(candidate))
        walked.append(candidate)
        table = pd.concat(tables, ignore_index=True)
        if accuracy_clusters_table(results, statistic, table, alpha, walked)["cluster"].max() > 1:
            break
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=SIGNIFICANCE_COLUMNS)
    return table, accuracy_clusters_table(results, statistic, table, alpha, walked)


def _walk_batches(first: int, n: int) -> int:
    """The end (exclusive, a position in the walk's order of ``n`` configurations) of the batch of candidates that
    starts at position ``first``: :data:`WALK_FIRST_BATCH`, then each batch :data:`WALK_BATCH_GROWTH` times as far,
    so that a walk stopping early tests few more candidates than it reads and a walk through every configuration
    projects each one's scores a few times at most."""
    end = WALK_FIRST_BATCH
    while end <= first:
        end *= WALK_BATCH_GROWTH
    return min(end, n)


def _same_items_for_all(results: Results, keys: Sequence[Key]) -> bool:
    """Whether every configuration of ``keys`` has a score for every system on every item every system has a human
    score for: SPA's tests then use the same items, z-scores and sign patterns for any subset of them."""
    human = np.asarray(results.human_matrix, dtype=np.float64)
    items = np.isfinite(human).all(axis=0)
    return all(bool(np.isfinite(np.asarray(results.segment_matrices[k], dtype=np.float64)[:, items]).all())
               for k in keys)


def _candidate_tests(results: Results, statistic: str, order: Sequence[str], first: int, end: int,
                     n_permutations: int, seed: int) -> dict[str, pd.DataFrame]:
    """The rows of :func:`accuracy_significance_table` testing each candidate ``order[i]``, ``first <= i < end``,
    against every configuration above it (``order[:i]``), from one call over ``order[:end]``: candidate → its rows,
    in the order its own call (configurations ``order[:i + 1]``) lists them."""
    pairs = [(order[j], order[i]) for i in range(first, end) for j in range(i)]
    table = accuracy_significance_table(results, statistic, n_permutations, seed, order[:end], pairs)
    out = {}
    for i in range(first, end):
        above, candidate = set(order[:i]), order[i]
        mine = (((table["config_a"] == candidate) & table["config_b"].isin(above))
                | ((table["config_b"] == candidate) & table["config_a"].isin(above)))
        out[candidate] = table[mine].reset_index(drop=True)
    return out
