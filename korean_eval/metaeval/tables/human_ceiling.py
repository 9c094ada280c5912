"""The human ceiling: how well human raters agree with each other, measured with the statistics the metrics get
(docs/design.md §5, "The human ceiling").

Units: the rater groups when there are two or more (e.g. ``esa-human1`` and ``esa-human2``, or several rating
files), else the raters of the one group. Each unit's ``(n_systems, n_items)`` matrix holds the mean of its
judgments per item (higher is better, ``EvalSet.human_ratings``). With exactly two units, the first (in order of
appearance) is compared with the second, as a metric is compared with the humans. With three or more, each unit is
compared with the mean of the others (per item, the mean over the other units that rated it) — the leave-one-out
agreement of inter-annotator studies (e.g. Freitag et al. 2021, §5; Kocmi et al. 2024, "Error Span Annotation",
§4) — and the row ``mean over units`` averages their values (no interval). Every comparison uses only the shared
items: the (system, item) entries both sides rated; the system level compares each side's mean over those items.

Statistics (the metrics' own functions, :mod:`korean_eval.metaeval`): correlations at segment level with each
grouping and at system level (:func:`korean_eval.metaeval.tables.tidy.correlation_rows`), ``acc_eq``, pairwise accuracy
and SPA (:func:`korean_eval.metaeval.tables.tidy.pairwise_rows`), and percentile bootstrap intervals over items with the
run's seeded draw (:func:`korean_eval.metaeval.stats.resampling.bootstrap_indices`, the same resamples as the
metrics' intervals; both sides resampled together) — of the accuracies too, as the metrics get them
(:mod:`korean_eval.metaeval.stats.accuracy_resampling`: ``acc_eq`` over items with ε chosen in every resample, over
all pairs at the full set's ε, pairwise accuracy of the resampled system means, SPA of the resampled items). A metric whose agreement with the merged human scores exceeds this
ceiling is agreeing with the average rater better than raters agree with each other: a reason to check the data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.accuracy_resampling import (
    item_acc_eq_resamples,
    item_accuracy_steps,
    pairwise_accuracy_resamples,
    pooled_acc_eq_resamples,
    pooled_agreement,
    resampled_p_values,
    spa_from_p_values,
)
from korean_eval.metaeval.stats.correlation import system_means
from korean_eval.metaeval.stats.resampling import (
    bootstrap_indices,
    bootstrap_segment_correlations,
    count_weighted_means,
    mean_of_defined,
    percentile_ci,
    resample_counts,
    system_correlations,
)
from korean_eval.metaeval.stats.soft_pairwise import human_pairwise
from korean_eval.metaeval.tables.intervals import in_resample_blocks
from korean_eval.metaeval.tables.tidy import (
    CORRELATION_COLUMNS,
    correlation_rows,
    human_matrix,
    pairwise_rows,
)
from korean_eval.model.defaults import RESAMPLES, SEED
from korean_eval.model.vocabulary import GROUPINGS, STATISTICS

__all__ = ["CEILING_COLUMNS", "MEAN_ROW", "NO_CEILING_NOTE", "ceiling_units", "human_ceiling", "no_ceiling_note",
           "reference_rows", "run_ceiling"]

CEILING_COLUMNS = ["comparison", "unit", "versus", *[c for c in CORRELATION_COLUMNS if c not in ("level", "metric")]]
#: The ``comparison`` of the rows averaging the leave-one-out comparisons.
MEAN_ROW = "mean over units"
#: The start of the run's note when there are ratings but no ceiling (:func:`no_ceiling_note` says why).
NO_CEILING_NOTE = "no human ceiling"


def no_ceiling_note(ratings: pd.DataFrame) -> str:
    """Why ``ratings`` give no ceiling: the rater groups share no item; or, with one group, it has one rater, or its
    raters share no item (the units of :func:`ceiling_units`)."""
    groups = list(dict.fromkeys(ratings["group"]))
    if len(groups) >= 2:
        return f"{NO_CEILING_NOTE}: the rater groups {', '.join(groups)} rated no item in common"
    raters = ratings["rater"].nunique()
    if raters < 2:
        return (f"{NO_CEILING_NOTE}: one rater group ({groups[0]}) with one rater; the agreement between raters needs "
                "two raters or rater groups who rated the same items")
    return f"{NO_CEILING_NOTE}: in the one rater group {groups[0]}, no two of its {raters} raters rated the same item"


def ceiling_units(ratings: pd.DataFrame) -> tuple[str, dict[str, pd.DataFrame]]:
    """(``group`` or ``rater``, unit name → its rows): the groups when there are ≥ 2, else the raters."""
    column = "group" if ratings["group"].nunique() >= 2 else "rater"
    return column, {name: rows for name, rows in ratings.groupby(column, sort=False)}


def _unit_matrix(rows: pd.DataFrame, systems: Sequence[str], seg_ids: Sequence[str]) -> np.ndarray:
    means = rows.groupby(["system", "seg_id"], sort=False)["score"].mean().reset_index()
    return human_matrix(means, systems, seg_ids)


def comparisons(matrices: dict[str, np.ndarray]) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """``(unit, versus, A, B)`` per comparison (module docstring), both sides NaN outside the shared entries."""
    names = list(matrices)
    if len(names) < 2:
        return []
    pairs = [(names[0], [names[1]])] if len(names) == 2 else [(n, [m for m in names if m != n]) for n in names]
    out = []
    for unit, others in pairs:
        a = matrices[unit].copy()
        stack = np.stack([matrices[o].ravel() for o in others])
        rest = mean_of_defined(stack).reshape(a.shape)
        shared = np.isfinite(a) & np.isfinite(rest)
        a[~shared], rest[~shared] = np.nan, np.nan
        versus = others[0] if len(others) == 1 else "mean of the others"
        out.append((unit, versus, a, rest))
    return out


def _accuracy_resamples(row: dict, a: np.ndarray, b: np.ndarray, counts: np.ndarray, sys_a: np.ndarray,
                        sys_b: np.ndarray) -> np.ndarray:
    """The resampled ``acc_eq`` (both groupings) or pairwise accuracy of unit ``a`` against ``b``: ``(n_resamples,)``
    (NaN for ``acc_eq`` over all pairs beyond the pairs its point estimate compares)."""
    if row["statistic"] == "pairwise_accuracy":
        return pairwise_accuracy_resamples(sys_a, sys_b)
    if row["grouping"] == "item":
        steps = item_accuracy_steps(a, b)
        return in_resample_blocks(lambda block: item_acc_eq_resamples(steps, block), counts)
    if not np.isfinite(row["epsilon"]):
        return np.full(len(counts), np.nan)
    try:
        agreement = pooled_agreement(a, b, float(row["epsilon"]))
    except ValueError:
        return np.full(len(counts), np.nan)
    return pooled_acc_eq_resamples(agreement, counts)


def _spa_resamples(a: np.ndarray, b: np.ndarray, indices: np.ndarray, spa_permutations: int, seed: int) -> np.ndarray:
    """SPA of unit ``a`` against ``b`` in every resample (rows of the index matrix ``indices``), on the items where
    both rated every system, as its point estimate (:func:`korean_eval.metaeval.tables.intervals.spa_resamples`)."""
    usable = np.isfinite(a).all(axis=0) & np.isfinite(b).all(axis=0)
    stack = np.stack([np.where(usable, b, 0.0), np.where(usable, a, 0.0)])

    def block_spa(block: np.ndarray) -> np.ndarray:
        p = resampled_p_values(stack, usable, spa_permutations, seed, block)
        return spa_from_p_values(p[:, :1], p[:, 1:])[:, 0]

    return in_resample_blocks(block_spa, indices)


def _intervals(rows: list[dict], a: np.ndarray, b: np.ndarray, indices: np.ndarray, spa_permutations: int,
               spa_seed: int) -> None:
    """Fill ``ci_low``/``ci_high`` of the rows, as the metrics get them (an accuracy without a value: none)."""
    counts = resample_counts(indices, a.shape[1])
    sys_a, sys_b = count_weighted_means(counts, a), count_weighted_means(counts, b)
    for row in rows:
        if row["statistic"] in STATISTICS and row["granularity"] == "segment":
            resampled = bootstrap_segment_correlations(a, b, row["statistic"], row["grouping"], counts)
        elif row["statistic"] in STATISTICS:
            resampled = system_correlations(sys_a, sys_b, row["statistic"])
        elif not np.isfinite(row["value"]):
            continue
        elif row["statistic"] == "spa":
            resampled = _spa_resamples(a, b, indices, spa_permutations, spa_seed)
        else:
            resampled = _accuracy_resamples(row, a, b, counts, sys_a, sys_b)
        row["ci_low"], row["ci_high"] = percentile_ci(resampled)


def _comparison_rows(
    a: np.ndarray, b: np.ndarray, statistics: Sequence[str], groupings: Sequence[str], spa_permutations: int, seed: int
) -> list[dict]:
    rows = correlation_rows("human", "ceiling", a, b, system_means(a), statistics, groupings)
    with_spa = spa_permutations > 0 and a.shape[0] >= 2 and bool(np.isfinite(b).all(axis=0).any())
    humans = human_pairwise(b, spa_permutations, seed) if with_spa else None
    return rows + pairwise_rows("human", "ceiling", a, b, system_means(a), True, humans)


def human_ceiling(
    ratings: pd.DataFrame | None,
    systems: Sequence[str],
    seg_ids: Sequence[str],
    statistics: Sequence[str] = STATISTICS,
    groupings: Sequence[str] = GROUPINGS,
    resamples: int = 0,
    seed: int = SEED,
    spa_permutations: int = RESAMPLES,
    spa_seed: int | None = None,
) -> pd.DataFrame:
    """The ceiling table (:data:`CEILING_COLUMNS`; module docstring); empty without two units that share an item.
    ``resamples`` > 0 adds bootstrap intervals drawn with ``seed``; SPA's permutations use ``spa_seed`` (default
    ``seed``), as the metrics' SPA uses the evaluation's seed."""
    if ratings is None or ratings.empty:
        return pd.DataFrame(columns=CEILING_COLUMNS)
    column, units = ceiling_units(ratings)
    matrices = {name: _unit_matrix(rows, systems, seg_ids) for name, rows in units.items()}
    indices = bootstrap_indices(len(seg_ids), resamples, seed) if resamples > 0 else None
    spa_seed = seed if spa_seed is None else spa_seed
    frames = []
    for unit, versus, a, b in comparisons(matrices):
        if not np.isfinite(a).any():
            continue
        rows = _comparison_rows(a, b, statistics, groupings, spa_permutations, spa_seed)
        if indices is not None:
            _intervals(rows, a, b, indices, spa_permutations, spa_seed)
        label = f"{column} {unit} vs {versus}"
        frames.append(pd.DataFrame(rows).assign(comparison=label, unit=unit, versus=versus))
    if not frames:
        return pd.DataFrame(columns=CEILING_COLUMNS)
    table = pd.concat(frames, ignore_index=True)[CEILING_COLUMNS]
    if len(frames) > 2:
        table = pd.concat([table, _mean_rows(table)], ignore_index=True)
    return table


def run_ceiling(
    ratings: pd.DataFrame | None, systems: Sequence[str], seg_ids: Sequence[str], settings: Mapping,
    resamples: int = 0, seed: int = SEED,
) -> tuple[pd.DataFrame | None, list[str]]:
    """:func:`human_ceiling` with a run's settings (``EvalConfig.as_dict()``, ``Results.settings``: its statistics,
    groupings, SPA permutations and seed), and the run's notes on it; ``(None, [])`` without ratings."""
    if ratings is None:
        return None, []
    table = human_ceiling(ratings, systems, seg_ids, settings["statistics"], settings["groupings"], resamples=resamples,
                          seed=seed, spa_permutations=settings["spa_permutations"], spa_seed=settings["seed"])
    return table, [no_ceiling_note(ratings)] if table.empty and not ratings.empty else []


def _mean_rows(table: pd.DataFrame) -> pd.DataFrame:
    keys = ["granularity", "grouping", "statistic"]
    means = table.groupby(keys, sort=False).agg(value=("value", "mean"), n=("n", "min")).reset_index()
    return means.assign(comparison=MEAN_ROW, unit="", versus="", flag="", ci_low=np.nan, ci_high=np.nan,
                        n_groups=np.nan, n_undefined=np.nan, epsilon=np.nan)[CEILING_COLUMNS]


def reference_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The one row per (granularity, grouping, statistic) a chart or table draws as the ceiling: the only
    comparison (two units) or :data:`MEAN_ROW` (three or more)."""
    if table.empty:
        return table
    if (table["comparison"] == MEAN_ROW).any():
        return table[table["comparison"] == MEAN_ROW].reset_index(drop=True)
    return table.reset_index(drop=True)
