"""Does each configuration of one :class:`~korean_eval.model.results.Results` order every pair of systems as the humans
do (docs/design.md §5): the system-pair table with tests on both sides, pairwise accuracy, and the ranking view.

Resampling as in :mod:`korean_eval.metaeval.tables.intervals` (one seeded index matrix shared by every configuration and
system pair; absent segments contribute nothing). Error-rate metrics prefer the system with the *lower* score.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.pairwise import (
    label_system_pair,
    paired_bootstrap_from_resamples,
    paired_bootstrap_means,
    pairwise_accuracy,
    wilcoxon_ranksum_human,
)
from korean_eval.metaeval.stats.resampling import bootstrap_indices, resample_counts
from korean_eval.metaeval.tables.configs import human_system_scores, selected_configs, system_scores
from korean_eval.metaeval.tables.intervals import resampled_system_scores
from korean_eval.metaeval.tables.threads import map_threads
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import Config, check_choice, config_name, direction_sign

SYSTEM_PAIR_COLUMNS = [
    "level",
    "metric",
    "system_a",
    "system_b",
    "metric_diff",
    "metric_p",
    "metric_ci_low",
    "metric_ci_high",
    "human_diff",
    "human_p",
    "human_ci_low",
    "human_ci_high",
    "higher_is_better",
    "metric_better",
    "human_better",
    "label",
]
ACCURACY_COLUMNS = ["level", "metric", "higher_is_better", "pairwise_accuracy", "n_pairs"]
RANKING_VIEW_COLUMNS = ["config", "level", "metric", "position", "system", "score", "human_position", "vs_next"]
HUMAN = "human"
HUMAN_TESTS = ("bootstrap", "wilcoxon")

HumanPairs = dict[tuple[int, int], tuple[float, float, float, float]]


def _better(diff: float, a: str, b: str) -> str:
    if not np.isfinite(diff):
        return ""
    return a if diff > 0 else b if diff < 0 else "tie"


def human_pair_tests(results: Results, indices: np.ndarray, human_test: str = "bootstrap") -> HumanPairs:
    """Human-side test of every system pair ``(i, j)``, ``i < j``: ``(diff, p, ci_low, ci_high)``.

    ``diff`` = mean human score of i − of j (each over its own scored items; a test on the segment scores, also
    when system-level human scores were given directly). ``"bootstrap"``: paired bootstrap of
    that difference on the shared ``indices`` (:func:`korean_eval.metaeval.stats.pairwise.paired_bootstrap_means`;
    sacrebleu's p-value and 95% interval); ``"wilcoxon"``: two-sided Wilcoxon rank-sum test of the two systems'
    scores (:func:`korean_eval.metaeval.stats.pairwise.wilcoxon_ranksum_human`; no interval, NaN).
    """
    check_choice("human_test", human_test, HUMAN_TESTS)
    h = np.asarray(results.human_matrix, dtype=np.float64)
    out = {}
    for i, j in combinations(range(len(results.systems)), 2):
        if human_test == "bootstrap":
            out[(i, j)] = tuple(paired_bootstrap_means(h[i], h[j], indices))
        else:
            w = wilcoxon_ranksum_human(h[i], h[j])
            out[(i, j)] = (w.diff, w.p_value, float("nan"), float("nan"))
    return out


def system_pairs_table(
    results: Results,
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
    human_test: str = "bootstrap",
    alpha: float = ALPHA,
    configs: Iterable[Config] | None = None,
    jobs: int | None = 1,
) -> pd.DataFrame:
    """Every pair of systems under every configuration: the metric's verdict, the humans' verdict, and a label.

    For systems ``a`` before ``b`` (``results.systems`` order) and each configuration:

    * ``metric_diff`` = system score of a − of b in the metric's own units (for TER a positive difference means a
      is *worse*); ``metric_p``, ``metric_ci_low/high``: sacrebleu's paired bootstrap (two-sided p of "no
      difference", 95% interval of the resampled differences;
      :func:`korean_eval.metaeval.stats.pairwise.paired_bootstrap_from_resamples`) over the shared seeded resamples,
      each system scored from its summed resampled statistics (absent segments contribute nothing; equal to
      sacrebleu's test, :func:`korean_eval.metaeval.stats.reference.paired_bootstrap_metric`, when no segment is
      missing; resamples where a system drew none of its segments are dropped). Bring-your-own metrics: the same
      on the mean of segment scores;
    * ``human_diff``, ``human_p``, ``human_ci_low/high``: :func:`human_pair_tests` (``human_test``);
    * ``metric_better`` / ``human_better``: the system each side prefers (for error-rate metrics the one with the
      *lower* score), ``"tie"`` for a zero difference;
    * ``label``: :func:`korean_eval.metaeval.stats.pairwise.label_system_pair` of the *sign-adjusted* metric difference
      (negated for error-rate metrics, so "agree" means the metric's better system is the humans' better system)
      and the human difference, significance at ``alpha`` — one of ``SYSTEM_PAIR_LABELS``; ``""`` where a
      difference is undefined.
    """
    keys = selected_configs(results, configs)
    n_items = len(results.seg_ids)
    if len(results.systems) < 2 or n_items == 0 or not keys:
        return pd.DataFrame(columns=SYSTEM_PAIR_COLUMNS)
    indices = bootstrap_indices(n_items, n_resamples, seed)
    counts = resample_counts(indices, n_items)
    human = human_pair_tests(results, indices, human_test)
    rows = [
        row
        for chunk in map_threads(lambda key: _config_pairs(results, key, counts, human, alpha), keys, jobs)
        for row in chunk
    ]
    return pd.DataFrame(rows, columns=SYSTEM_PAIR_COLUMNS)


def _config_pairs(
    results: Results, key: tuple[str, str], counts: np.ndarray, human: HumanPairs, alpha: float
) -> list[dict[str, Any]]:
    """The :func:`system_pairs_table` rows of one configuration."""
    systems = list(results.systems)
    full = system_scores(results, key)
    resampled = resampled_system_scores(results, key, counts)
    hib = results.higher_is_better(key[1], key[0])
    sign = direction_sign(hib)
    rows = []
    for (i, j), (h_diff, h_p, h_lo, h_hi) in human.items():
        m = paired_bootstrap_from_resamples(full[i] - full[j], resampled[:, i] - resampled[:, j])
        ok = np.isfinite(m.diff) and np.isfinite(h_diff)
        rows.append(
            {
                "level": key[0],
                "metric": key[1],
                "system_a": systems[i],
                "system_b": systems[j],
                "metric_diff": m.diff,
                "metric_p": m.p_value,
                "metric_ci_low": m.ci_low,
                "metric_ci_high": m.ci_high,
                "human_diff": h_diff,
                "human_p": h_p,
                "human_ci_low": h_lo,
                "human_ci_high": h_hi,
                "higher_is_better": hib,
                "metric_better": _better(sign * m.diff, systems[i], systems[j]),
                "human_better": _better(h_diff, systems[i], systems[j]),
                "label": label_system_pair(sign * m.diff, m.p_value, h_diff, h_p, alpha) if ok else "",
            }
        )
    return rows


def pairwise_accuracy_table(results: Results, configs: Iterable[Config] | None = None) -> pd.DataFrame:
    """Pairwise (system-ranking) accuracy of every configuration (Kocmi et al. 2021,
    :func:`korean_eval.metaeval.stats.pairwise.pairwise_accuracy`): the fraction of system pairs the metric orders as the
    humans' system scores (:func:`~korean_eval.metaeval.tables.configs.human_system_scores`) do (a pair both sides tie agrees, a pair one side ties disagrees; error-rate metrics: lower
    is better). ``n_pairs`` = pairs of systems with both a metric and a human score. Columns ``level, metric, higher_is_better, pairwise_accuracy,
    n_pairs``."""
    human = human_system_scores(results)
    rows = []
    for key in selected_configs(results, configs):
        scores = system_scores(results, key)
        hib = results.higher_is_better(key[1], key[0])
        k = int((np.isfinite(scores) & np.isfinite(human)).sum())
        rows.append(
            {
                "level": key[0],
                "metric": key[1],
                "higher_is_better": hib,
                "pairwise_accuracy": pairwise_accuracy(scores, human, hib),
                "n_pairs": k * (k - 1) // 2,
            }
        )
    return pd.DataFrame(rows, columns=ACCURACY_COLUMNS)


def _order(scores: np.ndarray, higher: bool) -> list[int]:
    """Indices best first (NaN last; ties keep system order)."""
    key = -scores if higher else scores
    return sorted(range(len(scores)), key=lambda i: (not np.isfinite(key[i]), key[i] if np.isfinite(key[i]) else 0.0, i))


def _pair_labels(pairs: pd.DataFrame | None) -> dict[tuple[str, str, str, str], str]:
    """(level, metric, system, other system) → the pair's label, both orders (the label is symmetric in a, b)."""
    labels: dict[tuple[str, str, str, str], str] = {}
    if pairs is not None and len(pairs):
        for r in pairs.itertuples():
            labels[(r.level, r.metric, r.system_a, r.system_b)] = r.label
            labels[(r.level, r.metric, r.system_b, r.system_a)] = r.label
    return labels


def ranking_view(
    results: Results,
    pairs: pd.DataFrame | None = None,
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
    human_test: str = "bootstrap",
    alpha: float = ALPHA,
    configs: Iterable[Config] | None = None,
) -> pd.DataFrame:
    """The humans' order of the systems and every configuration's order, with the pair labels between neighbours.

    Rows with ``config == "human"`` give the human order (by :func:`~korean_eval.metaeval.tables.configs.
    human_system_scores`: the mean human score over each system's own scored items, or the system-level scores
    given directly; higher first); then, per configuration, its systems best first (higher score first; *lower* first for
    error-rate metrics). ``position`` is 1, 2, … in that order (ties keep ``results.systems`` order; systems
    without a score last), ``score`` the system score (human mean for the human rows), ``human_position`` the
    system's position in the human order, and ``vs_next`` the :func:`system_pairs_table` label of this system and
    the next one in the configuration's order (``""`` for the last system and for the human rows). ``pairs``: a
    precomputed :func:`system_pairs_table` (otherwise computed with the given arguments).
    """
    keys = selected_configs(results, configs)
    systems = list(results.systems)
    human = human_system_scores(results)
    human_order = _order(human, True)
    human_pos = {systems[i]: p + 1 for p, i in enumerate(human_order)}
    rows = [
        {
            "config": HUMAN,
            "level": HUMAN,
            "metric": HUMAN,
            "position": p + 1,
            "system": systems[i],
            "score": float(human[i]),
            "human_position": p + 1,
            "vs_next": "",
        }
        for p, i in enumerate(human_order)
    ]
    if keys and pairs is None:
        pairs = system_pairs_table(results, n_resamples, seed, human_test, alpha, keys)
    labels = _pair_labels(pairs)
    for key in keys:
        scores = system_scores(results, key)
        order = _order(scores, results.higher_is_better(key[1], key[0]))
        for p, i in enumerate(order):
            nxt = systems[order[p + 1]] if p + 1 < len(order) else None
            rows.append(
                {
                    "config": config_name(*key),
                    "level": key[0],
                    "metric": key[1],
                    "position": p + 1,
                    "system": systems[i],
                    "score": float(scores[i]),
                    "human_position": human_pos[systems[i]],
                    "vs_next": labels.get((key[0], key[1], systems[i], nxt), "") if nxt else "",
                }
            )
    return pd.DataFrame(rows, columns=RANKING_VIEW_COLUMNS)
