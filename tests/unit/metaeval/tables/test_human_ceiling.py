"""The human ceiling (korean_eval.metaeval.tables.human_ceiling): equal to a direct scipy computation on the shared items, with the
metrics' own statistics and intervals; in Results and human_ceiling.csv (docs/design.md §5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from korean_eval.metaeval.stats.pairwise import pairwise_accuracy
from korean_eval.metaeval.stats.resampling import bootstrap_indices, percentile_ci
from korean_eval.metaeval.stats.soft_pairwise import human_pairwise, spa_of_segment_scores
from korean_eval.metaeval.stats.tie_calibrated import acc_eq
from korean_eval.metaeval.tables.human_ceiling import MEAN_ROW, human_ceiling, reference_rows
from korean_eval.metaeval.tables.intervals import bootstrap_counts

SYSTEMS = ["s0", "s1", "s2", "s3", "s4"]
SEGS = [str(i) for i in range(12)]


def two_groups(seed: int = 3) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Two rater groups; group B lacks some items (not shared) and some entries."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=(len(SYSTEMS), len(SEGS))) + np.arange(len(SYSTEMS))[:, None] * 0.3
    a = truth + rng.normal(scale=0.5, size=truth.shape)
    b = truth + rng.normal(scale=0.5, size=truth.shape)
    b[:, 10:] = np.nan  # items 10, 11: only group A
    b[1, 3] = np.nan
    rows = [(SYSTEMS[i], SEGS[j], g, f"{g}-r{j % 2}", m[i, j])
            for g, m in (("A", a), ("B", b)) for i in range(len(SYSTEMS)) for j in range(len(SEGS)) if np.isfinite(m[i, j])]
    return pd.DataFrame(rows, columns=["system", "seg_id", "group", "rater", "score"]), a, b


def value(table: pd.DataFrame, granularity: str, grouping: str, statistic: str) -> pd.Series:
    row = table[(table.granularity == granularity) & (table.grouping == grouping) & (table.statistic == statistic)]
    assert len(row) == 1
    return row.iloc[0]


def test_two_groups_equal_scipy_on_the_shared_items():
    ratings, a, b = two_groups()
    table = human_ceiling(ratings, SYSTEMS, SEGS, spa_permutations=200)
    shared = np.isfinite(a) & np.isfinite(b)
    assert set(table["comparison"]) == {"group A vs B"}
    expected = stats.pearsonr(a[shared], b[shared])[0]
    assert value(table, "segment", "none", "pearson").value == pytest.approx(expected, abs=1e-12)
    assert value(table, "segment", "none", "pearson").n == shared.sum()
    taus = [stats.kendalltau(a[shared[:, j], j], b[shared[:, j], j])[0] for j in range(len(SEGS)) if shared[:, j].sum() >= 2]
    assert value(table, "segment", "item", "kendall").value == pytest.approx(np.nanmean(taus), abs=1e-12)
    sys_a = np.array([a[i, shared[i]].mean() for i in range(len(SYSTEMS))])
    sys_b = np.array([b[i, shared[i]].mean() for i in range(len(SYSTEMS))])
    assert value(table, "system", "none", "pearson").value == pytest.approx(stats.pearsonr(sys_a, sys_b)[0], abs=1e-12)
    assert value(table, "system", "none", "pairwise_accuracy").value == pairwise_accuracy(sys_a, sys_b, True)
    for statistic in ("acc_eq", "spa"):
        assert table.statistic.eq(statistic).any()


def test_intervals_are_the_metrics_bootstrap_on_the_shared_items():
    ratings, a, b = two_groups()
    table = human_ceiling(ratings, SYSTEMS, SEGS, resamples=200, seed=7, spa_permutations=0)
    counts = bootstrap_counts(len(SEGS), 200, 7)
    shared = np.isfinite(a) & np.isfinite(b)
    resampled = []
    for c in counts:  # the slow way: weight each shared point by its item's count
        idx = np.repeat(np.arange(len(SEGS)), c.astype(int))
        aa, bb = a[:, idx], b[:, idx]
        keep = shared[:, idx]
        resampled.append(stats.pearsonr(aa[keep], bb[keep])[0])
    row = value(table, "segment", "none", "pearson")
    assert (row.ci_low, row.ci_high) == pytest.approx(percentile_ci(np.array(resampled)), abs=1e-9)


def test_the_accuracies_intervals_are_the_accuracies_of_the_resampled_ratings():
    ratings, a, b = two_groups()
    table = human_ceiling(ratings, SYSTEMS, SEGS, resamples=60, seed=7, spa_permutations=50, spa_seed=5)
    shared = np.isfinite(a) & np.isfinite(b)
    a, b = np.where(shared, a, np.nan), np.where(shared, b, np.nan)
    slow: dict[str, list[float]] = {"item": [], "pairwise_accuracy": [], "spa": []}
    for idx in bootstrap_indices(len(SEGS), 60, 7):  # the slow way: the drawn items as a data set of their own
        aa, bb = a[:, idx], b[:, idx]
        slow["item"].append(acc_eq(aa, bb, "item").accuracy)
        slow["pairwise_accuracy"].append(pairwise_accuracy(np.nanmean(aa, axis=1), np.nanmean(bb, axis=1), True))
        slow["spa"].append(spa_of_segment_scores(aa, human_pairwise(bb, 50, 5), bb)[0])
    for (granularity, grouping, statistic), key in {("segment", "item", "acc_eq"): "item",
                                                    ("system", "none", "pairwise_accuracy"): "pairwise_accuracy",
                                                    ("system", "none", "spa"): "spa"}.items():
        row = value(table, granularity, grouping, statistic)
        assert (row.ci_low, row.ci_high) == pytest.approx(percentile_ci(np.array(slow[key])), abs=1e-12), statistic
        assert row.ci_low < row.ci_high
    pooled = value(table, "segment", "none", "acc_eq")
    assert pooled.ci_low <= pooled.value <= pooled.ci_high


def test_raters_of_one_group_leave_one_out_and_the_mean_row():
    rng = np.random.default_rng(0)
    truth = rng.normal(size=(len(SYSTEMS), len(SEGS)))
    mats = {r: truth + rng.normal(scale=0.4, size=truth.shape) for r in ("r1", "r2", "r3")}
    mats["r3"][:, :4] = np.nan
    rows = [(SYSTEMS[i], SEGS[j], "mqm", r, m[i, j]) for r, m in mats.items()
            for i in range(len(SYSTEMS)) for j in range(len(SEGS)) if np.isfinite(m[i, j])]
    table = human_ceiling(pd.DataFrame(rows, columns=["system", "seg_id", "group", "rater", "score"]), SYSTEMS, SEGS,
                          spa_permutations=0)
    assert list(dict.fromkeys(table.comparison)) == ["rater r1 vs mean of the others", "rater r2 vs mean of the others",
                                                     "rater r3 vs mean of the others", MEAN_ROW]
    rest = np.nanmean(np.stack([mats["r2"], mats["r3"]]), axis=0)
    expected = stats.pearsonr(mats["r1"].ravel(), rest.ravel())[0]
    r1 = table[table.comparison.str.startswith("rater r1")]
    assert value(r1, "segment", "none", "pearson").value == pytest.approx(expected, abs=1e-12)
    r3 = table[table.comparison.str.startswith("rater r3")]
    assert value(r3, "segment", "none", "pearson").n == len(SYSTEMS) * 8
    mean = value(table[table.comparison == MEAN_ROW], "segment", "none", "pearson").value
    per = table[(table.comparison != MEAN_ROW) & (table.granularity == "segment") & (table.grouping == "none")
                & (table.statistic == "pearson")].value
    assert mean == pytest.approx(per.mean()) and set(reference_rows(table).comparison) == {MEAN_ROW}


def test_no_ceiling_without_a_second_rater_or_shared_items():
    rows = pd.DataFrame([("s0", "0", "g", "r1", 1.0), ("s1", "1", "g", "r2", 2.0)],
                        columns=["system", "seg_id", "group", "rater", "score"])
    assert human_ceiling(rows, SYSTEMS, SEGS).empty
    assert human_ceiling(rows.iloc[:1], SYSTEMS, SEGS).empty and human_ceiling(None, SYSTEMS, SEGS).empty


def test_the_dashboard_picks_the_matching_row_and_flags_metrics_above_it():
    from ui.ceiling import above_ceiling, ceiling_rows

    ratings, _, _ = two_groups()
    table = human_ceiling(ratings, SYSTEMS, SEGS, spa_permutations=20)
    rows = ceiling_rows(table, "kendall", "item")
    assert rows["segment"]["grouping"] == "item" and rows["system"]["statistic"] == "kendall"
    assert ceiling_rows(table, "acc_eq", "system")["system"]["statistic"] == "spa"
    seg = float(rows["segment"]["value"])
    view = pd.DataFrame({
        "granularity": ["segment", "segment", "segment"], "level": ["char", "word", "char"],
        "metric": ["chrf", "ter", "bleu"], "metric_label": ["chrF", "TER", "BLEU"], "statistic": ["kendall"] * 3,
        "value": [seg + 0.1, -(seg + 0.05), seg - 0.1], "higher_is_better": [True, False, True],
    })
    above = above_ceiling(view, {"segment": rows["segment"]})
    assert list(above["metric"]) == ["chrF", "TER"]  # TER's −r is its agreement
    assert above["agreement"].tolist() == pytest.approx([seg + 0.1, seg + 0.05])
