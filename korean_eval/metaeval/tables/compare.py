"""One comparison of two configurations of a :class:`~korean_eval.model.results.Results`, with a plain-English verdict
(docs/design.md §5). Error-rate metrics are compared by their agreement (−r), as in
:mod:`korean_eval.metaeval.tables.significance`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from korean_eval.metaeval.stats.comparisons import PairCorrelations, pair_correlations, williams_test
from korean_eval.metaeval.stats.permutation import deltas_of_test
from korean_eval.metaeval.tables.configs import check_config, comparison_data, display_label
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import (
    PERMUTATION_TESTS,
    SIGNIFICANCE_TESTS,
    STATISTIC_SYMBOLS,
    WILLIAMS_DF_OFFSET,
    Config,
    check_choice,
    config_name,
    default_tests,
    direction_sign,
    grouping_used,
    is_grouped,
)


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
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
    alpha: float = ALPHA,
    tests: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Compare two configurations' agreement with the humans and say what it means.

    Correlations are taken on the points both configurations and the humans share
    (:func:`korean_eval.metaeval.stats.comparisons.pair_correlations`; for error-rate metrics agreement = −r). The
    configuration with the higher agreement is ``better``. ``tests`` (default
    :func:`korean_eval.model.vocabulary.default_tests`: the permutation test ``perm-inputs`` at the segment level,
    Williams and ``perm-inputs`` at the system level) give the one-sided p-values that ``better`` beats the other
    (if both agree equally: that a beats b), each as in :func:`korean_eval.metaeval.tables.significance.significance_table`
    (Williams NaN for grouped segment correlations). ``significant`` is True when every test with a p-value gives
    ``p < alpha`` (and the correlations differ).

    Returns a dict with ``config_a, config_b, label_a, label_b, statistic, granularity, grouping, r_a, r_b`` (raw
    correlations), ``sign_a, sign_b, agreement_a, agreement_b, r_ab`` (correlation between the signed
    configurations), ``n, better, worse, tests, p_values`` (test → p), ``methods`` (test → ``"exact, 16
    patterns"``, ``"Monte-Carlo, 1000 permutations"`` or ``"Student t, df = n − 3; assumes independent points"``),
    ``significant, alpha`` and ``sentence``, e.g. "chrF@char correlates more strongly with humans than chrF@word at
    the system level (r = 0.91 vs 0.85; Williams p = 0.03, exact permutation p = 0.06): the Williams test finds the
    difference significant at α = 0.05, the exact permutation test does not."
    """
    grouping = grouping_used(granularity, grouping)
    tests = default_tests(granularity) if tests is None else tuple(tests)
    for test in tests:
        check_choice("test", test, SIGNIFICANCE_TESTS)
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
    setting = (statistic, granularity, grouping)
    done = {
        test: _one_test(test, first, second, human, setting, pair if a_first else pair.swapped(), n_permutations, seed)
        for test in tests
    }
    better, worse = (side_a, side_b) if a_first else (side_b, side_a)
    shown = [(_test_name(t, m, granularity), p) for t, (p, m) in done.items() if np.isfinite(p) or t in PERMUTATION_TESTS]
    available = [(t, p) for t, p in shown if np.isfinite(p)]
    equal = np.isfinite(pair.r_a) and np.isfinite(pair.r_b) and pair.r_a == pair.r_b
    significant = bool(available) and all(p < alpha for _, p in available) and not equal
    return {
        "config_a": side_a.name, "config_b": side_b.name, "label_a": side_a.label, "label_b": side_b.label,
        "statistic": statistic, "granularity": granularity, "grouping": grouping,
        "r_a": side_a.r, "r_b": side_b.r, "sign_a": side_a.sign, "sign_b": side_b.sign,
        "agreement_a": side_a.agreement, "agreement_b": side_b.agreement, "r_ab": pair.r_ab, "n": pair.n,
        "better": better.name, "worse": worse.name, "tests": tests,
        "p_values": {t: p for t, (p, _) in done.items()}, "methods": {t: m for t, (_, m) in done.items()},
        "significant": significant, "alpha": alpha,
        "sentence": _sentence(side_a, side_b, better, worse, shown, available, setting, alpha),
    }


def _one_test(
    test: str,
    first: np.ndarray,
    second: np.ndarray,
    human: np.ndarray,
    setting: tuple[str, str, str],
    pair: PairCorrelations,
    n_permutations: int,
    seed: int,
) -> tuple[float, str]:
    """``(p, method)`` of ``test`` that ``first`` beats ``second`` (``pair``: their correlations)."""
    statistic, granularity, grouping = setting
    if test in PERMUTATION_TESTS:
        deltas = deltas_of_test(test, first, second, human, statistic, granularity, grouping, n_permutations, seed)
        return deltas.p_value(), deltas.method
    offset = WILLIAMS_DF_OFFSET[test]
    p = float("nan") if is_grouped(granularity, grouping) else williams_test(pair.r_a, pair.r_b, pair.r_ab, pair.n, offset)
    return p, f"Student t, df = n − {offset}; assumes independent points"


def _test_name(test: str, method: str, granularity: str) -> str:
    """The test's name in the sentence: "Williams" (at the segment level "Williams (assumes independent points)"),
    "permutation" / "WMT permutation", prefixed "exact" when every pattern was enumerated."""
    if test in PERMUTATION_TESTS:
        name = "permutation" if test == "perm-inputs" else "WMT permutation"
        return f"exact {name}" if method.startswith("exact") else name
    name = "Williams" if test == "williams" else "Williams (df n − 2)"
    return f"{name} (assumes independent points)" if granularity == "segment" else name


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

