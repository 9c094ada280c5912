"""NLTK-BLEU on token strings (group "extended", ``docs/design.md §3``).

Reproduces ``nltk.translate`` (nltk 3.10.4) on the tokens of one token level (``hyp.split(" ")``; an empty string
has no tokens). ``refs[j][i]`` is the j-th reference of segment ``i``; a ``None`` reference is dropped (variable
number of references per segment, as in sacrebleu), and every segment needs at least one reference.
Segment and corpus scores are on a 0-100 scale (nltk's value × 100).

Statistics per segment are nltk's corpus-BLEU sufficient statistics ``[num_1..N, den_1..N, hyp_len,
closest_ref_len]`` with ``num_n/den_n`` = ``nltk.translate.bleu_score.modified_precision`` (un-normalised Fraction:
clipped n-gram matches over ``max(1, #hypothesis n-grams)``) and ``closest_ref_length``. The score of a row
(segment) or of summed rows (corpus) is exactly what ``corpus_bleu`` computes from such sums: 0 if ``num_1 == 0``;
otherwise ``BP · exp(Σ_n w_n log p_n)`` over the smoothed precisions ``p_n > 0``, uniform weights ``w_n = 1/N``,
``BP = 1`` if ``hyp_len > ref_len``, 0 if ``hyp_len == 0``, else ``exp(1 - ref_len/hyp_len)``; no
``auto_reweigh``. Hence segment score = ``sentence_bleu`` and corpus score = ``corpus_bleu`` with the same
smoothing function. Default smoothing: ``SmoothingFunction(epsilon=0.1).method1`` (a zero match count ``m_n``
becomes ``(0 + 0.1) / den_n``; Chen & Cherry 2014); ``method0`` … ``method4`` can be chosen (``method4`` uses the
summed hypothesis length, as ``corpus_bleu`` does; ``method5``-``method7`` depend on the last segment inside
``corpus_bleu`` and are not summable, so they are not offered).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import version

import numpy as np

from korean_eval.metrics.base import Metric, MetricInfo, safe_divide, segment_references, tokens_of
from korean_eval.metrics.declaration import IntOption, MetricDeclaration, Parameter

BLEU_SMOOTHING = ("method0", "method1", "method2", "method3", "method4")

NLTK_BLEU_DECLARATION = MetricDeclaration(
    "nltk-bleu",
    "NLTK-BLEU",
    "extended",
    True,
    corpus_definition=(
        "nltk corpus_bleu × 100: brevity penalty and smoothed modified precisions from the summed "
        "clipped n-gram matches, n-gram counts, hypothesis lengths and closest reference lengths"
    ),
    arguments=(
        IntOption("max_ngram_order", 4, 1, 9, "maximum n-gram order"),
        Parameter("smoothing", "method1", "nltk SmoothingFunction method, one of " + ", ".join(BLEU_SMOOTHING)),
        Parameter("epsilon", 0.1, "SmoothingFunction(epsilon=…), used by method1"),
        Parameter("k", 5, "SmoothingFunction(k=…), used by method4"),
    ),
)


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

    declarations = (NLTK_BLEU_DECLARATION,)

    def __init__(
        self,
        max_ngram_order: int = NLTK_BLEU_DECLARATION.default("max_ngram_order"),
        smoothing: str = NLTK_BLEU_DECLARATION.default("smoothing"),
        epsilon: float = NLTK_BLEU_DECLARATION.default("epsilon"),
        k: int = NLTK_BLEU_DECLARATION.default("k"),
    ):
        if smoothing not in BLEU_SMOOTHING:
            raise ValueError(f"smoothing must be one of {', '.join(BLEU_SMOOTHING)}, got {smoothing!r}")
        if int(max_ngram_order) < 1:
            raise ValueError("max_ngram_order must be >= 1")
        self.max_ngram_order = int(max_ngram_order)
        self.smoothing = smoothing
        self.epsilon = float(epsilon)
        self.k = int(k)
        values = {"max_ngram_order": self.max_ngram_order, "smoothing": smoothing, "epsilon": self.epsilon, "k": self.k}
        self.info = MetricInfo.declared(NLTK_BLEU_DECLARATION, values)

    @property
    def weights(self) -> tuple[float, ...]:
        """The uniform n-gram weights ``(1/N, …, 1/N)`` (nltk's default ``(0.25,) * 4`` for N = 4)."""
        return (1.0 / self.max_ngram_order,) * self.max_ngram_order

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 2N + 2)`` rows ``[num_1..N, den_1..N, hyp_len, closest_ref_len]`` from nltk's own functions."""
        # imported on use, not with the registry (docs/design.md §7)
        from nltk.translate.bleu_score import closest_ref_length, modified_precision

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
        ratio = safe_divide(num, den)
        zero = num == 0
        if self.smoothing == "method0":
            return np.where(zero, sys.float_info.min, ratio)
        if self.smoothing == "method1":
            return np.where(zero, safe_divide(num + self.epsilon, den), ratio)
        if self.smoothing == "method2":
            out = safe_divide(num + 1.0, den + 1.0)
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
                          np.where(hyp_len == 0, 0.0, np.exp(1.0 - safe_divide(ref_len, hyp_len))))
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
        return f"nltk-bleu|nrefs:{nrefs}|{smooth}|ngram:{self.max_ngram_order}|version:{version('nltk')}"
