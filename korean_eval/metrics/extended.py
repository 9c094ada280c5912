"""NLTK-backed extended metrics on token strings: NLTK-BLEU, GLEU, NIST and RIBES (group "extended").

Every metric reproduces the corresponding ``nltk.translate`` function (nltk 3.10.4) on the tokens of one token level
(``hyp.split(" ")``; an empty string has no tokens). ``refs[j][i]`` is the j-th reference of segment ``i``; a
``None`` reference is dropped (variable number of references per segment, as in sacrebleu), and every segment
needs at least one reference. Segment and corpus scores are on a 0-100 scale (nltk's value × 100, like sacrebleu),
except NIST, whose scale is not bounded and which is reported in nltk's own units.

* **NLTK-BLEU** (:class:`NltkBleu`, ``"nltk-bleu"``): statistics per segment are nltk's corpus-BLEU sufficient
  statistics ``[num_1..N, den_1..N, hyp_len, closest_ref_len]`` with ``num_n/den_n`` =
  ``nltk.translate.bleu_score.modified_precision`` (un-normalised Fraction: clipped n-gram matches over
  ``max(1, #hypothesis n-grams)``) and ``closest_ref_length``. The score of a row (segment) or of summed rows
  (corpus) is exactly what ``corpus_bleu`` computes from such sums: 0 if ``num_1 == 0``; otherwise
  ``BP · exp(Σ_n w_n log p_n)`` over the smoothed precisions ``p_n > 0``, uniform weights ``w_n = 1/N``,
  ``BP = 1`` if ``hyp_len > ref_len``, 0 if ``hyp_len == 0``, else ``exp(1 - ref_len/hyp_len)``; no
  ``auto_reweigh``. Hence segment score = ``sentence_bleu`` and corpus score = ``corpus_bleu`` with the same
  smoothing function. Default smoothing: ``SmoothingFunction(epsilon=0.1).method1`` (a zero match count ``m_n``
  becomes ``(0 + 0.1) / den_n``; Chen & Cherry 2014); ``method0`` … ``method4`` can be chosen (``method4`` uses
  the summed hypothesis length, as ``corpus_bleu`` does; ``method5``-``method7`` depend on the last segment
  inside ``corpus_bleu`` and are not summable, so they are not offered).
* **GLEU** (:class:`Gleu`, ``"gleu"``; Wu et al. 2016): statistics ``[n_match, n_all]`` where, over all
  1..4-grams (``everygrams``), ``n_match`` = clipped matches and ``n_all = max(#hyp n-grams, #ref n-grams)`` of the
  reference with the highest ``n_match / n_all`` (first such reference; references with ``n_all == 0`` are
  skipped, a segment without any contributes ``[0, 0]``). Score = ``n_match / n_all`` (0 if ``n_all == 0``), which
  is ``sentence_gleu`` per segment and ``corpus_gleu`` on summed statistics.
* **NIST** (:class:`Nist`, ``"nist"``; Doddington 2002): the information weights
  ``Info(w_1..w_n) = log2(count(w_1..w_{n-1}) / count(w_1..w_n))`` (the unigram context count is the total
  number of reference tokens) depend on a reference corpus. To make the corpus score a function of summed
  statistics, the corpus weights are **fixed from all references passed to** :meth:`Nist.segment_statistics`
  (as ``corpus_nist`` does with its inputs); a bootstrap resample is then scored with the full-test-set weights.
  The segment score is ``sentence_nist``, i.e. it uses weights from that segment's own references only; both sets
  of statistics are stored, see :class:`Nist`. nltk raises ``ZeroDivisionError`` when an n-gram order has no
  hypothesis n-grams (a hypothesis shorter than ``n`` tokens, or empty) or when the reference length is 0; here
  such an order's precision counts as 0 and a zero reference length gives a score of 0. Everything else is
  identical to nltk (including its choice of the best reference per n-gram order by the tuple
  ``(precision, numerator, denominator, ref_len)`` and the reference length of that choice in the length penalty).
* **RIBES** (:class:`Ribes`, ``"ribes"``; Isozaki et al. 2010): ``sentence_ribes`` with ``alpha = 0.25``,
  ``beta = 0.10``: the best over references of ``NKT · p1^alpha · BP^beta`` with nltk's ``word_rank_alignment``,
  normalised Kendall tau over all increasing pairs, ``p1 = |worder| / |hyp|`` and
  ``BP = min(1, exp(1 - |ref| / |hyp|))``. nltk guards its own corner cases (empty hypothesis or no reference → 0;
  fewer than two aligned tokens → NKT = 0), so no exception can occur. The alignment is a numba port of nltk's
  ``word_rank_alignment`` (identical results, proven by the tests; nltk's Python version takes ~6 ms per jamo-level
  segment) without nltk's ``MAX_ALIGNMENT_LEN = 2000`` guard (nltk raises beyond it). Statistics
  ``[100 · RIBES, 1]``; corpus score = mean of the sentence scores, which is exactly ``corpus_ribes``.
"""

from __future__ import annotations

import hashlib
import math
import sys
from collections import Counter
from collections.abc import Sequence

import nltk
import numpy as np
from nltk.translate.bleu_score import closest_ref_length, modified_precision
from nltk.util import everygrams, ngrams
from numba import njit

from korean_eval.metrics.base import Metric, MetricInfo, SentenceMeanMetric, segment_references

NLTK_VERSION: str = nltk.__version__

Tokens = list[str]


def tokens_of(text: str) -> Tokens:
    """The tokens of a token string: ``text.split(" ")``, and no tokens for the empty string."""
    return text.split(" ") if text else []


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Elementwise ``num / den`` with 0 where ``den == 0``."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


# --------------------------------------------------------------------------------------------------- NLTK-BLEU

BLEU_SMOOTHING = ("method0", "method1", "method2", "method3", "method4")


class NltkBleu(Metric):
    """NLTK BLEU (``sentence_bleu`` / ``corpus_bleu``) with a fixed smoothing function, × 100.

    Statistics (``k = 2N + 2``): ``[num_1..num_N, den_1..den_N, hyp_len, closest_ref_len]`` as in the module
    docstring. ``segment_scores`` equals ``100 · sentence_bleu(refs, hyp, weights=(1/N,)*N, smoothing_function=…)``
    and ``scores_from_sums`` of the column sums equals ``100 · corpus_bleu`` with the same arguments.

    Args:
        max_ngram_order: N (uniform weights 1/N). Default 4.
        smoothing: name of the ``nltk.translate.bleu_score.SmoothingFunction`` method, ``method0``…``method4``.
        epsilon: ``SmoothingFunction(epsilon=…)`` (used by ``method1``). Default 0.1.
        k: ``SmoothingFunction(k=…)`` (used by ``method4``). Default 5.
    """

    def __init__(self, max_ngram_order: int = 4, smoothing: str = "method1", epsilon: float = 0.1, k: int = 5):
        if smoothing not in BLEU_SMOOTHING:
            raise ValueError(f"smoothing must be one of {', '.join(BLEU_SMOOTHING)}, got {smoothing!r}")
        if int(max_ngram_order) < 1:
            raise ValueError("max_ngram_order must be >= 1")
        self.max_ngram_order = int(max_ngram_order)
        self.smoothing = smoothing
        self.epsilon = float(epsilon)
        self.k = int(k)
        self.info = MetricInfo(
            name="nltk-bleu",
            label="NLTK-BLEU",
            group="extended",
            higher_is_better=True,
            corpus_definition=(
                "nltk corpus_bleu × 100: brevity penalty and smoothed modified precisions from the summed "
                "clipped n-gram matches, n-gram counts, hypothesis lengths and closest reference lengths"
            ),
            options={"max_ngram_order": self.max_ngram_order, "smoothing": smoothing, "epsilon": self.epsilon,
                     "k": self.k},
        )

    @property
    def weights(self) -> tuple[float, ...]:
        """The uniform n-gram weights ``(1/N, …, 1/N)`` (nltk's default ``(0.25,) * 4`` for N = 4)."""
        return (1.0 / self.max_ngram_order,) * self.max_ngram_order

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 2N + 2)`` rows ``[num_1..N, den_1..N, hyp_len, closest_ref_len]`` from nltk's own functions."""
        seg_refs = segment_references(hyps, refs)
        n_ord = self.max_ngram_order
        out = np.zeros((len(hyps), 2 * n_ord + 2), dtype=np.float64)
        for i, hyp in enumerate(hyps):
            h = tokens_of(hyp)
            rs = [tokens_of(r) for r in seg_refs[i]]
            for order in range(1, n_ord + 1):
                p = modified_precision(rs, h, order)
                out[i, order - 1] = p.numerator
                out[i, n_ord + order - 1] = p.denominator
            out[i, 2 * n_ord] = len(h)
            out[i, 2 * n_ord + 1] = closest_ref_length(rs, len(h))
        return out

    def _smoothed(self, num: np.ndarray, den: np.ndarray, hyp_len: np.ndarray) -> np.ndarray:
        """nltk ``SmoothingFunction`` applied to precisions ``num/den`` (arrays ``(..., N)``); 0 = dropped order."""
        ratio = _safe_div(num, den)
        zero = num == 0
        if self.smoothing == "method0":
            return np.where(zero, sys.float_info.min, ratio)
        if self.smoothing == "method1":
            return np.where(zero, _safe_div(num + self.epsilon, den), ratio)
        if self.smoothing == "method2":
            out = _safe_div(num + 1.0, den + 1.0)
            out[..., 0] = ratio[..., 0]
            return out
        out = ratio.copy()
        incvnt = np.ones(num.shape[:-1], dtype=np.float64)
        if self.smoothing == "method3":
            for order in range(num.shape[-1]):
                z = zero[..., order]
                val = 1.0 / (2.0**incvnt * den[..., order])
                out[..., order] = np.where(z, val, out[..., order])
                incvnt = incvnt + z
            return out
        # method4: numerator 1 / (2**incvnt * k / ln(hyp_len)) for zero counts when hyp_len > 1
        with np.errstate(divide="ignore", invalid="ignore"):
            log_len = np.log(np.where(hyp_len > 1, hyp_len, 2.0))
            for order in range(num.shape[-1]):
                z = zero[..., order] & (hyp_len > 1)
                val = (1.0 / (2.0**incvnt * self.k / log_len)) / den[..., order]
                out[..., order] = np.where(z, val, out[..., order])
                incvnt = incvnt + z
        return out

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """``100 · corpus_bleu`` computed from summed statistics ``(..., 2N + 2)`` → ``(...)``."""
        sums = np.asarray(sums, dtype=np.float64)
        n_ord = self.max_ngram_order
        num = sums[..., :n_ord]
        den = sums[..., n_ord:2 * n_ord]
        hyp_len = sums[..., 2 * n_ord]
        ref_len = sums[..., 2 * n_ord + 1]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            bp = np.where(hyp_len > ref_len, 1.0,
                          np.where(hyp_len == 0, 0.0, np.exp(1.0 - _safe_div(ref_len, hyp_len))))
            p = self._smoothed(num, den, hyp_len)
            logs = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), 0.0) / n_ord
            score = bp * np.exp(logs.sum(axis=-1))
        return np.where(num[..., 0] == 0, 0.0, 100.0 * score)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """``100 · sentence_bleu`` of every row (the same formula applied to one segment's statistics)."""
        return self.scores_from_sums(np.asarray(stats, dtype=np.float64))

    def signature(self, nrefs: int) -> str:
        """E.g. ``nltk-bleu|nrefs:1|smooth:method1|eps:0.1|ngram:4|version:3.10.4``."""
        smooth = f"smooth:{self.smoothing}"
        if self.smoothing == "method1":
            smooth += f"|eps:{self.epsilon:g}"
        elif self.smoothing == "method4":
            smooth += f"|k:{self.k}"
        return f"nltk-bleu|nrefs:{nrefs}|{smooth}|ngram:{self.max_ngram_order}|version:{NLTK_VERSION}"


# -------------------------------------------------------------------------------------------------------- GLEU


def gleu_match_total(hyp: Tokens, refs: Sequence[Tokens], min_len: int = 1, max_len: int = 4) -> tuple[int, int]:
    """``(n_match, n_all)`` that ``nltk.translate.gleu_score.corpus_gleu`` adds up for one segment.

    Over all ``min_len..max_len``-grams: ``n_match = |hyp ∩ ref|`` (clipped counts) and
    ``n_all = max(|hyp|, |ref|)`` for the reference maximising ``n_match / n_all`` (first maximum; references
    with ``n_all == 0`` are skipped; ``(0, 0)`` if none is left).
    """
    hyp_ngrams = Counter(everygrams(hyp, min_len, max_len))
    tpfp = sum(hyp_ngrams.values())
    best: tuple[int, int] | None = None
    for ref in refs:
        ref_ngrams = Counter(everygrams(ref, min_len, max_len))
        tpfn = sum(ref_ngrams.values())
        tp = sum((ref_ngrams & hyp_ngrams).values())
        n_all = max(tpfp, tpfn)
        if n_all > 0 and (best is None or tp / n_all > best[0] / best[1]):
            best = (tp, n_all)
    return best if best is not None else (0, 0)


class Gleu(Metric):
    """Google-BLEU (Wu et al. 2016) as ``nltk.translate.gleu_score``, × 100.

    Statistics ``[n_match, n_all]`` (:func:`gleu_match_total`); score ``100 · n_match / n_all`` (0 when
    ``n_all == 0``) = ``100 · sentence_gleu`` per segment and ``100 · corpus_gleu`` on summed statistics.

    Args:
        min_len, max_len: n-gram orders (nltk defaults 1 and 4).
    """

    def __init__(self, min_len: int = 1, max_len: int = 4):
        if not 1 <= int(min_len) <= int(max_len):
            raise ValueError("need 1 <= min_len <= max_len")
        self.min_len, self.max_len = int(min_len), int(max_len)
        self.info = MetricInfo(
            name="gleu",
            label="GLEU",
            group="extended",
            higher_is_better=True,
            corpus_definition="nltk corpus_gleu × 100: summed n-gram matches / summed max(hyp, ref) n-gram counts",
            options={"min_len": self.min_len, "max_len": self.max_len},
        )

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 2)`` rows ``[n_match, n_all]``."""
        seg_refs = segment_references(hyps, refs)
        out = np.zeros((len(hyps), 2), dtype=np.float64)
        for i, hyp in enumerate(hyps):
            out[i] = gleu_match_total(tokens_of(hyp), [tokens_of(r) for r in seg_refs[i]], self.min_len,
                                      self.max_len)
        return out

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """``100 · n_match / n_all`` of summed statistics (0 when ``n_all == 0``)."""
        sums = np.asarray(sums, dtype=np.float64)
        return 100.0 * _safe_div(sums[..., 0], sums[..., 1])

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """``100 · sentence_gleu`` of every row."""
        return self.scores_from_sums(stats)

    def signature(self, nrefs: int) -> str:
        """E.g. ``gleu|nrefs:1|ngram:1-4|version:3.10.4``."""
        return f"gleu|nrefs:{nrefs}|ngram:{self.min_len}-{self.max_len}|version:{NLTK_VERSION}"


# -------------------------------------------------------------------------------------------------------- NIST


class _InfoWeights:
    """nltk's NIST information weights of a reference corpus, computed lazily per n-gram (same formula)."""

    def __init__(self, references: Sequence[Tokens], max_order: int):
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

    def __init__(self, max_ngram_order: int = 5):
        if int(max_ngram_order) < 1:
            raise ValueError("max_ngram_order must be >= 1")
        self.max_ngram_order = int(max_ngram_order)
        self.info = MetricInfo(
            name="nist",
            label="NIST",
            group="extended",
            higher_is_better=True,
            corpus_definition=(
                "nltk corpus_nist from summed information-weighted n-gram matches, n-gram counts and lengths; "
                "information weights fixed from all references of the test set"
            ),
            options={"max_ngram_order": self.max_ngram_order},
        )

    def prepare(self, references: Sequence[Sequence[str]]) -> str:
        """Fix the corpus information weights from the test set's references (each segment once); return a digest."""
        tokens = [tokens_of(r) for seg in references for r in seg if r is not None]
        self._corpus_weights = _InfoWeights(tokens, self.max_ngram_order)
        digest = hashlib.sha1("\n".join(" ".join(t) for t in tokens).encode("utf-8")).hexdigest()[:16]
        return f"info-refs:{digest}"

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 5N + 1)`` statistics (see the class docstring); corpus weights from :meth:`prepare`'s references,
        or, without it, from all references given here (each pair's references, as ``corpus_nist`` takes them)."""
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
        precision = _safe_div(num, den).sum(axis=-1)
        l_ref = ref_len.sum(axis=-1)
        ratio = _safe_div(self.max_ngram_order * hyp_len, l_ref)
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
        return f"nist|nrefs:{nrefs}|ngram:{self.max_ngram_order}|info:test-set-refs|version:{NLTK_VERSION}"


# ------------------------------------------------------------------------------------------------------- RIBES


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


def ribes_sentence(hyp: Tokens, refs: Sequence[Tokens], alpha: float = 0.25, beta: float = 0.10) -> float:
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

    def __init__(self, alpha: float = 0.25, beta: float = 0.10):
        self.alpha, self.beta = float(alpha), float(beta)
        self.info = MetricInfo(
            name="ribes",
            label="RIBES",
            group="extended",
            higher_is_better=True,
            corpus_definition="mean of the sentence RIBES scores × 100 (nltk corpus_ribes); statistics (score, 1)",
            options={"alpha": self.alpha, "beta": self.beta},
        )

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
        return f"ribes|nrefs:{nrefs}|alpha:{self.alpha:g}|beta:{self.beta:g}|version:{NLTK_VERSION}"
