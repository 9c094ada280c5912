"""The Python API: one call from plain Python data (or files) to every table of an evaluation.

``evaluate`` takes references, system outputs and optional human scores as lists of strings, a dict of system
name → lines, a DataFrame, or paths of files in the formats of docs/design.md §4; it runs the same pipeline and
statistics as ``korean-eval run`` and returns :class:`~korean_eval.model.results.Results`, whose tidy tables
(``system_scores``, ``segment_scores``, ``correlations``, ``rankings``, ``significance``, ``clusters``,
``system_pairs``) are the CLI's CSV files and whose :meth:`~korean_eval.model.results.Results.to_csv` writes them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from korean_eval.engine.cache import open_cache
from korean_eval.engine.held_writes import held_writes
from korean_eval.engine.progress import pipeline_share, scaled
from korean_eval.engine.statistics import StatisticsSettings, evaluation_tables
from korean_eval.engine.stopping import StopSignal
from korean_eval.inputs.mtme.files import open_tree
from korean_eval.inputs.mtme.load import MtmeLoaded, MtmeOptions
from korean_eval.inputs.mtme.load import load_mtme as load_mtme_tree
from korean_eval.inputs.tables import attach_human
from korean_eval.inputs.text_files import InputError
from korean_eval.levels.registry import LevelChoice, choose_levels
from korean_eval.model import defaults
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet, evalset_from_texts
from korean_eval.model.results import Results

PathLike = str | os.PathLike[str]
Lines = Sequence[str]

__all__ = ["evaluate", "load_mtme", "load_texts"]


def load_texts(
    references: PathLike | Lines | Sequence[PathLike] | Sequence[Lines],
    systems: Mapping[str, PathLike | Lines] | PathLike,
    sources: PathLike | Lines | None = None,
) -> EvalSet:
    """An evaluation set from line-aligned texts, read by the rules of docs/design.md §4.

    Args:
        references: one reference (a file path or a list of segments) or several (a list of paths or of lists).
        systems: system name → its output (a file path or a list of segments), or a folder of ``*.txt`` files
            (name = file stem).
        sources: the source segments (path or list), optional.

    Returns:
        The validated :class:`~korean_eval.model.evalset.EvalSet`; ``seg_id`` is the 0-based line number.

    Raises:
        InputError: a file cannot be read, the texts are not line-aligned, a segment holds a line break.
    """
    refs = [_named_bytes(r, f"reference {i + 1}") for i, r in enumerate(_reference_list(references))]
    if isinstance(systems, str | os.PathLike):
        folder = Path(systems)
        if not folder.is_dir():
            raise InputError(str(folder), "is not a folder of system outputs (*.txt)")
        files = sorted(folder.glob("*.txt"))
        if not files:
            raise InputError(str(folder), "holds no *.txt system outputs")
        names = [p.stem for p in files]
        sys_data = [(p.name, p.read_bytes()) for p in files]
    else:
        names = list(systems)
        sys_data = [_named_bytes(v, name) for name, v in systems.items()]
    src = _named_bytes(sources, "sources") if sources is not None else None
    return evalset_from_texts(refs, sys_data, system_names=names, src=src)


def load_mtme(folder: PathLike, lp: str | None = None, **options) -> MtmeLoaded:
    """One language pair of a folder (or zip) in mt-metrics-eval's layout (docs/design.md §4).

    Args:
        folder: the folder or zip archive.
        lp: the language pair, e.g. ``"en-ko"`` (None: the only one).
        **options: further :class:`~korean_eval.inputs.mtme.load.MtmeOptions` fields (``test_set``, ``human``,
            ``metrics``, ``references``, …).

    Returns:
        :class:`~korean_eval.inputs.mtme.load.MtmeLoaded`: its ``evalset`` (texts, human scores, the folder's
        metric scores as level ``given``) goes to :func:`evaluate`, its ``lower_is_better`` to the
        ``given_lower_is_better`` setting.
    """
    return load_mtme_tree(open_tree(folder), MtmeOptions(lp=lp, **options))


def evaluate(
    references: PathLike | Lines | Sequence[PathLike] | Sequence[Lines] | EvalSet,
    systems: Mapping[str, PathLike | Lines] | PathLike | None = None,
    human: pd.DataFrame | PathLike | None = None,
    *,
    sources: PathLike | Lines | None = None,
    levels: Sequence[str] | str = defaults.LEVELS,
    metrics: Sequence[str] = defaults.METRICS,
    resamples: int = defaults.RESAMPLES,
    seed: int = defaults.SEED,
    statistic: str = "pearson",
    ar_trials: int = defaults.AR_TRIALS,
    cache: bool | PathLike = False,
    progress: Callable[[float, str], None] | None = None,
    stop: StopSignal | None = None,
    **settings,
) -> Results:
    """Score every system at every token level with every metric, and meta-evaluate the metrics against the humans.

    Args:
        references: see :func:`load_texts`; or an :class:`~korean_eval.model.evalset.EvalSet` already loaded
            (e.g. by :func:`load_mtme`), when ``systems`` is None.
        systems: see :func:`load_texts`.
        human: per-item human scores, ``system, seg_id, score`` (+ ``rater``): a DataFrame or a CSV/TSV/JSONL
            path. Several rows of one item are averaged.
        levels: token levels (``korean_eval.levels.registry.level_names()``), or ``"all"`` for the study's grid
            (every level but khaiii; one that cannot run here is left out with a note in ``Results.notes``).
        metrics: metric names (``korean_eval.metrics.metric_names()``).
        resamples: bootstrap resamples and permutations of the statistics (0: no intervals or tests).
        seed: seed of every resampling.
        statistic: the correlation the significance tests and clusters compare.
        ar_trials: approximate-randomization trials of the system-pair tests (sacrebleu's ``--paired-ar``; 0: the
            paired bootstrap alone).
        cache: False (nothing stored), True (the user's cache folder) or a folder: stored tokens, statistics and
            results make a rerun with identical data and settings load instead of compute.
        progress: called with (fraction done, message) as the work advances: within a token level as its texts
            are tokenised ("tokenising at level komoran: 3,400 of 8,800 texts"), within a metric and the
            statistics as their tasks finish, and at least every half second while work runs; the fraction never
            decreases.
        stop: a :class:`threading.Event` (or anything with ``is_set()``) that stops the run once set: checked
            between tasks and chunks, it makes ``evaluate`` cancel the run's queued tasks and raise
            :class:`~korean_eval.engine.stopping.EvaluationStopped` (``korean_eval.EvaluationStopped``); the
            cache keeps what the stopped run finished (tokens, statistics), never a result.
        **settings: further :class:`~korean_eval.model.config.EvalConfig` fields (``overrides``, ``ter_cap``,
            ``jobs``, ``scheduler``, …).

    Returns:
        :class:`~korean_eval.model.results.Results` with the statistics' tables attached when ``resamples`` > 0:
        the comparisons with humans when there are human scores, the ranking checks (``system_ranking``,
        ``metric_pairs``, ``order_splits``) whenever there are two systems or more.

    Raises:
        EvaluationStopped: ``stop`` was set (or ``progress`` raised it) before the run finished.
    """
    if isinstance(references, EvalSet):
        if systems is not None:
            raise TypeError("give systems with texts, not with an EvalSet (it has its systems)")
        evalset = references
    else:
        if systems is None:
            raise TypeError("evaluate() needs systems: a dict of name → lines or paths, or a folder")
        evalset = load_texts(references, systems, sources)
    if human is not None:
        name, data = _human_bytes(human)
        attach_human(evalset, data, name)
    names = [levels] if isinstance(levels, str) else list(levels)
    choice = choose_levels(names) if names else LevelChoice(())
    config = EvalConfig(levels=choice.levels, metrics=tuple(metrics), seed=seed, **settings)
    store = open_cache(None if cache is True else cache, enabled=cache is not False)
    from korean_eval.engine.pipeline import evaluate as run_pipeline

    share = pipeline_share(resamples, evalset)
    with held_writes(store) as held:  # written when the run finishes; a stopped run keeps what it finished
        results = run_pipeline(evalset, config, progress=scaled(progress, 0.0, share), cache=held, stop=stop)
        results.notes.extend(choice.notes)
        results.statistics = evaluation_tables(results, evalset, StatisticsSettings(resamples, seed, statistic, ar_trials),
                                               held, config, scaled(progress, share, 1.0), stop)
    if store.problem and store.problem not in results.notes:  # a write that failed once the run finished
        results.notes.append(store.problem)
    results.statistics_meta = {"bootstrap": {"resamples": resamples, "seed": seed},
                               "approximate_randomization": {"trials": ar_trials, "seed": seed}}
    results.evalset = evalset
    return results


def _reference_list(references) -> list:
    if isinstance(references, str | os.PathLike):
        return [references]
    items = list(references)
    if items and all(isinstance(r, str) for r in items) and not all(_is_file(r) for r in items):
        return [items]  # one reference given as its segments
    return items


def _is_file(text: str) -> bool:
    return len(text) < 4096 and "\n" not in text and Path(text).is_file()


def _named_bytes(value: PathLike | Lines, name: str) -> tuple[str, bytes]:
    if isinstance(value, str | os.PathLike):
        path = Path(value)
        if not path.is_file():
            raise InputError(str(path), "is not a file")
        return path.name, path.read_bytes()
    lines = list(value)
    for i, line in enumerate(lines):
        if not isinstance(line, str):
            raise InputError(name, f"segment {i} is {type(line).__name__}, not text", line=i + 1)
        if "\n" in line or "\r" in line:
            raise InputError(name, f"segment {i} holds a line break; one segment is one line", line=i + 1)
    return name, ("\n".join(lines) + "\n").encode("utf-8")


def _human_bytes(human: pd.DataFrame | PathLike) -> tuple[str, bytes]:
    if isinstance(human, pd.DataFrame):
        return "human scores.csv", human.to_csv(index=False).encode("utf-8")
    path = Path(human)
    if not path.is_file():
        raise InputError(str(path), "is not a file")
    return path.name, path.read_bytes()
