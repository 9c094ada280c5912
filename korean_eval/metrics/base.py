"""The metric interface every registered metric implements.

A metric turns (hypothesis, references) pairs into per-segment *sufficient statistics* — a fixed-length float vector
per segment — and knows two ways to turn statistics into scores:

* ``segment_scores(stats)``: one score per row of an ``(n, k)`` array (the sentence-level score);
* ``scores_from_sums(sums)``: the corpus (system) score from statistics *summed over segments*; vectorised over
  leading axes, ``(..., k)`` → ``(...)``, so a bootstrap can score many resamples at once. System scores always come
  from summed statistics, never from averaging segment scores.

Both hypotheses and references arrive as *token strings*: the tokens of one token level joined by single spaces
(``docs/design.md §3``). ``refs`` is a list of reference streams (multi-reference as in sacrebleu): ``refs[j][i]``
is the j-th reference of segment i.

Every metric's corpus score must be a function of summed statistics. A metric whose corpus score is a mean of
sentence scores (e.g. RIBES) uses the statistics ``(sentence_score, 1)`` so that ``sum / count`` is that mean, and
says so in ``corpus_definition``.

A metric class declares what it is (``declarations``: registry name, group, direction, options; see
:mod:`korean_eval.metrics.declaration`) and describes each instance by a :class:`MetricInfo`.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from korean_eval.daemon_threads import map_on_threads
from korean_eval.metrics.declaration import SUMMED_STATISTICS, MetricDeclaration, ParameterValue


@dataclass(frozen=True)
class MetricInfo:
    """Static description of a metric.

    Attributes:
        name: stable lower-case registry/CLI name, e.g. ``"chrf++"``.
        label: display name, e.g. ``"chrF++"``.
        group: ``"sacrebleu"`` or ``"extended"`` (the dashboard's metric-group toggle).
        higher_is_better: False for error rates (TER, CharacTER, EED); their correlations with humans are negative
            when they agree with humans.
        corpus_definition: one sentence stating how the system score is computed from segment statistics.
        options: the value of every option and parameter of the instance (part of its cache key).
    """

    name: str
    label: str
    group: str
    higher_is_better: bool = True
    corpus_definition: str = SUMMED_STATISTICS
    options: dict = field(default_factory=dict)

    @classmethod
    def declared(cls, declaration: MetricDeclaration, values: Mapping[str, ParameterValue]) -> MetricInfo:
        """The info of an instance of ``declaration`` whose options and parameters have ``values`` (exactly the
        declared ones; ``options`` lists them in the declaration's order)."""
        declared = declaration.defaults
        if set(values) != set(declared):
            raise ValueError(f"{declaration.name}: values for {sorted(values)}, declared {sorted(declared)}")
        return cls(declaration.name, declaration.label, declaration.group, declaration.higher_is_better,
                   declaration.corpus_definition, options={name: values[name] for name in declared})


def run_chunked(n_items: int, chunk: int, jobs: int, run: Callable[[int, int], None]) -> None:
    """Call ``run(lo, hi)`` on consecutive slices ``[lo, hi)`` of ``chunk`` items covering ``range(n_items)``: in
    order, in this thread, when ``jobs == 1`` or all items fit one chunk; otherwise on ``min(jobs, number of
    chunks)`` daemon threads (for numba kernels that release the GIL; daemon threads, so that an exiting process
    does not first run the remaining chunks: :mod:`korean_eval.daemon_threads`). Either way a call sees one chunk
    (a caller may build per-chunk working data, e.g. fast TER's encodings). Exceptions propagate."""
    if jobs == 1 or n_items <= chunk:
        for lo in range(0, n_items, chunk):
            run(lo, min(lo + chunk, n_items))
        return
    map_on_threads(lambda lo: run(lo, min(lo + chunk, n_items)), range(0, n_items, chunk), jobs)


def resolve_jobs(n_jobs: int | None) -> int:
    """Number of worker threads for ``n_jobs`` (``None`` = all usable cores); ``ValueError`` below 1."""
    if n_jobs is None:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - non-Linux
            return max(1, os.cpu_count() or 1)
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be >= 1 or None, got {n_jobs}")
    return n_jobs


Tokens = list[str]


def tokens_of(text: str) -> Tokens:
    """The tokens of a token string: ``text.split(" ")``, and no tokens for the empty string."""
    return text.split(" ") if text else []


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Elementwise ``num / den`` (float64, broadcast) with 0 where ``den == 0``."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def segment_references(hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> list[list[str]]:
    """Transpose sacrebleu-layout reference streams to one list of reference strings per segment.

    ``None`` references are dropped (a variable number of references per segment). Raises ``ValueError`` if there
    is no stream, a stream's length differs from ``len(hyps)``, or a segment has no reference at all.
    """
    if len(refs) == 0:
        raise ValueError("at least one reference stream is needed")
    for j, stream in enumerate(refs):
        if len(stream) != len(hyps):
            raise ValueError(f"reference stream {j} has {len(stream)} segments, hypotheses have {len(hyps)}")
    out: list[list[str]] = []
    for i in range(len(hyps)):
        seg = [stream[i] for stream in refs if stream[i] is not None]
        if not seg:
            raise ValueError(f"segment {i} has no reference (all references are None)")
        out.append(seg)  # type: ignore[arg-type]
    return out


#: How a metric's statistics are cut into tasks (:meth:`Metric.work`): ``"whole"`` all its pairs in one task (with
#: the reference corpus when the metric needs it); ``"pairs"`` chunks of pairs, one thread each (or this process's
#: threads in a small run); ``"reference-chunks"`` chunks ordered by reference, each distinct reference prepared
#: once (BLEU); ``"char-blocks"`` character blocks shared by every level with the same characters and word blocks
#: once per level (the chrF family with one reference).
WORK_KINDS: tuple[str, ...] = ("whole", "pairs", "reference-chunks", "char-blocks")


class Metric(ABC):
    """Base class of all metrics. Subclasses are cheap to construct and stateless after construction.

    A registered subclass lists its :class:`MetricDeclaration` objects in ``declarations`` and takes its
    constructor defaults from them.
    """

    declarations: ClassVar[tuple[MetricDeclaration, ...]] = ()
    info: MetricInfo

    @classmethod
    def from_declaration(
        cls, declaration: MetricDeclaration, options: Mapping[str, int], runtime: Mapping[str, object]
    ) -> Metric:
        """The metric ``declaration`` (one of :attr:`declarations`) describes, with validated ``options`` (the
        others at their declared defaults) and declared ``runtime`` settings."""
        return cls(**declaration.constructor_arguments(options), **runtime)

    @property
    def name(self) -> str:
        return self.info.name

    def work(self, n_refs: int) -> str:
        """How its statistics are cut into tasks with ``n_refs`` references: one of :data:`WORK_KINDS`."""
        return "whole"

    @abstractmethod
    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Return an ``(len(hyps), k)`` float64 array of sufficient statistics, one row per segment."""

    @abstractmethod
    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """Sentence-level score of each row of ``stats`` (shape ``(n, k)`` → ``(n,)``)."""

    @abstractmethod
    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """Corpus-level score(s) from summed statistics: ``(..., k)`` → ``(...)``."""

    #: Bound on the relative error of :meth:`approximate_scores_from_sums` (0: it is exact).
    approximation_error: float = 0.0

    def approximate_scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """:meth:`scores_from_sums` within a relative error of :attr:`approximation_error`, for callers that compare
        many scores and recompute the close calls exactly (approximate randomization). Default: the exact scores."""
        return self.scores_from_sums(sums)

    def corpus_score(self, stats: np.ndarray) -> float:
        """Corpus-level (system) score of the segments whose statistics are the rows of ``stats`` (shape ``(n, k)``)."""
        return float(self.scores_from_sums(np.asarray(stats, dtype=np.float64).sum(axis=0)))

    def system_scores(self, stats: np.ndarray, present: np.ndarray) -> np.ndarray:
        """Each system's :meth:`corpus_score` over its ``present`` segments, in segment order: ``stats``
        ``(systems, segments, k)``, ``present`` ``(systems, segments)`` → ``(systems,)``, NaN for a system without
        any present segment."""
        return np.array([self.corpus_score(stats[s][present[s]]) if present[s].any() else np.nan for s in range(len(present))])

    def unscored_reason(self) -> str:
        """Why :meth:`segment_statistics` may leave a segment unscored (a row with a NaN): the run's notes count such
        pairs per level × metric and give this reason (``docs/design.md §2``). A metric that has such a rule (e.g.
        CharacTER's length guard) names it here."""
        return "the metric gave no statistics"

    @abstractmethod
    def signature(self, nrefs: int) -> str:
        """The metric's reproducibility signature (without the token level part), e.g. sacrebleu's."""

    def prepare(self, references: Sequence[Sequence[str]]) -> str:
        """Called once per evaluation, before any statistics, with every segment's references (token strings), each
        segment once: ``references[i]`` = the references of segment ``i``.

        Metrics whose statistics depend on the whole reference corpus (NIST's information weights) keep what they
        need and return a digest of it, which becomes part of the statistics' cache key; the others return ``""``.
        """
        return ""

    def options_key(self) -> str:
        """A string identifying every option that changes the statistics or the segment scores (cache keys): the
        signature plus every user-settable option (``info.options``), since a signature may leave some out
        (sacrebleu's omits BLEU's n-gram order and chrF's β)."""
        options = ",".join(f"{k}={v}" for k, v in sorted(self.info.options.items()))
        return f"{self.signature(1)}|options:{options}"


class SentenceMeanMetric(Metric):
    """A metric whose corpus score is the mean of its sentence scores: statistics ``[sentence score, 1]``."""

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """Mean sentence score ``sum / count`` (0 for a zero count)."""
        sums = np.asarray(sums, dtype=np.float64)
        return safe_divide(sums[..., 0], sums[..., 1])

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """The sentence scores (first column)."""
        return np.asarray(stats, dtype=np.float64)[..., 0].copy()
