"""Statistics on few systems or segments: a value with a note, or "n/a" with the reason (docs/design.md §5).

With 1–3 systems or segments with human scores many statistics are undefined (a system-level correlation of two
systems, a correlation within a segment of one system) or rest on so few points that their value says little (a
paired bootstrap over one segment has nothing to resample: every resample is the input, so its p-value looks
significant). :func:`annotate_small_samples` adds a ``note`` column to the tables of a run — the correlations,
``significance.csv``, ``clusters.csv`` and ``system_pairs.csv`` — that says, for an undefined value, ``n/a:`` and why,
and for a value on three or fewer units how few (for a permutation test whose design cannot give ``p < α``, such as
the exact test over 4 systems, why and how many units it would need:
:func:`korean_eval.metaeval.tables.resolution.with_resolution_notes`); the system-pair tests over a single shared segment get no p-value
or interval (n/a) instead of a degenerate one. :func:`small_sample_notes` are the run's notes on the same (stderr and
``run.json``). The reasons are read from the tables' own counts (``n``, ``n_groups``, ``n_undefined``) and from the
human scores' coverage, whatever statistic computed them.
"""

from __future__ import annotations

from collections.abc import MutableMapping

import numpy as np
import pandas as pd

from korean_eval.metaeval.tables.resolution import with_notes
from korean_eval.model.results import Results

__all__ = ["FEW", "annotate_small_samples", "small_sample_notes"]

#: A value computed on this many units (systems, segments, points) or fewer gets a note.
FEW = 3
#: The statistics of the ``correlations`` table that correlate (the others: acc_eq, pairwise accuracy, SPA).
CORRELATIONS = ("pearson", "spearman", "kendall", "pdp")


def _coverage(results: Results) -> tuple[int, int]:
    """(systems with a human score, segments with a human score)."""
    human = np.isfinite(np.asarray(results.human_matrix, dtype=np.float64))
    if human.size == 0:
        return 0, 0
    return int(human.any(axis=1).sum()), int(human.any(axis=0).sum())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _undefined_reason(row: pd.Series, n_systems: int, n_segments: int) -> str:
    """Why a row of the correlations table has no value."""
    granularity, grouping, statistic = row["granularity"], row["grouping"], row["statistic"]
    n = int(row["n"]) if pd.notna(row.get("n")) else 0
    if granularity == "system":
        if statistic in CORRELATIONS:
            if n < 3:
                return (f"n/a: {_plural(n, 'system')} with scores; a system-level correlation needs at least 3 (two "
                        "points always correlate ±1)")
            return "n/a: the metric's or the humans' system scores are all equal"
        if n_systems < 2:
            return f"n/a: {_plural(n_systems, 'system')} with human scores; {statistic} compares pairs of systems"
        return "n/a: no pair of systems with scores on shared segments"
    if grouping == "item":
        if n_systems < 2:
            return (f"n/a: {_plural(n_systems, 'system')} with human scores; grouped by segment, each group holds "
                    "one system's score, and this statistic compares systems within a segment")
        return ("n/a: no segment's group is defined (each needs two systems scored on it, with scores that differ)")
    if grouping == "system":
        if n_segments < 2:
            return (f"n/a: {_plural(n_segments, 'segment')} with human scores; grouped by system, each group holds "
                    "one segment, and a correlation needs at least 2")
        return "n/a: no system's group is defined (each needs two scored segments, with scores that differ)"
    if n < 2:
        return f"n/a: {_plural(n, 'scored (system, segment) pair')}; a correlation needs at least 2"
    return "n/a: the metric's or the humans' segment scores are all equal"


def _few_note(row: pd.Series) -> str:
    """A note on a defined value computed on :data:`FEW` or fewer units ("" otherwise)."""
    granularity, grouping, statistic = row["granularity"], row["grouping"], row["statistic"]
    n = int(row["n"]) if pd.notna(row.get("n")) else 0
    if granularity == "system":
        if statistic == "pairwise_accuracy":
            return f"on {_plural(n, 'system')} only: one pair, so 0 or 1" if n == 2 else (
                f"on {n} systems only ({n * (n - 1) // 2} pairs)" if n <= FEW else "")
        if statistic == "spa":
            return ""
        return f"on {n} systems only: read it with its interval" if n <= FEW else ""
    if grouping in ("item", "system") and pd.notna(row.get("n_groups")):
        defined = int(row["n_groups"]) - int(row["n_undefined"] if pd.notna(row.get("n_undefined")) else 0)
        unit = "segment" if grouping == "item" else "system"
        if defined <= FEW:
            return f"mean over {_plural(defined, unit)} with a defined value only"
        return ""
    if n == 2 and statistic in CORRELATIONS:
        return "on 2 scored (system, segment) pairs only: two points always correlate ±1"
    return f"on {_plural(n, 'scored (system, segment) pair')} only" if n <= FEW else ""


def _correlation_notes(corr: pd.DataFrame, n_systems: int, n_segments: int) -> pd.DataFrame:
    if corr is None or corr.empty or "value" not in corr:
        return corr
    notes = [
        _undefined_reason(row, n_systems, n_segments) if pd.isna(row["value"]) else _few_note(row)
        for _, row in corr.iterrows()
    ]
    return with_notes(corr, notes)


def _significance_notes(table: pd.DataFrame) -> pd.DataFrame:
    notes = []
    for _, row in table.iterrows():
        if pd.isna(row.get("p_value")):
            notes.append("n/a: a correlation it compares is undefined (see the correlations' note)")
        elif pd.notna(row.get("n")) and int(row["n"]) <= FEW:
            notes.append(f"on {int(row['n'])} points only: few permutations, so the p-value cannot be small")
        else:
            notes.append("")
    return with_notes(table, notes)


def _cluster_notes(table: pd.DataFrame) -> pd.DataFrame:
    notes = ["n/a: the correlation is undefined (see the correlations' note), so its cluster number means nothing"
             if pd.isna(v) else "" for v in table["value"]]
    return with_notes(table, notes)


def _system_pair_notes(table: pd.DataFrame, results: Results) -> pd.DataFrame:
    """Notes on the system-pair tests by the segments both systems have human scores for; over one shared segment
    the resampling has nothing to vary: the p-values and intervals are set to n/a."""
    human = np.isfinite(np.asarray(results.human_matrix, dtype=np.float64))
    index = {s: i for i, s in enumerate(results.systems)}
    out = table.copy()
    notes = []
    degenerate = ["metric_p", "metric_ci_low", "metric_ci_high", "human_p", "human_ci_low", "human_ci_high"]
    for k, row in table.iterrows():
        a, b = index.get(row["system_a"]), index.get(row["system_b"])
        shared = int((human[a] & human[b]).sum()) if a is not None and b is not None else 0
        if shared <= 1:
            out.loc[k, [c for c in degenerate if c in out]] = np.nan
            notes.append(f"n/a (p-values, intervals): {_plural(shared, 'segment')} scored for both systems; the "
                         "resampling has nothing to vary")
        elif shared <= FEW:
            notes.append(f"on {shared} shared segments only: the p-values and intervals overstate certainty")
        else:
            notes.append("")
    return with_notes(out, notes)


def annotate_small_samples(results: Results, extra: MutableMapping[str, pd.DataFrame]) -> None:
    """Add the :data:`NOTE` column to ``results.correlations`` and to the ``significance.csv``, ``clusters.csv`` and
    ``system_pairs.csv`` of ``extra`` (replaced in place; module docstring), and to ``results.notes`` (``run.json``)
    one note per significance test whose design cannot reach α
    (:func:`korean_eval.metaeval.tables.resolution.resolution_notes`). Nothing without human scores."""
    from korean_eval.metaeval.tables.resolution import resolution_notes, with_resolution_notes

    n_systems, n_segments = _coverage(results)
    if not n_systems:
        return
    results.correlations = _correlation_notes(results.correlations, n_systems, n_segments)
    if extra.get("significance.csv") is not None and not extra["significance.csv"].empty:
        significance = extra["significance.csv"]
        results.notes = results.notes + [n for n in resolution_notes(significance) if n not in results.notes]
        extra["significance.csv"] = _significance_notes(with_resolution_notes(significance))
    if extra.get("clusters.csv") is not None and not extra["clusters.csv"].empty:
        extra["clusters.csv"] = _cluster_notes(extra["clusters.csv"])
    if extra.get("system_pairs.csv") is not None and not extra["system_pairs.csv"].empty:
        extra["system_pairs.csv"] = _system_pair_notes(extra["system_pairs.csv"], results)


def small_sample_notes(results: Results) -> list[str]:
    """The run's notes on few systems or segments with human scores, and on undefined statistics (empty when there
    is nothing to say)."""
    n_systems, n_segments = _coverage(results)
    if not n_systems:
        return []
    notes = []
    if n_systems < 3:
        what = "system-level correlations are n/a (they need at least 3 systems)"
        if n_systems < 2:
            what += ("; so are pairwise accuracy, SPA, the system-pair tests and every statistic that compares systems "
                     "within a segment (grouping by segment, acc_eq)")
        notes.append(f"{_plural(n_systems, 'system')} with human scores: {what}")
    elif n_systems <= FEW:
        notes.append(f"{n_systems} systems with human scores: system-level values rest on {n_systems} points")
    if n_segments < 2:
        notes.append(f"{_plural(n_segments, 'segment')} with human scores: correlations grouped by system are n/a, "
                     "and so are the system-pair tests' p-values and intervals (nothing to resample)")
    elif n_segments <= FEW:
        notes.append(f"{n_segments} segments with human scores: intervals and p-values rest on {n_segments} "
                     "segments and overstate certainty")
    corr = results.correlations
    undefined = int(corr["value"].isna().sum()) if corr is not None and "value" in corr else 0
    if undefined:
        notes.append(f"{undefined} of {len(corr)} correlation rows are n/a; the note column of correlations.csv says "
                     "why each")
    if notes and undefined == 0 and (n_systems <= FEW or n_segments <= FEW):
        notes.append("the note column of correlations.csv marks the values that rest on few points")
    return notes
