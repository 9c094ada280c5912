"""One segment's scores at every token level (:mod:`korean_eval.lens.segment_levels`): equal to sacrebleu called
directly on tokens cut independently (13a, MeCab's and Kiwi's morphemes, characters, jamo), and equal to the segment
scores of :func:`korean_eval.evaluate` for the same pairs."""

from __future__ import annotations

import functools
import unicodedata

import jamo
import pytest
import sacrebleu
from kiwipiepy import Kiwi
from mecab import MeCab
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

import korean_eval
from korean_eval.inputs.sample import load_sample
from korean_eval.lens.segment_levels import (
    COLUMNS,
    SEGMENT_METRICS,
    segment_level_scores,
    tokenise_segment,
)
from korean_eval.levels.sentencepiece import SpmLevel

LEVELS = ["word", "mecab", "kiwi", "char", "jamo"]
#: Pairs written for these tests: a particle and an ending changed, word order, spacing, a near-paraphrase.
WRITTEN = [
    ("한국어는 조사와 어미가 붙어서 띄어쓰기 단위가 길어요.", "한국어는 조사와 어미를 붙여서 띄어쓰기 단위가 길다."),
    ("어제 친구와 함께 도서관에서 책을 읽었습니다.", "친구와 어제 도서관에서 함께 책을 읽었어요."),
    ("정부는 내년부터 보조금을 줄이기로 했다.", "정부는내년부터 보조금을 줄이기로했다."),
    ("회의는 오후 3시에 시작할 예정입니다.", "회의가 3시 오후에 시작될 예정이다!"),
]


def _sample_pairs(n: int = 6) -> list[tuple[str, str]]:
    """The bundled sample's first segments, each with a different system's translation."""
    sample = load_sample()
    systems = list(sample.systems.values())
    return [(sample.refs[0][i], systems[i % len(systems)][i]) for i in range(n)]


PAIRS = WRITTEN + _sample_pairs()


@functools.cache
def _analyzers() -> tuple[Tokenizer13a, MeCab, Kiwi]:
    return Tokenizer13a(), MeCab(), Kiwi()


def _independent_tokens(level: str, text: str) -> list[str]:
    """The tokens of docs/design.md §3, cut here by the libraries themselves."""
    word, mecab, kiwi = _analyzers()
    if level == "word":
        return word(text).split()
    if level == "mecab":
        return mecab.morphs(text)
    if level == "kiwi":
        return [t.form for t in kiwi.tokenize(text)]
    if level == "char":
        return [c for c in text if not c.isspace()]
    return [c for c in jamo.j2hcj(jamo.h2j(text)) if not c.isspace()]


def _sacrebleu(metric: str, hyp: str, refs: list[str]) -> float:
    if metric == "bleu":
        return sacrebleu.BLEU(tokenize="none", effective_order=True).sentence_score(hyp, refs).score
    if metric == "chrf":
        return sacrebleu.CHRF().sentence_score(hyp, refs).score
    if metric == "chrf++":
        return sacrebleu.CHRF(word_order=2).sentence_score(hyp, refs).score
    return sacrebleu.TER().sentence_score(hyp, refs).score


@pytest.fixture(scope="module")
def scores():
    return {pair: segment_level_scores(pair[0], pair[1], LEVELS) for pair in PAIRS}


def test_one_row_per_level_and_metric(scores):
    frame = scores[PAIRS[0]]
    assert list(frame.columns) == COLUMNS
    assert list(zip(frame["level"], frame["metric"], strict=True)) == [(lv, m) for lv in LEVELS for m in SEGMENT_METRICS]


@pytest.mark.parametrize("pair", PAIRS, ids=range(len(PAIRS)))
def test_scores_equal_sacrebleu_on_independently_cut_tokens(scores, pair):
    ref, hyp = pair
    for row in scores[pair].itertuples():
        ref_tokens, hyp_tokens = _independent_tokens(row.level, ref), _independent_tokens(row.level, hyp)
        assert (row.ref_tokens, row.hyp_tokens) == (len(ref_tokens), len(hyp_tokens))
        expected = _sacrebleu(row.metric, " ".join(hyp_tokens), [" ".join(ref_tokens)])
        assert row.score == pytest.approx(expected, abs=1e-9), (row.level, row.metric)


def test_scores_equal_the_engines_segment_scores(scores):
    refs, hyps = [p[0] for p in PAIRS], [p[1] for p in PAIRS]
    results = korean_eval.evaluate(refs, {"A": hyps}, levels=LEVELS, metrics=list(SEGMENT_METRICS), resamples=0)
    engine = results.segment_scores.set_index(["seg_id", "level", "metric"])["score"]
    for i, pair in enumerate(PAIRS):
        for row in scores[pair].itertuples():
            assert row.score == pytest.approx(engine[(str(i), row.level, row.metric)], abs=1e-9)


def test_spm_with_the_engines_model_and_per_level_options_equal_the_engine():
    """SentencePiece trained on the evaluation's references, as the engine trains it, and a per-level override."""
    refs, hyps = [p[0] for p in PAIRS], [p[1] for p in PAIRS]
    overrides = {"char": {"bleu": {"max_ngram_order": 6}}}
    results = korean_eval.evaluate(refs, {"A": hyps}, levels=["spm", "char"], metrics=["bleu", "chrf++"],
                                   resamples=0, overrides=overrides)
    config = korean_eval.EvalConfig(levels=("spm", "char"), metrics=("bleu", "chrf++"), overrides=overrides)
    spm = SpmLevel(config.spm_vocab).fit(refs)
    engine = results.segment_scores.set_index(["seg_id", "level", "metric"])["score"]
    for i, (ref, hyp) in enumerate(PAIRS):
        frame = segment_level_scores(ref, hyp, [spm, "char"], ["bleu", "chrf++"], config)
        for row in frame.itertuples():
            assert row.score == pytest.approx(engine[(str(i), row.level, row.metric)], abs=1e-9)
    six = frame.query("level == 'char' and metric == 'bleu'")
    chars = [" ".join(c for c in text if not c.isspace()) for text in PAIRS[-1]]
    want = sacrebleu.BLEU(tokenize="none", effective_order=True, max_ngram_order=6).sentence_score(chars[1], [chars[0]])
    assert six["score"].item() == pytest.approx(want.score, abs=1e-9)


def test_several_references_and_nfd_input():
    ref, hyp = WRITTEN[0]
    other = "한국어는 조사랑 어미가 붙으니까 띄어쓰기 단위가 길다."
    nfd = [unicodedata.normalize("NFD", t) for t in (ref, other, hyp)]
    frame = segment_level_scores(nfd[:2], nfd[2], ["word", "char"])
    for row in frame.itertuples():
        refs = [" ".join(_independent_tokens(row.level, t)) for t in (ref, other)]
        expected = _sacrebleu(row.metric, " ".join(_independent_tokens(row.level, hyp)), refs)
        assert row.score == pytest.approx(expected, abs=1e-9)
        assert row.signature.startswith("nrefs:2|")


def test_signatures_are_sacrebleus_sentence_signatures_with_the_level(scores):
    frame = scores[PAIRS[0]].set_index(["level", "metric"])["signature"]
    bleu = sacrebleu.BLEU(tokenize="none", effective_order=True)
    chrf, ter = sacrebleu.CHRF(word_order=2), sacrebleu.TER()
    for metric in (bleu, chrf, ter):
        metric.sentence_score("가 나", ["가 나"])  # sacrebleu records the reference count when it scores
    assert frame[("kiwi", "bleu")].startswith(bleu.get_signature().format() + "|level:kiwi-")
    assert frame[("char", "chrf++")] == chrf.get_signature().format() + "|level:char-1"
    assert frame[("word", "ter")].startswith(ter.get_signature().format() + "|level:word-13a-")
    assert "eff:yes" in frame[("word", "bleu")]


def test_tokens_are_the_levels_tokens_joined_by_single_spaces():
    (word, jamo_level) = tokenise_segment("나는 학교에 갔다.", "나는 학교 갔다", ["word", "jamo"])
    assert word.reference_tokens == [["나는", "학교에", "갔다", "."]] and word.hypothesis == "나는 학교 갔다"
    assert jamo_level.hypothesis_tokens[:3] == ["ㄴ", "ㅏ", "ㄴ"]


def test_levels_without_a_model_or_unknown_are_refused():
    with pytest.raises(ValueError, match="spm level needs its model"):
        segment_level_scores("가", "나", ["spm"])
    with pytest.raises(ValueError, match="unknown token level"):
        segment_level_scores("가", "나", ["nope"])
