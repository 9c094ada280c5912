"""Orchestration: EvalSet + settings → tidy result tables (GUIDE §2), with progress callbacks and caching.

Order of work: for each token level, every distinct text (references shared by all systems) is tokenised once
(cached by text hash, level and library version); for each level × metric, per-segment statistics are computed
for every (system, segment) pair that has a hypothesis (cached by token hash and metric options); segment scores
come from each segment's statistics, system scores from statistics summed over the system's segments; then the
meta-evaluation. Nothing here touches a UI: progress is reported through ``progress(fraction, message)``.

How it stays fast at paper scale (thousands of pairs × five levels × five metrics), with numbers identical to the
straightforward computation (every statistic is still computed by sacrebleu's own code):

* Worker processes (``EvalConfig.jobs``, default all cores). The statistics of a level are planned right after it
  is tokenised and handed to a pool of worker processes in chunks of :data:`korean_eval.workers.CHUNK_PAIRS` pairs, so the workers
  score one level while the main process tokenises the next. Only when a level needs at least
  :data:`korean_eval.workers.PARALLEL_MIN_PAIRS` pairs computed; smaller inputs run in the calling process. The fast TER runs in the
  main process on threads (its numba kernel releases the GIL); the model-free levels (word, char, jamo) are
  tokenised by the workers while the main process runs MeCab and Kiwi. The workers are *spawned*, so a script that
  calls :func:`evaluate` on a large input must guard its entry point with ``if __name__ == "__main__":`` (Python's
  rule for process pools; the CLI and the dashboard do); inside a worker no further pool is ever started.
* References once, not once per system: BLEU and chrF statistics go through sacrebleu's
  ``_extract_corpus_statistics`` with the reference cache (``_cache_references``) filled once per distinct
  reference of a chunk (pairs are chunked by reference), instead of re-extracting a reference's n-grams for
  every system.
* chrF, chrF+ and chrF++ with one reference: the statistics are per-order blocks ``[hyp, ref, match]``
  (character orders first, then word orders) and, with a single reference, no block depends on another
  (sacrebleu picks a best reference only between several). So the character blocks are computed once by
  sacrebleu's ``CHRF(char_order=c, word_order=0)`` and the word blocks once per level by
  ``CHRF(char_order=0, word_order=W)``; chrF+ and chrF++ take the first 3·w word columns. Character n-grams
  ignore whitespace, so the character blocks are shared by every level that leaves the characters unchanged
  (word, MeCab, char, …): they are keyed by the whitespace-free hypothesis and reference.
* Caches (:mod:`korean_eval.cache`): tokens and per-pair statistics, read in bulk; trained SentencePiece models;
  and whole results, keyed by the data's content hash, the settings, the token levels' versions and a digest of
  this package's source, so that rerunning an unchanged evaluation only loads the stored result.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from korean_eval.cache import NullCache, pair_key, text_key
from korean_eval.config import EvalConfig
from korean_eval.data import EvalSet
from korean_eval.metaeval import tables
from korean_eval.metaeval.correlation import system_means
from korean_eval.metrics import Metric, make_metric
from korean_eval.metrics.sacre import BleuMetric, ChrfMetric, TerMetric
from korean_eval.result_store import digest, load_result, store_result
from korean_eval.result_store import result_key as result_key  # re-exported: the key of a stored evaluation
from korean_eval.results import GIVEN_LEVEL, Results, higher_is_better
from korean_eval.tokenizers import (
    SpmLevel,
    TokenLevel,
    get_level,
    level_availability,
    package_version,
)
from korean_eval.workers import (
    PORTABLE_LEVELS,
    Rows,
    Scheduler,
    chunks,
    local_refs,
    task_bleu,
    task_chrf,
    task_generic,
    task_tokenize,
)

Progress = Callable[[float, str], None]


def _report(progress: Progress | None, fraction: float, message: str) -> None:
    if progress is not None:
        progress(min(max(fraction, 0.0), 1.0), message)


def _jobs(jobs: int | None) -> int:
    return max(1, jobs or os.cpu_count() or 1)


def prepare_level(name: str, evalset: EvalSet, config: EvalConfig, cache: NullCache | None = None) -> TokenLevel:
    """Instantiate a level; SentencePiece is trained on the evaluation's references (or loads the given model).

    With a ``cache``, a SentencePiece model trained here is stored (keyed by the library version, the vocabulary
    size and the distinct references, which determine the model: training is single-threaded) and loaded next time.
    """
    ok, reason = level_availability(name)
    if not ok:
        raise ValueError(f"token level {name!r} is unavailable: {reason}")
    if name == "spm":
        references = [r for stream in evalset.refs for r in stream]
        if config.spm_model is not None or cache is None or not cache.enabled:
            return SpmLevel(config.spm_vocab, config.spm_model).fit(references)
        key = "spm-model:" + digest([package_version("sentencepiece"), config.spm_vocab, list(dict.fromkeys(references))])
        model = cache.get_blob(key)
        if model is not None:
            try:
                return SpmLevel(config.spm_vocab, model, trained=True)
            except ValueError:
                pass  # a damaged entry: train again
        level = SpmLevel(config.spm_vocab).fit(references)
        cache.put_blob(key, level._model_bytes, "spm")
        return level
    return get_level(name)


def tokenize_texts(level: TokenLevel, texts: Sequence[str], cache: NullCache) -> tuple[dict[str, str], float, int]:
    """Map each distinct text to its space-joined tokens; return (map, tokenizer seconds, fallbacks)."""
    out, missing, missing_keys, level_key = _token_lookup(level, texts, cache)
    seconds, fallbacks = 0.0, 0
    if missing:
        result = level.tokenize(missing)
        seconds, fallbacks = result.seconds, result.fallbacks
        _token_store(cache, level_key, out, missing, missing_keys, [" ".join(toks) for toks in result.tokens])
    return out, seconds, fallbacks


def _token_lookup(
    level: TokenLevel, texts: Sequence[str], cache: NullCache
) -> tuple[dict[str, str], list[str], list[bytes], str]:
    """(cached tokens of the distinct texts, texts still to tokenise, their keys, the level key)."""
    unique = list(dict.fromkeys(texts))
    keys = [text_key(t) for t in unique]
    level_key = level.options_key()
    hit = cache.get_tokens(level_key, keys)
    out: dict[str, str] = {}
    missing: list[str] = []
    missing_keys: list[bytes] = []
    for text, key in zip(unique, keys, strict=True):
        if key in hit:
            out[text] = hit[key]
        else:
            missing.append(text)
            missing_keys.append(key)
    return out, missing, missing_keys, level_key


def _token_store(
    cache: NullCache, level_key: str, out: dict[str, str], missing: list[str], keys: list[bytes], joined: list[str]
) -> None:
    out.update(zip(missing, joined, strict=True))
    cache.put_tokens(level_key, zip(keys, joined, strict=True))


def _pairs(evalset: EvalSet, tok: Mapping[str, str]) -> tuple[list[tuple[int, int]], list[str], list[list[str]]]:
    """(positions (system index, segment index), hypotheses, reference streams) of every present pair, as tokens."""
    positions: list[tuple[int, int]] = []
    hyps: list[str] = []
    refs: list[list[str]] = [[] for _ in evalset.refs]
    ref_tokens = [[tok[r] for r in stream] for stream in evalset.refs]
    for s, name in enumerate(evalset.systems):
        for i, hyp in enumerate(evalset.systems[name]):
            if hyp is None:
                continue
            positions.append((s, i))
            hyps.append(tok[hyp])
            for j, stream in enumerate(ref_tokens):
                refs[j].append(stream[i])
    return positions, hyps, refs


def compute_statistics(
    metric: Metric,
    metric_key: str,
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    cache: NullCache,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-pair statistics and segment scores (cached by token hash); returns (stats, scores, seconds computed).

    The single-metric, single-process path (:func:`evaluate` plans all metrics of a level together instead).
    """
    keys = [pair_key(h, [stream[i] for stream in refs]) for i, h in enumerate(hyps)]
    found, stats, scores = cache.get_stats_block(metric_key, keys)
    missing = np.flatnonzero(~found)
    seconds = 0.0
    if len(missing):
        start = time.perf_counter()
        first: dict[bytes, int] = {}
        for i in missing:
            first.setdefault(keys[i], int(i))
        idx = list(first.values())
        new_stats = metric.segment_statistics([hyps[i] for i in idx], [[stream[i] for i in idx] for stream in refs])
        new_scores = metric.segment_scores(new_stats)
        seconds = time.perf_counter() - start
        cache.put_stats(metric_key, zip([keys[i] for i in idx], new_stats, new_scores, strict=True))
        stats, scores = _merge_rows(keys, found, stats, scores, idx, new_stats, new_scores)
    if not len(keys):
        return np.zeros((0, 0)), np.zeros(0), seconds
    return stats, np.asarray(scores, dtype=np.float64), seconds


def _merge_rows(
    keys: Sequence[bytes],
    found: np.ndarray,
    stats: np.ndarray,
    scores: np.ndarray,
    idx: Sequence[int],
    new_stats: np.ndarray,
    new_scores: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """All rows: cached ones where ``found``, else the computed row of the same pair key (``idx`` = computed pairs)."""
    new_stats = np.asarray(new_stats, dtype=np.float64).reshape(len(idx), -1)
    out_stats = np.zeros((len(keys), new_stats.shape[1]))
    out_scores = np.zeros(len(keys))
    if found.any():
        out_stats[found] = stats[found]
        out_scores[found] = scores[found]
    row_of = {keys[i]: r for r, i in enumerate(idx)}
    missing = np.flatnonzero(~found)
    rows = np.fromiter((row_of[keys[i]] for i in missing), dtype=np.int64, count=len(missing))
    out_stats[missing] = new_stats[rows]
    out_scores[missing] = np.asarray(new_scores, dtype=np.float64)[rows]
    return out_stats, out_scores


@dataclass
class _MetricPlan:
    """What one level × metric needs: cached rows, which pairs to compute, and how to get their statistics."""

    name: str
    metric: Metric
    key: str
    found: np.ndarray
    stats: np.ndarray
    scores: np.ndarray
    todo: list[int]  # first pair of every missing pair key
    compute: Callable[[], np.ndarray] | None = None
    corpus_key: str = ""  # non-empty: the statistics depend on the reference corpus (Metric.prepare)


@dataclass
class _LevelPlan:
    name: str
    level: TokenLevel
    positions: list[tuple[int, int]]
    hyps: list[str]
    refs: list[list[str]]
    keys: list[bytes]
    metrics: list[_MetricPlan]


def _chrf_spec(metric: ChrfMetric, char_order: int, word_order: int) -> tuple:
    c = metric._chrf
    return (char_order, word_order, 2 if char_order == 0 else c.beta, c.lowercase, c.whitespace, c.eps_smoothing)


def _plan_level(
    level_name: str,
    level: TokenLevel,
    tok: Mapping[str, str],
    evalset: EvalSet,
    config: EvalConfig,
    cache: NullCache,
    sched: Scheduler,
) -> _LevelPlan:
    """Look up the cache for every metric of the level and start the work on the missing pairs."""
    positions, hyps, refs = _pairs(evalset, tok)
    n = len(hyps)
    ref_tuples = list(zip(*refs, strict=True)) if refs else [()] * n
    keys = [pair_key(h, r) for h, r in zip(hyps, ref_tuples, strict=True)]
    group: dict[tuple[str, ...], int] = {}
    ref_ids = np.fromiter((group.setdefault(t, len(group)) for t in ref_tuples), dtype=np.int64, count=n)
    unique_refs = list(group)
    corpus = [tuple(tok[stream[i]] for stream in evalset.refs) for i in range(evalset.n_segments)]
    plans: list[_MetricPlan] = []
    for metric_name in config.metrics:
        runtime = {"implementation": config.ter_implementation, "n_jobs": config.jobs} if metric_name == "ter" else {}
        metric = make_metric(metric_name, config.options_for(level_name, metric_name), **runtime)
        corpus_key = metric.prepare(corpus)
        metric_key = f"{level.options_key()}|{metric_name}|{metric.options_key()}" + (f"|{corpus_key}" if corpus_key else "")
        found, stats, scores = cache.get_stats_block(metric_key, keys)
        first: dict[bytes, int] = {}
        for i in np.flatnonzero(~found):
            first.setdefault(keys[i], int(i))
        plans.append(
            _MetricPlan(metric_name, metric, metric_key, found, stats, scores, list(first.values()), corpus_key=corpus_key)
        )
    pool = sched.pool(max((len(p.todo) for p in plans), default=0))
    parallel = pool is not None

    # chrF family with one reference: character blocks (shared by content) + word blocks (once per level)
    split = [
        p for p in plans
        if isinstance(p.metric, ChrfMetric) and evalset.n_refs == 1 and not p.metric._chrf.whitespace and p.todo
    ]
    word_rows = Rows()
    word_spec: tuple | None = None
    by_pair: dict[int, tuple] = {}
    if split:
        stripped = ["".join(h.split()) for h in hyps]
        s_ids: dict[str, int] = {}
        s_refs = np.fromiter(
            (s_ids.setdefault("".join(unique_refs[g][0].split()), len(s_ids)) for g in ref_ids), dtype=np.int64, count=n
        )
        s_unique = [(r,) for r in s_ids]
        for p in split:
            spec = _chrf_spec(p.metric, p.metric.char_order, 0)
            new = []
            for i in p.todo:
                ck = (spec, stripped[i], s_unique[s_refs[i]][0])
                by_pair[(id(p), i)] = ck
                if ck not in sched.char_rows.where:
                    sched.char_rows.where[ck] = None  # reserved: planned just below
                    new.append(i)
            for chunk in chunks(new, s_refs, parallel):
                ref_index, chunk_refs = local_refs(chunk, s_refs, s_unique)
                job = sched.submit(
                    task_chrf, (spec, [stripped[i] for i in chunk], ref_index, chunk_refs), (level_name, p.name), pool
                )
                sched.char_rows.add(job, [by_pair[(id(p), int(i))] for i in chunk])
        with_words = [p for p in split if p.metric.word_order > 0]
        if with_words:
            top = max(with_words, key=lambda p: p.metric.word_order)
            word_spec = _chrf_spec(top.metric, 0, top.metric.word_order)
            union = sorted({i for p in with_words for i in p.todo})
            for chunk in chunks(union, ref_ids, parallel):
                ref_index, chunk_refs = local_refs(chunk, ref_ids, unique_refs)
                job = sched.submit(
                    task_chrf, (word_spec, [hyps[i] for i in chunk], ref_index, chunk_refs), (level_name, top.name), pool
                )
                word_rows.add(job, [int(i) for i in chunk])

    for p in plans:
        if not p.todo:
            continue
        owner = (level_name, p.name)
        if p in split:
            p.compute = _compose_chrf(p, sched.char_rows, word_rows, by_pair, 3 * word_spec[1] if word_spec else 0)
        elif isinstance(p.metric, BleuMetric):
            rows = Rows()
            options = tuple(sorted(config.options_for(level_name, p.name).items()))
            for chunk in chunks(p.todo, ref_ids, parallel):
                ref_index, chunk_refs = local_refs(chunk, ref_ids, unique_refs)
                job = sched.submit(task_bleu, (options, [hyps[i] for i in chunk], ref_index, chunk_refs), owner, pool)
                rows.add(job, [int(i) for i in chunk])
            width = 2 + 2 * p.metric.max_ngram_order
            p.compute = (lambda rows=rows, todo=p.todo, width=width: rows.gather(todo, width))
        elif isinstance(p.metric, TerMetric) and p.metric.implementation == "fast":
            p.compute = _in_process(p, hyps, refs, sched, owner)  # numba, threads: no pickling needed
        else:
            options = tuple(sorted(config.options_for(level_name, p.name).items()))
            runtime = (
                (("implementation", config.ter_implementation), ("n_jobs", 1)) if p.name == "ter" else ()
            )
            args = (
                p.name, options, runtime, [hyps[i] for i in p.todo], [[s[i] for i in p.todo] for s in refs],
                corpus if p.corpus_key else None,
            )
            job = sched.submit(task_generic, args, owner, pool)
            p.compute = job.result
    return _LevelPlan(level_name, level, positions, hyps, refs, keys, plans)


def _compose_chrf(
    p: _MetricPlan, char_rows: Rows, word_rows: Rows, by_pair: dict, word_width: int
) -> Callable[[], np.ndarray]:
    """chrF statistics of the plan's pairs: character blocks, then the first 3·word_order word columns."""

    def compute() -> np.ndarray:
        chars = char_rows.gather([by_pair[(id(p), i)] for i in p.todo], 3 * p.metric.char_order)
        if p.metric.word_order == 0:
            return chars
        words = word_rows.gather(p.todo, word_width)
        return np.hstack([chars, words[:, : 3 * p.metric.word_order]])

    return compute


def _in_process(p: _MetricPlan, hyps: list[str], refs: list[list[str]], sched: Scheduler, owner) -> Callable:
    def compute() -> np.ndarray:
        start = time.perf_counter()
        out = p.metric.segment_statistics([hyps[i] for i in p.todo], [[s[i] for i in p.todo] for s in refs])
        sched.seconds[owner] += time.perf_counter() - start
        sched.waited += time.perf_counter() - start  # counted as owned seconds, not as main-process assembly
        return np.asarray(out, dtype=np.float64)

    return compute


def _work_order(levels: Sequence[str]) -> list[str]:
    """Jamo and character levels first (longest token sequences: their statistics take longest), then the rest."""
    first = [lv for lv in ("jamo", "char") if lv in levels]
    return first + [lv for lv in levels if lv not in first]


def evaluate(
    evalset: EvalSet,
    config: EvalConfig | None = None,
    progress: Progress | None = None,
    cache: NullCache | None = None,
) -> Results:
    """Run the whole pipeline on ``evalset``; see the module docstring.

    With a persistent cache, an evaluation already computed with the same data, settings, token-level versions
    and package source is loaded instead of recomputed (``cache.store_results = False`` turns that off).
    """
    config = config or EvalConfig()
    cache = cache or NullCache()
    key = None
    if cache.enabled and getattr(cache, "store_results", False):
        start = time.perf_counter()
        key = result_key(evalset, config)
        results = load_result(cache, key)
        if isinstance(results, Results):
            results.timings = pd.concat(
                [
                    results.timings,
                    pd.DataFrame(
                        [{"stage": "cached result", "level": "", "metric": "", "seconds": time.perf_counter() - start}]
                    ),
                ],
                ignore_index=True,
            )
            results.notes = results.notes + ([cache.problem] if cache.problem else [])
            _report(progress, 1.0, "done (stored result of an identical evaluation)")
            return results
    results = _evaluate(evalset, config, progress, cache)
    if key is not None and cache.enabled:
        store_result(cache, key, results)
    results.notes = results.notes + ([cache.problem] if cache.problem else [])
    return results


def _evaluate(evalset: EvalSet, config: EvalConfig, progress: Progress | None, cache: NullCache) -> Results:
    systems = evalset.system_names
    seg_ids = evalset.seg_ids
    n_sys, n_seg = len(systems), len(seg_ids)
    human = tables.human_matrix(evalset.human, systems, seg_ids)
    human_sys = system_means(human)
    has_text = bool(evalset.refs)
    levels = list(config.levels) if has_text else []
    steps = len(levels) * (1 + len(config.metrics)) + 1
    done = 0
    notes: list[str] = []
    seg_frames: list[pd.DataFrame] = []
    sys_rows: list[dict] = []
    corr_rows: list[dict] = []
    rank_rows: list[dict] = []
    flip_rows: list[dict] = []
    token_rows: list[dict] = []
    timing_rows: list[dict] = []
    meta_rows: list[dict] = []
    all_stats: dict[tuple[str, str], np.ndarray] = {}
    metric_objs: dict[tuple[str, str], Metric] = {}
    matrices: dict[tuple[str, str], np.ndarray] = {}
    token_maps: dict[str, dict[str, str]] = {}
    texts = [r for stream in evalset.refs for r in stream]
    texts += [h for hyps in evalset.systems.values() for h in hyps if h is not None]
    words = sum(len(t.split()) for t in texts)
    sys_index = np.array([s for s in range(n_sys)])
    sched = Scheduler(_jobs(config.jobs))

    def add_metric(level: str, name: str, seg_mat: np.ndarray, sys_scores: np.ndarray, signature: str, hib: bool) -> None:
        start = time.perf_counter()
        present = np.isfinite(seg_mat)
        s_idx, i_idx = np.nonzero(present)
        seg_frames.append(
            pd.DataFrame(
                {
                    "system": np.array(systems, dtype=object)[s_idx],
                    "seg_id": np.array(seg_ids, dtype=object)[i_idx],
                    "level": level,
                    "metric": name,
                    "score": seg_mat[present],
                }
            )
        )
        for s in range(n_sys):
            sys_rows.append(
                {
                    "system": systems[s],
                    "level": level,
                    "metric": name,
                    "score": float(sys_scores[s]),
                    "signature": signature,
                    "n_segments": int(present[s].sum()),
                }
            )
        corr_mat = np.minimum(seg_mat, 100.0) if (config.ter_cap and name == "ter") else seg_mat
        matrices[(level, name)] = corr_mat
        corr_rows.extend(
            tables.correlation_rows(level, name, corr_mat, human, sys_scores, config.statistics, config.groupings)
        )
        rank_rows.extend(tables.ranking_rows(level, name, systems, sys_scores, human_sys, hib))
        flip_rows.extend(tables.flipped_pairs(level, name, systems, sys_scores, human_sys, hib))
        meta_rows.append({"stage": "meta", "level": level, "metric": name, "seconds": time.perf_counter() - start})

    # 1. tokenise every level; each level's statistics start (in worker processes) as soon as it is tokenised,
    # the levels with the longest token sequences (most statistics work) first
    plans: dict[str, _LevelPlan] = {}
    tokenise_rows: dict[str, dict] = {}
    token_by_level: dict[str, dict] = {}
    fallback_notes: dict[str, str] = {}
    def finish_level(level_name: str, level: TokenLevel, tok: dict, tok_seconds: float, fallbacks: int, wall: float):
        token_maps[level_name] = tok
        n_tokens = sum(len(tok[t].split()) for t in texts)
        token_by_level[level_name] = {
            "level": level_name,
            "family": level.family,
            "version": level.version(),
            "texts": len(texts),
            "tokens": n_tokens,
            "words": words,
            "tokens_per_word": n_tokens / words if words else np.nan,
            "tokenizer_seconds": tok_seconds,
            "fallbacks": fallbacks,
        }
        tokenise_rows[level_name] = {"stage": "tokenise", "level": level_name, "metric": "", "seconds": wall}
        if fallbacks:
            fallback_notes[level_name] = (
                f"{level.label}: {fallbacks} sentence(s) could not be analysed and were split on whitespace instead"
            )
        plans[level_name] = _plan_level(level_name, level, tok, evalset, config, cache, sched)

    # model-free pure-Python levels are tokenised by the worker processes (when they run) while this process
    # tokenises the others
    order = _work_order(levels)
    pool = sched.pool(evalset.system_pairs()) if levels else None
    pending: dict[str, tuple] = {}
    for level_name in order if pool is not None else []:
        if level_name in PORTABLE_LEVELS:
            start = time.perf_counter()
            level = prepare_level(level_name, evalset, config, cache)
            out, missing, missing_keys, level_key = _token_lookup(level, texts, cache)
            job = sched.submit(task_tokenize, (level_name, missing), (level_name, ""), pool) if missing else None
            pending[level_name] = (level, out, missing, missing_keys, level_key, job, time.perf_counter() - start)

    def collect_pending() -> None:
        nonlocal done
        for level_name in list(pending):
            level, out, missing, missing_keys, level_key, job, wall = pending.pop(level_name)
            _report(progress, done / steps, f"tokenising at level {level_name}")
            start, waited = time.perf_counter(), sched.waited
            tok_seconds, fallbacks = 0.0, 0
            if job is not None:
                joined, tok_seconds, fallbacks = job.result()
                _token_store(cache, level_key, out, missing, missing_keys, joined)
            wall += (time.perf_counter() - start) - (sched.waited - waited) + tok_seconds
            done += 1
            finish_level(level_name, level, out, tok_seconds, fallbacks, wall)

    # the other levels here; their analyzers load first (Kiwi's model, a JVM), while the workers start up
    in_main = [lv for lv in order if lv not in pending]
    prepared: dict[str, tuple[TokenLevel, float]] = {}
    for level_name in in_main if pending else in_main[:1]:
        start = time.perf_counter()
        prepared[level_name] = (prepare_level(level_name, evalset, config, cache), time.perf_counter() - start)
    for n_main, level_name in enumerate(in_main):
        _report(progress, done / steps, f"tokenising at level {level_name}")
        start = time.perf_counter()
        level, prepare_seconds = prepared.pop(level_name, (None, 0.0))
        level = level or prepare_level(level_name, evalset, config, cache)
        tok, tok_seconds, fallbacks = tokenize_texts(level, texts, cache)
        done += 1
        finish_level(level_name, level, tok, tok_seconds, fallbacks, time.perf_counter() - start + prepare_seconds)
        if n_main == 0:
            collect_pending()
    collect_pending()
    token_rows = [token_by_level[name] for name in levels]
    notes += [fallback_notes[name] for name in levels if name in fallback_notes]
    token_maps = {name: token_maps[name] for name in levels}

    # 2. per level × metric, in the configured order: statistics (cached + computed), segment and system scores,
    # meta-evaluation
    for level_name in levels:
        plan = plans[level_name]
        level = plan.level
        timing_rows.append(tokenise_rows[level_name])
        pos = np.array(plan.positions, dtype=int).reshape(-1, 2)
        for mp in plan.metrics:
            metric_name, metric = mp.name, mp.metric
            _report(progress, done / steps, f"scoring {metric_name} at level {level_name}")
            start, waited = time.perf_counter(), sched.waited
            if mp.todo:
                assert mp.compute is not None
                new_stats = mp.compute()
                new_scores = metric.segment_scores(new_stats)
                cache.put_stats(mp.key, zip([plan.keys[i] for i in mp.todo], new_stats, new_scores, strict=True))
                stats, scores = _merge_rows(plan.keys, mp.found, mp.stats, mp.scores, mp.todo, new_stats, new_scores)
            else:
                stats, scores = mp.stats, mp.scores
            if not len(plan.keys):
                stats, scores = np.zeros((0, 0)), np.zeros(0)
            k = stats.shape[1] if stats.size else 1
            stats_cube = np.full((n_sys, n_seg, k), np.nan)
            seg_mat = np.full((n_sys, n_seg), np.nan)
            if len(pos):
                stats_cube[pos[:, 0], pos[:, 1]] = stats
                seg_mat[pos[:, 0], pos[:, 1]] = scores
            sys_scores = np.array(
                [
                    metric.corpus_score(stats_cube[s][np.isfinite(seg_mat[s])]) if np.isfinite(seg_mat[s]).any() else np.nan
                    for s in sys_index
                ]
            )
            signature = f"{metric.signature(evalset.n_refs)}|level:{level.version()}"
            assembly = (time.perf_counter() - start) - (sched.waited - waited)
            add_metric(level_name, metric_name, seg_mat, sys_scores, signature, metric.info.higher_is_better)
            all_stats[(level_name, metric_name)] = stats_cube
            metric_objs[(level_name, metric_name)] = metric
            timing_rows.append({"stage": "score", "level": level_name, "metric": metric_name, "seconds": assembly})
            done += 1
    if evalset.given is not None:
        for name, (mat, sys_scores) in tables.given_system_scores(evalset.given, systems, seg_ids).items():
            hib = higher_is_better(name, GIVEN_LEVEL, config.given_lower_is_better)
            direction = "higher is better" if hib else "lower is better"
            add_metric(GIVEN_LEVEL, name, mat, sys_scores, f"given|system score = mean of segment scores|{direction}", hib)
        unknown = sorted(set(config.given_lower_is_better) - set(evalset.given["metric"]))
        if unknown:
            notes.append(f"lower-is-better metric(s) not among your metric scores: {', '.join(unknown)}")
    for row in timing_rows:  # work done in worker processes (or earlier) counts for the level × metric owning it
        if row["stage"] == "score":
            row["seconds"] += sched.seconds.get((row["level"], row["metric"]), 0.0)
    timing_rows += meta_rows
    _report(progress, done / steps, "meta-evaluation")
    if evalset.human is None:
        notes.append("no human scores: correlations and rankings against humans are empty")

    correlations = pd.DataFrame(corr_rows, columns=tables.CORRELATION_COLUMNS)
    correlations["higher_is_better"] = np.array(
        [
            higher_is_better(m, lv, config.given_lower_is_better)
            for lv, m in zip(correlations["level"], correlations["metric"], strict=True)
        ],
        dtype=bool,
    )
    segment_scores = (
        pd.concat(seg_frames, ignore_index=True)
        if seg_frames
        else pd.DataFrame(columns=["system", "seg_id", "level", "metric", "score"])
    )
    human_systems = pd.DataFrame(
        {
            "system": systems,
            "human_mean": human_sys,
            "human_rank": tables.rank(human_sys),
            "n_scored": np.isfinite(human).sum(axis=1),
        }
    )
    _report(progress, 1.0, "done")
    return Results(
        segment_scores=segment_scores,
        system_scores=pd.DataFrame(
            sys_rows, columns=["system", "level", "metric", "score", "signature", "n_segments"]
        ),
        correlations=correlations,
        rankings=pd.DataFrame(rank_rows, columns=tables.RANKING_COLUMNS),
        flips=pd.DataFrame(flip_rows, columns=tables.FLIP_COLUMNS),
        human_systems=human_systems,
        token_stats=pd.DataFrame(token_rows),
        timings=pd.DataFrame(timing_rows, columns=["stage", "level", "metric", "seconds"]),
        systems=systems,
        seg_ids=seg_ids,
        stats=all_stats,
        metrics=metric_objs,
        segment_matrices=matrices,
        human_matrix=human,
        settings=config.as_dict(),
        notes=notes,
        tokens=token_maps,
    )
