"""Results as the pipeline builds them, made from random (matches, length) statistics of a minimal metric: for the
tests of the statistics applied to a Results, without running an evaluation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from korean_eval.metaeval.tables import tidy
from korean_eval.metrics.base import Metric, MetricInfo
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import GROUPINGS, STATISTICS


class _Ratio(Metric):
    """A minimal metric on statistics (matches, length): corpus score 100·Σmatches/Σlength; the error variant is
    100 minus that (lower is better)."""

    def __init__(self, name: str, error: bool = False) -> None:
        self.info = MetricInfo(name, name.upper(), "test", not error)
        self.error = error

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        return np.zeros((len(hyps), 2))

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return self.scores_from_sums(stats)

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        sums = np.asarray(sums, dtype=np.float64)
        score = 100.0 * sums[..., 0] / sums[..., 1]
        return 100.0 - score if self.error else score

    def signature(self, nrefs: int) -> str:
        return f"{self.info.name}|test"


def synthetic_results(
    n_systems: int = 4,
    n_items: int = 60,
    levels: Sequence[str] = ("word", "char"),
    metrics: Sequence[str] = ("ratio", "err"),
    missing: bool = True,
    human: bool = True,
    seed: int = 0,
) -> Results:
    """Results as the pipeline builds them, from (matches, length) statistics; the last system lacks ~30% of the
    segments (NaN statistics rows, NaN segment scores, no human score there); ``err`` is an error rate."""
    rng = np.random.default_rng(seed)
    systems = [f"S{s}" for s in range(n_systems)]
    seg_ids = [str(i) for i in range(n_items)]
    quality = np.linspace(0.3, 0.7, n_systems)[:, None] + 0.15 * rng.normal(size=(n_systems, n_items))
    present = np.ones((n_systems, n_items), dtype=bool)
    if missing:
        present[-1] = rng.random(n_items) > 0.3
    human_mat = np.where(present, quality + 0.2 * rng.normal(size=quality.shape), np.nan)
    if not human:
        human_mat[:] = np.nan
    corr_rows, sys_rows = [], []
    stats, objs, matrices = {}, {}, {}
    for level in levels:
        for name in metrics:
            metric = _Ratio(name, error=name.startswith("err"))
            length = rng.integers(5, 30, size=(n_systems, n_items)).astype(float)
            p = np.clip(quality + 0.2 * rng.normal(size=quality.shape), 0.01, 0.99)
            matches = rng.binomial(length.astype(int), p).astype(float)
            cube = np.stack([matches, length], axis=-1)
            cube[~present] = np.nan
            seg = np.where(present, metric.segment_scores(np.nan_to_num(cube, nan=1.0)), np.nan)
            sys_scores = np.array([metric.corpus_score(cube[s][present[s]]) for s in range(n_systems)])
            stats[(level, name)], objs[(level, name)], matrices[(level, name)] = cube, metric, seg
            corr_rows += tidy.correlation_rows(level, name, seg, human_mat, sys_scores, STATISTICS, GROUPINGS)
            sys_rows += [
                {"system": systems[s], "level": level, "metric": name, "score": sys_scores[s], "signature": "",
                 "n_segments": int(present[s].sum())}
                for s in range(n_systems)
            ]
    correlations = pd.DataFrame(corr_rows, columns=tidy.CORRELATION_COLUMNS)
    correlations["higher_is_better"] = [not m.startswith("err") for m in correlations["metric"]]
    empty = pd.DataFrame()
    return Results(
        segment_scores=empty,
        system_scores=pd.DataFrame(sys_rows),
        correlations=correlations,
        rankings=empty,
        flips=empty,
        human_systems=empty,
        token_stats=empty,
        timings=empty,
        systems=systems,
        seg_ids=seg_ids,
        stats=stats,
        metrics=objs,
        segment_matrices=matrices,
        human_matrix=human_mat,
        settings={},
    )
