"""The Korean lens's tables → what the "Korean lens" page draws (pure pandas; no Streamlit, no Plotly).

Every number comes from :class:`korean_eval.lens.run.LensResult` (the same tables the CLI's ``profile`` writes);
nothing here computes a statistic. Text pieces for highlighted examples are ``(text, mark)`` pairs, ``mark`` empty
for plain text and ``"extra"`` / ``"missing"`` / ``"edit"`` for a highlighted span.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from korean_eval.lens.analysis import analyse
from korean_eval.lens.perturb import KIND_LABELS, KINDS
from korean_eval.lens.pos_categories import CATEGORIES, CATEGORY_LABELS
from korean_eval.lens.profile import ALL, unmatched
from korean_eval.lens.run import LensResult
from korean_eval.lens.spacing import spacing_errors
from korean_eval.lens.speech_level import SPEECH_LEVEL_LABELS, SPEECH_LEVELS
from ui.views import metric_label, ordered_levels

Pieces = list[tuple[str, str]]

PROFILE_VALUES = {
    "f1": "F1",
    "precision": "precision",
    "recall": "recall",
    "errors_per_segment": "errors per segment",
}
PROBE_VALUES = {
    "relative_to_drop": "relative to dropping a content eojeol (1 = as severe)",
    "mean_penalty": "mean penalty (metric units; higher = punished more)",
}


def profile_matrix(result: LensResult, value: str) -> pd.DataFrame:
    """Systems (rows) × categories (columns) of the whole-category rows of ``result.profile``: ``f1``,
    ``precision``, ``recall`` or ``errors_per_segment`` (summed errors / the system's segments)."""
    whole = result.profile[result.profile["subcategory"] == ALL].copy()
    segments = result.spacing.set_index("system")["segments"]
    whole["errors_per_segment"] = whole["errors"] / whole["system"].map(segments).where(lambda s: s > 0)
    table = whole.pivot_table(index="system", columns="category", values=value, sort=False, dropna=False)
    systems = list(dict.fromkeys(result.profile["system"]))
    return table.reindex(index=systems, columns=list(CATEGORIES))


def profile_counts(result: LensResult) -> dict[str, pd.DataFrame]:
    """The counts behind :func:`profile_matrix`, each systems × categories: ``hyp``, ``ref`` and ``matched``
    morphemes summed per system (the hover boxes, and the support of
    :func:`korean_eval.lens.profile.small_support`)."""
    whole = result.profile[result.profile["subcategory"] == ALL]
    systems = list(dict.fromkeys(result.profile["system"]))
    return {column: whole.pivot_table(index="system", columns="category", values=column, sort=False, aggfunc="sum")
            .reindex(index=systems, columns=list(CATEGORIES)).fillna(0).astype(int)
            for column in ("hyp", "ref", "matched")}


def category_label(category: str, subcategory: str = ALL) -> str:
    return CATEGORY_LABELS[category] if subcategory == ALL else f"{CATEGORY_LABELS[category]}: {subcategory}"


def subcategories(result: LensResult, category: str) -> list[str]:
    """``all`` and the subcategories of ``category`` that occur in the data, in table order."""
    rows = result.profile[result.profile["category"] == category]
    return [ALL, *(s for s in dict.fromkeys(rows["subcategory"]) if s != ALL)]


def marked(text: str, spans: Iterable[tuple[int, int]], mark: str) -> Pieces:
    """``text`` cut into pieces, the (merged) ``spans`` marked; a zero-width span marks the character it sits on."""
    merged: list[list[int]] = []
    for start, end in sorted((s, max(e, s + 1)) for s, e in spans):
        start, end = max(0, start), min(len(text), end)
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces: Pieces = []
    position = 0
    for start, end in merged:
        pieces += [(text[position:start], ""), (text[start:end], mark)]
        position = end
    pieces.append((text[position:], ""))
    return [(t, m) for t, m in pieces if t]


def category_examples(result: LensResult, system: str, category: str, subcategory: str = ALL, limit: int = 8) -> list[dict]:
    """The system's segments with the most errors in the (sub)category: ``seg_id``, ``errors``, the hypothesis with
    its extra morphemes marked and the reference with its missing morphemes marked
    (:func:`korean_eval.lens.profile.unmatched`)."""
    seg = result.profile_segments
    rows = seg[(seg["system"] == system) & (seg["category"] == category) & (seg["subcategory"] == subcategory)]
    rows = rows[rows["errors"] > 0].sort_values("errors", ascending=False, kind="stable").head(limit)
    texts = result.pairs.set_index(["system", "seg_id"])
    out = []
    for seg_id, errors in rows[["seg_id", "errors"]].itertuples(index=False):
        hyp, ref = texts.loc[(system, seg_id), ["hyp", "ref"]]
        analyses = analyse([hyp, ref])
        extra, missing = unmatched(analyses[hyp], analyses[ref], category, subcategory)
        out.append({
            "seg_id": seg_id, "errors": int(errors),
            "hyp": marked(hyp, [(m.start, m.end) for m in extra], "extra"),
            "ref": marked(ref, [(m.start, m.end) for m in missing], "missing"),
        })
    return out


def confusion_matrix(result: LensResult, system: str) -> pd.DataFrame:
    """Reference level (rows) × hypothesis level (columns): segments of ``system``."""
    rows = result.speech_level_confusion[result.speech_level_confusion["system"] == system]
    table = rows.pivot_table(index="ref_level", columns="hyp_level", values="segments", aggfunc="sum")
    labels = [SPEECH_LEVEL_LABELS[lv] for lv in SPEECH_LEVELS]
    table = table.reindex(index=list(SPEECH_LEVELS), columns=list(SPEECH_LEVELS), fill_value=0)
    table.index, table.columns = labels, labels
    return table


def speech_examples(result: LensResult, system: str, limit: int = 8) -> pd.DataFrame:
    """The system's segments whose speech level or honorific differs from the reference's, with both texts."""
    seg = result.speech_level_segments
    rows = seg[(seg["system"] == system) & (~seg["agree"] | seg["honorific_mismatch"])].head(limit)
    texts = result.pairs.set_index(["system", "seg_id"])
    return pd.DataFrame({
        "seg_id": rows["seg_id"].to_numpy(),
        "reference level": rows["ref_level"].map(SPEECH_LEVEL_LABELS).to_numpy(),
        "hypothesis level": rows["hyp_level"].map(SPEECH_LEVEL_LABELS).to_numpy(),
        "honorific 시 (ref / hyp)": [f"{'yes' if r else 'no'} / {'yes' if h else 'no'}"
                                     for r, h in zip(rows["ref_honorific"], rows["hyp_honorific"], strict=True)],
        "hypothesis": [texts.loc[(system, s), "hyp"] for s in rows["seg_id"]],
        "reference": [texts.loc[(system, s), "ref"] for s in rows["seg_id"]],
    })


def spacing_examples(result: LensResult, system: str, limit: int = 8) -> list[dict]:
    """The system's segments with spacing errors: the reference with the characters after each wrong boundary
    marked (``missing``: the reference has a space there, the hypothesis not; ``extra``: the other way round)."""
    seg = result.spacing_segments
    rows = seg[(seg["system"] == system) & (seg["errors"] > 0)].sort_values("errors", ascending=False, kind="stable")
    texts = result.pairs.set_index(["system", "seg_id"])
    out = []
    for seg_id, errors in rows[["seg_id", "errors"]].head(limit).itertuples(index=False):
        hyp, ref = texts.loc[(system, seg_id), ["hyp", "ref"]]
        where = [i for i, ch in enumerate(ref) if not ch.isspace()]
        found = spacing_errors(hyp, ref)
        pieces = marked(ref, [(where[j], where[j] + 1) for j, kind in found if kind == "missing"], "missing")
        out.append({"seg_id": seg_id, "errors": int(errors), "hyp": [(hyp, "")], "ref": pieces,
                    "inserted": sum(kind == "inserted" for _j, kind in found)})
    return out


def config_label(metric: str, level: str) -> str:
    return f"{metric_label(metric)} · {level}"


def probe_matrix(result: LensResult, value: str) -> pd.DataFrame:
    """Configurations (rows ``(metric, level)``: metrics in the chosen order, levels in the dashboard's order within
    each) × perturbation kinds (columns, display order) of ``result.probe.summary[value]``."""
    summary = result.probe.summary
    levels = ordered_levels(list(dict.fromkeys(summary["level"])))
    metrics = list(dict.fromkeys(summary["metric"]))
    table = summary.set_index(["kind", "metric", "level"])[value]
    kinds = [k for k in KINDS if k in set(summary["kind"])]
    index = pd.MultiIndex.from_tuples([(m, lv) for m in metrics for lv in levels], names=["metric", "level"])
    data = [[table.get((k, m, lv), np.nan) for k in kinds] for m, lv in index]
    return pd.DataFrame(data, index=index, columns=kinds)


def probe_sentences(result: LensResult, kinds: Sequence[str] = ("spacing", "particle_within", "speech_level")) -> list[str]:
    """Plain sentences: for each of ``kinds``, the configuration that punishes it most and least, relative to
    dropping a content eojeol."""
    summary = result.probe.summary.dropna(subset=["relative_to_drop"])
    out = []
    for kind in kinds:
        rows = summary[summary["kind"] == kind]
        if rows.empty:
            continue
        most = rows.loc[rows["relative_to_drop"].idxmax()]
        least = rows.loc[rows["relative_to_drop"].idxmin()]
        out.append(
            f"**{KIND_LABELS[kind]}**: {config_label(most['metric'], most['level'])} punishes it most "
            f"({most['relative_to_drop']:.0%} of a dropped content eojeol), {config_label(least['metric'], least['level'])} "
            f"least ({least['relative_to_drop']:.0%})."
        )
    return out


def applicability(result: LensResult) -> pd.DataFrame:
    """Per kind: segments where it applied, where it could not, and the most frequent reason."""
    table = result.probe.perturbations
    rows = []
    for kind, group in table.groupby("kind", sort=False):
        reasons = group.loc[~group["applied"], "reason"].value_counts()
        rows.append({
            "perturbation": KIND_LABELS[str(kind)],
            "applied": int(group["applied"].sum()),
            "cannot apply": int((~group["applied"]).sum()),
            "most frequent reason": f"{reasons.index[0]} ({reasons.iloc[0]})" if len(reasons) else "",
        })
    return pd.DataFrame(rows)


def probe_examples(result: LensResult, kind: str, metric: str, level: str, limit: int = 8) -> list[dict]:
    """Segments perturbed by ``kind`` with their score change at ``metric`` × ``level``, most punished first: the
    reference with the edited span marked, the perturbed reference with the new span marked, the edit in words."""
    seg = result.probe.segments
    rows = seg[(seg["kind"] == kind) & (seg["metric"] == metric) & (seg["level"] == level)]
    rows = rows.sort_values("penalty", ascending=False, kind="stable").head(limit)
    table = result.probe.perturbations.set_index(["kind", "seg_id"])
    out = []
    for seg_id, change in rows[["seg_id", "change"]].itertuples(index=False):
        p = table.loc[(kind, seg_id)]
        out.append({
            "seg_id": seg_id, "change": float(change), "edit": p["edit"],
            "ref": marked(p["reference"], [(int(p["ref_start"]), int(p["ref_end"]))], "edit"),
            "hyp": marked(p["perturbed"], [(int(p["new_start"]), int(p["new_end"]))], "edit"),
        })
    return out


def not_applied(result: LensResult, kind: str) -> pd.DataFrame:
    """The segments where ``kind`` cannot apply, with the reason."""
    table = result.probe.perturbations
    rows = table[(table["kind"] == kind) & ~table["applied"]]
    return rows[["seg_id", "reason", "reference"]].reset_index(drop=True)


def correlation_view(result: LensResult, statistic: str) -> pd.DataFrame:
    """The correlation rows of ``result.human_links`` for ``statistic``, strongest (most negative) first."""
    links = result.human_links
    rows = links[(links["analysis"] == "correlation") & (links["statistic"] == statistic)].dropna(subset=["value"])
    return rows.sort_values("value", kind="stable").reset_index(drop=True)


def model_view(result: LensResult) -> tuple[pd.DataFrame, float, int]:
    """The linear model's coefficient rows, its R² and n (NaN, 0 without a model)."""
    links = result.human_links
    rows = links[links["analysis"] == "ols"]
    r2 = rows[rows["statistic"] == "r2"]
    coefficients = rows[rows["statistic"] == "coefficient"][["feature", "value", "ci_low", "ci_high", "n"]]
    if r2.empty:
        return coefficients, float("nan"), 0
    return coefficients.reset_index(drop=True), float(r2["value"].iloc[0]), int(r2["n"].iloc[0])
