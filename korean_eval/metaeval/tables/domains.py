"""Results within each domain of an evaluation (docs/design.md §5): system scores and correlations computed on
one domain's segments only, next to the overall ones — what mt-metrics-eval's ``GetCorrelations(domain=…)``
reports.

For a domain D (the segments whose domain is D, in order):

* system scores: each system's corpus score from its statistics summed over D's segments it has
  (:meth:`korean_eval.metrics.base.Metric.system_scores`, the same rule as the overall system scores); your own
  metrics (level ``given``): the mean of their segment scores in D;
* human system scores: the per-domain system-level human scores given directly (an mt-metrics-eval ``domain``
  file) when there are, else each system's mean human score over its scored segments in D;
* correlations: exactly the rows the pipeline computes for a whole evaluation
  (:func:`korean_eval.metaeval.tables.tidy.correlation_rows`, :func:`korean_eval.metaeval.tables.tidy.pairwise_rows` with SPA's
  permutations drawn for D's items with the run's seed), on the columns of D. The segment matrices are the ones the
  overall correlations use (TER capped when the run capped it).

So every number equals what the pipeline gives for an evaluation set holding only D's segments (a test checks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.correlation import system_means
from korean_eval.metaeval.stats.soft_pairwise import human_pairwise
from korean_eval.metaeval.tables import tidy
from korean_eval.model.defaults import SEED
from korean_eval.model.results import Results

DOMAIN_SCORE_COLUMNS = ["domain", "system", "level", "metric", "score", "n_segments", "human_score"]


@dataclass
class DomainResults:
    """Per-domain system scores (``DOMAIN_SCORE_COLUMNS``) and correlations (``domain`` + the columns of
    ``Results.correlations``)."""

    system_scores: pd.DataFrame
    correlations: pd.DataFrame


def domain_results(
    results: Results, domains: Sequence[str], human_domain: pd.DataFrame | None = None
) -> DomainResults:
    """Per-domain results (see the module docstring). ``domains``: the domain of each segment, aligned with
    ``results.seg_ids``; ``human_domain``: per-domain system-level human scores ``domain, system, score`` or None.
    Domains are listed in sorted order (mt-metrics-eval's canonical order)."""
    if len(domains) != len(results.seg_ids):
        raise ValueError(f"{len(domains)} domains given for {len(results.seg_ids)} segments")
    labels = np.asarray([str(d) for d in domains], dtype=object)
    score_rows: list[dict] = []
    corr_rows: list[dict] = []
    for domain in sorted(set(labels)):
        columns = np.flatnonzero(labels == domain)
        scores, correlations = _one_domain(results, columns, _declared(human_domain, domain, results.systems))
        score_rows += [{"domain": domain, **r} for r in scores]
        corr_rows += [{"domain": domain, **r} for r in correlations]
    corr = pd.DataFrame(corr_rows, columns=["domain", *tidy.CORRELATION_COLUMNS])
    corr["higher_is_better"] = np.array(
        [results.higher_is_better(m, lv) for lv, m in zip(corr["level"], corr["metric"], strict=True)], dtype=bool
    )
    return DomainResults(pd.DataFrame(score_rows, columns=DOMAIN_SCORE_COLUMNS), corr)


def _declared(human_domain: pd.DataFrame | None, domain: str, systems: Sequence[str]) -> np.ndarray | None:
    if human_domain is None:
        return None
    rows = human_domain[human_domain["domain"].astype(str) == domain]
    return tidy.declared_system_scores(rows, systems) if len(rows) else None


def _configurations(results: Results) -> list[tuple[str, str]]:
    """(level, metric) of every cell, in the order of the system-score table."""
    keys = zip(results.system_scores["level"], results.system_scores["metric"], strict=True)
    return [k for k in dict.fromkeys(keys) if k in results.segment_matrices]


def _columns(values: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``values[:, columns]`` laid out in C order like a matrix built for those segments alone (numpy's sums
    depend on the memory layout, and the numbers must be those of a direct evaluation)."""
    return np.ascontiguousarray(np.asarray(values, dtype=np.float64)[:, columns])


def _one_domain(
    results: Results, columns: np.ndarray, declared: np.ndarray | None
) -> tuple[list[dict], list[dict]]:
    """System-score rows and correlation rows of the segments ``columns``."""
    settings = results.settings
    human = _columns(results.human_matrix, columns)
    human_sys = system_means(human) if declared is None else declared
    has_human = bool(np.isfinite(human).any())
    spa = int(settings.get("spa_permutations", 0))
    pairwise = human_pairwise(human, spa, int(settings.get("seed", SEED))) if spa > 0 and has_human else None
    score_rows, corr_rows = [], []
    for level, metric in _configurations(results):
        seg = _columns(results.segment_matrices[(level, metric)], columns)
        present = np.isfinite(seg)
        if (level, metric) in results.stats and (level, metric) in results.metrics:
            sys_scores = results.metrics[(level, metric)].system_scores(_columns(results.stats[(level, metric)], columns), present)
        else:
            sys_scores = system_means(seg)
        score_rows += [
            {"system": s, "level": level, "metric": metric, "score": float(sys_scores[i]),
             "n_segments": int(present[i].sum()), "human_score": float(human_sys[i])}
            for i, s in enumerate(results.systems)
        ]
        corr_rows += tidy.correlation_rows(
            level, metric, seg, human, sys_scores, tuple(settings.get("statistics", ())),
            tuple(settings.get("groupings", ())), bool(settings.get("replace_nans_with_zeros", False)), human_sys,
        )
        if has_human:
            hib = results.higher_is_better(metric, level)
            corr_rows += tidy.pairwise_rows(level, metric, seg, human, sys_scores, hib, pairwise, human_sys)
    return score_rows, corr_rows
