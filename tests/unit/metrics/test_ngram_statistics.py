"""The compiled BLEU and chrF statistics (korean_eval.metrics.ngram_statistics) equal sacrebleu's own
``_extract_corpus_statistics``: on the study's real outputs at every token level, with several references, and on
generated edge cases (empty segments, Unicode whitespace, punctuation at word edges, upper case, every order)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU, CHRF

from korean_eval.engine.workers import task_bleu, task_chrf
from korean_eval.levels.registry import available_levels, get_level
from korean_eval.metrics import make_metric
from korean_eval.metrics.ngram_statistics import (
    _Texts,
    bleu_statistics,
    chrf_statistics,
    per_segment_references,
)
from tests.support.helpers import STUDY, require


def sacrebleu_stats(obj, hyps: list[str], refs: list[list[str | None]]) -> np.ndarray:
    return np.array(obj._extract_corpus_statistics(hyps, refs), dtype=np.float64).reshape(len(hyps), -1)


def ours(obj, hyps: list[str], refs: list[list[str | None]]) -> np.ndarray:
    compute = bleu_statistics if isinstance(obj, BLEU) else chrf_statistics
    return compute(obj, hyps, *per_segment_references(hyps, refs))


def objects() -> list:
    return [BLEU(tokenize="none", force=True), BLEU(tokenize="none", force=True, max_ngram_order=6),
            CHRF(), CHRF(word_order=1), CHRF(word_order=2), CHRF(char_order=0, word_order=2),
            CHRF(word_order=2, lowercase=True), CHRF(word_order=2, whitespace=True)]


@pytest.fixture(scope="module")
def study() -> tuple[list[str], list[str], list[str]]:
    """Document 1 of the study: hypotheses, references and system names (64 real English→Korean outputs)."""
    with require(STUDY / "doc1_with_text.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    return [r["Hyp"] for r in rows], [r["Ref"] for r in rows], [r["Sys"] for r in rows]


@pytest.mark.parametrize("level", ["word", "mecab", "kiwi", "char", "jamo"])
def test_equal_to_sacrebleu_on_the_study_at_every_level(study, level):
    assert level in available_levels(), f"{level} must be installed"
    hyps, refs, _ = study
    tokens = get_level(level)
    hyp_tokens, ref_tokens = tokens.tokenize_joined(hyps).joined, tokens.tokenize_joined(refs).joined
    for obj in objects():
        expected = sacrebleu_stats(obj, hyp_tokens, [ref_tokens])
        assert expected.any()
        np.testing.assert_array_equal(ours(obj, hyp_tokens, [ref_tokens]), expected, err_msg=f"{level} {obj}")


def test_equal_with_several_references_some_missing(study):
    """The study's other systems' outputs of the same sentence serve as extra references; every third one is
    missing (``None``), so segments have 1-3 references."""
    hyps, refs, systems = study
    by_sentence: dict[str, list[str]] = {}
    for hyp, ref in zip(hyps, refs, strict=True):
        by_sentence.setdefault(ref, []).append(hyp)
    second = [next((h for h in by_sentence[r] if h != hyp), None) for hyp, r in zip(hyps, refs, strict=True)]
    third = [None if i % 3 == 0 else by_sentence[r][-1] for i, r in enumerate(refs)]
    streams = [refs, second, third]
    assert len(set(systems)) == 4 and any(s is None for s in second + third)
    for obj in objects():
        np.testing.assert_array_equal(ours(obj, hyps, streams), sacrebleu_stats(obj, hyps, streams),
                                      err_msg=str(obj))


def test_the_worker_tasks_and_metric_classes_use_them(study):
    """What the pipeline runs: ``task_bleu`` / ``task_chrf`` on distinct references, and the metric classes."""
    hyps, refs, _ = study
    unique = list(dict.fromkeys(refs))
    index = [unique.index(r) for r in refs]
    bleu, _ = task_bleu((("max_ngram_order", 4),), hyps, index, [(r,) for r in unique])
    np.testing.assert_array_equal(bleu, sacrebleu_stats(BLEU(tokenize="none", force=True), hyps, [refs]))
    spec = (6, 2, 2, False, False, False)
    chrf, _ = task_chrf(spec, hyps, index, [(r,) for r in unique])
    np.testing.assert_array_equal(chrf, sacrebleu_stats(CHRF(word_order=2), hyps, [refs]))
    for name, obj in (("bleu", BLEU(tokenize="none", force=True)), ("chrf++", CHRF(word_order=2))):
        np.testing.assert_array_equal(make_metric(name).segment_statistics(hyps, [refs]),
                                      sacrebleu_stats(obj, hyps, [refs]))


# Korean syllables and jamo, Latin letters of both cases, chrF's punctuation, and whitespace sacrebleu splits on
ALPHABET = "가각나닭ㄱㅏ ab AB .,!?()'\"-  \t\u3000\xa0"
segment = st.text(alphabet=ALPHABET, max_size=40)


@settings(max_examples=150, deadline=None)
@given(hyps=st.lists(segment, min_size=1, max_size=6), data=st.data())
def test_equal_on_generated_segments(hyps, data):
    n = len(hyps)
    first = data.draw(st.lists(segment, min_size=n, max_size=n))
    second = data.draw(st.lists(st.one_of(st.none(), segment), min_size=n, max_size=n))
    for streams in ([first], [first, second]):
        for obj in objects():
            np.testing.assert_array_equal(ours(obj, hyps, streams), sacrebleu_stats(obj, hyps, streams),
                                          err_msg=f"{obj} {hyps!r} {streams!r}")


def test_repeated_ngrams_are_clipped_by_the_highest_reference_count():
    """``the the the the`` against references with 2 and 1 ``the``: 2 unigram matches (Papineni et al. 2002)."""
    stats = ours(BLEU(tokenize="none", force=True), ["the the the the"], [["the the cat"], ["the"]])
    assert stats[0].tolist() == [4, 3, 2, 1, 0, 0, 4, 3, 2, 1]


def test_no_segments():
    assert ours(BLEU(tokenize="none", force=True), [], [[]]).shape == (0, 10)
    assert ours(CHRF(word_order=2), [], [[]]).shape == (0, 24)


def test_keys_that_would_overflow_are_refused():
    texts = _Texts(np.array([2**40], dtype=np.int64), np.array([1]), 2**40 + 1)
    with pytest.raises(ValueError, match="overflow"):
        texts.matches([[0, 0]], 2)
