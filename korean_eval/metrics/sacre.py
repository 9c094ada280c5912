"""BLEU, chrF, chrF+, chrF++ and TER through sacrebleu, on token strings (GUIDE §3).

Definitions (sacrebleu 2.x objects on the space-joined tokens of one level; nothing re-implemented):

* BLEU: ``BLEU(tokenize="none", force=True)``; statistics ``[hyp_len, ref_len, correct_1..N, total_1..N]`` from
  ``BLEU._extract_corpus_statistics``. Segment score: ``BLEU(..., effective_order=True)._compute_score_from_stats``
  (= ``sentence_score``); corpus score: the same with ``effective_order=False`` on the summed statistics
  (= ``corpus_score``). Options: ``max_ngram_order`` (default 4).
* chrF: ``CHRF(char_order=6, word_order=0, beta=2)``; chrF+ ``word_order=1``; chrF++ ``word_order=2``. Statistics
  ``[hyp, ref, match] × (char_order + word_order)``; segment and corpus scores by ``_compute_score_from_stats``.
  chrF ignores whitespace, so plain chrF only changes across levels where a tokenizer changes characters
  (lemmatising analyzers such as Kiwi; jamo).
* TER: ``TER()`` defaults (case-insensitive, no normalisation); statistics ``[num_edits, avg_ref_len]``; score
  ``100 · edits / ref_len``. The statistics come from :mod:`korean_eval.metrics.fast_ter` (identical to sacrebleu's,
  proven by tests) unless ``implementation="sacrebleu"``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER

from korean_eval.metrics.base import Metric, MetricInfo


def _score_rows(compute, stats: np.ndarray) -> np.ndarray:
    """Apply ``compute(list_of_stats) -> Score`` to every row of ``(..., k)``; returns ``(...)``."""
    stats = np.asarray(stats, dtype=np.float64)
    flat = stats.reshape(-1, stats.shape[-1])
    out = np.fromiter((compute(list(row)).score for row in flat), dtype=np.float64, count=len(flat))
    return out.reshape(stats.shape[:-1])


def _signature(metric, nrefs: int) -> str:
    metric.num_refs = nrefs
    return metric.get_signature().format()


class BleuMetric(Metric):
    def __init__(self, max_ngram_order: int = 4):
        self.max_ngram_order = int(max_ngram_order)
        self.info = MetricInfo(
            "bleu", "BLEU", "sacrebleu", True, options={"max_ngram_order": self.max_ngram_order}
        )
        self._corpus = BLEU(tokenize="none", force=True, max_ngram_order=self.max_ngram_order)
        self._sentence = BLEU(tokenize="none", force=True, effective_order=True, max_ngram_order=self.max_ngram_order)

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        stats = self._corpus._extract_corpus_statistics(list(hyps), [list(r) for r in refs])
        return np.asarray(stats, dtype=np.float64).reshape(len(hyps), 2 + 2 * self.max_ngram_order)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return _score_rows(self._sentence._compute_score_from_stats, stats)

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        return _score_rows(self._corpus._compute_score_from_stats, sums)

    def signature(self, nrefs: int) -> str:
        """sacrebleu's BLEU signature, plus ``|ngram:N`` when the order is not sacrebleu's default 4 (which its
        signature does not record)."""
        extra = f"|ngram:{self.max_ngram_order}" if self.max_ngram_order != 4 else ""
        return _signature(self._corpus, nrefs) + extra


class ChrfMetric(Metric):
    LABELS = {0: ("chrf", "chrF"), 1: ("chrf+", "chrF+"), 2: ("chrf++", "chrF++")}

    def __init__(self, char_order: int = 6, word_order: int = 0, beta: int = 2, name: str | None = None):
        self.char_order, self.word_order, self.beta = int(char_order), int(word_order), int(beta)
        default_name, label = self.LABELS.get(self.word_order, (f"chrf-w{self.word_order}", f"chrF (w{self.word_order})"))
        self.info = MetricInfo(
            name or default_name,
            label,
            "sacrebleu",
            True,
            options={"char_order": self.char_order, "word_order": self.word_order, "beta": self.beta},
        )
        self._chrf = CHRF(char_order=self.char_order, word_order=self.word_order, beta=self.beta)
        self._k = 3 * (self.char_order + self.word_order)

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        stats = self._chrf._extract_corpus_statistics(list(hyps), [list(r) for r in refs])
        return np.asarray(stats, dtype=np.float64).reshape(len(hyps), self._k)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return _score_rows(self._chrf._compute_score_from_stats, stats)

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        return _score_rows(self._chrf._compute_score_from_stats, sums)

    def signature(self, nrefs: int) -> str:
        """sacrebleu's chrF signature, plus ``|beta:B`` when β is not sacrebleu's default 2 (which its signature
        does not record)."""
        extra = f"|beta:{self.beta}" if self.beta != 2 else ""
        return _signature(self._chrf, nrefs) + extra


class TerMetric(Metric):
    def __init__(self, implementation: str = "fast", n_jobs: int | None = None):
        if implementation not in ("fast", "sacrebleu"):
            raise ValueError("TER implementation must be 'fast' or 'sacrebleu'")
        self.implementation = implementation
        self.n_jobs = n_jobs
        self.info = MetricInfo(
            "ter",
            "TER",
            "sacrebleu",
            higher_is_better=False,
            corpus_definition="100 × (summed edits) / (summed reference lengths)",
        )
        self._ter = TER()

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        if self.implementation == "sacrebleu":
            stats = self._ter._extract_corpus_statistics(list(hyps), [list(r) for r in refs])
            return np.asarray(stats, dtype=np.float64).reshape(len(hyps), 2)
        from korean_eval.metrics.fast_ter import ter_statistics

        return ter_statistics(list(hyps), [list(r) for r in refs], n_jobs=self.n_jobs).reshape(len(hyps), 2)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return _score_rows(self._ter._compute_score_from_stats, stats)

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        return _score_rows(self._ter._compute_score_from_stats, sums)

    def signature(self, nrefs: int) -> str:
        return _signature(self._ter, nrefs)  # the implementation is not an option: both give identical statistics
