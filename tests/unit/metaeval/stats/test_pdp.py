"""Pairwise Difference Pearson (korean_eval.metaeval.stats.pdp, docs/design.md §5) against its literal definition.

The literal helper does what mt-metrics-eval's ``Correlation.Pearson(average_by, pdp=True)`` does: cut the matrices
into groups (items, systems, or one group), enumerate every ordered pair (i, j) of a group's entries — i = j
included — as differences, pool all groups' differences, drop the pairs with a missing score, and call
scipy.stats.pearsonr. Tolerance: 1e-9 absolute (the closed form agrees to ~1e-13 in practice).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.metaeval.stats.correlation import correlation, segment_correlation
from korean_eval.metaeval.stats.pdp import pdp
from korean_eval.metaeval.tables.configs import human_system_scores, system_scores
from korean_eval.metaeval.tables.intervals import add_confidence_intervals
from korean_eval.model.config import EvalConfig
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import computed_statistic
from tests.support.helpers import SHARED

TOLERANCE = 1e-9
HELDOUT = SHARED / "heldout"


def literal_pdp(metric: np.ndarray, human: np.ndarray, grouping: str) -> float:
    """PDP by enumeration: every ordered pair of entries within each group, pooled, NaN pairs dropped, scipy."""
    metric, human = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    if grouping == "item":
        m_groups, h_groups = metric.T, human.T
    elif grouping == "system":
        m_groups, h_groups = metric, human
    else:
        m_groups, h_groups = metric.reshape(1, -1), human.reshape(1, -1)
    d_metric, d_human = [], []
    for m_row, h_row in zip(m_groups, h_groups, strict=True):
        for i in range(len(m_row)):
            d_metric.append(m_row[i] - m_row)  # pairs (i, j) for every j, i = j included
            d_human.append(h_row[i] - h_row)
    x, y = np.concatenate(d_metric), np.concatenate(d_human)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    return float(sps.pearsonr(y, x).statistic)


def _same(a: float, b: float) -> bool:
    return (np.isnan(a) and np.isnan(b)) or abs(a - b) <= TOLERANCE


def _random(seed: int, n_systems: int = 5, n_items: int = 40, metric_gaps: bool = False) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    human = rng.normal(size=(n_systems, n_items)) * 10
    metric = human + rng.normal(size=human.shape) * 15 + rng.normal(size=(n_systems, 1)) * 5
    if seed % 3 == 0:  # ties and constant items
        metric, human = metric.round(0), human.round(0)
        metric[:, 2] = 7.0
        human[:, 5] = 1.0
    human[rng.random(human.shape) < 0.2] = np.nan
    if metric_gaps:
        metric[rng.random(metric.shape) < 0.1] = np.nan
    return metric, human


@pytest.mark.parametrize("grouping", ["none", "item", "system"])
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("metric_gaps", [False, True])
def test_random_matrices_equal_literal(grouping: str, seed: int, metric_gaps: bool) -> None:
    metric, human = _random(seed, metric_gaps=metric_gaps)
    got = segment_correlation(metric, human, "pdp", grouping)
    assert _same(got.value, literal_pdp(metric, human, grouping)), (got.value, literal_pdp(metric, human, grouping))
    assert got.n == int((np.isfinite(metric) & np.isfinite(human)).sum())


def test_ungrouped_pdp_is_pearson_and_item_is_not() -> None:
    metric, human = _random(1)
    pearson = segment_correlation(metric, human, "pearson", "none").value
    assert segment_correlation(metric, human, "pdp", "none").value == pearson
    assert abs(segment_correlation(metric, human, "pdp", "item").value - pearson) > 1e-3
    assert computed_statistic("pdp", "system", "item") == "pearson"
    assert computed_statistic("pdp", "segment", "item") == "pdp"


def test_system_level_equals_literal() -> None:
    rng = np.random.default_rng(4)
    human = rng.normal(size=6)
    metric = human + rng.normal(size=6)
    human[1] = np.nan
    got = correlation(metric, human, "pdp", "system").value
    assert _same(got, literal_pdp(metric[None, :], human[None, :], "none"))


def test_item_pdp_is_pooled_not_averaged() -> None:
    """Two items: the pooled value weights each by n·C, not the mean of the per-item Pearson r."""
    metric = np.array([[1.0, 10.0], [2.0, 30.0], [3.0, 20.0]])
    human = np.array([[1.0, 1.0], [2.0, 3.0], [3.0, 2.0]])
    per_item = [sps.pearsonr(metric[:, i], human[:, i]).statistic for i in range(2)]
    got = pdp(metric, human, "item")
    assert got.value == pytest.approx(literal_pdp(metric, human, "item"), abs=TOLERANCE)
    assert got.value != pytest.approx(np.mean(per_item))
    assert (got.n, got.n_groups, got.n_single) == (6, 2, 0)


def test_constant_and_single_groups() -> None:
    metric = np.array([[1.0, 5.0, 2.0], [1.0, 5.0, np.nan], [1.0, 5.0, np.nan]])
    human = np.array([[3.0, 4.0, 1.0], [2.0, 1.0, 1.0], [1.0, 0.0, 1.0]])
    got = segment_correlation(metric, human, "pdp", "item")
    assert np.isnan(got.value) and np.isnan(literal_pdp(metric, human, "item"))  # every item constant in the metric
    assert (got.n, got.n_groups, got.n_undefined) == (7, 3, 1)  # item 2 has one scored system
    assert segment_correlation(metric, human, "pdp", "item", replace_nans_with_zeros=True).value == 0.0


def _sample_results() -> Results:
    config = EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf", "ter"), spa_permutations=0)
    return evaluate(load_sample(), config)


@pytest.fixture(scope="module")
def sample() -> Results:
    return _sample_results()


def test_sample_correlations_table_equals_literal(sample: Results) -> None:
    corr = sample.correlations
    rows = corr[corr["statistic"] == "pdp"]
    assert len(rows) == len(sample.segment_matrices) * 4  # three groupings + system level
    checked = 0
    for row in rows.itertuples():
        key = (row.level, row.metric)
        if row.granularity == "segment":
            want = literal_pdp(sample.segment_matrices[key], sample.human_matrix, row.grouping)
        else:
            scores, human = system_scores(sample, key), human_system_scores(sample)
            want = literal_pdp(scores[None, :], human[None, :], "none")
        assert _same(row.value, want), (key, row.granularity, row.grouping, row.value, want)
        checked += 1
    assert checked == len(rows)
    pearson = corr[(corr["statistic"] == "pearson") & (corr["grouping"] == "none")].reset_index(drop=True)
    pooled = corr[(corr["statistic"] == "pdp") & (corr["grouping"] == "none")].reset_index(drop=True)
    assert (pearson["value"] == pooled["value"]).all()


def test_sample_confidence_intervals_cover_the_value(sample: Results) -> None:
    ci = add_confidence_intervals(sample, n_resamples=200, seed=3)
    rows = ci[ci["statistic"] == "pdp"]
    assert rows[["ci_low", "ci_high"]].notna().all().all()
    assert ((rows["ci_low"] <= rows["value"] + 1e-12) & (rows["value"] <= rows["ci_high"] + 1e-12)).all()
    item = rows[rows["grouping"] == "item"]
    pearson_item = ci[(ci["statistic"] == "pearson") & (ci["grouping"] == "item")]
    assert not np.allclose(item["ci_low"].to_numpy(), pearson_item["ci_low"].to_numpy())


def _kor_sacrebleu() -> tuple[pd.DataFrame, np.ndarray, list[str]]:
    folder = HELDOUT / "kor_sacrebleu_segment_scores"
    if not folder.exists():
        pytest.skip(f"{folder} not present")
    scores = pd.read_csv(folder / "metric_scores.csv", dtype={"seg_id": str})
    human = pd.read_csv(folder / "human_z.tsv", sep="\t", dtype={"seg_id": str})
    scores["human"] = human["score"].to_numpy()  # the same rows in the same order (one per judgment)
    means = scores.groupby(["system", "seg_id"]).mean(numeric_only=True)
    metrics = [c for c in scores.columns if "." in c]
    return means, means["human"].unstack("seg_id").to_numpy(float), metrics


def test_kor_sacrebleu_released_scores_equal_literal() -> None:
    """The kor_sacrebleu study's released segment scores (4 systems × 2,036 segments, 33 metric × tokenisation
    columns) against its adequacy z-scores: grouping item for every column, system (16 million pairs for the literal
    helper) for one column of each metric family."""
    means, human, metrics = _kor_sacrebleu()
    assert human.shape[0] >= 3 and np.isnan(human).any()
    pooled_too = {next(name for name in metrics if name.startswith(family)) for family in ("sacreBleu", "sacreChrf")}
    for name in metrics:
        metric = means[name].unstack("seg_id").to_numpy(float)
        for grouping in ("item", "system") if name in pooled_too else ("item",):
            got = segment_correlation(metric, human, "pdp", grouping).value
            assert _same(got, literal_pdp(metric, human, grouping)), (name, grouping, got)


WMT24 = HELDOUT / "wmt24_chat_enko"


def test_wmt24_chat_enko_equals_literal() -> None:
    """BLEU, chrF, chrF++ and TER at word, char and jamo on the WMT24 chat en→ko release, scored by the pipeline;
    expected PDP (item and none) from the literal helper. Skipped where the data is not on the machine.

    PDP sees only the score matrices: word-level BLEU on short chat lines gives many tied and zero scores, char and
    jamo few; the morpheme levels lie between and add no new kind of matrix (their released scores are in
    :func:`test_kor_sacrebleu_released_scores_equal_literal`), only their analyzers' start (Kiwi ≈ 3 CPU-s)."""
    if not WMT24.exists():
        pytest.skip(f"{WMT24} not present")
    config = EvalConfig(levels=("word", "char", "jamo"), metrics=("bleu", "chrf", "chrf++", "ter"), spa_permutations=0)
    results = evaluate(load_sample(WMT24), config)  # the sample's layout: src, ref, systems/, human.tsv
    assert len(results.segment_matrices) == 12
    for key, matrix in results.segment_matrices.items():
        for grouping in ("none", "item"):
            got = segment_correlation(matrix, results.human_matrix, "pdp", grouping).value
            assert _same(got, literal_pdp(matrix, results.human_matrix, grouping)), (key, grouping, got)
