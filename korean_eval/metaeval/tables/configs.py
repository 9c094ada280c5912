"""The configurations of one :class:`~korean_eval.model.results.Results` (docs/design.md §5): which exist, their display
labels, their reported system scores and the signed scores two configurations are compared on.

A configuration is a (token level, metric) pair named ``"level/metric"`` (:mod:`korean_eval.model.vocabulary`);
bring-your-own metrics have level ``"given"``. Whether a metric's higher scores are better is always
:meth:`Results.higher_is_better <korean_eval.model.results.Results.higher_is_better>`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from korean_eval.metaeval.stats.correlation import system_means
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import (
    GRANULARITIES,
    Config,
    check_choice,
    config_label,
    config_name,
    direction_sign,
    parse_config,
)


def configurations(results: Results) -> list[str]:
    """All configurations of ``results`` in pipeline order (levels × metrics, then bring-your-own metrics)."""
    return [config_name(*key) for key in results.segment_matrices]


def check_config(results: Results, config: Config) -> tuple[str, str]:
    """``(level, metric)`` of ``config`` if ``results`` has it (else ValueError naming the known ones)."""
    key = parse_config(config)
    if key not in results.segment_matrices:
        raise ValueError(f"unknown configuration {config_name(*key)!r}; known: {', '.join(configurations(results))}")
    return key


def selected_configs(results: Results, configs: Iterable[Config] | None) -> list[tuple[str, str]]:
    """The checked keys of ``configs`` (default: every configuration of ``results``, in pipeline order)."""
    return [check_config(results, c) for c in (configs if configs is not None else results.segment_matrices)]


def display_label(results: Results, config: Config) -> str:
    """Display name ``"chrF@char"`` (metric label @ level); bring-your-own metrics show their own name."""
    level, metric = parse_config(config)
    obj = results.metrics.get((level, metric))
    return config_label(obj.info.label if obj is not None else metric, level)


def system_scores(results: Results, config: Config) -> np.ndarray:
    """Reported system scores of ``config`` in ``results.systems`` order (NaN where a system has none)."""
    level, metric = parse_config(config)
    df = results.system_scores
    rows = df[(df["level"] == level) & (df["metric"] == metric)]
    by_system = dict(zip(rows["system"], rows["score"].astype(float), strict=True))
    return np.array([by_system.get(s, np.nan) for s in results.systems], dtype=np.float64)


def has_human(results: Results) -> bool:
    """Whether ``results`` has at least one human score."""
    h = np.asarray(results.human_matrix, dtype=np.float64)
    return h.size > 0 and bool(np.isfinite(h).any())


def human_system_scores(results: Results) -> np.ndarray:
    """Each system's human score at the system level, in ``results.systems`` order: the system-level scores given
    directly (``results.human_system``, e.g. an mt-metrics-eval ``sys`` file) when there are, else the mean of its
    scored segments (:func:`korean_eval.metaeval.stats.correlation.system_means`)."""
    if results.human_system is not None:
        return np.asarray(results.human_system, dtype=np.float64)
    return system_means(results.human_matrix)


def comparison_data(results: Results, key: tuple[str, str], granularity: str) -> tuple[np.ndarray, np.ndarray]:
    """The signed scores of one configuration and the human scores they are correlated with when configurations are
    compared: segment level — the segment matrix and ``results.human_matrix``; system level — the reported system
    scores and each system's human score (:func:`human_system_scores`). Scores are
    multiplied by :func:`korean_eval.model.vocabulary.direction_sign` (−1 for error rates)."""
    sign = direction_sign(results.higher_is_better(key[1], key[0]))
    if check_choice("granularity", granularity, GRANULARITIES) == "segment":
        return sign * np.asarray(results.segment_matrices[key], dtype=np.float64), np.asarray(
            results.human_matrix, dtype=np.float64
        )
    return sign * system_scores(results, key), human_system_scores(results)
