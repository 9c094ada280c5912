"""CharacTER (Wang et al., 2016, "CharacTER: Translation Edit Rate on Character Level") on token strings
(group "extended", ``docs/design.md §3``).

Definition implemented — the authors' reference implementation (``rwth-i6/CharacTER``, ``CharacTER.py``, function
``cer``; the same algorithm as the ``cer`` package used by HuggingFace ``evaluate``) applied to the *tokens* of a
token string: the words that are shifted are the tokens (``text.split(" ")``), and the characters are the
characters of the space-joined token string, **including the single spaces between tokens** (at word level this
is exactly the reference implementation on whitespace-split text).

1. Shifts (word level, greedy, as in the reference): repeat

   * candidates: every pair ``(s1, s2)`` with ``s1 != s2`` and ``hyp[s1] == ref[s2]`` (exact token match), with the
     phrase length ``L`` = the longest run ``hyp[s1+t] == ref[s2+t]``; the candidate removes ``hyp[s1:s1+L]`` and
     re-inserts it at index ``s2`` of the shortened list (Python slice insertion, i.e. at ``min(s2, n - L)``);
   * gain = word-level Levenshtein distance (unit costs) of the current hypothesis to the reference minus that
     of the candidate; the candidate with the largest ``(gain, shifted word list)`` (Python ordering: ties go to
     the lexicographically largest word list, as the reference's ``scores.sort(); scores[-1]``) is applied if
     its gain is > 0, otherwise the search stops.

2. Shift cost: the reference's ``_shift_cost(shifted, original)`` (same logic, see :func:`shift_cost`): scanning
   original positions ``i`` with ``original[i] != shifted[i]``, it finds the first later shifted position where
   ``original[i]`` re-appears, extends the run of following words that also agree, adds the *average character
   length of the words of that run* and skips the run; positions whose word does not re-appear later add 0. So a
   shifted word costs about its length in characters, not 1 (the shift cost is not a count of shifts).
3. Edit distance: character-level Levenshtein distance (unit costs) between ``" ".join(shifted words)`` and
   ``" ".join(reference words)``.
4. Score = ``min(1, (shift cost + edit distance) / len(" ".join(hyp words)))`` — normalised by the *hypothesis*
   length (the paper's choice), capped at 1 (as the ``cer`` package; the rwth script does not cap).

Reported × 100 (0-100, lower is better). Multiple references: the minimum (best) score over the references.
Corner cases: an empty hypothesis scores 100 against a non-empty reference (the reference implementation returns
1.0 for every empty hypothesis); an empty hypothesis against an empty reference scores 0 (nothing to edit — a
deliberate deviation from the reference's division guard). A non-empty hypothesis against an empty reference
scores 100 (the cap). Corpus score: the mean of the sentence scores (the reference script prints the average),
statistics ``[100 · score, 1]``.

Length guard (option ``max_tokens``, default 1,500, 0 = off; not part of the reference, whose search costs
``Θ(n · m)`` per shift round): a (hypothesis, reference) pair with a side of more than ``max_tokens`` tokens is not
searched; a segment left without any pair gets the statistics row ``[NaN, NaN]``, a missing segment
(:class:`CharacTER`, ``docs/design.md §3``).

The exact and fast computation of this search is described in :mod:`korean_eval.metrics.kernels.character`;
segments can be scored on several threads (``n_jobs``). The tests compare the kernels with a direct Python port of
the reference on random inputs and with the published ``cer`` test values.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from korean_eval.metrics.base import (
    MetricInfo,
    SentenceMeanMetric,
    resolve_jobs,
    run_chunked,
    segment_references,
    tokens_of,
)
from korean_eval.metrics.declaration import IntOption, MetricDeclaration, RuntimeSetting
from korean_eval.metrics.kernels.character import character_batch

#: Default length guard (tokens per side): one MT-like jamo pair of 1,500 tokens costs ≈ 13 s of CPU, of 1,000
#: ≈ 3 s, of 2,000 ≈ 31 s (``benchmarks/bench_ter_length.py --lengths 1000 1500 2000``, 2026-11-24; benchmarks/README.md).
DEFAULT_MAX_TOKENS = 1500

CHARACTER_DECLARATION = MetricDeclaration(
    "character",
    "CharacTER",
    "extended",
    False,
    corpus_definition="mean of the sentence CharacTER scores × 100 (as the reference script); statistics (score, 1)",
    arguments=(
        IntOption(
            "max_tokens", DEFAULT_MAX_TOKENS, 0, 100_000_000,
            "length guard: a pair with a side longer than this many tokens is not scored (0 = no limit)",
        ),
    ),
    runtime=(RuntimeSetting("n_jobs", None, "worker threads (None = all usable cores); no effect on the statistics"),),
    kernels=("korean_eval.metrics.kernels.character", "korean_eval.metrics.kernels.levenshtein"),
)


class _Encoded:
    """Flat integer encoding of (hypothesis, reference) pairs for :func:`character_batch`.

    Per segment, the vocabulary (hypothesis and reference tokens) is sorted by code point, so that comparing
    word-id sequences equals Python's comparison of the word lists; characters get segment-local ids with the blank
    as id 0.
    """

    def __init__(self, hyps: Sequence[str], seg_refs: Sequence[Sequence[str]]):
        ids: list[int] = []
        woff: list[int] = []
        wchars: list[int] = []
        cols: dict[str, list[int]] = {k: [] for k in ("hs", "he", "rs", "re", "vs", "ve", "nc", "seg")}
        for i, (hyp, refs) in enumerate(zip(hyps, seg_refs, strict=True)):
            if not refs:
                continue  # a segment without a searchable pair (max_tokens): no pair, no vocabulary
            h_tokens = tokens_of(hyp)
            r_tokens = [tokens_of(r) for r in refs]
            vocab = sorted(set(h_tokens).union(*r_tokens))
            word_id = {w: k for k, w in enumerate(vocab)}
            char_id: dict[str, int] = {" ": 0}
            v0 = len(woff)
            woff.append(len(wchars))
            for w in vocab:
                wchars.extend(char_id.setdefault(c, len(char_id)) for c in w)
                woff.append(len(wchars))
            v1 = len(woff)
            h0 = len(ids)
            ids.extend(word_id[w] for w in h_tokens)
            h1 = len(ids)
            for rt in r_tokens:
                r0 = len(ids)
                ids.extend(word_id[w] for w in rt)
                for key, value in (("hs", h0), ("he", h1), ("rs", r0), ("re", len(ids)), ("vs", v0), ("ve", v1),
                                   ("seg", i)):
                    cols[key].append(value)
            cols["nc"].extend([len(char_id)] * len(r_tokens))
        self.ids = np.asarray(ids, dtype=np.int64)
        self.woff = np.asarray(woff, dtype=np.int64)
        self.wchars = np.asarray(wchars, dtype=np.int64)
        self.cols = {k: np.asarray(v, dtype=np.int64) for k, v in cols.items()}

    @property
    def n_pairs(self) -> int:
        return len(self.cols["hs"])

    def run(self, lo: int, hi: int, out: np.ndarray) -> None:
        """Score pairs ``lo:hi`` into ``out[lo:hi]`` (releases the GIL while computing)."""
        c = self.cols
        character_batch(self.ids, c["hs"][lo:hi], c["he"][lo:hi], c["rs"][lo:hi], c["re"][lo:hi],
                         c["vs"][lo:hi], c["ve"][lo:hi], self.woff, self.wchars, c["nc"][lo:hi], out[lo:hi])


_CHUNK_PAIRS = 64


def token_count(text: str) -> int:
    """``len(tokens_of(text))`` without building the list."""
    return text.count(" ") + 1 if text else 0


def searchable_references(
    hyps: Sequence[str], seg_refs: Sequence[Sequence[str]], max_tokens: int
) -> list[list[str]]:
    """Per segment, the references the shift search is run against under the length guard ``max_tokens``: none
    when the hypothesis has more than ``max_tokens`` tokens, else those with at most ``max_tokens`` tokens; every
    reference when ``max_tokens`` is 0 (no guard)."""
    if max_tokens == 0:
        return [list(refs) for refs in seg_refs]
    return [
        [] if token_count(hyp) > max_tokens else [r for r in refs if token_count(r) <= max_tokens]
        for hyp, refs in zip(hyps, seg_refs, strict=True)
    ]


def character_scores(
    hyps: Sequence[str], seg_refs: Sequence[Sequence[str]], n_jobs: int | None = 1, max_tokens: int = 0
) -> np.ndarray:
    """CharacTER (0..1) per segment, the minimum over each segment's references; ``n_jobs`` threads (``None`` =
    all usable cores) score chunks of pairs concurrently — the result does not depend on it.

    ``max_tokens`` > 0 is the length guard (:func:`searchable_references`): a pair with a side longer than
    ``max_tokens`` tokens is not searched, and a segment left without any pair scores NaN. 0: every pair."""
    enc = _Encoded(hyps, searchable_references(hyps, seg_refs, max_tokens))
    n_pairs = enc.n_pairs
    pair_scores = np.empty(n_pairs, dtype=np.float64)
    run_chunked(n_pairs, _CHUNK_PAIRS, resolve_jobs(n_jobs), lambda lo, hi: enc.run(lo, hi, pair_scores))
    best = np.full(len(hyps), np.inf)
    np.minimum.at(best, enc.cols["seg"], pair_scores)
    best[np.isinf(best)] = np.nan
    return best


def character_sentence(hyp: str, refs: Sequence[str], max_tokens: int = 0) -> float:
    """CharacTER (0..1) of a token string against its references: the minimum over the references (NaN when the
    length guard ``max_tokens`` leaves no pair, see :func:`character_scores`)."""
    return float(character_scores([hyp], [list(refs)], max_tokens=max_tokens)[0])


class CharacTER(SentenceMeanMetric):
    """CharacTER × 100 (lower is better); corpus score = mean sentence score, statistics ``[100 · score, 1]``.

    See the module docstring for the exact definition (reference-implementation shift search and shift cost,
    character Levenshtein distance over the space-joined tokens, normalised by the hypothesis length incl. spaces,
    capped at 1, best reference).

    Args:
        max_tokens: the length guard (``docs/design.md §3``): a (hypothesis, reference) pair with a side of more
            than ``max_tokens`` tokens is not searched (the shift search costs ``Θ(n · m)`` per round); a segment
            left without any pair (its hypothesis too long, or every reference) gets the statistics row
            ``[NaN, NaN]``, which the pipeline treats as a missing segment and counts in the run's notes
            (:meth:`unscored_reason`). 0 = no limit. Default 1,500 (:data:`DEFAULT_MAX_TOKENS`; its cost per
            pair: benchmarks/README.md).
        n_jobs: worker threads for :meth:`segment_statistics` (``None`` = all usable cores); the statistics do not
            depend on it.
    """

    declarations = (CHARACTER_DECLARATION,)

    def __init__(
        self,
        max_tokens: int = CHARACTER_DECLARATION.default("max_tokens"),
        n_jobs: int | None = CHARACTER_DECLARATION.default("n_jobs"),
    ) -> None:
        self.max_tokens = CHARACTER_DECLARATION.option("max_tokens").validate("character", max_tokens)
        self.n_jobs = n_jobs
        resolve_jobs(n_jobs)
        self.info = MetricInfo.declared(CHARACTER_DECLARATION, {"max_tokens": self.max_tokens})

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 2)`` rows ``[100 · CharacTER, 1]``; ``[NaN, NaN]`` for a segment the length guard leaves unscored."""
        seg_refs = segment_references(hyps, refs)
        scores = character_scores(hyps, seg_refs, self.n_jobs, self.max_tokens)
        out = np.ones((len(hyps), 2), dtype=np.float64)
        out[:, 0] = 100.0 * scores
        out[np.isnan(scores), 1] = np.nan
        return out

    def unscored_reason(self) -> str:
        """Why a segment may have no score: the length guard."""
        return f"a side longer than {self.max_tokens:,} tokens; option max_tokens"

    def signature(self, nrefs: int) -> str:
        """E.g. ``character|nrefs:1|shift:rwth-i6|norm:hyp-chars|space:counted|cap:1|maxtok:1500|version:1``
        (``maxtok:none`` without the length guard)."""
        guard = self.max_tokens or "none"
        return f"character|nrefs:{nrefs}|shift:rwth-i6|norm:hyp-chars|space:counted|cap:1|maxtok:{guard}|version:1"
