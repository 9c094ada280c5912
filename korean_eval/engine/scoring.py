"""The score stage of the pipeline (docs/design.md §2): statistics of the pairs a level plan lists, then scores.

:func:`dispatch_level` starts the work as soon as a level is planned (in the worker processes when the level has
at least :data:`korean_eval.engine.workers.PARALLEL_MIN_PAIRS` pairs to compute), and returns per metric a
:class:`StatisticsSource`; :func:`score_cell` later calls it, stores the new rows in the cache, merges them with the
cached ones and computes the segment scores (one per row) and the system scores (from the statistics summed over a
system's present segments). How the work is cut (docs/design.md §2):

* BLEU: chunks ordered by reference, each distinct reference of a chunk pre-processed once (``task_bleu``);
* the chrF family with one reference: character blocks by ``CHRF(char_order=c, word_order=0)``, shared by every
  level with the same characters (keyed by the whitespace-free hypothesis and reference), and word blocks once per
  level by ``CHRF(char_order=0, word_order=W)`` for the largest W; chrF+ and chrF++ take the first 3·w word
  columns (``task_chrf``);
* the fast TER in chunks of pairs on the workers (one thread each), or, in a run that stays in this process, on
  this process's threads (its numba kernel releases the GIL);
* any other metric: all its pairs in one task (``task_generic``), prepared with the reference corpus if it needs it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import cast

import numpy as np

from korean_eval.engine.cache import NullCache
from korean_eval.engine.collect import Cell
from korean_eval.engine.planning import LevelPlan, MetricPlan
from korean_eval.engine.workers import (
    Job,
    Rows,
    Scheduler,
    chunks,
    local_refs,
    task_bleu,
    task_chrf,
    task_generic,
)
from korean_eval.metrics import Metric, declaration
from korean_eval.metrics.sacre import BleuMetric, ChrfMetric
from korean_eval.model.config import EvalConfig


@dataclass
class StatisticsSource:
    """The statistics rows of a metric plan's ``todo`` pairs, in order, when called; ``jobs``: the tasks they come
    from (followed by the run's progress; none when they are computed here in one call)."""

    compute: Callable[[], np.ndarray]
    jobs: list[Job] = field(default_factory=list)

    def __call__(self) -> np.ndarray:
        return self.compute()


def dispatch_level(
    plan: LevelPlan, n_refs: int, config: EvalConfig, sched: Scheduler
) -> list[StatisticsSource | None]:
    """Start computing the level's missing statistics; per metric plan (in order) its source, None if nothing is
    missing."""
    pool = sched.pool(max((len(p.todo) for p in plan.metrics), default=0))
    work = [p.metric.work(n_refs) for p in plan.metrics]
    split = [k for k, p in enumerate(plan.metrics) if p.todo and work[k] == "char-blocks"]
    chrf = _dispatch_chrf(plan, [plan.metrics[k] for k in split], sched, pool)
    chrf_sources = dict(zip(split, chrf, strict=True))
    sources: list[StatisticsSource | None] = []
    for k, p in enumerate(plan.metrics):
        if not p.todo:
            sources.append(None)
        elif k in chrf_sources:
            sources.append(chrf_sources[k])
        elif work[k] == "reference-chunks":
            sources.append(_dispatch_bleu(plan, p, config, sched, pool))
        elif work[k] == "pairs":
            here = StatisticsSource(partial(_compute_here, p, plan.hyps, plan.refs, sched, (plan.name, p.name)))
            sources.append(_dispatch_pair_chunks(plan, p, config, sched, pool) if pool is not None else here)
        else:
            sources.append(_dispatch_generic(plan, p, config, sched, pool))
    return sources


def _chrf_spec(metric: ChrfMetric, char_order: int, word_order: int) -> tuple:
    c = metric._chrf
    return (char_order, word_order, 2 if char_order == 0 else c.beta, c.lowercase, c.whitespace, c.eps_smoothing)


def _dispatch_bleu(plan: LevelPlan, p: MetricPlan, config: EvalConfig, sched: Scheduler, pool) -> StatisticsSource:
    rows = Rows()
    options = tuple(sorted(config.options_for(plan.name, p.name).items()))
    for chunk in chunks(p.todo, plan.ref_ids, pool is not None):
        ref_index, chunk_refs = local_refs(chunk, plan.ref_ids, plan.unique_refs)
        args = (options, [plan.hyps[i] for i in chunk], ref_index, chunk_refs)
        job = sched.submit(task_bleu, args, (plan.name, p.name), pool)
        rows.add(job, [int(i) for i in chunk])
    width = 2 + 2 * cast(BleuMetric, p.metric).max_ngram_order
    return StatisticsSource(partial(rows.gather, p.todo, width), rows.jobs)


def _dispatch_pair_chunks(
    plan: LevelPlan, p: MetricPlan, config: EvalConfig, sched: Scheduler, pool
) -> StatisticsSource:
    """Statistics in chunks of pairs (``task_generic``, one thread each; the fast TER), spread over the workers."""
    rows = Rows()
    options = tuple(sorted(config.options_for(plan.name, p.name).items()))
    runtime = _task_runtime(p.name, config)
    for chunk in chunks(p.todo, plan.ref_ids, pool is not None):
        args = (p.name, options, runtime, [plan.hyps[i] for i in chunk], [[s[i] for i in chunk] for s in plan.refs])
        rows.add(sched.submit(task_generic, args, (plan.name, p.name), pool), [int(i) for i in chunk])
    return StatisticsSource(partial(_gather_any_width, rows, p.todo), rows.jobs)


def _gather_any_width(rows: Rows, keys: Sequence[int]) -> np.ndarray:
    """The rows of ``keys`` in order, as wide as the first task's statistics."""
    width = rows.jobs[0].result().shape[1] if rows.jobs else 0
    return rows.gather(keys, width)


def _task_runtime(metric: str, config: EvalConfig) -> tuple[tuple[str, object], ...]:
    """The runtime settings a task passes to ``metric``: those the run sets (one thread per task)."""
    return tuple(declaration(metric).run_arguments(config.ter_implementation, 1).items())


def _dispatch_generic(
    plan: LevelPlan, p: MetricPlan, config: EvalConfig, sched: Scheduler, pool
) -> StatisticsSource:
    options = tuple(sorted(config.options_for(plan.name, p.name).items()))
    runtime = _task_runtime(p.name, config)
    args = (
        p.name, options, runtime, [plan.hyps[i] for i in p.todo], [[s[i] for i in p.todo] for s in plan.refs],
        plan.corpus if p.corpus_key else None,
    )
    job = sched.submit(task_generic, args, (plan.name, p.name), pool)
    return StatisticsSource(job.result, [job])


#: Pairs per piece of the fast TER computed in this process (a run too small for the pool): the run's watch is called
#: between pieces, so that a stop is heard and the progress bar kept alive within the metric (a jamo pair of MT-like
#: output costs about 1.5 ms, a long one much more).
HERE_PIECE_PAIRS = 256


def _compute_here(p: MetricPlan, hyps: list[str], refs: list[list[str]], sched: Scheduler, owner: tuple[str, str]):
    """The plan's statistics computed in this process (the fast TER: numba on threads, no pickling needed), in
    pieces of :data:`HERE_PIECE_PAIRS` pairs with the run's watch called between them (each pair's statistics do not
    depend on its piece)."""
    start = time.perf_counter()
    pieces = []
    for begin in range(0, len(p.todo), HERE_PIECE_PAIRS):
        if begin and sched.watch is not None:
            sched.watch()  # may stop the run
        todo = p.todo[begin:begin + HERE_PIECE_PAIRS]
        pieces.append(np.asarray(p.metric.segment_statistics([hyps[i] for i in todo], [[s[i] for i in todo] for s in refs]),
                                 dtype=np.float64))
    sched.seconds[owner] += time.perf_counter() - start
    sched.waited += time.perf_counter() - start  # counted as owned seconds, not as main-process assembly
    return np.concatenate(pieces) if pieces else np.zeros((0, 2))


def _dispatch_chrf(plan: LevelPlan, split: list[MetricPlan], sched: Scheduler, pool) -> list[StatisticsSource]:
    """Character blocks per plan (shared through ``sched.char_rows``), word blocks once for the level."""
    if not split:
        return []
    stripped = ["".join(h.split()) for h in plan.hyps]
    s_ids: dict[str, int] = {}
    s_refs = np.fromiter(
        (s_ids.setdefault("".join(plan.unique_refs[g][0].split()), len(s_ids)) for g in plan.ref_ids),
        dtype=np.int64, count=len(plan.hyps),
    )
    s_unique = [(r,) for r in s_ids]
    char_keys = [_dispatch_char_blocks(plan.name, p, stripped, s_refs, s_unique, sched, pool) for p in split]
    word_rows, word_width = _dispatch_word_blocks(plan, split, sched, pool)
    return [
        StatisticsSource(partial(_chrf_statistics, p, keys, sched.char_rows, word_rows, word_width),
                         _jobs_of(sched.char_rows, keys) + word_rows.jobs)
        for p, keys in zip(split, char_keys, strict=True)
    ]


def _jobs_of(rows: Rows, keys: Sequence) -> list[Job]:
    """The jobs of ``rows`` that hold the rows of ``keys``, in job order."""
    return [rows.jobs[j] for j in sorted({rows.where[k][0] for k in keys})]


def _dispatch_char_blocks(
    level_name: str, p: MetricPlan, stripped: list[str], s_refs: np.ndarray, s_unique: list[tuple[str]],
    sched: Scheduler, pool,
) -> list[tuple]:
    """Submit the character blocks no level has asked for yet; return the block key of each ``todo`` pair."""
    metric = cast(ChrfMetric, p.metric)
    spec = _chrf_spec(metric, metric.char_order, 0)
    keys = [(spec, stripped[i], s_unique[s_refs[i]][0]) for i in p.todo]
    key_of = dict(zip(p.todo, keys, strict=True))
    new = []
    for i, key in zip(p.todo, keys, strict=True):
        if key not in sched.char_rows.where:
            sched.char_rows.where[key] = None  # reserved: submitted just below
            new.append(i)
    for chunk in chunks(new, s_refs, pool is not None):
        ref_index, chunk_refs = local_refs(chunk, s_refs, s_unique)
        args = (spec, [stripped[i] for i in chunk], ref_index, chunk_refs)
        job = sched.submit(task_chrf, args, (level_name, p.name), pool)
        sched.char_rows.add(job, [key_of[int(i)] for i in chunk])
    return keys


def _dispatch_word_blocks(plan: LevelPlan, split: list[MetricPlan], sched: Scheduler, pool) -> tuple[Rows, int]:
    """Word blocks of the largest word order, for every pair any chrF+/chrF++ plan needs; (rows, row width)."""
    word_rows = Rows()
    with_words = [p for p in split if p.metric.word_order > 0]
    if not with_words:
        return word_rows, 0
    top = max(with_words, key=lambda p: p.metric.word_order)
    word_spec = _chrf_spec(top.metric, 0, top.metric.word_order)
    union = sorted({i for p in with_words for i in p.todo})
    for chunk in chunks(union, plan.ref_ids, pool is not None):
        ref_index, chunk_refs = local_refs(chunk, plan.ref_ids, plan.unique_refs)
        args = (word_spec, [plan.hyps[i] for i in chunk], ref_index, chunk_refs)
        job = sched.submit(task_chrf, args, (plan.name, top.name), pool)
        word_rows.add(job, [int(i) for i in chunk])
    return word_rows, 3 * word_spec[1]


def _chrf_statistics(
    p: MetricPlan, char_keys: list[tuple], char_rows: Rows, word_rows: Rows, word_width: int
) -> np.ndarray:
    """chrF statistics of the plan's pairs: character blocks, then the first 3·word_order word columns."""
    chars = char_rows.gather(char_keys, 3 * p.metric.char_order)
    if p.metric.word_order == 0:
        return chars
    words = word_rows.gather(p.todo, word_width)
    return np.hstack([chars, words[:, : 3 * p.metric.word_order]])


def merge_rows(
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
class ScoredCell:
    """One level × metric after the score stage.

    Attributes:
        cell: segment and system scores, signature, direction (what collect and meta-evaluate use).
        stats: ``(systems, segments, k)`` statistics, NaN where a system lacks the segment or the pair is unscored.
        metric: the metric instance that computed them.
        seconds: this process's seconds on the cell, time spent waiting for worker processes excluded.
        unscored: ``(u, 2)`` (system index, segment index) of the pairs that have a hypothesis but that the metric
            left unscored (a statistics row or segment score not finite, e.g. CharacTER's length guard), in
            (system, segment) order; they are missing segments from here on.
        n_pairs: the number of pairs with a hypothesis.
    """

    cell: Cell
    stats: np.ndarray
    metric: Metric
    seconds: float
    unscored: np.ndarray
    n_pairs: int

    def unscored_note(self, systems: Sequence[str], seg_ids: Sequence[str], shown: int = 3) -> str:
        """The run's note on the unscored pairs (empty without any): how many, why (the metric's
        :meth:`~korean_eval.metrics.Metric.unscored_reason`) and the first ``shown`` as (system, segment id), e.g.
        ``CharacTER@jamo: 3 of 48,000 pairs not scored (a side longer than 1,500 tokens; option max_tokens); first:
        sys3 seg 17, sys3 seg 40, sys5 seg 2``."""
        if not len(self.unscored):
            return ""
        first = ", ".join(f"{systems[s]} seg {seg_ids[i]}" for s, i in self.unscored[:shown])
        more = ", …" if len(self.unscored) > shown else ""
        return (
            f"{self.metric.info.label}@{self.cell.level}: {len(self.unscored):,} of {self.n_pairs:,} pairs not scored "
            f"({self.metric.unscored_reason()}); first: {first}{more}"
        )


def _pair_rows(plan: LevelPlan, p: MetricPlan, source: StatisticsSource | None, cache: NullCache):
    """(statistics, segment scores) of every pair of the level: cached rows merged with the newly computed ones,
    which are stored in the cache."""
    if not len(plan.keys):
        return np.zeros((0, 0)), np.zeros(0)
    if not p.todo:
        return p.stats, p.scores
    assert source is not None
    new_stats = source()
    new_scores = p.metric.segment_scores(new_stats)
    cache.put_stats(p.key, zip([plan.keys[i] for i in p.todo], new_stats, new_scores, strict=True))
    return merge_rows(plan.keys, p.found, p.stats, p.scores, p.todo, new_stats, new_scores)


def score_cell(
    plan: LevelPlan, p: MetricPlan, source: StatisticsSource | None, shape: tuple[int, int], n_refs: int,
    cache: NullCache, sched: Scheduler,
) -> ScoredCell:
    """Gather the statistics of one level × metric and compute its segment scores (one per pair) and system scores
    (the metric's corpus score of each system's statistics over its present segments; NaN without any)."""
    start, waited = time.perf_counter(), sched.waited
    stats, scores = _pair_rows(plan, p, source, cache)
    k = stats.shape[1] if stats.size else 1
    stats_cube = np.full((*shape, k), np.nan)
    seg_mat = np.full(shape, np.nan)
    pos = plan.positions
    scored = np.isfinite(scores) & np.isfinite(stats).all(axis=1)  # an unscored pair becomes a missing segment
    if len(pos):
        stats_cube[pos[scored, 0], pos[scored, 1]] = stats[scored]
        seg_mat[pos[scored, 0], pos[scored, 1]] = scores[scored]
    unscored = pos[~scored]
    unscored = unscored[np.lexsort((unscored[:, 1], unscored[:, 0]))]
    sys_scores = p.metric.system_scores(stats_cube, np.isfinite(seg_mat))
    signature = f"{p.metric.signature(n_refs)}|level:{plan.level.version()}"
    seconds = (time.perf_counter() - start) - (sched.waited - waited)
    cell = Cell(plan.name, p.name, seg_mat, sys_scores, signature, p.metric.info.higher_is_better)
    return ScoredCell(cell, stats_cube, p.metric, seconds, unscored, len(pos))
