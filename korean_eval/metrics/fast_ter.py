"""Exact, fast sentence-level TER statistics: a numba re-implementation of sacrebleu 2.6.0's TER (Snover et al.
2006, "A Study of Translation Edit Rate with Targeted Human Annotation", as ``sacrebleu/metrics/lib_ter.py`` and
``sacrebleu/metrics/ter.py`` compute it; docs/design.md §3).

:func:`ter_statistics` returns, per segment, sacrebleu's two TER statistics of ``_extract_corpus_statistics`` --
``num_edits`` (the fewest edits over the references) and ``ref_length`` (the *average* reference length) --
bit-for-bit identical for every option (``case_sensitive``, ``normalized``, ``no_punct``, ``asian_support``).
:func:`ter_statistics_sacrebleu` computes the same array with sacrebleu itself (the reference implementation).

Reproduced exactly:

* Pre-processing by sacrebleu's own ``TercomTokenizer``, on ``hyp.rstrip()`` and -- as sacrebleu does
  (``_cache_references`` and ``_extract_reference_info`` both pre-process) -- twice on references. ``None``
  references are dropped (a variable number of references per segment).
* The greedy shift search: beam edit distance around the pseudo-diagonal (beam width 25, widened to
  ``ceil(ratio / 2 + 25)`` for very unequal lengths, last row unbounded on the right), shift sizes 1..10,
  ``|start_r - start_h| <= 50``, the Tercom filters (hypothesis and reference span both contain errors, target
  not inside the span), targets from the flipped trace's alignment (``align == -1`` for leading deletions
  included), repeated targets skipped, ``_perform_shift``'s slicing and clamping, the ranking key
  ``(gain, length, -start_h, -target)`` with strict ``>`` (the first wins ties), the budget of 1000 evaluated
  candidates over all rounds (the round that reaches it discards its best shift, as sacrebleu does), and the
  back-trace's tie-breaks (substitution/match, then deletion, then insertion).
* Several references: ``num_edits`` is the minimum, ``ref_length`` is ``sum(ref lengths) / n_refs``; an empty
  reference scores ``(len(hyp), 0)``.

Why the fast computation is still exact (forward and backward band matrices per shift round, candidates
enumerated before any is scored, one serial kernel per pair on threads): docs/design.md §3, "The fast TER". The
kernels are in :mod:`korean_eval.metrics.kernels.ter_shift` and :mod:`korean_eval.metrics.kernels.ter_band`; they
are compiled once into numba's cache (:func:`korean_eval.engine.cache.configure_numba_cache`), never into the
package. Speed: benchmarks/README.md.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from functools import lru_cache, partial

import numpy as np
from sacrebleu.metrics.ter import TER
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from korean_eval.metrics.base import resolve_jobs, run_chunked
from korean_eval.metrics.kernels.ter_shift import ter_batch

__all__ = ["ter_statistics", "ter_statistics_sacrebleu"]

# Segments per task submitted to the thread pool: each task encodes its segments (Python, holding the GIL) and
# counts their edits (numba, GIL released), so one thread encodes while the other counts, and only the chunks in
# flight are ever encoded (a WMT-sized jamo level encoded at once held ≈ 0.25 GB of ids).
_CHUNK_SEGMENTS = 32


@lru_cache(maxsize=16)
def _tokenizer(case_sensitive: bool, normalized: bool, no_punct: bool, asian_support: bool) -> TercomTokenizer:
    """One shared sacrebleu TercomTokenizer per option combination (its lru_cache is keyed on the instance)."""
    return TercomTokenizer(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                           case_sensitive=case_sensitive)


def _check_inputs(hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> None:
    """Raise ``ValueError`` unless every reference stream is aligned with ``hyps`` and each segment has a reference."""
    if len(refs) == 0:
        raise ValueError("TER needs at least one reference stream")
    for j, stream in enumerate(refs):
        if len(stream) != len(hyps):
            raise ValueError(f"reference stream {j} has {len(stream)} segments, hypotheses have {len(hyps)}")
    for i in range(len(hyps)):
        if all(stream[i] is None for stream in refs):
            raise ValueError(f"segment {i} has no reference (all references are None)")


class _EncodedPairs:
    """Every (hypothesis, reference) pair as slices of one flat array of token ids (ids per segment, so that string
    equality is id equality), after sacrebleu's Tercom pre-processing, and each segment's average reference length.

    The pre-processing is ``TercomTokenizer.__call__`` itself, called past its ``lru_cache`` (65,536 entries),
    which would keep that many paragraphs alive after the run; here every distinct text is pre-processed once
    anyway. Ids are stored as 32-bit integers as they come."""

    def __init__(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]], tok: TercomTokenizer,
                 ref_words: dict[str, list[str]]):
        ids = array("i")
        cols: dict[str, list[int]] = {k: [] for k in ("hs", "he", "rs", "re", "seg")}
        self.ref_len_avg = np.empty(len(hyps), np.float64)
        uncached = partial(TercomTokenizer.__call__.__wrapped__, tok)
        for i, hyp in enumerate(hyps):
            vocab: dict[str, int] = {}
            h0 = len(ids)
            ids.extend(vocab.setdefault(w, len(vocab)) for w in uncached(hyp.rstrip()).split())
            h1 = len(ids)
            lengths = []
            for ref in (stream[i] for stream in refs if stream[i] is not None):
                words = ref_words.get(ref)  # a reference of many systems is pre-processed once
                if words is None:
                    # sacrebleu pre-processes references twice (_cache_references, then _extract_reference_info).
                    words = ref_words[ref] = uncached(uncached(ref.rstrip()).rstrip()).split()
                r0 = len(ids)
                ids.extend(vocab.setdefault(w, len(vocab)) for w in words)
                for key, value in (("hs", h0), ("he", h1), ("rs", r0), ("re", len(ids)), ("seg", i)):
                    cols[key].append(value)
                lengths.append(len(words))
            self.ref_len_avg[i] = sum(lengths) / len(lengths)
        self.tokens = np.frombuffer(ids, dtype=np.int32) if len(ids) else np.zeros(0, np.int32)
        self.cols = {k: np.asarray(v, dtype=np.int64) for k, v in cols.items()}
        self.segment = self.cols["seg"]

    def fewest_edits(self, n_segments: int) -> np.ndarray:
        """Per segment, the fewest TER edits over its references (the kernel releases the GIL)."""
        c = self.cols
        edits = np.empty(len(self.segment), np.int64)
        ter_batch(self.tokens, c["hs"], c["he"], c["rs"], c["re"], edits)
        best = np.full(n_segments, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(best, self.segment, edits)
        return best


def ter_statistics(hyps: Sequence[str], refs: Sequence[Sequence[str | None]], *, case_sensitive: bool = False,
                   normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                   n_jobs: int | None = None) -> np.ndarray:
    """Per-segment TER sufficient statistics, identical to sacrebleu's but much faster.

    Args:
        hyps: hypothesis strings (tokens joined by single spaces).
        refs: reference streams; ``refs[j][i]`` is the j-th reference of segment ``i``. A reference may be
            ``None`` (dropped, as in sacrebleu), but every segment needs at least one.
        case_sensitive, normalized, no_punct, asian_support: sacrebleu ``TER`` options (Tercom tokenizer).
        n_jobs: worker threads; ``None`` uses all usable cores. The result does not depend on it.

    Returns:
        ``(len(hyps), 2)`` float64 array with columns ``num_edits`` (fewest edits over the references) and
        ``ref_length`` (average reference length), equal to
        ``np.array(sacrebleu.metrics.TER(<same options>)._extract_corpus_statistics(hyps, refs))``.

    Raises:
        ValueError: no reference stream, a stream whose length differs from ``len(hyps)``, a segment whose
            references are all ``None``, or ``n_jobs < 1``.
    """
    _check_inputs(hyps, refs)
    jobs = resolve_jobs(n_jobs)
    tok = _tokenizer(case_sensitive, normalized, no_punct, asian_support)
    ref_words: dict[str, list[str]] = {}
    out = np.empty((len(hyps), 2), np.float64)

    def run(lo: int, hi: int) -> None:
        pairs = _EncodedPairs(hyps[lo:hi], [stream[lo:hi] for stream in refs], tok, ref_words)
        out[lo:hi, 0] = pairs.fewest_edits(hi - lo)
        out[lo:hi, 1] = pairs.ref_len_avg

    run_chunked(len(hyps), _CHUNK_SEGMENTS, jobs, run)
    return out


def ter_statistics_sacrebleu(hyps: Sequence[str], refs: Sequence[Sequence[str | None]], *,
                             case_sensitive: bool = False, normalized: bool = False, no_punct: bool = False,
                             asian_support: bool = False, n_jobs: int | None = None) -> np.ndarray:
    """Reference implementation of :func:`ter_statistics`: sacrebleu's own (slow) TER, same inputs and output.

    ``n_jobs`` is accepted for signature compatibility and ignored (sacrebleu runs single-threaded). Input
    validation is the same as in :func:`ter_statistics`.
    """
    _check_inputs(hyps, refs)
    resolve_jobs(n_jobs)
    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                 case_sensitive=case_sensitive)
    stats = metric._extract_corpus_statistics(hyps, refs)
    return np.asarray(stats, dtype=np.float64).reshape(len(hyps), 2)
