"""The pipeline's speed features change no number: worker processes, reference caching, shared chrF blocks, bulk
cache reads, the whole-result cache and the vectorised correlation groupings.

Every comparison is exact (``==``), against sacrebleu's and scipy's own functions called directly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from scipy import stats as sps

import korean_eval.engine.planning as plan
import korean_eval.engine.tokenise_stage as tokenise_stage
import korean_eval.engine.workers as wk
import korean_eval.metaeval.stats.correlation as corr
from korean_eval.engine import pools
from korean_eval.engine.cache import DiskCache, NullCache, pair_key
from korean_eval.engine.pipeline import evaluate
from korean_eval.engine.result_store import MAGIC, result_key
from korean_eval.engine.scoring import dispatch_level
from korean_eval.inputs.sample import load_sample
from korean_eval.metrics import make_metric
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet
from tests.support.helpers import assert_same_results

LEVELS = ("word", "char", "jamo")
METRICS = ("bleu", "chrf", "chrf+", "chrf++", "ter")



def scipy_loop(m: np.ndarray, h: np.ndarray, k: np.ndarray, statistic: str) -> list[float]:
    """The per-group definition: scipy called on every group separately (NaN when undefined)."""
    out = []
    for g in range(m.shape[0]):
        x, y = m[g][k[g]], h[g][k[g]]
        if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
            out.append(float("nan"))
        elif statistic == "pearson":
            out.append(float(sps.pearsonr(x, y).statistic))
        elif statistic == "spearman":
            out.append(float(sps.spearmanr(x, y).statistic))
        else:
            out.append(float(sps.kendalltau(x, y, variant="b").statistic))
    return out


def same(a, b) -> bool:
    return all((np.isnan(u) and np.isnan(v)) or u == v for u, v in zip(a, b, strict=True))


@pytest.mark.parametrize("statistic", ["pearson", "spearman", "kendall"])
def test_grouped_correlations_equal_scipy_per_group(statistic):
    rng = np.random.default_rng(7)
    for trial in range(40):
        corr._RANK_MEMO.clear()
        groups, n = int(rng.integers(1, 200)), int(rng.choice([1, 2, 3, 4, 5, 8, 12, 13, 30, 70]))
        if trial % 2:  # many ties (integer scores), so rank patterns repeat
            m = rng.integers(0, 4, (groups, n)).astype(float)
            h = rng.integers(0, 6, (groups, n)).astype(float)
        else:
            m = rng.normal(size=(groups, n)) * rng.uniform(0.01, 100)
            h = m + rng.normal(size=(groups, n))
        k = rng.random((groups, n)) > 0.15
        m[~k & (rng.random((groups, n)) > 0.5)] = np.nan
        expected = scipy_loop(m, h, k, statistic)
        assert same(corr.grouped_correlations(m, h, k, statistic), expected)
        assert same(corr.grouped_correlations(m, h, k, statistic), expected)  # second call: from the memo


@pytest.mark.parametrize("grouping", ["item", "system"])
@pytest.mark.parametrize("statistic", ["pearson", "spearman", "kendall"])
def test_segment_correlation_equals_mean_of_scipy(statistic, grouping):
    rng = np.random.default_rng(3)
    metric = rng.normal(size=(5, 400)).round(1)
    human = (metric + rng.normal(size=(5, 400))).round(0)
    human[rng.random((5, 400)) < 0.1] = np.nan
    ok = np.isfinite(metric) & np.isfinite(human)
    m, h, k = (metric.T, human.T, ok.T) if grouping == "item" else (metric, human, ok)
    values = [v for v in scipy_loop(m, h, k, statistic) if np.isfinite(v)]
    assert corr.segment_correlation(metric, human, statistic, grouping)[:2] == (float(np.mean(values)), int(ok.sum()))


def test_rank_codes_identify_rankdata_rows():
    rng = np.random.default_rng(0)
    for n in range(1, 13):
        x = rng.integers(0, 4, (300, n)).astype(float)
        ranks = [tuple(r) for r in sps.rankdata(x, axis=1).tolist()]
        codes = corr._rank_codes(x).tolist()
        assert len(set(codes)) == len(set(ranks))
        assert len(set(zip(codes, ranks, strict=True))) == len(set(ranks))


# ---- statistics: parallel, reference caching, shared chrF blocks ------------------------------------------------


def direct_tables(evalset: EvalSet, results) -> None:
    """Segment statistics and scores equal sacrebleu called directly on the pipeline's tokens."""
    for level in LEVELS:
        tok = results.tokens[level]
        positions, hyps, refs = plan.level_pairs(evalset, tok)
        for name in METRICS:
            metric = make_metric(name)
            expected = metric.segment_statistics(hyps, refs)
            got = np.array([results.stats[(level, name)][s, i] for s, i in positions])
            assert np.array_equal(got, expected), (level, name)
        for (s, i), h, r in list(zip(positions, hyps, zip(*refs, strict=True), strict=True))[::7]:
            seg = results.segment_matrices
            assert seg[(level, "bleu")][s, i] == sacrebleu.sentence_bleu(h, list(r), tokenize="none").score
            assert seg[(level, "chrf")][s, i] == sacrebleu.sentence_chrf(h, list(r)).score
            assert seg[(level, "chrf+")][s, i] == sacrebleu.sentence_chrf(h, list(r), word_order=1).score
            assert seg[(level, "chrf++")][s, i] == sacrebleu.sentence_chrf(h, list(r), word_order=2).score
            assert seg[(level, "ter")][s, i] == sacrebleu.sentence_ter(h, list(r)).score


@pytest.fixture(scope="module")
def sample() -> EvalSet:
    return load_sample()


@pytest.fixture(scope="module")
def serial(sample):
    return evaluate(sample, EvalConfig(levels=LEVELS, metrics=METRICS, jobs=1), cache=NullCache())


def test_serial_pipeline_equals_sacrebleu(sample, serial):
    direct_tables(sample, serial)


@pytest.mark.slow
def test_worker_processes_give_identical_results(sample, serial, monkeypatch):
    monkeypatch.setattr(wk, "PARALLEL_MIN_PAIRS", 1)
    monkeypatch.setattr(wk, "CHUNK_PAIRS", 37)  # many small chunks, references split across chunks
    parallel = evaluate(sample, EvalConfig(levels=LEVELS, metrics=METRICS, jobs=2), cache=NullCache())
    assert pools._POOLS["main"][1] == 2
    assert_same_results(parallel, serial)


def test_multi_reference_statistics_equal_sacrebleu(sample):
    second = [r[::-1] if i % 3 else r for i, r in enumerate(sample.refs[0])]  # some equal, some different
    multi = EvalSet(sample.seg_ids, [sample.refs[0], second], sample.systems, human=sample.human)
    results = evaluate(multi, EvalConfig(levels=("char",), metrics=METRICS, jobs=1), cache=NullCache())
    positions, hyps, refs = plan.level_pairs(multi, results.tokens["char"])
    for name in METRICS:
        got = np.array([results.stats[("char", name)][s, i] for s, i in positions])
        assert np.array_equal(got, make_metric(name).segment_statistics(hyps, refs)), name


def test_chrf_blocks_are_shared_by_levels_with_the_same_characters(sample):
    sched = wk.Scheduler(1)
    config = EvalConfig(levels=("word", "char"), metrics=("chrf", "chrf++"), jobs=1)
    for name in config.levels:
        level = tokenise_stage.prepare_level(name, sample, config)
        tok, _, _ = plan.tokenize_texts(level, [t for s in sample.refs for t in s] + [
            h for hyps in sample.systems.values() for h in hyps if h is not None], NullCache())
        level_plan = plan.plan_level(name, level, tok, sample, config, NullCache())
        dispatch_level(level_plan, sample.n_refs, config, sched)
    char_jobs = [j for j in sched.char_rows.jobs]
    assert len(char_jobs) == 1  # the char level reuses every character block computed at the word level


def test_overridden_chrf_options_are_exact(sample):
    overrides = {"char": {"chrf+": {"char_order": 4, "beta": 3}, "chrf++": {"word_order": 3}}}
    config = EvalConfig(levels=("char",), metrics=("chrf", "chrf+", "chrf++"), overrides=overrides, jobs=1)
    results = evaluate(sample, config, cache=NullCache())
    positions, hyps, refs = plan.level_pairs(sample, results.tokens["char"])
    for name in config.metrics:
        metric = make_metric(name, config.options_for("char", name))
        got = np.array([results.stats[("char", name)][s, i] for s, i in positions])
        assert np.array_equal(got, metric.segment_statistics(hyps, refs)), name


# ---- caches ---------------------------------------------------------------------------------------------------


def test_warm_runs_equal_cold(sample, serial, tmp_path):
    config = EvalConfig(levels=LEVELS, metrics=METRICS, jobs=1)
    cold = evaluate(sample, config, cache=DiskCache(tmp_path))
    assert_same_results(cold, serial)
    items_only = DiskCache(tmp_path)
    items_only.store_results = False
    assert_same_results(evaluate(sample, config, cache=items_only), serial)
    stored = evaluate(sample, config, cache=DiskCache(tmp_path))
    assert_same_results(stored, serial)
    assert stored.timings["stage"].iloc[-1] == "cached result"
    other = evaluate(sample, EvalConfig(levels=LEVELS, metrics=METRICS, ter_cap=True, jobs=1), cache=DiskCache(tmp_path))
    assert "cached result" not in set(other.timings["stage"])


def test_result_key_tracks_data_and_settings(sample):
    base = result_key(sample, EvalConfig())
    assert base == result_key(sample, EvalConfig(jobs=1))  # worker count changes no number
    assert base != result_key(sample, EvalConfig(levels=("word",)))
    changed = EvalSet(sample.seg_ids, sample.refs, dict(sample.systems), human=sample.human.iloc[1:])
    assert base != result_key(changed, EvalConfig())


def test_stats_block_handles_duplicates_and_misses(tmp_path):
    cache = DiskCache(tmp_path)
    keys = [pair_key(f"h{i}", [f"r{i}"]) for i in range(5)]
    cache.put_stats("m", [(keys[1], np.array([1.0, 2.0]), 0.5), (keys[3], np.array([3.0, 4.0]), 0.25)])
    found, stats, scores = cache.get_stats_block("m", [keys[3], keys[0], keys[1], keys[3]])
    assert found.tolist() == [True, False, True, True]
    assert stats.tolist() == [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]
    assert scores.tolist() == [0.25, 0.0, 0.5, 0.25]
    found, stats, _ = NullCache().get_stats_block("m", keys)
    assert not found.any() and stats.shape == (5, 0)


def test_trained_spm_model_is_cached(sample, tmp_path):
    config = EvalConfig(levels=("spm",))
    first = tokenise_stage.prepare_level("spm", sample, config, DiskCache(tmp_path))
    again = tokenise_stage.prepare_level("spm", sample, config, DiskCache(tmp_path))
    fresh = tokenise_stage.prepare_level("spm", sample, config)
    assert first.version() == again.version() == fresh.version()
    text = sample.refs[0][0]
    assert again.tokenize_one(text) == fresh.tokenize_one(text)


@pytest.mark.slow
def test_a_killed_worker_only_costs_time(sample, serial, monkeypatch):
    import os
    import signal
    import time

    monkeypatch.setattr(wk, "PARALLEL_MIN_PAIRS", 1)
    pool = pools.pool_for(2)
    assert pool is not None
    pool.submit(int, 0).result()  # the workers are up
    os.kill(next(iter(pool._processes)), signal.SIGKILL)
    time.sleep(0.5)
    results = evaluate(sample, EvalConfig(levels=LEVELS, metrics=METRICS, jobs=2), cache=NullCache())
    assert_same_results(results, serial)


def test_damaged_stored_result_is_recomputed(sample, tmp_path):
    config = EvalConfig(levels=("char",), metrics=("bleu", "ter"), jobs=1)
    first = evaluate(sample, config, cache=DiskCache(tmp_path))
    cache = DiskCache(tmp_path)
    cache.put_blob(f"result:{result_key(sample, config)}", MAGIC + b"not zlib", "result")
    again = evaluate(sample, config, cache=cache)
    assert "cached result" not in set(again.timings["stage"])
    assert_same_results(again, first)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"word": {"bleu": {"max_ngram_order": 2}}}, {}),  # BLEU-2 cached, then BLEU-4 …
        ({}, {"word": {"bleu": {"max_ngram_order": 2}}}),  # … and the other way round
        ({}, {"word": {"chrf": {"beta": 1}}}),  # chrF β changes the segment scores, not the statistics
    ],
)
def test_per_pair_cache_never_serves_another_options_rows(sample, tmp_path, first, second):
    """Metric options that sacrebleu's signature leaves out (BLEU's n-gram order, chrF's β) still key the cache."""
    metrics = ("bleu", "chrf")
    for overrides in (first, second):
        cache = DiskCache(tmp_path)
        cache.store_results = False
        cached = evaluate(sample, EvalConfig(levels=("word",), metrics=metrics, overrides=overrides, jobs=1), None, cache)
    fresh = evaluate(sample, EvalConfig(levels=("word",), metrics=metrics, overrides=second, jobs=1), None, NullCache())
    for name in ("segment_scores", "system_scores"):
        pd.testing.assert_frame_equal(getattr(cached, name), getattr(fresh, name), check_exact=True)
