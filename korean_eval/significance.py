"""Statistics a reviewer will accept, computed from one pipeline :class:`~korean_eval.results.Results`.

Pure functions (no UI, nothing mutated) built on :mod:`korean_eval.stats`:

* :func:`add_confidence_intervals` — bootstrap percentile intervals for every row of ``results.correlations``;
* :func:`significance_table`, :func:`rank_clusters_table` — is one configuration's correlation with the humans
  significantly higher than another's (Williams test, paired permutation test), and WMT-style significance
  clusters;
* :func:`system_pairs_table`, :func:`pairwise_accuracy_table`, :func:`ranking_view` — does each metric order
  every pair of systems as the humans do, with paired-bootstrap (or Wilcoxon) tests on both sides;
* :func:`compare_two` — one comparison with a plain-English verdict.

Conventions
-----------
* A *configuration* is a (token level, metric) pair, named ``"level/metric"`` (e.g. ``"char/chrf"``) and displayed
  as ``"chrF@char"``. Bring-your-own metrics have level ``"given"``.
* **Error-rate metrics** (``higher_is_better`` False: TER and the like) agree with humans when they correlate
  *negatively*. Whenever configurations are compared with each other (significance tables, clusters,
  :func:`compare_two`, system-pair labels), an error-rate metric's scores are multiplied by ``sign = −1`` first, so
  a larger (signed) correlation always means closer agreement with the humans; "TER@char beats BLEU@char" means
  TER agrees more. The tables carry the sign used. Confidence intervals keep the raw sign of
  ``results.correlations``.
* **Resampling**: every bootstrap resamples *items* (segments) with all their systems, using one seeded index
  matrix :func:`korean_eval.stats.bootstrap_indices` ``(n_resamples, n_items)`` per call, shared by every row
  (paired across configurations; sacrebleu's draw for the same seed and size).
* **Missing segments**: a system without some segment has NaN there in ``results.stats`` (statistics),
  ``results.segment_matrices`` and ``results.human_matrix``. Such entries are *absent*: NaN statistics rows
  contribute zero to the summed statistics, so a system's metric score (full set or resample) is computed over its
  own segments only — exactly as its reported system score — and its human score is the mean over its own scored
  items. A resample that draws none of a system's segments leaves that system out of that resample.
* System scores are always computed from **summed** statistics (``metric.scores_from_sums``), never by averaging
  segment scores, except for bring-your-own metrics (no statistics), whose system score is the mean of their
  segment scores.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import combinations, permutations
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd

from korean_eval.correlation import segment_correlation, system_correlation
from korean_eval.stats import (
    SYSTEM_PAIR_LABELS,
    bootstrap_indices,
    bootstrap_segment_correlations,
    bootstrap_system_scores,
    label_system_pair,
    paired_bootstrap_from_resamples,
    paired_bootstrap_means,
    pairwise_accuracy,
    percentile_ci,
    permutation_deltas,
    permutation_p,
    rank_clusters,
    resample_counts,
    resampled_means,
    system_correlations,
    wilcoxon_ranksum_human,
    williams_test,
)

if TYPE_CHECKING:
    from korean_eval.results import Results

Config = str | tuple[str, str]
T = TypeVar("T")
R = TypeVar("R")

SIGNIFICANCE_COLUMNS = [
    "granularity",
    "grouping",
    "config_a",
    "config_b",
    "test",
    "statistic",
    "p_value",
    "r_a",
    "r_b",
    "n",
    "sign_a",
    "sign_b",
    "sign",
]
CLUSTER_COLUMNS = ["config", "label", "level", "metric", "value", "sign", "correlation", "cluster"]
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
TESTS = ("williams", "williams_n2", "permutation")
_SYMBOLS = {"pearson": "r", "spearman": "ρ", "kendall": "τ"}


# --------------------------------------------------------------------------------------------------------------
# Configurations
# --------------------------------------------------------------------------------------------------------------


def config_name(level: str, metric: str) -> str:
    """``"level/metric"``, the name of a configuration in every table of this module."""
    return f"{level}/{metric}"


def _key(config: Config) -> tuple[str, str]:
    if isinstance(config, tuple):
        return (str(config[0]), str(config[1]))
    level, sep, metric = str(config).partition("/")
    if not sep:
        raise ValueError(f"a configuration is 'level/metric' (e.g. 'char/chrf'), got {config!r}")
    return level, metric


def configurations(results: Results) -> list[str]:
    """All configurations of ``results`` in pipeline order (levels × metrics, then bring-your-own metrics)."""
    return [config_name(*key) for key in results.segment_matrices]


def config_label(results: Results, config: Config) -> str:
    """Display name ``"chrF@char"`` (metric label @ level); bring-your-own metrics show their own name."""
    level, metric = _key(config)
    obj = results.metrics.get((level, metric))
    label = obj.info.label if obj is not None else metric
    return f"{label}@{level}"


def higher_is_better(results: Results, config: Config) -> bool:
    """Whether higher scores of ``config``'s metric are better (False for error rates such as TER, and for the
    user's own scores declared lower-is-better)."""
    level, metric = _key(config)
    return results.higher_is_better(metric, level)


def _sign(results: Results, config: Config) -> float:
    return 1.0 if higher_is_better(results, config) else -1.0


def _check_config(results: Results, config: Config) -> tuple[str, str]:
    key = _key(config)
    if key not in results.segment_matrices:
        raise ValueError(f"unknown configuration {config_name(*key)!r}; known: {', '.join(configurations(results))}")
    return key


def system_scores(results: Results, config: Config) -> np.ndarray:
    """Reported system scores of ``config`` in ``results.systems`` order (NaN where a system has none)."""
    level, metric = _key(config)
    df = results.system_scores
    rows = df[(df["level"] == level) & (df["metric"] == metric)]
    by_system = dict(zip(rows["system"], rows["score"].astype(float), strict=True))
    return np.array([by_system.get(s, np.nan) for s in results.systems], dtype=np.float64)


def human_means(results: Results) -> np.ndarray:
    """Mean human score of every system over its own scored items (NaN if none), ``results.systems`` order."""
    h = np.asarray(results.human_matrix, dtype=np.float64)
    present = np.isfinite(h)
    n = present.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.where(present, h, 0.0).sum(axis=1) / np.maximum(n, 1), np.nan)


def _has_human(results: Results) -> bool:
    h = np.asarray(results.human_matrix, dtype=np.float64)
    return h.size > 0 and bool(np.isfinite(h).any())


def _map(fn: Callable[[T], R], items: Sequence[T], jobs: int | None) -> list[R]:
    """``[fn(x) for x in items]``, on ``jobs`` threads when ``jobs > 1`` (``None``: one per CPU, at most 4). The
    compiled kernels release the GIL, so threads help on an idle multi-core machine; results do not depend on it."""
    workers = min(len(items), max(1, jobs if jobs is not None else min(4, os.cpu_count() or 1)))
    if workers <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))


# --------------------------------------------------------------------------------------------------------------
# 1. Confidence intervals of the correlations
# --------------------------------------------------------------------------------------------------------------


def bootstrap_counts(n_items: int, n_resamples: int = 1000, seed: int = 12345) -> np.ndarray:
    """Item count matrix ``(n_resamples, n_items)`` of the run's seeded bootstrap index matrix
    (:func:`korean_eval.stats.resample_counts` of :func:`korean_eval.stats.bootstrap_indices`)."""
    return resample_counts(bootstrap_indices(n_items, n_resamples, seed), n_items)


def resampled_system_scores(results: Results, config: Config, counts: np.ndarray) -> np.ndarray:
    """Every system's metric score of ``config`` in every resample, ``(n_resamples, n_systems)``.

    From summed statistics (:func:`korean_eval.stats.bootstrap_system_scores`: NaN statistics rows are absent and
    contribute zero) for pipeline metrics; the count-weighted mean of the present segment scores for
    bring-your-own metrics. NaN where a resample drew none of a system's segments.
    """
    key = _key(config)
    if key in results.stats and key in results.metrics:
        return bootstrap_system_scores(results.stats[key], results.metrics[key].scores_from_sums, counts)
    return resampled_means(counts, results.segment_matrices[key])


def bootstrap_correlations(results: Results, counts: np.ndarray, jobs: int | None = 1) -> np.ndarray:
    """Resampled correlation of every row of ``results.correlations``: ``(n_rows, n_resamples)``, row order kept.

    Resample ``r`` weights item ``i`` by ``counts[r, i]`` (all systems of an item together):

    * segment rows: :func:`korean_eval.stats.bootstrap_segment_correlations` of ``results.segment_matrices`` and
      ``results.human_matrix`` with the row's statistic and grouping;
    * system rows: each system's metric score recomputed from the resampled summed statistics
      (:func:`resampled_system_scores`) against its resampled mean human score, correlated across the systems.

    A row whose configuration is unknown, or any row when there are no human scores, is all NaN. With
    ``counts = np.ones((1, n_items))`` every row reproduces its point estimate (``value``). ``jobs``: worker
    threads over configurations (``None``: one per CPU, at most 4); the values do not depend on it.
    """
    corr = results.correlations
    counts = np.asarray(counts, dtype=np.float64)
    out = np.full((len(corr), counts.shape[0]), np.nan)
    if corr.empty or not _has_human(results):
        return out
    human = np.asarray(results.human_matrix, dtype=np.float64)
    human_sys = resampled_means(counts, human)
    positions: dict[tuple[str, str], list[int]] = {}
    for pos, (level, metric) in enumerate(zip(corr["level"], corr["metric"], strict=True)):
        positions.setdefault((str(level), str(metric)), []).append(pos)
    keys = [k for k in positions if k in results.segment_matrices]

    def one_config(key: tuple[str, str]) -> list[tuple[int, np.ndarray]]:
        seg = results.segment_matrices[key]
        metric_sys: np.ndarray | None = None
        done = []
        for pos in positions[key]:
            row = corr.iloc[pos]
            if row["granularity"] == "segment":
                values = bootstrap_segment_correlations(seg, human, row["statistic"], row["grouping"], counts)
            else:
                if metric_sys is None:
                    metric_sys = resampled_system_scores(results, key, counts)
                values = system_correlations(metric_sys, human_sys, row["statistic"])
            done.append((pos, values))
        return done

    for chunk in _map(one_config, keys, jobs):
        for pos, values in chunk:
            out[pos] = values
    return out


def add_confidence_intervals(
    results: Results,
    n_resamples: int = 1000,
    seed: int = 12345,
    alpha: float = 0.05,
    jobs: int | None = 1,
) -> pd.DataFrame:
    """A copy of ``results.correlations`` with ``ci_low``/``ci_high`` filled for every row.

    Percentile bootstrap intervals (``alpha/2`` and ``1 − alpha/2`` quantiles of the resampled correlations,
    resamples with an undefined correlation dropped; :func:`korean_eval.stats.percentile_ci`) over ``n_resamples``
    item resamples from one seeded index matrix shared by all rows (:func:`bootstrap_correlations`):

    * segment level — items resampled with all their systems, the correlation recomputed with the row's grouping
      (``none``: all (system, item) pairs; ``item``: mean of per-item across-system correlations; ``system``:
      mean of per-system across-item correlations);
    * system level — each system's metric score recomputed from the *summed* statistics of the resampled items
      (absent segments contribute nothing) and its human score as the mean over its resampled scored items; the
      correlation across systems recomputed.

    Values keep the raw sign (an agreeing error-rate metric has a negative interval). The result's
    ``attrs["confidence_intervals"]`` records method, ``n_resamples``, ``seed`` and ``alpha``. ``jobs``: worker
    threads (see :func:`bootstrap_correlations`; 1 by default). Cost, measured for 1000 resamples of 4 systems ×
    500 items: about 1.7 s for 25 configurations × 3 statistics × (3 groupings + system) = 300 rows, i.e. ~65 ms per
    configuration, a third of it sacrebleu re-scoring the resampled statistics.
    """
    out = results.correlations.copy()
    n_items = len(results.seg_ids)
    if out.empty or n_items == 0:
        return out
    values = bootstrap_correlations(results, bootstrap_counts(n_items, n_resamples, seed), jobs)
    bounds = np.array([percentile_ci(v, alpha) for v in values]).reshape(-1, 2)
    out["ci_low"] = bounds[:, 0]
    out["ci_high"] = bounds[:, 1]
    out.attrs["confidence_intervals"] = {
        "method": "percentile bootstrap over items (system scores from summed statistics)",
        "n_resamples": int(n_resamples),
        "seed": int(seed),
        "alpha": float(alpha),
    }
    return out


# --------------------------------------------------------------------------------------------------------------
# 2. Which configuration agrees more with the humans
# --------------------------------------------------------------------------------------------------------------


def _comparison_data(
    results: Results, key: tuple[str, str], granularity: str
) -> tuple[np.ndarray, np.ndarray]:
    """Signed scores of one configuration and the human scores they are correlated with."""
    sign = _sign(results, key)
    if granularity == "segment":
        return sign * np.asarray(results.segment_matrices[key], dtype=np.float64), np.asarray(
            results.human_matrix, dtype=np.float64
        )
    if granularity == "system":
        return sign * system_scores(results, key), human_means(results)
    raise ValueError(f"unknown granularity {granularity!r}; choose 'segment' or 'system'")


def _corr(x: np.ndarray, h: np.ndarray, statistic: str, granularity: str, grouping: str) -> float:
    if granularity == "segment":
        return segment_correlation(x, h, statistic, grouping)[0]
    return system_correlation(x, h, statistic)[0]


def _pair_correlations(
    a: np.ndarray, b: np.ndarray, h: np.ndarray, statistic: str, granularity: str, grouping: str
) -> tuple[float, float, float, int]:
    """``r(a, H)``, ``r(b, H)``, ``r(a, b)`` and n on the points present in all three (as stats.compare_correlations)."""
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(h)
    a, b, h = (np.where(ok, v, np.nan) for v in (a, b, h))
    return (
        _corr(a, h, statistic, granularity, grouping),
        _corr(b, h, statistic, granularity, grouping),
        _corr(a, b, statistic, granularity, grouping),
        int(ok.sum()),
    )


def _fmt_sign(sign: float) -> str:
    return "+1" if sign > 0 else "-1"


def significance_table(
    results: Results,
    statistic: str = "pearson",
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = 1000,
    seed: int = 12345,
    tests: Sequence[str] = ("williams", "permutation"),
    configs: Iterable[Config] | None = None,
    jobs: int | None = 1,
) -> pd.DataFrame:
    """Pairwise significance of the difference in agreement with the humans, for every ordered pair of configs.

    One row per ordered pair ``(config_a, config_b)``, ``a != b``, and test: ``p_value`` is the one-sided p that
    ``config_a`` agrees with the humans *more* than ``config_b`` (small p: a significantly better). Scores of an
    error-rate metric are negated first (``sign_a``/``sign_b`` = −1; ``sign`` = ``"<sign_a>/<sign_b>"``, e.g.
    ``"-1/+1"``), so "TER beats BLEU" means TER's (negative) correlation is the stronger agreement. ``r_a``,
    ``r_b`` are the signed correlations on the ``n`` points the three share (segment level: (system, item) pairs;
    system level: systems — each configuration's reported system scores against the systems' mean human scores).

    Tests (see :mod:`korean_eval.stats`): ``"williams"`` (Williams 1959, df n−3; also ``"williams_n2"``, df n−2)
    — ungrouped correlations only, NaN for ``item``/``system``-grouped segment correlations; an approximation for
    Spearman/Kendall — and ``"permutation"`` (Deutsch et al. 2021 paired permutation test, ``n_permutations``
    seeded coin flips per item, or per system at system level; computed once per unordered pair, the reverse
    direction from the same draws). Identical to :func:`korean_eval.stats.significance_matrix` on the signed
    inputs, vectorised (:func:`korean_eval.stats.permutation_deltas`).

    ``configs``: a subset (``"level/metric"`` names or tuples; default all). Rows are ordered by config_a, config_b
    (configuration order), then test. Empty (with the columns) without human scores. Cost of the segment-level
    permutation test, measured at 4 systems × 500 items and 1000 permutations: ~3 ms per pair for Pearson
    (0.8 s for 25 configurations = 300 pairs), ~25 ms for Spearman (~8 s) and ~50 ms for Kendall (~15 s); the
    system level is negligible. ``jobs``: worker threads (1 by default).
    """
    if granularity not in ("segment", "system"):
        raise ValueError(f"unknown granularity {granularity!r}; choose 'segment' or 'system'")
    if unknown := set(tests) - set(TESTS):
        raise ValueError(f"unknown tests {sorted(unknown)}; choose from {', '.join(TESTS)}")
    grouping = grouping if granularity == "segment" else "none"
    keys = [_check_config(results, c) for c in (configs if configs is not None else results.segment_matrices)]
    if not _has_human(results) or len(keys) < 2:
        return pd.DataFrame(columns=SIGNIFICANCE_COLUMNS)
    data = {k: _comparison_data(results, k, granularity) for k in keys}
    human = data[keys[0]][1]
    signs = {k: _sign(results, k) for k in keys}
    grouped = granularity == "segment" and grouping != "none"

    def one_pair(pair: tuple[tuple[str, str], tuple[str, str]]) -> dict[str, Any]:
        x, y = pair
        r_x, r_y, r_xy, n = _pair_correlations(data[x][0], data[y][0], human, statistic, granularity, grouping)
        out: dict[str, Any] = {"r": (r_x, r_y, r_xy, n)}
        if "permutation" in tests:
            obs, deltas = permutation_deltas(
                data[x][0], data[y][0], human, statistic, granularity, grouping, n_permutations, seed
            )
            out["perm"] = (permutation_p(obs, deltas), permutation_p(-obs, -deltas))
        return out

    pairs = list(combinations(keys, 2))
    per_pair = dict(zip(pairs, _map(one_pair, pairs, jobs), strict=True))
    rows: list[dict[str, Any]] = []
    for x, y in permutations(keys, 2):
        forward = (x, y) in per_pair
        res = per_pair[(x, y)] if forward else per_pair[(y, x)]
        r_x, r_y, r_xy, n = res["r"]
        r_a, r_b = (r_x, r_y) if forward else (r_y, r_x)
        for test in tests:
            if test == "permutation":
                p = res["perm"][0 if forward else 1]
            else:
                offset = 3 if test == "williams" else 2
                p = float("nan") if grouped else williams_test(r_a, r_b, r_xy, n, offset)
            rows.append(
                {
                    "granularity": granularity,
                    "grouping": grouping,
                    "config_a": config_name(*x),
                    "config_b": config_name(*y),
                    "test": test,
                    "statistic": statistic,
                    "p_value": p,
                    "r_a": r_a,
                    "r_b": r_b,
                    "n": n,
                    "sign_a": signs[x],
                    "sign_b": signs[y],
                    "sign": f"{_fmt_sign(signs[x])}/{_fmt_sign(signs[y])}",
                }
            )
    return pd.DataFrame(rows, columns=SIGNIFICANCE_COLUMNS)


def _point_value(results: Results, key: tuple[str, str], statistic: str, granularity: str, grouping: str) -> float:
    corr = results.correlations
    rows = corr[
        (corr["level"] == key[0])
        & (corr["metric"] == key[1])
        & (corr["statistic"] == statistic)
        & (corr["granularity"] == granularity)
        & (corr["grouping"] == (grouping if granularity == "segment" else "none"))
    ]
    if len(rows):
        return float(rows["value"].iloc[0])
    scores, human = _comparison_data(results, key, granularity)
    return _sign(results, key) * _corr(scores, human, statistic, granularity, grouping)


def rank_clusters_table(
    results: Results,
    statistic: str = "pearson",
    granularity: str = "segment",
    grouping: str = "none",
    test: str = "permutation",
    alpha: float = 0.05,
    n_permutations: int = 1000,
    seed: int = 12345,
    configs: Iterable[Config] | None = None,
    table: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Significance clusters of the configurations (WMT style, :func:`korean_eval.stats.rank_clusters`).

    Configurations are sorted by ``correlation`` = ``sign · value`` (their agreement with the humans: ``value`` is
    the raw correlation of ``results.correlations``, ``sign`` −1 for error-rate metrics), best first; walking down,
    a configuration opens a new cluster when some member of the current cluster beats it with ``p < alpha`` under
    ``test`` (``"permutation"`` by default, valid for every statistic and grouping; ``"williams"`` applies to
    ungrouped correlations only — with NaN p-values everything stays in one cluster). p-values come from ``table``
    (a :func:`significance_table` of the same statistic, granularity and grouping) or are computed. Columns
    ``config, label, level, metric, value, sign, correlation, cluster`` (1 = best).
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; choose from {', '.join(TESTS)}")
    grouping = grouping if granularity == "segment" else "none"
    keys = [_check_config(results, c) for c in (configs if configs is not None else results.segment_matrices)]
    if not keys:
        return pd.DataFrame(columns=CLUSTER_COLUMNS)
    if table is None:
        table = significance_table(results, statistic, granularity, grouping, n_permutations, seed, (test,), keys)
    names = [config_name(*k) for k in keys]
    sub = table[(table["test"] == test)] if len(table) else table
    pvalues = {(a, b): float("nan") for a in names for b in names if a != b}
    for a, b, p in zip(sub.get("config_a", []), sub.get("config_b", []), sub.get("p_value", []), strict=True):
        if (a, b) in pvalues:
            pvalues[(a, b)] = float(p)
    raw = {name: _point_value(results, key, statistic, granularity, grouping) for name, key in zip(names, keys, strict=True)}
    signs = {name: _sign(results, key) for name, key in zip(names, keys, strict=True)}
    agreement = {name: signs[name] * raw[name] for name in names}
    clusters = rank_clusters(agreement, pvalues, alpha)
    rows = [
        {
            "config": name,
            "label": config_label(results, key),
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


# --------------------------------------------------------------------------------------------------------------
# 3. System pairs
# --------------------------------------------------------------------------------------------------------------


def _better(diff: float, a: str, b: str) -> str:
    if not np.isfinite(diff):
        return ""
    return a if diff > 0 else b if diff < 0 else "tie"


def human_pair_tests(
    results: Results, indices: np.ndarray, human_test: str = "bootstrap"
) -> dict[tuple[int, int], tuple[float, float, float, float]]:
    """Human-side test of every system pair ``(i, j)``, ``i < j``: ``(diff, p, ci_low, ci_high)``.

    ``diff`` = mean human score of i − of j (each over its own scored items). ``"bootstrap"``: paired bootstrap of
    that difference on the shared ``indices`` (:func:`korean_eval.stats.paired_bootstrap_means`; sacrebleu's
    p-value and 95% interval); ``"wilcoxon"``: two-sided Wilcoxon rank-sum test of the two systems' scores
    (:func:`korean_eval.stats.wilcoxon_ranksum_human`; no interval, NaN).
    """
    if human_test not in ("bootstrap", "wilcoxon"):
        raise ValueError(f"unknown human_test {human_test!r}; choose 'bootstrap' or 'wilcoxon'")
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
    n_resamples: int = 1000,
    seed: int = 12345,
    human_test: str = "bootstrap",
    alpha: float = 0.05,
    configs: Iterable[Config] | None = None,
    jobs: int | None = 1,
) -> pd.DataFrame:
    """Every pair of systems under every configuration: the metric's verdict, the humans' verdict, and a label.

    For systems ``a`` before ``b`` (``results.systems`` order) and each configuration:

    * ``metric_diff`` = system score of a − of b in the metric's own units (for TER a positive difference means a
      is *worse*); ``metric_p``, ``metric_ci_low/high``: sacrebleu's paired bootstrap (two-sided p of "no
      difference", 95% interval of the resampled differences) over the shared seeded resamples, each system scored
      from its summed resampled statistics (absent segments contribute nothing; equal to
      :func:`korean_eval.stats.paired_bootstrap_metric` when no segment is missing; resamples where a system drew
      none of its segments are dropped). Bring-your-own metrics: the same on the mean of segment scores;
    * ``human_diff``, ``human_p``, ``human_ci_low/high``: :func:`human_pair_tests` (``human_test``);
    * ``metric_better`` / ``human_better``: the system each side prefers (for error-rate metrics the one with the
      *lower* score), ``"tie"`` for a zero difference;
    * ``label``: :func:`korean_eval.stats.label_system_pair` of the *sign-adjusted* metric difference (negated for
      error-rate metrics, so "agree" means the metric's better system is the humans' better system) and the human
      difference, significance at ``alpha`` — one of ``SYSTEM_PAIR_LABELS``; ``""`` where a difference is undefined.
    """
    keys = [_check_config(results, c) for c in (configs if configs is not None else results.segment_matrices)]
    systems = list(results.systems)
    n_items = len(results.seg_ids)
    if len(systems) < 2 or n_items == 0 or not keys:
        return pd.DataFrame(columns=SYSTEM_PAIR_COLUMNS)
    indices = bootstrap_indices(n_items, n_resamples, seed)
    counts = resample_counts(indices, n_items)
    human = human_pair_tests(results, indices, human_test)

    def one_config(key: tuple[str, str]) -> list[dict[str, Any]]:
        full = system_scores(results, key)
        resampled = resampled_system_scores(results, key, counts)
        hib = higher_is_better(results, key)
        sign = 1.0 if hib else -1.0
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

    rows = [row for chunk in _map(one_config, keys, jobs) for row in chunk]
    return pd.DataFrame(rows, columns=SYSTEM_PAIR_COLUMNS)


def pairwise_accuracy_table(results: Results, configs: Iterable[Config] | None = None) -> pd.DataFrame:
    """Pairwise (system-ranking) accuracy of every configuration (Kocmi et al. 2021,
    :func:`korean_eval.stats.pairwise_accuracy`): the fraction of system pairs the metric orders as the humans'
    mean scores do (ties count as disagreement; error-rate metrics: lower is better). ``n_pairs`` = pairs of systems
    with both a metric and a human score. Columns ``level, metric, higher_is_better, pairwise_accuracy, n_pairs``."""
    keys = [_check_config(results, c) for c in (configs if configs is not None else results.segment_matrices)]
    human = human_means(results)
    rows = []
    for key in keys:
        scores = system_scores(results, key)
        hib = higher_is_better(results, key)
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


def ranking_view(
    results: Results,
    pairs: pd.DataFrame | None = None,
    n_resamples: int = 1000,
    seed: int = 12345,
    human_test: str = "bootstrap",
    alpha: float = 0.05,
    configs: Iterable[Config] | None = None,
) -> pd.DataFrame:
    """The humans' order of the systems and every configuration's order, with the pair labels between neighbours.

    Rows with ``config == "human"`` give the human order (by mean human score over each system's own scored items,
    higher first); then, per configuration, its systems best first (higher score first; *lower* first for
    error-rate metrics). ``position`` is 1, 2, … in that order (ties keep ``results.systems`` order; systems
    without a score last), ``score`` the system score (human mean for the human rows), ``human_position`` the
    system's position in the human order, and ``vs_next`` the :func:`system_pairs_table` label of this system and
    the next one in the configuration's order (``""`` for the last system and for the human rows). ``pairs``: a
    precomputed :func:`system_pairs_table` (otherwise computed with the given arguments).
    """
    keys = [_check_config(results, c) for c in (configs if configs is not None else results.segment_matrices)]
    systems = list(results.systems)
    human = human_means(results)
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
    labels: dict[tuple[str, str, str, str], str] = {}
    if pairs is not None and len(pairs):
        for r in pairs.itertuples():
            labels[(r.level, r.metric, r.system_a, r.system_b)] = r.label
            labels[(r.level, r.metric, r.system_b, r.system_a)] = r.label  # the label is symmetric in a, b
    for key in keys:
        scores = system_scores(results, key)
        order = _order(scores, higher_is_better(results, key))
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


# --------------------------------------------------------------------------------------------------------------
# 4. One comparison in plain English
# --------------------------------------------------------------------------------------------------------------


def _fmt_r(r: float) -> str:
    return f"{r:.2f}".replace("-", "−") if np.isfinite(r) else "undefined"


def _fmt_p(p: float) -> str:
    if not np.isfinite(p):
        return "= n/a"
    if p < 0.001:
        return "< 0.001"
    return f"= {p:.3f}" if p < 0.01 else f"= {p:.2f}"


def compare_two(
    results: Results,
    config_a: Config,
    config_b: Config,
    statistic: str = "pearson",
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = 1000,
    seed: int = 12345,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """Compare two configurations' agreement with the humans and say what it means.

    Correlations are taken on the points both configurations and the humans share (as in
    :func:`significance_table`; for error-rate metrics agreement = −r). The configuration with the higher agreement
    is ``better``; ``p_williams`` (df n−3; NaN for grouped segment correlations) and ``p_permutation`` are the
    one-sided p-values that ``better`` beats the other (if both agree equally: that a beats b). ``significant`` is
    True when every available test gives ``p < alpha``.

    Returns a dict with ``config_a, config_b, label_a, label_b, statistic, granularity, grouping, r_a, r_b`` (raw
    correlations), ``sign_a, sign_b, agreement_a, agreement_b, r_ab`` (correlation between the signed
    configurations), ``n, better, worse, p_williams, p_permutation, significant, alpha`` and ``sentence``, e.g.
    "chrF@char correlates more strongly with humans than chrF@word at the segment level (r = 0.31 vs 0.25; Williams
    p = 0.03, permutation p = 0.04): the difference is significant at α = 0.05."
    """
    ka, kb = _check_config(results, config_a), _check_config(results, config_b)
    if granularity not in ("segment", "system"):
        raise ValueError(f"unknown granularity {granularity!r}; choose 'segment' or 'system'")
    grouping = grouping if granularity == "segment" else "none"
    a, human = _comparison_data(results, ka, granularity)
    b, _ = _comparison_data(results, kb, granularity)
    sa, sb = _sign(results, ka), _sign(results, kb)
    ag_a, ag_b, r_ab, n = _pair_correlations(a, b, human, statistic, granularity, grouping)
    a_first = not (np.isfinite(ag_a) and np.isfinite(ag_b) and ag_b > ag_a)
    first, second = (a, b) if a_first else (b, a)
    grouped = granularity == "segment" and grouping != "none"
    r_first, r_second = (ag_a, ag_b) if a_first else (ag_b, ag_a)
    p_w = float("nan") if grouped else williams_test(r_first, r_second, r_ab, n, 3)
    obs, deltas = permutation_deltas(first, second, human, statistic, granularity, grouping, n_permutations, seed)
    p_perm = permutation_p(obs, deltas)
    names = {True: config_label(results, ka), False: config_label(results, kb)}
    better, worse = names[a_first], names[not a_first]
    equal = np.isfinite(ag_a) and np.isfinite(ag_b) and ag_a == ag_b
    tests = [("Williams", p_w)] if np.isfinite(p_w) else []
    tests.append(("permutation", p_perm))
    available = [(t, p) for t, p in tests if np.isfinite(p)]
    significant = bool(available) and all(p < alpha for _, p in available) and not equal
    sym = _SYMBOLS.get(statistic, "r")
    raw = {True: sa * ag_a, False: sb * ag_b}
    level_text = "at the system level" if granularity == "system" else "at the segment level" + (
        f", averaged per {grouping}," if grouped else ""
    )
    p_text = ", ".join(f"{t} p {_fmt_p(p)}" for t, p in tests)
    notes = [
        f"{names[k]} is an error rate, so its correlation is negated before comparing"
        for k, s in ((True, sa), (False, sb))
        if s < 0
    ]
    numbers = f"{sym} = {_fmt_r(raw[a_first])} vs {_fmt_r(raw[not a_first])}; " + "; ".join(notes + [p_text])
    if not (np.isfinite(ag_a) and np.isfinite(ag_b)):
        sentence = (
            f"{names[True]} and {names[False]} cannot be compared {level_text}: a correlation is undefined "
            f"({sym} = {_fmt_r(raw[True])} vs {_fmt_r(raw[False])})."
        )
    elif equal:
        sentence = f"{names[True]} and {names[False]} correlate equally strongly with humans {level_text} ({numbers})."
    else:
        verdict = (
            f"the difference is significant at α = {alpha:g}"
            if significant
            else f"the difference is not significant at α = {alpha:g}"
        )
        if not significant and any(p < alpha for _, p in available):
            yes = " and ".join(f"the {t} test" for t, p in available if p < alpha)
            no = " and ".join(f"the {t} test" for t, p in available if not p < alpha)
            verdict = f"{yes} finds the difference significant at α = {alpha:g}, {no} does not"
        sentence = f"{better} correlates more strongly with humans than {worse} {level_text} ({numbers}): {verdict}."
    return {
        "config_a": config_name(*ka),
        "config_b": config_name(*kb),
        "label_a": names[True],
        "label_b": names[False],
        "statistic": statistic,
        "granularity": granularity,
        "grouping": grouping,
        "r_a": sa * ag_a,
        "r_b": sb * ag_b,
        "sign_a": sa,
        "sign_b": sb,
        "agreement_a": ag_a,
        "agreement_b": ag_b,
        "r_ab": r_ab,
        "n": n,
        "better": config_name(*(ka if a_first else kb)),
        "worse": config_name(*(kb if a_first else ka)),
        "p_williams": p_w,
        "p_permutation": p_perm,
        "significant": significant,
        "alpha": alpha,
        "sentence": sentence,
    }


__all__ = [
    "ACCURACY_COLUMNS",
    "CLUSTER_COLUMNS",
    "HUMAN",
    "RANKING_VIEW_COLUMNS",
    "SIGNIFICANCE_COLUMNS",
    "SYSTEM_PAIR_COLUMNS",
    "SYSTEM_PAIR_LABELS",
    "TESTS",
    "add_confidence_intervals",
    "bootstrap_correlations",
    "bootstrap_counts",
    "compare_two",
    "config_label",
    "config_name",
    "configurations",
    "higher_is_better",
    "human_means",
    "human_pair_tests",
    "pairwise_accuracy_table",
    "rank_clusters_table",
    "ranking_view",
    "resampled_system_scores",
    "significance_table",
    "system_pairs_table",
    "system_scores",
]
