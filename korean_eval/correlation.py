"""Correlation primitives (scipy-backed) over the score matrices the meta-evaluation uses.

Layout: a metric matrix ``M`` and a human matrix ``H``, both shaped ``(n_systems, n_items)``, float64, with ``NaN``
wherever a (system, item) pair has no human score (or no metric score). Row ``s`` is one system, column ``i`` one
segment (item).

Statistics: ``pearson`` (scipy.stats.pearsonr), ``spearman`` (scipy.stats.spearmanr), ``kendall`` (Kendall τ-b,
scipy.stats.kendalltau with ``variant="b"``). A correlation over fewer than 2 points, or over constant values, is
undefined and returned as ``NaN`` (never raised).
"""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np
from scipy import stats as sps

Statistic = Literal["pearson", "spearman", "kendall"]
Grouping = Literal["none", "item", "system"]
STATISTICS: tuple[str, ...] = ("pearson", "spearman", "kendall")
GROUPINGS: tuple[str, ...] = ("none", "item", "system")


def correlate(x: np.ndarray, y: np.ndarray, statistic: str) -> float:
    """Correlation of two equal-length 1-d arrays (no NaN); NaN if undefined (n < 2 or a constant input)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"correlate needs two 1-d arrays of equal length, got {x.shape} and {y.shape}")
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if statistic == "pearson":
            return float(sps.pearsonr(x, y).statistic)
        if statistic == "spearman":
            return float(sps.spearmanr(x, y).statistic)
        if statistic == "kendall":
            return float(sps.kendalltau(x, y, variant="b").statistic)
    raise ValueError(f"unknown correlation statistic {statistic!r}; choose one of {', '.join(STATISTICS)}")


def segment_correlation(metric: np.ndarray, human: np.ndarray, statistic: str, grouping: str = "none") -> tuple[float, int]:
    """Segment-level correlation and the number of (system, item) pairs it used.

    * ``none``: one correlation over all (system, item) pairs where both matrices are finite.
    * ``item``: per item (column), the correlation across systems; the mean over items where it is defined.
    * ``system``: per system (row), the correlation across items; the mean over systems where it is defined.

    ``n`` is always the number of (system, item) pairs with both scores present.
    """
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    ok = np.isfinite(metric) & np.isfinite(human)
    n = int(ok.sum())
    if grouping == "none":
        return correlate(metric[ok], human[ok], statistic), n
    if grouping not in ("item", "system"):
        raise ValueError(f"unknown grouping {grouping!r}; choose one of {', '.join(GROUPINGS)}")
    m, h, k = (metric.T, human.T, ok.T) if grouping == "item" else (metric, human, ok)
    values = [correlate(m[g][k[g]], h[g][k[g]], statistic) for g in range(m.shape[0])]
    values = [v for v in values if np.isfinite(v)]
    return (float(np.mean(values)) if values else float("nan")), n


MIN_SYSTEMS = 3


def system_correlation(system_metric: np.ndarray, system_human: np.ndarray, statistic: str) -> tuple[float, int]:
    """System-level correlation of per-system metric scores with per-system mean human scores (NaN entries skipped).

    Undefined (NaN) with fewer than :data:`MIN_SYSTEMS` systems: two points always correlate ±1.
    """
    x = np.asarray(system_metric, dtype=np.float64)
    y = np.asarray(system_human, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    n = int(ok.sum())
    if n < MIN_SYSTEMS:
        return float("nan"), n
    return correlate(x[ok], y[ok], statistic), n
