"""NIST (Doddington 2002) on token strings (group "extended", ``docs/design.md §3``).

Reproduces ``nltk.translate`` (nltk 3.10.4) on the tokens of one token level (``hyp.split(" ")``; an empty string
has no tokens). ``refs[j][i]`` is the j-th reference of segment ``i``; a ``None`` reference is dropped (variable
number of references per segment, as in sacrebleu), and every segment needs at least one reference.
Scores are in nltk's own units (not bounded, not × 100).

The information weights ``Info(w_1..w_n) = log2(count(w_1..w_{n-1}) / count(w_1..w_n))`` (the unigram context
count is the total number of reference tokens) depend on a reference corpus. To make the corpus score a function
of summed statistics, the corpus weights are **fixed from all references passed to** :meth:`Nist.prepare` (or, without
it, to :meth:`Nist.segment_statistics`), as ``corpus_nist`` does with its inputs; a bootstrap resample is then scored
with the full-test-set weights. The segment score is ``sentence_nist``, i.e. it uses weights from that segment's own
references only; both sets of statistics are stored, see :class:`Nist`. nltk raises ``ZeroDivisionError`` when an
n-gram order has no hypothesis n-grams (a hypothesis shorter than ``n`` tokens, or empty) or when the reference
length is 0; here such an order's precision counts as 0 and a zero reference length gives a score of 0. Everything
else is identical to nltk (including its choice of the best reference per n-gram order by the tuple
``(precision, numerator, denominator, ref_len)`` and the reference length of that choice in the length penalty).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from importlib.metadata import version

import numpy as np

from korean_eval.metrics.base import Metric, MetricInfo, Tokens, safe_divide, segment_references, tokens_of
from korean_eval.metrics.declaration import IntOption, MetricDeclaration

NIST_DECLARATION = MetricDeclaration(
    "nist",
    "NIST",
    "extended",
    True,
    corpus_definition=(
        "nltk corpus_nist from summed information-weighted n-gram matches, n-gram counts and lengths; "
        "information weights fixed from all references of the test set"
    ),
    arguments=(IntOption("max_ngram_order", 5, 1, 9, "maximum n-gram order"),),
)


class _InfoWeights:
    """nltk's NIST information weights of a reference corpus, computed lazily per n-gram (same formula)."""

    def __init__(self, references: Sequence[Tokens], max_order: int):
        from nltk.util import ngrams  # imported on use, not with the registry (docs/design.md §7)

        self.freq: Counter = Counter()
        total = 0
        for ref in references:
            for order in range(1, max_order + 1):
                self.freq.update(ngrams(ref, order))
            total += len(ref)
        self.total = total
        self._cache: dict[tuple[str, ...], float] = {}

    def __getitem__(self, gram: tuple[str, ...]) -> float:
        w = self._cache.get(gram)
        if w is None:
            mgram = gram[:-1]
            numerator = self.freq[mgram] if mgram and mgram in self.freq else self.total
            w = math.log(numerator / self.freq[gram], 2)
            self._cache[gram] = w
        return w


def _nist_best(hyp_counts: Counter, refs: Sequence[Tokens], ref_counts: Sequence[Counter],
               weights: _InfoWeights) -> tuple[float, int]:
    """nltk's best reference for one n-gram order: ``max`` over ``(precision, numerator, denominator, ref_len)``.

    Returns ``(numerator, ref_len)`` of the winner (the denominator is the hypothesis n-gram count for every
    reference).
    """
    denominator = sum(hyp_counts.values())
    per_ref = []
    for ref, rc in zip(refs, ref_counts, strict=True):
        overlaps = hyp_counts & rc
        numerator = sum(weights[g] * c for g, c in overlaps.items())
        precision = 0 if denominator == 0 else numerator / denominator
        per_ref.append((precision, numerator, denominator, len(ref)))
    _, numerator, _, ref_len = max(per_ref)
    return numerator, ref_len


class Nist(Metric):
    """NIST (``nltk.translate.nist_score``), in nltk's units (not × 100).

    Statistics (``k = 5N + 1``, N = ``max_ngram_order``), for each order ``n``:

    * columns ``[0, N)``: ``num_n`` with the **corpus** information weights (from every reference passed to
      :meth:`segment_statistics`) of the best reference (nltk's choice);
    * ``[N, 2N)``: ``den_n`` = number of hypothesis n-grams;
    * ``[2N, 3N)``: length of that best reference (corpus weights);
    * ``[3N, 4N)``: ``num_n`` with the **sentence** information weights (this segment's references only);
    * ``[4N, 5N)``: length of the best reference under the sentence weights;
    * column ``5N``: hypothesis length.

    Score from columns ``(num, den, ref_len, hyp_len)``:
    ``Σ_n num_n / den_n · penalty(N · hyp_len / Σ_n ref_len_n)`` (nltk adds the lengths once per order), with
    ``penalty(r) = exp(log(0.5) / log(1.5)² · log(r)²)`` for ``0 < r < 1``, else ``clip(r, 0, 1)``; an order with
    ``den_n = 0`` contributes 0 and a zero reference length gives 0 (nltk raises ``ZeroDivisionError`` in both
    cases). :meth:`scores_from_sums` uses the corpus-weight columns and equals ``corpus_nist(refs, hyps, n=N)``
    on the segments of the sums (with the full-test-set weights); :meth:`segment_scores` uses the sentence-weight
    columns and equals ``sentence_nist(refs_i, hyp_i, n=N)``.

    Args:
        max_ngram_order: N (nltk's default 5).
    """

    declarations = (NIST_DECLARATION,)

    def __init__(self, max_ngram_order: int = NIST_DECLARATION.default("max_ngram_order")):
        if int(max_ngram_order) < 1:
            raise ValueError("max_ngram_order must be >= 1")
        self.max_ngram_order = int(max_ngram_order)
        self.info = MetricInfo.declared(NIST_DECLARATION, {"max_ngram_order": self.max_ngram_order})

    def prepare(self, references: Sequence[Sequence[str]]) -> str:
        """Fix the corpus information weights from the test set's references (each segment once); return a digest."""
        tokens = [tokens_of(r) for seg in references for r in seg if r is not None]
        self._corpus_weights = _InfoWeights(tokens, self.max_ngram_order)
        digest = hashlib.sha1("\n".join(" ".join(t) for t in tokens).encode("utf-8")).hexdigest()[:16]
        return f"info-refs:{digest}"

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 5N + 1)`` statistics (see the class docstring); corpus weights from :meth:`prepare`'s references,
        or, without it, from all references given here (each pair's references, as ``corpus_nist`` takes them)."""
        from nltk.util import ngrams  # imported on use, not with the registry (docs/design.md §7)

        seg_refs = segment_references(hyps, refs)
        n_ord = self.max_ngram_order
        tok_refs = [[tokens_of(r) for r in seg] for seg in seg_refs]
        corpus_weights = getattr(self, "_corpus_weights", None) or _InfoWeights([r for seg in tok_refs for r in seg], n_ord)
        out = np.zeros((len(hyps), 5 * n_ord + 1), dtype=np.float64)
        for i, hyp in enumerate(hyps):
            h = tokens_of(hyp)
            rs = tok_refs[i]
            sentence_weights = _InfoWeights(rs, n_ord)
            for order in range(1, n_ord + 1):
                hc = Counter(ngrams(h, order)) if len(h) >= order else Counter()
                rcs = [Counter(ngrams(r, order)) if len(r) >= order else Counter() for r in rs]
                num_c, len_c = _nist_best(hc, rs, rcs, corpus_weights)
                num_s, len_s = _nist_best(hc, rs, rcs, sentence_weights)
                o = order - 1
                out[i, o] = num_c
                out[i, n_ord + o] = sum(hc.values())
                out[i, 2 * n_ord + o] = len_c
                out[i, 3 * n_ord + o] = num_s
                out[i, 4 * n_ord + o] = len_s
            out[i, 5 * n_ord] = len(h)
        return out

    def _score(self, num: np.ndarray, den: np.ndarray, ref_len: np.ndarray, hyp_len: np.ndarray) -> np.ndarray:
        precision = safe_divide(num, den).sum(axis=-1)
        l_ref = ref_len.sum(axis=-1)
        ratio = safe_divide(self.max_ngram_order * hyp_len, l_ref)
        beta = math.log(0.5) / math.log(1.5) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            inside = (ratio > 0) & (ratio < 1)
            penalty = np.where(inside, np.exp(beta * np.log(np.where(inside, ratio, 1.0)) ** 2),
                               np.clip(ratio, 0.0, 1.0))
        return np.where(l_ref > 0, precision * penalty, 0.0)

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """``corpus_nist`` from summed statistics (corpus-weight columns), ``(..., 5N + 1)`` → ``(...)``."""
        s = np.asarray(sums, dtype=np.float64)
        n = self.max_ngram_order
        return self._score(s[..., :n], s[..., n:2 * n], s[..., 2 * n:3 * n], s[..., 5 * n])

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """``sentence_nist`` of every row (sentence-weight columns)."""
        s = np.asarray(stats, dtype=np.float64)
        n = self.max_ngram_order
        return self._score(s[..., 3 * n:4 * n], s[..., n:2 * n], s[..., 4 * n:5 * n], s[..., 5 * n])

    def signature(self, nrefs: int) -> str:
        """E.g. ``nist|nrefs:1|ngram:5|info:test-set-refs|version:3.10.4``."""
        return f"nist|nrefs:{nrefs}|ngram:{self.max_ngram_order}|info:test-set-refs|version:{version('nltk')}"
