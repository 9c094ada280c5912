"""Degenerate data, said in words (docs/design.md §5): the rows of the correlations table whose value is what the
definition gives for data that carry no information — every human score equal, a metric that gives every segment
the same score, fewer than 3 systems at the system level, or humans that tie every system on every item.

The value stays as defined (e.g. ``acc_eq`` = 1 with constant human scores: a large ε ties every pair, and every
pair is a human tie — mt-metrics-eval returns the same); the row's ``flag`` column names the condition
(:func:`segment_flags`, :func:`system_flags`; several joined by ``"; "``, empty when none holds), and
:func:`degenerate_notes` turns the flags of a table into the sentences a run writes into ``run.json``, on stderr and
on the dashboard.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: The flags, in the order they are listed.
CONSTANT_HUMAN = "constant human scores"
CONSTANT_METRIC = "constant metric scores"
FEW_SYSTEMS = "fewer than 3 systems"
ALL_ITEMS_TIED = "every item tied by the humans"
FLAGS: tuple[str, ...] = (CONSTANT_HUMAN, CONSTANT_METRIC, FEW_SYSTEMS, ALL_ITEMS_TIED)
#: Systems a system-level statistic needs to say something (a correlation is undefined below; pairwise accuracy of
#: 2 systems is one comparison).
MIN_SYSTEMS = 3


def _constant(values: np.ndarray) -> bool:
    """Whether the finite ``values`` (at least one) are all equal."""
    values = values[np.isfinite(values)]
    return values.size > 0 and bool(np.all(values == values[0]))


def _join(flags: Sequence[str]) -> str:
    return "; ".join(flag for flag in FLAGS if flag in flags)


def segment_flags(metric: np.ndarray, human: np.ndarray) -> dict[str, str]:
    """Flags of the segment-level rows of one configuration, by grouping (``none``, ``item``, ``system``), from its
    ``(n_systems, n_items)`` metric and human matrices (NaN = absent), over the (system, item) entries with both:

    * :data:`CONSTANT_HUMAN` / :data:`CONSTANT_METRIC`: every such human / metric score is equal;
    * :data:`ALL_ITEMS_TIED` (grouping ``item``, only when the human scores are not constant overall): within every
      item with two or more entries the human scores are equal — every per-item comparison is a tie.
    """
    metric, human = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    both = np.isfinite(metric) & np.isfinite(human)
    common: list[str] = []
    if _constant(np.where(both, human, np.nan)):
        common.append(CONSTANT_HUMAN)
    if _constant(np.where(both, metric, np.nan)):
        common.append(CONSTANT_METRIC)
    by_item = list(common)
    if CONSTANT_HUMAN not in common and both.any():
        h = np.where(both, human, np.nan)
        shared = both.sum(axis=0) >= 2
        spread = np.nanmax(h[:, shared], axis=0) - np.nanmin(h[:, shared], axis=0) if shared.any() else np.array([])
        if shared.any() and bool(np.all(spread == 0)):
            by_item.append(ALL_ITEMS_TIED)
    return {"none": _join(common), "item": _join(by_item), "system": _join(common)}


def system_flags(metric_sys: np.ndarray, human_sys: np.ndarray) -> str:
    """Flags of a system-level row from the per-system metric and human scores (NaN = absent), over the systems
    with both: :data:`FEW_SYSTEMS` when there are 1 or 2 (none: nothing was computed, nothing is flagged); :data:`CONSTANT_HUMAN` / :data:`CONSTANT_METRIC` when
    one side gives every such system the same score."""
    metric_sys, human_sys = np.asarray(metric_sys, dtype=np.float64), np.asarray(human_sys, dtype=np.float64)
    both = np.isfinite(metric_sys) & np.isfinite(human_sys)
    flags = []
    if 0 < int(both.sum()) < MIN_SYSTEMS:
        flags.append(FEW_SYSTEMS)
    if both.sum() >= 2 and _constant(human_sys[both]):
        flags.append(CONSTANT_HUMAN)
    if both.sum() >= 2 and _constant(metric_sys[both]):
        flags.append(CONSTANT_METRIC)
    return _join(flags)


def _configs(rows: pd.DataFrame) -> str:
    names = list(dict.fromkeys(f"{m}@{lv}" for lv, m in zip(rows["level"], rows["metric"], strict=True)))
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    return shown


def degenerate_notes(correlations: pd.DataFrame) -> list[str]:
    """One sentence per flag that occurs in ``correlations`` (its ``flag`` column; none without one), saying which
    rows carry it and what their values mean."""
    if correlations.empty or "flag" not in correlations:
        return []
    flags = correlations["flag"].fillna("").astype(str)
    notes = []
    for flag in FLAGS:
        rows = correlations[flags.str.contains(flag, regex=False)]
        if rows.empty:
            continue
        statistics = ", ".join(dict.fromkeys(rows["statistic"].astype(str)))
        if flag == CONSTANT_HUMAN:
            notes.append(
                f"degenerate data: every human score is the same on the points of {len(rows)} row(s) of the "
                f"correlations ({statistics}); their values are what the definitions give for such data — acc_eq is "
                "1 by definition (a large ε ties every pair), correlations are undefined — and say nothing about "
                "the metrics (flag 'constant human scores')")
        elif flag == CONSTANT_METRIC:
            notes.append(
                f"degenerate data: {_configs(rows)} give(s) every scored point the same score ({len(rows)} row(s): "
                f"{statistics}); the values follow from the definitions for a constant metric and say nothing "
                "about its agreement (flag 'constant metric scores')")
        elif flag == FEW_SYSTEMS:
            n = int(rows["n"].min()) if rows["n"].notna().any() else 0
            notes.append(
                f"degenerate data: system-level statistics ({statistics}) rest on {n} system(s); below 3 a "
                "correlation is undefined and pairwise accuracy is a single comparison, so these values carry no "
                "information about the ranking (flag 'fewer than 3 systems')")
        else:
            notes.append(
                f"degenerate data: the humans give every system the same score on every item, so statistics "
                f"averaged over items ({statistics}, grouping item) compare ties only (flag 'every item tied by "
                "the humans')")
    return notes
