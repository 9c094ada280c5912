"""Which kinds of errors each configuration notices (docs/design.md §5, "Which errors each configuration
notices").

* :func:`with_korean_categories` — every target span whose offsets fit its hypothesis gets the Korean category of
  the characters it covers (:func:`korean_eval.lens.span_category.korean_category`, on Kiwi's morphemes); source
  spans, spans without offsets and spans that do not fit get none, with the reason in ``korean_reason``.
* :func:`category_table` — MQM category × Korean category: span counts and up to three examples (the covered text).
* :func:`category_penalties` — per MQM category a ``(n_systems, n_items)`` penalty matrix: per item, the mean over
  its judgments (every rater of every group who rated it) of the summed weights of that category's errors — 0 for a
  judgment without one, NaN for an item nobody rated.
* :func:`category_correlations` — per metric × level and MQM category, the segment-level correlation (grouping
  ``none``, over the (system, item) pairs with both) of the metric's segment scores with the *negated* penalty,
  error-rate metrics sign-flipped as everywhere (:func:`korean_eval.model.vocabulary.direction_sign`), so that a larger
  value means the configuration tracks that kind of error more closely; with percentile bootstrap intervals over
  items (:func:`korean_eval.metaeval.stats.resampling.bootstrap_segment_correlations` on the run's seeded draw).
  Descriptive: categories overlap within a segment, so the values are not independent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from korean_eval.lens.analysis import analyse
from korean_eval.lens.span_category import korean_category
from korean_eval.metaeval.stats.correlation import segment_correlation
from korean_eval.metaeval.stats.resampling import bootstrap_segment_correlations, percentile_ci
from korean_eval.metaeval.tables.intervals import bootstrap_counts
from korean_eval.metaeval.tables.tidy import human_matrix
from korean_eval.model.defaults import RESAMPLES, SEED
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import direction_sign

__all__ = ["CATEGORY_CORRELATION_COLUMNS", "category_correlations", "category_penalties", "category_table",
           "span_tables", "tracking_sentences", "with_korean_categories"]

CATEGORY_CORRELATION_COLUMNS = ["level", "metric", "mqm_category", "statistic", "value", "ci_low", "ci_high", "n",
                                "n_spans"]
NO_CATEGORY = "(none)"


def _reason(row, text: str | None) -> str:
    if row.is_source_error:
        return "source error"
    if pd.isna(row.start) or pd.isna(row.end):
        return "no span"
    if text is None:
        return "no hypothesis"
    return "" if pd.notna(row.fits) and bool(row.fits) else "offsets do not fit the text"


def with_korean_categories(spans: pd.DataFrame, systems: Mapping[str, Sequence[str | None]], seg_ids: Sequence[str],
                           cache=None) -> pd.DataFrame:
    """``spans`` (``EvalSet.spans``) with ``korean_category`` and ``korean_reason`` (module docstring); each
    distinct hypothesis is analysed once by Kiwi."""
    position = {s: i for i, s in enumerate(seg_ids)}
    texts = [systems[r.system][position[r.seg_id]] if r.system in systems and r.seg_id in position else None
             for r in spans.itertuples()]
    reasons = [_reason(r, t) for r, t in zip(spans.itertuples(), texts, strict=True)]
    wanted = [t for t, why in zip(texts, reasons, strict=True) if not why]
    analyses = analyse(list(dict.fromkeys(wanted)), cache) if wanted else {}
    categories = [korean_category(t, int(r.start), int(r.end), analyses[t]) if not why else None
                  for r, t, why in zip(spans.itertuples(), texts, reasons, strict=True)]
    covered = [t[int(r.start):int(r.end)] if not why else "" for r, t, why in zip(spans.itertuples(), texts, reasons,
                                                                                   strict=True)]
    return spans.assign(korean_category=categories, korean_reason=reasons, covered=covered)


def category_table(spans: pd.DataFrame, examples: int = 3) -> pd.DataFrame:
    """MQM category × Korean category of :func:`with_korean_categories`'s spans: ``mqm_category, korean_category,
    spans, examples`` (spans without a Korean category under ``(none)``, with their reason)."""
    df = spans.assign(
        mqm_category=spans["category"].fillna(NO_CATEGORY),
        korean_category=[c if isinstance(c, str) and c else f"{NO_CATEGORY}: {why}" for c, why in
                         zip(spans["korean_category"], spans["korean_reason"], strict=True)],
    )
    rows = []
    for (mqm, korean), group in df.groupby(["mqm_category", "korean_category"], sort=True):
        shown = [t for t in dict.fromkeys(group["covered"]) if t][:examples]
        rows.append({"mqm_category": mqm, "korean_category": korean, "spans": len(group), "examples": " · ".join(shown)})
    return pd.DataFrame(rows, columns=["mqm_category", "korean_category", "spans", "examples"])


def category_penalties(spans: pd.DataFrame, ratings: pd.DataFrame, systems: Sequence[str],
                       seg_ids: Sequence[str]) -> dict[str, np.ndarray]:
    """MQM category → ``(n_systems, n_items)`` mean penalty of that category per item (module docstring)."""
    judgment = ["group", "rater", "system", "seg_id"]
    base = ratings[judgment].drop_duplicates()
    out = {}
    for category, rows in spans.assign(category=spans["category"].fillna(NO_CATEGORY)).groupby("category", sort=True):
        summed = rows.groupby(judgment, sort=False)["weight"].sum().rename("penalty").reset_index()
        per_judgment = base.merge(summed, on=judgment, how="left").fillna({"penalty": 0.0})
        per_item = per_judgment.groupby(["system", "seg_id"], sort=False)["penalty"].mean().rename("score").reset_index()
        out[str(category)] = human_matrix(per_item, systems, seg_ids)
    return out


def category_correlations(results: Results, spans: pd.DataFrame, ratings: pd.DataFrame, statistic: str = "pearson",
                          resamples: int = RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Per configuration × MQM category, the correlation with the negated penalty and its interval (module
    docstring); :data:`CATEGORY_CORRELATION_COLUMNS`."""
    penalties = category_penalties(spans, ratings, results.systems, results.seg_ids)
    counts = bootstrap_counts(len(results.seg_ids), resamples, seed) if resamples > 0 else None
    n_spans = spans["category"].fillna(NO_CATEGORY).value_counts()
    rows = []
    for (level, metric), matrix in results.segment_matrices.items():
        signed = direction_sign(results.higher_is_better(metric, level)) * np.asarray(matrix, dtype=np.float64)
        for category, penalty in penalties.items():
            found = segment_correlation(signed, -penalty, statistic, "none")
            low = high = np.nan
            if counts is not None and np.isfinite(found.value):
                low, high = percentile_ci(bootstrap_segment_correlations(signed, -penalty, statistic, "none", counts))
            rows.append({"level": level, "metric": metric, "mqm_category": category, "statistic": statistic,
                         "value": found.value, "ci_low": low, "ci_high": high, "n": found.n,
                         "n_spans": int(n_spans.get(category, 0))})
    return pd.DataFrame(rows, columns=CATEGORY_CORRELATION_COLUMNS)


def span_tables(results: Results, systems: Mapping[str, Sequence[str | None]], statistic: str = "pearson",
                resamples: int = RESAMPLES, seed: int = SEED, cache=None) -> dict[str, pd.DataFrame]:
    """The files of the error-span analysis (none without spans): ``error_spans.csv`` (every span with its Korean
    category), ``error_categories.csv`` (:func:`category_table`) and ``category_correlations.csv``
    (:func:`category_correlations`)."""
    if results.spans is None or results.spans.empty or results.human_ratings is None:
        return {}
    spans = with_korean_categories(results.spans, systems, results.seg_ids, cache)
    return {
        "error_spans.csv": spans,
        "error_categories.csv": category_table(spans),
        "category_correlations.csv": category_correlations(results, spans, results.human_ratings, statistic,
                                                           resamples, seed),
    }


def tracking_sentences(table: pd.DataFrame, label=lambda level, metric: f"{metric}@{level}") -> list[str]:
    """Per configuration of a :func:`category_correlations` table, the MQM category whose penalties it tracks most
    closely, e.g. ``chrf@jamo tracks Fluency/Grammar penalties most closely (pearson 0.412 [0.301, 0.508]; then
    Accuracy/Mistranslation 0.250, outside that interval)``. When the runner-up's value lies inside the top
    category's bootstrap 95% interval the two are not separated and the sentence says they are tracked alike; with
    no interval it only says which is highest. Descriptive: no test between categories."""
    lines = []
    for (level, metric), rows in table.dropna(subset=["value"]).groupby(["level", "metric"], sort=False):
        ranked = rows.sort_values("value", ascending=False)
        top, who = ranked.iloc[0], label(level, metric)
        has_ci = bool(np.isfinite(top.ci_low))
        ci = f" [{top.ci_low:.3f}, {top.ci_high:.3f}]" if has_ci else ""
        if len(ranked) == 1:
            lines.append(f"{who} tracks {top.mqm_category} penalties ({top.statistic} {top.value:.3f}{ci})")
            continue
        second = ranked.iloc[1]
        if not has_ci:
            lines.append(f"{who}: highest with {top.mqm_category} penalties ({top.statistic} {top.value:.3f}; then "
                         f"{second.mqm_category} {second.value:.3f}; no interval computed, so not separated)")
        elif second.value >= top.ci_low:
            lines.append(f"{who} tracks {top.mqm_category} and {second.mqm_category} penalties alike "
                         f"({top.statistic} {top.value:.3f}{ci} and {second.value:.3f}, inside that interval)")
        else:
            lines.append(f"{who} tracks {top.mqm_category} penalties most closely ({top.statistic} "
                         f"{top.value:.3f}{ci}; then {second.mqm_category} {second.value:.3f}, outside that interval)")
    return lines
