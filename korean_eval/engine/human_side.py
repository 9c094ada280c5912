"""The human side of a run (docs/design.md §5): the human scores as the meta-evaluation uses them
(:func:`human_scores`), the ``human_systems`` table (:func:`human_system_table`) and the run's notes on them
(:func:`human_notes`). The human ceiling of several raters is :func:`korean_eval.metaeval.tables.human_ceiling.run_ceiling`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.correlation import system_means
from korean_eval.metaeval.stats.soft_pairwise import HumanPairwise, human_pairwise
from korean_eval.metaeval.tables import tidy
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet
from korean_eval.model.results import NO_HUMAN_NOTE

__all__ = ["HumanScores", "human_notes", "human_scores", "human_system_table"]


@dataclass(frozen=True)
class HumanScores:
    """The human scores as the meta-evaluation uses them: ``(systems, segments)`` matrix, per-system scores (the
    means of the matrix's rows, or the system-level scores given directly when ``declared``), and the human side of
    the soft pairwise accuracy (None when it is off or there are no human scores)."""

    matrix: np.ndarray
    system_means: np.ndarray
    pairwise: HumanPairwise | None = None
    declared: bool = False


def human_scores(evalset: EvalSet, config: EvalConfig) -> HumanScores:
    """``evalset``'s human scores as a :class:`HumanScores` (SPA's permutations: ``config.spa_permutations`` drawn
    with ``config.seed``)."""
    systems, seg_ids = evalset.system_names, evalset.seg_ids
    human = tidy.human_matrix(evalset.human, systems, seg_ids)
    declared = evalset.human_system is not None
    human_sys = tidy.declared_system_scores(evalset.human_system, systems) if declared else system_means(human)
    with_spa = config.spa_permutations > 0 and bool(np.isfinite(human).any())
    pairwise = human_pairwise(human, config.spa_permutations, config.seed) if with_spa else None
    return HumanScores(human, human_sys, pairwise, declared)


def human_notes(evalset: EvalSet) -> list[str]:
    """The run's notes on its human scores: none at all, or system-level scores given directly."""
    notes = []
    if evalset.human is None:
        notes.append(NO_HUMAN_NOTE)
    if evalset.human_system is not None:
        notes.append("system-level human scores are the ones given at system level (not the mean of segment scores):"
                     " system-level correlations, rankings and pairwise accuracy use them")
    return notes


def human_system_table(systems: list[str], humans: HumanScores) -> pd.DataFrame:
    """The ``human_systems`` table: each system's human score (``human_mean``: the mean over its scored segments, or
    the system-level score given directly), its rank and how many segments were scored."""
    human, human_sys = humans.matrix, humans.system_means
    return pd.DataFrame(
        {
            "system": systems,
            "human_mean": human_sys,
            "human_rank": tidy.rank(human_sys),
            "n_scored": np.isfinite(human).sum(axis=1),
        }
    )
