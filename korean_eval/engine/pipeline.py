"""Orchestration: EvalSet + settings → tidy result tables (docs/design.md §2), with progress callbacks and caching.

The pipeline is five named stages, each a function with explicit inputs and outputs:

1. plan (:mod:`korean_eval.engine.planning`): the levels, their work order and every text (:func:`plan_run`); per level,
   after tokenising, the (system, segment) pairs as tokens and, per metric, the cached statistics and the pairs
   still to compute (:func:`plan_level`);
2. tokenise (:mod:`korean_eval.engine.tokenise_stage`): every distinct text (references shared by all systems) once per level, cached by
   text hash, level and library version;
3. score (:mod:`korean_eval.engine.scoring`): per-segment statistics of every pair that has a hypothesis (cached by token
   hash and metric options), started as soon as a level is planned (:func:`dispatch_level`) and gathered per
   level × metric (:func:`score_cell`); segment scores come from each segment's statistics, system scores from
   statistics summed over the system's segments;
4. collect (:mod:`korean_eval.engine.collect`): the tidy rows of segment and system scores;
5. meta-evaluate (:func:`meta_evaluate_cell`): correlations with the human scores, rankings, flipped pairs.

The stages interleave per level, so that the worker processes never wait: each level is planned and its scoring started as
soon as it is tokenised; then per level × metric, in the configured order, score → collect → meta-evaluate, while
the workers go on with the next cells. Nothing here touches a UI: progress is reported through
``progress(fraction, message)``.

Speed without changing a number (docs/design.md §2; benchmarks/README.md, "What makes it fast"): every statistic
is computed by sacrebleu's own code or the registered metric's, cached (:mod:`korean_eval.engine.cache`,
:mod:`korean_eval.engine.result_store`), and, in runs with at least
:data:`korean_eval.engine.workers.PARALLEL_MIN_PAIRS` pairs to compute, spread over worker processes
(``EvalConfig.jobs``, default all cores): they tokenise every level of
:attr:`~korean_eval.levels.base.TokenLevel.in_workers` — all but SentencePiece, which this process tokenises; Kiwi in a
worker of its own — compute each level's statistics in chunks (the fast TER included) and meta-evaluate each cell
(:func:`task_meta_evaluate`), while this process plans, assembles and writes. Chunks are cut by the data alone and
BLAS runs on one thread, so the tables do not depend on the executor. The workers are *spawned*, so a script that calls :func:`evaluate`
on a large input must guard its entry point with ``if __name__ == "__main__":`` (Python's rule for process pools;
the CLI and the dashboard do); inside a worker no further pool is ever started.

``Results.timings``: tokenise = wall seconds per level (a level tokenised by a worker: its tokenizer seconds);
score = CPU seconds of the cell's worker tasks + seconds in this process; meta = seconds of collecting the cell here
+ CPU seconds of its meta-evaluation task. Stages overlap, so they sum to more than the wall time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from korean_eval.engine.blas_threads import one_blas_thread, pin_blas_threads
from korean_eval.engine.cache import NullCache
from korean_eval.engine.collect import (
    Cell,
    CellRows,
    collect_cell,
    segment_table,
    system_table,
    timing_table,
    token_stats_row,
)
from korean_eval.engine.held_writes import held_writes
from korean_eval.engine.human_side import HumanScores, human_notes, human_scores, human_system_table
from korean_eval.engine.planning import (
    LevelPlan,
    RunPlan,
    TokenisedLevel,
    plan_level,
    plan_run,
)
from korean_eval.engine.progress import Progress, Ticker
from korean_eval.engine.result_store import store_result, stored_evaluation
from korean_eval.engine.scoring import ScoredCell, StatisticsSource, dispatch_level, score_cell
from korean_eval.engine.stopping import StopSignal, check_stop
from korean_eval.engine.tokenise_stage import tokenise
from korean_eval.engine.workers import (
    Job,
    Scheduler,
    make_scheduler,
)
from korean_eval.metaeval.tables import tidy
from korean_eval.metaeval.tables.human_ceiling import run_ceiling
from korean_eval.metrics import declaration, metric_names
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet
from korean_eval.model.results import GIVEN_LEVEL, Results, higher_is_better


def evaluate(
    evalset: EvalSet,
    config: EvalConfig | None = None,
    progress: Progress | None = None,
    cache: NullCache | None = None,
    stop: StopSignal | None = None,
) -> Results:
    """Run the whole pipeline on ``evalset``; see the module docstring.

    With a persistent cache, an evaluation already computed with the same data, settings, token-level versions
    and package source is loaded instead of recomputed (``cache.store_results = False`` turns that off).

    ``progress(fraction, message)`` is called as the work advances, within a level as its chunks are tokenised and
    within a cell as its tasks finish (:mod:`korean_eval.engine.progress`). ``stop`` (a :class:`threading.Event`
    or anything with ``is_set()``) is checked between tasks and chunks: once set, the run cancels its queued tasks
    and raises :class:`~korean_eval.engine.stopping.EvaluationStopped`, as it does when ``progress`` raises it;
    a stopped run keeps in the cache what it finished, never a result; a failed one keeps nothing
    (:mod:`korean_eval.engine.held_writes`).
    """
    config = config or EvalConfig()
    cache = cache or NullCache()
    check_stop(stop)
    stored, key = stored_evaluation(evalset, config, cache)
    if stored is not None:
        Ticker(progress, 1).report("done (stored result of an identical evaluation)", 1.0)
        return stored
    with held_writes(cache) as held:
        with one_blas_thread():
            results = run_stages(evalset, config, progress, held, stop)
        if key is not None and cache.enabled:
            results.result_key = key
            store_result(held, key, results)
    results.notes = results.notes + ([cache.problem] if cache.problem else [])
    return results


# ---- the stage runner ------------------------------------------------------------------------------------------


@dataclass
class StartedLevel:
    """One level after the tokenise stage: its tokens and ``token_stats`` row, the plan of its pairs, and the
    sources of its statistics (the work already started)."""

    tokenised: TokenisedLevel
    token_stats: dict
    plan: LevelPlan
    sources: list[StatisticsSource | None]


@dataclass
class FinishedCell:
    """One cell after the collect stage, its meta-evaluation started (a task: :func:`task_meta_evaluate`); seconds:
    this process's wall seconds on both."""

    cell: Cell
    rows: CellRows
    job: Job
    seconds: float

    @property
    def evaluation(self) -> CellMeta:
        """The cell's meta-evaluation (waits for its task)."""
        return self.job.result()


def run_stages(
    evalset: EvalSet, config: EvalConfig, progress: Progress | None, cache: NullCache, stop: StopSignal | None = None
) -> Results:
    """plan → tokenise → score → collect → meta-evaluate, interleaved per level (see the module docstring)."""
    run = plan_run(evalset, config)  # 1. plan
    ticker = Ticker(progress, run.steps, stop)
    # the scheduler holds a lease on the pools for the run and cancels its queued tasks when the run stops early;
    # while the run waits for a task, the ticker reports its progress and checks the stop signal
    with make_scheduler(config) as sched:
        sched.watch = ticker.watch
        return _run_stages(run, evalset, config, ticker, cache, sched)


def _run_stages(
    run: RunPlan, evalset: EvalSet, config: EvalConfig, ticker: Ticker, cache: NullCache, sched: Scheduler
) -> Results:
    """The stages of :func:`run_stages` on ``sched``."""
    humans = human_scores(evalset, config)
    # 2. tokenise, each level planned and its scoring started as soon as it is tokenised
    started = tokenise_and_start_scoring(run, evalset, config, cache, sched, ticker)
    # 3.-5. per level × metric: score → collect → meta-evaluate; then the user's own scores: collect → meta-evaluate
    meta_pool = sched.pool(evalset.system_pairs())
    per_level = [score_level(started[lv], evalset, config, cache, sched, humans, ticker, meta_pool)
                 for lv in run.levels]
    given, notes = given_cells(evalset, config)
    finished = [f for cells in per_level for _, f in cells]
    finished += [finish_cell(cell, evalset, humans, config, sched, meta_pool) for cell in given]
    if finished:
        ticker.track("meta-evaluation", [f.job for f in finished], "cells")
    else:
        ticker.report("meta-evaluation")
    for f in finished:  # every cell's meta-evaluation back, in cell order
        f.evaluation  # noqa: B018
    notes = [started[lv].tokenised.fallback_note for lv in run.levels if started[lv].tokenised.fallbacks] + notes
    notes += human_notes(evalset)
    scored = [[s for s, _ in cells] for cells in per_level]
    notes += [n for cells in scored for s in cells if (n := s.unscored_note(evalset.system_names, evalset.seg_ids))]
    results = assemble(evalset, run, started, scored, finished, sched.seconds, humans, config, notes)
    ticker.report("done", 1.0)
    return results


def tokenise_and_start_scoring(
    run: RunPlan, evalset: EvalSet, config: EvalConfig, cache: NullCache, sched: Scheduler, ticker: Ticker
) -> dict[str, StartedLevel]:
    """Tokenise every level; as soon as a level is tokenised, plan its pairs and start its statistics work."""
    started: dict[str, StartedLevel] = {}
    for tokenised in tokenise(run, evalset, config, cache, sched, ticker):
        token_stats = token_stats_row(tokenised, run.texts, run.words)
        plan = plan_level(tokenised.name, tokenised.level, tokenised.tokens, evalset, config, cache)
        sources = dispatch_level(plan, evalset.n_refs, config, sched)
        started[tokenised.name] = StartedLevel(tokenised, token_stats, plan, sources)
    return started


def score_level(
    level: StartedLevel, evalset: EvalSet, config: EvalConfig, cache: NullCache, sched: Scheduler,
    humans: HumanScores, ticker: Ticker, meta_pool=None,
) -> list[tuple[ScoredCell, FinishedCell]]:
    """Score → collect → start the meta-evaluation of each of the level's cells, in the configured metric order."""
    shape = (len(evalset.system_names), len(evalset.seg_ids))
    out = []
    for p, source in zip(level.plan.metrics, level.sources, strict=True):
        label = f"scoring {p.name} at level {level.plan.name}"
        if source is not None and len(source.jobs) > 1:
            ticker.track(label, source.jobs, "tasks done")
        else:
            ticker.report(label)
        scored = score_cell(level.plan, p, source, shape, evalset.n_refs, cache, sched)
        out.append((scored, finish_cell(scored.cell, evalset, humans, config, sched, meta_pool)))
        ticker.advance()
    return out


def finish_cell(
    cell: Cell, evalset: EvalSet, humans: HumanScores, config: EvalConfig, sched: Scheduler, pool=None
) -> FinishedCell:
    """The collect stage of one cell, and its meta-evaluation handed to ``pool`` (None: run here when needed)."""
    start = time.perf_counter()
    rows = collect_cell(cell, evalset.system_names, evalset.seg_ids)
    job = sched.submit(task_meta_evaluate, (cell, evalset.system_names, humans, config),
                       ("meta", cell.level, cell.metric), pool)
    return FinishedCell(cell, rows, job, time.perf_counter() - start)


def task_meta_evaluate(cell: Cell, systems: list[str], humans: HumanScores, config: EvalConfig):
    """:func:`meta_evaluate_cell` as a task (one BLAS thread); (its result, CPU seconds)."""
    start = time.process_time()
    pin_blas_threads()
    return meta_evaluate_cell(cell, list(systems), humans, config), time.process_time() - start


def assemble(
    evalset: EvalSet, run: RunPlan, started: dict[str, StartedLevel], scored: list[list[ScoredCell]],
    finished: list[FinishedCell], worker_seconds: dict, humans: HumanScores, config: EvalConfig, notes: list[str],
) -> Results:
    """The :class:`Results` of the stages' outputs (``scored``: per level, its cells), every table in cell order."""
    metas = [f.evaluation for f in finished]
    timings = timing_table(
        [(lv, started[lv].tokenised.seconds) for lv in run.levels],
        [[(s.cell.level, s.cell.metric, s.seconds) for s in cells] for cells in scored],
        [(f.cell.level, f.cell.metric, f.seconds + worker_seconds.get(("meta", f.cell.level, f.cell.metric), 0.0))
         for f in finished],
        worker_seconds,
    )
    cells = [s for level_cells in scored for s in level_cells]
    ceiling, ceiling_notes = run_ceiling(evalset.human_ratings, evalset.system_names, evalset.seg_ids, config.as_dict())
    return Results(
        segment_scores=segment_table([f.rows for f in finished]),
        system_scores=system_table([f.rows for f in finished]),
        correlations=correlation_table([r for m in metas for r in m.correlations], config),
        rankings=pd.DataFrame([r for m in metas for r in m.rankings], columns=tidy.RANKING_COLUMNS),
        flips=pd.DataFrame([r for m in metas for r in m.flips], columns=tidy.FLIP_COLUMNS),
        human_systems=human_system_table(evalset.system_names, humans),
        token_stats=pd.DataFrame([started[lv].token_stats for lv in run.levels]),
        timings=timings,
        systems=evalset.system_names,
        seg_ids=evalset.seg_ids,
        stats={(s.cell.level, s.cell.metric): s.stats for s in cells},
        metrics={(s.cell.level, s.cell.metric): s.metric for s in cells},
        segment_matrices={(f.cell.level, f.cell.metric): f.evaluation.matrix for f in finished},
        human_matrix=humans.matrix,
        human_system=humans.system_means if humans.declared else None,
        settings=config.as_dict(),
        notes=notes + ceiling_notes,
        tokens={lv: started[lv].tokenised.tokens for lv in run.levels},
        human_ratings=evalset.human_ratings,
        human_ceiling=ceiling,
        spans=evalset.spans,
    )


# ---- meta-evaluate ---------------------------------------------------------------------------------------------


@dataclass
class CellMeta:
    """One cell's meta-evaluation.

    Attributes:
        matrix: the segment scores the correlations use (TER capped at 100 when ``EvalConfig.ter_cap``).
        correlations, rankings, flips: its rows of the ``correlations``, ``rankings`` and ``flips`` tables.
    """

    matrix: np.ndarray
    correlations: list[dict]
    rankings: list[dict]
    flips: list[dict]


def meta_evaluate_cell(cell: Cell, systems: list[str], humans: HumanScores, config: EvalConfig) -> CellMeta:
    """Correlations of the cell's scores with the human scores, its ranking of the systems and its flipped pairs
    (docs/design.md §5)."""
    level, name, sys_scores, hib = cell.level, cell.metric, cell.system_scores, cell.higher_is_better
    human, human_sys = humans.matrix, humans.system_means
    seg_mat = cell.segment_scores
    cap = declaration(name).correlation_cap if config.ter_cap and name in metric_names() else None
    corr_mat = np.minimum(seg_mat, cap) if cap is not None else seg_mat
    correlations = tidy.correlation_rows(
        level, name, corr_mat, human, sys_scores, config.statistics, config.groupings, config.replace_nans_with_zeros,
        human_sys,
    )
    if np.isfinite(human).any():
        correlations += tidy.pairwise_rows(level, name, corr_mat, human, sys_scores, hib, humans.pairwise, human_sys)
    return CellMeta(
        corr_mat,
        correlations,
        tidy.ranking_rows(level, name, systems, sys_scores, human_sys, hib),
        tidy.flipped_pairs(level, name, systems, sys_scores, human_sys, hib),
    )


def given_cells(evalset: EvalSet, config: EvalConfig) -> tuple[list[Cell], list[str]]:
    """The user's own metric scores (level ``given``) as cells, and a note on unknown lower-is-better names."""
    if evalset.given is None:
        return [], []
    systems, seg_ids = evalset.system_names, evalset.seg_ids
    cells = []
    for name, (mat, sys_scores) in tidy.given_system_scores(evalset.given, systems, seg_ids).items():
        hib = higher_is_better(name, GIVEN_LEVEL, config.given_lower_is_better)
        direction = "higher is better" if hib else "lower is better"
        signature = f"given|system score = mean of segment scores|{direction}"
        cells.append(Cell(GIVEN_LEVEL, name, mat, sys_scores, signature, hib))
    unknown = sorted(set(config.given_lower_is_better) - set(evalset.given["metric"]))
    notes = [f"lower-is-better metric(s) not among your metric scores: {', '.join(unknown)}"] if unknown else []
    return cells, notes


def correlation_table(rows: list[dict], config: EvalConfig) -> pd.DataFrame:
    """The ``correlations`` table with each row's metric direction."""
    correlations = pd.DataFrame(rows, columns=tidy.CORRELATION_COLUMNS)
    correlations["higher_is_better"] = np.array(
        [
            higher_is_better(m, lv, config.given_lower_is_better)
            for lv, m in zip(correlations["level"], correlations["metric"], strict=True)
        ],
        dtype=bool,
    )
    return correlations

