"""BLEU's and chrF's sufficient statistics, counted by :mod:`korean_eval.metrics.kernels.ngram`: the same numbers
as sacrebleu's ``_extract_corpus_statistics`` (which counts n-grams in Python ``Counter``s), computed faster
(``benchmarks/README.md``).

sacrebleu's own objects still pre-process every segment (``_preprocess_segment``:
lower-casing, BLEU's ``rstrip`` and tokenizer, chrF's ``_remove_punctuation``), and still turn the statistics into
scores; only the counting is compiled. Tests (``tests/unit/metrics/test_ngram_statistics.py``) prove the arrays equal to
sacrebleu's on the study's data at every token level and on generated edge cases.

Statistics, per segment, as sacrebleu 2.x defines them:

* BLEU (``BLEU._compute_segment_statistics``): ``[hyp_len, ref_len, correct_1..N, total_1..N]`` where the lengths
  count the tokens of ``str.split()``, ``ref_len`` is the reference length closest to ``hyp_len`` (the shorter one
  on a tie; sacrebleu's own ``_get_closest_ref_len``), ``correct_n`` the clipped matches ``m_n`` against all references at once (a reference n-gram count is
  the highest over the references) and ``total_n = max(0, hyp_len − n + 1)``.
* chrF (``CHRF._compute_segment_statistics``): ``[n_hyp, n_ref, n_match]`` for every character order ``1..c``
  (characters of the segment with ``str.split()`` whitespace removed unless ``whitespace=True``), then every word
  order ``1..w`` (words of ``_remove_punctuation``); ``n_ref = max(0, |ref| − n + 1)``, ``n_match`` the clipped
  matches against that one reference, and ``n_hyp = max(0, |hyp| − n + 1)`` if the reference has an n-gram of that
  order, else 0. With several references, the statistics of the first reference with the highest
  ``CHRF._compute_f_score``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np

from korean_eval.metrics.kernels.ngram import clipped_matches

MAX_KEY = 2**62  # an n-gram key, (rank of its prefix) · V + symbol, must stay below this


class _Vocabulary(dict):
    """Token → dense integer id, a new id for every unseen token."""

    def __missing__(self, token: str) -> int:
        self[token] = value = len(self)
        return value


class _Texts:
    """Symbol sequences, each text once, flattened: text ``t`` is ``symbols[start[t] : start[t + 1]]``."""

    def __init__(self, symbols: np.ndarray, lengths: np.ndarray, n_symbols: int):
        self.symbols, self.lengths = symbols.astype(np.int64, copy=False), lengths.astype(np.int64, copy=False)
        self.start = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=self.start[1:])
        self.n_symbols = max(1, n_symbols)

    def matches(self, pairs: list[list[int]], max_order: int) -> np.ndarray:
        """Clipped matches ``m_1..m_max_order`` of each pair (a list of text indices, the hypothesis first)."""
        longest = max((int(self.lengths[p].sum()) for p in pairs), default=0)
        if max(longest, self.n_symbols) * self.n_symbols >= MAX_KEY:
            raise ValueError(f"n-gram keys would overflow: {longest} symbols in a pair, {self.n_symbols} distinct")
        start = np.zeros(len(pairs) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in pairs], out=start[1:])
        flat = np.fromiter((t for p in pairs for t in p), dtype=np.int64, count=int(start[-1]))
        return clipped_matches(self.symbols, self.start, flat, start, max_order, self.n_symbols)


def _token_texts(token_lists: Sequence[list[str]]) -> _Texts:
    """Each token a dense id (in order of first occurrence)."""
    vocabulary = _Vocabulary()
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    ids = np.fromiter(map(vocabulary.__getitem__, chain.from_iterable(token_lists)), dtype=np.int64,
                      count=int(lengths.sum()))
    return _Texts(ids, lengths, len(vocabulary))


def _character_texts(strings: Sequence[str]) -> _Texts:
    """Code points of each string (one UTF-32 encoding of them all)."""
    points = np.frombuffer("".join(strings).encode("utf-32-le"), dtype=np.uint32)
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    return _Texts(points, lengths, int(points.max()) + 1 if points.size else 1)


def _ngram_totals(lengths: np.ndarray, max_order: int) -> np.ndarray:
    """``max(0, length − n + 1)`` for ``n = 1 … max_order``: an ``(len(lengths), max_order)`` array."""
    return np.maximum(0, lengths[:, None] - np.arange(max_order)[None, :])


def _references(unique_refs: Sequence[tuple[str | None, ...]]) -> list[list[str]]:
    """The references of each distinct reference tuple, ``None`` dropped (as sacrebleu's ``_cache_references``)."""
    return [[r for r in refs if r is not None] for refs in unique_refs]


def per_segment_references(hyps: Sequence[str], refs: Sequence[Sequence[str | None]]
                           ) -> tuple[list[int], list[tuple[str | None, ...]]]:
    """sacrebleu-layout reference streams (``refs[j][i]``) as the ``(ref_index, unique_refs)`` arguments of
    :func:`bleu_statistics` and :func:`chrf_statistics`: one tuple per segment. ``ValueError`` when a stream's
    length differs from the hypotheses'."""
    for j, stream in enumerate(refs):
        if len(stream) != len(hyps):
            raise ValueError(f"reference stream {j} has {len(stream)} segments, hypotheses have {len(hyps)}")
    return list(range(len(hyps))), list(zip(*refs, strict=True)) if refs else [() for _ in hyps]


def bleu_statistics(bleu, hyps: Sequence[str], ref_index: Sequence[int],
                    unique_refs: Sequence[tuple[str | None, ...]]) -> np.ndarray:
    """``np.array(bleu._extract_corpus_statistics(hyps, refs))`` for the sacrebleu ``BLEU`` object ``bleu``, where
    hypothesis ``i``'s references are ``unique_refs[ref_index[i]]``; ``(len(hyps), 2 + 2N)`` float64."""
    order = bleu.max_ngram_order
    refs = [[bleu._preprocess_segment(r) for r in rs] for rs in _references(unique_refs)]
    ref_first = np.zeros(len(refs) + 1, dtype=np.int64)
    np.cumsum([len(rs) for rs in refs], out=ref_first[1:])
    n_hyps = len(hyps)
    texts = _token_texts([bleu._preprocess_segment(h).split() for h in hyps] + [r.split() for rs in refs for r in rs])
    pairs = [[i, *range(n_hyps + ref_first[j], n_hyps + ref_first[j + 1])] for i, j in enumerate(ref_index)]
    hyp_len = texts.lengths[:n_hyps]
    ref_lens = texts.lengths[n_hyps:]
    closest = [bleu._get_closest_ref_len(int(hyp_len[i]), ref_lens[ref_first[j] : ref_first[j + 1]].tolist())
               for i, j in enumerate(ref_index)]
    out = np.empty((n_hyps, 2 + 2 * order), dtype=np.float64)
    out[:, 0] = hyp_len
    out[:, 1] = closest
    out[:, 2 : 2 + order] = texts.matches(pairs, order) if n_hyps else 0
    out[:, 2 + order :] = _ngram_totals(hyp_len, order)
    return out


def chrf_statistics(chrf, hyps: Sequence[str], ref_index: Sequence[int],
                    unique_refs: Sequence[tuple[str | None, ...]]) -> np.ndarray:
    """``np.array(chrf._extract_corpus_statistics(hyps, refs))`` for the sacrebleu ``CHRF`` object ``chrf``, where
    hypothesis ``i``'s references are ``unique_refs[ref_index[i]]``; ``(len(hyps), 3 · (c + w))`` float64."""
    refs = [[chrf._preprocess_segment(r) for r in rs] for rs in _references(unique_refs)]
    ref_first = np.zeros(len(refs) + 1, dtype=np.int64)
    np.cumsum([len(rs) for rs in refs], out=ref_first[1:])
    segments = [chrf._preprocess_segment(h) for h in hyps] + [r for rs in refs for r in rs]
    n_hyps = len(hyps)
    # one row per (hypothesis, one of its references): chrF scores each reference on its own
    rows = [(i, n_hyps + k) for i, j in enumerate(ref_index) for k in range(ref_first[j], ref_first[j + 1])]
    blocks = []
    if chrf.char_order:
        squeeze: Callable[[str], str] = (lambda s: s) if chrf.whitespace else (lambda s: "".join(s.split()))
        blocks.append(_block(_character_texts([squeeze(s) for s in segments]), rows, chrf.char_order))
    if chrf.word_order:
        blocks.append(_block(_token_texts([chrf._remove_punctuation(s) for s in segments]), rows,
                             chrf.word_order))
    per_row = np.concatenate(blocks, axis=1) if blocks else np.zeros((len(rows), 0), dtype=np.int64)
    return _best_reference(chrf, per_row, [i for i, _ in rows], n_hyps)


def _block(texts: _Texts, rows: list[tuple[int, int]], order: int) -> np.ndarray:
    """``[n_hyp, n_ref, n_match]`` per order of each (hypothesis, reference) row: ``(len(rows), 3 · order)``."""
    out = np.zeros((len(rows), order, 3), dtype=np.int64)
    if rows:
        hyp = np.array([h for h, _ in rows], dtype=np.int64)
        ref = np.array([r for _, r in rows], dtype=np.int64)
        n_ref = _ngram_totals(texts.lengths[ref], order)
        out[:, :, 0] = np.where(n_ref > 0, _ngram_totals(texts.lengths[hyp], order), 0)
        out[:, :, 1] = n_ref
        out[:, :, 2] = texts.matches([list(r) for r in rows], order)
    return out.reshape(len(rows), 3 * order)


def _best_reference(chrf, per_row: np.ndarray, row_hyp: list[int], n_hyps: int) -> np.ndarray:
    """Per hypothesis, the row of its first reference with the highest f-score (sacrebleu's strict ``>`` from
    ``-1``); the only row when there is one reference."""
    out = np.zeros((n_hyps, per_row.shape[1]), dtype=np.float64)
    if row_hyp == list(range(n_hyps)):  # one reference each: the rows are the hypotheses', in order
        out[:] = per_row
        return out
    best_f = np.full(n_hyps, -1.0)
    for k, i in enumerate(row_hyp):
        f = chrf._compute_f_score(per_row[k].tolist())
        if f > best_f[i]:
            best_f[i], out[i] = f, per_row[k]
    return out
