"""What a permutation test can show before it is run: the smallest p-value its design can give, whether that is below
α, and how many units (systems, segments, comparisons) it would need to get there (docs/design.md §5).

The tests are those of :mod:`korean_eval.metaeval.stats.permutation` and
:mod:`korean_eval.metaeval.stats.accuracy_permutation`, whose p-values are (:func:`~korean_eval.metaeval.stats.
permutation.permutation_p`):

* exact, over every one of the ``2^n`` swap patterns of ``n ≤ 16`` live units
  (:func:`~korean_eval.metaeval.stats.permutation.swap_patterns`,
  :func:`~korean_eval.metaeval.stats.accuracy_permutation.all_patterns`): ``p = #{δ_p ≥ δ − 1e-12} / n_valid``.
  The identity pattern is one of them and reproduces ``δ`` exactly, so the count is at least 1 and
  ``p ≥ 1 / n_valid = 1 / 2^n``; the bound is attained when every other pattern gives a smaller difference (Fisher
  1935; Good 2005, "Permutation, Parametric and Bootstrap Tests of Hypotheses", §3) — for the system-level tests
  from 4 systems on with every correlation, while with 3 systems a rank correlation always has a swap that leaves
  its ranks unchanged (p ≥ 1/4; tests/unit/metaeval/stats/test_power.py enumerates the arrangements);
* Monte-Carlo, over ``k`` seeded patterns: ``p = (#{δ_p ≥ δ − 1e-12} + 1) / (k + 1)`` (Phipson & Smyth 2010), so
  ``p ≥ 1 / (k + 1)``, attained when no draw reaches ``δ``.

A difference is significant when ``p < α`` (:func:`~korean_eval.metaeval.stats.comparisons.rank_clusters`), so a
design whose smallest p is ``≥ α`` cannot call any difference significant, whatever the data: with 4 systems at the
system level the exact test has 16 patterns and its smallest p is 1/16 = 0.0625 > 0.05. Pure functions of counts
(no numba, no scipy: the dashboard's first screen and the CLI's start import this);
:mod:`korean_eval.metaeval.tables.resolution` applies them to significance tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from korean_eval.model.defaults import ALPHA, RESAMPLES

if TYPE_CHECKING:
    from korean_eval.metaeval.stats.permutation import PermutationDeltas

__all__ = [
    "MAX_EXACT_UNITS",
    "PermutationDesign",
    "cannot_reach_sentence",
    "deltas_min_p",
    "design_of_method",
    "permutation_design",
    "permutations_needed",
    "smallest_p",
    "units_needed",
]


#: Up to this many live units every swap pattern is enumerated (2^16 = 65,536): the exact test
#: (:func:`korean_eval.metaeval.stats.permutation.swap_patterns`, the accuracies' tests alike).
MAX_EXACT_UNITS = 16


def smallest_p(exact: bool, n_patterns: int) -> float:
    """The smallest p-value a permutation test over ``n_patterns`` valid patterns can give: ``1 / n_patterns`` when
    the patterns are every swap pattern (``exact``, the identity among them), ``1 / (n_patterns + 1)`` for Monte-Carlo
    draws (module docstring); NaN without a pattern."""
    if n_patterns < 1:
        return float("nan")
    return 1.0 / n_patterns if exact else 1.0 / (n_patterns + 1)


@dataclass(frozen=True)
class PermutationDesign:
    """One permutation test's design: ``exact`` over every pattern of ``n_units`` live units (``n_patterns`` =
    ``2^n_units``), or Monte-Carlo with ``n_patterns`` permutations (``n_units`` None: any number above
    :data:`~korean_eval.metaeval.stats.permutation.MAX_EXACT_UNITS`), judged at ``alpha``."""

    exact: bool
    n_patterns: int
    n_units: int | None
    alpha: float = ALPHA

    @property
    def min_p(self) -> float:
        """:func:`smallest_p` of the design."""
        return smallest_p(self.exact, self.n_patterns)

    @property
    def can_reach(self) -> bool:
        """Whether some data could give ``p < alpha``: :attr:`min_p` ``< alpha``."""
        return bool(self.min_p < self.alpha)


def permutation_design(n_units: int, n_permutations: int = RESAMPLES, alpha: float = ALPHA) -> PermutationDesign:
    """The design the tests choose for ``n_units`` live units, as
    :func:`~korean_eval.metaeval.stats.permutation.swap_patterns` chooses it: exact over ``2^n_units`` patterns up to
    :data:`~korean_eval.metaeval.stats.permutation.MAX_EXACT_UNITS` (16) units, else ``n_permutations`` Monte-Carlo
    patterns."""
    if n_units <= MAX_EXACT_UNITS:
        return PermutationDesign(True, 2**n_units, n_units, alpha)
    return PermutationDesign(False, n_permutations, None, alpha)


def units_needed(alpha: float = ALPHA, n_permutations: int = RESAMPLES, min_units: int = 1) -> int | None:
    """The fewest live units, at least ``min_units``, with which :func:`permutation_design` can reach ``p < alpha``:
    the smallest ``n`` with ``1/2^n < alpha`` when that is at most 16 (α = 0.05: 5, since 1/32 < 0.05 ≤ 1/16), else
    17 if ``n_permutations`` Monte-Carlo draws can (``1/(n_permutations + 1) < alpha``); None when neither can."""
    for n in range(max(min_units, 0), MAX_EXACT_UNITS + 2):
        if permutation_design(n, n_permutations, alpha).can_reach:
            return n
    return None


def permutations_needed(alpha: float = ALPHA) -> int:
    """The fewest Monte-Carlo permutations ``k`` with ``1/(k + 1) < alpha`` (α = 0.05: 20)."""
    k = int(np.floor(1.0 / alpha))
    return k if 1.0 / (k + 1) < alpha else k + 1


def deltas_min_p(deltas: PermutationDeltas) -> float:
    """:func:`smallest_p` of a test as it ran: its valid (finite) permuted differences counted as
    :func:`~korean_eval.metaeval.stats.permutation.permutation_p` counts them; NaN when ``δ`` is undefined."""
    if not np.isfinite(deltas.observed):
        return float("nan")
    return smallest_p(deltas.exact, int(np.isfinite(np.asarray(deltas.deltas, dtype=np.float64)).sum()))


_METHOD = re.compile(r"^(exact|Monte-Carlo), (\d+) (patterns|permutations)$")


def design_of_method(method: str, alpha: float = ALPHA) -> PermutationDesign | None:
    """The design recorded in a significance table's ``method``
    (:func:`~korean_eval.metaeval.stats.permutation.permutation_method`: ``"exact, 16 patterns"``, ``"Monte-Carlo,
    1000 permutations"``); None for any other test (Williams) or an empty method."""
    found = _METHOD.match(str(method))
    if found is None:
        return None
    n_patterns = int(found.group(2))
    if found.group(1) == "exact":
        return PermutationDesign(True, n_patterns, int(round(np.log2(n_patterns))), alpha)
    return PermutationDesign(False, n_patterns, None, alpha)


def _count(n: int, unit: str) -> str:
    """``"4 systems"``, ``"1 system"``: ``unit`` is plural, and for one its noun (before a qualifier in parentheses,
    ``"system pairs (of a segment)"``) loses its final ``s``."""
    if n != 1:
        return f"{n:,} {unit}"
    cut = unit.find(" (")
    head, tail = (unit, "") if cut < 0 else (unit[:cut], unit[cut:])
    return f"1 {head.removesuffix('s')}{tail}"


def _p(p: float) -> str:
    return f"{p:.4g}"


def cannot_reach_sentence(design: PermutationDesign, unit: str, min_units: int = 1,
                          n_permutations: int = RESAMPLES) -> str:
    """Why a design cannot call any difference significant, with what it would need; ``""`` when it can.

    ``unit``: what the test swaps, plural (``"systems"``, ``"segments"``). Exact: ``"With 4 systems the exact test
    has 16 sign patterns: its smallest p-value is 0.0625 > α = 0.05, so no difference can be significant; ≥ 5
    systems needed"`` (:func:`units_needed`, at least ``min_units``; ``n_permutations``: the Monte-Carlo draws the
    test would use beyond 16 units). Monte-Carlo: the permutations it would need (:func:`permutations_needed`)."""
    if design.can_reach or not np.isfinite(design.min_p):
        return ""
    relation = ">" if design.min_p > design.alpha else "="
    bound = f"its smallest p-value is {_p(design.min_p)} {relation} α = {design.alpha:g}"
    if design.exact:
        n = design.n_units if design.n_units is not None else int(round(np.log2(design.n_patterns)))
        needed = units_needed(design.alpha, n_permutations, min_units)
        need = (f"≥ {_count(needed, unit)} needed" if needed is not None
                else f"no number of {unit} reaches it with {n_permutations:,} Monte-Carlo permutations")
        pattern_word = "sign pattern" if design.n_patterns == 1 else "sign patterns"
        return (f"With {_count(n, unit)} the exact test has {design.n_patterns:,} {pattern_word}: {bound}, so no "
                f"difference can be significant; {need}")
    return (f"The Monte-Carlo test has {design.n_patterns:,} permutations: {bound}, so no difference can be "
            f"significant; ≥ {permutations_needed(design.alpha):,} permutations needed")
