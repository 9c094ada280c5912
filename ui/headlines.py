"""The headline cards of the Correlations page: what the significance tests allow one to say (pure; no Streamlit).

A card never names a single "best" configuration on its own value. It names the *top significance cluster*
(docs/design.md §5: rank clusters as WMT builds them, mt-metrics-eval ``AssignRanks``; computed by
:func:`korean_eval.metaeval.tables.significance.top_cluster_table`): walking the configurations best first, each one joins
the cluster unless a member of it agrees with the humans significantly more (one-sided paired permutation test,
Deutsch et al. 2021; for acc_eq and SPA, mt-metrics-eval's tests as WMT runs them,
:mod:`korean_eval.metaeval.tables.accuracy_significance`). One member: it is ahead of the next; several: they tie at
the top; all: no significant difference. Which statistic each granularity's card follows is the reader's choice
(:data:`HEADLINE_CHOICES`, :func:`headline_statistics`): the charts' statistic, acc_eq at the segment level, SPA at
the system level, or WMT25's pair of both. :func:`accuracy_card` (the highest value, said to be untested) remains
for an accuracy no test can rank (SPA without permutations). A system-level card says on how many systems it
rests and, below :data:`MIN_SYSTEMS_FOR_WINNER`, that these are too few to call a winner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from korean_eval.metaeval.tables import agreement
from korean_eval.model.results import GIVEN_LEVEL
from ui import formats
from ui.views import SYMBOLS, is_correlation, metric_label

#: Below this many systems a system-level card says the ranking rests on too few systems to call a winner.
MIN_SYSTEMS_FOR_WINNER = 8
#: Top-cluster members named in a card's detail line (the rest are counted).
NAMED_MEMBERS = 8
#: What the headline cards follow: the charts' statistic at both levels, acc_eq at the segment level, SPA at the
#: system level, or both of WMT's (WMT25's metrics task ranks by acc_eq over items and by SPA).
HEADLINE_CHOICES: dict[str, str] = {
    "chart": "the charts' statistic",
    "acc_eq": "acc_eq (segment level)",
    "spa": "SPA (system level)",
    "wmt25": "WMT25's choice: acc_eq · SPA",
}


def headline_statistics(choice: str, chart_segment: str, chart_system: str) -> dict[str, str]:
    """The statistic of each granularity's card for a :data:`HEADLINE_CHOICES` key, given the charts' statistics:
    ``acc_eq`` replaces the segment level's, ``spa`` the system level's, ``wmt25`` both."""
    segment = "acc_eq" if choice in ("acc_eq", "wmt25") else chart_segment
    system = "spa" if choice in ("spa", "wmt25") else chart_system
    return {"segment": segment, "system": system}


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


def value_range(values: Sequence[float], symbol: str) -> str:
    """``"r 0.50–0.51"``: the range of ``values`` with as many decimals (2 to 4) as it takes to tell its ends apart;
    ``"r = 0.51"`` when they are equal."""
    lo, hi = float(np.min(values)), float(np.max(values))
    digits = next((d for d in (2, 3, 4) if formats.with_minus_sign(lo, d) != formats.with_minus_sign(hi, d)), 4)
    if formats.with_minus_sign(lo, digits) == formats.with_minus_sign(hi, digits):
        return f"{symbol} = {formats.with_minus_sign(hi, 3)}"
    return f"{symbol} {formats.with_minus_sign(lo, digits)}–{formats.with_minus_sign(hi, digits)}"


def _others(k: int) -> str:
    return f"{k} other" + ("" if k == 1 else "s")


def _members(top: pd.DataFrame) -> str:
    names = [config_phrase(r.level, r.metric, r.sign) for r in top.head(NAMED_MEMBERS).itertuples()]
    more = len(top) - len(names)
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


def cluster_card(clusters: pd.DataFrame, granularity: str, statistic: str, n_defined: int, n_systems: int,
                 test: str) -> Card | None:
    """The card of one granularity from its rank clusters (``rank_clusters_table`` rows, best first, holding at
    least cluster 1 and the first configuration below it): statement, the cluster's members and the ``test`` that
    decided it. ``n_defined``: configurations with a defined correlation (all of them, not only those in
    ``clusters``). None when there is none."""
    defined = clusters[np.isfinite(clusters["correlation"].astype(float))]
    if defined.empty or n_defined < 1:
        return None
    symbol = SYMBOLS[statistic]
    top, below = defined[defined["cluster"] == 1], defined[defined["cluster"] > 1]
    lead = top.iloc[0]
    first = config_phrase(lead["level"], lead["metric"], lead["sign"])
    k = len(top)
    if n_defined == 1:
        statement = f"Only one configuration to compare: {first} ({symbol} = {formats.with_minus_sign(lead['correlation'], 3)})"
    elif k == 1 and len(below):
        nxt = below.iloc[0]
        statement = (f"{first} agrees most with the humans ({symbol} = {formats.with_minus_sign(lead['correlation'], 3)}), "
                     f"significantly more than the next, {config_phrase(nxt['level'], nxt['metric'], nxt['sign'])} "
                     f"({symbol} = {formats.with_minus_sign(nxt['correlation'], 3)})")
    elif k >= n_defined:
        statement = (f"No significant difference: all {n_defined} configurations tie "
                     f"({value_range(top['correlation'].astype(float), symbol)})")
    else:
        spread = value_range(top["correlation"].astype(float), symbol)
        statement = f"{first} and {_others(k - 1)} tie at the top ({spread})"
    detail = (f"Top significance cluster: {k} of {n_defined} — {_members(top)}. Decided by the {test}; within it no "
              "configuration agrees significantly more than another.") if n_defined > 1 else ""
    return Card(_title(granularity, n_systems), statement, detail, _system_caution(granularity, n_systems))


def accuracy_card(view: pd.DataFrame, granularity: str, statistic: str, n_systems: int) -> Card | None:
    """The card of an accuracy (acc_eq, SPA): the highest value, said to be untested. None when none is defined."""
    df = view[(view["granularity"] == granularity) & view["shown"].notna()]
    if df.empty:
        return None
    lead = df.loc[df["shown"].idxmax()]
    spread = value_range(df["shown"].astype(float), SYMBOLS[statistic])
    statement = (f"Highest {SYMBOLS[statistic]}: {config_phrase(lead['level'], lead['metric'])} "
                 f"({formats.with_minus_sign(lead['shown'], 3)}; range of all {spread})")
    detail = ("Not tested: there is no significance test for accuracies here, so no winner is named. Choose Pearson, "
              "Spearman or Kendall for rank clusters.")
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


def spread_card(spread: Mapping[str, object], statistic: str, verdict: Mapping[str, object] | None) -> Card:
    """The "token level matters most for …" card, with the permutation test of its two ends (``verdict``: a
    :func:`korean_eval.metaeval.tables.compare.compare_two` result; None for accuracies, which are not tested)."""
    low, high = spread["low"], spread["high"]
    symbol = SYMBOLS[statistic]
    statement = (f"{symbol} {formats.with_minus_sign(low['shown'], 3)} at {low['level']} → {formats.with_minus_sign(high['shown'], 3)} at "
                 f"{high['level']}")
    if verdict is None:
        detail = "Not tested: there is no significance test for accuracies here."
    else:
        p = next(iter(verdict["p_values"].values()), float("nan"))
        p_text = "n/a" if not np.isfinite(p) else "< 0.001" if p < 0.001 else f"= {p:.3f}"
        detail = ("The two ends differ significantly" if verdict["significant"] else
                  "The two ends do not differ significantly") + f" (paired permutation test, p {p_text})."
    return Card(f"Token level matters most for {spread['shown_label']}", statement, detail)


def top_configs(clusters: pd.DataFrame) -> frozenset[tuple[str, str]]:
    """``(level, metric)`` of the top significance cluster's members with a defined correlation."""
    top = clusters[(clusters["cluster"] == 1) & np.isfinite(clusters["correlation"].astype(float))]
    return frozenset(zip(top["level"], top["metric"], strict=True))


def has_significance(statistic: str) -> bool:
    """Whether cards of ``statistic`` can state significance: correlations, acc_eq and SPA (pairwise accuracy has
    no test here)."""
    return is_correlation(statistic) or statistic in ("acc_eq", "spa")
