"""Error profile: per category, precision, recall and F1 of the hypothesis's morphemes against the reference's
(docs/design.md §8).

A morpheme is the pair (form, tag) of Kiwi's analysis, the tag without its conjugation suffix
(:func:`korean_eval.lens.pos_categories.base_tag`). Within one (sub)category (:mod:`korean_eval.lens.pos_categories`), the
hypothesis's and the reference's morphemes are multisets ``H`` and ``R``; ``matched = |H ∩ R|`` (multiset
intersection: each morpheme counted min(times in H, times in R)), and

* ``precision = matched / |H|`` (NaN when ``|H| = 0``), ``recall = matched / |R|`` (NaN when ``|R| = 0``),
* ``f1 = 2·matched / (|H| + |R|)`` (the harmonic mean of the two where both exist; 0 when one side is empty and the
  other not; NaN when both are),
* ``errors = |H| + |R| − 2·matched``: morphemes of the hypothesis without a partner plus morphemes of the reference
  without a partner (a wrong particle counts 2: one extra, one missing).

System level: ``matched``, ``|H|`` and ``|R|`` summed over the system's segments, then the same formulas (never an
average of segment ratios). A category row (``subcategory == "all"``) sums its subcategories (a morpheme belongs to
exactly one). Segment rows where a (sub)category occurs in neither text are left out: all their counts are 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from korean_eval.lens.analysis import Analysis, Morpheme
from korean_eval.lens.pos_categories import CATEGORIES, SUBCATEGORIES, base_tag, classify

ALL = "all"
"""The subcategory name of a whole category's row."""

COUNT_COLUMNS = ["hyp", "ref", "matched", "errors"]
SEGMENT_COLUMNS = ["system", "seg_id", "category", "subcategory", *COUNT_COLUMNS]
SYSTEM_COLUMNS = ["system", "category", "subcategory", "segments", *COUNT_COLUMNS, "precision", "recall", "f1"]

_Bags = dict[tuple[str, str], Counter]

#: Support of a profile value: the morphemes it is computed over (precision: the hypothesis's, recall: the
#: reference's, F1: both sides'). A ratio resting on fewer than :data:`MIN_SUPPORT` morphemes says little (an F1 of
#: 0 over 2 morphemes), so every picture of the profile (the dashboard's heatmap, the HTML report's) greys it and
#: says so; its counts are in the hover box and the tables.
SUPPORT_COLUMNS: dict[str, tuple[str, ...]] = {"precision": ("hyp",), "recall": ("ref",), "f1": ("hyp", "ref")}
MIN_SUPPORT = 20


def morpheme_key(m: Morpheme) -> tuple[str, str]:
    """The morpheme as the profile compares it: (form, tag without ``-R``/``-I``)."""
    return m.form, base_tag(m.tag)


def bags(analysis: Analysis) -> _Bags:
    """(category, subcategory) → multiset of the analysis's morphemes in it."""
    out: _Bags = {}
    for m in analysis:
        out.setdefault(classify(m.form, m.tag), Counter())[morpheme_key(m)] += 1
    return out


def pair_counts(hyp: _Bags, ref: _Bags) -> dict[tuple[str, str], tuple[int, int, int]]:
    """(category, subcategory) → (|H|, |R|, matched) for every subcategory present in either text."""
    out = {}
    for key in hyp.keys() | ref.keys():
        h, r = hyp.get(key, Counter()), ref.get(key, Counter())
        out[key] = (h.total(), r.total(), (h & r).total())
    return out


def segment_table(pairs: pd.DataFrame, analyses: Mapping[str, Analysis]) -> pd.DataFrame:
    """Counts per (system, segment, category, subcategory) (:data:`SEGMENT_COLUMNS`): every subcategory present in
    either text, then every category (``subcategory == "all"``) as the sum of its subcategories.

    ``pairs``: ``system, seg_id, hyp, ref`` (:func:`korean_eval.lens.run.pair_table`)."""
    cache: dict[str, _Bags] = {}

    def bags_of(text: str) -> _Bags:
        if text not in cache:
            cache[text] = bags(analyses[text])
        return cache[text]

    order = {key: i for i, key in enumerate(SUBCATEGORIES)}
    rows = []
    for system, seg_id, hyp, ref in pairs[["system", "seg_id", "hyp", "ref"]].itertuples(index=False):
        counts = pair_counts(bags_of(hyp), bags_of(ref))
        for (cat, sub), (h, r, m) in sorted(counts.items(), key=lambda kv: order.get(kv[0], len(order))):
            rows.append((system, seg_id, cat, sub, h, r, m))
    frame = pd.DataFrame(rows, columns=SEGMENT_COLUMNS[:-1])
    whole = frame.groupby(["system", "seg_id", "category"], sort=False)[["hyp", "ref", "matched"]].sum().reset_index()
    whole.insert(3, "subcategory", ALL)
    out = pd.concat([whole, frame], ignore_index=True)
    out["errors"] = out["hyp"] + out["ref"] - 2 * out["matched"]
    return _in_order(out, ["system", "seg_id"], pairs)


def _in_order(frame: pd.DataFrame, keys: list[str], pairs: pd.DataFrame) -> pd.DataFrame:
    """``frame`` sorted by the pairs' order, then category order, the category row before its subcategories."""
    position = {k: i for i, k in enumerate(zip(*(pairs[c] for c in keys), strict=True))}
    pair_pos = np.asarray([position[k] for k in zip(*(frame[c] for c in keys), strict=True)])
    return _sorted(frame, pair_pos)[SEGMENT_COLUMNS]


def _sorted(frame: pd.DataFrame, leading: np.ndarray) -> pd.DataFrame:
    """``frame`` sorted by ``leading`` (one position per row), then category order, then subcategory order with the
    whole category (``all``) first."""
    cat_pos = frame["category"].map({c: i for i, c in enumerate(CATEGORIES)}).to_numpy()
    sub_order = {sub: i for i, (_cat, sub) in enumerate(SUBCATEGORIES)}
    sub_pos = frame["subcategory"].map(lambda s: -1 if s == ALL else sub_order.get(s, len(sub_order))).to_numpy()
    return frame.iloc[np.lexsort((sub_pos, cat_pos, leading))].reset_index(drop=True)


def ratios(hyp: np.ndarray, ref: np.ndarray, matched: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(precision, recall, f1) of summed counts (see the module docstring for the undefined cases)."""
    hyp, ref, matched = (np.asarray(x, dtype=np.float64) for x in (hyp, ref, matched))
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(hyp > 0, matched / hyp, np.nan)
        recall = np.where(ref > 0, matched / ref, np.nan)
        f1 = np.where(hyp + ref > 0, 2 * matched / (hyp + ref), np.nan)
    return precision, recall, f1


def system_table(segments: pd.DataFrame, systems: Sequence[str]) -> pd.DataFrame:
    """Per system and (sub)category (:data:`SYSTEM_COLUMNS`): counts summed over the system's segments, the
    number of segments where it occurs, and precision, recall and F1 of the sums. Every (system, category) row is
    present (zeros and NaN ratios where a category never occurs); subcategory rows only where they occur."""
    keys = ["system", "category", "subcategory"]
    sums = segments.groupby(keys, sort=False)[["hyp", "ref", "matched", "errors"]].sum()
    sums.insert(0, "segments", segments.groupby(keys, sort=False).size())
    whole = pd.MultiIndex.from_product([list(systems), CATEGORIES, [ALL]], names=keys)
    sums = sums.reindex(sums.index.union(whole), fill_value=0).reset_index()
    sums["precision"], sums["recall"], sums["f1"] = ratios(sums["hyp"], sums["ref"], sums["matched"])
    sys_pos = sums["system"].map({s: i for i, s in enumerate(systems)}).to_numpy()
    return _sorted(sums, sys_pos)[SYSTEM_COLUMNS]


def support(counts, value: str):
    """The support of ``value`` (:data:`SUPPORT_COLUMNS`: the morphemes a precision, recall or F1 is computed over)
    from ``counts``, a profile table or a mapping of its count columns (``hyp``, ``ref``) to equally shaped frames
    (e.g. systems × categories); None for a value that is not such a ratio (an error count)."""
    columns = SUPPORT_COLUMNS.get(value)
    if columns is None:
        return None
    total = counts[columns[0]]
    for column in columns[1:]:
        total = total + counts[column]
    return total


def small_support(counts, value: str, minimum: int = MIN_SUPPORT):
    """True where ``value`` rests on fewer than ``minimum`` morphemes (:func:`support`; ``counts`` as there), of
    the shape of ``counts["hyp"]``; all False for a value that is not a ratio."""
    total = support(counts, value)
    return counts["hyp"] < 0 if total is None else total < minimum


def unmatched(hyp: Analysis, ref: Analysis, category: str | None = None, subcategory: str = ALL) -> tuple[list[Morpheme], list[Morpheme]]:
    """The morphemes without a partner: (extra in the hypothesis, missing from it), in text order, within
    ``category``/``subcategory`` (every category when ``category`` is None). Of a morpheme occurring ``h`` times in
    the hypothesis and ``r`` times in the reference, the first ``min(h, r)`` occurrences of each side are the matched
    ones and the later ones are listed."""

    def chosen(m: Morpheme) -> bool:
        cat, sub = classify(m.form, m.tag)
        return category is None or (cat == category and subcategory in (ALL, sub))

    h_keys = Counter(morpheme_key(m) for m in hyp if chosen(m))
    r_keys = Counter(morpheme_key(m) for m in ref if chosen(m))
    common = h_keys & r_keys
    return _beyond(hyp, common, chosen), _beyond(ref, common, chosen)


def _beyond(analysis: Analysis, common: Counter, chosen) -> list[Morpheme]:
    seen: Counter = Counter()
    out = []
    for m in analysis:
        if not chosen(m):
            continue
        key = morpheme_key(m)
        seen[key] += 1
        if seen[key] > common[key]:
            out.append(m)
    return out
