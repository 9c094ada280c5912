"""The meta-evaluation tables of one evaluation: how metric scores agree with human scores (docs/design.md §5).

Rows for the pipeline's tidy tables (``correlations``, ``rankings``, ``flips``), built from the score matrices
before a :class:`~korean_eval.model.results.Results` exists, and the best level per metric read back from them.

* Segment level: over all (system, segment) pairs that have both a metric and a human score (grouping ``none``),
  or the mean of per-item correlations across systems (``item``) or per-system correlations across items
  (``system``).
* System level: each system's metric score (its corpus score from summed statistics, over all its segments)
  against the mean human score over that system's segments that have human scores — or against system-level
  human scores given directly (an mt-metrics-eval ``sys`` file, :func:`declared_system_scores`), when there are.
* Rankings: systems ranked by metric score (best = 1; for error rates such as TER lower is better) and by mean human
  score (higher is better); ties share the lowest rank. A *flipped pair* is a pair of systems whose order by the
  metric is the opposite of their order by the humans.

Error-rate metrics (TER, CharacTER, EED) correlate *negatively* with humans when they agree; values are reported as
computed and the tables carry ``higher_is_better`` so that displays can say so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.correlation import (
    CorrelationResult,
    segment_correlation,
    system_correlation,
    system_means,
)
from korean_eval.metaeval.stats.pairwise import pairwise_accuracy
from korean_eval.metaeval.stats.soft_pairwise import HumanPairwise, spa_of_segment_scores
from korean_eval.metaeval.stats.tie_calibrated import TieCalibratedAccuracy, acc_eq
from korean_eval.metaeval.tables.degenerate import segment_flags, system_flags
from korean_eval.model.vocabulary import direction_sign, grouping_used

CORRELATION_COLUMNS = [
    "granularity",
    "grouping",
    "level",
    "metric",
    "statistic",
    "value",
    "flag",
    "ci_low",
    "ci_high",
    "n",
    "n_groups",
    "n_undefined",
    "epsilon",
]
#: Statistics of agreement on pairs (not correlations; no bootstrap interval): ``acc_eq`` at segment level
#: (groupings ``item`` and ``none``), ``pairwise_accuracy`` and ``spa`` at system level.
PAIRWISE_STATISTICS: tuple[str, ...] = ("acc_eq", "pairwise_accuracy", "spa")
RANKING_COLUMNS = ["level", "metric", "system", "metric_score", "metric_rank", "human_score", "human_rank"]
FLIP_COLUMNS = ["level", "metric", "system_a", "system_b", "metric_a", "metric_b", "human_a", "human_b"]


def human_matrix(human: pd.DataFrame | None, systems: Sequence[str], seg_ids: Sequence[str]) -> np.ndarray:
    """``(n_systems, n_items)`` matrix of human scores, NaN where missing."""
    out = np.full((len(systems), len(seg_ids)), np.nan)
    if human is None or human.empty:
        return out
    sys_index = {s: i for i, s in enumerate(systems)}
    seg_index = {s: j for j, s in enumerate(seg_ids)}
    rows = human["system"].map(sys_index)
    cols = human["seg_id"].astype(str).map(seg_index)
    ok = rows.notna() & cols.notna()
    out[rows[ok].astype(int).to_numpy(), cols[ok].astype(int).to_numpy()] = human.loc[ok, "score"].to_numpy(float)
    return out


def declared_system_scores(frame: pd.DataFrame, systems: Sequence[str]) -> np.ndarray:
    """System-level human scores given directly (``system, score``) as a vector in ``systems`` order, NaN where a
    system has none."""
    by_system = dict(zip(frame["system"].astype(str), frame["score"].astype(float), strict=True))
    return np.array([by_system.get(s, np.nan) for s in systems], dtype=np.float64)


def rank(values: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Competition ranks (1 = best; ties share the lowest rank; NaN gets NaN)."""
    values = np.asarray(values, dtype=np.float64)
    key = -values if higher_is_better else values
    ranks = np.full(len(values), np.nan)
    ok = np.isfinite(key)
    for i in np.flatnonzero(ok):
        ranks[i] = 1 + int(np.sum(key[ok] < key[i]))
    return ranks


def correlation_rows(
    level: str,
    metric: str,
    seg_metric: np.ndarray,
    human_mat: np.ndarray,
    sys_metric: np.ndarray,
    statistics: Sequence[str],
    groupings: Sequence[str],
    replace_nans_with_zeros: bool = False,
    human_sys: np.ndarray | None = None,
) -> list[dict]:
    """Correlation rows (segment level for each grouping, system level) for one level × metric; ``n_groups`` /
    ``n_undefined`` count the groups and the undefined ones
    (:class:`korean_eval.metaeval.stats.correlation.CorrelationResult`), which ``replace_nans_with_zeros`` counts as 0.
    ``human_sys``: the system-level human scores (default: each system's mean of ``human_mat``). ``flag``: the
    degenerate-data conditions of the row (:mod:`korean_eval.metaeval.tables.degenerate`; empty when none holds)."""
    rows: list[dict] = []
    human_sys = system_means(human_mat) if human_sys is None else human_sys
    seg_flags, sys_flag = segment_flags(seg_metric, human_mat), system_flags(sys_metric, human_sys)
    for statistic in statistics:
        for grouping in groupings:
            result = segment_correlation(seg_metric, human_mat, statistic, grouping, replace_nans_with_zeros)
            rows.append(_row("segment", grouping, level, metric, statistic, result, flag=seg_flags[grouping]))
        rows.append(_row("system", "none", level, metric, statistic, system_correlation(sys_metric, human_sys, statistic),
                         flag=sys_flag))
    return rows


def pairwise_rows(
    level: str,
    metric: str,
    seg_metric: np.ndarray,
    human_mat: np.ndarray,
    sys_metric: np.ndarray,
    higher_is_better: bool,
    humans: HumanPairwise | None,
    human_sys: np.ndarray | None = None,
) -> list[dict]:
    """The WMT statistics of one level × metric (docs/design.md §5), as correlation-table rows: ``acc_eq`` with its
    ε at segment level, grouping ``item`` (WMT's) and ``none`` (:func:`~korean_eval.metaeval.stats.tie_calibrated.acc_eq`;
    error rates negated); ``pairwise_accuracy`` of the system scores (:func:`~korean_eval.metaeval.stats.pairwise.
    pairwise_accuracy`); ``spa`` (:func:`~korean_eval.metaeval.stats.soft_pairwise.spa_of_segment_scores`) when
    ``humans`` is given. ``n``: items with a pair (acc_eq, ``item``), scored (system, item) points (acc_eq, ``none``), systems
    (pairwise accuracy), items (SPA). ``human_sys``: the system-level human scores of the pairwise accuracy
    (default: each system's mean of ``human_mat``). ``flag``: the degenerate-data conditions of each row
    (:mod:`korean_eval.metaeval.tables.degenerate`; SPA's from the systems' mean segment scores over the humans' items)."""
    signed = direction_sign(higher_is_better) * np.asarray(seg_metric, dtype=np.float64)
    seg_flags = segment_flags(seg_metric, human_mat)
    rows = []
    for grouping in ("item", "none"):
        try:
            result = acc_eq(signed, human_mat, grouping)
        except ValueError:  # too many pairs for the 'none' search
            result = TieCalibratedAccuracy(np.nan, np.nan, np.nan, 0, 0)
        n = result.n_groups if grouping == "item" else int((np.isfinite(signed) & np.isfinite(human_mat)).sum())
        found = CorrelationResult(result.accuracy, n, result.n_groups, 0)
        rows.append(_row("segment", grouping, level, metric, "acc_eq", found, result.epsilon, seg_flags[grouping]))
    human_sys = system_means(human_mat) if human_sys is None else human_sys
    both = np.isfinite(sys_metric) & np.isfinite(human_sys)
    accuracy = pairwise_accuracy(sys_metric, human_sys, higher_is_better)  # NaN without a pair
    found = CorrelationResult(accuracy, int(both.sum()), 1, 0)
    rows.append(_row("system", "none", level, metric, "pairwise_accuracy", found, flag=system_flags(sys_metric, human_sys)))
    if humans is not None:
        spa, n_items = spa_of_segment_scores(seg_metric, humans, human_mat, higher_is_better)
        flag = system_flags(system_means(np.where(humans.items, np.asarray(seg_metric, dtype=np.float64), np.nan)),
                            human_sys)
        rows.append(_row("system", "none", level, metric, "spa", CorrelationResult(spa, n_items, 1, 0), flag=flag))
    return rows


def _row(
    granularity: str, grouping: str, level: str, metric: str, statistic: str, result: CorrelationResult,
    epsilon: float = np.nan, flag: str = "",
) -> dict:
    return {
        "granularity": granularity,
        "grouping": grouping,
        "level": level,
        "metric": metric,
        "statistic": statistic,
        "value": result.value,
        "flag": flag,
        "ci_low": np.nan,
        "ci_high": np.nan,
        "n": result.n,
        "n_groups": result.n_groups,
        "n_undefined": result.n_undefined,
        "epsilon": epsilon,
    }


def ranking_rows(
    level: str,
    metric: str,
    systems: Sequence[str],
    sys_metric: np.ndarray,
    human_sys: np.ndarray,
    higher_is_better: bool,
) -> list[dict]:
    m_rank = rank(sys_metric, higher_is_better)
    h_rank = rank(human_sys, True)
    return [
        {
            "level": level,
            "metric": metric,
            "system": s,
            "metric_score": float(sys_metric[i]),
            "metric_rank": m_rank[i],
            "human_score": float(human_sys[i]),
            "human_rank": h_rank[i],
        }
        for i, s in enumerate(systems)
    ]


def flipped_pairs(
    level: str,
    metric: str,
    systems: Sequence[str],
    sys_metric: np.ndarray,
    human_sys: np.ndarray,
    higher_is_better: bool,
) -> list[dict]:
    """Pairs of systems ordered one way by the humans and the other way by the metric (ties are not flips)."""
    sign = direction_sign(higher_is_better)
    rows = []
    for a, b in combinations(range(len(systems)), 2):
        dm = sign * (sys_metric[a] - sys_metric[b])
        dh = human_sys[a] - human_sys[b]
        if np.isfinite(dm) and np.isfinite(dh) and dm * dh < 0:
            rows.append(
                {
                    "level": level,
                    "metric": metric,
                    "system_a": systems[a],
                    "system_b": systems[b],
                    "metric_a": float(sys_metric[a]),
                    "metric_b": float(sys_metric[b]),
                    "human_a": float(human_sys[a]),
                    "human_b": float(human_sys[b]),
                }
            )
    return rows


def best_levels(correlations: pd.DataFrame, granularity: str, statistic: str, grouping: str = "none") -> pd.DataFrame:
    """Per metric, the level whose correlation agrees best with humans (highest for scores, lowest for error rates;
    the pairwise statistics — acc_eq, pairwise accuracy, SPA — measure agreement already: highest).

    ``correlations`` must carry a ``higher_is_better`` column. Returns ``metric, level, value``.
    """
    df = correlations[
        (correlations["granularity"] == granularity)
        & (correlations["statistic"] == statistic)
        & (correlations["grouping"] == grouping_used(granularity, grouping))
        & correlations["value"].notna()
    ]
    rows = []
    for metric, group in df.groupby("metric", sort=False):
        signs = [1.0 if statistic in PAIRWISE_STATISTICS else direction_sign(h) for h in group["higher_is_better"]]
        agree = group["value"] * np.array(signs)
        best = group.loc[agree.idxmax()]
        rows.append({"metric": metric, "level": best["level"], "value": float(best["value"])})
    return pd.DataFrame(rows, columns=["metric", "level", "value"])


def given_system_scores(given: pd.DataFrame, systems: Sequence[str], seg_ids: Sequence[str]) -> Mapping[str, tuple]:
    """Bring-your-own metric scores as matrices: metric → (segment matrix, per-system mean of its segment scores,
    :func:`korean_eval.metaeval.stats.correlation.system_means`)."""
    out = {}
    for metric, group in given.groupby("metric", sort=False):
        mat = human_matrix(group[["system", "seg_id", "score"]], systems, seg_ids)
        out[str(metric)] = (mat, system_means(mat))
    return out
