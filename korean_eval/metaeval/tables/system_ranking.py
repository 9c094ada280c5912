"""How each configuration ranks the systems, with no human scores needed (docs/design.md §5, "ranking checks"):
system scores with intervals, paired tests between every two systems, significance clusters, the configurations
that order two systems differently, and the segments behind such a split.

Tests as sacrebleu defines them (``--paired-bs``, ``--paired-ar``), on every pair of systems instead of against
one baseline: paired bootstrap resampling on one seeded index matrix shared by every configuration
(:func:`korean_eval.metaeval.stats.resampling.bootstrap_indices`, drawn as sacrebleu draws it), each system scored
from its summed resampled statistics (:func:`korean_eval.metaeval.stats.pairwise.paired_bootstrap_from_resamples`);
approximate randomization on one seeded set of swap masks
(:func:`korean_eval.metaeval.stats.randomization.paired_ar`). With sacrebleu's seed (12345) and counts the
p-values are sacrebleu's. Error-rate metrics prefer the lower score.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.comparisons import rank_clusters
from korean_eval.metaeval.stats.pairwise import paired_bootstrap_from_resamples
from korean_eval.metaeval.stats.randomization import all_pairs_ar, swap_masks
from korean_eval.metaeval.stats.resampling import bootstrap_indices, resample_counts
from korean_eval.metaeval.tables.configs import selected_configs, system_scores
from korean_eval.metaeval.tables.intervals import resampled_system_scores
from korean_eval.model.config import RankingSettings
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import Config, config_name, direction_sign, parse_config

#: The ranking checks' defaults: sacrebleu's resamples, trials and seed; clusters by the paired bootstrap.
DEFAULT_SETTINGS = RankingSettings()
METRIC_PAIR_COLUMNS = [
    "level", "metric", "system_a", "system_b", "diff", "bs_p", "bs_ci_low", "bs_ci_high", "ar_p",
    "higher_is_better", "better", "significant",
]
SYSTEM_RANKING_COLUMNS = [
    "level", "metric", "system", "score", "bs_mean", "bs_ci", "ci_low", "ci_high", "position", "cluster",
    "higher_is_better",
]
ORDER_SPLIT_COLUMNS = [
    "system_a", "system_b", "n_configs", "prefer_a", "prefer_b", "tie", "significant_a", "significant_b",
    "configs_a", "configs_b",
]
SPLIT_SEGMENT_COLUMNS = ["seg_id", "diff_1", "diff_2", "strength"]


def metric_pairs_table(results: Results, settings: RankingSettings = DEFAULT_SETTINGS,
                       configs: Iterable[Config] | None = None) -> pd.DataFrame:
    """Every pair of systems under every configuration, tested: :data:`METRIC_PAIR_COLUMNS`.

    For systems ``a`` before ``b`` (``results.systems`` order): ``diff`` = system score of a − of b in the metric's
    units (for an error rate a positive difference means a is *worse*); ``bs_p``, ``bs_ci_low/high``: sacrebleu's
    paired bootstrap (two-sided p of "no difference", 95% interval of the resampled differences); ``ar_p``:
    sacrebleu's approximate randomization (NaN when ``settings.ar_trials`` is 0); ``better``: the system the
    metric prefers (the lower score for an error rate), ``"tie"`` for a zero difference; ``significant``: the
    p-value of ``settings.test`` is below ``settings.alpha``. Bring-your-own metrics: the same tests on the mean of
    the segment scores.
    """
    keys = selected_configs(results, configs)
    n_items = len(results.seg_ids)
    if len(results.systems) < 2 or n_items == 0 or not keys:
        return pd.DataFrame(columns=METRIC_PAIR_COLUMNS)
    counts = resample_counts(bootstrap_indices(n_items, settings.resamples, settings.seed), n_items)
    masks = swap_masks(n_items, settings.ar_trials, settings.seed) if settings.ar_trials > 0 else None
    rows = [row for key in keys for row in _config_pairs(results, key, counts, masks, settings)]
    return pd.DataFrame(rows, columns=METRIC_PAIR_COLUMNS)


def _config_pairs(results: Results, key: tuple[str, str], counts: np.ndarray, masks: np.ndarray | None,
                  settings: RankingSettings) -> list[dict[str, Any]]:
    """The :func:`metric_pairs_table` rows of one configuration."""
    systems = list(results.systems)
    full = system_scores(results, key)
    resampled = resampled_system_scores(results, key, counts)
    hib = results.higher_is_better(key[1], key[0])
    sign = direction_sign(hib)
    approximate, error = None, 0.0
    if key in results.stats and key in results.metrics:
        metric = results.metrics[key]
        stats, scores_from_sums = np.asarray(results.stats[key], dtype=np.float64), metric.scores_from_sums
        if metric.approximation_error > 0:
            approximate, error = metric.approximate_scores_from_sums, metric.approximation_error
    else:  # bring-your-own metric: its system score is the mean of its segment scores
        stats, scores_from_sums = np.asarray(results.segment_matrices[key], dtype=np.float64)[..., None], None
    ar = all_pairs_ar(stats, scores_from_sums, masks, approximate, error) if masks is not None else {}
    rows = []
    for i, j in combinations(range(len(systems)), 2):
        bs = paired_bootstrap_from_resamples(full[i] - full[j], resampled[:, i] - resampled[:, j])
        ar_p = ar[(i, j)][1] if masks is not None else float("nan")
        p = bs.p_value if settings.test == "bootstrap" else ar_p
        signed = sign * bs.diff
        better = "" if not np.isfinite(signed) else systems[i] if signed > 0 else systems[j] if signed < 0 else "tie"
        rows.append({
            "level": key[0], "metric": key[1], "system_a": systems[i], "system_b": systems[j],
            "diff": bs.diff, "bs_p": bs.p_value, "bs_ci_low": bs.ci_low, "bs_ci_high": bs.ci_high, "ar_p": ar_p,
            "higher_is_better": hib, "better": better, "significant": bool(p < settings.alpha),
        })
    return rows


def system_ranking_table(results: Results, pairs: pd.DataFrame, settings: RankingSettings = DEFAULT_SETTINGS,
                         configs: Iterable[Config] | None = None) -> pd.DataFrame:
    """Each configuration's systems best first, with intervals and significance clusters:
    :data:`SYSTEM_RANKING_COLUMNS`.

    ``score``: the reported system score; ``bs_mean`` ± ``bs_ci``: sacrebleu's bootstrap estimate (``estimate_ci``:
    the mean of the resampled scores and half the distance between the sorted resampled scores at positions
    ``n // 40`` and ``n − n // 40 − 1``), whose ends are ``ci_low`` and ``ci_high``; ``position``: 1 = best (the
    lowest score for an error rate; ties keep ``results.systems`` order; systems without a score last);
    ``cluster``: WMT-style significance clusters (:func:`korean_eval.metaeval.stats.comparisons.rank_clusters`,
    mt-metrics-eval ``AssignRanks``) by the ``pairs`` rows' p-values of ``settings.test``: walking the systems
    best first, a system starts a new cluster when a member of the current one is significantly better.
    """
    keys = selected_configs(results, configs)
    n_items = len(results.seg_ids)
    if not keys or n_items == 0:
        return pd.DataFrame(columns=SYSTEM_RANKING_COLUMNS)
    counts = resample_counts(bootstrap_indices(n_items, settings.resamples, settings.seed), n_items)
    column = "bs_p" if settings.test == "bootstrap" else "ar_p"
    systems = list(results.systems)
    rows = []
    for key in keys:
        hib = results.higher_is_better(key[1], key[0])
        signed = direction_sign(hib) * system_scores(results, key)
        resampled = resampled_system_scores(results, key, counts)
        mine = pairs[(pairs["level"] == key[0]) & (pairs["metric"] == key[1])]
        pvalues: dict[tuple[str, str], float] = {}
        for r in mine.itertuples():
            pvalues[(r.system_a, r.system_b)] = pvalues[(r.system_b, r.system_a)] = float(getattr(r, column))
        # rank_clusters sorts by name among equal scores; names prefixed by their position keep the systems' order
        named = {f"{i:06d}{s}": float(signed[i]) for i, s in enumerate(systems)}
        clusters = rank_clusters(named, {(a, b): pvalues.get((a[6:], b[6:]), float("nan"))
                                         for a in named for b in named if a != b}, settings.alpha)
        for position, name in enumerate(clusters, start=1):
            i = int(name[:6])
            mean, half, low, high = _sacrebleu_interval(resampled[:, i])
            rows.append({
                "level": key[0], "metric": key[1], "system": systems[i], "score": float(signed[i] * direction_sign(hib)),
                "bs_mean": mean, "bs_ci": half, "ci_low": low, "ci_high": high, "position": position,
                "cluster": clusters[name] if np.isfinite(signed[i]) else np.nan, "higher_is_better": hib,
            })
    return pd.DataFrame(rows, columns=SYSTEM_RANKING_COLUMNS)


def _sacrebleu_interval(values: np.ndarray) -> tuple[float, float, float, float]:
    """sacrebleu's ``estimate_ci`` of the finite resampled scores: (mean, half-width, low end, high end)."""
    v = np.sort(np.asarray(values, dtype=np.float64)[np.isfinite(values)])
    if v.size == 0:
        return (float("nan"),) * 4
    low, high = float(v[v.size // 40]), float(v[v.size - v.size // 40 - 1])
    return float(v.mean()), 0.5 * (high - low), low, high


def order_splits_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """For every pair of systems, how the configurations divide over it: :data:`ORDER_SPLIT_COLUMNS`.

    ``prefer_a`` / ``prefer_b`` / ``tie``: how many configurations prefer each system (or score them equal);
    ``significant_a`` / ``significant_b``: how many of those preferences are significant (the ``significant``
    column of :func:`metric_pairs_table`); ``configs_a`` / ``configs_b``: those configurations, ``level/metric``
    separated by spaces. A pair with configurations on both sides is one the metric × level choice decides. Rows:
    pairs split between configurations first (most evenly split first), then the rest, in the pairs' order.
    """
    if pairs.empty:
        return pd.DataFrame(columns=ORDER_SPLIT_COLUMNS)
    rows = []
    for (a, b), group in pairs.groupby(["system_a", "system_b"], sort=False):
        names = [config_name(lv, m) for lv, m in zip(group["level"], group["metric"], strict=True)]
        side_a, side_b = (group["better"] == a).to_numpy(), (group["better"] == b).to_numpy()
        sig = group["significant"].to_numpy(dtype=bool)
        rows.append({
            "system_a": a, "system_b": b, "n_configs": len(group),
            "prefer_a": int(side_a.sum()), "prefer_b": int(side_b.sum()), "tie": int((group["better"] == "tie").sum()),
            "significant_a": int((side_a & sig).sum()), "significant_b": int((side_b & sig).sum()),
            "configs_a": " ".join(n for n, s in zip(names, side_a, strict=True) if s),
            "configs_b": " ".join(n for n, s in zip(names, side_b, strict=True) if s),
        })
    out = pd.DataFrame(rows, columns=ORDER_SPLIT_COLUMNS)
    minority = np.minimum(out["prefer_a"], out["prefer_b"])
    order = sorted(range(len(out)), key=lambda k: (-int(minority.iloc[k] > 0), -int(minority.iloc[k]), k))
    return out.iloc[order].reset_index(drop=True)


def split_segments(results: Results, system_a: str, system_b: str, config_1: Config, config_2: Config,
                   limit: int | None = 20) -> pd.DataFrame:
    """The segments on which two configurations prefer different systems of a pair: :data:`SPLIT_SEGMENT_COLUMNS`.

    ``diff_1``, ``diff_2``: the sign-adjusted segment-score difference a − b under each configuration (positive:
    that configuration prefers a on this segment; an error rate's difference is negated). Kept: segments where the
    two have opposite signs. ``strength``: the smaller of the two differences, each divided by the standard
    deviation of its configuration's differences over all segments (units differ between metrics), so the
    segments that pull hardest in opposite directions come first; ``limit`` rows (None: all).
    """
    systems = list(results.systems)
    i, j = systems.index(system_a), systems.index(system_b)
    diffs = []
    for config in (config_1, config_2):
        key = parse_config(config)
        matrix = np.asarray(results.segment_matrices[key], dtype=np.float64)
        diffs.append(direction_sign(results.higher_is_better(key[1], key[0])) * (matrix[i] - matrix[j]))
    d1, d2 = diffs
    opposite = np.isfinite(d1) & np.isfinite(d2) & (d1 * d2 < 0)
    scale = [float(np.nanstd(d)) or 1.0 for d in diffs]
    strength = np.minimum(np.abs(d1) / scale[0], np.abs(d2) / scale[1])
    out = pd.DataFrame({"seg_id": np.asarray(results.seg_ids, dtype=object), "diff_1": d1, "diff_2": d2,
                        "strength": strength})[opposite]
    out = out.sort_values("strength", ascending=False, kind="stable").reset_index(drop=True)
    return out if limit is None else out.head(limit)


def ranking_tables(results: Results, settings: RankingSettings = DEFAULT_SETTINGS,
                   configs: Iterable[Config] | None = None) -> dict[str, pd.DataFrame]:
    """The ranking checks of a run by file name: ``metric_pairs.csv`` (:func:`metric_pairs_table`),
    ``system_ranking.csv`` (:func:`system_ranking_table`) and ``order_splits.csv`` (:func:`order_splits_table`)."""
    pairs = metric_pairs_table(results, settings, configs)
    return {
        "metric_pairs.csv": pairs,
        "system_ranking.csv": system_ranking_table(results, pairs, settings, configs),
        "order_splits.csv": order_splits_table(pairs),
    }
