"""sacrebleu's scores from statistics over many rows (korean_eval.metrics.sacre_formulas) equal sacrebleu's own
``_compute_score_from_stats`` bit for bit: on generated statistics with every edge (zero lengths, zero counts,
orders without n-grams, empty references), on the study's real statistics (segment rows and their resampled sums),
for every order and β, and through the metrics' ``segment_scores`` / ``scores_from_sums``."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU, CHRF, TER

from korean_eval.metrics import make_metric
from korean_eval.metrics.sacre_formulas import bleu_scores, chrf_scores, ter_scores
from tests.support.helpers import STUDY, require


def sacrebleu_rows(compute, stats: np.ndarray) -> np.ndarray:
    """sacrebleu's score of every row, as the rows were handed to it before (a list of numpy floats)."""
    return np.array([compute(list(row)).score for row in stats], dtype=np.float64)


def assert_bitwise(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.shape == theirs.shape
    assert ours.tobytes() == theirs.tobytes(), np.flatnonzero(ours != theirs)[:10]


@st.composite
def bleu_rows(draw, order: int) -> np.ndarray:
    """BLEU statistics rows as counting makes them: correct ≤ total, total_n non-increasing, zeros often."""
    n = draw(st.integers(1, 40))
    small = st.integers(0, 6)
    rows = []
    for _ in range(n):
        sys_len, ref_len = draw(st.integers(0, 60)), draw(st.integers(0, 60))
        totals = sorted((draw(small) for _ in range(order)), reverse=True)
        correct = [draw(st.integers(0, t)) for t in totals]
        rows.append([sys_len, ref_len, *correct, *totals])
    return np.array(rows, dtype=np.float64)


@pytest.mark.parametrize("order", [1, 2, 4, 6])
@pytest.mark.parametrize("effective", [False, True])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_bleu_equals_sacrebleu_on_generated_rows(order, effective, data):
    stats = data.draw(bleu_rows(order))
    bleu = BLEU(tokenize="none", force=True, effective_order=effective, max_ngram_order=order)
    assert_bitwise(bleu_scores(stats, order, effective), sacrebleu_rows(bleu._compute_score_from_stats, stats))


@st.composite
def chrf_rows(draw, n_orders: int) -> np.ndarray:
    n = draw(st.integers(1, 40))
    rows = []
    for _ in range(n):
        row = []
        for _ in range(n_orders):
            hyp, ref = draw(st.integers(0, 50)), draw(st.integers(0, 50))
            row += [hyp, ref, draw(st.integers(0, min(hyp, ref)))]
        rows.append(row)
    return np.array(rows, dtype=np.float64)


@pytest.mark.parametrize(("char_order", "word_order", "beta"), [(6, 0, 2), (6, 1, 2), (6, 2, 2), (0, 2, 2),
                                                               (3, 1, 1), (6, 2, 3)])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_chrf_equals_sacrebleu_on_generated_rows(char_order, word_order, beta, data):
    stats = data.draw(chrf_rows(char_order + word_order))
    chrf = CHRF(char_order=char_order, word_order=word_order, beta=beta)
    assert_bitwise(chrf_scores(stats, char_order + word_order, beta),
                   sacrebleu_rows(chrf._compute_score_from_stats, stats))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 80), st.integers(0, 240)), min_size=1, max_size=40))
def test_ter_equals_sacrebleu_on_generated_rows(pairs):
    stats = np.array(pairs, dtype=np.float64) / [1, 3]  # the reference length is a mean over the references
    assert_bitwise(ter_scores(stats), sacrebleu_rows(TER()._compute_score_from_stats, stats))


def test_edge_rows():
    """Rows sacrebleu treats specially: nothing correct, an empty hypothesis, an empty reference, an order without
    n-grams in the middle, a zero count after a non-zero one (exp smoothing), both sides empty."""
    bleu = np.array([[0, 5, 0, 0, 0, 0, 0, 0, 0, 0], [5, 0, 5, 4, 3, 2, 5, 4, 3, 2], [3, 9, 3, 0, 0, 0, 3, 2, 1, 0],
                     [9, 9, 5, 0, 1, 0, 9, 8, 7, 6], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [2, 7, 1, 1, 0, 0, 2, 1, 0, 0]],
                    dtype=np.float64)
    for effective in (False, True):
        obj = BLEU(tokenize="none", force=True, effective_order=effective)
        assert_bitwise(bleu_scores(bleu, 4, effective), sacrebleu_rows(obj._compute_score_from_stats, bleu))
    chrf = np.array([[0, 0, 0] * 6, [5, 0, 0] * 6, [0, 5, 0] * 6, [4, 4, 4] * 6, [3, 5, 0] * 6], dtype=np.float64)
    assert_bitwise(chrf_scores(chrf, 6), sacrebleu_rows(CHRF()._compute_score_from_stats, chrf))
    ter = np.array([[0, 0], [3, 0], [0, 4], [5, 2.5]], dtype=np.float64)
    assert_bitwise(ter_scores(ter), sacrebleu_rows(TER()._compute_score_from_stats, ter))


def test_nan_rows_score_nan_and_shape_is_kept():
    stats = np.array([[[4, 4, 3, 2, 1, 0, 4, 3, 2, 1], [np.nan] * 10]] * 3, dtype=np.float64)
    out = bleu_scores(stats, 4)
    assert out.shape == (3, 2)
    assert np.isnan(out[:, 1]).all() and np.isfinite(out[:, 0]).all()
    with pytest.raises(ValueError, match="expected 10 statistics"):
        bleu_scores(np.zeros((2, 8)), 4)


@pytest.fixture(scope="module")
def study_pairs() -> tuple[list[str], list[str]]:
    """Document 1 of the study: 64 real English→Korean outputs and their references."""
    with require(STUDY / "doc1_with_text.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    return [r["Hyp"] for r in rows], [r["Ref"] for r in rows]


@pytest.mark.parametrize("name", ["bleu", "chrf", "chrf+", "chrf++", "ter"])
def test_metrics_equal_sacrebleu_on_the_study(name, study_pairs):
    """Segment scores and resampled corpus scores (count-weighted sums, as the bootstrap makes them) of the study's
    real outputs, through the metric objects, against sacrebleu's per-row scores."""
    hyps, refs = study_pairs
    metric = make_metric(name)
    stats = metric.segment_statistics(hyps, [refs])
    counts = np.random.default_rng(7).multinomial(len(hyps), np.full(len(hyps), 1 / len(hyps)), size=200)
    sums = (counts @ stats).astype(np.float64)
    corpus, sentence = {"bleu": (metric._corpus if name == "bleu" else None, getattr(metric, "_sentence", None)),
                        "ter": (getattr(metric, "_ter", None),) * 2}.get(name, (getattr(metric, "_chrf", None),) * 2)
    assert_bitwise(metric.segment_scores(stats), sacrebleu_rows(sentence._compute_score_from_stats, stats))
    assert_bitwise(metric.scores_from_sums(sums), sacrebleu_rows(corpus._compute_score_from_stats, sums))
    whole = {"bleu": lambda: BLEU(tokenize="none", force=True).corpus_score(hyps, [refs]).score,
             "ter": lambda: TER().corpus_score(hyps, [refs]).score}.get(name)
    if whole is not None:  # and the system score is sacrebleu's corpus score
        assert float(metric.scores_from_sums(stats.sum(axis=0))) == whole()
