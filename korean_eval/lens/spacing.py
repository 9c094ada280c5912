"""Spacing (띄어쓰기) errors on character-aligned regions, and a system's spacing F1 (docs/design.md §8).

Both texts lose their whitespace; each remaining character remembers whether whitespace preceded it. The two
character sequences are aligned with :class:`difflib.SequenceMatcher` (``autojunk=False``; Python's standard
library): its matching blocks are the regions where hypothesis and reference have the same non-space characters.
Inside a block of ``n`` characters there are ``n − 1`` *aligned boundaries* (between two neighbouring characters,
the same two in both texts). At each aligned boundary, the reference has a space or not (the gold decision) and so
has the hypothesis:

* ``both`` = aligned boundaries with a space in both, ``hyp_spaces`` / ``ref_spaces`` = aligned boundaries with a
  space in the hypothesis / the reference;
* ``errors = hyp_spaces + ref_spaces − 2·both``: a space inserted where the reference has none, or missing where it
  has one;
* ``precision = both / hyp_spaces``, ``recall = both / ref_spaces``, ``f1 = 2·both / (hyp_spaces + ref_spaces)``
  (NaN when undefined, as in :func:`korean_eval.lens.profile.ratios`). System level: counts summed over segments.

Boundaries outside aligned regions (next to a substituted, inserted or deleted character) are not judged: they are
not spacing errors but other errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import NamedTuple

import numpy as np
import pandas as pd

from korean_eval.lens.profile import ratios

SEGMENT_COLUMNS = ["system", "seg_id", "aligned", "hyp_spaces", "ref_spaces", "both", "errors"]
SYSTEM_COLUMNS = ["system", "segments", "segments_with_errors", "aligned", "hyp_spaces", "ref_spaces", "both",
                  "errors", "precision", "recall", "f1"]


class SpacingCounts(NamedTuple):
    """Counts of one pair (see the module docstring)."""

    aligned: int
    hyp_spaces: int
    ref_spaces: int
    both: int

    @property
    def errors(self) -> int:
        return self.hyp_spaces + self.ref_spaces - 2 * self.both


def characters_and_spaces(text: str) -> tuple[str, list[bool]]:
    """The text without whitespace, and per remaining character whether whitespace came right before it."""
    chars: list[str] = []
    spaced: list[bool] = []
    gap = False
    for ch in text:
        if ch.isspace():
            gap = True
            continue
        chars.append(ch)
        spaced.append(gap and len(chars) > 1)
        gap = False
    return "".join(chars), spaced


def aligned_boundaries(hyp_chars: str, ref_chars: str) -> list[tuple[int, int]]:
    """Aligned boundaries of two whitespace-free texts (:func:`characters_and_spaces`) as (hypothesis index,
    reference index) of the character *after* the boundary."""
    blocks = SequenceMatcher(None, hyp_chars, ref_chars, autojunk=False).get_matching_blocks()
    return [(a + k, b + k) for a, b, size in blocks for k in range(1, size)]


def _judged(hyp: str, ref: str) -> list[tuple[int, int, bool, bool]]:
    """Every aligned boundary: (hypothesis index, reference index, space in the hypothesis, in the reference)."""
    h_chars, h_spaced = characters_and_spaces(hyp)
    r_chars, r_spaced = characters_and_spaces(ref)
    return [(i, j, h_spaced[i], r_spaced[j]) for i, j in aligned_boundaries(h_chars, r_chars)]


def spacing_counts(hyp: str, ref: str) -> SpacingCounts:
    """The spacing counts of one pair (see the module docstring)."""
    judged = _judged(hyp, ref)
    return SpacingCounts(
        len(judged), sum(h for *_ij, h, _r in judged), sum(r for *_ij, _h, r in judged), sum(h and r for *_ij, h, r in judged)
    )


def spacing_errors(hyp: str, ref: str) -> list[tuple[int, str]]:
    """Where the spacing differs: (reference character index after the boundary, ``"inserted"`` | ``"missing"``)."""
    return [(j, "inserted" if h else "missing") for _i, j, h, r in _judged(hyp, ref) if h != r]


def segment_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """:data:`SEGMENT_COLUMNS` for every pair of ``pairs`` (``system, seg_id, hyp, ref``)."""
    memo: dict[tuple[str, str], SpacingCounts] = {}
    rows = []
    for system, seg_id, hyp, ref in pairs[["system", "seg_id", "hyp", "ref"]].itertuples(index=False):
        counts = memo.get((hyp, ref))
        if counts is None:
            counts = memo[(hyp, ref)] = spacing_counts(hyp, ref)
        rows.append((system, seg_id, *counts, counts.errors))
    return pd.DataFrame(rows, columns=SEGMENT_COLUMNS)


def system_table(segments: pd.DataFrame, systems: Sequence[str]) -> pd.DataFrame:
    """:data:`SYSTEM_COLUMNS` per system: counts summed over its segments, precision, recall and F1 of the sums."""
    grouped = segments.groupby("system", sort=False)
    sums = grouped[["aligned", "hyp_spaces", "ref_spaces", "both", "errors"]].sum()
    sums.insert(0, "segments", grouped.size())
    sums.insert(1, "segments_with_errors", grouped["errors"].agg(lambda e: int(np.count_nonzero(e))))
    sums = sums.reindex(list(systems), fill_value=0).rename_axis("system").reset_index()
    sums["precision"], sums["recall"], sums["f1"] = ratios(sums["hyp_spaces"], sums["ref_spaces"], sums["both"])
    return sums[SYSTEM_COLUMNS]
