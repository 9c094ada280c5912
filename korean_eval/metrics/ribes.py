"""RIBES (Isozaki et al. 2010) on token strings (group "extended", ``docs/design.md §3``).

Reproduces ``nltk.translate`` (nltk 3.10.4) on the tokens of one token level (``hyp.split(" ")``; an empty string
has no tokens). ``refs[j][i]`` is the j-th reference of segment ``i``; a ``None`` reference is dropped (variable
number of references per segment, as in sacrebleu), and every segment needs at least one reference.
Segment and corpus scores are on a 0-100 scale (nltk's value × 100).

``sentence_ribes`` with ``alpha = 0.25``, ``beta = 0.10``: the best over references of ``NKT · p1^alpha · BP^beta``
with nltk's ``word_rank_alignment``, normalised Kendall tau over all increasing pairs, ``p1 = |worder| / |hyp|`` and
``BP = min(1, exp(1 - |ref| / |hyp|))``. nltk guards its own corner cases (empty hypothesis or no reference → 0;
fewer than two aligned tokens → NKT = 0), so no exception can occur. The alignment is a numba port of nltk's
``word_rank_alignment`` (identical results, proven by the tests) without nltk's ``MAX_ALIGNMENT_LEN = 2000`` guard
(nltk raises beyond it). Statistics ``[100 · RIBES, 1]``; corpus score = mean of the sentence scores, which is
exactly ``corpus_ribes``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from importlib.metadata import version

import numpy as np
from numba import njit

from korean_eval.metrics.base import MetricInfo, SentenceMeanMetric, Tokens, segment_references, tokens_of
from korean_eval.metrics.declaration import MetricDeclaration, Parameter

RIBES_DECLARATION = MetricDeclaration(
    "ribes",
    "RIBES",
    "extended",
    True,
    corpus_definition="mean of the sentence RIBES scores × 100 (nltk corpus_ribes); statistics (score, 1)",
    arguments=(
        Parameter("alpha", 0.25, "exponent of the unigram precision (nltk's default)"),
        Parameter("beta", 0.10, "exponent of the brevity penalty (nltk's default)"),
    ),
    kernels=("korean_eval.metrics.ribes",),
)


@njit(cache=True, nogil=True)
def _filter_right(pos: np.ndarray, count: int, seq: np.ndarray, offset: int, token: int) -> int:
    """Keep start positions ``p`` (first ``count`` of ``pos``) with ``seq[p + offset] == token``; new count."""
    kept = 0
    for a in range(count):
        p = pos[a]
        if p + offset < seq.shape[0] and seq[p + offset] == token:
            pos[kept] = p
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def _filter_left(pos: np.ndarray, count: int, seq: np.ndarray, offset: int, token: int) -> int:
    """Keep end positions ``e`` (first ``count`` of ``pos``) with ``seq[e - offset] == token``; new count."""
    kept = 0
    for a in range(count):
        e = pos[a]
        if e - offset >= 0 and seq[e - offset] == token:
            pos[kept] = e
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def _ribes_alignment(h: np.ndarray, r: np.ndarray) -> tuple[int, int]:
    """nltk's ``word_rank_alignment(r, h)`` followed by the increasing-pair count of ``kendall_tau``.

    Returns ``(len(worder), number of pairs a < b with worder[a] < worder[b])``. The n-gram occurrence counts of
    nltk (``count_ngram``, overlapping occurrences) are the sizes of the sets of positions where a context window
    occurs; those sets are narrowed incrementally as the window grows (a window absent from the reference stays
    absent when extended, so such a side is skipped from then on — it could never satisfy the "occurs exactly once
    in both" test).
    """
    n = h.shape[0]
    m = r.shape[0]
    worder = np.empty(n, np.int64)
    k = 0
    r_right = np.empty(m, np.int64)
    h_right = np.empty(n, np.int64)
    r_left = np.empty(m, np.int64)
    h_left = np.empty(n, np.int64)
    for i in range(n):
        tok = h[i]
        nr = 0
        first = -1
        for p in range(m):
            if r[p] == tok:
                if nr == 0:
                    first = p
                nr += 1
        if nr == 0:
            continue
        nh = 0
        for q in range(n):
            if h[q] == tok:
                nh += 1
        if nh == 1 and nr == 1:
            worder[k] = first
            k += 1
            continue
        max_window = min(max(i, n - i + 1), m)
        # occurrence sets of the unigram: starts (right context) and ends (left context)
        cr_right = 0
        cr_left = 0
        for p in range(m):
            if r[p] == tok:
                r_right[cr_right] = p
                r_left[cr_left] = p
                cr_right += 1
                cr_left += 1
        ch_right = 0
        ch_left = 0
        for q in range(n):
            if h[q] == tok:
                h_right[ch_right] = q
                h_left[ch_left] = q
                ch_right += 1
                ch_left += 1
        right_alive = True
        left_alive = True
        for window in range(1, max_window):
            if i + window < n and right_alive:
                t = h[i + window]
                cr_right = _filter_right(r_right, cr_right, r, window, t)
                ch_right = _filter_right(h_right, ch_right, h, window, t)
                if cr_right == 1 and ch_right == 1:
                    worder[k] = r_right[0]
                    k += 1
                    break
                if cr_right == 0:
                    right_alive = False
            if window <= i and left_alive:
                t = h[i - window]
                cr_left = _filter_left(r_left, cr_left, r, window, t)
                ch_left = _filter_left(h_left, ch_left, h, window, t)
                if cr_left == 1 and ch_left == 1:
                    worder[k] = r_left[0]
                    k += 1
                    break
                if cr_left == 0:
                    left_alive = False
            if not right_alive and not left_alive:
                break
    increasing = 0
    for a in range(k):
        wa = worder[a]
        for b in range(a + 1, k):
            if wa < worder[b]:
                increasing += 1
    return k, increasing


def _choose2(n: int) -> int:
    """``nltk.util.choose(n, 2)``."""
    return n * (n - 1) // 2 if n >= 2 else 0


def ribes_sentence(
    hyp: Tokens,
    refs: Sequence[Tokens],
    alpha: float = RIBES_DECLARATION.default("alpha"),
    beta: float = RIBES_DECLARATION.default("beta"),
) -> float:
    """``nltk.translate.ribes_score.sentence_ribes(refs, hyp, alpha, beta)`` (0..1), with a numba alignment.

    Same float operations as nltk: ``NKT = (2 · inc / C(k, 2) - 1 + 1) / 2`` (0 when fewer than 2 aligned
    tokens), ``p1 = k / |hyp|``, ``BP = min(1, exp(1 - |ref| / |hyp|))``, score ``NKT · p1^alpha · BP^beta``,
    best over references (first maximum, starting from -1); 0.0 for an empty hypothesis or no reference.
    """
    if not refs or not hyp:
        return 0.0
    vocab: dict[str, int] = {}
    h = np.array([vocab.setdefault(t, len(vocab)) for t in hyp], dtype=np.int64)
    best = -1.0
    for ref in refs:
        r = np.array([vocab.setdefault(t, len(vocab)) for t in ref], dtype=np.int64)
        k, inc = _ribes_alignment(h, r)
        if k < 2:
            tau = -1.0
        else:
            tau = 2 * inc / _choose2(k) - 1
        nkt = (tau + 1) / 2
        bp = min(1.0, math.exp(1.0 - len(ref) / len(hyp)))
        p1 = k / len(hyp)
        score = nkt * (p1**alpha) * (bp**beta)
        if score > best:
            best = score
    return best


class Ribes(SentenceMeanMetric):
    """RIBES (``nltk.translate.ribes_score.sentence_ribes``), × 100; corpus = mean of sentence scores.

    Statistics ``[100 · sentence_ribes, 1]``; segment score = first column; corpus score = ``sum / count``
    (= ``100 · corpus_ribes``).

    Args:
        alpha: exponent of the unigram precision (nltk default 0.25).
        beta: exponent of the brevity penalty (nltk default 0.10).
    """

    declarations = (RIBES_DECLARATION,)

    def __init__(
        self, alpha: float = RIBES_DECLARATION.default("alpha"), beta: float = RIBES_DECLARATION.default("beta")
    ):
        self.alpha, self.beta = float(alpha), float(beta)
        self.info = MetricInfo.declared(RIBES_DECLARATION, {"alpha": self.alpha, "beta": self.beta})

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 2)`` rows ``[100 · sentence_ribes, 1]``."""
        seg_refs = segment_references(hyps, refs)
        out = np.ones((len(hyps), 2), dtype=np.float64)
        for i, hyp in enumerate(hyps):
            out[i, 0] = 100.0 * ribes_sentence(tokens_of(hyp), [tokens_of(r) for r in seg_refs[i]], self.alpha,
                                               self.beta)
        return out

    def signature(self, nrefs: int) -> str:
        """E.g. ``ribes|nrefs:1|alpha:0.25|beta:0.1|version:3.10.4``."""
        return f"ribes|nrefs:{nrefs}|alpha:{self.alpha:g}|beta:{self.beta:g}|version:{version('nltk')}"
