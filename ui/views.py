"""Result tables → the tables the pages draw (pure pandas; no Streamlit, no Plotly).

Every function takes the backend's tidy tables (:class:`~korean_eval.model.results.Results`) and returns a new frame;
nothing here computes a score or a correlation of its own except the rank-normalised disagreement of
:func:`disagreements`, whose definition is in its docstring.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from korean_eval.exports.tables import signature_groups
from korean_eval.levels.registry import get_level, level_names
from korean_eval.metaeval.stats.correlation import MIN_SYSTEMS
from korean_eval.metaeval.tables.agreement import agreement_columns, agreement_label
from korean_eval.metaeval.tables.tidy import best_levels
from korean_eval.metrics import metric_info, metric_names
from korean_eval.model.evalset import EvalSet
from korean_eval.model.results import GIVEN_LEVEL, Results
from korean_eval.model.vocabulary import GRANULARITIES, STATISTIC_SYMBOLS, STATISTICS, system_statistic
from ui import formats

STATISTIC_LABELS = {
    "pearson": "Pearson r",
    "spearman": "Spearman ρ",
    "kendall": "Kendall τ-b",
    "pdp": "PDP (pairwise difference Pearson)",
    "acc_eq": "acc_eq (tie-calibrated pairwise accuracy)",
    "spa": "SPA (soft pairwise accuracy)",
}
#: The statistics a user picks in the sidebar: the correlations and WMT's segment-level acc_eq (whose system-level
#: companion is SPA, :func:`system_statistic`).
CHOSEN_STATISTICS: tuple[str, ...] = (*STATISTICS, "acc_eq")
SYMBOLS = {**STATISTIC_SYMBOLS, "acc_eq": "acc_eq", "spa": "SPA"}


def segment_grouping(statistic: str, grouping: str) -> str:
    """The segment-level grouping shown for ``statistic``: acc_eq is defined per item (WMT) or over all pairs, so
    the per-system grouping falls back to ``item`` for it; every other statistic keeps ``grouping``."""
    return "item" if statistic == "acc_eq" and grouping == "system" else grouping


def is_correlation(statistic: str) -> bool:
    """Whether ``statistic`` is a correlation (signed; error rates agree negatively; bootstrap intervals and
    significance tests apply) rather than a pairwise accuracy (already agreement, no interval)."""
    return statistic in STATISTICS
GROUPING_LABELS = {
    "none": "all (system, segment) pairs pooled",
    "item": "per segment across systems, averaged over segments",
    "system": "per system across segments, averaged over systems",
}
#: How PDP pools each grouping (its groups' pairwise differences are pooled into one Pearson r, not averaged).
PDP_GROUPING_LABELS = {
    "none": "all (system, segment) pairs pooled — equal to Pearson r",
    "item": "differences between systems within each segment, pooled over segments",
    "system": "differences between segments within each system, pooled over systems",
}


def grouping_label(statistic: str, grouping: str) -> str:
    """What ``grouping`` means for ``statistic``: PDP pools its groups' differences (:data:`PDP_GROUPING_LABELS`),
    every other correlation averages per-group values (:data:`GROUPING_LABELS`)."""
    return (PDP_GROUPING_LABELS if statistic == "pdp" else GROUPING_LABELS)[grouping]


FAMILY_LABELS = {
    "word": "word",
    "morpheme": "morpheme",
    "subword": "subword",
    "character": "character",
    "jamo": "jamo (consonant/vowel)",
    "given": "your own scores",
}


def level_order() -> tuple[str, ...]:
    """Every registered level in registry order, then bring-your-own metric scores."""
    return (*level_names(), GIVEN_LEVEL)


@functools.cache
def level_family(level: str) -> str:
    """Token family of a level (``given`` for bring-your-own metric scores)."""
    if level == GIVEN_LEVEL:
        return "given"
    return get_level(level).family


def _registered_info(metric: str):
    return _info_while_registered(metric, metric_names())


@functools.cache
def _info_while_registered(metric: str, registered: tuple[str, ...]):
    return metric_info(metric) if metric in registered else None


def error_rate(metric: str) -> bool:
    """Whether the registered metric ``metric`` is an error rate (lower is better); own metrics' names: False."""
    info = _registered_info(metric)
    return info is not None and not info.higher_is_better


def metric_label(metric: str) -> str:
    """Display name of a metric (``chrf++`` → ``chrF++``); bring-your-own metric names as given."""
    info = _registered_info(metric)
    return info.label if info else metric


def _level_rank(levels: pd.Series) -> pd.Series:
    order = {lv: i for i, lv in enumerate(level_order())}
    return levels.map(lambda lv: order.get(lv, len(order)))


def ordered_levels(levels: Sequence[str]) -> list[str]:
    """Levels in registry order (word, morphemes, subword, character, jamo, given)."""
    order = {lv: i for i, lv in enumerate(level_order())}
    return sorted(dict.fromkeys(levels), key=lambda lv: order.get(lv, len(order)))


def ordered_metrics(results: Results) -> list[str]:
    """Metrics in the order of the settings, then bring-your-own metrics in order of appearance."""
    seen = list(dict.fromkeys(results.system_scores["metric"]))
    chosen = [m for m in results.settings.get("metrics", []) if m in seen]
    return chosen + [m for m in seen if m not in chosen]


def correlation_view(
    results: Results, statistic: str, grouping: str, agreement: bool = True, correlations: pd.DataFrame | None = None,
    system: str | None = None,
) -> pd.DataFrame:
    """One row per (granularity, level, metric): the correlation to draw, with its n, CI and signature.

    Segment rows are ``statistic`` with ``grouping`` (:func:`segment_grouping`); system rows are always ungrouped,
    of ``system`` (default ``statistic``'s companion, :func:`korean_eval.model.vocabulary.system_statistic`). With ``agreement`` the correlations of error
    rates (TER) are negated, so that a taller bar always means closer agreement with the humans (the rule of
    :mod:`korean_eval.metaeval.tables.agreement`, shared with the HTML report); ``shown`` and
    ``shown_low``/``shown_high`` are the plotted values, ``value`` the correlation as computed. ``correlations``
    replaces ``results.correlations`` (e.g. the same table with bootstrap intervals filled in).
    """
    corr = results.correlations if correlations is None else correlations
    grouping = segment_grouping(statistic, grouping)
    system = system_statistic(statistic) if system is None else system
    df = corr[
        ((corr["granularity"] == "segment") & (corr["statistic"] == statistic) & (corr["grouping"] == grouping))
        | (
            (corr["granularity"] == "system")
            & (corr["statistic"] == system)
            & (corr["grouping"] == "none")
        )
    ].copy()
    signatures = results.signatures()
    df["signature"] = [signatures.get(f"{lv}/{m}", "") for lv, m in zip(df["level"], df["metric"], strict=True)]
    df["family"] = df["level"].map(level_family)
    df["metric_label"] = df["metric"].map(metric_label)
    df = agreement_columns(df, results.higher_is_better, agreement)
    df["shown_label"] = [agreement_label(lab, neg) for lab, neg in zip(df["metric_label"], df["negated"], strict=True)]
    metric_order = {m: i for i, m in enumerate(ordered_metrics(results))}
    df["_m"] = df["metric"].map(metric_order)
    df["_l"] = _level_rank(df["level"])
    return df.sort_values(["granularity", "_m", "_l"]).drop(columns=["_m", "_l"]).reset_index(drop=True)


def ci_text(low: float, high: float, statistic: str) -> str:
    """A confidence interval as text: ``[low, high]`` (3 decimals); never a blank or "None" — "n/a" says why
    there is none (correlations and the pairwise accuracies alike are bootstrapped)."""
    if np.isfinite(low) and np.isfinite(high):
        return formats.interval(low, high, formats.CORRELATION_DIGITS)
    return "n/a (intervals off, or undefined)"


def numbers_table(view: pd.DataFrame) -> pd.DataFrame:
    """The numbers behind the charts as text, one row per configuration and granularity: the value with 3
    decimals, CIs by :func:`ci_text` (a column only when some interval was computed), the degenerate-data flag (a
    column only when some row has one), n, acc_eq's ε ("—" elsewhere) and the signature."""
    out = view[["granularity", "grouping", "level", "family", "metric_label", "statistic"]].copy()
    out = out.rename(columns={"metric_label": "metric"})
    out["value"] = formats.texts(view["value"], formats.correlation)
    if np.isfinite(view["ci_low"].to_numpy(float)).any():  # with the intervals off, no column of "n/a"
        out["95% CI"] = [
            ci_text(lo, hi, st) for lo, hi, st in zip(view["ci_low"], view["ci_high"], view["statistic"], strict=True)
        ]
    if "flag" in view and view["flag"].fillna("").astype(str).str.len().gt(0).any():
        out["degenerate data"] = [str(f) if isinstance(f, str) and f else formats.DASH for f in view["flag"]]
    out["n"] = formats.texts(view["n"], formats.count)
    if "epsilon" in view:
        out["ε (acc_eq)"] = [f"{e:.4g}" if np.isfinite(e) else formats.DASH for e in view["epsilon"]]
    out["signature"] = view["signature"]
    return out.reset_index(drop=True)


def best_level_sentences(
    results: Results, statistic: str, grouping: str, agreement: bool = False,
    correlations: pd.DataFrame | None = None, system: str | None = None,
) -> dict[str, list[str]]:
    """Plain-English statements of the token level with the highest agreement per metric
    (``metaeval.tidy.best_levels``), per granularity: ``statistic`` with ``grouping`` at the segment level, ``system``
    (default ``statistic``'s companion) at the system level, as :func:`correlation_view` draws them. Untested: they say "highest", never "best". With
    ``agreement`` an error rate is written as the charts draw it (:func:`correlation_view`): ``−TER`` and its
    negated correlation ``−r`` (and interval); without, its most negative correlation as computed. ``correlations``:
    the table with bootstrap intervals, whose 95% CI then follows each value."""
    out: dict[str, list[str]] = {}
    table = results.correlations if correlations is None else correlations
    for granularity in GRANULARITIES:
        if granularity == "system":
            shown = system_statistic(statistic) if system is None else system
        else:
            shown = statistic
        symbol = SYMBOLS[shown]
        used = segment_grouping(shown, grouping) if granularity == "segment" else "none"
        best = best_levels(table, granularity, shown, used)
        rows = table[(table["granularity"] == granularity) & (table["statistic"] == shown)
                     & (table["grouping"] == used)].set_index(["level", "metric"])
        lines = []
        for row in best.itertuples():
            if row.level == GIVEN_LEVEL:
                continue
            label = metric_label(row.metric)
            error_rate = is_correlation(statistic) and not results.higher_is_better(row.metric, row.level)
            low, high = (float(rows.loc[(row.level, row.metric), c]) for c in ("ci_low", "ci_high"))
            if error_rate and agreement:  # as the charts draw it: −TER and its −r
                label, sym, value, extra = f"−{label}", f"−{symbol}", -row.value, ""
                low, high = -high, -low
            else:
                sym, value = symbol, row.value
                extra = " (an error rate: its most negative correlation)" if error_rate else ""
            ci = (f", 95% CI [{formats.with_minus_sign(low, 3)}, {formats.with_minus_sign(high, 3)}]"
                  if np.isfinite(low) and np.isfinite(high) else "")
            lines.append(f"{label}: highest agreement at the {row.level} level "
                         f"({sym} = {formats.with_minus_sign(value, 3)}){ci}{extra}.")
        out[granularity] = lines
    return out


def score_table(results: Results, metric: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The study's Table 4 for one metric: systems (by human rank) × levels.

    Returns ``(scores, ranks, differs)``: metric scores, metric ranks (1 = best), and a boolean frame that is True
    where the metric's rank of a system differs from its human rank. Each frame has the columns ``Human`` (mean
    human score / human rank; only with human scores) then one per level. Systems by human rank; without human
    scores, by the metric's mean rank over the levels.
    """
    rk = results.rankings[results.rankings["metric"] == metric]
    hs = results.human_systems.set_index("system")
    levels = ordered_levels(rk["level"].unique())
    with_human = bool(hs["human_rank"].notna().any())
    if with_human:
        order = hs.sort_values(["human_rank", "system"], na_position="last").index.tolist()
    else:  # best first by the metric's mean rank over the levels, then by name
        mean_rank = rk.groupby("system")["metric_rank"].mean()
        order = sorted(hs.index, key=lambda s: (not np.isfinite(mean_rank.get(s, np.nan)),
                                                 float(mean_rank.get(s, 0.0)), s))
    scores = rk.pivot(index="system", columns="level", values="metric_score").reindex(index=order, columns=levels)
    ranks = rk.pivot(index="system", columns="level", values="metric_rank").reindex(index=order, columns=levels)
    human_rank = hs["human_rank"].reindex(order)
    differs = ranks.ne(human_rank, axis=0) & ranks.notna() & human_rank.notna().to_numpy()[:, None]
    if with_human:
        scores.insert(0, "Human", hs["human_mean"].reindex(order))
        ranks.insert(0, "Human", human_rank)
        differs.insert(0, "Human", False)
    for frame in (scores, ranks, differs):
        frame.index.name = "system"
        frame.columns.name = None
    return scores, ranks, differs


def rank_paths(results: Results, metric: str) -> pd.DataFrame:
    """Long table for a bump chart: ``system, stage, rank, score, differs`` with stage ``Human`` then each level."""
    rk = results.rankings[results.rankings["metric"] == metric]
    hs = results.human_systems
    rows = [
        {"system": r.system, "stage": "Human", "rank": r.human_rank, "score": r.human_mean, "differs": False}
        for r in hs.itertuples()
    ]
    for level in ordered_levels(rk["level"].unique()):
        for r in rk[rk["level"] == level].itertuples():
            rows.append(
                {
                    "system": r.system,
                    "stage": level,
                    "rank": r.metric_rank,
                    "score": r.metric_score,
                    "differs": bool(np.isfinite(r.metric_rank) and np.isfinite(r.human_rank) and r.metric_rank != r.human_rank),
                }
            )
    return pd.DataFrame(rows, columns=["system", "stage", "rank", "score", "differs"])


def flip_counts(results: Results) -> pd.DataFrame:
    """Number of flipped system pairs per metric (rows) × level (columns); 0 where none."""
    metrics = ordered_metrics(results)
    levels = ordered_levels(results.system_scores["level"].unique())
    counts = results.flips.groupby(["metric", "level"]).size()
    out = pd.DataFrame(0, index=[metric_label(m) for m in metrics], columns=levels, dtype=int)
    for (m, lv), n in counts.items():
        out.loc[metric_label(m), lv] = int(n)
    out.index.name = "metric"
    return out


def signature_tables(results: Results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The signatures without repetition (:func:`korean_eval.exports.tables.signature_groups`): ``(by_metric,
    by_level)``, one row per metric and shared signature (``metric, signature, levels``: the signature without its
    ``|level:`` part, and the levels sharing it) and one per level (``level, level part``: its tokenizer and
    version). A configuration's signature is its metric's row followed by ``|level:`` and its level's part."""
    groups, levels = signature_groups(results.signatures())
    by_metric = pd.DataFrame([{"metric": metric_label(m), "signature": head, "levels": ", ".join(lvs)}
                              for m, head, lvs in groups], columns=["metric", "signature", "levels"])
    by_level = pd.DataFrame([{"level": lv, "level part": part} for lv, part in levels.items()],
                            columns=["level", "level part"])
    return by_metric, by_level


def signatures_table(results: Results) -> pd.DataFrame:
    sigs = results.signatures()
    rows = [{"level": k.split("/", 1)[0], "metric": metric_label(k.split("/", 1)[1]), "signature": v} for k, v in sigs.items()]
    return pd.DataFrame(rows, columns=["level", "metric", "signature"])


def _percentile_ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks scaled to (0, 1]: rank / n (ties share their mean rank)."""
    return pd.Series(values).rank(method="average").to_numpy() / len(values)


def disagreements(results: Results, evalset: EvalSet, level: str, metric: str) -> pd.DataFrame:
    """Segments of one level × metric with a human score, most disagreeing first.

    Definition: over the (system, segment) pairs that have both a metric and a human score, each score is turned
    into its percentile rank (average rank / n, ties sharing their mean rank; an error rate such as TER is ranked
    on its negation, so that a high percentile is "good" for both). ``difference = metric percentile − human
    percentile``: +0.9 means the metric rates the segment among the best while the humans rate it among the worst.
    Rows are sorted by ``|difference|`` descending.
    """
    seg = results.segment_scores
    seg = seg[(seg["level"] == level) & (seg["metric"] == metric)][["system", "seg_id", "score"]]
    human = evalset.human
    cols = [
        "system", "seg_id", "human", "metric", "metric_pct", "human_pct", "difference", "abs_difference", "hyp", "ref", "src",
    ]
    if human is None or seg.empty:
        return pd.DataFrame(columns=cols)
    df = seg.merge(human[["system", "seg_id", "score"]].rename(columns={"score": "human"}), on=["system", "seg_id"])
    df = df.rename(columns={"score": "metric"})
    df = df[np.isfinite(df["metric"]) & np.isfinite(df["human"])].reset_index(drop=True)
    if df.empty:
        return pd.DataFrame(columns=cols)
    sign = 1.0 if results.higher_is_better(metric, level) else -1.0
    df["metric_pct"] = _percentile_ranks(sign * df["metric"].to_numpy(float))
    df["human_pct"] = _percentile_ranks(df["human"].to_numpy(float))
    df["difference"] = df["metric_pct"] - df["human_pct"]
    df["abs_difference"] = df["difference"].abs()
    texts = segment_texts(evalset)
    df = df.merge(texts, on=["system", "seg_id"], how="left")
    return df.sort_values(["abs_difference", "system", "seg_id"], ascending=[False, True, True])[cols].reset_index(drop=True)


def segment_texts(evalset: EvalSet) -> pd.DataFrame:
    """``system, seg_id, hyp, ref, src`` (first reference; "" without sources) for every present hypothesis."""
    rows = []
    ref0 = evalset.refs[0] if evalset.refs else [""] * evalset.n_segments
    src = evalset.src or [""] * evalset.n_segments
    for name, hyps in evalset.systems.items():
        for i, hyp in enumerate(hyps):
            if hyp is not None:
                rows.append((name, evalset.seg_ids[i], hyp, ref0[i], src[i]))
    return pd.DataFrame(rows, columns=["system", "seg_id", "hyp", "ref", "src"])


def preview(evalset: EvalSet, rows: int = 20, systems: Sequence[str] | None = None) -> pd.DataFrame:
    """The first segments side by side: seg_id, source, reference(s), the hypothesis of each of ``systems`` (None:
    every system)."""
    n = min(rows, evalset.n_segments)
    df = pd.DataFrame({"seg_id": evalset.seg_ids[:n]})
    if evalset.src:
        df["source"] = evalset.src[:n]
    for j, stream in enumerate(evalset.refs):
        df["reference" if evalset.n_refs == 1 else f"reference {j + 1}"] = stream[:n]
    for name, hyps in evalset.systems.items():
        if hyps and (systems is None or name in systems):
            df[name] = hyps[:n]
    return df


def human_overview(evalset: EvalSet) -> pd.DataFrame:
    """Per system: human-scored segments and the mean human score."""
    if evalset.human is None:
        return pd.DataFrame(columns=["system", "scored segments", "mean human score"])
    g = evalset.human.groupby("system", sort=False)["score"]
    return pd.DataFrame({"scored segments": g.size(), "mean human score": g.mean()}).reset_index()


def tokens_side_by_side(tokens: dict[str, list[str]]) -> pd.DataFrame:
    """``level, family, tokens (joined by ' · '), count`` for one text tokenised at several levels."""
    rows = [
        {"level": lv, "family": FAMILY_LABELS.get(level_family(lv), level_family(lv)), "tokens": " · ".join(toks), "count": len(toks)}
        for lv, toks in tokens.items()
    ]
    return pd.DataFrame(rows, columns=["level", "family", "tokens", "count"])


def metric_timings(results: Results) -> pd.DataFrame:
    """Seconds per metric (rows) × level (columns), from ``Results.timings`` (scoring stage only)."""
    t = results.timings[results.timings["stage"] == "score"]
    if t.empty:
        return pd.DataFrame()
    out = t.pivot_table(index="metric", columns="level", values="seconds", aggfunc="sum")
    out = out.reindex(index=[m for m in ordered_metrics(results) if m in out.index], columns=ordered_levels(out.columns))
    out.index = [metric_label(m) for m in out.index]
    out.index.name = "metric"
    out.columns.name = None
    return out


# ------------------------------------------------------------------------------------------ statistics views

#: The five labels of :func:`korean_eval.metaeval.tables.system_pairs.system_pairs_table`, with their cell colours and a short
#: explanation each (the legend of the pair table).
def undefined_correlations(view: pd.DataFrame, evalset: EvalSet, results: Results, granularity: str) -> str:
    """Why every correlation of ``granularity`` is undefined, in a sentence ("" when some are defined)."""
    df = view[view["granularity"] == granularity]
    if df.empty or df["value"].notna().any():
        return ""
    human = evalset.human
    scores = human["score"] if human is not None else pd.Series(dtype=float)
    scored = int(results.human_systems["human_mean"].notna().sum()) if "human_mean" in results.human_systems else 0
    if granularity == "system" and scored < MIN_SYSTEMS:
        return (
            f"System-level correlation needs at least {MIN_SYSTEMS} systems with human scores; these data have "
            f"{scored}. Two points always lie on a line, so a correlation over them would say nothing — none is shown."
        )
    if len(scores) and scores.nunique() <= 1:
        return (
            f"Every human score is the same ({scores.iloc[0]:g}), so the human scores do not vary and no correlation "
            f"with them is defined at the {granularity} level — none is shown. Check the score column."
        )
    if granularity == "system":
        return (
            "The systems' mean human scores (or every metric's system scores) are all equal, so no system-level "
            "correlation is defined — none is shown."
        )
    return (
        "No segment-level correlation is defined: too few (system, segment) pairs have both a metric and a human "
        "score, or the scores do not vary — none is shown."
    )
