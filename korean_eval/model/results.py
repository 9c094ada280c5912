"""The result of one evaluation (:class:`Results`: the tidy tables plus the arrays the statistics need) and the one
rule that decides a metric's direction (:func:`higher_is_better`)."""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from korean_eval.metrics import Metric, metric_info, metric_names

if TYPE_CHECKING:
    from korean_eval.model.evalset import EvalSet

GIVEN_LEVEL = "given"  # the level of the user's own metric scores (computed elsewhere, e.g. COMET)
#: The tables that compare the metrics with human scores: not exported for a run without any (they would hold only
#: empty human columns); the ranking checks (``system_ranking.csv``, ``metric_pairs.csv``, ``order_splits.csv``)
#: need none.
HUMAN_TABLES = ("correlations.csv", "rankings.csv", "flipped_pairs.csv", "human_systems.csv")
NO_HUMAN_NOTE = ("no human scores: " + ", ".join(HUMAN_TABLES) + " (comparisons with humans) are not written; "
                 "system_ranking.csv, metric_pairs.csv and order_splits.csv hold the ranking checks")



@dataclass
class Results:
    """The tidy tables of one evaluation (docs/design.md §2) plus what the statistics layer needs.

    ``human_system``: system-level human scores given directly (in ``systems`` order, NaN where missing), which
    the system level uses instead of the means of ``human_matrix``'s rows; None when there are none
    (:func:`korean_eval.metaeval.tables.configs.human_system_scores` reads either).

    ``human_ratings``: the judgments behind the human scores when several raters or rater groups gave them
    (``EvalSet.human_ratings``), else None; ``human_ceiling``: their agreement with each other, with the metrics'
    statistics (:func:`korean_eval.metaeval.tables.human_ceiling.human_ceiling`, without intervals; the statistics stage adds
    them), else None; ``spans``: the error spans of the ratings (``EvalSet.spans``), else None.

    ``statistics``: the tables of the statistics stage and beside it by file name (``significance.csv``,
    ``clusters.csv``, ``system_pairs.csv``, …; :func:`korean_eval.engine.statistics.evaluation_tables`), filled by
    :func:`korean_eval.evaluate`; ``evalset``: the evaluation set it was computed from, where known."""

    segment_scores: pd.DataFrame
    system_scores: pd.DataFrame
    correlations: pd.DataFrame
    rankings: pd.DataFrame
    flips: pd.DataFrame
    human_systems: pd.DataFrame
    token_stats: pd.DataFrame
    timings: pd.DataFrame
    systems: list[str]
    seg_ids: list[str]
    stats: dict[tuple[str, str], np.ndarray]
    metrics: dict[tuple[str, str], Metric]
    segment_matrices: dict[tuple[str, str], np.ndarray]
    human_matrix: np.ndarray
    settings: dict
    notes: list[str] = field(default_factory=list)
    tokens: dict[str, dict[str, str]] = field(default_factory=dict)
    human_system: np.ndarray | None = None
    human_ratings: pd.DataFrame | None = None
    human_ceiling: pd.DataFrame | None = None
    spans: pd.DataFrame | None = None
    statistics: dict[str, pd.DataFrame] = field(default_factory=dict)
    statistics_meta: dict = field(default_factory=dict)
    evalset: EvalSet | None = None
    result_key: str = ""  # the key it is stored under in the cache (korean_eval.engine.result_store); "" when not stored

    @property
    def significance(self) -> pd.DataFrame | None:
        """The paired significance tests of every pair of configurations (``significance.csv``), if computed."""
        return self.statistics.get("significance.csv")

    @property
    def clusters(self) -> pd.DataFrame | None:
        """The configurations' rank clusters by those tests (``clusters.csv``), if computed."""
        return self.statistics.get("clusters.csv")

    @property
    def system_pairs(self) -> pd.DataFrame | None:
        """Each configuration's verdict on every pair of systems against the humans' (``system_pairs.csv``)."""
        return self.statistics.get("system_pairs.csv")

    @property
    def system_ranking(self) -> pd.DataFrame | None:
        """Each configuration's systems best first with intervals and significance clusters
        (``system_ranking.csv``; :mod:`korean_eval.metaeval.tables.system_ranking`), if computed."""
        return self.statistics.get("system_ranking.csv")

    @property
    def metric_pairs(self) -> pd.DataFrame | None:
        """sacrebleu's paired bootstrap and approximate randomization between every two systems under every
        configuration (``metric_pairs.csv``), if computed."""
        return self.statistics.get("metric_pairs.csv")

    @property
    def order_splits(self) -> pd.DataFrame | None:
        """How the configurations divide over each pair of systems (``order_splits.csv``), if computed."""
        return self.statistics.get("order_splits.csv")

    def to_csv(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write every table, as ``korean-eval run --out`` does, and ``run.json`` into ``out_dir``; returns the
        paths written."""
        from korean_eval.exports.csv_zip import write_tables

        return write_tables(self, out_dir, self.evalset, self.statistics, self.statistics_meta)

    def higher_is_better(self, metric: str, level: str | None = None) -> bool:
        """Whether a higher score of ``metric`` (at ``level``) is better: see :func:`higher_is_better`."""
        return higher_is_better(metric, level, self.settings.get("given_lower_is_better", ()))

    def signatures(self) -> dict[str, str]:
        """``"level/metric"`` → signature of its system scores."""
        df = self.system_scores.drop_duplicates(["level", "metric"])
        return {f"{r.level}/{r.metric}": r.signature for r in df.itertuples()}


def higher_is_better(metric: str, level: str | None, given_lower_is_better: Collection[str] = ()) -> bool:
    """Direction of a metric: the registry's for computed metrics; for the user's own scores (level ``given``, or
    an unregistered name when ``level`` is None) False exactly when listed in ``given_lower_is_better``."""
    if level == GIVEN_LEVEL or (level is None and metric not in metric_names()):
        return metric not in given_lower_is_better
    return metric_info(metric).higher_is_better if metric in metric_names() else True


def has_human_scores(results: Results) -> bool:
    """Whether ``results`` has a human score at the segment or the system level."""
    h = np.asarray(results.human_matrix, dtype=np.float64)
    given = results.human_system is not None and bool(np.isfinite(np.asarray(results.human_system, float)).any())
    return given or (h.size > 0 and bool(np.isfinite(h).any()))
