"""The extended metrics through the real pipeline: equal to nltk called directly, cache-independent (NIST)."""

import numpy as np
import pytest
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, sentence_bleu
from nltk.translate.gleu_score import corpus_gleu
from nltk.translate.nist_score import corpus_nist, sentence_nist
from nltk.translate.ribes_score import corpus_ribes

from korean_eval.engine.cache import DiskCache
from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.model.config import EvalConfig

EXT = ("nltk-bleu", "gleu", "nist", "ribes", "character", "eed")


@pytest.fixture(scope="module")
def small_sample():
    ev = load_sample()
    keep = 40
    ev.seg_ids = ev.seg_ids[:keep]
    ev.refs = [r[:keep] for r in ev.refs]
    ev.systems = {k: v[:keep] for k, v in ev.systems.items()}
    ev.human = ev.human[ev.human.seg_id.astype(int) < keep]
    return ev


def test_nltk_metrics_equal_nltk(small_sample):
    res = evaluate(small_sample, EvalConfig(levels=("char",), metrics=EXT, jobs=1))
    sys_scores = res.system_scores.set_index(["system", "metric"])["score"]
    seg = res.segment_scores.set_index(["system", "seg_id", "metric"])["score"]
    refs = [[[c for c in r if not c.isspace()]] for r in small_sample.refs[0]]
    smooth = SmoothingFunction(epsilon=0.1).method1
    for name, hyps in small_sample.systems.items():
        toks = [[c for c in h if not c.isspace()] for h in hyps]
        assert sys_scores[(name, "nltk-bleu")] == pytest.approx(100 * corpus_bleu(refs, toks, smoothing_function=smooth), abs=1e-9)
        assert sys_scores[(name, "gleu")] == pytest.approx(100 * corpus_gleu(refs, toks), abs=1e-9)
        assert sys_scores[(name, "nist")] == pytest.approx(corpus_nist(refs, toks), abs=1e-9)
        assert sys_scores[(name, "ribes")] == pytest.approx(100 * corpus_ribes(refs, toks), abs=1e-9)
        for i in (0, 7, 19):
            sid = small_sample.seg_ids[i]
            assert seg[(name, sid, "nltk-bleu")] == pytest.approx(100 * sentence_bleu(refs[i], toks[i], smoothing_function=smooth), abs=1e-9)
            if len(toks[i]) >= 5:
                assert seg[(name, sid, "nist")] == pytest.approx(sentence_nist(refs[i], toks[i]), abs=1e-9)
    assert set(res.system_scores.metric) == set(EXT)
    assert np.isfinite(res.system_scores.score).all()
    assert res.correlations.query("metric == 'eed' and granularity == 'segment'")["value"].notna().all()


def test_nist_does_not_depend_on_what_the_cache_held(small_sample, tmp_path):
    cache = DiskCache(tmp_path)
    # first run scores only two systems, so the pairs computed on the second run are a subset of the whole set
    partial = load_sample()
    partial.seg_ids, partial.refs = small_sample.seg_ids, small_sample.refs
    partial.systems = dict(list(small_sample.systems.items())[:2])
    partial.human = None
    evaluate(partial, EvalConfig(levels=("word",), metrics=("nist",), jobs=1), cache=cache)
    warm = evaluate(small_sample, EvalConfig(levels=("word",), metrics=("nist",), jobs=1), cache=cache)
    cold = evaluate(small_sample, EvalConfig(levels=("word",), metrics=("nist",), jobs=1))
    assert warm.system_scores["score"].tolist() == cold.system_scores["score"].tolist()
    assert warm.segment_scores["score"].tolist() == cold.segment_scores["score"].tolist()


def test_result_store_refuses_a_directory_others_can_write(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    cache = DiskCache(shared)
    assert cache.enabled and not cache.store_results and "writable by other users" in cache.problem
    private = DiskCache(tmp_path / "mine")
    assert private.store_results and not private.problem
