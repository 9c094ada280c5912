"""BLEU, chrF, chrF+, chrF++ and TER through sacrebleu, on token strings (group "sacrebleu", ``docs/design.md §3``).

Definitions (sacrebleu 2.x objects on the space-joined tokens of one level; its statistics are counted by compiled
kernels and its scores computed from them over every row at once, both proven equal to its own by tests, see below):

* BLEU: ``BLEU(tokenize="none", force=True)``; statistics ``[hyp_len, ref_len, correct_1..N, total_1..N]`` from
  ``BLEU._extract_corpus_statistics`` (counted by :mod:`korean_eval.metrics.ngram_statistics`). Segment score: ``BLEU(..., effective_order=True)._compute_score_from_stats``
  (= ``sentence_score``); corpus score: the same with ``effective_order=False`` on the summed statistics
  (= ``corpus_score``). Options: ``max_ngram_order`` (default 4).
* chrF: ``CHRF(char_order=6, word_order=0, beta=2)``; chrF+ ``word_order=1``; chrF++ ``word_order=2``. Statistics
  ``[hyp, ref, match] × (char_order + word_order)`` (counted by :mod:`korean_eval.metrics.ngram_statistics`); segment and corpus scores by ``_compute_score_from_stats``.
  chrF ignores whitespace, so plain chrF only changes across levels where a tokenizer changes characters
  (lemmatising analyzers such as Kiwi; jamo).
* TER: ``TER()`` defaults (case-insensitive, no normalisation); statistics ``[num_edits, avg_ref_len]``; score
  ``100 · edits / ref_len``. The statistics come from :mod:`korean_eval.metrics.fast_ter` (identical to sacrebleu's,
  proven by tests) unless ``implementation="sacrebleu"``.

Scores from statistics (segment and corpus) are sacrebleu's formulas over every row at once
(:mod:`korean_eval.metrics.sacre_formulas`, equal to its ``_compute_score_from_stats`` bit for bit). Their
declarations (:data:`BLEU_DECLARATION`, :data:`CHRF_DECLARATIONS`, :data:`TER_DECLARATION`) hold the registry
names, the overridable options with their defaults and bounds, and TER's runtime settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER

from korean_eval.metrics.base import Metric, MetricInfo
from korean_eval.metrics.declaration import IntOption, MetricDeclaration, RuntimeSetting
from korean_eval.metrics.sacre_formulas import (
    APPROXIMATE_RELATIVE_ERROR,
    bleu_scores,
    chrf_scores,
    ter_scores,
)

BLEU_DECLARATION = MetricDeclaration(
    "bleu", "BLEU", "sacrebleu", True, arguments=(IntOption("max_ngram_order", 4, 1, 9, "maximum n-gram order"),),
    kernels=("korean_eval.metrics.kernels.ngram",),
)


def _chrf_declaration(name: str, label: str, word_order: int) -> MetricDeclaration:
    """chrF with ``word_order`` word n-gram orders by default (chrF 0, chrF+ 1, chrF++ 2)."""
    return MetricDeclaration(
        name,
        label,
        "sacrebleu",
        True,
        arguments=(
            IntOption("char_order", 6, 1, 12, "character n-gram order"),
            IntOption("word_order", word_order, 0, 4, "word (token) n-gram order"),
            IntOption("beta", 2, 1, 5, "recall weight β of the F-score"),
        ),
        kernels=("korean_eval.metrics.kernels.ngram",),
    )


CHRF_DECLARATIONS: tuple[MetricDeclaration, ...] = (
    _chrf_declaration("chrf", "chrF", 0),
    _chrf_declaration("chrf+", "chrF+", 1),
    _chrf_declaration("chrf++", "chrF++", 2),
)
_PLAIN_CHRF = CHRF_DECLARATIONS[0]

TER_DECLARATION = MetricDeclaration(
    "ter",
    "TER",
    "sacrebleu",
    False,
    corpus_definition="100 × (summed edits) / (summed reference lengths)",
    runtime=(
        RuntimeSetting("implementation", "fast", "'fast' (korean_eval.metrics.fast_ter) or 'sacrebleu'"),
        RuntimeSetting("n_jobs", None, "worker threads of the fast implementation (None = all usable cores)"),
    ),
    kernels=("korean_eval.metrics.kernels.ter_shift", "korean_eval.metrics.kernels.ter_band",
             "korean_eval.metrics.kernels.levenshtein"),
    kernels_only_with=("implementation", "fast"),
    run_runtime=True,
    correlation_cap=100.0,
)

# The registry names of the metrics above: the "sacrebleu" group, the command line's default metrics.
SACREBLEU_METRIC_NAMES: tuple[str, ...] = tuple(d.name for d in (BLEU_DECLARATION, *CHRF_DECLARATIONS, TER_DECLARATION))


def _signature(metric, nrefs: int) -> str:
    metric.num_refs = nrefs
    return metric.get_signature().format()


class BleuMetric(Metric):
    """sacrebleu's BLEU on token strings (see the module docstring)."""

    declarations = (BLEU_DECLARATION,)

    def __init__(self, max_ngram_order: int = BLEU_DECLARATION.default("max_ngram_order")):
        self.max_ngram_order = int(max_ngram_order)
        self.info = MetricInfo.declared(BLEU_DECLARATION, {"max_ngram_order": self.max_ngram_order})
        self._corpus = BLEU(tokenize="none", force=True, max_ngram_order=self.max_ngram_order)
        self._sentence = BLEU(tokenize="none", force=True, effective_order=True, max_ngram_order=self.max_ngram_order)

    def work(self, n_refs: int) -> str:
        """Chunks ordered by reference, each distinct reference prepared once."""
        return "reference-chunks"

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        from korean_eval.metrics.ngram_statistics import bleu_statistics, per_segment_references

        return bleu_statistics(self._corpus, list(hyps), *per_segment_references(hyps, refs))

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return bleu_scores(stats, self.max_ngram_order, effective_order=True)

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        return bleu_scores(sums, self.max_ngram_order, effective_order=False)

    approximation_error = APPROXIMATE_RELATIVE_ERROR

    def approximate_scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        return bleu_scores(sums, self.max_ngram_order, effective_order=False, exact=False)

    def signature(self, nrefs: int) -> str:
        """sacrebleu's BLEU signature, plus ``|ngram:N`` when the order is not sacrebleu's default 4 (which its
        signature does not record)."""
        extra = f"|ngram:{self.max_ngram_order}" if self.max_ngram_order != 4 else ""
        return _signature(self._corpus, nrefs) + extra


class ChrfMetric(Metric):
    """sacrebleu's chrF on token strings; chrF+ and chrF++ are the same class with more word n-gram orders.

    The label follows the word order (``word_order=2`` is labelled chrF++ whatever the registry name); a word order
    no declaration has by default is named ``chrf-w<N>`` unless ``name`` is given.
    """

    declarations = CHRF_DECLARATIONS

    def __init__(
        self,
        char_order: int = _PLAIN_CHRF.default("char_order"),
        word_order: int = _PLAIN_CHRF.default("word_order"),
        beta: int = _PLAIN_CHRF.default("beta"),
        name: str | None = None,
    ):
        self.char_order, self.word_order, self.beta = int(char_order), int(word_order), int(beta)
        own = next((d for d in CHRF_DECLARATIONS if d.default("word_order") == self.word_order), None)
        default_name = own.name if own else f"chrf-w{self.word_order}"
        label = own.label if own else f"chrF (w{self.word_order})"
        values = {"char_order": self.char_order, "word_order": self.word_order, "beta": self.beta}
        self.info = replace(MetricInfo.declared(_PLAIN_CHRF, values), name=name or default_name, label=label)
        self._chrf = CHRF(char_order=self.char_order, word_order=self.word_order, beta=self.beta)
        self._k = 3 * (self.char_order + self.word_order)

    def work(self, n_refs: int) -> str:
        """Character blocks with one reference and whitespace not counted (the blocks are then independent)."""
        return "char-blocks" if n_refs == 1 and not self._chrf.whitespace else "whole"

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        from korean_eval.metrics.ngram_statistics import chrf_statistics, per_segment_references

        return chrf_statistics(self._chrf, list(hyps), *per_segment_references(hyps, refs))

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return chrf_scores(stats, self.char_order + self.word_order, self.beta)

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        return chrf_scores(sums, self.char_order + self.word_order, self.beta)

    def signature(self, nrefs: int) -> str:
        """sacrebleu's chrF signature, plus ``|beta:B`` when β is not sacrebleu's default 2 (which its signature
        does not record)."""
        extra = f"|beta:{self.beta}" if self.beta != 2 else ""
        return _signature(self._chrf, nrefs) + extra

    @classmethod
    def from_declaration(
        cls, declaration: MetricDeclaration, options: Mapping[str, int], runtime: Mapping[str, object]
    ) -> Metric:
        """As :meth:`Metric.from_declaration`, named by the declaration (``chrf``, ``chrf+`` or ``chrf++``)."""
        return cls(**declaration.constructor_arguments(options), name=declaration.name)


class TerMetric(Metric):
    """sacrebleu's TER (default options) on token strings, statistics from :mod:`korean_eval.metrics.fast_ter`."""

    declarations = (TER_DECLARATION,)

    def __init__(
        self,
        implementation: str = TER_DECLARATION.default("implementation"),
        n_jobs: int | None = TER_DECLARATION.default("n_jobs"),
    ):
        if implementation not in ("fast", "sacrebleu"):
            raise ValueError("TER implementation must be 'fast' or 'sacrebleu'")
        self.implementation = implementation
        self.n_jobs = n_jobs
        self.info = MetricInfo.declared(TER_DECLARATION, {})
        self._ter = TER()

    def work(self, n_refs: int) -> str:
        """Chunks of pairs with the fast implementation (numba, releasing the GIL)."""
        return "pairs" if self.implementation == "fast" else "whole"

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        if self.implementation == "sacrebleu":
            stats = self._ter._extract_corpus_statistics(list(hyps), [list(r) for r in refs])
            return np.asarray(stats, dtype=np.float64).reshape(len(hyps), 2)
        from korean_eval.metrics.fast_ter import ter_statistics  # numba: imported when TER is computed

        return ter_statistics(list(hyps), [list(r) for r in refs], n_jobs=self.n_jobs).reshape(len(hyps), 2)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return ter_scores(stats)

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        return ter_scores(sums)

    def signature(self, nrefs: int) -> str:
        return _signature(self._ter, nrefs)  # the implementation is not an option: both give identical statistics
