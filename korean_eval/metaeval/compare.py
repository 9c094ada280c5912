"""One comparison of two configurations of a :class:`~korean_eval.results.Results`, with a plain-English verdict
(docs/design.md §5). Error-rate metrics are compared by their agreement (−r), as in
:mod:`korean_eval.metaeval.significance`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from korean_eval.metaeval.comparisons import compare_correlations, pair_correlations
from korean_eval.metaeval.configs import check_config, comparison_data, display_label
from korean_eval.metaeval.names import (
    STATISTIC_SYMBOLS,
    Config,
    config_name,
    direction_sign,
    grouping_used,
    is_grouped,
)
from korean_eval.results import Results


@dataclass(frozen=True)
class _Side:
    """One configuration of the comparison: its name, display label, direction sign and agreement (signed r)."""

    name: str
    label: str
    sign: float
    agreement: float

    @property
    def r(self) -> float:
        """The correlation as computed (agreement × sign)."""
        return self.sign * self.agreement


def _fmt_r(r: float) -> str:
    return f"{r:.2f}".replace("-", "−") if np.isfinite(r) else "undefined"


def _fmt_p(p: float) -> str:
    if not np.isfinite(p):
        return "= n/a"
    if p < 0.001:
        return "< 0.001"
    return f"= {p:.3f}" if p < 0.01 else f"= {p:.2f}"


def compare_two(
    results: Results,
    config_a: Config,
    config_b: Config,
    statistic: str = "pearson",
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = 1000,
    seed: int = 12345,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """Compare two configurations' agreement with the humans and say what it means.

    Correlations are taken on the points both configurations and the humans share
    (:func:`korean_eval.metaeval.comparisons.pair_correlations`; for error-rate metrics agreement = −r). The
    configuration with the higher agreement is ``better``; ``p_williams`` (df n−3; NaN for grouped segment
    correlations) and ``p_permutation`` are the one-sided p-values that ``better`` beats the other (if both agree
    equally: that a beats b), from :func:`korean_eval.metaeval.comparisons.compare_correlations`. ``significant``
    is True when every available test gives ``p < alpha``.

    Returns a dict with ``config_a, config_b, label_a, label_b, statistic, granularity, grouping, r_a, r_b`` (raw
    correlations), ``sign_a, sign_b, agreement_a, agreement_b, r_ab`` (correlation between the signed
    configurations), ``n, better, worse, p_williams, p_permutation, permutation_method`` (``"exact, 16 patterns"`` or
    ``"Monte-Carlo, 1000 permutations"``), ``significant, alpha`` and ``sentence`` (an exact permutation p is
    called "exact permutation p"), e.g.
    "chrF@char correlates more strongly with humans than chrF@word at the segment level (r = 0.31 vs 0.25; Williams
    p = 0.03, permutation p = 0.04): the difference is significant at α = 0.05."
    """
    grouping = grouping_used(granularity, grouping)
    ka, kb = check_config(results, config_a), check_config(results, config_b)
    a, human = comparison_data(results, ka, granularity)
    b, _ = comparison_data(results, kb, granularity)
    pair = pair_correlations(a, b, human, statistic, granularity, grouping)
    side_a, side_b = (
        _Side(config_name(*k), display_label(results, k), direction_sign(results.higher_is_better(k[1], k[0])), r)
        for k, r in ((ka, pair.r_a), (kb, pair.r_b))
    )
    a_first = not (np.isfinite(pair.r_a) and np.isfinite(pair.r_b) and pair.r_b > pair.r_a)
    first, second = (a, b) if a_first else (b, a)
    cmp = compare_correlations(
        first, second, human, statistic, granularity, grouping, n_permutations, seed, pair if a_first else pair.swapped()
    )
    better, worse = (side_a, side_b) if a_first else (side_b, side_a)
    tests = [("Williams", cmp.p_williams)] if np.isfinite(cmp.p_williams) else []
    exact = cmp.permutation_method.startswith("exact")
    tests.append(("exact permutation" if exact else "permutation", cmp.p_permutation))
    available = [(t, p) for t, p in tests if np.isfinite(p)]
    equal = np.isfinite(pair.r_a) and np.isfinite(pair.r_b) and pair.r_a == pair.r_b
    significant = bool(available) and all(p < alpha for _, p in available) and not equal
    sentence = _sentence(side_a, side_b, better, worse, tests, available, (statistic, granularity, grouping), alpha)
    return {
        "config_a": side_a.name, "config_b": side_b.name, "label_a": side_a.label, "label_b": side_b.label,
        "statistic": statistic, "granularity": granularity, "grouping": grouping,
        "r_a": side_a.r, "r_b": side_b.r, "sign_a": side_a.sign, "sign_b": side_b.sign,
        "agreement_a": side_a.agreement, "agreement_b": side_b.agreement, "r_ab": pair.r_ab, "n": pair.n,
        "better": better.name, "worse": worse.name, "p_williams": cmp.p_williams, "p_permutation": cmp.p_permutation,
        "permutation_method": cmp.permutation_method,
        "significant": significant, "alpha": alpha, "sentence": sentence,
    }


def _sentence(
    side_a: _Side,
    side_b: _Side,
    better: _Side,
    worse: _Side,
    tests: list[tuple[str, float]],
    available: list[tuple[str, float]],
    setting: tuple[str, str, str],
    alpha: float,
) -> str:
    """The verdict of :func:`compare_two` in one sentence (``setting``: statistic, granularity, grouping)."""
    statistic, granularity, grouping = setting
    sym = STATISTIC_SYMBOLS.get(statistic, "r")
    level_text = "at the system level" if granularity == "system" else "at the segment level" + (
        f", averaged per {grouping}," if is_grouped(granularity, grouping) else ""
    )
    if not (np.isfinite(side_a.agreement) and np.isfinite(side_b.agreement)):
        return (
            f"{side_a.label} and {side_b.label} cannot be compared {level_text}: a correlation is undefined "
            f"({sym} = {_fmt_r(side_a.r)} vs {_fmt_r(side_b.r)})."
        )
    notes = [f"{s.label} is an error rate, so its correlation is negated before comparing" for s in (side_a, side_b)
             if s.sign < 0]
    p_text = ", ".join(f"{t} p {_fmt_p(p)}" for t, p in tests)
    numbers = f"{sym} = {_fmt_r(better.r)} vs {_fmt_r(worse.r)}; " + "; ".join(notes + [p_text])
    if side_a.agreement == side_b.agreement:
        return f"{side_a.label} and {side_b.label} correlate equally strongly with humans {level_text} ({numbers})."
    verdict = _verdict(available, alpha)
    return f"{better.label} correlates more strongly with humans than {worse.label} {level_text} ({numbers}): {verdict}."


def _verdict(available: list[tuple[str, float]], alpha: float) -> str:
    """"the difference is (not) significant at α" by the tests with a p-value, or which of them finds it
    significant and which not (the two correlations differ)."""
    if available and all(p < alpha for _, p in available):
        return f"the difference is significant at α = {alpha:g}"
    if any(p < alpha for _, p in available):
        yes = " and ".join(f"the {t} test" for t, p in available if p < alpha)
        no = " and ".join(f"the {t} test" for t, p in available if not p < alpha)
        return f"{yes} finds the difference significant at α = {alpha:g}, {no} does not"
    return f"the difference is not significant at α = {alpha:g}"

