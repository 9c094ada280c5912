"""The headline cards of the Correlations page: what the significance tests allow one to say (pure; no Streamlit).

A card never names a single "best" configuration on its own value. It names the *top significance cluster*
(docs/design.md §5: rank clusters as WMT builds them, mt-metrics-eval ``AssignRanks``; computed by
:func:`korean_eval.metaeval.tables.significance.top_cluster_table`): walking the configurations best first, each one joins
the cluster unless a member of it agrees with the humans significantly more (one-sided paired permutation test,
Deutsch et al. 2021; for acc_eq and SPA, mt-metrics-eval's tests as WMT runs them,
:mod:`korean_eval.metaeval.tables.accuracy_significance`). One member: it is ahead of the next; several: they tie at
the top; all: no significant difference — unless the test's design cannot give a p-value below α at all
(:mod:`korean_eval.metaeval.tables.resolution`: e.g. the exact test over 4 systems, smallest p 1/16), when the card
says that the test cannot separate them, and what it would need.

One source for card and chart: the reader's choice (:data:`HEADLINE_CHOICES`) fixes, per granularity, the statistic
and grouping that *both* the card and the chart beneath it show (:func:`plotted_statistics`); a card's numbers are
read from the chart's own rows (the ``shown`` column of :func:`ui.views.correlation_view`), and its detail line
states statistic, grouping, test, resampling and α (:class:`Basis`). A statistic without a test here (acc_eq over all
pairs, SPA without permutations, pairwise accuracy) gets :func:`accuracy_card`: the highest value, said to be
untested. A system-level card says on how many systems it rests and, below :data:`MIN_SYSTEMS_FOR_WINNER`, that
these are too few to call a winner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from korean_eval.metaeval.tables import agreement
from korean_eval.metaeval.tables.resolution import table_resolution
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.results import GIVEN_LEVEL
from korean_eval.model.vocabulary import system_statistic
from ui import formats
from ui.views import STATISTIC_LABELS, SYMBOLS, grouping_label, is_correlation, metric_label, segment_grouping

#: Below this many systems a system-level card says the ranking rests on too few systems to call a winner.
MIN_SYSTEMS_FOR_WINNER = 8
#: Top-cluster members named in a card's detail line (the rest are counted).
NAMED_MEMBERS = 8
#: What the headline cards — and the charts beneath them — show: the sidebar's statistic and grouping at both
#: levels, acc_eq grouped by item at the segment level (WMT's official segment-level statistic), SPA at the system
#: level, or both of WMT's (WMT25's metrics task ranks by acc_eq over items and by SPA).
HEADLINE_CHOICES: dict[str, str] = {
    "chart": "the sidebar's statistic and grouping",
    "acc_eq": "acc_eq grouped by item (WMT's official)",
    "spa": "SPA (system level)",
    "wmt25": "WMT25's choice: acc_eq by item · SPA",
}
#: What acc_eq's groupings compare (Deutsch, Foster & Freitag 2023; :mod:`korean_eval.metaeval.stats.tie_calibrated`).
ACC_EQ_GROUPING_LABELS = {
    "item": "the system pairs of each segment, averaged over segments: WMT's official acc_eq",
    "none": "every pair of (system, segment) entries pooled",
}


@dataclass(frozen=True)
class Plotted:
    """The statistic and grouping one granularity's card and chart show (the system level is never grouped)."""

    statistic: str
    grouping: str


def plotted_statistics(choice: str, statistic: str, grouping: str) -> dict[str, Plotted]:
    """Per granularity, what card and chart show for a :data:`HEADLINE_CHOICES` key, given the sidebar's
    ``statistic`` and ``grouping``: ``acc_eq`` (and ``wmt25``) draw acc_eq grouped by item at the segment level,
    ``spa`` (and ``wmt25``) SPA at the system level; otherwise the sidebar's statistic with the grouping it supports
    (:func:`ui.views.segment_grouping`) and its system-level companion
    (:func:`korean_eval.model.vocabulary.system_statistic`)."""
    if choice in ("acc_eq", "wmt25"):
        segment = Plotted("acc_eq", "item")
    else:
        segment = Plotted(statistic, segment_grouping(statistic, grouping))
    system = Plotted("spa" if choice in ("spa", "wmt25") else system_statistic(statistic), "none")
    return {"segment": segment, "system": system}


def headline_statistics(choice: str, chart_segment: str, chart_system: str) -> dict[str, str]:
    """The statistic of each granularity's card for a :data:`HEADLINE_CHOICES` key, given the sidebar's statistics:
    ``acc_eq`` replaces the segment level's, ``spa`` the system level's, ``wmt25`` both (:func:`plotted_statistics`
    with the groupings)."""
    segment = "acc_eq" if choice in ("acc_eq", "wmt25") else chart_segment
    system = "spa" if choice in ("spa", "wmt25") else chart_system
    return {"segment": segment, "system": system}


#: The test behind each kind of card, in words (statistic → test; correlations by granularity).
TEST_WORDS = {
    "acc_eq": "paired permutation test over the system pairs of each segment, each configuration at its own ε "
              "(WMT's, mt-metrics-eval PairwisePermutationSigDiff)",
    "spa": "paired permutation test of z-scored (system, segment) scores, SPA recomputed (WMT's, mt-metrics-eval "
           "PermutationSigDiff)",
    "segment": "paired permutation test, segments swapped whole with all their systems (Deutsch et al. 2021)",
    "system": "paired permutation test, systems swapped whole (Deutsch et al. 2021)",
}


def test_words(statistic: str, granularity: str) -> str:
    """:data:`TEST_WORDS` of a card's statistic and granularity."""
    return TEST_WORDS.get(statistic, TEST_WORDS[granularity])


def where_text(statistic: str, granularity: str, grouping: str) -> str:
    """``"segment level, grouping none (all (system, segment) pairs pooled)"``; the system level says what its points
    are."""
    if granularity == "system":
        if statistic in ("spa", "pairwise_accuracy"):
            return "system level (pairs of systems)"
        return "system level (each system's corpus score against its mean human score)"
    meaning = ACC_EQ_GROUPING_LABELS.get(grouping, "") if statistic == "acc_eq" else grouping_label(statistic, grouping)
    return f"segment level, grouping {grouping}" + (f" ({meaning})" if meaning else "")


@dataclass(frozen=True)
class Basis:
    """What a card was computed from: ``statistic`` at ``granularity`` with ``grouping``, decided by ``test`` (words)
    with ``resampling`` (``"exact, 16 sign patterns"``, ``"Monte-Carlo, 1,000 permutations, seed 12345"``:
    :func:`korean_eval.metaeval.tables.resolution.table_resolution`) at ``alpha``; ``limit``: why the design cannot
    reach α ("" when it can) and ``cannot_separate`` whether that holds for every comparison."""

    statistic: str
    granularity: str
    grouping: str
    test: str
    resampling: str
    alpha: float = ALPHA
    limit: str = ""
    cannot_separate: bool = False

    def text(self) -> str:
        """``"Pearson r, system level (…); paired permutation test, …; exact, 16 sign patterns; α = 0.05"``."""
        parts = [f"{STATISTIC_LABELS.get(self.statistic, self.statistic)}, "
                 f"{where_text(self.statistic, self.granularity, self.grouping)}", self.test, self.resampling,
                 f"α = {self.alpha:g}"]
        return "; ".join(p for p in parts if p)


@dataclass(frozen=True)
class Card:
    """One headline card: a short title, the statement, a detail line (how it was decided) and a caution."""

    title: str
    statement: str
    detail: str
    caution: str = ""


def config_phrase(level: str, metric: str, sign: float = 1.0) -> str:
    """``"chrF+ at jamo"``; an error rate compared by its agreement is ``"−TER at char"``; own metrics by name."""
    label = ("−" if sign < 0 else "") + metric_label(metric)
    return label if level == GIVEN_LEVEL else f"{label} at {level}"


def shown_phrase(level: str, shown_label: str) -> str:
    """A configuration as its chart labels it: ``"−TER at char"`` (``shown_label`` from the chart's rows)."""
    return shown_label if level == GIVEN_LEVEL else f"{shown_label} at {level}"


def _faithful(value: float, digits: int) -> bool:
    """Whether ``value`` rounded to ``digits`` keeps clear of ±1 (a correlation of 0.9953 is not "1.00")."""
    return abs(value) == 1.0 or abs(round(value, digits)) < 1.0


def value_range(values: Sequence[float], symbol: str) -> str:
    """``"r 0.50–0.51"``: the range of ``values`` with as many decimals (2 to 4) as it takes to tell its ends apart
    without rounding either to ±1; ``"r = 0.51"`` when they are equal."""
    lo, hi = float(np.min(values)), float(np.max(values))
    digits = next((d for d in (2, 3, 4) if formats.with_minus_sign(lo, d) != formats.with_minus_sign(hi, d)
                   and _faithful(lo, d) and _faithful(hi, d)), 4)
    if formats.with_minus_sign(lo, digits) == formats.with_minus_sign(hi, digits):
        return f"{symbol} = {formats.with_minus_sign(hi, 3)}"
    return f"{symbol} {formats.with_minus_sign(lo, digits)}–{formats.with_minus_sign(hi, digits)}"


def _others(k: int) -> str:
    return f"{k} other" + ("" if k == 1 else "s")


def chart_rows(clusters: pd.DataFrame, view: pd.DataFrame, granularity: str) -> pd.DataFrame:
    """The rows of the chart (``view``, :func:`ui.views.correlation_view`, at ``granularity``) of the configurations of
    ``clusters``, in the clusters' order, with their ``cluster``: ``level, metric, shown, shown_label, cluster``. The
    card's numbers and names are these, so a card states only what its chart draws."""
    drawn = view[view["granularity"] == granularity].set_index(["level", "metric"])
    keys = list(zip(clusters["level"], clusters["metric"], strict=True))
    missing = [k for k in keys if k not in drawn.index]
    if missing:
        raise ValueError(f"configurations of the clusters are not on the chart: {missing}")
    rows = drawn.loc[keys, ["shown", "shown_label"]].reset_index()
    rows["cluster"] = clusters["cluster"].to_numpy()
    return rows[np.isfinite(rows["shown"].astype(float))].reset_index(drop=True)


def _members(top: pd.DataFrame) -> str:
    names = [shown_phrase(r.level, r.shown_label) for r in top.head(NAMED_MEMBERS).itertuples()]
    more = len(top) - len(names)
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


def cluster_card(clusters: pd.DataFrame, view: pd.DataFrame, basis: Basis, n_defined: int,
                 n_systems: int) -> Card | None:
    """The card of one granularity from its rank clusters (``rank_clusters_table`` rows, best first, holding at
    least cluster 1 and the first configuration below it), with the values and names of the chart beneath it
    (:func:`chart_rows` of ``view``) and a detail line of its :class:`Basis`. ``n_defined``: configurations with a
    defined value (all of them, not only those in ``clusters``). When the design cannot reach α for any comparison
    (``basis.cannot_separate``) the card says that the test cannot separate the configurations, never that they
    tie. None when there is none."""
    rows = chart_rows(clusters, view, basis.granularity)
    if rows.empty or n_defined < 1:
        return None
    symbol = SYMBOLS[basis.statistic]
    top, below = rows[rows["cluster"] == 1], rows[rows["cluster"] > 1]
    lead = top.iloc[0]
    first = shown_phrase(lead["level"], lead["shown_label"])
    k = len(top)
    spread = value_range(top["shown"].astype(float), symbol)
    how = basis.text() + "."
    if n_defined == 1:
        statement = f"Only one configuration to compare: {first} ({symbol} = {formats.with_minus_sign(lead['shown'], 3)})"
        detail = f"{STATISTIC_LABELS.get(basis.statistic, basis.statistic)}, " \
                 f"{where_text(basis.statistic, basis.granularity, basis.grouping)}."
    elif basis.cannot_separate:
        statement = f"The test cannot separate these {n_defined} configurations ({spread})"
        detail = f"{basis.limit}. Decided by: {how} The chart draws them without a top cluster."
    else:
        if k == 1 and len(below):
            nxt = below.iloc[0]
            statement = (f"{first} agrees most with the humans ({symbol} = {formats.with_minus_sign(lead['shown'], 3)}), "
                         f"significantly more than the next, {shown_phrase(nxt['level'], nxt['shown_label'])} "
                         f"({symbol} = {formats.with_minus_sign(nxt['shown'], 3)})")
        elif k >= n_defined:
            statement = f"No significant difference: all {n_defined} configurations tie ({spread})"
        else:
            statement = f"{first} and {_others(k - 1)} tie at the top ({spread})"
        detail = (f"Top significance cluster: {k} of {n_defined} — {_members(top)}. Decided by: {how} Within it no "
                  "configuration agrees significantly more than another.")
        if basis.limit:
            detail += f" {basis.limit}."
    return Card(_title(basis.granularity, n_systems), statement, detail, _system_caution(basis.granularity, n_systems))


#: Why acc_eq over all pairs gets no rank clusters here.
ACC_EQ_NONE_UNTESTED = ("WMT's test (mt-metrics-eval PairwisePermutationSigDiff) compares acc_eq grouped by item; "
                        f"choose “{HEADLINE_CHOICES['acc_eq']}” under “Headline and charts follow” for its rank "
                        "clusters")


def untested_reason(plotted: Plotted, spa_permutations: int) -> str | None:
    """Why a card of ``plotted`` names no significance cluster (its statistic has no test here: acc_eq over all
    pairs, SPA computed without permutations, pairwise accuracy); None when it is tested."""
    if plotted.statistic == "acc_eq" and plotted.grouping != "item":
        return ACC_EQ_NONE_UNTESTED
    if plotted.statistic == "spa" and not spa_permutations:
        return "SPA was computed without permutations"
    return None if has_significance(plotted.statistic) else "there is no significance test for it here"


def tested_card(view: pd.DataFrame, plotted: Plotted, granularity: str, n_systems: int, table: pd.DataFrame,
                clusters: pd.DataFrame, test: str, seed: int = SEED, n_permutations: int = RESAMPLES,
                alpha: float = ALPHA) -> tuple[Card | None, frozenset[tuple[str, str]]]:
    """The card of one granularity whose chart (``view``'s rows) draws ``plotted``, from the tests that found its top
    cluster (``table``: their significance rows, with ``method``; ``clusters``: the rank clusters; ``test``: the
    test's name, e.g. ``perm-inputs``), and the ``(level, metric)`` the chart outlines: the top cluster, or nothing
    when the test cannot separate any configurations (:func:`korean_eval.metaeval.tables.resolution.table_resolution`
    with ``seed``, ``n_permutations`` and ``alpha``)."""
    n_defined = int(np.isfinite(view.loc[view["granularity"] == granularity, "shown"].astype(float)).sum())
    if n_defined == 0:
        return None, frozenset()
    found = table_resolution(table, plotted.statistic, granularity, test, alpha, seed, n_permutations)
    basis = Basis(plotted.statistic, granularity, plotted.grouping, test_words(plotted.statistic, granularity),
                  found.resampling, alpha, found.limit, found.cannot_separate)
    card = cluster_card(clusters, view, basis, n_defined, n_systems)
    return card, frozenset() if found.cannot_separate else top_configs(clusters)


def accuracy_card(view: pd.DataFrame, granularity: str, statistic: str, n_systems: int, grouping: str = "none",
                  why: str = "") -> Card | None:
    """The card of a statistic no test ranks here (acc_eq over all pairs, SPA without permutations, pairwise
    accuracy): the highest value on the chart (``view``'s ``shown``), said to be untested, with ``why`` (default: no
    significance test for it here). None when none is defined."""
    df = view[(view["granularity"] == granularity) & view["shown"].notna()]
    if df.empty:
        return None
    lead = df.loc[df["shown"].idxmax()]
    spread = value_range(df["shown"].astype(float), SYMBOLS[statistic])
    statement = (f"Highest {SYMBOLS[statistic]}: {shown_phrase(lead['level'], lead['shown_label'])} "
                 f"({formats.with_minus_sign(lead['shown'], 3)}; range of all {spread})")
    where = f"{STATISTIC_LABELS.get(statistic, statistic)}, {where_text(statistic, granularity, grouping)}"
    detail = (f"{where}. Not tested: {why or 'there is no significance test for it here'}, so no winner is named.")
    return Card(_title(granularity, n_systems), statement, detail, _system_caution(granularity, n_systems))


def _title(granularity: str, n_systems: int) -> str:
    if granularity == "system":
        return f"System level · {n_systems} system{'s' if n_systems != 1 else ''}"
    return "Segment level"


def _system_caution(granularity: str, n_systems: int) -> str:
    if granularity != "system" or n_systems >= MIN_SYSTEMS_FOR_WINNER:
        return ""
    return (f"Only {n_systems} systems: too few to call a winner. A system-level correlation over {n_systems} points "
            "is fragile; read the order as indicative.")


def level_spread(view: pd.DataFrame) -> dict[str, object] | None:
    """The metric whose segment-level agreement moves most between token levels
    (:func:`korean_eval.metaeval.tables.agreement.level_spread` of the plotted value, own metrics excluded): its
    ``metric``, ``shown_label``, and the ``low``/``high`` rows (``level``, ``shown``). None with fewer than two
    levels."""
    spread = agreement.level_spread(view)
    return None if spread is None else {**spread, "shown_label": spread["high"]["shown_label"]}


def spread_card(spread: Mapping[str, object], statistic: str, verdict: Mapping[str, object] | None,
                grouping: str = "none", seed: int = SEED, alpha: float = ALPHA) -> Card:
    """The "token level matters most for …" card, with the permutation test of its two ends (``verdict``: a
    :func:`korean_eval.metaeval.tables.compare.compare_two` result, ``p_values`` and ``methods`` by test; None for a
    statistic not tested here), its statistic, ``grouping``, test and resampling (``seed``) stated."""
    low, high = spread["low"], spread["high"]
    symbol = SYMBOLS[statistic]
    statement = (f"{symbol} {formats.with_minus_sign(low['shown'], 3)} at {low['level']} → {formats.with_minus_sign(high['shown'], 3)} at "
                 f"{high['level']}")
    where = f"{STATISTIC_LABELS.get(statistic, statistic)}, {where_text(statistic, 'segment', grouping)}"
    if verdict is None:
        detail = f"Not tested: there is no significance test for it here ({where})."
    else:
        test, p = next(iter(verdict["p_values"].items()), ("", float("nan")))
        method = dict(verdict.get("methods", {})).get(test, "")
        found = table_resolution(pd.DataFrame({"method": [method], "p_value": [p]}), statistic, "segment", test,
                                 alpha, seed)
        p_text = "n/a" if not np.isfinite(p) else "< 0.001" if p < 0.001 else f"= {p:.3f}"
        basis = Basis(statistic, "segment", grouping, test_words(statistic, "segment"), found.resampling, alpha)
        if found.cannot_separate:
            head = f"The test cannot separate the two ends (p {p_text}): {found.limit}"
        else:
            head = ("The two ends differ significantly" if verdict["significant"] else
                    "The two ends do not differ significantly") + f" (p {p_text})"
        detail = f"{head}. {basis.text()}."
    return Card(f"Token level matters most for {spread['shown_label']}", statement, detail)


def top_configs(clusters: pd.DataFrame) -> frozenset[tuple[str, str]]:
    """``(level, metric)`` of the top significance cluster's members with a defined correlation."""
    top = clusters[(clusters["cluster"] == 1) & np.isfinite(clusters["correlation"].astype(float))]
    return frozenset(zip(top["level"], top["metric"], strict=True))


def has_significance(statistic: str) -> bool:
    """Whether cards of ``statistic`` can state significance: correlations, acc_eq and SPA (pairwise accuracy has
    no test here)."""
    return is_correlation(statistic) or statistic in ("acc_eq", "spa")
