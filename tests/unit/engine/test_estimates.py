"""The estimate of a run before it starts (korean_eval.engine.estimates): each level's measured cost on the distinct
texts the token cache does not hold, KoNLPy's JVM once, nothing for a level whose tokens are all cached."""

from __future__ import annotations

import pytest

from korean_eval.engine.cache import open_cache
from korean_eval.engine.estimates import distinct_texts, level_estimates, run_seconds
from korean_eval.engine.planning import tokenize_texts
from korean_eval.engine.tokenise_stage import prepare_level
from korean_eval.inputs.sample import load_sample
from korean_eval.levels.costs import JVM_START_SECONDS, SPM_TRAIN_US_PER_REF_CHAR, TOKENIZE_COSTS
from korean_eval.metrics.costs import SCORE_US_PER_CHAR
from korean_eval.model.config import EvalConfig


@pytest.fixture(scope="module")
def sample():
    return load_sample()


def test_each_level_costs_its_start_and_its_characters(sample):
    texts = distinct_texts(sample)
    chars = sum(map(len, texts))
    got = level_estimates(sample, ["char", "okt", "kkma", "spm"])
    assert got["char"].seconds == pytest.approx(TOKENIZE_COSTS["char"][1] * chars / 1e6)
    assert got["char"].texts == len(texts) and got["char"].chars == chars
    okt_start, okt_per = TOKENIZE_COSTS["okt"]
    assert got["okt"].start == pytest.approx(okt_start + JVM_START_SECONDS)  # the JVM with the first KoNLPy level
    assert got["okt"].seconds == pytest.approx(okt_start + JVM_START_SECONDS + okt_per * chars / 1e6)
    assert got["kkma"].start == pytest.approx(TOKENIZE_COSTS["kkma"][0])  # … and only once
    ref_chars = sum(len(r) for r in dict.fromkeys(sample.refs[0]))
    assert got["spm"].start == pytest.approx(SPM_TRAIN_US_PER_REF_CHAR * ref_chars / 1e6)  # its training
    assert got["kkma"].seconds > got["okt"].seconds > got["char"].seconds
    assert level_estimates(sample, ["kkma"], started={"jvm", "kkma"})["kkma"].start == 0


def test_cached_tokens_cost_nothing(sample, tmp_path):
    cache = open_cache(tmp_path)
    before = level_estimates(sample, ["word", "char"], cache)
    assert before["word"].texts == len(distinct_texts(sample))
    level = prepare_level("word", sample, EvalConfig(levels=("word",)), cache)
    tokenize_texts(level, distinct_texts(sample), cache)  # the word level's tokens now in the cache
    after = level_estimates(sample, ["word", "char"], cache)
    assert after["word"].seconds == after["word"].texts == 0
    assert after["char"] == before["char"]


def test_a_run_adds_the_scoring_of_every_level_it_tokenises(sample):
    estimates = level_estimates(sample, ["word", "char"])
    hyp_chars = sum(len(h) for hyps in sample.systems.values() for h in hyps if h is not None)
    tokenising = estimates["word"].seconds + estimates["char"].seconds
    assert run_seconds(sample, estimates, ["ter"]) == pytest.approx(
        tokenising + 2 * SCORE_US_PER_CHAR["ter"] * hyp_chars / 1e6)
