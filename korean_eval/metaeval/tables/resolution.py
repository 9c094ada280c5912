"""How the tests of a significance table were resampled, and whether their design could reach α at all
(docs/design.md §5): the words a headline, a caption or an export states beside a top cluster.

A permutation test's ``method`` (``"exact, 16 patterns"``, ``"Monte-Carlo, 1000 permutations"``) fixes the smallest
p-value it can give (:mod:`korean_eval.metaeval.stats.power`). When that is not below α for every comparison, "all
configurations tie" is a property of the design, not a finding: :func:`table_resolution` says so with the number of
units the test would need, :func:`with_resolution_notes` writes it into a table's ``note`` column and
:func:`resolution_notes` into a run's notes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.power import PermutationDesign, cannot_reach_sentence, design_of_method
from korean_eval.metaeval.tables.degenerate import MIN_SYSTEMS
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED

__all__ = ["Resolution", "resolution_notes", "table_resolution", "swapped_unit", "with_resolution_notes"]

NOTE = "note"
#: The columns of a significance table the notes read.
_TEST_COLUMNS = ("method", "p_value", "statistic", "granularity", "test")


def swapped_unit(statistic: str, granularity: str, test: str) -> str:
    """What one swap of ``test`` exchanges, plural: acc_eq's ``perm-pairs`` the system pairs of a segment that the two
    configurations judge differently, SPA's ``perm-wmt`` (system, segment) scores; for a correlation
    ``systems`` at the system level, else ``segments`` (``perm-inputs``) or (system, segment) scores (``perm-wmt``)."""
    if statistic == "acc_eq":
        return "system pairs (of a segment) that the two configurations judge differently"
    if statistic == "spa" or (granularity == "segment" and test == "perm-wmt"):
        return "(system, segment) scores"
    return "systems" if granularity == "system" else "segments"


def _min_units(statistic: str, granularity: str) -> int:
    """The fewest units with which the compared values are defined: 3 systems for a system-level correlation."""
    return MIN_SYSTEMS if granularity == "system" and statistic not in ("acc_eq", "spa") else 1


@dataclass(frozen=True)
class Resolution:
    """The resampling of a significance table's permutation tests and what its design allows.

    ``resampling``: ``"exact, 16 sign patterns"``, ``"Monte-Carlo, 1,000 permutations, seed 12345"``, or both with
    the share of each; ``limit``: "" when every test could reach ``p < alpha``, else why not
    (:func:`korean_eval.metaeval.stats.power.cannot_reach_sentence`), prefixed with how many tested pairs of
    configurations when only some cannot; ``n_tests``/``n_unreachable``: tested pairs with a p-value, and those whose
    design cannot reach α;
    ``design``: the design of the sentence (the unreachable one with the most patterns), None without one."""

    resampling: str
    limit: str
    n_tests: int
    n_unreachable: int
    design: PermutationDesign | None

    @property
    def cannot_separate(self) -> bool:
        """Whether no comparison of the table could be significant: its clusters cannot tell any configurations
        apart."""
        return self.n_tests > 0 and self.n_unreachable == self.n_tests


def _designs(table: pd.DataFrame, alpha: float) -> list[PermutationDesign]:
    """The design of every permutation-tested row with a p-value."""
    if table is None or table.empty or "method" not in table:
        return []
    rows = table[np.isfinite(pd.to_numeric(table["p_value"], errors="coerce").to_numpy(float))]
    return [d for d in (design_of_method(m, alpha) for m in rows["method"]) if d is not None]


def _resampling(designs: list[PermutationDesign], seed: int) -> str:
    exact = sorted({d.n_patterns for d in designs if d.exact})
    random = sorted({d.n_patterns for d in designs if not d.exact})
    parts = []
    if random:
        parts.append(f"Monte-Carlo, {'/'.join(f'{k:,}' for k in random)} permutations, seed {seed}")
    if exact:
        span = f"{exact[0]:,}" if len(exact) == 1 else f"{exact[0]:,}–{exact[-1]:,}"
        word = "sign pattern" if exact == [1] else "sign patterns"
        if random:
            n_exact = sum(d.exact for d in designs)
            parts.append(f"exact for {n_exact:,} of {len(designs):,} tested pairs ({span} {word})")
        else:
            parts.append(f"exact, {span} {word}")
    return "; ".join(parts)


def table_resolution(table: pd.DataFrame, statistic: str, granularity: str, test: str, alpha: float = ALPHA,
                     seed: int = SEED, n_permutations: int = RESAMPLES) -> Resolution:
    """The :class:`Resolution` of the permutation-tested rows of ``table`` (one statistic, granularity and test:
    a :func:`~korean_eval.metaeval.tables.significance.significance_table` or
    :func:`~korean_eval.metaeval.tables.accuracy_significance.accuracy_significance_table`, or the rows a top
    cluster tested), read from each row's ``method``; ``seed`` and ``n_permutations`` as the tests ran."""
    designs = _designs(table, alpha)
    unreachable = [d for d in designs if not d.can_reach]
    worst = max(unreachable, key=lambda d: d.n_patterns, default=None)
    limit = "" if worst is None else cannot_reach_sentence(worst, swapped_unit(statistic, granularity, test),
                                                           _min_units(statistic, granularity), n_permutations)
    if limit and len(unreachable) < len(designs):
        limit = (f"{len(unreachable):,} of {len(designs):,} tested pairs of configurations cannot reach α = "
                 f"{alpha:g}; the largest of them: " + limit[0].lower() + limit[1:])
    return Resolution(_resampling(designs, seed), limit, len(designs), len(unreachable), worst)


def with_resolution_notes(table: pd.DataFrame, alpha: float = ALPHA, n_permutations: int = RESAMPLES) -> pd.DataFrame:
    """``table`` (a significance table) with a :data:`NOTE` column saying, for each row whose test's design cannot
    reach ``p < alpha``, why and what it would need (a note already there is kept); the table unchanged when it is
    empty or not a significance table (no ``method``, ``p_value``, ``statistic``, ``granularity`` and ``test``)."""
    if table is None or table.empty or not set(_TEST_COLUMNS) <= set(table.columns):
        return table
    notes = []
    for row in table.itertuples(index=False):
        design = design_of_method(row.method, alpha)
        finite = np.isfinite(pd.to_numeric(pd.Series([row.p_value]), errors="coerce").to_numpy(float)[0])
        if design is None or not finite:
            notes.append("")
            continue
        statistic, granularity, test = str(row.statistic), str(row.granularity), str(row.test)
        notes.append(cannot_reach_sentence(design, swapped_unit(statistic, granularity, test),
                                           _min_units(statistic, granularity), n_permutations))
    return with_notes(table, notes)


def with_notes(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """``frame`` with :data:`NOTE` holding ``notes`` (kept where a row has a note already)."""
    out = frame.copy()
    if NOTE in out:
        old = out[NOTE].fillna("").astype(str).tolist()
        notes = [o or n for o, n in zip(old, notes, strict=True)]
    out[NOTE] = notes
    return out


def resolution_notes(table: pd.DataFrame, alpha: float = ALPHA, seed: int = SEED,
                     n_permutations: int = RESAMPLES) -> list[str]:
    """One note per (statistic, granularity, grouping, test) of a significance table whose tests cannot all reach
    ``p < alpha``: ``"significance by pearson at the system level (perm-inputs): With 4 systems the exact test has 16
    sign patterns: …"`` (the run's notes, ``run.json``)."""
    if table is None or table.empty or not {*_TEST_COLUMNS, "grouping"} <= set(table.columns):
        return []
    notes = []
    keys = ["statistic", "granularity", "grouping", "test"]
    for (statistic, granularity, grouping, test), rows in table.groupby(keys, sort=False):
        found = table_resolution(rows, str(statistic), str(granularity), str(test), alpha, seed, n_permutations)
        if found.limit:
            where = f"{granularity} level" + (f", grouping {grouping}" if granularity == "segment" else "")
            notes.append(f"significance by {statistic} at the {where} ({test}): {found.limit}")
    return notes
