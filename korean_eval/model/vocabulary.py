"""The vocabulary of the meta-evaluation, decided once (docs/design.md §5).

* **Statistics** (:data:`STATISTICS`): ``pearson`` (Pearson r), ``spearman`` (Spearman ρ), ``kendall`` (Kendall τ-b)
  — correlations of two vectors (:data:`VECTOR_STATISTICS`) — and ``pdp`` (Pairwise Difference Pearson,
  mt-metrics-eval 2025 / WMT25: Pearson r over the within-group differences of every pair of entries, pooled over
  the groups; :mod:`korean_eval.metaeval.stats.pdp`). Ungrouped (grouping ``none``, or the system level) PDP *is* Pearson
  r (:func:`computed_statistic`).
* **Granularities** (:data:`GRANULARITIES`): ``segment`` — metric and human scores of (system, item) pairs;
  ``system`` — one metric score and one mean human score per system.
* **Groupings** (:data:`GROUPINGS`) of a segment-level correlation: ``none`` (one correlation over all pairs),
  ``item`` (per item across systems, averaged), ``system`` (per system across items, averaged). The system level is
  always ungrouped (:func:`grouping_used`).
* A **configuration** is a (token level, metric) pair, named ``"level/metric"`` (:func:`config_name`, e.g.
  ``"char/chrf"``) and displayed as ``"chrF@char"`` (:func:`config_label`).
* **Significance tests** (:data:`SIGNIFICANCE_TESTS`): ``williams`` / ``williams_n2`` (Williams 1959, df n−3 /
  n−2; assume independent points), ``perm-inputs`` (paired permutation test swapping whole segments, Deutsch et al.
  2021) and ``perm-wmt`` (swapping each (system, segment) score alone, as mt-metrics-eval ``PermutationSigDiff``);
  :data:`TEST_NOTES` labels them, :func:`default_tests` picks them per granularity.
* **Direction**: whether a higher score of a metric is better is decided by
  :meth:`korean_eval.model.results.Results.higher_is_better` alone; :func:`direction_sign` turns that answer into the
  factor (+1, or −1 for error rates) applied before configurations are compared.

Every function of :mod:`korean_eval.metaeval` validates these names with :func:`check_choice`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Statistic = Literal["pearson", "spearman", "kendall", "pdp"]
Grouping = Literal["none", "item", "system"]
Granularity = Literal["segment", "system"]
STATISTICS: tuple[Statistic, ...] = ("pearson", "spearman", "kendall", "pdp")
#: The correlations of two vectors (every statistic but ``pdp``, which is defined on grouped matrices).
VECTOR_STATISTICS: tuple[Statistic, ...] = ("pearson", "spearman", "kendall")
GROUPINGS: tuple[Grouping, ...] = ("none", "item", "system")
GRANULARITIES: tuple[Granularity, ...] = ("segment", "system")
STATISTIC_SYMBOLS: dict[str, str] = {"pearson": "r", "spearman": "ρ", "kendall": "τ", "pdp": "PDP"}

#: Tests of "configuration a agrees with the humans more than b" (:mod:`korean_eval.metaeval.tables.significance`).
SignificanceTest = Literal["williams", "williams_n2", "perm-inputs", "perm-wmt"]
SIGNIFICANCE_TESTS: tuple[SignificanceTest, ...] = ("williams", "williams_n2", "perm-inputs", "perm-wmt")
PERMUTATION_TESTS: tuple[SignificanceTest, ...] = ("perm-inputs", "perm-wmt")
WILLIAMS_DF_OFFSET: dict[str, int] = {"williams": 3, "williams_n2": 2}
#: What each test assumes or swaps — the label the tables and pages show next to its name.
TEST_NOTES: dict[str, str] = {
    "williams": "Williams test, df = n − 3 (assumes independent points)",
    "williams_n2": "Williams test, df = n − 2 (assumes independent points)",
    "perm-inputs": "paired permutation test, a segment's scores swapped for all systems together (Deutsch et al. 2021)",
    "perm-wmt": "paired permutation test, each (system, segment) score swapped alone (WMT, mt-metrics-eval)",
}

#: A configuration: ``"level/metric"`` or the tuple ``(level, metric)``.
Config = str | tuple[str, str]


def check_choice(what: str, value: object, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``; otherwise ``ValueError("unknown <what> <value!r>; choose one of …")``.

    The one check of every name the meta-evaluation accepts: ``check_choice("statistic", s, STATISTICS)``,
    ``check_choice("grouping", g, GROUPINGS)``, ``check_choice("granularity", g, GRANULARITIES)``, tests, …
    """
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; choose one of {', '.join(choices)}")
    return str(value)


def grouping_used(granularity: str, grouping: str) -> str:
    """The grouping a correlation of ``granularity`` actually uses: ``grouping`` at the segment level, ``"none"`` at
    the system level (one point per system: nothing to group). Both names are validated."""
    check_choice("granularity", granularity, GRANULARITIES)
    check_choice("grouping", grouping, GROUPINGS)
    return grouping if granularity == "segment" else "none"


def is_grouped(granularity: str, grouping: str) -> bool:
    """Whether the correlation is an average of per-group correlations (segment level, grouping ``item`` or
    ``system``) — the case to which the Williams test does not apply."""
    return grouping_used(granularity, grouping) != "none"


def computed_statistic(statistic: str, granularity: str, grouping: str) -> str:
    """The statistic actually computed: ``pearson`` for ``pdp`` when nothing is grouped (system level, or grouping
    ``none``: one group, whose pooled pairwise differences have exactly the Pearson r of its entries;
    :mod:`korean_eval.metaeval.stats.pdp`), else ``statistic`` itself. All three names are validated."""
    check_choice("statistic", statistic, STATISTICS)
    ungrouped = grouping_used(granularity, grouping) == "none"
    return "pearson" if statistic == "pdp" and ungrouped else statistic


def system_statistic(statistic: str) -> str:
    """The statistic shown at the system level beside ``statistic`` at the segment level: SPA for acc_eq (as WMT
    pairs them), else itself."""
    return "spa" if statistic == "acc_eq" else statistic


def headline_grouping(statistic: str) -> str:
    """The segment-level grouping a single-table summary (the CLI's summary, significance tests and clusters) uses
    for ``statistic``: ``item`` for ``pdp`` (defined per segment, as WMT25 reads it; ungrouped it is Pearson r),
    ``none`` for every other."""
    return "item" if check_choice("statistic", statistic, STATISTICS) == "pdp" else "none"


def default_tests(granularity: str) -> tuple[SignificanceTest, ...]:
    """The tests run when none are chosen: ``("perm-inputs",)`` at the segment level — Williams' test treats the
    (system, segment) points as independent, but they are clustered by segment, so its p-values are too small there —
    and ``("williams", "perm-inputs")`` at the system level (one independent point per system)."""
    if check_choice("granularity", granularity, GRANULARITIES) == "segment":
        return ("perm-inputs",)
    return ("williams", "perm-inputs")


def config_name(level: str, metric: str) -> str:
    """``"level/metric"``, the name of a configuration in every table (``config_name("char", "chrf") ==
    "char/chrf"``)."""
    return f"{level}/{metric}"


def parse_config(config: Config) -> tuple[str, str]:
    """``(level, metric)`` of a configuration given as ``"level/metric"`` or as a tuple (inverse of
    :func:`config_name`; the metric may itself contain ``/``, the level may not)."""
    if isinstance(config, tuple):
        return (str(config[0]), str(config[1]))
    level, sep, metric = str(config).partition("/")
    if not sep:
        raise ValueError(f"a configuration is 'level/metric' (e.g. 'char/chrf'), got {config!r}")
    return level, metric


def config_label(metric_label: str, level: str) -> str:
    """Display name of a configuration: the metric's display label ``@`` the level (``"chrF@char"``)."""
    return f"{metric_label}@{level}"


def direction_sign(higher_is_better: bool) -> float:
    """+1.0 for a metric where higher is better, −1.0 for an error rate: multiplied into scores (or correlations)
    so that a larger signed value always means closer agreement with the humans."""
    return 1.0 if higher_is_better else -1.0
