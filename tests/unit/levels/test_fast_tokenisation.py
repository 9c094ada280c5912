"""Tokenising fast and on every core changes no token.

* the jamo level's per-character table equals ``jamo.j2hcj(jamo.h2j(text))`` on every Unicode code point, and a
  character the package refuses still raises (and falls back to whitespace tokens) as before;
* MeCab's surfaces read from the lattice equal ``MeCab().morphs``;
* ``tokenize_joined`` equals ``" ".join`` of ``tokenize``'s tokens at every level;
* the pipeline's tokens, tokenised in chunks by the worker processes, equal the serial ones, and so do its tables.

The two pipeline tests evaluate the sample's first :data:`HEAD` segments (all five systems): the texts still fill
many chunks per level (:func:`korean_eval.engine.workers.text_chunks` with a small chunk size), so both workers tokenise
every pool level, and what is compared does not depend on the number of segments. KoNLPy is checked with Hannanum
(the joined tokens, and in the workers), the analyzer whose dictionaries cost least to load (1.3 s of CPU in each
process, Komoran's 2.3 s; the four share :class:`korean_eval.levels.konlpy.KonlpyLevel`, and the workers start
their own JVM whichever analyzer it is).
"""

from __future__ import annotations

import jamo
import numpy as np
import pytest

import korean_eval.engine.workers as wk
from korean_eval.engine import pools
from korean_eval.engine.cache import NullCache
from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.levels.registry import get_level, jamo_letters, jamo_table, level_availability, mecab_morphs
from korean_eval.model.config import EvalConfig
from tests.support.helpers import assert_same_results, head_of_sample

HOSTILE = [
    "", " ", "\t\n", "가", "한국어  문장\u3000입니다.", "가 조합형 ᄒᆞᆫ글", "ㄱㄴㄷ ㅏㅑ", "abc DEF 123",
    "이모지 😀 와 한자 韓國", "줄\u2028바꿈\u0085문자", "  앞뒤 공백  ", "ᅟᅠ 채움 문자", "\u00a0nbsp\u00a0",
]


def original_jamo_tokens(text: str) -> list[str]:
    """The jamo level's definition as it was computed before (docs/design.md §3)."""
    return [c for c in jamo.j2hcj(jamo.h2j(text)) if not c.isspace()]


def test_jamo_table_equals_the_package_on_every_code_point():
    table, raising = jamo_table()
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    refused = [c for c in chars if raising.search(c)]
    text = "".join(c for c in chars if not raising.search(c))
    assert jamo_letters(text) == jamo.j2hcj(jamo.h2j(text))
    assert text.translate(table) == jamo.j2hcj(jamo.h2j(text))
    assert len(refused) == 101  # jamo 0.4.1: the unnamed letters of Hangul Jamo Extended-A and -B
    for c in refused:
        with pytest.raises(jamo.InvalidJamoError):
            jamo.j2hcj(jamo.h2j(c))
        with pytest.raises(jamo.InvalidJamoError):
            jamo_letters("가" + c)


def test_jamo_level_falls_back_on_refused_characters_as_before():
    texts = ["한국어", "ꥠ 옛한글", "다시 한국어"]
    result = get_level("jamo").tokenize(texts)
    assert result.tokens == [original_jamo_tokens(texts[0]), texts[1].split(), original_jamo_tokens(texts[2])]
    assert result.fallbacks == 1
    assert get_level("jamo").tokenize_joined(texts).joined == [" ".join(t) for t in result.tokens]


def test_jamo_and_char_levels_equal_their_definitions():
    sample = load_sample()
    texts = HOSTILE + [r for stream in sample.refs for r in stream]
    assert get_level("jamo").tokenize(texts).tokens == [original_jamo_tokens(t) for t in texts]
    assert get_level("char").tokenize(texts).tokens == [[c for c in t if not c.isspace()] for t in texts]


def test_mecab_surfaces_equal_morphs():
    if not level_availability("mecab")[0]:
        pytest.skip("python-mecab-ko unavailable")
    from mecab import MeCab

    sample = load_sample()
    texts = [t for t in HOSTILE if t.strip()] + [h for hyps in sample.systems.values() for h in hyps if h]
    morphs = MeCab().morphs
    assert [mecab_morphs(t) for t in texts] == [morphs(t) for t in texts]


@pytest.mark.parametrize("name", ["word", "mecab", "kiwi", "char", "jamo", "hannanum"])
def test_joined_tokens_equal_joined_token_lists(name):
    if not level_availability(name)[0]:
        pytest.skip(f"{name} unavailable")
    sample = load_sample()
    texts = HOSTILE + [r for stream in sample.refs for r in stream][:40] + HOSTILE[:3]
    level = get_level(name)
    tokens = level.tokenize(texts)
    joined = level.tokenize_joined(texts)
    assert joined.joined == [" ".join(t) for t in tokens.tokens]
    assert joined.fallbacks == tokens.fallbacks


def test_text_chunks_cover_the_texts_in_order():
    texts = [("가" * n) for n in (5, 1, 300, 2, 2, 2, 40, 7)] * 9
    for limit in (1, 50, 400, 10_000):
        chunks = wk.text_chunks(texts, max_chars=limit)
        assert [t for c in chunks for t in c] == texts and all(chunks)
        assert all(sum(map(len, c)) <= limit or len(c) == 1 for c in chunks)
    assert wk.text_chunks([], max_chars=50) == []


LEVELS = ("word", "mecab", "kiwi", "char", "jamo")
HEAD = 20  # segments of the sample the pipeline tests evaluate (module docstring)


@pytest.mark.slow
def test_worker_tokenising_in_chunks_equals_serial(monkeypatch):
    levels = tuple(lv for lv in LEVELS if level_availability(lv)[0])
    sample = head_of_sample(HEAD)
    config = EvalConfig(levels=levels, metrics=("bleu", "chrf", "ter"), jobs=1)
    serial = evaluate(sample, config, cache=NullCache())
    monkeypatch.setattr(wk, "PARALLEL_MIN_PAIRS", 1)
    monkeypatch.setattr(wk, "TOKENISE_CHUNK_CHARS", 500)  # many chunks per level
    parallel = evaluate(sample, EvalConfig(levels=levels, metrics=("bleu", "chrf", "ter"), jobs=2), cache=NullCache())
    assert pools._POOLS.get("main") is not None
    assert parallel.tokens == serial.tokens
    assert_same_results(parallel, serial)
    for level in levels:
        texts = list(serial.tokens[level])
        expected = [" ".join(t) for t in get_level(level).tokenize(texts).tokens]
        assert [serial.tokens[level][t] for t in texts] == expected


@pytest.mark.slow
def test_konlpy_levels_tokenise_in_the_workers(monkeypatch):
    if not level_availability("hannanum")[0]:
        pytest.skip("no JVM for KoNLPy")
    sample = head_of_sample(HEAD)
    serial = evaluate(sample, EvalConfig(levels=("hannanum",), metrics=("bleu",), jobs=1), cache=NullCache())
    monkeypatch.setattr(wk, "PARALLEL_MIN_PAIRS", 1)
    parallel = evaluate(sample, EvalConfig(levels=("hannanum",), metrics=("bleu",), jobs=2), cache=NullCache())
    assert pools._POOLS.get("main") is not None
    assert parallel.tokens == serial.tokens
    key = ("hannanum", "bleu")
    assert np.array_equal(parallel.segment_matrices[key], serial.segment_matrices[key], equal_nan=True)
